"""A shape that runs slower after its first launches (issue 28, sampling
weights): one Triton kernel, one launch shape, launched FIRST times with a
short loop and then LATER times with a long one. With adaptive tracing the
first 4,096 launches are timed in full and the later ones mostly sampled
(one per ms), so an unweighted median or mean stands for the short loop.
Prints `RESULT {json}` with the launch counts and loop lengths; the GPU
figures come from the profiler (tests/gpu/probes/sampled_drift.sh).
Usage: python3 sampled_drift.py [FIRST LATER]
"""
import json
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def spin_kernel(x_ptr, n_iter, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.load(x_ptr + offs)
    for _ in range(n_iter):
        acc = acc * 0.999 + 0.5
    tl.store(x_ptr + offs, acc)


def main():
    first = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    later = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    x = torch.zeros(128, device="cuda", dtype=torch.float32)
    for _ in range(first):
        spin_kernel[(1,)](x, 16, BLOCK=128)
    for _ in range(later):
        spin_kernel[(1,)](x, 2048, BLOCK=128)
    torch.cuda.synchronize()
    print("RESULT " + json.dumps({"first": first, "later": later, "short_iter": 16, "long_iter": 2048}))


if __name__ == "__main__":
    main()
