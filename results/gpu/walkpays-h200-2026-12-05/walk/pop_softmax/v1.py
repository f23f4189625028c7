"""Naive Triton port of a three-pass row softmax.

One program per row. The row is walked in chunks of BLOCK_N columns three times:
  1. running maximum,
  2. sum of exp(x - max),
  3. write exp(x - max) / sum.
Rows longer than one block therefore work. Input and output take their own row
stride; the column stride is assumed to be 1.
"""
import sys

import torch
import triton
import triton.language as tl

BLOCK_N = 1024
NUM_WARPS = 4


def _softmax_kernel_configs():
    # _softmax_kernel's launch options on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    return [triton.Config({}, num_stages=s, num_warps=w) for s in stages for w in warps]


@triton.autotune(configs=_softmax_kernel_configs(), key=["N"])
@triton.jit
def _softmax_kernel(X, Y, stride_xm, stride_ym, N, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = X + row.to(tl.int64) * stride_xm
    y_row = Y + row.to(tl.int64) * stride_ym

    # pass 1: row maximum
    m = tl.full([BLOCK_N], float("-inf"), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        m = tl.maximum(m, x)
    row_max = tl.max(m, axis=0)

    # pass 2: sum of exponentials
    s = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        s += tl.exp(x - row_max)  # masked lanes: exp(-inf) = 0
    row_sum = tl.sum(s, axis=0)
    inv_sum = 1.0 / row_sum

    # pass 3: normalised write
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(tl.float32)
        y = tl.exp(x - row_max) * inv_sum
        tl.store(y_row + cols, y.to(Y.dtype.element_ty), mask=mask)


def softmax(x, out=None):
    assert x.dim() == 2
    if x.stride(1) != 1:
        x = x.contiguous()
    M, N = x.shape
    if out is None:
        out = torch.empty((M, N), dtype=x.dtype, device=x.device)
    assert out.shape == (M, N) and out.stride(1) == 1
    _softmax_kernel[(M,)](x, out, x.stride(0), out.stride(0), N,
                          BLOCK_N=BLOCK_N)
    return out


ENTRY = "softmax"


def make_inputs(M, N, seed=0, dtype=torch.float16):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = (2.0 * torch.randn((M, N), generator=g, device="cuda")).to(dtype)
    return (x,)


def reference(x):
    return torch.softmax(x, dim=-1)


CHECK_SIZES = [(100, 257), (37, 1500), (130, 3001)]
BENCH_SIZES = [(8192, 8192), (32768, 1024)]


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
    # extra: input and output with row strides larger than N
    M, N = CHECK_SIZES[1]
    (x,) = make_inputs(M, N)
    xs = torch.empty((M, N + 7), dtype=x.dtype, device=x.device)[:, :N]
    xs.copy_(x)
    ys = torch.zeros((M, N + 29), dtype=x.dtype, device=x.device)[:, :N]
    all_ok &= _compare(f"check strided {(M, N)}", fn(xs, out=ys), reference(xs))

    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        print(f"bench {size}: {ms:.4f} ms")

    if not all_ok:
        print("FAILED")
        sys.exit(1)
    print("ALL CHECKS PASSED")
