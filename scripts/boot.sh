#!/bin/sh
# boot.sh BZIMAGE INITRD LOGDIR "KERNEL ARGS"   (unattended: logs to LOGDIR)
# boot.sh --interactive BZIMAGE INITRD "KERNEL ARGS"  (console on stdio)
#
# QEMU_ACCEL (default tcg; kvm where it works), QEMU_TIMEOUT (seconds,
# default 3600), QEMU_MEM (default 1024 MiB), QEMU_EXTRA (more QEMU
# options, e.g. "-icount shift=0,sleep=off" for the benchmarks, which also
# pass their own -smp).  The guest ends the VM with
# "reboot -f" under -no-reboot; each test group has its own timeout inside
# the guest, so this one is only a safety net for a hung kernel.
#
# Two CPUs, as two sockets: the kernel has no ACPI and finds its CPUs in
# the MP table, which lists one CPU per socket (with -smp 2 alone, the
# guest brings up one CPU and the race tests race nothing).
set -eu
accel=${QEMU_ACCEL:-tcg}
limit=${QEMU_TIMEOUT:-3600}
mem=${QEMU_MEM:-1024}
common="-accel $accel -cpu max,la57=off -m $mem -smp 2,sockets=2,cores=1,threads=1"
common="$common -no-reboot -nodefaults -display none ${QEMU_EXTRA:-}"

if [ "$1" = --interactive ]; then
	kernel=$2 initrd=$3 args=$4
	# shellcheck disable=SC2086
	exec qemu-system-x86_64 $common -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $args" \
		-serial mon:stdio -serial null
fi

kernel=$1 initrd=$2 log=$3 args=$4
# Nothing of an earlier boot may be read as this one's: empty LOGDIR.
mkdir -p "$log"
find "$log" -mindepth 1 -delete
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "boot: $f: no such file" >&2; exit 1; }
done
start=$(date +%s)
rc=0
# shellcheck disable=SC2086
timeout "$limit" qemu-system-x86_64 $common -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 $args" \
	-serial "file:$log/console.log" -serial "file:$log/results.log" \
	</dev/null || rc=$?
secs=$(($(date +%s) - start))
# For the report: how QEMU ended (124: timed out) and how long it ran.
printf 'qemu_exit %s\nseconds %s\n' "$rc" "$secs" >"$log/boot.status"
echo "boot: $(basename "$log"): QEMU exited with $rc after $secs s" >&2
[ $rc = 124 ] && echo "boot: $(basename "$log"): timed out after $limit s" >&2
exit $rc
