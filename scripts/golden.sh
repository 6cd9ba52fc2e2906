#!/bin/sh
# golden.sh: capture what denywrite's securityfs files read, in the fixed
# setups of tests/guest/golden.c, into tests/golden/ (make golden, which
# builds the patched kernel and the guest first).  The guest boots with
# suite golden, whose one group prints each file as "GOLDEN <file> <hex>";
# a file is written only if the whole capture succeeded.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
out=build/golden
scripts/boot.sh build/obj/arch/x86/boot/bzImage build/initramfs.cpio.gz \
	"$out" "lsm=capability,denywrite dwsuite=golden dwrun=golden" \
	build/dwfs.img || true
python3 - "$out/results.log" tests/golden <<'PY'
import os, sys
log, dest = sys.argv[1], sys.argv[2]
lines = open(log, errors="replace").read().splitlines() if os.path.exists(log) else []
files = {}
for line in lines:
    if line.startswith("GOLDEN "):
        _, name, *hexdata = line.split(" ")
        files[name] = bytes.fromhex(hexdata[0] if hexdata else "")
fails = [l for l in lines if l.startswith("FAIL ")]
if fails or "EXIT golden 0" not in lines or "END golden" not in lines:
    print("golden: the capture failed (see %s and the console log):" % log)
    print("\n".join(fails) or "  no 'EXIT golden 0' or 'END golden'")
    sys.exit(1)
for name, data in sorted(files.items()):
    with open(os.path.join(dest, name), "wb") as f:
        f.write(data)
print("golden: %d files written to %s/" % (len(files), dest))
PY
git --no-pager diff --stat -- tests/golden
