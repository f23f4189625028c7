"""Why is P1 1.9x slower on pop_layernorm_fwd_bwd at [4096, 1536] and 1.2x
faster at [8192, 8192]? (issue 27, probe)

For each version file given (v0.py: the kernel as written, v1.py: after P1),
at each bench size: the do_bench median of the whole forward+backward (as
walkpays.py times it), the host's wall time per call when the GPU is not
waited for (the call's Python cost), each kernel's GPU time from
torch.profiler, and the config each autotuner chose.
Usage: python3 tests/gpu/probes/layernorm_p1.py v0.py v1.py ...
"""
import importlib.util
import sys
import time

import torch
import triton
from triton.runtime.autotuner import Autotuner


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def host_us(fn, args, n=200):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn(*args)
    host = (time.perf_counter() - t) / n * 1e6
    torch.cuda.synchronize()
    wall = (time.perf_counter() - t) / n * 1e6
    return host, wall


def kernel_us(fn, args, n=20):
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            fn(*args)
        torch.cuda.synchronize()
    out = {}
    for e in prof.key_averages():
        if e.device_type.name == "CUDA" or getattr(e, "self_device_time_total", 0):
            t = getattr(e, "self_device_time_total", None)
            if t is None:
                t = e.self_cuda_time_total
            if t:
                out[e.key] = (t / n, e.count // n)
    return out


def main():
    for i, path in enumerate(sys.argv[1:]):
        mod = load(path, f"ver{i}")
        fn = getattr(mod, mod.ENTRY)
        for size in mod.BENCH_SIZES:
            args = mod.make_inputs(*size)
            fn(*args)
            fn(*args)
            ms = triton.testing.do_bench(lambda: fn(*args), rep=200)
            host, wall = host_us(fn, args)
            print(f"{path} {list(size)}: do_bench {ms * 1000:.1f} us; host {host:.1f} us/call, "
                  f"wall {wall:.1f} us/call")
            for k, (t, c) in sorted(kernel_us(fn, args).items(), key=lambda kv: -kv[1][0]):
                print(f"    {t:9.1f} us  x{c}  {k[:90]}")
        for name in dir(mod):
            obj = getattr(mod, name)
            if isinstance(obj, Autotuner):
                for key, cfg in obj.cache.items():
                    print(f"  {name} {key}: {cfg}")


if __name__ == "__main__":
    main()
