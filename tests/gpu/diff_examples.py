"""Differential check of one bundled example: the same inputs through the
original and the edited wrapper, outputs compared within the dtype's
tolerance (and both against PyTorch), over several shapes, including ones
that are not multiples of the example's tiles. The last case of each example
is also timed (triton.testing.do_bench, original then edited, twice).

Usage: python3 diff_examples.py NAME ORIGINAL.py EDITED.py
Exit status: 0 every case agrees, 1 a case differs or raised, 2 bad usage.
Prints one line a case and a last line "time: original X ms, edited Y ms".
"""
import importlib.util
import math
import sys

import torch
import triton


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rnd(*shape, dtype=torch.float16, scale=1.0):
    return torch.randn(shape, device="cuda", dtype=torch.float32).mul_(scale).to(dtype)


# Each case: (label, inputs maker, call(module, inputs), torch reference, atol, rtol).
def softmax_cases():
    def call(m, x):
        return m.softmax(*x)
    ref = lambda x: torch.softmax(x[0], dim=-1)
    return [(f"{r}x{c}", (lambda r=r, c=c: (rnd(r, c, dtype=torch.float32, scale=4.0),)), call, ref, 1e-5, 1e-3)
            for r, c in [(1000, 1537), (17, 4096), (3, 100), (4096, 4096)]]


def layernorm_cases():
    def call(m, x):
        return m.layer_norm(*x)
    ref = lambda x: torch.nn.functional.layer_norm(x[0], (x[0].shape[-1],), x[1], x[2], 1e-5)
    out = []
    for shape, dt in [((1000, 1537), torch.float16), ((7, 768), torch.float32),
                      ((3, 5, 100), torch.float16), ((4096, 4096), torch.float16)]:
        n = shape[-1]
        mk = lambda shape=shape, dt=dt, n=n: (rnd(*shape, dtype=dt, scale=2.0).add_(0.5),
                                              (1.0 + 0.1 * rnd(n, dtype=torch.float32)).to(dt),
                                              (0.1 * rnd(n, dtype=torch.float32)).to(dt))
        tol = 1e-2 if dt == torch.float16 else 1e-4
        out.append(("x".join(map(str, shape)) + f" {str(dt)[6:]}", mk, call, ref, tol, tol))
    return out


def matmul_cases():
    def call(m, x):
        return m.bmm_nt(*x)
    ref = lambda x: torch.bmm(x[0].float(), x[1].float().transpose(1, 2)).half()
    out = []
    for b, M, N, K, trans in [(3, 300, 257, 129, False), (2, 1000, 777, 320, False), (2, 128, 192, 96, True),
                              (4, 1024, 1024, 1024, False)]:
        def mk(b=b, M=M, N=N, K=K, trans=trans):
            a = rnd(b, M, K, scale=1 / 8)
            bb = rnd(b, K, N, scale=1 / 8).transpose(1, 2) if trans else rnd(b, N, K, scale=1 / 8)
            return a, bb
        out.append((f"{b}x{M}x{N}x{K}" + (" b-transposed" if trans else ""), mk, call, ref, 2e-2, 2e-2))
    return out


def attention_cases():
    def call(m, x):
        return m.gemma_attention(*x)

    def ref(x):
        q, k, v, scale, causal, window, cap = x
        g = q.shape[1] // k.shape[1]
        k2, v2 = k.repeat_interleave(g, 1).float(), v.repeat_interleave(g, 1).float()
        s = (q.float() @ k2.transpose(-1, -2)) * scale
        if cap:
            s = cap * torch.tanh(s / cap)
        S = q.shape[2]
        i = torch.arange(S, device="cuda")
        keep = torch.ones((S, S), dtype=torch.bool, device="cuda")
        if causal:
            keep &= i[None, :] <= i[:, None]
        if window:
            keep &= (i[:, None] - i[None, :]) < window
        s = s.masked_fill(~keep, float("-inf"))
        return (torch.softmax(s, -1) @ v2).to(q.dtype)
    out = []
    for B, H, Hkv, S, D, causal, window, cap in [(1, 8, 2, 384, 64, True, 0, 0.0), (2, 4, 4, 256, 128, False, 0, 0.0),
                                                 (1, 8, 2, 512, 128, True, 128, 10.0),
                                                 (2, 16, 4, 1024, 128, True, 0, 0.0)]:
        mk = lambda B=B, H=H, Hkv=Hkv, S=S, D=D, c=causal, w=window, cap=cap: (
            rnd(B, H, S, D, scale=3.0), rnd(B, Hkv, S, D), rnd(B, Hkv, S, D), 1.0 / math.sqrt(D), c, w, cap)
        out.append((f"B{B} H{H}/{Hkv} S{S} D{D} causal={causal} window={window} cap={cap}", mk, call, ref,
                     2e-2, 2e-2))
    return out


def cat_cases():
    def call(m, x):
        return m.cat_rows(list(x))
    ref = lambda x: torch.cat(list(x), 0)
    out = []
    for rows, width in [([3, 17, 1, 250], 100), ([512, 1024, 7], 4096), ([1], 1), ([512, 1024, 256, 2048], 4096)]:
        mk = lambda rows=rows, width=width: tuple(rnd(r, width) for r in rows)
        out.append((f"rows {rows} width {width}", mk, call, ref, 0.0, 0.0))
    return out


CASES = {"softmax": softmax_cases, "layernorm": layernorm_cases, "matmul": matmul_cases,
         "attention": attention_cases, "cat": cat_cases}


def main(argv):
    if len(argv) != 4 or argv[1] not in CASES:
        print(__doc__)
        return 2
    name = argv[1]
    orig, edit = load(argv[2], "ta_original"), load(argv[3], "ta_edited")
    bad = 0
    last = None
    for label, mk, call, ref, atol, rtol in CASES[name]():
        torch.manual_seed(0)
        x = mk()
        try:
            a = call(orig, x)
            r = ref(x)
            torch.cuda.synchronize()
        except Exception as e:  # the original itself cannot take this case: skip it, say so
            print(f"{name} {label}: original raised {type(e).__name__}: {str(e)[:200]} (case skipped)")
            continue
        try:
            b = call(edit, x)
            torch.cuda.synchronize()
        except Exception as e:
            print(f"{name} {label}: EDITED RAISED {type(e).__name__}: {str(e)[:300]}")
            bad += 1
            continue
        ok_ref = torch.allclose(a.float(), r.float(), atol=max(atol, 2e-2), rtol=max(rtol, 2e-2))
        same = torch.allclose(a.float(), b.float(), atol=atol, rtol=rtol, equal_nan=True)
        err = (a.float() - b.float()).abs().nan_to_num(float("inf")).max().item() if a.numel() else 0.0
        print(f"{name} {label}: edited vs original max abs diff {err:.3e} (atol {atol}, rtol {rtol}) "
              f"{'ok' if same else 'DIFFERS'}; original vs torch {'ok' if ok_ref else 'off'}")
        bad += not same
        last = (call, x)
    if last is not None and not bad:
        call, x = last
        t = {}
        for rnd_ in range(2):
            for label, m in (("original", orig), ("edited", edit)):
                t.setdefault(label, []).append(triton.testing.do_bench(lambda: call(m, x)))
        print(f"time: original {min(t['original']):.4f} ms, edited {min(t['edited']):.4f} ms")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
