# P6 on strides and pointers loaded from memory; D5 group search; D10 fixed
# pointer dtype; S2 broadcast into dot; D13 precedence; D4 expand_dims.
# expect: P6 applies grouped
# expect: D5 applies grouped
# expect: D10 applies grouped
# expect: P6 satisfied assumed
# expect: D10 satisfied assumed
# expect: S2 applies bcast
# expect: S2 satisfied grouped
# expect: D13 applies bcast
# expect: D4 applies bcast
# expect: S1 applies gather
import triton
import triton.language as tl


@triton.jit
def grouped(ptr_table, stride_table, group_ends, n_groups, tile, BLOCK: tl.constexpr):
    g = 0
    for i in range(n_groups):  # @D5
        end = tl.load(group_ends + i)
        g = tl.where(tile >= end, i + 1, g)
    a_ptr = tl.load(ptr_table + g).to(tl.pointer_type(tl.float16))  # @P6 @D10
    lda = tl.load(stride_table + g)  # @P6
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs[:, None] * lda + offs[None, :])  # @S1
    tl.store(a_ptr + offs[:, None] * lda + offs[None, :], tl.dot(a, a))  # @S1


@triton.jit
def assumed(ptr_table, stride_table, g, out_ptr, BLOCK: tl.constexpr):
    a_ptr = tl.load(ptr_table + g).to(tl.pointer_type(out_ptr.dtype.element_ty))
    lda = tl.load(stride_table + g)
    tl.assume(lda % 16 == 0)
    tl.assume(a_ptr.to(tl.int64) % 16 == 0)
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(a_ptr + offs * lda))


@triton.jit
def bcast(a_ptr, b_ptr, n, EVEN: tl.constexpr, d, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs)
    for i in range(n):
        col = tl.expand_dims(offs, 1)  # @D4
        b = tl.broadcast_to(a[None, :], (BLOCK, BLOCK))
        c = tl.dot(b, b)  # @S2
        if EVEN & d == BLOCK:  # @D13
            tl.store(b_ptr + col * BLOCK + offs[None, :], c)  # @S1 @D8


@triton.jit
def gather(kv_ptr, table_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    rows = tl.load(table_ptr + offs)
    kv = tl.load(kv_ptr + rows[:, None] * BLOCK + offs[None, :])  # @S1
    tl.store(out_ptr + offs, tl.sum(kv, 1))
