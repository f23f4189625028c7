import triton
import triton.language as tl


@triton.jit
def small_kernel(a_ptr, b_ptr, c_ptr, BLOCK: tl.constexpr):
    r = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + r[:, None] * BLOCK + r[None, :])
    b = tl.load(b_ptr + r[:, None] * BLOCK + r[None, :])
    c = tl.zeros((BLOCK, BLOCK), dtype=tl.float16)
    c = tl.dot(a, b, acc=c)
    tl.store(c_ptr + r[:, None] * BLOCK + r[None, :], c)
