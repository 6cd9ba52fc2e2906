#!/bin/sh
# test.sh all|stock
#
# all: the report's own tests, the host unit tests, the static checks, then
# the patched kernel booted with denywrite (suite lsm: the LSM suite and the
# matrix of modes x rule sets x scenarios), with boot parameters (params:
# mode audit, default none; params_off: mode off, default classic), without
# any lsm= (default_lsm: the default CONFIG_LSM list), without denywrite
# (removed, the backport alone), the KCSAN kernel (kcsan: the races with
# KCSAN watching), and the stock kernel (stock); then one report, checked
# against tests/manifest, whose last line is "N passed, N failed".
# stock: only the stock kernel (a partial report).
#
# Every suite writes build/test/SUITE/results.log in the same format (see
# scripts/report.py): the guest ones through the second serial port, the
# host ones (steps, report, host) here.  build/test is emptied first, and a
# run id goes into each SUITE line, so nothing of an earlier run is ever
# counted; a kernel that fails to build is never booted.
set -u
what=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
out=build/test
make="make --no-print-directory -s"
bz=build/obj/arch/x86/boot/bzImage
bz_stock=build/obj-stock/arch/x86/boot/bzImage
bz_kcsan=build/obj-kcsan/arch/x86/boot/bzImage
initrd=build/initramfs.cpio.gz
fsimage=build/dwfs.img
start=$(date +%s)
runid="$start-$$"
# The securityfs fuzzer's seed (group sfs of suite lsm): the same inputs
# in every run unless DW_FUZZ_SEED says otherwise.
seed=${DW_FUZZ_SEED:-1}
case $seed in
''|*[!0-9]*) echo "test.sh: DW_FUZZ_SEED must be a number, not '$seed'" >&2; exit 2 ;;
esac

# The host-side steps, declared before any runs (PLAN steps N).
if [ "$what" = all ]; then
	steps="cli_static_analysis_is_clean tools_package_builds_lintian_clean
		patched_kernel_builds
		checkpatch_strict_is_clean tree_has_2021_map_denywrite_removal
		kerneldoc_is_clean docs_lint_is_clean kcsan_kernel_builds
		stock_kernel_builds"
	# Only this run's results: start from an empty directory.
	rm -rf "$out"
else
	steps="stock_kernel_builds"
	# Keep the last make test's lsm results: the report shows (never
	# counts) its matrix beside the stock kernel's.
	rm -rf "$out/stock" "$out/steps" "$out/run.id"
fi
mkdir -p "$out"
echo "$runid" >"$out/run.id"

log_of() { echo "$out/$1/results.log"; }

suite_begin() {	# suite_begin SUITE GROUP...: a host-side suite's header
	s=$1
	shift
	mkdir -p "$out/$s"
	printf 'SUITE %s %s\nGROUPS %s\n' "$s" "$runid" "$*" >"$(log_of "$s")"
}

# host_suite SUITE COMMAND...: a host-side suite of one group of the same
# name, whose PLAN and results COMMAND prints on stdout.
host_suite() {
	s=$1
	shift
	suite_begin "$s" "$s"
	t0=$(date +%s)
	"$@" >>"$(log_of "$s")" 2>"$out/$s/stderr.log"
	rc=$?
	printf 'STAT %s seconds %s\nEXIT %s %s\nEND %s\n' "$s" \
		$(($(date +%s) - t0)) "$s" "$rc" "$s" >>"$(log_of "$s")"
	[ $rc = 0 ] || cat "$out/$s/stderr.log" >&2
}

# step NAME COMMAND...: one PASS or FAIL line in the steps suite.
step() {
	name=$1
	shift
	if "$@"; then
		echo "PASS $name" >>"$(log_of steps)"
		return 0
	fi
	echo "FAIL $name: see the output of make test" >>"$(log_of steps)"
	steps_failed=1
	return 1
}

skip_step() {	# skip_step NAME REASON: it could not run (a failure)
	echo "SKIP $1: $2" >>"$(log_of steps)"
}

# boot SUITE KERNEL ARGS (boot.sh empties build/test/SUITE first).  Every
# message goes to the console whatever its level (ignore_loglevel: a test
# that lowers the console's level hides nothing), and the log buffer holds
# a whole suite's messages, so that the guest's dump of it at the end
# (KMSG lines, tests/guest/kmsgdump.c) starts at the first record.
boot() {
	scripts/boot.sh "$2" "$initrd" "$out/$1" \
		"$3 ignore_loglevel log_buf_len=16M dwsuite=$1 dwrun=$runid" \
		"$fsimage" || true
}

kerneldoc() {
	(cd build/linux &&
		o=$(scripts/kernel-doc -none -Wall security/denywrite/*.[ch] 2>&1) &&
		[ -z "$o" ] || { echo "$o"; false; })
}

steps_failed=0
suite_begin steps steps
echo "PLAN steps $(echo $steps | wc -w)" >>"$(log_of steps)"

if [ "$what" = all ]; then
	echo "== tests of the report"
	host_suite report python3 tests/report/run.py
	echo "== host unit tests"
	host_suite host $make check-host
	echo "== static analysis of denywritectl"
	step cli_static_analysis_is_clean $make -C policy-tool analyze
	echo "== the tools package (its build runs the host tests in its own copy)"
	step tools_package_builds_lintian_clean $make deb
	echo "== building (patched kernel, CLI, guest)"
	if step patched_kernel_builds $make kernel initramfs; then
		step checkpatch_strict_is_clean scripts/checkpatch.sh build/linux
		step tree_has_2021_map_denywrite_removal scripts/check-2021-series.sh build/linux
		step kerneldoc_is_clean kerneldoc
		step docs_lint_is_clean scripts/check-docs.sh build/linux
		echo "== booting the patched kernel (fuzz seed $seed; DW_FUZZ_SEED=N varies it)"
		boot lsm "$bz" "lsm=capability,denywrite dwseed=$seed"
		boot params "$bz" "lsm=capability,denywrite denywrite.mode=audit denywrite.default=none"
		boot params_off "$bz" "lsm=capability,denywrite denywrite.mode=off denywrite.default=classic"
		boot default_lsm "$bz" ""
		boot removed "$bz" "lsm=capability"
		echo "== building and booting the KCSAN kernel"
		if step kcsan_kernel_builds $make kernel-kcsan; then
			boot kcsan "$bz_kcsan" "lsm=capability,denywrite"
		fi
	else
		for s in checkpatch_strict_is_clean tree_has_2021_map_denywrite_removal \
			kerneldoc_is_clean docs_lint_is_clean kcsan_kernel_builds; do
			skip_step $s "the patched kernel did not build"
		done
	fi
fi
echo "== building the stock kernel"
if step stock_kernel_builds $make kernel-stock initramfs; then
	boot stock "$bz_stock" "lsm=capability"
fi
printf 'EXIT steps %s\nEND steps\n' "$steps_failed" >>"$(log_of steps)"

echo "== report ($(($(date +%s) - start)) s)"
# The suites, their groups and checks are tests/manifest's: a suite this
# script did not run is missing there, never left out of the report.
if [ "$what" = all ]; then
	exec scripts/report.py --manifest tests/manifest "$out"
fi
exec scripts/report.py --manifest tests/manifest --partial stock "$out"
