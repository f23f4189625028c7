# Gemma-style attention forward: grouped-query heads, causal or full, optional
# sliding window and optional logit soft cap, with an online softmax in exp2.
# Bundled example for tileadvise: the results are correct, but the kernel, its
# autotune setup and its host code deliberately keep patterns tileadvise flags.
import argparse
import math
import sys

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

configs = [
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3),
    triton.Config({"BLOCK_M": 128, "BLOCK_N": 128}, num_warps=8, num_stages=2),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=3),
]


@triton.autotune(configs=configs, key=["N_CTX"])
@triton.jit
def gemma_attn_fwd(Q, K, V, Out, sm_scale,
                   stride_qb, stride_qh, stride_qs,
                   stride_kb, stride_kh, stride_ks,
                   stride_vb, stride_vh, stride_vs,
                   stride_ob, stride_oh, stride_os,
                   B, H, N_CTX,
                   HEAD_DIM: tl.constexpr,
                   QUERY_GROUP_SIZE: tl.constexpr,
                   IS_CAUSAL: tl.constexpr,
                   WINDOW_SIZE: tl.constexpr,
                   SOFT_CAP: tl.constexpr,
                   BLOCK_M: tl.constexpr,
                   BLOCK_N: tl.constexpr):
    start_m = tl.program_id(0)
    off_bh = tl.program_id(1)
    off_b = off_bh // H
    off_h = off_bh % H
    off_h_kv = off_h // QUERY_GROUP_SIZE
    log2e = 1.4426950408889634

    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    offs_n_base = tl.arange(0, BLOCK_N)

    q_base = Q + off_b.to(tl.int64) * stride_qb + off_h.to(tl.int64) * stride_qh
    q = tl.load(q_base + offs_m[:, None] * stride_qs + offs_d[None, :], mask=offs_m[:, None] < N_CTX, other=0.0)

    k_desc = tl.make_tensor_descriptor(K, shape=[B, H, N_CTX, HEAD_DIM], strides=[stride_kb, stride_kh, stride_ks, 1],
                                       block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[B, H, N_CTX, HEAD_DIM], strides=[stride_vb, stride_vh, stride_vs, 1],
                                       block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    o_desc = tl.make_tensor_descriptor(Out, shape=[B, H, N_CTX, HEAD_DIM], strides=[stride_ob, stride_oh, stride_os, 1],
                                       block_shape=[1, 1, BLOCK_M, HEAD_DIM])

    # key range this block of queries can see
    lo = 0
    if WINDOW_SIZE > 0:
        lo = tl.maximum(start_m * BLOCK_M - WINDOW_SIZE + 1, 0)
        lo = (lo // BLOCK_N) * BLOCK_N
    if IS_CAUSAL:
        hi = tl.minimum((start_m + 1) * BLOCK_M, N_CTX)
    elif WINDOW_SIZE > 0:
        hi = tl.minimum((start_m + 1) * BLOCK_M + WINDOW_SIZE - 1, N_CTX)
    else:
        hi = N_CTX

    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = k_desc.load([off_b, off_h_kv, start_n, 0]).reshape((BLOCK_N, HEAD_DIM))
        qk = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        qk = tl.dot(q, k.T, qk)
        qk = qk * sm_scale
        if SOFT_CAP > 0:
            qk = SOFT_CAP * libdevice.tanh(qk / SOFT_CAP)
        offs_n = start_n + offs_n_base
        if IS_CAUSAL:
            keep = offs_m[:, None] >= offs_n[None, :]
            if WINDOW_SIZE > 0:
                keep = keep & (offs_m[:, None] - offs_n[None, :] < WINDOW_SIZE)
            qk = tl.where(keep, qk * log2e, -1.0e6)
        elif WINDOW_SIZE > 0:
            dist = offs_m[:, None] - offs_n[None, :]
            keep = (dist < WINDOW_SIZE) & (dist > -WINDOW_SIZE)
            qk = tl.where(keep, qk * log2e, -1.0e6)
        else:
            qk = qk * log2e

        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([off_b, off_h_kv, start_n, 0]).reshape((BLOCK_N, HEAD_DIM))
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij

    acc = acc / l_i[:, None]
    out = acc.to(Out.dtype.element_ty).reshape((1, 1, BLOCK_M, HEAD_DIM))
    o_desc.store([off_b, off_h, start_m * BLOCK_M, 0], out)


def _descriptor_scratch(size: int, alignment: int, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def gemma_attention(q, k, v, sm_scale, causal=True, window_size=0, soft_cap=0.0):
    """q: (B, H, S, D); k, v: (B, H_kv, S, D), H a multiple of H_kv."""
    B, H, S, D = q.shape
    H_kv = k.shape[1]
    assert k.shape == (B, H_kv, S, D) and v.shape == k.shape and H % H_kv == 0
    assert q.stride(-1) == 1 and k.stride(-1) == 1 and v.stride(-1) == 1
    assert S % 128 == 0, "this example expects the sequence length to be a multiple of 128"
    triton.set_allocator(_descriptor_scratch)
    out = torch.empty_like(q)
    grid = lambda META: (triton.cdiv(S, META["BLOCK_M"]), B * H)
    gemma_attn_fwd[grid](q, k, v, out, sm_scale,
                         q.stride(0), q.stride(1), q.stride(2),
                         k.stride(0), k.stride(1), k.stride(2),
                         v.stride(0), v.stride(1), v.stride(2),
                         out.stride(0), out.stride(1), out.stride(2),
                         B, H, S,
                         HEAD_DIM=D, QUERY_GROUP_SIZE=H // H_kv, IS_CAUSAL=causal,
                         WINDOW_SIZE=window_size, SOFT_CAP=soft_cap)
    return out


def attention_reference(q, k, v, sm_scale, causal, window_size, soft_cap, heads_per_chunk=8):
    """Plain PyTorch attention in fp32, a few heads at a time to bound memory."""
    B, H, S, D = q.shape
    group = H // k.shape[1]
    i = torch.arange(S, device=q.device)[:, None]
    j = torch.arange(S, device=q.device)[None, :]
    keep = torch.ones((S, S), dtype=torch.bool, device=q.device)
    if causal:
        keep &= j <= i
    if window_size > 0:
        keep &= (i - j) < window_size
        if not causal:
            keep &= (j - i) < window_size
    out = torch.empty_like(q)
    for b in range(B):
        for h0 in range(0, H, heads_per_chunk):
            heads = torch.arange(h0, min(h0 + heads_per_chunk, H), device=q.device)
            qh = q[b, heads].float()
            kh = k[b, heads // group].float()
            vh = v[b, heads // group].float()
            s = torch.matmul(qh, kh.transpose(-1, -2)) * sm_scale
            if soft_cap > 0:
                s = soft_cap * torch.tanh(s / soft_cap)
            s = s.masked_fill(~keep, float("-inf"))
            out[b, heads] = torch.matmul(torch.softmax(s, dim=-1), vh).to(q.dtype)
    return out


def torch_attention(q, k, v, sm_scale, causal, window_size, soft_cap):
    if window_size == 0 and soft_cap == 0:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm_scale,
                                                                enable_gqa=True)
    return attention_reference(q, k, v, sm_scale, causal, window_size, soft_cap)


def main():
    parser = argparse.ArgumentParser(description="Gemma-style attention forward (tileadvise example)")
    parser.add_argument("--quick", action="store_true", help="use a shorter sequence")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("attention: a CUDA device is required")
        return 2

    B, H, H_kv, D = 4, 32, 8, 128
    S = 1024 if args.quick else 4096
    window = 256 if args.quick else 1024
    torch.manual_seed(0)
    dtype = torch.float16
    q = torch.randn((B, H, S, D), device="cuda", dtype=dtype) * 3.0
    k = torch.randn((B, H_kv, S, D), device="cuda", dtype=dtype)
    v = torch.randn((B, H_kv, S, D), device="cuda", dtype=dtype)
    sm_scale = 1.0 / math.sqrt(D)

    # (label, causal, window_size, soft_cap); the first mode is the one autotuned
    modes = [
        ("causal+window+softcap", True, window, 10.0),
        ("causal", True, 0, 0.0),
        ("full", False, 0, 0.0),
    ]
    atol, rtol = 2e-2, 2e-2
    for label, causal, window_size, soft_cap in modes:
        out = gemma_attention(q, k, v, sm_scale, causal, window_size, soft_cap)
        ref = torch_attention(q, k, v, sm_scale, causal, window_size, soft_cap)
        if not torch.allclose(out.float(), ref.float(), atol=atol, rtol=rtol):
            err = (out.float() - ref.float()).abs().max().item()
            print(f"attention[{label}]: MISMATCH vs torch, max abs err {err:.3e} (atol {atol}, rtol {rtol})")
            return 1
        del ref
        ms_triton = triton.testing.do_bench(lambda: gemma_attention(q, k, v, sm_scale, causal, window_size, soft_cap))
        ms_torch = triton.testing.do_bench(lambda: torch_attention(q, k, v, sm_scale, causal, window_size, soft_cap))
        print(f"attention[{label}]: triton {ms_triton:.3f} ms, torch {ms_torch:.3f} ms "
              f"(B={B} H={H} H_kv={H_kv} S={S} D={D} fp16; config {gemma_attn_fwd.best_config})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
