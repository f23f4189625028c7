# expect: T2 applies
# expect: L1 applies
# expect: T2 applies no_trans
# expect: L1 satisfied no_trans
# expect: T2 applies plain
# expect: L1 n/a plain
import triton
import triton.language as tl


@triton.jit
def dual(a_ptr, b_ptr, K, TRANSPOSE: tl.constexpr, BLOCK: tl.constexpr):  # @T2
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    a = tl.load(a_ptr + offs[:, None] * BLOCK + offs[None, :])
    for k in range(0, K, BLOCK):
        b = tl.load(b_ptr + offs[:, None] * BLOCK + offs[None, :])
        if TRANSPOSE:
            b = tl.trans(b)  # @L1 @P3
        acc = tl.dot(a, b, acc)
    tl.store(a_ptr + offs[:, None] * BLOCK + offs[None, :], acc)


@triton.jit
def no_trans(a_ptr, transpose_v: tl.constexpr, BLOCK: tl.constexpr):  # @T2
    offs = tl.arange(0, BLOCK)
    tl.store(a_ptr + offs, tl.load(a_ptr + offs))


@triton.jit
def plain(a_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(a_ptr + offs, tl.load(a_ptr + offs))


def run(a, b, transpose):  # @T2
    dual[(1,)](a, b, 64, TRANSPOSE=transpose, BLOCK=64)
    no_trans[(1,)](a, transpose_v=False, BLOCK=64)
    plain[(1,)](a, BLOCK=64)
