"""A naive batched matmul C[b] = A[b] @ B[b]^T (B given as (batch, N, K), as
a linear layer's weights are): a program per (tile, batch) on a 3D-strided
tensor, raw 2D masked loads, B transposed inside the K loop, fixed
64x64x32 tiles in the wrapper with the grid computed from them, no autotune.

python3 naive_bmm.py: checks against torch.bmm at sizes that are not
multiples of the tiles, then times batch 16 of 2048 x 2048 x 2048 fp16."""
import sys

import torch
import triton
import triton.language as tl


def naive_bmm_kernel_configs():
    # naive_bmm_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
        {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=naive_bmm_kernel_configs(), key=["M", "N", "K"])
@triton.jit
def naive_bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                     stride_ab, stride_am, stride_ak,
                     stride_bb, stride_bn, stride_bk,
                     stride_cb, stride_cm, stride_cn,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_base = a_ptr + batch * stride_ab
    b_base = b_ptr + batch * stride_bb
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        a = tl.load(a_base + offs_m[:, None] * stride_am + ks[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_base + offs_n[:, None] * stride_bn + ks[None, :] * stride_bk,
                    mask=(offs_n[:, None] < N) & (ks[None, :] < K), other=0.0)
        acc = tl.dot(a, tl.trans(b), acc)
    c_base = c_ptr + batch * stride_cb
    tl.store(c_base + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty),
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def bmm_nt(a, b):
    BATCH, M, K = a.shape
    _, N, _ = b.shape
    c = torch.empty((BATCH, M, N), device=a.device, dtype=a.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]), BATCH)
    naive_bmm_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), a.stride(2),
        b.stride(0), b.stride(1), b.stride(2),
        c.stride(0), c.stride(1), c.stride(2))
    return c


def make_inputs(BATCH, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((BATCH, M, K), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((BATCH, N, K), device="cuda", dtype=torch.float16, generator=g)
    return a, b


def reference(a, b):
    return torch.bmm(a, b.transpose(1, 2))


CHECK_SIZES = [(3, 100, 72, 40), (2, 257, 136, 264)]
# accepted by the original, outside TMA's 16-byte rule (rows of 130 halves)
CONTRACT_SIZES = [(2, 257, 130, 264)]
BENCH_SIZES = [(16, 2048, 2048, 2048)]
ENTRY = "bmm_nt"


if __name__ == "__main__":
    ok = True
    for size in CHECK_SIZES:
        args = make_inputs(*size)
        ref = reference(*args).float()
        err = ((bmm_nt(*args).float() - ref).abs().max() / ref.abs().max()).item()
        print(f"check BATCH,M,N,K={size}: max rel err {err:.2e}")
        ok &= err < 1e-2
    for size in BENCH_SIZES:
        args = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: bmm_nt(*args), return_mode="median")
        print(f"bmm_nt{list(size)}: triton {ms:.3f} ms")
    sys.exit(0 if ok else 1)
