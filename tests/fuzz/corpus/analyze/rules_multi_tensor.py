# expect: L4 applies
# expect: P1 applies
import torch
import triton
import triton.language as tl


@triton.jit
def zero_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)


def zero_all(tensors):
    for t in tensors:
        zero_kernel[(triton.cdiv(t.numel(), 1024),)](t, t.numel(), BLOCK=1024)  # @L4 @P1
