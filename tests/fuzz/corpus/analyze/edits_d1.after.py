import triton
import triton.language as tl


@triton.jit
def unroll_kernel(x_ptr, y_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for i in tl.range(N, loop_unroll_factor=1):
        acc += tl.load(x_ptr + i * BLOCK + offs)
    tl.store(y_ptr + offs, acc)
