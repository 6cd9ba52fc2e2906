#!/usr/bin/env python3
"""Tests of scripts/report.py on canned logs.

good/ is a small, complete, passing set of logs (host suite "host", guest
suites "lsm" and "stock") with its manifest (good/manifest); full/ is a
real make test run of every suite but this one (which reads it), with the tests/manifest it passed
(full/manifest: the manifest of that day, so that adding a test to
tests/manifest does not need a new canned run; its logs gzipped).  Each case below copies
one, applies a few edits (to the logs or to the manifest), runs the
report on the copy and checks the verdict: "pass" (exit 0, no failure),
or a failure whose FAIL line contains the given text (exit 1), so that a
case cannot pass by failing for another reason.  A case may also name
patterns that must match lines of the report.  An edit that does not
apply fails its case.  A few cases call the report's functions directly,
two check tests/manifest itself against the tree, and two
tests/debian/manifest against tests/debian/suites.sh and
scripts/test-debian.sh.

Prints "PLAN report N", then one PASS/FAIL line a case; exits 1 if one
failed.  Run by make test (scripts/test.sh) as the host suite "report".
"""
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
REPORT = os.path.join(TOP, "scripts", "report.py")
GOOD = os.path.join(HERE, "good")
FULL = os.path.join(HERE, "full")
ARGS = ["--manifest", "{dir}/manifest", "{dir}"]
LEGACY = ["--host", "host", "{dir}", "lsm", "stock"]

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


def drop_check(f, name):
    """Remove the result line of check name and lower its group's PLAN by
    one, so that only the manifest can tell."""
    def edit(d):
        lines = _lines(d, f)
        i = next((i for i, line in enumerate(lines)
                  if re.match(r"(PASS|FAIL|SKIP) " + re.escape(name) + r"(: |$)", line)),
                 None)
        if i is None:
            raise EditFailed(f"no result line for {name} in {f}")
        j = max(k for k in range(i) if lines[k].startswith("PLAN "))
        _, group, n = lines[j].split()
        lines[j] = f"PLAN {group} {int(n) - 1}"
        del lines[i]
        _write(d, f, lines)
    return edit


def drop_group(f, group):
    """Remove a group: its lines from PLAN to EXIT, its STAT lines and its
    name on the GROUPS line."""
    def edit(d):
        lines, out, inside, found = _lines(d, f), [], False, False
        for line in lines:
            w = line.split()
            if line.startswith("GROUPS "):
                if group not in w:
                    raise EditFailed(f"{group} is not on the GROUPS line")
                line = " ".join(x for x in w if x != group)
            elif w[:2] == ["PLAN", group]:
                inside = found = True
            if not inside and w[:2] != ["STAT", group]:
                out.append(line)
            if w[:2] == ["EXIT", group]:
                inside = False
        if not found:
            raise EditFailed(f"no PLAN {group} in {f}")
        _write(d, f, out)
    return edit


def drop_kmsg(f, rx):
    """Remove the KMSG lines whose text matches rx (at least one) and
    number the rest again, as if the kernel had never logged them."""
    def edit(d):
        out, seq, dropped = [], 0, 0
        for line in _lines(d, f):
            if line.startswith("KMSG "):
                _, _, prio, *text = line.split(" ", 3)
                text = text[0] if text else ""
                if re.search(rx, text):
                    dropped += 1
                    continue
                line = f"KMSG {seq} {prio} {text}"
                seq += 1
            elif line.startswith("KMSG-END "):
                line = f"KMSG-END {seq} {line.split()[2]}"
            out.append(line)
        if not dropped:
            raise EditFailed(f"no KMSG line of {f} matches {rx}")
        _write(d, f, out)
    return edit


def kunit_case_gone(suite, case):
    """A KUnit case that never ran: its line gone from the console and the
    dump, and its suite's KTAP plan one lower."""
    def edit(d):
        for f, prefix in ((f"{suite}/console.log", ""),
                          (f"{suite}/results.log", r"KMSG \d+ \d+ ")):
            lines, out, cur, hit = _lines(d, f), [], None, False
            for line in lines:
                m = re.match(prefix + r"    # Subtest: (\S+)", line)
                if m:
                    cur = m.group(1)
                m = re.match("(" + prefix + r"    1\.\.)(\d+)$", line)
                if m and cur == case[0]:
                    line = m.group(1) + str(int(m.group(2)) - 1)
                if re.match(prefix + r"    ok \d+ " + re.escape(case[1]) + "$", line):
                    hit = True
                    continue
                out.append(line)
            if not hit:
                raise EditFailed(f"no KUnit case {case} in {f}")
            _write(d, f, out)
        renumber(f"{suite}/results.log")(d)
    return edit


def renumber(f):
    """Number the KMSG lines of f again (after an edit removed one)."""
    def edit(d):
        out, seq = [], 0
        for line in _lines(d, f):
            if line.startswith("KMSG "):
                _, _, prio, *text = line.split(" ", 3)
                line = f"KMSG {seq} {prio} {text[0] if text else ''}"
                seq += 1
            elif line.startswith("KMSG-END "):
                line = f"KMSG-END {seq} {line.split()[2]}"
            out.append(line)
        _write(d, f, out)
    return edit


def _cell_name(rules, mode, scenario, value, suffix):
    """A matrix cell's check name, as dwtest makes it."""
    word = "denied" if value == "ETXTBSY" else "allowed"
    name = f"{scenario}_{word}_in_{mode}{suffix}"
    return name if rules == "-" else f"{name}[{rules}]"


def flip_cell(f, rules, mode, scenario, group="dwtest", suffix=""):
    """Flip one matrix cell of group everywhere the guest says it, as a
    guest whose model changed with the kernel would: its CELL and MATRIX
    lines (ETXTBSY <-> ok) and its check's name (denied <-> allowed), so
    that the three agree again."""
    def edit(d):
        head = f"{rules} {mode} {scenario} "
        lines, cur, was = _lines(d, f), None, None
        for line in lines:
            w = line.split()
            cur = w[1] if w[:1] == ["PLAN"] and len(w) > 1 else cur
            if cur == group and line.startswith("CELL " + head):
                was = w[-1]
        if was not in ("ETXTBSY", "ok"):
            raise EditFailed(f"no CELL {head}in group {group} of {f}")
        new = "ok" if was == "ETXTBSY" else "ETXTBSY"
        old_pass = "PASS " + _cell_name(rules, mode, scenario, was, suffix)
        new_pass = "PASS " + _cell_name(rules, mode, scenario, new, suffix)
        hits, cur = set(), None
        for i, line in enumerate(lines):
            w = line.split()
            cur = w[1] if w[:1] == ["PLAN"] and len(w) > 1 else cur
            if cur != group:
                continue
            for kind in ("CELL", "MATRIX"):
                if line == f"{kind} {head}{was}":
                    lines[i] = f"{kind} {head}{new}"
                    hits.add(kind)
            if line == old_pass:
                lines[i] = new_pass
                hits.add("PASS")
        if hits != {"CELL", "MATRIX", "PASS"}:
            raise EditFailed(f"cell {head}of {group} in {f}: only {sorted(hits)}")
        _write(d, f, lines)
    return edit


def add_cell(f, rules, mode, scenario, value, group="dwtest", suffix=""):
    """A cell more in group, whole and consistent: its CELL line after the
    PLAN, its MATRIX and PASS lines before the EXIT, the PLAN one higher."""
    def edit(d):
        lines, out, found = _lines(d, f), [], False
        for line in lines:
            w = line.split()
            if w[:2] == ["EXIT", group]:
                out += [f"MATRIX {rules} {mode} {scenario} {value}",
                        "PASS " + _cell_name(rules, mode, scenario, value, suffix)]
            if w[:2] == ["PLAN", group]:
                found = True
                line = f"PLAN {group} {int(w[2]) + 1}"
                out += [line, f"CELL {rules} {mode} {scenario} {value}"]
                continue
            out.append(line)
        if not found:
            raise EditFailed(f"no PLAN {group} in {f}")
        _write(d, f, out)
    return edit


