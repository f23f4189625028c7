"""Naive Triton port of a CUDA batched GEMM: C[b] = A[b] @ B[b].

A (Bt, M, K), B (Bt, K, N), C (Bt, M, N); fp16 in, fp32 accumulate, fp16 out.
One program per (output tile, batch); 3D grid with the batch on axis 2 (blockIdx.z).
"""
import sys

import torch
import triton
import triton.language as tl


def bmm_kernel_configs():
    # bmm_kernel's tiles on each GPU generation, with pipeline depths that fit it
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


@triton.autotune(configs=bmm_kernel_configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def bmm_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr,
):
    # P4: neighbouring programs take neighbouring tiles, GROUP_SIZE_M rows of axis 0 at a time,
    # so the tiles of A and B they share are read from L2 (same tiles, other order)
    GROUP_SIZE_M = 8
    tiles_0 = tl.num_programs(0)
    tiles_1 = tl.num_programs(1)
    tile_id = tl.program_id(1) * tiles_0 + tl.program_id(0)
    group_width = GROUP_SIZE_M * tiles_1
    group_start = tile_id // group_width * GROUP_SIZE_M
    group_rows = tl.minimum(tiles_0 - group_start, GROUP_SIZE_M)
    pid_m = group_start + tile_id % group_width % group_rows
    pid_n = tile_id % group_width // group_rows
    batch = tl.program_id(2).to(tl.int64)  # blockIdx.z

    # move the base pointers to this batch's matrices
    a_ptr += batch * stride_ab
    b_ptr += batch * stride_bb
    c_ptr += batch * stride_cb

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < M
    col_ok = cols < N

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
        a_tile += BLOCK_K * stride_ak
        b_tile += BLOCK_K * stride_bk

    c_tile = c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn
    tl.store(c_tile, acc.to(c_ptr.dtype.element_ty), mask=row_ok[:, None] & col_ok[None, :])


BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 32


def bmm(a, b):
    assert a.ndim == 3 and b.ndim == 3
    assert a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]
    assert a.dtype == torch.float16 and b.dtype == torch.float16
    Bt, M, K = a.shape
    _, _, N = b.shape
    c = torch.empty((Bt, M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]), Bt)
    bmm_kernel[grid](
        a, b, c,
        M, N, K,
        a.stride(0), a.stride(1), a.stride(2),
        b.stride(0), b.stride(1), b.stride(2),
        c.stride(0), c.stride(1), c.stride(2),
    )
    return c


def make_inputs(Bt, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((Bt, M, K), generator=g, device="cuda", dtype=torch.float16)
    b = torch.randn((Bt, K, N), generator=g, device="cuda", dtype=torch.float16)
    return (a, b)


def reference(a, b):
    return torch.bmm(a, b)


ENTRY = "bmm"

# (Bt, M, N, K)
CHECK_SIZES = [(3, 100, 130, 257), (5, 257, 100, 130), (2, 128, 256, 64)]
BENCH_SIZES = [(16, 2048, 2048, 2048)]


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
        Bt, M, N, K = size
        print(f"bench {size}: {ms:.4f} ms, {2 * Bt * M * N * K / ms * 1e-9:.1f} TFLOP/s")
    sys.exit(0 if ok else 1)
