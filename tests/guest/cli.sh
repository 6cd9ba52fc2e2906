#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tests/guest/cli.sh - denywritectl against the real denywrite LSM.
#
# Runs inside the QEMU guest as root (busybox sh), booted with
# lsm=...,denywrite.  Needs /usr/sbin/denywritectl and, in /tests/bin,
# runas, sleeper, dynsleep (linked against /usr/lib/libdwtest.so) and
# jsonget (a strict JSON parser: every JSON output is parsed whole).
# Prints "PLAN cli N" first (N from the TESTS list below, plus the final
# cli_restores_the_policy), then one line a test, "PASS <name>" or
# "FAIL <name>: <reason>", and nothing else on stdout; exits 1 if a test
# failed.  Every test starts from the policy and mode found at the start,
# and they are restored at the end.  DENYWRITECTL and TESTBIN override
# where the tool and helpers are.
#
# shellcheck disable=SC2317 # the test_* functions are called through t()

DWC=${DENYWRITECTL:-/usr/sbin/denywritectl}
BIN=${TESTBIN:-/tests/bin}
SFS=/sys/kernel/security/denywrite
NOBODY=65534
CAP_MSG="changing the policy needs CAP_MAC_ADMIN"
HINT="Try 'denywritectl --help'."
unset DENYWRITE_SECURITYFS

failed=0
pids=

nap() { sleep 0.1 2>/dev/null || sleep 1; }

# run CMD...: exit code in $rc, stdout in $out, stderr in $err (and in
# $T/.out, $T/.err).
run() {
	"$@" >"$T/.out" 2>"$T/.err"
	rc=$?
	out=$(cat "$T/.out")
	err=$(cat "$T/.err")
}

# expect RC [STDERR]: the last run exited RC (and printed exactly STDERR).
expect() {
	if [ "$rc" != "$1" ]; then
		why="exit $rc, want $1 (stdout: $out; stderr: $err)"
		return 1
	fi
	if [ $# -ge 2 ] && [ "$err" != "$2" ]; then
		why="stderr '$err', want '$2'"
		return 1
	fi
	return 0
}

# contains TEXT PART: TEXT has PART in it.
contains() {
	case $1 in
	*"$2"*) return 0 ;;
	esac
	why="'$2' not in: $1"
	return 1
}

# has_line LINE: the last run printed exactly LINE as one of its lines.
has_line() {
	grep -qxF -- "$1" "$T/.out" && return 0
	why="no line '$1' in: $out"
	return 1
}

# json_ok TEXT: TEXT is one line, and that line one JSON object, parsed
# whole by jsonget (strict RFC 8259: nothing after it, no key twice).
json_ok() {
	case $1 in
	*"
"*)
		why="more than one line: $1"
		return 1 ;;
	esac
	got=$(printf '%s\n' "$1" | "$BIN/jsonget" -t . 2>&1)
	[ "$got" = object ] && return 0
	why="not one JSON object ($got): $1"
	return 1
}

# json_is TEXT PATH WANT: the value at PATH of the JSON document TEXT (a
# string unescaped, any other value as written) is WANT.
json_is() {
	got=$(printf '%s\n' "$1" | "$BIN/jsonget" "$2" 2>&1)
	[ "$got" = "$3" ] && return 0
	why="JSON $2 is '$got', want '$3' in: $1"
	return 1
}

# start MARK CMD...: run CMD in the background until it has mapped a file
# whose path contains MARK; its pid in $pid.
start() {
	mark=$1
	shift
	"$@" </dev/null >/dev/null 2>&1 &
	pid=$!
	pids="$pids $pid"
	n=0
	while [ "$n" -lt 100 ]; do
		grep -qF -- "$mark" "/proc/$pid/maps" 2>/dev/null && return 0
		nap
		n=$((n + 1))
	done
	why="$* did not start"
	return 1
}

# start_copy NAME: a copy of sleeper at $T/NAME, running ($pid).
start_copy() {
	cp "$BIN/sleeper" "$T/$1" || { why="cp sleeper"; return 1; }
	start "$T/$1" "$T/$1"
}

stat_value() { "$DWC" stats | sed -n "s/^$1 //p"; }

# Back to the state found at the start, after every test: 0, or 1 with
# $reset_why saying what could not be put back.
reset() {
	reset_why=
	for p in $pids; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	pids=
	umount "$T/e" 2>/dev/null
	umount "$T/m" 2>/dev/null
	grep -q ' /sys/kernel/security securityfs ' /proc/mounts ||
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null ||
		reset_why="securityfs cannot be mounted again"
	"$DWC" load -q --allow-empty "$T/orig.policy" >/dev/null 2>&1 ||
		reset_why="${reset_why:+$reset_why; }the policy cannot be loaded back"
	"$DWC" mode "$orig_mode" >/dev/null 2>&1 ||
		reset_why="${reset_why:+$reset_why; }mode $orig_mode cannot be set back"
	[ -z "$reset_why" ]
}

# t NAME: run test_NAME, then reset; a test after which the state found
# at the start cannot be put back fails (not the next one).
t() {
	why=
	"test_$1"
	ok=$?
	reset || { ok=1; why="${why:+$why; }after the test: $reset_why"; }
	if [ $ok = 0 ]; then
		echo "PASS $1"
	else
		echo "FAIL $1: $(printf '%s' "${why:-failed}" | tr '\n' ' ')"
		failed=1
	fi
}

