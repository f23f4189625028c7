import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, K, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for k in range(0, K, BLOCK):
        a = tl.load(a_ptr + r[:, None] * K + (k + r)[None, :])
        b = tl.load(b_ptr + (k + r)[:, None] * BLOCK + r[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], acc)
