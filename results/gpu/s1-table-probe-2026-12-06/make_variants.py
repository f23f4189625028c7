"""Makes the S1 variants of the P1-tuned grouped GEMM (run3/walk/v1.py) that this probe
times: unsafe (descriptors always, as S1 writes them today), branch (each
access picks the descriptor or the raw load per problem, inside the loop) and
version (the K loop written twice, the descriptor copy taken when every base
and row stride of the problem is 16-byte aligned). Run here: python3 make_variants.py"""

SRC = open("run3/walk/v1.py").read()

LOOP = """        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            k_left = K - k0
            a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
            b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            a_tile += BLOCK_K
            b_tile += BLOCK_K * ldb

        c_tile = c_base + rows[:, None] * ldc + cols[None, :]
        tl.store(c_tile, acc.to(tl.float16), mask=row_ok[:, None] & col_ok[None, :])
"""
assert LOOP in SRC

DESCS = """        a_desc = tl.make_tensor_descriptor(a_base, shape=[M, K], strides=[lda, 1], block_shape=[BLOCK_M, BLOCK_K])
        b_desc = tl.make_tensor_descriptor(b_base, shape=[K, N], strides=[ldb, 1], block_shape=[BLOCK_K, BLOCK_N])
        c_desc = tl.make_tensor_descriptor(c_base, shape=[M, N], strides=[ldc, 1], block_shape=[BLOCK_M, BLOCK_N])
"""
OK = """        a_ok = (lda % 8 == 0) & (a_base.to(tl.int64) % 16 == 0)
        b_ok = (ldb % 8 == 0) & (b_base.to(tl.int64) % 16 == 0)
        c_ok = (ldc % 8 == 0) & (c_base.to(tl.int64) % 16 == 0)
"""

UNSAFE = DESCS + """        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            a = a_desc.load([tile_m * BLOCK_M, k0])
            b = b_desc.load([k0, tile_n * BLOCK_N])
            acc = tl.dot(a, b, acc)
        c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.float16))
"""

BRANCH = DESCS + OK + """        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            k_left = K - k0
            if a_ok:
                a = a_desc.load([tile_m * BLOCK_M, k0])
            else:
                a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
            if b_ok:
                b = b_desc.load([k0, tile_n * BLOCK_N])
            else:
                b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            a_tile += BLOCK_K
            b_tile += BLOCK_K * ldb

        if c_ok:
            c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.float16))
        else:
            c_tile = c_base + rows[:, None] * ldc + cols[None, :]
            tl.store(c_tile, acc.to(tl.float16), mask=row_ok[:, None] & col_ok[None, :])
"""

VERSION = DESCS + OK + """        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        if a_ok & b_ok:
            for k0 in range(0, K, BLOCK_K):
                a = a_desc.load([tile_m * BLOCK_M, k0])
                b = b_desc.load([k0, tile_n * BLOCK_N])
                acc = tl.dot(a, b, acc)
        else:
            for k0 in range(0, K, BLOCK_K):
                k_left = K - k0
                a = tl.load(a_tile, mask=row_ok[:, None] & (ks[None, :] < k_left), other=0.0)
                b = tl.load(b_tile, mask=(ks[:, None] < k_left) & col_ok[None, :], other=0.0)
                acc = tl.dot(a, b, acc)
                a_tile += BLOCK_K
                b_tile += BLOCK_K * ldb

        if c_ok:
            c_desc.store([tile_m * BLOCK_M, tile_n * BLOCK_N], acc.to(tl.float16))
        else:
            c_tile = c_base + rows[:, None] * ldc + cols[None, :]
            tl.store(c_tile, acc.to(tl.float16), mask=row_ok[:, None] & col_ok[None, :])
"""

ALLOC = """    def alloc_fn(size: int, alignment: int, stream):
        return torch.empty(size, device="cuda", dtype=torch.int8)

    triton.set_allocator(alloc_fn)
    nprog = torch.cuda"""

for name, body in (("unsafe", UNSAFE), ("branch", BRANCH), ("version", VERSION)):
    out = SRC.replace(LOOP, body).replace("    nprog = torch.cuda", ALLOC, 1)
    open(f"{name}.py", "w").write(out)
