#!/bin/sh
# Print denywritectl's version, the one string that --version, the man page
# and the Debian package use, so that versions sort as dpkg sorts them
# from one commit to the next.  From git: "git describe" of the last v*
# tag (v0.2-3-gabc1234 -> 0.2+3.gabc1234), or else the VERSION file plus
# the number of commits and the commit (0.2+95.gabc1234: the count sorts,
# the hash names); ".dirty" when the tree has changes.  Outside a git
# checkout of this directory (a source tarball, the copy that make deb
# builds), the VERSION file alone.
set -u
cd "$(dirname "$0")" || exit 1
base=$(cat VERSION)
if ! git ls-files --error-unmatch version.sh >/dev/null 2>&1; then
	echo "$base"
	exit 0
fi
dirty=
git diff --quiet HEAD -- . 2>/dev/null || dirty=.dirty
if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	echo "$d$dirty" | sed -e 's/^v//' -e 's/-/+/' -e 's/-/./g'
elif h=$(git rev-parse --short HEAD 2>/dev/null) &&
	n=$(git rev-list --count HEAD 2>/dev/null); then
	echo "$base+$n.g$h$dirty"
else
	echo "$base"
fi
