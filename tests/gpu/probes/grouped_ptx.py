"""Why does pop_grouped_gemm run at ~14x torch? (issue 27, probe)

grouped_levers.py found that neither P6's tl.assume hints, nor a peeled K
tail, nor wrapped offsets move it. This probe reads the code Triton makes:
for each variant of the population kernel (made by text substitution of
its source) it counts the PTX's global loads by width, cp.async copies and
wgmma/mma instructions, then times it at the population's bench problems
and checks it against torch.matmul. Variants:
  as_written   the population kernel
  p6_assume    P6's edit: tl.assume(x % 8 == 0) on lda/ldb/ldc, on the bases
  multiple_of  tl.multiple_of(..., 8) on lda/ldb/ldc, (..., 16) on the bases
  mo_strides   tl.multiple_of on lda/ldb/ldc only
Usage: python3 tests/gpu/probes/grouped_ptx.py
"""
import importlib.util
import os
import re
import sys
import tempfile
import glob

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = open(os.path.join(HERE, "..", "kernels", "pop_grouped_gemm.py")).read()


def variant(name):
    s = SRC
    strides = [("lda", 0), ("ldb", 1), ("ldc", 2)]
    bases = [("a_base", "a_ptrs"), ("b_base", "b_ptrs"), ("c_base", "c_ptrs")]
    if name == "p6_assume":
        for v, i in strides:
            old = f"        {v} = tl.load(lds + prob * 3 + {i})\n"
            s = s.replace(old, old + f"        tl.assume({v} % 8 == 0)\n")
        for v, p in bases:
            old = f"        {v} = tl.load({p} + prob).to(tl.pointer_type(tl.float16))\n"
            s = s.replace(old, old + f"        tl.assume({v}.to(tl.int64) % 16 == 0)\n")
    if name in ("multiple_of", "mo_strides"):
        for v, i in strides:
            s = s.replace(f"{v} = tl.load(lds + prob * 3 + {i})",
                          f"{v} = tl.multiple_of(tl.load(lds + prob * 3 + {i}), 8)")
    if name == "multiple_of":
        for v, p in bases:
            s = s.replace(f"{v} = tl.load({p} + prob).to(tl.pointer_type(tl.float16))",
                          f"{v} = tl.multiple_of(tl.load({p} + prob).to(tl.pointer_type(tl.float16)), 16)")
    assert name == "as_written" or s != SRC, name
    d = tempfile.mkdtemp()
    path = os.path.join(d, f"gg_{name}.py")
    open(path, "w").write(s)
    spec = importlib.util.spec_from_file_location(f"gg_{name}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def ptx_counts(ptx):
    keys = {
        "ld.v4": r"ld\.global[.\w]*\.v4", "ld.v2": r"ld\.global[.\w]*\.v2",
        "ld.scalar": r"ld\.global(?![.\w]*\.v[24])[.\w]*\s", "cp.async": r"cp\.async\.(?:ca|cg)",
        "cp.async.bulk": r"cp\.async\.bulk", "wgmma": r"wgmma\.mma_async", "mma.sync": r"mma\.sync",
    }
    return {k: len(re.findall(p, ptx)) for k, p in keys.items()}


def variant_ptx(cache):
    """The PTX of grouped_gemm_kernel in the variant's own Triton cache."""
    files = glob.glob(os.path.join(cache, "*", "grouped_gemm_kernel.ptx"))
    return open(files[0]).read() if len(files) == 1 else ""


def main():
    ok_all = True
    ref_mod = variant("as_written")
    inputs = ref_mod.make_inputs(*ref_mod.BENCH_SIZES[0])
    ms_t = triton.testing.do_bench(lambda: ref_mod.reference(*inputs), return_mode="median")
    print(f"torch.matmul x{len(ref_mod.BENCH_SIZES[0])}: {ms_t:.3f} ms", flush=True)
    for name in ("as_written", "p6_assume", "multiple_of", "mo_strides"):
        mod = variant(name)
        # a cache of its own (Triton reads the variable at each compile),
        # so that its PTX is the only one there
        cache = tempfile.mkdtemp()
        os.environ["TRITON_CACHE_DIR"] = cache
        ok = True
        for size in mod.CHECK_SIZES:
            inp = mod.make_inputs(*size)
            outs = mod.grouped_gemm(*inp)
            for o, r in zip(outs, mod.reference(*inp)):
                err = (o.float() - r.float()).abs().max().item()
                ok = ok and err <= 2e-2 * max(r.float().abs().max().item(), 1e-6)
        inp = mod.make_inputs(*mod.BENCH_SIZES[0])
        ms = triton.testing.do_bench(lambda: mod.grouped_gemm(*inp), return_mode="median")
        ptx = variant_ptx(cache)
        print(f"{name}: {ms:.3f} ms ({ms / ms_t:.2f}x torch) outputs {'match' if ok else 'DIFFER'}; "
              f"ptx {ptx_counts(ptx) if ptx else 'not found'}", flush=True)
        ok_all = ok_all and ok
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
