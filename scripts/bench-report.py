#!/usr/bin/env python3
"""Turn the logs of `make bench` into the benchmark table.

bench-report.py [--distro] [--runs "icount tcg"] [--elapsed S] [--markdown]
                DIR [TXT CSV]

DIR is build/bench: DIR/RUN/BOOT/{results.log,console.log,seconds} for each
run (icount, tcg) and boot, and DIR/RUN.params, the rounds of the run
(scripts/bench.sh).  Prints, for each run, the
median ns per operation of every configuration with the spread of the
rounds, and the ratio of each median to the stock kernel's; then the
memory figures; then what failed.  Writes the same text to TXT and one row
per run, configuration and operation to CSV.  Exit 1 if anything failed:
a FAIL line, a group whose check count differs from its PLAN, a boot that
did not finish or whose kernel log shows a splat, a missing cell.
--markdown prints the ratio table of the first run as Markdown instead.

--distro: make bench-distro's configurations (scripts/bench.sh --distro):
each ratio is to the stock kernel's cell of the same kind, with or without
the background processes; then the targets of issue 21, each met or not
(a target not met is reported, it is no failure of the run); and a
problem if the boots' LSMs are not Debian's (the stock kernel's list,
denywrite added in the patched kernel's).
"""
import argparse
import csv
import datetime
import os
import re
import statistics
import subprocess
import sys

from report import read  # the test report's log reader: \r-free lines

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DWBENCH = os.path.join(TOP, "tests", "bench", "bin", "dwbench")

# (configuration, column, what it is), in table order.
CONFIGS = [
    ("stock", "stock", "stock 6.12, lsm=capability"),
    ("nolsm", "no-dw", "patched kernel, denywrite not in lsm="),
    ("off", "off", "denywrite mode off (rule exec /)"),
    ("audit", "audit", "mode audit, rule exec /"),
    ("exec", "exec/", "enforce, exec / (the classic default)"),
    ("all", "all/", "enforce, all / (also: 1 rule, the file matching it)"),
    ("r1-none", "1:none", "enforce, 1 rule, matching no file"),
    ("r100-match", "100:last", "enforce, 99 rules matching nothing, then all /"),
    ("r100-none", "100:none", "enforce, 100 rules matching nothing"),
    ("r1000-match", "1000:last", "enforce, 999 rules matching nothing, then all /"),
    ("r1000-none", "1000:none", "enforce, 1000 rules matching nothing"),
]
CONFIGS_DISTRO = [
    ("stock", "stock", "stock 6.12, Debian's configuration and LSMs"),
    ("nolsm", "no-dw", "patched, lsm= Debian's list: denywrite not active"),
    ("pkgoff", "off", "denywrite mode off, the packaged policy"),
    ("pkg", "pkg", "enforce, the packaged policy: exec / and "
                   "lib /usr/lib/x86_64-linux-gnu"),
    ("stock-bg", "stock+bg", "stock, 200 background processes running the "
                             "programs and mapping the files"),
    ("nolsm-bg", "no-dw+bg", "no-dw, the same background"),
    ("pkgoff-bg", "off+bg", "off, the same background"),
    ("pkg-bg", "pkg+bg", "pkg, the same background (every file mapped is "
                         "held by 200 others)"),
]
# Issue 21's targets: (configuration, operations or None for all, limit).
TARGETS = [
    ("pkgoff", None, 1.002),
    ("pkg", ["open_wronly", "open_rdonly"], 1.005),
    ("pkg", ["mmap_exec", "mmap_exec_deep"], 1.01),
    ("pkg", ["exec_static", "exec_dynamic", "dlopen"], 1.005),
    ("pkg", ["configure", "copy_tree"], 1.005),
]
RUNS = {
    "icount": "QEMU TCG, -icount shift=0,sleep=off: virtual time, "
              "1 ns = 1 guest instruction",
    "tcg": "QEMU TCG, plain: wall-clock time on this host, "
           "one boot at a time",
}
SPLATS = ["BUG:", "WARNING:", "Oops", "KASAN", "UBSAN", "Kernel panic",
          "possible circular locking", "rcu: INFO", "blocked for more than"]
PLAN = re.compile(r"^PLAN (\S+) (\d+)$")
STAT = re.compile(r"^STAT (\S+) (\S+) (\S+)$")
CHECK = re.compile(r"^(PASS|FAIL|SKIP) (\S+?)(:.*)?$")
GROUP = re.compile(r"^bench-(.+)-r(\d+)$")
BLOB = re.compile(r"LSM: (\w+) blob size\s*=\s*(\d+)")
ITERS = {}  # (run, op): iterations a round, the same in every boot
DISTRO = False


