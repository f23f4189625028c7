# Block pointers and tensor descriptors, in-kernel and on the host.
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def block_ptr_kernel(a_ptr, M, K, stride_m, stride_k, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    a_block = tl.make_block_ptr(base=a_ptr, shape=(M, K), strides=(stride_m, stride_k),
                                offsets=(tl.program_id(0) * BLOCK_M, 0),
                                block_shape=(BLOCK_M, BLOCK_K), order=(1, 0))
    for _ in range(0, K, BLOCK_K):
        a = tl.load(a_block, boundary_check=(0, 1))
        tl.store(a_block, a * 2, boundary_check=(0, 1))
        a_block = tl.advance(a_block, (0, BLOCK_K))


@triton.jit
def device_desc_kernel(a_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1],
                                     block_shape=[BLOCK_M, BLOCK_K])
    off_m = tl.program_id(0) * BLOCK_M
    for k in range(0, K, BLOCK_K):
        tile = desc.load([off_m, k])
        desc.store([off_m, k], tile + 1)


@triton.jit
def host_desc_kernel(in_desc, out_desc, BLOCK_M: tl.constexpr):
    off = tl.program_id(0) * BLOCK_M
    out_desc.store([off, 0], in_desc.load([off, 0]))


def alloc_fn(size: int, alignment: int, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def run(a, b):
    M, K = a.shape
    triton.set_allocator(alloc_fn)
    block_ptr_kernel[(triton.cdiv(M, 64),)](a, M, K, a.stride(0), a.stride(1), BLOCK_M=64, BLOCK_K=32)
    device_desc_kernel[(triton.cdiv(M, 64),)](a, M, K, BLOCK_M=64, BLOCK_K=32)
    in_desc = TensorDescriptor.from_tensor(a, [64, K])
    out_desc = TensorDescriptor(b, b.shape, b.stride(), [64, K])
    host_desc_kernel[(triton.cdiv(M, 64),)](in_desc, out_desc, BLOCK_M=64)
