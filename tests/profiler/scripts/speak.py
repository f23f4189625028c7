#!/usr/bin/env python3
"""Speaks the record protocol on $TILEADVISE_RECORD_FD like the injector would,
for the runner tests. Usage: speak.py MODE
  good       hello, 3 kernels, bye
  messy      hello, a kernel, garbage, a kernel split over writes, unknown type,
             a kernel missing fields, a truncated last line
  close      hello, closes the record fd, keeps printing to stdout, exits 0
  replay F   the part of a saved stream F (tileadvise --save-records) that
             this run would write: the timed run, or with TILEADVISE_DEEP=pc
             or =sol that --deep run (parts end at their "run" lines);
             saved output lines go to stdout. Stands in for the injector
             and a GPU in the advisor's --deep tests.
"""
import os
import sys
import time

fd = int(os.environ["TILEADVISE_RECORD_FD"])
pid = os.getpid()


def kernel(name, start, dur, grid=(64, 1, 1), block=(128, 1, 1)):
    return ('{"type":"kernel","pid":%d,"name":"%s","start":%d,"end":%d,'
            '"grid":[%d,%d,%d],"block":[%d,%d,%d],"regs":32,"smem_static":0,'
            '"smem_dynamic":1024,"local":0,"device":0,"stream":7,"corr":1,'
            '"graph":0,"graph_node":0}\n' % ((pid, name, start, start + dur) + grid + block))


def w(s):
    os.write(fd, s.encode())


mode = sys.argv[1]
if mode == "replay":
    import json
    want = {"pc": "pc", "sol": "sol"}.get(os.environ.get("TILEADVISE_DEEP", ""), "timed")
    print("deep kernels:", os.environ.get("TILEADVISE_DEEP_KERNELS", "(none)"), flush=True)
    part = []
    with open(sys.argv[2]) as f:
        for line in f:
            rec = json.loads(line)
            if rec.get("type") == "run":
                if rec.get("mode") == want:
                    break
                part = []
            elif rec.get("type") == "output":
                part.append(("out", rec.get("line", "")))
            else:
                part.append(("rec", line))
    for kind, text in part:
        if kind == "out":
            print(text, flush=True)
        else:
            w(text)
    sys.exit(0)
w('{"type":"hello","v":1,"pid":%d,"cupti":130001,"driver":13000}\n' % pid)
if mode == "good":
    for i in range(3):
        w(kernel("add_kernel", 1000 * i, 100 + i))
    w('{"type":"bye","pid":%d,"written":5,"dropped":0,"lost":0}\n' % pid)
elif mode == "messy":
    w(kernel("add_kernel", 0, 100))
    w("this is not json\n")
    line = kernel("add_kernel", 1000, 101)
    w(line[:17])
    time.sleep(0.05)
    w(line[17:40])
    time.sleep(0.05)
    w(line[40:])
    w('{"type":"future","x":1}\n')
    w('{"type":"kernel","name":"add_kernel"}\n')
    w(kernel("add_kernel", 2000, 102)[:30])
elif mode == "close":
    os.close(fd)
    for i in range(1000):
        print("still running", i)
sys.stdout.flush()
