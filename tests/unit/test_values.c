/* The values layer (analyze/values.h): what a name holds where it is read,
 * on small host and kernel snippets written several ways with one meaning. */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "analyze/values.h"
#include "util/buf.h"

static ta_analysis *parse(const char *text)
{
	ta_analysis *a = NULL;
	char *err = NULL;
	int rc = ta_analysis_from_bytes("snippet.py", text, strlen(text), &a, &err);
	if (rc != 0)
		print_error("%s\n", err ? err : "?");
	assert_int_equal(rc, 0);
	return a;
}

/* The first identifier spelled `name` at or after the n-th occurrence
 * (0-based) of `around`. */
static TSNode ident_in(const ta_analysis *a, const char *around, int nth, const char *name)
{
	const char *t = a->src->text, *p = t;
	for (int i = 0; p; i++) {
		p = strstr(p, around);
		if (!p || i == nth)
			break;
		p++;
	}
	if (!p)
		print_error("no `%s` in the snippet\n", around);
	assert_non_null(p);
	size_t len = strlen(name);
	for (const char *q = strstr(p, name); q; q = strstr(q + 1, name)) {
		uint32_t off = (uint32_t)(q - t);
		TSNode n = ta_node_named_at(ta_syntax_root(a->syn), off, off + (uint32_t)len);
		if (ta_node_is(n, "identifier") && ts_node_start_byte(n) == off && ts_node_end_byte(n) == off + len)
			return n;
	}
	print_error("no identifier `%s` after `%s`\n", name, around);
	fail();
	return (TSNode){ 0 };
}

static char *text(const ta_analysis *a, TSNode n)
{
	return ts_node_is_null(n) ? ta_xstrdup("<none>") : ta_node_text(a->src, n);
}

static void assert_value(const ta_analysis *a, TSNode id, const char *want)
{
	char *got = text(a, ta_values_def(a->model, id, NULL));
	assert_string_equal(got, want);
	free(got);
}

static const char *grid_text =
	"import triton\n"
	"def attention(q, seq_len, B, H):\n"
	"    BLOCK_M = 64\n"
	"    nq = triton.cdiv(seq_len, BLOCK_M)\n"
	"    grid = (B * H, nq)\n"
	"    kern[grid](q, BLOCK_M=BLOCK_M)\n";

/* A file that binds no name at all: the table of bindings is empty and a
 * question about a name has no value (found by the CI's fuzzer: the empty
 * table's null pointer was offset, undefined behaviour under UBSan). */
static void test_no_bindings(void **state)
{
	(void)state;
	ta_analysis *a = parse("import triton\n\n@triton.jit\ndef k(x):\n    x\n");
	TSNode x = ident_in(a, "    x", 0, "x");
	assert_true(ts_node_is_null(ta_values_def(a->model, x, NULL)));
	assert_false(ta_values_reads(a->model, x, "y"));
	ta_analysis_free(a);
}

static void test_grid_through_names(void **state)
{
	(void)state;
	ta_analysis *a = parse(grid_text);
	TSNode g = ident_in(a, "kern[grid]", 0, "grid");
	TSNode v = ta_values_follow(a->model, g);
	char *t = text(a, v);
	assert_string_equal(t, "(B * H, nq)");
	free(t);
	assert_true(ta_values_reads(a->model, g, "BLOCK_M"));
	assert_true(ta_values_reads(a->model, g, "seq_len"));
	assert_false(ta_values_reads(a->model, g, "q"));
	long bm = 0;
	assert_true(ta_values_int(a->model, ident_in(a, "=BLOCK_M)", 0, "BLOCK_M"), &bm));
	assert_int_equal(bm, 64);
	ta_analysis_free(a);
}

static const char *meta_subst(const ta_model *m, TSNode id, void *ctx)
{
	(void)ctx;
	if (ta_node_text_eq(m->src, id, "BLOCK_M"))
		return "META[\"BLOCK_M\"]";
	return ta_values_reads(m, id, "BLOCK_M") ? TA_VALUES_INLINE : NULL;
}

