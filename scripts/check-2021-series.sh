#!/bin/sh
# check-2021-series.sh KERNEL_TREE
#
# David Hildenbrand's 2021 series "Remove in-tree usage of MAP_DENYWRITE"
# (../shared/seeds/001-009) is in the tree: VM_DENYWRITE is gone (one
# comment in include/linux/fs.h still names it), and mmap ignores
# MAP_DENYWRITE (it is in LEGACY_MAP_MASK, and no kernel code passes it).
set -u
cd "$1" || exit 1
rc=0
vm=$(grep -rn --include='*.[ch]' -w VM_DENYWRITE include mm fs kernel arch |
	grep -v '^include/linux/fs.h:[0-9]*: \* VM_DENYWRITE -- cannot handle')
if [ -n "$vm" ]; then
	echo "2021 series: VM_DENYWRITE is still there:"
	echo "$vm"
	rc=1
fi
map=$(grep -rn --include='*.[ch]' -w MAP_DENYWRITE mm fs kernel include/linux |
	grep -v '^include/linux/mman.h:')
if [ -n "$map" ]; then
	echo "2021 series: kernel code still uses MAP_DENYWRITE:"
	echo "$map"
	rc=1
fi
if ! sed -n '/define LEGACY_MAP_MASK/,/^$/p' include/linux/mman.h | grep -q MAP_DENYWRITE; then
	echo "2021 series: MAP_DENYWRITE is not an ignored legacy flag"
	rc=1
fi
exit $rc
