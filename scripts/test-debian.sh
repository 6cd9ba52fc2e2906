#!/bin/sh
# test-debian.sh test DIR...
# test-debian.sh run DIR
#
# The Debian guest of make debian-vm (DIR/debian.img; DIR/release names
# its Debian release) on the kernel of build/obj-debian, with a second
# disk of tests (DIR/tests.img: the programs of tests/debian, built here,
# and its scripts).  Every boot tells the guest its release (dwrelease=),
# which checks it against its /etc/os-release.
#
# test: for each DIR (make test-debian: Debian 12, then Debian 13), the
# boots below and their report in DIR/test; then, when there is more
# than one DIR, one line per release and the sum as the last line,
# "N passed, N failed".  Each boot runs one suite of tests/debian/suites.sh
#   debian         lsm=denywrite: the package's policy, libc, dpkg, apt,
#                  mold, the build-tool race, gcc
#   debian_off     lsm=denywrite denywrite.mode=off: mold corrupts
#   debian_broken  lsm=denywrite and a broken policy file
#   debian_nolsm   lsm=capability: denywrite not active
#   debian_local_write, debian_local
#                  lsm=denywrite: the first writes a local rules file and
#                  reboots, the second boots from the same disk (a copy of
#                  the image, kept between the two) and checks what the
#                  unit made of it
# and the same on the distribution kernel (make kernel-deb), installed in
# DIR/distro.img, booted with the kernel and initramfs of that image's
# /boot (DIR/distro-boot), without lsm= (Debian's LSMs and denywrite, in
# CONFIG_LSM's order), AppArmor enforcing:
#   distro         the suite debian, plus the kernel and its LSMs, and
#                  AppArmor, Landlock and a mode switch stacked
#   distro_off, distro_broken, distro_local_write, distro_local
#                  as debian_off, debian_broken, debian_local_*
# then two more boots with and two without denywrite that only measure
# the boot time (time_denywrite_N, time_nolsm_N), the boot time ratio
# (suite debian_boottime, here), and one report (scripts/report.py
# --manifest tests/debian/manifest: every suite, group and check that
# file lists, and nothing else) whose last line is "N passed, N failed".
# The transcript of what the guest ran goes to DIR/test/transcript.txt.
# run: with a terminal on stdin, a login on the serial console (root, no
# password; what you change is thrown away); without one, the scripted
# demonstration (suite debian_demo), its transcript and its report.
# only DIR SUITE...: only those boots (debian_local and distro_local are
# the pair of boots of each), no boot time suite; their report.  For
# debugging: make test-debian runs them all.
set -u
what=${1:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
bz=build/obj-debian/arch/x86/boot/bzImage

use_dir() {	# use_dir DIR: the guest whose images are in DIR
	dir=$(realpath -m "$1")
	image=$dir/debian.img
	dimage=$dir/distro.img dboot=$dir/distro-boot
	disk=$dir/tests.img
	out=$dir/test
	release=$(cat "$dir/release" 2>/dev/null) || release=
}

# The test disk: what suites.sh runs, and the table runner it sources.
make_test_disk() {
	make -s -C tests/debian B="$dir/bin" &&
		make -s -C tests/guest bin/dwrun bin/kmsgdump || return 1
	stage=$dir/testdisk
	rm -rf "$stage"
	mkdir -p "$stage"
	cp tests/debian/main.sh tests/debian/early.sh tests/debian/suites.sh \
		tests/debian/hello.c tests/debian/dwaa-openw.apparmor \
		qemu/guest-suites.sh "$stage/" &&
		cp -R "$dir/bin" "$stage/bin" &&
		cp tests/guest/bin/dwrun tests/guest/bin/kmsgdump "$stage/bin/" &&
		rm -f "$disk" &&
		mke2fs -q -t ext4 -L dwtests -d "$stage" "$disk" 64M >/dev/null
}

# Every kernel message on the console, and a log buffer that keeps the
# boot's: the report compares the kernel's whole log, which the guest
# dumps at the end of its suite (kmsgdump), with the console's.  No
# rate limit on the audit records printk carries (no auditd), from the
# kernel's start: the tests count denywrite's, and Debian 13's AppArmor
# loads 102 profiles at boot, a record each, which printk_ratelimit()
# would thin ("kauditd_printk_skb: N callbacks suppressed").
logargs="ignore_loglevel log_buf_len=16M sysctl.kernel.printk_ratelimit=0"

boot() {	# boot SUITE KERNEL-ARGS [IMAGE]: on the kernel of make kernel-debian
	echo "== $1: $2"
	if [ -n "${3:-}" ]; then
		opt=--disk-copy img=$3
	else
		opt= img=$image
	fi
	scripts/debian-boot.sh $opt "$bz" "$img" "$disk" "$out/$1" \
		"$2 $logargs dwdebian=$1 dwrelease=$release dwrun=$runid" || true
}

# dboot SUITE KERNEL-ARGS [IMAGE]: the distribution kernel, from its
# image's /boot (debian-vm.sh read both files out of the image).  The
# guest is told their checksums (dwboot=) to compare with its /boot.
# Under TCG, one host thread for both vCPUs (tcg,thread=single;
# DISTRO_QEMU_ACCEL overrides): Debian's configuration has
# CONFIG_JUMP_LABEL, and multi-threaded TCG has crashed this kernel with
# "Oops: int3" at a static key's jump site while the kernel patched it
# (text_poke_bp), at boot in sched_clock_idle_wakeup_event when
# "sched_clock: Marking stable" flipped __sched_clock_stable, before any
# user space or denywrite mode switch (docs/distro.md).
case ${QEMU_ACCEL:-tcg} in
tcg) distro_accel=${DISTRO_QEMU_ACCEL:-tcg,thread=single} ;;
*) distro_accel=${DISTRO_QEMU_ACCEL:-$QEMU_ACCEL} ;;
esac
dboot() {
	echo "== $1: ${2:-(no arguments)} (-accel $distro_accel)"
	if [ -n "${3:-}" ]; then
		opt=--disk-copy img=$3
	else
		opt= img=$dimage
	fi
	sums=$(sha256sum <"$dboot/vmlinuz" | cut -c1-16),$(sha256sum <"$dboot/initrd.img" | cut -c1-16)
	QEMU_ACCEL=$distro_accel scripts/debian-boot.sh --initrd "$dboot/initrd.img" $opt \
		"$dboot/vmlinuz" "$img" "$disk" "$out/$1" \
		"$2 $logargs dwboot=$sums dwdebian=$1 dwrelease=$release dwrun=$runid" || true
}

