#!/bin/sh
# bench.sh [--patched-only] [--no-tcg] [--no-build]
#                                        (make bench, make bench-patched)
# bench.sh --distro [--no-build]         (make bench-distro)
#
# Build the two benchmark kernels (tinyconfig + qemu/kernel.config +
# qemu/bench.config, and qemu/denywrite.config for the patched one; no
# debugging options), boot every configuration with one initramfs and the
# same QEMU flags, and print the table (scripts/bench-report.py), also
# written to build/bench.txt and build/bench.csv.
#
# Two runs.  "icount": QEMU TCG with -icount shift=0,sleep=off, virtual
# time (one instruction, one nanosecond), so figures repeat on a loaded
# host; its boots run BENCH_JOBS at a time.  "tcg": plain TCG, wall-clock
# time, one boot at a time, as a check that the virtual figures rank the
# configurations as real time does.
#
# --patched-only: do not build or boot the stock kernel; reuse the stock
# results saved by an earlier run, if they were made with the same
# parameters and benchmark programs (else fail).  --no-tcg: the icount
# run only.  --no-build: boot the benchmark kernels already built, without
# taking the machine's kernel build lock (which a build of another
# checkout may hold for many minutes).
#
# --distro: the same operations on the kernels of Debian's configuration
# (scripts/build-distro-kernel.sh; docs/distro.md): the stock tree
# (build/obj-distro-stock, bzImage only) against the patched one
# (build/obj-distro, the kernel of make kernel-deb), Debian's LSMs active
# in both.  Configurations: stock; the patched kernel with lsm= Debian's
# list (no denywrite); the packaged policy ("exec /", "lib
# /usr/lib/x86_64-linux-gnu") in mode off and in enforce; each again with
# 200 background processes that run the programs and map the files the
# operations run and map (tests/bench/suite.sh).  dwbench works in
# /usr/lib/x86_64-linux-gnu/dwbench, under the lib rule; before each run
# the guest waits for an idle CPU (dwb.settle=1).  The icount run only;
# results in build/bench-distro, the table in build/bench-distro.txt and
# .csv, with the targets of issue 21: a target not met is reported, not a
# failure; a failed check, a missing cell or memory figure, a boot that
# did not finish or LSMs other than Debian's fail the run.
#
# BENCH_ROUNDS (5) and BENCH_MACRO_ROUNDS (3: the two macro workloads run
# in the first rounds only), BENCH_TCG_ROUNDS (3) and
# BENCH_TCG_MACRO_ROUNDS (1) for the plain run, BENCH_SCALE (1: multiplies
# the iterations), BENCH_SLAB (100000 files for the memory figures, in the
# icount run), BENCH_JOBS (2).  BENCH_BOOTS="NAME...": only these boots
# of the list below (with --no-build, only their kernels must exist); the
# results of the others stay as an earlier run left them, and the report
# reads them all.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/bench
rounds=${BENCH_ROUNDS:-5}
macro=${BENCH_MACRO_ROUNDS:-3}
tcg_rounds=${BENCH_TCG_ROUNDS:-3}
tcg_macro=${BENCH_TCG_MACRO_ROUNDS:-1}
scale=${BENCH_SCALE:-1}
slab=${BENCH_SLAB:-100000}
jobs=${BENCH_JOBS:-2}
patched_only=no
build=yes
distro=no
runs="icount tcg"
for arg; do
	case $arg in
	--patched-only) patched_only=yes ;;
	--no-tcg) runs=icount ;;
	--no-build) build=no ;;
	--distro) distro=yes runs=icount ;;
	*) echo "usage: bench.sh [--patched-only] [--no-tcg] [--no-build] | --distro [--no-build]" >&2; exit 2 ;;
	esac
done
start=$(date +%s)
stock_bz=build/obj-bench-stock/arch/x86/boot/bzImage
patched_bz=build/obj-bench/arch/x86/boot/bzImage
initrd=$out/initramfs.cpio.gz
if [ $distro = yes ]; then
	[ $patched_only = no ] || { echo "bench: --distro has no --patched-only" >&2; exit 2; }
	out=build/bench-distro
	stock_bz=build/obj-distro-stock/arch/x86/boot/bzImage
	patched_bz=build/obj-distro/arch/x86/boot/bzImage
	initrd=$out/initramfs.cpio.gz
fi

