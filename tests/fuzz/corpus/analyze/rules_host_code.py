# Host-side entries: D3 allocations, S7 contiguous, D7 clone, D9 split
# reshape, D11 mask under an assert, D12 hand cdiv, D14 autotune per call,
# D15 CPU allocation then copy, D6 a plain head-dim parameter.
# expect: D3 applies
# expect: S7 applies
# expect: D7 applies
# expect: D9 applies
# expect: D11 applies
# expect: D12 applies
# expect: D15 applies
# expect: D6 applies
# expect: D14 applies per_call
# expect: S7 satisfied per_call
# expect: D6 satisfied per_call
# expect: D3 satisfied per_call
import torch
import triton
import triton.language as tl


@triton.jit
def rows_kernel(x_ptr, y_ptr, n, head_dim, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for d in range(head_dim):  # @D6
        acc += tl.load(x_ptr + offs * head_dim + d, mask=offs < n)  # @D11
    tl.store(y_ptr + offs, acc)


def rows(x, w):
    x = x.contiguous()  # @S7
    n = x.shape[0]
    assert n % 128 == 0
    y = torch.empty(n, device=x.device)  # @D3
    tmp = torch.zeros(n, device=x.device)
    scale = torch.empty(8)  # @D15
    scale = scale.to(x.device)
    xt = x.transpose(0, 1).contiguous()
    xc = xt.clone()  # @D7
    halves = w.reshape(n, 2, w.shape[-1] // 2)  # @D9
    grid = ((n + 128 - 1) // 128,)  # @D12
    rows_kernel[grid](xc, y, n, 64, BLOCK=128)
    return y, tmp, halves, scale


@triton.jit
def per_call(x_ptr, n, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    for d in range(HEAD_DIM):
        tl.store(x_ptr + offs + d, 0.0, mask=offs < n)


def run_per_call(x):
    if x.stride(-1) != 1:
        x = x.contiguous()
    k = triton.autotune(configs=[triton.Config({"BLOCK": 64})], key=["n"])(per_call)  # @D14
    k[(1,)](x, x.numel(), HEAD_DIM=64)
    return x
