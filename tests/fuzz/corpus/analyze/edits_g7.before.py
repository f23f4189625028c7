import torch
import triton
import triton.language as tl


@triton.jit
def desc_kernel(x_ptr, y_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    x_desc = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    y_desc = tl.make_tensor_descriptor(y_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    pid = tl.program_id(0)
    y_desc.store([pid * BLOCK_M, 0], x_desc.load([pid * BLOCK_M, 0]))


def copy(x):
    y = torch.empty_like(x)
    M, N = x.shape
    desc_kernel[(triton.cdiv(M, 64),)](x, y, M, N, BLOCK_M=64, BLOCK_N=N)
    return y
