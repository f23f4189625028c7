import triton
import triton.language as tl


@triton.jit
def attn_kernel(q_ptr, k_ptr, o_ptr, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, D: tl.constexpr):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    acc = tl.zeros((BLOCK_M, D), dtype=tl.float32)
    for start in range(0, N, BLOCK_N):
        k = tl.load(k_ptr + (start + offs_n)[None, :] * D + offs_d[:, None])
        qk = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        qk = tl.dot(q, k, qk)
        acc += tl.sum(qk, 1)[:, None]
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], acc)
