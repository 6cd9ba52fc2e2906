#!/bin/sh
# mkinitramfs.sh OUT.cpio.gz [LIST]
#
# The guest: exactly the files of LIST (default qemu/initramfs.list: static
# busybox, /init, the guest suites, the test programs, denywritectl, the
# host's loader and libc for the dynamically linked test programs), plus
# busybox's applet links, /lib and /lib64 links and a minimal /etc.  A file
# of the list that is missing fails the build, and OUT is removed first, so
# a failed build never leaves an older image behind to boot.
set -eu
out=$(realpath -m "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
list=$(realpath "${2:-$top/qemu/initramfs.list}")
root="$out.d"
rm -rf "$out" "$out.tmp" "$root"
mkdir -p "$root"
cd "$root"
mkdir -p bin sbin etc proc sys dev tmp mnt root usr/sbin usr/bin usr/lib64
ln -s usr/lib lib
ln -s usr/lib64 lib64

missing=0
# shellcheck disable=SC2034 # rest: anything after the two fields
while read -r src dst rest; do
	case $src in '' | '#'*) continue ;; esac
	case $src in /*) ;; *) src=$top/$src ;; esac
	if [ ! -f "$src" ]; then
		echo "mkinitramfs: missing $src (listed in $list)" >&2
		missing=$((missing + 1))
		continue
	fi
	mkdir -p ".$(dirname "$dst")"
	cp -L "$src" ".$dst"
done <"$list"
[ $missing = 0 ] || { echo "mkinitramfs: $missing file(s) missing" >&2; exit 1; }

for applet in $(bin/busybox --list); do
	[ -e "bin/$applet" ] || ln -s busybox "bin/$applet"
done
ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 usr/lib64/ld-linux-x86-64.so.2
echo 'root:x:0:0:root:/root:/bin/sh' >etc/passwd
echo 'nobody:x:65534:65534:nobody:/:/bin/false' >>etc/passwd
printf 'root:x:0:\nnogroup:x:65534:\n' >etc/group

find . | LC_ALL=C sort | cpio -o -H newc --owner=0:0 --quiet >"$out.cpio"
gzip -1 <"$out.cpio" >"$out.tmp"
rm "$out.cpio"
mv "$out.tmp" "$out"