def manifest_sub(rx, repl):
    return sub("manifest", rx, repl)


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
    after("manifest", "^  exec_race_never_both_succeed",
          "group dwtest-ext4 1\n"
          "cells [exec /] x enforce x write_running_exe suffix _on_ext4"),
    sub(STOCK, "^GROUPS dwtest prctl$", "GROUPS dwtest dwtest-ext4 prctl"),
    after(STOCK, "^EXIT dwtest 0$", STOCK_EXT4_GROUP),
    after("manifest", r"^cells \[-\] x stock x @scenarios$",
          "group dwtest-ext4 1\n"
          "cells [-] x stock x write_running_exe suffix _on_ext4")]


def C(name, expect, edits, shows=(), args=ARGS, base=GOOD):
    """A case: name, the verdict ("pass" or a text of a FAIL line), the
    edits, regular expressions lines of the report must match, the
    report's arguments and the canned logs it starts from."""
    return (name, expect, edits, shows, args, base)


CASES = [
    C("complete_good_log_passes", "pass", []),
    C("allowed_skip_passes", "pass", [
        after("manifest", "^suite lsm guest$", "skip: no kmemleak in this kernel\n"
              "  kmemleak_finds_no_leak"),
        sub(LSM, "^PASS kmemleak_finds_no_leak$",
            "SKIP kmemleak_finds_no_leak: no kmemleak in this kernel")],
      [r"^SKIP lsm/kmemleak_finds_no_leak: no kmemleak in this kernel \(allowed\)$"]),
    C("failed_check_fails", "lsm/boot_lists_denywrite_as_active_lsm: not listed", [
        sub(LSM, "^PASS boot_lists_denywrite_as_active_lsm$",
            "FAIL boot_lists_denywrite_as_active_lsm: not listed")]),
    C("missing_matrix_cell_fails",
      "missing matrix cell [exec /] enforce write_running_exe", [
          drop(LSM, "^MATRIX exec / enforce write_running_exe ")]),
    C("matrix_line_without_cell_fails", "without a CELL line", [
        drop(LSM, "^CELL exec / off rename_over_running_exe ")]),
    C("dwtest_killed_by_signal_fails", "lsm/dwtest: killed by SIGSEGV", [
        drop(LSM, "rename_over_running_exe_allowed_in_enforce"),
        sub(LSM, "^EXIT dwtest 0$", "EXIT dwtest signal:SIGSEGV")]),
    C("dwtest_timeout_fails", "lsm/dwtest: timed out", [
        sub(LSM, "^EXIT dwtest 0$", "EXIT dwtest timeout")]),
    C("program_exit_status_fails", "lsm/boot: exited with status 1", [
        sub(LSM, "^EXIT boot 0$", "EXIT boot 1")]),
    C("program_never_started_fails", "lsm/boot: never started (ENOENT)", [
        drop(LSM, "^(PLAN boot|PASS boot_)"),
        sub(LSM, "^EXIT boot 0$", "EXIT boot not-started:ENOENT")]),
    C("plan_too_few_fails", "lsm/dwtest: PLAN 5, but 4 results (fewer)", [
        drop(LSM, "^PASS exec_race_never_both_succeed")]),
    C("plan_too_many_fails", "lsm/dwtest: PLAN 5, but 6 results (more)", [
        after(LSM, "^PASS exec_race_never_both_succeed",
              "PASS counters_match_denied_in_enforce[exec /]")]),
    C("plan_without_exit_fails", "lsm/kmemleak: no EXIT line", [
        drop(LSM, "^EXIT kmemleak")]),
    C("declared_group_that_never_ran_fails", "lsm/kmemleak: no PLAN line", [
        drop(LSM, "^(PLAN|STAT|EXIT) kmemleak |^PASS kmemleak_")]),
    C("group_not_declared_fails", "lsm/kmemleak: not in the suite's GROUPS", [
        sub(LSM, "^GROUPS boot dwtest kmemleak$", "GROUPS boot dwtest")]),
    C("result_outside_any_group_fails", "in no group", [
        after(LSM, "^EXIT boot", "PASS stray_check")]),
    C("check_reported_twice_fails", "reported twice", [
        sub(LSM, "^PASS exec_race_never_both_succeed.*$",
            "PASS boot_lists_denywrite_as_active_lsm")]),
    C("disallowed_skip_fails", "the suite does not allow it", [
        sub(LSM, "^PASS kmemleak_finds_no_leak$",
            "SKIP kmemleak_finds_no_leak: no kmemleak")]),
    C("missing_end_marker_fails", "lsm/end: no END line", [
        drop(LSM, "^END lsm")]),
    C("qemu_timeout_after_end_fails", "lsm/qemu: QEMU timed out after the suite's END", [
        sub("lsm/boot.status", "^qemu_exit 0$", "qemu_exit 124")]),
    C("qemu_failure_after_end_fails", "lsm/qemu: QEMU exited with 1 after the suite's END", [
        sub("lsm/boot.status", "^qemu_exit 0$", "qemu_exit 1")]),
    C("qemu_crash_redone_by_boot_is_shown_and_second_boot_counts", "pass", [
        append("lsm/boot.status", "qemu_crashed 139 5")],
      [r"^REBOOTED lsm: QEMU crashed \(exit 139\) after 5 s and was booted "
       r"once more; these are the second boot's results$"]),
    C("qemu_crash_of_the_second_boot_fails", "lsm/qemu: QEMU exited with 139 after the suite's END", [
        sub("lsm/boot.status", "^qemu_exit 0$", "qemu_exit 139"),
        append("lsm/boot.status", "qemu_crashed 139 5")]),
    C("guest_suite_without_boot_status_fails", "stock/qemu: no boot.status", [
        remove("stock/boot.status")]),
    C("missing_guest_suite_fails", "stock/ran: no results.log", [
        remove("stock")]),
    C("missing_host_suite_fails", "host/ran: no results.log", [
        remove("host")]),
    C("host_plan_short_fails", "host/host: PLAN 2, but 1 results (fewer)", [
        drop(HOST, "^PASS load_parses_valid_policy")]),
    C("host_skip_fails", "host/cli_rejects_missing_command: skipped", [
        sub(HOST, "^PASS cli_rejects_missing_command$",
            "SKIP cli_rejects_missing_command: needs CAP_MAC_ADMIN")]),
    C("stale_results_file_fails", "lsm/stale: results of run canned-0", [
        sub(LSM, "^SUITE lsm canned-1$", "SUITE lsm canned-0")]),
    C("results_without_suite_line_fail", "lsm/header: no SUITE line", [
        drop(LSM, "^SUITE ")]),
    C("results_without_groups_line_fail", "lsm/groups: no GROUPS line", [
        drop(LSM, "^GROUPS ")]),
    C("missing_console_log_fails", "lsm/console: no console.log", [
        remove(CON)]),
    C("kunit_case_missing_fails", "lsm/kunit: PLAN 2, but 1 results", [
        drop(CON, "ok 2 parse_rule_invalid")]),
    C("kunit_case_not_ok_fails", "lsm/kunit_parse_rule_valid", [
        sub(CON, "    ok 1 parse_rule_valid", "    not ok 1 parse_rule_valid")]),
    C("kunit_absent_fails", "lsm/kunit: no KUnit", [
        drop(CON, r"KTAP|^ *1\.\.|ok \d|# "),
        drop_kmsg(LSM, r"KTAP|^ *1\.\.|ok \d|# ")]),
    C("matrix_titles_name_the_filesystems", "pass", [
        after(LSM, "^PLAN dwtest 5$", "STAT dwtest fs /tmp tmpfs\n"
              "STAT dwtest fs /usr/lib/libdwtest.so rootfs")] + WITH_EXT4,
      [r"^rules: exec / on tmpfs \(/tmp\); rootfs \(/usr/lib/libdwtest\.so\)$",
       r"^rules: exec / \(dwtest-ext4\) on ext4$"]),
    C("classic_unlike_stock_fails", "compare/classic_matches_stock_write_running_exe", [
        sub(STOCK, "^CELL - stock write_running_exe ETXTBSY$",
            "CELL - stock write_running_exe ok"),
        sub(STOCK, "^MATRIX - stock write_running_exe ETXTBSY$",
            "MATRIX - stock write_running_exe ok")]),
    C("classic_unlike_stock_on_ext4_fails",
      "compare/classic_on_ext4_matches_stock_write_running_exe", WITH_EXT4[:4] + [
          after(STOCK, "^EXIT dwtest 0$", STOCK_EXT4_GROUP.replace(
              "ETXTBSY", "ok").replace("denied", "allowed")),
          WITH_EXT4[5]]),
    C("stock_without_the_ext4_matrix_fails",
      "compare/classic_on_ext4_compared_with_stock: no common scenarios",
      WITH_EXT4[:3]),

    # Each result against its expectation (issue 20, item 2).
    C("matrix_outcome_unlike_its_cell_fails_though_it_says_pass",
      "lsm/dwtest: MATRIX [exec /] enforce write_running_exe is ok, its CELL expects ETXTBSY", [
          sub(LSM, "^MATRIX exec / enforce write_running_exe ETXTBSY$",
              "MATRIX exec / enforce write_running_exe ok")]),
    C("allow_skip_line_from_the_guest_fails",
      "lsm/allow_skip_line: line 3: ALLOW-SKIP kmemleak_finds_no_leak", [
          after(LSM, "^GROUPS", "ALLOW-SKIP kmemleak_finds_no_leak"),
          sub(LSM, "^PASS kmemleak_finds_no_leak$",
              "SKIP kmemleak_finds_no_leak: no kmemleak in this kernel")]),
    C("without_manifest_allow_skip_line_fails",
      "lsm/allow_skip_line: line 3: ALLOW-SKIP kmemleak_finds_no_leak", [
          after(LSM, "^GROUPS", "ALLOW-SKIP kmemleak_finds_no_leak"),
          sub(LSM, "^PASS kmemleak_finds_no_leak$",
              "SKIP kmemleak_finds_no_leak: no kmemleak in this kernel")],
      (), LEGACY),
    C("without_manifest_skip_fails",
      "lsm/kmemleak_finds_no_leak: skipped, and the suite does not allow it: no kmemleak in this kernel", [
          sub(LSM, "^PASS kmemleak_finds_no_leak$",
              "SKIP kmemleak_finds_no_leak: no kmemleak in this kernel")],
      (), LEGACY),

    # The manifest (issue 20, item 1), on the small logs.
    C("check_missing_with_its_plan_lowered_fails",
      "lsm/boot: 1 check(s) of the manifest did not report: boot_lists_denywrite_as_active_lsm", [
          drop_check(LSM, "boot_lists_denywrite_as_active_lsm")]),
    C("check_not_in_manifest_fails",
      "lsm/dwtest: 1 check(s) not in the manifest: counters_match_denied_in_enforce[exec /]", [
          after(LSM, "^PASS exec_race_never_both_succeed",
                "PASS counters_match_denied_in_enforce[exec /]"),
          sub(LSM, "^PLAN dwtest 5$", "PLAN dwtest 6")]),
    C("group_gone_from_run_and_groups_line_fails",
      "lsm/kmemleak: in the manifest, but neither in the suite's GROUPS line nor run", [
          drop_group(LSM, "kmemleak")]),
    C("group_not_in_manifest_fails", "lsm/prctl: not in the manifest", [
        sub(LSM, "^GROUPS boot dwtest kmemleak$", "GROUPS boot dwtest kmemleak prctl"),
        after(LSM, "^EXIT kmemleak", "PLAN prctl 1\nPASS prctl_x\nEXIT prctl 0")]),
    C("plan_unlike_manifest_fails", "lsm/boot: PLAN 2, the manifest says 1", [
        sub(LSM, "^PLAN boot 1$", "PLAN boot 2"),
        after(LSM, "^PASS boot_lists", "PASS boot_other")]),
    C("cell_gone_with_its_check_fails",
      "lsm/dwtest: 1 cell(s) of the manifest without a CELL line: [exec /] off rename_over_running_exe", [
          drop(LSM, "^(CELL|MATRIX) exec / off rename_over_running_exe "),
          drop_check(LSM, r"rename_over_running_exe_allowed_in_off[exec /]")]),
    C("cell_not_in_manifest_fails",
      "lsm/dwtest: 1 CELL(s) not in the manifest: [exec /] audit write_running_exe", [
          after(LSM, "^PLAN dwtest 5$", "CELL exec / audit write_running_exe ok"),
          after(LSM, "^PASS exec_race", "MATRIX exec / audit write_running_exe ok\n"
                                        "PASS write_running_exe_allowed_in_audit[exec /]"),
          sub(LSM, "^PLAN dwtest 5$", "PLAN dwtest 6")]),
    C("kunit_case_gone_with_its_plan_fails",
      "lsm/kunit: KUnit denywrite_policy: 1 case(s) of the manifest did not report: parse_rule_invalid", [
          kunit_case_gone("lsm", ("denywrite_policy", "parse_rule_invalid"))]),
    C("kunit_suite_not_in_manifest_fails",
      "lsm/kunit: KUnit suite denywrite_policy is not in the manifest", [
          manifest_sub("^kunit denywrite_policy 2$", "kunit denywrite_other 2")]),
    C("kunit_in_manifest_but_not_booted_fails",
      "stock/kunit: no KUnit (KTAP) results in console.log; the manifest lists denywrite_policy", [
          after("manifest", "^suite stock guest$", "kunit denywrite_policy 1\n  parse_rule_valid")]),
    C("kunit_case_not_in_manifest_fails",
      "lsm/kunit: KUnit denywrite_policy: 1 case(s) not in the manifest: parse_rule_invalid", [
          manifest_sub("^kunit denywrite_policy 2$", "kunit denywrite_policy 1"),
          drop("manifest", "^  parse_rule_invalid$")]),
    C("kunit_suite_of_manifest_not_run_fails",
      "lsm/kunit: KUnit suite denywrite_protect of the manifest did not run", [
          after("manifest", "^  parse_rule_invalid$",
                "kunit denywrite_protect 1\n  holds_in_slot_and_table")]),
    C("count_unlike_manifest_fails", "lsm/dwtest: 6 results, the manifest says 5", [
        after(LSM, "^PASS exec_race_never_both_succeed",
              "PASS write_running_exe_denied_in_enforce[exec /]"),
        sub(LSM, "^PLAN dwtest 5$", "PLAN dwtest 6")]),
    C("suite_in_manifest_missing_fails", "stock/ran: no results.log", [
        remove("stock")]),
    C("minimum_group_at_its_minimum_passes", "pass", [
        manifest_sub("^group kmemleak 2$", "group kmemleak >=2: a varying number"),
        sub("manifest", "^  kmemleak_finds_no_leak$", "")]),
    C("minimum_group_below_its_minimum_fails",
      "lsm/kmemleak: 1 results, the manifest wants at least 2 (a varying number)", [
          manifest_sub("^group kmemleak 2$", "group kmemleak >=2: a varying number"),
          drop_check(LSM, "kmemleak_finds_no_leak")]),
    C("manifest_count_unlike_its_list_fails",
      "manifest: lsm/boot: says 2 checks, lists 1 names and 0 cells", [
          manifest_sub("^group boot 1$", "group boot 2")]),
    C("manifest_unknown_directive_fails", "manifest/line 31: unknown directive: grup boot 1", [
        manifest_sub("^group boot 1$", "grup boot 1")]),
    C("manifest_skip_of_an_unlisted_check_fails",
      "manifest: lsm: skip of no_such_check, which no group", [
          after("manifest", "^suite lsm guest$", "skip: because\n  no_such_check")]),
    C("manifest_missing_fails", "manifest: ", [remove("manifest")]),
    C("kernel_log_line_the_manifest_requires_fails",
      "lsm/kernel_log_line: no kernel log line matches 'kcsan: enabled early'", [
          after("manifest", "^suite lsm guest$", "log kcsan: enabled early")]),
    C("kernel_log_line_the_manifest_requires_passes", "pass", [
        after("manifest", "^suite lsm guest$", "log ^Run /init as init process$")]),
    C("partial_run_checks_only_its_suites", "pass", [remove("stock")],
      [r"^\(partial: only lsm of .*manifest checked\)$"],
      ["--manifest", "{dir}/manifest", "--partial", "lsm", "{dir}"]),
    C("partial_run_of_an_unknown_suite_fails", "nosuch/manifest: not a suite of the manifest", [],
      (), ["--manifest", "{dir}/manifest", "--partial", "lsm,nosuch", "{dir}"]),

    # Each cell's verdict is the manifest's (issue 31, item 1): a cell whose
# CELL, MATRIX and check name were flipped together, as by a kernel
# regression with a matching change of dwtest's model, fails, once.
    C("cell_verdict_flipped_with_its_label_fails",
      "lsm/dwtest: cell [exec /] off write_running_exe: the manifest says ok "
      "(allowed), the guest's CELL ETXTBSY (denied), MATRIX ETXTBSY, check "
      "write_running_exe_denied_in_off[exec /]", [
          flip_cell(LSM, "exec /", "off", "write_running_exe")],
      [r"^\d+ passed, 1 failed$"]),
    C("classic_and_stock_flipped_together_fail",
      "stock/dwtest: cell [-] stock write_running_exe: the manifest says "
      "ETXTBSY (denied), the guest's CELL ok (allowed)", [
          flip_cell(LSM, "exec /", "enforce", "write_running_exe"),
          flip_cell(STOCK, "-", "stock", "write_running_exe")],
      [r"^FAIL lsm/dwtest: cell \[exec /\] enforce write_running_exe: "
       r"the manifest says ETXTBSY \(denied\), the guest's CELL ok",
       r"^\d+ passed, 2 failed$"]),
    C("manifest_cells_without_a_deny_line_fail",
      "manifest: lsm/dwtest: cells of [exec /] off, but no deny line says their verdict", [
          drop("manifest", r"^deny \[exec /\] x off ")]),
    C("manifest_scenario_in_no_class_fails",
      "manifest: lsm/dwtest: scenario rename_over_running_exe of a cells line "
      "is in no class, so it has no verdict", [
          sub("manifest", "^  rename_over_running_exe$", "")]),  # the class's
    C("manifest_scenario_in_two_classes_fails",
      "manifest/line 8: scenario write_running_exe is in class run_in_tmp and in never_denied", [
          after("manifest", "^  rename_over_running_exe$", "  write_running_exe")]),
    C("manifest_deny_twice_fails",
      "manifest/line 14: deny [exec /] off twice (also line 11)", [
          after("manifest", r"^deny \[-\] x stock ", "deny [exec /] x off audit x run_in_tmp")]),
    C("manifest_deny_no_cell_has_fails",
      "manifest/line 14: deny [none] enforce: no cells line has [none] enforce", [
          after("manifest", r"^deny \[-\] x stock ", "deny [none] x enforce x nothing")]),
    C("manifest_deny_inside_a_suite_fails",
      "manifest/line 28: deny lines come before the first suite: deny [-] x removed x nothing", [
          after("manifest", "^suite lsm guest$", "deny [-] x removed x nothing")]),
    C("manifest_deny_of_an_unknown_class_fails",
      "manifest/line 12: deny: unknown class run_anywhere", [
          manifest_sub(r"^deny \[exec /\] x enforce x run_in_tmp$",
                       "deny [exec /] x enforce x run_anywhere")]),

    # A lost kernel log (issue 20, item 3).
    C("kernel_log_not_dumped_fails", "lsm/kmsg: no KMSG-END line", [
        drop(LSM, "^KMSG")]),
    C("kernel_log_dump_from_a_wrapped_buffer_fails",
      "lsm/kmsg_lost: the dump begins at record 2, not 0", [
          drop(LSM, "^KMSG [01] "),
          sub(LSM, "^KMSG-END 18 0$", "KMSG-END 16 0")]),
    C("kernel_log_dump_with_a_gap_fails", "lsm/kmsg_lost: the dump skips records: 4..6", [
        drop(LSM, "^KMSG 5 "),
        sub(LSM, "^KMSG-END 18 0$", "KMSG-END 17 0")]),
    C("kernel_log_dump_that_lost_records_fails",
      "lsm/kmsg_lost: 3 kernel message(s) overwritten", [
          sub(LSM, "^KMSG-END 18 0$", "KMSG-END 18 3")]),
    C("kmsg_end_unlike_the_dump_fails", "lsm/kmsg: KMSG-END says 19 records, 18 KMSG lines", [
        sub(LSM, "^KMSG-END 18 0$", "KMSG-END 19 0")]),
    C("kmsg_malformed_line_fails", "lsm/kmsg_line: line", [
        sub(LSM, "^KMSG 3 6 ", "KMSG three 6 ")]),
    C("kmsg_dump_error_fails", "lsm/kmsg: line", [
        sub(LSM, "^KMSG-END 18 0$", "KMSG-ERROR read /dev/kmsg: Invalid argument")]),
    C("kmsg_line_inside_a_group_fails", "lsm/kmsg_inside_group: line", [
        after(LSM, "^PLAN boot 1$", "KMSG 99 6 fake")]),
    C("message_missing_from_the_console_fails",
      "lsm/console_lost_messages: 1 kernel message(s) of the dump are not on the console", [
          drop(CON, "^Run /init as init process$")]),
    C("splat_only_in_the_dump_fails", "lsm/kernel_log_has_no_warning:", [
        sub(LSM, "^KMSG-END 18 0$", "KMSG 18 4 WARNING: CPU: 1 PID: 7 at "
            "security/denywrite/hooks.c:1 x+0x1/0x2\nKMSG-END 19 0")]),
    C("message_in_the_middle_of_a_console_line_is_found", "pass", [
        sub(CON, "^Run /init as init process$",
            "dwtest: half a lineRun /init as init process")]),

    # Documented limits (issue 31, item 7): a check named *_documented
    # asserts a known gap; the manifest marks it "limit", and the report
    # counts its pass apart, on a line before the last.
    C("documented_limit_counted_apart", "pass", [
        sub(LSM, "^PASS kmemleak_is_enabled$", "PASS kmemleak_is_enabled_documented"),
        manifest_sub("^  kmemleak_is_enabled$", "  kmemleak_is_enabled_documented limit")],
      [r"^LIMIT lsm/kmemleak_is_enabled_documented \(a documented limit",
       r"^1 of the 17 passes are documented limits, not promises\n17 passed, 0 failed\n\Z"]),
    C("documented_limit_that_fails_fails", "lsm/kmemleak_is_enabled_documented: changed", [
        sub(LSM, "^PASS kmemleak_is_enabled$",
            "FAIL kmemleak_is_enabled_documented: changed"),
        manifest_sub("^  kmemleak_is_enabled$", "  kmemleak_is_enabled_documented limit")],
      [r"^0 of the 16 passes are documented limits, not promises$"]),
    C("documented_check_not_marked_limit_fails",
      "manifest: lsm/kmemleak: kmemleak_is_enabled_documented ends in _documented "
      "but is not marked limit", [
          sub(LSM, "^PASS kmemleak_is_enabled$", "PASS kmemleak_is_enabled_documented"),
          manifest_sub("^  kmemleak_is_enabled$", "  kmemleak_is_enabled_documented")]),
    C("limit_mark_on_a_check_not_named_documented_fails",
      "manifest: lsm/kmemleak: kmemleak_is_enabled is marked limit but does not "
      "end in _documented", [
          manifest_sub("^  kmemleak_is_enabled$", "  kmemleak_is_enabled limit")]),
    C("limit_mark_outside_a_group_fails",
      "manifest/line 29: only a group's check may be marked limit: parse_rule_valid limit", [
          manifest_sub("^  parse_rule_valid$", "  parse_rule_valid limit")]),
    C("without_manifest_documented_name_is_a_limit", "pass", [
        sub(LSM, "^PASS kmemleak_is_enabled$", "PASS kmemleak_is_enabled_documented")],
      [r"^LIMIT lsm/kmemleak_is_enabled_documented ",
       r"^1 of the \d+ passes are documented limits, not promises$"], LEGACY),

    # Figures a verdict depends on (issue 31, item 3): a "stat" line of the
    # manifest bounds a STAT of its group, whatever the check line says.
    C("stat_within_its_bounds_passes", "pass", [
        after("manifest", "^  exec_race_never_both_succeed",
              "stat race_both_succeeded == 0\nstat race_rounds >= 40\n"
              "stat race_both_succeeded <= 10% race_rounds\n"
              "stat race_rounds > race_both_succeeded")]),
    C("stat_out_of_bounds_fails_though_the_check_passes",
      "lsm/dwtest: STAT race_both_succeeded is 3, the manifest wants == 0", [
          after("manifest", "^  exec_race_never_both_succeed",
                "stat race_both_succeeded == 0"),
          sub(LSM, "^STAT dwtest race_both_succeeded 0$",
              "STAT dwtest race_both_succeeded 3")]),
    C("stat_missing_fails",
      "lsm/dwtest: no STAT dwtest race_both_succeeded (manifest: "
      "stat race_both_succeeded == 0)", [
          after("manifest", "^  exec_race_never_both_succeed",
                "stat race_both_succeeded == 0"),
          drop(LSM, "^STAT dwtest race_both_succeeded ")]),
    C("stat_above_a_share_of_another_fails",
      "lsm/dwtest: STAT race_both_succeeded is 5, the manifest wants <= 10% "
      "race_rounds (43)", [
          after("manifest", "^  exec_race_never_both_succeed",
                "stat race_both_succeeded <= 10% race_rounds"),
          sub(LSM, "^STAT dwtest race_both_succeeded 0$",
              "STAT dwtest race_both_succeeded 5")]),
    C("stat_printed_twice_fails",
      "lsm/dwtest: STAT dwtest race_both_succeeded printed 2 times", [
          after("manifest", "^  exec_race_never_both_succeed",
                "stat race_both_succeeded == 0"),
          after(LSM, "^STAT dwtest race_both_succeeded 0$",
                "STAT dwtest race_both_succeeded 0")]),
    C("stat_not_a_number_fails",
      "lsm/dwtest: STAT dwtest race_both_succeeded is 'none', not an integer", [
          after("manifest", "^  exec_race_never_both_succeed",
                "stat race_both_succeeded == 0"),
          sub(LSM, "^STAT dwtest race_both_succeeded 0$",
              "STAT dwtest race_both_succeeded none")]),
    C("manifest_stat_malformed_fails",
      "manifest/line 36: expected 'stat KEY OP N' or 'stat KEY OP [P%] KEY'", [
          after("manifest", "^  exec_race_never_both_succeed",
                "stat race_both_succeeded about 0")]),
]

