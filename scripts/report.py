#!/usr/bin/env python3
"""Turn the test logs into one report.

report.py DIR SUITE...   counts the PASS/FAIL lines of DIR/host.log (suite
                         "host") and DIR/SUITE/results.log, checks every
                         guest suite finished and its kernel log is free of
                         splats, counts the KUnit cases, prints the matrix of
                         modes x scenarios, compares classic enforcement with
                         the stock kernel, and ends with "N passed, N failed".
report.py --demo DIR     prints the demonstration transcript of `make run`.
"""
import os
import re
import sys

SPLATS = ["BUG:", "WARNING:", "Oops", "KASAN", "UBSAN",
          "possible circular locking", "Kernel panic"]
RESULT = re.compile(r"^(PASS|FAIL) (\S+)(.*)$")
KUNIT = re.compile(r"^\s+(ok|not ok) \d+ (\w+)")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "").splitlines()
    except FileNotFoundError:
        return None


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = []

    def add(self, ok, name, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed.append(f"{name}{detail}")

    def lines(self, lines, prefix=""):
        for line in lines:
            m = RESULT.match(line)
            if m:
                self.add(m.group(1) == "PASS", prefix + m.group(2), m.group(3))


def matrix_rows(lines):
    """MATRIX <ruleset...> <mode> <scenario> <outcome>"""
    rows = []
    for line in lines or []:
        if line.startswith("MATRIX "):
            f = line.split()
            if len(f) >= 5:
                rows.append((" ".join(f[1:-3]), f[-3], f[-2], f[-1]))
    return rows


def print_matrix(rows):
    rulesets = []
    for r in rows:
        if r[0] not in rulesets:
            rulesets.append(r[0])
    for rs in rulesets:
        sub = [r for r in rows if r[0] == rs]
        modes = list(dict.fromkeys(r[1] for r in sub))
        scen = list(dict.fromkeys(r[2] for r in sub))
        cell = {(r[2], r[1]): r[3] for r in sub}
        title = f"rules: {rs}" if rs != "-" else "no denywrite"
        w = max(len(s) for s in scen)
        print(f"\n{title}")
        print(f"  {'scenario':<{w}}  " + "  ".join(f"{m:<8}" for m in modes))
        for s in scen:
            print(f"  {s:<{w}}  " +
                  "  ".join(f"{cell.get((s, m), '?'):<8}" for m in modes))


def guest_suite(rep, d, suite):
    res = read(os.path.join(d, suite, "results.log"))
    con = read(os.path.join(d, suite, "console.log"))
    if res is None:
        rep.add(False, f"{suite}_guest_booted", ": no results.log")
        return []
    rep.lines(res)
    rep.add("DWTEST-DONE" in res, f"{suite}_guest_finished_suite",
            ": no DWTEST-DONE (timeout, panic or crash)")
    splat = next((l for l in con or [] if any(s in l for s in SPLATS)), None)
    rep.add(con is not None and splat is None,
            f"{suite}_kernel_log_has_no_splat",
            f": {splat}" if splat else ": no console.log")
    if suite == "lsm":
        cases = [KUNIT.match(l) for l in con or []]
        cases = [m for m in cases if m]
        for m in cases:
            rep.add(m.group(1) == "ok", f"kunit_{m.group(2)}")
        rep.add(len(cases) > 0, "kunit_denywrite_policy_ran",
                ": no KUnit results in console.log")
    return res


def compare_with_stock(rep, lsm, stock, count):
    """Mode enforce + "exec /" must behave as the stock kernel."""
    classic = {r[2]: r[3] for r in matrix_rows(lsm)
               if r[0] == "exec /" and r[1] == "enforce"}
    ref = {r[2]: r[3] for r in matrix_rows(stock)}
    common = [s for s in ref if s in classic]
    if not count:
        return
    rep.add(len(common) > 0, "classic_compared_with_stock",
            ": no common scenarios")
    for s in common:
        rep.add(classic[s] == ref[s], f"classic_matches_stock_{s}",
                f": denywrite {classic[s]}, stock {ref[s]}")


def demo(d):
    res = read(os.path.join(d, "results.log")) or []
    con = read(os.path.join(d, "console.log")) or []
    print("\n".join(l for l in res if l != "DWTEST-DONE"))
    splat = next((l for l in con if any(s in l for s in SPLATS)), None)
    if "DWTEST-DONE" not in res or "demo: done" not in res or splat:
        print(f"demo failed: {splat or 'a step misbehaved or the guest did not finish'}")
        return 1
    return 0


def main(argv):
    if argv[1] == "--demo":
        return demo(argv[2])
    d, suites = argv[1], argv[2:]
    rep = Report()
    rep.lines(read(os.path.join(d, "steps.log")) or [])
    results = {}
    for suite in suites:
        if suite == "host":
            host = read(os.path.join(d, "host.log"))
            rep.add(host is not None, "host_unit_tests_ran", ": no host.log")
            rep.lines(host or [], "host_")
        else:
            results[suite] = guest_suite(rep, d, suite)
    rows = [r for s in suites if s != "host" for r in matrix_rows(results[s])]
    if "stock" in results and "lsm" not in results:
        # make test-stock: show the last make test's matrix beside it.
        lsm = read(os.path.join(d, "lsm", "results.log")) or []
        rows = matrix_rows(lsm) + rows
        compare_with_stock(rep, lsm, results["stock"], count=False)
    elif "stock" in results:
        compare_with_stock(rep, results["lsm"], results["stock"], count=True)
    print_matrix(rows)
    print()
    for f in rep.failed:
        print(f"FAIL {f}")
    print(f"{rep.passed} passed, {len(rep.failed)} failed")
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
