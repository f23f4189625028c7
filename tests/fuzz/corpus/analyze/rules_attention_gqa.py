# GQA attention with the usual slips: K/V descriptors with H heads, zeros +
# 3-arg dot, libdevice.tanh in the loop, tanh after the log2e scale, key
# lacking the modes, no prune for the causal mode, host contiguous.
# expect: T1 applies
# expect: S5 applies
# expect: G1 applies
# expect: S3 applies
# expect: G4 applies
# expect: S6 applies
# expect: G5 applies
# expect: S8 applies
# expect: G3 applies
# expect: G8 applies
# expect: G6 satisfied
# expect: S7 applies
# expect: G7 applies
# expect: P3 satisfied
# expect: S1 satisfied
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

configs = [triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=8, num_stages=3),
           triton.Config({"BLOCK_M": 64, "BLOCK_N": 64}, num_warps=4, num_stages=2)]


@triton.autotune(configs=configs, key=["N_CTX"])  # @S8 @G3 @G8
@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, B, H, N_CTX,  # @T1
             HEAD_DIM: tl.constexpr, QUERY_GROUP_SIZE: tl.constexpr, IS_CAUSAL: tl.constexpr,
             WINDOW_SIZE: tl.constexpr, SOFT_CAP: tl.constexpr,
             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    off_b = tl.program_id(1)
    off_h = tl.program_id(2)
    q_desc = tl.make_tensor_descriptor(Q, shape=[B, H, N_CTX, HEAD_DIM], strides=[H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM, 1],  # @G7
                                       block_shape=[1, 1, BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[B, H, N_CTX, HEAD_DIM], strides=[H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM, 1],  # @S5 @G1
                                       block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[B, H // QUERY_GROUP_SIZE, N_CTX, HEAD_DIM], strides=[H * N_CTX * HEAD_DIM, N_CTX * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    log2e = 1.4426950408889634
    q = q_desc.load([off_b, off_h, pid * BLOCK_M, 0]).reshape((BLOCK_M, HEAD_DIM))
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in range(0, N_CTX, BLOCK_N):
        k = k_desc.load([off_b, off_h // QUERY_GROUP_SIZE, start_n, 0]).reshape((BLOCK_N, HEAD_DIM))
        qk = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        qk = tl.dot(q, k.T, qk)  # @S3 @G4
        qk = qk * (sm_scale * log2e)
        if SOFT_CAP > 0:
            qk = SOFT_CAP * libdevice.tanh(qk / SOFT_CAP)  # @S6 @G5
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([off_b, off_h // QUERY_GROUP_SIZE, start_n, 0]).reshape((BLOCK_N, HEAD_DIM))
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    tl.store(Out + pid, acc)


def attention(q, k, v, sm_scale):
    q = q.contiguous()  # @S7 @G7
    B, H, S, D = q.shape
    out = torch.empty_like(q)
    grid = lambda META: (triton.cdiv(S, META["BLOCK_M"]), B, H)
    attn_fwd[grid](q, k, v, out, sm_scale, B, H, S, HEAD_DIM=D, QUERY_GROUP_SIZE=H // k.shape[1],
                   IS_CAUSAL=True, WINDOW_SIZE=0, SOFT_CAP=0.0)
    return out