# A kernel log line of each splat kind of report.SPLATS.
SPLAT_LINES = {
    "bug": "BUG: sleeping function called from invalid context at mm/slub.c:4134",
    "kernel_bug": "kernel BUG at fs/inode.c:612!",
    "warning": "WARNING: CPU: 1 PID: 77 at security/denywrite/hooks.c:100 dw_file_open+0x1/0x2",
    "oops": "Oops: 0000 [#1] PREEMPT SMP",
    "kasan": "BUG: KASAN: slab-use-after-free in dw_policy_put+0x10/0x20",
    "ubsan": "UBSAN: array-index-out-of-bounds in security/denywrite/policy.c:42:7",
    "kcsan": "BUG: KCSAN: data-race in hold_slot_take / hold_slot_put",
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
    "printk_dropped": "** 27 printk messages dropped **",
    "callbacks_suppressed": "kauditd_printk_skb: 12 callbacks suppressed",
}
EXTRA_SPLATS = [  # more lines of a kind already covered
    ("list_del", "list_corruption",
     "list_del corruption, ffff888003c1e0a0->next is LIST_POISON1 (dead000000000100)"),
    ("slub_tainted", "slub",
     "BUG kmalloc-cg-128 (Tainted: G    B             ): Redzone overwritten"),
    ("kcsan_unknown_origin", "kcsan",
     "BUG: KCSAN: data-race in denywrite_hold+0x12/0x80"),
    ("kcsan_assert", "kcsan",
     "BUG: KCSAN: assert: race in hold_take+0x12/0x80 / inode_deny+0x3/0x9"),
]
for kind, _ in report.SPLATS:
    CASES.append(C(f"splat_{kind}_fails", f"lsm/kernel_log_has_no_{kind}:",
                   [append(CON, SPLAT_LINES.get(kind, "(no canned line)"))]))
