"""Naive Triton port of a fused SwiGLU MLP front half.

out[T, F] = silu(x @ W_gate) * (x @ W_up)

One program per (BLOCK_M x BLOCK_N) output tile. The program walks the H
(reduction) dimension in BLOCK_K steps, loading one x tile and one tile of each
weight, and keeps two fp32 accumulators (gate and up). The epilogue applies
silu(g) * u in fp32 and stores the tile once. Every tensor takes per-dimension
strides.
"""
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_M = 128
BLOCK_N = 64
BLOCK_K = 32
NUM_WARPS = 4
NUM_STAGES = 3


def _swiglu_kernel_configs():
    # _swiglu_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32},
        {"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 64},
        {"BLOCK_M": 256, "BLOCK_N": 64, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=_swiglu_kernel_configs(), key=["T", "H", "NF"])
@triton.jit
def _swiglu_kernel(X, WG, WU, OUT, T, H, NF,
                   stride_xt, stride_xh,
                   stride_gh, stride_gf,
                   stride_uh, stride_uf,
                   stride_ot, stride_of,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)   # rows of x / out
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)   # columns of W / out
    rk = tl.arange(0, BLOCK_K)
    mask_m = rm < T
    mask_n = rn < NF

    x_ptrs = X + rm[:, None] * stride_xt + rk[None, :] * stride_xh
    g_ptrs = WG + rk[:, None] * stride_gh + rn[None, :] * stride_gf
    u_ptrs = WU + rk[:, None] * stride_uh + rn[None, :] * stride_uf

    acc_g = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    acc_u = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k in range(0, H, BLOCK_K):
        k_left = H - k
        a = tl.load(x_ptrs, mask=mask_m[:, None] & (rk[None, :] < k_left), other=0.0)
        wmask = (rk[:, None] < k_left) & mask_n[None, :]
        bg = tl.load(g_ptrs, mask=wmask, other=0.0)
        bu = tl.load(u_ptrs, mask=wmask, other=0.0)
        acc_g = tl.dot(a, bg, acc_g)
        acc_u = tl.dot(a, bu, acc_u)
        x_ptrs += BLOCK_K * stride_xh
        g_ptrs += BLOCK_K * stride_gh
        u_ptrs += BLOCK_K * stride_uh

    # epilogue: silu(g) * u = g * sigmoid(g) * u
    out = acc_g * tl.sigmoid(acc_g) * acc_u

    o_ptrs = OUT + rm[:, None] * stride_ot + rn[None, :] * stride_of
    tl.store(o_ptrs, out.to(OUT.dtype.element_ty),
             mask=mask_m[:, None] & mask_n[None, :])


def swiglu_mlp(x, w_gate, w_up, out=None):
    assert x.dim() == 2 and w_gate.dim() == 2 and w_up.dim() == 2
    T, H = x.shape
    H2, F_ = w_gate.shape
    assert H2 == H and w_up.shape == (H, F_)
    assert x.dtype == w_gate.dtype == w_up.dtype
    if out is None:
        out = torch.empty((T, F_), dtype=x.dtype, device=x.device)
    assert out.shape == (T, F_)
    grid = lambda META: (triton.cdiv(T, META["BLOCK_M"]), triton.cdiv(F_, META["BLOCK_N"]))
    _swiglu_kernel[grid](
        x, w_gate, w_up, out, T, H, F_,
        x.stride(0), x.stride(1),
        w_gate.stride(0), w_gate.stride(1),
        w_up.stride(0), w_up.stride(1),
        out.stride(0), out.stride(1))
    return out


ENTRY = "swiglu_mlp"


def make_inputs(T, H, F_, seed=0, dtype=torch.float16):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn((T, H), generator=g, device="cuda").to(dtype)
    scale = 1.0 / (H ** 0.5)
    w_gate = (scale * torch.randn((H, F_), generator=g, device="cuda")).to(dtype)
    w_up = (scale * torch.randn((H, F_), generator=g, device="cuda")).to(dtype)
    return x, w_gate, w_up


def reference(x, w_gate, w_up):
    return F.silu(x @ w_gate) * (x @ w_up)


CHECK_SIZES = [(100, 130, 257), (37, 200, 100), (256, 512, 384)]
BENCH_SIZES = [(8192, 4096, 11008)]


def _compare(name, out, ref, rtol=2e-2):
    outs = out if isinstance(out, tuple) else (out,)
    refs = ref if isinstance(ref, tuple) else (ref,)
    ok = len(outs) == len(refs)
    for i, (o, r) in enumerate(zip(outs, refs)):
        if o.shape != r.shape or o.dtype != r.dtype:
            print(f"  {name} out[{i}]: shape/dtype mismatch {tuple(o.shape)} {o.dtype} "
                  f"vs {tuple(r.shape)} {r.dtype}")
            ok = False
            continue
        err = (o.float() - r.float()).abs().max().item()
        scale = r.float().abs().max().item()
        tol = rtol * max(scale, 1e-6)
        good = err <= tol  # False for NaN
        ok = ok and good
        print(f"  {name} out[{i}]: max abs err {err:.3e} (max |ref| {scale:.3e}, "
              f"tol {tol:.3e}) {'OK' if good else 'FAIL'}")
    return ok


if __name__ == "__main__":
    fn = globals()[ENTRY]
    all_ok = True
    for size in CHECK_SIZES:
        inputs = make_inputs(*size)
        all_ok &= _compare(f"check {size}", fn(*inputs), reference(*inputs))
    # extra: non-contiguous operands (transposed W_gate storage, strided x and out)
    T, H, F_ = CHECK_SIZES[0]
    x, wg, wu = make_inputs(T, H, F_)
    xs = torch.empty((T, H + 5), dtype=x.dtype, device=x.device)[:, :H]
    xs.copy_(x)
    wg_t = wg.t().contiguous().t()          # (H, F) view with strides (1, H)
    out_s = torch.zeros((T, F_ + 11), dtype=x.dtype, device=x.device)[:, :F_]
    all_ok &= _compare(f"check strided {(T, H, F_)}", fn(xs, wg_t, wu, out=out_s),
                       reference(x, wg, wu))

    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        T, H, F_ = size
        tflops = 2 * 2 * T * H * F_ / (ms * 1e-3) / 1e12
        print(f"bench {size}: {ms:.4f} ms ({tflops:.1f} TFLOP/s)")

    if not all_ok:
        print("FAILED")
        sys.exit(1)
    print("ALL CHECKS PASSED")