# --- read-only commands --------------------------------------------------

test_version_is_printed() {
	run "$DWC" --version
	expect 0 "" || return 1
	case $out in
	"denywritectl "[0-9]*) ;;
	*) why="got '$out'"; return 1 ;;
	esac
}

test_status_reports_active_and_mode() {
	run "$DWC" status
	expect 0 "" || return 1
	has_line "active:    yes" || return 1
	has_line "mode:      $orig_mode" || return 1
	rules=$(grep -c . "$T/orig.rules")
	has_line "rules:     $rules"
}

# The number status gives as protected (denywritectl itself, running,
# is one of them).
status_protected() {
	run "$DWC" status
	expect 0 "" || return 1
	n=$(sed -n 's/^protected: *\([0-9]*\) files*$/\1/p' "$T/.out")
	[ -n "$n" ] || { why="no protected line in: $out"; return 1; }
}

# Nothing else starts or ends a program meanwhile: one more running
# file is exactly one more protected file.
test_status_counts_a_running_file_as_protected() {
	status_protected || return 1
	before=$n
	start_copy st-busy || return 1
	status_protected || return 1
	[ "$n" = $((before + 1)) ] ||
		{ why="protected $before before the program ran, $n while it runs"; return 1; }
}

test_save_prints_header_then_list() {
	run "$DWC" save
	expect 0 "" || return 1
	[ "$(head -n 1 "$T/.out")" = "# denywrite policy, saved by denywritectl" ] ||
		{ why="first line of: $out"; return 1; }
	tail -n +2 "$T/.out" >"$T/saved.rules"
	cmp -s "$T/saved.rules" "$T/orig.rules" ||
		{ why="save: $out; list: $(cat "$T/orig.rules")"; return 1; }
}

test_json_outputs_are_single_objects() {
	echo data >"$T/idle"
	for cmd in status list stats "why $T/idle" mode save; do
		# shellcheck disable=SC2086
		run "$DWC" --json $cmd
		expect 0 "" || { why="$cmd: $why"; return 1; }
		json_ok "$out" || { why="$cmd: $why"; return 1; }
	done
	# list: each rule of the kernel's rules file, in order.
	run "$DWC" list -j
	json_ok "$out" || return 1
	list=$out
	n=$(printf '%s\n' "$list" | "$BIN/jsonget" -n .rules)
	[ "$n" = "$(grep -c . "$SFS/rules")" ] ||
		{ why="$n rules in: $list; kernel: $(cat "$SFS/rules")"; return 1; }
	i=0
	while IFS=' ' read -r scope path; do
		opt=false
		case $scope in *,ignore-writers) opt=true scope=${scope%,*} ;; esac
		json_is "$list" ".rules[$i].scope" "$scope" &&
			json_is "$list" ".rules[$i].ignore_writers" "$opt" &&
			json_is "$list" ".rules[$i].path" "$path" || return 1
		i=$((i + 1))
	done <"$SFS/rules"
	json_is "$list" ".gone" "[]" || return 1
	# stats: every counter of the kernel's stats file, as a number (but
	# protected, which counts denywritectl itself while it runs).
	run "$DWC" stats -j
	json_ok "$out" || return 1
	stats=$out
	n=$(printf '%s\n' "$stats" | "$BIN/jsonget" -n .)
	[ "$n" = "$(grep -c . "$SFS/stats")" ] ||
		{ why="$n members in: $stats; kernel: $(cat "$SFS/stats")"; return 1; }
	while read -r key value; do
		[ "$key" = protected ] && continue
		json_is "$stats" ".$key" "$value" || return 1
	done <"$SFS/stats"
	run "$DWC" --json status
	json_is "$out" .active true && json_is "$out" .mode "$orig_mode" &&
		json_is "$out" .rules "$(grep -c . "$SFS/rules")" || return 1
	run "$DWC" --json why "$T/idle"
	json_is "$out" .path "$T/idle" && json_is "$out" .protected false &&
		json_is "$out" .holders 0 && json_is "$out" .writers 0 &&
		json_is "$out" .processes "[]"
}

# --- mode ------------------------------------------------------------------

test_mode_is_shown_and_set() {
	run "$DWC" mode audit
	expect 0 "" || return 1
	run "$DWC" mode
	[ "$out" = audit ] || { why="mode shows '$out' after setting audit"; return 1; }
	[ "$(cat "$SFS/mode")" = audit ] || { why="kernel mode $(cat "$SFS/mode")"; return 1; }
	run "$DWC" mode enforce
	expect 0 "" || return 1
	run "$DWC" mode
	[ "$out" = enforce ] || { why="mode shows '$out' after setting enforce"; return 1; }
}

# --- add, del, clear ----------------------------------------------------------

test_add_and_del_a_rule() {
	mkdir "$T/d" || return 1
	run "$DWC" add -q --lib "$T/d"
	expect 0 "" || return 1
	run "$DWC" list
	has_line "lib $T/d" || return 1
	run "$DWC" del -q "$T/d"
	expect 0 "" || return 1
	run "$DWC" list
	if grep -qF "$T/d" "$T/.out"; then
		why="rule still listed: $out"
		return 1
	fi
}

