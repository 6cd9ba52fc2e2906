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
# The release the host made the image of (scripts/test-debian.sh passes
# it as dwrelease=; guest_runs_the_release_its_image_was_made_of checks it
# against /etc/os-release).
dwrelease=$(sed -n 's/.*dwrelease=\([a-z]*\).*/\1/p' /proc/cmdline)
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
# lsm=denywrite, two boots from one disk (scripts/test-debian.sh): the
# first writes a local rules file with a missing path, an optional one and
# two overrides, and reboots; the second checks what the unit made of it
# (issue 22).
suite_debian_local_write='
local_write  120  group_checks local_write
'
suite_debian_local='
local     300  group_checks local libc_setup
'
# The distribution kernel (make kernel-deb) installed in the image and
# booted from its /boot, no lsm=: Debian's LSMs and denywrite, AppArmor
# enforcing.  The suite debian, and the kernel, its package and its LSMs,
# then AppArmor, Landlock and mode switches stacked with denywrite.
suite_distro="
kernel    300  group_checks distro_kernel$suite_debian"'apparmor  300  group_checks apparmor aa_setup
landlock  300  group_checks landlock ll_setup
modeswitch 600 group_checks modeswitch switch_setup switch_teardown
bpf       300  group_checks bpf bpf_setup bpf_teardown
'
suite_distro_off=$suite_debian_off
suite_distro_broken=$suite_debian_broken
suite_distro_local_write=$suite_debian_local_write
suite_distro_local=$suite_debian_local
# Boots that only measure the boot time, alternately with and without
# denywrite (scripts/test-debian.sh): time_denywrite_N, time_nolsm_N.
suite_time='
boot      300  group_checks boot_time
'
time_suites='time_denywrite_1 time_nolsm_1 time_denywrite_2 time_nolsm_2'
for s in $time_suites; do
	eval "suite_$s=\$suite_time"
done
# No kmemleak in this kernel (no debug options).  Which checks may skip
# (the KUnit tests of holds where denywrite is not in lsm=: no inode or
# file blob) is tests/debian/manifest's to say.
no_kmemleak="debian debian_off debian_broken debian_nolsm debian_demo $time_suites"
no_kmemleak="$no_kmemleak debian_local_write debian_local distro distro_off"
no_kmemleak="$no_kmemleak distro_broken distro_local_write distro_local"

# ---- check tables: NAME WANT PROBE [ARGS...] (run_table) -------------------

checks_boot='
guest_runs_the_release_its_image_was_made_of  "the release of its image"  os_release
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
# What mold does to its output while the old one runs, in mode off, by
# the release the host made the image of ($dwrelease): bookworm's mold 1.10 renames the old output aside and
# writes into it in place, so the running program is corrupted; trixie's
# mold 2.37 was seen to write a new file and rename it over, so the
# running program keeps its code.  In enforce, both write a new file.
case $dwrelease in
trixie) mold_off_running="still running 1" mold_off_output=new-file ;;
*) mold_off_running="corrupted: now runs version 2" mold_off_output=same-file ;;
esac
checks_mold_off='
mold_links_a_program_that_starts_in_mode_off      "running 1"  mold_start
mold_relinks_the_running_output_in_mode_off       "exit 0"     mold_relink
running_program_in_mode_off_is_as_this_release_of_mold_leaves_it  "$mold_off_running"  mold_running
relinked_output_in_mode_off_is_where_this_release_of_mold_writes  "$mold_off_output"  mold_output
write_in_place_to_a_running_program_is_allowed_in_mode_off  allowed  off_write
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
# A bad rule is skipped and every good rule loaded (issue 22): the unit
# fails, the packaged rules and the broken file's good line are in force.
checks_broken='
denywrite_unit_fails_on_a_broken_policy_file   failed   systemctl is-failed denywrite
unit_log_names_the_broken_file_and_line        "95-broken.rules:3"  unit_error
every_good_rule_is_in_force_the_bad_one_skipped  "$packaged_rules | exec /usr/bin"  rules_line
mode_stays_enforce_with_a_broken_file          enforce  contents $sfs/mode
running_binary_protected_despite_the_broken_file  denied  running_copy_write
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

