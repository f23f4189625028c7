"""P3's edit of a tile transposed under its own name, run (probe).

Imports p3_rebound.py (a case of tests/entries/P3.md, as
tests/entries/extract.py writes it) as written and as P3 edited it
(the copy named on the command line), runs the kernels the edit changed on
random fp16 inputs whose sizes are tile multiples, and prints the largest
difference between the two outputs of each.
Usage: python3 tests/gpu/probes/p3_rebound_diff.py ORIGINAL.py EDITED.py
"""
import importlib.util
import sys

import torch


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


orig, edited = load(sys.argv[1], "orig"), load(sys.argv[2], "edited")
torch.manual_seed(0)
M = N = 64
K = 128
BM = BN = 32
BK = 32
a = torch.randn(M, K, device="cuda", dtype=torch.float16)
b = torch.randn(N, K, device="cuda", dtype=torch.float16)
ok = True
for name, shape in (("rebound", (N, M)), ("through_cast", (M, N)), ("dot_t", (M, N))):
    outs = []
    for mod in (orig, edited):
        c = torch.zeros(shape, device="cuda", dtype=torch.float32)
        getattr(mod, name)[(M // BM, N // BN)](a, b, c, shape[1], K, a.stride(0), a.stride(1), b.stride(0),
                                                b.stride(1), BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK)
        outs.append(c)
    ref = (a.float() @ b.float().T)
    ref = ref.T if name == "rebound" else ref
    d = (outs[0] - outs[1]).abs().max().item()
    e = (outs[0] - ref).abs().max().item()
    print(f"{name}: edited vs original max |diff| {d:.3e}; original vs torch {e:.3e}")
    ok = ok and d == 0
print("P3 edits keep outputs" if ok else "P3 edits CHANGE outputs")
sys.exit(0 if ok else 1)
