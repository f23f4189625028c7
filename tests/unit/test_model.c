/* The Triton model over fixtures written the way kernel engineers write
 * kernels (tests/fixtures/model/): each test asserts the model's exact
 * content for one file. The last tests feed hostile inputs and check the
 * model stays fast (no quadratic piece) and never crashes. */
#include "config.h"
/* ---- shared test helpers (kept in each file: one program per test) ---- */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analysis.h"
#include "util/buf.h"

/* The source tree: TA_SRCDIR from the harness, else the tree we were built from. */
static inline const char *ta_test_srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

/* Queries come from the source tree's data/ wherever the test binary runs. */
static inline void ta_test_use_srcdir_data(void)
{
	char *d = ta_xasprintf("%s/data", ta_test_srcdir());
	setenv("TILEADVISE_DATADIR", d, 0);
	free(d);
}

static inline char *ta_test_fixture(const char *dir, const char *name)
{
	return ta_xasprintf("%s/tests/fixtures/%s/%s", ta_test_srcdir(), dir, name);
}

/* ---- helpers ------------------------------------------------------------- */

static ta_analysis *open_fixture(const char *name)
{
	char *path = ta_test_fixture("model", name);
	ta_analysis *a = NULL;
	char *err = NULL;
	int rc = ta_analysis_open(path, &a, &err);
	if (rc != 0)
		print_error("%s: %s\n", path, err ? err : "?");
	assert_int_equal(rc, 0);
	assert_non_null(a);
	assert_string_equal(a->src->path, path);
	free(path);
	return a;
}

static const ta_kernel *kernel(const ta_model *m, const char *name)
{
	int k = ta_model_find_kernel(m, name);
	if (k < 0)
		print_error("no kernel %s\n", name);
	assert_true(k >= 0);
	return &m->kernels[k];
}

static const ta_host *host(const ta_model *m, const char *name)
{
	for (size_t i = 0; i < m->host_count; i++)
		if (!strcmp(m->hosts[i].name, name))
			return &m->hosts[i];
	print_error("no host function %s\n", name);
	fail();
	return NULL;
}

static const char *import_target(const ta_model *m, const char *alias)
{
	const char *t = NULL;
	for (size_t i = 0; i < m->import_count; i++)   /* the last binding wins */
		if (!strcmp(m->imports[i].alias, alias))
			t = m->imports[i].target;
	return t;
}

static void expect_kwarg(const ta_kwarg *kw, size_t n, const char *name, const char *value)
{
	const ta_kwarg *k = ta_kwarg_find(kw, n, name);
	if (!k)
		print_error("no keyword %s\n", name);
	assert_non_null(k);
	assert_string_equal(k->value, value);
}

/* Parameters as "name" or "name:c" (constexpr) or "name:c=default". */
static void expect_params(const ta_kernel *k, const char *const *want, size_t n)
{
	assert_int_equal(k->param_count, n);
	for (size_t i = 0; i < n; i++) {
		const ta_param *p = &k->params[i];
		char *got = ta_xasprintf("%s%s%s%s", p->name, p->constexpr_ ? ":c" : "",
					 p->default_value ? "=" : "", p->default_value ? p->default_value : "");
		assert_string_equal(got, want[i]);
		free(got);
	}
}

/* A string set given as "a,b,c" equals the vector, order ignored. */
static void expect_set(char **v, size_t n, const char *want)
{
	size_t count = 0;
	char *copy = ta_xstrdup(want), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bool found = false;
		for (size_t i = 0; i < n; i++)
			found |= !strcmp(v[i], t);
		if (!found)
			print_error("missing %s in the set\n", t);
		assert_true(found);
		count++;
	}
	free(copy);
	if (count != n) {
		for (size_t i = 0; i < n; i++)
			print_error("  have %s\n", v[i]);
	}
	assert_int_equal(count, n);
}

static void expect_strv(char **v, size_t n, const char *const *want, size_t nwant)
{
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
}

/* One expected op. Fields left at their zero meaning "anything" are marked. */
typedef struct op_want {
	ta_op_kind kind;
	uint32_t line;
	int loop;                 /* loop index, -1 outside */
	int depth;
	ta_ptr_shape shape;       /* loads/stores only */
	bool mask;
	bool acc;                 /* dots only */
	const char *target;       /* NULL: no target */
	bool gather;
	const char *receiver;     /* NULL: no receiver */
} op_want;

/* Checks the ops of k whose kind is among those the table mentions, in
 * document order (other kinds, e.g. arange, are skipped). */
static void expect_ops(const ta_kernel *k, const op_want *want, size_t n)
{
	bool wanted_kind[TA_OP__COUNT] = { false };
	for (size_t i = 0; i < n; i++)
		wanted_kind[want[i].kind] = true;
	size_t j = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (!wanted_kind[op->kind])
			continue;
		if (j >= n) {
			print_error("%s: unexpected %s at line %u\n", k->name, ta_op_kind_name(op->kind), op->span.line);
			fail();
		}
		const op_want *w = &want[j++];
		if (op->kind != w->kind || op->span.line != w->line)
			print_error("%s: op %zu is %s at line %u, want %s at line %u\n", k->name, j - 1,
				    ta_op_kind_name(op->kind), op->span.line, ta_op_kind_name(w->kind), w->line);
		assert_int_equal(op->kind, w->kind);
		assert_int_equal(op->span.line, w->line);
		assert_int_equal(op->loop, w->loop);
		assert_int_equal(op->loop_depth, w->depth);
		if (op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE) {
			if (op->ptr_shape != w->shape)
				print_error("%s line %u: pointer %s, want %s\n", k->name, op->span.line,
					    ta_ptr_shape_name(op->ptr_shape), ta_ptr_shape_name(w->shape));
			assert_int_equal(op->ptr_shape, w->shape);
			assert_int_equal(op->has_mask, w->mask);
			assert_int_equal(op->gather, w->gather);
		}
		if (op->kind == TA_OP_DOT)
			assert_int_equal(op->has_acc, w->acc);
		if (w->target) {
			assert_non_null(op->target);
			assert_string_equal(op->target, w->target);
		} else if (op->target) {
			print_error("%s line %u: unexpected target %s\n", k->name, op->span.line, op->target);
			fail();
		}
		if (w->receiver) {
			assert_non_null(op->receiver);
			assert_string_equal(op->receiver, w->receiver);
		}
	}
	if (j != n)
		print_error("%s: %zu ops of the wanted kinds, want %zu\n", k->name, j, n);
	assert_int_equal(j, n);
}

typedef struct loop_want {
	ta_loop_kind kind;
	uint32_t line;
	int depth;
	int parent;
	const char *var;
} loop_want;

