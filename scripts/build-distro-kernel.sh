#!/bin/sh
# build-distro-kernel.sh patched|stock SRC_DIR OBJ_DIR [--bzimage | --deb OUT_DIR]
#
# A kernel configured from Debian's own configuration of linux 6.12 (the
# linux-config-6.12 package; docs/distro.md says which flavour and why):
#   patched  the tree of make kernel (build/linux), plus
#            CONFIG_SECURITY_DENYWRITE=y and ",denywrite" appended to
#            Debian's CONFIG_LSM; release 6.12.N-denywrite (LOCALVERSION)
#   stock    the stock tree (build/linux-stock), Debian's configuration as is
# and, for both, every module Debian builds that is not in
# qemu/distro-modules.list turned off (make localmodconfig).  Configured
# again only when an input changed; scripts/distro-config-check.py then
# fails the build if a built-in option, a security option, CONFIG_LSM
# (but for denywrite) or the lockdown options differ from Debian's.
#
# Default: vmlinux, bzImage and the modules (make all), then a check that
# every module of the list was built.  --bzimage: bzImage only (the
# benchmark's stock kernel).  --deb OUT_DIR: then make bindeb-pkg, and
# OUT_DIR/linux-image-<release>_<version>_amd64.deb (no -dbg and no
# headers package; linux-libc-dev is left out of OUT_DIR).
#
# One kernel build at a time on this machine (the lock of
# scripts/build-kernel.sh).  The package version,
# <Debian's version>+dw<tools version> (scripts/distro-version.sh), is also
# the build version (uname -v) of every build of the patched kernel, so
# that make kernel-distro and make kernel-deb build the same vmlinux.
set -eu
kind=$1
src=$(realpath "$2") obj=$(realpath -m "$3")
shift 3
what=all out=
case ${1:-} in
--bzimage) what=bzImage ;;
--deb) what=deb out=$(realpath -m "$2") ;;
'') ;;
*) echo "usage: $0 patched|stock SRC OBJ [--bzimage | --deb OUT]" >&2; exit 2 ;;
esac
top=$(cd "$(dirname "$0")/.." && pwd)
flavour=${DISTRO_FLAVOUR:-cloud-amd64}
debcfg=/usr/src/linux-config-6.12/config.amd64_none_$flavour.xz
modlist=$top/qemu/distro-modules.list
[ -f "$debcfg" ] || { echo "kernel: no $debcfg (make deps)" >&2; exit 1; }
# Debian builds its kernel without a Rust toolchain and with the
# compiler named x86_64-linux-gnu-gcc-12: the same here, so that
# CONFIG_CC_VERSION_TEXT and the RUSTC_* options read as in Debian's file.
PATH=$(echo "$PATH" | tr : '\n' | grep -v '/\.cargo/' | paste -sd: -)
export PATH
cc=x86_64-linux-gnu-gcc-12
command -v $cc >/dev/null || cc=gcc
set -- -C "$src" O="$obj" CC=$cc
if [ "$kind" = patched ]; then
	version=$("$top/scripts/distro-version.sh")
	set -- "$@" LOCALVERSION=-denywrite KBUILD_BUILD_VERSION="${version#*-}"
fi

exec 9>/tmp/denywrite-kbuild.lock
if ! flock -n 9; then
	echo "kernel: waiting for another kernel build to finish"
	flock 9
fi
mkdir -p "$obj"
sum=$( (echo "$kind $flavour $cc"; xz -dc "$debcfg"; cat "$modlist" "$0" \
	"$top/scripts/distro-config-check.py") | sha256sum | cut -d' ' -f1)
