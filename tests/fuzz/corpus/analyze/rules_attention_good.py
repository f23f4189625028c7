# A well-written GQA attention: tanh in the original scale, plain QK dot,
# K/V descriptors with H // QUERY_GROUP_SIZE, configs per capability with a
# prune function, key with the modes, set_allocator, no contiguous.
# expect: T1 applies
# expect: S5 satisfied
# expect: G1 satisfied
# expect: S3 satisfied
# expect: G4 satisfied
# expect: S6 n/a
# expect: G5 n/a
# expect: G6 satisfied
# expect: S8 satisfied
# expect: G3 satisfied
# expect: G8 satisfied
# expect: G7 satisfied
# expect: P1 satisfied
# expect: G2 satisfied
# expect: L2 satisfied
# only-applies: T1,T3
import torch
import triton
import triton.language as tl


def get_configs():
    if torch.cuda.get_device_capability()[0] >= 10:
        return [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_warps=w, num_stages=s)
                for bm in (128, 256) for bn in (64, 128) for w in (4, 8) for s in (2, 3)]
    return [triton.Config({"BLOCK_M": 128, "BLOCK_N": 64}, num_warps=w, num_stages=3) for w in (4, 8)]


def prune(configs, named_args, **kwargs):
    return [c for c in configs if named_args["STAGE"] != 3 or c.kwargs["BLOCK_M"] % c.kwargs["BLOCK_N"] == 0]


@triton.jit
def fast_tanh(x):
    return tl.inline_asm_elementwise("tanh.approx.f32 $0, $1;", "=r,r", [x], dtype=tl.float32, is_pure=True, pack=1)


@triton.autotune(configs=get_configs(), key=["S_qo", "S_kv", "HEAD_DIM", "STAGE", "QUERY_GROUP_SIZE", "SOFT_CAP"],  # @T3
                 prune_configs_by={"early_config_prune": prune})
@triton.jit
def attn_fwd(Q, K, V, Out, sm_scale, B, H, S_qo, S_kv,  # @T1
             HEAD_DIM: tl.constexpr, QUERY_GROUP_SIZE: tl.constexpr, STAGE: tl.constexpr,
             SOFT_CAP: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0)
    off_b = tl.program_id(1)
    off_h = tl.program_id(2)
    q_desc = tl.make_tensor_descriptor(Q, shape=[B, H, S_qo, HEAD_DIM], strides=[H * S_qo * HEAD_DIM, S_qo * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, 1, BLOCK_M, HEAD_DIM])
    k_desc = tl.make_tensor_descriptor(K, shape=[B, H // QUERY_GROUP_SIZE, S_kv, HEAD_DIM],
                                       strides=[H * S_kv * HEAD_DIM, S_kv * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    v_desc = tl.make_tensor_descriptor(V, shape=[B, H // QUERY_GROUP_SIZE, S_kv, HEAD_DIM],
                                       strides=[H * S_kv * HEAD_DIM, S_kv * HEAD_DIM, HEAD_DIM, 1],
                                       block_shape=[1, 1, BLOCK_N, HEAD_DIM])
    q = q_desc.load([off_b, off_h, pid * BLOCK_M, 0]).reshape((BLOCK_M, HEAD_DIM))
    m_i = tl.zeros([BLOCK_M], dtype=tl.float32) - float("inf")
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start_n in tl.range(0, S_kv, BLOCK_N):
        k = k_desc.load([off_b, off_h // QUERY_GROUP_SIZE, start_n, 0]).reshape((BLOCK_N, HEAD_DIM))
        qk = tl.dot(q, k.T)
        qk = qk * sm_scale
        if SOFT_CAP > 0:
            qk = SOFT_CAP * fast_tanh(qk / SOFT_CAP)
        qk = qk * 1.4426950408889634
        m_ij = tl.maximum(m_i, tl.max(qk, 1))
        p = tl.math.exp2(qk - m_ij[:, None])
        alpha = tl.math.exp2(m_i - m_ij)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = v_desc.load([off_b, off_h // QUERY_GROUP_SIZE, start_n, 0]).reshape((BLOCK_N, HEAD_DIM))
        acc = acc * alpha[:, None]
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_ij
    acc = acc / l_i[:, None]
    q_desc.store([off_b, off_h, pid * BLOCK_M, 0], acc.to(tl.float16).reshape((1, 1, BLOCK_M, HEAD_DIM)))


def _alloc(size, alignment, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def attention(q, k, v, sm_scale, causal):
    if q.stride(-1) != 1:
        q = q.contiguous()
    B, H, S, D = q.shape
    out = torch.empty_like(q)
    triton.set_allocator(_alloc)
    grid = lambda META: (triton.cdiv(S, META["BLOCK_M"]), B, H)
    attn_fwd[grid](q, k, v, out, sm_scale, B, H, S, k.shape[2], HEAD_DIM=D, QUERY_GROUP_SIZE=H // k.shape[1],
                   STAGE=3 if causal else 1, SOFT_CAP=0.0)
    return out