test_add_stores_canonical_path_and_option() {
	mkdir -p "$T/d" && ln -sf "$T/d" "$T/link" || return 1
	run "$DWC" add -q --exec --ignore-writers "$T/link"
	expect 0 "" || return 1
	run "$DWC" list
	has_line "exec,ignore-writers $T/d" || return 1
	run "$DWC" del -q "$T/link"
	expect 0 ""
}

test_add_of_a_missing_path_fails() {
	run "$DWC" add -q "$T/missing"
	expect 1 "denywritectl: add: $T/missing: No such file or directory"
}

test_add_is_all_or_nothing() {
	mkdir -p "$T/d" || return 1
	run "$DWC" add -q "$T/d" "$T/missing"
	expect 1 "denywritectl: add: $T/missing: No such file or directory" ||
		return 1
	run "$DWC" list
	if grep -qF "$T/d" "$T/.out"; then
		why="$T/d was added: $out"
		return 1
	fi
}

test_add_of_a_present_rule_fails() {
	mkdir -p "$T/d" || return 1
	run "$DWC" add -q "$T/d"
	expect 0 "" || return 1
	run "$DWC" add -q --exec "$T/d"
	expect 1 "denywritectl: add: $T/d: a rule for this path is already present"
}

test_add_of_the_same_object_by_another_name_fails_in_kernel() {
	mkdir -p "$T/d" "$T/e" || return 1
	mount -o bind "$T/d" "$T/e" || { why="mount -o bind failed"; return 1; }
	run "$DWC" add -q "$T/d"
	expect 0 "" || return 1
	run "$DWC" add -q "$T/e"
	expect 1 "denywritectl: add: $T/e: a rule for this path is already present"
}

test_del_of_an_absent_rule_fails() {
	mkdir -p "$T/d" || return 1
	run "$DWC" del -q "$T/d"
	expect 1 "denywritectl: del: $T/d: not present in the policy"
}

test_del_checks_every_path_before_deleting() {
	mkdir -p "$T/d" || return 1
	run "$DWC" add -q "$T/d"
	expect 0 "" || return 1
	run "$DWC" del -q "$T/d" /no/such/rule
	expect 1 "denywritectl: del: /no/such/rule: not present in the policy" ||
		return 1
	run "$DWC" list
	has_line "all $T/d"
}

test_clear_removes_every_rule() {
	echo data >"$T/idle"
	run "$DWC" clear
	expect 0 "" || return 1
	run "$DWC" list
	[ -z "$out" ] || { why="list after clear: $out"; return 1; }
	[ "$(stat_value rules)" = 0 ] || { why="stats rules $(stat_value rules)"; return 1; }
	run "$DWC" why "$T/idle"
	expect 0 "" || return 1
	has_line "advice: Writes to this file are not refused by denywrite."
}

# --- load and save -----------------------------------------------------------

test_save_clear_load_round_trips() {
	mkdir -p "$T/d" || return 1
	run "$DWC" add -q --lib --ignore-writers "$T/d"
	expect 0 "" || return 1
	"$DWC" save >"$T/p1" || { why="save failed"; return 1; }
	run "$DWC" clear
	expect 0 "" || return 1
	run "$DWC" load "$T/p1"
	expect 0 "" || return 1
	"$DWC" save >"$T/p2" || { why="second save failed"; return 1; }
	cmp -s "$T/p1" "$T/p2" || { why="before: $(cat "$T/p1"); after: $(cat "$T/p2")"; return 1; }
	grep -qxF "lib,ignore-writers $T/d" "$T/p2" || { why="rule lost: $(cat "$T/p2")"; return 1; }
}

test_load_reads_stdin_and_strips_comments() {
	mkdir -p "$T/d" || return 1
	printf '# a policy\n\n  exec /\nlib %s  \n   # end\n' "$T/d" >"$T/p"
	run "$DWC" load - <"$T/p"
	expect 0 "" || return 1
	run cat "$SFS/rules"
	has_line "exec /" && has_line "lib $T/d" || return 1
	[ "$(grep -c . "$T/.out")" = 2 ] || { why="kernel rules: $out"; return 1; }
}

# load_must_fail FILE STDERR: load fails so and the policy is unchanged.
load_must_fail() {
	"$DWC" save >"$T/before" || { why="save failed"; return 1; }
	run "$DWC" load --strict "$1"
	expect 1 "$2" || return 1
	"$DWC" save >"$T/after" || { why="save failed"; return 1; }
	cmp -s "$T/before" "$T/after" ||
		{ why="policy changed to: $(cat "$T/after")"; return 1; }
}

test_failed_load_of_a_bad_line_keeps_the_policy() {
	printf 'exec /\nbogus /tmp\n' >"$T/bad"
	load_must_fail "$T/bad" \
		"denywritectl: load: $T/bad:2: unknown scope 'bogus' (exec, lib or all)"
}

test_failed_load_of_a_missing_path_keeps_the_policy() {
	printf 'exec /\nlib %s/nonexistent\n' "$T" >"$T/gone"
	load_must_fail "$T/gone" \
		"denywritectl: load: $T/gone:2: $T/nonexistent: No such file or directory"
}

test_failed_load_of_one_object_twice_keeps_the_policy() {
	mkdir -p "$T/d" "$T/e" || return 1
	mount -o bind "$T/d" "$T/e" || { why="mount -o bind failed"; return 1; }
	printf 'exec %s/d\nexec %s/e\n' "$T" "$T" >"$T/twice"
	load_must_fail "$T/twice" \
		"denywritectl: load: $T/twice:2: $T/e is the same as $T/d on line 1"
}

