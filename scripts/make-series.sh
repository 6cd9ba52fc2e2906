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
# patch of patches/ that changes stock files is applied with `git am`; one
# that only adds files of the LSM (its changelog, then "---") becomes a
# commit of its message, author and date.  The files the project keeps as
# plain files join the commit that adds them:
#   0008-0015 (the LSM)     security/denywrite/ as each patch leaves it
#                           (scripts/series-stage.py: the files each adds,
#                           and the Makefile, setup.c and hooks.h of that
#                           step), without take_over_exec_denial(): until
#                           patch 0020, exec keeps its own denial
#   0017 (documentation)    Documentation/
#   0018 (selftests)        tests/selftests/ as tools/testing/selftests/denywrite/
#   0020 (exec)             setup.c with take_over_exec_denial(): the patch
#                           that changes fs/exec.c, and every one after it
# The tree of the last commit has security/denywrite/ as the repository
# has it, or the script fails.
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

# stage PATCH: security/denywrite/ as PATCH leaves it, staged; with
# take_over_exec_denial() from the patch that changes fs/exec.c on (the
# patches are staged in order).
takeover=
stage() {
	grep -q '^+++ b/fs/exec.c' "$top/patches/$1" && takeover=--takeover
	rm -rf security/denywrite
	python3 "$top/scripts/series-stage.py" "$top/security/denywrite" \
		security/denywrite "${1%%-*}" $takeover
	git add -A security/denywrite
}

# commit_mail PATCH: a commit of PATCH's message, author and date, with
# what is staged (a patch that changes no stock file).
commit_mail() {
	git mailinfo msg.tmp patch.tmp <"$1" >info.tmp
	name=$(sed -n 's/^Author: //p' info.tmp)
	email=$(sed -n 's/^Email: //p' info.tmp)
	date=$(sed -n 's/^Date: //p' info.tmp)
	{ sed -n 's/^Subject: //p' info.tmp; echo; cat msg.tmp; } >commit.tmp
	GIT_AUTHOR_NAME=$name GIT_AUTHOR_EMAIL=$email GIT_AUTHOR_DATE=$date \
		GIT_COMMITTER_DATE=$date git commit -q -F commit.tmp
	rm -f msg.tmp patch.tmp info.tmp commit.tmp
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
	n=${p%%-*}
	if grep -q '^+++ ' "$top/patches/$p"; then
		git am -q --committer-date-is-author-date "$top/patches/$p"
		if [ "$n" -ge 0008 ]; then
			stage "$p"
			git commit -q --amend --no-edit --allow-empty
		fi
	else
		stage "$p"
		commit_mail "$top/patches/$p"
	fi
	case $n in
	0017)
		amend_with Documentation Documentation ;;
	0018)
		amend_with tests/selftests tools/testing/selftests/denywrite ;;
	esac
	notes=$(notes_of "$top/patches/$p")
	[ -z "$notes" ] || git notes add -m "$notes"
done

diff -r "$top/security/denywrite" security/denywrite >/dev/null || {
	echo "make-series: the last commit's security/denywrite/ is not the repository's" >&2
	exit 1
}
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
