"""Launch-bound overhead measured inside one process (issue 19): regions
with the profiler off and on alternate, so that what makes one process
faster than another (seen on the H200: whole processes at two speeds,
0.15 and 0.24 s for the same 10,000 launches) divides out of the ratio.
Usage: ovh_ab.py MODE [PAIRS] [LAUNCH] [WARM]

MODE says how the profiler is switched:
  ta      between torch.cuda.profiler.start() and .stop(), the run under
          `tileadvise --profile` with TILEADVISE_CAPTURE=profiler-api;
  proton  between proton.start() and proton.finalize() (the same session
          settings as the proton command: shadow context, tree data);
  bare    the same start/stop calls with no profiler loaded: an A/A test,
          whose ratio says what the method reads when nothing differs.
Each pair is one region off and one on, off first in even pairs and on
first in odd ones, so that a steady drift cancels. A region: switch, WARM
untimed launches (what a switch itself costs stays out), synchronize, then
LAUNCH timed launches of tests/gpu/kernels/ovh_workload.py's tiny add and a
synchronize; the process's CPU time (all its threads) over the same span.
Prints `RESULT {json}` (and appends it to $OVH_RESULT) with the regions'
seconds and CPU seconds, off and on. Pinning as in ovh_workload.py."""
import json
import os
import sys
import time

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ovh_workload import emit, pin, tiny_add  # noqa: E402


class Switch:
    def __init__(self, mode, name):
        self.mode, self.name = mode, name
        if mode == "proton":
            import triton.profiler as proton
            self.proton = proton

    def on(self):
        if self.mode == "proton":
            self.proton.start(self.name, context="shadow", data="tree")
        else:
            torch.cuda.profiler.start()

    def off(self):
        if self.mode == "proton":
            self.proton.finalize()
        else:
            torch.cuda.profiler.stop()


def main():
    mode = sys.argv[1]
    pairs = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    launch = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    warm = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    small = 4096
    xs, ys = torch.rand(small, device="cuda"), torch.rand(small, device="cuda")
    out = torch.empty_like(xs)

    def lb():
        tiny_add[(triton.cdiv(small, 1024),)](xs, ys, out, small, BLOCK=1024, num_warps=4)

    sw = Switch(mode, os.environ.get("OVH_PROTON_NAME", "/tmp/ovh_ab"))
    pin()
    lb()
    torch.testing.assert_close(out, xs + ys)
    res = {"mode": mode, "pairs": pairs, "launch": launch, "warm": warm,
           "off_s": [], "on_s": [], "off_cpu": [], "on_cpu": [], "order": []}

    def region(state):
        pin()   # threads a profiler started since are moved off the launching core
        for _ in range(warm):
            lb()
        torch.cuda.synchronize()
        c0, t0 = time.process_time(), time.perf_counter()
        for _ in range(launch):
            lb()
        torch.cuda.synchronize()
        t1, c1 = time.perf_counter(), time.process_time()
        res[state + "_s"].append(t1 - t0)
        res[state + "_cpu"].append(c1 - c0)

    for i in range(pairs):
        first_on = i % 2 == 1
        res["order"].append("on-off" if first_on else "off-on")
        for state in (("on", "off") if first_on else ("off", "on")):
            if state == "on":
                sw.on()
                region("on")
                sw.off()
            else:
                region("off")
    # what the on regions launched, for the profiler's own count to be checked
    res["launches_on"] = pairs * (warm + launch)
    emit(json.dumps(res))


if __name__ == "__main__":
    main()
