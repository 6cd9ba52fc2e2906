#!/bin/sh
# mkfsimage.sh OUT.img [LIST]
#
# The disk of the test guest: an ext4 image (mke2fs -t ext4 -d) that the
# guest's suites mount to run the scenario matrix on a disk filesystem and
# through overlayfs (group_dwtest_on in qemu/guest-suites.sh).  It holds two
# copies of the guest's /usr/lib, the entries of LIST (default
# qemu/initramfs.list) whose guest path is under /usr/lib/: the shared
# library, the dlopen plugin, libc and the ELF interpreter.
#
#   /ext4/tmp, /ext4/usr/lib     bound over /tmp and /usr/lib for the ext4 run
#   /lower/tmp, /lower/usr/lib   the lower layer of the overlay run
#
# Two trees, so that what the ext4 run leaves behind is never the overlay's
# lower layer.  The guest writes through a QEMU snapshot (scripts/boot.sh),
# so OUT never changes after it is built.  A listed file that is missing
# fails the build, and OUT is removed first.
set -eu
out=$(realpath -m "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
list=$(realpath "${2:-$top/qemu/initramfs.list}")
root="$out.d"
size=32M
rm -rf "$out" "$out.tmp" "$root"
mkdir -p "$root"

missing=0
# shellcheck disable=SC2034 # rest: anything after the two fields
while read -r src dst rest; do
	case $src in '' | '#'*) continue ;; esac
	case $dst in /usr/lib/*) ;; *) continue ;; esac
	case $src in /*) ;; *) src=$top/$src ;; esac
	if [ ! -f "$src" ]; then
		echo "mkfsimage: missing $src (listed in $list)" >&2
		missing=$((missing + 1))
		continue
	fi
	for tree in ext4 lower; do
		mkdir -p "$root/$tree$(dirname "$dst")"
		cp -L "$src" "$root/$tree$dst"
	done
done <"$list"
[ $missing = 0 ] || { echo "mkfsimage: $missing file(s) missing" >&2; exit 1; }
for tree in ext4 lower; do
	[ -d "$root/$tree/usr/lib" ] || { echo "mkfsimage: no /usr/lib entries in $list" >&2; exit 1; }
	mkdir -p "$root/$tree/tmp"
	chmod 1777 "$root/$tree/tmp"
done

# 4 KiB blocks, as on any real ext4 (mke2fs would pick 1 KiB this small).
truncate -s "$size" "$out.tmp"
mke2fs -q -t ext4 -b 4096 -L dwfs -E root_owner=0:0 -d "$root" "$out.tmp"
rm -rf "$root"
mv "$out.tmp" "$out"
