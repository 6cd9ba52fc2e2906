#!/usr/bin/env python3
"""Turn the test logs into one report.

report.py --manifest FILE [--partial SUITE[,SUITE...]] DIR
    make test: every suite of the manifest (tests/manifest; make
    test-debian: tests/debian/manifest, for each release) is checked
    against it: its groups, each group's checks (names, or an exact count,
    or a minimum with a reason), the matrix cells, the KUnit suites and
    cases of each boot, the checks that may skip, the kernel log lines it
    requires.  --partial checks only the suites named (make test-stock, the
    mutants, test-debian.sh only), and says so.
report.py [--host SUITE]... DIR SUITE...
    Without a manifest (make run-debian's demonstration): the suites
    named, each against its own PLAN lines; no skip is allowed.
report.py --demo DIR
    Prints the demonstration transcript of `make run`; exits 1 if it failed.

Either prints per suite and group "declared / ran / passed / skipped /
failed", the STAT figures, the matrix of modes x scenarios, the allowed
skips, the passes of documented limits (LIMIT lines: checks the manifest
marks "limit", or without one, named *_documented), the failures, then
"M of the N passes are documented limits, not promises", and last "N
passed, N failed" (CI reads that line).  Exits 1 if anything failed.

A suite is DIR/SUITE/results.log.  Guest suites are written by the guest
(qemu/guest-suites.sh) and come with DIR/SUITE/console.log, the kernel's
log, and DIR/SUITE/boot.status from scripts/boot.sh; host suites are
written by scripts/test.sh.  DIR/run.id holds the id of this run; a suite
whose SUITE line names another run is stale and counts nothing.

The rules (README.md, "Tests"): a results.log is
    SUITE <suite> <run-id>
    GROUPS <group>...
    then for each group: PLAN <group> <N>, N result lines
    (PASS <check> | FAIL <check>: <why> | SKIP <check>: <why>), optional
    CELL/MATRIX/STAT lines, and EXIT <group> <status>
    KMSG <seq> <prio> <text>... KMSG-END <records> <lost>  (guest suites)
    END <suite>
and anything else on a line of its own is ignored.  A failure is: a FAIL
line; a SKIP the manifest does not allow; a group without PLAN or EXIT,
with another result count than its PLAN, or whose EXIT status is not 0; a
group not declared in GROUPS; a result outside any group; a check name
twice in a suite; a CELL without its MATRIX line, a MATRIX line without a
CELL, a MATRIX outcome other than its CELL's, or (with a manifest) a CELL
whose verdict is not the manifest's; a missing suite, SUITE
line or END line; a stale suite; a splat in a guest's kernel log (the
console's or the dump's), a kernel message the console lost, or a dump
that lost one; a KUnit result other than ok, or a KUnit count other than
its KTAP plan; classic enforcement unlike the stock kernel; a STAT a
manifest "stat" line bounds that is missing, printed twice, not an
integer or out of its bounds; and anything of the run the manifest does
not list, or listed and missing.
"""
import argparse
import glob
import operator
import os
import re
import subprocess
import sys

# Kernel log lines that mean the kernel is not healthy, by kind.  KCSAN's
# reports are a kind of their own (kcsan), so that KCSAN_ALLOW can excuse
# one; "callbacks suppressed" and "printk messages dropped" mean the log
# lost lines, any of which could have been a splat.
SPLATS = [
    ("bug", r"BUG:(?! KCSAN:)"),
    ("kernel_bug", r"kernel BUG at"),
    ("warning", r"WARNING:"),
    ("oops", r"Oops"),
    ("kasan", r"KASAN"),
    ("ubsan", r"UBSAN"),
    ("kcsan", r"BUG: KCSAN:"),
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
    ("printk_dropped", r"printk messages dropped"),
    ("callbacks_suppressed", r"callbacks suppressed"),
]
SPLAT_RES = [(kind, re.compile(rx)) for kind, rx in SPLATS]
# Without a manifest: guest suites whose kernel must have run KUnit.
KUNIT_REQUIRED = {"lsm"}

# "<function>: N callbacks suppressed": a rate-limited printk dropped N
# messages.  The guest lifts printk_ratelimit (qemu/init), so none should;
# a function listed here may, with the reason.  None is.
SUPPRESSED_ALLOW = {
}

# The kernel's direct map (x86_64, 4-level paging: the guest's CPU has
# la57=off; no KASLR in the kcsan kernel): heap objects, never a global of
# the kernel image or a vmalloc'ed stack.
DIRECT_MAP = (0xffff888000000000, 0xffffc88000000000)
# task_struct's slab alignment on x86_64 (fork_init(): L1_CACHE_BYTES and
# ARCH_MIN_TASKALIGN, both 64).
TASK_ALIGN = 64


def heap_read_at_unknown_origin(size, offset, align):
    """An excuse's condition on a KCSAN report's accesses: KCSAN saw one
    side only ("race at unknown origin"), a plain read of size bytes of a
    heap object's field at offset in an object aligned to align."""
    def match(accesses):
        if len(accesses) != 1:
            return False
        unknown, kind, addr, n = accesses[0]
        return (unknown and kind == "read" and n == size and
                DIRECT_MAP[0] <= addr < DIRECT_MAP[1] and
                addr % align == offset % align)
    return match


def reads_of_kernel_objects(names):
    """An excuse's condition on a KCSAN report's accesses: each of them lies
    inside one of the kernel image's data objects names (their addresses
    and sizes from the kcsan kernel's vmlinux, kernel_objects()), and one
    is a read.  Never true without the vmlinux."""
    def match(accesses):
        objs = [o for o in map(kernel_objects().get, names) if o]
        inside = all(any(a <= addr and addr + n <= a + size
                         for a, size in objs)
                     for _, _, addr, n in accesses)
        return bool(objs and accesses and inside and
                    any(kind == "read" for _, kind, _, _ in accesses))
    return match


