import torch
import triton
import triton.language as tl


@triton.jit
def grouped_mm(a_ptrs, b_ptrs, c_ptrs, sizes, lds, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    g = tl.program_id(2)
    M = tl.load(sizes + g * 3)
    N = tl.load(sizes + g * 3 + 1)
    K = tl.load(sizes + g * 3 + 2)
    lda = tl.load(lds + g * 3)
    ldb = tl.load(lds + g * 3 + 1)
    ldc = tl.load(lds + g * 3 + 2)
    a = tl.load(a_ptrs + g).to(tl.pointer_type(tl.bfloat16))
    b = tl.load(b_ptrs + g).to(tl.pointer_type(tl.bfloat16))
    c = tl.load(c_ptrs + g).to(tl.pointer_type(tl.float32))
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    a_desc = tl.make_tensor_descriptor(a, shape=[M, K], strides=[lda, 1], block_shape=[BM, BK])
    a_desc_ok = (lda % 8 == 0) & (a.to(tl.int64) % 16 == 0)
    b_desc = tl.make_tensor_descriptor(b, shape=[K, N], strides=[ldb, 1], block_shape=[BK, BN])
    b_desc_ok = (ldb % 8 == 0) & (b.to(tl.int64) % 16 == 0)
    if a_desc_ok & b_desc_ok:
        for k in range(0, tl.cdiv(K, BK)):
            x = a_desc.load([tl.program_id(0) * BM, k * BK])
            y = b_desc.load([k * BK, tl.program_id(1) * BN])
            acc += tl.dot(x, y)
    else:
        for k in range(0, tl.cdiv(K, BK)):
            x = tl.load(a + rm[:, None] * lda + (k * BK + rk)[None, :],
                        mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
            y = tl.load(b + (k * BK + rk)[:, None] * ldb + rn[None, :],
                        mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
            acc += tl.dot(x, y)
    c_desc = tl.make_tensor_descriptor(c, shape=[M, N], strides=[ldc, 1], block_shape=[BM, BN])
    c_desc_ok = (ldc % 4 == 0) & (c.to(tl.int64) % 16 == 0)
    if c_desc_ok:
        c_desc.store([tl.program_id(0) * BM, tl.program_id(1) * BN], acc)
    else:
        tl.store(c + rm[:, None] * ldc + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def grouped(As, Bs, Cs, a_ptrs, b_ptrs, c_ptrs, sizes, lds):
    grid = (triton.cdiv(max(x.shape[0] for x in As), 64), triton.cdiv(max(x.shape[1] for x in Bs), 64), len(As))
    def alloc_fn(size: int, alignment: int, stream):
        # scratch memory for tensor descriptors built inside the kernel
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc_fn)
    grouped_mm[grid](a_ptrs, b_ptrs, c_ptrs, sizes, lds, 64, 64, 32)
    return Cs