# ---- issue 22: a local rules file at boot -----------------------------------

local_rules=/etc/denywrite/rules.d/90-local.rules
checks_local_write='
tools_package_is_installed    "install ok installed"  dpkg-query -W -f "\${Status}" denywrite-tools
local_rules_file_is_written   written                 write_local_rules
'
checks_local='
unit_is_failed_after_booting_with_a_missing_path      failed  systemctl is-failed denywrite
unit_journal_names_line_3_and_its_missing_path        found   unit_journal_has "$local_rules:3: /opt/not-installed: No such file or directory (rule skipped)"
unit_journal_says_the_other_rules_are_in_force        found   unit_journal_has "1 part was skipped: the other rules are in force"
unit_journal_never_names_the_optional_path            "not found"  unit_journal_has /opt/optional
kernel_has_the_good_rules_with_the_overrides          "exec,ignore-writers / | lib /usr/lib/x86_64-linux-gnu | all /usr/local/lib"  kernel_rules_line
list_sources_names_lines_1_2_and_5_of_the_local_file  "$local_rules:1: exec,ignore-writers / | $local_rules:2: lib /usr/lib/x86_64-linux-gnu | $local_rules:5: all /usr/local/lib"  sources_line
diff_says_only_that_load_skips_the_missing_path      "exit 1 {\"add\":[],\"remove\":[],\"skipped\":1}"  diff_json
cp_over_libc_fails_with_etxtbsy_under_the_local_rules "Text file busy"  cp_over $libc
log_shows_the_refused_write_once_with_the_lib_rule    "1 line"  log_has_libc_write
load_strict_fails_and_leaves_the_rules_as_they_were   "exit 1, rules unchanged"  strict_load
unit_is_active_once_line_3_is_deleted_and_it_restarts active    fix_local_rules
'

# ---- the distribution kernel -------------------------------------------------

