#!/usr/bin/env python3
"""Check a distribution kernel's .config against Debian's configuration.

distro-config-check.py check stock|patched SRC DEBIAN-CONFIG DOT-CONFIG
    Run by scripts/build-distro-kernel.sh after olddefconfig and
    localmodconfig.  Prints a summary and every difference from Debian's
    configuration, writes them to DOT-CONFIG.diff, and exits 1 if one of
    them may not differ:

    1. The security options, compared one by one: CONFIG_LSM,
       CONFIG_SECURITY, every CONFIG_SECURITY_*, CONFIG_SECURITYFS,
       CONFIG_IMA*, CONFIG_EVM*, CONFIG_INTEGRITY*, CONFIG_BPF_LSM,
       CONFIG_JUMP_LABEL, the lockdown options (CONFIG_LOCK_DOWN_*) and
       the module signing options (CONFIG_MODULE_SIG*).  The only
       differences allowed are denywrite's, in the patched kernel:
       CONFIG_SECURITY_DENYWRITE=y and ",denywrite" appended to
       CONFIG_LSM; and the options Debian's shipped file does not list
       at all (see 4).
    2. Every option Debian builds in (=y, or a string or a number) that
       is defined in the core: security/, mm/, fs/Kconfig* (the VFS, not
       a filesystem's own directory nor the network filesystems' options
       there), init/, kernel/, arch/ (but arch/x86/kvm/): the same value.
    3. Every option Debian has as a module (=m) is still a module or is
       off (trimmed by localmodconfig); none becomes built in.
    4. No option Debian leaves off is on, but those Debian's shipped file
       does not list at all and the kernel's defaults set:
       CONFIG_MODULE_SIG_ALL, CONFIG_MODULE_SIG_KEY (the build generates a
       throwaway key and signs the modules with it),
       CONFIG_SYSTEM_TRUSTED_KEYS (none) and CONFIG_BUILD_SALT.

    Allowed, and listed: built-in options of drivers/, net/, a
    filesystem's directory, block/, crypto/, lib/ and the like that went
    off with the modules they belong to (a driver's sub-options, the
    library a trimmed module selected).

distro-config-check.py turned-on DEBIAN-CONFIG DOT-CONFIG
    The options Debian leaves off that DOT-CONFIG has on (but those of
    4. and CONFIG_SECURITY_DENYWRITE), one a line, without CONFIG_: the
    build script turns them off again after localmodconfig.
"""
import os
import re
import sys

SECURITY = re.compile(r"^CONFIG_(LSM|SECURITY|SECURITY_\w+|SECURITYFS|IMA\w*|"
                      r"EVM\w*|INTEGRITY\w*|BPF_LSM|JUMP_LABEL|LOCK_DOWN_\w+|"
                      r"MODULE_SIG\w*)$")
NEW_ALLOWED = {"CONFIG_MODULE_SIG_ALL", "CONFIG_MODULE_SIG_KEY",
               "CONFIG_SYSTEM_TRUSTED_KEYS", "CONFIG_BUILD_SALT"}
CORE = re.compile(r"^(security/|mm/|fs/Kconfig|init/|kernel/|arch/(?!x86/kvm/))")
# Options of fs/Kconfig's "Network File Systems" menu belong to those
# filesystems (modules), not to the VFS.
NETFS = re.compile(r"^CONFIG_(NFS|NFSD|LOCKD|SUNRPC|RPCSEC|GRACE|CIFS|SMB|CEPH|"
                   r"9P|AFS|CODA)")
LINE = re.compile(r"^(CONFIG_\w+)=(.*)$")
UNSET = re.compile(r"^# (CONFIG_\w+) is not set$")
DEFINE = re.compile(r"^\s*(?:menu)?config\s+(\w+)\s*$")


def parse(path):
    """{name: value}; "n" for an option that is not set."""
    out = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            m = LINE.match(line)
            if m:
                out[m.group(1)] = m.group(2)
                continue
            m = UNSET.match(line)
            if m:
                out[m.group(1)] = "n"
    return out


