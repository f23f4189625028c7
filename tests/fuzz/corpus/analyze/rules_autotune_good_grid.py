# expect: L2 satisfied
# expect: P1 applies scale_kernel
# expect: L3 satisfied
# expect: L4 n/a unlaunched
# expect: P1 n/a unlaunched
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def set_block(nargs):
    nargs["x_desc"].block_shape = [nargs["BLOCK_M"], 64]


@triton.autotune(configs=[triton.Config({"BLOCK_M": bm}, num_warps=w, pre_hook=set_block)  # @P1
                          for bm in (64, 128) for w in (4, 8)], key=["M"])
@triton.jit
def scale_kernel(x_desc, M, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0)
    x = x_desc.load([pid * BLOCK_M, 0])
    x_desc.store([pid * BLOCK_M, 0], x * 2)


@triton.jit
def unlaunched(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs))


def scale(x):
    M = x.shape[0]
    desc = TensorDescriptor.from_tensor(x, [64, 64])
    scale_kernel[lambda META: (triton.cdiv(M, META["BLOCK_M"]),)](desc, M)
    return x