# /sys/kernel/security/lsm of Debian's own kernel, linux-image-6.12.118+
# deb12-cloud-amd64, booted in this guest (docs/distro.md): the LSMs of
# CONFIG_LSM that it builds, in the framework's order (lockdown and
# capability first, ima and evm last).
debian_lsms=lockdown,capability,landlock,yama,apparmor,tomoyo,bpf,ipe,ima,evm
checks_distro_kernel='
kernel_and_initramfs_are_the_images_own_boot_files  "the files of /boot"  booted_files
kernel_is_installed_by_its_package                  installed  kernel_package
kernel_and_tools_packages_come_from_one_commit      "one commit"  packages_commit
initramfs_is_made_by_initramfs_tools_for_this_kernel  "initramfs-tools, $(uname -r)"  initramfs_origin
initramfs_has_the_disk_driver_as_a_module           virtio_blk.ko  initramfs_driver
root_disk_driver_was_loaded_from_the_initramfs      "virtio_blk: module, live"  root_driver
modules_are_signed_and_the_kernel_is_not_tainted    "signed, not tainted"  modules_signed
lsm_list_is_debians_order_and_denywrite             "$debian_lsms + denywrite"  lsm_order
apparmor_service_is_active                          active  systemctl is-active apparmor
apparmor_enforces_the_profiles_debian_ships_enforcing  "lsb_release enforce, nvidia_modprobe enforce"  aa_profiles lsb_release nvidia_modprobe
'
aa=$work/aa
checks_apparmor='
test_profile_is_loaded_in_enforce_mode                    enforce  aa_mode dwaa-openw
confined_program_may_write_an_idle_allowed_file           opened   $bin/dwaa-openw $aa/allowed/idle
confined_program_may_not_write_an_idle_forbidden_file     "EACCES Permission denied"  $bin/dwaa-openw $aa/forbidden/idle
confined_write_to_a_running_allowed_file_gets_etxtbsy     "ETXTBSY Text file busy"  aa_running_write allowed
etxtbsy_is_logged_by_denywrite_and_not_by_apparmor        "denywrite 1, apparmor 0"  aa_records allowed
confined_write_to_a_running_forbidden_file_gets_etxtbsy_as_on_stock  "ETXTBSY Text file busy"  aa_running_write forbidden
forbidden_running_file_is_logged_by_denywrite_not_apparmor  "denywrite 1, apparmor 0"  aa_records forbidden
unconfined_write_to_the_running_forbidden_file_gets_etxtbsy  denied  exec_then_write $aa/forbidden/prog $aa/forbidden/prog 60
'
ll=$work/ll
checks_landlock='
landlock_sandbox_is_made                                 made  ll_made
landlock_refuses_a_write_outside_its_directory           "Permission denied"  ll_write $work/llout/file
landlock_allows_a_write_inside_its_directory             allowed  ll_write $ll/idle
sandboxed_process_runs_a_protected_program_and_its_write_gets_etxtbsy  denied  ll_exec_then_write
write_from_the_sandbox_is_logged_by_denywrite            logged  audit_has write $ll/prog
sandboxed_program_is_protected_from_writers_outside      denied  exec_then_write $ll/prog $bin/dwllrun $ll $ll/prog 60
'
switches=20
checks_modeswitch='
mode_switches_enforce_off_enforce_while_the_load_runs       "$switches times off and back, mode enforce"  mode_cycles $switches
running_program_is_writable_in_mode_off_during_the_load     allowed  write_in_mode_off
denywrite_refuses_a_write_to_a_running_program_again        denied   exec_then_write $work/switch/prog $work/switch/prog 60
apparmor_still_refuses_after_the_switches                   "EACCES Permission denied"  $bin/dwaa-openw $aa/forbidden/idle
apparmor_still_leaves_denywrite_its_etxtbsy                 "ETXTBSY Text file busy"  aa_running_write allowed
landlock_still_refuses_after_the_switches                   "Permission denied"  ll_write $work/llout/file
landlock_sandboxed_program_still_protected                  denied  ll_exec_then_write
load_ran_through_the_switches_without_a_failure             "ran, no failure"  load_result
no_warning_oops_or_bug_in_the_kernel_log                    none  kernel_splats
'
bpfd=$work/bpf
checks_bpf='
bpftool_loads_the_bpf_lsm_program                  lsm      bpf_load
bpf_lsm_program_is_attached_to_file_open           attached bpf_attach
bpf_lsm_refuses_the_open_of_its_file               "Operation not permitted"  open_probe $bpfd/target
bpf_lsm_leaves_other_files_alone                   opened   open_probe $bpfd/other
denywrite_refuses_a_write_to_a_running_program_beside_bpf  denied  exec_then_write $bpfd/prog $bpfd/prog 60
denywrite_logged_that_write                        logged   audit_has write $bpfd/prog
bpf_lsm_refuses_its_file_to_a_writer_too           "Operation not permitted"  write_open_probe $bpfd/target
its_file_opens_again_once_the_program_is_detached  opened   bpf_detach_then_open $bpfd/target
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

