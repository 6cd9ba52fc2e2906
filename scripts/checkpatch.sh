#!/bin/sh
# checkpatch.sh KERNEL_TREE: scripts/checkpatch.pl --strict on every patch
# of the series, and on the LSM's files; fails on any report.
#
# The LSM's files are checked as new files added by the patch that wires
# them in, the way they would be submitted upstream: checkpatch accepts a
# __setup() only when the same patch documents it in kernel-parameters.txt.
set -eu
tree=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
checkpatch="$tree/scripts/checkpatch.pl --strict -q"
wiring=$(grep -l 'security/denywrite/Kconfig' patches/*.patch | head -1)
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
rc=0
for p in $(grep -v '^#' patches/series); do
	if [ "patches/$p" = "$wiring" ]; then
		sed '/^-- *$/,$d' "$wiring" >"$tmp"
		for f in security/denywrite/*; do
			git diff --no-index --no-color /dev/null "$f" |
				sed "s|^+++ b/.*|+++ b/$f|" >>"$tmp" || true
		done
		(cd "$tree" && $checkpatch "$tmp") || rc=1
	else
		(cd "$tree" && $checkpatch "$top/patches/$p") || rc=1
	fi
done
[ $rc = 0 ] && echo "checkpatch --strict: patches and security/denywrite/ are clean"
exit $rc
