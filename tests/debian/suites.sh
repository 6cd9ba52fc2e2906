# The Debian guest's test suites (make test-debian; README.md, "On a real
# system").  main.sh runs "sh suites.sh run SUITE RUN-ID" on the results
# port; each shell group runs as "sh suites.sh group_NAME".
#
# The table runner, the suite runner and the generic probes (run_table,
# run_suite, write_probe, exec_then_write...) are those of the initramfs
# guest: qemu/guest-suites.sh, copied onto the test disk and sourced here,
# so the results have the same format and scripts/report.py checks them
# alike.  Lines starting with "#" on the results port are a transcript of
# what the tests ran and saw (the report ignores them; test-debian.sh
# keeps them in transcript.txt).

t=/run/dwdebian
. $t/guest-suites.sh
bin=$t/bin
self=$t/suites.sh
cli=/usr/sbin/denywritectl
libdir=/usr/lib/x86_64-linux-gnu
work=/var/tmp/dw
packaged_rules="exec / | lib $libdir"
# dpkg and apt-get run without a terminal.
export DEBIAN_FRONTEND=noninteractive

# ---- the suites ------------------------------------------------------------
# One row a group: GROUP TIMEOUT-SECONDS COMMAND (see qemu/guest-suites.sh).

# lsm=denywrite, the package's policy loaded by denywrite.service.
suite_debian='
boot      300  group_checks boot
libc      120  group_checks libc libc_setup
dpkg      300  group_checks dpkg
apt       300  group_checks apt
mold      300  group_checks mold_enforce
race      900  group_checks race race_setup race_teardown
gcc       300  group_checks gcc gcc_setup gcc_teardown
'
# lsm=denywrite denywrite.mode=off: what the protection is for.
suite_debian_off='
boot      300  group_checks boot_off
mold      300  group_checks mold_off
'
# lsm=denywrite, and early.sh put a broken file into /etc/denywrite/rules.d.
suite_debian_broken='
broken    300  group_checks broken
'
# lsm=capability: denywrite not active (for the boot time ratio, too).
suite_debian_nolsm='
boot      300  group_checks boot_nolsm
'
# make run-debian without a terminal.
suite_debian_demo='
demo      600  group_checks demo libc_setup
'
# Boots that only measure the boot time, alternately with and without
# denywrite (scripts/test-debian.sh): time_denywrite_N, time_nolsm_N.
suite_time='
boot      300  group_checks boot_time
'
time_suites='time_denywrite_1 time_nolsm_1 time_denywrite_2 time_nolsm_2'
for s in $time_suites; do
	eval "suite_$s=\$suite_time"
done
# No kmemleak in this kernel (no debug options).  No check may skip but
# the KUnit tests of holds where denywrite is not in lsm= (no inode blob,
# no holds table).
no_kmemleak="debian debian_off debian_broken debian_nolsm debian_demo $time_suites"
allow_skip_debian_nolsm='
kunit_holds_in_slot_and_table
kunit_stop_drops_holds_and_takes_none
kunit_stop_drops_marks_and_takes_none
kunit_sweep_yields_and_goes_on
'
for s in $time_suites; do
	case $s in
	time_nolsm_*) eval "allow_skip_$s=\$allow_skip_debian_nolsm" ;;
	esac
done

# ---- check tables: NAME WANT PROBE [ARGS...] (run_table) -------------------

