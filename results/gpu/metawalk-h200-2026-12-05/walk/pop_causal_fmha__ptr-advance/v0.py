"""Naive Triton port of a causal attention forward kernel.

One program per (block of query rows, batch*head). The key loop walks the blocks strictly
below the diagonal without a causal mask, then handles the diagonal block with the causal
mask (BLOCK_M == BLOCK_N, so exactly one diagonal block per query block). Online softmax,
fp32 accumulation. Tensors are (B, H, N, D) with one stride argument per dimension.
"""
import math
import sys

import torch
import torch.nn.functional as F
import triton
import triton.testing
import triton.language as tl


@triton.jit
def _causal_attn_fwd_kernel(Q, K, V, O, stride_qb, stride_qh, stride_qn, stride_qd,
        stride_kb, stride_kh, stride_kn, stride_kd, stride_vb, stride_vh, stride_vn, stride_vd,
        stride_ob, stride_oh, stride_on, stride_od, H, N, D, sm_scale, BLOCK_M: tl.constexpr,
        BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    tl.static_assert(BLOCK_M == BLOCK_N)
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = (pid_bh // H).to(tl.int64)
    h = (pid_bh % H).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    mask_m = offs_m < N
    mask_d = offs_d < D
    q_base = Q + b * stride_qb + h * stride_qh
    k_base = K + b * stride_kb + h * stride_kh
    v_base = V + b * stride_vb + h * stride_vh
    q = tl.load(q_base + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
            mask=mask_m[:, None] & mask_d[None, :], other=0.0)
    m_i = tl.full([BLOCK_M], float('-inf'), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634
    diag_start = pid_m * BLOCK_M
    k_ptrs = k_base + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd
    v_ptrs = v_base + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd
    for start_n in range(0, diag_start, BLOCK_N):
        cols = start_n + offs_n
        kv_mask = (cols < N)[:, None] & mask_d[None, :]
        k = tl.load(k_ptrs, mask=kv_mask, other=0.0)
        v = tl.load(v_ptrs, mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    cols = diag_start + offs_n
    mask_n = cols < N
    kv_mask = mask_n[:, None] & mask_d[None, :]
    k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd,
            mask=kv_mask, other=0.0)
    v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd,
            mask=kv_mask, other=0.0)
    s = tl.dot(q, tl.trans(k)) * qk_scale
    causal = (offs_m[:, None] >= cols[None, :]) & mask_n[None, :]
    s = tl.where(causal, s, float('-inf'))
    m_new = tl.maximum(m_i, tl.max(s, axis=1))
    alpha = tl.exp2(m_i - m_new)
    p = tl.exp2(s - m_new[:, None])
    l_i = l_i * alpha + tl.sum(p, axis=1)
    acc = acc * alpha[:, None]
    acc = tl.dot(p.to(v.dtype), v, acc)
    m_i = m_new
    acc = acc / l_i[:, None]
    o_base = O + b * stride_ob + h * stride_oh
    tl.store(o_base + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
            acc.to(O.dtype.element_ty), mask=mask_m[:, None] & mask_d[None, :])


BLOCK_M = 64
BLOCK_N = 64


def causal_attention(q, k, v, sm_scale):
    B, H, N, D = q.shape
    assert k.shape == (B, H, N, D) and v.shape == (B, H, N, D)
    o = torch.empty_like(q)
    BLOCK_D = max(16, triton.next_power_of_2(D))
    grid = (triton.cdiv(N, BLOCK_M), B * H)
    _causal_attn_fwd_kernel[grid](
        q, k, v, o,
        *q.stride(), *k.stride(), *v.stride(), *o.stride(),
        H, N, D, sm_scale,
        BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=BLOCK_D,
        num_warps=4,
    )
    return o


ENTRY = "causal_attention"


def make_inputs(B, H, N, D, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (B, H, N, D)
    q = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
    k = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
    v = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
    sm_scale = 1.0 / math.sqrt(D)
    return q, k, v, sm_scale


def reference(q, k, v, sm_scale):
    o = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                       is_causal=True, scale=sm_scale)
    return o.to(q.dtype)


# (B, H, N, D); N = 100, 257, 130 are not multiples of the 64 tiles; D = 40 is padded to 64
CHECK_SIZES = [
    (2, 3, 100, 64),
    (1, 2, 257, 128),
    (2, 2, 130, 40),
]
BENCH_SIZES = [
    (4, 32, 4096, 64),
    (4, 32, 4096, 128),
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
        print(f"check {size}: max abs err {err:.3e} (tol {tol:.3e}) {'OK' if ok else 'FAIL'}")

    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        B, H, N, D = size
        flops = 4.0 * B * H * N * N * D * 0.5  # causal: half of the full score matrix
        print(f"bench {size} fp16 causal fwd: {ms:.3f} ms  ({flops / ms * 1e-9:.1f} TFLOP/s)")
        del inputs
        torch.cuda.empty_cache()

    sys.exit(0 if all_ok else 1)
