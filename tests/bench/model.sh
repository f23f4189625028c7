#!/bin/sh
# Parse-only vs parse+model time on a generated 5,000-line file of varied
# kernels (elementwise, reductions, matmuls with autotune, descriptors,
# launches of every form). Target: model building costs at most the parse
# time again, i.e. (parse+model)/parse <= 2.0.
# Usage: tests/bench/model.sh [ITERATIONS]   (from the build tree, after
#        `make tests/bench/bench_model`; BENCH_MODEL overrides the driver)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
iters=${1:-30}
driver=${BENCH_MODEL:-./tests/bench/bench_model}
[ -x "$driver" ] || { echo "model.sh: build the driver first: make tests/bench/bench_model" >&2; exit 2; }
out=$(mktemp "${TMPDIR:-/tmp}/ta-bench-XXXXXX.py")
trap '[ -n "${KEEP:-}" ] || rm -f "$out"' EXIT

${PYTHON3:-python3} - "$out" <<'PY'
import sys

HEADER = '''import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

'''

def elementwise(i):
    return f'''@triton.jit
def ew_kernel_{i}(x_ptr, y_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    z = tl.where(x > 0, x * alpha + y, tl.exp(x) - 1.0)
    tl.store(out_ptr + offs, z, mask=mask)


def ew_{i}(x, y, alpha=0.5):
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
    ew_kernel_{i}[grid](x, y, out, n, alpha, BLOCK=1024, num_warps=4)
    return out


'''

def softmax(i):
    return f'''@triton.jit
def softmax_kernel_{i}(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                      BLOCK_SIZE: tl.constexpr, num_stages: tl.constexpr):
    row_start = tl.program_id(0)
    row_step = tl.num_programs(0)
    for row_idx in tl.range(row_start, n_rows, row_step, num_stages=num_stages):
        row_ptr = in_ptr + row_idx * in_stride
        col = tl.arange(0, BLOCK_SIZE)
        row = tl.load(row_ptr + col, mask=col < n_cols, other=-float("inf"))
        row = row - tl.max(row, axis=0)
        num = tl.exp(row)
        den = tl.sum(num, axis=0)
        tl.store(out_ptr + row_idx * out_stride + col, num / den, mask=col < n_cols)


def softmax_{i}(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    softmax_kernel_{i}[(n_rows,)](y, x, x.stride(0), y.stride(0), n_rows, n_cols,
                                  BLOCK_SIZE=BLOCK_SIZE, num_stages=2)
    return y


'''

def matmul(i):
    return f'''@triton.autotune(
    configs=[triton.Config({{"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": 32}}, num_stages=s, num_warps=w)
             for bm in (64, 128) for bn in (64, 128) for s in (3, 4) for w in (4, 8)],
    key=["M", "N", "K"],
)
@triton.jit
def matmul_kernel_{i}(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                     stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                     BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(tl.float16)
    c_ptrs = c_ptr + stride_cm * offs_m[:, None] + stride_cn * offs_n[None, :]
    tl.store(c_ptrs, c, mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


def matmul_{i}(a, b):
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float16)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(N, META["BLOCK_N"]))
    matmul_kernel_{i}[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                            c.stride(0), c.stride(1))
    return c


'''

def descriptor(i):
    return f'''@triton.jit
def desc_kernel_{i}(a_desc, b_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    off_m = tl.program_id(0) * BLOCK_M
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    for k in tl.static_range(0, 4):
        tile = a_desc.load([off_m, k * BLOCK_K])
        b_desc.store([off_m, k * BLOCK_K], tl.trans(tl.trans(tile)))


def desc_{i}(a, b):
    M, K = a.shape
    a_desc = TensorDescriptor.from_tensor(a, [64, 32])
    for t in (a, b):
        desc_kernel_{i}[(triton.cdiv(M, 64),)](a_desc, t, M, K, BLOCK_M=64, BLOCK_K=32)


'''

kinds = [elementwise, softmax, matmul, descriptor]
parts = [HEADER]
lines = HEADER.count("\n")
i = 0
while lines < 5000:
    s = kinds[i % len(kinds)](i)
    parts.append(s)
    lines += s.count("\n")
    i += 1
open(sys.argv[1], "w").write("".join(parts))
PY

"$driver" "$out" "$iters"
