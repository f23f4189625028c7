# P2 satisfied by the EVEN_K heuristic; D8 satisfied by advanced pointers;
# S1 still applies to the raw loads; P3 n/a: tl.trans outside any loop.
# expect: P2 satisfied
# expect: D8 satisfied
# expect: P3 n/a
# expect: S3 satisfied
# expect: D2 n/a
import triton
import triton.language as tl


@triton.heuristics({"EVEN_K": lambda a: a["K"] % a["BLOCK_K"] == 0})
@triton.jit
def mm(a_ptr, b_ptr, c_ptr, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
       EVEN_K: tl.constexpr):
    offs_m = tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * BLOCK_N + offs_n[None, :]
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        if EVEN_K:
            a = tl.load(a_ptrs)  # @S1
            b = tl.load(b_ptrs)  # @S1
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k)  # @S1
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k)  # @S1
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K
        b_ptrs += BLOCK_K * BLOCK_N
    c = tl.trans(acc)
    tl.store(c_ptr + offs_n[:, None] * BLOCK_M + offs_m[None, :], c)  # @S1