static void expect_loops(const ta_kernel *k, const loop_want *want, size_t n)
{
	assert_int_equal(k->loop_count, n);
	for (size_t i = 0; i < n; i++) {
		const ta_loop *lp = &k->loops[i];
		assert_int_equal(lp->kind, want[i].kind);
		assert_int_equal(lp->span.line, want[i].line);
		assert_int_equal(lp->depth, want[i].depth);
		assert_int_equal(lp->parent, want[i].parent);
		if (want[i].var)
			assert_string_equal(lp->var, want[i].var);
		else
			assert_null(lp->var);
	}
}

typedef struct launch_want {
	const char *kernel;
	const char *callee;
	uint32_t line;
	ta_grid_kind grid;
	int dims;
	const char *dim0;         /* text of the first dimension, NULL: not checked */
	bool meta;
	const char *host;
	int loop_depth;
	size_t kwarg_count;
} launch_want;

static void expect_launches(const ta_model *m, const launch_want *want, size_t n)
{
	assert_int_equal(m->launch_count, n);
	for (size_t i = 0; i < n; i++) {
		const ta_launch *l = &m->launches[i];
		const launch_want *w = &want[i];
		assert_true(l->kernel >= 0);
		assert_string_equal(m->kernels[l->kernel].name, w->kernel);
		assert_string_equal(l->callee, w->callee);
		assert_int_equal(l->span.line, w->line);
		if (l->grid_kind != w->grid)
			print_error("launch line %u: grid %s, want %s\n", l->span.line,
				    ta_grid_kind_name(l->grid_kind), ta_grid_kind_name(w->grid));
		assert_int_equal(l->grid_kind, w->grid);
		assert_int_equal(l->grid_dims, w->dims);
		if (w->dim0) {
			assert_true(l->grid_dims > 0);
			assert_string_equal(l->grid_dim_text[0], w->dim0);
		}
		assert_int_equal(l->grid_uses_meta, w->meta);
		assert_true(l->host >= 0);
		assert_string_equal(m->hosts[l->host].name, w->host);
		assert_int_equal(l->loop_depth, w->loop_depth);
		assert_int_equal(l->kwarg_count, w->kwarg_count);
	}
}

typedef struct host_want {
	ta_host_kind kind;
	uint32_t line;
	const char *target;       /* NULL: not checked */
} host_want;

static void expect_host_ops(const ta_host *h, const host_want *want, size_t n)
{
	if (h->op_count != n)
		for (size_t i = 0; i < h->op_count; i++)
			print_error("%s: %s line %u\n", h->name, ta_host_kind_name(h->ops[i].kind), h->ops[i].span.line);
	assert_int_equal(h->op_count, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(h->ops[i].kind, want[i].kind);
		assert_int_equal(h->ops[i].span.line, want[i].line);
		if (want[i].target) {
			assert_non_null(h->ops[i].target);
			assert_string_equal(h->ops[i].target, want[i].target);
		}
	}
}

#define N(a) (sizeof (a) / sizeof *(a))

/* ---- the order rules rely on ---------------------------------------------- */

/* A kernel's loops and ops are in document order, each loop after its
 * parent and inside it, each op inside its loop: the rules find a loop's
 * ops, assignments and nest by binary search (checklist/rules.c). */
static void expect_document_order(const ta_model *m)
{
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		const ta_kernel *k = &m->kernels[ki];
		for (size_t i = 1; i < k->op_count; i++)
			assert_true(k->ops[i - 1].span.start <= k->ops[i].span.start);
		for (size_t i = 0; i < k->loop_count; i++) {
			const ta_loop *l = &k->loops[i];
			if (i)
				assert_true(k->loops[i - 1].span.start <= l->span.start);
			assert_true(l->parent < (int)i);
			if (l->parent >= 0) {
				assert_true(k->loops[l->parent].span.start <= l->span.start);
				assert_true(l->span.end <= k->loops[l->parent].span.end);
			}
		}
		for (size_t i = 0; i < k->op_count; i++) {
			int l = k->ops[i].loop;
			if (l < 0)
				continue;
			assert_true(k->loops[l].span.start <= k->ops[i].span.start);
			assert_true(k->ops[i].span.start < k->loops[l].span.end);
		}
	}
}

static void test_document_order(void **state)
{
	(void)state;
	const char *fixtures[] = { "basic.py", "autotune_forms.py", "matmul_styles.py", "descriptors.py",
				   "wrapped.py", "from_imports.py" };
	for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
		ta_analysis *a = open_fixture(fixtures[i]);
		expect_document_order(a->model);
		ta_analysis_free(a);
	}
	const char *examples[] = { "attention", "matmul", "layernorm", "softmax", "cat" };
	for (size_t i = 0; i < sizeof examples / sizeof *examples; i++) {
		char *path = ta_xasprintf("%s/examples/%s/%s.py", ta_test_srcdir(), examples[i], examples[i]);
		ta_analysis *a = NULL;
		char *err = NULL;
		assert_int_equal(ta_analysis_open(path, &a, &err), 0);
		expect_document_order(a->model);
		ta_analysis_free(a);
		free(path);
	}
}

/* ---- fixtures ------------------------------------------------------------- */

