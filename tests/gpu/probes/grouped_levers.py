"""Which lever does pop_grouped_gemm need? (issue 27, probe, H200)

The population's grouped GEMM runs at ~14x torch's time. Its tile pointers
start from addresses and leading dimensions loaded from device tables, and
every load is masked against bounds also loaded from memory, so Triton can
prove neither alignment nor constant masks. This probe times one kernel
(the population's, rewritten here with constexpr switches) with each lever
on or off, at the population's bench problems, and checks each against
torch.matmul at its check problems:
  ALIGN: 1: tl.multiple_of on the loaded base pointers, tl.assume on the
         leading dimensions; 2: P6's edit as it stands (tl.assume on the
         address cast to an integer, and on the leading dimensions),
  PEEL:  K loop over full blocks unmasked in K, then one masked tail
         (P2's attention form, for a bound that is no kernel argument),
  WRAP:  row and column offsets taken modulo M and N (the matmul tutorial's
         form), so that the loads carry no M/N mask; the store keeps it.
Usage: python3 tests/gpu/probes/grouped_levers.py  (prints one line a variant)
"""
import itertools
import os
import sys

import torch
import triton
import triton.language as tl

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "kernels"))
import pop_grouped_gemm as pop  # noqa: E402


@triton.jit
def probe_kernel(a_ptrs, b_ptrs, c_ptrs, sizes, lds, G,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                 ALIGN: tl.constexpr, PEEL: tl.constexpr, WRAP: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    total_tiles = 0
    for g in range(G):
        Mg = tl.load(sizes + g * 3 + 0)
        Ng = tl.load(sizes + g * 3 + 1)
        total_tiles += ((Mg + BLOCK_M - 1) // BLOCK_M) * ((Ng + BLOCK_N - 1) // BLOCK_N)
    for tile in range(pid, total_tiles, nprog):
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
        M = tl.load(sizes + prob * 3 + 0)
        N = tl.load(sizes + prob * 3 + 1)
        K = tl.load(sizes + prob * 3 + 2)
        lda = tl.load(lds + prob * 3 + 0)
        ldb = tl.load(lds + prob * 3 + 1)
        ldc = tl.load(lds + prob * 3 + 2)
        a_base = tl.load(a_ptrs + prob).to(tl.pointer_type(tl.float16))
        b_base = tl.load(b_ptrs + prob).to(tl.pointer_type(tl.float16))
        c_base = tl.load(c_ptrs + prob).to(tl.pointer_type(tl.float16))
        if ALIGN == 2:
            # P6's edit as it stands: the assumption on the address as an integer
            tl.assume(lda % 8 == 0)
            tl.assume(ldb % 8 == 0)
            tl.assume(ldc % 8 == 0)
            tl.assume(a_base.to(tl.int64) % 16 == 0)
            tl.assume(b_base.to(tl.int64) % 16 == 0)
            tl.assume(c_base.to(tl.int64) % 16 == 0)
        if ALIGN == 1:
            tl.assume(lda % 8 == 0)
            tl.assume(ldb % 8 == 0)
            tl.assume(ldc % 8 == 0)
            a_base = tl.multiple_of(a_base, 16)
            b_base = tl.multiple_of(b_base, 16)
            c_base = tl.multiple_of(c_base, 16)
        local = tile - prob_start
        tiles_n = (N + BLOCK_N - 1) // BLOCK_N
        tile_m = local // tiles_n
        tile_n = local % tiles_n
        rows = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
        cols = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
        ks = tl.arange(0, BLOCK_K)
        row_ok = rows < M
        col_ok = cols < N
        if WRAP:
            rows_ld = tl.max_contiguous(tl.multiple_of(rows % M, BLOCK_M), BLOCK_M)
            cols_ld = tl.max_contiguous(tl.multiple_of(cols % N, BLOCK_N), BLOCK_N)
            a_tile = a_base + rows_ld[:, None] * lda + ks[None, :]
            b_tile = b_base + ks[:, None] * ldb + cols_ld[None, :]
        else:
            a_tile = a_base + rows[:, None] * lda + ks[None, :]
            b_tile = b_base + ks[:, None] * ldb + cols[None, :]
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        k_full = K
        if PEEL:
            k_full = K - K % BLOCK_K
            for k0 in range(0, k_full, BLOCK_K):
                if WRAP:
                    a = tl.load(a_tile)
                    b = tl.load(b_tile)
                else:
                    a = tl.load(a_tile, mask=row_ok[:, None], other=0.0)
                    b = tl.load(b_tile, mask=col_ok[None, :], other=0.0)
                acc = tl.dot(a, b, acc)
                a_tile += BLOCK_K
                b_tile += BLOCK_K * ldb
            k_start = k_full
        else:
            k_start = 0
        for k0 in range(k_start, K, BLOCK_K):
            k_left = K - k0
            a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            a_tile += BLOCK_K
            b_tile += BLOCK_K * ldb
        c_tile = c_base + rows[:, None] * ldc + cols[None, :]
        tl.store(c_tile, acc.to(tl.float16), mask=row_ok[:, None] & col_ok[None, :])


def run(inputs, align, peel, wrap):
    As, Bs, Cs, a_ptrs, b_ptrs, c_ptrs, sizes, lds = inputs
    nprog = torch.cuda.get_device_properties(As[0].device).multi_processor_count
    probe_kernel[(nprog,)](a_ptrs, b_ptrs, c_ptrs, sizes, lds, len(As),
                           BLOCK_M=128, BLOCK_N=128, BLOCK_K=32,
                           ALIGN=align, PEEL=peel, WRAP=wrap, num_warps=4, num_stages=3)
    return Cs


def main():
    # check problems whose rows are 16-byte multiples (ALIGN's assumption)
    check = [((128, 136, 264), (64, 64, 64), (264, 104, 136)),
             ((33, 200, 72), (1, 16, 8), (300, 128, 48), (128, 256, 96))]
    bench = pop.BENCH_SIZES[0]
    flops = sum(2 * M * N * K for (M, N, K) in bench)
    binp = pop.make_inputs(*bench)
    ref_ms = triton.testing.do_bench(lambda: [torch.matmul(a, b) for a, b in zip(binp[0], binp[1])],
                                     return_mode="median")
    print(f"torch.matmul x{len(bench)}: {ref_ms:.3f} ms")
    orig_ms = triton.testing.do_bench(lambda: pop.grouped_gemm(*binp), return_mode="median")
    print(f"population kernel as written: {orig_ms:.3f} ms")
    variants = list(itertools.product((0, 1), repeat=3)) + [(2, 0, 0), (2, 1, 0), (2, 1, 1)]
    for align, peel, wrap in variants:
        ok = True
        for size in check:
            inp = pop.make_inputs(*size)
            outs = run(inp, align, peel, wrap)
            for o, a, b in zip(outs, inp[0], inp[1]):
                r = torch.matmul(a, b).float()
                ok = ok and (o.float() - r).abs().max().item() <= 2e-2 * max(r.abs().max().item(), 1e-6)
        ms = triton.testing.do_bench(lambda: run(binp, align, peel, wrap), return_mode="median")
        print(f"ALIGN={align} PEEL={peel} WRAP={wrap}: {ms:.3f} ms ({flops / ms * 1e-9:.0f} TFLOP/s, "
              f"{ms / ref_ms:.2f}x torch) outputs {'match' if ok else 'DIFFER'}")


if __name__ == "__main__":
    main()