for name, kind, line in EXTRA_SPLATS:
    CASES.append(C(f"splat_{name}_fails", f"lsm/kernel_log_has_no_{kind}:",
                   [append(CON, line)]))
# A KCSAN report is not a "bug" splat too: only the kcsan kind, which an
# allow list can excuse.
CASES.append(C("kcsan_report_is_not_also_a_bug_splat", "lsm/kernel_log_has_no_kcsan:",
               [append(CON, SPLAT_LINES["kcsan"])], [r"^(?!FAIL lsm/kernel_log_has_no_bug:)"]))

# The real run (tests/report/full, issue 20, item 1): it passes, and each
# deletion fails, though each leaves PLANs and GROUPS consistent.
FULL_LSM = "lsm/results.log"
CASES += [
    C("full_log_passes", "pass", [], (), ARGS, FULL),
    C("full_log_without_a_check_fails",
      "lsm/promises: 1 check(s) of the manifest did not report: ", [
          drop_check(FULL_LSM, "chmod_of_running_program_allowed_in_enforce[exec /tmp/prm/bin]")], (), ARGS, FULL),
    C("full_log_without_a_group_fails",
      "lsm/kmemleak: in the manifest, but neither in the suite's GROUPS line nor run", [
          drop_group(FULL_LSM, "kmemleak")], (), ARGS, FULL),
    C("full_log_without_a_suite_fails", "params/ran: no results.log", [
        remove("params")], (), ARGS, FULL),
    C("full_log_without_a_kunit_case_fails",
      "lsm/kunit: KUnit denywrite_protect: 1 case(s) of the manifest did not report: sweep_yields_and_goes_on", [
          kunit_case_gone("lsm", ("denywrite_protect", "sweep_yields_and_goes_on"))],
      (), ARGS, FULL),
    C("full_log_matrix_outcome_unlike_its_cell_fails",
      "lsm/dwtest-ext4: MATRIX [lib /usr/lib] enforce cp_over_running_lib is ok, its CELL expects ETXTBSY", [
          sub(FULL_LSM, "^MATRIX lib /usr/lib enforce cp_over_running_lib ETXTBSY$",
              "MATRIX lib /usr/lib enforce cp_over_running_lib ok", count=2),
          # the first is dwtest's (tmpfs); put it back
          sub(FULL_LSM, "^MATRIX lib /usr/lib enforce cp_over_running_lib ok$",
              "MATRIX lib /usr/lib enforce cp_over_running_lib ETXTBSY")],
      (), ARGS, FULL),
    # The verdicts of tests/manifest (issue 31, item 1), on the real run:
    # the mapping hold's regression (mutant mapping_hold_skipped) with
    # dwtest's model changed to match, in a cell that only the manifest
    # checks, here and on overlayfs; a cell gone, one more, and a classic
    # cell flipped (which the stock kernel's comparison fails too).
    C("full_log_cell_flipped_with_its_label_fails",
      "lsm/dwtest: cell [lib /usr/lib] enforce cp_over_running_lib: the manifest "
      "says ETXTBSY (denied), the guest's CELL ok (allowed), MATRIX ok, check "
      "cp_over_running_lib_allowed_in_enforce[lib /usr/lib]", [
          flip_cell(FULL_LSM, "lib /usr/lib", "enforce", "cp_over_running_lib")],
      [r"^\d+ passed, 1 failed$"], ARGS, FULL),
    C("full_log_overlay_cell_flipped_with_its_label_fails",
      "lsm/dwtest-overlay: cell [all /] enforce outside_rules_mmap_write: "
      "the manifest says ETXTBSY (denied), the guest's CELL ok (allowed)", [
          flip_cell(FULL_LSM, "all /", "enforce", "outside_rules_mmap_write",
                    "dwtest-overlay", "_on_overlay")],
      [r"^\d+ passed, 1 failed$"], ARGS, FULL),
    C("full_log_without_a_cell_fails",
      "lsm/dwtest-ext4: 1 cell(s) of the manifest without a CELL line: "
      "[all /] audit mmap_exec_write", [
          drop(FULL_LSM, "^(CELL|MATRIX) all / audit mmap_exec_write ok$"),
          # put dwtest's and dwtest-overlay's back: only dwtest-ext4's goes
          after(FULL_LSM, "^PLAN dwtest 248$", "CELL all / audit mmap_exec_write ok"),
          after(FULL_LSM, "^PLAN dwtest-overlay 241$", "CELL all / audit mmap_exec_write ok"),
          after(FULL_LSM, r"^PASS mmap_exec_write_allowed_in_audit\[all /\]$",
                "MATRIX all / audit mmap_exec_write ok"),
          after(FULL_LSM, r"^PASS mmap_exec_write_allowed_in_audit_on_overlay\[all /\]$",
                "MATRIX all / audit mmap_exec_write ok"),
          drop_check(FULL_LSM, "mmap_exec_write_allowed_in_audit_on_ext4[all /]")],
      (), ARGS, FULL),
    C("full_log_with_a_cell_more_fails",
      "lsm/dwtest: 1 CELL(s) not in the manifest: [all /] enforce write_running_exe_twice", [
          add_cell(FULL_LSM, "all /", "enforce", "write_running_exe_twice", "ETXTBSY")],
      (), ARGS, FULL),
    C("full_log_classic_cell_flipped_fails",
      "lsm/dwtest: cell [exec /] enforce write_running_exe: the manifest says "
      "ETXTBSY (denied), the guest's CELL ok (allowed)", [
          flip_cell(FULL_LSM, "exec /", "enforce", "write_running_exe")],
      [r"^FAIL compare/classic_matches_stock_write_running_exe: classic ok, stock ETXTBSY$"],
      ARGS, FULL),
]


