"""The S1 edit on a table-based grouped GEMM written elsewhere in shape
(tests/fixtures/edits/preconditions/s1_table_two.py: bf16 operands, fp32
output, K stepped by `k * BK`, positional tiles) against the original, at
problems whose leading dimensions are and are not 16-byte multiples.
Usage: python3 two_check.py (in this folder)."""
import torch

from probe import load


def inputs(problems):
    As = [torch.randn(M, K, device="cuda", dtype=torch.bfloat16) for M, N, K in problems]
    Bs = [torch.randn(K, N, device="cuda", dtype=torch.bfloat16) for M, N, K in problems]
    ptrs = lambda ts: torch.tensor([t.data_ptr() for t in ts], dtype=torch.int64, device="cuda")
    sizes = torch.tensor([list(p) for p in problems], dtype=torch.int32, device="cuda")
    def run(mod):
        Cs = [torch.zeros(M, N, device="cuda", dtype=torch.float32) for M, N, K in problems]
        lds = torch.tensor([[a.stride(0), b.stride(0), c.stride(0)] for a, b, c in zip(As, Bs, Cs)],
                           dtype=torch.int32, device="cuda")
        return mod.grouped(As, Bs, Cs, ptrs(As), ptrs(Bs), ptrs(Cs), sizes, lds)
    return run


def main():
    v0 = load("two_v0", "../../../fixtures/edits/preconditions/s1_table_two.py")
    s1 = load("two_s1")
    ok = True
    for problems in (((128, 128, 64), (256, 64, 128)), ((100, 130, 257), (64, 64, 64), (33, 77, 70)),
                     ((257, 100, 130), (1, 17, 5))):
        run = inputs(problems)
        for p, a, b in zip(problems, run(v0), run(s1)):
            err = (a - b).abs().max().item()
            good = err <= 1e-3 * max(a.abs().max().item(), 1.0)
            ok = ok and good
            print(f"{p}: max |original - edited| {err:.3g} {'OK' if good else 'FAIL'}")
    print("all match" if ok else "MISMATCH")


if __name__ == "__main__":
    main()
