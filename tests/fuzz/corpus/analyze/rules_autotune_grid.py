# L2 both ways (frozen keyword, grid without META), L3 with a host
# descriptor, P1 configs varying neither stages nor warps, S4 with it.
# expect: L2 applies
# expect: L3 applies
# expect: P1 applies
# expect: S4 applies
# expect: T3 applies
# expect: L4 satisfied
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.autotune(configs=[triton.Config({"BLOCK_M": 64}, num_warps=4), triton.Config({"BLOCK_M": 128}, num_warps=4)],  # @T3 @P1 @S4
                 key=["M"])
@triton.jit
def scale_kernel(x_desc, M, BLOCK_M: tl.constexpr):
    pid = tl.program_id(0)
    x = x_desc.load([pid * BLOCK_M, 0])
    x_desc.store([pid * BLOCK_M, 0], x * 2)


def scale(x):
    M = x.shape[0]
    desc = TensorDescriptor.from_tensor(x, [64, 64])  # @L3
    for _ in range(3):
        scale_kernel[(triton.cdiv(M, 64),)](desc, M, BLOCK_M=64)  # @L2
    return x
