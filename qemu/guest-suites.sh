# Guest test suites.  /init sources this file and calls run_suite; each
# shell group runs as "sh /tests/guest-suites.sh group_NAME [ARGS]".
#
# What a suite prints on the results port (scripts/report.py checks every
# line of it; README.md, "Tests", describes the rules):
#
#   SUITE <suite> <run-id>       first; run-id from dwrun= on the command line
#   GROUPS <group>...            every group the suite will run, from its table
#   PLAN <group> <N>             printed by the group before its first check,
#   PASS|FAIL|SKIP <check>...      then exactly N result lines
#   STAT <group> <key> <value>   figures (rounds, inputs, seconds)
#   EXIT <group> <status>        printed by dwrun once the group ended
#   KMSG <seq> <prio> <text>     the kernel's whole log, once the groups ended
#   KMSG-END <records> <lost>      (tests/guest/kmsgdump.c)
#   END <suite>                  last
#
# Adding a test program to a suite is one row in its table below (the
# program prints its own PLAN; see run_group), its file in
# qemu/initramfs.list, and its checks in tests/manifest, which is what the
# report expects (README.md, "Tests").  Which checks may SKIP is said
# there too, never here: nothing the test guest prints can excuse a check.

sfs=/sys/kernel/security/denywrite
bin=/tests/bin
self=/tests/guest-suites.sh

# ---- the suites ------------------------------------------------------------
# One row a group: GROUP TIMEOUT-SECONDS COMMAND [ARGS...].  A program
# prints "PLAN GROUP N" with the GROUP of its row ($DWTEST_GROUP, set by
# dwrun); a COMMAND named group_* is a shell group of this file.
# run_suite adds the kmemleak group at the end of every suite whose name is
# not in no_kmemleak (the stock kernel is not ours to judge).

suite_lsm='
boot      60   group_checks boot_lsm
golden    120  /tests/bin/golden --compare /tests/golden
dwtest    600  /tests/bin/dwtest --kernel lsm
dwtest-ext4     900  group_dwtest_on lsm ext4
dwtest-overlay  900  group_dwtest_on lsm overlay
prctl     60   group_prctl 26 enforce protect
paths     120  group_paths
atomic    300  group_atomic_reads
nosfs     60   group_cli_without_securityfs
cli       300  sh /tests/cli.sh
coverage  300  /tests/bin/coverage
sfs       300  group_sfstest
walkstorm 300  /tests/bin/walkstorm
selftests 600  group_selftests
lsm-selftests 120  group_lsm_selftests
promises  300  /tests/bin/promises
stress    300  /tests/bin/stress --kernel lsm
parity    300  /tests/bin/parity
bench-smoke 300 /tests/bench/dwbench --smoke
'
suite_cli='
cli       300  sh /tests/cli.sh
'
suite_selftests='
selftests 600  group_selftests
lsm-selftests 120  group_lsm_selftests
'
suite_fs='
dwtest-ext4     900  group_dwtest_on lsm ext4
dwtest-overlay  900  group_dwtest_on lsm overlay
'
suite_params='
params    60   group_checks params
'
# The boot parameters, each booted and exercised (scripts/test.sh).
suite_params_off='
params_off   120  group_checks params_off
'
suite_default_lsm='
default_lsm  60  group_checks default_lsm
'
suite_removed='
removed   60   group_checks removed
dwtest    300  /tests/bin/dwtest --kernel removed
prctl     60   group_prctl 13 removed protect
'
# The stock kernel runs the matrix on the same filesystems as suite lsm,
# so that the report compares classic mode with it on each of them.
suite_stock='
dwtest    300  /tests/bin/dwtest --kernel stock
dwtest-ext4     300  group_dwtest_on stock ext4
dwtest-overlay  300  group_dwtest_on stock overlay
prctl     60   group_prctl 13 stock protect
stress    300  /tests/bin/stress --kernel stock
parity    300  /tests/bin/parity
ima       120  group_checks ima_stock
'
# make golden (scripts/golden.sh): the capture of tests/golden/, on a
# kernel just booted (golden counts from the boot), not a test.
suite_golden='
golden    120  /tests/bin/golden --capture
'
# The KCSAN kernel (qemu/kcsan.config, scripts/test.sh): the races of
# stress, the promises and the selftests on two CPUs, with KCSAN watching
# (its KUnit run is in the boot log); then its counters, which show that
# it watched.  KCSAN slows the guest: longer timeouts.
suite_kcsan='
selftests 1200 group_selftests
promises  900  /tests/bin/promises
stress    900  /tests/bin/stress --kernel lsm
kcsan     60   group_checks kcsan
'
# The stock kernel is not ours to judge; the KCSAN kernel has no kmemleak;
# golden is a capture, not a test.
no_kmemleak='stock kcsan golden'
kmemleak_row='kmemleak  300  group_checks kmemleak'