def operations():
    """(name, kind, label) of dwbench's table, in its order; kind is
    micro or macro."""
    out = subprocess.run([DWBENCH, "--list"], capture_output=True,
                         text=True, check=True).stdout
    return [tuple(line.split("\t", 2)) for line in out.splitlines()]


def params(d, run):
    """{rounds, macro, scale, slab} of a run, as bench.sh wrote them."""
    line = (read(os.path.join(d, f"{run}.params")) or [""])[0]
    return dict(kv.split("=", 1) for kv in line.split())


class Boot:
    """One boot's results: times[(config, op)] = [ns per round],
    iters[op], mem{key: value}, blobs{name: bytes}, problems[]."""

    def __init__(self, run, name, d):
        self.run, self.name = run, name
        self.times, self.iters, self.mem, self.blobs = {}, {}, {}, {}
        self.problems = []
        self.lsm = None
        self.seconds = (read(os.path.join(d, "seconds")) or ["?"])[0]
        self.parse(read(os.path.join(d, "results.log")))
        self.console(read(os.path.join(d, "console.log")))

    def problem(self, what):
        self.problems.append(f"{self.run}/{self.name}: {what}")

    def parse(self, lines):
        if lines is None:
            self.problem("no results.log (did QEMU start?)")
            return
        group, left = None, 0
        for line in lines:
            m = PLAN.match(line)
            if m:
                self.close(group, left)
                group, left = m.group(1), int(m.group(2))
                continue
            m = CHECK.match(line)
            if m:
                left -= 1
                if m.group(1) != "PASS":
                    self.problem(f"{group}: {line}")
                continue
            m = STAT.match(line)
            if m:
                self.stat(*m.groups())
        self.close(group, left)
        # The end marker of the suite framework: DWTEST-DONE, or END SUITE.
        if "DWTEST-DONE" not in lines and "END bench" not in lines:
            self.problem("the guest did not finish (timeout or crash)")

    def close(self, group, left):
        if group is not None and left != 0:
            self.problem(f"group {group}: {abs(left)} check lines "
                         f"{'missing' if left > 0 else 'too many'}")

    def stat(self, group, key, value):
        if group == "bench-lsm":
            self.lsm = value
            return
        if group == "bench-mem":
            self.mem[key] = int(value)
            return
        m = GROUP.match(group)
        if not m or group.startswith("bench-policy-"):
            return
        if key.endswith("/iters"):
            self.iters[key[:-6]] = int(value)
        else:
            self.times.setdefault((m.group(1), key), []).append(float(value))

    def console(self, lines):
        if lines is None:
            self.problem("no console.log")
            return
        for line in lines:
            m = BLOB.search(line)
            if m and int(m.group(2)):
                self.blobs[m.group(1)] = int(m.group(2))
            for s in SPLATS:
                if s in line:
                    self.problem(f"kernel log: {line.strip()}")


class Cell:
    def __init__(self, values, macro):
        self.n = len(values)
        self.median = statistics.median(values)
        self.min, self.max = min(values), max(values)
        self.spread = 100.0 * (self.max - self.min) / self.median
        self.macro = macro

    def text(self):
        v = self.median / 1e6 if self.macro else self.median
        return f"{v:.0f} ({self.spread:.1f}%)" if v >= 100 else \
            f"{v:.1f} ({self.spread:.1f}%)"


def load(d, runs):
    boots = {}
    for run in runs:
        rd = os.path.join(d, run)
        names = sorted(os.listdir(rd)) if os.path.isdir(rd) else []
        boots[run] = [Boot(run, n, os.path.join(rd, n)) for n in names
                      if os.path.isdir(os.path.join(rd, n))]
    return boots


def cells(run, boots, ops, p, problems):
    """{(config, op): Cell} of one run; a missing round is a problem."""
    times = {}
    for b in boots:
        times.update(b.times)
    out = {}
    for b in boots:
        for op, n in b.iters.items():
            if ITERS.setdefault((run, op), n) != n:
                problems.append(f"{run}/{b.name}: {op}: {n} iterations, "
                                f"elsewhere {ITERS[(run, op)]}")
    for cfg, _, _ in CONFIGS:
        for op, kind, _ in ops:
            want = int(p.get("macro" if kind == "macro" else "rounds", 0))
            vals = times.get((cfg, op), [])
            if len(vals) != want:
                problems.append(f"{run}: {cfg} {op}: {len(vals)} of {want} "
                                "rounds")
            if vals:
                out[(cfg, op)] = Cell(vals, kind == "macro")
    return out


