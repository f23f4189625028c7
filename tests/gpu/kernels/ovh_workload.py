"""Overhead workload (issue 19): a launch-bound part (tiny adds, LAUNCH
launches per region) and a GPU-bound part (adds of 2^26 floats, GPU
launches per region), each timed REGIONS times in this one process; prints
`RESULT {json}` with the median region of each, so that one process start
gives a steadier sample than one region would.
Usage: ovh_workload.py [REGIONS] [LAUNCH] [GPU]

OVH_MAIN_CPU=C OVH_HELPER_CPUS=A,B,...: before each region the launching
thread is pinned to CPU C alone and every other thread of the process (the
profiler's, CUPTI's, the driver's) to the helper CPUs, so that the launch
loop always runs on the same core and nothing of ours or the profiler's
shares it: a thread that migrates between cores of unequal speed was the
likeliest cause of the step changes seen inside one process."""
import json
import os
import statistics
import sys
import threading
import time

import torch
import triton
import triton.language as tl


@triton.jit
def tiny_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def pin():
    main = os.environ.get("OVH_MAIN_CPU")
    if not main:
        return
    helpers = {int(c) for c in os.environ["OVH_HELPER_CPUS"].split(",") if c}
    me = threading.get_native_id()
    for tid in os.listdir("/proc/self/task"):
        try:
            os.sched_setaffinity(int(tid), {int(main)} if int(tid) == me else helpers)
        except OSError:
            pass   # a thread that ended meanwhile


def regions(fn, count, iters):
    out = []
    for _ in range(count):
        pin()   # threads started since the last region are moved too
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        out.append(time.perf_counter() - t0)
    return out


def emit(js):
    """The RESULT line on stdout and, under a profiler that keeps the child's
    output in its log, also in the file $OVH_RESULT."""
    print("RESULT " + js, flush=True)
    if os.environ.get("OVH_RESULT"):
        with open(os.environ["OVH_RESULT"], "a") as f:
            f.write("RESULT " + js + "\n")


def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    launch = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
    gpu = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    small, big = 4096, 1 << 26
    xs, ys = torch.rand(small, device="cuda"), torch.rand(small, device="cuda")
    xb, yb = torch.rand(big, device="cuda"), torch.rand(big, device="cuda")
    os_, ob = torch.empty_like(xs), torch.empty_like(xb)

    def lb():
        tiny_add[(triton.cdiv(small, 1024),)](xs, ys, os_, small, BLOCK=1024, num_warps=4)

    def gb():
        tiny_add[(triton.cdiv(big, 1024),)](xb, yb, ob, big, BLOCK=1024, num_warps=4)

    pin()
    lb()
    gb()
    torch.testing.assert_close(ob, xb + yb)
    lr = regions(lb, count, launch)
    gr = regions(gb, count, gpu)
    emit(json.dumps({"launch_s": statistics.median(lr), "gpu_s": statistics.median(gr),
                                  "launch_regions": lr, "gpu_regions": gr}))


if __name__ == "__main__":
    main()