# os_release: whether /etc/os-release names $dwrelease, the release the
# host made the image of (debian-vm.sh's DIR/release): so a run of make
# test-debian cannot test one release twice and report both.
os_release() {
	have=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	if [ -n "$dwrelease" ] && [ "$dwrelease" = "$have" ]; then
		echo "the release of its image"
	else
		echo "/etc/os-release says '$have', the host made '$dwrelease'"
	fi
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

# off_write: a copy of sleep runs, and a writer opens it in place (mode
# off: whatever mold does, nothing refuses the writer).
off_write() {
	mkdir -p $work/off && cp /usr/bin/sleep $work/off/prog &&
		exec_then_write $work/off/prog $work/off/prog 60
}

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

# ---- issue 22: a local rules file at boot -----------------------------------

write_local_rules() {
	printf '%s\n' 'exec,ignore-writers /' 'lib /lib/x86_64-linux-gnu' \
		'lib /opt/not-installed' '-lib /opt/optional' 'all /usr/local/lib' \
		>$work/local.rules
	cp $work/local.rules $local_rules && sync
	show cat -n $local_rules
	cmp -s $work/local.rules $local_rules && echo written || echo "not written"
}

unit_journal_has() {	# unit_journal_has TEXT: found if a line of the unit's journal has it
	journalctl -b -u denywrite --no-pager >$work/unit.journal 2>&1
	say "journalctl -b -u denywrite:"
	sed 's/^/#   /' $work/unit.journal >&3
	grep -qF -- "$1" $work/unit.journal && echo found || echo "not found"
}

kernel_rules_line() {	# the kernel's rules, " | " between them
	show cat $sfs/rules
	paste -sd'|' $work/show.out | sed 's/|/ | /g'
}

sources_line() {
	show $cli list --sources
	paste -sd'|' $work/show.out | sed 's/|/ | /g'
}

# diff_json: "exit N" and the JSON of "denywritectl diff --json": a rule
# that load skips is drift (exit 1), counted in "skipped".
diff_json() {
	$cli diff --json >$work/diff.json 2>$work/diff.err
	rc=$?
	sed 's/^/# /' $work/diff.json $work/diff.err >&3
	echo "exit $rc $(tr -d '\n' <$work/diff.json)"
}

cli_exit() {	# cli_exit ARGS...: "exit N" of denywritectl ARGS
	show $cli "$@"
	echo "exit $?"
}

# log_has_libc_write: how many lines of "denywritectl log" show the one
# refused cp over libc (journald without auditd has each record twice,
# from its audit socket and as the kernel's printk: it must be read once).
log_has_libc_write() {
	show $cli log --since -5m
	n=$(grep -cE " write enforce .* $libc lib $libdir\$" $work/show.out)
	[ "$n" = 1 ] && echo "1 line" || echo "$n lines"
}

strict_load() {
	before=$(sha256sum <$sfs/rules)
	show $cli load --strict
	rc=$?
	[ "$(sha256sum <$sfs/rules)" = "$before" ] && same=unchanged || same=changed
	echo "exit $rc, rules $same"
}

fix_local_rules() {
	sed -i 3d $local_rules
	show cat -n $local_rules
	show systemctl restart denywrite
	show systemctl status --no-pager --lines=3 denywrite
	systemctl is-active denywrite
}

# ---- the distribution kernel: its files, package and LSMs -------------------

# booted_files: the kernel and initramfs QEMU was given are the image's
# /boot files: their checksums (dwboot=, from test-debian.sh) are those of
# /boot/vmlinuz-RELEASE and /boot/initrd.img-RELEASE.
booted_files() {
	r=$(uname -r)
	want=$(sed -n 's/.*dwboot=\([0-9a-f,]*\).*/\1/p' /proc/cmdline)
	have=$(sha256sum </boot/vmlinuz-$r | cut -c1-16),$(sha256sum </boot/initrd.img-$r | cut -c1-16)
	say "uname -r: $r; booted $want, /boot has $have"
	[ -n "$want" ] && [ "$want" = "$have" ] && echo "the files of /boot" ||
		echo "booted $want, /boot has $have"
}

kernel_package() {	# installed if dpkg says /boot/vmlinuz-RELEASE is linux-image-RELEASE's
	r=$(uname -r)
	show dpkg -S /boot/vmlinuz-$r
	show dpkg-query -W -f '${Package} ${Version} ${Status}\n' linux-image-$r
	owner=$(dpkg -S /boot/vmlinuz-$r 2>/dev/null)
	status=$(dpkg-query -W -f '${Status}' linux-image-$r 2>/dev/null)
	[ "$owner" = "linux-image-$r: /boot/vmlinuz-$r" ] &&
		[ "$status" = "install ok installed" ] && echo installed ||
		echo "owner '$owner', status '$status'"
}

packages_commit() {	# the kernel's version ends in +dw<the tools' version>
	k=$(dpkg-query -W -f '${Version}' linux-image-$(uname -r))
	t=$(dpkg-query -W -f '${Version}' denywrite-tools)
	say "linux-image-$(uname -r) $k, denywrite-tools $t; uname -v: $(uname -v)"
	case $k in
	*"+dw$t") echo "one commit" ;;
	*) echo "kernel $k, tools $t" ;;
	esac
}

