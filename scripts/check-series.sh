#!/bin/sh
# check-series.sh SERIES-DIR                             (make check-series)
#
# What a maintainer does with the series, on a fresh extraction of
# linux-source-6.12: apply it with `git am`, build a kernel after each
# patch, run checkpatch --strict and get_maintainer on each patch.  Fails
# on the first problem, saying which patch.
#
# The kernel of each step: tinyconfig + qemu/kernel.config +
# qemu/ima.config + qemu/denywrite.config, without the debugging options
# (a small configuration that builds the LSM, its KUnit tests and
# everything the series touches: exec, binfmt_misc, fork, IMA), in one
# object directory built incrementally.  Before the LSM's patch the denywrite
# options do not exist: every other option of the fragments must survive
# Kconfig at every step, and the denywrite options from the LSM's patch
# on.  A warning in security/denywrite/ fails the build as in
# scripts/build-kernel.sh.
#
# checkpatch: no error, warning or check, unless the patch's commit
# justifies it in a line "checkpatch: TYPE: why" below its "---".
# get_maintainer: a patch that touches denywrite's files must find the
# DENYWRITE SECURITY MODULE entry.  What it says on stderr (git's error
# on a Fixes: commit, which this tree of one commit does not have) is
# printed on a line of its own, never in the list.
set -eu
series=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
work=$top/build/check-series
tarball=/usr/src/linux-source-6.12.tar.xz
src=$work/linux obj=$work/obj
fragments="$top/qemu/kernel.config $top/qemu/ima.config $top/qemu/denywrite.config"
start=$(date +%s)

say() { echo "check-series: $*"; }
fail() { echo "check-series: $*" >&2; exit 1; }

rm -rf "$work"
mkdir -p "$work"
say "unpacking linux-source-6.12 $(dpkg-query -W -f '${Version}' linux-source-6.12)"
tar -xf "$tarball" -C "$work"
mv "$work/linux-source-6.12" "$src"
cd "$src"
git init -q
git config user.name "check-series"
git config user.email "check-series@localhost"
# -f: Debian's top-level .gitignore ignores everything but debian/.
git add -A -f
git commit -q -m "linux-source-6.12"
base=$(git rev-parse HEAD)
say "base committed ($(($(date +%s) - start)) s)"

patches=$(ls "$series"/[0-9][0-9][0-9][0-9]-*.patch | grep -v /0000-)
git am -q --whitespace=error $patches || fail "the series does not apply with git am (or adds whitespace errors)"
say "$(echo "$patches" | wc -l) patches applied with git am"

# An option a fragment asks for, and how .config has it.
check_config() {	# check_config DENYWRITE-TOO
	bad=0
	for frag in $fragments; do
		while IFS= read -r line; do
			case $line in
			CONFIG_SECURITY_DENYWRITE*=*|CONFIG_KUNIT=*)
				[ "$1" = yes ] || continue ;;
			esac
			case $line in
			CONFIG_*=*)
				grep -qxF "$line" "$obj/.config" || {
					echo "  $line is not in .config" >&2
					bad=1
				} ;;
			esac
		done <"$frag"
	done
	return $bad
}

i=0
for commit in $(git rev-list --reverse "$base..HEAD"); do
	i=$((i + 1))
	subject=$(git log -1 --format=%s "$commit")
	git checkout -q "$commit"
	t0=$(date +%s)
	exec 9>/tmp/denywrite-kbuild.lock
	flock 9
	if [ ! -f "$obj/.config" ]; then
		make -s O="$obj" tinyconfig >/dev/null
	fi
	scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" $fragments >/dev/null
	make -s O="$obj" olddefconfig >/dev/null
	lsm=no
	[ -d security/denywrite ] && lsm=yes
	check_config $lsm || fail "patch $i ($subject): configuration"
	make -s O="$obj" -j"$(nproc)" bzImage >"$work/build-$i.log" 2>&1 ||
		{ tail -20 "$work/build-$i.log" >&2; fail "patch $i ($subject) does not build"; }
	flock -u 9
	if grep -q 'security/denywrite/.*warning:' "$work/build-$i.log"; then
		fail "patch $i ($subject): warnings in security/denywrite/"
	fi
	say "patch $i builds ($(($(date +%s) - t0)) s): $subject"
done

"$top/scripts/checkpatch.sh" "$src" "$series" || fail "checkpatch --strict"
for p in $patches; do
	name=${p##*/}
	touches=no
	grep -q '^+++ b/\(security/denywrite/\|tools/testing/selftests/denywrite/\|Documentation/.*denywrite\)' "$p" &&
		touches=yes
	maint=$(scripts/get_maintainer.pl --no-git --no-git-fallback "$p" 2>"$work/maint.err") ||
		fail "get_maintainer.pl failed on $name: $(cat "$work/maint.err")"
	[ -s "$work/maint.err" ] &&
		say "$name: get_maintainer.pl said: $(head -1 "$work/maint.err")"
	if [ $touches = yes ]; then
		echo "$maint" | grep -q "(maintainer:DENYWRITE SECURITY MODULE)" ||
			fail "get_maintainer.pl finds no DENYWRITE entry for $name"
	fi
	say "$name: maintainers: $(echo "$maint" | sed 's/ (.*//' | paste -sd, -)"
done
say "done in $(($(date +%s) - start)) s"
