"""Naive Triton port of a FlashAttention-2 forward/backward kernel pair (non-causal).

Forward: one program per (block of query rows, batch*head); online softmax over all key
blocks; writes O and the per-row log-sum-exp L (natural log units).
Backward: a preprocessing kernel delta = rowsum(dO * O); one program per (key block,
batch*head) accumulating dK and dV over all query blocks; a separate kernel per
(query block, batch*head) accumulating dQ over all key blocks (no atomics).

Tensors are (B, H, N, D) with one stride argument per dimension. fp16 in, fp32 accumulate.
"""
import math
import sys

import torch
import triton
import triton.testing
import triton.language as tl


# --------------------------------------------------------------------------------------
# Forward
# --------------------------------------------------------------------------------------
def _attn_fwd_kernel_configs():
    # _attn_fwd_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_M": 64, "BLOCK_N": 64},
        {"BLOCK_M": 128, "BLOCK_N": 64},
        {"BLOCK_M": 128, "BLOCK_N": 128},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=_attn_fwd_kernel_configs(), key=["N", "D", "BLOCK_D"])
@triton.heuristics({"EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0})
@triton.jit
def _attn_fwd_kernel(
    Q, K, V, O, LSE,
    stride_qb, stride_qh, stride_qn, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_on, stride_od,
    stride_lb, stride_lh, stride_ln,
    H, N, D, sm_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, EVEN_N: tl.constexpr,
):
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

    # load this block's Q rows once
    q = tl.load(q_base + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                mask=mask_m[:, None] & mask_d[None, :], other=0.0)

    # running row max (in log2 units of the scaled scores), row sum, output accumulator
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    qk_scale = sm_scale * 1.4426950408889634  # scale * log2(e): use exp2

    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        mask_n = cols < N
        kv_mask = mask_n[:, None] & mask_d[None, :]
        k = tl.load(k_base + offs_d[:, None] * stride_kd + cols[None, :] * stride_kn,
                    mask=(mask_d[:, None]) if EVEN_N else (mask_d[:, None] & mask_n[None, :]), other=0.0)
        v = tl.load(v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                    mask=(mask_d[None, :]) if EVEN_N else kv_mask, other=0.0)

        s = tl.dot(q, k) * qk_scale                     # (BLOCK_M, BLOCK_N) fp32
        if not EVEN_N:  # whole blocks need no bound
            s = tl.where(mask_n[None, :], s, float("-inf"))

        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp2(m_i - m_new)
        p = tl.exp2(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new

    acc = acc / l_i[:, None]
    # natural-log LSE of the scaled scores: m_i * ln(2) + ln(l_i)
    lse = m_i * 0.6931471805599453 + tl.log(l_i)

    o_base = O + b * stride_ob + h * stride_oh
    tl.store(o_base + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
             acc.to(O.dtype.element_ty), mask=mask_m[:, None] & mask_d[None, :])
    l_base = LSE + b * stride_lb + h * stride_lh
    tl.store(l_base + offs_m * stride_ln, lse, mask=mask_m)


# --------------------------------------------------------------------------------------
# Backward
# --------------------------------------------------------------------------------------
def _attn_bwd_preprocess_kernel_configs():
    # _attn_bwd_preprocess_kernel's launch options on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3,), (4, 8)
    elif major == 9:
        stages, warps = (3,), (4, 8)
    else:
        stages, warps = (3,), (4, 8)
    return [triton.Config({}, num_stages=s, num_warps=w) for s in stages for w in warps]


@triton.autotune(configs=_attn_bwd_preprocess_kernel_configs(), key=["N", "D", "BLOCK_D"])
@triton.jit
def _attn_bwd_preprocess_kernel(
    O, DO, DELTA,
    stride_ob, stride_oh, stride_on, stride_od,
    stride_dob, stride_doh, stride_don, stride_dod,
    stride_deb, stride_deh, stride_den,
    H, N, D,
    BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = (pid_bh // H).to(tl.int64)
    h = (pid_bh % H).to(tl.int64)

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    mask_m = offs_m < N
    mask = mask_m[:, None] & (offs_d < D)[None, :]

    o = tl.load(O + b * stride_ob + h * stride_oh
                + offs_m[:, None] * stride_on + offs_d[None, :] * stride_od,
                mask=mask, other=0.0).to(tl.float32)
    do = tl.load(DO + b * stride_dob + h * stride_doh
                 + offs_m[:, None] * stride_don + offs_d[None, :] * stride_dod,
                 mask=mask, other=0.0).to(tl.float32)
    delta = tl.sum(o * do, axis=1)
    tl.store(DELTA + b * stride_deb + h * stride_deh + offs_m * stride_den, delta, mask=mask_m)


def _attn_bwd_dkdv_kernel_configs():
    # _attn_bwd_dkdv_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_N": 64},
        {"BLOCK_N": 128},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=_attn_bwd_dkdv_kernel_configs(), key=["N", "D", "BLOCK_D"])
@triton.heuristics({"EVEN_N": lambda args: args["N"] % args["BLOCK_M"] == 0})
@triton.jit
def _attn_bwd_dkdv_kernel(
    Q, K, V, DO, LSE, DELTA, DK, DV,
    stride_qb, stride_qh, stride_qn, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_don, stride_dod,
    stride_lb, stride_lh, stride_ln,
    stride_deb, stride_deh, stride_den,
    stride_dkb, stride_dkh, stride_dkn, stride_dkd,
    stride_dvb, stride_dvh, stride_dvn, stride_dvd,
    H, N, D, sm_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, EVEN_N: tl.constexpr,
):
    pid_n = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = (pid_bh // H).to(tl.int64)
    h = (pid_bh % H).to(tl.int64)

    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m = tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, BLOCK_D)
    mask_n = offs_n < N
    mask_d = offs_d < D

    q_base = Q + b * stride_qb + h * stride_qh
    do_base = DO + b * stride_dob + h * stride_doh
    l_base = LSE + b * stride_lb + h * stride_lh
    de_base = DELTA + b * stride_deb + h * stride_deh

    # this program's K and V block stays resident
    kv_mask = mask_n[:, None] & mask_d[None, :]
    k = tl.load(K + b * stride_kb + h * stride_kh
                + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                mask=kv_mask, other=0.0)
    v = tl.load(V + b * stride_vb + h * stride_vh
                + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd,
                mask=kv_mask, other=0.0)

    dk = tl.zeros([BLOCK_N, BLOCK_D], dtype=tl.float32)
    dv = tl.zeros([BLOCK_N, BLOCK_D], dtype=tl.float32)

    for start_m in range(0, N, BLOCK_M):
        rows = start_m + offs_m
        mask_m = rows < N
        qd_mask = mask_m[:, None] & mask_d[None, :]
        if EVEN_N:
            q = tl.load(q_base + rows[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                        mask=mask_d[None, :], other=0.0)
            do = tl.load(do_base + rows[:, None] * stride_don + offs_d[None, :] * stride_dod,
                         mask=mask_d[None, :], other=0.0)
            lse = tl.load(l_base + rows * stride_ln)
            delta = tl.load(de_base + rows * stride_den)
        else:
            q = tl.load(q_base + rows[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                        mask=qd_mask, other=0.0)
            do = tl.load(do_base + rows[:, None] * stride_don + offs_d[None, :] * stride_dod,
                         mask=qd_mask, other=0.0)
            lse = tl.load(l_base + rows * stride_ln, mask=mask_m, other=0.0)
            delta = tl.load(de_base + rows * stride_den, mask=mask_m, other=0.0)

        # recompute P = exp(scale * Q K^T - L)
        s = tl.dot(q, tl.trans(k)) * sm_scale                    # (BLOCK_M, BLOCK_N)
        p = tl.exp(s - lse[:, None])
        p = tl.where(mask_m[:, None] & mask_n[None, :], p, 0.0)

        # dV += P^T dO
        dv = tl.dot(tl.trans(p.to(do.dtype)), do, dv)
        # dP = dO V^T ; dS = P * (dP - delta)
        dp = tl.dot(do, tl.trans(v))
        ds = p * (dp - delta[:, None])
        # dK += dS^T Q   (scale applied at the end)
        dk = tl.dot(tl.trans(ds.to(q.dtype)), q, dk)

    dk = dk * sm_scale
    tl.store(DK + b * stride_dkb + h * stride_dkh
             + offs_n[:, None] * stride_dkn + offs_d[None, :] * stride_dkd,
             dk.to(DK.dtype.element_ty), mask=kv_mask)
    tl.store(DV + b * stride_dvb + h * stride_dvh
             + offs_n[:, None] * stride_dvn + offs_d[None, :] * stride_dvd,
             dv.to(DV.dtype.element_ty), mask=kv_mask)


def _attn_bwd_dq_kernel_configs():
    # _attn_bwd_dq_kernel's tiles on each GPU generation, with pipeline depths that fit it
    major, _ = torch.cuda.get_device_capability() if torch.cuda.is_available() else (0, 0)
    if major >= 10:
        stages, warps = (3, 4, 5), (4, 8)
    elif major == 9:
        stages, warps = (3, 4), (4, 8)
    else:
        stages, warps = (2, 3), (4, 8)
    tiles = [
        {"BLOCK_N": 64},
        {"BLOCK_N": 128},
    ]
    return [
        triton.Config(dict(t), num_stages=s, num_warps=w)
        for t in tiles for s in stages for w in warps
    ]


@triton.autotune(configs=_attn_bwd_dq_kernel_configs(), key=["N", "D", "BLOCK_D"])
@triton.heuristics({"EVEN_N": lambda args: args["N"] % args["BLOCK_N"] == 0})
@triton.jit
def _attn_bwd_dq_kernel(
    Q, K, V, DO, LSE, DELTA, DQ,
    stride_qb, stride_qh, stride_qn, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_dob, stride_doh, stride_don, stride_dod,
    stride_lb, stride_lh, stride_ln,
    stride_deb, stride_deh, stride_den,
    stride_dqb, stride_dqh, stride_dqn, stride_dqd,
    H, N, D, sm_scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, EVEN_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    b = (pid_bh // H).to(tl.int64)
    h = (pid_bh % H).to(tl.int64)

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    mask_m = offs_m < N
    mask_d = offs_d < D
    qd_mask = mask_m[:, None] & mask_d[None, :]

    q = tl.load(Q + b * stride_qb + h * stride_qh
                + offs_m[:, None] * stride_qn + offs_d[None, :] * stride_qd,
                mask=qd_mask, other=0.0)
    do = tl.load(DO + b * stride_dob + h * stride_doh
                 + offs_m[:, None] * stride_don + offs_d[None, :] * stride_dod,
                 mask=qd_mask, other=0.0)
    lse = tl.load(LSE + b * stride_lb + h * stride_lh + offs_m * stride_ln,
                  mask=mask_m, other=0.0)
    delta = tl.load(DELTA + b * stride_deb + h * stride_deh + offs_m * stride_den,
                    mask=mask_m, other=0.0)

    k_base = K + b * stride_kb + h * stride_kh
    v_base = V + b * stride_vb + h * stride_vh

    dq = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start_n in range(0, N, BLOCK_N):
        cols = start_n + offs_n
        mask_n = cols < N
        kv_mask = mask_n[:, None] & mask_d[None, :]
        if EVEN_N:
            k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                        mask=mask_d[None, :], other=0.0)
            v = tl.load(v_base + offs_d[:, None] * stride_vd + cols[None, :] * stride_vn,
                        mask=mask_d[:, None], other=0.0)
        else:
            k = tl.load(k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd,
                        mask=kv_mask, other=0.0)
            v = tl.load(v_base + offs_d[:, None] * stride_vd + cols[None, :] * stride_vn,
                        mask=(mask_d[:, None] & mask_n[None, :]), other=0.0)

        s = tl.dot(q, tl.trans(k)) * sm_scale
        p = tl.exp(s - lse[:, None])
        p = tl.where(mask_m[:, None] & mask_n[None, :], p, 0.0)
        dp = tl.dot(do, v)
        ds = p * (dp - delta[:, None])
        # dQ += dS K   (scale applied at the end)
        dq = tl.dot(ds.to(k.dtype), k, dq)

    dq = dq * sm_scale
    tl.store(DQ + b * stride_dqb + h * stride_dqh
             + offs_m[:, None] * stride_dqn + offs_d[None, :] * stride_dqd,
             dq.to(DQ.dtype.element_ty), mask=qd_mask)


# --------------------------------------------------------------------------------------
# Host side
# --------------------------------------------------------------------------------------
FWD_BLOCK_M = 64
FWD_BLOCK_N = 64
BWD_BLOCK_M = 64
BWD_BLOCK_N = 64


def _block_d(D):
    return max(16, triton.next_power_of_2(D))


def _attn_forward(q, k, v, sm_scale):
    B, H, N, D = q.shape
    o = torch.empty_like(q)
    lse = torch.empty((B, H, N), device=q.device, dtype=torch.float32)
    BLOCK_D = _block_d(D)
    grid = lambda META: (triton.cdiv(N, META["BLOCK_M"]), B * H)
    _attn_fwd_kernel[grid](
        q, k, v, o, lse,
        *q.stride(), *k.stride(), *v.stride(), *o.stride(), *lse.stride(),
        H, N, D, sm_scale, BLOCK_D=BLOCK_D,
    )
    return o, lse


def _attn_backward(q, k, v, o, lse, do, sm_scale):
    B, H, N, D = q.shape
    BLOCK_D = _block_d(D)
    num_warps = 4 if BLOCK_D <= 64 else 8

    delta = torch.empty((B, H, N), device=q.device, dtype=torch.float32)
    _attn_bwd_preprocess_kernel[(triton.cdiv(N, BWD_BLOCK_M), B * H)](
        o, do, delta,
        *o.stride(), *do.stride(), *delta.stride(),
        H, N, D,
        BLOCK_M=BWD_BLOCK_M, BLOCK_D=BLOCK_D,
    )

    dq = torch.empty_like(q)
    dk = torch.empty_like(k)
    dv = torch.empty_like(v)

    _attn_bwd_dkdv_kernel[lambda META: (triton.cdiv(N, META["BLOCK_N"]), B * H)](
        q, k, v, do, lse, delta, dk, dv,
        *q.stride(), *k.stride(), *v.stride(), *do.stride(),
        *lse.stride(), *delta.stride(), *dk.stride(), *dv.stride(),
        H, N, D, sm_scale,
        BLOCK_M=BWD_BLOCK_M, BLOCK_D=BLOCK_D,
    )
    _attn_bwd_dq_kernel[(triton.cdiv(N, BWD_BLOCK_M), B * H)](
        q, k, v, do, lse, delta, dq,
        *q.stride(), *k.stride(), *v.stride(), *do.stride(),
        *lse.stride(), *delta.stride(), *dq.stride(),
        H, N, D, sm_scale,
        BLOCK_M=BWD_BLOCK_M, BLOCK_D=BLOCK_D,
    )
    return dq, dk, dv


class _FlashAttention(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k, v, sm_scale):
        o, lse = _attn_forward(q, k, v, sm_scale)
        ctx.save_for_backward(q, k, v, o, lse)
        ctx.sm_scale = sm_scale
        return o

    @staticmethod
    def backward(ctx, do):
        q, k, v, o, lse = ctx.saved_tensors
        dq, dk, dv = _attn_backward(q, k, v, o, lse, do, ctx.sm_scale)
        return dq, dk, dv, None


def flash_attention_fwd_bwd(q, k, v, do, sm_scale):
    """Forward + backward through the autograd.Function; returns (o, dq, dk, dv)."""
    q = q.detach().requires_grad_(True)
    k = k.detach().requires_grad_(True)
    v = v.detach().requires_grad_(True)
    o = _FlashAttention.apply(q, k, v, sm_scale)
    dq, dk, dv = torch.autograd.grad(o, (q, k, v), do)
    return o.detach(), dq, dk, dv


ENTRY = "flash_attention_fwd_bwd"


def make_inputs(B, H, N, D, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    shape = (B, H, N, D)
    q = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
    k = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
    v = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)
    do = torch.randn(shape, generator=g, device="cuda", dtype=torch.float16)  # upstream grad
    sm_scale = 1.0 / math.sqrt(D)
    return q, k, v, do, sm_scale


def reference(q, k, v, do, sm_scale):
    """Plain PyTorch (fp32 math) forward + autograd backward."""
    qf = q.detach().float().requires_grad_(True)
    kf = k.detach().float().requires_grad_(True)
    vf = v.detach().float().requires_grad_(True)
    s = torch.matmul(qf, kf.transpose(-2, -1)) * sm_scale
    p = torch.softmax(s, dim=-1)
    o = torch.matmul(p, vf)
    dq, dk, dv = torch.autograd.grad(o, (qf, kf, vf), do.float())
    dt = q.dtype
    return o.detach().to(dt), dq.to(dt), dk.to(dt), dv.to(dt)


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
    names = ("o", "dq", "dk", "dv")
    all_ok = True
    for size in CHECK_SIZES:
        inputs = make_inputs(*size)
        outs = fn(*inputs)
        refs = reference(*inputs)
        torch.cuda.synchronize()
        for name, out, ref in zip(names, outs, refs):
            err = (out.float() - ref.float()).abs().max().item()
            tol = 2e-2 * ref.float().abs().max().item()
            ok = err <= tol  # False for NaN
            all_ok &= ok
            print(f"check {size} {name}: max abs err {err:.3e} (tol {tol:.3e}) "
                  f"{'OK' if ok else 'FAIL'}")

    for size in BENCH_SIZES:
        inputs = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: fn(*inputs), return_mode="median")
        B, H, N, D = size
        flops = 4.0 * B * H * N * N * D * 3.5  # fwd (2 matmuls) + bwd (~2.5x fwd)
        print(f"bench {size} fp16 fwd+bwd: {ms:.3f} ms  ({flops / ms * 1e-9:.1f} TFLOP/s)")
        del inputs
        torch.cuda.empty_cache()

    sys.exit(0 if all_ok else 1)
