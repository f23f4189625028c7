import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tiles = (n + BLOCK - 1) // BLOCK  # inside a kernel: normal
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


def copy(x):
    y = torch.empty_like(x)
    n = x.numel()
    grid = ((n + 256 - 1) // 256,)
    copy_kernel[grid](x, y, n, BLOCK=256)
    return y
