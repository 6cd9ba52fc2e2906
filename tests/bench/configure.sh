#!/bin/sh
# configure.sh N BIN DIR - an exec-heavy workload shaped like a configure
# script: N feature tests in DIR, each writing a source file, "compiling"
# it with BIN/dwb-cc (dynamic) into a fresh executable, running that, a
# command substitution running BIN/dwb-true (static), and /bin/rm (busybox,
# exec'd because it is named by path): four commands a test.  Prints
# nothing; exits non-zero at the first failing command.
set -e
n=$1 bin=$2
cd "$3"
i=0
while [ $i -lt "$n" ]; do
	echo "int main(void) { return $i; }" >conftest.c
	"$bin/dwb-cc" conftest.c conftest
	./conftest
	out=$("$bin/dwb-true")
	/bin/rm -f conftest conftest.c
	i=$((i + 1))
done
[ -z "$out" ]
