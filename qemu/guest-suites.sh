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

verdict() {	# verdict NAME GOT WANT [DETAIL]: PASS if GOT is WANT
	if [ "$2" = "$3" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1: got $2, expected $3${4:+ ($4)}"
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
	verdict "prctl_set_exe_file_with_writer_${what}_in_$2" "$rc" "$1"
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

# run_then_write NAME EXPECT TARGET CMD...: start CMD, wait until it runs a
# "prog" binary, then try to open TARGET for writing: EXPECT is denied (with
# "Text file busy") or allowed.
run_then_write() {
	name=$1 want=$2 target=$3
	shift 3
	"$@" &
	pid=$!
	i=0
	while ! readlink /proc/$pid/exe | grep -q 'prog$' && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	err=$( (: >>"$target") 2>&1)
	rc=$?
	kill $pid
	wait $pid 2>/dev/null
	got=allowed
	[ $rc != 0 ] && got=other
	echo "$err" | grep -q 'Text file busy' && got=denied
	verdict "${name}_${want}_in_enforce" "$got" "$want" "$err"
}

# Rules match kernel objects: no other path to a covered file escapes the
# rule, and no path string inside the rule's directory covers a file that
# lives elsewhere.
path_tests() {
	d=/tmp/dwp
	rm -rf $d
	mkdir -p $d/bin $d/other /mnt/dwp-bind /mnt/dwp-ns
	cp /tests/bin/sleeper $d/bin/prog
	cp /tests/bin/sleeper $d/other/prog
	ln -s $d/bin/prog $d/link
	ln -s $d/other/prog $d/bin/outside
	denywritectl clear && denywritectl add --exec $d/bin || {
		echo "FAIL path_tests_setup: denywritectl failed"
		return
	}
	run_then_write exec_via_symlink denied $d/bin/prog $d/link
	run_then_write exec_via_dotdot denied $d/bin/prog $d/other/../bin/prog
	run_then_write exec_in_chroot denied $d/bin/prog chroot $d /bin/prog
	mount --bind $d/bin /mnt/dwp-bind
	run_then_write exec_via_bind_mount denied $d/bin/prog /mnt/dwp-bind/prog
	umount /mnt/dwp-bind
	run_then_write exec_in_mount_namespace denied $d/bin/prog \
		unshare -m sh -c "mount --bind $d/bin /mnt/dwp-ns && exec /mnt/dwp-ns/prog"
	run_then_write exec_via_symlink_in_rule_dir_to_outside allowed \
		$d/other/prog $d/bin/outside
	run_then_write exec_outside_rule allowed $d/other/prog $d/other/prog
	denywritectl clear
	denywritectl add --exec /
	rm -rf $d
}

# Readers of the rules file see a whole policy, old or new, while a writer
# keeps swapping two of them.
policy_reads_are_atomic() {
	d=/tmp/dwa
	mkdir -p $d/1 $d/2 $d/3 $d/4
	printf 'exec /\n' >$d/a
	printf 'exec /\nlib %s/1\nlib %s/2\nlib %s/3\nlib %s/4\n' $d $d $d $d >$d/b
	denywritectl save >$d/saved
	(while :; do
		denywritectl load $d/a
		denywritectl load $d/b
	done) >/dev/null 2>&1 &
	writer=$!
	old=$(cat $d/a) new=$(cat $d/b)
	bad=0 a=0 b=0 i=0
	while [ $i -lt 100 ]; do
		r=$(cat /sys/kernel/security/denywrite/rules)
		if [ "$r" = "$old" ]; then a=$((a + 1))
		elif [ "$r" = "$new" ]; then b=$((b + 1))
		else bad=$((bad + 1))
		fi
		i=$((i + 1))
	done
	kill $writer
	wait $writer 2>/dev/null
	denywritectl load $d/saved
	rm -rf $d
	if [ $bad = 0 ] && [ $a -gt 0 ] && [ $b -gt 0 ]; then
		echo "PASS policy_reads_see_whole_policies_allowed_in_enforce"
	else
		echo "FAIL policy_reads_see_whole_policies_allowed_in_enforce: $bad mixed, $a old, $b new reads"
	fi
}

# denywritectl with securityfs unmounted: root mounts it, others are told how.
cli_without_securityfs() {
	umount /sys/kernel/security
	msg=$(/tests/bin/runas 65534 denywritectl status 2>&1)
	rc=$?
	if [ $rc = 1 ] && echo "$msg" | grep -q 'mount -t securityfs securityfs /sys/kernel/security'; then
		echo "PASS cli_unprivileged_without_securityfs_says_mount_command"
	else
		echo "FAIL cli_unprivileged_without_securityfs_says_mount_command: exit $rc: $msg"
	fi
	check cli_root_without_securityfs_mounts_it denywritectl status
	grep -q ' /sys/kernel/security ' /proc/mounts ||
		mount -t securityfs securityfs /sys/kernel/security
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
	path_tests
	policy_reads_are_atomic
	cli_without_securityfs
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
	bench) sh /tests/bench/suite.sh ;;
	*) echo "FAIL guest_suite_known: unknown suite '$1'" ;;
	esac
	echo DWTEST-DONE
}
