"""Differential run of KernelBench-style files and their edited versions.

A KernelBench file defines `ModelNew` (the Triton implementation), `Model`
(the PyTorch reference, when present), `get_inputs()` and
`get_init_inputs()`. For each folder DIR given, DIR/orig.py is the file as
written and every other DIR/*.py an edited version of it. Each version is
built from the same seed and run on the same inputs; its outputs are
compared with the original's (bit for bit, and within fp tolerance) and both
are timed with triton.testing.do_bench, in the same process, alternating.

Usage: kb_diff.py OUT.jsonl DIR...   one JSON object per version on OUT.jsonl
and a line per version on stdout. A file that fails to import or run is
reported as such (the original's failure marks its whole folder).
"""
import importlib.util
import json
import os
import sys
import traceback

import torch
import triton.testing


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def to_cuda(x):
    if isinstance(x, torch.Tensor):
        return x.cuda()
    if isinstance(x, (list, tuple)):
        return type(x)(to_cuda(v) for v in x)
    return x


def flat(out):
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, (list, tuple)):
        return [t for o in out for t in flat(o)]
    return []


def build(mod, seed):
    torch.manual_seed(seed)
    model = mod.ModelNew(*mod.get_init_inputs()).cuda().eval()
    torch.manual_seed(seed + 1)
    inputs = to_cuda(mod.get_inputs())
    return model, inputs


def run_dir(d, out):
    rows = []
    try:
        orig = load(os.path.join(d, "orig.py"), "kb_orig_" + os.path.basename(d))
        m0, x0 = build(orig, 0)
        with torch.no_grad():
            y0 = [t.clone() for t in flat(m0(*x0))]
        torch.cuda.synchronize()
    except Exception as e:   # the original does not run: nothing to compare
        row = {"dir": d, "version": "orig.py", "status": "original fails",
               "error": "".join(traceback.format_exception_only(type(e), e)).strip()[-300:]}
        out.write(json.dumps(row) + "\n")
        print(f"{d} orig.py: original fails: {row['error']}")
        return
    for v in sorted(os.listdir(d)):
        if not v.endswith(".py") or v == "orig.py":
            continue
        row = {"dir": d, "version": v}
        try:
            mod = load(os.path.join(d, v), "kb_" + os.path.basename(d) + "_" + v[:-3])
            m1, x1 = build(mod, 0)
            with torch.no_grad():
                y1 = flat(m1(*x1))
            torch.cuda.synchronize()
            same = len(y0) == len(y1) and all(a.shape == b.shape and torch.equal(a, b) for a, b in zip(y0, y1))
            close = len(y0) == len(y1) and all(
                a.shape == b.shape and torch.allclose(a.float(), b.float(), rtol=1e-2, atol=1e-2)
                for a, b in zip(y0, y1))
            t0, t1 = [], []
            with torch.no_grad():
                for _ in range(3):   # alternate, so drift hits both alike
                    t0.append(triton.testing.do_bench(lambda: m0(*x0), warmup=25, rep=100))
                    t1.append(triton.testing.do_bench(lambda: m1(*x1), warmup=25, rep=100))
            b0, b1 = sorted(t0)[1], sorted(t1)[1]
            row.update(status="ok", bit_equal=same, close=close, orig_ms=round(b0, 4), edit_ms=round(b1, 4),
                       speedup=round(b0 / b1, 3) if b1 > 0 else None)
            print(f"{d} {v}: {'bit-equal' if same else 'close' if close else 'DIFFERENT'} "
                  f"{b0:.4f} -> {b1:.4f} ms ({b0 / b1:.3f}x)")
        except Exception as e:
            row.update(status="edit fails",
                       error="".join(traceback.format_exception_only(type(e), e)).strip()[-300:])
            print(f"{d} {v}: edit fails: {row['error']}")
        out.write(json.dumps(row) + "\n")
        out.flush()
        rows.append(row)


def main(argv):
    if len(argv) < 3:
        print(__doc__)
        return 2
    with open(argv[1], "a") as out:
        for d in argv[2:]:
            run_dir(d, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
