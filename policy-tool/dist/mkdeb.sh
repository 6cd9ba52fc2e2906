#!/bin/sh
# mkdeb.sh OUTDIR: build OUTDIR/denywrite-tools_<version>_<arch>.deb with
# dpkg-buildpackage from debian/, then check it with lintian.
#
# The package is built in a copy of what it is made of (debian/,
# policy-tool/, tests/host/ and the securityfs captures its golden tests
# read, tests/golden/, README.md) under OUTDIR, so that
# dpkg-buildpackage writes its results to OUTDIR rather than next to the
# checkout.  The copy's debian/changelog and policy-tool/VERSION get the
# version of policy-tool/version.sh, the one --version prints.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(realpath -m "$1")
version=$("$top/policy-tool/version.sh")
src="$out/denywrite-$version"

rm -rf "$out"
mkdir -p "$src/tests"
cp -R "$top/debian" "$top/policy-tool" "$top/README.md" "$src/"
cp -R "$top/tests/host" "$top/tests/golden" "$src/tests/"
make -s -C "$src/policy-tool" clean
sed -i "1s/^denywrite ([^)]*)/denywrite ($version)/" "$src/debian/changelog"
# The copy is no git checkout: its version.sh prints its VERSION file.
echo "$version" >"$src/policy-tool/VERSION"

cd "$src"
dpkg-buildpackage -us -uc -b >"$out/build.log" 2>&1 || {
	tail -n 40 "$out/build.log" >&2
	echo "mkdeb: dpkg-buildpackage failed, see $out/build.log" >&2
	exit 1
}
deb=$(ls "$out"/denywrite-tools_*.deb)
echo "mkdeb: $deb"
grep -E '^(PLAN|[0-9]+ passed)' "$out/build.log" | sed 's/^/mkdeb: host tests: /'
# Lintian: clean, or each remaining tag justified in
# debian/denywrite-tools.lintian-overrides.  MKDEB_LINTIAN=no skips it:
# the host test of the maintainer scripts builds the package, also where
# the package build runs it, which has no lintian.
[ "${MKDEB_LINTIAN:-yes}" != no ] || exit 0
lintian --fail-on error,warning --display-info "$out"/*.changes
echo "mkdeb: lintian: no errors, no warnings"
