"""A script that profiles itself with torch.profiler (Kineto, a CUPTI
client of its own) around a Triton kernel: tileadvise's injector must not
break it, and must say what it could not do."""
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * 2.0, mask=mask)


def main():
    n = 1 << 24
    x = torch.rand(n, device="cuda")
    y = torch.empty_like(x)
    grid = (triton.cdiv(n, 1024),)
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(50):
            scale_kernel[grid](x, y, n, BLOCK=1024)
        torch.cuda.synchronize()
    torch.testing.assert_close(y, x * 2.0)
    names = {e.name for e in prof.events()}
    print("KINETO saw scale_kernel:", any("scale_kernel" in s for s in names), flush=True)


main()
