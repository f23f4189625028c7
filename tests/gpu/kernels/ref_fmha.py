"""The reference walkpays.sh measures the naive attention against: a
forward pass in the manner of Triton's fused-attention tutorial (written
here from its ideas, not its text): tensor descriptors over the (B*H*N, D)
view, K read as stored and transposed by the dot, exp2 with log2(e) folded
into the scale, no per-block masks (N must be a multiple of BLOCK_M and
BLOCK_N, which the configs are pruned to), tiles, warps and stages tuned."""
import torch
import triton
import triton.language as tl

LOG2E = 1.4426950408889634


def _keep(configs, named_args, **kwargs):
    n = kwargs["N_CTX"] if "N_CTX" in kwargs else named_args["N_CTX"]
    return [c for c in configs if n % c.kwargs["BLOCK_M"] == 0 and n % c.kwargs["BLOCK_N"] == 0]


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn}, num_stages=s, num_warps=w)
             for bm in (64, 128) for bn in (64, 128) for s in (3, 4) for w in (4, 8)],
    key=["N_CTX", "HEAD_DIM"],
    prune_configs_by={"early_config_prune": _keep},
)
@triton.jit
def ref_attn_fwd(Q, K, V, Out, qk_scale, BH, N_CTX, HEAD_DIM: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    rows = BH * N_CTX
    dq = tl.make_tensor_descriptor(Q, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    dk = tl.make_tensor_descriptor(K, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    dv = tl.make_tensor_descriptor(V, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_N, HEAD_DIM])
    do = tl.make_tensor_descriptor(Out, shape=[rows, HEAD_DIM], strides=[HEAD_DIM, 1], block_shape=[BLOCK_M, HEAD_DIM])
    first = bh * N_CTX
    q = dq.load([first + pid_m * BLOCK_M, 0])
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    for start in range(0, N_CTX, BLOCK_N):
        k = dk.load([first + start, 0])
        s = tl.dot(q, k.T) * qk_scale
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.exp2(s - m_new[:, None])
        alpha = tl.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = dv.load([first + start, 0])
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
    acc = acc / l_i[:, None]
    do.store([first + pid_m * BLOCK_M, 0], acc.to(Out.dtype.element_ty))


def _alloc(size, alignment, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def attention(q, k, v, sm_scale):
    B, H, N, D = q.shape
    assert q.is_contiguous() and k.is_contiguous() and v.is_contiguous(), "the reference wants contiguous q, k, v"
    assert N % 64 == 0, "the reference has no masks: N must be a multiple of 64"
    triton.set_allocator(_alloc)
    out = torch.empty_like(q)
    grid = lambda META: (triton.cdiv(N, META["BLOCK_M"]), B * H)
    ref_attn_fwd[grid](q, k, v, out, sm_scale * LOG2E, B * H, N, D)
    return out
