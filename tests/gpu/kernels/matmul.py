import sys

import torch
import triton
import triton.language as tl

from common import report


@triton.autotune(
    configs=[
        triton.Config({"BM": 128, "BN": 128, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 128, "BN": 256, "BK": 64, "G": 8}, num_stages=3, num_warps=8),
        triton.Config({"BM": 64, "BN": 128, "BK": 32, "G": 8}, num_stages=4, num_warps=4),
    ],
    key=["M", "N", "K"],
)
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
                  BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, G: tl.constexpr):
    pid = tl.program_id(0)
    num_m = tl.cdiv(M, BM)
    num_n = tl.cdiv(N, BN)
    group = G * num_n
    gid = pid // group
    first_m = gid * G
    gsize = min(num_m - first_m, G)
    pid_m = first_m + (pid % group) % gsize
    pid_n = (pid % group) // gsize
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    a = torch.randn(n, n, device="cuda", dtype=torch.float16)
    b = torch.randn(n, n, device="cuda", dtype=torch.float16)
    c = torch.empty(n, n, device="cuda", dtype=torch.float16)
    grid = lambda meta: (triton.cdiv(n, meta["BM"]) * triton.cdiv(n, meta["BN"]),)

    def run():
        return matmul_kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0),
                                   b.stride(1), c.stride(0), c.stride(1))

    compiled = run()
    ref = torch.matmul(a, b)
    torch.testing.assert_close(c, ref, atol=1e-1, rtol=1e-2)
    best = matmul_kernel.best_config
    if iters:  # the GPU-bound timed region, no do_bench
        report("gpu_bound", "matmul_kernel", None, iters=iters, run_fn=run)
    else:
        report("matmul", "matmul_kernel", run, compiled, best.num_warps, best=str(best))


main()