def definitions(src):
    """{CONFIG_NAME: [Kconfig files defining it, relative to src]}."""
    out = {}
    for d, dirs, files in os.walk(src):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        for f in files:
            if not f.startswith("Kconfig"):
                continue
            p = os.path.join(d, f)
            rel = os.path.relpath(p, src)
            with open(p, errors="replace") as fh:
                for line in fh:
                    m = DEFINE.match(line)
                    if m:
                        out.setdefault("CONFIG_" + m.group(1), []).append(rel)
    return out


def val(d, k):
    return d.get(k, "n")


def turned_on(deb, cfg):
    return [k for k in sorted(cfg) if val(deb, k) == "n" and
            val(cfg, k) != "n" and not (k in NEW_ALLOWED and k not in deb)
            and k != "CONFIG_SECURITY_DENYWRITE"]


def check(kind, src, deb, cfg, diff_path):
    bad, notes, gone = [], [], []
    names = sorted(set(deb) | set(cfg))
    where = definitions(src)
    deb_lsm = val(deb, "CONFIG_LSM").strip('"')
    kept = trimmed = builtin = 0
    for k in names:
        d, c = val(deb, k), val(cfg, k)
        new = k in NEW_ALLOWED and k not in deb
        if SECURITY.match(k) and not new:
            want = d
            if kind == "patched" and k == "CONFIG_LSM":
                want = f'"{deb_lsm},denywrite"'
            if kind == "patched" and k == "CONFIG_SECURITY_DENYWRITE":
                want = "y"
            if c != want:
                bad.append(f"security option {k}: Debian {d}, want {want}, "
                           f".config has {c}")
            elif c != d:
                notes.append(f"{k}: Debian {d}, here {c}")
            continue
        if d == "m":
            if c == "m":
                kept += 1
            elif c == "n":
                trimmed += 1
            else:
                bad.append(f"{k}: a module in Debian's configuration, "
                           f".config has {c}")
        elif d != "n":
            builtin += 1
            if c == d:
                continue
            files = where.get(k, [])
            if any(CORE.match(f) for f in files) and not NETFS.match(k):
                bad.append(f"{k} ({', '.join(files)}): built in as {d} by "
                           f"Debian, .config has {c}")
            else:
                gone.append(f"{k} ({', '.join(files) or '?'}): Debian {d}, "
                            f"here {c}")
        elif c != "n":
            if new:
                notes.append(f"{k}={c} (not in Debian's file: the kernel's "
                             "default)")
            else:
                bad.append(f"{k}: off in Debian's configuration, "
                           f".config has {c}")
    summary = (f"config: {kind} kernel from Debian's configuration: "
               f"{builtin - len(gone)} of {builtin} built-in options as "
               f"Debian's, the {len(gone)} others sub-options of trimmed "
               f"modules (outside security/, mm/, the VFS, init/, kernel/, "
               f"arch/); {kept} of {kept + trimmed} modules kept")
    with open(diff_path, "w") as f:
        f.write(summary + "\n")
        f.writelines(f"differs: {n}\n" for n in notes)
        f.writelines(f"went off with its modules: {g}\n" for g in gone)
        f.writelines(f"NOT AS DEBIAN: {b}\n" for b in bad)
    print(summary)
    for n in notes:
        print(f"config:   {n}")
    print(f"config:   (the list of what went off: {diff_path})")
    for b in bad:
        print(f"config: NOT AS DEBIAN: {b}", file=sys.stderr)
    return 1 if bad else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "turned-on":
        print("\n".join(k[len("CONFIG_"):] for k in
                        turned_on(parse(sys.argv[2]), parse(sys.argv[3]))))
        return 0
    if len(sys.argv) == 6 and sys.argv[1] == "check" and \
            sys.argv[2] in ("stock", "patched"):
        kind, src, deb_path, cfg_path = sys.argv[2:6]
        return check(kind, src, parse(deb_path), parse(cfg_path),
                     cfg_path + ".diff")
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
