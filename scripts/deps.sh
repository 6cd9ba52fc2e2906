#!/bin/sh
# deps.sh [--distro]: install the Debian packages the build and the tests
# need, when missing.  Never touches the running kernel.
# --distro: also what the distribution kernel and its package need (make
# kernel-distro, kernel-deb, debian-vm, test-debian; docs/distro.md):
# linux-config-6.12 (Debian's own configurations of the kernel), dwarves
# (pahole: the BTF of Debian's configuration), kmod (depmod), debhelper
# and dpkg-dev, rsync (a build dependency bindeb-pkg checks), and clang
# for the BPF LSM program of the Debian guest's tests (tests/debian).
# make test does not need them.
set -eu
pkgs="linux-source-6.12 gcc make flex bison bc libelf-dev libssl-dev cpio
qemu-system-x86 busybox-static libcap-dev xz-utils patch perl python3 groff
man-db cppcheck e2fsprogs xfsprogs python3-docutils python3-ply python3-git"
if [ "${1:-}" = --distro ]; then
	pkgs="$pkgs linux-config-6.12 dwarves kmod debhelper dpkg-dev rsync clang"
fi
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