def kcsan_excuses():
    """kcsan_reports: a report the allow list names is excused, unless a
    denywrite function is in it; one it does not name is not."""
    lines = ["BUG: KCSAN: data-race in b_func / a_func",
             "", "write to 0x1 of 8 bytes by task 1 on cpu 0:",
             " a_func+0x1/0x2", " do_syscall_64+0x1/0x2",
             "==================================================================",
             "BUG: KCSAN: data-race in b_func / a_func",
             "read to 0x1 of 8 bytes by task 2 on cpu 1:",
             " hook_file_open+0x10/0x80",
             "==================================================================",
             "BUG: KCSAN: data-race in c_func+0x3/0x9"]
    allow = {"a_func / b_func": "not ours"}
    got = report.kcsan_reports(lines, {"hook_file_open"}, allow)
    want = [(lines[0], "not ours"), (lines[6], None), (lines[10], None)]
    return None if got == want else f"got {got}, expected {want}"


def kcsan_copy_excuse_needs_a_read():
    """The page cache's copy racing a write is excused only with a read
    side (vfs_read, ksys_pread64) among its frames, and never when exec's
    reading of a binary is in it: that race is what denywrite prevents."""
    title = "BUG: KCSAN: data-race in _copy_to_iter / copy_page_from_iter_atomic"
    end = "=================================================================="
    pread = [title, "read to 0x1 of 8 bytes by task 2 on cpu 1:",
             " _copy_to_iter+0x1/0x2", " vfs_read+0x1/0x2",
             " ksys_pread64+0x1/0x2", end]
    execread = [title, "read to 0x1 of 8 bytes by task 2 on cpu 1:",
                " _copy_to_iter+0x1/0x2", " kernel_read+0x1/0x2",
                " load_elf_binary+0x1/0x2", " bprm_execve+0x1/0x2", end]
    noread = [title, "read to 0x1 of 8 bytes by task 2 on cpu 1:",
              " _copy_to_iter+0x1/0x2", " filemap_splice_read+0x1/0x2", end]
    got = [why is not None for lines in (pread, execread, noread)
           for _, why in report.kcsan_reports(lines, set())]
    return None if got == [True, False, False] else \
        f"excused (pread, exec's read, no read): {got}, expected [True, False, False]"


