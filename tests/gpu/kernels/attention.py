import torch
import triton
import triton.language as tl

from common import report


@triton.jit
def attn_fwd(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, N,
             D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # one (batch*head, block of queries) per program; q/k/v/o: [BH, N, D] contiguous
    start_m = tl.program_id(0)
    bh = tl.program_id(1)
    base = bh * N * D
    rm = start_m * BM + tl.arange(0, BM)
    rd = tl.arange(0, D)
    q = tl.load(q_ptr + base + rm[:, None] * D + rd[None, :])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    qk_scale = sm_scale * 1.44269504
    for start_n in range(0, N, BN):
        rn = start_n + tl.arange(0, BN)
        k = tl.load(k_ptr + base + rn[None, :] * D + rd[:, None])
        v = tl.load(v_ptr + base + rn[:, None] * D + rd[None, :])
        qk = tl.dot(q, k) * qk_scale
        m_new = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
        m_i = m_new
    acc = acc / l_i[:, None]
    tl.store(o_ptr + base + rm[:, None] * D + rd[None, :], acc.to(tl.float16))


def main():
    B, H, N, D = 4, 16, 4096, 64
    q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
    o = torch.empty_like(q)
    scale = D ** -0.5
    grid = (N // 128, B * H)
    args = (q, k, v, o, scale, N)
    compiled = attn_fwd[grid](*args, D=D, BM=128, BN=64, num_warps=8, num_stages=2)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(o, ref, atol=2e-2, rtol=2e-2)
    report("attention", "attn_fwd",
           lambda: attn_fwd[grid](*args, D=D, BM=128, BN=64, num_warps=8, num_stages=2),
           compiled, 8)


main()
