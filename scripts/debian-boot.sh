#!/bin/sh
# debian-boot.sh BZIMAGE IMAGE TESTDISK LOGDIR "KERNEL ARGS"
#     unattended: console to LOGDIR/console.log, the second serial port
#     (the tests' results) to LOGDIR/results.log, and LOGDIR/boot.status
#     (qemu_exit, seconds) for scripts/report.py, as scripts/boot.sh does.
# debian-boot.sh --interactive BZIMAGE IMAGE TESTDISK "KERNEL ARGS"
#     the serial console on stdin/stdout.
# --initrd FILE (first): boot with that initramfs (the distribution
#     kernel's, from its image's /boot); --disk-copy: open IMAGE
#     read-write instead of with snapshot=on (a copy that test-debian.sh
#     made for two boots in a row: what the first writes, the second
#     finds).
#
# Boots the Debian guest (make debian-vm): IMAGE is the root file system,
# /dev/vda, opened with snapshot=on, so that a boot never changes it (what
# the guest writes is thrown away when QEMU ends); TESTDISK is /dev/vdb,
# read-only.  No initramfs unless --initrd: the kernel of make
# kernel-debian has ext4 and virtio-blk built in.  The guest
# ends the VM by rebooting (-no-reboot).  QEMU_ACCEL (default tcg),
# QEMU_TIMEOUT (seconds, default 1800), QEMU_MEM (MiB, default 2048).
set -eu
accel=${QEMU_ACCEL:-tcg}
limit=${QEMU_TIMEOUT:-1800}
mem=${QEMU_MEM:-2048}
interactive=no
initrd= snapshot=snapshot=on
while :; do
	case $1 in
	--initrd) initrd=$2; shift 2 ;;
	--disk-copy) snapshot=; shift ;;
	*) break ;;
	esac
done
if [ "$1" = --interactive ]; then
	interactive=yes
	shift
fi
kernel=$1 image=$2 tests=$3
if [ $interactive = yes ]; then
	log='' args=$4
else
	log=$4 args=$5
fi
for f in "$kernel" "$image" "$tests" ${initrd:+"$initrd"}; do
	[ -f "$f" ] || { echo "debian-boot: $f: no such file" >&2; exit 1; }
done
set -- -accel "$accel" -cpu max,la57=off -m "$mem" -smp 2 -no-reboot \
	-nodefaults -display none -kernel "$kernel" ${initrd:+-initrd "$initrd"} \
	-drive "file=$image,format=raw,if=virtio${snapshot:+,$snapshot}" \
	-drive "file=$tests,format=raw,if=virtio,readonly=on" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 $args"

if [ $interactive = yes ]; then
	exec qemu-system-x86_64 "$@" -serial mon:stdio -serial null
fi
mkdir -p "$log"
find "$log" -mindepth 1 -delete
start=$(date +%s)
rc=0
timeout "$limit" qemu-system-x86_64 "$@" -serial "file:$log/console.log" \
	-serial "file:$log/results.log" </dev/null || rc=$?
secs=$(($(date +%s) - start))
printf 'qemu_exit %s\nseconds %s\n' "$rc" "$secs" >"$log/boot.status"
echo "debian-boot: $(basename "$log"): QEMU exited with $rc after $secs s" >&2
[ $rc = 124 ] && echo "debian-boot: $(basename "$log"): timed out after $limit s" >&2
exit $rc
