"""D15's edit of a copy chained onto its allocation, run (verify by running):
before.py is tests/fixtures/safety/d15_chained.py, after.py the same with
D15's safe edits applied at lines 24 and 25 (`torch.zeros(n).to(
torch.float32).cuda()` and `torch.ones(n).cuda()` allocated with
device="cuda"). Both run with the same seeds at sizes that are not tile
multiples; their outputs must be equal bit for bit (line 26's random
allocation is left as it was in both).
Usage: python3 tests/gpu/probes/d15_chained.py DIR (holding before.py, after.py)
"""
import importlib.util
import os
import sys

import torch


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    d = sys.argv[1]
    before = load(os.path.join(d, "before.py"), "before")
    after = load(os.path.join(d, "after.py"), "after")
    ok = True
    for n in (1, 100, 257, 4096 + 3):
        outs = []
        for mod in (before, after):
            torch.manual_seed(0)
            torch.cuda.manual_seed(0)
            out = torch.empty(n, device="cuda", dtype=torch.float32)
            outs.append(mod.sum3(out, torch.device("cuda")).clone())
        same = torch.equal(outs[0], outs[1])
        ok &= same
        print(f"n={n}: {'same' if same else 'DIFFERENT'} (max |diff| {(outs[0] - outs[1]).abs().max().item():.3g})")
    print("d15_chained: ok" if ok else "d15_chained: FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
