#!/bin/sh
# deps.sh SET...: install the Debian packages that a part of denywritectl's
# work needs, when missing.  Never the kernel's build dependencies: no
# linux-source, no QEMU.  The sets:
#   build    building it: gcc make libc6-dev libcap-dev nettle-dev,
#            pkg-config, libauparse-dev (log's audit parser; libaudit-dev,
#            with libcap-ng-dev, has the archives of the static build) and
#            libsystemd-dev (log reads the journal with sd-journal)
#   check    its host tests (make check): build, and what the tests run:
#            zsh and fish (their completions must parse), bash-completion
#            (the bash completion runs with the real library), git (the
#            version scheme is tested in a repository of its own),
#            systemd-journal-remote (log's test writes a journal file),
#            dpkg-dev and debhelper (a test builds the package to run its
#            maintainer scripts)
#   analyze  make analyze: cppcheck, groff (the man page lint)
#   deb      its Debian package: dpkg-dev debhelper fakeroot lintian, and
#            check's packages, for the package build runs the host tests
set -eu
[ $# -gt 0 ] || set -- build
pkgs="gcc make libc6-dev libcap-dev nettle-dev pkg-config libauparse-dev"
pkgs="$pkgs libaudit-dev libsystemd-dev"
check="zsh fish bash-completion git systemd-journal-remote dpkg-dev debhelper"
for set in "$@"; do
	case $set in
	build) ;;
	check) pkgs="$pkgs $check" ;;
	analyze) pkgs="$pkgs cppcheck groff" ;;
	deb) pkgs="$pkgs $check dpkg-dev debhelper fakeroot lintian" ;;
	*)
		echo "usage: $0 [build|check|analyze|deb]..." >&2
		exit 2
		;;
	esac
done
missing=
for p in $pkgs; do
	case " $missing " in *" $p "*) continue ;; esac
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
