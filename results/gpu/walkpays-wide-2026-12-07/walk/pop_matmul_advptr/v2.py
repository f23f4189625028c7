"""Naive Triton port of a tiled CUDA GEMM that advances A/B tile pointers along K.

C = A @ B, A (M, K), B (K, N), C (M, N); fp16 in, fp32 accumulate, fp16 out.
One program per output tile on a 2D grid.
"""
import sys

import torch
import triton
import triton.language as tl


def matmul_advptr_kernel_configs():
    # matmul_advptr_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 32},
        {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64},
        {"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=matmul_advptr_kernel_configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def matmul_advptr_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_am, stride_ak,
    stride_bk, stride_bn,
    stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr,
):
    # blockIdx.x / blockIdx.y -> output tile (row block, column block)
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < M
    col_ok = cols < N

    # pointers to the first A tile (BLOCK_M x BLOCK_K) and B tile (BLOCK_K x BLOCK_N)
    a_tile = a_ptr + rows[:, None] * stride_am + ks[None, :] * stride_ak
    b_tile = b_ptr + ks[:, None] * stride_bk + cols[None, :] * stride_bn

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        if EVEN_K:
            a = tl.load(a_tile, mask=row_ok[:, None], other=0.0)
            b = tl.load(b_tile, mask=col_ok[None, :], other=0.0)
        else:
            a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        # advance both tile pointers by one K tile
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 32


def matmul_advptr(a, b):
    assert a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]
    assert a.dtype == torch.float16 and b.dtype == torch.float16
    M, K = a.shape
    _, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    matmul_advptr_kernel[grid](
        a, b, c,
        M, N, K,
        a.stride(0), a.stride(1),
        b.stride(0), b.stride(1),
        c.stride(0), c.stride(1),
    )
    return c


def make_inputs(M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((M, K), generator=g, device="cuda", dtype=torch.float16)
    b = torch.randn((K, N), generator=g, device="cuda", dtype=torch.float16)
    return (a, b)


def reference(a, b):
    return torch.matmul(a, b)


ENTRY = "matmul_advptr"

# (M, N, K)
CHECK_SIZES = [(100, 130, 257), (257, 100, 130), (128, 256, 64)]
BENCH_SIZES = [(8192, 8192, 8192)]


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


if __name__ == "__main__":
    fn = globals()[ENTRY]
    ok = True
    for size in CHECK_SIZES:
        inputs = make_inputs(*size)
        outs = _as_tuple(fn(*inputs))
        refs = _as_tuple(reference(*inputs))
        for o, r in zip(outs, refs):
            err = (o.float() - r.float()).abs().max().item()
            tol = 2e-2 * max(r.float().abs().max().item(), 1e-6)
            good = o.shape == r.shape and o.dtype == r.dtype and err <= tol
            ok = ok and good
            print(f"check {size}: max abs err {err:.4e} (tol {tol:.4e}) {'OK' if good else 'FAIL'}")
    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        M, N, K = size
        print(f"bench {size}: {ms:.4f} ms, {2 * M * N * K / ms * 1e-9:.1f} TFLOP/s")
    sys.exit(0 if ok else 1)