static void test_basic(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("basic.py");
	const ta_model *m = a->model;
	assert_int_equal(a->syn->error_count, 0);
	assert_true(m->imports_triton);
	assert_string_equal(import_target(m, "tl"), "triton.language");
	assert_string_equal(import_target(m, "triton"), "triton");
	assert_string_equal(import_target(m, "torch"), "torch");
	assert_int_equal(m->kernel_count, 1);

	const ta_kernel *k = kernel(m, "add_kernel");
	assert_int_equal(k->span.line, 7);
	assert_int_equal(k->span.end_line, 14);
	assert_int_equal(k->def_line, 8);
	assert_string_equal(k->indent, "    ");
	assert_null(k->autotune);
	assert_int_equal(k->heuristic_count, 0);
	assert_false(k->wrapped);
	assert_false(k->is_helper);
	assert_false(k->persistent);
	assert_int_equal(k->launch_count, 2);
	static const char *const params[] = { "x_ptr", "y_ptr", "out_ptr", "n_elements", "BLOCK_SIZE:c" };
	expect_params(k, params, N(params));
	assert_string_equal(ta_kernel_param(k, "BLOCK_SIZE")->annotation, "tl.constexpr");
	assert_int_equal(k->loop_count, 0);
	static const op_want ops[] = {
		{ TA_OP_PROGRAM_ID, 9, -1, 0, 0, false, false, "pid", false, NULL },
		{ TA_OP_ARANGE, 10, -1, 0, 0, false, false, NULL, false, NULL },
		{ TA_OP_LOAD, 12, -1, 0, TA_PTR_1D, true, false, "x", false, NULL },
		{ TA_OP_LOAD, 13, -1, 0, TA_PTR_1D, true, false, "y", false, NULL },
		{ TA_OP_STORE, 14, -1, 0, TA_PTR_1D, true, false, NULL, false, NULL },
	};
	expect_ops(k, ops, N(ops));
	assert_int_equal(k->op_count, 5);
	/* Columns are 1-based code points; the call, not the assignment. */
	assert_int_equal(k->ops[0].span.col, 11);
	assert_int_equal(k->ops[1].span.col, 34);
	assert_string_equal(k->ops[0].callee, "triton.language.program_id");
	expect_kwarg(k->ops[0].kwargs, k->ops[0].kwarg_count, "axis", "0");
	assert_int_equal(k->ops[2].arg_count, 1);
	expect_kwarg(k->ops[2].kwargs, k->ops[2].kwarg_count, "mask", "mask");

	static const launch_want launches[] = {
		{ "add_kernel", "add_kernel", 22, TA_GRID_LAMBDA, 1, "triton.cdiv(n, meta[\"BLOCK_SIZE\"])",
		  true, "add", 0, 1 },
		{ "add_kernel", "add_kernel", 30, TA_GRID_TUPLE, 1, "(n + BLOCK - 1) // BLOCK", false,
		  "add_fixed", 0, 2 },
	};
	expect_launches(m, launches, N(launches));
	expect_kwarg(m->launches[0].kwargs, m->launches[0].kwarg_count, "BLOCK_SIZE", "1024");
	expect_kwarg(m->launches[1].kwargs, m->launches[1].kwarg_count, "num_warps", "4");
	assert_int_equal(m->launches[0].arg_count, 4);
	/* A named grid points back at its definition. */
	assert_int_equal(m->launches[0].grid_def_span.line, 21);
	assert_int_equal(m->launches[1].grid_def_span.line, 29);

	static const host_want add_ops[] = {
		{ TA_HOST_CONTIGUOUS, 18, "x" }, { TA_HOST_ALLOC, 19, "out" }, { TA_HOST_CDIV, 21, NULL },
	};
	const ta_host *h = host(m, "add");
	expect_host_ops(h, add_ops, N(add_ops));
	assert_string_equal(h->ops[0].receiver, "x");
	assert_string_equal(h->ops[1].callee, "torch.empty_like");
	assert_true(h->ops[1].has_device);   /* *_like keeps the input's device */
	assert_int_equal(h->launch_count, 1);
	static const char *const add_params[] = { "x", "y" };
	expect_strv(h->params, h->param_count, add_params, 2);

	/* y.to(torch.float32) is a cast, not a device move. */
	static const host_want fixed_ops[] = { { TA_HOST_HAND_CDIV, 29, NULL } };
	expect_host_ops(host(m, "add_fixed"), fixed_ops, N(fixed_ops));

	static const host_want module_ops[] = {
		{ TA_HOST_ALLOC, 34, "a" }, { TA_HOST_TO_DEVICE, 35, "b" },
		{ TA_HOST_ALLOC, 35, NULL }, { TA_HOST_ALLOC, 36, "c" },
	};
	h = host(m, "<module>");
	expect_host_ops(h, module_ops, N(module_ops));
	assert_true(h->ops[0].has_device);
	assert_false(h->ops[2].has_device);
	assert_false(h->ops[3].has_device);
	ta_analysis_free(a);
}

static void test_from_imports(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("from_imports.py");
	const ta_model *m = a->model;
	assert_true(m->imports_triton);
	assert_string_equal(import_target(m, "tr"), "triton");
	assert_string_equal(import_target(m, "jit"), "triton.jit");
	assert_string_equal(import_target(m, "tl"), "triton.language");
	assert_int_equal(m->kernel_count, 2);

	const ta_kernel *k = kernel(m, "scale_kernel");   /* bare @jit */
	assert_int_equal(k->span.line, 8);
	static const char *const p1[] = { "x_ptr", "n", "alpha", "BLOCK:c=256" };
	expect_params(k, p1, N(p1));
	static const op_want o1[] = {
		/* the mask given by position counts */
		{ TA_OP_LOAD, 11, -1, 0, TA_PTR_1D, true, false, "x", false, NULL },
		{ TA_OP_STORE, 12, -1, 0, TA_PTR_1D, true, false, NULL, false, NULL },
	};
	expect_ops(k, o1, N(o1));

	k = kernel(m, "axpy_kernel");
	assert_int_equal(k->span.line, 15);
	assert_int_equal(k->def_line, 18);
	assert_int_equal(k->jit_kwarg_count, 1);
	expect_kwarg(k->jit_kwargs, k->jit_kwarg_count, "do_not_specialize", "[\"n\", \"alpha\"]");
	assert_int_equal(k->heuristic_count, 2);
	assert_string_equal(k->heuristics[0].name, "EVEN_N");
	assert_string_equal(k->heuristics[0].expr, "lambda args: args[\"n\"] % args[\"BLOCK\"] == 0");
	assert_string_equal(k->heuristics[1].name, "BLOCK");
	assert_int_equal(k->heuristics_span.line, 15);
	static const char *const p2[] = { "x_ptr", "y_ptr", "n", "alpha", "BLOCK:c", "EVEN_N:c" };
	expect_params(k, p2, N(p2));
	static const op_want o2[] = {
		{ TA_OP_LOAD, 21, -1, 0, TA_PTR_1D, false, false, "x", false, NULL },
		{ TA_OP_LOAD, 23, -1, 0, TA_PTR_1D, true, false, "x", false, NULL },
		{ TA_OP_ATOMIC, 24, -1, 0, 0, false, false, NULL, false, NULL },
	};
	expect_ops(k, o2, N(o2));

	static const launch_want launches[] = {
		{ "scale_kernel", "scale_kernel", 29, TA_GRID_TUPLE, 1, "tr.cdiv(n, 256)", false, "run", 0, 0 },
		{ "axpy_kernel", "axpy_kernel", 30, TA_GRID_LAMBDA, 1, NULL, true, "run", 0, 0 },
	};
	expect_launches(m, launches, N(launches));
	static const host_want run_ops[] = { { TA_HOST_CDIV, 29, NULL }, { TA_HOST_CDIV, 30, NULL } };
	const ta_host *h = host(m, "run");
	expect_host_ops(h, run_ops, N(run_ops));
	assert_string_equal(h->ops[0].callee, "triton.cdiv");   /* through `import triton as tr` */
	ta_analysis_free(a);
}

typedef struct autotune_want {
	const char *kernel;
	ta_configs_kind kind;
	size_t configs;
	const char *varies;
	const char *key;
	bool prune, pre_hook, capability;
	const char *function;
} autotune_want;

