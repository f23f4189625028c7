"""Shared by the GPU test kernels: correctness check, do_bench median, the
script's own timed region, and the driver's occupancy for a compiled kernel.
Each script prints one line `RESULT {json}` on stdout."""
import ctypes
import json
import os
import time

import torch
import triton


def driver_blocks_per_sm(compiled, num_warps):
    """cuOccupancyMaxActiveBlocksPerMultiprocessor on the Triton kernel itself."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
        n = ctypes.c_int(0)
        fn = ctypes.c_void_p(compiled.function)
        shared = compiled.metadata.shared
        rc = cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(
            ctypes.byref(n), fn, ctypes.c_int(num_warps * 32), ctypes.c_size_t(shared))
        return {"rc": rc, "blocks_per_sm": n.value, "n_regs": compiled.n_regs,
                "n_spills": compiled.n_spills, "shared": shared}
    except Exception as e:  # noqa: BLE001 - report, never fail the run
        return {"error": repr(e)}


def timed(fn, iters):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    torch.cuda.synchronize()
    return time.perf_counter() - t0


def report(name, kernel_name, bench_fn, compiled=None, num_warps=4, iters=0, run_fn=None, **extra):
    out = {"name": name, "kernel": kernel_name}
    if bench_fn is not None:
        ms = triton.testing.do_bench(bench_fn, warmup=100, rep=1000, return_mode="median")
        out["do_bench_median_us"] = ms * 1e3
    if iters:
        out["timed_s"] = timed(run_fn or bench_fn, iters)
        out["iters"] = iters
    if compiled is not None:
        out["driver_occupancy"] = driver_blocks_per_sm(compiled, num_warps)
    out.update(extra)
    line = "RESULT " + json.dumps(out)
    print(line, flush=True)
    # under the profiler stdout goes to the runner's log: also leave it here
    path = os.environ.get("TA_RESULT_FILE")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")