# ---- check tables ----------------------------------------------------------
# One row a check: NAME WANT PROBE [ARGS...], read with the shell's quoting
# (eval), so "$d" expands when the row runs.  PROBE prints one line, what
# it found; the check passes iff that line is WANT (see run_table).

checks_boot_lsm='
boot_lists_denywrite_as_active_lsm   listed    lsm_listing
boot_default_mode_is_enforce         enforce   contents $sfs/mode
boot_default_rules_are_exec_root     "exec /"  contents $sfs/rules
'
checks_params='
param_mode_audit_is_applied               audit  contents $sfs/mode
param_default_none_starts_without_rules   ""     contents $sfs/rules
param_default_none_leaves_running_program_writable_allowed  "allowed write+0 audited+0"  prog_write_counted
param_mode_audit_logs_write_to_covered_program_allowed      "allowed write+0 audited+1"  prog_write_counted "" "exec /"
param_default_none_warns_that_running_programs_are_writable  "level 4"  kmsg_level "denywrite.default=none: no rules"
param_mode_audit_warns_that_running_programs_are_writable  "level 4"  kmsg_level "denywrite.mode=audit: writes to running programs"
'
# denywrite.mode=off denywrite.default=classic: nothing is refused until
# the mode is enforce, then the classic rule is there.  Last, once IMA's
# policy has a rule for the files exec runs, exec denies writes to them
# itself again, in mode off too, as the stock kernel does (its group ima
# runs the same probes); IMA takes one policy a boot, so it comes last.
checks_params_off='
param_mode_off_is_applied                 off       contents $sfs/mode
param_default_classic_loads_exec_root     "exec /"  contents $sfs/rules
param_mode_off_leaves_running_program_writable_allowed            "allowed write+0 audited+0"  prog_write_counted
param_default_classic_protects_running_program_in_enforce_denied  "denied write+1 audited+0"   prog_write_counted enforce
param_mode_off_warns_that_running_programs_are_writable  "level 4"  kmsg_level "denywrite.mode=off: writes"
param_mode_off_exec_of_file_open_for_writing_allowed     allowed   exec_open_for_writing
param_mode_off_binfmt_misc_f_interpreter_is_registered   registered  binfmt_f_register
param_mode_off_ima_policy_with_exec_rule_is_loaded       loaded    ima_load "measure func=BPRM_CHECK"
param_mode_off_is_kept_under_ima_policy                  off       contents $sfs/mode
param_mode_off_ima_exec_rule_running_program_write_denied  "denied, then allowed after exit"  running_write_then_after_exit
param_mode_off_ima_exec_rule_exec_of_file_open_for_writing_denied  denied  exec_open_for_writing
param_mode_off_ima_exec_rule_f_interpreter_write_denied_while_it_runs  denied  binfmt_f_interpreter_write
'
# The stock kernel under the same IMA policy: the outcomes that
# checks_params_off expects of mode off.
checks_ima_stock='
stock_binfmt_misc_f_interpreter_is_registered            registered  binfmt_f_register
stock_ima_policy_with_exec_rule_is_loaded                loaded   ima_load "measure func=BPRM_CHECK"
stock_ima_exec_rule_running_program_write_denied         "denied, then allowed after exit"  running_write_then_after_exit
stock_ima_exec_rule_exec_of_file_open_for_writing_denied denied   exec_open_for_writing
stock_ima_exec_rule_f_interpreter_write_denied_while_it_runs  denied  binfmt_f_interpreter_write
'
# No lsm= at all: denywrite comes from the default CONFIG_LSM list.
checks_default_lsm='
default_lsm_boot_has_no_lsm_parameter             absent    lsm_parameter
default_lsm_list_activates_denywrite              listed    lsm_listing
default_lsm_list_boots_in_enforce                 enforce   contents $sfs/mode
default_lsm_list_loads_exec_root                  "exec /"  contents $sfs/rules
default_lsm_list_protects_running_program_denied  "denied write+1 audited+0"  prog_write_counted
'
checks_removed='
removed_kernel_has_no_denywrite_lsm   not-listed  lsm_listing
'
# KCSAN was on and watched accesses while the suite ran; its counters
# become STAT lines.  A report on the console fails the run (report.py).
checks_kcsan='
kcsan_is_enabled             enabled  kcsan_enabled
kcsan_set_up_watchpoints     watched  kcsan_watched
'
checks_cli_without_securityfs='
cli_unprivileged_without_securityfs_says_mount_command  "exit 4, says mount -t securityfs"  cli_unmounted_unprivileged
cli_root_without_securityfs_status_does_not_mount_it    "exit 4, not mounted"               cli_unmounted_root status
cli_root_without_securityfs_load_mounts_it              "exit 0, mounted"                   cli_unmounted_root load
'
checks_kmemleak='
kmemleak_is_enabled      enabled  kmemleak_scan
kmemleak_finds_no_leak   0        kmemleak_leaks
'
# Rules match kernel objects: no other path to a covered file escapes the
# rule, and no path string inside the rule's directory covers a file that
# lives elsewhere.  paths_setup puts "exec $d/bin" in place.
d=/tmp/dwp
checks_paths='
exec_via_symlink_denied_in_enforce          denied   exec_then_write $d/bin/prog $d/link
exec_via_dotdot_denied_in_enforce           denied   exec_then_write $d/bin/prog $d/other/../bin/prog
exec_in_chroot_denied_in_enforce            denied   exec_then_write $d/bin/prog chroot $d /bin/prog
exec_via_bind_mount_denied_in_enforce       denied   exec_then_write $d/bin/prog /mnt/dwp-bind/prog
exec_in_mount_namespace_denied_in_enforce   denied   exec_then_write $d/bin/prog unshare -m sh -c "mount --bind $d/bin /mnt/dwp-ns && exec /mnt/dwp-ns/prog"
exec_via_symlink_in_rule_dir_to_outside_allowed_in_enforce  allowed  exec_then_write $d/other/prog $d/bin/outside
exec_outside_rule_allowed_in_enforce        allowed  exec_then_write $d/other/prog $d/other/prog
'
# Readers of the rules file see a whole policy, old or new, while a writer
# keeps swapping two of them.
checks_atomic_reads='
policy_reads_see_whole_policies_allowed_in_enforce  whole  policy_reads
'

