"""A naive attention forward written the way a line-by-line port from
another tile language tends to come out: one stride argument per dimension
of every tensor, raw 2D masked loads, K transposed inside the KV loop, fixed
64x64 tiles chosen in the wrapper (the grid computed from them), no
autotune. The walk in tests/gpu/walkpays.sh starts from this file.

python3 naive_fmha.py: checks against torch at small sizes (N not a multiple
of the tiles, D not a power of two), then times B4 H32 N4096 at D64 and D128."""
import sys

import torch
import triton
import triton.language as tl


@triton.jit
def naive_attn_fwd(Q, K, V, Out, sm_scale,
                   stride_qb, stride_qh, stride_qm, stride_qd,
                   stride_kb, stride_kh, stride_kn, stride_kd,
                   stride_vb, stride_vh, stride_vn, stride_vd,
                   stride_ob, stride_oh, stride_om, stride_od,
                   H, N_CTX, HEAD_DIM,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    pid_bh = tl.program_id(0)
    pid_m = tl.program_id(1)
    b = pid_bh // H
    h = pid_bh % H
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    q_base = Q + b * stride_qb + h * stride_qh
    k_base = K + b * stride_kb + h * stride_kh
    v_base = V + b * stride_vb + h * stride_vh
    o_base = Out + b * stride_ob + h * stride_oh
    q_ptrs = q_base + offs_m[:, None] * stride_qm + offs_d[None, :] * stride_qd
    q = tl.load(q_ptrs, mask=(offs_m[:, None] < N_CTX) & (offs_d[None, :] < HEAD_DIM), other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        cols = start_n + offs_n
        k_ptrs = k_base + cols[:, None] * stride_kn + offs_d[None, :] * stride_kd
        k = tl.load(k_ptrs, mask=(cols[:, None] < N_CTX) & (offs_d[None, :] < HEAD_DIM), other=0.0)
        qk = tl.dot(q, tl.trans(k)) * sm_scale
        qk = tl.where(cols[None, :] < N_CTX, qk, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.exp(qk - m_new[:, None])
        alpha = tl.exp(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v_ptrs = v_base + cols[:, None] * stride_vn + offs_d[None, :] * stride_vd
        v = tl.load(v_ptrs, mask=(cols[:, None] < N_CTX) & (offs_d[None, :] < HEAD_DIM), other=0.0)
        acc = acc * alpha[:, None]
        acc += tl.dot(p.to(v.dtype), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    o_ptrs = o_base + offs_m[:, None] * stride_om + offs_d[None, :] * stride_od
    tl.store(o_ptrs, acc.to(Out.dtype.element_ty), mask=(offs_m[:, None] < N_CTX) & (offs_d[None, :] < HEAD_DIM))


def attention(q, k, v, sm_scale):
    B, H, N, D = q.shape
    out = torch.empty_like(q)
    grid = (B * H, triton.cdiv(N, 64))
    naive_attn_fwd[grid](q, k, v, out, sm_scale, q.stride(0), q.stride(1), q.stride(2),
            q.stride(3), k.stride(0), k.stride(1), k.stride(2), k.stride(3), v.stride(0),
            v.stride(1), v.stride(2), v.stride(3), out.stride(0), out.stride(1), out.stride(2),
            out.stride(3), H, N, D, BLOCK_M=64, BLOCK_N=64, BLOCK_D=triton.next_power_of_2(D))
    return out


# What tests/gpu/walkpays.sh calls: the sizes it measures, their inputs, the
# function under test and the reference it is compared with.
def make_inputs(B, H, N, D, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q, k, v = (torch.randn((B, H, N, D), device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    return q, k, v, D ** -0.5


def reference(q, k, v, sm_scale):
    return torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=sm_scale)


CHECK_SIZES = [(1, 2, 100, 64), (2, 3, 257, 128), (1, 2, 130, 80)]
# accepted by the original, outside TMA's 16-byte rule (a row of 36 halves)
CONTRACT_SIZES = [(1, 2, 100, 36)]
BENCH_SIZES = [(4, 32, 4096, 64), (4, 32, 4096, 128)]
ENTRY = "attention"


if __name__ == "__main__":
    ok = True
    for size in CHECK_SIZES:
        args = make_inputs(*size)
        err = (attention(*args).float() - reference(*args).float()).abs().max().item()
        print(f"check B,H,N,D={size}: max abs err {err:.2e}")
        ok &= err < 2e-2
    for size in BENCH_SIZES:
        args = make_inputs(*size)
        ms = triton.testing.do_bench(lambda: attention(*args), return_mode="median")
        print(f"attention{list(size)}: triton {ms:.3f} ms")
    sys.exit(0 if ok else 1)
