#!/bin/sh
# distro-version.sh: the version of the kernel package of make kernel-deb,
# <Debian's version of linux-source-6.12>+dw<the tools' version>, e.g.
# 6.12.118-1~deb12u1+dw0.3~dev.97.g1a2b3c4: the Debian source it was
# built from, and the commit that the tools package of the same commit
# (policy-tool/version.sh: 0.3~dev.97.g1a2b3c4) names.  ".dirty" when the
# kernel's own inputs in this checkout (the LSM, the series, the
# configuration and the scripts that build it) differ from the commit.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
deb=$(dpkg-query -W -f '${Version}' linux-source-6.12)
tools=$("$top/policy-tool/version.sh")
case $tools in
*.dirty) ;;
*)
	if git -C "$top" rev-parse --git-dir >/dev/null 2>&1 &&
		! git -C "$top" diff --quiet HEAD -- security patches Documentation \
			tests/selftests qemu/distro-modules.list \
			scripts/build-distro-kernel.sh scripts/distro-config-check.py \
			2>/dev/null; then
		tools=$tools.dirty
	fi
	;;
esac
echo "$deb+dw$tools"
