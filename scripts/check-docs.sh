#!/bin/sh
# check-docs.sh KERNEL_TREE
#
# The lint of the documentation the series adds; fails on any
# problem and says what:
# - Documentation/admin-guide/LSM/denywrite.rst (the admin guide) and
#   Documentation/security/denywrite.rst (the design document) are each
#   parsed with docutils (python3-docutils) at halt level "warning", as
#   `rst2html --halt=warning` would: the first warning (a title underline
#   too short, a bad indent, an unknown directive...) fails it.
#   Sphinx's and the kernel's own roles and directives are registered:
#   kernel-doc runs KERNEL_TREE's scripts/kernel-doc -rst on the file it
#   names, as the kernel's Sphinx extension does, and its output is
#   parsed in place, so the included text is checked too; the others are
#   accepted as they are.  Titles must be underlined (and overlined)
#   exactly as long as they are, and the first line is an
#   SPDX-License-Identifier.
# - Every file an rst includes with kernel-doc is checked with
#   scripts/kernel-doc -none -Wall, and each name it asks for (:doc:,
#   :identifiers:, :functions:) must be found (kernel-doc -rst -function).
#   A path is the project's copy (security/denywrite/...), which
#   scripts/prepare-tree.sh copies into the tree, else the tree's.
# - Every file of the denywrite_files[] table of
#   security/denywrite/securityfs.c is named "NAME (MODE)" in the DOC
#   section the admin guide includes.
# - Documentation/ABI/testing/securityfs-denywrite: every entry has What:,
#   Date:, Contact: and Description:, in that order; every other line is
#   indented; there is exactly one entry for each file of that table and
#   none for another, and each says the file's mode; KERNEL_TREE's
#   scripts/get_abi.pl validates it, and the ReST it makes of it parses
#   with docutils at halt level "warning" too.
# - The documentation's patch (the one patch of patches/ that changes
#   Documentation/security/index.rst) adds the admin guide to the LSM
#   index and the design document to the security index.
# - The cover letter and every patch's changelog carry no project log (a
#   test count, a run time, "fresh clone", "last passed") and no
#   checkpatch note above the "---".
#
# The kernel tree is build/linux once `make kernel` ran; scripts/test.sh
# runs this as the step docs_lint_is_clean.
set -eu
[ $# = 1 ] || { echo "usage: $0 KERNEL_TREE" >&2; exit 2; }
tree=$(realpath "$1")
top=$(cd "$(dirname "$0")/.." && pwd)
# The system's python3, which python3-docutils is for (scripts/deps.sh),
# else whichever python3 comes first in PATH and has docutils.
py=
for p in /usr/bin/python3 python3; do
	if "$p" -c 'import docutils' 2>/dev/null; then
		py=$p
		break
	fi
done
[ -n "$py" ] || {
	echo "check-docs: python3-docutils is not installed (make deps)" >&2
	exit 1
}
[ -x "$tree/scripts/kernel-doc" ] || {
	echo "check-docs: $tree/scripts/kernel-doc: not found (make kernel)" >&2
	exit 1
}
exec "$py" - "$top" "$tree" <<'EOF'
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile

import docutils
from docutils import nodes, statemachine, utils
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles

top, tree = sys.argv[1:3]
RST = "Documentation/admin-guide/LSM/denywrite.rst"
DESIGN = "Documentation/security/denywrite.rst"
# The rsts linted: the admin guide (with the securityfs DOC section) and
# the design document.
RSTS = (RST, DESIGN)
ABI = "Documentation/ABI/testing/securityfs-denywrite"
SECURITYFS = "security/denywrite/securityfs.c"
SFS_DIR = "/sys/kernel/security/denywrite/"
KERNEL_DOC = os.path.join(tree, "scripts/kernel-doc")
# Debian 12's Sphinx, for the dialect kernel-doc writes (and no warning
# that it could not find one).
SPHINX_VERSION = "5.3.0"

problems = []


def problem(what):
    problems.append(what)
    print("check-docs: " + what, file=sys.stderr)


def source(rel):
    """The file a kernel-doc directive names: the project's, else the tree's."""
    for base in (top, tree):
        path = os.path.join(base, rel)
        if os.path.isfile(path):
            return path
    return None


def kernel_doc(args, path):
    """Run scripts/kernel-doc: its exit code, output and diagnostics."""
    r = subprocess.run([KERNEL_DOC] + args + [path], capture_output=True,
                       text=True)
    return r.returncode, r.stdout, [l for l in r.stderr.splitlines() if l]


# The rst text of each DOC section included, by rst and name.
doc_sections = {}
# The rst being parsed, for the kernel-doc directive.
current_rst = RST


def kernel_doc_args(options):
    """kernel-doc's arguments for a directive's options, as the kernel's
    Sphinx extension makes them, and the names it asks for."""
    args, names = [], []
    if "functions" in options:
        options = dict(options, identifiers=options["functions"])
    if "export" in options:
        args.append("-export")
    elif "internal" in options:
        args.append("-internal")
    elif "doc" in options:
        names = [options["doc"]]
    elif "identifiers" in options:
        names = options["identifiers"].split()
        if not names:
            args.append("-no-doc-sections")
    for name in names:
        args += ["-function", name]
    for name in (options.get("no-identifiers") or "").split():
        args += ["-nosymbol", name]
    return args, names


class KernelDoc(Directive):
    """The kernel's kernel-doc directive (Documentation/sphinx/kerneldoc.py):
    kernel-doc's output is parsed in place."""
    required_arguments = 1
    optional_arguments = 4
    option_spec = {
        "doc": directives.unchanged_required,
        "export": directives.unchanged,
        "internal": directives.unchanged,
        "identifiers": directives.unchanged,
        "no-identifiers": directives.unchanged,
        "functions": directives.unchanged,
    }
    has_content = False

    def run(self):
        path = source(self.arguments[0])
        if not path:
            return []
        args, names = kernel_doc_args(self.options)
        rc, out, err = kernel_doc(
            ["-rst", "-sphinx-version", SPHINX_VERSION] + args, path)
        # kernel-doc's own complaints are reported below, for every
        # directive of the rst, whether or not the parse reaches it.
        if rc or err or not out.strip():
            return []
        if "doc" in self.options:
            doc_sections[(current_rst, names[0])] = out
        lines = statemachine.string2lines(
            out, self.state.document.settings.tab_width,
            convert_whitespace=True)
        view = statemachine.ViewList()
        for i, line in enumerate(lines):
            view.append(line, "%s (kernel-doc of %s)" % (current_rst, path),
                        i)
        node = nodes.section()
        self.state.nested_parse(view, 0, node, match_titles=1)
        return node.children


class Accepted(Directive):
    """A Sphinx directive, accepted as it is (its content is not checked)."""
    required_arguments = 0
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = None
    has_content = True

    def run(self):
        return []


class AnyOption(dict):
    def __missing__(self, key):
        return directives.unchanged


Accepted.option_spec = AnyOption()


def accepted_role(name, rawtext, text, lineno, inliner, options={},
                  content=[]):
    return [nodes.literal(rawtext, text)], []


directives.register_directive("kernel-doc", KernelDoc)
for name in ("toctree", "only", "kernel-abi", "kernel-feat", "kernel-include",
             "c:function", "c:macro", "c:struct", "c:type", "c:enum",
             "c:var", "c:member", "code-block", "highlight", "index",
             "tabularcolumns", "cssclass"):
    directives.register_directive(name, Accepted)
for name in ("doc", "ref", "manpage", "menuselection", "kbd", "file",
             "envvar", "c:func", "c:type", "c:macro", "c:data", "c:member",
             "c:struct", "c:enum", "c:union", "c:expr"):
    roles.register_local_role(name, accepted_role)

# --- each rst, with what it includes ----------------------------------------


def lint_rst(rel):
    """Parse @rel as the kernel's documentation build would, and check the
    kernel-doc of every file it includes.  Return whether the parse went
    through (a parse that halts at a warning reaches none of what follows
    it) and the number of its kernel-doc directives."""
    global current_rst
    current_rst = rel
    parsed = True
    rst_path = os.path.join(top, rel)
    try:
        with open(rst_path, encoding="utf-8") as f:
            rst = f.read()
    except OSError as e:
        problem("%s: %s" % (rel, e))
        rst = None
    if rst is not None:
        if not rst.startswith(".. SPDX-License-Identifier: "):
            problem("%s:1: no SPDX-License-Identifier line first" % rel)
        # docutils minds only an underline too short: the kernel's style
        # is an underline (and an overline) exactly as long as the title.
        text = rst.splitlines()
        for n in range(1, len(text)):
            line, title = text[n], text[n - 1]
            if not re.fullmatch(r"([=\-~^\"'`#*+])\1{2,}", line) or \
                    not title.strip() or title[0] in " \t" or \
                    re.fullmatch(r"([=\-~^\"'`#*+])\1{2,}", title):
                continue
            if len(line) != len(title):
                problem("%s:%d: a title of %d characters, underlined with %d"
                        % (rel, n + 1, len(title), len(line)))
            if n >= 2 and \
                    re.fullmatch(r"([=\-~^\"'`#*+])\1{2,}", text[n - 2]) \
                    and text[n - 2] != line:
                problem("%s:%d: overline and underline differ" % (rel, n - 1))
        try:
            publish_doctree(rst, source_path=rst_path, settings_overrides={
                "halt_level": 2, "report_level": 2, "input_encoding": "utf-8",
                "file_insertion_enabled": False, "raw_enabled": False,
                "warning_stream": io.StringIO()})
        except utils.SystemMessage as e:
            problem("docutils %s: %s" % (docutils.__version__, e))
            parsed = False

    # kernel-doc on every file included, and every name asked for.  The
    # directives, read from the text: (line, path, options).
    included = []
    lines = (rst or "").splitlines()
    for n, line in enumerate(lines):
        m = re.match(r"^\.\.\s+kernel-doc::\s*(\S+)\s*$", line)
        if not m:
            continue
        options = {}
        for opt in lines[n + 1:]:
            o = re.match(r"^\s+:([\w-]+):\s*(.*?)\s*$", opt)
            if not o:
                break
            options[o.group(1)] = o.group(2)
        included.append((n + 1, m.group(1), options))
    for n, inc, options in included:
        path = source(inc)
        if not path:
            problem("%s:%d: kernel-doc:: %s: no such file in %s or %s"
                    % (rel, n, inc, top, tree))
            continue
        if path not in checked:
            checked.add(path)
            rc, out, err = kernel_doc(["-none", "-Wall"], path)
            if rc or err:
                problem("kernel-doc -none -Wall %s: exit %d: %s"
                        % (inc, rc, "; ".join(err)))
        args, names = kernel_doc_args(options)
        rc, out, err = kernel_doc(
            ["-rst", "-sphinx-version", SPHINX_VERSION] + args, path)
        if rc or err or not out.strip():
            problem("%s:%d: kernel-doc -rst %s %s: exit %d, %s"
                    % (rel, n, " ".join(args), inc, rc,
                       "; ".join(err) if err else "no output"))
    return parsed, len(included)


# The files kernel-doc -none -Wall checked, each once.
checked = set()
linted = {rel: lint_rst(rel) for rel in RSTS}
parsed = linted[RST][0]

# --- the securityfs files: the code's table, its DOC section, the ABI -------
sfs_path = os.path.join(top, SECURITYFS)
with open(sfs_path, encoding="utf-8") as f:
    sfs = f.read()
table = re.search(r"\}\s*denywrite_files\[\]\s*=\s*\{(.*?)\n\};", sfs, re.S)
files = dict(re.findall(r'\{\s*"([^"]+)",\s*(0[0-7]+),', table.group(1))) \
    if table else {}
if not files:
    problem("%s: no denywrite_files[] table found" % SECURITYFS)
doc = doc_sections.get((RST, "securityfs interface"))
if doc is None:
    if parsed:
        problem("%s does not include the DOC section \"securityfs interface\" of %s"
                % (RST, SECURITYFS))
else:
    for name, mode in files.items():
        if not re.search(r"^%s \(%s\)$" % (re.escape(name), mode), doc, re.M):
            problem("%s: DOC: securityfs interface: no \"%s (%s)\""
                    % (SECURITYFS, name, mode))

FIELDS = ("What", "Date", "KernelVersion", "Contact", "Description", "Users")
REQUIRED = ("What", "Date", "Contact", "Description")
abi_path = os.path.join(top, ABI)
entries = []
try:
    with open(abi_path, encoding="utf-8") as f:
        abi = f.read().splitlines()
except OSError as e:
    problem("%s: %s" % (ABI, e))
    abi = []
entry, field = None, None
for n, line in enumerate(abi, 1):
    m = re.match(r"^([A-Za-z]+):(\s*)(.*)$", line)
    if m and m.group(1) in FIELDS:
        name, value = m.group(1), m.group(3).strip()
        if name == "What" and (entry is None or field != "What"):
            entry = {"line": n, "fields": [], "What": [], "text": ""}
            entries.append(entry)
        if entry is None:
            problem("%s:%d: %s: before the first What:" % (ABI, n, name))
            continue
        if name == "What":
            entry["What"].append(value)
        elif name in entry:
            problem("%s:%d: %s: twice in one entry" % (ABI, n, name))
        else:
            entry[name] = value
        entry["fields"].append(name)
        entry["text"] += value + "\n"
        field = name
    elif line.strip() == "":
        if entry is not None:
            entry["text"] += "\n"
    elif line[0] in " \t":
        if entry is None or field not in ("Description", "Users"):
            problem("%s:%d: an indented line outside a Description: or Users:"
                    % (ABI, n))
        else:
            entry["text"] += line.strip() + "\n"
            entry[field] += " " + line.strip()
    else:
        problem("%s:%d: neither a field (%s) nor indented: %r"
                % (ABI, n, ", ".join(FIELDS), line))
if abi and not entries:
    problem("%s: no entry" % ABI)
documented = {}
for e in entries:
    where = "%s:%d" % (ABI, e["line"])
    for name in REQUIRED:
        if not e.get(name):
            problem("%s: no %s:" % (where, name))
    order = [f for f in dict.fromkeys(e["fields"]) if f in REQUIRED]
    if order != [f for f in REQUIRED if f in order]:
        problem("%s: fields in the order %s, not %s"
                % (where, ", ".join(order), ", ".join(REQUIRED)))
    if e.get("Date") and not re.fullmatch(
            r"(January|February|March|April|May|June|July|August|September"
            r"|October|November|December) \d{4}", e["Date"]):
        problem("%s: Date: %r is not \"Month YYYY\"" % (where, e["Date"]))
    for what in e["What"]:
        if not what.startswith(SFS_DIR):
            problem("%s: What: %s is not under %s" % (where, what, SFS_DIR))
            continue
        name = what[len(SFS_DIR):]
        if name in documented:
            problem("%s: What: %s: also at line %d"
                    % (where, what, documented[name]["line"]))
        documented[name] = e
for name, mode in files.items():
    e = documented.get(name)
    if e is None:
        problem("%s: no entry for %s%s, which %s creates"
                % (ABI, SFS_DIR, name, SECURITYFS))
    elif not re.search(r"\b%s\b" % mode, e["text"]):
        problem("%s:%d: %s%s: its mode %s is not said"
                % (ABI, e["line"], SFS_DIR, name, mode))
for name in documented:
    if files and name not in files:
        problem("%s:%d: %s%s: %s creates no such file"
                % (ABI, documented[name]["line"], SFS_DIR, name, SECURITYFS))

# The ABI as the kernel's documentation build renders it: get_abi.pl's ReST
# of this one file must come without a warning and parse without one.  It
# runs in the temporary directory on ".": the ReST names the file by the
# path it was given, and a random directory name with a "_" in it would
# read as a ReST reference.
get_abi = os.path.join(tree, "scripts/get_abi.pl")
if os.path.isfile(abi_path) and os.path.isfile(get_abi):
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "testing"))
        shutil.copy(abi_path, os.path.join(tmp, "testing"))
        for cmd in ("validate", "rest"):
            r = subprocess.run(["perl", get_abi, "--dir", ".", cmd],
                               cwd=tmp, capture_output=True, text=True)
            err = [l for l in r.stderr.splitlines() if l]
            if r.returncode or err:
                problem("scripts/get_abi.pl %s %s: exit %d: %s"
                        % (cmd, ABI, r.returncode, "; ".join(err)))
        if not r.stdout.strip():
            problem("scripts/get_abi.pl rest %s: no output" % ABI)
        else:
            try:
                publish_doctree(r.stdout, source_path=ABI + " (get_abi.pl rest)",
                                settings_overrides={
                                    "halt_level": 2, "report_level": 2,
                                    "warning_stream": io.StringIO()})
            except utils.SystemMessage as e:
                problem("docutils %s: %s" % (docutils.__version__, e))