# --- partial loads, drift, provenance ---------------------------------------------

# kernel_has LINE...: the kernel's rules file has each LINE.
kernel_has() {
	for l in "$@"; do
		grep -qxF -- "$l" "$SFS/rules" && continue
		why="kernel rules lack '$l': $(cat "$SFS/rules")"
		return 1
	done
}

test_load_skips_a_missing_path_and_loads_every_good_rule() {
	mkdir -p "$T/d" || return 1
	printf 'exec /\nlib %s/nonexistent\n-lib %s/optional\nlib %s/d\n' \
		"$T" "$T" "$T" >"$T/p"
	run "$DWC" load "$T/p"
	expect 6 "denywritectl: load: $T/p:2: $T/nonexistent: No such file or directory (rule skipped)
denywritectl: load: 1 part was skipped: the other rules are in force" || return 1
	[ "$out" = "loaded 2 rules from 1 file" ] || { why="said: $out"; return 1; }
	kernel_has "exec /" "lib $T/d" || return 1
	[ "$(grep -c . "$SFS/rules")" = 2 ] || { why="rules: $(cat "$SFS/rules")"; return 1; }
}

test_load_lets_a_later_file_override_the_same_object() {
	r=$T/root-override
	mkdir -p "$r/usr/lib/denywrite/rules.d" "$r/etc/denywrite/rules.d" "$T/d" || return 1
	ln -s "$T/d" "$T/link" || return 1
	printf 'exec /\nlib %s/d\n' "$T" >"$r/usr/lib/denywrite/rules.d/50-default.rules"
	printf 'exec,ignore-writers /\nall %s/link\n' "$T" >"$r/etc/denywrite/rules.d/90-local.rules"
	run "$DWC" load --strict --root "$r"
	expect 0 "" || return 1
	kernel_has "exec,ignore-writers /" "all $T/d" || return 1
	[ "$(grep -c . "$SFS/rules")" = 2 ] || { why="rules: $(cat "$SFS/rules")"; return 1; }
	run "$DWC" list --sources --root "$r"
	has_line "$r/etc/denywrite/rules.d/90-local.rules:1: exec,ignore-writers /" &&
		has_line "$r/etc/denywrite/rules.d/90-local.rules:2: all $T/d"
}

test_list_sources_and_diff_show_a_runtime_rule() {
	r=$T/root-drift
	mkdir -p "$r/etc/denywrite/rules.d" "$T/d" "$T/e" || return 1
	printf 'exec /\nlib %s/d\n' "$T" >"$r/etc/denywrite/rules.d/50-x.rules"
	run "$DWC" load -q --root "$r"
	expect 0 "" || return 1
	run "$DWC" diff --root "$r"
	expect 0 "" || return 1
	run "$DWC" add -q --exec "$T/e"
	expect 0 "" || return 1
	run "$DWC" list --sources --root "$r"
	has_line "runtime: exec $T/e" || return 1
	has_line "$r/etc/denywrite/rules.d/50-x.rules:2: lib $T/d" || return 1
	run "$DWC" diff --root "$r"
	expect 1 "" || return 1
	[ "$out" = "-exec $T/e" ] || { why="diff: $out"; return 1; }
	run "$DWC" load --dry-run --root "$r"
	expect 0 "" || return 1
	has_line "-exec $T/e" && has_line "checked 2 rules from 1 file (dry run: nothing loaded)"
}

test_add_persist_survives_a_reload() {
	r=$T/root-persist
	mkdir -p "$r/etc/denywrite/rules.d" "$T/d" || return 1
	printf 'exec /\n' >"$r/etc/denywrite/rules.d/50-x.rules"
	run "$DWC" add --persist --root "$r" --lib "$T/d"
	expect 0 "" || return 1
	run "$DWC" load -q --root "$r"
	expect 0 "" || return 1
	kernel_has "lib $T/d"
}

test_status_prints_the_digest_of_the_rules_file() {
	run "$DWC" status
	expect 0 "" || return 1
	sum=$(sha256sum "$SFS/rules" | cut -d' ' -f1)
	has_line "policy:    $sum"
}

# --- log ----------------------------------------------------------------------------

# Without auditd the kernel prints audit records rate-limited
# (kauditd_printk_skb: 10 in 5 s), and the tests' loads and mode changes
# make records: wait for a new window, then for the record.
test_log_reads_a_refused_write_from_the_kernel_log() {
	start_copy logged || return 1
	sleep 5
	since=$(date +%s)
	(echo x >>"$T/logged") 2>/dev/null && { why="append worked"; return 1; }
	n=0
	while [ "$n" -lt 5 ]; do
		run "$DWC" log --since "@$since"
		expect 0 "" || return 1
		grep -q " write enforce .* $T/logged exec /\$" "$T/.out" && break
		sleep 1
		n=$((n + 1))
	done
	[ "$n" -lt 5 ] || { why="no record of the write in: $out"; return 1; }
	# JSON lines: each parsed whole; the record of the write among them.
	run "$DWC" log --json --since "@$since"
	expect 0 "" || return 1
	types=$(printf '%s\n' "$out" | "$BIN/jsonget" -l -t . 2>&1) ||
		{ why="log --json is not JSON lines ($types): $out"; return 1; }
	[ -z "$(printf '%s\n' "$types" | grep -vx object)" ] ||
		{ why="log --json lines that are no objects: $out"; return 1; }
	printf '%s\n' "$out" | grep -F "\"path\":\"$T/logged\"" >"$T/rec" ||
		{ why="no record of $T/logged in: $out"; return 1; }
	rec=$(head -n 1 "$T/rec")
	json_is "$rec" .op write && json_is "$rec" .mode enforce &&
		json_is "$rec" .path "$T/logged"
}

