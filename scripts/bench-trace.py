# bench-trace.py - gdb script of scripts/bench-trace.sh: stops at the
# BT_NTH-th call of each function of BT_FUNCS (comma-separated), steps
# through it instruction by instruction, callees included, until it
# returns, and writes "FUNCTION PC" lines to BT_OUT.
import os

import gdb

funcs = os.environ["BT_FUNCS"].split(",")
nth = int(os.environ.get("BT_NTH", "1000"))
addr = {int(gdb.parse_and_eval("(long)&%s" % f)) & 0xffffffffffffffff: f
        for f in funcs}
breaks = [gdb.Breakpoint("*0x%x" % a) for a in addr]
seen = dict.fromkeys(funcs, 0)
done = set()


def pc():
    return int(gdb.parse_and_eval("$pc")) & 0xffffffffffffffff


with open(os.environ["BT_OUT"], "w") as out:
    gdb.execute("continue", to_string=True)
    while len(done) < len(funcs):
        f = addr.get(pc())
        if f and f not in done:
            seen[f] += 1
            if seen[f] == nth:
                for b in breaks:
                    b.enabled = False
                sp0 = int(gdb.parse_and_eval("$sp"))
                while True:
                    out.write("%s %x\n" % (f, pc()))
                    gdb.execute("stepi", to_string=True)
                    if int(gdb.parse_and_eval("$sp")) > sp0:
                        break
                for b in breaks:
                    b.enabled = True
                done.add(f)
        gdb.execute("continue", to_string=True)
gdb.execute("kill")
