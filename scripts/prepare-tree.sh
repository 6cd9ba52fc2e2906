#!/bin/sh
# prepare-tree.sh SRC_DIR [PATCH_DIR]
#
# Make SRC_DIR a copy of /usr/src/linux-source-6.12.tar.xz with the series in
# PATCH_DIR applied, security/denywrite/ and Documentation/ copied in and
# tests/selftests/ as tools/testing/selftests/denywrite/ (no PATCH_DIR: the
# stock tree).  scripts/make-series.sh makes the same tree as a series.  Redo only what changed: a new source package re-unpacks; a changed
# series is reversed and re-applied; changed LSM files are copied with their
# own mtimes, so kbuild rebuilds only what depends on them.
set -eu
src=$1
patchdir=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
version=$(dpkg-query -W -f '${Version}' linux-source-6.12)
stamp="$version $(stat -c '%s %Y' "$tarball")"

if [ ! -f "$src/.dw-source" ] || [ "$(cat "$src/.dw-source")" != "$stamp" ]; then
	echo "tree: unpacking linux-source-6.12 $version into $src"
	rm -rf "$src" "$src.tmp"
	mkdir -p "$src.tmp"
	tar -xf "$tarball" -C "$src.tmp"
	mv "$src.tmp/linux-source-6.12" "$src"
	rmdir "$src.tmp"
	mkdir "$src/.dw-applied"
	echo "$stamp" >"$src/.dw-source"
fi
echo "tree: linux-source-6.12 $version"

[ -n "$patchdir" ] || exit 0

applied="$src/.dw-applied"
# A patch of the LSM may change no file of the tree: its commit only adds
# files of security/denywrite/ (scripts/make-series.sh), copied in below.
has_diff() { grep -q '^+++ ' "$1"; }
want=$(cd "$patchdir" && grep -v '^#' series | grep . || true)
have=$(cat "$applied/series" 2>/dev/null || true)
same=yes
[ "$want" = "$have" ] || same=no
if [ $same = yes ]; then
	for p in $want; do
		cmp -s "$patchdir/$p" "$applied/$p" || same=no
	done
fi
if [ $same = no ]; then
	# Files the old and new series touch, with checksum and mtime, so
	# that a file whose content ends up the same keeps its mtime and
	# kbuild does not rebuild what includes it.
	touched=$( (for p in $have; do cat "$applied/$p"; done
		for p in $want; do cat "$patchdir/$p"; done) |
		sed -n 's|^+++ b/\([^\t]*\).*|\1|p' | sort -u)
	before=$(cd "$src" && for f in $touched; do
		if [ -f "$f" ]; then
			echo "$(sha1sum <"$f" | cut -c1-40) $(stat -c %Y "$f") $f"
		fi
	done)
	for p in $(echo "$have" | sed '1!G;h;$!d'); do
		has_diff "$applied/$p" || continue
		echo "tree: reversing $p"
		patch -d "$src" -p1 -R -s --no-backup-if-mismatch <"$applied/$p" || {
			echo "tree: cannot reverse $p; run 'make clean'" >&2
			exit 1
		}
	done
	rm -f "$applied"/*
	for p in $want; do
		if has_diff "$patchdir/$p"; then
			echo "tree: applying $p"
			patch -d "$src" -p1 -s -N --no-backup-if-mismatch <"$patchdir/$p" || {
				echo "tree: $p does not apply; fix the patch or run 'make clean'" >&2
				exit 1
			}
		fi
		cp "$patchdir/$p" "$applied/$p"
		echo "$p" >>"$applied/series"
	done
	echo "$before" | while read -r sum mtime f; do
		if [ -n "$f" ] && [ -f "$src/$f" ] &&
			[ "$(sha1sum <"$src/$f" | cut -c1-40)" = "$sum" ]; then
			touch -d "@$mtime" "$src/$f"
		fi
	done
fi

# sync FROM TO: TO holds exactly FROM's files (dot files too); unchanged
# files keep their mtimes.
sync() {
	mkdir -p "$2"
	for f in "$1"/* "$1"/.[!.]*; do
		[ -e "$f" ] || continue
		cmp -s "$f" "$2/${f##*/}" || cp "$f" "$2/"
	done
	for f in "$2"/* "$2"/.[!.]*; do
		[ -e "$f" ] || continue
		[ -e "$1/${f##*/}" ] || rm -f "$f"
	done
}
# The LSM, its selftests and its documentation, as the series adds them.
sync "$top/security/denywrite" "$src/security/denywrite"
sync "$top/tests/selftests" "$src/tools/testing/selftests/denywrite"
(cd "$top" && find Documentation -type f) | while read -r f; do
	cmp -s "$top/$f" "$src/$f" || { mkdir -p "$(dirname "$src/$f")" && cp "$top/$f" "$src/$f"; }
done