# initramfs_origin: /boot/initrd.img-RELEASE has initramfs-tools' layout
# (its /init, conf/initramfs.conf, scripts/local) and this kernel's
# modules: initramfs-tools made it for this kernel (the kernel package's
# postinst ran update-initramfs when debian-vm.sh installed it, which
# checks that dpkg said so; bookworm's update-initramfs keeps no record
# of its own).
initramfs_origin() {
	r=$(uname -r)
	show ls -l /boot
	lsinitramfs /boot/initrd.img-$r >$work/initrd.list 2>&1
	miss=
	for f in init conf/initramfs.conf scripts/local usr/lib/modules/$r; do
		grep -qx "$f" $work/initrd.list || miss="$miss $f"
	done
	say "lsinitramfs /boot/initrd.img-$r: $(wc -l <$work/initrd.list) entries${miss:+, missing:$miss}"
	[ -z "$miss" ] && echo "initramfs-tools, $r" || echo "missing:$miss"
}

initramfs_driver() {
	lsinitramfs /boot/initrd.img-$(uname -r) >$work/initrd.list 2>&1
	say "initramfs: $(wc -l <$work/initrd.list) entries, modules: $(grep -c '\.ko' $work/initrd.list)"
	grep -o 'virtio_blk\.ko' $work/initrd.list | head -n1 | grep . || echo "no virtio_blk.ko"
}

root_driver() {	# the root disk's driver, a module loaded before / was mounted
	show grep -E '^(virtio_blk|ext4) ' /proc/modules
	if [ -f /sys/module/virtio_blk/initstate ]; then
		echo "virtio_blk: module, $(cat /sys/module/virtio_blk/initstate)"
	elif [ -d /sys/module/virtio_blk ]; then
		echo "virtio_blk: built in"
	else
		echo "virtio_blk: absent"
	fi
}

modules_signed() {
	signer=$(modinfo -F signer virtio_blk 2>&1)
	taint=$(cat /proc/sys/kernel/tainted)
	say "virtio_blk signer: $signer; $(modinfo -F sig_hashalgo virtio_blk 2>&1); tainted: $taint"
	show sh -c "dmesg | grep -iE 'module verification|tainting' || echo 'no module verification message'"
	[ -n "$signer" ] && [ "$taint" = 0 ] && echo "signed, not tainted" ||
		echo "signer '$signer', tainted $taint"
}

lsm_order() {	# the active LSMs, denywrite taken out and named after
	list=$(cat /sys/kernel/security/lsm)
	say "/sys/kernel/security/lsm: $list"
	rest=$(echo "$list" | tr , '\n' | grep -vx denywrite | paste -sd, -)
	n=$(echo "$list" | tr , '\n' | grep -cx denywrite)
	[ "$n" = 1 ] && echo "$rest + denywrite" || echo "$rest (denywrite $n times)"
}

# aa_profiles PROFILE...: the mode of each, after aa-status.  The apparmor
# package ships these two in enforce mode in bookworm and trixie alike
# (trixie's also ships some in complain and many in unconfined mode, as
# their files ask: "all in enforce mode" holds for bookworm only).
aa_profiles() {
	show aa-status
	for p; do
		echo "$p $(aa_mode "$p")"
	done | paste -sd, - | sed 's/,/, /g'
}

# ---- AppArmor and denywrite ----------------------------------------------------
# A confined program opens files for writing.  On an idle file AppArmor
# decides (EACCES where its profile forbids).  On a running program the
# VFS refuses first, with ETXTBSY from denywrite's denying hold, before
# any LSM's file_open hook runs, allowed by the profile or not: as the
# stock kernel does, whose exec makes i_writecount negative
# (do_dentry_open() takes write access before security_file_open()).

