#!/bin/sh
# debian-vm.sh [--release RELEASE] DIR [KERNEL_DEB_DIR]: a Debian guest's
# disk images, DIR/debian.img and, with KERNEL_DEB_DIR (make kernel-deb's
# directory), DIR/distro.img.  RELEASE is bookworm (Debian 12, the
# default) or trixie (Debian 13); DIR/release says which.  Both releases
# get the same two packages, built once on this (Debian 12) machine.
#
# 1. DIR/rootfs: debootstrap --variant=minbase RELEASE plus systemd, apt,
#    gcc, make, mold and what the tests use, from the machine's configured
#    Debian mirror, and the tools package's dependencies (its Depends
#    field, installed by apt-get, which picks the release's provider of a
#    renamed library, such as trixie's libauparse0t64 for libauparse0), so
#    that dpkg -i finds them as apt would have installed them.  Made once
#    (the network is used only here), kept with DIR/rootfs.stamp; its
#    download time and size are printed and kept in DIR/rootfs.info.
#    apt's lists and one .deb (REINSTALL below) stay in its cache, so that
#    "apt-get install --reinstall" works offline.
# 2. (made first) build/deb/denywrite-tools_<version>_amd64.deb, by "make
#    deb", when its sources changed.
# 3. DIR/debian.img: a copy of the rootfs with the package installed by
#    dpkg -i in a chroot (its unit enabled), a root login without password
#    on the serial console, the test hook of tests/debian/hook (it does
#    nothing unless the kernel command line has dwdebian=), written into a
#    sparse ext4 image by mke2fs -d.  Redone when the rootfs, the package
#    or the hook changed.
# 4. DIR/rootfs-distro: a copy of the rootfs with what the distribution
#    kernel's boots add (DISTRO_PACKAGES below: AppArmor and its
#    profiles, initramfs-tools, bpftool), from the mirror, made once and
#    kept with DIR/rootfs-distro.stamp.
# 5. DIR/distro.img: a copy of rootfs-distro with the tools package and
#    the kernel package of KERNEL_DEB_DIR installed by dpkg -i in a
#    chroot, as Debian installs its kernels: the package's postinst runs
#    the /etc/kernel/postinst.d hooks, whose initramfs-tools hook makes
#    /boot/initrd.img-<release> with update-initramfs.  The two packages
#    must come from the same commit (the kernel's version ends in
#    "+dw<the tools' version>", or that and ".dirty" when the kernel's
#    inputs had changes).  The rest as in 3.  Then the image's own
#    /boot/vmlinuz-<release> and /boot/initrd.img-<release> are read out
#    of the ext4 image (debugfs) into DIR/distro-boot/, which the boots
#    give QEMU (-kernel, -initrd) as a boot loader would load them.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
if [ "${1:-}" = --release ]; then
	suite=${2:-}
	shift 2 || true
fi
case $suite in
bookworm | trixie) ;;
*)
	echo "debian-vm: unknown release '$suite' (bookworm or trixie)" >&2
	exit 2
	;;