static void test_autotune_forms(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("autotune_forms.py");
	const ta_model *m = a->model;
	assert_int_equal(m->kernel_count, 4);
	static const autotune_want want[] = {
		{ "literal_kernel", TA_CONFIGS_LIST, 3, "BLOCK,num_warps", "n", true, true, false, NULL },
		{ "comprehension_kernel", TA_CONFIGS_COMPREHENSION, 1, "BLOCK,num_warps", "n,m",
		  false, false, false, NULL },
		/* pre_hook=None is no hook */
		{ "function_kernel", TA_CONFIGS_FUNCTION, 2, "BLOCK_M,BLOCK_N,num_stages,num_warps", "M,N",
		  false, false, true, "get_configs" },
		{ "variable_kernel", TA_CONFIGS_NAME, 2, "num_warps", "n", false, false, false, NULL },
	};
	for (size_t i = 0; i < N(want); i++) {
		const ta_kernel *k = kernel(m, want[i].kernel);
		const ta_autotune *at = k->autotune;
		assert_non_null(at);
		assert_int_equal(at->configs_kind, want[i].kind);
		assert_int_equal(at->config_count, want[i].configs);
		expect_set(at->varies, at->vary_count, want[i].varies);
		expect_set(at->key, at->key_count, want[i].key);
		assert_int_equal(at->has_prune, want[i].prune);
		assert_int_equal(at->has_pre_hook, want[i].pre_hook);
		assert_int_equal(at->branches_on_capability, want[i].capability);
		if (want[i].function)
			assert_string_equal(at->configs_function, want[i].function);
		else
			assert_null(at->configs_function);
		assert_int_equal(k->launch_count, 1);
		assert_int_equal(m->launches[i].kernel, (int)(k - m->kernels));
		assert_true(m->launches[i].grid_uses_meta);
	}
	const ta_autotune *at = kernel(m, "literal_kernel")->autotune;
	assert_int_equal(at->span.line, 15);
	assert_int_equal(at->configs_span.line, 16);
	assert_int_equal(at->key_span.line, 21);
	assert_int_equal(at->prune_span.line, 22);
	assert_int_equal(at->configs[0].span.line, 17);
	assert_int_equal(at->configs[0].param_count, 1);
	assert_string_equal(at->configs[0].params[0].name, "BLOCK");
	assert_string_equal(at->configs[0].params[0].value, "128");
	expect_kwarg(at->configs[2].options, at->configs[2].option_count, "num_warps", "8");
	expect_kwarg(at->configs[2].options, at->configs[2].option_count, "pre_hook", "_zero_out");
	assert_int_equal(at->kwarg_count, 3);

	/* The comprehension's one literal Config is the template of the sweep. */
	at = kernel(m, "comprehension_kernel")->autotune;
	assert_string_equal(at->configs[0].params[0].value, "b");
	expect_kwarg(at->configs[0].options, at->configs[0].option_count, "num_warps", "w");

	/* Both branches of get_configs() are read. */
	at = kernel(m, "function_kernel")->autotune;
	assert_int_equal(at->configs[0].span.line, 42);
	assert_int_equal(at->configs[1].span.line, 45);
	assert_string_equal(at->configs[1].params[0].value, "bm");

	/* Positional configs and a module variable: Config(kwargs, num_warps=...). */
	at = kernel(m, "variable_kernel")->autotune;
	assert_int_equal(at->configs_span.line, 63);
	assert_int_equal(at->configs[0].span.line, 58);
	expect_kwarg(at->configs[1].options, at->configs[1].option_count, "num_stages", "1");

	static const host_want cfg_ops[] = { { TA_HOST_CAPABILITY, 41, NULL } };
	expect_host_ops(host(m, "get_configs"), cfg_ops, N(cfg_ops));
	/* _prune and _zero_out are plain host functions: no kernels. */
	assert_int_equal(ta_model_find_kernel(m, "_prune"), -1);
	assert_int_equal(ta_model_find_kernel(m, "_zero_out"), -1);
	ta_analysis_free(a);
}

