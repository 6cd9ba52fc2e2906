#!/bin/sh
# bench-trace.sh [--distro] CONFIG FUNCTION[,FUNCTION...] [NTH]
#
# Where a benchmark's instructions go: boots the patched benchmark kernel
# (build/obj-bench, from make bench) under -icount with QEMU's gdbstub,
# runs one round of the bench suite's configuration CONFIG (off, audit,
# exec, all, rN-match, rN-none: tests/bench/suite.sh), stops at the NTH
# (default 1000) call of each FUNCTION, steps through it to its return,
# callees included, and prints, for each, the number of instructions and
# how many ran in each function.  The 1000th hook_mmap_file of "all" is a
# mapping of the mmap_exec loop; the 3000th security_file_post_open of
# "all", an open of the open_wronly loop.  Needs gdb; one boot, a minute
# or two.
#
# CONFIG stock: the stock benchmark kernel (build/obj-bench-stock, from
# make bench), lsm=capability, as make bench boots it; its figures against
# the patched kernel's are the instructions denywrite adds, exactly.
#
# --distro: the kernel of Debian's configuration instead (build/obj-distro,
# from make bench-distro or make kernel-distro), Debian's LSMs, the
# configurations of make bench-distro (pkg, pkgoff, stock: the stock
# kernel, build/obj-distro-stock), work files in /usr/lib/x86_64-linux-gnu.
# BT_ONLY=OP,... runs only those operations of dwbench (dwb.only), so that
# the NTH call falls in their loop.  BT_EXTRA="ARG ..." adds kernel
# arguments, e.g. dwb.libdir=/usr/lib/x86_64-linux-gnu to trace the
# packaged policy (pkg) on the benchmark kernel.
set -eu
distro=no
[ "${1:-}" = --distro ] && { distro=yes; shift; }
[ $# -ge 2 ] || { echo "usage: bench-trace.sh [--distro] CONFIG FUNCTION[,FUNCTION...] [NTH]" >&2; exit 2; }
command -v gdb >/dev/null || { echo "bench-trace: needs gdb (apt-get install gdb)" >&2; exit 1; }
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
obj=build/obj-bench initrd=build/bench/initramfs.cpio.gz out=build/bench/trace
lsm="lsm=capability,denywrite" extra=
if [ $distro = yes ]; then
	obj=build/obj-distro initrd=build/bench-distro/initramfs.cpio.gz
	out=build/bench-distro/trace lsm= extra="dwb.libdir=/usr/lib/x86_64-linux-gnu"
	[ "$1" = stock ] && obj=build/obj-distro-stock
	# Every time, as bench.sh does: an initramfs left from older guest
	# programs (before dwb.only, say) would trace another loop silently.
	make -s -C policy-tool && make -s -C tests/guest && make -s -C tests/bench
	mkdir -p build/bench-distro && scripts/mkinitramfs.sh $initrd
fi
if [ $distro = no ] && [ "$1" = stock ]; then
	obj=build/obj-bench-stock lsm=lsm=capability
fi
[ -n "${BT_ONLY:-}" ] && extra="$extra dwb.only=$BT_ONLY"
extra="$extra ${BT_EXTRA:-}"
bz=$obj/arch/x86/boot/bzImage vmlinux=$obj/vmlinux
for f in $bz $vmlinux $initrd; do
	[ -f $f ] || { echo "bench-trace: no $f: run make bench first" >&2; exit 1; }
done
mkdir -p $out
port=$((20000 + $$ % 20000))
QEMU_EXTRA="-icount shift=0,sleep=off -smp 1,sockets=1,cores=1,threads=1 -gdb tcp::$port -S" \
QEMU_TIMEOUT=900 scripts/boot.sh $bz $initrd $out/boot \
	"$lsm $extra i8042.noaux i8042.nokbd noapictimer tsc=reliable norandmaps nokaslr dwsuite=bench dwb.configs=$1 dwb.rounds=1 dwb.macro=0 dwb.slab=0" \
	>/dev/null 2>&1 &
qemu=$!
sleep 2
BT_FUNCS=$2 BT_NTH=${3:-1000} BT_OUT=$out/pcs timeout 600 \
	gdb -q -batch -ex "file $vmlinux" -ex "target remote :$port" \
	-ex "source scripts/bench-trace.py" >$out/gdb.log 2>&1 || true
kill $qemu 2>/dev/null || true
wait $qemu 2>/dev/null || true
nm -n $vmlinux | grep -i ' [tw] ' >$out/syms
python3 - "$2" $out/syms $out/pcs <<'PY'
import bisect, sys
funcs, symfile, pcfile = sys.argv[1].split(","), sys.argv[2], sys.argv[3]
syms = [(int(a, 16), n) for a, _, n in (l.split()[:3] for l in open(symfile))]
starts = [a for a, _ in syms]
runs = {}
for line in open(pcfile):
    f, pc = line.split()
    name = syms[bisect.bisect_right(starts, int(pc, 16)) - 1][1]
    runs.setdefault(f, {}).setdefault(name, 0)
    runs[f][name] += 1
for f in funcs:
    if f not in runs:
        print(f"{f}: not reached (see build/bench/trace/gdb.log)")
        sys.exit(1)
    total = sum(runs[f].values())
    print(f"{f}: {total} instructions: " +
          ", ".join(f"{n} {c}" for n, c in runs[f].items()))
PY
