import triton
import triton.language as tl


@triton.jit
def heads_kernel(x_ptr, y_ptr, NUM_HEADS: tl.constexpr, head_dim=64, BLOCK: tl.constexpr = 128):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for h in range(NUM_HEADS):
        acc += tl.load(x_ptr + (pid * NUM_HEADS + h) * BLOCK + offs)
    tl.store(y_ptr + pid * BLOCK + offs, acc)