# ---- the table runner --------------------------------------------------------

# verdict NAME GOT WANT [SAID]: PASS if GOT is WANT; a FAIL line ends with
# SAID, the first line the probe wrote to stderr, if it wrote one.
verdict() {
	if [ "$2" = "$3" ]; then
		echo "PASS $1"
	else
		echo "FAIL $1: got '$(printf '%s' "$2" | tr '\n' ' ')', expected '$3'${4:+ (stderr: $4)}"
		table_failed=1
	fi
}

# Each non-blank row of TABLE on stdin of the caller's loop.
table_rows() {
	printf '%s\n' "$1" | grep -v '^[[:space:]]*$'
}

# run_table TABLE [SETUP [TEARDOWN]]: PLAN from the number of rows (and
# one more check with a TEARDOWN), then one line a row.  If SETUP fails,
# every row FAILs without running.  TEARDOWN (which puts back what SETUP
# changed: the policy, mounts) runs after the rows, whatever happened, and
# is a check of its own, TEARDOWN_succeeded: a failed restore fails this
# group, not the next one.  What a probe writes to stderr goes to the
# console, and its first line ends the row's FAIL line, if it failed.
# Returns 1 if a check failed.
run_table() {
	# The rows' "set --" replaces $1..., so keep the arguments first.
	setup=${2:-} teardown=${3:-}
	n=$(($(table_rows "$1" | wc -l)))
	[ -n "$teardown" ] && n=$((n + 1))
	echo "PLAN ${DWTEST_GROUP:?run shell groups through dwrun} $n"
	table_failed=0
	setup_err=
	if [ -n "$setup" ] && ! "$setup" >&2 </dev/null; then
		setup_err="setup ($setup) failed, see the console"
	fi
	table_rows "$1" >/tmp/table.$$
	while read -r row; do
		eval "set -- $row"
		name=$1 want=$2
		shift 2
		if [ -n "$setup_err" ]; then
			echo "FAIL $name: $setup_err"
			table_failed=1
			continue
		fi
		got=$("$@" </dev/null 2>/tmp/table.err.$$)
		cat /tmp/table.err.$$ >&2
		verdict "$name" "$got" "$want" "$(head -n 1 /tmp/table.err.$$)"
	done </tmp/table.$$
	rm -f /tmp/table.$$ /tmp/table.err.$$
	if [ -n "$teardown" ]; then
		"$teardown" >&2 </dev/null
		rc=$?
		verdict "${teardown}_succeeded" "exit $rc" "exit 0"
	fi
	return $table_failed
}

group_checks() {	# group_checks TABLE-NAME: run the table checks_TABLE-NAME
	eval "table=\${checks_$1:?no table checks_$1}"
	run_table "$table" "${2:-}" "${3:-}"
}

# ---- probes: each prints what it found, one line ---------------------------

wait_until() {	# wait_until TENTHS COMMAND...: poll until COMMAND succeeds
	tries=$1
	shift
	while ! "$@" 2>/dev/null; do
		tries=$((tries - 1))
		[ $tries -le 0 ] && return 1
		sleep 0.1
	done
}

lsm_listing() {
	if tr ',' '\n' </sys/kernel/security/lsm | grep -qx denywrite; then
		echo listed
	else
		echo not-listed
	fi
}

contents() { cat "$1" 2>&1; }

# kmsg_level TEXT: "level N", the printk level of the first kernel message
# with TEXT, or "no message".
kmsg_level() {
	l=$(dmesg -r | grep -m1 -F "$1" | sed -n 's/^<\([0-9]*\)>.*/\1/p')
	if [ -n "$l" ]; then echo "level $l"; else echo "no message"; fi
}