static void test_grid_text_inlined(void **state)
{
	(void)state;
	ta_analysis *a = parse(grid_text);
	TSNode g = ta_values_follow(a->model, ident_in(a, "kern[grid]", 0, "grid"));
	char *t = ta_values_text(a->model, g, meta_subst, NULL);
	assert_string_equal(t, "(B * H, triton.cdiv(seq_len, META[\"BLOCK_M\"]))");
	free(t);
	assert_true(ta_values_stable(a->model, g, (uint32_t)(strstr(a->src->text, "kern[") - a->src->text)));
	ta_analysis_free(a);
}

static void test_tuples(void **state)
{
	(void)state;
	ta_analysis *a = parse("def f(q):\n"
			       "    BM, BN = 64, 128\n"
			       "    (X, Y) = (1, 2)\n"
			       "    B, H, N, D = q.shape\n"
			       "    use(BM, BN, X, Y, B, D)\n");
	long v;
	assert_true(ta_values_int(a->model, ident_in(a, "use(", 0, "BM"), &v));
	assert_int_equal(v, 64);
	assert_true(ta_values_int(a->model, ident_in(a, "use(", 0, "BN"), &v));
	assert_int_equal(v, 128);
	assert_true(ta_values_int(a->model, ident_in(a, "use(", 0, "Y"), &v));
	assert_int_equal(v, 2);
	assert_value(a, ident_in(a, "use(", 0, "B"), "<none>");
	assert_value(a, ident_in(a, "use(", 0, "D"), "<none>");
	/* ... but unpacked from q.shape, at their places */
	uint32_t at = 9;
	char *from = text(a, ta_values_unpacked(a->model, ident_in(a, "use(", 0, "D"), &at));
	assert_string_equal(from, "q.shape");
	assert_int_equal(at, 3);
	free(from);
	assert_true(ts_node_is_null(ta_values_unpacked(a->model, ident_in(a, "use(", 0, "BM"), NULL)));
	ta_analysis_free(a);
	/* a starred target: the places are not known */
	a = parse("def f(q):\n"
		  "    *lead, N = q.shape\n"
		  "    use(N)\n");
	assert_true(ts_node_is_null(ta_values_unpacked(a->model, ident_in(a, "use(", 0, "N"), NULL)));
	ta_analysis_free(a);
}

static void test_branches_and_loops(void **state)
{
	(void)state;
	ta_analysis *a = parse("def f(c, r):\n"
			       "    x = 1\n"
			       "    if c:\n"
			       "        x = 2\n"
			       "    use(x)\n"
			       "    y = 0\n"
			       "    for i in r:\n"
			       "        use(y)\n"
			       "        y = y + 1\n"
			       "    z = 5\n"
			       "    for i in r:\n"
			       "        w = z * 2\n"
			       "        use(w, z)\n"
			       "    s = 1\n"
			       "    s = s + 1\n"
			       "    use(s)\n"
			       "    for i in r:\n"
			       "        qk = dot(i)\n"
			       "        qk = where(i, qk)\n"
			       "        use(qk)\n"
			       "        if c:\n"
			       "            t = dot(i)\n"
			       "        t = t + 1\n");
	assert_value(a, ident_in(a, "use(x)", 0, "x"), "<none>");      /* two branches */
	assert_value(a, ident_in(a, "use(y)", 0, "y"), "<none>");      /* loop-carried */
	assert_value(a, ident_in(a, "use(w, z)", 0, "w"), "z * 2");    /* same iteration */
	assert_value(a, ident_in(a, "use(w, z)", 0, "z"), "5");        /* before the loop */
	assert_value(a, ident_in(a, "use(s)", 0, "s"), "s + 1");
	assert_value(a, ident_in(a, "= s + 1", 0, "s"), "1");      /* the read in its own right side */
	/* rebound later in the loop, but bound earlier in the same iteration:
	 * that earlier binding is what the read sees, every iteration */
	assert_value(a, ident_in(a, "where(i, qk)", 0, "qk"), "dot(i)");
	assert_value(a, ident_in(a, "use(qk)", 0, "qk"), "where(i, qk)");
	/* the earlier binding in a branch: the previous iteration's may reach */
	assert_value(a, ident_in(a, "= t + 1", 0, "t"), "<none>");
	ta_analysis_free(a);
}