checks_boot='
system_reaches_running_state               running   boot_state
denywrite_unit_is_active_after_boot        active    systemctl is-active denywrite
denywrite_unit_status_shows_what_it_loaded "loaded 2 rules from 2 files"  unit_loaded
policy_is_the_packaged_default             "$packaged_rules"  rules_line
mode_is_enforce_after_boot                 enforce   contents $sfs/mode
tests_run_offline_without_a_network_device  "no network device"  net_devices
'
libc=$libdir/libc.so.6
checks_libc='
cp_over_libc_in_use_fails_with_etxtbsy       "Text file busy"  cp_over $libc
libc_is_unchanged_after_the_refused_cp       unchanged  libc_unchanged
refused_cp_is_in_the_audit_log               logged     audit_has write $libc
why_names_the_systemd_services_holding_libc  "dbus.service init.scope serial-getty@ttyS0.service systemd-journald.service systemd-logind.service systemd-udevd.service"  why_units $libc
system_still_running_after_the_refused_cp    running    system_state
'
checks_dpkg='
dpkg_deb_builds_the_test_package_versions             built     build_packages
dpkg_installs_dwdemo_1_0                              "exit 0"  dpkg_install 1.0
dwdemo_service_runs_version_1_0                       "dwdemo 1.0 lib 1.0"  service_start
write_to_the_running_dwdemo_binary_fails              denied    write_probe /usr/bin/dwdemo
write_to_the_mapped_dwdemo_library_fails              denied    write_probe $libdir/libdwdemo.so.1
dpkg_upgrade_replaces_binary_and_library_in_use       "exit 0"  dpkg_install 2.0
dpkg_upgrade_leaves_the_audit_log_clean               "0 denials"  audit_since_mark
dpkg_upgrade_wrote_new_files                          "binary new, library new"  dwdemo_inodes
running_service_keeps_its_old_copy                    "same pid, runs the deleted 1.0 files"  service_kept
dwdemo_command_runs_version_2_0                       "dwdemo 2.0 lib 2.0"  /usr/bin/dwdemo --version
systemctl_restart_runs_the_replaced_binary            "dwdemo 2.0 lib 2.0"  service_restart
'
checks_apt='
libzstd_is_mapped_by_running_processes       in-use    lib_in_use libzstd.so.1
apt_reinstall_of_a_library_in_use_succeeds   "exit 0"  apt_reinstall libzstd1
apt_reinstall_wrote_a_new_library_file       new       lib_replaced libzstd.so.1
apt_reinstall_leaves_the_audit_log_clean     "0 denials"  audit_since_mark
system_still_running_after_the_reinstall     running   system_state
'
checks_mold_enforce='
mold_links_a_program_that_starts          "running 1"  mold_start
mold_relinks_the_running_output           "exit 0"     mold_relink
running_program_keeps_its_old_code        "still running 1"  mold_running
relinked_output_is_a_new_file             new-file     mold_output
relinked_output_runs_the_new_version      "running 2"  mold_run_output
'
checks_mold_off='
mold_links_a_program_that_starts_in_mode_off      "running 1"  mold_start
mold_relinks_the_running_output_in_mode_off       "exit 0"     mold_relink
running_program_is_corrupted_in_mode_off          "corrupted: now runs version 2"  mold_running
relinked_output_overwrote_the_running_file_in_mode_off  same-file  mold_output
'
race=$work/race
race_rounds=500
checks_race='
build_race_under_exec_rule_fails_with_etxtbsy     "some ETXTBSY, no other failure"  race_run exec
build_race_under_ignore_writers_never_fails       "no ETXTBSY, no other failure"    race_run exec,ignore-writers
running_binary_under_ignore_writers_refuses_writers  denied  race_running_write
'
gcc=$work/gcc
checks_gcc='
gcc_builds_a_program_under_all_rule        "exit 0"          gcc_build
built_program_runs_under_all_rule          "hello from gcc"  $gcc/hello
built_program_is_protected_while_it_runs   denied            exec_then_write $gcc/prog $gcc/prog 60
gcc_relinks_a_running_program_with_ld      "exit 0, still running 1"  gcc_relink_running
'
checks_boot_time='
system_reaches_running_state_timed  running  boot_state
'
checks_boot_off='
system_reaches_running_state_in_mode_off     running  system_state
mode_is_off_from_the_boot_parameter          off      contents $sfs/mode
denywrite_unit_loads_the_policy_in_mode_off  "$packaged_rules"  rules_line
'
checks_broken='
denywrite_unit_fails_on_a_broken_policy_file   failed   systemctl is-failed denywrite
unit_log_names_the_broken_file_and_line        "95-broken.rules:3"  unit_error
boot_default_policy_stays_in_force             "exec /"  rules_line
boot_default_mode_stays_enforce                enforce  contents $sfs/mode
running_binary_protected_by_the_boot_default   denied   running_copy_write
system_is_degraded_by_denywrite_alone          "degraded: denywrite.service"  failed_units
'
checks_boot_nolsm='
system_reaches_running_state_without_denywrite  running  boot_state
denywrite_unit_is_skipped_without_the_lsm       "inactive, condition failed"  unit_skipped
denywritectl_status_says_not_active             "exit 3, active: no"  cli_inactive
running_binary_keeps_classic_etxtbsy_without_denywrite  denied  running_copy_write
'
checks_demo='
demo_boot_is_running                 running           boot_state
demo_unit_status                     active            show_unit_status
demo_policy                          "$packaged_rules"  rules_line
demo_cp_over_libc_is_refused         "Text file busy"  cp_over $libc
demo_why_libc                        shown             show_why $libc
demo_libc_unchanged                  unchanged         libc_unchanged
'

# ---- transcript ------------------------------------------------------------

