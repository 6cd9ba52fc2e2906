#!/bin/sh
# Print denywritectl's version, the one string that --version, the man page
# and the Debian package use, such that dpkg sorts the builds in the order
# they were made (docs/denywritectl.md, "Versions").  VERSION holds the
# version being developed, the next release:
#
#   HEAD is tag vX.Y               X.Y                  the release
#   N commits after tag vX.Y       X.Y+N.gHASH          after the release
#   no v* tag, N commits in all    VERSION~dev.N.gHASH  before the release
#   shallow clone, no tag in it    VERSION~dev.0.DATE.gHASH
#
# "~" sorts before anything, "+" after the end: every build made before
# the tag of VERSION sorts before its release, every build after a tag
# after it.  A shallow clone (git clone --depth 1) sees no tag and cannot
# count the commits: DATE, the commit's date in UTC (YYYYMMDDHHMMSS),
# orders its builds, after the 0 that keeps them before those of a full
# clone.  ".dirty" is appended when the tree has changes (a tagged one
# then gives X.Y+0.gHASH.dirty).  Outside a git checkout of this
# directory (a source tarball, the copy that make deb builds), the
# VERSION file alone.
set -u
cd "$(dirname "$0")" || exit 1
base=$(cat VERSION)
if ! git ls-files --error-unmatch version.sh >/dev/null 2>&1 ||
	! hash=$(git rev-parse --short HEAD 2>/dev/null); then
	echo "$base"
	exit 0
fi
dirty=
git diff --quiet HEAD -- . 2>/dev/null || dirty=.dirty
if d=$(git describe --tags --long --match 'v[0-9]*' 2>/dev/null); then
	# v0.2-3-gabc1234 (a tag may hold "-" itself)
	n=${d%-g*}
	tag=${n%-*}
	n=${n##*-}
	if [ "$n" = 0 ] && [ -z "$dirty" ]; then
		echo "${tag#v}"
	else
		echo "${tag#v}+$n.g${d##*-g}$dirty"
	fi
elif [ "$(git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; then
	date=$(TZ=UTC git log -1 --format=%cd \
		--date=format-local:%Y%m%d%H%M%S HEAD)
	echo "$base~dev.0.$date.g$hash$dirty"
else
	echo "$base~dev.$(git rev-list --count HEAD).g$hash$dirty"
fi
