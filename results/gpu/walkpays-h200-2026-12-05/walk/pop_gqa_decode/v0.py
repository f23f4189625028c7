"""Naive Triton port of a grouped-query attention decode kernel.

One new query token per sequence: q (B, HQ, D); KV cache k, v (B, HKV, S, D); HQ = G * HKV.
seq_lens (B,) int32 gives each sequence's valid length; cache tokens past it are ignored.
One program per (kv head, batch) handles the G query heads of its group together (the G
rows are padded to at least 16 so that tl.dot can be used) and walks the cache in blocks of
BLOCK_N tokens with an online softmax, fp32 accumulation.
"""
import math
import sys

import torch
import triton
import triton.testing
import triton.language as tl


@triton.jit
def _gqa_decode_kernel(
    Q, K, V, O, SEQ_LENS,
    stride_qb, stride_qh, stride_qd,
    stride_kb, stride_kh, stride_ks, stride_kd,
    stride_vb, stride_vh, stride_vs, stride_vd,
    stride_ob, stride_oh, stride_od,
    S, D, G, sm_scale,
    BLOCK_G: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
):
    hkv = tl.program_id(0).to(tl.int64)
    b = tl.program_id(1).to(tl.int64)

    seq_len = tl.load(SEQ_LENS + b)
    seq_len = tl.minimum(seq_len, S)

    offs_g = tl.arange(0, BLOCK_G)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    mask_g = offs_g < G
    mask_d = offs_d < D
    heads = hkv * G + offs_g          # query heads of this group
    qo_mask = mask_g[:, None] & mask_d[None, :]

    q = tl.load(Q + b * stride_qb + heads[:, None] * stride_qh + offs_d[None, :] * stride_qd,
                mask=qo_mask, other=0.0)                       # (BLOCK_G, BLOCK_D)

    k_base = K + b * stride_kb + hkv * stride_kh
    v_base = V + b * stride_vb + hkv * stride_vh

    m_i = tl.full([BLOCK_G], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # scale * log2(e): use exp2

    for start_n in range(0, seq_len, BLOCK_N):
        cols = start_n + offs_n
        mask_n = cols < seq_len
        kv_mask = mask_n[:, None] & mask_d[None, :]
        k = tl.load(k_base + cols[:, None] * stride_ks + offs_d[None, :] * stride_kd,
                    mask=kv_mask, other=0.0)                   # (BLOCK_N, BLOCK_D)
        v = tl.load(v_base + cols[:, None] * stride_vs + offs_d[None, :] * stride_vd,
                    mask=kv_mask, other=0.0)

        s = tl.dot(q, tl.trans(k)) * qk_scale                  # (BLOCK_G, BLOCK_N)
        s = tl.where(mask_n[None, :], s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new

    # seq_len == 0 would leave l_i == 0: write zeros instead of NaN
    l_i = tl.where(l_i > 0.0, l_i, 1.0)
    acc = acc / l_i[:, None]
    tl.store(O + b * stride_ob + heads[:, None] * stride_oh + offs_d[None, :] * stride_od,
             acc.to(O.dtype.element_ty), mask=qo_mask)


BLOCK_N = 64


def gqa_decode(q, k, v, seq_lens, sm_scale):
    B, HQ, D = q.shape
    Bk, HKV, S, Dk = k.shape
    assert Bk == B and Dk == D and v.shape == k.shape
    assert HQ % HKV == 0
    assert seq_lens.dtype == torch.int32 and seq_lens.shape == (B,)
    G = HQ // HKV
    o = torch.empty_like(q)
    BLOCK_G = max(16, triton.next_power_of_2(G))   # tl.dot needs M >= 16
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (HKV, B)
    _gqa_decode_kernel[grid](
        q, k, v, o, seq_lens,
        *q.stride(), *k.stride(), *v.stride(), *o.stride(),
        S, D, G, sm_scale,
        BLOCK_G=BLOCK_G, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D,
        num_warps=4,
    )
    return o


ENTRY = "gqa_decode"


def make_inputs(B, HQ, HKV, S, D, ragged, seed=0):
    """ragged = 1: uneven seq_lens drawn in [1, S] (first one = S); ragged = 0: all = S."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn((B, HQ, D), generator=g, device="cuda", dtype=torch.float16)
    k = torch.randn((B, HKV, S, D), generator=g, device="cuda", dtype=torch.float16)
    v = torch.randn((B, HKV, S, D), generator=g, device="cuda", dtype=torch.float16)
    if ragged:
        seq_lens = torch.randint(1, S + 1, (B,), generator=g, device="cuda", dtype=torch.int32)
        seq_lens[0] = S
    else:
        seq_lens = torch.full((B,), S, device="cuda", dtype=torch.int32)
    sm_scale = 1.0 / math.sqrt(D)
    return q, k, v, seq_lens, sm_scale


def reference(q, k, v, seq_lens, sm_scale):
    B, HQ, D = q.shape
    HKV, S = k.shape[1], k.shape[2]
    G = HQ // HKV
    kf = k.float().repeat_interleave(G, dim=1)                 # (B, HQ, S, D)
    vf = v.float().repeat_interleave(G, dim=1)
    s = torch.einsum("bhd,bhsd->bhs", q.float(), kf) * sm_scale
    pos = torch.arange(S, device=q.device)
    valid = pos[None, :] < seq_lens.long()[:, None]            # (B, S)
    s = s.masked_fill(~valid[:, None, :], float("-inf"))
    p = torch.softmax(s, dim=-1)
    o = torch.einsum("bhs,bhsd->bhd", p, vf)
    return o.to(q.dtype)


# (B, HQ, HKV, S, D, ragged); S = 100, 257, 130 are not multiples of BLOCK_N = 64;
# G = 4, 3, 1 (padded to 16 rows); D = 80 is padded to 128.
CHECK_SIZES = [
    (3, 8, 2, 100, 64, 1),
    (4, 12, 4, 257, 128, 1),
    (5, 6, 6, 130, 80, 1),
]
BENCH_SIZES = [
    (16, 32, 8, 8192, 128, 0),
]


if __name__ == "__main__":
    fn = globals()[ENTRY]
    all_ok = True
    for size in CHECK_SIZES:
        inputs = make_inputs(*size)
        out = fn(*inputs)
        ref = reference(*inputs)
        torch.cuda.synchronize()
        err = (out.float() - ref.float()).abs().max().item()
        tol = 2e-2 * ref.float().abs().max().item()
        ok = err <= tol  # False for NaN
        all_ok &= ok
        print(f"check {size} seq_lens={inputs[3].tolist()}: max abs err {err:.3e} "
              f"(tol {tol:.3e}) {'OK' if ok else 'FAIL'}")

    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        q, k, v = inputs[:3]
        nbytes = (q.numel() * 2 + k.numel() + v.numel()) * q.element_size()
        print(f"bench {size} fp16 decode: {ms * 1e3:.1f} us  ({nbytes / ms * 1e-6:.0f} GB/s)")
        del inputs
        torch.cuda.empty_cache()

    sys.exit(0 if all_ok else 1)