say() {	# say TEXT: one transcript line on the results port (fd 3)
	printf '# %s\n' "$*" >&3
}

show() {	# show COMMAND...: run it, put it and its output in the transcript
	say "\$ $*"
	"$@" >$work/show.out 2>&1
	rc=$?
	sed 's/^/#   /' $work/show.out >&3
	return $rc
}

# ---- probes: each prints what it found, one line ---------------------------

system_state() { systemctl is-system-running --wait 2>&1; }

# boot_state: as system_state, and the boot time as a figure: seconds from
# the kernel's start until systemd reports the system up.
boot_state() {
	state=$(system_state)
	up=$(cut -d' ' -f1 /proc/uptime)
	echo "STAT $DWTEST_GROUP seconds_to_running $up" >&3
	show systemd-analyze time
	echo "$state"
}

# net_devices: the guest's network interfaces that are not virtual (lo,
# and sit0 of IPv6, are): QEMU gives it no network device, so the tests
# run offline, apt from its cache.
net_devices() {
	for n in /sys/class/net/*; do
		case $(readlink -f "$n") in
		/sys/devices/virtual/*) ;;
		*) echo "${n##*/}" ;;
		esac
	done >$work/netdevs
	[ -s $work/netdevs ] && paste -sd' ' $work/netdevs || echo "no network device"
}

# unit_loaded: what denywrite.service said it loaded, from its status.
unit_loaded() {
	show systemctl status --no-pager --lines=5 denywrite
	grep -o 'loaded [0-9]* rules from [0-9]* files' $work/show.out | tail -n1
}

rules_line() {	# the kernel's rules on one line, " | " between them
	show $cli list
	paste -sd'|' $work/show.out | sed 's/|/ | /g'
}

libc_setup() {
	mkdir -p $work
	cp $libc $work/libc.copy && sha256sum <$libc >$work/libc.sum
}

cp_over() {	# cp_over FILE: cp the copy of libc over FILE; the error or "copied"
	if err=$(cp $work/libc.copy "$1" 2>&1); then
		echo copied
	else
		say "\$ cp $work/libc.copy $1"
		say "  $err"
		case $err in
		*"Text file busy"*) echo "Text file busy" ;;
		*) echo "$err" ;;
		esac
	fi
}

libc_unchanged() {
	if sha256sum <$libc | cmp -s - $work/libc.sum; then
		echo unchanged
	else
		echo changed
	fi
}

# The kernel's denial records (audit, through printk: main.sh lifts the
# printk rate limit), of one operation.
denials() { dmesg | grep -E "denywrite op=(write|truncate|exec|mmap) "; }

audit_has() {	# audit_has OP PATH: logged if a denial of OP on PATH is
	hit=$(denials | grep "op=$1 " | grep -F "path=\"$2\"" | tail -n1)
	[ -n "$hit" ] && say "$hit"
	[ -n "$hit" ] && echo logged || echo "not logged"
}

audit_mark() { denials | wc -l >$work/audit.mark; }

audit_since_mark() {
	now=$(denials | wc -l)
	new=$((now - $(cat $work/audit.mark)))
	say "denial records in the kernel log since then: $new"
	[ $new -gt 0 ] && denials | tail -n $new | sed 's/^/# /' >&3
	echo "$new denials"
}

# why_units FILE: the units of the processes "denywritectl why" names
# (from their cgroups: udevd runs in a sub-cgroup of its service), among
# those a Debian system runs at boot, sorted.
why_units() {
	show $cli why "$1"
	for pid in $(sed -n 's/^ *pid \([0-9]*\),.*/\1/p' $work/show.out); do
		sed -n 's|^0::||p' "/proc/$pid/cgroup" 2>/dev/null | tr / '\n' |
			grep -E '[.](service|scope)$' | tail -n1
	done | sort -u >$work/units
	say "units: $(paste -sd' ' $work/units)"
	grep -xE 'init.scope|dbus.service|serial-getty@ttyS0.service|systemd-(journald|logind|udevd).service' \
		$work/units | paste -sd' '
}

show_unit_status() {
	show systemctl status --no-pager --lines=5 denywrite
	systemctl is-active denywrite
}

show_why() { show $cli why "$1" && echo shown; }

# ---- dpkg: a package that replaces a binary and a library in use -----------

pkg=$work/pkg

