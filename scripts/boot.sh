#!/bin/sh
# boot.sh BZIMAGE INITRD LOGDIR "KERNEL ARGS" [DISK]   (unattended: logs to LOGDIR)
# boot.sh --interactive BZIMAGE INITRD "KERNEL ARGS" [DISK]  (console on stdio)
#
# DISK, a raw image (scripts/mkfsimage.sh), is the guest's virtio disk
# /dev/vda.  The guest writes to a temporary snapshot of it: the image
# itself never changes, so every boot starts from the same filesystem.
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

# disk_opts DISK: the -drive option of DISK, nothing without one.
disk_opts() {
	[ -n "$1" ] || return 0
	[ -f "$1" ] || { echo "boot: $1: no such file" >&2; exit 1; }
	echo "-drive file=$1,if=virtio,format=raw,snapshot=on"
}

if [ "$1" = --interactive ]; then
	kernel=$2 initrd=$3 args=$4
	disk=$(disk_opts "${5:-}")
	# shellcheck disable=SC2086
	exec qemu-system-x86_64 $common $disk -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $args" \
		-serial mon:stdio -serial null
fi

kernel=$1 initrd=$2 log=$3 args=$4
disk=$(disk_opts "${5:-}")
# Nothing of an earlier boot may be read as this one's: empty LOGDIR.
mkdir -p "$log"
find "$log" -mindepth 1 -delete
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "boot: $f: no such file" >&2; exit 1; }
done
name=$(basename "$log")

run_qemu() {
	start=$(date +%s)
	rc=0
	# shellcheck disable=SC2086
	timeout "$limit" qemu-system-x86_64 $common $disk -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $args" \
		-serial "file:$log/console.log" -serial "file:$log/results.log" \
		</dev/null || rc=$?
	secs=$(($(date +%s) - start))
}

run_qemu
crashed=
# QEMU itself died of a fault (SIGILL, SIGABRT, SIGBUS, SIGSEGV: exit
# 128+N through timeout): a fault of the host's emulator, which says
# nothing of the kernel under test (seen once in CI: TCG, 5 s into a
# boot).  Boot once more, from scratch; the crashed boot's logs stay as
# *.crashed.log, and boot.status says so (the report prints it).  A
# second crash is the boot's result.
case $rc in
132 | 134 | 135 | 139)
	crashed="$rc $secs"
	echo "boot: $name: QEMU crashed (exit $rc, signal $((rc - 128))) after $secs s; booting once more" >&2
	for f in console results; do
		mv "$log/$f.log" "$log/$f.crashed.log" 2>/dev/null || :
	done
	run_qemu
	;;
esac
# For the report: how QEMU ended (124: timed out) and how long it ran.
{
	printf 'qemu_exit %s\nseconds %s\n' "$rc" "$secs"
	[ -z "$crashed" ] || printf 'qemu_crashed %s\n' "$crashed"
} >"$log/boot.status"
echo "boot: $name: QEMU exited with $rc after $secs s" >&2
[ $rc = 124 ] && echo "boot: $name: timed out after $limit s" >&2
exit $rc
