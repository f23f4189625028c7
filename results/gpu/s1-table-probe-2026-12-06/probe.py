"""Can S1's descriptors over table-loaded bases be made safe by checking each
problem's alignment in the kernel, and what does the check cost? Times the
grouped GEMM as written (v0), after P1 (p1; both from the walk in
run3/walk), and three S1 forms over p1 made by make_variants.py (run it first): unsafe (descriptors always), branch (per access, inside
the K loop), version (the K loop twice). Checks each against torch at the
kernel's check sizes (leading dimensions 257, 70, ... included) and times it
on the bench problems, all aligned, and on a mix where half the problems have
an odd K (lda not a multiple of 8). Usage: python3 probe.py [VERSION...] (in this folder)."""
import importlib.util
import sys

import torch
import triton

HERE = __file__.rsplit("/", 1)[0] or "."
VERSIONS = ["v0", "p1", "unsafe", "branch", "version"]
FILES = {"v0": "run3/walk/v0.py", "p1": "run3/walk/v1.py"}   # the others: NAME.py here
ALIGNED = ((2048, 2048, 2048), (4096, 1024, 2048), (1024, 4096, 1024), (3072, 3072, 1536)) * 2
MIXED = ((2048, 2048, 2047), (4096, 1024, 2048), (1024, 4096, 1023), (3072, 3072, 1536)) * 2


def load(name, path=None):
    """The module at path (relative to this folder), by default NAME's file."""
    path = path or FILES.get(name, f"{name}.py")
    spec = importlib.util.spec_from_file_location(name, f"{HERE}/{path}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def check(mod):
    bad = []
    for size in mod.CHECK_SIZES:
        inputs = mod.make_inputs(*size)
        outs = mod.grouped_gemm(*inputs)
        for p, o, r in zip(size, outs, mod.reference(*inputs)):
            err = (o.float() - r.float()).abs().max().item()
            if not err <= 2e-2 * max(r.float().abs().max().item(), 1e-6):
                bad.append(f"{p}: err {err:.3g}")
    return bad


def main():
    for v in sys.argv[1:] or VERSIONS:
        try:
            mod = load(v)
            bad = check(mod)
            line = [f"{v:8s} check {'OK' if not bad else 'FAIL ' + '; '.join(bad)}"]
            for label, shapes in (("aligned", ALIGNED), ("mixed", MIXED)):
                inputs = mod.make_inputs(*shapes)
                fn = lambda: mod.grouped_gemm(*inputs)
                fn()
                ms = triton.testing.do_bench(fn, return_mode="median")
                line.append(f"{label} {ms:.3f} ms")
            cfg = getattr(mod.grouped_gemm_kernel, "best_config", None)
            print("  ".join(line), f"  [{cfg}]" if cfg else "", flush=True)
        except Exception as e:  # a version that fails to compile is a result too
            print(f"{v:8s} ERROR {type(e).__name__}: {str(e)[:300]}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
