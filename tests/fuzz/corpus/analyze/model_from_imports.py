# Other import spellings: `from triton import ...` and an aliased triton.
import torch
import triton as tr
from triton import jit
from triton import language as tl


@jit
def scale_kernel(x_ptr, n, alpha, BLOCK: tl.constexpr = 256):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, offs < n)
    tl.store(x_ptr + offs, x * alpha, offs < n)


@tr.heuristics({"EVEN_N": lambda args: args["n"] % args["BLOCK"] == 0,
                "BLOCK": lambda args: 128})
@tr.jit(do_not_specialize=["n", "alpha"])
def axpy_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(y_ptr + offs, alpha * x)


def run(x, y, alpha):
    n = x.numel()
    scale_kernel[(tr.cdiv(n, 256),)](x, n, alpha)
    axpy_kernel[lambda META: (tr.cdiv(n, META["BLOCK"]),)](x, y, n, alpha)
