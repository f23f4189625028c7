# Forward layer norm with weight and bias; each program normalises a tile of
# BLOCK_M rows, walking the hidden dimension in chunks of BLOCK_N.
# Bundled example for tileadvise: the output is correct, but the kernel and its
# wrapper deliberately keep patterns that tileadvise should flag.
import argparse
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def layernorm_fwd_kernel(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr,
                         M, N, stride_xm, stride_ym, eps,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    row_offs = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    col_offs = tl.arange(0, BLOCK_N)

    # pass 1: mean of each row
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        rows = tl.expand_dims(row_offs, 1)
        cols = tl.expand_dims(off + col_offs, 0)
        mask = (rows < M) & (cols < N)
        x = tl.load(x_ptr + rows * stride_xm + cols, mask=mask, other=0.0)
        acc += x.to(tl.float32)
    mean = tl.sum(acc, axis=1) / N

    # pass 2: variance of each row
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        rows = tl.expand_dims(row_offs, 1)
        cols = tl.expand_dims(off + col_offs, 0)
        mask = (rows < M) & (cols < N)
        x = tl.load(x_ptr + rows * stride_xm + cols, mask=mask, other=0.0)
        d = tl.where(mask, x.to(tl.float32) - mean[:, None], 0.0)
        acc += d * d
    var = tl.sum(acc, axis=1) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    tl.store(mean_ptr + row_offs, mean, mask=row_offs < M)
    tl.store(rstd_ptr + row_offs, rstd, mask=row_offs < M)

    # pass 3: normalise, scale and shift
    for off in range(0, N, BLOCK_N):
        rows = tl.expand_dims(row_offs, 1)
        cols = tl.expand_dims(off + col_offs, 0)
        mask = (rows < M) & (cols < N)
        w = tl.load(w_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + cols, mask=cols < N, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + rows * stride_xm + cols, mask=mask, other=0.0)
        y = (x.to(tl.float32) - mean[:, None]) * rstd[:, None] * w + b
        tl.store(y_ptr + rows * stride_ym + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(x, weight, bias, eps=1e-5):
    x = x.contiguous()
    weight = weight.contiguous()
    bias = bias.contiguous()
    shape = x.shape
    x2d = x.view(-1, shape[-1])
    M, N = x2d.shape
    y = torch.empty_like(x2d)
    mean = torch.empty((M,), device=x.device, dtype=torch.float32)
    rstd = torch.empty((M,), device=x.device, dtype=torch.float32)
    BLOCK_M, BLOCK_N = 4, 1024
    grid = (triton.cdiv(M, BLOCK_M),)
    layernorm_fwd_kernel[grid](x2d, weight, bias, y, mean, rstd,
                               M, N, x2d.stride(0), y.stride(0), eps,
                               BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return y.view(shape)


def main():
    parser = argparse.ArgumentParser(description="Layer norm forward (tileadvise example)")
    parser.add_argument("--quick", action="store_true", help="use a smaller input")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("layernorm: a CUDA device is required")
        return 2

    M, N = (4096, 4096) if args.quick else (16384, 8192)
    torch.manual_seed(0)
    dtype = torch.float16
    x = (torch.randn((M, N), device="cuda", dtype=torch.float32) * 2.0 + 0.5).to(dtype)
    weight = (1.0 + 0.1 * torch.randn((N,), device="cuda", dtype=torch.float32)).to(dtype)
    bias = (0.1 * torch.randn((N,), device="cuda", dtype=torch.float32)).to(dtype)
    eps = 1e-5

    y = layer_norm(x, weight, bias, eps)
    ref = torch.nn.functional.layer_norm(x, (N,), weight, bias, eps)
    atol, rtol = 1e-2, 1e-2
    if not torch.allclose(y.float(), ref.float(), atol=atol, rtol=rtol):
        err = (y.float() - ref.float()).abs().max().item()
        print(f"layernorm: MISMATCH vs torch layer_norm, max abs err {err:.3e} (atol {atol}, rtol {rtol})")
        return 1

    ms_triton = triton.testing.do_bench(lambda: layer_norm(x, weight, bias, eps))
    ms_torch = triton.testing.do_bench(lambda: torch.nn.functional.layer_norm(x, (N,), weight, bias, eps))
    print(f"layernorm: triton {ms_triton:.3f} ms, torch {ms_torch:.3f} ms ({M}x{N} fp16)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