def kcsan_worker_excuse_needs_its_field_read():
    """The workqueue worker's race at unknown origin is excused only as its
    excuse describes it: one plain 8-byte read, of a heap object (the
    kernel's direct map) at task_struct+0xe0 (0x20 modulo the task_structs'
    64-byte alignment).  The same frames with a write, another size, a
    global's address or another offset are not excused."""
    def worker(access):
        return ["BUG: KCSAN: data-race in process_scheduled_works+0x4f6/0x7c0",
                "", access, " process_scheduled_works+0x4f6/0x7c0",
                " worker_thread+0x2d0/0x450", " kthread+0x17a/0x1b0",
                " ret_from_fork+0x34/0x50", "",
                "value changed: 0x00000000a8c2b1e4 -> 0x00000000a8c5f0d2", "",
                "Reported by Kernel Concurrency Sanitizer on:",
                "CPU: 1 UID: 0 PID: 15 Comm: kworker/1:1 Not tainted 6.12.0 #1",
                "Workqueue: rcu_gp process_srcu",
                "=================================================================="]
    tail = "by task 15 on cpu 1:"
    accesses = [
        f"race at unknown origin, with read to 0xffff888004b8e0e0 of 8 bytes {tail}",
        f"race at unknown origin, with write to 0xffff888004b8e0e0 of 8 bytes {tail}",
        f"race at unknown origin, with read to 0xffff888004b8e0e0 of 4 bytes {tail}",
        f"race at unknown origin, with read to 0xffffffff83a1c0e0 of 8 bytes {tail}",
        f"race at unknown origin, with read to 0xffff888004b8e0e8 of 8 bytes {tail}",
        f"read to 0xffff888004b8e0e0 of 8 bytes {tail}"]
    got = [why is not None for a in accesses
           for _, why in report.kcsan_reports(worker(a), set())]
    want = [True, False, False, False, False, False]
    return None if got == want else \
        f"excused (its read, write, 4 bytes, global, offset, known origin): {got}, expected {want}"


def kcsan_fast_clock_excuse_needs_the_latch_copies():
    """The NMI-safe clock's latch read is excused only as a read inside
    tk_fast_mono or tk_fast_raw, whose addresses and sizes come from the
    kcsan kernel's vmlinux: not a read of another object (tk_core, which a
    seqcount_t guards and KCSAN is told of), not one straddling the end
    of tk_fast_mono, not with a denywrite frame, and never without the
    vmlinux."""
    def clock(addr, extra=()):
        return ["BUG: KCSAN: data-race in timekeeping_cycles_to_ns+0x7f/0xa0",
                "", f"race at unknown origin, with read to 0x{addr:x} of 8 "
                "bytes by task 120 on cpu 1:",
                " timekeeping_cycles_to_ns+0x7f/0xa0",
                " ktime_get_mono_fast_ns+0x3a/0x70", *extra,
                " do_syscall_64+0x9e/0x1a0", "",
                "value changed: 0x000000002c4e5c3b -> 0x000000002c7a8e41", "",
                "Reported by Kernel Concurrency Sanitizer on:",
                "=================================================================="]
    mono, raw, core = 0xffffffff81ca9f00, 0xffffffff81ca9e80, 0xffffffff81fe0500
    objs = {"tk_fast_mono": (mono, 0x78), "tk_fast_raw": (raw, 0x78),
            "tk_core": (core, 0x140)}
    cases = [clock(mono + 0x18), clock(raw + 0x40), clock(core + 0x18),
             clock(mono + 0x74), clock(mono + 0x18, [" hook_file_open+0x10/0x80"])]
    saved = report._KERNEL_OBJECTS.get(report.OBJECTS)
    try:
        report._KERNEL_OBJECTS[report.OBJECTS] = objs
        got = [why is not None for c in cases
               for _, why in report.kcsan_reports(c, {"hook_file_open"})]
        report._KERNEL_OBJECTS[report.OBJECTS] = {}
        got += [why is not None for _, why in
                report.kcsan_reports(cases[0], {"hook_file_open"})]
    finally:
        if saved is None:
            report._KERNEL_OBJECTS.pop(report.OBJECTS, None)
        else:
            report._KERNEL_OBJECTS[report.OBJECTS] = saved
    want = [True, True, False, False, False, False]
    return None if got == want else \
        ("excused (mono, raw, tk_core, straddling, denywrite frame, no "
         f"vmlinux): {got}, expected {want}")


