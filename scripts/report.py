#!/usr/bin/env python3
"""Turn the test logs into one report.

report.py [--host SUITE]... DIR SUITE...
    Checks the accounting of every suite named, prints per suite and group
    "declared / ran / passed / skipped / failed", the STAT figures, the
    matrix of modes x scenarios, the failures, and last
    "N passed, N failed".  Exits 1 if anything failed.
report.py --demo DIR
    Prints the demonstration transcript of `make run`; exits 1 if it failed.

A suite is DIR/SUITE/results.log.  Guest suites are written by the guest
(qemu/guest-suites.sh) and come with DIR/SUITE/console.log, the kernel's
log, and DIR/SUITE/boot.status from scripts/boot.sh; host suites (--host)
are written by scripts/test.sh.  DIR/run.id holds the id of this run; a
suite whose SUITE line names another run is stale and counts nothing.

The rules (README.md, "Tests"): a results.log is
    SUITE <suite> <run-id>
    GROUPS <group>...
    ALLOW-SKIP <check>           (any number)
    then for each group: PLAN <group> <N>, N result lines
    (PASS <check> | FAIL <check>: <why> | SKIP <check>: <why>), optional
    CELL/MATRIX/STAT lines, and EXIT <group> <status>
    END <suite>
and anything else on a line of its own is ignored.  A failure is: a FAIL
line; a SKIP not allowed by the suite; a group without PLAN or EXIT, with
another result count than its PLAN, or whose EXIT status is not 0; a
group not declared in GROUPS; a result outside any group; a check name
twice in a suite; a CELL without its MATRIX line, or a MATRIX line without
a CELL; a missing suite, SUITE line or END line; a stale suite; a splat in
a guest's kernel log; a KUnit result other than ok, or a KUnit count other
than its KTAP plan; classic enforcement unlike the stock kernel.
"""
import argparse
import os
import re
import sys

# Kernel log lines that mean the kernel is not healthy, by kind.
SPLATS = [
    ("bug", r"BUG:"),
    ("kernel_bug", r"kernel BUG at"),
    ("warning", r"WARNING:"),
    ("oops", r"Oops"),
    ("kasan", r"KASAN"),
    ("ubsan", r"UBSAN"),
    ("lockdep", r"possible circular locking|possible recursive locking"),
    ("panic", r"Kernel panic"),
    ("rcu_stall", r"rcu: INFO|detected stalls? on CPU"),
    ("hung_task", r"blocked for more than \d+ seconds"),
    ("soft_lockup", r"soft lockup"),
    ("hard_lockup", r"hard LOCKUP"),
    ("general_protection_fault", r"general protection fault"),
    ("list_corruption", r"list_(add|del) corruption"),
    ("slub", r"BUG [\w.-]+ \((Not tainted|Tainted)"),
    ("kmemleak_disabled", r"Kernel memory leak detector disabled"),
    ("call_trace", r"Call Trace:"),
]
SPLAT_RES = [(kind, re.compile(rx)) for kind, rx in SPLATS]
# Guest suites whose kernel must have run the KUnit tests.
KUNIT_REQUIRED = {"lsm"}

RESULT = re.compile(r"^(PASS|FAIL|SKIP) (.+)$")
TS = r"(?:\[\s*\d+\.\d+\] ?)?"  # printk time, if the kernel adds it
KTAP_PLAN = re.compile(r"^" + TS + r"(    )?1\.\.(\d+)\s*$")
KTAP_RESULT = re.compile(r"^" + TS + r"(    )?(ok|not ok) \d+ (\S+)(.*)$")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "").splitlines()
    except FileNotFoundError:
        return None


def split_result(kind, rest):
    """The check name and reason of a result line."""
    if kind == "PASS":
        return rest.strip(), ""
    name, sep, why = rest.partition(": ")
    return name.strip(), why if sep else ""


def cell_fields(line):
    """CELL/MATRIX <ruleset...> <mode> <scenario> <value>; None if short."""
    f = line.split()
    if len(f) < 5:
        return None
    return (" ".join(f[1:-3]), f[-3], f[-2]), f[-1]


class Group:
    def __init__(self, name):
        self.name = name
        self.plan = None      # N of its PLAN line
        self.plans = 0        # PLAN lines seen
        self.exit = None      # status of its EXIT line
        self.exits = 0
        self.results = []     # (kind, check, why)
        self.cells = {}       # (ruleset, mode, scenario) -> expected
        self.matrix = {}      # (ruleset, mode, scenario) -> outcome
        self.stats = []       # (key, value)
        self.synthetic = False  # made by the report (KUnit): no EXIT
        self.problems = []    # (what, why)

    def count(self, kind):
        return sum(1 for r in self.results if r[0] == kind)