# --- the indexes --------------------------------------------------------------
doc_patch = [p for p in sorted(os.listdir(os.path.join(top, "patches")))
             if p.endswith(".patch") and "\n+++ b/Documentation/security/index.rst"
             in open(os.path.join(top, "patches", p), encoding="utf-8").read()]
if len(doc_patch) != 1:
    problem("patches/: %d patches add to Documentation/security/index.rst, "
            "not one (the documentation's)" % len(doc_patch))
else:
    with open(os.path.join(top, "patches", doc_patch[0]), encoding="utf-8") as f:
        patch = f.read()
    for rst in ("Documentation/admin-guide/LSM/index.rst",
                "Documentation/security/index.rst"):
        index = re.search(r"^\+\+\+ b/%s\n(.*?)(?=^diff |\Z)"
                          % re.escape(rst), patch, re.S | re.M)
        if not index or not re.search(r"^\+\s+denywrite$", index.group(1),
                                      re.M):
            problem("patches/%s: does not add denywrite to %s"
                    % (doc_patch[0], rst))

# --- the letters to the list: no project logs ---------------------------------
# The cover letter and each patch's changelog say what the series does and
# how it is tested, not what a run of this project gave: no test counts,
# no run times, no "last passed on a fresh clone" (a date may be a
# citation: a list post's); and a checkpatch exception note goes below the
# "---", where git am drops it, not into the changelog.
LOGS = [
    (r"\b\d+ passed\b|\bpassed, \d+ failed\b", "a test count"),
    (r"\b\d+(?:\.\d+)? ?(?:s|sec|seconds?|min|minutes?|h|hours?)\b(?!-)",
     "a run time"),
    (r"\bfresh clone\b|\blast (?:passed|ran|run)\b", "a project log"),
]


