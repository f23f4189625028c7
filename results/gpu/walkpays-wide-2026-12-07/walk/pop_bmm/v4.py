"""Naive Triton port of a CUDA batched GEMM: C[b] = A[b] @ B[b].

A (Bt, M, K), B (Bt, K, N), C (Bt, M, N); fp16 in, fp32 accumulate, fp16 out.
One program per (output tile, batch); 3D grid with the batch on axis 2 (blockIdx.z).
"""
import sys

import torch
import triton
import triton.language as tl


def bmm_kernel_configs():
    # bmm_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 32},
        {"BLOCK_M": 256, "BLOCK_N": 256, "BLOCK_K": 64},
        {"BLOCK_M": 256, "BLOCK_N": 128, "BLOCK_K": 32},
        {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=bmm_kernel_configs(), key=["M", "N", "K"])
@triton.heuristics({"EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0})
@triton.jit
def bmm_kernel(
    a_ptr, b_ptr, c_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak,
    stride_bb, stride_bk, stride_bn,
    stride_cb, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr,
):
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
    batch = tl.program_id(2).to(tl.int64)  # blockIdx.z

    # move the base pointers to this batch's matrices
    a_ptr += batch * stride_ab
    b_ptr += batch * stride_bb
    c_ptr += batch * stride_cb

    rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    ks = tl.arange(0, BLOCK_K)
    row_ok = rows < M
    col_ok = cols < N


    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[stride_bk, 1], block_shape=[BLOCK_K, BLOCK_N])
    for k0 in range(0, K, BLOCK_K):
        k_left = K - k0
        if EVEN_K:
            a = a_desc.load([pid_m * BLOCK_M, k0])
            b = b_desc.load([k0, pid_n * BLOCK_N])
        else:
            a = a_desc.load([pid_m * BLOCK_M, k0])
            b = b_desc.load([k0, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)

    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[stride_cm, 1], block_shape=[BLOCK_M, BLOCK_N])
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_ptr.dtype.element_ty))


BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 32


def bmm(a, b):
    assert a.ndim == 3 and b.ndim == 3
    assert a.shape[0] == b.shape[0] and a.shape[2] == b.shape[1]
    assert a.dtype == torch.float16 and b.dtype == torch.float16
    Bt, M, K = a.shape
    _, _, N = b.shape
    c = torch.empty((Bt, M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]), Bt)
    def alloc_fn(size: int, alignment: int, stream):
        # scratch memory for tensor descriptors built inside the kernel
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc_fn)
    assert a.stride(2) == 1 and a.data_ptr() % 16 == 0 and all(s * a.element_size() % 16 == 0 for i, s in enumerate(a.stride()) if i != 2 % a.dim()), "bmm_kernel accesses a through a TMA tensor descriptor: its last dimension must be contiguous, its address and other strides multiples of 16 bytes"
    assert b.stride(2) == 1 and b.data_ptr() % 16 == 0 and all(s * b.element_size() % 16 == 0 for i, s in enumerate(b.stride()) if i != 2 % b.dim()), "bmm_kernel accesses b through a TMA tensor descriptor: its last dimension must be contiguous, its address and other strides multiples of 16 bytes"
    assert c.stride(2) == 1 and c.data_ptr() % 16 == 0 and all(s * c.element_size() % 16 == 0 for i, s in enumerate(c.stride()) if i != 2 % c.dim()), "bmm_kernel accesses c through a TMA tensor descriptor: its last dimension must be contiguous, its address and other strides multiples of 16 bytes"
    bmm_kernel[grid](
        a, b, c,
        M, N, K,
        a.stride(0), a.stride(1), a.stride(2),
        b.stride(0), b.stride(1), b.stride(2),
        c.stride(0), c.stride(1), c.stride(2),
    )
    return c


def make_inputs(Bt, M, N, K, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn((Bt, M, K), generator=g, device="cuda", dtype=torch.float16)
    b = torch.randn((Bt, K, N), generator=g, device="cuda", dtype=torch.float16)
    return (a, b)


def reference(a, b):
    return torch.bmm(a, b)


ENTRY = "bmm"

# (Bt, M, N, K)
CHECK_SIZES = [(3, 100, 130, 257), (5, 257, 100, 130), (2, 128, 256, 64)]
BENCH_SIZES = [(16, 2048, 2048, 2048)]


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


if __name__ == "__main__":
    fn = globals()[ENTRY]
    ok = True
    for size in CHECK_SIZES:
        inputs = make_inputs(*size)
        outs = _as_tuple(fn(*inputs))
        refs = _as_tuple(reference(*inputs))
        for o, r in zip(outs, refs):
            err = (o.float() - r.float()).abs().max().item()
            tol = 2e-2 * max(r.float().abs().max().item(), 1e-6)
            good = o.shape == r.shape and o.dtype == r.dtype and err <= tol
            ok = ok and good
            print(f"check {size}: max abs err {err:.4e} (tol {tol:.4e}) {'OK' if good else 'FAIL'}")
    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        Bt, M, N, K = size
        print(f"bench {size}: {ms:.4f} ms, {2 * Bt * M * N * K / ms * 1e-9:.1f} TFLOP/s")
    sys.exit(0 if ok else 1)