static void test_module_and_params(void **state)
{
	(void)state;
	ta_analysis *a = parse("BLOCK = 64\n"
			       "def f(x):\n"
			       "    use(BLOCK)\n"
			       "def g(BLOCK):\n"
			       "    use(BLOCK)\n"
			       "def h():\n"
			       "    grid = lambda META: (META['BLOCK'],)\n"
			       "    k = [BLOCK for BLOCK in range(3)]\n"
			       "META = 1\n");
	assert_value(a, ident_in(a, "use(BLOCK)", 0, "BLOCK"), "64");
	assert_value(a, ident_in(a, "use(BLOCK)", 1, "BLOCK"), "<none>");   /* a parameter */
	assert_value(a, ident_in(a, "(META[", 0, "META"), "<none>");        /* the lambda's own */
	assert_value(a, ident_in(a, "[BLOCK for", 0, "BLOCK"), "<none>");   /* the comprehension's */
	ta_analysis_free(a);
}

static void test_kernel_mask_and_induction(void **state)
{
	(void)state;
	ta_analysis *a = parse("import triton.language as tl\n"
			       "def k(a, b, K, stride_ak, BLOCK_K: tl.constexpr):\n"
			       "    offs = tl.arange(0, BLOCK_K)\n"
			       "    a_ptrs = a + offs * stride_ak\n"
			       "    kv_mask = offs < K\n"
			       "    for k0 in range(0, K, BLOCK_K):\n"
			       "        x = tl.load(a_ptrs, mask=kv_mask & (offs < 8))\n"
			       "        a_ptrs += BLOCK_K * stride_ak\n"
			       "        b += 1\n"
			       "        if x:\n"
			       "            b += 2\n");
	TSNode m = ident_in(a, "mask=kv_mask", 0, "kv_mask");
	assert_value(a, m, "offs < K");
	assert_true(ta_values_reads(a->model, m, "K"));
	/* a_ptrs is stepped, so it has no one value inside the loop */
	assert_value(a, ident_in(a, "tl.load(a_ptrs", 0, "a_ptrs"), "<none>");
	TSNode loop = ta_node_ancestor(m, "for_statement");
	TSNode init, step, upd;
	assert_true(ta_values_induction(a->model, loop, "a_ptrs", &init, &step, &upd));
	char *t = text(a, init), *s = text(a, step);
	assert_string_equal(t, "a + offs * stride_ak");
	assert_string_equal(s, "BLOCK_K * stride_ak");
	free(t);
	free(s);
	assert_false(ta_values_induction(a->model, loop, "b", NULL, NULL, NULL));   /* twice, once in a branch */
	assert_false(ta_values_induction(a->model, loop, "kv_mask", NULL, NULL, NULL));
	ta_analysis_free(a);
}

static void test_stable(void **state)
{
	(void)state;
	ta_analysis *a = parse("def f(x):\n"
			       "    n = 3\n"
			       "    g = (n,)\n"
			       "    n = 4\n"
			       "    kern[g](x)\n");
	TSNode g = ta_values_follow(a->model, ident_in(a, "kern[g]", 0, "g"));
	uint32_t at = (uint32_t)(strstr(a->src->text, "kern[") - a->src->text);
	assert_false(ta_values_stable(a->model, g, at));
	ta_analysis_free(a);
}