lsm_parameter() {	# present or absent: lsm= on the kernel command line
	if tr ' ' '\n' </proc/cmdline | grep -q '^lsm='; then
		echo present
	else
		echo absent
	fi
}

stat_value() { sed -n "s/^$1 //p" $sfs/stats; }	# stat_value KEY

# busy_probe COMMAND...: run COMMAND in a subshell: allowed if it
# succeeded, denied if it failed with "Text file busy", else the error.
busy_probe() {
	if err=$( ("$@") 2>&1); then
		echo allowed
	else
		case $err in
		*"Text file busy"*) echo denied ;;
		*) echo "other: $err" ;;
		esac
	fi
}

append_nothing() { : >>"$1"; }

# write_probe FILE: denied (Text file busy), allowed, or the error.
write_probe() { busy_probe append_nothing "$1"; }

runs_prog() { readlink "/proc/$1/exe" | grep -q 'prog$'; }

gone() {	# gone PID: exited (a zombie not yet waited for counts)
	state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -z "$state" ] || [ "$state" = Z ]
}

# exec_then_write TARGET CMD...: start CMD, wait until it runs a "prog"
# binary, then try to open TARGET for writing.  A CMD that never got there
# within 5 s is reported as such: the write is not probed without it.
exec_then_write() {
	target=$1
	shift
	"$@" >&2 &
	pid=$!
	if wait_until 50 runs_prog $pid; then
		write_probe "$target"
	else
		echo "not-started: '$*' did not run prog within 5 s"
	fi
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}

# prog_write_counted [MODE [RULES]]: in MODE with RULES ("" or nothing:
# as they are), run a fresh copy of the sleeper and try to open it for
# writing; print the outcome and how denied_write and audited moved, as
# "denied write+1 audited+0".  The mode and rules are put back after.
prog_write_counted() {
	old_mode=$(cat $sfs/mode) old_rules=$(cat $sfs/rules)
	p=/tmp/dwboot/prog
	rm -rf /tmp/dwboot
	if [ -n "${1:-}" ] && ! echo "$1" >$sfs/mode; then
		got="setup: mode $1"
	elif [ -n "${2:-}" ] && ! printf '%s\n' "$2" >$sfs/rules; then
		got="setup: rules $2"
	elif ! { mkdir -p /tmp/dwboot && cp $bin/sleeper $p; }; then
		got="setup: cp $bin/sleeper $p"
	else
		w=$(stat_value denied_write) a=$(stat_value audited)
		got=$(exec_then_write $p $p)
		got="$got write+$(($(stat_value denied_write) - w))"
		got="$got audited+$(($(stat_value audited) - a))"
	fi
	# A probe that could not put the policy back is a failed check.
	if ! echo "$old_mode" >$sfs/mode ||
		! printf '%s\n' "$old_rules" >$sfs/rules ||
		[ "$(cat $sfs/mode)" != "$old_mode" ] ||
		[ "$(cat $sfs/rules)" != "$old_rules" ]; then
		got="${got:+$got, }restore failed: mode $(cat $sfs/mode), rules $(cat $sfs/rules | tr '\n' ';')"
	fi
	rm -rf /tmp/dwboot
	echo "$got"
}

# running_write_then_after_exit: run a fresh copy of the sleeper, try to
# open it for writing, then again once it exited and was reaped: "denied,
# then allowed after exit" where a running program is denied writes.
running_write_then_after_exit() {
	p=/tmp/dwrun/prog
	rm -rf /tmp/dwrun
	if ! { mkdir -p /tmp/dwrun && cp $bin/sleeper $p; }; then
		echo "setup: cp $bin/sleeper $p"
		return
	fi
	while_running=$(exec_then_write $p $p)
	echo "$while_running, then $(write_probe $p) after exit"
	rm -rf /tmp/dwrun
}

# exec_open_for_writing: exec a fresh copy of busybox as "true" while this
# shell holds it open for writing: denied (Text file busy), allowed, or
# the error.
exec_open_for_writing() {
	t=/tmp/dwexec/true
	rm -rf /tmp/dwexec
	if ! { mkdir -p /tmp/dwexec && cp /bin/busybox $t; }; then
		echo "setup: cp /bin/busybox $t"
		return
	fi
	busy_probe exec_while_open_for_writing $t
	rm -rf /tmp/dwexec
}

# Run FILE while this shell holds it open for writing (descriptor 3).
exec_while_open_for_writing() { exec 3>>"$1" && "$1"; }

