#!/bin/sh
# checkpatch.sh KERNEL_TREE: scripts/checkpatch.pl --strict on every patch
# of the series as it is sent (scripts/make-series.sh), run in KERNEL_TREE;
# fails on any report.  The LSM's files are checked as the patch that adds
# them: checkpatch accepts a __setup() only when the same patch documents
# it in kernel-parameters.txt.
set -eu
tree=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/series
"$top/scripts/make-series.sh" "$out" >/dev/null
rc=0
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	case ${p##*/} in 0000-*) continue ;; esac
	(cd "$tree" && scripts/checkpatch.pl --strict -q "$p") || rc=1
done
[ $rc = 0 ] && echo "checkpatch --strict: the $(ls "$out" | grep -vc '^0000-') patches of build/series/ are clean"
exit $rc
