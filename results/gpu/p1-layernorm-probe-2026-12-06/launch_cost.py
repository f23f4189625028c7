"""Host cost of one launch, plain against autotuned (config cached), for the
three kernels of pop_layernorm_fwd_bwd at [4096, 1536]: 2000 launches back to
back, then one synchronize; per-launch wall time, median of 5 such runs.
Usage: python3 launch_cost.py (in this folder, after probe.py's versions)."""
import statistics
import time

import torch
import triton

from probe import Pinned, load

HERE = __file__.rsplit("/", 1)[0] or "."


def per_launch_us(fn, n=2000, runs=5):
    fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize()
        out.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(out)


M, N = 4096, 1536
for name in ("v0", "p1_all"):
    mod = load(name)
    x, w, b, dy, eps = mod.make_inputs(M, N)
    y = torch.empty_like(x)
    mean = torch.empty(M, dtype=torch.float32, device="cuda")
    rstd = torch.empty(M, dtype=torch.float32, device="cuda")
    mod.layernorm_fwd_bwd(x, w, b, dy, eps)   # tunes, compiles
    k = mod._layernorm_fwd_kernel
    if name == "v0":
        fwd = lambda: k[(M,)](x, y, w, b, mean, rstd, x.stride(0), y.stride(0), N, eps,
                              BLOCK_N=mod.BLOCK_N, num_warps=mod.NUM_WARPS)
    else:
        fwd = lambda: k[(M,)](x, y, w, b, mean, rstd, x.stride(0), y.stride(0), N, eps)
    whole = lambda: mod.layernorm_fwd_bwd(x, w, b, dy, eps)
    print(f"{name:7s} forward launch {per_launch_us(fwd):7.1f} us   whole fwd+bwd call {per_launch_us(whole, n=300):7.1f} us",
          flush=True)
    if name == "p1_all":
        cfg = k.best_config
        raw = lambda: k.fn[(M,)](x, y, w, b, mean, rstd, x.stride(0), y.stride(0), N, eps, **cfg.all_kwargs())
        print(f"{'p1 raw':7s} forward launch {per_launch_us(raw):7.1f} us (the tuner's choice, tuner bypassed)", flush=True)
        # the whole call with all three tuners bypassed, each at its choice
        for kn in ("_layernorm_fwd_kernel", "_layernorm_bwd_kernel", "_layernorm_dwdb_reduce_kernel"):
            setattr(mod, kn, Pinned(getattr(mod, kn)))
        print(f"{'p1 raw':7s} whole fwd+bwd call {per_launch_us(whole, n=300):7.1f} us (all three tuners bypassed)",
              flush=True)