static void test_matmul_styles(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("matmul_styles.py");
	const ta_model *m = a->model;
	assert_int_equal(m->kernel_count, 3);

	const ta_kernel *fma = kernel(m, "_fma");
	assert_true(fma->is_helper);
	assert_int_equal(fma->launch_count, 0);
	static const op_want fo[] = { { TA_OP_DOT, 10, -1, 0, 0, false, true, NULL, false, NULL } };
	expect_ops(fma, fo, N(fo));
	expect_kwarg(fma->ops[0].kwargs, fma->ops[0].kwarg_count, "acc", "acc");

	const ta_kernel *k = kernel(m, "matmul_kernel");
	assert_int_equal(k->span.line, 13);
	assert_int_equal(k->span.end_line, 33);
	assert_int_equal(k->param_count, 16);
	assert_true(ta_kernel_param(k, "BLOCK_K")->constexpr_);
	assert_false(ta_kernel_param(k, "stride_am")->constexpr_);
	assert_string_equal(ta_kernel_param(k, "NUM_STAGES")->default_value, "3");
	static const loop_want ml[] = { { TA_LOOP_TL_RANGE, 26, 1, -1, "k" } };
	expect_loops(k, ml, N(ml));
	expect_kwarg(k->loops[0].kwargs, k->loops[0].kwarg_count, "num_stages", "NUM_STAGES");
	expect_kwarg(k->loops[0].kwargs, k->loops[0].kwarg_count, "loop_unroll_factor", "2");
	assert_int_equal(k->loops[0].arg_count, 2);
	assert_string_equal(k->loops[0].args[1], "tl.cdiv(K, BLOCK_K)");
	assert_int_equal(k->loops[0].header.line, 26);
	assert_int_equal(k->loops[0].span.end_line, 31);
	static const op_want mo[] = {
		/* pointers built before the loop and advanced inside keep their 2D shape */
		{ TA_OP_LOAD, 27, 0, 1, TA_PTR_2D, true, false, "a", false, NULL },
		{ TA_OP_LOAD, 28, 0, 1, TA_PTR_2D, true, false, "b", false, NULL },
		{ TA_OP_DOT, 29, 0, 1, 0, false, false, "acc", false, NULL },
		{ TA_OP_STORE, 33, -1, 0, TA_PTR_2D, true, false, NULL, false, NULL },
	};
	expect_ops(k, mo, N(mo));
	for (size_t i = 0; i < k->op_count; i++) {
		if (k->ops[i].kind == TA_OP_DOT)
			assert_true(k->ops[i].augmented);   /* acc += tl.dot(a, b) */
		if (k->ops[i].kind == TA_OP_LOAD)
			assert_int_equal(k->ops[i].ptr_rank, 2);
	}

	k = kernel(m, "nested_kernel");
	static const char *const aliases[] = { "fn" };
	expect_strv(k->aliases, k->alias_count, aliases, 1);
	assert_false(k->wrapped);
	static const loop_want nl[] = {
		{ TA_LOOP_RANGE, 42, 1, -1, "i" },
		{ TA_LOOP_STATIC_RANGE, 43, 2, 0, "r" },
		{ TA_LOOP_WHILE, 50, 3, 1, NULL },
	};
	expect_loops(k, nl, N(nl));
	assert_int_equal(k->loops[0].arg_count, 3);
	static const op_want no[] = {
		{ TA_OP_LOAD, 39, -1, 0, TA_PTR_1D, false, false, "rows", false, NULL },
		/* rows come from memory: a gather */
		{ TA_OP_LOAD, 44, 1, 2, TA_PTR_2D, false, false, "x", true, NULL },
		{ TA_OP_LOAD, 45, 1, 2, TA_PTR_2D, false, false, "w", false, NULL },
		{ TA_OP_DOT, 46, 1, 2, 0, false, true, "acc", false, NULL },
		{ TA_OP_TRANS, 46, 1, 2, 0, false, false, NULL, false, NULL },
		{ TA_OP_DOT, 47, 1, 2, 0, false, true, "acc", false, NULL },
		{ TA_OP_TRANS, 47, 1, 2, 0, false, false, NULL, false, "w" },
		{ TA_OP_HELPER_CALL, 48, 1, 2, 0, false, false, "acc", false, NULL },
		{ TA_OP_PERMUTE, 48, 1, 2, 0, false, false, NULL, false, NULL },
		/* the old API is modelled as written */
		{ TA_OP_DOT, 51, 2, 3, 0, false, false, "acc", false, NULL },
		{ TA_OP_STORE, 53, -1, 0, TA_PTR_1D, false, false, NULL, false, NULL },
	};
	expect_ops(k, no, N(no));
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind == TA_OP_HELPER_CALL) {
			assert_int_equal(op->helper, (int)(fma - m->kernels));
			assert_string_equal(op->callee, "_fma");
		}
		if (op->kind == TA_OP_DOT && op->span.line == 51)
			expect_kwarg(op->kwargs, op->kwarg_count, "trans_b", "True");
		if (op->kind == TA_OP_TRANS && op->span.line == 47)
			assert_string_equal(op->callee, ".T");
	}

	static const launch_want launches[] = {
		{ "matmul_kernel", "matmul_kernel", 61, TA_GRID_LAMBDA, 2, "triton.cdiv(M, META[\"BLOCK_M\"])",
		  true, "matmul", 0, 5 },
		{ "nested_kernel", "nested_kernel", 74, TA_GRID_FUNCTION, 2, "triton.cdiv(1024, meta[\"BLOCK\"])",
		  true, "run_nested", 0, 2 },
		{ "nested_kernel", "nested_kernel", 75, TA_GRID_TUPLE, 2, "4", false, "run_nested", 0, 2 },
		{ "nested_kernel", "nested_kernel", 76, TA_GRID_TUPLE, 2, "4", false, "run_nested", 0, 2 },
		{ "nested_kernel", "fn", 78, TA_GRID_TUPLE, 1, "N", false, "run_nested", 0, 2 },
		{ "nested_kernel", "torch.library.wrap_triton(nested_kernel)", 79, TA_GRID_TUPLE, 1, "N // 32",
		  false, "run_nested", 0, 2 },
		{ "nested_kernel", "nested_kernel", 82, TA_GRID_TUPLE, 1, "t.shape[0]", false, "run_nested", 1, 2 },
	};
	expect_launches(m, launches, N(launches));
	assert_string_equal(m->launches[2].grid_dim_text[1], "8");
	assert_string_equal(m->launches[3].grid_dim_text[1], "8");
	assert_int_equal(m->launches[1].grid_def_span.line, 68);
	const ta_launch *l = &m->launches[6];
	assert_string_equal(l->loop_var, "t");
	assert_string_equal(l->loop_iter, "tensors");
	assert_int_equal(l->loop_span.line, 80);
	assert_int_equal(kernel(m, "nested_kernel")->launch_count, 6);

	static const host_want mm_ops[] = {
		{ TA_HOST_ALLOC, 59, "c" }, { TA_HOST_CDIV, 60, NULL }, { TA_HOST_CDIV, 60, NULL },
	};
	expect_host_ops(host(m, "matmul"), mm_ops, N(mm_ops));
	assert_true(host(m, "matmul")->ops[0].has_device);
	static const host_want run_ops[] = { { TA_HOST_CONTIGUOUS, 81, "t" } };
	const ta_host *h = host(m, "run_nested");
	expect_host_ops(h, run_ops, N(run_ops));
	assert_int_equal(h->ops[0].loop_depth, 1);
	assert_int_equal(h->launch_count, 6);
	ta_analysis_free(a);
}

static void test_descriptors(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("descriptors.py");
	const ta_model *m = a->model;
	assert_int_equal(m->kernel_count, 3);
	assert_string_equal(import_target(m, "TensorDescriptor"),
			    "triton.tools.tensor_descriptor.TensorDescriptor");

	const ta_kernel *k = kernel(m, "block_ptr_kernel");
	static const loop_want bl[] = { { TA_LOOP_RANGE, 13, 1, -1, "_" } };
	expect_loops(k, bl, N(bl));
	static const op_want bo[] = {
		{ TA_OP_MAKE_BLOCK_PTR, 10, -1, 0, 0, false, false, "a_block", false, NULL },
		/* boundary_check is not a mask */
		{ TA_OP_LOAD, 14, 0, 1, TA_PTR_BLOCK_PTR, false, false, "a", false, NULL },
		{ TA_OP_STORE, 15, 0, 1, TA_PTR_BLOCK_PTR, false, false, NULL, false, NULL },
		{ TA_OP_ADVANCE, 16, 0, 1, 0, false, false, "a_block", false, NULL },
	};
	expect_ops(k, bo, N(bo));

	k = kernel(m, "device_desc_kernel");
	static const op_want dop[] = {
		{ TA_OP_MAKE_DESCRIPTOR, 21, -1, 0, 0, false, false, "desc", false, NULL },
		{ TA_OP_DESC_LOAD, 25, 0, 1, 0, false, false, "tile", false, "desc" },
		{ TA_OP_DESC_STORE, 26, 0, 1, 0, false, false, NULL, false, "desc" },
	};
	expect_ops(k, dop, N(dop));
	expect_kwarg(k->ops[0].kwargs, k->ops[0].kwarg_count, "block_shape", "[BLOCK_M, BLOCK_K]");

	k = kernel(m, "host_desc_kernel");
	static const op_want ho[] = {
		{ TA_OP_DESC_STORE, 32, -1, 0, 0, false, false, NULL, false, "out_desc" },
		{ TA_OP_DESC_LOAD, 32, -1, 0, 0, false, false, NULL, false, "in_desc" },
	};
	expect_ops(k, ho, N(ho));

	static const launch_want launches[] = {
		{ "block_ptr_kernel", "block_ptr_kernel", 42, TA_GRID_TUPLE, 1, "triton.cdiv(M, 64)", false, "run", 0, 2 },
		{ "device_desc_kernel", "device_desc_kernel", 43, TA_GRID_TUPLE, 1, NULL, false, "run", 0, 2 },
		{ "host_desc_kernel", "host_desc_kernel", 46, TA_GRID_TUPLE, 1, NULL, false, "run", 0, 1 },
	};
	expect_launches(m, launches, N(launches));

	static const host_want run_ops[] = {
		{ TA_HOST_SET_ALLOCATOR, 41, NULL }, { TA_HOST_CDIV, 42, NULL }, { TA_HOST_CDIV, 43, NULL },
		{ TA_HOST_TENSOR_DESCRIPTOR, 44, "in_desc" }, { TA_HOST_TENSOR_DESCRIPTOR, 45, "out_desc" },
		{ TA_HOST_CDIV, 46, NULL },
	};
	expect_host_ops(host(m, "run"), run_ops, N(run_ops));
	static const host_want alloc_ops[] = { { TA_HOST_ALLOC, 36, NULL } };
	expect_host_ops(host(m, "alloc_fn"), alloc_ops, N(alloc_ops));
	assert_true(host(m, "alloc_fn")->ops[0].has_device);
	ta_analysis_free(a);
}

