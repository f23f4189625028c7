import triton
import triton.language as tl


@triton.jit
def k(x_ptr, n, BLOCK: tl.constexpr):
	r = tl.arange(0, BLOCK)
	v = tl.expand_dims(tl.load(x_ptr + r), 0)
	tl.store(x_ptr + r[None, :], v)