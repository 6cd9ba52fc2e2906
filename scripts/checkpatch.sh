#!/bin/sh
# checkpatch.sh KERNEL_TREE [SERIES_DIR]
#
# scripts/checkpatch.pl --strict, run in KERNEL_TREE, on every patch of
# the series as it is sent (SERIES_DIR, else scripts/make-series.sh makes
# it in build/series/); the LSM's files are checked as the patch that adds
# them (checkpatch accepts a __setup() only when the same patch documents
# it in kernel-parameters.txt).  A report fails, unless the patch's commit
# message justifies its type in a line "checkpatch: TYPE: why".
set -eu
tree=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
out=${2:-$top/build/series}
[ $# -ge 2 ] || "$top/scripts/make-series.sh" "$out" >/dev/null
rc=0 n=0
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	case ${p##*/} in 0000-*) continue ;; esac
	n=$((n + 1))
	reports=$(cd "$tree" && scripts/checkpatch.pl --strict --terse --show-types \
		--no-summary "$p" || true)
	left=$(printf '%s\n' "$reports" | while IFS= read -r line; do
		[ -n "$line" ] || continue
		type=$(echo "$line" | sed -n 's/^[^:]*:[0-9]*: [A-Z]*:\([A-Z0-9_]*\):.*/\1/p')
		grep -q "^checkpatch: $type: " "$p" || echo "$line"
	done)
	if [ -n "$left" ]; then
		printf '%s: %s\n' "${p##*/}" "$left" >&2
		rc=1
	fi
done
[ $rc = 0 ] && echo "checkpatch --strict: the $n patches of the series are clean"
exit $rc