# binfmt_f_register: register the format dwbf, files *.dwbf run by a copy
# of the sleeper (/tmp/dwbf/interp), with flag F: binfmt_misc opens the
# interpreter now and runs a clone of that file each time ("registered").
bf=/tmp/dwbf
reg=/proc/sys/fs/binfmt_misc
binfmt_f_register() {
	if [ ! -w $reg/register ] &&
		! mount -t binfmt_misc binfmt_misc $reg 2>/dev/null; then
		echo "setup: mount binfmt_misc"
		return
	fi
	rm -rf $bf
	if ! { mkdir -p $bf && cp $bin/sleeper $bf/interp &&
		echo "not an ELF file" >$bf/foreign.dwbf &&
		chmod 755 $bf/foreign.dwbf; }; then
		echo "setup: $bf"
	elif echo ":dwbf:E::dwbf::$bf/interp:F" >$reg/register; then
		echo registered
	else
		echo "register failed"
	fi
}

runs_interp() { [ "$(readlink "/proc/$1/exe")" = $bf/interp ]; }

# binfmt_f_interpreter_write: run a file of format dwbf, then try to open
# its interpreter for writing while it runs; the format is unregistered
# after.  denied (Text file busy), allowed, or why not.
binfmt_f_interpreter_write() {
	$bf/foreign.dwbf >&2 &
	pid=$!
	if wait_until 50 runs_interp $pid; then
		write_probe $bf/interp
	else
		echo "not-started: $bf/foreign.dwbf did not run $bf/interp within 5 s"
	fi
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	echo -1 >$reg/dwbf
}

# ima_load RULE: IMA's policy becomes RULE ("loaded"), or why not.  Without
# CONFIG_IMA_WRITE_POLICY, IMA takes one policy a boot.
ima_load() {
	f=/sys/kernel/security/ima/policy
	if [ ! -e $f ]; then
		echo "no $f"
	elif err=$( (printf '%s\n' "$1" >$f) 2>&1); then
		echo loaded
	else
		echo "refused: $err"
	fi
}

# setexe_start FILE: run setexe FILE in the background ($setexe_pid) and
# wait for its answer, in $setexe_got: "ok" once it printed that prctl()
# succeeded, the errno it exited with, "signal:N" if it was killed, or
# "no answer within 5 s".  A silent setexe is never "ok".
setexe_start() {
	rm -f /tmp/setexe.out
	$bin/setexe "$1" >/tmp/setexe.out &
	setexe_pid=$!
	wait_until 50 setexe_answered
	if grep -qx 'setexe: exe set' /tmp/setexe.out; then
		setexe_got=ok
	elif ! gone $setexe_pid; then
		setexe_got="no answer within 5 s"
	else
		wait $setexe_pid
		rc=$?
		setexe_got=$rc
		[ $rc -gt 128 ] && setexe_got="signal:$((rc - 128))"
		[ $rc = 200 ] && setexe_got="setexe could not set up (exit 200)"
	fi
}

setexe_answered() {
	grep -qx 'setexe: exe set' /tmp/setexe.out || gone "$setexe_pid"
}

setexe_stop() {
	kill "$setexe_pid" 2>/dev/null
	wait "$setexe_pid" 2>/dev/null
}

fd_names() {	# fd_names /proc/PID/fd/N FILE: is that descriptor FILE
	[ "$(readlink "$1")" = "$2" ]
}

# prctl(PR_SET_MM_EXE_FILE) while another process holds the new file open
# for writing: "ok" or the errno (26 = ETXTBSY, 13 = EACCES).
setexe_with_writer() {
	new=/tmp/newexe
	cp $bin/sleeper $new || { echo "setup: cp"; return; }
	# The writer is a process of its own: an fd of this shell would leak
	# into setexe and outlive the test.
	sleep 30 3>>$new >&2 &
	writer=$!
	# fd 3 may be inherited from this shell: wait until it is the file.
	if wait_until 50 fd_names "/proc/$writer/fd/3" "$new"; then
		setexe_start $new
		setexe_stop
		echo "$setexe_got"
	else
		echo "setup: the writer never opened $new"
	fi
	kill $writer
	wait $writer 2>/dev/null
}

# prctl(PR_SET_MM_EXE_FILE) makes the new file protected until exit: the
# write probe while setexe runs with it.
setexe_then_write() {
	new=/tmp/newexe
	cp $bin/sleeper $new || { echo "setup: cp"; return; }
	setexe_start $new
	if [ "$setexe_got" != ok ]; then
		echo "setexe: $setexe_got"
	elif [ "$(readlink /proc/$setexe_pid/exe)" != $new ]; then
		echo "setexe said ok, but /proc/$setexe_pid/exe is $(readlink /proc/$setexe_pid/exe)"
	else
		write_probe $new
	fi
	setexe_stop
}

group_prctl() {	# group_prctl WRITER-OUTCOME MODE [protect]
	what=denied
	[ "$1" = ok ] && what=allowed
	table="prctl_set_exe_file_with_writer_${what}_in_$2  $1  setexe_with_writer"
	[ "${3:-}" = protect ] && table="$table
prctl_set_exe_file_protects_new_exe_denied_in_$2  denied  setexe_then_write
prctl_new_exe_writable_after_exit_allowed_in_$2  allowed  write_probe /tmp/newexe"
	run_table "$table"
}

