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

suite_lsm() {
	kmemleak_start
	d=/sys/kernel/security/denywrite
	check boot_lists_denywrite_as_active_lsm lsm_listed
	check boot_default_mode_is_enforce file_is $d/mode enforce
	check boot_default_rules_are_exec_root file_is $d/rules "exec /"
	/tests/bin/dwtest --kernel lsm --matrix
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
}

suite_stock() {
	/tests/bin/dwtest --kernel stock
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
	[ -f /tests/demo.sh ] && sh /tests/demo.sh
}

run_suite() {
	case $1 in
	lsm | params | removed | stock | demo) "suite_$1" ;;
	*) echo "FAIL guest_suite_known: unknown suite '$1'" ;;
	esac
	echo DWTEST-DONE
}
