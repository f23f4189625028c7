# expect: S1 applies
# expect: P2 applies
# expect: P3 applies
# expect: D8 applies
# expect: P4 applies
# expect: P1 applies
# expect: S3 satisfied
# expect: S4 n/a
# expect: T3 n/a
# expect: L2 n/a
# expect: D2 applies
# expect: D12 applies
# expect: D3 satisfied
# expect: G4 n/a
import torch
import triton
import triton.language as tl


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_ab, stride_am, stride_ak, stride_bb, stride_bn, stride_bk,
               stride_cb, stride_cm, stride_cn,
               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    batch = tl.program_id(2)
    a_base = a_ptr + batch * stride_ab
    b_base = b_ptr + batch * stride_bb
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_base + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak, mask=offs_k[None, :] < K)  # @S1 @P2 @D8
        b = tl.load(b_base + offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk, mask=offs_k[None, :] < K)  # @S1 @P2 @D8
        b_t = tl.trans(b)  # @P3
        acc = tl.dot(a, b_t, acc)  # @D2
    c_base = c_ptr + batch * stride_cb
    tl.store(c_base + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, acc)  # @S1


def bmm(a, b):
    batch, M, K = a.shape
    N = b.shape[1]
    c = torch.empty((batch, M, N), device=a.device, dtype=a.dtype)
    grid = ((M + 64 - 1) // 64, triton.cdiv(N, 64), batch)  # @P4 @D12
    bmm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), a.stride(2),  # @P1
                     b.stride(0), b.stride(1), b.stride(2), c.stride(0), c.stride(1), c.stride(2),
                     BLOCK_M=64, BLOCK_N=64, BLOCK_K=16, num_warps=4)
    return c