class Suite:
    def __init__(self, name, kind):
        self.name = name
        self.kind = kind      # "guest" or "host"
        self.found = False
        self.run_id = None
        self.suite_lines = 0
        self.declared = None  # the GROUPS line
        self.allowed = set()
        self.groups = {}      # name -> Group, in order of appearance
        self.end = False
        self.problems = []    # (what, why): suite-level failures
        self.seconds = None
        self.qemu_exit = None
        self.counted = False  # False if stale or headless

    def group(self, name):
        if name not in self.groups:
            self.groups[name] = Group(name)
        return self.groups[name]

    def problem(self, what, why):
        self.problems.append((what, why))


# ---- parsing -----------------------------------------------------------------

class Parser:
    def __init__(self, suite):
        self.s = suite
        self.cur = None      # the open group (between PLAN and EXIT)

    def line(self, no, line):
        s = self.s
        word = line.split(" ", 1)[0]
        handler = getattr(self, "on_" + word.replace("-", "_").lower(), None)
        if handler is None or word != word.upper():
            return
        if s.end:
            s.problem("results_after_end", f"line {no} after END: {line}")
            return
        handler(no, line)

    def on_suite(self, no, line):
        f = line.split()
        s = self.s
        s.suite_lines += 1
        if len(f) != 3 or f[1] != s.name:
            s.problem("suite_line", f"line {no}: '{line}', expected 'SUITE {s.name} <run-id>'")
        s.run_id = f[2] if len(f) > 2 else None

    def on_groups(self, no, line):
        if self.s.declared is not None:
            self.s.problem("groups_line", f"line {no}: a second GROUPS line")
        self.s.declared = line.split()[1:]

    def on_allow_skip(self, no, line):
        self.s.allowed.add(line.split(" ", 1)[1].strip() if " " in line else "")

    def on_plan(self, no, line):
        f = line.split()
        if len(f) != 3 or not f[2].isdigit():
            self.s.problem("plan_line", f"line {no}: malformed '{line}'")
            return
        if self.cur is not None:
            self.cur.problems.append(
                ("plan_inside", f"PLAN {f[1]} (line {no}) came before its EXIT"))
        g = self.s.group(f[1])
        g.plans += 1
        if g.plans > 1:
            g.problems.append(("plan_twice", f"PLAN printed {g.plans} times (line {no})"))
        g.plan = int(f[2])
        self.cur = g

    def on_exit(self, no, line):
        f = line.split()
        if len(f) != 3:
            self.s.problem("exit_line", f"line {no}: malformed '{line}'")
            return
        g = self.s.group(f[1])
        g.exits += 1
        g.exit = f[2]
        if g.exits > 1:
            g.problems.append(("exit_twice", f"EXIT printed {g.exits} times (line {no})"))
        self.cur = None

    def on_end(self, no, line):
        f = line.split()
        if f[1:] != [self.s.name]:
            self.s.problem("end_line", f"line {no}: '{line}', expected 'END {self.s.name}'")
        self.s.end = True

    def result(self, no, line):
        m = RESULT.match(line)
        if not m:
            self.s.problem("result_line", f"line {no}: malformed '{line}'")
            return
        name, why = split_result(m.group(1), m.group(2))
        if self.cur is None:
            self.s.problem("result_outside_group",
                           f"line {no}: '{line}' is in no group (no PLAN before it)")
            return
        self.cur.results.append((m.group(1), name, why))

    on_pass = on_fail = on_skip = result

    def cell(self, no, line, table):
        parsed = cell_fields(line)
        if parsed is None or self.cur is None:
            self.s.problem("matrix_line",
                           f"line {no}: '{line}' is malformed or in no group")
            return
        key, value = parsed
        d = getattr(self.cur, table)
        if key in d:
            self.cur.problems.append(
                ("matrix_twice", f"{line.split()[0]} {' '.join(key)} printed twice"))
        d[key] = value

    def on_cell(self, no, line):
        self.cell(no, line, "cells")

    def on_matrix(self, no, line):
        self.cell(no, line, "matrix")

    def on_stat(self, no, line):
        f = line.split(" ", 3)
        if len(f) != 4:
            self.s.problem("stat_line", f"line {no}: malformed '{line}'")
            return
        self.s.group(f[1]).stats.append((f[2], f[3]))


