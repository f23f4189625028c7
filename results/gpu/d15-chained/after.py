# D15 with the copy chained onto the allocation in one expression, read as
# a miss on fresh public code (`torch.zeros(16).to(torch.float32).cuda()`
# in a decode wrapper, on every call). Each copy moves to the allocation's
# device=, the casts between kept: `.cuda()` alone, after a dtype cast,
# `.to(dev)`; a random one is unsafe (stated). No finding: a dtype cast
# alone, and an allocation that already names its device.
# expect: D15 applies
import torch
import triton
import triton.language as tl


@triton.jit
def sum3_kernel(out_ptr, a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(a_ptr + offs, mask=offs < n)
    b = tl.load(b_ptr + offs, mask=offs < n)
    c = tl.load(c_ptr + offs, mask=offs < n)
    tl.store(out_ptr + offs, a + b + c, mask=offs < n)


def sum3(out, dev):
    n = out.numel()
    debug = torch.zeros(n, device="cuda").to(torch.float32)
    ones = torch.ones(n, device="cuda")
    rnd = torch.rand(n).to(dev)
    sum3_kernel[(triton.cdiv(n, 128),)](out, debug, ones, rnd, n, BLOCK=128)
    halves = torch.zeros(n, device=dev).cuda()
    cast = torch.zeros(n, device=dev).to(torch.float16)
    sum3_kernel[(triton.cdiv(n, 128),)](out, halves, cast, cast, n, BLOCK=128)
    return out