# KCSAN reports on code outside denywrite that the suite provokes: the
# functions the report's title names (sorted, "a / b" or "a") -> (frames
# of which one must be in the report, why it is not denywrite's bug[, a
# condition on its accesses: a function of kcsan_accesses()]).  A report
# naming a denywrite function anywhere in it, or one of KCSAN_NEVER, is
# never excused.  README.md, "Tests", says how to add one.
KCSAN_ALLOW = {
    "_copy_to_iter / copy_page_from_iter_atomic": (("vfs_read", "ksys_pread64"),
        "pread() of a tmpfs file racing with a pwrite() of it: the page cache "
        "copies file data without a lock, and a reader may see part of a "
        "write, as POSIX allows unsynchronised I/O to; the data, not a "
        "kernel structure.  stress's writers and readers provoke it "
        "(seen in 3 of the 6 kcsan boots of 5 December 2026)"),
    "process_scheduled_works": ((),
        "a race 'at unknown origin' in the workqueue core: a kworker reads "
        "its own task's se.sum_exec_runtime (process_one_work()'s "
        "worker->current_at, inlined; the 8-byte read at task_struct+0xe0, "
        "which is that field in the kcsan kernel) while the scheduler, "
        "which KCSAN does not instrument (kernel/sched: KCSAN_SANITIZE := "
        "n), updates it: a statistic, and no denywrite frame.  Seen twice "
        "in 1 of 6 kcsan boots (5 December 2026), in rcu_gp's process_srcu "
        "work during stress's policy swaps",
        heap_read_at_unknown_origin(8, 0xe0, TASK_ALIGN)),
    "timekeeping_cycles_to_ns": ((),
        "the NMI-safe clock's latch reader (__ktime_get_fast_ns(), inlined "
        "into the ktime_get_*_fast_ns() functions) reads one of its two "
        "copies of the clock, tk_fast_mono or tk_fast_raw, while "
        "update_fast_timekeeper() rewrites it, and retries when the latch "
        "count moved: a seqcount_latch_t read section.  6.12 reads it with "
        "raw_read_seqcount_latch(), which does not tell KCSAN (no "
        "kcsan_atomic_next()); upstream switched it to "
        "read_seqcount_latch() in 6.13 ('seqlock, treewide: Switch to "
        "non-raw seqcount_latch interface', Marco Elver, November 2024).  "
        "Time code, no denywrite frame.  Seen once in CI's kcsan boot of "
        "7789bf1 (7 December 2026)",
        reads_of_kernel_objects(("tk_fast_mono", "tk_fast_raw"))),
}
# Frames that make a KCSAN report denywrite's business whatever its title:
# exec reading the file it runs, which a write must never race.
KCSAN_NEVER = {"bprm_execve", "kernel_read", "load_elf_binary"}
KCSAN_LINE = re.compile(r"BUG: KCSAN:")
KCSAN_TITLE = re.compile(r"BUG: KCSAN: [\w-]+ in (.+?)\s*$")
KCSAN_END = re.compile(r"^={20,}")
SYMBOL = re.compile(r"([A-Za-z_][\w.]*)\+0x[0-9a-f]+/0x[0-9a-f]+")
# An access of a KCSAN report: "[race at unknown origin, with ]<kind> to
# 0x<address> of <size> bytes by task <pid>|interrupt on cpu <n>:".
KCSAN_ACCESS = re.compile(r"(race at unknown origin, with )?(\S+(?: \(\w+\))*) "
                          r"to 0x([0-9a-f]+) of (\d+) bytes by ")

RESULT = re.compile(r"^(PASS|FAIL|SKIP) (.+)$")
TS = r"(?:\[\s*\d+\.\d+\] ?)?"  # printk time, if the kernel adds it
KTAP_PLAN = re.compile(r"^" + TS + r"(    )?1\.\.(\d+)\s*$")
KTAP_RESULT = re.compile(r"^" + TS + r"(    )?(ok|not ok) \d+ (\S+)(.*)$")
KTAP_SUBTEST = re.compile(r"^" + TS + r"    # Subtest: (\S+)")
KMSG_ESC = re.compile(rb"\\x([0-9a-fA-F]{2})")

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# The kernel whose KCSAN reports the report reads: denywrite's functions
# are the text symbols of its objects (--objects).
OBJECTS = os.path.join(TOP, "build", "obj-kcsan")


def nm_text_symbols(nm_output):
    """The function names in nm's output: text symbols (t, T, w, W), the
    compiler's suffixes (.constprop.0, .isra.0, .part.0, .cold) cut."""
    names = set()
    for line in nm_output.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            names.add(parts[2].split(".", 1)[0])
    return names


def denywrite_functions(objdir=None):
    """The functions of denywrite's built objects (security/denywrite/*.o
    under objdir, OBJECTS by default), from nm: also those a source scrape
    misses (a return type on a line of its own, VISIBLE_IF_KUNIT, a
    header's inline the compiler kept out of line, denywrite's or the
    kernel's: a frame of such a copy may be denywrite's, so a report with it
    is not excused).  None if there are no objects: then no KCSAN report
    may be excused."""
    d = os.path.join(objdir or OBJECTS, "security", "denywrite")
    objs = sorted(glob.glob(os.path.join(d, "*.o")))
    if not objs:
        return None
    out = subprocess.run(["nm", "--defined-only"] + objs, check=True,
                         capture_output=True, text=True).stdout
    return nm_text_symbols(out)


_KERNEL_OBJECTS = {}