# reboot_pair BOOT SUITE ARGS IMAGE: SUITE_write, then SUITE, on one copy
# of IMAGE (the first boot writes to it and reboots; the second boots
# from what it left).
reboot_pair() {
	copy=$out/$2.img
	cp --sparse=always "$4" "$copy"
	$1 "$2_write" "$3" "$copy"
	$1 "$2" "$3" "$copy"
	rm -f "$copy"
}

stat_of() {	# stat_of SUITE GROUP KEY: a STAT figure of a suite's results
	sed -n "s/^STAT $2 $3 //p" "$out/$1/results.log" 2>/dev/null | tr -d '\r' | tail -n1
}

samples() {	# samples SUITE...: their boot times, comma-separated
	for s in "$@"; do
		stat_of "$s" boot seconds_to_running
	done | paste -sd, -
}

# The boot times with and without denywrite, as a host suite: three boots
# of each (the first two suites, then the timing boots, alternately), the
# fastest of each (the machine is shared: a slow boot is one that waited
# for the CPU), and their ratio.  Its check fails unless all six were
# measured.
boot_time_suite() {
	with=$(samples debian time_denywrite_1 time_denywrite_2)
	without=$(samples debian_nolsm time_nolsm_1 time_nolsm_2)
	s=$out/debian_boottime
	mkdir -p "$s"
	{
		printf 'SUITE debian_boottime %s\nGROUPS boottime\nPLAN boottime 1\n' "$runid"
		if echo "$with $without" | grep -qx '[0-9.]*,[0-9.]*,[0-9.]* [0-9.]*,[0-9.]*,[0-9.]*'; then
			echo "PASS boot_times_measured_three_times_with_and_without_denywrite"
			echo "$with $without" | tr , ' ' | awk '{
				a = $1; if ($2 < a) a = $2; if ($3 < a) a = $3
				b = $4; if ($5 < b) b = $5; if ($6 < b) b = $6
				printf "STAT boottime seconds_with_denywrite %s,%s,%s\n", $1, $2, $3
				printf "STAT boottime seconds_without_denywrite %s,%s,%s\n", $4, $5, $6
				printf "STAT boottime fastest_with_denywrite %s\n", a
				printf "STAT boottime fastest_without_denywrite %s\n", b
				printf "STAT boottime ratio_of_fastest %.3f\n", a / b }'
		else
			echo "FAIL boot_times_measured_three_times_with_and_without_denywrite:" \
				"with '$with', without '$without'"
		fi
		printf 'EXIT boottime 0\nEND debian_boottime\n'
	} >"$s/results.log"
}

transcript() {	# the guest's "#" lines, suite by suite
	for s in "$@"; do
		echo "== $s"
		tr -d '\r' <"$out/$s/results.log" | sed -n 's/^# \{0,1\}//p'
	done
}

# ready DIR: its images are there (and the distribution kernel's too,
# unless only the run of make run-debian), its test disk made, a new
# run id.
ready() {
	use_dir "$1"
	[ -f "$bz" ] && [ -f "$image" ] && [ -n "$release" ] || {
		echo "test-debian: $dir: run make debian-vm first" >&2
		exit 1
	}
	if [ "$what" != run ] && ! { [ -f "$dimage" ] && [ -f "$dboot/initrd.img" ]; }; then
		echo "test-debian: no $dimage: run make debian-vm (it needs make kernel-deb)" >&2
		exit 1
	fi
	make_test_disk || { echo "test-debian: cannot make the test disk" >&2; exit 1; }
	start=$(date +%s)
	runid="$start-$$"
}