paths_setup() {
	rm -rf $d
	mkdir -p $d/bin $d/other /mnt/dwp-bind /mnt/dwp-ns &&
		cp $bin/sleeper $d/bin/prog &&
		cp $bin/sleeper $d/other/prog &&
		ln -s $d/bin/prog $d/link &&
		ln -s $d/other/prog $d/bin/outside &&
		mount --bind $d/bin /mnt/dwp-bind &&
		denywritectl save >/tmp/dwp.policy &&
		denywritectl clear && denywritectl add --exec $d/bin
}

paths_teardown() {	# every step, whichever fails; fails if one did
	rc=0
	umount /mnt/dwp-bind || rc=1
	denywritectl load -q --allow-empty /tmp/dwp.policy || rc=1
	rm -rf $d /tmp/dwp.policy || rc=1
	return $rc
}

group_paths() { group_checks paths paths_setup paths_teardown; }

policy_reads() {
	a=/tmp/dwa
	mkdir -p $a/1 $a/2 $a/3 $a/4
	printf 'exec /\n' >$a/a
	printf 'exec /\nlib %s/1\nlib %s/2\nlib %s/3\nlib %s/4\n' $a $a $a $a >$a/b
	denywritectl save >$a/saved
	# The writer stops at a file, between two loads: killing its shell
	# would leave the load it runs going on, past the restore below.
	(while [ ! -e $a/stop ]; do
		denywritectl load $a/a
		denywritectl load $a/b
	done) >/dev/null 2>&1 &
	writer=$!
	old=$(cat $a/a) new=$(cat $a/b)
	bad=0 na=0 nb=0 i=0
	while [ $i -lt 40 ]; do
		r=$(cat $sfs/rules)
		if [ "$r" = "$old" ]; then na=$((na + 1))
		elif [ "$r" = "$new" ]; then nb=$((nb + 1))
		else bad=$((bad + 1))
		fi
		i=$((i + 1))
	done
	touch $a/stop
	wait $writer
	restored=yes
	denywritectl load -q --allow-empty $a/saved >&2 || restored=no
	[ "$(denywritectl save)" = "$(cat $a/saved)" ] || restored=no
	rm -rf $a
	printf 'STAT %s reads_old %s\nSTAT %s reads_new %s\n' \
		"$DWTEST_GROUP" $na "$DWTEST_GROUP" $nb >&3
	if [ $restored = no ]; then
		echo "the policy found at the start is not back"
	elif [ $bad = 0 ] && [ $na -gt 0 ] && [ $nb -gt 0 ]; then
		echo whole
	else
		echo "$bad mixed, $na old, $nb new reads"
	fi
}

group_atomic_reads() { group_checks atomic_reads; }

group_cli_without_securityfs() {
	group_checks cli_without_securityfs "" remount_securityfs
}

securityfs_unmounted() {
	! grep -q ' /sys/kernel/security ' /proc/mounts ||
		umount /sys/kernel/security
}

remount_securityfs() {
	grep -q ' /sys/kernel/security ' /proc/mounts ||
		mount -t securityfs securityfs /sys/kernel/security
}

# denywritectl with securityfs unmounted: only load mounts it (as root),
# the other commands say how, as aa-status does.
cli_unmounted_unprivileged() {
	securityfs_unmounted || { echo "setup: umount"; return; }
	msg=$($bin/runas 65534 denywritectl status 2>&1)
	rc=$?
	remount_securityfs
	case $msg in
	*"mount -t securityfs securityfs /sys/kernel/security"*)
		echo "exit $rc, says mount -t securityfs" ;;
	*) echo "exit $rc: $msg" ;;
	esac
}

# cli_unmounted_root status|load: the command as root, securityfs
# unmounted; load loads the policy there was.
cli_unmounted_root() {
	cat $sfs/rules >/tmp/nosfs.rules || { echo "setup: rules"; return; }
	securityfs_unmounted || { echo "setup: umount"; return; }
	if [ "$1" = load ]; then
		denywritectl load --allow-empty /tmp/nosfs.rules >/dev/null
	else
		denywritectl status >/dev/null
	fi
	rc=$?
	if grep -q ' /sys/kernel/security ' /proc/mounts; then
		m=mounted
	else
		m="not mounted"
		remount_securityfs
	fi
	echo "exit $rc, $m"
}

kcsan_info=/sys/kernel/debug/kcsan

kcsan_enabled() {
	if [ ! -r $kcsan_info ]; then
		echo "$kcsan_info is missing"
	elif [ "$(sed -n 's/^enabled: //p' $kcsan_info)" = 1 ]; then
		echo enabled
	else
		echo "not enabled: $(head -n 1 $kcsan_info)"
	fi
}