def kernel_objects(objdir=None):
    """name -> (address, size) of the data objects (d, D, b, B) of
    objdir's vmlinux (OBJECTS by default), from nm -S; empty without a
    vmlinux.  Read once a directory."""
    d = objdir or OBJECTS
    if d not in _KERNEL_OBJECTS:
        objs = {}
        vmlinux = os.path.join(d, "vmlinux")
        if os.path.exists(vmlinux):
            out = subprocess.run(["nm", "-S", "--defined-only", vmlinux],
                                 check=True, capture_output=True,
                                 text=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 4 and parts[2] in "dDbB":
                    objs[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
        _KERNEL_OBJECTS[d] = objs
    return _KERNEL_OBJECTS[d]


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


def matrix_name(key, expected, suffix):
    """The check name of a matrix cell, as dwtest makes it:
    <scenario>_<denied|allowed>_in_<mode><suffix>[<rules>]."""
    rules, mode, scenario = key
    verdict = "denied" if expected == "ETXTBSY" else "allowed"
    name = f"{scenario}_{verdict}_in_{mode}{suffix}"
    return name if rules == "-" else f"{name}[{rules}]"


# ---- the manifest ------------------------------------------------------------
#
# tests/manifest, written by hand: what make test must run.  Its header
# says the format; in short, one directive a line, the names it lists
# indented below it:
#   suite NAME host|guest            a suite, in the report's order
#   group NAME N | group NAME >=N: why   a group: exactly N checks (named
#                                    below, plus its cells), or at least N;
#                                    a name below may end in " limit": a
#                                    documented limit (LIMIT_SUFFIX)
#   file PATH                        (in a group) the file its checks are in
#   stat KEY OP N | stat KEY OP [P%] KEY2
#                                    (in a group) its "STAT <group> KEY"
#                                    must be printed once, an integer, and
#                                    OP (== != < <= > >=) N, or P percent
#                                    (default 100) of the STAT KEY2
#   cells [RULES]... x MODE... x SCENARIO|@LIST... [suffix S]
#                                    (in a group) matrix cells, each with
#                                    its CELL, MATRIX and check line
#   kunit SUITE N                    a KUnit suite of the boot, N cases below
#   skip: why                        checks below may SKIP, for that reason
#   log REGEX                        a kernel log line the boot must print
#   use BLOCK                        the lines of "block BLOCK ... end"
#   list NAME ... end                words for a cells line (@NAME)
#   class NAME ... end               scenarios of one class, for deny lines
#   deny [RULES]... x MODE... x CLASS...|nothing
#                                    (before the first suite) the verdict
#                                    of every cell of these rule sets and
#                                    modes: ETXTBSY for the scenarios of
#                                    the classes named, ok for the others
#
# The verdict of each cell is the manifest's: every scenario of a cells
# line is in exactly one class, every rule set and mode of one has exactly
# one deny line (MGroup.verdicts), and a CELL line that expects another
# verdict fails (compare_group), so that the guest's model cannot change
# with the kernel unseen.

# A check named so asserts a known gap (a documented limit), not a
# promise: the manifest marks it "limit", and the report counts its pass
# apart.
LIMIT_SUFFIX = "_documented"
LIMIT_MARK = re.compile(r"(.+?)\s+limit")


STAT_BOUND = re.compile(r"stat ([\w./-]+) (==|!=|<=|>=|<|>) "
                        r"(?:(-?\d+)|(?:(\d+)% )?([A-Za-z_][\w./-]*))")
OPS = {"==": operator.eq, "!=": operator.ne, "<": operator.lt,
       "<=": operator.le, ">": operator.gt, ">=": operator.ge}


class StatBound:
    """A stat line: STAT key OP number, or OP pct percent of STAT ref."""

    def __init__(self, m):
        self.text = m.group(0)[len("stat "):]
        self.bound = self.text[len(m.group(1)) + 1:]  # "OP N", "OP P% KEY2"
        self.key, self.op, self.ref = m.group(1), m.group(2), m.group(5)
        self.number = int(m.group(3)) if m.group(3) else None
        self.pct = int(m.group(4)) if m.group(4) else 100


class MGroup:
    def __init__(self, name, count, minimum, why):
        self.name, self.count, self.minimum, self.why = name, count, minimum, why
        self.names = []       # listed check names
        self.limits = set()   # those marked limit
        self.stats = []       # StatBound of its stat lines
        self.cells = {}       # (rules, mode, scenario) -> name suffix
        self.verdicts = {}    # (rules, mode, scenario) -> ETXTBSY or ok
        self.files = []


class MSuite:
    def __init__(self, name, kind):
        self.name, self.kind = name, kind
        self.groups = {}
        self.kunit = {}       # KUnit suite -> [case]
        self.skips = {}       # check -> why
        self.logs = []        # regular expressions


class Manifest:
    def __init__(self, path):
        self.path = path
        self.suites = {}
        self.errors = []      # (line number, why)
        lines = read(path)
        if lines is None:
            self.errors.append((0, f"{path}: no such file"))
            return
        self.parse(self.expand(lines))
        self.validate()

    def err(self, no, why):
        self.errors.append((no, why))

    def expand(self, lines):
        """Take out the blocks, lists and classes; put each block in at
        its use."""
        self.lists, blocks, out = {}, {}, []
        self.blocks = blocks
        self.classes = {}     # class -> [scenario]
        self.class_line = {}  # class -> line number
        self.denies = {}      # (rules, mode) -> (line number, {scenario})
        cur = None  # (kind, name, no)
        for no, raw in enumerate(lines, 1):
            line = raw.rstrip()
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            f = line.split()
            if cur is not None:
                if line == "end":
                    cur = None
                elif cur[0] == "list":
                    self.lists[cur[1]].extend(f)
                elif cur[0] == "class":
                    self.classes[cur[1]].extend(f)
                else:
                    blocks[cur[1]].append((no, line))
                continue
            if f[0] == "blocks" and len(f) == 2:
                self.take_blocks(no, f[1], blocks)
                continue
            if f[0] in ("block", "list", "class") and len(f) == 2:
                table = {"block": blocks, "list": self.lists,
                         "class": self.classes}[f[0]]
                # blocks and lists share their names; classes have theirs
                if f[0] == "class":
                    twice = f[1] in self.classes
                else:
                    twice = f[1] in blocks or f[1] in self.lists
                if twice:
                    self.err(no, f"{f[0]} {f[1]} defined twice")
                cur = (f[0], f[1], no)
                table[f[1]] = []
                if f[0] == "class":
                    self.class_line[f[1]] = no
                continue
            out.append((no, line))
        if cur is not None:
            self.err(cur[2], f"{cur[0]} {cur[1]} has no end")
        expanded = []
        for no, line in out:
            f = line.split()
            if f[0] == "use":
                if len(f) != 2 or f[1] not in blocks:
                    self.err(no, f"use of an unknown block: {line}")
                    continue
                expanded.extend(blocks[f[1]])
            else:
                expanded.append((no, line))
        return expanded

    def take_blocks(self, no, rel, blocks):
        """blocks PATH: the blocks and lists of another manifest (PATH
        relative to this one), as if defined here on this line."""
        path = os.path.join(os.path.dirname(self.path), rel)
        lines = read(path)
        if lines is None:
            self.err(no, f"blocks {rel}: no such file")
            return
        other = Manifest.__new__(Manifest)
        other.path, other.errors = path, []
        other.expand(lines)
        for ono, why in other.errors:
            self.err(no, f"blocks {rel}: line {ono}: {why}")
        for name, body in other.blocks.items():
            if name in blocks:
                self.err(no, f"block {name} defined twice")
            blocks[name] = [(no, line) for _, line in body]
        for name, words in other.lists.items():
            if name in self.lists:
                self.err(no, f"list {name} defined twice")
            self.lists[name] = words

    def parse(self, lines):
        suite = group = None
        into = None  # the list indented names go to, and what they are
        for no, line in lines:
            if line[0] in " \t":
                self.indented(no, line.strip(), into,
                              group if group and into is group.names else None)
                continue
            f = line.split()
            word = f[0]
            into = None
            if word == "deny":
                if suite is not None:
                    self.err(no, f"deny lines come before the first suite: {line}")
                else:
                    self.parse_deny(no, line)
                continue
            if word == "suite":
                if len(f) != 3 or f[2] not in ("host", "guest"):
                    self.err(no, f"expected 'suite NAME host|guest': {line}")
                    continue
                if f[1] in self.suites:
                    self.err(no, f"suite {f[1]} twice")
                suite = self.suites.setdefault(f[1], MSuite(f[1], f[2]))
                group = None
                continue
            if suite is None:
                self.err(no, f"'{word}' outside any suite")
                continue
            if word == "group":
                m = re.fullmatch(r"group (\S+) (>=)?(\d+)(?:: (.+))?", line)
                if not m or (m.group(2) and not m.group(4)) or \
                        (m.group(4) and not m.group(2)):
                    self.err(no, "expected 'group NAME N' or 'group NAME "
                                 f">=N: why': {line}")
                    group = None
                    continue
                if m.group(1) in suite.groups:
                    self.err(no, f"group {suite.name}/{m.group(1)} twice")
                group = MGroup(m.group(1), int(m.group(3)),
                               bool(m.group(2)), m.group(4))
                suite.groups[group.name] = group
                into = group.names
            elif word == "file":
                if group is None or len(f) != 2:
                    self.err(no, f"'file PATH' outside a group: {line}")
                    continue
                group.files.append(f[1])
                into = group.names
            elif word == "stat":
                m = STAT_BOUND.fullmatch(line)
                if group is None or not m:
                    self.err(no, "expected 'stat KEY OP N' or 'stat KEY OP "
                                 f"[P%] KEY' in a group: {line}")
                    continue
                group.stats.append(StatBound(m))
                into = group.names
            elif word == "cells":
                if group is None:
                    self.err(no, f"cells outside a group: {line}")
                    continue
                self.parse_cells(no, line, group)
                into = group.names
            elif word == "kunit":
                m = re.fullmatch(r"kunit (\S+) (\d+)", line)
                if not m:
                    self.err(no, f"expected 'kunit SUITE N': {line}")
                    continue
                if m.group(1) in suite.kunit:
                    self.err(no, f"kunit {m.group(1)} twice in {suite.name}")
                into = suite.kunit.setdefault(m.group(1), [])
                self.kunit_count = getattr(self, "kunit_count", {})
                self.kunit_count[(suite.name, m.group(1))] = (no, int(m.group(2)))
                group = None
            elif word == "skip:":
                why = line[len("skip:"):].strip()
                if not why:
                    self.err(no, "a skip without its reason")
                into = []
                self.skip_into = getattr(self, "skip_into", [])
                self.skip_into.append((suite, why, into, no))
                group = None
            elif word == "log":
                try:
                    suite.logs.append(re.compile(line[4:].strip()))
                except re.error as e:
                    self.err(no, f"log {line[4:]}: {e}")
            else:
                self.err(no, f"unknown directive: {line}")
        for suite, why, names, no in getattr(self, "skip_into", []):
            if not names:
                self.err(no, "a skip: without a check below it")
            for n in names:
                suite.skips[n] = why

    def indented(self, no, text, into, group):
        """A name below a directive, into the list into; group: the group
        whose checks the list is, if it is, for a " limit" mark."""
        m = LIMIT_MARK.fullmatch(text)
        if into is None:
            self.err(no, f"an indented line under nothing: {text}")
        elif m and group is None:
            self.err(no, f"only a group's check may be marked limit: {text}")
        elif m:
            into.append(m.group(1))
            group.limits.add(m.group(1))
        else:
            into.append(text)

    def split_matrix_line(self, no, line, what):
        """(rule sets, modes, words) of a cells or deny line, or None."""
        parts = line.split(None, 1)[1].split(" x ") if " " in line else []
        if len(parts) != 3:
            self.err(no, f"expected '{line.split()[0]} [RULES]... x MODE... "
                         f"x {what}...': {line}")
            return None
        rules = re.findall(r"\[([^\]]*)\]", parts[0])
        if not rules or re.sub(r"\[[^\]]*\]", "", parts[0]).strip():
            self.err(no, f"rule sets are written [RULES]: {parts[0].strip()}")
            return None
        if not parts[1].split() or not parts[2].split():
            self.err(no, f"no mode or no {what}: {line}")
            return None
        return rules, parts[1].split(), parts[2].split()

    def parse_deny(self, no, line):
        """deny [RULES]... x MODE... x CLASS...|nothing: the verdicts of
        the cells of those rule sets and modes."""
        parsed = self.split_matrix_line(no, line, "CLASS|nothing")
        if parsed is None:
            return
        rules, modes, classes = parsed
        denied = set()
        if classes != ["nothing"]:
            for c in classes:
                if c not in self.classes:
                    self.err(no, f"deny: unknown class {c}"
                             + (" ('nothing' stands alone)" if c == "nothing" else ""))
                    return
                denied.update(self.classes[c])
        for r in rules:
            for m in modes:
                if (r, m) in self.denies:
                    self.err(no, f"deny [{r}] {m} twice (also line "
                                 f"{self.denies[(r, m)][0]})")
                    continue
                self.denies[(r, m)] = (no, denied)

    def parse_cells(self, no, line, group):
        parsed = self.split_matrix_line(no, line, "SCENARIO")
        if parsed is None:
            return
        rules, modes, words = parsed
        suffix = ""
        if "suffix" in words:
            i = words.index("suffix")
            if i != len(words) - 2:
                self.err(no, f"'suffix S' ends a cells line: {line}")
                return
            suffix = words[i + 1]
            words = words[:i]
        scenarios = []
        for w in words:
            if w.startswith("@"):
                if w[1:] not in self.lists:
                    self.err(no, f"unknown list {w}")
                scenarios.extend(self.lists.get(w[1:], []))
            else:
                scenarios.append(w)
        for r in rules:
            for m in modes:
                for sc in scenarios:
                    if (r, m, sc) in group.cells:
                        self.err(no, f"cell [{r}] {m} {sc} twice")
                    group.cells[(r, m, sc)] = suffix

    def validate_limits(self, s, g):
        """A limit is a check named *_documented, and every such check is
        a limit: the name and the mark cannot drift apart."""
        for name in g.names:
            if name.endswith(LIMIT_SUFFIX) and name not in g.limits:
                self.err(0, f"{s.name}/{g.name}: {name} ends in {LIMIT_SUFFIX} "
                            "but is not marked limit")
        for name in sorted(g.limits):
            if not name.endswith(LIMIT_SUFFIX):
                self.err(0, f"{s.name}/{g.name}: {name} is marked limit but "
                            f"does not end in {LIMIT_SUFFIX}")

    def validate_verdicts(self):
        """The verdict of every cell, from the deny lines and the
        classes: each scenario of a cells line in exactly one class, each
        rule set and mode of one with its deny line, and neither a class
        member nor a deny line that no cell uses."""
        member = {}
        for c, scenarios in self.classes.items():
            for sc in scenarios:
                if sc in member:
                    self.err(self.class_line[c], f"scenario {sc} is in class "
                                                 f"{member[sc]} and in {c}")
                member.setdefault(sc, c)
        no_deny, no_class, used_deny, used_sc = {}, {}, set(), set()
        for s in self.suites.values():
            for g in s.groups.values():
                for key in g.cells:
                    rules, mode, sc = key
                    deny = self.denies.get((rules, mode))
                    if deny is None:
                        no_deny.setdefault((rules, mode), f"{s.name}/{g.name}")
                    else:
                        used_deny.add((rules, mode))
                    if sc not in member:
                        no_class.setdefault(sc, f"{s.name}/{g.name}")
                    else:
                        used_sc.add(sc)
                    if deny is not None and sc in member:
                        g.verdicts[key] = "ETXTBSY" if sc in deny[1] else "ok"
        for (rules, mode), where in no_deny.items():
            self.err(0, f"{where}: cells of [{rules}] {mode}, but no deny "
                        f"line says their verdict")
        for sc, where in no_class.items():
            self.err(0, f"{where}: scenario {sc} of a cells line is in no "
                        "class, so it has no verdict")
        for (rules, mode), (no, _) in self.denies.items():
            if (rules, mode) not in used_deny:
                self.err(no, f"deny [{rules}] {mode}: no cells line has "
                             f"[{rules}] {mode}")
        for c, scenarios in self.classes.items():
            unused = [sc for sc in scenarios if sc not in used_sc]
            if unused:
                self.err(self.class_line[c], f"class {c}: {some(unused)} "
                                             "in no cells line")

    def validate(self):
        self.validate_verdicts()
        for s in self.suites.values():
            seen = {}
            for g in s.groups.values():
                n = len(g.names) + len(g.cells)
                if not g.minimum and n != g.count:
                    self.err(0, f"{s.name}/{g.name}: says {g.count} checks, "
                                f"lists {len(g.names)} names and "
                                f"{len(g.cells)} cells")
                if g.minimum and n > g.count:
                    self.err(0, f"{s.name}/{g.name}: at least {g.count}, "
                                f"but lists {n}")
                self.validate_limits(s, g)
                for name in g.names:
                    if name in seen:
                        self.err(0, f"{s.name}: check {name} in {seen[name]} "
                                    f"and {g.name}")
                    seen[name] = g.name
            for case_suite, cases in s.kunit.items():
                no, count = self.kunit_count[(s.name, case_suite)]
                if len(cases) != count:
                    self.err(no, f"{s.name}: kunit {case_suite} says {count} "
                                 f"cases, lists {len(cases)}")
                for c in cases:
                    seen[f"kunit_{c}"] = "kunit"
            for name in s.skips:
                if name not in seen:
                    self.err(0, f"{s.name}: skip of {name}, which no group "
                                "or KUnit suite of it lists")


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
        self.verdicts = {}    # the same -> the manifest's ETXTBSY or ok
        self.stats = []       # (key, value)
        self.synthetic = False  # made by the report (KUnit): no EXIT
        self.ktap = {}        # KUnit: KTAP suite -> [case]
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
        self.kmsg = []        # (seq, prio, text) of the KMSG lines
        self.kmsg_end = None  # (records, lost) of KMSG-END
        self.excused = []     # kernel log lines an allow list excused
        self.limits = None    # the manifest's limits; None: by name
        self.groups = {}      # name -> Group, in order of appearance
        self.end = False
        self.problems = []    # (what, why): suite-level failures
        self.seconds = None
        self.qemu_exit = None
        self.qemu_crashed = None  # (exit, seconds) of a boot boot.sh redid
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
        # A program that runs cannot excuse its own skips: only the
        # manifest allows one.
        name = line.split(" ", 1)[1].strip() if " " in line else ""
        self.s.problem("allow_skip_line", f"line {no}: ALLOW-SKIP {name}: "
                       "only the manifest allows a skip, never the guest")

    def on_kmsg(self, no, line):
        f = line.split(" ", 3)
        if len(f) < 3 or not f[1].isdigit() or not f[2].isdigit():
            self.s.problem("kmsg_line", f"line {no}: malformed '{line[:80]}'")
            return
        if self.cur is not None:
            self.s.problem("kmsg_inside_group", f"line {no}: a KMSG line "
                           f"inside group {self.cur.name}")
        self.s.kmsg.append((int(f[1]), int(f[2]), f[3] if len(f) > 3 else ""))

    def on_kmsg_end(self, no, line):
        f = line.split()
        if len(f) != 3 or not f[1].isdigit() or not f[2].isdigit():
            self.s.problem("kmsg_line", f"line {no}: malformed '{line}'")
            return
        self.s.kmsg_end = (int(f[1]), int(f[2]))

    def on_kmsg_error(self, no, line):
        self.s.problem("kmsg", f"line {no}: the dump of the kernel log failed: {line}")

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
    subtest = "?"
    for line in console:
        m = KTAP_SUBTEST.match(line)
        if m:
            subtest = m.group(1)
            continue
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
        g.ktap.setdefault(subtest, []).append(m.group(3))
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
        if len(f) == 3 and f[0] == "qemu_crashed":
            s.qemu_crashed = (f[1], f[2])
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
        elif g.matrix[key] != expected:
            # Whatever the check line says: the outcome is not the model's.
            g.problems.append(("matrix_outcome", f"MATRIX [{key[0]}] "
                               f"{key[1]} {key[2]} is {g.matrix[key]}, its "
                               f"CELL expects {expected}"))
    for key in g.matrix:
        if key not in g.cells:
            g.problems.append(("no_cell", f"MATRIX [{key[0]}] {key[1]} "
                                         f"{key[2]} without a CELL line"))


def some(names, n=5):
    return ", ".join(names[:n]) + (f" and {len(names) - n} more" if len(names) > n else "")


def verdict_word(value):
    return "denied" if value == "ETXTBSY" else "allowed"


def compare_group(g, mg):
    """g against its manifest entry mg: names, cells and their verdicts,
    count."""
    ran = [r[1] for r in g.results]
    ranset = set(ran)
    expected = list(mg.names)
    no_cell = []
    g.verdicts = dict(mg.verdicts)
    for key, suffix in mg.cells.items():
        want = mg.verdicts.get(key)  # None only if the manifest failed
        got = g.cells.get(key)
        if got is None:
            no_cell.append(f"[{key[0]}] {key[1]} {key[2]}")
            if want is not None:
                expected.append(matrix_name(key, want, suffix))
            continue
        if want is not None and got != want:
            # The guest's model says another verdict: whatever its MATRIX
            # and check line say (they follow its CELL), one FAIL a cell.
            g.problems.append((
                f"manifest_verdict {key}",
                f"cell [{key[0]}] {key[1]} {key[2]}: the manifest says "
                f"{want} ({verdict_word(want)}), the guest's CELL {got} "
                f"({verdict_word(got)}), MATRIX {g.matrix.get(key, 'missing')}, "
                f"check {matrix_name(key, got, suffix)}"))
        # the name from the guest's CELL: a wrong verdict is failed above,
        # once, not again as a missing and an extra check
        expected.append(matrix_name(key, got, suffix))
    if no_cell:
        g.problems.append(("manifest_cells", f"{len(no_cell)} cell(s) of "
                           f"the manifest without a CELL line: {some(no_cell)}"))
    extra_cells = [f"[{k[0]}] {k[1]} {k[2]}" for k in g.cells if k not in mg.cells]
    if extra_cells:
        g.problems.append(("manifest_extra_cells", f"{len(extra_cells)} CELL(s) "
                           f"not in the manifest: {some(extra_cells)}"))
    missing = [n for n in expected if n not in ranset]
    if missing:
        g.problems.append(("manifest_missing", f"{len(missing)} check(s) of "
                           f"the manifest did not report: {some(missing)}"))
    want = set(expected)
    extra = [n for n in ran if n not in want]
    if extra and not mg.minimum:
        g.problems.append(("manifest_extra", f"{len(extra)} check(s) not in "
                           f"the manifest: {some(extra)}"))
    n = len(g.results)
    if mg.minimum:
        if n < mg.count:
            g.problems.append(("manifest_count", f"{n} results, the manifest "
                               f"wants at least {mg.count} ({mg.why})"))
    else:
        if n != mg.count:
            g.problems.append(("manifest_count", f"{n} results, the manifest "
                               f"says {mg.count}"))
        if g.plan is not None and g.plan != mg.count:
            g.problems.append(("manifest_plan", f"PLAN {g.plan}, the manifest "
                               f"says {mg.count}"))


def stat_value(g, key):
    """(the integer of g's STAT key, None), or (None, why not)."""
    values = [v for k, v in g.stats if k == key]
    if not values:
        return None, f"no STAT {g.name} {key}"
    if len(values) > 1:
        return None, f"STAT {g.name} {key} printed {len(values)} times"
    if not re.fullmatch(r"-?\d+", values[0].strip()):
        return None, f"STAT {g.name} {key} is '{values[0]}', not an integer"
    return int(values[0]), None


def compare_stats(g, mg):
    """g's STAT figures against the bounds of mg's stat lines: a figure a
    verdict depends on fails out of bounds, whatever the check line says."""
    for b in mg.stats:
        got, why = stat_value(g, b.key)
        ref = None
        if why is None and b.ref:
            ref, why = stat_value(g, b.ref)
        if why:
            g.problems.append(("manifest_stat_missing",
                               f"{why} (manifest: stat {b.text})"))
        elif b.ref and not OPS[b.op](got * 100, b.pct * ref):
            g.problems.append((f"manifest_stat_{b.key}", f"STAT {b.key} is "
                               f"{got}, the manifest wants {b.bound} ({ref})"))
        elif not b.ref and not OPS[b.op](got, b.number):
            g.problems.append((f"manifest_stat_{b.key}", f"STAT {b.key} is "
                               f"{got}, the manifest wants {b.bound}"))


def check_manifest(s, ms, logs):
    """The suite against its manifest entry ms; logs: its kernel log lines."""
    s.allowed = set(ms.skips)
    s.limits = set().union(*(mg.limits for mg in ms.groups.values()))
    for name, mg in ms.groups.items():
        g = s.group(name)
        if s.declared is not None and name not in s.declared and g.plans:
            pass  # check_group says it: not in GROUPS
        elif s.declared is not None and name not in s.declared:
            g.problems.append(("declared", "in the manifest, but neither in "
                                           "the suite's GROUPS line nor run"))
        compare_group(g, mg)
        compare_stats(g, mg)
    for name, g in s.groups.items():
        if not g.synthetic and name not in ms.groups:
            g.problems.append(("manifest", "not in the manifest"))
    kg = s.groups.get("kunit")
    if kg is None and ms.kunit:
        s.problem("kunit", "no KUnit (KTAP) results in console.log; "
                  f"the manifest lists {', '.join(ms.kunit)}")
    elif kg is not None:
        for suite, cases in ms.kunit.items():
            got = kg.ktap.get(suite)
            if got is None:
                kg.problems.append(("manifest_kunit_suite_missing", f"KUnit "
                                    f"suite {suite} of the manifest did not run"))
                continue
            missing = [c for c in cases if c not in got]
            extra = [c for c in got if c not in cases]
            if missing:
                kg.problems.append(("manifest_missing", f"KUnit {suite}: "
                                    f"{len(missing)} case(s) of the manifest "
                                    f"did not report: {some(missing)}"))
            if extra:
                kg.problems.append(("manifest_extra", f"KUnit {suite}: "
                                    f"{len(extra)} case(s) not in "
                                    f"the manifest: {some(extra)}"))
        for suite in kg.ktap:
            if suite not in ms.kunit:
                kg.problems.append(("manifest_kunit_suite_extra", f"KUnit "
                                    f"suite {suite} is not in the manifest"))
    for rx in ms.logs:
        if not any(rx.search(line) for line in logs):
            s.problem("kernel_log_line", f"no kernel log line matches "
                      f"'{rx.pattern}' (the manifest)")


def check_suite(s, run_id, console, ms=None):
    """Suite-level problems; sets s.counted.  ms: the suite's manifest
    entry, if there is a manifest."""
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
    elif s.kind == "guest":
        # A guest that hangs or fails after its END: QEMU's exit tells.
        if s.qemu_exit is None:
            s.problem("qemu", "no boot.status: how QEMU ended is unknown")
        elif s.qemu_exit == "124":
            s.problem("qemu", "QEMU timed out after the suite's END")
        elif s.qemu_exit != "0":
            s.problem("qemu", f"QEMU exited with {s.qemu_exit} after the "
                              "suite's END")
    logs = []
    if s.kind == "guest":
        logs = check_console(s, console, ms is not None)
    if ms is not None:
        check_manifest(s, ms, logs)
    for g in s.groups.values():
        check_group(s, g)


def kmsg_lines(s):
    """The dump's records as text lines (escapes undone)."""
    out = []
    for _, _, text in s.kmsg:
        raw = KMSG_ESC.sub(lambda m: bytes([int(m.group(1), 16)]),
                           text.encode("utf-8", "replace"))
        out.extend(raw.decode("utf-8", "replace").split("\n"))
    return out


def check_kmsg(s, console, required):
    """The dump of the kernel's log: whole, and all of it on the console."""
    if s.kmsg_end is None:
        if required or s.kmsg:
            s.problem("kmsg", "no KMSG-END line: the kernel log was not "
                      "dumped at the end of the suite, or not whole")
        return
    records, lost = s.kmsg_end
    if records != len(s.kmsg):
        s.problem("kmsg", f"KMSG-END says {records} records, "
                  f"{len(s.kmsg)} KMSG lines")
    if lost:
        s.problem("kmsg_lost", f"{lost} kernel message(s) overwritten before "
                  "the dump read them")
    seqs = [r[0] for r in s.kmsg]
    if seqs and seqs[0] != 0:
        s.problem("kmsg_lost", f"the dump begins at record {seqs[0]}, not 0: "
                  "the log buffer wrapped (log_buf_len too small)")
    gaps = [f"{a}..{b}" for a, b in zip(seqs, seqs[1:]) if b != a + 1]
    if gaps:
        s.problem("kmsg_lost", f"the dump skips records: {some(gaps)}")
    if console is None:
        return
    have = set(line.rstrip() for line in console)
    text = None
    absent = []
    for line in kmsg_lines(s):
        line = line.rstrip()
        if not line.strip() or line in have:
            continue
        if text is None:
            text = "\n".join(console)
        if line not in text:  # a message can start in the middle of a line
            absent.append(line)
    if absent:
        s.problem("console_lost_messages", f"{len(absent)} kernel message(s) "
                  "of the dump are not on the console (console level "
                  f"lowered, or messages dropped), first: {absent[0][:160]}")


def kcsan_accesses(block):
    """The accesses of a KCSAN report's lines: (at unknown origin, kind,
    address, size) each."""
    out = []
    for line in block:
        m = KCSAN_ACCESS.search(line)
        if m:
            out.append((bool(m.group(1)), m.group(2), int(m.group(3), 16),
                        int(m.group(4))))
    return out


def kcsan_excuse(entry):
    """A KCSAN_ALLOW entry as (frames, why, condition on the accesses)."""
    if entry is None or isinstance(entry, str):
        return (), entry, None
    return tuple(entry) + (None,) * (3 - len(entry))


def kcsan_reports(lines, dw_funcs, allow=None):
    """(title line, excuse or None) for each KCSAN report in lines.  A
    report whose title is not "<kind> in <functions>" (an ASSERT_EXCLUSIVE
    report, "assert: race in ...") is never excused."""
    allow = KCSAN_ALLOW if allow is None else allow
    out = []
    for i, line in enumerate(lines):
        if not KCSAN_LINE.search(line):
            continue
        m = KCSAN_TITLE.search(line)
        if not m:
            out.append((line.strip(), None))
            continue
        funcs = sorted(re.sub(r"\+0x[0-9a-f]+/0x[0-9a-f]+", "", f).strip()
                       for f in m.group(1).split(" / "))
        block = []
        for nxt in lines[i + 1:i + 80]:
            if KCSAN_END.match(nxt.strip()):
                break
            block.append(nxt)
        frames = set(funcs) | set(SYMBOL.findall("\n".join(block)))
        need, why, access = kcsan_excuse(allow.get(" / ".join(funcs)))
        if why and (dw_funcs is None or frames & (dw_funcs | KCSAN_NEVER) or
                    (need and not frames & set(need)) or
                    (access and not access(kcsan_accesses(block)))):
            # denywrite's own code (or its functions unknown), or another
            # race: never excused
            why = None
        out.append((line.strip(), why))
    return out


def check_console(s, console, manifest):
    """Splats, lost messages and KUnit of a guest suite; returns the kernel
    log lines (the console's and the dump's)."""
    if console is None:
        s.problem("console", "no console.log")
    check_kmsg(s, console, manifest)
    dumped = kmsg_lines(s)
    logs = (console or []) + dumped
    dw_funcs, dw_known = None, False
    for kind, rx in SPLAT_RES:
        hits = []
        for where, lines in (("console", console or []), ("dump", dumped)):
            if kind == "kcsan":
                if not dw_known:
                    dw_funcs, dw_known = denywrite_functions(), True
                for line, why in kcsan_reports(lines, dw_funcs):
                    if why:
                        s.excused.append(f"{line} ({where}): {why}")
                    else:
                        hits.append(line)
                continue
            for line in lines:
                if not rx.search(line):
                    continue
                if kind == "callbacks_suppressed":
                    fn = line.split(":", 1)[0].strip()
                    if fn in SUPPRESSED_ALLOW:
                        s.excused.append(f"{line.strip()} ({where}): "
                                         f"{SUPPRESSED_ALLOW[fn]}")
                        continue
                hits.append(line)
        if hits:
            s.problem(f"kernel_log_has_no_{kind}",
                      f"{len(hits)} line(s), first: {hits[0].strip()}")
    g = kunit_group(console or [])
    if g is not None:
        s.groups["kunit"] = g
    elif not manifest and s.name in KUNIT_REQUIRED:
        s.problem("kunit", "no KUnit (KTAP) results in console.log")
    return logs


class Tally:
    """What the report counts: passes, failures, allowed skips."""

    def __init__(self):
        self.passed = 0
        self.failures = []   # "suite/what: why"
        self.skipped = []
        self.limits = []     # "suite/check" of the passes that are limits

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


def is_limit(s, name):
    """A documented limit: marked so in the manifest, or, without one,
    named so."""
    if s.limits is None:
        return name.endswith(LIMIT_SUFFIX)
    return name in s.limits


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
                if is_limit(s, name):
                    t.limits.append(f"{s.name}/{name}")
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
                want = g.verdicts.get(key, g.cells.get(key))
                if want is not None and out != want:
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
        print("\n(! = not the expected outcome: the manifest's verdict, or "
              "without one the CELL's; MISSING = a declared cell that never ran)")


def main_report(args):
    d = args.dir
    run_id = (read(os.path.join(d, "run.id")) or ["<no run.id>"])[0].strip()
    t = Tally()
    manifest = partial = None
    if args.manifest:
        manifest = Manifest(args.manifest)
        for no, why in manifest.errors:
            t.fail("manifest" + (f"/line {no}" if no else ""), why)
        names = list(manifest.suites)
        kinds = {n: m.kind for n, m in manifest.suites.items()}
        if args.partial:
            partial = [n for n in args.partial.split(",") if n]
            for n in partial:
                if n not in manifest.suites:
                    t.fail(f"{n}/manifest", "not a suite of the manifest")
            names = [n for n in names if n in partial]
    else:
        names = args.host + args.suites
        kinds = {n: "host" if n in args.host else "guest" for n in names}
    suites = []
    for name in names:
        kind = kinds[name]
        s = load(d, name, kind)
        console = read(os.path.join(d, name, "console.log")) if kind == "guest" else None
        check_suite(s, run_id, console,
                    manifest.suites[name] if manifest else None)
        suites.append(s)

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
    for f in t.limits:
        print(f"LIMIT {f} (a documented limit: the known gap is still as "
              "documented)")
    for s in suites:
        if s.qemu_crashed:
            print(f"REBOOTED {s.name}: QEMU crashed (exit {s.qemu_crashed[0]}) "
                  f"after {s.qemu_crashed[1]} s and was booted once more; "
                  "these are the second boot's results")
        for line in s.excused:
            print(f"EXCUSED {s.name}: {line}")
    for f in t.failures:
        print(f"FAIL {f}")
    if manifest is None:
        print("(no manifest: each group's count is its own PLAN)")
    elif partial is not None:
        print(f"(partial: only {', '.join(names) or 'no suite'} of "
              f"{args.manifest} checked)")
    print(f"{len(t.limits)} of the {t.passed} passes are documented limits, "
          "not promises")
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
    ap.add_argument("--manifest", help="what the run must hold "
                    "(the manifest); its suites are the run's")
    ap.add_argument("--partial", help="with --manifest: only these suites "
                    "(comma-separated)")
    ap.add_argument("--host", action="append", default=[],
                    help="without --manifest: a host-side suite (no console.log)")
    ap.add_argument("--objects", default=OBJECTS,
                    help="the build directory of the kernel whose KCSAN "
                    "reports are read (default build/obj-kcsan)")
    ap.add_argument("dir")
    ap.add_argument("suites", nargs="*", help="without --manifest: the suites")
    args = ap.parse_args(argv[1:])
    globals()["OBJECTS"] = args.objects
    if args.manifest and (args.suites or args.host):
        ap.error("with --manifest, the suites are the manifest's (--partial to pick)")
    if args.partial and not args.manifest:
        ap.error("--partial needs --manifest")
    return main_report(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
