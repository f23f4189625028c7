# Concatenate a list of fp16 tensors along dim 0 with a Triton copy kernel.
# Bundled example for tileadvise: the result is correct, but the host code
# deliberately keeps a slow launch pattern that tileadvise flags.
import argparse
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n_elements, dst_offset, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(src_ptr + offs, mask=mask)
    tl.store(dst_ptr + dst_offset + offs, x, mask=mask)


def cat_rows(tensors):
    """torch.cat(tensors, dim=0) for contiguous tensors that agree on every dim but the first."""
    first = tensors[0]
    for t in tensors:
        assert t.is_contiguous() and t.dtype == first.dtype and t.shape[1:] == first.shape[1:]
    rows = sum(t.shape[0] for t in tensors)
    out = torch.empty((rows,) + tuple(first.shape[1:]), device=first.device, dtype=first.dtype)
    BLOCK_SIZE = 4096
    offset = 0
    for t in tensors:
        n = t.numel()
        grid = (triton.cdiv(n, BLOCK_SIZE),)
        copy_kernel[grid](t, out, n, offset, BLOCK_SIZE=BLOCK_SIZE, num_warps=4)
        offset += n
    return out


def main():
    parser = argparse.ArgumentParser(description="Concatenate tensors (tileadvise example)")
    parser.add_argument("--quick", action="store_true", help="use smaller tensors")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("cat: a CUDA device is required")
        return 2

    row_counts = [512, 1024, 256, 2048, 768, 1536, 384, 1024]
    width = 4096
    if args.quick:
        row_counts = [r // 8 for r in row_counts]
    torch.manual_seed(0)
    tensors = [torch.randn((r, width), device="cuda", dtype=torch.float16) for r in row_counts]

    out = cat_rows(tensors)
    ref = torch.cat(tensors, dim=0)
    if not torch.equal(out, ref):
        bad = (out != ref).sum().item()
        print(f"cat: MISMATCH vs torch.cat, {bad} of {ref.numel()} elements differ")
        return 1

    ms_triton = triton.testing.do_bench(lambda: cat_rows(tensors))
    ms_torch = triton.testing.do_bench(lambda: torch.cat(tensors, dim=0))
    print(f"cat: triton {ms_triton:.3f} ms, torch {ms_torch:.3f} ms "
          f"({len(tensors)} tensors, {ref.numel() * ref.element_size() / 2**20:.1f} MiB out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