# Boots: NAME KERNEL LSM CONFIGS SLAB, longest first (lanes take them in
# turn).  The denywrite configurations are split over two boots so that
# two lanes are busy for about as long.
boots="lsm-a patched capability,denywrite off,audit,exec,all,r1-none yes
lsm-b patched capability,denywrite r100-match,r100-none,r1000-match,r1000-none no
stock stock capability stock yes
nolsm patched capability nolsm yes"
# --distro: no lsm= ("-"), Debian's CONFIG_LSM: the stock kernel's LSMs,
# and the patched kernel's with denywrite; "debian": lsm= Debian's list,
# the patched kernel without denywrite.
if [ $distro = yes ]; then
	boots="lsm-a patched - pkgoff,pkg yes
lsm-b patched - pkgoff-bg,pkg-bg no
stock stock - stock,stock-bg yes
nolsm patched debian nolsm,nolsm-bg yes"
	export QEMU_TIMEOUT="${QEMU_TIMEOUT:-5400}"
fi

if [ -n "${BENCH_BOOTS:-}" ]; then
	boots=$(echo "$boots" | while read -r name rest; do
		case " $BENCH_BOOTS " in *" $name "*) echo "$name $rest" ;; esac
	done)
	[ -n "$boots" ] || { echo "bench: BENCH_BOOTS=$BENCH_BOOTS: no such boot" >&2; exit 2; }
fi
uses() {	# uses FIELD VALUE: does a boot of the list have it
	echo "$boots" | awk -v f="$1" -v v="$2" '$f == v { found = 1 } END { exit !found }'
}

# What a saved stock result must match to be reused: the parameters, the
# stock kernel and its configuration, and the benchmark programs.
fingerprint() {	# fingerprint RUN
	echo "$1 $(run_params "$1")"
	cat $stock_bz qemu/kernel.config qemu/bench.config \
		tests/bench/suite.sh tests/bench/bin/configure.sh \
		tests/bench/bin/dwb* tests/bench/bin/libdwbplugin.so | sha256sum
}

run_params() {	# run_params RUN: the guest's parameters, as the report reads them
	if [ "$1" = icount ]; then
		echo "rounds=$rounds macro=$macro scale=$scale slab=$slab"
	else
		echo "rounds=$tcg_rounds macro=$tcg_macro scale=$scale slab=0"
	fi
}

# The same arguments for every boot, but lsm= and what to run: no PS/2
# probing and no local APIC timer calibration, whose busy waits take
# minutes under -icount; the TSC (calibrated against the HPET) trusted as
# the clock, so that it stays the clocksource of the whole run; no address
# space randomisation, so that QEMU finds the code of ld.so and libc it
# translated for the previous process at the same addresses (a dynamic
# exec takes a third of the time; the guest runs the same instructions).
args="i8042.noaux i8042.nokbd noapictimer tsc=reliable norandmaps lsm.debug dwsuite=bench"
[ $distro = yes ] && args="$args dwb.libdir=/usr/lib/x86_64-linux-gnu dwb.settle=1"

boot_one() {	# boot_one RUN NAME KERNEL LSM CONFIGS SLAB
	run=$1 name=$2 lsm=$4 cfgs=$5 mem=$6
	dir=$out/$run/$name
	bz=$patched_bz
	[ "$3" = stock ] && bz=$stock_bz
	set -- $(run_params "$run")
	files=0
	[ "$mem" = yes ] && files=${4#slab=}
	rm -rf "$dir"
	mkdir -p "$dir"
	case $lsm in
	-) lsm= ;;
	debian) lsm="lsm=$debian_lsm" ;;
	*) lsm="lsm=$lsm" ;;
	esac
	t0=$(date +%s)
	QEMU_TIMEOUT=${QEMU_TIMEOUT:-1800} scripts/boot.sh "$bz" $initrd "$dir" \
		"$lsm $args dwb.configs=$cfgs dwb.$1 dwb.$2 dwb.$3 dwb.slab=$files" ||
		true
	echo "$(($(date +%s) - t0))" >"$dir/seconds"
	fingerprint "$run" >"$dir/fingerprint"
}

lane() {	# lane RUN K N: boots K, K+N, K+2N... of the list, in turn
	i=0
	echo "$boots" | while read -r name kernel lsm cfgs mem; do
		if [ $((i % $3)) = "$2" ]; then
			if [ "$kernel" = stock ] && [ $patched_only = yes ]; then
				:
			else
				boot_one "$1" "$name" "$kernel" "$lsm" "$cfgs" "$mem"
			fi
		fi
		i=$((i + 1))
	done
}