esac
[ $# -ge 1 ] || { echo "usage: $0 [--release bookworm|trixie] DIR [KERNEL_DEB_DIR]" >&2; exit 2; }
dir=$(realpath -m "$1")
rootfs=$dir/rootfs
# gcc without libc6-dev builds nothing; udev tags the serial port that
# serial-getty@ttyS0 waits for; dbus for logind (else the system is
# "degraded"); procps for ps and pgrep in the tests.
include="systemd systemd-sysv udev dbus dpkg apt gcc libc6-dev make mold
procps"
# The package whose .deb stays in the apt cache: a library every systemd
# process maps (the test reinstalls it while they run).
reinstall=libzstd1
image_size=3G
# The distribution kernel's boots: AppArmor (its parser, aa-status and the
# profiles of apparmor-profiles' base set that Debian installs with it),
# initramfs-tools and zstd (its default compression), bpftool.
distro_packages="apparmor initramfs-tools zstd bpftool"

need() {	# need PACKAGE...: apt-get install the missing ones (as root)
	missing=
	for p in "$@"; do
		dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	echo "debian-vm: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# The host's Debian archive: the first main archive of a Debian release
# in its apt sources (deb822 or one-line format), else deb.debian.org.
# Every release comes from there: the archive has them all.
mirror() {
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
		function found() { return uri != "" && suites ~ /(^| )(bookworm|trixie)( |$)/ && uri !~ /security/ }
		/^[[:space:]]*$/ { if (found()) { print uri; exit } uri = ""; suites = ""; next }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { $1 = ""; suites = $0 " " }
		END { if (found()) print uri }' | head -n1)
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list 2>/dev/null |
		awk '$1 == "deb" && $3 ~ /^(bookworm|trixie)$/ { print $2; exit }')
	echo "${m:-http://deb.debian.org/debian}"
}

in_root() {	# in_root ROOT COMMAND...: run COMMAND chrooted, with /proc
	r=$1
	shift
	mount -t proc proc "$r/proc"
	rc=0
	DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 chroot "$r" "$@" || rc=$?
	umount "$r/proc"
	return $rc
}

# deps DEB: the packages DEB depends on, without versions; of a choice
# (a | b), the first.
deps() {
	dpkg-deb -f "$1" Depends | tr ',' '\n' |
		sed 's/|.*//; s/(.*)//; s/[[:space:]]//g' | grep . | LC_ALL=C sort | paste -sd' ' -
}

make_rootfs() {	# make_rootfs TOOLS-DEB
	url=$(mirror)
	tools_deps=$(deps "$1")
	want="$suite minbase $(echo $include) $reinstall deps: $tools_deps $url"
	if [ -f "$rootfs.stamp" ] && [ "$(cat "$rootfs.stamp")" = "$want" ]; then
		echo "debian-vm: rootfs: cached ($(cat "$dir/rootfs.info"))"
		return 0
	fi
	need debootstrap
	echo "debian-vm: rootfs: debootstrap $suite from $url"
	tmp=$rootfs.tmp
	rm -rf "$rootfs" "$tmp" "$rootfs.stamp"
	mkdir -p "$dir"
	t0=$(date +%s)
	debootstrap --variant=minbase --include="$(echo $include | tr ' ' ,)" \
		"$suite" "$tmp" "$url" >"$dir/debootstrap.log" 2>&1 || {
		tail -n 20 "$dir/debootstrap.log" >&2
		echo "debian-vm: debootstrap failed, see $dir/debootstrap.log" >&2
		exit 1
	}
	# What was downloaded: the packages debootstrap leaves in apt's cache.
	debs=$(ls "$tmp"/var/cache/apt/archives/*.deb | wc -l)
	mib=$(du -cm "$tmp"/var/cache/apt/archives/*.deb | tail -n1 | cut -f1)
	# Fresh apt lists, the tools package's dependencies and the one .deb
	# the offline reinstall needs.
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	in_root "$tmp" sh -c "apt-get update -qq &&
		apt-get install -qq -y --no-install-recommends $tools_deps &&
		apt-get clean &&
		apt-get install -qq -y --reinstall --download-only $reinstall" \
		>>"$dir/debootstrap.log" 2>&1 || {
		echo "debian-vm: apt-get in the new root failed, see $dir/debootstrap.log" >&2
		exit 1
	}
	secs=$(($(date +%s) - t0))
	rm -f "$tmp/etc/resolv.conf"
	size=$(du -sm "$tmp" | cut -f1)
	echo "downloaded $debs packages ($mib MiB) and apt's lists in $secs s;" \
		"root file system $size MiB" >"$dir/rootfs.info"
	grep -qx "VERSION_CODENAME=$suite" "$tmp/etc/os-release" || {
		echo "debian-vm: the new root is not $suite: $(grep VERSION_CODENAME "$tmp/etc/os-release")" >&2
		exit 1
	}
	mv "$tmp" "$rootfs"
	echo "$want" >"$rootfs.stamp"
	echo "debian-vm: rootfs: $(cat "$dir/rootfs.info")"
}

# The package: "make deb" again only when what it is made of changed.
make_package() {
	# Its version too: it names the commit, which the kernel package's
	# version must name as well (make_distro_image).
	sum=$(cd "$top" && { policy-tool/version.sh; find debian policy-tool tests/host -type f \
		! -name '*.o' ! -path 'policy-tool/denywritectl' ! -name '*.8' |
		LC_ALL=C sort | xargs cat; } | sha256sum | cut -c1-16)
	deb=$(ls "$top"/build/deb/denywrite-tools_*_amd64.deb 2>/dev/null | head -n1)
	if [ -z "$deb" ] || [ "$(cat "$top/build/deb/sources.stamp" 2>/dev/null)" != "$sum" ]; then
		make -s -C "$top" deb >&2
		deb=$(ls "$top"/build/deb/denywrite-tools_*_amd64.deb)
		echo "$sum" >"$top/build/deb/sources.stamp"
	fi
	echo "$deb"
}

# finish_stage STAGE: what every image has on top of its packages.  Root
# logs in on the serial console without a password (the guest has no
# network); the disk is /dev/vda; the test hook.
finish_stage() {
	stage=$1 hook=$top/tests/debian/hook
	in_root "$stage" passwd -d root >/dev/null
	echo debian-dw >"$stage/etc/hostname"
	printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n' >"$stage/etc/fstab"
	[ -s "$stage/etc/machine-id" ] || in_root "$stage" systemd-machine-id-setup
	install -m 0755 "$hook/dwdebian-hook" "$stage/usr/local/sbin/"
	for u in dwdebian-early.service dwdebian.service; do
		install -m 0644 "$hook/$u" "$stage/etc/systemd/system/"
	done
	in_root "$stage" systemctl enable dwdebian-early.service dwdebian.service \
		>/dev/null 2>&1
}

# install_debs STAGE LOG DEB...: dpkg -i them in a chroot, the log to LOG.
install_debs() {
	stage=$1 log=$2
	shift 2
	for deb; do cp "$deb" "$stage/tmp/"; done
	names=$(for deb; do printf '/tmp/%s ' "$(basename "$deb")"; done)
	# shellcheck disable=SC2086
	in_root "$stage" dpkg -i $names >"$log" 2>&1 || {
		cat "$log" >&2
		echo "debian-vm: dpkg -i failed" >&2
		exit 1
	}
	# shellcheck disable=SC2086
	(cd "$stage" && rm -f $names)
}

make_image() {
	deb=$1
	hook=$top/tests/debian/hook
	want="$(cat "$rootfs.stamp") $(sha256sum <"$deb" | cut -c1-16) $(cat "$hook"/* | sha256sum | cut -c1-16) $image_size"
	if [ -f "$dir/debian.img" ] && [ "$(cat "$dir/image.stamp" 2>/dev/null)" = "$want" ]; then
		echo "debian-vm: image: $dir/debian.img is up to date"
		return 0
	fi
	echo "debian-vm: image: installing $(basename "$deb") and the test hook"
	stage=$dir/stage
	rm -rf "$stage" "$dir/image.stamp"
	cp -a "$rootfs" "$stage"
	install_debs "$stage" "$dir/dpkg.log" "$deb"
	sed 's/^/debian-vm: dpkg: /' "$dir/dpkg.log"
	finish_stage "$stage"
	rm -f "$dir/debian.img"
	mke2fs -q -t ext4 -L dwdebian -d "$stage" "$dir/debian.img" "$image_size" >/dev/null
	rm -rf "$stage"
	echo "$want" >"$dir/image.stamp"
	echo "debian-vm: image: $dir/debian.img ($(du -m "$dir/debian.img" | cut -f1) MiB used of $image_size)"
}

make_distro_rootfs() {
	want="$(cat "$rootfs.stamp") $distro_packages"
	if [ -f "$dir/rootfs-distro.stamp" ] && [ "$(cat "$dir/rootfs-distro.stamp")" = "$want" ]; then
		echo "debian-vm: rootfs-distro: cached"
		return 0
	fi
	echo "debian-vm: rootfs-distro: apt-get install $distro_packages"
	tmp=$dir/rootfs-distro.tmp
	rm -rf "$dir/rootfs-distro" "$tmp" "$dir/rootfs-distro.stamp"
	cp -a "$rootfs" "$tmp"
	cp /etc/resolv.conf "$tmp/etc/resolv.conf"
	t0=$(date +%s)
	# With the rootfs's apt lists, as they are (the offline reinstall test
	# uses them), into a cache of their own, removed after: apt's cache
	# keeps only the .deb of that test.
	in_root "$tmp" sh -c "mkdir -p /var/cache/apt/dw-distro/partial &&
		apt-get install -qq -y --no-install-recommends \
		-o Dir::Cache::archives=/var/cache/apt/dw-distro $distro_packages &&
		rm -rf /var/cache/apt/dw-distro" >"$dir/rootfs-distro.log" 2>&1 || {
		tail -n 20 "$dir/rootfs-distro.log" >&2
		echo "debian-vm: apt-get in rootfs-distro failed, see $dir/rootfs-distro.log" >&2
		exit 1
	}
	rm -f "$tmp/etc/resolv.conf"
	mv "$tmp" "$dir/rootfs-distro"
	echo "$want" >"$dir/rootfs-distro.stamp"
	echo "debian-vm: rootfs-distro: $(($(date +%s) - t0)) s, $(du -sm "$dir/rootfs-distro" | cut -f1) MiB"
}

make_distro_image() {
	tools=$1 kdir=$2
	kdeb=$(ls "$kdir"/linux-image-*_amd64.deb 2>/dev/null | head -n1)
	[ -n "$kdeb" ] || { echo "debian-vm: no kernel package in $kdir (make kernel-deb)" >&2; exit 1; }
	kver=$(dpkg-deb -f "$kdeb" Version)
	tver=$(dpkg-deb -f "$tools" Version)
	case $kver in
	*"+dw$tver") ;;
	*"+dw$tver.dirty")
		echo "debian-vm: note: $(basename "$kdeb") is of commit $tver with changes to the kernel's inputs (.dirty)"
		;;
	*)
		echo "debian-vm: $(basename "$kdeb") ($kver) and $(basename "$tools") ($tver) are not from the same commit" >&2
		exit 1
		;;
	esac
	kpkg=$(dpkg-deb -f "$kdeb" Package)
	release=${kpkg#linux-image-}
	hook=$top/tests/debian/hook
	want="$(cat "$dir/rootfs-distro.stamp") $(sha256sum <"$tools" | cut -c1-16) $(sha256sum <"$kdeb" | cut -c1-16) $(cat "$hook"/* | sha256sum | cut -c1-16) $image_size"
	if [ -f "$dir/distro.img" ] && [ -f "$dir/distro-boot/initrd.img" ] &&
		[ "$(cat "$dir/distro-image.stamp" 2>/dev/null)" = "$want" ]; then
		echo "debian-vm: distro image: $dir/distro.img is up to date"
		return 0
	fi
	echo "debian-vm: distro image: installing $(basename "$tools") and $(basename "$kdeb")"
	stage=$dir/stage-distro
	rm -rf "$stage" "$dir/distro-image.stamp" "$dir/distro-boot"
	cp -a "$dir/rootfs-distro" "$stage"
	install_debs "$stage" "$dir/dpkg-distro.log" "$tools" "$kdeb"
	sed 's/^/debian-vm: dpkg: /' "$dir/dpkg-distro.log"
	grep -q "update-initramfs: Generating /boot/initrd.img-$release" "$dir/dpkg-distro.log" || {
		echo "debian-vm: the kernel package's postinst made no initramfs" >&2
		exit 1
	}
	finish_stage "$stage"
	rm -f "$dir/distro.img"
	mke2fs -q -t ext4 -L dwdebian -d "$stage" "$dir/distro.img" "$image_size" >/dev/null
	rm -rf "$stage"
	# The kernel and initramfs a boot loader would load: the image's own.
	mkdir -p "$dir/distro-boot"
	for f in vmlinuz initrd.img; do
		debugfs -R "dump /boot/$f-$release $dir/distro-boot/$f" "$dir/distro.img" 2>/dev/null
		[ -s "$dir/distro-boot/$f" ] || {
			echo "debian-vm: no /boot/$f-$release in $dir/distro.img" >&2
			exit 1
		}
	done
	echo "$release" >"$dir/distro-boot/release"
	echo "$want" >"$dir/distro-image.stamp"
	echo "debian-vm: distro image: $dir/distro.img ($(du -m "$dir/distro.img" | cut -f1) MiB used of $image_size), kernel $release $kver"
}

[ "$(id -u)" = 0 ] || { echo "debian-vm: run as root (debootstrap, chroot)" >&2; exit 1; }
need e2fsprogs
mkdir -p "$dir"
echo "$suite" >"$dir/release"
tools=$(make_package)
make_rootfs "$tools"
make_image "$tools"
if [ -n "${2:-}" ]; then
	make_distro_rootfs
	make_distro_image "$tools" "$(realpath "$2")"
fi