if [ ! -f "$obj/.config" ] || [ "$(cat "$obj/.dw-distro" 2>/dev/null)" != "$sum" ]; then
	echo "kernel: configuring $obj from Debian's config.amd64_none_$flavour"
	rm -f "$obj/.dw-distro"
	xz -dc "$debcfg" >"$obj/debian.config"
	cp "$obj/debian.config" "$obj/.config"
	if [ "$kind" = patched ]; then
		lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' "$obj/debian.config")
		"$src/scripts/config" --file "$obj/.config" \
			--enable SECURITY_DENYWRITE --set-str LSM "$lsm,denywrite"
	fi
	make -s "$@" olddefconfig >/dev/null
	# localmodconfig reads lsmod's output: a header line, then a module
	# name first on each line.
	{ echo "Module Size Used"
	  sed 's/#.*//' "$modlist" | awk 'NF { print $1, 0, 0 }'; } >"$obj/distro-modules.lsmod"
	make -s "$@" LSMOD="$obj/distro-modules.lsmod" localmodconfig \
		</dev/null >"$obj/.dw-localmodconfig.log" 2>&1 || {
		cat "$obj/.dw-localmodconfig.log" >&2
		exit 1
	}
	# What localmodconfig turned on that Debian leaves off (it has been
	# seen to turn on IKCONFIG): off again.
	for o in $("$top/scripts/distro-config-check.py" turned-on \
		"$obj/debian.config" "$obj/.config"); do
		"$src/scripts/config" --file "$obj/.config" --disable "$o"
	done
	make -s "$@" olddefconfig >/dev/null
	"$top/scripts/distro-config-check.py" check "$kind" "$src" \
		"$obj/debian.config" "$obj/.config" || {
		echo "kernel: configuration check failed: not Debian's configuration" >&2
		exit 1
	}
	echo "$sum" >"$obj/.dw-distro"
fi

log="$obj/.dw-build.log"
jobs=$(nproc)
build() {	# build TARGET...: make them, fail on an error in the log
	echo "kernel: building $* in $obj ($kind, linux-source-6.12 $(dpkg-query -W -f '${Version}' linux-source-6.12))"
	t0=$(date +%s)
	make -s "$@" 2>&1 | tee "$log"
	! grep -q 'Error [0-9]' "$log" || { echo "kernel: build failed" >&2; exit 1; }
	# Debian's configuration has no CONFIG_KUNIT, which every other
	# kernel here has: warnings that show only without it are printed
	# (and kept in .dw-denywrite-warnings), not fatal; the other builds
	# (scripts/build-kernel.sh) still fail on any.
	if grep -A3 'security/denywrite/.*warning:' "$log" >"$obj/.dw-denywrite-warnings"; then
		echo "kernel: WARNING: security/denywrite/ has compiler warnings on Debian's configuration:" >&2
		sed 's/^/kernel:   /' "$obj/.dw-denywrite-warnings" >&2
	else
		rm -f "$obj/.dw-denywrite-warnings"
	fi
	echo "kernel: $* took $(($(date +%s) - t0)) s"
}
if [ $what = bzImage ]; then
	build "$@" -j"$jobs" bzImage
	exit 0
fi
build "$@" -j"$jobs" all
missing=
for m in $(sed 's/#.*//' "$modlist" | awk 'NF { print $1 }'); do
	f=$(echo "$m" | sed 's/_/[-_]/g')	# lsmod says _ where the file may say -
	grep -q "/$f\.o\$" "$obj/modules.order" ||
		grep -q "/$f\.ko\$" "$obj/modules.builtin" 2>/dev/null ||
		missing="$missing $m"
done
[ -z "$missing" ] || { echo "kernel: modules of $modlist not built:$missing" >&2; exit 1; }
echo "kernel: $(wc -l <"$obj/modules.order") modules, $(uname -m) $(cat "$obj/include/config/kernel.release")"
[ $what = deb ] || exit 0

# The package, from the tree just built (nothing is compiled again: the
# same release, build version and configuration).  dpkg-buildpackage
# writes the packages next to OBJ_DIR.
parent=$(dirname "$obj")
rm -f "$parent"/linux-image-*.deb "$parent"/linux-libc-dev_*.deb \
	"$parent"/linux-upstream_*
build "$@" -j"$jobs" KDEB_PKGVERSION="$version" KDEB_COMPRESS=xz \
	DPKG_FLAGS="-Ppkg.linux-upstream.nokernelheaders,pkg.linux-upstream.nokerneldbg" \
	bindeb-pkg
release=$(cat "$obj/include/config/kernel.release")
deb=linux-image-${release}_${version}_amd64.deb
[ -f "$parent/$deb" ] || { echo "kernel: bindeb-pkg made no $deb" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
mv "$parent/$deb" "$out/"
rm -f "$parent"/linux-libc-dev_*.deb "$parent"/linux-upstream_*
echo "kernel: $out/$deb ($(du -m "$out/$deb" | cut -f1) MiB)"
