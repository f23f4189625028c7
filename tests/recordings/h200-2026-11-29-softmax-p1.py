# Row-wise softmax over a large fp32 matrix, one Triton program per row.
# Bundled example for tileadvise: the kernel is correct, but it deliberately
# keeps a few slow or untidy patterns so that the tileadvise checklist has
# something to find.
import argparse
import sys

import torch
import triton
import triton.language as tl


def softmax_kernel_configs():
    # softmax_kernel's launch options on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    return [triton.Config({}, num_stages=s, num_warps=w) for s in stages for w in warps]


@triton.autotune(configs=softmax_kernel_configs(), key=["n_rows", "n_cols"])
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_rows, n_cols,
                   ROWS_PER_PROGRAM: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    for r in range(ROWS_PER_PROGRAM):
        row = pid * ROWS_PER_PROGRAM + r
        mask = (cols < n_cols) & (row < n_rows)
        row_in = in_ptr + row.to(tl.int64) * in_row_stride
        x = tl.load(row_in + cols, mask=mask, other=-float("inf")).to(tl.float32)
        x = x - tl.max(x, axis=0)
        num = tl.exp(x)
        den = tl.sum(num, axis=0)
        y = num / den
        row_out = out_ptr + row.to(tl.int64) * out_row_stride
        tl.store(row_out + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    assert x.ndim == 2 and x.stride(1) == 1
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    block_size = triton.next_power_of_2(n_cols)
    rows_per_program = 1
    grid = (triton.cdiv(n_rows, rows_per_program),)
    softmax_kernel[grid](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                         ROWS_PER_PROGRAM=rows_per_program, BLOCK_SIZE=block_size)
    return y


def main():
    parser = argparse.ArgumentParser(description="Row-wise softmax (tileadvise example)")
    parser.add_argument("--quick", action="store_true", help="use a smaller matrix")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("softmax: a CUDA device is required")
        return 2

    n_rows, n_cols = (4096, 4096) if args.quick else (32768, 4096)
    torch.manual_seed(0)
    x = torch.randn(n_rows, n_cols, device="cuda", dtype=torch.float32) * 4.0

    y = softmax(x)
    ref = torch.softmax(x, dim=-1)
    atol, rtol = 1e-6, 1e-3
    if not torch.allclose(y, ref, atol=atol, rtol=rtol):
        err = (y - ref).abs().max().item()
        print(f"softmax: MISMATCH vs torch.softmax, max abs err {err:.3e} (atol {atol}, rtol {rtol})")
        return 1

    ms_triton = triton.testing.do_bench(lambda: softmax(x))
    ms_torch = triton.testing.do_bench(lambda: torch.softmax(x, dim=-1))
    print(f"softmax: triton {ms_triton:.3f} ms, torch {ms_torch:.3f} ms "
          f"({n_rows}x{n_cols} fp32)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