kcsan_watched() {	# "watched" once KCSAN set up a watchpoint
	for k in setup_watchpoints data_races report_races races_unknown_origin no_capacity; do
		echo "STAT $DWTEST_GROUP $k $(sed -n "s/^$k: //p" $kcsan_info)" >&3
	done
	n=$(sed -n 's/^setup_watchpoints: //p' $kcsan_info)
	if [ "${n:-0}" -gt 0 ]; then echo watched; else echo "setup_watchpoints '${n}'"; fi
}

kmemleak=/sys/kernel/debug/kmemleak

# kmemleak reports only objects older than 5 s (MSECS_MIN_AGE), and a
# second scan drops objects only transiently unreferenced: wait, scan
# twice.  "enabled", or why kmemleak cannot be trusted.
kmemleak_scan() {
	if [ ! -e $kmemleak ]; then
		echo "$kmemleak is missing"
	elif dmesg | grep -q 'Kernel memory leak detector disabled'; then
		echo "disabled itself: $(dmesg | grep kmemleak: | tail -n 3 | tr '\n' ' ')"
	else
		sleep 6
		start=$(cut -d' ' -f1 /proc/uptime)
		if ! echo scan >$kmemleak || ! echo scan >$kmemleak; then
			echo "scan refused: kmemleak is off"
		else
			echo "STAT $DWTEST_GROUP scan_seconds $(awk -v s="$start" '{ printf "%.1f", $1 - s }' /proc/uptime)" >&3
			echo enabled
		fi
	fi
}

kmemleak_leaks() {	# the number of suspected leaks (dumped on the console)
	if ! out=$(cat $kmemleak 2>&1); then
		echo "cannot read $kmemleak: $out"
		return
	fi
	n=$(printf '%s\n' "$out" | grep -c '^unreferenced object')
	[ "$n" != 0 ] && printf '%s\n' "$out" >/dev/console
	echo "$n"
}

# ---- the securityfs interface -------------------------------------------------
# sfstest, its fuzz loop from the seed dwseed= on the kernel command line
# (scripts/test.sh: DW_FUZZ_SEED, default 1), so that every make test runs
# the same inputs unless told otherwise; sfstest prints it (STAT sfs
# fuzz_seed) and how to replay a failure.
group_sfstest() {
	seed=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^dwseed=\([0-9]*\)$/\1/p')
	exec $bin/sfstest --seed "${seed:-1}"
}

# ---- the selftests of the series ---------------------------------------------
# tools/testing/selftests/denywrite (tests/selftests/), on a copy of the ext4
# image.  Their TAP becomes the results protocol: the plan "1..N" the PLAN
# line, each "ok"/"not ok" a PASS/FAIL/SKIP line named after its TEST;
# everything else, the harness's diagnostics, goes to the console.
tap_to_results() {
	awk -v g="$DWTEST_GROUP" '
	function name(s) { sub(/^(not )?ok [0-9]+ /, "", s); sub(/ # .*$/, "", s)
		sub(/^[a-z0-9_]+\./, "", s); return s }
	/^1\.\.[0-9]+$/ { print "PLAN " g " " substr($0, 4); fflush(); next }
	/^# .*:Expected / { why = substr($0, 3) }
	/^ok [0-9]+ .* # SKIP/ { r = $0; sub(/.* # SKIP */, "", r)
		print "SKIP " name($0) ": " r; fflush(); next }
	/^ok [0-9]+ / { print "PASS " name($0); fflush(); why = ""; next }
	/^not ok [0-9]+ / { print "FAIL " name($0) ": " (why ? why : "see the console")
		fflush(); why = ""; next }
	{ print > "/dev/stderr" }'
}

group_selftests() {
	cp $bin/cov-ext4.img /tmp/dwself-ext4.img || return 1
	set -o pipefail
	DENYWRITE_TEST_EXT4=/tmp/dwself-ext4.img $bin/denywrite_test 2>&1 |
		tap_to_results
}

# The LSM framework's selftests (tools/testing/selftests/lsm): one group of
# the results of its three programs, under one plan.
group_lsm_selftests() {
	rc=0 tap=/tmp/lsm-selftests.tap
	: >$tap
	for t in lsm_get_self_attr_test lsm_list_modules_test lsm_set_self_attr_test; do
		$bin/$t >$tap.one 2>&1 || rc=1
		cat $tap.one >>$tap
	done
	n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' $tap | awk '{ s += $1 } END { print s + 0 }')
	{ echo "1..$n"; grep -v '^1\.\.[0-9]*$' $tap; } | tap_to_results
	rm -f $tap $tap.one
	return $rc
}

