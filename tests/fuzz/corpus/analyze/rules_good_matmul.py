# A well-written matmul: in-kernel descriptors, allocator set, autotune per
# capability sweeping stages and warps, grid from META, EVEN_K heuristic,
# accumulator carried across the K loop.
# expect: T3 applies
# expect: T1 n/a
# expect: S1 satisfied
# expect: S3 satisfied
# expect: P1 satisfied
# expect: S4 satisfied
# expect: L2 satisfied
# expect: G7 satisfied
# expect: P2 n/a
# expect: P3 satisfied
# expect: P4 n/a
# expect: D2 satisfied
# expect: S8 satisfied
# expect: L3 n/a
# expect: D12 n/a
# expect: P7 needs-profile
# expect: T4 needs-baseline
# expect: T5 needs-baseline
# only-applies: T3,P5
# expect: P5 applies
import torch
import triton
import triton.language as tl


def get_configs():
    major, _ = torch.cuda.get_device_capability()
    if major >= 10:
        return [triton.Config({"BLOCK_M": bm, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=s, num_warps=w)
                for bm in (128, 256) for s in (3, 4) for w in (4, 8)]
    return [triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64}, num_stages=s, num_warps=8)
            for s in (2, 3)]


@triton.autotune(configs=get_configs(), key=["M", "N", "K"])  # @T3
@triton.heuristics({"EVEN_K": lambda a: a["K"] % a["BLOCK_K"] == 0})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                  EVEN_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([pid_m * BLOCK_M, k * BLOCK_K])
        b = b_desc.load([pid_n * BLOCK_N, k * BLOCK_K])
        acc = tl.dot(a, b.T, acc)
    c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(tl.float16))  # @P5


def _alloc(size, alignment, stream):
    return torch.empty(size, device="cuda", dtype=torch.int8)


def matmul(a, b):
    M, K = a.shape
    N = b.shape[0]
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    triton.set_allocator(_alloc)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    matmul_kernel[grid](a, b, c, M, N, K)
    return c
