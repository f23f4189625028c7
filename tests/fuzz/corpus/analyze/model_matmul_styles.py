# Matmul kernels the way people write them: pointers advanced in the loop,
# nested loops of every kind, dots with and without accumulators, transposes.
import torch
import triton
import triton.language as tl


@triton.jit
def _fma(acc, a, b):
    return tl.dot(a, b, acc=acc)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  NUM_STAGES: tl.constexpr = 3):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=NUM_STAGES, loop_unroll_factor=2):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c_ptrs = c_ptr + stride_cm * offs_m[:, None] + stride_cn * offs_n[None, :]
    tl.store(c_ptrs, acc, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit
def nested_kernel(x_ptr, w_ptr, y_ptr, idx_ptr, N, K, BLOCK: tl.constexpr, REPS: tl.constexpr):
    pid = tl.program_id(0)
    rows = tl.load(idx_ptr + pid * BLOCK + tl.arange(0, BLOCK))
    cols = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for i in range(0, N, BLOCK):
        for r in tl.static_range(REPS):
            x = tl.load(x_ptr + rows[:, None] * K + cols[None, :])
            w = tl.load(w_ptr + cols[:, None] * K + cols[None, :])
            acc = tl.dot(x, tl.trans(w), acc)
            acc = tl.dot(x, w.T, acc)
            acc = _fma(acc, x, tl.permute(w, (1, 0)))
            j = 0
            while j < K:
                acc = tl.dot(x, w, trans_b=True)
                j += BLOCK
    tl.store(y_ptr + cols, tl.sum(acc, axis=1))


def matmul(a, b):
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    matmul_kernel[grid](a, b, c, M, N, K,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1),
                        BLOCK_M=128, BLOCK_N=128, BLOCK_K=32, num_warps=8, num_stages=3)
    return c


def grid_fn(meta):
    return (triton.cdiv(1024, meta["BLOCK"]), 4)


def run_nested(x, w, y, idx, tensors):
    N, K = x.shape
    nested_kernel[grid_fn](x, w, y, idx, N, K, BLOCK=32, REPS=2)
    nested_kernel[(4, 8)](x, w, y, idx, N, K, BLOCK=32, REPS=2)
    nested_kernel[4, 8](x, w, y, idx, N, K, BLOCK=32, REPS=2)
    fn = nested_kernel
    fn[(N,)](x, w, y, idx, N, K, BLOCK=32, REPS=1)
    torch.library.wrap_triton(nested_kernel)[(N // 32,)](x, w, y, idx, N, K, BLOCK=32, REPS=1)
    for t in tensors:
        t = t.contiguous()
        nested_kernel[(t.shape[0],)](t, w, y, idx, N, K, BLOCK=32, REPS=1)
