# The scripted demonstration `make run` shows when stdin is not a terminal.
# Sourced by qemu/guest-suites.sh; prints a transcript, and "demo: FAILED"
# if a step does not behave as shown.
demo_ok=yes

step() {	# step ok|busy COMMAND...: show and run it, check the outcome
	want=$1
	shift
	echo "# $*"
	out=$("$@" 2>&1)
	rc=$?
	[ -n "$out" ] && echo "$out" | sed 's/^/  /'
	case $want in
	ok) [ $rc = 0 ] ;;
	busy) [ $rc != 0 ] && echo "$out" | grep -q 'Text file busy' ;;
	esac || {
		echo "demo: unexpected outcome (exit $rc) of: $*"
		demo_ok=no
	}
}

demo() {
	echo "== denywrite on $(uname -r); LSMs: $(cat /sys/kernel/security/lsm)"
	step ok denywritectl status
	echo
	echo "== 1. A running program cannot be overwritten (rule 'exec /', the boot default)"
	cp /tests/bin/sleeper /tmp/prog
	/tmp/prog &
	prog=$!
	sleep 1
	step busy cp /tests/bin/sleeper /tmp/prog
	step ok denywritectl why /tmp/prog
	echo
	echo "== 2. Protect shared libraries too"
	step ok denywritectl add --lib /usr/lib
	step ok denywritectl list
	/tests/bin/dynsleep &
	dyn=$!
	sleep 1
	cp /usr/lib/libdwtest.so /tmp/libdwtest.so
	step busy cp /tmp/libdwtest.so /usr/lib/libdwtest.so
	step ok denywritectl why /usr/lib/libdwtest.so
	echo
	echo "== 3. When the last user exits, the file is writable again"
	kill $prog $dyn
	wait $prog $dyn 2>/dev/null
	step ok cp /tmp/libdwtest.so /usr/lib/libdwtest.so
	step ok denywritectl stats
	echo
	echo "== 4. Audit mode logs what enforce would refuse, and allows it"
	/tmp/prog &
	prog=$!
	sleep 1
	step ok denywritectl mode audit
	step ok cp /tests/bin/sleeper /tmp/prog
	sleep 1
	step ok sh -c 'dmesg | grep "lsm=denywrite op=" | tail -2'
	kill $prog
	wait $prog 2>/dev/null
	denywritectl mode enforce
	denywritectl del /usr/lib
	echo "demo: $([ $demo_ok = yes ] && echo done || echo FAILED)"
}