static void test_wrapped(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("wrapped.py");
	const ta_model *m = a->model;
	assert_int_equal(m->kernel_count, 2);
	const ta_kernel *k = kernel(m, "copy_kernel");
	assert_string_equal(k->name, "_copy");
	assert_int_equal(ta_model_find_kernel(m, "_copy"), (int)(k - m->kernels));
	assert_true(k->wrapped);
	static const char *const a1[] = { "copy_kernel" };
	expect_strv(k->aliases, k->alias_count, a1, 1);
	assert_non_null(k->autotune);
	assert_int_equal(k->autotune->configs_kind, TA_CONFIGS_LIST);
	assert_int_equal(k->autotune->config_count, 2);
	assert_int_equal(k->autotune->span.line, 16);
	expect_set(k->autotune->varies, k->autotune->vary_count, "BLOCK");
	expect_set(k->autotune->key, k->autotune->key_count, "n");
	static const char *const p1[] = { "src_ptr", "dst_ptr", "n", "BLOCK:c" };
	expect_params(k, p1, N(p1));
	static const op_want o1[] = {
		{ TA_OP_STORE, 8, -1, 0, TA_PTR_1D, true, false, NULL, false, NULL },
		{ TA_OP_LOAD, 8, -1, 0, TA_PTR_1D, true, false, NULL, false, NULL },
	};
	expect_ops(k, o1, N(o1));

	k = kernel(m, "fill_kernel");
	assert_string_equal(k->name, "_fill");
	assert_true(k->wrapped);
	assert_null(k->autotune);
	assert_int_equal(k->heuristic_count, 1);
	assert_string_equal(k->heuristics[0].name, "BLOCK");
	assert_string_equal(k->heuristics[0].expr, "lambda args: 512");

	static const launch_want launches[] = {
		{ "_copy", "copy_kernel", 26, TA_GRID_LAMBDA, 1, NULL, true, "copy", 0, 0 },
		{ "_fill", "fill_kernel", 27, TA_GRID_TUPLE, 1, "triton.cdiv(n, 512)", false, "copy", 0, 0 },
	};
	expect_launches(m, launches, N(launches));
	ta_analysis_free(a);
}

static void test_crlf_bom_tabs(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("crlf_bom_tabs.py");
	const ta_model *m = a->model;
	assert_true(a->src->had_bom);
	assert_true(a->src->crlf);
	assert_int_equal(a->src->line_count, 17);
	assert_int_equal(a->syn->error_count, 0);
	assert_int_equal(m->kernel_count, 1);
	const ta_kernel *k = kernel(m, "\xc3\xa9" "chelle_kernel");
	assert_int_equal(k->span.line, 6);
	assert_int_equal(k->span.end_line, 12);
	assert_string_equal(k->indent, "\t");
	static const char *const params[] = { "x_ptr", "n", "facteur", "BLOCK:c" };
	expect_params(k, params, N(params));
	static const loop_want loops[] = { { TA_LOOP_RANGE, 10, 1, -1, "\xc3\xa9tape" } };
	expect_loops(k, loops, N(loops));
	static const op_want ops[] = {
		/* inside an expression: no target */
		{ TA_OP_PROGRAM_ID, 9, -1, 0, 0, false, false, NULL, false, NULL },
		{ TA_OP_LOAD, 11, 0, 1, TA_PTR_1D, true, false, "valeur", false, NULL },
		{ TA_OP_STORE, 12, 0, 1, TA_PTR_1D, true, false, NULL, false, NULL },
	};
	expect_ops(k, ops, N(ops));
	/* Columns count code points: "\tdécalage = " is 12 of them (13 bytes). */
	assert_int_equal(k->ops[0].span.col, 13);
	assert_int_equal(k->ops[2].span.col, 12);
	static const launch_want launches[] = {
		{ "\xc3\xa9" "chelle_kernel", "\xc3\xa9" "chelle_kernel", 17, TA_GRID_TUPLE, 1,
		  "triton.cdiv(n, 256)", false, "lance", 0, 1 },
	};
	expect_launches(m, launches, N(launches));
	ta_analysis_free(a);
}

/* The same file with other line endings, a BOM or tabs gives the same model
 * (the same lines; the same columns unless indentation changed). */
static char *model_signature(const ta_model *m, bool cols)
{
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < m->kernel_count; i++) {
		const ta_kernel *k = &m->kernels[i];
		ta_buf_printf(&b, "K %s %u-%u %zu\n", k->name, k->span.line, k->span.end_line, k->param_count);
		for (size_t j = 0; j < k->op_count; j++)
			ta_buf_printf(&b, " op %d %u:%u %d %d %d %s\n", k->ops[j].kind, k->ops[j].span.line,
				      cols ? k->ops[j].span.col : 0, k->ops[j].loop, k->ops[j].ptr_shape,
				      k->ops[j].has_mask, k->ops[j].target ? k->ops[j].target : "-");
		for (size_t j = 0; j < k->loop_count; j++)
			ta_buf_printf(&b, " loop %d %u %d\n", k->loops[j].kind, k->loops[j].span.line, k->loops[j].depth);
	}
	for (size_t i = 0; i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		ta_buf_printf(&b, "L %d %u %d %d %d %zu\n", l->kernel, l->span.line, l->grid_kind, l->grid_dims,
			      l->grid_uses_meta, l->kwarg_count);
	}
	for (size_t i = 0; i < m->host_count; i++)
		for (size_t j = 0; j < m->hosts[i].op_count; j++)
			ta_buf_printf(&b, "H %s %d %u\n", m->hosts[i].name, m->hosts[i].ops[j].kind,
				      m->hosts[i].ops[j].span.line);
	return ta_buf_steal(&b);
}

