#!/bin/sh
# deps.sh build|deb: install the Debian packages that building
# denywritectl (build) or its Debian package (deb) needs, when missing.
# Never the kernel's build dependencies: no linux-source, no QEMU.
set -eu
pkgs="gcc make libc6-dev libcap-dev"
case ${1:-build} in
build) ;;
deb) pkgs="$pkgs dpkg-dev debhelper fakeroot lintian bash-completion" ;;
*)
	echo "usage: $0 build|deb" >&2
	exit 2
	;;
esac
missing=
for p in $pkgs; do
	dpkg-query -W -f '${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root to install them)" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