def table(title, ops, rows, width=10):
    w = max(len(label) for _, _, label in ops)
    lines = [title, f"  {'operation':<{w}}" +
             "".join(f"{col:>{width}}" for _, col, _ in CONFIGS)]
    for op, _, label in ops:
        lines.append(f"  {label:<{w}}" +
                     "".join(f"{rows(cfg, op):>{width}}" for cfg, _, _ in CONFIGS))
    return lines


def baseline(cfg):
    """The stock cell a configuration is compared with: of the same kind
    (with or without the background processes) in make bench-distro."""
    return "stock-bg" if cfg.endswith("-bg") else "stock"


def ratio(cs, cfg, op):
    c, s = cs.get((cfg, op)), cs.get((baseline(cfg), op))
    return c.median / s.median if c and s else None


def run_text(run, cs, ops, p, boots):
    def ns(cfg, op):
        c = cs.get((cfg, op))
        return c.text() if c else "-"

    def rt(cfg, op):
        r = ratio(cs, cfg, op)
        return f"{r:.3f}" if r is not None else "-"

    labels = [(op, kind, label + (" [ms]" if kind == "macro" else ""))
              for op, kind, label in ops]
    secs = ", ".join(f"{b.name} {b.seconds} s" for b in boots)
    out = [f"== {run} run: {RUNS.get(run, run)}",
           f"   median of {p.get('rounds')} rounds ({p.get('macro')} for "
           f"the two workloads [ms]), iterations x{p.get('scale')}; "
           f"boots: {secs}",
           "   iterations a round: " + ", ".join(
               f"{op} {ITERS.get((run, op), '?')}" for op, _, _ in ops)]
    out += table("ns per operation ([ms]: per run), median (range of the "
                 "rounds as % of the median):", labels, ns, 16)
    out.append("")
    out += table("ratio of the median to stock" +
                 (" (the +bg columns: to stock+bg):" if DISTRO else ":"),
                 labels, rt)
    out.append("")
    return out


def targets_text(cs, ops):
    """Issue 21's targets, each cell met or not, with and without the
    background processes."""
    out = ["== targets of issue 21 (ratio to the stock kernel's cell of the "
           "same kind)"]
    met = total = 0
    for cfg, names, limit in TARGETS:
        for variant in (cfg, cfg + "-bg"):
            for op, _, label in ops:
                if names is not None and op not in names:
                    continue
                r = ratio(cs, variant, op)
                total += 1
                ok = r is not None and r <= limit
                met += ok
                col = dict((c, col) for c, col, _ in CONFIGS)[variant]
                out.append(f"  {'met    ' if ok else 'NOT MET'} {col:<9} "
                           f"{label:<36} {'-' if r is None else f'{r:.4f}'}"
                           f" <= {limit}")
    out.append(f"  {met} of {total} targets met")
    out.append("")
    return out


def lsm_problems(boots):
    """The LSMs of the boots: stock's list is Debian's; no-dw has the
    same, the patched kernel's has denywrite too."""
    by = {b.name: b.lsm for b in boots}
    stock = by.get("stock")
    out = []
    if not stock:
        return ["no LSM list from the stock kernel's boot"]
    for name, lsm in by.items():
        if name == "stock":
            continue
        want = stock if name == "nolsm" else None
        got = (lsm or "").split(",")
        if want is not None and lsm != want:
            out.append(f"{name}: LSMs {lsm}, stock {stock}")
        elif want is None and ([x for x in got if x != "denywrite"] !=
                               stock.split(",") or
                               got.count("denywrite") != 1):
            out.append(f"{name}: LSMs {lsm}, want stock's {stock} and "
                       "denywrite")
    return out


