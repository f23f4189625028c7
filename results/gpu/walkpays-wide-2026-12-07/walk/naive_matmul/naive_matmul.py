"""A naive matmul: raw 2D masked loads, one stride argument per dimension,
fixed 64x64x32 tiles chosen in the wrapper (the grid computed from them),
no autotune. The walk in tests/gpu/walkpays.sh starts from this file.

python3 naive_matmul.py: checks against torch.matmul at sizes that are not
multiples of the tiles, then times 8192^3 fp16."""
import sys

import torch
import triton
import triton.language as tl


def naive_matmul_kernel_configs():
    # naive_matmul_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64},
        {"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=naive_matmul_kernel_configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def naive_matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                        stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                        BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr):
    # P4: neighbouring programs take neighbouring tiles, GROUP_SIZE_M rows of axis 0 at a time,
    # so the tiles of A and B they share are read from L2 (same tiles, other order)
    GROUP_SIZE_M = 8
    tiles_0 = tl.num_programs(0)
    tiles_1 = tl.num_programs(1)
    tile_id = tl.program_id(1) * tiles_0 + tl.program_id(0)
    group_width = GROUP_SIZE_M * tiles_1
    group_start = tile_id // group_width * GROUP_SIZE_M
    group_rows = tl.minimum(tiles_0 - group_start, GROUP_SIZE_M)
    pid_m = group_start + tile_id % group_width % group_rows
    pid_n = tile_id % group_width // group_rows
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + offs_k
        if EVEN_K:
            a = a_desc.load([pid_m * BLOCK_M, k0])
            b = b_desc.load([k0, pid_n * BLOCK_N])
        else:
            a = a_desc.load([pid_m * BLOCK_M, k0])
            b = b_desc.load([k0, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c = acc.to(c_ptr.dtype.element_ty)
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], c)


def matmul(a, b):
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, "inner dimensions differ"
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    def alloc_fn(size: int, alignment: int, stream):
        # scratch memory for tensor descriptors built inside the kernel
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc_fn)
    assert a.stride(1) == 1 and a.data_ptr() % 16 == 0 and all(s * a.element_size() % 16 == 0 for i, s in enumerate(a.stride()) if i != 1 % a.dim()), "naive_matmul_kernel accesses a through a TMA tensor descriptor: its last dimension must be contiguous, its address and other strides multiples of 16 bytes"
    assert b.stride(1) == 1 and b.data_ptr() % 16 == 0 and all(s * b.element_size() % 16 == 0 for i, s in enumerate(b.stride()) if i != 1 % b.dim()), "naive_matmul_kernel accesses b through a TMA tensor descriptor: its last dimension must be contiguous, its address and other strides multiples of 16 bytes"
    assert c.stride(1) == 1 and c.data_ptr() % 16 == 0 and all(s * c.element_size() % 16 == 0 for i, s in enumerate(c.stride()) if i != 1 % c.dim()), "naive_matmul_kernel accesses c through a TMA tensor descriptor: its last dimension must be contiguous, its address and other strides multiples of 16 bytes"
    naive_matmul_kernel[grid](
        a, b, c, M, N, K,
        a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
    return c


def make_inputs(M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((M, K), device="cuda", dtype=torch.float16, generator=g)
    b = torch.randn((K, N), device="cuda", dtype=torch.float16, generator=g)
    return a, b


def reference(a, b):
    return torch.matmul(a, b)


CHECK_SIZES = [(100, 72, 40), (257, 136, 264), (512, 512, 512)]
# accepted by the original, outside TMA's 16-byte rule (rows of 130 halves)
CONTRACT_SIZES = [(257, 130, 264)]
BENCH_SIZES = [(8192, 8192, 8192)]
ENTRY = "matmul"


if __name__ == "__main__":
    ok = True
    for size in CHECK_SIZES:
        args = make_inputs(*size)
        ref = reference(*args).float()
        err = ((matmul(*args).float() - ref).abs().max() / ref.abs().max()).item()
        print(f"check M,N,K={size}: max rel err {err:.2e}")
        ok &= err < 1e-2
    for size in BENCH_SIZES:
        args = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: matmul(*args), return_mode="median")
        print(f"matmul{list(size)}: triton {ms:.3f} ms")
    sys.exit(0 if ok else 1)