static char *read_fixture(const char *name, size_t *len)
{
	char *path = ta_test_fixture("model", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	ta_buf b = TA_BUF_INIT;
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		ta_buf_append(&b, chunk, n);
	fclose(f);
	free(path);
	*len = b.len;
	return ta_buf_steal(&b);
}

static char *analyse_signature(const char *name, const char *bytes, size_t len, bool cols)
{
	ta_analysis *a;
	char *err = NULL;
	assert_int_equal(ta_analysis_from_bytes(name, bytes, len, &a, &err), 0);
	assert_int_equal(a->syn->error_count, 0);
	char *sig = model_signature(a->model, cols);
	ta_analysis_free(a);
	return sig;
}

static void test_line_endings_bom_tabs_same_model(void **state)
{
	(void)state;
	static const char *const files[] = { "basic.py", "matmul_styles.py", "autotune_forms.py" };
	for (size_t f = 0; f < N(files); f++) {
		size_t len;
		char *lf = read_fixture(files[f], &len);
		char *want = analyse_signature(files[f], lf, len, true);
		char *want_nocol = analyse_signature(files[f], lf, len, false);
		ta_buf crlf = TA_BUF_INIT, bom = TA_BUF_INIT, tabs = TA_BUF_INIT;
		ta_buf_puts(&bom, "\xEF\xBB\xBF");
		ta_buf_append(&bom, lf, len);
		for (size_t i = 0; i < len; i++) {
			if (lf[i] == '\n')
				ta_buf_putc(&crlf, '\r');
			ta_buf_putc(&crlf, lf[i]);
		}
		bool bol = true;
		for (size_t i = 0; i < len; i++) {
			/* Leading runs of four spaces become tabs. */
			if (bol && i + 4 <= len && !memcmp(lf + i, "    ", 4)) {
				ta_buf_putc(&tabs, '\t');
				i += 3;
				continue;
			}
			bol = lf[i] == '\n';
			ta_buf_putc(&tabs, lf[i]);
		}
		char *got = analyse_signature("crlf", crlf.data, crlf.len, true);
		assert_string_equal(got, want);
		free(got);
		got = analyse_signature("bom", bom.data, bom.len, true);
		assert_string_equal(got, want);
		free(got);
		got = analyse_signature("tabs", tabs.data, tabs.len, false);
		assert_string_equal(got, want_nocol);
		free(got);
		ta_buf_free(&crlf);
		ta_buf_free(&bom);
		ta_buf_free(&tabs);
		free(want);
		free(want_nocol);
		free(lf);
	}
}

static void test_syntax_errors(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("syntax_errors.py");
	const ta_model *m = a->model;
	/* Each broken region is reported once, by line; the rest is modelled. */
	assert_int_equal(a->syn->error_count, 3);
	static const size_t lines[] = { 13, 21, 27 };
	for (size_t i = 0; i < N(lines); i++) {
		assert_int_equal(a->syn->errors[i].line, lines[i]);
		assert_true(a->syn->errors[i].column >= 1);
		assert_non_null(a->syn->errors[i].what);
		assert_true(strlen(a->syn->errors[i].what) > 0);
	}
	assert_int_equal(m->kernel_count, 2);
	const ta_kernel *k = kernel(m, "good_kernel");
	assert_int_equal(k->span.line, 6);
	static const op_want go[] = {
		{ TA_OP_STORE, 9, -1, 0, TA_PTR_1D, true, false, NULL, false, NULL },
		{ TA_OP_LOAD, 9, -1, 0, TA_PTR_1D, true, false, NULL, false, NULL },
	};
	expect_ops(k, go, N(go));
	k = kernel(m, "after_kernel");
	assert_int_equal(k->span.line, 17);
	static const launch_want launches[] = {
		{ "good_kernel", "good_kernel", 25, TA_GRID_TUPLE, 1, NULL, false, "run", 0, 1 },
		{ "after_kernel", "after_kernel", 26, TA_GRID_TUPLE, 1, "1", false, "run", 0, 1 },
	};
	expect_launches(m, launches, N(launches));
	ta_analysis_free(a);
}

static void test_no_kernels(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("no_kernels.py");
	assert_int_equal(a->syn->error_count, 0);
	assert_int_equal(a->model->kernel_count, 0);
	assert_int_equal(a->model->launch_count, 0);
	assert_false(a->model->imports_triton);
	assert_int_equal(ta_model_find_kernel(a->model, "softmax"), -1);
	ta_analysis_free(a);
}

/* A name bound by jit elsewhere (numba, a local decorator) is not a kernel
 * unless the file imports triton; triton.jit through any alias is. */
static void test_jit_needs_triton(void **state)
{
	(void)state;
	static const char no_triton[] =
		"from numba import jit\n\n@jit\ndef f(x):\n    return x + 1\n";
	ta_analysis *a;
	char *err;
	assert_int_equal(ta_analysis_from_bytes("numba.py", no_triton, sizeof no_triton - 1, &a, &err), 0);
	assert_int_equal(a->model->kernel_count, 0);
	ta_analysis_free(a);

	static const char runtime[] =
		"import triton.runtime.jit as rj\nimport triton.language as tl\n\n"
		"@rj.jit\ndef k(x_ptr):\n    tl.store(x_ptr, 1)\n";
	assert_int_equal(ta_analysis_from_bytes("rj.py", runtime, sizeof runtime - 1, &a, &err), 0);
	assert_int_equal(a->model->kernel_count, 1);
	assert_int_equal(a->model->kernels[0].ops[0].kind, TA_OP_STORE);
	assert_int_equal(a->model->kernels[0].ops[0].ptr_shape, TA_PTR_SCALAR);
	ta_analysis_free(a);
}

static void test_canonical_names(void **state)
{
	(void)state;
	ta_analysis *a = open_fixture("from_imports.py");
	const ta_kernel *k = kernel(a->model, "scale_kernel");
	/* tl.program_id -> triton.language.program_id through the alias */
	TSNode root = ta_syntax_root(a->syn);
	const ta_op *op = &k->ops[0];
	assert_int_equal(op->kind, TA_OP_PROGRAM_ID);
	TSNode call = ts_node_named_descendant_for_byte_range(root, op->span.start, op->span.end);
	assert_true(ta_node_is(call, "call"));
	char *c = ta_model_canonical(a->model, ta_node_field(call, "function"));
	assert_string_equal(c, "triton.language.program_id");
	free(c);
	/* not a name: NULL */
	assert_null(ta_model_canonical(a->model, call));
	assert_true(ta_name_is("triton.language.dot", "triton.language.dot"));
	assert_false(ta_name_is(NULL, "triton.language.dot"));
	assert_string_equal(ta_op_kind_name(TA_OP_DESC_LOAD), "descriptor load");
	assert_string_equal(ta_op_kind_name(TA_OP__COUNT), "?");
	assert_string_equal(ta_host_kind_name(TA_HOST__COUNT), "?");
	assert_string_equal(ta_loop_kind_name(TA_LOOP_STATIC_RANGE), "tl.static_range");
	assert_string_equal(ta_grid_kind_name(TA_GRID_FUNCTION), "function");
	assert_string_equal(ta_ptr_shape_name(TA_PTR_2D), "2D");
	ta_analysis_free(a);
}

/* ---- hostile inputs --------------------------------------------------------- */

/* Analyses bytes and checks that the model is built. How long it takes
 * against the parse is measured by tests/bench/hostile.sh on these same
 * files: a timed bound here failed under ASan on a loaded machine. */
static ta_analysis *analyse(const char *name, const char *bytes, size_t len)
{
	ta_analysis *a = NULL;
	char *err = NULL;
	int rc = ta_analysis_from_bytes(name, bytes, len, &a, &err);
	if (rc != 0)
		print_error("%s: %s\n", name, err);
	assert_int_equal(rc, 0);
	assert_non_null(a->model);
	return a;
}

static void test_hostile_nested_parens(void **state)
{
	(void)state;
	const int depth = 10000;
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "import triton\nimport triton.language as tl\n\n@triton.jit\n"
			"def k(x_ptr, BLOCK: tl.constexpr):\n    offs = ");
	for (int i = 0; i < depth; i++)
		ta_buf_putc(&b, '(');
	ta_buf_puts(&b, "tl.arange(0, BLOCK)");
	for (int i = 0; i < depth; i++)
		ta_buf_putc(&b, ')');
	ta_buf_puts(&b, "\n    tl.store(x_ptr + offs, 1.0)\n\nk[(1,)](None, BLOCK=16)\n");
	ta_analysis *a = analyse("parens.py", b.data, b.len);
	assert_int_equal(a->model->kernel_count, 1);
	assert_int_equal(a->model->launch_count, 1);
	ta_analysis_free(a);
	ta_buf_free(&b);
}

