# Kernels made by calling triton.jit/autotune/heuristics instead of decorating.
import triton
import triton.language as tl


def _copy(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=offs < n), mask=offs < n)


def _fill(dst_ptr, n, value, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst_ptr + offs, value, mask=offs < n)


copy_kernel = triton.autotune(
    configs=[triton.Config({"BLOCK": 256}), triton.Config({"BLOCK": 1024})],
    key=["n"],
)(triton.jit(_copy))

fill_kernel = triton.heuristics({"BLOCK": lambda args: 512})(triton.jit(_fill))


def copy(src, dst):
    n = src.numel()
    copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](src, dst, n)
    fill_kernel[(triton.cdiv(n, 512),)](dst, n, 0.0)