check_saved_stock() {	# check_saved_stock RUN
	saved=$out/$1/stock
	if [ ! -f "$saved/results.log" ] || [ "$(cat "$saved/fingerprint" 2>/dev/null)" != "$(fingerprint "$1")" ]; then
		echo "bench: no stock result of the same parameters and programs in $saved: run 'make bench' first" >&2
		exit 1
	fi
	echo "bench: $1: reusing the stock result of $(date -r "$saved/results.log" '+%F %T')"
}

echo "== bench: guest programs"
make -s -C policy-tool
make -s -C tests/guest
make -s -C tests/bench
if [ $patched_only = yes ]; then
	for run in $runs; do check_saved_stock "$run"; done
fi
echo "== bench: kernels"
if [ $build = no ]; then
	for kernel in stock patched; do
		bz=$patched_bz
		[ $kernel = stock ] && bz=$stock_bz
		if uses 2 $kernel; then
			[ -f $bz ] || { echo "bench: --no-build: no $bz" >&2; exit 1; }
		fi
	done
elif [ $distro = yes ]; then
	scripts/prepare-tree.sh build/linux-stock
	scripts/build-distro-kernel.sh stock build/linux-stock build/obj-distro-stock --bzimage
	scripts/prepare-tree.sh build/linux patches
	scripts/build-distro-kernel.sh patched build/linux build/obj-distro --bzimage
elif [ $patched_only = no ]; then
	scripts/prepare-tree.sh build/linux-stock
	scripts/build-kernel.sh build/linux-stock build/obj-bench-stock \
		qemu/kernel.config qemu/bench.config
fi
if [ $build = yes ] && [ $distro = no ]; then
	scripts/prepare-tree.sh build/linux patches
	scripts/build-kernel.sh build/linux build/obj-bench \
		qemu/kernel.config qemu/bench.config qemu/denywrite.config
fi
mkdir -p $out
scripts/mkinitramfs.sh $initrd
if [ $distro = yes ] && uses 3 debian; then
	# Debian's CONFIG_LSM, for the patched kernel booted without
	# denywrite (lsm= that list); never an empty lsm=.
	debian_lsm=$(sed -n 's/^CONFIG_LSM="\(.*\)"$/\1/p' build/obj-distro/debian.config 2>/dev/null)
	[ -n "$debian_lsm" ] ||
		{ echo "bench: no CONFIG_LSM in build/obj-distro/debian.config" >&2; exit 1; }
fi

# The lanes run in the background, where a non-interactive shell ignores
# SIGINT, and timeout(1) in boot.sh is a process group of its own: on an
# interrupt, end the processes this script started, children first.
kill_tree() {
	for child in $(ps -o pid= --ppid "$1"); do
		kill_tree "$child"
	done
	kill "$1" 2>/dev/null || true
}
pids=
trap 'for p in $pids; do kill_tree "$p"; done; exit 130' INT TERM
for run in $runs; do
	[ $patched_only = yes ] && check_saved_stock "$run"
	# One CPU: under -icount QEMU runs the vCPUs in turn on one thread,
	# and a CPU that spins waiting for another (an IPI, a TLB shootdown)
	# would burn virtual time until the other is scheduled.  The whole
	# topology, as QEMU merges it with boot.sh's -smp.
	n=1
	extra="-smp 1,sockets=1,cores=1,threads=1"
	if [ "$run" = icount ]; then
		n=$jobs
		extra="-icount shift=0,sleep=off $extra"
	fi
	echo "== bench: $run run ($(run_params "$run")), $n boot(s) at a time (load: $(cut -d' ' -f1-3 /proc/loadavg))"
	run_params "$run" >"$out/$run.params"
	uptime >"$out/$run.load-before" 2>/dev/null || true
	k=0
	pids=
	while [ $k -lt "$n" ]; do
		QEMU_EXTRA=$extra lane "$run" $k "$n" &
		pids="$pids $!"
		k=$((k + 1))
	done
	for p in $pids; do wait "$p" || true; done
	pids=
	uptime >"$out/$run.load-after" 2>/dev/null || true
done
echo "== bench: report ($(($(date +%s) - start)) s so far)"
if [ $distro = yes ]; then
	exec scripts/bench-report.py --distro --runs "$runs" \
		--elapsed "$(($(date +%s) - start))" $out build/bench-distro.txt \
		build/bench-distro.csv
fi
exec scripts/bench-report.py --runs "$runs" --elapsed "$(($(date +%s) - start))" \
	$out build/bench.txt build/bench.csv