aa_setup() {
	mkdir -p $aa/allowed $aa/forbidden
	for d in allowed forbidden; do
		cp /usr/bin/sleep $aa/$d/prog && : >$aa/$d/idle || return 1
	done
	apparmor_parser -r $t/dwaa-openw.apparmor || return 1
	show aa-status
}

aa_mode() {	# aa_mode PROFILE: the mode /sys/kernel/security/apparmor/profiles says
	sed -n "s|^$1 (\(.*\))\$|\1|p" /sys/kernel/security/apparmor/profiles | grep . ||
		echo "not loaded"
}

# aa_running_write KIND: run $aa/KIND/prog, and the confined program
# opens it for writing; what it printed.
aa_running_write() {
	p=$aa/$1/prog
	$p 60 &
	pid=$!
	if wait_until 50 runs_prog $pid; then
		$bin/dwaa-openw $p
	else
		echo "not-started: $p"
	fi
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}

# aa_records KIND: how many denial records of the confined program's open
# of $aa/KIND/prog each LSM logged (the kernel log: no auditd).
aa_records() {
	p=$aa/$1/prog
	dmesg >$work/dmesg
	dw=$(grep 'lsm=denywrite op=write ' $work/dmesg | grep -F "path=\"$p\"" |
		grep -c 'comm="dwaa-openw"')
	ar=$(grep 'apparmor="DENIED"' $work/dmesg | grep -F "name=\"$p\"" |
		grep -c 'comm="dwaa-openw"')
	grep -F "\"$p\"" $work/dmesg | grep 'comm="dwaa-openw"' | tail -n 2 | sed 's/^/# /' >&3
	echo "denywrite $dw, apparmor $ar"
}

# ---- Landlock and denywrite ------------------------------------------------------

ll_setup() {
	mkdir -p $ll $work/llout && cp /usr/bin/sleep $ll/prog && : >$work/llout/file
}

ll_made() {
	$bin/dwllrun $ll true && echo made || echo "dwllrun: exit $?"
}

ll_write() {	# ll_write FILE: append to FILE from the sandbox
	if err=$($bin/dwllrun $ll sh -c ': >>"$1"' sh "$1" 2>&1); then
		echo allowed
	else
		case $err in
		*"Permission denied"*) echo "Permission denied" ;;
		*"Text file busy"*) echo "Text file busy" ;;
		*) echo "other: $err" ;;
		esac
	fi
}

# ll_exec_then_write: in the sandbox, run $ll/prog and open it for writing.
ll_exec_then_write() {
	$bin/dwllrun $ll sh $self probe exec_then_write $ll/prog $ll/prog 60
}

# ---- mode switches under load, every LSM stacked ----------------------------------

# The load: three loops until $work/switch/stop exists, each running
# programs (exec: a hold on the program, and on ld.so and libc under the
# lib rule), copying a program and running the copy; a failure is
# counted in $work/switch/fail.N.
load_loop() {
	n=0
	d=$work/switch/$1
	mkdir -p $d
	while [ ! -e $work/switch/stop ]; do
		/usr/bin/true && ls $libdir >/dev/null && cp /usr/bin/true $d/t &&
			$d/t && rm -f $d/t || echo "round $n failed" >>$work/switch/fail.$1
		n=$((n + 1))
	done
	echo $n >$work/switch/rounds.$1
}

switch_setup() {
	rm -rf $work/switch
	mkdir -p $work/switch && cp /usr/bin/sleep $work/switch/prog || return 1
	for i in 1 2 3; do
		sh $self probe load_loop $i </dev/null >/dev/null 2>&1 &
	done
	sleep 2
}

switch_teardown() {
	touch $work/switch/stop
	wait
}

mode_cycles() {	# mode_cycles N: enforce -> off -> enforce N times
	i=0 bad=
	while [ $i -lt "$1" ]; do
		$cli mode off >/dev/null && [ "$(cat $sfs/mode)" = off ] || bad="off $i"
		sleep 0.2
		$cli mode enforce >/dev/null && [ "$(cat $sfs/mode)" = enforce ] || bad="enforce $i"
		sleep 0.2
		i=$((i + 1))
	done
	say "$1 switches under load; mode now $(cat $sfs/mode)"
	[ -z "$bad" ] && echo "$1 times off and back, mode $(cat $sfs/mode)" || echo "failed at $bad"
}