def changelog(path):
    """The text a reader of the list reads: the commit message of a patch
    (from the first blank line after its headers to its "---"), or the
    whole cover letter."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".patch"):
        text = text.split("\n\n", 1)[1] if "\n\n" in text else ""
        text = re.split(r"^---$", text, maxsplit=1, flags=re.M)[0]
    return text


letters = [os.path.join("patches", "cover-letter.txt")] + sorted(
    os.path.join("patches", p) for p in os.listdir(os.path.join(top, "patches"))
    if p.endswith(".patch"))
for rel in letters:
    text = changelog(os.path.join(top, rel))
    for no, line in enumerate(text.splitlines(), 1):
        for regex, what in LOGS:
            m = re.search(regex, line)
            if m:
                problem("%s: message line %d: %s ('%s'): the list reads what "
                        "the series does, not a run's log"
                        % (rel, no, what, m.group(0)))
        if re.match(r"\s*checkpatch: ", line):
            problem("%s: message line %d: a checkpatch note above the "
                    "\"---\" goes into the commit" % (rel, no))

if problems:
    print("check-docs: %d problem%s" % (len(problems), "s"[:len(problems) != 1]),
          file=sys.stderr)
    sys.exit(1)
print("check-docs: %s (docutils %s), %s (%d entries): clean"
      % (", ".join("%s (%d kernel-doc include%s)" % (rel, n, "s"[:n != 1])
                   for rel, (_, n) in linted.items()),
         docutils.__version__, ABI, len(entries)))
EOF
