import sys

import torch
import triton
import triton.language as tl

from common import report


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 27
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    x = torch.rand(n, device="cuda")
    y = torch.rand(n, device="cuda")
    out = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    compiled = add_kernel[grid](x, y, out, n, BLOCK=1024, num_warps=4)
    torch.testing.assert_close(out, x + y)

    def run():
        add_kernel[grid](x, y, out, n, BLOCK=1024, num_warps=4)

    # iters given: the launch-bound mode (tiny n, many launches, no do_bench)
    report("vector_add" if not iters else "launch_bound", "add_kernel",
           None if iters else run, compiled, 4, iters=iters, run_fn=run, n=n)


main()