build_packages() {
	for v in 1.0 2.0; do
		r=$pkg/dwdemo_$v
		mkdir -p $r/DEBIAN $r/usr/bin $r$libdir $r/lib/systemd/system
		cp $bin/dwdemo-$v/dwdemo $r/usr/bin/
		cp $bin/dwdemo-$v/libdwdemo.so.1 $r$libdir/
		printf '[Unit]\nDescription=dwdemo\n[Service]\nExecStart=/usr/bin/dwdemo --serve\n' \
			>$r/lib/systemd/system/dwdemo.service
		printf 'Package: dwdemo\nVersion: %s\nArchitecture: amd64\nMaintainer: denywrite tests <root@localhost>\nDescription: denywrite test package\n' \
			$v >$r/DEBIAN/control
		dpkg-deb --root-owner-group --build $r $pkg/dwdemo_${v}_amd64.deb >&2 || {
			echo "dpkg-deb failed for $v"
			return
		}
	done
	echo built
}

dpkg_install() {	# dpkg_install VERSION
	audit_mark
	stat -c %i /usr/bin/dwdemo $libdir/libdwdemo.so.1 >$work/inodes.old 2>/dev/null
	show dpkg -i "$pkg/dwdemo_$1_amd64.deb"
	echo "exit $?"
}

service_start() {
	systemctl daemon-reload
	systemctl start dwdemo
	wait_until 50 test -s /run/dwdemo.version
	systemctl show -p MainPID --value dwdemo >$work/dwdemo.pid
	cat /run/dwdemo.version 2>&1
}

dwdemo_inodes() {
	stat -c %i /usr/bin/dwdemo $libdir/libdwdemo.so.1 >$work/inodes.new
	b=same l=same
	[ "$(sed -n 1p $work/inodes.old)" != "$(sed -n 1p $work/inodes.new)" ] && b=new
	[ "$(sed -n 2p $work/inodes.old)" != "$(sed -n 2p $work/inodes.new)" ] && l=new
	echo "binary $b, library $l"
}

service_kept() {
	pid=$(systemctl show -p MainPID --value dwdemo)
	show ls -l "/proc/$pid/exe"
	show grep libdwdemo "/proc/$pid/maps"
	what="runs $(readlink /proc/$pid/exe)"
	case $what in
	*"(deleted)") grep -q 'libdwdemo.so.1 (deleted)' /proc/$pid/maps &&
		grep -q 'dwdemo 1.0 lib 1.0' /run/dwdemo.version &&
		what="runs the deleted 1.0 files" ;;
	esac
	[ "$pid" = "$(cat $work/dwdemo.pid)" ] && echo "same pid, $what" ||
		echo "pid $(cat $work/dwdemo.pid) became $pid, $what"
}

service_restart() {
	rm -f /run/dwdemo.version
	systemctl daemon-reload	# the package replaced the unit file too
	show systemctl restart dwdemo
	wait_until 50 test -s /run/dwdemo.version
	show cat /run/dwdemo.version
	cat /run/dwdemo.version 2>&1
}

# ---- apt: reinstall a library in use from the local cache ------------------

lib_in_use() {	# lib_in_use SONAME: in-use if some process maps it
	real=$(readlink -f $libdir/$1)
	stat -c %i "$real" >$work/lib.inode
	n=$(grep -l -F "$real" /proc/[0-9]*/maps 2>/dev/null | wc -l)
	say "$real is mapped by $n processes"
	[ "$n" -gt 0 ] && echo in-use || echo "not in use"
}

apt_reinstall() {
	audit_mark
	show apt-get install -o Dpkg::Use-Pty=0 --reinstall --no-download -y "$1"
	echo "exit $?"
}

lib_replaced() {
	[ "$(stat -c %i "$(readlink -f $libdir/$1)")" != "$(cat $work/lib.inode)" ] &&
		echo new || echo same
}

# ---- mold relinks the output of a running program --------------------------

mold=$work/mold

mold_start() {
	mkdir -p $mold
	gcc -fuse-ld=mold -o $mold/prog $bin/moldprog-1.o >&2 || { echo "link failed"; return; }
	stat -c %i $mold/prog >$mold/inode
	$mold/prog >$mold/out 2>&1 </dev/null &
	echo $! >$mold/pid
	wait_until 100 grep -q running $mold/out
	head -n1 $mold/out
}

mold_relink() {
	show gcc -fuse-ld=mold -o $mold/prog $bin/moldprog-2.o
	echo "exit $?"
}

# mold_running: what the program that ran before the relink does now.
mold_running() {
	sleep 1	# 20 of its rounds
	pid=$(cat $mold/pid)
	say "the running program printed: $(paste -sd' ' $mold/out)"
	if grep -q changed $mold/out; then
		echo "corrupted: now runs version $(sed -n 's/changed //p' $mold/out)"
	elif kill -0 "$pid" 2>/dev/null; then
		echo "still running $(sed -n 's/running //p' $mold/out)"
	else
		wait "$pid" 2>/dev/null
		echo "died (status $?)"
	fi
	kill "$pid" 2>/dev/null
}

