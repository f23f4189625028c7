# Near misses that must not fire: a 1D load is not S1; an accumulator
# carried across iterations is not S3; tl.trans outside a loop is not P3;
# a ceiling division inside a kernel is not D12; names alone are not T1.
# expect: S1 n/a
# expect: S3 satisfied carried
# expect: P3 n/a
# expect: D12 n/a
# expect: T1 n/a
# expect: S6 n/a
# expect: P6 n/a
# expect: D6 n/a
# only-applies: P1,S4,T3
import torch
import triton
import triton.language as tl


@triton.jit
def softcap_xent(logits_ptr, out_ptr, n_cols, stride, SOFT_CAP: tl.constexpr, flash_attn_hint: tl.constexpr,
                 BLOCK: tl.constexpr):
    row = tl.program_id(0)
    nblocks = (n_cols + BLOCK - 1) // BLOCK
    offs = tl.arange(0, BLOCK)
    x = tl.load(logits_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
    x = SOFT_CAP * tl.math.tanh(x / SOFT_CAP)
    m = tl.max(x, 0)
    s = tl.sum(tl.exp(x - m), 0)
    tl.store(out_ptr + row, m + tl.log(s) + nblocks)


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b in (64, 128) for w in (4, 8)], key=["n"])
@triton.jit
def carried(a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    a = tl.load(a_ptr + offs)
    t = tl.trans(a)
    for i in range(n):
        acc = tl.dot(t, t, acc)
    tl.store(b_ptr + offs, tl.sum(acc, 0))


def run(x, out):
    if torch.cuda.get_device_capability()[0] >= 9:
        pass
    softcap_xent[(x.shape[0],)](x, out, x.shape[1], x.stride(0), SOFT_CAP=30.0, flash_attn_hint=0, BLOCK=1024)