# status's policy: is the kernel's own digest: the policy= of the
# AUDIT_MAC_POLICY_LOAD (type=1403) record of a load, as the kernel
# prints it without auditd (dmesg), over rules whose path the kernel
# escapes.  The load runs in the background, for its pid, which the
# record names; the record's time is not before the load's.  A new
# rate-limit window first, as above, then a wait for the record.
test_status_digest_is_the_policy_of_the_kernels_load_record() {
	mkdir "$T/$(printf 'digest\tdir')" || return 1
	printf 'exec /\nlib %s/digest\\011dir\n' "$T" >"$T/audited.rules"
	sleep 5
	since=$(date +%s)
	"$DWC" load -q "$T/audited.rules" >"$T/.out" 2>"$T/.err" &
	lpid=$!
	wait "$lpid"
	rc=$?
	out=$(cat "$T/.out")
	err=$(cat "$T/.err")
	expect 0 "" || return 1
	kernel_has "lib $T/digest\011dir" || return 1
	n=0
	while [ "$n" -lt 5 ]; do
		digest=$(dmesg | awk -v since="$since" -v pid=" pid=$lpid " '
			/ type=1403 audit\(/ && / lsm=denywrite op=rules / &&
			    / res=1/ && index($0, pid) {
				t = $0
				sub(/.* type=1403 audit\(/, "", t)
				sub(/[.:].*/, "", t)
				if (t + 0 < since + 0)
					next
				d = $0
				sub(/.* policy=/, "", d)
				sub(/ .*/, "", d)
			}
			END { print d }')
		[ -n "$digest" ] && break
		sleep 1
		n=$((n + 1))
	done
	[ "$n" -lt 5 ] || { why="no type=1403 record of the load (pid $lpid) in dmesg"; return 1; }
	case $digest in
	*[!0-9a-f]*) why="record's policy= is '$digest'"; return 1 ;;
	esac
	[ "${#digest}" = 64 ] || { why="record's policy= is '$digest'"; return 1; }
	run "$DWC" status
	expect 0 "" || return 1
	has_line "policy:    $digest"
}

# --- stats and why --------------------------------------------------------------

test_stats_count_a_denied_write() {
	start_copy busy || return 1
	before=$(stat_value denied_write)
	if (echo x >>"$T/busy") 2>"$T/.err"; then
		why="appending to a running file worked"
		return 1
	fi
	contains "$(cat "$T/.err")" "Text file busy" || return 1
	after=$(stat_value denied_write)
	# One refused open, nothing else refused meanwhile: exactly one.
	[ -n "$before" ] && [ "$after" = $((before + 1)) ] ||
		{ why="denied_write $before -> $after, want one more"; return 1; }
}

test_why_explains_a_running_executable() {
	start_copy run || return 1
	run "$DWC" why "$T/run"
	expect 0 "" || return 1
	has_line "path:                 $T/run" || return 1
	contains "$out" "protected:            yes (" || return 1
	has_line "  pid $pid, user root, executing: $T/run" || return 1
	contains "$out" "rename(2) it over this one (as install(1) does)" || return 1
	run "$DWC" why --json "$T/run"
	expect 0 "" || return 1
	json_ok "$out" || return 1
	json_is "$out" .path "$T/run" && json_is "$out" .protected true &&
		json_is "$out" .holders 1 && json_is "$out" .writers 0 &&
		json_is "$out" .exec_rule.path / || return 1
	json_is "$out" .processes "[{\"pid\":$pid,\"uid\":0,\"user\":\"root\",\"argv\":[\"$T/run\"],\"comm\":\"run\",\"holds\":[{\"how\":\"executing\"}]}]"
}

test_why_explains_a_running_shared_library() {
	lib=$(cd /usr/lib && pwd -P)/libdwtest.so
	cp "$lib" "$T/libcopy.so" || { why="no $lib"; return 1; }
	run "$DWC" add -q --lib /usr/lib
	expect 0 "" || return 1
	start libdwtest.so "$BIN/dynsleep" || return 1
	run "$DWC" why "$lib"
	expect 0 "" || return 1
	contains "$out" "protected:            yes (" || return 1
	contains "$out" "if mapped executable: lib " || return 1
	contains "$out" "  pid $pid, user root, mapped executable: " || return 1
	# The same bytes, so that nothing breaks if the write is let through.
	if cp "$T/libcopy.so" "$lib" 2>"$T/.err"; then
		why="cp over a mapped library worked"
		return 1
	fi
	contains "$(cat "$T/.err")" "Text file busy"
}

test_why_explains_an_idle_file() {
	echo data >"$T/idle"
	run "$DWC" why "$T/idle"
	expect 0 "" || return 1
	has_line "protected:            no (0 holders)" || return 1
	has_line "writers:              0" || return 1
	has_line "processes:            none found" || return 1
	contains "$out" "advice: "
}

test_why_of_a_missing_file_fails() {
	run "$DWC" why "$T/missing"
	expect 5 "denywritectl: why: $T/missing: No such file or directory"
}

test_why_q_and_pids_answer_as_fuser() {
	start_copy q-busy || return 1
	echo data >"$T/idle"
	run "$DWC" why -q "$T/q-busy"
	expect 0 "" || return 1
	[ -z "$out" ] || { why="why -q printed: $out"; return 1; }
	run "$DWC" why --pids "$T/q-busy"
	expect 0 "" || return 1
	[ "$out" = "$pid" ] || { why="--pids: '$out', want $pid"; return 1; }
	run "$DWC" why -q "$T/idle"
	expect 1 ""
}

test_why_without_securityfs_scans_proc() {
	start_copy blind || return 1
	umount /sys/kernel/security || { why="umount failed"; return 1; }
	run "$BIN/runas" "$NOBODY" "$DWC" why "$T/blind"
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	expect 0 || return 1
	contains "$out" "denywrite:            unknown (the kernel's view is missing" ||
		return 1
	umount /sys/kernel/security
	run "$BIN/runas" "$NOBODY" "$DWC" status
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
	expect 4 || return 1
	[ "$out" = "active:    unknown" ] || { why="status said: $out"; return 1; }
}

# --- the kernel's escaped paths, unprivileged queries, gone rules (new kernel) --

test_a_directory_with_a_tab_can_be_protected_and_removed_as_listed() {
	d="$T/$(printf 'a\tb')"
	mkdir "$d" || return 1
	run "$DWC" add -q --lib "$d"
	expect 0 "" || return 1
	kernel_has "lib $T/a\011b" || return 1
	run "$DWC" list
	has_line "lib $T/a\011b" || return 1
	run "$DWC" del -q "$T/a\011b"
	expect 0 "" || return 1
	if grep -qF "a\011b" "$SFS/rules"; then
		why="rule still there: $(cat "$SFS/rules")"
		return 1
	fi
}

test_a_directory_with_a_backslash_round_trips_through_list_and_save() {
	mkdir "$T/a\b" || return 1
	run "$DWC" add -q --exec "$T/a\b"
	expect 0 "" || return 1
	kernel_has "exec $T/a\134b" || return 1
	"$DWC" save >"$T/saved" || { why="save failed"; return 1; }
	grep -qxF "exec $T/a\134b" "$T/saved" || { why="save: $(cat "$T/saved")"; return 1; }
	run "$DWC" list
	has_line "exec $T/a\134b" || return 1
	# what list prints is a policy that loads back as it is
	cp "$T/.out" "$T/listed"
	run "$DWC" load -q --dry-run "$T/listed"
	expect 0 "" || return 1
	[ -z "$out" ] || { why="list does not load back as it is: $out"; return 1; }
	run "$DWC" del -q "$T/a\134b"
	expect 0 "" || return 1
	run "$DWC" load -q "$T/saved"
	expect 0 "" || return 1
	kernel_has "exec $T/a\134b"
}

test_why_as_nobody_says_unknown_for_a_file_it_may_not_inspect() {
	start_copy private || return 1
	chmod 755 "$T/private" || return 1
	run "$BIN/runas" "$NOBODY" "$DWC" why "$T/private"
	expect 0 "" || return 1
	has_line "protected:            unknown (you may not inspect this file's users)" ||
		return 1
	run "$BIN/runas" "$NOBODY" "$DWC" why --json "$T/private"
	json_ok "$out" || return 1
	json_is "$out" .protected null && json_is "$out" .holders null &&
		json_is "$out" .writers null
}

test_unmount_removes_the_rule_and_list_shows_it_gone() {
	mkdir -p "$T/m" || return 1
	mount -t tmpfs tmpfs "$T/m" || { why="mount tmpfs failed"; return 1; }
	mkdir "$T/m/lib" || return 1
	run "$DWC" add -q --lib "$T/m/lib"
	expect 0 "" || { umount "$T/m"; return 1; }
	if ! umount "$T/m"; then
		why="umount of a filesystem with a rule failed (the rule pins it)"
		"$DWC" del -q "$T/m/lib"
		umount "$T/m"
		return 1
	fi
	run "$DWC" status
	has_line "gone:      1 rule (its filesystem was unmounted)" || return 1
	run "$DWC" list
	has_line "# gone (its filesystem was unmounted): lib $T/m/lib" || return 1
	run "$DWC" list --sources
	has_line "gone: lib $T/m/lib" || return 1
	run "$DWC" log
	grep -q " unmount " "$T/.out" || { why="no unmount record: $out"; return 1; }
}

# --- why names writers and executors, as root and as nobody ------------------

# start_writer FILE [UID]: a process (as UID) holding FILE open for writing
# on fd 3, running "sleep 600"; its pid in $pid.
start_writer() {
	as=${2:+$BIN/runas $2}
	# shellcheck disable=SC2016,SC2086 # $1 is sh's; $as is split on purpose
	$as sh -c 'exec 3>>"$1" && exec sleep 600' sh "$1" </dev/null >/dev/null 2>&1 &
	pid=$!
	pids="$pids $pid"
	n=0
	while [ "$n" -lt 100 ]; do
		[ "$(readlink "/proc/$pid/fd/3" 2>/dev/null)" = "$1" ] &&
			[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" = "sleep 600 " ] &&
			return 0
		nap
		n=$((n + 1))
	done
	why="writer of $1 did not start"
	return 1
}

test_why_as_root_names_the_writer_that_makes_exec_fail() {
	cp "$BIN/sleeper" "$T/w" || return 1
	start_writer "$T/w" || return 1
	timeout 5 "$T/w" 2>"$T/.err"
	contains "$(cat "$T/.err")" "Text file busy" || return 1
	run "$DWC" why "$T/w"
	printf 'cli: why of a file open for writing:\n%s\n' "$out" >&2
	expect 0 "" || return 1
	has_line "writers:              1" || return 1
	contains "$out" "  pid $pid, user root, open for writing (fd 3): sleep 600" ||
		return 1
	contains "$out" "until the writers close it: the processes open for writing above."
}

test_why_as_nobody_names_its_own_writer() {
	cp "$BIN/sleeper" "$T/nw" && chmod 666 "$T/nw" || return 1
	start_writer "$T/nw" "$NOBODY" || return 1
	run "$BIN/runas" "$NOBODY" "$DWC" why "$T/nw"
	expect 0 "" || return 1
	contains "$out" "  pid $pid, user nobody, open for writing (fd 3): sleep 600"
}

test_why_as_nobody_names_its_own_executor() {
	cp "$BIN/sleeper" "$T/ne" && chmod 755 "$T/ne" &&
		chown "$NOBODY" "$T/ne" || return 1
	start "$T/ne" "$BIN/runas" "$NOBODY" "$T/ne" || return 1
	run "$BIN/runas" "$NOBODY" "$DWC" why "$T/ne"
	expect 0 "" || return 1
	contains "$out" "protected:            yes (" || return 1
	has_line "  pid $pid, user nobody, executing: $T/ne"
}

test_why_as_nobody_counts_what_it_may_not_inspect() {
	start_copy hidden || return 1
	cp "$BIN/sleeper" "$T/hw" || return 1
	start_writer "$T/hw" || return 1
	run "$BIN/runas" "$NOBODY" "$DWC" why "$T/hidden"
	expect 0 "" || return 1
	contains "$out" "protected:            unknown (you may not inspect this file's users)" || return 1
	has_line "processes:            none found" || return 1
	grep -q '^not inspected: *[1-9][0-9]* process.* you may not inspect (run as root to see them)$' "$T/.out" ||
		{ why="no 'not inspected' line: $out"; return 1; }
	run "$BIN/runas" "$NOBODY" "$DWC" why "$T/hw"
	expect 0 "" || return 1
	contains "$out" "writers:              unknown (you may not inspect this file's users)"
}

# --- policy files, empty loads, securityfs --------------------------------------

test_load_of_empty_input_keeps_the_policy() {
	: >"$T/empty"
	load_must_fail "$T/empty" \
		"denywritectl: load: no rules in 1 file: refusing to clear the policy (--allow-empty does)"
}

test_load_reads_rules_d_merged_by_name() {
	r=$T/root
	mkdir -p "$r/etc/denywrite/rules.d" "$r/run/denywrite/rules.d" \
		"$r/usr/lib/denywrite/rules.d" "$T/d" "$T/e" || return 1
	printf 'exec /\nlib %s/lost\n' "$T" >"$r/usr/lib/denywrite/rules.d/50-default.rules"
	printf 'exec /\nlib %s/d\n' "$T" >"$r/etc/denywrite/rules.d/50-default.rules"
	printf 'all %s/e\n' "$T" >"$r/run/denywrite/rules.d/60-run.rules"
	run "$DWC" load --root "$r"
	expect 0 "" || return 1
	[ "$out" = "loaded 3 rules from 2 files" ] || { why="said: $out"; return 1; }
	run sh -c "sort '$SFS/rules'"
	want=$(printf 'all %s/e\nexec /\nlib %s/d\n' "$T" "$T" | sort)
	[ "$out" = "$want" ] || { why="kernel rules: $out"; return 1; }
}

test_securityfs_is_mounted_only_when_needed_nosuid_nodev_noexec() {
	umount /sys/kernel/security || { why="umount failed"; return 1; }
	printf 'exec /\n' >"$T/p"
	run "$DWC" load --dry-run "$T/p"
	mounted=$(grep ' /sys/kernel/security securityfs ' /proc/mounts)
	if [ -n "$mounted" ]; then
		why="load --dry-run mounted securityfs"
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
		return 1
	fi
	expect 0 "" || return 1
	run "$DWC" status
	if grep -q ' /sys/kernel/security securityfs ' /proc/mounts; then
		why="status mounted securityfs"
		return 1
	fi
	{ expect 4 && contains "$err" "securityfs is not mounted: mount -t securityfs"; } || {
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
		return 1
	}
	run "$DWC" load "$T/p"
	line=$(grep ' /sys/kernel/security securityfs ' /proc/mounts)
	[ -n "$line" ] || {
		why="load did not mount securityfs"
		mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
		return 1
	}
	expect 0 "" || return 1
	for o in nosuid nodev noexec; do
		contains ",$(echo "$line" | cut -d' ' -f4)," ",$o," || return 1
	done
}

# --- privileges and usage ----------------------------------------------------------

test_unprivileged_user_can_read_but_not_change() {
	mkdir -p "$T/d" && echo data >"$T/idle" || return 1
	# nobody's own program: the kernel tells its owner who uses it.
	cp "$BIN/sleeper" "$T/nobody-run" && chown "$NOBODY" "$T/nobody-run" &&
		start "$T/nobody-run" "$T/nobody-run" || return 1
	for cmd in status list stats mode "why $T/idle" "why $T/nobody-run"; do
		# shellcheck disable=SC2086
		run "$BIN/runas" $NOBODY "$DWC" $cmd
		expect 0 "" || { why="$cmd: $why"; return 1; }
	done
	contains "$out" "protected:            yes (" || return 1
	for cmd in "mode enforce" "add $T/d" "del /" clear "load $T/orig.policy"; do
		# shellcheck disable=SC2086
		run "$BIN/runas" $NOBODY "$DWC" $cmd
		expect 1 "denywritectl: ${cmd%% *}: $CAP_MSG" ||
			{ why="$cmd: $why"; return 1; }
	done
	run "$DWC" list
	cmp -s "$T/.out" "$T/orig.rules" || { why="policy changed: $out"; return 1; }
}

test_usage_errors_exit_2() {
	run "$DWC" frobnicate
	expect 2 "denywritectl: unknown command 'frobnicate'
$HINT" || return 1
	run "$DWC" add --exec --lib /
	expect 2 "denywritectl: add: --exec and --lib conflict
$HINT" || return 1
	run "$DWC" mode sideways
	expect 2 "denywritectl: mode: unknown mode 'sideways' (off, audit or enforce)
$HINT" || return 1
	run "$DWC" list extra
	expect 2 "denywritectl: list: unexpected argument 'extra'
$HINT"
}

# --- main -------------------------------------------------------------------------

TESTS="
	version_is_printed
	status_reports_active_and_mode
	status_counts_a_running_file_as_protected
	save_prints_header_then_list
	json_outputs_are_single_objects
	mode_is_shown_and_set
	add_and_del_a_rule
	add_stores_canonical_path_and_option
	add_of_a_missing_path_fails
	add_is_all_or_nothing
	add_of_a_present_rule_fails
	add_of_the_same_object_by_another_name_fails_in_kernel
	del_of_an_absent_rule_fails
	del_checks_every_path_before_deleting
	clear_removes_every_rule
	save_clear_load_round_trips
	load_reads_stdin_and_strips_comments
	failed_load_of_a_bad_line_keeps_the_policy
	failed_load_of_a_missing_path_keeps_the_policy
	failed_load_of_one_object_twice_keeps_the_policy
	load_skips_a_missing_path_and_loads_every_good_rule
	load_lets_a_later_file_override_the_same_object
	list_sources_and_diff_show_a_runtime_rule
	add_persist_survives_a_reload
	status_prints_the_digest_of_the_rules_file
	log_reads_a_refused_write_from_the_kernel_log
	status_digest_is_the_policy_of_the_kernels_load_record
	stats_count_a_denied_write
	why_explains_a_running_executable
	why_explains_a_running_shared_library
	why_explains_an_idle_file
	why_of_a_missing_file_fails
	why_as_root_names_the_writer_that_makes_exec_fail
	why_as_nobody_names_its_own_writer
	why_as_nobody_names_its_own_executor
	why_as_nobody_counts_what_it_may_not_inspect
	why_q_and_pids_answer_as_fuser
	why_without_securityfs_scans_proc
	a_directory_with_a_tab_can_be_protected_and_removed_as_listed
	a_directory_with_a_backslash_round_trips_through_list_and_save
	why_as_nobody_says_unknown_for_a_file_it_may_not_inspect
	unmount_removes_the_rule_and_list_shows_it_gone
	load_of_empty_input_keeps_the_policy
	load_reads_rules_d_merged_by_name
	securityfs_is_mounted_only_when_needed_nosuid_nodev_noexec
	unprivileged_user_can_read_but_not_change
	usage_errors_exit_2
"

# shellcheck disable=SC2086 # word splitting of the list is wanted
set -- $TESTS
echo "PLAN cli $(($# + 1))"

# setup_failed WHY: every planned check fails, with the reason.
setup_failed() {
	for name in $TESTS cli_restores_the_policy; do
		echo "FAIL $name: setup: $1"
	done
	[ -n "${T:-}" ] && rm -rf "$T"
	exit 1
}

T=$(mktemp -d /tmp/dwcli.XXXXXX) || setup_failed "mktemp -d"
if ! T=$(cd "$T" && pwd -P) || ! chmod 755 "$T"; then
	setup_failed "$T"
fi
if ! orig_mode=$("$DWC" mode 2>/dev/null) ||
	! "$DWC" save >"$T/orig.policy" 2>/dev/null ||
	! "$DWC" list >"$T/orig.rules" 2>/dev/null; then
	setup_failed "cannot read the policy: $("$DWC" status 2>&1 | head -n 1)"
fi

for name in $TESTS; do
	t "$name"
done

# The policy and mode must be back as they were.
"$DWC" save >"$T/final.policy" 2>/dev/null
if [ "$("$DWC" mode 2>/dev/null)" != "$orig_mode" ] ||
	! cmp -s "$T/orig.policy" "$T/final.policy"; then
	echo "FAIL cli_restores_the_policy: mode $("$DWC" mode 2>&1), rules $(cat "$T/final.policy")"
	failed=1
else
	echo "PASS cli_restores_the_policy"
fi
rm -rf "$T"
exit $failed