def kunit_group(console):
    """The KTAP output of the kernel's log as a group, or None."""
    g = Group("kunit")
    g.synthetic = True
    top_plan, top_results, plan = None, 0, 0
    for line in console:
        m = KTAP_PLAN.match(line)
        if m:
            if m.group(1):
                plan += int(m.group(2))
            elif top_plan is None:
                top_plan = int(m.group(2))
            continue
        m = KTAP_RESULT.match(line)
        if not m:
            continue
        if not m.group(1):
            top_results += 1
            continue
        kind = "PASS" if m.group(2) == "ok" else "FAIL"
        if "# SKIP" in m.group(4):
            kind = "SKIP"
        g.results.append((kind, f"kunit_{m.group(3)}", m.group(4).strip()))
    if top_plan is None:
        return None
    g.plan, g.plans = plan, 1
    if top_results != top_plan:
        g.problems.append(("ktap_plan", f"KTAP plan 1..{top_plan}, "
                                   f"{top_results} test suites reported"))
    return g


def load(d, name, kind):
    s = Suite(name, kind)
    lines = read(os.path.join(d, name, "results.log"))
    if lines is None:
        return s
    s.found = True
    p = Parser(s)
    for no, line in enumerate(lines, 1):
        p.line(no, line)
    status = read(os.path.join(d, name, "boot.status")) or []
    for line in status:
        f = line.split()
        if len(f) == 2 and f[0] == "seconds":
            s.seconds = f[1]
        if len(f) == 2 and f[0] == "qemu_exit":
            s.qemu_exit = f[1]
    return s


# ---- the checks ------------------------------------------------------------------

def describe_exit(status):
    if status == "timeout":
        return "timed out"
    if status.startswith("signal:"):
        return f"killed by {status[7:]}"
    if status.startswith("not-started:"):
        return f"never started ({status[12:]})"
    return f"exited with status {status}"


def check_group(s, g):
    """Accounting problems of one group, into g.problems."""
    if g.plans == 0:
        g.problems.append(("plan", "no PLAN line: the group never said how "
                                   "many checks it would run"))
    elif g.plan is not None and len(g.results) != g.plan:
        few = "fewer" if len(g.results) < g.plan else "more"
        g.problems.append(("count", f"PLAN {g.plan}, but {len(g.results)} "
                                   f"results ({few})"))
    if not g.synthetic:
        if g.exits == 0:
            g.problems.append(("exit", "no EXIT line: the suite stopped "
                                       "inside it (crash, panic or timeout)"))
        elif g.exit != "0":
            g.problems.append(("status", describe_exit(g.exit)))
        if s.declared is not None and g.name not in s.declared:
            g.problems.append(("declared", "not in the suite's GROUPS line"))
    for key, expected in g.cells.items():
        if key not in g.matrix:
            g.problems.append(("missing_cell", "missing matrix cell "
                               f"[{key[0]}] {key[1]} {key[2]} "
                               f"(expected {expected})"))
    for key in g.matrix:
        if key not in g.cells:
            g.problems.append(("no_cell", f"MATRIX [{key[0]}] {key[1]} "
                                         f"{key[2]} without a CELL line"))


def check_suite(s, run_id, console):
    """Suite-level problems; sets s.counted."""
    if not s.found:
        s.problem("ran", "no results.log: the suite did not run "
                         "(build failure, or it never booted)")
        return
    if s.suite_lines == 0:
        s.problems = [("header", "no SUITE line: not results of this run, "
                                 "nothing counted")]
        return
    if s.suite_lines > 1:
        s.problem("header", f"{s.suite_lines} SUITE lines")
    if s.run_id != run_id:
        s.problems = [("stale", f"results of run {s.run_id}, not of this "
                                f"run ({run_id}): stale, nothing counted")]
        return
    s.counted = True
    if s.declared is None:
        s.problem("groups", "no GROUPS line: the suite never declared "
                            "its groups")
    for name in s.declared or []:
        s.group(name)  # a declared group that never printed is checked too
    if not s.end:
        why = "no END line: the suite did not finish"
        if s.qemu_exit == "124":
            why += " (QEMU timed out)"
        elif s.qemu_exit not in (None, "0"):
            why += f" (QEMU exited with {s.qemu_exit})"
        s.problem("end", why)
    if s.kind == "guest":
        check_console(s, console)
    for g in s.groups.values():
        check_group(s, g)


def check_console(s, console):
    if console is None:
        s.problem("console", "no console.log")
        return
    for kind, rx in SPLAT_RES:
        hits = [line for line in console if rx.search(line)]
        if hits:
            s.problem(f"kernel_log_has_no_{kind}",
                      f"{len(hits)} line(s), first: {hits[0].strip()}")
    g = kunit_group(console)
    if g is not None:
        s.groups["kunit"] = g
    elif s.name in KUNIT_REQUIRED:
        s.problem("kunit", "no KUnit (KTAP) results in console.log")