static void test_launch_args(void **state)
{
	(void)state;
	ta_analysis *a = parse("import triton\nimport triton.language as tl\n"
			       "@triton.jit\n"
			       "def kern(x, y, N, BM: tl.constexpr, BN: tl.constexpr):\n"
			       "    pass\n"
			       "def run(x, y, N):\n"
			       "    kern[(1,)](x, y, N, 64, BN=32)\n"
			       "    kern[(1,)](*(x, y), N, 16, BN=8)\n"
			       "    kern[(1,)](*rest, 16, BN=8)\n");
	const ta_model *m = a->model;
	int ki = ta_model_find_kernel(m, "kern");
	assert_true(ki >= 0);
	const ta_kernel *k = &m->kernels[ki];
	assert_int_equal(m->launch_count, 3);
	bool kw;
	char *t = text(a, ta_values_launch_arg(m, &m->launches[0], k, 3, &kw));
	assert_string_equal(t, "64");
	assert_false(kw);
	free(t);
	t = text(a, ta_values_launch_arg(m, &m->launches[0], k, 4, &kw));
	assert_string_equal(t, "32");
	assert_true(kw);
	free(t);
	/* a starred tuple of known length counts its elements */
	t = text(a, ta_values_launch_arg(m, &m->launches[1], k, 3, &kw));
	assert_string_equal(t, "16");
	free(t);
	/* after *args of unknown length, the positions before the first
	 * keyword parameter still are: a launch passes BM (no default) by
	 * position, and before BN */
	t = text(a, ta_values_launch_arg(m, &m->launches[2], k, 3, &kw));
	assert_string_equal(t, "16");
	free(t);
	t = text(a, ta_values_launch_arg(m, &m->launches[2], k, 2, &kw));
	assert_string_equal(t, "<none>");
	free(t);
	t = text(a, ta_values_launch_arg(m, &m->launches[2], k, 4, &kw));
	assert_string_equal(t, "8");
	free(t);
	ta_analysis_free(a);
}

/* The rank the host states for the tensor named at the n-th `around`. */
static size_t rank_at(const ta_analysis *a, const char *around, int nth, const char *name)
{
	return ta_values_rank(a->model, ident_in(a, around, nth, name));
}

static void test_ranks(void **state)
{
	(void)state;
	ta_analysis *a = parse("import torch\n"
			       "def f(q, k, v, x, y, z, c):\n"
			       "    B, H, N, D = q.shape\n"
			       "    assert k.shape == (B, H, N, D) and v.dim() == 4\n"
			       "    assert len(x.shape) == 3\n"
			       "    assert y.ndim == 2 or y.ndim == 3\n"
			       "    if c:\n"
			       "        assert z.dim() == 2\n"
			       "    o = torch.empty_like(q)\n"
			       "    lse = torch.empty((B, H, N), device=q.device)\n"
			       "    w = x.view(B * H, -1)\n"
			       "    t = w.t().contiguous()\n"
			       "    e = torch.empty(B, N)\n"
			       "    use(q, k, v, x, y, z, o, lse, w, t, e)\n"
			       "    q = q.flatten(0, 1)\n"
			       "    use(q)\n");
	assert_int_equal(rank_at(a, "use(q, k", 0, "q"), 4);
	assert_int_equal(rank_at(a, "use(q, k", 0, "k"), 4);
	assert_int_equal(rank_at(a, "use(q, k", 0, "v"), 4);
	assert_int_equal(rank_at(a, "use(q, k", 0, "x"), 3);
	/* an `or` states nothing; an assert under an if holds only there */
	assert_int_equal(rank_at(a, "use(q, k", 0, "y"), 0);
	assert_int_equal(rank_at(a, "use(q, k", 0, "z"), 0);
	assert_int_equal(rank_at(a, "use(q, k", 0, "o"), 4);
	assert_int_equal(rank_at(a, "use(q, k", 0, "lse"), 3);
	assert_int_equal(rank_at(a, "use(q, k", 0, "w"), 2);
	assert_int_equal(rank_at(a, "use(q, k", 0, "t"), 2);
	assert_int_equal(rank_at(a, "use(q, k", 0, "e"), 2);
	/* bound again since the fact: unknown */
	assert_int_equal(rank_at(a, "use(q)", 0, "q"), 0);
	ta_analysis_free(a);
}

