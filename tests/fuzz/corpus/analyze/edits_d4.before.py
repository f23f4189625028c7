import triton
import triton.language as tl


@triton.jit
def outer_kernel(a_ptr, b_ptr, c_ptr, M, N, BLOCK: tl.constexpr):
    rm = tl.arange(0, BLOCK)
    rn = tl.arange(0, BLOCK)
    for i in range(4):
        a = tl.load(a_ptr + rm)
        b = tl.load(b_ptr + rn)
        c = tl.expand_dims(a, 1) * tl.expand_dims(b + 1, 0)
        tl.store(c_ptr + tl.expand_dims(rm, 1) * BLOCK + rn[None, :], c)