# ---- the matrix on other filesystems -----------------------------------------
# group_dwtest_on KERNEL FS: the scenario matrix (dwtest --kernel KERNEL
# --fs FS: lsm, or stock for the classic kernel's outcomes), in a mount
# namespace of its own where /tmp and /usr/lib are bound to the trees of
# the guest's disk (scripts/mkfsimage.sh): for ext4 its /ext4 tree; for
# overlay, an overlayfs whose lower layer is its /lower tree (read-only)
# and whose upper layer is a new tmpfs.  Over the real paths, the very
# programs and rules of the tmpfs run meet the filesystem under test:
# dynsleep's RUNPATH and ELF interpreter, dlsleep's plugin, the rule
# "lib /usr/lib".  A mount that fails ends the group before its PLAN (the
# report fails it); dwtest fails every cell whose files are elsewhere.
fs_disk=/dev/vda
fs_mnt=/mnt/dwfs

group_dwtest_on() {	# group_dwtest_on KERNEL FS [DWTEST-ARGS...]
	# $0 of that shell is not this file's name: sourcing it runs no group.
	# shellcheck disable=SC2016 # expanded by the shell in the namespace
	exec unshare -m sh -c '. '$self' && mount_$2 && kernel=$1 fs=$2 &&
		shift 2 && exec '$bin'/dwtest --kernel "$kernel" --fs "$fs" "$@"' \
		dwtest_on "$@"
}

bind_tmp_usrlib() {	# bind_tmp_usrlib DIR: DIR/tmp on /tmp, DIR/usr/lib on /usr/lib
	mount --bind "$1/tmp" /tmp && mount --bind "$1/usr/lib" /usr/lib
}

mount_ext4() {
	mkdir -p $fs_mnt/disk &&
		mount -t ext4 $fs_disk $fs_mnt/disk &&
		bind_tmp_usrlib $fs_mnt/disk/ext4
}

mount_overlay() {
	mkdir -p $fs_mnt/disk $fs_mnt/up $fs_mnt/merged &&
		mount -t ext4 -o ro $fs_disk $fs_mnt/disk &&
		mount -t tmpfs dwfs-upper $fs_mnt/up &&
		mkdir $fs_mnt/up/upper $fs_mnt/up/work &&
		mount -t overlay overlay -o "lowerdir=$fs_mnt/disk/lower,upperdir=$fs_mnt/up/upper,workdir=$fs_mnt/up/work" $fs_mnt/merged &&
		bind_tmp_usrlib $fs_mnt/merged
}

# ---- running a suite -------------------------------------------------------

# run_group GROUP TIMEOUT COMMAND [ARGS...]: one group through dwrun, which
# prints its EXIT line (exit code, signal, timeout or not-started).
run_group() {
	group=$1 limit=$2
	shift 2
	case $1 in
	group_*) set -- sh $self "$@" ;;
	esac
	$bin/dwrun "$group" "$limit" "$@" </dev/null
}

suite_rows() {	# suite_rows SUITE: its table, with the kmemleak row if due
	eval "printf '%s\n' \"\$suite_$1\""
	case " $no_kmemleak " in
	*" $1 "*) ;;
	*) echo "$kmemleak_row" ;;
	esac
}

run_suite() {	# run_suite SUITE RUN-ID
	echo "SUITE $1 $2"
	case $1 in
	demo)
		. /tests/demo.sh
		demo
		echo "END $1"
		return
		;;
	bench)	# make bench: its groups and figures (tests/bench/suite.sh)
		sh /tests/bench/suite.sh
		echo "END $1"
		return
		;;
	esac
	if ! eval "[ -n \"\${suite_$1:-}\" ]"; then
		echo "unknown suite '$1'" >&2
		return # no GROUPS, no END: the report fails it
	fi
	set -f
	echo GROUPS $(suite_rows "$1" | awk 'NF { print $1 }')
	[ -w $kmemleak ] && echo clear >$kmemleak
	suite_rows "$1" | grep -v '^[[:space:]]*$' >/tmp/suite.rows
	while read -r row; do
		run_group $row
	done </tmp/suite.rows
	set +f
	# The kernel's whole log, which the report scans beside the console's
	# and compares with it: a message the console lost fails the run.
	[ -x $bin/kmsgdump ] && { $bin/kmsgdump || echo "kmsgdump failed" >&2; }
	echo "END $1"
}

demo_banner() {
	echo
	echo "denywrite demo guest: $(uname -r), LSMs: $(cat /sys/kernel/security/lsm)"
	echo "Try: denywritectl status; denywritectl add --lib /usr/lib;"
	echo "     /tests/bin/dynsleep & cp /usr/lib/libdwtest.so /tmp/x && cp /tmp/x /usr/lib/libdwtest.so"
	echo "     denywritectl why /usr/lib/libdwtest.so;  'reboot -f' to leave."
	echo
}

# "sh /tests/guest-suites.sh group_NAME [ARGS]": run one shell group, with
# fd 3 on stdout for STAT lines from inside probes.
if [ "${0##*/}" = guest-suites.sh ]; then
	case ${1:-} in
	group_*) "$@" 3>&1 ;;
	*) echo "usage: sh $self group_NAME [ARGS...]" >&2; exit 2 ;;
	esac
fi
