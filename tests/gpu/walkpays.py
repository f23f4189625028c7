"""Measures the versions tests/gpu/walkpays.sh made: for each naive kernel,
every step of the mechanical walk is run at the check sizes and at the
bench sizes, its output compared with the original's (v0) and its time
(triton.testing.do_bench, median) with the references'.

Usage: python3 walkpays.py WALKDIR OUTDIR [KERNEL...], or
python3 walkpays.py --warm WALKDIR KERNEL vN.py (compile and tune only). WALKDIR/<kernel>/steps.tsv lists
`step id sites file`; v0 is the naive kernel as committed. Writes
OUTDIR/walkpays.md (one table) and OUTDIR/walkpays.jsonl (one line a
measurement)."""
import importlib.util
import json
import os
import sys
import time
import traceback

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernels"))


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sdpa_fwd_bwd(q, k, v, do, s):
    qq, kk, vv = (t.detach().requires_grad_(True) for t in (q, k, v))
    o = torch.nn.functional.scaled_dot_product_attention(qq, kk, vv, scale=s)
    dq, dk, dv = torch.autograd.grad(o, (qq, kk, vv), do)
    return o.detach(), dq, dk, dv


def _sdpa_decode(q, k, v, seq_lens, s):
    valid = torch.arange(k.shape[2], device=q.device)[None, :] < seq_lens.long()[:, None]
    o = torch.nn.functional.scaled_dot_product_attention(q[:, :, None, :], k, v, attn_mask=valid[:, None, None, :],
                                                         scale=s, enable_gqa=True)
    return o[:, :, 0, :]


def references(kernel, mod=None):
    """name -> function of the module's inputs: what a step is compared with
    (the first is the one the table's ratios read). A variant of
    tests/meta/variants.py (<kernel>__<transform>, tests/gpu/meta_walk.sh) has
    its kernel's references and the original kernel's entry, "original", last."""
    base, _, variant = kernel.partition("__")
    refs = base_references(base, mod)
    if variant:
        orig = load(os.path.join(HERE, "kernels", base + ".py"), base + "_original")
        refs["original"] = getattr(orig, orig.ENTRY)
    return refs


def base_references(kernel, mod=None):
    if kernel == "naive_fmha":
        import ref_fmha
        return {"tutorial-06-style": ref_fmha.attention,
                "sdpa": lambda q, k, v, s: torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=s)}
    if kernel == "naive_matmul":
        return {"cuBLAS": torch.matmul}
    if kernel == "naive_bmm":
        return {"cuBLAS": lambda a, b: torch.bmm(a, b.transpose(1, 2))}
    # the population (tests/gpu/kernels/tasks/): PyTorch's fast paths where
    # the kernel's own reference computes in fp32 for checking
    if kernel == "pop_causal_fmha":
        return {"sdpa": lambda q, k, v, s: torch.nn.functional.scaled_dot_product_attention(
            q, k, v, is_causal=True, scale=s)}
    if kernel == "pop_fmha_fwd_bwd":
        return {"sdpa fwd+bwd": _sdpa_fwd_bwd}
    if kernel == "pop_gqa_decode":
        return {"sdpa": _sdpa_decode}
    if mod is not None and hasattr(mod, "reference"):
        return {"torch": mod.reference}
    return {}


def differs(x, x0):
    """Largest difference from the original's output, and whether it is within fp16 tolerance
    (a tuple of outputs: each one)."""
    if isinstance(x0, (tuple, list)):
        if not isinstance(x, (tuple, list)) or len(x) != len(x0):
            return float("inf"), False
        r = [differs(a, b) for a, b in zip(x, x0)]
        return max(d for d, _ in r), all(ok for _, ok in r)
    if x.shape != x0.shape:
        return float("inf"), False
    d = (x.float() - x0.float()).abs().max().item()
    scale = max(1.0, x0.float().abs().max().item())
    return d, d <= 2e-2 * scale


def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=200, return_mode="median")


def warm(walk, kernel, fname):
    """Compiles (and tunes) one version at every size, timing nothing: run
    in parallel before the measurement so that it finds Triton's cache warm."""
    v0 = load(os.path.join(walk, kernel, "v0.py"), f"{kernel}_v0")
    mod = load(os.path.join(walk, kernel, fname), f"{kernel}_{fname[:-3]}")
    for size in v0.CHECK_SIZES + getattr(v0, "CONTRACT_SIZES", []) + v0.BENCH_SIZES:
        try:
            getattr(mod, v0.ENTRY)(*v0.make_inputs(*size))
        except Exception as e:  # noqa: BLE001 - the measurement reports it
            print(f"warm {kernel}/{fname} {size}: {e!r}"[:300], flush=True)
    if fname == "v0.py":
        for rf in references(kernel, v0).values():
            for size in v0.BENCH_SIZES:
                try:
                    rf(*v0.make_inputs(*size))
                except Exception as e:  # noqa: BLE001
                    print(f"warm ref {kernel} {size}: {e!r}"[:300], flush=True)
    torch.cuda.synchronize()


