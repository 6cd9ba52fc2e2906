#!/bin/sh
# Print denywritectl's version, the one string that --version, the man page
# and the Debian package use.  From git: "git describe" of the last v* tag
# (v0.2-3-gabc1234 -> 0.2+3.gabc1234), or else the VERSION file plus the
# commit (0.2+gabc1234); ".dirty" when the tree has changes.  Without git
# (a source tarball), the VERSION file alone.
set -u
cd "$(dirname "$0")" || exit 1
base=$(cat VERSION)
if ! git rev-parse --git-dir >/dev/null 2>&1; then
	echo "$base"
	exit 0
fi
dirty=
git diff --quiet HEAD -- . 2>/dev/null || dirty=.dirty
if d=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
	echo "$d$dirty" | sed -e 's/^v//' -e 's/-/+/' -e 's/-/./g'
elif h=$(git rev-parse --short HEAD 2>/dev/null); then
	echo "$base+g$h$dirty"
else
	echo "$base"
fi
