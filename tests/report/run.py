#!/usr/bin/env python3
"""Tests of scripts/report.py on canned logs.

good/ is a complete, passing set of logs (host suite "host", guest suites
"lsm" and "stock").  Each case below copies it, applies a few edits, runs
the report on the copy and checks the verdict: "pass" (exit 0, no
failure), or a failure whose FAIL line contains the given text (exit 1),
so that a case cannot pass by failing for another reason.  A case may
also name patterns that must match lines of the report.  An edit that
does not apply fails its case.

Prints "PLAN report N", then one PASS/FAIL line a case; exits 1 if one
failed.  Run by make test (scripts/test.sh) as the host suite "report".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT = os.path.join(HERE, "..", "..", "scripts", "report.py")
GOOD = os.path.join(HERE, "good")
ARGS = ["--host", "host", "{dir}", "lsm", "stock"]

sys.path.insert(0, os.path.dirname(REPORT))
import report  # noqa: E402  (for its list of splat kinds)


class EditFailed(Exception):
    pass


# ---- edits: each returns a function of the case's directory -----------------

def _lines(d, f):
    with open(os.path.join(d, f)) as fh:
        return fh.read().splitlines()


def _write(d, f, lines):
    with open(os.path.join(d, f), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def drop(f, rx):
    """Remove the lines of f matching rx (at least one)."""
    def edit(d):
        lines = _lines(d, f)
        kept = [line for line in lines if not re.search(rx, line)]
        if len(kept) == len(lines):
            raise EditFailed(f"no line of {f} matches {rx}")
        _write(d, f, kept)
    return edit


def sub(f, rx, repl, count=1):
    """Replace rx in the first `count` lines of f that match it."""
    def edit(d):
        out, n = [], 0
        for line in _lines(d, f):
            if n < count and re.search(rx, line):
                line = re.sub(rx, repl, line)
                n += 1
            out.append(line)
        if n == 0:
            raise EditFailed(f"no line of {f} matches {rx}")
        _write(d, f, out)
    return edit


def after(f, rx, text):
    """Insert text after the first line of f matching rx."""
    return sub(f, "(" + rx + ".*)$", lambda m: m.group(1) + "\n" + text)


def append(f, text):
    def edit(d):
        _write(d, f, _lines(d, f) + [text])
    return edit


def remove(path):
    def edit(d):
        p = os.path.join(d, path)
        if not os.path.exists(p):
            raise EditFailed(f"{path} does not exist")
        shutil.rmtree(p) if os.path.isdir(p) else os.remove(p)
    return edit


LSM, STOCK, HOST = "lsm/results.log", "stock/results.log", "host/results.log"
CON = "lsm/console.log"

# The matrix again on ext4, as group_dwtest_on runs it: its own group, its
# own check names, and where its files were.
EXT4_GROUP = """PLAN dwtest-ext4 1
CELL exec / enforce write_running_exe ETXTBSY
STAT dwtest-ext4 fs /tmp ext4
STAT dwtest-ext4 fs /usr/lib/libdwtest.so ext4
MATRIX exec / enforce write_running_exe ETXTBSY
PASS write_running_exe_denied_in_enforce_on_ext4[exec /]
EXIT dwtest-ext4 0"""
# The stock kernel's matrix on ext4, which classic mode's there is
# compared with.
STOCK_EXT4_GROUP = """PLAN dwtest-ext4 1
CELL - stock write_running_exe ETXTBSY
MATRIX - stock write_running_exe ETXTBSY
PASS write_running_exe_denied_in_stock_on_ext4
EXIT dwtest-ext4 0"""
WITH_EXT4 = [
    sub(LSM, "^GROUPS boot dwtest kmemleak$",
        "GROUPS boot dwtest dwtest-ext4 kmemleak"),
    after(LSM, "^EXIT dwtest 0$", EXT4_GROUP),
    sub(STOCK, "^GROUPS dwtest prctl$", "GROUPS dwtest dwtest-ext4 prctl"),
    after(STOCK, "^EXIT dwtest 0$", STOCK_EXT4_GROUP)]

# One case a row: name, expected verdict ("pass" or a text of the FAIL
# line), edits, and optionally regular expressions that lines of the
# report must match.
CASES = [
    ("complete_good_log_passes", "pass", []),
    ("allowed_skip_passes", "pass", [
        after(LSM, "^GROUPS", "ALLOW-SKIP kmemleak_finds_no_leak"),
        sub(LSM, "^PASS kmemleak_finds_no_leak$",
            "SKIP kmemleak_finds_no_leak: no kmemleak in this kernel")]),
    ("failed_check_fails", "lsm/boot_lists_denywrite_as_active_lsm: not listed", [
        sub(LSM, "^PASS boot_lists_denywrite_as_active_lsm$",
            "FAIL boot_lists_denywrite_as_active_lsm: not listed")]),
    ("missing_matrix_cell_fails",
     "missing matrix cell [exec /] enforce write_running_exe", [
         drop(LSM, "^MATRIX exec / enforce write_running_exe ")]),
    ("matrix_line_without_cell_fails", "without a CELL line", [
        drop(LSM, "^CELL exec / off rename_over_running_exe ")]),
    ("dwtest_killed_by_signal_fails", "lsm/dwtest: killed by SIGSEGV", [
        drop(LSM, "rename_over_running_exe_allowed_in_enforce"),
        sub(LSM, "^EXIT dwtest 0$", "EXIT dwtest signal:SIGSEGV")]),
    ("dwtest_timeout_fails", "lsm/dwtest: timed out", [
        sub(LSM, "^EXIT dwtest 0$", "EXIT dwtest timeout")]),
    ("program_exit_status_fails", "lsm/boot: exited with status 1", [
        sub(LSM, "^EXIT boot 0$", "EXIT boot 1")]),
    ("program_never_started_fails", "lsm/boot: never started (ENOENT)", [
        drop(LSM, "^(PLAN boot|PASS boot_)"),
        sub(LSM, "^EXIT boot 0$", "EXIT boot not-started:ENOENT")]),
    ("plan_too_few_fails", "lsm/dwtest: PLAN 5, but 4 results (fewer)", [
        drop(LSM, "^PASS exec_race_never_both_succeed")]),
    ("plan_too_many_fails", "lsm/dwtest: PLAN 5, but 6 results (more)", [
        after(LSM, "^PASS exec_race_never_both_succeed",
              "PASS counters_match_denied_in_enforce[exec /]")]),
    ("plan_without_exit_fails", "lsm/kmemleak: no EXIT line", [
        drop(LSM, "^EXIT kmemleak")]),
    ("declared_group_that_never_ran_fails", "lsm/kmemleak: no PLAN line", [
        drop(LSM, "^(PLAN|STAT|EXIT) kmemleak |^PASS kmemleak_")]),
    ("group_not_declared_fails", "lsm/kmemleak: not in the suite's GROUPS", [
        sub(LSM, "^GROUPS boot dwtest kmemleak$", "GROUPS boot dwtest")]),
    ("result_outside_any_group_fails", "in no group", [
        after(LSM, "^EXIT boot", "PASS stray_check")]),
    ("check_reported_twice_fails", "reported twice", [
        sub(LSM, "^PASS exec_race_never_both_succeed.*$",
            "PASS boot_lists_denywrite_as_active_lsm")]),
    ("disallowed_skip_fails", "the suite does not allow it", [
        sub(LSM, "^PASS kmemleak_finds_no_leak$",
            "SKIP kmemleak_finds_no_leak: no kmemleak")]),
    ("missing_end_marker_fails", "lsm/end: no END line", [
        drop(LSM, "^END lsm")]),
    ("missing_guest_suite_fails", "stock/ran: no results.log", [
        remove("stock")]),
    ("missing_host_suite_fails", "host/ran: no results.log", [
        remove("host")]),
    ("host_plan_short_fails", "host/host: PLAN 2, but 1 results (fewer)", [
        drop(HOST, "^PASS load_parses_valid_policy")]),
    ("host_skip_fails", "host/cli_rejects_missing_command: skipped", [
        sub(HOST, "^PASS cli_rejects_missing_command$",
            "SKIP cli_rejects_missing_command: needs CAP_MAC_ADMIN")]),
    ("stale_results_file_fails", "lsm/stale: results of run canned-0", [
        sub(LSM, "^SUITE lsm canned-1$", "SUITE lsm canned-0")]),
    ("results_without_suite_line_fail", "lsm/header: no SUITE line", [
        drop(LSM, "^SUITE ")]),
    ("results_without_groups_line_fail", "lsm/groups: no GROUPS line", [
        drop(LSM, "^GROUPS ")]),
    ("missing_console_log_fails", "lsm/console: no console.log", [
        remove(CON)]),
    ("kunit_case_missing_fails", "lsm/kunit: PLAN 2, but 1 results", [
        drop(CON, "ok 2 parse_rule_invalid")]),
    ("kunit_case_not_ok_fails", "lsm/kunit_parse_rule_valid", [
        sub(CON, "    ok 1 parse_rule_valid", "    not ok 1 parse_rule_valid")]),
    ("kunit_absent_fails", "lsm/kunit: no KUnit", [
        drop(CON, r"KTAP|^ *1\.\.|ok \d|# ")]),
    ("matrix_titles_name_the_filesystems", "pass", [
        after(LSM, "^PLAN dwtest 5$", "STAT dwtest fs /tmp tmpfs\n"
              "STAT dwtest fs /usr/lib/libdwtest.so rootfs")] + WITH_EXT4,
     [r"^rules: exec / on tmpfs \(/tmp\); rootfs \(/usr/lib/libdwtest\.so\)$",
      r"^rules: exec / \(dwtest-ext4\) on ext4$"]),
    ("classic_unlike_stock_fails", "compare/classic_matches_stock_write_running_exe", [
        sub(STOCK, "^CELL - stock write_running_exe ETXTBSY$",
            "CELL - stock write_running_exe ok"),
        sub(STOCK, "^MATRIX - stock write_running_exe ETXTBSY$",
            "MATRIX - stock write_running_exe ok")]),
    ("classic_unlike_stock_on_ext4_fails",
     "compare/classic_on_ext4_matches_stock_write_running_exe", WITH_EXT4[:3] + [
        after(STOCK, "^EXIT dwtest 0$", STOCK_EXT4_GROUP.replace(
            "ETXTBSY", "ok").replace("denied", "allowed"))]),
    ("stock_without_the_ext4_matrix_fails",
     "compare/classic_on_ext4_compared_with_stock: no common scenarios",
     WITH_EXT4[:2]),
]

# A kernel log line of each splat kind of report.SPLATS.
SPLAT_LINES = {
    "bug": "BUG: sleeping function called from invalid context at mm/slub.c:4134",
    "kernel_bug": "kernel BUG at fs/inode.c:612!",
    "warning": "WARNING: CPU: 1 PID: 77 at security/denywrite/hooks.c:100 dw_file_open+0x1/0x2",
    "oops": "Oops: 0000 [#1] PREEMPT SMP",
    "kasan": "BUG: KASAN: slab-use-after-free in dw_policy_put+0x10/0x20",
    "ubsan": "UBSAN: array-index-out-of-bounds in security/denywrite/policy.c:42:7",
    "lockdep": "WARNING: possible circular locking dependency detected",
    "panic": "Kernel panic - not syncing: Fatal exception",
    "rcu_stall": "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "hung_task": "INFO: task dwtest:123 blocked for more than 120 seconds.",
    "soft_lockup": "watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [dwtest:99]",
    "hard_lockup": "Watchdog detected hard LOCKUP on cpu 1",
    "general_protection_fault": "general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 [#1] PREEMPT SMP",
    "list_corruption": "list_add corruption. prev->next should be next (ffff888003c1e0a0), but was 0000000000000000.",
    "slub": "BUG kmalloc-64 (Not tainted): Poison overwritten",
    "kmemleak_disabled": "kmemleak: Kernel memory leak detector disabled",
    "call_trace": "Call Trace:",
}
EXTRA_SPLATS = [  # more lines of a kind already covered
    ("list_del", "list_corruption",
     "list_del corruption, ffff888003c1e0a0->next is LIST_POISON1 (dead000000000100)"),
    ("slub_tainted", "slub",
     "BUG kmalloc-cg-128 (Tainted: G    B             ): Redzone overwritten"),
]
for kind, _ in report.SPLATS:
    CASES.append((f"splat_{kind}_fails", f"lsm/kernel_log_has_no_{kind}:",
                  [append(CON, SPLAT_LINES.get(kind, "(no canned line)"))]))
for name, kind, line in EXTRA_SPLATS:
    CASES.append((f"splat_{name}_fails", f"lsm/kernel_log_has_no_{kind}:",
                  [append(CON, line)]))


def run_case(expect, edits, shows=()):
    """None if the report's verdict is the expected one and its output
    matches every pattern of shows, else why not."""
    with tempfile.TemporaryDirectory(prefix="dwreport.") as tmp:
        d = os.path.join(tmp, "logs")
        shutil.copytree(GOOD, d)
        try:
            for edit in edits:
                edit(d)
        except EditFailed as e:
            return f"the case's edit did not apply: {e}"
        args = [a.format(dir=d) for a in ARGS]
        p = subprocess.run([sys.executable, REPORT] + args,
                           capture_output=True, text=True)
    lines = p.stdout.splitlines()
    last = lines[-1] if lines else ""
    fails = [line for line in lines if line.startswith("FAIL ")]
    if not re.fullmatch(r"\d+ passed, \d+ failed", last):
        return f"last line is '{last}' (exit {p.returncode}); {p.stderr.strip()}"
    missing = [rx for rx in shows if not re.search(rx, p.stdout, re.M)]
    if missing:
        return f"no line of the report matches {missing[0]}"
    if expect == "pass":
        if p.returncode != 0 or fails:
            return f"exit {p.returncode}: {'; '.join(fails) or last}"
        return None
    if p.returncode == 0 or last.endswith(" 0 failed"):
        return f"the report passed it: exit {p.returncode}, '{last}'"
    if not any(expect in f for f in fails):
        return f"no FAIL line with '{expect}': {'; '.join(fails)}"
    return None


def main():
    missing = [k for k, _ in report.SPLATS if k not in SPLAT_LINES]
    print(f"PLAN report {len(CASES) + 1}", flush=True)
    print("FAIL every_splat_kind_has_a_canned_line: none for "
          + ", ".join(missing) if missing else
          "PASS every_splat_kind_has_a_canned_line")
    failed = bool(missing)
    for name, expect, edits, *shows in CASES:
        why = run_case(expect, edits, *shows)
        print(f"FAIL {name}: {why}" if why else f"PASS {name}", flush=True)
        failed |= why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