def main():
    if sys.argv[1] == "--warm":
        warm(*sys.argv[2:5])
        return
    walk, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    jl = open(os.path.join(out, "walkpays.jsonl"), "a")
    md = open(os.path.join(out, "walkpays.md"), "a")
    only = sys.argv[3:]
    for kernel in only or sorted(os.listdir(walk)):
        steps_file = os.path.join(walk, kernel, "steps.tsv")
        if not os.path.exists(steps_file):
            continue
        steps = [line.rstrip("\n").split("\t") for line in open(steps_file) if line.strip()]
        v0 = load(os.path.join(walk, kernel, "v0.py"), f"{kernel}_v0")
        entry = v0.ENTRY
        # the original's outputs, at every size
        base = {}
        contract = getattr(v0, "CONTRACT_SIZES", [])
        for size in v0.CHECK_SIZES + contract + v0.BENCH_SIZES:
            args = v0.make_inputs(*size)
            base[tuple(size)] = getattr(v0, entry)(*args)
        torch.cuda.synchronize()
        md.write(f"\n### {kernel} ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())})\n\n")
        refs = references(kernel, v0)
        if "original" in refs:
            # a variant: its v0 must give the original kernel's outputs at every size
            bad, worst = [], 0.0
            for size in v0.CHECK_SIZES + contract + v0.BENCH_SIZES:
                try:
                    d, ok = differs(refs["original"](*v0.make_inputs(*size)), base[tuple(size)])
                    worst = max(worst, d)
                except Exception as e:  # noqa: BLE001 - reported
                    d, ok = repr(e)[:100], False
                if not ok:
                    bad.append(f"{list(size)}: {d}")
            torch.cuda.synchronize()
            md.write(f"v0 (the variant) against the original kernel: "
                     f"{'the same outputs at every size (largest difference ' + format(worst, '.3g') + ')' if not bad else 'DIFFERS at ' + '; '.join(bad)}\n\n")
            jl.write(json.dumps({"kernel": kernel, "step": "variant-vs-original", "ok": not bad, "max_diff": worst,
                                 "differs": bad}) + "\n")
            jl.flush()
        ref_ms = {}
        for size in v0.BENCH_SIZES:
            args = v0.make_inputs(*size)
            for rname, rf in refs.items():
                try:
                    r = rf(*args)
                    d, ok = differs(r, base[tuple(size)])
                    ms = bench(lambda: rf(*args))
                    ref_ms[(tuple(size), rname)] = ms
                    rec = {"kernel": kernel, "size": size, "step": rname, "ms": ms, "max_diff_vs_v0": d, "ok": ok}
                except Exception as e:  # noqa: BLE001 - a reference that fails is reported
                    rec = {"kernel": kernel, "size": size, "step": rname, "error": repr(e)[:300]}
                jl.write(json.dumps(rec) + "\n")
                jl.flush()
        sizes = v0.BENCH_SIZES
        first = list(refs)[0] if refs else None
        head = "".join(f" {list(s)} ms | × {first} |" for s in sizes)
        md.write("| step | edit | sites |" + head + " vs v0 | outputs | note |\n")
        md.write("|" + "---|" * (3 + 2 * len(sizes) + 3) + "\n")
        for rname in refs:
            cells = "".join(f" {ref_ms.get((tuple(s), rname), float('nan')):.3f} |"
                            f" {ref_ms.get((tuple(s), rname), float('nan')) / ref_ms.get((tuple(s), first), float('nan')):.2f}× |"
                            for s in sizes)
            md.write(f"| ref | {rname} | |" + cells + " | | |\n")
        v0_ms = {}
        for step, rid, sites, fname in steps:
            path = os.path.join(walk, kernel, fname)
            rec_all = {"kernel": kernel, "step": int(step), "id": rid, "sites": sites, "file": fname}
            cells, ratios, notes = [], [], []
            checks_ok = True
            try:
                mod = load(path, f"{kernel}_{fname[:-3]}")
                fn = getattr(mod, entry)
                for size in v0.CHECK_SIZES + contract:
                    # the original accepts these; a host contract an edit
                    # wrote may refuse some with its assert: listed, not a crash
                    args = v0.make_inputs(*size)
                    try:
                        d, ok = differs(fn(*args), base[tuple(size)])
                        checks_ok &= ok
                        if not ok:
                            notes.append(f"differs at {list(size)} by {d:.3g}")
                    except AssertionError as e:
                        notes.append(f"{list(size)} refused by its host contract ({str(e)[:60]}...)")
                for size in sizes:
                    args = v0.make_inputs(*size)
                    t0 = time.time()
                    d, ok = differs(fn(*args), base[tuple(size)])
                    first_call_s = time.time() - t0
                    checks_ok &= ok
                    if not ok:
                        notes.append(f"differs at {list(size)} by {d:.3g}")
                    ms = bench(lambda: fn(*args))
                    if int(step) == 0:
                        v0_ms[tuple(size)] = ms
                    r = ref_ms.get((tuple(size), first))
                    cells.append(f"{ms:.3f}")
                    ratios.append(f"{ms / r:.2f}×" if r else "")
                    jl.write(json.dumps(dict(rec_all, size=size, ms=ms, max_diff_vs_v0=d, ok=ok,
                                             first_call_s=first_call_s)) + "\n")
                    jl.flush()
            except Exception as e:  # noqa: BLE001 - a step that crashes is a finding
                notes.append("CRASH: " + repr(e)[:200].replace("|", "/").replace("\n", " "))
                jl.write(json.dumps(dict(rec_all, error=traceback.format_exc()[-1500:])) + "\n")
                jl.flush()
                checks_ok = False
            while len(cells) < len(sizes):
                cells.append("—")
                ratios.append("")
            vs0 = " ".join(f"{v0_ms[tuple(s)] / float(c):.2f}×" for s, c in zip(sizes, cells)
                           if c != "—" and tuple(s) in v0_ms)
            row = "".join(f" {c} | {r} |" for c, r in zip(cells, ratios))
            md.write(f"| {step} | {rid} | {sites} |" + row +
                     f" {vs0} | {'same as v0' if checks_ok else 'FAIL'} | {'; '.join(notes)} |\n")
            md.flush()
            print(f"{kernel} step {step} {rid}: {cells} {ratios} {'ok' if checks_ok else 'FAIL'} {notes}",
                  flush=True)
    md.close()
    jl.close()


if __name__ == "__main__":
    main()