FAKE_QEMU = r"""#!/bin/sh
# A QEMU that writes its serial files and exits as told by $FAKE_QEMU_PLAN
# (one word a boot: ok, segv, or exit:N), counting its boots in $FAKE_QEMU_N.
n=$(($(cat "$FAKE_QEMU_N" 2>/dev/null || echo 0) + 1))
echo $n >"$FAKE_QEMU_N"
what=$(echo $FAKE_QEMU_PLAN | cut -d' ' -f$n)
for a; do
	case $a in file:*) echo "boot $n" >"${a#file:}" ;; esac
done
case $what in
ok) exit 0 ;;
segv) kill -SEGV $$ ;;
exit:*) exit ${what#exit:} ;;
esac
exit 99
"""


def boot_redoes_a_boot_once_when_qemu_crashes():
    """scripts/boot.sh, with a fake qemu-system-x86_64 first in PATH: a
    QEMU that dies of SIGSEGV is booted once more, the first boot's logs
    kept as *.crashed.log and boot.status saying so; a second crash is
    the boot's result (exit 139, no third boot); a QEMU that exits with
    an error of its own (1) is not booted again."""
    errs = []
    with tempfile.TemporaryDirectory() as tmp:
        qemu = os.path.join(tmp, "qemu-system-x86_64")
        with open(qemu, "w") as f:
            f.write(FAKE_QEMU)
        os.chmod(qemu, 0o755)
        for name in ("bzImage", "initrd"):
            open(os.path.join(tmp, name), "w").close()
        for plan, want_rc, boots, crashed in (("segv ok", 0, 2, "139"),
                                              ("segv segv ok", 139, 2, "139"),
                                              ("exit:1 ok", 1, 1, None),
                                              ("ok", 0, 1, None)):
            log = os.path.join(tmp, "log")
            count = os.path.join(tmp, "n")
            if os.path.exists(count):
                os.remove(count)
            env = dict(os.environ, PATH=tmp + os.pathsep + os.environ["PATH"],
                       FAKE_QEMU_PLAN=plan, FAKE_QEMU_N=count)
            r = subprocess.run(["sh", os.path.join(TOP, "scripts", "boot.sh"),
                                os.path.join(tmp, "bzImage"),
                                os.path.join(tmp, "initrd"), log, "x"],
                               env=env, capture_output=True, text=True)
            with open(count) as f:
                n = int(f.read())
            with open(os.path.join(log, "boot.status")) as f:
                status = f.read().split("\n")
            got_crash = next((line.split()[1] for line in status
                              if line.startswith("qemu_crashed ")), None)
            with open(os.path.join(log, "console.log")) as f:
                console = f.read().strip()
            kept = os.path.exists(os.path.join(log, "console.crashed.log"))
            if (r.returncode, n, got_crash, console, kept) != \
                    (want_rc, boots, crashed, f"boot {boots}", bool(crashed)):
                errs.append(f"{plan!r}: exit {r.returncode}, {n} boot(s), "
                            f"qemu_crashed {got_crash}, console {console!r}, "
                            f"crashed log kept {kept}; expected exit "
                            f"{want_rc}, {boots}, {crashed}")
    return "; ".join(errs) or None


TABLE_PROBES = r"""
said() { echo "$1"; echo "$2" >&2; echo "more of it" >&2; }
quiet() { echo "$1"; }
"""


def guest_table_fail_line_says_what_the_probe_said():
    """run_table of qemu/guest-suites.sh, sourced by the host's sh: a row
    whose probe fails ends its FAIL line with the first line the probe
    wrote to stderr; a failing probe that wrote nothing keeps the plain
    FAIL line; a passing one that wrote to stderr still passes; whatever
    a probe writes to stderr reaches the console (stderr), all of it."""
    table = ("row_fails_and_says  want  said got why-it-failed\n"
             "row_fails_quietly   want  quiet got\n"
             "row_passes_saying   want  said want chatter\n")
    script = (f". {os.path.join(TOP, 'qemu', 'guest-suites.sh')}\n"
              + TABLE_PROBES + f"run_table '{table}'\necho rc=$?\n")
    r = subprocess.run(["sh", "-c", script], capture_output=True, text=True,
                       env=dict(os.environ, DWTEST_GROUP="g"))
    want = ["PLAN g 3",
            "FAIL row_fails_and_says: got 'got', expected 'want' "
            "(stderr: why-it-failed)",
            "FAIL row_fails_quietly: got 'got', expected 'want'",
            "PASS row_passes_saying",
            "rc=1"]
    errs = []
    if r.stdout.splitlines() != want:
        errs.append(f"stdout {r.stdout.splitlines()!r}, expected {want!r}")
    console = r.stderr.splitlines()
    if console != ["why-it-failed", "more of it", "chatter", "more of it"]:
        errs.append(f"console {console!r}")
    return "; ".join(errs) or None


def kcsan_denywrite_functions_come_from_the_objects():
    """denywrite's functions, which no KCSAN excuse may cover, are the text
    symbols of its built objects: also a function whose return type is on
    a line of its own or that VISIBLE_IF_KUNIT makes static, which a
    source scrape missed; the compiler's suffixes are cut.  Without
    objects, nothing is excused."""
    src = ("#define VISIBLE_IF_KUNIT static\n"
           "VISIBLE_IF_KUNIT int __attribute__((noinline))\n"
           "hidden_fn(int a)\n{\n\treturn a + 1;\n}\n"
           "int\nown_line(int a)\n{\n\treturn hidden_fn(a);\n}\n"
           "int data_not_a_function = 1;\n")
    with tempfile.TemporaryDirectory() as tmp:
        d = os.path.join(tmp, "security", "denywrite")
        os.makedirs(d)
        with open(os.path.join(d, "a.c"), "w") as f:
            f.write(src)
        subprocess.run(["gcc", "-O2", "-c", "-o", os.path.join(d, "a.o"),
                        os.path.join(d, "a.c")], check=True)
        got = report.denywrite_functions(tmp)
        none = report.denywrite_functions(os.path.join(tmp, "nothing"))
    parsed = report.nm_text_symbols("0000 t f.constprop.0\n0010 T g\n"
                                    "0020 d v\n0030 t h.cold\n")
    lines = ["BUG: KCSAN: data-race in b_func / a_func",
             "write to 0x1 of 8 bytes by task 1 on cpu 0:", " a_func+0x1/0x2",
             "=================================================================="]
    unknown = report.kcsan_reports(lines, None, {"a_func / b_func": "not ours"})
    errs = []
    if not got or not {"hidden_fn", "own_line"} <= got or \
            "data_not_a_function" in got:
        errs.append(f"from the object: {got}")
    if none is not None:
        errs.append(f"without objects: {none}, expected None")
    if parsed != {"f", "g", "h"}:
        errs.append(f"nm parse: {parsed}")
    if unknown[0][1] is not None:
        errs.append(f"excused with denywrite's functions unknown: {unknown}")
    return "; ".join(errs) or None


