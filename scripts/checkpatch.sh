#!/bin/sh
# checkpatch.sh KERNEL_TREE [SERIES_DIR]
#
# scripts/checkpatch.pl --strict, run in KERNEL_TREE, on every patch of
# the series as it is sent (SERIES_DIR, else scripts/make-series.sh makes
# it in build/series/); the LSM's files are checked as the patch that adds
# them (checkpatch accepts a __setup() only when the same patch documents
# it in kernel-parameters.txt).  A report fails, unless the patch justifies
# its type in a line "checkpatch: TYPE: why" below its "---", where git am
# drops it (a note for the reviewer; scripts/make-series.sh carries it
# into the series as a git note).
set -eu
tree=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "${2:-$top/build/series}")
[ $# -ge 2 ] || "$top/scripts/make-series.sh" "$out" >/dev/null
# In a git tree checkpatch checks each SPDX line with scripts/spdxcheck.py,
# which needs python3-ply and python3-git (scripts/deps.sh): Debian's
# python3, not another one earlier in PATH.  Without them checkpatch takes
# every SPDX line as valid and says nothing but a traceback: so a
# traceback fails, and in a git tree the check is tried first on a
# license that does not exist.
PATH=/usr/bin:$PATH
if [ -e "$tree/.git" ]; then
	bogus=$(cd "$tree" && echo "SPDX-License-Identifier: GPL-9.9-not-a-license" | scripts/spdxcheck.py - 2>&1 || true)
	case $bogus in
	*"Invalid License ID: GPL-9.9-not-a-license"*) ;;
	*)
		echo "checkpatch: scripts/spdxcheck.py does not work (python3-ply, python3-git?): ${bogus:-no answer for an unknown license}" >&2
		exit 1 ;;
	esac
fi
rc=0 n=0
for p in "$out"/[0-9][0-9][0-9][0-9]-*.patch; do
	case ${p##*/} in 0000-*) continue ;; esac
	n=$((n + 1))
	reports=$(cd "$tree" && scripts/checkpatch.pl --strict --terse --show-types \
		--no-summary "$p" 2>&1 || true)
	left=$(printf '%s\n' "$reports" | while IFS= read -r line; do
		[ -n "$line" ] || continue
		type=$(echo "$line" | sed -n 's/^[^:]*:[0-9]*: [A-Z]*:\([A-Z0-9_]*\):.*/\1/p')
		grep -q "^ *checkpatch: $type: " "$p" || echo "$line"
	done)
	if [ -n "$left" ]; then
		printf '%s: %s\n' "${p##*/}" "$left" >&2
		rc=1
	fi
done
[ $rc = 0 ] && echo "checkpatch --strict: the $n patches of the series are clean"
exit $rc
