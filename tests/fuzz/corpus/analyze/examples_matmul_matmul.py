# Batched matmul C[b] = A[b] @ B[b]^T with B stored as (batch, N, K), fp16 in,
# fp32 accumulate, fp16 out, written with raw pointer arithmetic.
# Bundled example for tileadvise: the result is correct, but the kernel and its
# launch deliberately keep several slow patterns that tileadvise should flag.
import argparse
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
               stride_ab, stride_am, stride_ak,
               stride_bb, stride_bn, stride_bk,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    a_base = a_ptr + batch.to(tl.int64) * stride_ab
    b_base = b_ptr + batch.to(tl.int64) * stride_bb
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_base + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        b = tl.load(b_base + offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk,
                    mask=(offs_n[:, None] < N) & (offs_k[None, :] < K), other=0.0)
        b_t = tl.trans(b)
        acc = tl.dot(a, b_t, acc)
    c = acc.to(c_ptr.dtype.element_ty)
    c_base = c_ptr + batch.to(tl.int64) * stride_cb
    tl.store(c_base + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, c,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def bmm_nt(a, b):
    """C[i] = a[i] @ b[i].T for a of shape (batch, M, K) and b of shape (batch, N, K)."""
    assert a.ndim == 3 and b.ndim == 3
    batch, M, K = a.shape
    assert b.shape[0] == batch and b.shape[2] == K
    N = b.shape[1]
    c = torch.empty((batch, M, N), device=a.device, dtype=a.dtype)
    BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
    grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(N, BLOCK_N), batch)
    bmm_kernel[grid](a, b, c, M, N, K,
                     a.stride(0), a.stride(1), a.stride(2),
                     b.stride(0), b.stride(1), b.stride(2),
                     c.stride(0), c.stride(1), c.stride(2),
                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                     num_warps=4, num_stages=3)
    return c


def main():
    parser = argparse.ArgumentParser(description="Batched matmul A @ B^T (tileadvise example)")
    parser.add_argument("--quick", action="store_true", help="use smaller matrices")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("matmul: a CUDA device is required")
        return 2

    batch, M, N, K = (4, 1024, 1024, 1024) if args.quick else (8, 2048, 2048, 2048)
    torch.manual_seed(0)
    a = torch.randn((batch, M, K), device="cuda", dtype=torch.float16) / 8
    b = torch.randn((batch, N, K), device="cuda", dtype=torch.float16) / 8

    c = bmm_nt(a, b)
    ref = torch.bmm(a, b.transpose(1, 2))
    atol, rtol = 1e-2, 1e-2
    if not torch.allclose(c.float(), ref.float(), atol=atol, rtol=rtol):
        err = (c.float() - ref.float()).abs().max().item()
        print(f"matmul: MISMATCH vs torch.bmm, max abs err {err:.3e} (atol {atol}, rtol {rtol})")
        return 1

    ms_triton = triton.testing.do_bench(lambda: bmm_nt(a, b))
    ms_torch = triton.testing.do_bench(lambda: torch.bmm(a, b.transpose(1, 2)))
    tflops = lambda ms: 2.0 * batch * M * N * K / (ms * 1e-3) / 1e12
    print(f"matmul: triton {ms_triton:.3f} ms, torch {ms_torch:.3f} ms "
          f"({batch}x{M}x{N}x{K} fp16; {tflops(ms_triton):.0f} vs {tflops(ms_torch):.0f} TFLOP/s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
