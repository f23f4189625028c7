# Three broken spots; the kernels around them must still be modelled.
import triton
import triton.language as tl


@triton.jit
def good_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)


def broken_host(x):
    y = x + * 2
    return y


@triton.jit
def after_kernel(y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, 0.0)
    z = ]


def run(x, y, n):
    good_kernel[(triton.cdiv(n, 128),)](x, n, BLOCK=128)
    after_kernel[(1,)](y, BLOCK=64)
    value = (1 +