def manifest_lists_host_tests_where_they_are():
    """tests/manifest's host suite: every tests/host/test_*.c is a file
    line, and each check under it is a T(name) of that file."""
    m = report.Manifest(os.path.join(TOP, "tests", "manifest"))
    host = m.suites.get("host")
    if host is None or "host" not in host.groups:
        return "tests/manifest has no group host/host"
    listed, bad = set(), []
    g = host.groups["host"]
    on_disk = sorted(f"tests/host/{f}" for f in os.listdir(os.path.join(TOP, "tests", "host"))
                     if re.fullmatch(r"test_\w+\.c", f))
    if sorted(g.files) != on_disk:
        return f"file lines {sorted(g.files)}, tests/host has {on_disk}"
    defined = {}
    for f in g.files:
        with open(os.path.join(TOP, f)) as fh:
            for name in re.findall(r"^\s*T\((\w+)\),", fh.read(), re.M):
                defined[name] = f
    for name in g.names:
        if name not in defined:
            bad.append(name)
        listed.add(name)
    unlisted = sorted(set(defined) - listed)
    if bad or unlisted:
        return (f"not a T() of the host test files: {bad[:5]}; "
                f"T() not in the manifest: {unlisted[:5]}")
    return None


def suppressed_excuses():
    """A "callbacks suppressed" line of a function SUPPRESSED_ALLOW names is
    excused; another is not."""
    saved = dict(report.SUPPRESSED_ALLOW)
    try:
        report.SUPPRESSED_ALLOW.clear()
        report.SUPPRESSED_ALLOW["allowed_fn"] = "a reason"
        s = report.Suite("x", "guest")
        report.check_console(s, ["allowed_fn: 3 callbacks suppressed",
                                 "other_fn: 2 callbacks suppressed"], False)
    finally:
        report.SUPPRESSED_ALLOW.clear()
        report.SUPPRESSED_ALLOW.update(saved)
    kinds = [w for w, _ in s.problems]
    if s.excused != ["allowed_fn: 3 callbacks suppressed (console): a reason"]:
        return f"excused {s.excused}"
    if "kernel_log_has_no_callbacks_suppressed" not in kinds or \
            "other_fn" not in dict(s.problems)["kernel_log_has_no_callbacks_suppressed"]:
        return f"problems {s.problems}"
    return None


def manifest_errors(m):
    """The first parse errors of manifest m, or None."""
    if m.errors:
        return "; ".join(f"line {no}: {why}" if no else why for no, why in m.errors[:5])
    return None


def manifest_is_well_formed():
    return manifest_errors(report.Manifest(os.path.join(TOP, "tests", "manifest")))


def debian_manifest_is_well_formed():
    """tests/debian/manifest parses, with the blocks it takes from
    tests/manifest, and names every suite scripts/test-debian.sh runs."""
    m = report.Manifest(os.path.join(TOP, "tests", "debian", "manifest"))
    err = manifest_errors(m)
    if err:
        return err
    with open(os.path.join(TOP, "scripts", "test-debian.sh")) as fh:
        text = fh.read()
    booted = set(re.findall(r"^\s*(?:boot|dboot) (\w+) \"", text, re.M))
    pairs = re.findall(r"reboot_pair \w+ (\w+) \"", text)
    booted |= set(pairs) | {f"{s}_write" for s in pairs}
    booted |= {f"time_{k}_{n}" for k in ("denywrite", "nolsm") for n in (1, 2)}
    booted |= {"debian_boottime"}
    booted.discard("debian_demo")
    if booted != set(m.suites):
        return (f"test-debian.sh runs {sorted(booted - set(m.suites))} not in the "
                f"manifest; the manifest has {sorted(set(m.suites) - booted)} it does not run")
    return None


def debian_manifest_lists_the_rows_of_the_tables():
    """Every row of a check table of tests/debian/suites.sh is a check of
    tests/debian/manifest, and every check there (but KUnit's and the
    teardowns') a row, or a check of test-debian.sh's host suite."""
    m = report.Manifest(os.path.join(TOP, "tests", "debian", "manifest"))
    with open(os.path.join(TOP, "tests", "debian", "suites.sh")) as fh:
        text = fh.read()
    with open(os.path.join(TOP, "scripts", "test-debian.sh")) as fh:
        rows = set(re.findall(r"echo \"PASS (\w+)", fh.read()))
    demo = set()
    for table, body in re.findall(r"^checks_(\w+)='\n(.*?)^'", text, re.M | re.S):
        names = {line.split()[0] for line in body.splitlines() if line.strip()}
        if table == "demo":  # make run-debian's, not in the manifest
            demo |= names
        else:
            rows |= names
    listed = {n for s in m.suites.values() for g in s.groups.values()
              for n in g.names if not n.endswith("_succeeded")}
    unused = rows - listed - demo
    if unused or listed - rows:
        return (f"rows not in the manifest: {sorted(unused)[:5]}; "
                f"manifest checks that are no row: {sorted(listed - rows)[:5]}")
    return None


FUNCTION_CASES = [
    ("kcsan_allow_list_excuses_only_outside_denywrite", kcsan_excuses),
    ("kcsan_copy_excuse_needs_a_read_never_exec", kcsan_copy_excuse_needs_a_read),
    ("kcsan_worker_excuse_needs_its_field_read", kcsan_worker_excuse_needs_its_field_read),
    ("kcsan_fast_clock_excuse_needs_the_latch_copies", kcsan_fast_clock_excuse_needs_the_latch_copies),
    ("boot_redoes_a_boot_once_when_qemu_crashes", boot_redoes_a_boot_once_when_qemu_crashes),
    ("guest_table_fail_line_says_what_the_probe_said",
     guest_table_fail_line_says_what_the_probe_said),
    ("kcsan_denywrite_functions_come_from_the_objects",
     kcsan_denywrite_functions_come_from_the_objects),
    ("suppressed_allow_list_excuses_only_its_functions", suppressed_excuses),
    ("manifest_is_well_formed", manifest_is_well_formed),
    ("manifest_lists_host_tests_where_they_are", manifest_lists_host_tests_where_they_are),
    ("debian_manifest_is_well_formed", debian_manifest_is_well_formed),
    ("debian_manifest_lists_the_rows_of_the_tables",
     debian_manifest_lists_the_rows_of_the_tables),
]


def run_case(expect, edits, shows=(), args=ARGS, base=GOOD):
    """None if the report's verdict is the expected one and its output
    matches every pattern of shows, else why not."""
    if not os.path.isdir(base):
        return f"{base}: no canned logs"
    with tempfile.TemporaryDirectory(prefix="dwreport.") as tmp:
        d = os.path.join(tmp, "logs")
        shutil.copytree(base, d)
        for root, _, files in os.walk(d):  # full/ keeps its logs gzipped
            for f in files:
                if f.endswith(".gz"):
                    with gzip.open(os.path.join(root, f)) as z, \
                            open(os.path.join(root, f[:-3]), "wb") as out:
                        shutil.copyfileobj(z, out)
                    os.remove(os.path.join(root, f))
        try:
            for edit in edits:
                edit(d)
        except EditFailed as e:
            return f"the case's edit did not apply: {e}"
        args = [a.format(dir=d) for a in args]
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
            return f"exit {p.returncode}: {'; '.join(fails)[:2000] or last}"
        return None
    if p.returncode == 0 or last.endswith(" 0 failed"):
        return f"the report passed it: exit {p.returncode}, '{last}'"
    if not any(expect in f for f in fails):
        return f"no FAIL line with '{expect}': {'; '.join(fails)[:2000]}"
    return None


def main():
    missing = [k for k, _ in report.SPLATS if k not in SPLAT_LINES]
    print(f"PLAN report {len(CASES) + len(FUNCTION_CASES) + 1}", flush=True)
    print("FAIL every_splat_kind_has_a_canned_line: none for "
          + ", ".join(missing) if missing else
          "PASS every_splat_kind_has_a_canned_line")
    failed = bool(missing)
    for name, expect, edits, shows, args, base in CASES:
        why = run_case(expect, edits, shows, args, base)
        print(f"FAIL {name}: {why}" if why else f"PASS {name}", flush=True)
        failed |= why is not None
    for name, fn in FUNCTION_CASES:
        try:
            why = fn()
        except Exception as e:  # a crash is a failure, not a pass
            why = f"{type(e).__name__}: {e}"
        print(f"FAIL {name}: {why}" if why else f"PASS {name}", flush=True)
        failed |= why is not None
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