class Tally:
    """What the report counts: passes, failures, allowed skips."""

    def __init__(self):
        self.passed = 0
        self.failures = []   # "suite/what: why"
        self.skipped = []

    def fail(self, where, why):
        self.failures.append(f"{where}: {why}")


def collapse(problems):
    """One problem per kind: the first, and how many more there were."""
    first, count = {}, {}
    for what, why in problems:
        first.setdefault(what, why)
        count[what] = count.get(what, 0) + 1
    return [(w, first[w] + (f" (and {count[w] - 1} more)" if count[w] > 1 else ""))
            for w in first]


def tally_suite(t, s):
    """Count one suite; returns its row: declared, ran, passed, skipped, failed."""
    before = len(t.failures)
    for what, why in collapse(s.problems):
        t.fail(f"{s.name}/{what}", why)
    rows = []
    seen = {}
    for g in s.groups.values() if s.counted else []:
        g_before = len(t.failures)
        for what, why in collapse(g.problems):
            t.fail(f"{s.name}/{g.name}", why)
        passed = skipped = 0
        for kind, name, why in g.results:
            if name in seen:
                t.fail(f"{s.name}/{g.name}", f"check {name} reported twice "
                                             f"(also in {seen[name]})")
            seen[name] = g.name
            if kind == "PASS":
                passed += 1
            elif kind == "FAIL":
                t.fail(f"{s.name}/{name}", why or "failed")
            elif name in s.allowed:
                skipped += 1
                t.skipped.append(f"{s.name}/{name}: {why}")
            else:
                skipped += 1
                t.fail(f"{s.name}/{name}", f"skipped, and the suite does "
                                           f"not allow it: {why}")
        t.passed += passed
        rows.append((g.name, g.plan if g.plan is not None else 0,
                     g.count("PASS") + g.count("FAIL"), passed, skipped,
                     len(t.failures) - g_before, g.exit or "-",
                     dict(g.stats).get("seconds", "")))
    return rows, len(t.failures) - before


def compare_with_stock(t, label, outcomes, stock):
    """outcomes (scenario -> outcome) must be the stock kernel's, scenario
    by scenario.  Returns the summary row."""
    ref = {k[2]: v for k, v in stock.matrix.items()}
    common = [sc for sc in ref if sc in outcomes]
    before = len(t.failures)
    if not common:
        t.fail(f"compare/{label}_compared_with_stock", "no common scenarios")
    for sc in common:
        if outcomes[sc] == ref[sc]:
            t.passed += 1
        else:
            t.fail(f"compare/{label}_matches_stock_{sc}",
                   f"{label} {outcomes[sc]}, stock {ref[sc]}")
    n = len(common)
    failed = len(t.failures) - before
    return (label, len(ref), n, n - (failed if common else 0), 0, failed,
            "-", "")


# ---- printing ----------------------------------------------------------------

def print_summary(table):
    hdr = ("suite/group", "declared", "ran", "passed", "skipped", "failed",
           "exit", "seconds")
    print(f"{hdr[0]:<22}" + "".join(f"{h:>9}" for h in hdr[1:]))
    for suite, total, rows in table:
        print(f"{suite:<22}" + "".join(f"{v:>9}" for v in total))
        for r in rows:
            print(f"  {r[0]:<20}" + "".join(f"{v:>9}" for v in r[1:]))


def print_stats(suites):
    lines = [f"  {s.name}/{g.name} {k} {v}"
             for s in suites if s.counted for g in s.groups.values()
             for k, v in g.stats if k != "seconds"]
    if lines:
        print("\nfigures")
        print("\n".join(lines))


def fs_note(g):
    """Where a matrix ran, from its "STAT <group> fs <path> <type>" lines:
    " on ext4", or " on tmpfs (/tmp); rootfs (/usr/lib/...)"; "" if none."""
    by_type = {}
    for key, value in g.stats:
        if key == "fs":
            path, _, fstype = value.rpartition(" ")
            by_type.setdefault(fstype, []).append(path)
    if len(by_type) == 1:
        return f" on {next(iter(by_type))}"
    return "".join((" on " if i == 0 else "; ") + f"{t} ({', '.join(p)})"
                   for i, (t, p) in enumerate(by_type.items()))