mold_output() {
	ino=$(stat -c %i $mold/prog)
	say "output inode before the relink $(cat $mold/inode), after $ino"
	[ "$ino" = "$(cat $mold/inode)" ] && echo same-file || echo new-file
}

mold_run_output() { $mold/prog --once </dev/null | head -n1; }

# ---- the build-tool race -----------------------------------------------------

race_setup() { mkdir -p $race; }
race_teardown() { rm -rf $race; }

# race_run SCOPE: buildrace in $race under the rule "SCOPE $race".
race_run() {
	scope=$1
	flags=--exec
	[ "$scope" = exec,ignore-writers ] && flags="--exec --ignore-writers"
	# shellcheck disable=SC2086
	$cli add $flags $race >&2 || { echo "cannot add the rule"; return; }
	show $cli list
	out=$($bin/buildrace $race $bin/tiny $race_rounds) || out="buildrace failed: $out"
	$cli del $race >&2
	say "$scope $race: $out"
	set -- $out
	[ "${1:-}" = execs ] || { echo "$out"; return; }
	key=$(echo "$scope" | tr ',-' '__')
	printf 'STAT race %s_execs %s\nSTAT race %s_etxtbsy %s\nSTAT race %s_other %s\n' \
		"$key" "$2" "$key" "$4" "$key" "$6" >&3
	if [ "$6" != 0 ]; then
		echo "$out"
	elif [ "$4" = 0 ]; then
		echo "no ETXTBSY, no other failure"
	else
		echo "some ETXTBSY, no other failure"
	fi
}

race_running_write() {
	$cli add --exec --ignore-writers $race >&2 || { echo "cannot add the rule"; return; }
	cp /usr/bin/sleep $race/prog
	exec_then_write $race/prog $race/prog 60
	$cli del $race >&2
}

# ---- gcc under an "all" rule on the build directory --------------------------

gcc_setup() {
	mkdir -p $gcc && cp $t/hello.c $gcc/ && $cli add --all $gcc
}

gcc_teardown() { $cli del $gcc; rm -rf $gcc; }

gcc_build() {
	show $cli list
	(cd $gcc && show gcc -O2 -o hello hello.c)
	echo "exit $?"
	cp /usr/bin/sleep $gcc/prog
}

# gcc_relink_running: GNU ld removes its output before writing a new one,
# so relinking a program that runs under the rule works.
gcc_relink_running() {
	gcc -o $gcc/moldprog $bin/moldprog-1.o || { echo "link failed"; return; }
	$gcc/moldprog >$gcc/out 2>&1 </dev/null &
	pid=$!
	wait_until 100 grep -q running $gcc/out
	gcc -o $gcc/moldprog $bin/moldprog-2.o
	rc=$?
	sleep 1
	state="not running"
	kill -0 $pid 2>/dev/null && ! grep -q changed $gcc/out && state="still running 1"
	kill $pid 2>/dev/null
	echo "exit $rc, $state"
}

# ---- a broken policy file at boot; no denywrite ------------------------------

unit_error() {
	show systemctl status --no-pager --lines=8 denywrite
	grep -o '95-broken.rules:[0-9]*' $work/show.out | head -n1
}

failed_units() {
	state=$(system_state)
	echo "$state: $(systemctl --failed --plain --no-legend | awk '{ print $1 }' | paste -sd' ')"
}

running_copy_write() {	# a copy of sleep, running, opened for writing
	mkdir -p $work/run
	cp /usr/bin/sleep $work/run/prog
	exec_then_write $work/run/prog $work/run/prog 60
}

unit_skipped() {
	show systemctl status --no-pager --lines=0 denywrite
	echo "$(systemctl is-active denywrite), condition $(systemctl show -p ConditionResult --value denywrite |
		sed 's/no/failed/;s/yes/met/')"
}

cli_inactive() {
	show $cli status
	echo "exit $rc, $(grep -o 'active: *[a-z]*' $work/show.out | tr -s ' ')"
}

# ---- running a suite ---------------------------------------------------------

case ${1:-} in
run)
	mkdir -p $work
	run_suite "$2" "$3"
	;;
group_*)
	mkdir -p $work
	"$@" 3>&1
	;;
*)
	echo "usage: sh $self run SUITE RUN-ID | group_NAME [ARGS...]" >&2
	exit 2
	;;
esac
