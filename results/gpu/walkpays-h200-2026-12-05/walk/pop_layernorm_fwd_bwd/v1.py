"""Naive Triton port of a row-wise LayerNorm forward + backward.

Forward: one program per row; three chunked passes over the row
(mean, variance, normalise + affine), mean/rstd stored in fp32 for the backward.
Backward: one program per row; two chunked passes (row reductions c1, c2, then dx).
The dw/db contributions of each row are atomically added into a small
(G, N) fp32 partial buffer (row r goes to slot r % G); a second small kernel
sums the G slots per column and writes dw, db in the weight dtype.
"""
import sys

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

BLOCK_N = 1024        # chunk of a row handled per loop iteration
NUM_WARPS = 4
PARTIAL_ROWS = 128    # G: number of partial-sum slots for dw / db
RED_BLOCK_N = 256     # columns per program in the dw/db reduction kernel


def _layernorm_fwd_kernel_configs():
    # _layernorm_fwd_kernel's launch options on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    return [triton.Config({}, num_stages=s, num_warps=w) for s in stages for w in warps]


@triton.autotune(configs=_layernorm_fwd_kernel_configs(), key=["N"])
@triton.jit
def _layernorm_fwd_kernel(X, Y, W, B, Mean, Rstd,
                          stride_xm, stride_ym, N, eps,
                          BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = X + row.to(tl.int64) * stride_xm
    y_row = Y + row.to(tl.int64) * stride_ym

    # pass 1: mean
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / N

    # pass 2: variance (two-pass for accuracy)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc += d * d
    var = tl.sum(acc, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)

    tl.store(Mean + row, mean)
    tl.store(Rstd + row, rstd)

    # pass 3: normalise and apply the affine transform
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(B + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_row + cols, y.to(Y.dtype.element_ty), mask=mask)


def _layernorm_bwd_kernel_configs():
    # _layernorm_bwd_kernel's launch options on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    return [triton.Config({}, num_stages=s, num_warps=w) for s in stages for w in warps]


@triton.autotune(configs=_layernorm_bwd_kernel_configs(), key=["N"], restore_value=["DW_part", "DB_part"])
@triton.jit
def _layernorm_bwd_kernel(X, DY, DX, W, Mean, Rstd, DW_part, DB_part,
                          stride_xm, stride_dym, stride_dxm, N, G,
                          BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    x_row = X + row.to(tl.int64) * stride_xm
    dy_row = DY + row.to(tl.int64) * stride_dym
    dx_row = DX + row.to(tl.int64) * stride_dxm
    mean = tl.load(Mean + row)
    rstd = tl.load(Rstd + row)

    # pass 1: c1 = mean(xhat * w * dy), c2 = mean(w * dy)
    acc1 = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc2 = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = w * dy
        acc1 += xhat * wdy
        acc2 += wdy
    c1 = tl.sum(acc1, axis=0) / N
    c2 = tl.sum(acc2, axis=0) / N

    # pass 2: dx, plus this row's contribution to dw / db
    slot = row % G
    dw_row = DW_part + slot * N
    db_row = DB_part + slot * N
    for start in range(0, N, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        dy = tl.load(dy_row + cols, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(W + cols, mask=mask, other=0.0).to(tl.float32)
        xhat = tl.where(mask, (x - mean) * rstd, 0.0)
        wdy = w * dy
        dx = (wdy - (xhat * c1 + c2)) * rstd
        tl.store(dx_row + cols, dx.to(DX.dtype.element_ty), mask=mask)
        tl.atomic_add(dw_row + cols, dy * xhat, mask=mask)
        tl.atomic_add(db_row + cols, dy, mask=mask)


def _layernorm_dwdb_reduce_kernel_configs():
    # _layernorm_dwdb_reduce_kernel's launch options on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    return [triton.Config({}, num_stages=s, num_warps=w) for s in stages for w in warps]


@triton.autotune(configs=_layernorm_dwdb_reduce_kernel_configs(), key=["N"])
@triton.jit
def _layernorm_dwdb_reduce_kernel(DW_part, DB_part, DW, DB, G, N,
                                  BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < N
    acc_w = tl.zeros([BLOCK_N], dtype=tl.float32)
    acc_b = tl.zeros([BLOCK_N], dtype=tl.float32)
    for g in range(0, G):
        acc_w += tl.load(DW_part + g * N + cols, mask=mask, other=0.0)
        acc_b += tl.load(DB_part + g * N + cols, mask=mask, other=0.0)
    tl.store(DW + cols, acc_w.to(DW.dtype.element_ty), mask=mask)
    tl.store(DB + cols, acc_b.to(DB.dtype.element_ty), mask=mask)


def _rows_view(t):
    """Kernels take a row stride and assume unit column stride."""
    assert t.dim() == 2
    if t.stride(1) != 1:
        t = t.contiguous()
    return t


def layernorm_forward(x, weight, bias, eps):
    x = _rows_view(x)
    M, N = x.shape
    weight = weight.contiguous()
    bias = bias.contiguous()
    y = torch.empty((M, N), dtype=x.dtype, device=x.device)
    mean = torch.empty((M,), dtype=torch.float32, device=x.device)
    rstd = torch.empty((M,), dtype=torch.float32, device=x.device)
    _layernorm_fwd_kernel[(M,)](
        x, y, weight, bias, mean, rstd,
        x.stride(0), y.stride(0), N, eps,
        BLOCK_N=BLOCK_N)
    return y, mean, rstd


def layernorm_backward(dy, x, weight, mean, rstd):
    x = _rows_view(x)
    dy = _rows_view(dy)
    M, N = x.shape
    weight = weight.contiguous()
    dx = torch.empty((M, N), dtype=x.dtype, device=x.device)
    G = min(PARTIAL_ROWS, M)
    dw_part = torch.zeros((G, N), dtype=torch.float32, device=x.device)
    db_part = torch.zeros((G, N), dtype=torch.float32, device=x.device)
    _layernorm_bwd_kernel[(M,)](
        x, dy, dx, weight, mean, rstd, dw_part, db_part,
        x.stride(0), dy.stride(0), dx.stride(0), N, G,
        BLOCK_N=BLOCK_N)
    dw = torch.empty((N,), dtype=weight.dtype, device=x.device)
    db = torch.empty((N,), dtype=weight.dtype, device=x.device)
    _layernorm_dwdb_reduce_kernel[(triton.cdiv(N, RED_BLOCK_N),)](
        dw_part, db_part, dw, db, G, N,
        BLOCK_N=RED_BLOCK_N)
    return dx, dw, db


class TritonLayerNorm(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, eps):
        y, mean, rstd = layernorm_forward(x, weight, bias, eps)
        ctx.save_for_backward(x, weight, mean, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, mean, rstd = ctx.saved_tensors
        dx, dw, db = layernorm_backward(dy, x, weight, mean, rstd)
        return dx, dw, db, None


def layernorm_fwd_bwd(x, weight, bias, dy, eps):
    with torch.enable_grad():
        x = x.detach().requires_grad_(True)
        w = weight.detach().requires_grad_(True)
        b = bias.detach().requires_grad_(True)
        y = TritonLayerNorm.apply(x, w, b, eps)
        dx, dw, db = torch.autograd.grad(y, (x, w, b), grad_outputs=dy)
    return y.detach(), dx, dw, db


ENTRY = "layernorm_fwd_bwd"


def make_inputs(M, N, seed=0, dtype=torch.float16):
    g = torch.Generator(device="cuda").manual_seed(seed)
    x = torch.randn((M, N), generator=g, device="cuda", dtype=torch.float32)
    x = (x * 2.0 + 0.5).to(dtype)
    weight = (1.0 + 0.1 * torch.randn((N,), generator=g, device="cuda")).to(dtype)
    bias = (0.1 * torch.randn((N,), generator=g, device="cuda")).to(dtype)
    dy = torch.randn((M, N), generator=g, device="cuda").to(dtype)
    eps = 1e-5
    return x, weight, bias, dy, eps


def reference(x, weight, bias, dy, eps):
    with torch.enable_grad():
        x = x.detach().requires_grad_(True)
        w = weight.detach().requires_grad_(True)
        b = bias.detach().requires_grad_(True)
        y = F.layer_norm(x, (x.shape[-1],), w, b, eps)
        dx, dw, db = torch.autograd.grad(y, (x, w, b), grad_outputs=dy)
    return y.detach(), dx, dw, db


CHECK_SIZES = [(100, 257), (37, 1030), (130, 2500)]
BENCH_SIZES = [(8192, 8192), (4096, 1536)]


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
    # extra: x with a row stride larger than N
    M, N = CHECK_SIZES[0]
    x, w, b, dy, eps = make_inputs(M, N)
    xs = torch.empty((M, N + 13), dtype=x.dtype, device=x.device)[:, :N]
    xs.copy_(x)
    all_ok &= _compare(f"check strided {(M, N)}", fn(xs, w, b, dy, eps),
                       reference(xs, w, b, dy, eps))

    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        print(f"bench {size}: {ms:.4f} ms")

    if not all_ok:
        print("FAILED")
        sys.exit(1)
    print("ALL CHECKS PASSED")