def print_matrix(suites):
    """One table per (group, rule set): scenarios x modes (or kernels),
    titled with the filesystems its files were on."""
    tables, notes = {}, {}
    for s in suites:
        for g in s.groups.values():
            note = fs_note(g)
            for key in list(g.cells) + [k for k in g.matrix if k not in g.cells]:
                rs, mode, sc = key
                t = tables.setdefault((g.name, rs), {})
                notes[(g.name, rs)] = note
                out = g.matrix.get(key, "MISSING")
                if key in g.cells and out != g.cells[key]:
                    out += "!"
                t[(sc, mode)] = out
    for (gname, rs), cells in tables.items():
        modes = list(dict.fromkeys(m for _, m in cells))
        scen = list(dict.fromkeys(sc for sc, _ in cells))
        title = f"rules: {rs}" if rs != "-" else "no denywrite"
        if gname != "dwtest":
            title += f" ({gname})"
        title += notes[(gname, rs)]
        w = max(len(sc) for sc in scen)
        print(f"\n{title}")
        print(f"  {'scenario':<{w}}  " + "  ".join(f"{m:<8}" for m in modes))
        for sc in scen:
            print(f"  {sc:<{w}}  " + "  ".join(
                f"{cells.get((sc, m), '-'):<8}" for m in modes))
    if tables:
        print("\n(! = not the model's expected outcome; MISSING = a declared "
              "cell that never ran)")


def main_report(args):
    d = args.dir
    run_id = (read(os.path.join(d, "run.id")) or ["<no run.id>"])[0].strip()
    names = args.host + args.suites
    suites = []
    for name in names:
        kind = "host" if name in args.host else "guest"
        s = load(d, name, kind)
        console = read(os.path.join(d, name, "console.log")) if kind == "guest" else None
        check_suite(s, run_id, console)
        suites.append(s)

    t = Tally()
    table = []
    for s in suites:
        rows, failed = tally_suite(t, s)
        sums = [sum(r[i] for r in rows) for i in range(1, 5)]
        table.append((s.name, sums + [failed, "", s.seconds or ""], rows))

    by_name = {s.name: s for s in suites}
    shown = [s for s in suites if s.counted]
    lsm_shown = by_name.get("lsm")
    if "stock" in by_name and "lsm" not in by_name:
        # make test-stock: show the last make test's matrix beside it,
        # without counting it.
        lsm_shown = load(d, "lsm", "guest")
        shown = [lsm_shown] + shown
    stock = by_name.get("stock")
    if stock and stock.counted and "lsm" in by_name and by_name["lsm"].counted:
        # Mode enforce with "exec /" is the classic behaviour, on each
        # filesystem the lsm suite ran the matrix on: the stock suite must
        # have run it there too (its group of the same name).
        for gname, fs in (("dwtest", ""), ("dwtest-ext4", "ext4"),
                          ("dwtest-overlay", "overlay")):
            if gname != "dwtest" and gname not in by_name["lsm"].groups:
                continue
            lsm = by_name["lsm"].group(gname)
            classic = {k[2]: v for k, v in lsm.matrix.items()
                       if k[0] == "exec /" and k[1] == "enforce"}
            label = f"classic_on_{fs}" if fs else "classic"
            row = compare_with_stock(t, label, classic, stock.group(gname))
            table.append((f"compare-{fs}" if fs else "compare",
                          list(row[1:6]) + ["", ""], []))
    if stock and stock.counted and "removed" in by_name and by_name["removed"].counted:
        # Without denywrite, exec keeps the stock kernel's own denial.
        removed = {k[2]: v for k, v in
                   by_name["removed"].group("dwtest").matrix.items()}
        row = compare_with_stock(t, "removed", removed, stock.group("dwtest"))
        table.append(("compare-removed", list(row[1:6]) + ["", ""], []))

    print_summary(table)
    print_stats(suites)
    print_matrix(shown)
    print()
    for f in t.skipped:
        print(f"SKIP {f} (allowed)")
    for f in t.failures:
        print(f"FAIL {f}")
    print(f"{t.passed} passed, {len(t.failures)} failed")
    return 1 if t.failures else 0


def demo(d):
    res = read(os.path.join(d, "results.log")) or []
    con = read(os.path.join(d, "console.log")) or []
    markers = ("SUITE ", "END ")
    print("\n".join(line for line in res if not line.startswith(markers)))
    splat = next((line for line in con
                  if any(rx.search(line) for _, rx in SPLAT_RES)), None)
    if "END demo" not in res or "demo: done" not in res or splat:
        print(f"demo failed: {splat or 'a step misbehaved or the guest did not finish'}")
        return 1
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "--demo":
        return demo(argv[2])
    ap = argparse.ArgumentParser(description="the test report")
    ap.add_argument("--host", action="append", default=[],
                    help="a host-side suite (no console.log)")
    ap.add_argument("dir")
    ap.add_argument("suites", nargs="*")
    return main_report(ap.parse_args(argv[1:]))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
