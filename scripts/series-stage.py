#!/usr/bin/env python3
"""series-stage.py FINAL DEST STEP [--takeover]

Write into DEST (security/denywrite/ of a commit of the series) the LSM's
files as the patch STEP of patches/series leaves them, from FINAL (the
repository's security/denywrite/): the files of every step up to STEP of
the table below, and three files as they are at that step:

  Makefile  the objects of the files there are, in the final order
  setup.c   without the includes of headers not there yet, the
            registrations of hook families not there yet, the task blob
            before the mappings' patch, and take_over_exec_denial()
            unless --takeover (patch 0020 and after: exec hands its denial over)
  hooks.h   without the registrations of hook families not there yet, and
            denywrite_check_writer() before the writers' patch

Every other file is added once, as it is in FINAL.  Fails if a file of
FINAL is in no step or in two, if a text to leave out is not found exactly
once, or if the Makefile made of every file differs from FINAL's.
"""
import os
import re
import sys

# The patches of the LSM, and the files each adds (scripts/make-series.sh).
STEPS = [
    ("0008", "Kconfig Makefile policy.h policy.c policy_test.c"),
    ("0009", "common.h protect.h protect.c protect_test.c mode.c setup.c"),
    ("0010", "log.h log.c"),
    ("0011", "hooks.h hook_lifetime.c"),
    ("0012", "decide.h decide.c hook_exec.c"),
    ("0013", "hook_write.c"),
    ("0014", "mapping.h mapping.c mapping_test.c hook_mmap.c"),
    ("0015", "securityfs.c"),
]
FAMILIES = ["lifetime", "exec", "write", "mmap"]


def fail(msg):
    sys.exit("series-stage: " + msg)


def drop(text, piece, why):
    if text.count(piece) != 1:
        fail("%s: %r occurs %d times" % (why, piece, text.count(piece)))
    return text.replace(piece, "")


def wrap(prefix, words, width=80):
    """prefix, a space and words, continued with a backslash and indented
    under the first word, each line at most width columns (a tab is 8)."""
    col = len((prefix + " ").expandtabs())
    indent = "\t" * (col // 8) + " " * (col % 8)
    lines, line = [], prefix + " " + words[0]
    for w in words[1:]:
        if len((line + " " + w + " \\").expandtabs()) > width:
            lines.append(line + " \\")
            line = indent + w
        else:
            line += " " + w
    return "\n".join(lines + [line]) + "\n"


def makefile(final, present):
    m = re.search(r"^denywrite-y := (.*?)(?<!\\)\n", final, re.S | re.M)
    k = re.search(r"^denywrite-\$\(CONFIG_SECURITY_DENYWRITE_KUNIT_TEST\) \+= "
                  r"(.*?)(?<!\\)\n", final, re.S | re.M)
    if not m or not k:
        fail("Makefile: no denywrite-y or KUnit line")
    objs = m.group(1).replace("\\", " ").split()
    tests = k.group(1).replace("\\", " ").split()
    have = lambda o: o[:-2] + ".c" in present
    head = final[:m.start()]
    text = head + wrap("denywrite-y :=", [o for o in objs if have(o)])
    kept = [o for o in tests if have(o)]
    if kept:
        text += wrap("denywrite-$(CONFIG_SECURITY_DENYWRITE_KUNIT_TEST) +=",
                     kept)
    return text


def setup_c(final, present, takeover):
    text = final
    for h in re.findall(r'^#include "([a-z_]+\.h)"$', final, re.M):
        if h not in present:
            text = drop(text, '#include "%s"\n' % h, "setup.c")
    for f in FAMILIES:
        if "hook_%s.c" % f not in present:
            text = drop(text, "\tdenywrite_add_%s_hooks();\n" % f, "setup.c")
    if "mapping.h" not in present:
        text = drop(text, "\t/* The ELF interpreter whose hold goes when exec "
                    "returns. */\n\t.lbs_task = sizeof(struct denywrite_task),\n",
                    "setup.c")
    if not takeover:
        fn = re.compile(r"/\*\n \* Exec leaves the denial of writes to running "
                        r"programs.*?\n\}\n\n", re.S)
        if len(fn.findall(text)) != 1:
            fail("setup.c has no single take_over_exec_denial()")
        text = drop(fn.sub("", text), "\ttake_over_exec_denial();\n", "setup.c")
    return text


def hooks_h(final, present):
    text = final
    for f in FAMILIES:
        if "hook_%s.c" % f not in present:
            text = drop(text, "void denywrite_add_%s_hooks(void);\n" % f,
                        "hooks.h")
    if "hook_write.c" not in present:
        text = drop(text, "int denywrite_check_writer(struct file *file);\n\n",
                    "hooks.h")
    return text


def main():
    args = [a for a in sys.argv[1:] if a != "--takeover"]
    if len(args) != 3:
        sys.exit(__doc__)
    final_dir, dest, step = args
    takeover = "--takeover" in sys.argv
    files = sorted(f for f in os.listdir(final_dir)
                   if os.path.isfile(os.path.join(final_dir, f)))
    listed = [f for _, names in STEPS for f in names.split()]
    for f in files:
        if listed.count(f) != 1:
            fail("%s is in %d steps of the table" % (f, listed.count(f)))
    for f in listed:
        if f not in files:
            fail("%s of the table is not in %s" % (f, final_dir))
    present = {f for n, names in STEPS if n <= step for f in names.split()}
    read = lambda f: open(os.path.join(final_dir, f)).read()
    if makefile(read("Makefile"), set(files)) != read("Makefile"):
        fail("the Makefile made of every file is not the repository's")
    os.makedirs(dest, exist_ok=True)
    for f in sorted(present):
        text = read(f)
        if f == "Makefile":
            text = makefile(text, present)
        elif f == "setup.c":
            text = setup_c(text, present, takeover)
        elif f == "hooks.h":
            text = hooks_h(text, present)
        with open(os.path.join(dest, f), "w") as out:
            out.write(text)


main()
