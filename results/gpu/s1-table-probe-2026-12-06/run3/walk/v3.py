"""Naive Triton port of a CUDA grouped GEMM (persistent, one launch for G problems).

G independent problems C_g = A_g @ B_g, A_g (M_g, K_g), B_g (K_g, N_g), C_g (M_g, N_g),
all row-major fp16 with leading dimensions lda_g, ldb_g, ldc_g; fp32 accumulate.
Problem descriptions live on the device:
  a_ptrs, b_ptrs, c_ptrs : int64 (G,)   raw device addresses of A_g, B_g, C_g
  sizes                  : int32 (G, 3) (M_g, N_g, K_g)
  lds                    : int32 (G, 3) (lda_g, ldb_g, ldc_g)
A fixed number of programs (the SM count) walk over the global tile index
tile = pid, pid + nprog, ...; each tile is mapped to its problem by a scan over G.
"""
import sys

import torch
import triton
import triton.language as tl


def grouped_gemm_kernel_configs():
    # grouped_gemm_kernel's tiles on each GPU generation, with pipeline depths that fit it
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
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=grouped_gemm_kernel_configs(), key=["G"])
@triton.jit
def grouped_gemm_kernel(
    a_ptrs, b_ptrs, c_ptrs,
    sizes, lds,
    G,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)

    # total number of output tiles over all problems
    total_tiles = 0
    for g in range(G):
        Mg = tl.load(sizes + g * 3 + 0)
        Ng = tl.load(sizes + g * 3 + 1)
        total_tiles += ((Mg + BLOCK_M - 1) // BLOCK_M) * ((Ng + BLOCK_N - 1) // BLOCK_N)

    for tile in range(pid, total_tiles, nprog):
        # find the problem this tile belongs to and the first tile index of that problem
        prob = 0
        prob_start = 0
        start = 0
        for g in range(G):
            Mg = tl.load(sizes + g * 3 + 0)
            Ng = tl.load(sizes + g * 3 + 1)
            ntiles = ((Mg + BLOCK_M - 1) // BLOCK_M) * ((Ng + BLOCK_N - 1) // BLOCK_N)
            inside = (tile >= start) & (tile < start + ntiles)
            prob = tl.where(inside, g, prob)
            prob_start = tl.where(inside, start, prob_start)
            start += ntiles

        # this problem's sizes, leading dimensions and pointers
        M = tl.load(sizes + prob * 3 + 0)
        N = tl.load(sizes + prob * 3 + 1)
        K = tl.load(sizes + prob * 3 + 2)
        lda = tl.load(lds + prob * 3 + 0)
        lda = tl.multiple_of(lda, 8)
        ldb = tl.load(lds + prob * 3 + 1)
        ldb = tl.multiple_of(ldb, 8)
        ldc = tl.load(lds + prob * 3 + 2)
        ldc = tl.multiple_of(ldc, 8)
        a_base = tl.load(a_ptrs + prob).to(tl.pointer_type(tl.float16))
        a_base = tl.multiple_of(a_base, 16)
        b_base = tl.load(b_ptrs + prob).to(tl.pointer_type(tl.float16))
        b_base = tl.multiple_of(b_base, 16)
        c_base = tl.load(c_ptrs + prob).to(tl.pointer_type(tl.float16))
        c_base = tl.multiple_of(c_base, 16)

        # tile coordinates inside the problem (row-major over the tile grid)
        local = tile - prob_start
        tiles_n = (N + BLOCK_N - 1) // BLOCK_N
        tile_m = local // tiles_n
        tile_n = local % tiles_n

        rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        ks = tl.arange(0, BLOCK_K)
        row_ok = rows < M
        col_ok = cols < N

        a_tile = a_base + rows[:, None] * lda + ks[None, :]
        b_tile = b_base + ks[:, None] * ldb + cols[None, :]

        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        a_base_desc = tl.make_tensor_descriptor(a_base, shape=[M, K], strides=[lda, 1], block_shape=[BLOCK_M, BLOCK_K])
        a_base_desc_ok = (lda % 8 == 0) & (a_base.to(tl.int64) % 16 == 0)
        b_base_desc = tl.make_tensor_descriptor(b_base, shape=[K, N], strides=[ldb, 1], block_shape=[BLOCK_K, BLOCK_N])
        b_base_desc_ok = (ldb % 8 == 0) & (b_base.to(tl.int64) % 16 == 0)
        if a_base_desc_ok & b_base_desc_ok:
            for k0 in range(0, K, BLOCK_K):
                k_left = K - k0
                a = a_base_desc.load([tile_m * BLOCK_M, k0])
                b = b_base_desc.load([k0, tile_n * BLOCK_N])
                acc = tl.dot(a, b, acc)
        else:
            for k0 in range(0, K, BLOCK_K):
                k_left = K - k0
                a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
                b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
                acc = tl.dot(a, b, acc)
                a_tile += BLOCK_K
                b_tile += BLOCK_K * ldb

        c_tile = c_base + rows[:, None] * ldc + cols[None, :]
        c_base_desc = tl.make_tensor_descriptor(c_base, shape=[M, N], strides=[ldc, 1], block_shape=[BLOCK_M, BLOCK_N])
        c_base_desc_ok = (ldc % 8 == 0) & (c_base.to(tl.int64) % 16 == 0)
        if c_base_desc_ok:
            c_base_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.float16))
        else:
            tl.store(c_tile, acc.to(tl.float16), mask=row_ok[:, None] & col_ok[None, :])


BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 32


def grouped_gemm(As, Bs, Cs, a_ptrs, b_ptrs, c_ptrs, sizes, lds):
    """As, Bs, Cs: lists of the tensors (kept alive, C_g written in place);
    the kernel itself only sees the device pointer / size / leading-dim arrays."""
    G = len(As)
    assert sizes.shape == (G, 3) and lds.shape == (G, 3)
    assert sizes.dtype == torch.int32 and lds.dtype == torch.int32
    assert a_ptrs.dtype == torch.int64 and a_ptrs.numel() == G
    nprog = torch.cuda.get_device_properties(As[0].device).multi_processor_count
    # grouped_gemm_kernel assumes lda % 8 == 0 for each entry of lds[::3] it reads: not asserted here, since reading a GPU tensor on the host waits for the GPU on every call
    # grouped_gemm_kernel assumes ldb % 8 == 0 for each entry of lds[1::3] it reads: not asserted here, since reading a GPU tensor on the host waits for the GPU on every call
    # grouped_gemm_kernel assumes ldc % 8 == 0 for each entry of lds[2::3] it reads: not asserted here, since reading a GPU tensor on the host waits for the GPU on every call
    # grouped_gemm_kernel assumes a_base.to(tl.int64) % 16 == 0 for each entry of a_ptrs it reads: not asserted here, since reading a GPU tensor on the host waits for the GPU on every call
    # grouped_gemm_kernel assumes b_base.to(tl.int64) % 16 == 0 for each entry of b_ptrs it reads: not asserted here, since reading a GPU tensor on the host waits for the GPU on every call
    # grouped_gemm_kernel assumes c_base.to(tl.int64) % 16 == 0 for each entry of c_ptrs it reads: not asserted here, since reading a GPU tensor on the host waits for the GPU on every call
    def alloc_fn(size: int, alignment: int, stream):
        # scratch memory for tensor descriptors built inside the kernel
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc_fn)
    grouped_gemm_kernel[(nprog,)](
        a_ptrs, b_ptrs, c_ptrs,
        sizes, lds,
        G,
    )
    return tuple(Cs)


def make_inputs(*problems, seed=0):
    """problems: (M, N, K) triples, one per group."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    As, Bs, Cs = [], [], []
    for (M, N, K) in problems:
        a = torch.randn((M, K), generator=g, device="cuda", dtype=torch.float16)
        b = torch.randn((K, N), generator=g, device="cuda", dtype=torch.float16)
        c = torch.empty((M, N), device="cuda", dtype=torch.float16)
        As.append(a)
        Bs.append(b)
        Cs.append(c)
    a_ptrs = torch.tensor([t.data_ptr() for t in As], dtype=torch.int64, device="cuda")
    b_ptrs = torch.tensor([t.data_ptr() for t in Bs], dtype=torch.int64, device="cuda")
    c_ptrs = torch.tensor([t.data_ptr() for t in Cs], dtype=torch.int64, device="cuda")
    sizes = torch.tensor([list(p) for p in problems], dtype=torch.int32, device="cuda")
    lds = torch.tensor([[a.stride(0), b.stride(0), c.stride(0)] for a, b, c in zip(As, Bs, Cs)],
                       dtype=torch.int32, device="cuda")
    return (As, Bs, Cs, a_ptrs, b_ptrs, c_ptrs, sizes, lds)


def reference(As, Bs, Cs, a_ptrs, b_ptrs, c_ptrs, sizes, lds):
    return tuple(torch.matmul(a, b) for a, b in zip(As, Bs))


ENTRY = "grouped_gemm"

# each size tuple is a list of (M, N, K) problems
CHECK_SIZES = [
    ((100, 130, 257), (64, 64, 64), (257, 100, 130)),
    ((33, 200, 70), (1, 17, 5), (300, 129, 45), (128, 256, 96)),
    ((128, 128, 128), (256, 384, 64)),
]
_BENCH_SHAPES = ((2048, 2048, 2048), (4096, 1024, 2048), (1024, 4096, 1024), (3072, 3072, 1536))
BENCH_SIZES = [_BENCH_SHAPES + _BENCH_SHAPES]


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


if __name__ == "__main__":
    fn = globals()[ENTRY]
    ok = True
    for size in CHECK_SIZES:
        inputs = make_inputs(*size)
        outs = _as_tuple(fn(*inputs))
        refs = _as_tuple(reference(*inputs))
        ok = ok and len(outs) == len(refs)
        for i, (o, r) in enumerate(zip(outs, refs)):
            err = (o.float() - r.float()).abs().max().item()
            tol = 2e-2 * max(r.float().abs().max().item(), 1e-6)
            good = o.shape == r.shape and o.dtype == r.dtype and err <= tol
            ok = ok and good
            print(f"check {size[i]} (group {i}): max abs err {err:.4e} (tol {tol:.4e}) "
                  f"{'OK' if good else 'FAIL'}")
    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        flops = sum(2 * M * N * K for (M, N, K) in size)
        print(f"bench {len(size)} problems {size}: {ms:.4f} ms, {flops / ms * 1e-9:.1f} TFLOP/s")
    sys.exit(0 if ok else 1)
