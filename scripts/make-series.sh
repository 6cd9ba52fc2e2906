#!/bin/sh
# make-series.sh OUT
#
# The patch series as it is sent: OUT (build/series/) gets what `git
# format-patch --cover-letter` makes of one commit per patch of
# patches/series, on top of the stock tree of linux-source-6.12, with the
# cover letter patches/cover-letter.txt.
#
# The commits are made in a throwaway git repository (OUT.git) that holds
# the stock files the series changes: its first commit has them as the
# package has them, and a diff depends only on the files it touches.  Each
# patch of patches/ is applied with `git am`; the files the project keeps
# as plain files join the commit that adds them (`git commit --amend`):
#   0004 (the LSM)        security/denywrite/, without
#                         take_over_exec_denial(): until 0007, exec keeps
#                         its own denial
#   0005 (documentation)  Documentation/
#   0006 (selftests)      tests/selftests/ as tools/testing/selftests/denywrite/
#   0007 (exec)           take_over_exec_denial() in security/denywrite/setup.c
set -eu
out=$(realpath -m "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
tarball=/usr/src/linux-source-6.12.tar.xz
version=$(dpkg-query -W -f '${Version}' linux-source-6.12)
git="$out.git"
patches=$(grep -v '^#' "$top/patches/series" | grep .)

rm -rf "$out" "$git"
mkdir -p "$git"
cd "$git"
git init -q
git config user.name "denywrite developers"
git config user.email "denywrite@example.org"
git config commit.gpgsign false

# The stock files the patches change, as the package has them.
files=$(for p in $patches; do sed -n 's|^--- a/\(.*\)|\1|p' "$top/patches/$p"; done |
	sort -u)
# shellcheck disable=SC2086 # one argument a file
tar -xf "$tarball" --strip-components=1 \
	$(for f in $files; do echo "linux-source-6.12/$f"; done)
git add -A
GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	git commit -q -m "linux-source-6.12 $version"
base=$(git rev-parse HEAD)

# setup.c as the LSM patch adds it: without take_over_exec_denial() and
# its call, which must each be there exactly once.
without_takeover() {
	python3 - "$1" <<'EOF'
import re, sys
s = open(sys.argv[1]).read()
fn = re.compile(r"/\*\n \* Exec leaves the denial of writes to running programs.*?\n\}\n\n", re.S)
call = "\ttake_over_exec_denial();\n"
if len(fn.findall(s)) != 1 or s.count(call) != 1:
    sys.exit("make-series: setup.c has no single take_over_exec_denial()")
sys.stdout.write(fn.sub("", s).replace(call, ""))
EOF
}

# amend_with FROM TO: the commit also adds the files of the repository's
# FROM as TO.
amend_with() {
	mkdir -p "$2"
	cp -R "$top/$1/." "$2/"
	git add "$2"
	git commit -q --amend --no-edit
}

# notes_of PATCH: the lines "checkpatch: TYPE: why" below its "---", which
# git am drops; they go on the commit as a git note, which format-patch
# --notes puts below the "---" of the patch it makes.
notes_of() {
	sed -n '/^---$/,/^diff --git /s/^\(checkpatch: .*\)/\1/p' "$1"
}

for p in $patches; do
	git am -q --committer-date-is-author-date "$top/patches/$p"
	case $p in
	0004-*)
		amend_with security/denywrite security/denywrite
		without_takeover security/denywrite/setup.c >setup.c.new
		mv setup.c.new security/denywrite/setup.c
		git add security/denywrite/setup.c
		git commit -q --amend --no-edit ;;
	0005-*)
		amend_with Documentation Documentation ;;
	0006-*)
		amend_with tests/selftests tools/testing/selftests/denywrite ;;
	0007-*)
		cp "$top/security/denywrite/setup.c" security/denywrite/setup.c
		git add security/denywrite/setup.c
		git commit -q --amend --no-edit ;;
	esac
	notes=$(notes_of "$top/patches/$p")
	[ -z "$notes" ] || git notes add -m "$notes"
done

git format-patch -q --notes --cover-letter -o "$out" "$base..HEAD"
# The cover letter: its first line is the subject, the rest the blurb.
cover=$(ls "$out"/0000-cover-letter.patch)
python3 - "$cover" "$top/patches/cover-letter.txt" <<'EOF'
import sys
path, text = sys.argv[1], open(sys.argv[2]).read()
subject, _, blurb = text.partition("\n")
s = open(path).read()
if "*** SUBJECT HERE ***" not in s or "*** BLURB HERE ***" not in s:
    sys.exit("make-series: git format-patch made no cover letter template")
s = s.replace("*** SUBJECT HERE ***", subject.strip())
s = s.replace("*** BLURB HERE ***", blurb.strip("\n"))
open(path, "w").write(s)
EOF
echo "series: $(ls "$out" | wc -l) files in $out, on linux-source-6.12 $version"