# test_release DIR: every boot of one release and its report
# (DIR/test/report.txt); returns the report's status.
test_release() {
	ready "$1"
	echo "=== $release ($dir)"
	rm -rf "$out"
	mkdir -p "$out"
	echo "$runid" >"$out/run.id"
	boot debian "lsm=denywrite"
	boot debian_off "lsm=denywrite denywrite.mode=off"
	boot debian_broken "lsm=denywrite"
	boot debian_nolsm "lsm=capability"
	reboot_pair boot debian_local "lsm=denywrite" "$image"
	dboot distro ""
	dboot distro_off "denywrite.mode=off"
	dboot distro_broken ""
	reboot_pair dboot distro_local "" "$dimage"
	for n in 1 2; do
		boot time_denywrite_$n "lsm=denywrite"
		boot time_nolsm_$n "lsm=capability"
	done
	boot_time_suite
	suites="debian debian_off debian_broken debian_nolsm debian_local_write
		debian_local distro distro_off distro_broken distro_local_write
		distro_local"
	# shellcheck disable=SC2086
	transcript $suites >"$out/transcript.txt"
	echo "== report of $release ($(($(date +%s) - start)) s; transcript in $out/transcript.txt)"
	rc=0
	# shellcheck disable=SC2086
	scripts/report.py --manifest tests/debian/manifest "$out" \
		>"$out/report.txt" || rc=$?
	cat "$out/report.txt"
	return $rc
}

case $what in
run)
	[ $# = 2 ] || { echo "usage: $0 run DIR" >&2; exit 2; }
	ready "$2"
	if [ -t 0 ]; then
		echo "Debian ($release) on the denywrite kernel: log in as root (no password)."
		echo "'systemctl reboot' (or 'reboot') leaves; changes are not kept."
		echo "(poweroff only halts: the kernel has no ACPI; Ctrl-a x quits QEMU.)"
		exec scripts/debian-boot.sh --interactive "$bz" "$image" "$disk" \
			"lsm=denywrite quiet"
	fi
	rm -rf "$out-demo"
	mkdir -p "$out-demo"
	echo "$runid" >"$out-demo/run.id"
	out=$out-demo
	boot debian_demo "lsm=denywrite"
	transcript debian_demo
	exec scripts/report.py "$out" debian_demo
	;;
test)
	shift
	[ $# -ge 1 ] || { echo "usage: $0 test DIR..." >&2; exit 2; }
	status=0 sum_passed=0 sum_failed=0 lines=
	for d; do
		test_release "$d" || status=1
		# The report's last line, "N passed, N failed"; none (a report
		# that crashed) counts as a failure.
		last=$(tail -n1 "$out/report.txt")
		read -r p f <<-EOF
		$(echo "$last" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p')
		EOF
		if [ -z "$p" ]; then
			p=0 f=1 status=1
			last="no report line (1 failure counted)"
		fi
		sum_passed=$((sum_passed + p)) sum_failed=$((sum_failed + f))
		lines="$lines$release: $last
"
	done
	if [ $# -gt 1 ]; then
		echo "== every release"
		printf '%s' "$lines"
		echo "$sum_passed passed, $sum_failed failed"
	fi
	exit $status
	;;
only)	# only DIR SUITE...: those boots alone, and their report (debugging)
	ready "$2"
	shift 2
	rm -rf "$out"
	mkdir -p "$out"
	echo "$runid" >"$out/run.id"
	suites=
	for s; do
		case $s in
		debian) boot debian "lsm=denywrite" ;;
		debian_off) boot debian_off "lsm=denywrite denywrite.mode=off" ;;
		debian_broken) boot debian_broken "lsm=denywrite" ;;
		debian_nolsm) boot debian_nolsm "lsm=capability" ;;
		debian_local) reboot_pair boot debian_local "lsm=denywrite" "$image"
			s="debian_local_write debian_local" ;;
		distro) dboot distro "" ;;
		distro_off) dboot distro_off "denywrite.mode=off" ;;
		distro_broken) dboot distro_broken "" ;;
		distro_local) reboot_pair dboot distro_local "" "$dimage"
			s="distro_local_write distro_local" ;;
		*) echo "test-debian: no suite $s" >&2; exit 2 ;;
		esac
		suites="$suites $s"
	done
	# shellcheck disable=SC2086
	transcript $suites >"$out/transcript.txt"
	# shellcheck disable=SC2086
	exec scripts/report.py --manifest tests/debian/manifest \
		--partial "$(echo $suites | tr ' ' ,)" "$out"
	;;
*)
	echo "usage: $0 test DIR... | run DIR | only DIR SUITE..." >&2
	exit 2
	;;
esac
