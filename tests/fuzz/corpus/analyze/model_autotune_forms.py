# Four ways to give autotune its configs.
import torch
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] <= named_args["n"]]


def _zero_out(nargs):
    nargs["out_ptr"].zero_()


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 128}, num_warps=4),
        triton.Config({"BLOCK": 256}, num_warps=4),
        triton.Config({"BLOCK": 512}, num_warps=8, pre_hook=_zero_out),
    ],
    key=["n"],
    prune_configs_by={"early_config_prune": _prune},
)
@triton.jit
def literal_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.atomic_add(out_ptr, tl.sum(tl.load(x_ptr + offs, mask=offs < n, other=0.0)))


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 128) for w in (4, 8)],
    key=["n", "m"],
)
@triton.jit
def comprehension_kernel(x_ptr, n, m, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def get_configs():
    if torch.cuda.get_device_capability()[0] >= 9:
        return [triton.Config({"BLOCK_M": 128, "BLOCK_N": 256}, num_stages=3, num_warps=8)]
    configs = []
    for bm in (64, 128):
        configs.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": 64}, num_stages=2, num_warps=4))
    return configs


@triton.autotune(configs=get_configs(), key=["M", "N"], pre_hook=None)
@triton.jit
def function_kernel(x_ptr, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(x_ptr + offs, tl.zeros((BLOCK_M,), dtype=tl.float32), mask=offs < M)


configs = [
    triton.Config({"BLOCK": 1024}, num_warps=4, num_stages=1),
    triton.Config({"BLOCK": 1024}, num_warps=8, num_stages=1),
]


@triton.autotune(configs, key=["n"])
@triton.jit
def variable_kernel(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 0.0, mask=offs < n)


def launch_all(x, out):
    n = x.numel()
    literal_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, out, n)
    comprehension_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, n, n)
    function_kernel[lambda META: (triton.cdiv(n, META["BLOCK_M"]),)](x, n, n)
    variable_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, n)