static const char strided_kernel[] =
	"import torch\nimport triton\nimport triton.language as tl\n"
	"@triton.jit\n"
	"def kern(Q, K, O, sqb, sqh, sqn, sqd, skb, skh, skn, skd, sob, soh, son, sod, N, BLOCK: tl.constexpr):\n"
	"    b = tl.program_id(1)\n"
	"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
	"    q = tl.load(Q + b * sqb + offs[:, None] * sqn + offs[None, :] * sqd)\n"
	"    k = tl.load(K + b * skb + offs[:, None] * skn + offs[None, :] * skd)\n"
	"    tl.store(O + b * sob + offs[:, None] * son + offs[None, :] * sod, q + k)\n";

/* Which x.stride(d) launch n passes for parameter i, as "x d rank
 * [assume]", or "<none>". */
static char *stride_of(const ta_analysis *a, size_t n, const char *param)
{
	const ta_model *m = a->model;
	const ta_kernel *k = &m->kernels[ta_model_find_kernel(m, "kern")];
	size_t i = 0;
	while (i < k->param_count && strcmp(k->params[i].name, param))
		i++;
	assert_true(i < k->param_count && n < m->launch_count);
	ta_values_stride st;
	if (!ta_values_launch_stride(m, &m->launches[n], k, i, &st))
		return ta_xstrdup("<none>");
	char *x = ta_node_text(a->src, st.tensor);
	char *r = ta_xasprintf("%s %ld %zu%s%s", x, st.dim, st.rank, st.assume ? " " : "", st.assume ? st.assume : "");
	free(x);
	ta_values_stride_free(&st);
	return r;
}

static void expect_stride(const ta_analysis *a, size_t n, const char *param, const char *want)
{
	char *t = stride_of(a, n, param);
	if (strcmp(t, want))
		print_error("launch %zu, %s: %s, want %s\n", n, param, t, want);
	assert_string_equal(t, want);
	free(t);
}

static ta_analysis *parse_with(const char *host)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%s%s", strided_kernel, host);
	ta_analysis *a = parse(ta_buf_str(&b));
	ta_buf_free(&b);
	return a;
}

/* The same strides written out, bound to names, and starred. */
static void test_launch_strides(void **state)
{
	(void)state;
	ta_analysis *a = parse_with(
		"def run(q, k):\n"
		"    B, H, N, D = q.shape\n"
		"    assert k.shape == q.shape\n"
		"    o = torch.empty_like(q)\n"
		"    kern[(1,)](q, k, o, q.stride(0), q.stride(1), q.stride(2), q.stride(3), k.stride(0), k.stride(1),\n"
		"               k.stride(2), k.stride(-1), o.stride(0), o.stride(1), o.stride(2), o.stride(3), N, BLOCK=64)\n"
		"    skd = k.stride(3)\n"
		"    kern[(1,)](q, k, o, *q.stride(), 0, 0, 0, skd, *o.stride(), N, BLOCK=64)\n"
		"    kern[(1,)](q, k, o, *q.stride(), *k.stride(), *o.stride(), N, BLOCK=64)\n"
		"    s = q.stride(3)\n"
		"    q = q.contiguous()\n"
		"    kern[(1,)](q, k, o, 0, 0, 0, s, *k.stride(), *o.stride(), N, BLOCK=64)\n");
	expect_stride(a, 0, "sqd", "q 3 4");
	expect_stride(a, 0, "skd", "k -1 4");
	/* through a name, and *o.stride() placed after it */
	expect_stride(a, 1, "skd", "k 3 4");
	expect_stride(a, 1, "sod", "o 3 4");
	expect_stride(a, 2, "skn", "k 2 4");
	expect_stride(a, 2, "sod", "o 3 4");
	/* q bound again between `s = q.stride(3)` and the launch: s is the old q's */
	expect_stride(a, 3, "sqd", "<none>");
	/* the size after the starred strides */
	const ta_model *m = a->model;
	const ta_kernel *k = &m->kernels[ta_model_find_kernel(m, "kern")];
	char *t = text(a, ta_values_launch_arg(m, &m->launches[2], k, 15, NULL));
	assert_string_equal(t, "N");
	free(t);
	ta_analysis_free(a);
}

/* Starred strides of tensors the host says nothing of: one alone takes
 * what the count leaves; several are split by the kernel's addresses, or
 * evenly, and the split is stated as an assumption. */
