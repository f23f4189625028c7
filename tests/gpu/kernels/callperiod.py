"""Whole-call time check (issue 17 item 8): calls the attention example's
autotuned wrapper N times in a Python loop timed with perf_counter (a sync
after each call, as a latency loop would), after one call that autotunes.
Prints `RESULT {json}`: the median call (wrapper + kernel + sync) and the
median interval between the starts of successive calls, which is what the
profiler's launch-to-launch period should match.
Usage: callperiod.py [N]"""
import json
import math
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples", "attention"))
from attention import gemma_attention  # noqa: E402


def emit(js):
    """The RESULT line on stdout and, under a profiler that keeps the child's
    output in its log, also in the file $OVH_RESULT."""
    print("RESULT " + js, flush=True)
    if os.environ.get("OVH_RESULT"):
        with open(os.environ["OVH_RESULT"], "a") as f:
            f.write("RESULT " + js + "\n")


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    B, H, H_kv, S, D = 4, 32, 8, 1024, 128
    torch.manual_seed(0)
    q = torch.randn((B, H, S, D), device="cuda", dtype=torch.float16)
    k = torch.randn((B, H_kv, S, D), device="cuda", dtype=torch.float16)
    v = torch.randn((B, H_kv, S, D), device="cuda", dtype=torch.float16)
    scale = 1.0 / math.sqrt(D)
    gemma_attention(q, k, v, scale, True, 256, 10.0)   # autotunes
    torch.cuda.synchronize()
    starts, calls = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        gemma_attention(q, k, v, scale, True, 256, 10.0)
        torch.cuda.synchronize()
        starts.append(t0)
        calls.append(time.perf_counter() - t0)
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    emit(json.dumps({"calls": n, "median_call_us": statistics.median(calls) * 1e6,
                                  "median_interval_us": statistics.median(gaps) * 1e6}))


main()
