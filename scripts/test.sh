#!/bin/sh
# test.sh all|stock
#
# all: host unit tests, then the patched kernel booted with denywrite (the
# LSM suite and the matrix of modes x rule sets x scenarios), with boot
# parameters, without denywrite (the removal alone), and the stock kernel;
# then one report whose last line is "N passed, N failed".
# stock: only the stock kernel.
set -u
what=$1
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/test
mkdir -p "$out"
make="make --no-print-directory -s"
bz=build/obj/arch/x86/boot/bzImage
bz_stock=build/obj-stock/arch/x86/boot/bzImage
initrd=build/initramfs.cpio.gz
start=$(date +%s)

failed_step() {	# a step that fails becomes a FAIL line of its own
	echo "FAIL $1: see the output above" >>"$out/steps.log"
}

step() {	# step NAME COMMAND...: a PASS or FAIL line for a whole command
	name=$1
	shift
	if "$@"; then
		echo "PASS $name" >>"$out/steps.log"
	else
		failed_step "$name"
	fi
}

boot() {	# boot SUITE KERNEL ARGS
	rm -rf "${out:?}/$1"
	scripts/boot.sh "$2" "$initrd" "$out/$1" "$3 dwsuite=$1" || true
}

rm -f "$out/steps.log" "$out/host.log"
touch "$out/steps.log"

if [ "$what" = all ]; then
	echo "== host unit tests"
	$make check-host >"$out/host.log" 2>&1 || true
	grep -E '^(PASS|FAIL) ' "$out/host.log" | grep '^FAIL' || true
	grep -q '^PASS ' "$out/host.log" || { cat "$out/host.log"; failed_step host_unit_tests_run; }
	echo "== static analysis of denywritectl"
	step cli_static_analysis_is_clean $make -C policy-tool analyze
	echo "== building (patched kernel, CLI, guest)"
	if $make kernel initramfs; then
		step checkpatch_strict_is_clean scripts/checkpatch.sh build/linux
		step tree_has_2021_map_denywrite_removal scripts/check-2021-series.sh build/linux
		step kerneldoc_is_clean sh -c 'cd build/linux &&
			out=$(scripts/kernel-doc -none -Wall security/denywrite/*.[ch] 2>&1) &&
			[ -z "$out" ] || { echo "$out"; false; }'
		echo "== booting the patched kernel"
		boot lsm "$bz" "lsm=capability,denywrite"
		boot params "$bz" "lsm=capability,denywrite denywrite.mode=audit denywrite.default=none"
		boot removed "$bz" "lsm=capability"
	else
		failed_step patched_kernel_builds
	fi
fi
echo "== building the stock kernel"
if $make kernel-stock initramfs; then
	boot stock "$bz_stock" "lsm=capability"
else
	failed_step stock_kernel_builds
fi
echo "== report ($(($(date +%s) - start)) s)"
if [ "$what" = all ]; then
	exec scripts/report.py "$out" host lsm params removed stock
fi
exec scripts/report.py "$out" stock
