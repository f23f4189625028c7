"""One deliberately slow line: a long chain of dependent multiply-adds on
the line marked SLOW (the loop and its body on one line, so that the loop's
own instructions count there too), next to a cheap load and store. PC sampling must put
the hot spot on that line. Usage: slowline.py [N] [ITERS]"""
import sys

import torch
import triton
import triton.language as tl

from common import report


@triton.jit
def slow_line_kernel(x_ptr, y_ptr, n, iters, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    acc = x
    for _ in range(iters): acc = acc * 0.999 + x * 0.001  # SLOW  # noqa: E701
    tl.store(y_ptr + offs, acc, mask=mask)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 22
    iters = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    x = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    compiled = slow_line_kernel[grid](x, y, n, iters, BLOCK=1024, num_warps=4)
    torch.testing.assert_close(y, x, rtol=1e-3, atol=1e-3)

    def run():
        slow_line_kernel[grid](x, y, n, iters, BLOCK=1024, num_warps=4)

    report("slowline", "slow_line_kernel", None, compiled, 4, iters=20, run_fn=run, n=n)


main()
