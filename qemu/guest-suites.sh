# Guest test suites, sourced by /init.  Each check prints one line,
# "PASS name" or "FAIL name: reason"; a suite ends with "DWTEST-DONE".

check() {	# check NAME CONDITION-COMMAND... : PASS if the command succeeds
	name=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "PASS $name"
	else
		echo "FAIL $name: '$*' failed"
	fi
}

lsm_listed() {
	tr ',' '\n' </sys/kernel/security/lsm | grep -qx denywrite
}

file_is() {	# file_is FILE EXPECTED-CONTENT
	[ "$(cat "$1")" = "$2" ]
}

kmemleak_start() {
	[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
}

kmemleak_check() {
	f=/sys/kernel/debug/kmemleak
	if [ ! -w $f ]; then
		echo "FAIL kmemleak_finds_no_leak: $f missing"
		return
	fi
	echo scan >$f
	sleep 1
	echo scan >$f
	leaks=$(grep -c 'unreferenced object' $f)
	if [ "$leaks" = 0 ]; then
		echo "PASS kmemleak_finds_no_leak"
	else
		echo "FAIL kmemleak_finds_no_leak: $leaks unreferenced objects"
		cat $f >/dev/console
	fi
}

# prctl(PR_SET_MM_EXE_FILE) with a writer: $1 is the expected outcome,
# an errno (26 = ETXTBSY for denywrite, 13 = EACCES for the classic
# kernel) or "ok"; setexe pauses after a successful prctl, so a timeout
# means it succeeded.
prctl_exe_file_with_writer() {
	new=/tmp/newexe
	cp /tests/bin/sleeper $new
	# The writer is a process of its own: an fd of this shell would leak
	# into timeout's watcher process and outlive the test.
	sleep 30 3>>$new &
	writer=$!
	while [ ! -e /proc/$writer/fd/3 ]; do sleep 0.1; done
	timeout -s KILL 5 /tests/bin/setexe $new 2>/dev/null
	rc=$?
	kill $writer
	wait $writer 2>/dev/null
	[ $rc -ge 124 ] && rc=ok
	what=denied
	[ "$1" = ok ] && what=allowed
	if [ $rc = "$1" ]; then
		echo "PASS prctl_set_exe_file_with_writer_${what}_in_$2"
	else
		echo "FAIL prctl_set_exe_file_with_writer_${what}_in_$2: got $rc, expected $1"
	fi
}

# prctl(PR_SET_MM_EXE_FILE) makes the new file protected until exit.
prctl_exe_file_protected() {
	new=/tmp/newexe
	cp /tests/bin/sleeper $new
	/tests/bin/setexe $new &
	pid=$!
	i=0
	while [ "$(readlink /proc/$pid/exe)" != $new ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if [ "$(readlink /proc/$pid/exe)" != $new ]; then
		echo "FAIL prctl_set_exe_file_protects_new_exe_denied_in_$1: prctl did not take effect"
	elif (: >>$new) 2>/dev/null; then
		echo "FAIL prctl_set_exe_file_protects_new_exe_denied_in_$1: write allowed"
	else
		echo "PASS prctl_set_exe_file_protects_new_exe_denied_in_$1"
	fi
	kill $pid
	wait $pid 2>/dev/null
	check prctl_new_exe_writable_after_exit_allowed_in_$1 sh -c ": >>$new"
}

suite_lsm() {
	kmemleak_start
	d=/sys/kernel/security/denywrite
	check boot_lists_denywrite_as_active_lsm lsm_listed
	check boot_default_mode_is_enforce file_is $d/mode enforce
	check boot_default_rules_are_exec_root file_is $d/rules "exec /"
	/tests/bin/dwtest --kernel lsm
	prctl_exe_file_with_writer 26 enforce
	prctl_exe_file_protected enforce
	[ -f /tests/cli.sh ] && sh /tests/cli.sh
	kmemleak_check
}

suite_params() {
	d=/sys/kernel/security/denywrite
	check param_mode_audit_is_applied file_is $d/mode audit
	check param_default_none_starts_without_rules file_is $d/rules ""
}

suite_removed() {
	check removed_kernel_has_no_denywrite_lsm sh -c '! tr , "\n" </sys/kernel/security/lsm | grep -qx denywrite'
	/tests/bin/dwtest --kernel removed
	prctl_exe_file_with_writer ok removed
}

suite_stock() {
	/tests/bin/dwtest --kernel stock
	prctl_exe_file_with_writer 13 stock
	prctl_exe_file_protected stock
}

demo_banner() {
	echo
	echo "denywrite demo guest: $(uname -r), LSMs: $(cat /sys/kernel/security/lsm)"
	echo "Try: denywritectl status; denywritectl add --lib /usr/lib;"
	echo "     /tests/bin/dynsleep & cp /usr/lib/libdwtest.so /tmp/x && cp /tmp/x /usr/lib/libdwtest.so"
	echo "     denywritectl why /usr/lib/libdwtest.so;  'reboot -f' to leave."
	echo
}

suite_demo() {
	. /tests/demo.sh
	demo
}

run_suite() {
	case $1 in
	lsm | params | removed | stock | demo) "suite_$1" ;;
	*) echo "FAIL guest_suite_known: unknown suite '$1'" ;;
	esac
	echo DWTEST-DONE
}