# write_in_mode_off: a program running since before the switch to off,
# opened for writing in mode off; enforce again after.
write_in_mode_off() {
	p=$work/switch/prog
	$p 60 &
	pid=$!
	if wait_until 50 runs_prog $pid; then
		$cli mode off >/dev/null
		write_probe $p
		$cli mode enforce >/dev/null
	else
		echo "not-started: $p"
	fi
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
}

load_result() {	# stop the loops (each writes its rounds.N when done)
	touch $work/switch/stop
	wait_until 300 test -f $work/switch/rounds.1 -a -f $work/switch/rounds.2 \
		-a -f $work/switch/rounds.3
	rounds=$(cat $work/switch/rounds.* 2>/dev/null | paste -sd' ' -)
	fails=$(cat $work/switch/fail.* 2>/dev/null | wc -l)
	say "load rounds of the three loops: $rounds; failures: $fails"
	cat $work/switch/fail.* 2>/dev/null | head -n 5 | sed 's/^/# /' >&3
	[ -n "$rounds" ] && [ "$fails" = 0 ] && echo "ran, no failure" ||
		echo "rounds '$rounds', $fails failures"
}

# ---- a BPF LSM program beside denywrite --------------------------------------

bpf_setup() {
	mkdir -p $bpfd /sys/fs/bpf/dw && : >$bpfd/target && : >$bpfd/other &&
		cp /usr/bin/sleep $bpfd/prog
}

bpf_teardown() { rm -rf /sys/fs/bpf/dw; }

bpf_load() {	# the type bpftool shows for the program it loaded and pinned
	show bpftool prog load $bin/dwbpflsm.bpf.o /sys/fs/bpf/dw/prog \
		pinmaps /sys/fs/bpf/dw/maps || { echo "load failed"; return; }
	show bpftool prog show pinned /sys/fs/bpf/dw/prog
	sed -n 's/^[0-9]*: \([a-z_]*\) .*/\1/p' $work/show.out | head -n1
}

# bpf_attach: the program gets the target's inode number in its map, then
# is attached (dwbpfattach) and the link pinned.
bpf_attach() {
	ino=$(stat -c %i $bpfd/target)
	bytes=$(i=0; while [ $i -lt 8 ]; do echo $(((ino >> (8 * i)) & 255)); i=$((i + 1)); done)
	# shellcheck disable=SC2086
	show bpftool map update pinned /sys/fs/bpf/dw/maps/target key 0 0 0 0 value $bytes ||
		{ echo "map update failed"; return; }
	show $bin/dwbpfattach /sys/fs/bpf/dw/prog /sys/fs/bpf/dw/link ||
		{ echo "attach failed"; return; }
	show bpftool link show
	grep -q 'prog_type lsm *attach_type lsm_mac' $work/show.out && echo attached ||
		echo "no lsm link"
}

open_probe() {	# open_probe FILE: "opened" for reading, or the error
	if err=$( (: <"$1") 2>&1); then echo opened; else echo "${err##*: }"; fi
}

write_open_probe() {
	if err=$( (: >>"$1") 2>&1); then echo opened; else echo "${err##*: }"; fi
}

bpf_detach_then_open() {
	rm -f /sys/fs/bpf/dw/link /sys/fs/bpf/dw/prog
	sleep 1	# the link goes when its last reference does (RCU)
	open_probe "$1"
}

kernel_splats() {
	dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace|general protection|kernel BUG' >$work/splats
	[ -s $work/splats ] && head -n1 $work/splats || echo none
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
probe)	# one probe, by itself (in a sandbox, or as a background load)
	shift
	"$@" 3>/dev/null
	;;
*)
	echo "usage: sh $self run SUITE RUN-ID | group_NAME [ARGS...] | probe NAME [ARGS...]" >&2
	exit 2
	;;
esac
