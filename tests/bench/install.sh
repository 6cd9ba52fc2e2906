#!/bin/sh
# install.sh ROOT - put the benchmark programs (built by `make -C
# tests/bench`) into the guest root ROOT: /tests/bench/ for the programs
# and scripts, /usr/lib/dwbench/ for the dlopen'ed library.  A missing
# file fails.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$1
mkdir -p "$root/tests/bench" "$root/usr/lib/dwbench"
for f in dwbench dwb-true dwb-true-dyn dwb-dlopen dwb-cc configure.sh; do
	cp "$here/bin/$f" "$root/tests/bench/"
done
cp "$here/suite.sh" "$root/tests/bench/"
cp "$here/bin/libdwbplugin.so" "$root/usr/lib/dwbench/"
