import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride_xm + cols, mask=cols < N)
    tl.store(y_ptr + row * stride_ym + cols, x * 2, mask=cols < N)


def scale(x):
    if x.stride(-1) != 1:
        x = x.contiguous()  # the kernel reads rows with a unit stride
    y = torch.empty_like(x)
    scale_kernel[(x.shape[0],)](x, y, x.shape[0], x.shape[1], x.stride(0), y.stride(0), BLOCK=1024)
    return y
