"""Why is P1 slower on pop_layernorm_fwd_bwd at [4096, 1536] (0.204 -> 0.385 ms on an
H100, 2026-12-06)? Times, per size: the original, P1 at each of its three sites alone,
P1 at all three, and P1 at all three with each tuner's chosen config launched straight
(no autotuner on the call path). Two figures per case: do_bench's median (GPU time as
walkpays.py measures it) and the host's wall time per call over 300 calls. Prints the
configs each tuner chose. Usage: python3 probe.py (in this folder)."""
import importlib.util
import sys
import time

import torch
import triton

HERE = __file__.rsplit("/", 1)[0] or "."
SIZES = [(4096, 1536), (8192, 8192)]
VERSIONS = ["v0", "p1_fwd", "p1_bwd", "p1_reduce", "p1_all"]
KERNELS = ["_layernorm_fwd_kernel", "_layernorm_bwd_kernel", "_layernorm_dwdb_reduce_kernel"]


def load(name):
    spec = importlib.util.spec_from_file_location(name, f"{HERE}/{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Pinned:
    """An autotuned kernel launched with the config its tuner chose, tuner bypassed."""
    def __init__(self, tuner):
        self.tuner, self.cfg = tuner, tuner.best_config

    def __getitem__(self, grid):
        def launch(*args, **kw):
            return self.tuner.fn[grid](*args, **kw, **self.cfg.all_kwargs())
        return launch


def host_us(fn, n=300):
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6


def measure(label, mod, inputs):
    fn = lambda: mod.layernorm_fwd_bwd(*inputs)
    fn()
    ms = triton.testing.do_bench(fn, return_mode="median")
    print(f"  {label:18s} do_bench {ms * 1e3:8.1f} us   host {host_us(fn):8.1f} us/call", flush=True)


def main():
    for M, N in SIZES:
        print(f"[{M}, {N}]", flush=True)
        for v in VERSIONS:
            mod = load(v)
            inputs = mod.make_inputs(M, N)
            measure(v, mod, inputs)
            tuned = [k for k in KERNELS if hasattr(getattr(mod, k), "best_config")]
            for k in tuned:
                print(f"    {k}: {getattr(mod, k).best_config}")
            if v == "p1_all":
                for k in tuned:
                    setattr(mod, k, Pinned(getattr(mod, k)))
                out, ref = mod.layernorm_fwd_bwd(*inputs), mod.reference(*inputs)
                ok = mod._compare("pinned", out, ref)
                measure("p1_all pinned", mod, inputs)
                print(f"    pinned outputs {'match' if ok else 'DIFFER'}")


if __name__ == "__main__":
    main()
