#!/bin/sh
# boot.sh BZIMAGE INITRD LOGDIR "KERNEL ARGS"   (unattended: logs to LOGDIR)
# boot.sh --interactive BZIMAGE INITRD "KERNEL ARGS"  (console on stdio)
#
# QEMU_ACCEL (default tcg; kvm where it works), QEMU_TIMEOUT (seconds,
# default 900), QEMU_MEM (default 1024 MiB), QEMU_EXTRA (more QEMU options,
# e.g. "-icount shift=0,sleep=off" for the benchmarks).  The guest ends the VM with
# "reboot -f" under -no-reboot; the timeout is only a safety net.
set -eu
accel=${QEMU_ACCEL:-tcg}
limit=${QEMU_TIMEOUT:-900}
mem=${QEMU_MEM:-1024}
common="-accel $accel -cpu max,la57=off -m $mem -smp 2 -no-reboot -nodefaults -display none ${QEMU_EXTRA:-}"

if [ "$1" = --interactive ]; then
	kernel=$2 initrd=$3 args=$4
	# shellcheck disable=SC2086
	exec qemu-system-x86_64 $common -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $args" \
		-serial mon:stdio -serial null
fi

kernel=$1 initrd=$2 log=$3 args=$4
mkdir -p "$log"
rm -f "$log/console.log" "$log/results.log"
start=$(date +%s)
rc=0
# shellcheck disable=SC2086
timeout "$limit" qemu-system-x86_64 $common -kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 $args" \
	-serial "file:$log/console.log" -serial "file:$log/results.log" \
	</dev/null || rc=$?
echo "boot: $(basename "$log"): QEMU exited with $rc after $(($(date +%s) - start)) s" >&2
[ $rc = 124 ] && echo "boot: $(basename "$log"): timed out after $limit s" >&2
exit $rc