static void test_hostile_long_line(void **state)
{
	(void)state;
	/* One line just under the 16 MiB limit: a 15 MiB string, then host calls
	 * whose columns are all computed past it on that same line. */
	static const char stmt[] = "a = torch.empty(8, device=d); b = a.contiguous(); ";
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "import torch\ns = '");
	size_t limit = TA_SOURCE_MAX_BYTES - 64;
	while (b.len < ((size_t)15 << 20))
		ta_buf_puts(&b, "abcdefghijklmnopqrstuvwxyz \xc3\xa9t\xc3\xa9 0123456789");
	ta_buf_puts(&b, "'; ");
	size_t stmts = 0;
	while (b.len + sizeof stmt < limit) {
		ta_buf_puts(&b, stmt);
		stmts++;
	}
	ta_buf_puts(&b, "c = 1\n");
	assert_true(b.len <= TA_SOURCE_MAX_BYTES);
	ta_analysis *a = analyse("long_line.py", b.data, b.len);
	assert_int_equal(a->src->line_count, 2);
	assert_int_equal(a->model->kernel_count, 0);
	const ta_host *h = host(a->model, "<module>");
	assert_int_equal(h->op_count, 2 * stmts);
	/* The last op's column in code points: bytes on line 2 less one per é. */
	const ta_host_op *last = &h->ops[h->op_count - 1];
	size_t line2 = 13, accents = 0;
	for (size_t i = line2; i < last->span.start; i++)
		accents += (unsigned char)b.data[i] == 0xc3;
	assert_int_equal(last->span.col, last->span.start - line2 - accents + 1);
	ta_analysis_free(a);
	ta_buf_free(&b);
}

static void test_hostile_many_kernels(void **state)
{
	(void)state;
	const int count = 10000;
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "import torch\nimport triton\nimport triton.language as tl\n\n");
	for (int i = 0; i < count; i++)
		ta_buf_printf(&b,
			      "@triton.jit\ndef k%d(x_ptr, n, BLOCK: tl.constexpr):\n"
			      "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
			      "    for i in range(4):\n"
			      "        tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n\n"
			      "def run%d(x):\n    grid = lambda meta: (triton.cdiv(x.numel(), meta['BLOCK']),)\n"
			      "    k%d[grid](x, x.numel(), BLOCK=128)\n\n"
			      "grid = (%d,)\nk%d[grid](None, 0, BLOCK=64)\n\n",
			      i, i, i, i + 1, i);
	ta_analysis *a = analyse("many.py", b.data, b.len);
	const ta_model *m = a->model;
	assert_int_equal(m->kernel_count, (size_t)count);
	assert_int_equal(m->launch_count, (size_t)count * 2);
	for (int i = 0; i < count; i += 997) {
		char name[32];
		snprintf(name, sizeof name, "k%d", i);
		const ta_kernel *k = kernel(m, name);
		assert_int_equal(k->launch_count, 2);
		assert_int_equal(k->loop_count, 1);
		assert_int_equal(k->ops[k->op_count - 1].ptr_shape, TA_PTR_1D);
	}
	/* Module-level grids resolve to the binding before each launch. */
	const ta_launch *l = &m->launches[2 * (count - 1) + 1];
	assert_int_equal(l->grid_kind, TA_GRID_TUPLE);
	char want[32];
	snprintf(want, sizeof want, "%d", count);
	assert_string_equal(l->grid_dim_text[0], want);
	ta_analysis_free(a);
	ta_buf_free(&b);
}

static int teardown_all(void **state)
{
	(void)state;
	ta_model_shutdown();
	return 0;
}

int main(void)
{
	ta_test_use_srcdir_data();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_from_imports),
		cmocka_unit_test(test_autotune_forms),
		cmocka_unit_test(test_matmul_styles),
		cmocka_unit_test(test_descriptors),
		cmocka_unit_test(test_wrapped),
		cmocka_unit_test(test_crlf_bom_tabs),
		cmocka_unit_test(test_line_endings_bom_tabs_same_model),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_no_kernels),
		cmocka_unit_test(test_jit_needs_triton),
		cmocka_unit_test(test_canonical_names),
		cmocka_unit_test(test_hostile_nested_parens),
		cmocka_unit_test(test_hostile_long_line),
		cmocka_unit_test(test_hostile_many_kernels),
		cmocka_unit_test(test_document_order),
	};
	return cmocka_run_group_tests_name("model", tests, NULL, teardown_all);
}