def memory_text(boots):
    kernels = [("stock", "stock 6.12"), ("nolsm", "patched, no denywrite"),
               ("lsm-a", "patched, denywrite")]
    by = {b.name: b for b in boots}
    out = ["== memory (icount run): slab growth over files created and "
           "stat'ed on tmpfs (/proc/meminfo Slab)"]
    lsms = by["lsm-a"].lsm if "lsm-a" in by else None
    base = stock_per = None
    for name, what in kernels:
        m = by[name].mem if name in by else {}
        if "slab_growth_kb" not in m:
            out.append(f"  {what:<24} not measured")
            continue
        per = m["slab_growth_kb"] * 1024 / m["slab_files"]
        extra = ""
        if name == "nolsm":
            base = per
        elif name == "lsm-a" and base is not None:
            extra = f"  ({per - base:+.1f} B a file over no denywrite)"
        if name == "stock":
            stock_per = per
        elif name == "lsm-a" and DISTRO and stock_per is not None:
            extra += f"  ({per - stock_per:+.1f} B a file over stock)"
        out.append(f"  {what:<24} {m['slab_growth_kb']:>8} kB over "
                   f"{m['slab_files']} files: {per:.1f} B a file{extra}")
    if DISTRO:
        out += distro_blobs(by)
    elif "lsm-a" in by:
        b = by["lsm-a"]
        blobs = ", ".join(f"{k} {v} B" for k, v in sorted(b.blobs.items()))
        out.append(f"  LSM blob sizes printed at boot (lsm.debug), all LSMs of "
                   f"{lsms or 'lsm=capability,denywrite'}: "
                   f"{blobs or 'none printed'}")
        for cache in ("lsm_inode_cache", "lsm_file_cache"):
            m = b.mem
            if m.get(f"{cache}_present"):
                merged = " (merged with another cache of that size)" \
                    if m.get(f"{cache}_merged") else ""
                out.append(f"  /sys/kernel/slab/{cache}: object_size "
                           f"{m.get(f'{cache}_object_size', '?')} B, slot "
                           f"{m.get(f'{cache}_slab_size', '?')} B{merged}")
            elif f"{cache}_present" in m:
                out.append(f"  /sys/kernel/slab/{cache}: absent")
    for name in ("stock", "nolsm") if not DISTRO else ():
        m = by[name].mem if name in by else {}
        if "lsm_file_cache_present" in m:
            out.append(f"  {name}: lsm_inode_cache "
                       f"{'present' if m['lsm_inode_cache_present'] else 'absent'}"
                       f", lsm_file_cache "
                       f"{'present' if m['lsm_file_cache_present'] else 'absent'}")
    out.append("")
    return out


def distro_blobs(by):
    """make bench-distro: the blobs of every kernel (Debian's LSMs have
    theirs), and what denywrite adds to each inode and each open file:
    the patched kernel's blob over the stock kernel's."""
    out = ["  LSM blob sizes printed at boot (lsm.debug) and the blob "
           "caches, by kernel:"]
    for name, what in (("stock", "stock"), ("nolsm", "patched, no-dw"),
                       ("lsm-a", "patched, denywrite")):
        b = by.get(name)
        if not b:
            continue
        caches = []
        for cache in ("lsm_inode_cache", "lsm_file_cache"):
            m = b.mem
            if m.get(f"{cache}_present"):
                caches.append(f"{cache} {m.get(f'{cache}_object_size', '?')}"
                              f"/{m.get(f'{cache}_slab_size', '?')} B")
            elif f"{cache}_present" in m:
                caches.append(f"{cache} absent")
        blobs = ", ".join(f"{k} {v}" for k, v in sorted(b.blobs.items()))
        out.append(f"    {what:<20} {blobs or 'none printed'}; "
                   f"{', '.join(caches) or 'caches not read'} "
                   "(object/slot)")
    s, d = by.get("stock"), by.get("lsm-a")
    if s and d:
        for kind, cache in (("inode", "lsm_inode_cache"),
                            ("file", "lsm_file_cache")):
            a, b = s.blobs.get(kind, 0), d.blobs.get(kind, 0)
            sa = s.mem.get(f"{cache}_slab_size", 0)
            sb = d.mem.get(f"{cache}_slab_size", 0)
            out.append(f"  denywrite per {kind}: blob {a} -> {b} B "
                       f"({b - a:+d} B), slab slot {sa} -> {sb} B "
                       f"({sb - sa:+d} B)")
        # The task blob is allocated with each task (no cache of its own).
        a, b = s.blobs.get("task", 0), d.blobs.get("task", 0)
        out.append(f"  denywrite per task: blob {a} -> {b} B ({b - a:+d} B)")
    return out


def memory_problems(boots):
    """make bench-distro: a memory figure not measured fails the run."""
    by = {b.name: b for b in boots}
    out = []
    for name in ("stock", "nolsm", "lsm-a"):
        m = by[name].mem if name in by else {}
        for key in ("slab_growth_kb", "lsm_inode_cache_present",
                    "lsm_file_cache_present"):
            if key not in m:
                out.append(f"icount/{name}: memory: no {key}")
        if name in by and not by[name].blobs:
            out.append(f"icount/{name}: no LSM blob size printed (lsm.debug)")
    return out