static void test_launch_strides_guessed(void **state)
{
	(void)state;
	ta_analysis *a = parse_with(
		"def one(q, k, N):\n"
		"    B, H, S, D = q.shape\n"
		"    o = torch.empty_like(q)\n"
		"    kern[(1,)](q, k, o, *q.stride(), *k.stride(), *o.stride(), N, BLOCK=64)\n"
		"def two(q, k, o, N):\n"
		"    kern[(1,)](q, k, o, *q.stride(), *k.stride(), *o.stride(), N, BLOCK=64)\n"
		"def three(q, k, o, N):\n"
		"    kern[(1,)](q, k, o, *q.stride(), *k.stride(), *o.stride(), N, BLOCK=64, num_warps=4)\n");
	expect_stride(a, 0, "skd", "k 3 4");
	/* q's own place is known: only its rank is assumed */
	expect_stride(a, 1, "sqd", "q 3 4 q.dim() == 4");
	expect_stride(a, 1, "skb", "k 0 4 q.dim() == k.dim() == 4");
	expect_stride(a, 2, "sod", "o 3 4 q.dim() == k.dim() == o.dim() == 4");
	ta_analysis_free(a);
}

/* Tensors of other ranks among them (a log-sum-exp beside 4D tensors):
 * each takes the parameters the kernel reads as its pointer's strides. */
static void test_launch_strides_by_kernel(void **state)
{
	(void)state;
	ta_analysis *a = parse(
		"import torch\nimport triton\nimport triton.language as tl\n"
		"@triton.jit\n"
		"def kern(Q, L, O, sqb, sqh, sqn, sqd, slb, slh, sln, sob, soh, son, sod, N, BLOCK: tl.constexpr):\n"
		"    b = tl.program_id(1)\n"
		"    h = tl.program_id(2)\n"
		"    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
		"    q_base = Q + b * sqb + h * sqh\n"
		"    q = tl.load(q_base + offs[:, None] * sqn + offs[None, :] * sqd)\n"
		"    l = tl.load(L + b * slb + h * slh + offs * sln)\n"
		"    tl.store(O + b * sob + h * soh + offs[:, None] * son + offs[None, :] * sod, q * l[:, None])\n"
		"def run(q, l, o, N):\n"
		"    kern[(1,)](q, l, o, *q.stride(), *l.stride(), *o.stride(), N, BLOCK=64)\n");
	expect_stride(a, 0, "sln", "l 2 3 q.dim() == 4 and l.dim() == 3");
	expect_stride(a, 0, "sod", "o 3 4 q.dim() == 4 and l.dim() == 3 and o.dim() == 4");
	ta_analysis_free(a);
}

/* Facts that name each other (`y.shape == x.shape`, both ways) at every
 * assert of a long function: a rank question takes a bounded number of
 * steps (it branched at every assert, n^8 in all, before). */
static void test_ranks_bounded(void **state)
{
	(void)state;
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "def f(x, y):\n");
	for (int i = 0; i < 400; i++)
		ta_buf_puts(&b, "    assert y.shape == x.shape\n");
	ta_buf_puts(&b, "    use(x, y)\n");
	ta_analysis *a = parse(ta_buf_str(&b));
	ta_buf_free(&b);
	assert_int_equal(rank_at(a, "use(x", 0, "y"), 0);
	assert_int_equal(rank_at(a, "use(x", 0, "x"), 0);
	ta_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_bindings),
		cmocka_unit_test(test_grid_through_names),
		cmocka_unit_test(test_grid_text_inlined),
		cmocka_unit_test(test_tuples),
		cmocka_unit_test(test_branches_and_loops),
		cmocka_unit_test(test_module_and_params),
		cmocka_unit_test(test_kernel_mask_and_induction),
		cmocka_unit_test(test_stable),
		cmocka_unit_test(test_launch_args),
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_launch_strides),
		cmocka_unit_test(test_launch_strides_guessed),
		cmocka_unit_test(test_launch_strides_by_kernel),
		cmocka_unit_test(test_ranks_bounded),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	ta_model_shutdown();
	return r;
}
