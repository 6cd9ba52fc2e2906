#!/bin/sh
# mkinitramfs.sh OUT.cpio.gz
#
# The guest: static busybox, /init (qemu/init), the guest test programs and
# scripts, the benchmark programs (tests/bench/install.sh), denywritectl,
# and the host's dynamic loader and libc so that dynamically linked test
# programs and libraries run.
set -eu
out=$(realpath -m "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
root="$out.d"
rm -rf "$root"
mkdir -p "$root"
cd "$root"
mkdir -p bin sbin etc proc sys dev tmp mnt root tests/bin usr/sbin usr/bin \
	usr/lib/x86_64-linux-gnu usr/lib64 usr/lib/dwtest
ln -s usr/lib lib
ln -s usr/lib64 lib64

cp /bin/busybox bin/busybox
for applet in $(bin/busybox --list); do
	[ -e "bin/$applet" ] || ln -s busybox "bin/$applet"
done

multiarch=/lib/x86_64-linux-gnu
cp -L "$multiarch/libc.so.6" "$multiarch/ld-linux-x86-64.so.2" usr/lib/x86_64-linux-gnu/
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 usr/lib64/ld-linux-x86-64.so.2

cp "$top/qemu/init" init
cp "$top/qemu/guest-suites.sh" "$top/qemu/demo.sh" tests/
cp "$top"/tests/guest/*.sh tests/ 2>/dev/null || true
guestbin="$top/tests/guest/bin"
for f in "$guestbin"/*; do
	case $f in
	*.o | *.d) ;;
	*/libdwtest.so) cp "$f" usr/lib/ ;;
	*/libdwplugin.so) cp "$f" usr/lib/dwtest/ ;;
	*) cp "$f" tests/bin/ ;;
	esac
done
sh "$top/tests/bench/install.sh" "$root"
cp "$top/policy-tool/denywritectl" usr/sbin/
echo 'root:x:0:0:root:/root:/bin/sh' >etc/passwd
echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' >etc/group

find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet | gzip -1 >"$out"