def markdown(cs, ops):
    def ns(cfg, op):
        c = cs.get((cfg, op))
        if not c:
            return "-"
        if c.macro:
            return f"{c.median / 1e6:.{1 if DISTRO else 0}f} ms"
        return f"{c.median:.0f}"

    # bench-distro: the stock+bg cell is a baseline too, shown in ns, and
    # the ratios get four digits (the targets have three).
    bases = ["stock", "stock-bg"] if DISTRO else ["stock"]
    cols = [(cfg, col) for cfg, col, _ in CONFIGS if cfg not in bases]
    digits = 4 if DISTRO else 3
    lines = ["| operation | " +
             " | ".join(f"{dict((c, k) for c, k, _ in CONFIGS)[b]} ns"
                        for b in bases) + " | " +
             " | ".join(col for _, col in cols) + " |",
             "|---" * (len(cols) + len(bases) + 1) + "|"]
    for op, _, label in ops:
        rs = []
        for cfg, _ in cols:
            r = ratio(cs, cfg, op)
            rs.append("-" if r is None else f"{r:.{digits}f}")
        lines.append(f"| {label} | " + " | ".join(ns(b, op) for b in bases) +
                     " | " + " | ".join(rs) + " |")
    return lines


def header(args):
    version = subprocess.run(
        ["dpkg-query", "-W", "-f", "${Version}", "linux-source-6.12"],
        capture_output=True, text=True).stdout or "?"
    kernels = ("Debian's configuration (linux-config-6.12, "
               "scripts/build-distro-kernel.sh), stock and patched"
               if DISTRO else "tinyconfig + qemu/kernel.config + "
               "qemu/bench.config (+ qemu/denywrite.config)")
    out = [f"make bench{'-distro' if DISTRO else ''}, "
           f"{datetime.date.today()}: linux-source-6.12 {version}, kernels "
           f"{kernels}",
           f"host: {os.cpu_count()} CPUs; scripts/bench.sh took "
           f"{args.elapsed or '?'} s (kernel step and boots)"]
    for run in args.runs.split():
        for when in ("before", "after"):
            load = read(os.path.join(args.dir, f"{run}.load-{when}"))
            if load:
                out.append(f"  {run} run, load {when}: "
                           f"{load[0].split('load average:')[-1].strip()}")
    out.append("columns:")
    out += [f"  {col:<10} {what}" for _, col, what in CONFIGS]
    out.append("")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", default="icount tcg")
    ap.add_argument("--elapsed")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--distro", action="store_true")
    ap.add_argument("dir")
    ap.add_argument("txt", nargs="?")
    ap.add_argument("csvfile", nargs="?")
    args = ap.parse_args()
    global DISTRO, CONFIGS
    if args.distro:
        DISTRO, CONFIGS = True, CONFIGS_DISTRO
    ops = operations()
    boots = load(args.dir, args.runs.split())
    problems, text, rows = [], header(args), []
    for run in args.runs.split():
        p = params(args.dir, run)
        for b in boots[run]:
            problems += b.problems
        cs = cells(run, boots[run], ops, p, problems)
        if args.markdown:
            print("\n".join(markdown(cs, ops)))
            return 0
        text += run_text(run, cs, ops, p, boots[run])
        if DISTRO and run == "icount":
            text += targets_text(cs, ops)
            problems += lsm_problems(boots[run])
            problems += memory_problems(boots[run])
        for (cfg, op), c in cs.items():
            r = ratio(cs, cfg, op)
            rows.append([run, cfg, op, ITERS.get((run, op), ""), c.n,
                         f"{c.median:.1f}", f"{c.min:.1f}",
                         f"{c.max:.1f}", f"{c.spread:.2f}",
                         "" if r is None else f"{r:.4f}"])
    if "icount" in boots:
        text += memory_text(boots["icount"])
    text.append(f"problems: {len(problems)}")
    text += [f"  {p}" for p in problems]
    print("\n".join(text))
    if args.txt:
        with open(args.txt, "w") as f:
            f.write("\n".join(text) + "\n")
    if args.csvfile:
        with open(args.csvfile, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["run", "config", "op", "iterations", "rounds",
                        "median_ns",
                        "min_ns", "max_ns", "spread_pct", "ratio_to_stock"])
            w.writerows(rows)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
