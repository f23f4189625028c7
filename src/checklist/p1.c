/* P1: Autotune breadth and per-GPU configs. Its detector and its rewrite. */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"
#include "util/text.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* defined with the tiles, below */
static uint32_t p1_random_follows(const ta_model *m, const ta_kernel *k, const char *name);

/* What every P1 edit assumes; the rewrite's statement adds the GPU
 * generation branch's (NVIDIA, CUDA started at import), which an edit
 * without that branch (the author's pins leave nothing per GPU) lacks. */
#define P1_ASSUMES_WRITES "assumes the kernel writes nothing the tuner's trial launches leave changed (its in-place arguments are named in restore_value)"
#define P1_ASSUMES_TUNING P1_ASSUMES_WRITES ", that its configs differ in rounding only"
#define P1_ASSUMES_TUNING_ONLY P1_ASSUMES_WRITES " and that its configs differ in rounding only"

#define P1_ASSUMES_BRANCH P1_ASSUMES_TUNING ", that it runs on NVIDIA GPUs (the configs follow CUDA's compute capability, which ROCm reports as its gfx version), and that CUDA may start when the module is imported (its configs function calls torch.cuda.get_device_capability() as the decorator runs; a process that forks workers after importing it cannot use CUDA in them)"
/* A plain store through a pointer the kernel loads from a table: each
 * config's trial stores the same values again, unless the kernel reads
 * what it stores (nothing can check which tensors the table points at). */
#define P1_ASSUMES_TABLE_STORE "; it also assumes that what it stores at line %u, through a pointer it loads from memory, is nothing it reads (each config tried stores there again)"

#define P1_CUDA_BRANCH "a torch.cuda.get_device_capability() branch does not fit it: write its configs per back-end by hand"

static bool is_tile_param(const ta_param *p)
{
	if (!p->constexpr_)
		return false;
	return strncasecmp(p->name, "BLOCK", 5) == 0 || strstr(p->name, "_BLOCK") ||
	       strncasecmp(p->name, "TILE", 4) == 0 || strstr(p->name, "_SIZE") != NULL;
}

/* Whether k gives a block or its loop the size `name`: a tl.arange,
 * tl.zeros, tl.full, reshape or broadcast, block pointer or descriptor, a
 * descriptor's load or store, or a @jit helper reads it, or a loop's range
 * does (through the kernel's names: `end = min(start + BLOCK_M, n)`). A
 * BLOCK read only as a number (a chunk's decay `tl.exp(-s * BLOCK)`, the
 * offset of a chunk other kernels of the pipeline share) is the
 * algorithm's length, not a tile one kernel can tune. */
static bool p1_sizes_something(const ta_model *m, const ta_kernel *k, const char *name)
{
	for (size_t i = 0; i < k->loop_count; i++)
		if (ta_values_reads(m, ta_edits_node(m, k->loops[i].iter), name))
			return true;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		switch (op->kind) {
		case TA_OP_ARANGE:
		case TA_OP_ZEROS:
		case TA_OP_RESHAPE:
		case TA_OP_BROADCAST_TO:
		case TA_OP_MAKE_BLOCK_PTR:
		case TA_OP_MAKE_DESCRIPTOR:
		case TA_OP_DESC_LOAD:
		case TA_OP_DESC_STORE:
		case TA_OP_HELPER_CALL:
		case TA_OP_OTHER:   /* tl.full([BLOCK], ...), tl.view(x, (BLOCK, N)) */
			if (ta_values_reads(m, ta_edits_node(m, op->span), name))
				return true;
			break;
		default:
			break;
		}
	}
	return false;
}

/* The tile-ordering group of a GEMM's program ids (GROUP_SIZE_M, GROUP_M):
 * it sizes no block, but it is a launch choice autotune configs carry. */
static bool is_swizzle_group(const char *name)
{
	if (strncmp(name, "GROUP_", 6))
		return false;
	name += 6;
	if (!strncmp(name, "SIZE_", 5))
		name += 5;
	return (name[0] == 'M' || name[0] == 'N') && name[1] == '\0';
}

/* A constexpr named as a tile (BLOCK_*, *_SIZE, TILE*) that sizes a block
 * or a loop of k, or its program ids' ordering group. */
static bool p1_named_tile(const ta_model *m, const ta_kernel *k, const ta_param *p)
{
	return is_tile_param(p) && (is_swizzle_group(p->name) || p1_sizes_something(m, k, p->name));
}

/* Whether the launch value v is, through the wrapper's names, backward's
 * ctx.NAME: forward chose it, and what forward saved was computed with it
 * (a chunk size, a block the saved statistics were reduced over), so
 * backward's launch has no choice there; warps forward computed and saved
 * are the author's rule. A tile backward computes from a size it reads
 * from ctx (next_power_of_2(ctx.N)) is backward's own. */
static bool p1_saved_by_forward(const ta_model *m, TSNode v)
{
	TSNode n = ta_values_follow_names(m, v);
	if (!ta_node_is(n, "attribute") || !ta_node_text_eq(m->src, ta_node_field(n, "object"), "ctx"))
		return false;
	TSNode fn = ta_node_ancestor(n, "function_definition");
	return !ts_node_is_null(fn) && ta_node_text_eq(m->src, ta_node_field(fn, "name"), "backward");
}

/* How function fn binds name as a parameter: 0 not, 1 without a default
 * (or `**kw`, or a default of None), -1 with another default (a config
 * written out there is fixed). */
static int p1_param_binding_default(const ta_model *m, TSNode fn, const char *name, TSNode *dflt_out);

static int p1_param_binding(const ta_model *m, TSNode fn, const char *name)
{
	TSNode d;
	return p1_param_binding_default(m, fn, name, &d);
}

/* The same, with the default's node in *dflt_out (null when none). */
static int p1_param_binding_default(const ta_model *m, TSNode fn, const char *name, TSNode *dflt_out)
{
	*dflt_out = (TSNode){ 0 };
	TSNode ps = ta_node_field(fn, "parameters");
	for (uint32_t i = 0; i < ta_node_named_count(ps); i++) {
		TSNode p = ta_node_named_child(ps, i), id = p, dflt = { 0 };
		if (ta_node_is(p, "default_parameter") || ta_node_is(p, "typed_default_parameter")) {
			id = ta_node_field(p, "name");
			dflt = ta_node_field(p, "value");
		} else if (ta_node_is(p, "typed_parameter") || ta_node_is(p, "dictionary_splat_pattern")) {
			id = ta_node_named_child(p, 0);
			if (ta_node_is(id, "dictionary_splat_pattern"))
				id = ta_node_named_child(id, 0);
		}
		if (!ta_node_is(id, "identifier") || !ta_node_text_eq(m->src, id, name))
			continue;
		*dflt_out = dflt;
		return ts_node_is_null(dflt) || ta_node_text_eq(m->src, dflt, "None") ? 1 : -1;
	}
	return 0;
}

/* Whether every call of function fn in the file passes a literal for its
 * parameter name (by keyword, or at position pos): the wrapper's callers
 * fix it there. False when the file never calls fn. */
static bool p1_callers_fix(const ta_model *m, TSNode fn, const char *name, int pos)
{
	TSNode fname = ta_node_field(fn, "name");
	if (ts_node_is_null(fname))
		return false;
	uint32_t a = ts_node_start_byte(fname);
	size_t nc;
	const ta_name_call *cs = ta_rule_calls_of(m, m->src->text + a, ts_node_end_byte(fname) - a, &nc);
	size_t calls = 0;
	for (size_t i = 0; i < nc; i++) {
		TSNode args = ta_node_field(cs[i].call, "arguments"), given = { 0 };
		uint32_t na = ta_node_named_count(args);
		int at = 0;
		for (uint32_t j = 0; j < na && ts_node_is_null(given); j++) {
			TSNode x = ta_node_named_child(args, j);
			if (ta_node_is(x, "keyword_argument")) {
				if (ta_node_text_eq(m->src, ta_node_field(x, "name"), name))
					given = ta_node_field(x, "value");
			} else if (ta_node_is(x, "list_splat") || ta_node_is(x, "dictionary_splat")) {
				return false;
			} else if (at++ == pos) {
				given = x;
			}
		}
		long v;
		if (ts_node_is_null(given) || !ta_values_int(m, given, &v))
			return false;
		calls++;
	}
	return calls > 0;
}

/* The place of parameter name among fn's positional parameters, or -1. */
static int p1_param_place(const ta_model *m, TSNode fn, const char *name)
{
	TSNode ps = ta_node_field(fn, "parameters");
	int at = 0;
	for (uint32_t i = 0; i < ta_node_named_count(ps); i++) {
		TSNode p = ta_node_named_child(ps, i);
		if (ta_node_is(p, "keyword_separator") || ta_node_is(p, "list_splat_pattern") ||
		    ta_node_is(p, "dictionary_splat_pattern"))
			return -1;
		TSNode id = ta_node_param_name(p);
		if (!ts_node_is_null(id) && ta_node_text_eq(m->src, id, name))
			return at;
		at++;
	}
	return -1;
}

/* Whether the launch value v is a parameter of the wrapper (bound nowhere
 * else in it) for which every call in the file passes a literal. */
static bool p1_fixed_by_callers(const ta_model *m, TSNode v)
{
	TSNode x = ta_node_unparen(ta_values_follow(m, v));
	TSNode fn = ta_node_is(x, "identifier") ? ta_node_ancestor(x, "function_definition") : (TSNode){ 0 };
	if (ts_node_is_null(fn))
		return false;
	char *name = ta_node_text(m->src, x);
	size_t n = 0;
	ta_values_bindings(m, fn, name, strlen(name), &n);
	bool fixed = n == 0 && p1_param_binding(m, fn, name) != 0 &&
		     p1_callers_fix(m, fn, name, p1_param_place(m, fn, name));
	free(name);
	return fixed;
}

/* Whether the launch value v is a parameter of the wrapper that the
 * caller passes (no default, or None) and the wrapper never binds again
 * (`WINDOW_SIZE=window_size`, `CHUNK=chunk_size`): the caller's value, a
 * window or chunk of the algorithm, not a choice fixed at the launch. */
static bool p1_caller_value(const ta_model *m, TSNode v)
{
	TSNode x = ta_node_unparen(ta_values_follow(m, v));
	/* int(block_size): the caller's value still */
	if (ta_node_is(x, "call") && ta_node_text_eq(m->src, ta_node_field(x, "function"), "int") &&
	    ta_node_named_count(ta_node_field(x, "arguments")) == 1)
		x = ta_node_unparen(ta_values_follow(m, ta_node_named_child(ta_node_field(x, "arguments"), 0)));
	if (!ta_node_is(x, "identifier"))
		return false;
	TSNode fn = ta_node_ancestor(x, "function_definition");
	if (ts_node_is_null(fn))
		return false;
	char *name = ta_node_text(m->src, x);
	size_t n = 0;
	ta_values_bindings(m, fn, name, strlen(name), &n);
	TSNode dflt = { 0 };
	int how = n == 0 ? p1_param_binding_default(m, fn, name, &dflt) : 0;
	/* a default that is no tile (`window_size_left=-1`) leaves the value
	 * to the caller; a power of two there is the author's fixed choice,
	 * and so are literals every caller in the file passes
	 * (`_gemm(x, w, block_size_m=32, num_warps=8)` per decode/prefill) */
	long d;
	bool given = how == 1 || (how == -1 && !(ta_values_int(m, dflt, &d) && d > 0 && !(d & (d - 1))));
	if (given && p1_callers_fix(m, fn, name, p1_param_place(m, fn, name)))
		given = false;
	free(name);
	return given;
}

static bool p1_is_allocation(const ta_model *m, TSNode n)
{
	static const char *const allocs[] = { "empty", "zeros", "ones", "full", NULL };
	for (size_t i = 0; allocs[i]; i++)
		if (ta_call_named(m, n, allocs[i]))
			return true;
	return false;
}

/* `x.flatten()`, `x.view(...)`: the same data as name, another shape. */
static bool p1_view_of(const ta_model *m, TSNode n, const char *name)
{
	static const char *const views[] = { "flatten", "view", "reshape", "squeeze", "unsqueeze", "t",
					     "transpose", "permute", "contiguous", NULL };
	TSNode fn = ta_node_is(n, "call") ? ta_node_field(n, "function") : (TSNode){ 0 };
	if (!ta_node_is(fn, "attribute") || !ta_node_text_eq(m->src, ta_node_field(fn, "object"), name))
		return false;
	for (size_t i = 0; views[i]; i++)
		if (ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), views[i]))
			return true;
	return false;
}

/* Whether the wrapper fn returns the tensor bound by assignment a as it was
 * allocated: its name in a return statement, and every binding of it an
 * allocation or a view of it (not `dq = dq.sum(0)`, a partial result
 * reduced first). */
static bool p1_returned(const ta_model *m, TSNode fn, TSNode a)
{
	TSNode left = ta_node_field(a, "left");
	if (!ta_node_is(left, "identifier"))
		return false;
	char *name = ta_node_text(m->src, left);
	size_t nb = 0;
	const ta_values_binding *b = ta_values_bindings(m, fn, name, strlen(name), &nb);
	for (size_t i = 0; i < nb; i++) {
		TSNode r = ta_node_is(b[i].binding, "assignment") ? ta_node_field(b[i].binding, "right") : (TSNode){ 0 };
		if (!p1_is_allocation(m, ta_node_unparen(r)) && !p1_view_of(m, ta_node_unparen(r), name)) {
			free(name);
			return false;
		}
	}
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fn, "body"));
	do {
		TSNode n = ta_walk_node(&w);
		yes = ta_node_is(n, "return_statement") && ta_node_contains_identifier(m->src, n, name);
	} while (!yes && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	free(name);
	return yes;
}

/* Whether the launch value v, a name in the wrapper, also sizes a tensor
 * the wrapper allocates and returns (`x_scale = torch.empty((cdiv(M,
 * block_m), cdiv(K, block_k)))`, one scale per group of group_size): the
 * tile is the data's layout, a quantisation block the caller's output is
 * shaped by, not a choice the launch fixes. A buffer of partial results
 * the wrapper keeps to itself is sized by a tile that can be tuned. */
static bool p1_sizes_allocation_at(const ta_model *m, TSNode v, bool returned);

static bool p1_sizes_allocation(const ta_model *m, TSNode v)
{
	return p1_sizes_allocation_at(m, v, true);
}

/* Whether the launch value v, a name in the wrapper, sizes any tensor the
 * wrapper allocates, returned or not (`locks = torch.zeros(2 *
 * GROUP_SIZE_M)`, `_dw = torch.empty((GROUP_SIZE_M, N))`): a count of
 * buffers the kernel indexes, which the host fixed before the launch. */
static bool p1_sizes_host_buffer(const ta_model *m, TSNode v)
{
	return p1_sizes_allocation_at(m, v, false);
}

static bool p1_sizes_allocation_at(const ta_model *m, TSNode v, bool returned)
{
	TSNode x = ta_node_unparen(v);
	TSNode fn = ta_node_is(x, "identifier") ? ta_node_ancestor(x, "function_definition") : (TSNode){ 0 };
	if (ts_node_is_null(fn))
		return false;
	char *name = ta_node_text(m->src, x);
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fn, "body"));
	do {
		TSNode n = ta_walk_node(&w);
		bool sized = p1_is_allocation(m, n) && ta_values_reads(m, ta_node_field(n, "arguments"), name);
		TSNode a = sized ? ta_node_parent(n) : (TSNode){ 0 };
		yes = sized && (!returned || (ta_node_is(a, "assignment") && p1_returned(m, fn, a)));
	} while (!yes && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	free(name);
	return yes;
}

/* Whether the launch value v is read from a configuration the wrapper is
 * given or looks up: `run_config["BLOCK_M"]`, `best.kwargs["BLOCK_M"]` or
 * `cfg.num_warps` (through
 * the wrapper's names too), where every binding of run_config in the
 * wrapper is a parameter (`**run_config`, `config=None`) or the result of a
 * call (`run_config = KernelConfig.try_to_get_best_config(M, N, K)`).
 * Such a tile is tuned where the configuration comes from (lightllm's
 * tuned files per GPU and shape), not fixed at the launch; one bound to a
 * dict written out (`cfg = {"BLOCK_M": 64}`, or as a default) is fixed. */
static bool p1_from_given_config(const ta_model *m, TSNode v)
{
	TSNode x = ta_node_unparen(ta_values_follow(m, v)), base = { 0 };
	if (ta_node_is(x, "subscript") && ta_node_is(ta_node_field(x, "subscript"), "string"))
		base = ta_node_field(x, "value");
	else if (ta_node_is(x, "attribute"))
		base = ta_node_field(x, "object");
	/* the configuration object itself: `best.kwargs["BLOCK_M"]` reads best */
	while (ta_node_is(base, "attribute"))
		base = ta_node_field(base, "object");
	TSNode fn = ta_node_is(base, "identifier") ? ta_node_ancestor(base, "function_definition") : (TSNode){ 0 };
	if (ts_node_is_null(fn))
		return false;
	char *name = ta_node_text(m->src, base);
	int given = p1_param_binding(m, fn, name);
	size_t n;
	const ta_values_binding *d = ta_values_bindings(m, fn, name, strlen(name), &n);
	bool looked_up = false, fixed = false;
	for (size_t i = 0; i < n && given >= 0; i++) {
		TSNode r = ta_node_is(d[i].binding, "assignment") && ts_node_eq(ta_node_field(d[i].binding, "left"),
										 d[i].target)
			   ? ta_node_unparen(ta_node_field(d[i].binding, "right")) : (TSNode){ 0 };
		/* `cfg = cfg or lookup(...)` keeps what was given */
		if (ta_node_is(r, "boolean_operator") && ta_node_text_eq(m->src, ta_node_field(r, "operator"), "or") &&
		    ta_node_text_eq(m->src, ta_node_field(r, "left"), name))
			r = ta_node_unparen(ta_node_field(r, "right"));
		/* a call other than dict(...) looks the configuration up */
		if (d[i].mutation || !ta_node_is(r, "call") || ta_call_named(m, r, "dict")) {
			fixed = true;
			break;
		}
		looked_up = true;
	}
	free(name);
	return !fixed && (given > 0 || (given == 0 && looked_up));
}

/* v's value through the wrapper's names, and through a tuple it was
 * unpacked from (`BLOCK, warps = f(n)`: f(n)), without parentheses. */
static TSNode p1_unpacked_value(const ta_model *m, TSNode v)
{
	TSNode x = ta_values_follow(m, v);
	if (ta_node_is(x, "identifier")) {
		TSNode u = ta_values_unpacked(m, x, NULL);
		if (!ts_node_is_null(u))
			x = u;
	}
	return ta_node_unparen(x);
}

/* Whether the launch value v is what a function of the project returns
 * (`BLOCK_SIZE, num_warps = calculate_settings(n)`, `bs = pick_block(n)`):
 * the author's rule for it, kept in a helper (most compute a block that
 * covers the row and warps for it), not a choice fixed at the launch.
 * Triton's, torch's, math's and Python's own functions compute, they do
 * not choose. */
static bool p1_from_helper_at(const ta_model *m, TSNode v, int depth)
{
	TSNode x = p1_unpacked_value(m, v);
	if (!ta_node_is(x, "call") || depth > 3)
		return false;
	/* a helper's value capped or floored (`min(get_next_power_of_2(H),
	 * 4096)`) is still the helper's rule */
	if (ta_call_named(m, x, "min") || ta_call_named(m, x, "max")) {
		TSNode args = ta_node_field(x, "arguments");
		for (uint32_t i = 0; i < ta_node_named_count(args); i++)
			if (p1_from_helper_at(m, ta_node_named_child(args, i), depth + 1))
				return true;
		return false;
	}
	/* a function by its name, or a module's (`utils.pick(n)`); a method of
	 * a value (`q.size(3)`, `x.numel()`) reads the data */
	TSNode f = ta_node_field(x, "function");
	if (ta_node_is(f, "attribute")) {
		TSNode head = f;
		while (ta_node_is(head, "attribute"))
			head = ta_node_field(head, "object");
		char *h = ta_node_is(head, "identifier") ? ta_node_text(m->src, head) : NULL;
		bool module = false;
		for (size_t i = 0; h && i < m->import_count && !module; i++)
			module = !strcmp(m->imports[i].alias, h);
		free(h);
		if (!module)
			return false;
	} else if (!ta_node_is(f, "identifier")) {
		return false;
	}
	char *fn = ta_model_canonical(m, f);
	static const char *const builtins[] = { "min", "max", "int", "len", "round", "abs", "pow", "divmod", "sum",
						"float", "bool", NULL };
	bool helper = fn && strncmp(fn, "triton", 6) && strncmp(fn, "torch", 5) && strncmp(fn, "math.", 5) &&
		      !ta_name_among(fn, builtins) && !strchr(fn, '(');
	free(fn);
	return helper;
}

static bool p1_from_helper(const ta_model *m, TSNode v)
{
	return p1_from_helper_at(m, v, 0);
}

/* A test that asks which GPU runs: a capability or shared-memory query
 * (`major >= 9` with major from torch.cuda.get_device_capability(), fla's
 * check_shared_mem('hopper'), is_hopper()). */
static const char *const p1_gpu_queries[] = {
	"get_device_capability", "get_device_properties", "check_shared_mem", "is_hopper", "is_ampere",
	"is_blackwell", "is_tesla", "is_sm90", "is_sm100", "get_current_target", NULL,
};

static bool p1_gpu_call(const ta_model *m, TSNode n)
{
	if (!ta_node_is(n, "call"))
		return false;
	char *t = ta_node_text(m->src, ta_node_field(n, "function"));
	bool q = false;
	for (size_t i = 0; p1_gpu_queries[i] && !q; i++)
		q = strstr(t, p1_gpu_queries[i]) != NULL;
	free(t);
	return q;
}

static ta_values_step p1_gpu_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *found = ctx;
	if (ta_node_is(n, "identifier")) {
		TSNode u = ta_values_unpacked(m, n, NULL);
		*found = !ts_node_is_null(u) && p1_gpu_call(m, ta_node_unparen(u));
	} else {
		*found = p1_gpu_call(m, n);
	}
	return *found ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

static bool p1_gpu_test(const ta_model *m, TSNode cond)
{
	bool found = false;
	if (!ts_node_is_null(cond))
		ta_values_walk(m, cond, p1_gpu_visit, &found);
	return found;
}

typedef bool (*p1_test)(const ta_model *m, TSNode cond);

/* The statement st lies in an arm of an if (or elif) whose condition
 * passes test. */
static bool p1_in_branch(const ta_model *m, TSNode st, p1_test test)
{
	for (TSNode p = ta_node_parent(st), below = st; !ts_node_is_null(p); below = p, p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition"))
			break;
		if ((ta_node_is(p, "if_statement") || ta_node_is(p, "elif_clause")) &&
		    !ts_node_eq(below, ta_node_field(p, "condition")) && test(m, ta_node_field(p, "condition")))
			return true;
	}
	return false;
}

/* Whether the value x is chosen by a condition test passes: a conditional
 * expression on one (`(128, 3) if major >= 9 else (64, 2)`), or a name
 * every binding of which in the wrapper sits in an arm of an if whose
 * condition passes (`if check_shared_mem('hopper'): BT, num_warps = 128, 8
 * elif ...`) or is such a conditional expression. */
static bool p1_chosen_by(const ta_model *m, TSNode x, p1_test test)
{
	if (ta_node_is(x, "conditional_expression") && ta_node_named_count(x) == 3)
		return test(m, ta_node_named_child(x, 1));
	if (!ta_node_is(x, "identifier"))
		return false;
	TSNode fn = ta_node_ancestor(x, "function_definition");
	if (ts_node_is_null(fn))
		return false;
	char *name = ta_node_text(m->src, x);
	size_t n;
	const ta_values_binding *d = ta_values_bindings(m, fn, name, strlen(name), &n);
	free(name);
	bool all = n > 0;
	for (size_t i = 0; i < n && all; i++) {
		if (p1_in_branch(m, d[i].binding, test))
			continue;
		TSNode r = ta_node_is(d[i].binding, "assignment") ? ta_node_unparen(ta_node_field(d[i].binding, "right"))
								    : (TSNode){ 0 };
		all = ta_node_is(r, "conditional_expression") && ta_node_named_count(r) == 3 &&
		      test(m, ta_node_named_child(r, 1));
	}
	return all;
}

/* Whether the launch value v is chosen per GPU by hand (p1_chosen_by a GPU
 * test, as written at the launch): the author's choice per GPU, not one
 * fixed for all. */
static bool p1_per_gpu(const ta_model *m, TSNode v)
{
	return p1_chosen_by(m, ta_node_unparen(v), p1_gpu_test);
}

/* Whether parameter p of k is a tile: a constexpr named as one that sizes
 * something, or one that bounds a tl.arange of the kernel, whatever its
 * name (`tl.arange(0, BM)`, `tl.arange(0, TILE_Q)`). */
/* Whether a tl.arange of k ends at the value `name`. */
static bool p1_arange_bound(const ta_model *m, const ta_kernel *k, const char *name)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_ARANGE || op->arg_count != 2)
			continue;
		TSNode b = ta_values_follow(m, ta_edits_node(m, op->args[1]));
		if (ta_node_is(b, "identifier") && ta_node_text_eq(m->src, b, name))
			return true;
	}
	return false;
}

typedef bool (*p1_name_test)(const ta_model *m, const ta_kernel *k, const char *name);
static bool p1_via_helpers(const ta_model *m, const ta_kernel *k, const char *name, p1_name_test test, int depth);

/* A constexpr that bounds a tl.arange of k, or of a @jit helper k hands it
 * to (a K loop moved into a helper takes its tile along). */
static bool p1_is_tile(const ta_model *m, const ta_kernel *k, const ta_param *p)
{
	if (!p->constexpr_)
		return false;
	return p1_named_tile(m, k, p) || p1_via_helpers(m, k, p->name, p1_arange_bound, 0);
}

static bool is_name(const ta_model *m, TSNode n, const char *name)
{
	n = ta_values_follow(m, n);
	return ta_node_is(n, "identifier") && ta_node_text_eq(m->src, n, name);
}

static ta_values_step p1_pid_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *pid = ctx;
	*pid |= ta_node_is(n, "call") && ta_call_named(m, n, "program_id");
	return *pid ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* Whether n's value reads a program id. */
static bool p1_reads_pid(const ta_model *m, TSNode n)
{
	bool pid = false;
	ta_values_walk(m, n, p1_pid_visit, &pid);
	return pid;
}

/* Whether n's value counts a size in blocks of the tile (`tl.cdiv(N,
 * TILE)`, `N // TILE`), the size no program id. */
static bool p1_block_count(const ta_model *m, TSNode n, const char *tile)
{
	n = ta_node_unparen(ta_values_follow(m, n));
	TSNode num = { 0 }, den = { 0 };
	if (ta_node_is(n, "call") && ta_call_named(m, n, "cdiv") && ta_node_named_count(ta_node_field(n, "arguments")) == 2) {
		num = ta_node_named_child(ta_node_field(n, "arguments"), 0);
		den = ta_node_named_child(ta_node_field(n, "arguments"), 1);
	} else if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "//")) {
		num = ta_node_field(n, "left");
		den = ta_node_field(n, "right");
	}
	return !ts_node_is_null(den) && is_name(m, den, tile) && !p1_reads_pid(m, num);
}

/* A scalar address that steps a program id by a count of the tile's
 * blocks: the row stride of a per-block table (`pid_m * tl.cdiv(N, BLOCK)
 * + pid_n`). A program id divided by such a count (`pid // NV`, the grid
 * decoded) is no table of blocks. */
static ta_values_step p1_block_table_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	const char **tile = ctx;
	if (!ta_node_is(n, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*"))
		return TA_VALUES_DESCEND;
	TSNode a = ta_node_field(n, "left"), b = ta_node_field(n, "right");
	if ((p1_block_count(m, a, *tile) && p1_reads_pid(m, b)) || (p1_block_count(m, b, *tile) && p1_reads_pid(m, a))) {
		*tile = NULL;
		return TA_VALUES_STOP;
	}
	return TA_VALUES_DESCEND;
}

/* Whether the tile of k picks the entry of a per-block table each program
 * reads: a scalar load whose address steps a program id by a count of the
 * tile's blocks (`s = tl.load(s_ptr + pid_m * tl.cdiv(N, BLOCK) + pid_n)`,
 * one scale per BLOCK x BLOCK block of a quantised weight). The table was
 * made for that block: the tile is the data's layout, and another config
 * would read the wrong entries. */
static bool p1_tile_picks_table(const ta_model *m, const ta_kernel *k, const char *tile)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_LOAD || op->ptr_shape != TA_PTR_SCALAR || !op->arg_count)
			continue;
		const char *t = tile;
		ta_values_walk(m, ta_edits_node(m, op->args[0]), p1_block_table_visit, &t);
		if (!t)
			return true;
	}
	return false;
}

/* Whether a loop of k steps by (or bounds itself with) the value `name`. */
static bool p1_loop_reads_here(const ta_model *m, const ta_kernel *k, const char *name)
{
	(void)m;
	for (size_t i = 0; i < k->loop_count; i++)
		for (size_t a = 0; a < k->loops[i].arg_count; a++)
			if (ta_edits_word_in(k->loops[i].args[a], strlen(k->loops[i].args[a]), name))
				return true;
	return false;
}

/* Whether the tile `name` of k may step over a dimension: a loop of k
 * steps by it, or something multiplies it, divides by it or advances by
 * it (`pid_m * TILE`, `tl.cdiv(K, TILE)`, `offs += TILE`, through the
 * kernel's names). A tile that does neither only bounds a
 * tl.arange: it covers a whole dimension, and no config would change what
 * the launch fixes (`tl.arange(0, SIZE_M)` over a SIZE_M-row matrix). */
static bool p1_tile_steps_here(const ta_model *m, const ta_kernel *k, const char *name)
{
	if (p1_loop_reads_here(m, k, name))
		return true;
	bool steps = false;
	ta_walk w;
	ta_walk_start(&w, k->node);
	for (;;) {
		TSNode n = ta_walk_node(&w);
		TSNode op = ta_node_field(n, "operator");
		if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, op, "*")) {
			for (int side = 0; side < 2 && !steps; side++)
				steps = is_name(m, ta_node_field(n, side ? "right" : "left"), name);
		} else if ((ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, op, "//")) ||
			   (ta_node_is(n, "augmented_assignment") && ta_node_text_eq(m->src, op, "+="))) {
			steps = is_name(m, ta_node_field(n, "right"), name);
		} else if (ta_node_is(n, "call") && ta_node_named_count(ta_node_field(n, "arguments")) == 2) {
			TSNode fn = ta_node_field(n, "function");
			TSNode last = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
			steps = ta_node_text_eq(m->src, last, "cdiv") &&
				is_name(m, ta_node_named_child(ta_node_field(n, "arguments"), 1), name);
		}
		if (steps || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return steps;
}

/* test on k's name, or on the parameter of a @jit helper that k passes the
 * name to (helpers deep): a tile handed to a helper whose loop steps by it
 * is the same tile as one the kernel's own loop steps by. */
static bool p1_via_helpers(const ta_model *m, const ta_kernel *k, const char *name, p1_name_test test, int depth)
{
	if (test(m, k, name))
		return true;
	if (depth > 3)
		return false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || &m->kernels[op->helper] == k)
			continue;
		const ta_kernel *h = &m->kernels[op->helper];
		TSNode call = ta_edits_node(m, op->span);
		for (size_t hi = 0; hi < h->param_count; hi++) {
			TSNode a = ta_edits_call_arg(m, call, (uint32_t)hi, h->params[hi].name);
			if (ta_node_is(a, "identifier") && ta_node_text_eq(m->src, a, name) &&
			    p1_via_helpers(m, h, h->params[hi].name, test, depth + 1))
				return true;
		}
	}
	return false;
}

static bool p1_tile_steps(const ta_model *m, const ta_kernel *k, const char *name)
{
	return p1_via_helpers(m, k, name, p1_tile_steps_here, 0);
}


static bool varies(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->vary_count; i++)
		if (!strcasecmp(a->varies[i], name))
			return true;
	return false;
}

/* Every config sets num_warps alone (no meta-parameter, no other option),
 * and only num_warps varies: `[triton.Config({}, num_warps=w) for w in
 * (1, 2, 4, 8)]`. */
static bool p1_warps_only(const ta_autotune *a)
{
	if (!a->config_count || a->builder_param_count)
		return false;
	for (size_t i = 0; i < a->vary_count; i++)
		if (strcmp(a->varies[i], "num_warps"))
			return false;
	for (size_t i = 0; i < a->config_count; i++) {
		if (a->configs[i].param_count)
			return false;
		for (size_t j = 0; j < a->configs[i].option_count; j++)
			if (strcmp(a->configs[i].options[j].name, "num_warps"))
				return false;
	}
	return true;
}

/* Some config gives the option a value that is neither a literal nor a
 * swept variable (`num_warps=n_warps` in a config builder's body, filled
 * by its callers): whether the option varies is not known. */
static bool option_unknown(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->config_count; i++) {
		const ta_kwarg *o = ta_kwarg_find(a->configs[i].options, a->configs[i].option_count, name);
		if (!o || !o->value)
			continue;
		const char *v = o->value;
		while (*v >= '0' && *v <= '9')
			v++;
		if (*v && !varies(a, name))
			return true;
	}
	return false;
}

static ta_span configs_where(const ta_autotune *a)
{
	if (a->configs_kind == TA_CONFIGS_LIST || a->configs_kind == TA_CONFIGS_COMPREHENSION)
		return a->configs_span;
	return a->config_count ? a->configs[0].span : a->span;
}

/* Below this GPU time per launch, the autotuner's work on every call (its
 * key, its cache lookup, in Python) is of the same order as the kernel: on
 * an H200 the bundled cat example's 5.3 us copies ran as fast after P1 and
 * the whole call took 1.4x as long. */
#define P1_SHORT_LAUNCH_NS 20000.0

/* Whether the host function reads which GPU it runs on (its capability, or
 * a helper named for a GPU generation), or takes its launch options from
 * its caller as a **config dict: its launch options may be chosen per GPU. */
static bool host_reads_gpu_text(const ta_rule_ctx *c, const ta_host *h)
{
	static const char *const reads[] = {
		"get_device_capability", "is_tesla(", "is_hopper(", "is_ampere(", "is_blackwell(", "is_sm90", "is_sm100",
		NULL,
	};
	char *t = ta_rule_text(c, h->span);
	bool yes = false;
	for (size_t i = 0; reads[i] && !yes; i++)
		yes = strstr(t, reads[i]) != NULL;
	/* `def f(..., **run_config)` reading run_config["BLOCK_N"]: the caller
	 * hands in the launch options (lightllm's per-GPU config files) */
	const char *sig_end = strstr(t, "):");
	const char *splat = strstr(t, "**");
	if (!yes && splat && sig_end && splat < sig_end) {
		const char *a = splat + 2, *e = a;
		while (isalnum((unsigned char)*e) || *e == '_')
			e++;
		if (e > a) {
			char *use = ta_xasprintf("%.*s[", (int)(e - a), a);
			yes = strstr(e, use) != NULL;
			free(use);
		}
	}
	free(t);
	return yes;
}

/* host_reads_gpu_text once per host of the model (a host may launch
 * thousands of kernels, each asking): 0 not asked yet, 1 no, 2 yes. */
static void *new_host_answers(const ta_model *m)
{
	return ta_xcalloc(m->host_count + 1, 1);
}

static bool host_reads_gpu(const ta_rule_ctx *c, int host)
{
	unsigned char *seen = ta_index_cached(c->m, new_host_answers, free);
	if (!seen[host])
		seen[host] = host_reads_gpu_text(c, &c->m->hosts[host]) ? 2 : 1;
	return seen[host] == 2;
}

/* Whether comparison cmp says that something other than the tile `tile`
 * exceeds it (`n > tile`, `n >= tile`, `tile < n`, `tile <= n`), or with
 * fits, that it does not (`n <= tile`, `tile >= n`, ...). The other side
 * is no literal: `BLOCK > 65536` caps the tile, it does not bound data. */
static bool p1_compares_to_tile(const ta_model *m, TSNode cmp, const char *tile, bool fits)
{
	if (!ta_node_is(cmp, "comparison_operator") || ta_node_named_count(cmp) != 2 ||
	    ts_node_child_count(cmp) != 3)
		return false;
	char *op = ta_node_text(m->src, ts_node_child(cmp, 1));
	int rel = !strcmp(op, ">") || !strcmp(op, ">=") ? 1 : !strcmp(op, "<") || !strcmp(op, "<=") ? -1 : 0;
	free(op);
	TSNode l = ta_node_unparen(ta_node_named_child(cmp, 0)), r = ta_node_unparen(ta_node_named_child(cmp, 1));
	if (rel == 0)
		return false;
	/* the tile on the side that says "n exceeds it" */
	bool tile_right = (rel == 1) != fits;
	TSNode t = tile_right ? r : l, n = tile_right ? l : r;
	return ta_node_is(t, "identifier") && ta_node_text_eq(m->src, t, tile) && !ta_node_is(n, "integer");
}

/* Whether the wrapper refuses, before launching with tile v, data wider
 * than v: `if n > BLOCK: raise ...` or `assert n <= BLOCK` earlier in its
 * function. The tile then covers that dimension whole: a loop that steps
 * by it runs once, and a smaller tile would break the wrapper's promise. */
static bool p1_host_refuses_wider(const ta_model *m, TSNode v)
{
	TSNode x = ta_node_unparen(v);
	TSNode fn = ta_node_is(x, "identifier") ? ta_node_ancestor(x, "function_definition") : (TSNode){ 0 };
	if (ts_node_is_null(fn))
		return false;
	char *tile = ta_node_text(m->src, x);
	uint32_t at = ts_node_start_byte(x);
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fn, "body"));
	do {
		TSNode n = ta_walk_node(&w);
		if (ts_node_start_byte(n) >= at)
			break;
		if (ta_node_is(n, "assert_statement")) {
			yes = p1_compares_to_tile(m, ta_node_unparen(ta_node_named_child(n, 0)), tile, true);
		} else if (ta_node_is(n, "if_statement") &&
			   p1_compares_to_tile(m, ta_node_unparen(ta_node_field(n, "condition")), tile, false)) {
			TSNode body = ta_node_field(n, "consequence");
			for (uint32_t i = 0; i < ta_node_named_count(body) && !yes; i++)
				yes = ta_node_is(ta_node_named_child(body, i), "raise_statement");
		}
	} while (!yes && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	free(tile);
	return yes;
}

/* `//`, `*`, `>>` or `<<`: an operator that scales a value by its right
 * operand. */
static bool p1_scale_operator(const ta_model *m, TSNode op)
{
	static const char *const scale[] = { "//", "*", ">>", "<<", NULL };
	char *t = ta_node_text(m->src, ta_node_field(op, "operator"));
	bool yes = ta_name_among(t, scale);
	free(t);
	return yes;
}

/* A number, or a name of the module or imported into it
 * (`MXFP8_BLOCK_SIZE` from the package's quantization module): one value
 * for every call. */
static bool p1_constant(const ta_model *m, TSNode e)
{
	long k;
	e = ta_node_unparen(e);
	if (ta_values_int(m, e, &k))
		return true;
	if (!ta_node_is(e, "identifier"))
		return false;
	char *t = ta_node_text(m->src, e);
	bool yes = ta_index_module_assign(m, t) != UINT32_MAX || ta_index_import_alias(m, t);
	free(t);
	return yes;
}

/* A launch value sized to cover a whole dimension: `next_power_of_2(N)`
 * of a value the launch does not fix, maybe capped or floored by min or
 * max (`min(4096, next_power_of_2(N))`), here or through the wrapper's
 * names. Such a tile follows the data, it is not a fixed choice. */
static bool p1_sized_to_data(const ta_model *m, TSNode n, int depth)
{
	n = ta_values_follow(m, n);
	if (ts_node_is_null(n) || depth > 4)
		return false;
	if (ta_call_named(m, n, "next_power_of_2")) {
		TSNode args = ta_node_field(n, "arguments");
		long v;
		return ta_node_named_count(args) == 1 && !ta_values_int(m, ta_node_named_child(args, 0), &v);
	}
	if (ta_node_is(n, "call") && (ta_call_named(m, n, "min") || ta_call_named(m, n, "max"))) {
		TSNode args = ta_node_field(n, "arguments");
		for (uint32_t i = 0; i < ta_node_named_count(args); i++)
			if (p1_sized_to_data(m, ta_node_named_child(args, i), depth + 1))
				return true;
	}
	/* scaled by a constant (`next_power_of_2(K) // 32`, `2 * half`):
	 * the same extent in other units */
	if (ta_node_is(n, "binary_operator")) {
		TSNode l = ta_node_field(n, "left"), r = ta_node_field(n, "right");
		if (p1_scale_operator(m, n) && p1_constant(m, r))
			return p1_sized_to_data(m, l, depth + 1);
		if (ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*") && p1_constant(m, l))
			return p1_sized_to_data(m, r, depth + 1);
	}
	return false;
}

/* `x.shape` or `x.size()`: a tensor's sizes, all of them. */
static bool p1_reads_shape(const ta_model *m, TSNode e)
{
	if (ta_node_is(e, "attribute"))
		return ta_node_text_eq(m->src, ta_node_field(e, "attribute"), "shape");
	if (!ta_node_is(e, "call") || ta_node_named_count(ta_node_field(e, "arguments")) != 0)
		return false;
	TSNode fn = ta_node_field(e, "function");
	return ta_node_is(fn, "attribute") && ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), "size");
}

/* ta_values_walk's visitor for p1_size_rule: a name unpacked from a
 * tensor's sizes (`b, h, dim, dstate = state.shape`), or a size read in
 * place (`x.shape[1]`). */
/* Whether a name with no one reaching value (bound on each arm of an if:
 * `if head_first: b, n, d = x.shape else: b, d, n = x.shape`) is unpacked
 * from a tensor's sizes by a binding before id in its function. */
static bool p1_not_unpacked_shape(const ta_model *m, const ta_values_binding *b, TSNode value, void *ctx)
{
	(void)ctx;
	/* stops at an unpacking of a tensor's sizes */
	return ts_node_is_null(value) || ts_node_eq(ta_node_field(b->binding, "left"), b->target) ||
	       !p1_reads_shape(m, ta_node_unparen(value));
}

static bool p1_arms_unpack_shape(const ta_model *m, TSNode id)
{
	return !ta_values_bindings_before(m, (TSNode){ 0 }, id, p1_not_unpacked_shape, NULL, NULL);
}

static ta_values_step p1_size_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *found = ctx;
	if (ta_node_is(n, "identifier")) {
		TSNode u = ta_values_unpacked(m, n, NULL);
		if (!ts_node_is_null(u) ? p1_reads_shape(m, ta_node_unparen(u)) :
		    ts_node_is_null(ta_values_def(m, n, NULL)) && p1_arms_unpack_shape(m, n))
			*found = true;
	} else if (ta_node_is(n, "subscript") && p1_reads_shape(m, ta_node_unparen(ta_node_field(n, "value")))) {
		*found = true;
	}
	return *found ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

/* Whether the condition reads a tensor's size (through the wrapper's
 * names: `next_pow2_M <= 32` with next_pow2_M from M, M from x.shape). */
static bool p1_size_test(const ta_model *m, TSNode cond)
{
	bool found = false;
	if (!ts_node_is_null(cond))
		ta_values_walk(m, cond, p1_size_visit, &found);
	return found;
}

/* A value computed from the data's sizes alone, with no number of the
 * author's as its bound: a tensor's size, `next_power_of_2` of one, min or
 * max of such values only (`min(head_dim, 128 * 128 // BLOCK_C)` with
 * BLOCK_C from the chunk count: a budget split between two sizes), or one
 * scaled by a constant; through the wrapper's names, and through every
 * binding of a name rebound in a loop or on each arm of an if
 * (`b = next_power_of_2(h)`, then `while ...: b = b // 2`). A cap written
 * as a number (`min(128, next_power_of_2(n))`) is a choice, shown as one. */
static bool p1_is_shape(const ta_model *m, TSNode n);

static bool p1_data_only(const ta_model *m, TSNode n, int depth);

/* Every binding before the read is a plain one whose value is sized from
 * the data alone. */
static bool p1_data_binding(const ta_model *m, const ta_values_binding *b, TSNode value, void *ctx)
{
	return ta_values_binding_plain(b) && p1_data_only(m, value, *(int *)ctx + 1);
}

/* A constant, or arithmetic of constants (`128 * 128`). */
static bool p1_constant_expr(const ta_model *m, TSNode e, int depth)
{
	e = ta_node_unparen(e);
	if (ta_node_is(e, "binary_operator") && depth < 6)
		return p1_constant_expr(m, ta_node_field(e, "left"), depth + 1) &&
		       p1_constant_expr(m, ta_node_field(e, "right"), depth + 1);
	return p1_constant(m, e);
}

static bool p1_data_only(const ta_model *m, TSNode n, int depth)
{
	n = ta_node_unparen(ta_values_follow(m, n));
	if (ts_node_is_null(n) || depth > 6)
		return false;
	if (p1_is_shape(m, n))
		return true;
	if (ta_call_named(m, n, "next_power_of_2")) {
		TSNode args = ta_node_field(n, "arguments");
		if (ta_node_named_count(args) != 1)
			return false;
		/* rounding a capped value (`next_power_of_2(min(128, dim))`)
		 * keeps the cap */
		TSNode x = ta_node_unparen(ta_values_follow(m, ta_node_named_child(args, 0)));
		if (ta_node_is(x, "call") && (ta_call_named(m, x, "min") || ta_call_named(m, x, "max")))
			return p1_data_only(m, x, depth + 1);
		return !p1_constant_expr(m, x, 0);
	}
	if (ta_node_is(n, "call") && (ta_call_named(m, n, "min") || ta_call_named(m, n, "max"))) {
		TSNode args = ta_node_field(n, "arguments");
		uint32_t na = ta_node_named_count(args);
		for (uint32_t i = 0; i < na; i++)
			if (!p1_data_only(m, ta_node_named_child(args, i), depth + 1))
				return false;
		return na > 0;
	}
	if (ta_node_is(n, "binary_operator")) {
		TSNode l = ta_node_field(n, "left"), r = ta_node_field(n, "right");
		bool dl = p1_data_only(m, l, depth + 1), dr = p1_data_only(m, r, depth + 1);
		return (dl && (dr || p1_constant_expr(m, r, 0))) || (dr && p1_constant_expr(m, l, 0));
	}
	if (!ta_node_is(n, "identifier") || !ts_node_is_null(ta_values_def(m, n, NULL)))
		return false;
	size_t seen;
	return ta_values_bindings_before(m, (TSNode){ 0 }, n, p1_data_binding, &depth, &seen) && seen > 0;
}

/* Whether the launch value v (through the name it is unpacked from) is
 * chosen by a rule on the data's sizes, as one expression (`BLOCK_M,
 * num_warps = (32, 4) if dstate <= 16 else ...` with dstate a tensor's
 * size: mamba's selective state update, tuned by hand since an autotune
 * would overwrite its state) or as an if chain (`if next_pow2_M <= 32:
 * tile_shape = (64, 64, 256) elif ...`, then `bm, bn, bk = tile_shape`).
 * The author computes it: P1 keeps options the author computes. */
static bool p1_size_rule(const ta_model *m, TSNode v)
{
	return p1_chosen_by(m, p1_unpacked_value(m, v), p1_size_test);
}

/* A launch value that is a tensor's size: `x.shape[-1]`, `x.size(1)`, or
 * arithmetic of such sizes and integers (`triton.cdiv(head_size, 32)`),
 * here or through the wrapper's names. A cache block or a head size passed
 * as a constexpr is the problem's shape, not a tile anyone chose, and a
 * warp count computed from it is the author's rule, not a fixed guess. */
static bool p1_shape_value(const ta_model *m, TSNode n, int depth, bool *reads_shape)
{
	n = ta_values_follow(m, n);
	if (ts_node_is_null(n) || depth > 6)
		return false;
	long v;
	if (ta_values_int(m, n, &v))
		return true;
	/* `B, H, N, D = q.shape` or `= q.size()`: N is a size */
	TSNode from = ta_node_is(n, "identifier") ? ta_values_unpacked(m, n, NULL) : (TSNode){ 0 };
	if (!ts_node_is_null(from) && p1_reads_shape(m, from)) {
		*reads_shape = true;
		return true;
	}
	if (ta_node_is(n, "subscript")) {
		TSNode val = ta_node_field(n, "value");
		if (ta_node_is(val, "attribute") && ta_node_text_eq(m->src, ta_node_field(val, "attribute"), "shape")) {
			*reads_shape = true;
			return true;
		}
		return false;
	}
	if (ta_node_is(n, "binary_operator"))
		return p1_shape_value(m, ta_node_field(n, "left"), depth + 1, reads_shape) &&
		       p1_shape_value(m, ta_node_field(n, "right"), depth + 1, reads_shape);
	if (ta_node_is(n, "parenthesized_expression"))
		return p1_shape_value(m, ta_node_named_child(n, 0), depth + 1, reads_shape);
	/* a parameter of the wrapper the body never binds again (a
	 * convolution's stride and padding): the caller's value, part of a
	 * size computed with the tensors' own (`(H + 2 * pad - kh) // stride
	 * + 1`); a size only with one of those */
	if (ta_node_is(n, "identifier")) {
		TSNode fn = ta_node_ancestor(n, "function_definition");
		char *name = ta_node_text(m->src, n);
		size_t nb = 0;
		TSNode dflt = { 0 };
		if (!ts_node_is_null(fn))
			ta_values_bindings(m, fn, name, strlen(name), &nb);
		bool param = !ts_node_is_null(fn) && nb == 0 && p1_param_binding_default(m, fn, name, &dflt) != 0;
		free(name);
		return param;
	}
	if (!ta_node_is(n, "call"))
		return false;
	TSNode fn = ta_node_field(n, "function"), args = ta_node_field(n, "arguments");
	if (ta_node_is(fn, "attribute") && ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), "size")) {
		*reads_shape = true;
		return true;
	}
	/* min and max are not followed: a cap (`min(rank, 512)`) is a choice */
	if (!ta_call_named(m, n, "cdiv") && !ta_call_named(m, n, "int"))
		return false;
	uint32_t na = ta_node_named_count(args);
	for (uint32_t i = 0; i < na; i++)
		if (!p1_shape_value(m, ta_node_named_child(args, i), depth + 1, reads_shape))
			return false;
	return na > 0;
}

static bool p1_is_shape(const ta_model *m, TSNode n)
{
	bool reads = false;
	return p1_shape_value(m, n, 0, &reads) && reads;
}

/* A constexpr that shapes a block of the kernel: a tile by p1_is_tile, or
 * a size read by tl.zeros, tl.make_block_ptr or a tensor descriptor
 * (fla's BT, BK, BV), or handed to a @jit helper (assumed a tile there). */
static bool p1_shapes_block(ta_rule_ctx *c, const ta_param *p)
{
	if (p1_is_tile(c->m, c->k, p))
		return true;
	if (!p->constexpr_)
		return false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if ((op->kind == TA_OP_ZEROS || op->kind == TA_OP_MAKE_BLOCK_PTR || op->kind == TA_OP_MAKE_DESCRIPTOR ||
		     op->kind == TA_OP_HELPER_CALL) &&
		    ta_node_contains_identifier(c->m->src, ta_rule_node(c, op->span), p->name))
			return true;
	}
	return false;
}

/* k has no loop, nor a helper it calls (num_stages pipelines loops: a
 * kernel without one runs the same at every depth). */
static bool p1_loopless(const ta_model *m, const ta_kernel *k, int depth)
{
	if (k->loop_count || depth > 3)
		return false;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_HELPER_CALL && k->ops[i].helper >= 0 &&
		    &m->kernels[k->ops[i].helper] != k && !p1_loopless(m, &m->kernels[k->ops[i].helper], depth + 1))
			return false;
	return true;
}

/* For a tile's launch value v: whether it reads the value l passes as
 * num_warps. For the num_warps keyword warps: whether a tile keyword of l
 * reads it. Through the wrapper's names (`num_warps = 32; block =
 * 32 * num_warps * 16 // x.element_size()`). */
static bool p1_tile_follows_warps(ta_rule_ctx *c, const ta_launch *l, TSNode v, const ta_kwarg *warps)
{
	const ta_kwarg *w = warps;
	for (size_t j = 0; j < l->kwarg_count && !w; j++)
		if (!strcmp(l->kwargs[j].name, "num_warps"))
			w = &l->kwargs[j];
	if (!w || strcmp(w->name, "num_warps"))
		return false;
	TSNode wv = ta_node_unparen(ta_edits_node(c->m, w->value_span));
	if (!ta_node_is(wv, "identifier"))
		return false;
	char *name = ta_node_text(c->m->src, wv);
	bool follows = false;
	if (!ts_node_is_null(v)) {
		follows = ta_values_reads(c->m, v, name);
	} else {
		for (size_t j = 0; j < l->kwarg_count && !follows; j++) {
			const ta_param *p = ta_kernel_param(c->k, l->kwargs[j].name);
			follows = p && p->constexpr_ &&
				  ta_values_reads(c->m, ta_edits_node(c->m, l->kwargs[j].value_span), name);
		}
	}
	free(name);
	return follows;
}

/* Whether launch l splats arguments (`*args`, `**config`): they may set any
 * parameter. */
static bool p1_launch_splats(ta_rule_ctx *c, const ta_launch *l)
{
	TSNode call = ta_rule_node(c, l->span), args = ta_node_field(call, "arguments");
	for (uint32_t i = 0; i < ta_node_named_count(args); i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "list_splat") || ta_node_is(a, "dictionary_splat"))
			return true;
	}
	return false;
}

/* Whether launch l sets a tile of the kernel, or leaves one at its
 * default or to a heuristic: a block size whose value is not a tensor's
 * size (one sized to cover a dimension, next_power_of_2(N), is: its warps
 * are still chosen for it). A splat (`**config`) may set any: assumed so. */
static bool p1_launch_has_tile(ta_rule_ctx *c, const ta_launch *l)
{
	if (c->k->heuristic_count || c->k->heuristics_span.end > c->k->heuristics_span.start)
		return true;
	if (p1_launch_splats(c, l))
		return true;
	for (size_t pi = 0; pi < c->k->param_count; pi++) {
		const ta_param *p = &c->k->params[pi];
		if (!p1_shapes_block(c, p))
			continue;
		bool kw;
		TSNode a = ta_values_launch_arg(c->m, l, c->k, pi, &kw);
		if (ts_node_is_null(a) ? p->default_value != NULL : !p1_is_shape(c->m, a))
			return true;
	}
	return false;
}

typedef struct p1_mention {
	const ta_source *src;
	const char *text;
	bool found;
} p1_mention;

static ta_values_step p1_mention_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)m;
	(void)via;
	p1_mention *u = ctx;
	if (ta_node_text_eq(u->src, n, u->text)) {
		u->found = true;
		return TA_VALUES_STOP;
	}
	return TA_VALUES_DESCEND;
}

/* Whether x mentions the name another tile of launch l passes (not
 * keyword `self`; data_sized: only a tile sized to the data that no loop
 * steps by). */
static bool p1_mentions_launch_tile(ta_rule_ctx *c, const ta_launch *l, size_t self, TSNode v, TSNode x,
				    bool data_sized)
{
	/* every tile the launch passes, by keyword or by position */
	const char *own = self < l->kwarg_count ? l->kwargs[self].name : NULL;
	for (size_t pi = 0; pi < c->k->param_count; pi++) {
		const ta_param *p = &c->k->params[pi];
		if (!is_tile_param(p) || (own && !strcmp(p->name, own)))
			continue;
		bool kw;
		TSNode w = ta_node_unparen(ta_values_launch_arg(c->m, l, c->k, pi, &kw));
		/* a name, or backward's ctx.NAME */
		if (!ta_node_is(w, "identifier") && !ta_node_is(w, "attribute"))
			continue;
		char *wt = ta_node_text(c->m->src, w);
		p1_mention u = { .src = c->m->src, .text = wt };
		/* TILE_M=block, TILE_N=block: the same value, not one from the other */
		if (!ta_node_text_eq(c->m->src, ta_node_unparen(v), wt))
			ta_values_walk(c->m, x, p1_mention_visit, &u);
		free(wt);
		if (u.found && (!data_sized || ((!p1_tile_steps(c->m, c->k, p->name) || p1_host_refuses_wider(c->m, w)) &&
						p1_sized_to_data(c->m, w, 0))))
			return true;
	}
	return false;
}

/* Whether the launch value v is computed from the name another tile
 * keyword of launch l passes (not keyword `self`): a warp count computed
 * from a block sized to the data (`num_warps=min(BLOCK_N // 256, 16)`) is
 * the author's rule for it (data_sized: only tiles sized to the data that
 * no loop steps by); else, a count that divides by the tile
 * (`NUM_BLOCK=n // BLOCK` beside `BLOCK=BLOCK`) follows it, and so does the
 * tile scaled by a constant (`BLOCK_GROUPS = BLOCK_K // 32`). */
static bool p1_follows_launch_tile(ta_rule_ctx *c, const ta_launch *l, size_t self, TSNode v, bool data_sized)
{
	TSNode x = ta_values_follow(c->m, v);
	if (data_sized)
		return p1_mentions_launch_tile(c, l, self, v, x, true);
	if (!ta_node_is(x, "binary_operator") && !ta_call_named(c->m, x, "cdiv"))
		return false;
	/* a count: the tile is what it divides by */
	if (ta_node_is(x, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(x, "operator"), "//") &&
	    p1_mentions_launch_tile(c, l, self, v, ta_node_field(x, "right"), false))
		return true;
	if (ta_call_named(c->m, x, "cdiv"))
		return ta_node_named_count(ta_node_field(x, "arguments")) == 2 &&
		       p1_mentions_launch_tile(c, l, self, v, ta_node_named_child(ta_node_field(x, "arguments"), 1), false);
	/* or the tile in other units, scaled by a constant (`BLOCK_GROUPS =
	 * BLOCK_K // 32`, `2 * BLOCK`): chosen with it */
	TSNode lhs = ta_node_field(x, "left"), rhs = ta_node_field(x, "right");
	if (p1_scale_operator(c->m, x) && p1_constant(c->m, rhs))
		return p1_mentions_launch_tile(c, l, self, v, lhs, false);
	if (ta_node_text_eq(c->m->src, ta_node_field(x, "operator"), "*") && p1_constant(c->m, lhs))
		return p1_mentions_launch_tile(c, l, self, v, rhs, false);
	return false;
}

/* Launch keywords that fix tiles or launch options of an untuned kernel. */
/* Whether launch l passes some tile (by keyword or position) that a
 * helper of the project computes, a rule on the data's sizes chooses or
 * the wrapper's caller gives. */
static bool p1_computed_tile(ta_rule_ctx *c, const ta_launch *l)
{
	for (size_t pi = 0; pi < c->k->param_count; pi++) {
		bool kw;
		TSNode a = p1_is_tile(c->m, c->k, &c->k->params[pi]) ? ta_values_launch_arg(c->m, l, c->k, pi, &kw)
								       : (TSNode){ 0 };
		if (!ts_node_is_null(a) && (p1_from_helper(c->m, a) || p1_size_rule(c->m, a) || p1_caller_value(c->m, a)))
			return true;
	}
	return false;
}

static TSNode p1_grid_node(const ta_model *m, const ta_launch *l);

/* A launch of one program (`k[(1,)](...)`, through a name too): a serial
 * step (a prefix, a finalisation) whose tiles are built around the counts
 * it covers, with no occupancy or waves for a config to trade. Two fresh
 * judges read P1 there as false. */
static bool p1_single_program(const ta_model *m, const ta_launch *l)
{
	TSNode g = ta_node_unparen(ta_values_follow(m, p1_grid_node(m, l)));
	if (!ta_node_is(g, "tuple") && !ta_node_is(g, "list"))
		return false;
	uint32_t n = ta_node_named_count(g);
	for (uint32_t i = 0; i < n; i++) {
		long v;
		if (!ta_values_int(m, ta_node_named_child(g, i), &v) || v != 1)
			return false;
	}
	return n > 0;
}

/* Whether p is a constexpr whose default is a power-of-two literal. */
static bool p1_pow2_default(const ta_param *p)
{
	char *end = NULL;
	long v = p->constexpr_ && p->default_value ? strtol(p->default_value, &end, 0) : 0;
	return v > 0 && !(v & (v - 1)) && end && !*end;
}

/* Whether the tile parameter p (index pi) is left at a power-of-two
 * default by launch l: not passed by keyword or position, no splat that
 * could pass it, no heuristic that sets it, and it steps over a dimension. */
static bool p1_default_tile(ta_rule_ctx *c, const ta_launch *l, const ta_param *p, size_t pi)
{
	if (!p1_pow2_default(p))
		return false;
	bool kw;
	if (!ts_node_is_null(ta_values_launch_arg(c->m, l, c->k, pi, &kw)))
		return false;
	for (size_t h = 0; h < c->k->heuristic_count; h++)
		if (c->k->heuristics[h].name && !strcmp(c->k->heuristics[h].name, p->name))
			return false;
	return !p1_launch_splats(c, l) && p1_tile_steps(c->m, c->k, p->name);
}

/* `NAME=value` for the message: the value a name or an expression holds
 * where it is a known integer (`BLOCK_SIZE_B=1`, not `BLOCK_SIZE_B=BLOCK_SIZE_B`),
 * else the text written at the launch. */
/* Whether the launch's grid has an axis written exactly as `value`. */
static bool p1_is_grid_count(const ta_launch *l, const char *value)
{
	for (int i = 0; value && l->grid_dim_text && i < l->grid_dims; i++)
		if (l->grid_dim_text[i] && !strcmp(l->grid_dim_text[i], value))
			return true;
	return false;
}

static void p1_put_fixed(const ta_model *m, ta_buf *out, const char *name, TSNode v, const char *text)
{
	long iv;
	if (!ts_node_is_null(v) && strcmp(ts_node_type(v), "integer") && ta_values_int(m, v, &iv)) {
		ta_buf_printf(out, "%s%s=%ld", out->len ? ", " : "", name, iv);
		return;
	}
	/* a name the wrapper binds to a cap: the cap, so that `BLOCK_N=BLOCK_N`
	 * reads `BLOCK_N=min(triton.next_power_of_2(N), 1024)` (its bound is
	 * what is fixed) */
	TSNode val = ta_node_is(v, "identifier") ? ta_values_follow_names(m, v) : (TSNode){ 0 };
	TSNode inner = ta_call_named(m, val, "next_power_of_2")
		? ta_node_unparen(ta_node_named_child(ta_node_field(val, "arguments"), 0)) : (TSNode){ 0 };
	bool cap = (ta_node_is(val, "call") && (ta_call_named(m, val, "min") || ta_call_named(m, val, "max"))) ||
		   (ta_node_is(inner, "call") && (ta_call_named(m, inner, "min") || ta_call_named(m, inner, "max")));
	char *shown = cap ? ta_text_one_line(ta_node_text(m->src, val)) : NULL;
	if (shown && strlen(shown) > 60) {
		free(shown);
		shown = NULL;
	}
	ta_buf_printf(out, "%s%s=%s", out->len ? ", " : "", name, shown ? shown : text);
	free(shown);
}

static ta_status p1_untuned(ta_rule_ctx *c)
{
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	bool found = false, tuned_elsewhere = false;
	/* A kernel that writes nothing (a probe that Triton compiles and
	 * runs on this device) leaves no result whose speed anyone tunes. */
	if (!ta_kernel_reaches_op(c->m, c->kernel, TA_OP_BIT(TA_OP_STORE) | TA_OP_BIT(TA_OP_DESC_STORE) |
				  TA_OP_BIT(TA_OP_ATOMIC) | TA_OP_BIT(TA_OP_INLINE_ASM), 0))
		return TA_STATUS_NOT_APPLICABLE;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		/* a pytest function's launch checks values, it is no launch path
		 * whose tiles anyone tunes */
		if ((l->host >= 0 && ta_rule_host_is_test(&c->m->hosts[l->host])) || p1_single_program(c->m, l))
			continue;
		/* a launch whose tiles or options come (any of them) from a
		 * configuration the wrapper is given or looks up is tuned there:
		 * what else it passes (a cap on a tuned tile, warps beside a
		 * tuned tile) is that tuning's to choose */
		bool given = false;
		for (size_t j = 0; j < l->kwarg_count && !given; j++) {
			const ta_param *p = ta_kernel_param(c->k, l->kwargs[j].name);
			if ((p && p1_named_tile(c->m, c->k, p)) || !strcmp(l->kwargs[j].name, "num_warps") ||
			    !strcmp(l->kwargs[j].name, "num_stages"))
				given = p1_from_given_config(c->m, ta_edits_node(c->m, l->kwargs[j].value_span));
		}
		if (given) {
			tuned_elsewhere = true;
			continue;
		}
		ta_buf fixed = TA_BUF_INIT;
		uint32_t kw_line = 0;
		bool tile_fixed = false;
		/* tiles passed by position, or named otherwise than BLOCK_*: a
		 * power of two written there or held by the wrapper's names */
		for (size_t pi = 0; pi < c->k->param_count; pi++) {
			const ta_param *p = &c->k->params[pi];
			bool kw;
			TSNode a = p1_is_tile(c->m, c->k, p) ? ta_values_launch_arg(c->m, l, c->k, pi, &kw) : (TSNode){ 0 };
			long v;
			/* a tile the launch leaves at its default (`BLOCK: tl.constexpr
			 * = 2048`), set by no heuristic: fixed by the signature */
			if (ts_node_is_null(a) && p1_default_tile(c, l, p, pi)) {
				ta_buf_printf(&fixed, "%s%s=%s (its default)", fixed.len ? ", " : "", p->name,
					      p->default_value);
				kw_line = p->span.line;
				tile_fixed = true;
				continue;
			}
			if (ts_node_is_null(a) || (kw && p1_named_tile(c->m, c->k, p)) || !p1_tile_steps(c->m, c->k, p->name) ||
			    p1_saved_by_forward(c->m, a) || p1_tile_picks_table(c->m, c->k, p->name) ||
			    p1_random_follows(c->m, c->k, p->name))
				continue;
			/* a power of two written there, or passed as a literal by every
			 * caller of the wrapper in the file */
			if (ta_values_int(c->m, a, &v) ? v <= 0 || (v & (v - 1)) : !p1_fixed_by_callers(c->m, a))
				continue;
			char *t = ta_node_text(c->m->src, a);
			p1_put_fixed(c->m, &fixed, p->name, a, t);
			free(t);
			kw_line = ts_node_start_point(a).row + 1;
			tile_fixed = true;
		}
		for (size_t j = 0; j < l->kwarg_count; j++) {
			const ta_kwarg *kw = &l->kwargs[j];
			const ta_param *p = ta_kernel_param(c->k, kw->name);
			bool tile = p && p1_named_tile(c->m, c->k, p);
			if (!tile && strcmp(kw->name, "num_warps") && strcmp(kw->name, "num_stages"))
				continue;
			if (!strcmp(kw->name, "num_stages") && p1_loopless(c->m, c->k, 0))
				continue;
			/* num_warps a parameter of the kernel too: its code reads it
			 * (threads laid out by hand), so it is the algorithm's */
			if (!tile && p && !strcmp(kw->name, "num_warps"))
				continue;
			TSNode v = ta_edits_node(c->m, kw->value_span);
			/* a tile computed from the launch's own warps (`BLOCK =
			 * num_warps * 32 * 16 // itemsize`: one 16-byte vector a
			 * thread), and those warps: the author's rule, not a choice */
			if (p1_tile_follows_warps(c, l, tile ? v : (TSNode){ 0 }, tile ? NULL : kw))
				continue;
			/* num_warps=1 or num_stages=1 is the author's deliberate
			 * choice (one warp a row, no pipelining): kept, not named */
			long one;
			if (!tile && ta_values_int(c->m, v, &one) && one == 1)
				continue;
			/* a tensor's size (HEAD_SIZE=q.shape[-1]), or options computed
			 * from sizes: what the data is, not a choice to tune; nor the
			 * grid's own program count handed to a persistent kernel
			 * (`k[(NUM_BLOCKS,)](..., NUM_BLOCKS=NUM_BLOCKS)`): a count of
			 * programs, no tile */
			if (p1_is_shape(c->m, v) || (tile && p1_is_grid_count(l, kw->value)))
				continue;
			/* a count computed from another tile follows it; forward's
			 * choice read back from ctx is not backward's to make; a
			 * value the author picks per GPU is that choice */
			if ((tile && (p1_follows_launch_tile(c, l, j, v, false) || p1_tile_picks_table(c->m, c->k, kw->name) ||
				      p1_random_follows(c->m, c->k, kw->name))) ||
			    p1_saved_by_forward(c->m, v) ||
			    p1_per_gpu(c->m, v) || p1_size_rule(c->m, v) || p1_from_helper(c->m, v) ||
			    p1_caller_value(c->m, v) || p1_sizes_allocation(c->m, v))
				continue;
			/* named as a swizzle group but sizing no block of the
			 * kernel, while the host sizes buffers by it (one lock and
			 * one partial row per group): a count the buffers fix, not
			 * a tile ordering the configs could vary */
			if (tile && is_swizzle_group(kw->name) && !p1_sizes_something(c->m, c->k, kw->name) &&
			    p1_sizes_host_buffer(c->m, v))
				continue;
			/* a tile sized to the data that no loop or grid steps by
			 * (or whose wrapper refuses wider data) covers its
			 * dimension whole (a row-wise kernel's
			 * `BLOCK=triton.next_power_of_2(N)`, a padded head size), and
			 * warps computed from it are the author's rule: neither is a
			 * fixed choice, and neither is named */
			if ((tile && (!p1_tile_steps(c->m, c->k, p->name) || p1_host_refuses_wider(c->m, v)) &&
			     p1_sized_to_data(c->m, v, 0)) || (tile && p1_data_only(c->m, v, 0)) ||
			    (!tile && p1_follows_launch_tile(c, l, j, v, true)))
				continue;
			p1_put_fixed(c->m, &fixed, kw->name, v, kw->value);
			kw_line = kw->span.line;
			tile_fixed |= tile;
		}
		/* Warps or stages beside tiles a helper of the project computes,
		 * or a rule on the data's sizes chooses, and no fixed tile: the
		 * author's launch rule, like warps computed from such a tile. */
		if (!tile_fixed && p1_computed_tile(c, l)) {
			ta_buf_free(&fixed);
			tuned_elsewhere = true;
			continue;
		}
		/* A kernel with no tile at this launch (none, or each one a
		 * tensor's size): P1 tunes tiles, and num_warps alone is the
		 * author's for a kernel of one shape. */
		if (fixed.len && !p1_launch_has_tile(c, l))
			ta_buf_clear(&fixed);
		if (fixed.len) {
			ta_finding *f = ta_rule_add(c, l->span,
				"`%s` is launched with fixed %s and no @triton.autotune", c->k->name, ta_buf_str(&fixed));
			ta_finding_line(f, kw_line);
			if (l->host >= 0 && host_reads_gpu(c, l->host))
				f->tags |= TA_TAG_PER_GPU_CHOICE;
			if (e && e->median_ns > 0 && e->median_ns < P1_SHORT_LAUNCH_NS)
				f->measure = ta_xasprintf(
					"each launch runs %.1f µs on the GPU: the autotuner adds host work to every "
					"call (its key, its cache lookup), which can cost more than a better config "
					"saves at this size; time the whole call, not only the kernel",
					e->median_ns / 1e3);
			found = true;
		}
		ta_buf_free(&fixed);
	}
	return found ? TA_STATUS_APPLIES : tuned_elsewhere ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* The kernels whose autotune reads the same config list as k's, in file
 * order: one list tuned for several kernels gets one finding (the same text
 * for each), naming them all. *count: how many. */
typedef struct config_user {
	uint32_t start, end;      /* where its configs are */
	size_t kernel;
} config_user;

typedef struct config_users {
	config_user *v;
	size_t n;
} config_users;

static int by_where(const void *pa, const void *pb)
{
	const config_user *a = pa, *b = pb;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end < b->end ? -1 : 1;
	return a->kernel < b->kernel ? -1 : a->kernel > b->kernel;
}

/* The tuned kernels of the file by where their configs are, once per
 * model (asking every kernel for each one grew with kernels squared). */
static void *build_config_users(const ta_model *m)
{
	config_users *u = ta_xcalloc(1, sizeof *u);
	u->v = ta_xmalloc((m->kernel_count ? m->kernel_count : 1) * sizeof *u->v);
	for (size_t i = 0; i < m->kernel_count; i++) {
		const ta_kernel *o = &m->kernels[i];
		if (o->is_helper || !o->autotune || !o->autotune->config_count)
			continue;
		ta_span w = configs_where(o->autotune);
		u->v[u->n++] = (config_user){ w.start, w.end, i };
	}
	qsort(u->v, u->n, sizeof *u->v, by_where);
	return u;
}

static void free_config_users(void *p)
{
	config_users *u = p;
	free(u->v);
	free(u);
}

static char *sharing_configs(const ta_rule_ctx *c, ta_span where, size_t *count)
{
	const config_users *u = ta_index_cached(c->m, build_config_users, free_config_users);
	size_t lo = 0, hi = u->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (by_where(&u->v[mid], &(config_user){ where.start, where.end, 0 }) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < u->n && u->v[end].start == where.start && u->v[end].end == where.end)
		end++;
	const ta_kernel **ks = ta_xcalloc(end - lo + 1, sizeof *ks);
	size_t n = 0, self = (size_t)c->kernel;
	bool placed = false;
	for (size_t i = lo; i < end; i++) {
		if (!placed && u->v[i].kernel >= self) {
			ks[n++] = c->k;   /* the kernel asked about, at its place */
			placed = true;
			if (u->v[i].kernel == self)
				continue;
		}
		ks[n++] = &c->m->kernels[u->v[i].kernel];
	}
	if (!placed)
		ks[n++] = c->k;
	*count = n;
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

/* The first line where the file queries the GPU (its capability,
 * properties or backend), or 0. Read from the whole source, not the
 * model's host code: a large file analysed in parts (analyze/split.h)
 * must say the same sentence whichever part holds the query. */
static uint32_t capability_line(const ta_rule_ctx *c)
{
	static const char *const needles[] = {
		"get_device_capability(", "get_device_properties(", "torch.version.hip", "is_hip(",
		"get_current_target(", NULL,
	};
	const ta_source *src = c->m->src;
	for (size_t l = 1; l <= src->line_count; l++) {
		size_t len;
		const char *t = ta_source_line(src, l, &len);
		size_t i = 0;
		while (i < len && (t[i] == ' ' || t[i] == '\t'))
			i++;
		if (i == len || t[i] == '#')
			continue;
		for (size_t k = 0; needles[k]; k++)
			if (memmem(t, len, needles[k], strlen(needles[k])))
				return (uint32_t)l;
	}
	return 0;
}

/* Whether k builds its own pipeline with Triton's low-level extension
 * (triton.language.extra.tlx: buffers it allocates, barriers it waits on,
 * warp groups it assigns): its depth is its buffer count, and num_stages
 * and num_warps are fixed by that design, not knobs the tuner turns. */
static bool p1_pipelines_by_hand(const ta_model *m, const ta_kernel *k)
{
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, k->node);
	do {
		TSNode n = ta_walk_node(&w);
		if (!ta_node_is(n, "call"))
			continue;
		char *canon = ta_model_canonical(m, ta_node_field(n, "function"));
		yes = canon && strstr(canon, "language.extra.tlx.") != NULL;
		free(canon);
	} while (!yes && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return yes;
}

static int p1_roundtrip(const ta_model *m, const ta_kernel *k, char **why);

ta_status ta_detect_p1(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (c->k->is_helper)
		return TA_STATUS_NOT_APPLICABLE;
	/* a back-end's own folder is the project's split by back-end already,
	 * and its warps and stages are not CUDA's (FlagGems' _cambricon, fla's
	 * triton_ascend): the edit refuses there too (ta_edits_other_backend) */
	if (ta_file_other_backend(c->m, NULL) == TA_BACKEND_FOLDER)
		return TA_STATUS_NOT_APPLICABLE;
	/* A kernel that reads back what it stored, with no barrier, is right
	 * under its own launch options at most: more configs would break it,
	 * and the edit refuses (p1_roundtrip). */
	char *rt = NULL;
	if (p1_roundtrip(c->m, c->k, &rt) != 0)
		return ta_rule_withhold(c, rt);
	if (!a)
		return p1_untuned(c);
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || a->config_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	ta_span where = configs_where(a);
	bool found = false;
	size_t sharing;
	char *who = sharing_configs(c, where, &sharing);
	if (!varies(a, "num_stages") && !varies(a, "num_warps") && !option_unknown(a, "num_stages") &&
	    !option_unknown(a, "num_warps") && !p1_pipelines_by_hand(c->m, c->k)) {
		ta_rule_add(c, where, "the autotune configs of %s vary neither num_stages nor num_warps", who);
		found = true;
	}
	/* Per GPU, pipeline depths and tiles differ: a kernel that streams
	 * nothing through a loop nor multiplies has nothing to split, nor one
	 * without tl.dot whose list sweeps warps alone (tuned on whichever GPU
	 * runs it; an MMA's stages and tiles are another matter) */
	if (!a->branches_on_capability && ta_kernel_streams(c->m, (int)c->kernel) &&
	    !(p1_warps_only(a) && !ta_kernel_reaches_op(c->m, (int)c->kernel, TA_OP_BIT(TA_OP_DOT), 0))) {
		/* The host may read the GPU for other choices (a layout, a fixed
		 * launch config beside the tuner): the sentence then says what
		 * is so of the list alone. */
		uint32_t cap_line = capability_line(c);
		ta_finding *f = cap_line
			? ta_rule_add(c, where, "%s use%s one config list for every GPU: the list does not depend on "
				      "the GPU or the backend (the file queries the GPU or its backend at line %u, "
				      "but not to build these configs)", who, sharing > 1 ? "" : "s", cap_line)
			: ta_rule_add(c, where, "%s use%s one config list for every GPU: nothing branches on "
				      "torch.cuda.get_device_capability() or the backend", who, sharing > 1 ? "" : "s");
		f->tags |= TA_TAG_GPU_SPLIT;
		found = true;
	}
	free(who);
	/* occupancy, or the program count itself (Triton's grouped GEMM tunes NUM_SM) */
	if (c->k->persistent && !varies(a, "occupancy") && !varies(a, "OCCUPANCY") && !varies(a, "NUM_SMS") &&
	    !varies(a, "NUM_SM") && !varies(a, "NUM_PROGRAMS")) {
		ta_rule_add(c, where, "persistent `%s` has no occupancy in its autotune configs", c->k->name);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

/* ---- P1: configs per GPU generation --------------------------------------- */

/* A small set of ints, kept sorted. */
typedef struct iset {
	int v[16];
	size_t n;
} iset;

static void iset_add(iset *s, int x)
{
	size_t i = 0;
	while (i < s->n && s->v[i] < x)
		i++;
	if ((i < s->n && s->v[i] == x) || s->n == 16)
		return;
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
	s->v[i] = x;
	s->n++;
}

static char *iset_tuple(const iset *s)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_putc(&b, '(');
	for (size_t i = 0; i < s->n; i++)
		ta_buf_printf(&b, "%s%d", i ? ", " : "", s->v[i]);
	ta_buf_puts(&b, s->n == 1 ? ",)" : ")");
	return ta_buf_steal(&b);
}

/* A small positive integer literal. */
static bool small_int(const char *t, int *v)
{
	if (!*t || strlen(t) > 3)
		return false;
	for (const char *p = t; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	*v = atoi(t);
	return *v > 0;
}

/* What the current configs teach: their tile dicts (as written, each
 * once) and the stages and warps they use. */
typedef struct p1_seed {
	char **tiles;
	size_t tile_count;
	iset stages, warps;
	bool keep_stages;         /* the launches' depths stay candidates on every GPU */
	bool pin_stages, pin_warps; /* the author's num_stages=1 / num_warps=1: every config keeps it */
	char *extra;              /* launch options every config carries (", num_ctas=1"), or NULL */
	/* options a launch computes per call (`4 if BLOCK_D <= 64 else 8`):
	 * each value is tried in every config, which keeps the author's choice
	 * only where the key holds what the choice reads */
	struct {
		TSNode value;
		const ta_launch *launch;
		const char *option;
		uint32_t line;
	} computed[4];
	size_t computed_count;
} p1_seed;

static void p1_seed_free(p1_seed *s)
{
	for (size_t i = 0; i < s->tile_count; i++)
		free(s->tiles[i]);
	free(s->tiles);
	free(s->extra);
}

static bool occupancy_name(const char *n)
{
	return !strcasecmp(n, "occupancy") || !strcasecmp(n, "NUM_SMS") || !strcasecmp(n, "NUM_SM") ||
	       !strcasecmp(n, "NUM_PROGRAMS");
}

static int p1_seeds(const ta_model *m, const ta_kernel *k, p1_seed *s, char **why)
{
	const ta_autotune *a = k->autotune;
	bool occupancy = false;
	for (size_t i = 0; i < a->config_count; i++) {
		const ta_config *c = &a->configs[i];
		TSNode dict = ta_edits_call_arg(m, ta_edits_node(m, c->span), 0, "kwargs");
		if (!ta_node_is(dict, "dictionary"))
			return ta_edits_refuse(why, "line %u: the config's parameters are not a literal dict", c->span.line);
		int st = 3, wa = 4;        /* Triton's defaults */
		for (size_t j = 0; j < c->option_count; j++) {
			const ta_kwarg *o = &c->options[j];
			int *to = !strcmp(o->name, "num_stages") ? &st : !strcmp(o->name, "num_warps") ? &wa : NULL;
			if (!to)
				return ta_edits_refuse(why, "line %u: a config sets %s, which the new list would not carry",
						       c->span.line, o->name);
			if (!small_int(o->value, to))
				return ta_edits_refuse(why, "line %u: %s=%s is not a literal", c->span.line, o->name,
						       o->value);
		}
		for (size_t j = 0; j < c->param_count; j++)
			occupancy |= occupancy_name(c->params[j].name);
		iset_add(&s->stages, st);
		iset_add(&s->warps, wa);
		char *t = ta_node_text(m->src, dict);
		bool seen = false;
		for (size_t j = 0; j < s->tile_count && !seen; j++)
			seen = !strcmp(s->tiles[j], t);
		if (seen) {
			free(t);
			continue;
		}
		s->tiles = ta_xrealloc(s->tiles, (s->tile_count + 1) * sizeof *s->tiles);
		s->tiles[s->tile_count++] = t;
	}
	if (k->persistent && !occupancy)
		return ta_edits_refuse(why, "persistent %s: occupancy must change its grid and tile-loop step too, "
				       "which is done by hand", k->name);
	return 0;
}

/* The pipeline depths of each GPU generation, seeded from the current
 * ones: Blackwell and Hopper have room for deeper pipelines; Ampere has
 * less shared memory, so it gets shallower ones. rows: sm100, sm90, sm80. */
static void p1_stage_rows(const iset *seed, iset rows[3])
{
	int lo = seed->v[0], hi = seed->v[seed->n - 1];
	rows[0] = *seed;
	rows[1] = *seed;
	rows[2] = (iset){ .n = 0 };
	iset_add(&rows[0], hi + 1);
	iset_add(&rows[0], hi + 2);
	iset_add(&rows[1], hi + 1);
	iset_add(&rows[2], lo > 2 ? lo - 1 : 2);
	iset_add(&rows[2], lo > 2 ? lo : 3);
	iset_add(&rows[2], lo);  /* an author's num_stages=1 stays a candidate */
}

/* The generation test: configs are built when the module is imported,
 * which must still work where no GPU is present (it takes the last row). */
static char *p1_capability_line(const char *torch)
{
	return ta_xasprintf("major, _ = %s.cuda.get_device_capability() if %s.cuda.is_available() else (0, 0)",
			    torch, torch);
}

static const char *const p1_heads[3] = { "if major >= 10:", "elif major == 9:", "else:" };

/* A literal list or tuple of small ints into s; false when it is not one. */
static bool int_list(const ta_model *m, TSNode n, iset *s)
{
	if (!ta_node_is(n, "list") && !ta_node_is(n, "tuple"))
		return false;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++) {
		char *t = ta_node_text(m->src, ta_node_named_child(n, i));
		int v;
		bool ok = small_int(t, &v);
		free(t);
		if (!ok)
			return false;
		iset_add(s, v);
	}
	return c > 0;
}

static bool p1_varies_occupancy(const ta_autotune *a)
{
	for (size_t i = 0; i < a->vary_count; i++)
		if (occupancy_name(a->varies[i]))
			return true;
	return false;
}

/* The builder function, at the indentation of the kernel's definition. */
static char *p1_function(const ta_model *m, const ta_kernel *k, const p1_seed *s, const char *fn,
			 const char *torch, const char *config, const char *ind)
{
	const char *u = ta_edits_indent_unit(m, ind);
	iset rows[3], warps = s->warps;
	p1_stage_rows(&s->stages, rows);
	if (p1_loopless(m, k, 0) || s->pin_stages)  /* nothing to pipeline, or the author's one stage */
		rows[0] = rows[1] = rows[2] = s->stages;
	for (size_t i = 0; s->keep_stages && i < s->stages.n; i++)
		for (int r = 0; r < 3; r++)
			iset_add(&rows[r], s->stages.v[i]);
	if (!s->pin_warps) {
		iset_add(&warps, 4);
		iset_add(&warps, 8);
	}
	const char *extra = s->extra ? s->extra : "";
	char *w = iset_tuple(&warps), *cap = p1_capability_line(torch);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sdef %s():\n", ind, fn);
	bool tileless = s->tile_count == 1 && !strcmp(s->tiles[0], "{}");
	char *r0 = iset_tuple(&rows[0]), *r1 = iset_tuple(&rows[1]), *r2 = iset_tuple(&rows[2]);
	if ((s->pin_stages || s->pin_warps) && !strcmp(r0, r1) && !strcmp(r1, r2)) {
		/* the author's pins leave nothing that differs by GPU generation:
		 * no capability branch (nor CUDA queried at import) */
		ta_buf_printf(&b, "%s%s# %s's %s, with the launch's %s kept in every config\n", ind, u, k->name,
			      tileless ? "launch options" : "tiles",
			      s->pin_stages && s->pin_warps ? "num_stages=1 and num_warps=1" :
			      s->pin_stages ? "num_stages=1" : "num_warps=1");
		ta_buf_printf(&b, "%s%sstages, warps = %s, %s\n", ind, u, r0, w);
	} else {
		ta_buf_printf(&b, "%s%s# %s's %s on each GPU generation, with pipeline depths that fit it\n", ind, u,
			      k->name, tileless ? "launch options" : "tiles");
		ta_buf_printf(&b, "%s%s%s\n", ind, u, cap);
		const char *st[3] = { r0, r1, r2 };
		for (int i = 0; i < 3; i++)
			ta_buf_printf(&b, "%s%s%s\n%s%s%sstages, warps = %s, %s\n", ind, u, p1_heads[i], ind, u, u, st[i],
				      w);
	}
	free(cap);
	free(r0);
	free(r1);
	free(r2);
	if (tileless) {
		ta_buf_printf(&b, "%s%sreturn [%s({}, num_stages=s, num_warps=w%s) for s in stages for w in warps]\n\n\n",
			      ind, u, config, extra);
	} else {
		ta_buf_printf(&b, "%s%stiles = [\n", ind, u);
		for (size_t i = 0; i < s->tile_count; i++)
			ta_buf_printf(&b, "%s%s%s%s,\n", ind, u, u, s->tiles[i]);
		ta_buf_printf(&b, "%s%s]\n", ind, u);
		ta_buf_printf(&b, "%s%sreturn [\n%s%s%s%s(dict(t), num_stages=s, num_warps=w%s)\n", ind, u, ind, u, u,
			      config, extra);
		ta_buf_printf(&b, "%s%s%sfor t in tiles for s in stages for w in warps\n%s%s]\n\n\n", ind, u, u, ind,
			      u);
	}
	free(w);
	return ta_buf_steal(&b);
}

/* P1 on a comprehension of configs (the common form in larger kernel
 * libraries): it moves into a function whose pipeline depths depend on the
 * GPU generation; the comprehension iterates over them and is otherwise
 * kept as written. */
static int p1_comprehension(const ta_model *m, const ta_kernel *k, const char *fn, const char *torch,
			    ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	TSNode comp = ta_edits_node(m, a->configs_span), body = ta_node_field(comp, "body");
	if (!ta_node_is(comp, "list_comprehension"))
		return ta_edits_refuse(why, "%s's configs are a comprehension written elsewhere: move it by hand",
				       k->name);
	char *canon = ta_node_is(body, "call") ? ta_model_canonical(m, ta_node_field(body, "function")) : NULL;
	bool is_config = canon && ta_name_is(canon, "triton.Config");
	free(canon);
	if (!is_config)
		return ta_edits_refuse(why, "line %u: the comprehension does not make one triton.Config per item",
				       a->configs_span.line);
	if (ta_node_contains_identifier(m->src, comp, "stages") || ta_node_contains_identifier(m->src, comp, "major"))
		return ta_edits_refuse(why, "line %u: the comprehension already uses the names stages or major",
				       a->configs_span.line);
	if (k->persistent && !p1_varies_occupancy(a))
		return ta_edits_refuse(why, "persistent %s: occupancy must change its grid and tile-loop step too, "
				       "which is done by hand", k->name);
	if (p1_loopless(m, k, 0))
		return ta_edits_refuse(why, "%s has no loop for num_stages to pipeline: per-GPU tiles and warps "
				       "are chosen by hand", k->name);
	/* What num_stages is now, and the change that makes it iterate stages. */
	uint32_t cs = ts_node_start_byte(comp), ce = ts_node_end_byte(comp);
	TSNode st = ta_edits_call_arg(m, body, 2, "num_stages");
	iset seed = { .n = 0 };
	uint32_t r0 = 0, r1 = 0;  /* range of comp replaced by rtext */
	const char *rtext = "stages";
	char *clause = NULL;      /* added after the last clause */
	uint32_t clause_at = 0;
	if (ta_node_is(st, "identifier")) {
		uint32_t n = ta_node_named_count(comp);
		for (uint32_t i = 0; i < n && !r1; i++) {
			TSNode c = ta_node_named_child(comp, i);
			if (!ta_node_is(c, "for_in_clause"))
				continue;
			char *lv = ta_node_text(m->src, ta_node_field(c, "left"));
			bool same = ta_node_text_eq(m->src, st, lv);
			free(lv);
			TSNode right = ta_node_field(c, "right");
			if (same && int_list(m, right, &seed)) {
				r0 = ts_node_start_byte(right);
				r1 = ts_node_end_byte(right);
			}
		}
		if (!r1) {
			char *v = ta_node_text(m->src, st);
			int rc = ta_edits_refuse(why, "line %u: num_stages=%s does not iterate a literal list of the "
						 "comprehension", a->configs_span.line, v);
			free(v);
			return rc;
		}
	} else {
		int v = 3;  /* Triton's default */
		char *t = ts_node_is_null(st) ? NULL : ta_node_text(m->src, st);
		bool ok = !t || small_int(t, &v);
		free(t);
		if (!ok || ta_node_contains_identifier(m->src, comp, "num_stages") != !ts_node_is_null(st))
			return ta_edits_refuse(why, "line %u: num_stages of the comprehension is neither a literal nor "
					       "one of its loop variables", a->configs_span.line);
		iset_add(&seed, v);
		if (!ts_node_is_null(st)) {
			r0 = ts_node_start_byte(st);
			r1 = ts_node_end_byte(st);
			rtext = "num_stages";
		} else {
			/* no num_stages yet: one more keyword after the last argument */
			TSNode args = ta_node_field(body, "arguments");
			uint32_t n = ta_node_named_count(args);
			if (!n)
				return ta_edits_refuse(why, "line %u: a triton.Config without arguments",
						       a->configs_span.line);
			r0 = r1 = ts_node_end_byte(ta_node_named_child(args, n - 1));
			rtext = ", num_stages=num_stages";
		}
		uint32_t n = ta_node_named_count(comp);
		TSNode last = ta_node_named_child(comp, n - 1);
		while (ta_node_is(last, "comment") && n > 1)
			last = ta_node_named_child(comp, --n - 1);
		clause_at = ts_node_end_byte(last);
		clause = ta_xstrdup(" for num_stages in stages");
	}
	/* The comprehension's text with the change, its continuation lines
	 * moved to the function body's indentation. */
	char *ind = ta_edits_indent_at(m, k->span.start);
	const char *u = ta_edits_indent_unit(m, ind);
	char *old_ind = ta_edits_indent_at(m, cs), *body_ind = ta_xasprintf("%s%s", ind, u);
	ta_buf t = TA_BUF_INIT;
	for (uint32_t i = cs; i < ce; i++) {
		if (i == r0)
			ta_buf_puts(&t, rtext);
		if (clause && i == clause_at)
			ta_buf_puts(&t, clause);
		if (i >= r0 && i < r1)
			continue;
		char ch = m->src->text[i];
		ta_buf_putc(&t, ch);
		if (ch == '\n' && !strncmp(m->src->text + i + 1, old_ind, strlen(old_ind))) {
			ta_buf_puts(&t, body_ind);
			i += (uint32_t)strlen(old_ind);
		}
	}
	char *comp_text = ta_buf_steal(&t);
	iset rows[3];
	p1_stage_rows(&seed, rows);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sdef %s():\n", ind, fn);
	ta_buf_printf(&b, "%s# %s's configs on each GPU generation, with pipeline depths that fit it\n", body_ind,
		      k->name);
	char *cap = p1_capability_line(torch);
	ta_buf_printf(&b, "%s%s\n", body_ind, cap);
	free(cap);
	for (int i = 0; i < 3; i++) {
		char *tu = iset_tuple(&rows[i]);
		ta_buf_printf(&b, "%s%s\n%s%sstages = %s\n", body_ind, p1_heads[i], body_ind, u, tu);
		free(tu);
	}
	ta_buf_printf(&b, "%sreturn %s\n\n\n", body_ind, comp_text);
	char *def = ta_buf_steal(&b), *callt = ta_xasprintf("%s()", fn);
	uint32_t at = ta_edits_line_start(m, k->span.start);
	ta_edit_replace(out, at, at, def);
	ta_edit_replace(out, a->configs_span.start, a->configs_span.end, callt);
	ta_edit_set_title(out, "%s(): %s's pipeline depths per GPU generation", fn, k->name);
	out->line = a->configs_span.line;
	free(def);
	free(callt);
	free(comp_text);
	free(old_ind);
	free(body_ind);
	free(ind);
	free(clause);
	return 0;
}


/* A module variable holding the configs is read from its first binding;
 * another module-level binding of it (`CONFIGS += [...]` under a back-end
 * test, as fla's chunk_o.py widens Intel's) would be lost by one new list.
 * Refuses at the first such statement. */
static int p1_configs_rebound(const ta_model *m, const ta_kernel *k, char **why)
{
	const ta_autotune *a = k->autotune;
	if (a->configs_kind != TA_CONFIGS_NAME || !a->config_count)
		return 0;
	TSNode name = ta_edits_node(m, a->configs_span);
	if (!ta_node_is(name, "identifier"))
		return 0;
	uint32_t first = a->configs[0].span.start;
	char *nm = ta_node_text(m->src, name);
	int rc = 0;
	for (size_t i = 0; i < m->assign_node_count && rc == 0; i++) {
		TSNode n = m->assign_nodes[i].node;
		TSNode left = ta_node_field(n, "left");
		if (m->assign_nodes[i].function != -1 || !ta_node_is(left, "identifier") ||
		    !ta_node_text_eq(m->src, left, nm))
			continue;
		if (ts_node_start_byte(n) <= first && first < ts_node_end_byte(n))
			continue;         /* the binding the configs were read from */
		TSNode cond = ta_node_ancestor(n, "if_statement");
		char *under = ts_node_is_null(cond) ? ta_xstrdup("")
			: ta_xasprintf(" under the if at line %u", ts_node_start_point(cond).row + 1);
		rc = ta_edits_refuse(why, "line %u: %s is bound again%s, and one new list would drop what that "
				     "adds: widen %s's configs by hand", ts_node_start_point(n).row + 1, nm, under,
				     k->name);
		free(under);
	}
	free(nm);
	return rc;
}

static int p1_roundtrip(const ta_model *m, const ta_kernel *k, char **why);
static int p1_one_config_comment(const ta_model *m, const ta_kernel *k, size_t ki, char **why);

static int p1_autotuned(const ta_model *m, const ta_kernel *k, ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	/* several tuners (a small-problem list and a large one) are a split the
	 * author made: one generator for all would undo it */
	if (a->tuners > 1)
		return ta_edits_refuse(why, "%s is tuned by %d tuners, each with its own config list: widen each "
				       "by hand", k->name, a->tuners);
	/* more configs than the author's: the same round-trips break them */
	if (p1_roundtrip(m, k, why) != 0 || p1_one_config_comment(m, k, (size_t)(k - m->kernels), why) != 0)
		return -1;
	if (a->configs_kind == TA_CONFIGS_FUNCTION)
		return ta_edits_refuse(why, "%s's configs come from %s(): widen that function by hand", k->name,
				       a->configs_function);
	if (a->configs_kind == TA_CONFIGS_COMPREHENSION) {
		if (ta_edits_other_backend(m, P1_CUDA_BRANCH, why) != 0)
			return -1;
		char *torch = ta_edits_module(m, "torch");
		char *fn = ta_xasprintf("%s_configs", k->name);
		int rc = !torch ? ta_edits_refuse(why, "the file does not import torch") :
			 ta_edits_name_taken(m, fn) ? ta_edits_refuse(why, "the name %s() is taken", fn) :
			 p1_comprehension(m, k, fn, torch, out, why);
		free(fn);
		free(torch);
		return rc;
	}
	if ((a->configs_kind != TA_CONFIGS_LIST && a->configs_kind != TA_CONFIGS_NAME) || !a->config_count)
		return ta_edits_refuse(why, "%s's configs are not a literal list in this file", k->name);
	if (p1_configs_rebound(m, k, why) != 0)
		return -1;
	if (ta_edits_other_backend(m, P1_CUDA_BRANCH, why) != 0)
		return -1;
	char *torch = ta_edits_module(m, "torch");
	char *config = ta_edits_module(m, "triton.Config");
	if (!torch || !config) {
		free(torch);
		free(config);
		return ta_edits_refuse(why, "the file does not import %s", torch ? "triton" : "torch");
	}
	p1_seed s = { 0 };
	int rc = p1_seeds(m, k, &s, why);
	char *fn = ta_xasprintf("%s_configs", k->name);
	if (rc == 0 && ta_edits_name_taken(m, fn))
		rc = ta_edits_refuse(why, "the name %s() is taken", fn);
	if (rc == 0) {
		uint32_t at = ta_edits_line_start(m, k->span.start);
		char *ind = ta_edits_indent_at(m, k->span.start);
		char *def = p1_function(m, k, &s, fn, torch, config, ind);
		char *callt = ta_xasprintf("%s()", fn);
		ta_edit_replace(out, at, at, def);
		ta_edit_replace(out, a->configs_span.start, a->configs_span.end, callt);
		ta_edit_set_title(out, "%s(): %s's configs per GPU generation, varying num_stages and num_warps", fn,
				  k->name);
		/* where the detector reports: a named list at its first config */
		out->line = a->configs_kind == TA_CONFIGS_NAME ? a->configs[0].span.line : a->configs_span.line;
		free(callt);
		free(def);
		free(ind);
	}
	free(fn);
	p1_seed_free(&s);
	free(torch);
	free(config);
	return rc;
}

/* ---- P1: what autotuning a kernel must not break ------------------------- */

/* How a kernel reaches memory through one of its parameters. */
enum { P1_READ = 1, P1_WRITE = 2, P1_ATOMIC = 4 };

/* name is the base an address expression n starts from: alone, the first
 * term of a + or - chain (`x_ptr + row * stride + offs`), a block pointer's or a
 * descriptor's base, what tl.advance, tl.multiple_of, .to() or either side
 * of tl.where keep; never a stride or an offset it is multiplied into. */
static bool p1_base_in(const ta_model *m, TSNode n, const char *name)
{
	n = ta_node_unparen(n);
	/* down a + or - chain's left side in a loop: a chain of 100,000 terms
	 * (tests/robust/long_chain.sh) would overflow the stack recursing */
	while (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		if (!ta_node_text_eq(m->src, op, "+") && !ta_node_text_eq(m->src, op, "-"))
			return false;
		n = ta_node_unparen(ta_node_field(n, "left"));
	}
	if (ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "identifier"))
		return ta_node_text_eq(m->src, n, name);
	if (ta_node_is(n, "conditional_expression"))
		return p1_base_in(m, ta_node_named_child(n, 0), name) || p1_base_in(m, ta_node_named_child(n, 2), name);
	if (ta_node_is(n, "call")) {
		TSNode fn = ta_node_field(n, "function"), args = ta_node_field(n, "arguments");
		char *t = ta_node_text(m->src, fn);
		size_t l = t ? strlen(t) : 0;
		bool keeps = false;
		static const char *const ends[] = { "make_block_ptr", "make_tensor_descriptor", "advance", "multiple_of",
						    "max_contiguous", ".to", NULL };
		for (size_t i = 0; ends[i] && !keeps; i++) {
			size_t e = strlen(ends[i]);
			keeps = l >= e && !strcmp(t + l - e, ends[i]);
		}
		bool method = t && l >= 3 && !strcmp(t + l - 3, ".to");
		bool pick = t && l >= 5 && !strcmp(t + l - 5, "where");
		free(t);
		if (pick) {  /* tl.where(is_q, q_ptr, k_ptr): either one */
			uint32_t c = ts_node_is_null(args) ? 0 : ta_node_named_count(args);
			return c == 3 && (p1_base_in(m, ta_node_named_child(args, 1), name) ||
					  p1_base_in(m, ta_node_named_child(args, 2), name));
		}
		if (!keeps)
			return false;
		if (method)
			return p1_base_in(m, ta_node_field(fn, "object"), name);
		uint32_t c = ts_node_is_null(args) ? 0 : ta_node_named_count(args);
		for (uint32_t i = 0; i < c; i++) {
			TSNode a = ta_node_named_child(args, i);
			if (ta_node_is(a, "keyword_argument")) {
				if (ta_node_text_eq(m->src, ta_node_field(a, "name"), "base"))
					return p1_base_in(m, ta_node_field(a, "value"), name);
				continue;
			}
			return p1_base_in(m, a, name);  /* the first positional one */
		}
	}
	return false;
}

/* The names of k that hold an address computed from param: param itself and
 * what is assigned from it by arithmetic or a block pointer/descriptor
 * (never a value loaded through it). names holds n, grows. */
static size_t p1_derived(const ta_model *m, const ta_kernel *k, const char *param, char ***names)
{
	size_t n = 1;
	char **v = ta_xcalloc(1, sizeof *v);
	v[0] = ta_xstrdup(param);
	for (bool grew = true; grew;) {
		grew = false;
		ta_walk cur;
		ta_walk_start(&cur, k->node);
		for (;;) {
			TSNode a = ta_walk_node(&cur);
			/* `p += N` steps a pointer by N: p keeps the tensor it points
			 * into, and N is no address (tileadvise's own rewrite of an
			 * indexed loop into an advanced pointer) */
			if (ta_node_is(a, "assignment")) {
				TSNode l = ta_node_field(a, "left"), r = ta_node_field(a, "right");
				if (ta_node_is(l, "identifier") && !ts_node_is_null(r)) {
					char *lt = ta_node_text(m->src, l);
					bool known = false, from = false;
					for (size_t i = 0; i < n && !known; i++)
						known = !strcmp(v[i], lt);
					for (size_t i = 0; i < n && !known && !from; i++)
						from = p1_base_in(m, r, v[i]);
					if (!known && from) {
						v = ta_xrealloc(v, (n + 1) * sizeof *v);
						v[n++] = lt;
						lt = NULL;
						grew = true;
					}
					free(lt);
				}
			}
			if (!ta_walk_next(&cur, true))
				break;
		}
		ta_walk_finish(&cur);
	}
	*names = v;
	return n;
}

static void p1_names_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* The address operand of a load, store or atomic, as a node. */
static TSNode p1_address(const ta_model *m, const ta_op *op)
{
	if (op->arg_count)
		return ta_edits_node(m, op->args[0]);
	const ta_kwarg *p = ta_kwarg_find(op->kwargs, op->kwarg_count, "pointer");
	return p ? ta_edits_node(m, p->value_span) : (TSNode){ 0 };
}

static bool p1_mentions_any(const ta_model *m, TSNode n, char **v, size_t c)
{
	for (size_t i = 0; i < c && !ts_node_is_null(n); i++)
		if (p1_base_in(m, n, v[i]))
			return true;
	return false;
}

/* How k reads and writes memory through param (P1_* bits), following the
 * helpers it passes an address to, *line: the first write or atomic. */
static unsigned p1_access(const ta_model *m, const ta_kernel *k, const char *param, int depth, uint32_t *line)
{
	char **v;
	size_t c = p1_derived(m, k, param, &v);
	unsigned acc = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		unsigned bit = 0;
		bool hit = false;
		switch (op->kind) {
		case TA_OP_LOAD: bit = P1_READ; hit = p1_mentions_any(m, p1_address(m, op), v, c); break;
		case TA_OP_STORE: bit = P1_WRITE; hit = p1_mentions_any(m, p1_address(m, op), v, c); break;
		case TA_OP_ATOMIC: bit = P1_ATOMIC; hit = p1_mentions_any(m, p1_address(m, op), v, c); break;
		case TA_OP_DESC_LOAD:
		case TA_OP_DESC_STORE:
			bit = op->kind == TA_OP_DESC_LOAD ? P1_READ : P1_WRITE;
			for (size_t j = 0; j < c && op->receiver && !hit; j++)
				hit = !strcmp(op->receiver, v[j]);
			break;
		case TA_OP_HELPER_CALL:
			if (depth < 3 && op->helper >= 0 && (size_t)op->helper < m->kernel_count) {
				const ta_kernel *h = &m->kernels[op->helper];
				for (size_t j = 0; j < op->arg_count && j < h->param_count; j++)
					if (p1_mentions_any(m, ta_edits_node(m, op->args[j]), v, c)) {
						uint32_t hl = 0;
						unsigned b = p1_access(m, h, h->params[j].name, depth + 1, &hl);
						if ((b & (P1_WRITE | P1_ATOMIC)) && !*line)
							*line = op->span.line;
						acc |= b;
					}
			}
			break;
		default:
			break;
		}
		if (hit) {
			acc |= bit;
			if (bit != P1_READ && !*line)
				*line = op->span.line;
		}
	}
	p1_names_free(v, c);
	return acc;
}

/* A parameter used as an address (loaded, stored, a descriptor's base):
 * a tensor, which the autotuner keys by identity. */
static bool p1_address_param(const ta_model *m, const ta_kernel *k, const ta_param *p)
{
	uint32_t line = 0;
	if (p->constexpr_)
		return false;
	if (strstr(p->name, "ptr") || strstr(p->name, "Ptr") || strstr(p->name, "PTR"))
		return true;
	return p1_access(m, k, p->name, 0, &line) != 0;
}

static TSNode p1_host_node(const ta_model *m, const ta_launch *l);

/* The names a launch argument may stand for in the function that holds
 * the launch: the name itself, what it is bound to there on any branch
 * (`dX = dY`, its place in `dG, dU = G, U`, either arm of `q if inplace
 * else torch.empty_like(q)`), and the tensor a host descriptor built on it
 * covers (`TensorDescriptor.from_tensor(dG, ...)`, then desc is set). */
typedef struct p1_roots {
	char *v[12];
	size_t n;
	bool desc;
} p1_roots;

static void p1_roots_free(p1_roots *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	r->n = 0;
}

/* What assignment asg binds to name (its place in a tuple on both sides),
 * or a null node. */
static TSNode p1_bound_value(const ta_model *m, TSNode asg, const char *name)
{
	TSNode left = ta_node_field(asg, "left"), right = ta_node_unparen(ta_node_field(asg, "right"));
	if (ta_node_is(left, "identifier"))
		return ta_node_text_eq(m->src, left, name) ? right : (TSNode){ 0 };
	if ((ta_node_is(left, "pattern_list") || ta_node_is(left, "tuple_pattern")) &&
	    (ta_node_is(right, "expression_list") || ta_node_is(right, "tuple")) &&
	    ta_node_named_count(left) == ta_node_named_count(right))
		for (uint32_t i = 0; i < ta_node_named_count(left); i++)
			if (ta_node_text_eq(m->src, ta_node_named_child(left, i), name))
				return ta_node_unparen(ta_node_named_child(right, i));
	return (TSNode){ 0 };
}

static void p1_value_roots(const ta_model *m, TSNode host, TSNode v, p1_roots *r, int depth);

static void p1_name_roots(const ta_model *m, TSNode host, const char *name, p1_roots *r, int depth)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i], name))
			return;
	if (r->n == sizeof r->v / sizeof *r->v)
		return;
	r->v[r->n++] = ta_xstrdup(name);
	if (depth >= 3)
		return;
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, host, name, &d);
	for (size_t i = 0; i < d.n; i++)
		if (ta_node_is(d.v[i], "assignment")) {
			TSNode val = p1_bound_value(m, d.v[i], name);
			if (!ts_node_is_null(val))
				p1_value_roots(m, host, val, r, depth + 1);
		}
}

static void p1_value_roots(const ta_model *m, TSNode host, TSNode v, p1_roots *r, int depth)
{
	v = ta_node_unparen(v);
	if (ta_node_is(v, "identifier")) {
		char *t = ta_node_text(m->src, v);
		p1_name_roots(m, host, t, r, depth);
		free(t);
	} else if (ta_node_is(v, "conditional_expression") && ta_node_named_count(v) == 3) {
		p1_value_roots(m, host, ta_node_named_child(v, 0), r, depth);
		p1_value_roots(m, host, ta_node_named_child(v, 2), r, depth);
	} else if (ta_node_is(v, "call")) {
		char *fn = ta_node_text(m->src, ta_node_field(v, "function"));
		size_t l = fn ? strlen(fn) : 0;
		bool desc = fn && ((l >= 16 && !strcmp(fn + l - 16, "TensorDescriptor")) ||
				   (l >= 11 && !strcmp(fn + l - 11, "from_tensor")));
		free(fn);
		TSNode t = desc ? ta_edits_call_arg(m, v, 0, "tensor") : (TSNode){ 0 };
		if (!ts_node_is_null(t)) {
			r->desc = true;
			p1_value_roots(m, host, t, r, depth);
		}
	}
}

/* The node of what launch l passes k for parameter i, or a null node. */
static TSNode p1_launch_node(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t i)
{
	if (i < l->arg_count)
		return ta_edits_node(m, l->args[i]);
	const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, k->params[i].name);
	return kw ? ta_edits_node(m, kw->value_span) : (TSNode){ 0 };
}

/* A launch passes the tensor it gives k for written parameter w also for
 * a parameter k reads (an in-place call: `k[grid](x, x, n)`, `dX = dY`
 * before `k[grid](dY, dX)`, or descriptors built on one tensor). 1 when
 * they may be one tensor, 2 when w's is a host descriptor over it (which
 * restore_value cannot copy), 0 otherwise; *line: that launch's. */
static int p1_aliased(const ta_model *m, const ta_kernel *k, size_t ki, size_t w, const unsigned *acc,
		      uint32_t *line)
{
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		TSNode host = p1_host_node(m, l), wn = p1_launch_node(m, l, k, w);
		if (ts_node_is_null(wn))
			continue;
		char *wt = ta_node_text(m->src, wn);
		p1_roots rw = { .n = 0 };
		p1_value_roots(m, host, wn, &rw, 0);
		int same = 0;
		for (size_t r = 0; r < k->param_count && !same; r++) {
			if (r == w || !(acc[r] & P1_READ))
				continue;
			TSNode rn = p1_launch_node(m, l, k, r);
			if (ts_node_is_null(rn))
				continue;
			char *rt = ta_node_text(m->src, rn);
			p1_roots rr = { .n = 0 };
			p1_value_roots(m, host, rn, &rr, 0);
			bool hit = !strcmp(rt, wt);
			for (size_t a = 0; a < rw.n && !hit; a++)
				for (size_t b = 0; b < rr.n && !hit; b++)
					hit = !strcmp(rw.v[a], rr.v[b]);
			if (hit)
				same = rw.desc ? 2 : 1;
			p1_roots_free(&rr);
			free(rt);
		}
		p1_roots_free(&rw);
		free(wt);
		if (same) {
			*line = l->span.line;
			return same;
		}
	}
	return 0;
}

/* k writes through a host descriptor over a tensor it also reads (the
 * launches build both on one tensor): restore_value copies tensors, not
 * descriptors, so the tuner's trial launches would each overwrite what the
 * next one reads. Returns 0, or -1 with *why. */
static int p1_descriptor_inplace(const ta_model *m, const ta_kernel *k, size_t ki, char **why)
{
	unsigned *acc = ta_xcalloc(k->param_count + 1, sizeof *acc);
	uint32_t wl = 0;
	int rc = 0;
	for (size_t i = 0; i < k->param_count; i++)
		if (!k->params[i].constexpr_)
			acc[i] = p1_access(m, k, k->params[i].name, 0, &wl);
	for (size_t i = 0; i < k->param_count && rc == 0; i++) {
		uint32_t line = 0;
		if ((acc[i] & P1_WRITE) && p1_aliased(m, k, ki, i, acc, &line) == 2)
			rc = ta_edits_refuse(why, "line %u: %s writes %s, a host tensor descriptor over a tensor it also "
					     "reads; restore_value cannot copy a descriptor, so each config tried would "
					     "overwrite what the next one reads", line, k->name, k->params[i].name);
	}
	free(acc);
	return rc;
}

/* The arguments autotuning would run k on again and again: read and
 * written (also through another argument the launch passes the same tensor
 * for), or accumulated into with atomics. Returns the restore_value=
 * list ("\"dq\", \"dk\"", caller frees) or NULL; *names: the same without
 * quotes for the title; *line: the first write. */
/* Which parameters of k the tuner must restore (restore[i]), and the line
 * of the first write among them (*line, 0 when none). Caller frees. */
static bool *p1_restored(const ta_model *m, const ta_kernel *k, uint32_t *line)
{
	size_t ki = (size_t)(k - m->kernels);
	unsigned *acc = ta_xcalloc(k->param_count + 1, sizeof *acc);
	uint32_t *wl = ta_xcalloc(k->param_count + 1, sizeof *wl);
	bool *restore = ta_xcalloc(k->param_count + 1, sizeof *restore);
	*line = 0;
	for (size_t i = 0; i < k->param_count; i++)
		if (!k->params[i].constexpr_)
			acc[i] = p1_access(m, k, k->params[i].name, 0, &wl[i]);
	for (size_t i = 0; i < k->param_count; i++) {
		unsigned a = acc[i];
		restore[i] = (a & P1_ATOMIC) || ((a & P1_READ) && (a & P1_WRITE)) ||
			     ((a & P1_WRITE) && p1_aliased(m, k, ki, i, acc, &(uint32_t){ 0 }));
		if (restore[i] && (!*line || (wl[i] && wl[i] < *line)))
			*line = wl[i];
	}
	free(acc);
	free(wl);
	return restore;
}

bool *ta_rule_tuner_restores(const ta_model *m, const ta_kernel *k, uint32_t *line)
{
	return p1_restored(m, k, line);
}

static char *p1_rmw_args(const ta_model *m, const ta_kernel *k, char **names, uint32_t *line)
{
	ta_buf b = TA_BUF_INIT, n = TA_BUF_INIT;
	bool *restore = p1_restored(m, k, line);
	for (size_t i = 0; i < k->param_count; i++) {
		if (!restore[i])
			continue;
		ta_buf_printf(&b, "%s\"%s\"", b.len ? ", " : "", k->params[i].name);
		ta_buf_printf(&n, "%s%s", n.len ? ", " : "", k->params[i].name);
	}
	free(restore);
	if (!b.len) {
		ta_buf_free(&b);
		ta_buf_free(&n);
		*names = NULL;
		return NULL;
	}
	*names = ta_buf_steal(&n);
	return ta_buf_steal(&b);
}

/* Assignment d gives name a value that is never None before launch l
 * for good: it is not None itself, comes before l, and runs on every path
 * that reaches l, or exactly where name was None (`if name is None:`). */
static bool p1_none_replaced(const ta_model *m, TSNode d, TSNode body, const char *name, const ta_launch *l)
{
	if (!ta_node_is(d, "assignment") || !ta_node_text_eq(m->src, ta_node_field(d, "left"), name) ||
	    ta_node_is(ta_node_unparen(ta_node_field(d, "right")), "none") ||
	    ts_node_start_point(d).row + 1 >= l->span.line)
		return false;
	TSNode stmt = ta_node_parent(d), block = ta_node_parent(stmt);
	if (ts_node_eq(block, body))
		return true;
	TSNode branch = ta_node_parent(block);
	if (!ta_node_is(branch, "if_statement") || !ts_node_eq(ta_node_field(branch, "consequence"), block) ||
	    !ts_node_eq(ta_node_parent(branch), body))
		return false;
	char *cond = ta_node_text(m->src, ta_node_unparen(ta_node_field(branch, "condition")));
	char *want = ta_xasprintf("%s is None", name);
	bool same = !strcmp(cond, want);
	free(cond);
	free(want);
	return same;
}

/* Where the function holding launch l may still hold None in name at the
 * launch: a parameter whose default is None, or an assignment of None,
 * that no later assignment replaces for good. Its line, or 0. */
static uint32_t p1_host_none(const ta_model *m, const ta_launch *l, const char *name)
{
	TSNode host = p1_host_node(m, l);
	TSNode def = ta_node_is(host, "decorated_definition") ? ta_node_field(host, "definition") : host;
	TSNode params = ta_node_field(def, "parameters"), body = ta_node_field(def, "body");
	uint32_t at = 0;
	for (uint32_t i = 0, c = ts_node_is_null(params) ? 0 : ta_node_named_count(params); i < c && !at; i++) {
		TSNode p = ta_node_named_child(params, i);
		if ((ta_node_is(p, "default_parameter") || ta_node_is(p, "typed_default_parameter")) &&
		    ta_node_text_eq(m->src, ta_node_field(p, "name"), name) &&
		    ta_node_is(ta_node_unparen(ta_node_field(p, "value")), "none"))
			at = ts_node_start_point(p).row + 1;
	}
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, host, name, &d);
	for (size_t i = 0; i < d.n && !at; i++)
		if (ta_node_is(d.v[i], "assignment") && ta_node_text_eq(m->src, ta_node_field(d.v[i], "left"), name) &&
		    ta_node_is(ta_node_unparen(ta_node_field(d.v[i], "right")), "none") &&
		    ts_node_start_point(d.v[i]).row + 1 < l->span.line)
			at = ts_node_start_point(d.v[i]).row + 1;
	for (size_t i = 0; i < d.n && at; i++)
		if (ts_node_start_point(d.v[i]).row + 1 > at && !ts_node_is_null(body) &&
		    p1_none_replaced(m, d.v[i], body, name, l))
			at = 0;
	return at;
}

/* A parameter the tuner would restore that a launch may pass as None
 * (an optional output): Triton's autotuner copies every restore_value
 * argument before its trial launches, and a None has nothing to copy, so
 * the first tuned call would raise. Returns 0, or -1 with *why. */
static int p1_optional_restored(const ta_model *m, const ta_kernel *k, size_t ki, const bool *restore,
				char **why)
{
	int rc = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; rc == 0 && (l = ta_launch_walk_next(&walk));) {
		for (size_t i = 0; rc == 0 && i < k->param_count; i++) {
			if (!restore[i])
				continue;
			char *arg = ta_edits_launch_arg(m, l, k, i);
			uint32_t at = !arg ? 0 : !strcmp(arg, "None") ? l->span.line : p1_host_none(m, l, arg);
			if (at)
				rc = ta_edits_refuse(why, "line %u: %s can be None at the launch of line %u, but %s "
						     "writes it, so restore_value would have to name it, and the "
						     "autotuner cannot copy a None before its trials", at, arg,
						     l->span.line, k->name);
			free(arg);
		}
	}
	return rc;
}

/* The file defines a torch.autograd.Function: its launches feed autograd,
 * which keeps tensors for the backward and checks their versions. */
static bool p1_file_feeds_autograd(const ta_model *m)
{
	TSNode root = ta_syntax_root(m->syn);
	for (uint32_t i = 0, c = ta_node_named_count(root); i < c; i++) {
		TSNode d = ta_node_named_child(root, i);
		if (ta_node_is(d, "decorated_definition"))
			d = ta_node_field(d, "definition");
		TSNode sup = ta_node_is(d, "class_definition") ? ta_node_field(d, "superclasses") : (TSNode){ 0 };
		for (uint32_t j = 0, n = ts_node_is_null(sup) ? 0 : ta_node_named_count(sup); j < n; j++) {
			char *base = ta_model_canonical(m, ta_node_named_child(sup, j));
			bool hit = base && ta_name_is(base, "torch.autograd.Function");
			free(base);
			if (hit)
				return true;
		}
	}
	return false;
}

/* The names value may stand for, as p1_value_roots finds them, also
 * through a view or slice of a tensor (`y.view(-1, n)`, `x[:, :d]`). */
static void p1_view_roots(const ta_model *m, TSNode host, TSNode v, p1_roots *r, int depth)
{
	p1_value_roots(m, host, v, r, depth);
	for (size_t i = 0; i < r->n; i++) {
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, host, r->v[i], &d);
		for (size_t j = 0; j < d.n; j++) {
			TSNode val = ta_node_is(d.v[j], "assignment") ? p1_bound_value(m, d.v[j], r->v[i]) : (TSNode){ 0 };
			TSNode fn = ta_node_is(val, "call") ? ta_node_field(val, "function") : (TSNode){ 0 };
			TSNode base = ta_node_is(fn, "attribute") ? ta_node_field(fn, "object")
				      : ta_node_is(val, "subscript") ? ta_node_field(val, "value") : (TSNode){ 0 };
			static const char *const views[] = { "view", "reshape", "view_as", "flatten", "squeeze",
							     "unsqueeze", "transpose", "permute", "t", "narrow",
							     "select", "expand", "contiguous" };
			bool view = ta_node_is(val, "subscript");
			for (size_t w = 0; !view && ta_node_is(fn, "attribute") && w < sizeof views / sizeof *views; w++)
				view = ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), views[w]);
			if (view && ta_node_is(ta_node_unparen(base), "identifier"))
				p1_value_roots(m, host, base, r, depth + 1);
		}
	}
}

/* A tensor the tuner would restore that a launch may take from its caller
 * (a parameter of the launching function, itself or a view of it), in a
 * file whose launches feed autograd: Triton's autotuner puts restore_value
 * tensors back with copy_, an in-place op autograd counts (the kernel's
 * own stores are not), so a tensor autograd saved for the backward would
 * then fail its version check there. Returns 0, or -1 with *why. */
static int p1_restores_caller_tensor(const ta_model *m, const ta_kernel *k, size_t ki, const bool *restore,
				     char **why)
{
	if (!p1_file_feeds_autograd(m))
		return 0;
	int rc = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; rc == 0 && (l = ta_launch_walk_next(&walk));) {
		TSNode host = p1_host_node(m, l);
		TSNode def = ta_node_is(host, "decorated_definition") ? ta_node_field(host, "definition") : host;
		TSNode params = ta_node_is(def, "function_definition") ? ta_node_field(def, "parameters") : (TSNode){ 0 };
		for (size_t i = 0; rc == 0 && i < k->param_count; i++) {
			TSNode an = restore[i] ? p1_launch_node(m, l, k, i) : (TSNode){ 0 };
			if (ts_node_is_null(an) || ts_node_is_null(params))
				continue;
			p1_roots r = { .n = 0 };
			p1_view_roots(m, host, an, &r, 0);
			for (uint32_t p = 0, c = ta_node_named_count(params); rc == 0 && p < c; p++) {
				TSNode pn = ta_node_named_child(params, p);
				TSNode name = ta_node_is(pn, "identifier") ? pn : ta_node_field(pn, "name");
				if (ta_node_is(pn, "typed_parameter"))
					name = ta_node_named_child(pn, 0);
				for (size_t a = 0; rc == 0 && a < r.n; a++)
					if (ta_node_text_eq(m->src, name, r.v[a])) {
						char *arg = ta_node_text(m->src, an);
						char *what = strcmp(arg, r.v[a]) ? ta_xasprintf("%s may be %s,", arg, r.v[a])
										 : ta_xasprintf("%s is", arg);
						rc = ta_edits_refuse(why, "line %u: %s a tensor the caller passes (line %u); "
								     "the autotuner would restore it with copy_, an in-place change "
								     "autograd records where %s's own stores are not, so a tensor "
								     "saved for the backward would fail autograd's version check",
								     l->span.line, what, ts_node_start_point(pn).row + 1, k->name);
						free(what);
						free(arg);
					}
			}
			p1_roots_free(&r);
		}
	}
	return rc;
}

/* A store or atomic of k whose address reaches none of its parameters (a
 * pointer loaded from a table): what it writes cannot be named in
 * restore_value. Its line, or 0. With atomics_only, only an atomic counts:
 * a plain store there writes the same values on each config's trial (so it
 * is stated as an assumption, not refused), while an atomic adds again. */
/* Whether an address reaches one of k's (runtime) parameters through the
 * names derived from it. */
static bool p1_address_named(const ta_model *m, const ta_kernel *k, TSNode addr)
{
	bool named = false;
	for (size_t j = 0; j < k->param_count && !named; j++) {
		if (k->params[j].constexpr_)
			continue;
		char **v;
		size_t c = p1_derived(m, k, k->params[j].name, &v);
		named = p1_mentions_any(m, addr, v, c);
		p1_names_free(v, c);
	}
	return named;
}

static uint32_t p1_unnamed_write(const ta_model *m, const ta_kernel *k, bool atomics_only)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_ATOMIC && (atomics_only || op->kind != TA_OP_STORE))
			continue;
		if (!p1_address_named(m, k, p1_address(m, op)))
			return op->span.line;
	}
	return 0;
}

/* The pointers loaded from memory (`p = tl.load(tab + i).to(tl.pointer_type(...))`)
 * an address reaches through its names: collected (names, owned), or,
 * with want, whether one of want's names is reached (hit). */
typedef struct p1_table_ptrs {
	char *names[8];
	size_t n;
	bool hit;
	const struct p1_table_ptrs *want;
} p1_table_ptrs;

static ta_values_step p1_table_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	p1_table_ptrs *t = ctx;
	if (!ta_node_is(n, "identifier"))
		return TA_VALUES_DESCEND;
	TSNode v = ta_values_def(m, n, NULL);
	if (ts_node_is_null(v) || !ta_node_contains_identifier(m->src, v, "pointer_type") ||
	    !ta_node_contains_identifier(m->src, v, "load"))
		return TA_VALUES_DESCEND;
	for (size_t i = 0; t->want && i < t->want->n && !t->hit; i++)
		t->hit = ta_node_text_eq(m->src, n, t->want->names[i]);
	if (!t->want && t->n < 8)
		t->names[t->n++] = ta_node_text(m->src, n);
	return t->hit ? TA_VALUES_STOP : TA_VALUES_SKIP;
}

/* A store of k through a pointer it loads from a table (p1_unnamed_write)
 * whose pointer a load of k also reads through: the kernel updates what
 * the table points at in place, which no restore_value can name. Its
 * line, or 0. */
/* Whether the store's address reaches none of k's parameters (the
 * pointer comes from a table) and a load of k reads the very same address
 * expression (`tl.load(p + idx)` ... `tl.store(p + idx, ...)`): an update in
 * place, whatever spells the pointer's type. */
static bool p1_unnamed_same_address(const ta_model *m, const ta_kernel *k, const ta_op *st)
{
	TSNode addr = p1_address(m, st);
	if (ts_node_is_null(addr) || p1_address_named(m, k, addr))
		return false;
	char *at = ta_node_text(m->src, addr);
	bool same = false;
	for (size_t j = 0; j < k->op_count && !same; j++) {
		if (k->ops[j].kind != TA_OP_LOAD)
			continue;
		TSNode la = p1_address(m, &k->ops[j]);
		same = !ts_node_is_null(la) && ta_node_text_eq(m->src, la, at);
	}
	free(at);
	return same;
}

static uint32_t p1_table_rmw(const ta_model *m, const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *st = &k->ops[i];
		if (st->kind != TA_OP_STORE)
			continue;
		if (p1_unnamed_same_address(m, k, st))
			return st->span.line;
		p1_table_ptrs w = { .n = 0 };
		ta_values_walk(m, p1_address(m, st), p1_table_visit, &w);
		bool rmw = false;
		for (size_t j = 0; j < k->op_count && w.n && !rmw; j++) {
			if (k->ops[j].kind != TA_OP_LOAD)
				continue;
			p1_table_ptrs r = { .want = &w };
			ta_values_walk(m, p1_address(m, &k->ops[j]), p1_table_visit, &r);
			rmw = r.hit;
		}
		for (size_t j = 0; j < w.n; j++)
			free(w.names[j]);
		if (rmw)
			return st->span.line;
	}
	return 0;
}

/* The file is written for (or also for) a back-end other than CUDA, where
 * what (a CUDA capability branch, a CUDA allocator) does not fit. Returns 0,
 * or -1 with *why. */
int ta_edits_other_backend(const ta_model *m, const char *what, char **why)
{
	ta_backend_fact b;
	switch (ta_file_other_backend(m, &b)) {
	case TA_BACKEND_FOLDER:
		return ta_edits_refuse(why, "the file is under %.*s/, a folder for another back-end than CUDA: %s",
				       b.len, b.text, what);
	case TA_BACKEND_TEST:
		return ta_edits_refuse(why, "line %u: the file tests %.*s, so its kernels also run on another "
				       "back-end, where %s", b.line, b.len, b.text, what);
	default:
		return 0;
	}
}

/* What the key holds for size parameter i: the argument every launch
 * passes a rounding of it for (`m_size // 32` as cache_key_m_size: the
 * author's coarse key, one tuning per bucket, not per length), else i. */
static const char *p1_key_name(const ta_model *m, const ta_kernel *k, size_t i)
{
	size_t ki = (size_t)(k - m->kernels);
	for (size_t j = 0; j < k->param_count; j++)
		if (j != i && !k->params[j].constexpr_ && ta_edits_rounds(m, k, ki, i, j))
			return k->params[j].name;
	return k->params[i].name;
}

/* The file's own autotune of another kernel leaves size parameter i out
 * of its key while keying on another size k also keys on (`key=["N"]` on
 * a kernel of M and N: a token count that would retune every step): the
 * author's choice for that size in this file. That kernel, or -1. */
static int p1_author_leaves_out(const ta_model *m, const ta_kernel *k, const bool *used, size_t i)
{
	const char *name = k->params[i].name;
	for (size_t o = 0; o < m->kernel_count; o++) {
		const ta_kernel *s = &m->kernels[o];
		const ta_param *sp = s != k && s->autotune && s->autotune->key_count ? ta_kernel_param(s, name) : NULL;
		if (!sp || sp->constexpr_)
			continue;
		bool in_key = false, shared = false;
		for (size_t j = 0; j < s->autotune->key_count; j++) {
			const char *kn = s->autotune->key[j];
			const ta_param *kp = ta_kernel_param(k, kn);
			in_key |= !strcmp(kn, name);
			shared |= kp && !kp->constexpr_ && used[kp - k->params];
		}
		if (!in_key && shared)
			return (int)o;
	}
	return -1;
}

/* A comparison that orders (<, <=, >, >=): a mask or a bound on a size.
 * An equality (`n_averaged == 0`, `MODE == 1`) tests a value or a mode: a
 * counter keyed on would tune again whenever it changes. */
static bool p1_ordering(TSNode n)
{
	if (!ta_node_is(n, "comparison_operator"))
		return false;
	uint32_t c = ts_node_child_count(n);
	for (uint32_t i = 0; i < c; i++) {
		TSNode ch = ts_node_child(n, i);
		if (ts_node_is_named(ch))
			continue;
		const char *t = ts_node_type(ch);
		if (!strcmp(t, "<") || !strcmp(t, "<=") || !strcmp(t, ">") || !strcmp(t, ">="))
			return true;
	}
	return false;
}

/* A node that bounds what it reads: a comparison (a mask), a loop's range
 * or a ceiling division. */
static bool p1_bounding(const ta_model *m, TSNode n)
{
	return p1_ordering(n) || ta_call_named(m, n, "cdiv") || ta_call_named(m, n, "range");
}

/* The @jit helper of the file that call n calls, or NULL. */
static const ta_kernel *p1_called_helper(const ta_model *m, const ta_kernel *k, TSNode n)
{
	TSNode fn = ta_node_field(n, "function");
	if (!ta_node_is(fn, "identifier"))
		return NULL;
	for (size_t j = 0; j < m->kernel_count; j++)
		if (&m->kernels[j] != k && ta_node_text_eq(m->src, fn, m->kernels[j].name))
			return &m->kernels[j];
	return NULL;
}

/* Whether helper h bounds what its parameter pi holds: in a mask, range or
 * cdiv of its own, or of a helper it passes it to (depth: helpers deep). */
static bool p1_helper_bounds(const ta_model *m, const ta_kernel *h, size_t pi, int depth);

/* For each argument of the helper call n that is a parameter of k: mark it
 * in used[] when the helper bounds it (sizes passed on: a loop over K in a
 * helper the kernel calls keys the kernel on K). */
static void p1_mark_passed(const ta_model *m, const ta_kernel *k, TSNode n, bool *used, int depth)
{
	const ta_kernel *h = p1_called_helper(m, k, n);
	TSNode args = ta_node_field(n, "arguments");
	if (!h || ts_node_is_null(args))
		return;
	for (uint32_t a = 0, pos = 0; a < ta_node_named_count(args); a++) {
		TSNode arg = ta_node_named_child(args, a);
		size_t hi = h->param_count;
		if (ta_node_is(arg, "keyword_argument")) {
			char *kw = ta_node_text(m->src, ta_node_field(arg, "name"));
			const ta_param *hp = kw ? ta_kernel_param(h, kw) : NULL;
			hi = hp ? (size_t)(hp - h->params) : h->param_count;
			arg = ta_node_field(arg, "value");
			free(kw);
		} else if (ta_node_is(arg, "list_splat") || ta_node_is(arg, "dictionary_splat")) {
			return;
		} else {
			hi = pos++;
		}
		if (hi >= h->param_count || !ta_node_is(arg, "identifier"))
			continue;
		char *an = ta_node_text(m->src, arg);
		const ta_param *kp = an ? ta_kernel_param(k, an) : NULL;
		free(an);
		if (kp && !used[kp - k->params] && p1_helper_bounds(m, h, hi, depth + 1))
			used[kp - k->params] = true;
	}
}

static bool p1_helper_bounds(const ta_model *m, const ta_kernel *h, size_t pi, int depth)
{
	if (depth > 3 || ts_node_is_null(h->node))
		return false;
	bool *used = ta_xcalloc(h->param_count ? h->param_count : 1, sizeof *used);
	ta_walk cur;
	ta_walk_start(&cur, h->node);
	for (;;) {
		TSNode n = ta_walk_node(&cur);
		if (p1_bounding(m, n) && ta_node_contains_identifier(m->src, n, h->params[pi].name))
			used[pi] = true;
		else if (ta_node_is(n, "call"))
			p1_mark_passed(m, h, n, used, depth);
		if (used[pi] || !ta_walk_next(&cur, true))
			break;
	}
	ta_walk_finish(&cur);
	bool r = used[pi];
	free(used);
	return r;
}

/* The size arguments read by a comparison (a mask), a loop's range or a
 * ceiling division, in the kernel or in a @jit helper it passes them to:
 * runtime ones, or (consts) constexpr ones that are not tiles. Strides
 * never. */
static char *p1_size_key_of(const ta_model *m, const ta_kernel *k, bool consts, char **skipped)
{
	bool *used = ta_xcalloc(k->param_count ? k->param_count : 1, sizeof *used);
	ta_walk cur;
	ta_walk_start(&cur, k->node);
	for (;;) {
		TSNode n = ta_walk_node(&cur);
		bool bound = p1_bounding(m, n);
		for (size_t i = 0; bound && i < k->param_count; i++) {
			const ta_param *p = &k->params[i];
			if ((consts ? p->constexpr_ && !is_tile_param(p) : !p->constexpr_) &&
			    strncmp(p->name, "stride", 6) && ta_node_contains_identifier(m->src, n, p->name))
				used[i] = true;
		}
		if (!bound && ta_node_is(n, "call")) {
			bool *passed = ta_xcalloc(k->param_count ? k->param_count : 1, sizeof *passed);
			p1_mark_passed(m, k, n, passed, 0);
			for (size_t i = 0; i < k->param_count; i++) {
				const ta_param *p = &k->params[i];
				if (passed[i] && (consts ? p->constexpr_ && !is_tile_param(p) : !p->constexpr_) &&
				    strncmp(p->name, "stride", 6))
					used[i] = true;
			}
			free(passed);
		}
		if (!ta_walk_next(&cur, true))
			break;
	}
	ta_walk_finish(&cur);
	/* never a tensor (keyed by identity: every call would tune again), nor
	 * what the author keeps from being specialised or out of a key */
	const ta_kwarg *dns = ta_kwarg_find(k->jit_kwargs, k->jit_kwarg_count, "do_not_specialize");
	ta_buf b = TA_BUF_INIT, sk = TA_BUF_INIT;
	int o;
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		if (!used[i])
			continue;
		if (p1_address_param(m, k, p))
			ta_buf_printf(&sk, "%s%s is a tensor", sk.len ? ", " : "", p->name);
		else if (dns && ta_edits_word_in(dns->value, strlen(dns->value), p->name))
			ta_buf_printf(&sk, "%s%s is in do_not_specialize", sk.len ? ", " : "", p->name);
		else if ((o = p1_author_leaves_out(m, k, used, i)) >= 0)
			ta_buf_printf(&sk, "%s%s is left out of the key of %s (line %u), which takes it too",
				      sk.len ? ", " : "", p->name, m->kernels[o].name, m->kernels[o].def_line);
		else
			ta_buf_printf(&b, "%s\"%s\"", b.len ? ", " : "", p1_key_name(m, k, i));
	}
	*skipped = sk.len ? ta_buf_steal(&sk) : (ta_buf_free(&sk), NULL);
	free(used);
	return b.len ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
}

/* The next entry of a key list (`"a", "b"`) from *c, without the spaces
 * before it, or NULL at its end; *c moves past it. */
static char *p1_key_entry(const char **c)
{
	*c += strspn(*c, " ");
	if (!**c)
		return NULL;
	size_t n = strcspn(*c, ",");
	char *one = ta_xasprintf("%.*s", (int)n, *c);
	*c += n + ((*c)[n] == ',');
	return one;
}

/* The kernel's size arguments, for the autotune key: parameters that are
 * not strides, read by a comparison (a mask), a loop's range or a ceiling
 * division; runtime ones first, then constexpr ones that are not tiles
 * (`K: tl.constexpr`, a head dimension): each of their values compiles a
 * kernel of its own anyway, and decides which configs fit in shared memory,
 * so a config tuned at one value is not reused at another. */
static char *p1_size_key(const ta_model *m, const ta_kernel *k, char **skipped)
{
	char *key = p1_size_key_of(m, k, false, skipped);
	if (!key && *skipped)
		return NULL;
	char *cskipped = NULL, *consts = p1_size_key_of(m, k, true, &cskipped);
	if (!key && !consts) {
		*skipped = cskipped;
		return NULL;
	}
	free(cskipped);
	if (!key)
		return consts;
	if (!consts)
		return key;
	/* a constexpr keyed through the runtime size it rounds is there once */
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, key);
	const char *c = consts;
	for (char *name; (name = p1_key_entry(&c)); free(name))
		if (!strstr(key, name))
			ta_buf_printf(&b, ", %s", name);
	free(key);
	free(consts);
	return ta_buf_steal(&b);
}

/* ---- P1: tiles the wrapper fixes ------------------------------------------ */

/* One tile (constexpr) parameter the launches of an untuned kernel pass. */
typedef struct p1_tile {
	const char *name;         /* the kernel's parameter */
	size_t param;             /* its index */
	int seed;                 /* the value launched */
	bool grid;                /* the grid divides a size by it (triton.cdiv) */
	bool split;               /* a persistent kernel divides a size by it itself */
	bool tuned;
	char *fixed;              /* why it stays as launched, or NULL */
} p1_tile;

typedef struct p1_tiles {
	p1_tile v[8];
	size_t n;
	bool dot;                 /* the kernel (or a helper it calls) multiplies tiles */
	bool divisible;           /* the kernel has unmasked accesses: keep what divides */
	uint32_t divisible_line;
	int same[8];              /* tl.static_assert(A == B): tiles of one group (1, 2, ...)
				     take one value in every config; 0: none */
} p1_tiles;

/* The tile splits the work among programs: through the grid, or through
 * a persistent kernel's own count of tiles. */
static bool p1_splits(const p1_tile *p)
{
	return p->grid || p->split;
}

/* The largest tile tried: tl.dot's operands from 16 up to 256 rows of
 * the grid's (128 along a loop's step), which registers and shared
 * memory bound; a kernel without a dot (a row reduction, an elementwise
 * pass) holds a vector per program, for which chunks of thousands are the
 * usual size. */
static int p1_tile_hi(const p1_tiles *t, const p1_tile *p)
{
	if (!t->dot)
		return 8192;
	return p1_splits(p) ? 256 : 128;
}

static void p1_tiles_free(p1_tiles *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].fixed);
}

/* The key gains the kernel's mode parameters (HEAD_DIM, STAGE, ...) that
 * the configs do not tune: each value compiles another kernel whose best
 * config differs, and a key without them is what S8 reports. */
static void p1_mode_key(const ta_kernel *k, const p1_tiles *t, size_t tuned, char **key)
{
	ta_buf b = TA_BUF_INIT;
	/* a tile the configs now set is no size to key on */
	const char *c = *key;
	for (char *name; (name = p1_key_entry(&c)); free(name)) {
		bool tile = false;
		for (size_t j = 0; tuned && j < t->n; j++) {
			char *q = ta_xasprintf("\"%s\"", t->v[j].name);
			tile |= t->v[j].tuned && !strcmp(q, name);
			free(q);
		}
		if (!tile)
			ta_buf_printf(&b, "%s%s", b.len ? ", " : "", name);
	}
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		bool tile = false;
		for (size_t j = 0; tuned && j < t->n; j++)
			tile |= t->v[j].tuned && !strcmp(t->v[j].name, p->name);
		char *q = ta_xasprintf("\"%s\"", p->name);
		if (p->constexpr_ && ta_s8_mode_param(p->name) && !tile && !strstr(ta_buf_str(&b), q))
			ta_buf_printf(&b, "%s%s", b.len ? ", " : "", q);
		free(q);
	}
	free(*key);
	*key = b.len ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
}

static void p1_tile_fix(p1_tile *t, char *why)
{
	if (t->fixed)
		free(why);
	else
		t->fixed = why;
}

/* The function (or the module) that holds launch l. */
static TSNode p1_host_node(const ta_model *m, const ta_launch *l)
{
	TSNode n = l->host >= 0 ? ta_edits_node(m, m->hosts[l->host].span) : (TSNode){ 0 };
	return ts_node_is_null(n) ? ta_syntax_root(m->syn) : n;
}

/* Does launch l's grid already read tile `name` from its config (a lambda
 * `lambda meta: (triton.cdiv(n, meta["BLOCK"]),)`)? Then it follows the
 * tuned tile as written. */
/* A grid that is a function of the config: a lambda of one parameter, or
 * a function of one parameter (nested in the wrapper, as a def grid(META):
 * return (...)) whose body is one return. Its parameter (*param, when
 * given) and the expression that gives the grid; a null node otherwise. */
static TSNode p1_grid_fn(const ta_model *m, const ta_launch *l, TSNode *param)
{
	TSNode g = ta_edits_node(m, l->grid_def_span), ps, body;
	if (l->grid_kind == TA_GRID_LAMBDA && ta_node_is(g, "lambda")) {
		ps = ta_node_field(g, "parameters");
		body = ta_node_field(g, "body");
	} else if (l->grid_kind == TA_GRID_FUNCTION) {
		if (ta_node_is(g, "decorated_definition"))
			return (TSNode){ 0 };
		TSNode block = ta_node_field(g, "body");
		TSNode ret = ta_node_named_count(block) == 1 ? ta_node_named_child(block, 0) : (TSNode){ 0 };
		if (!ta_node_is(ret, "return_statement") || ta_node_named_count(ret) != 1)
			return (TSNode){ 0 };
		ps = ta_node_field(g, "parameters");
		body = ta_node_named_child(ret, 0);
	} else {
		return (TSNode){ 0 };
	}
	TSNode p0 = ta_node_param_name(ta_node_named_child(ps, 0));
	if (ta_node_named_count(ps) != 1 || ts_node_is_null(p0))
		return (TSNode){ 0 };
	if (param)
		*param = p0;
	return body;
}

static bool p1_grid_reads_meta(const ta_model *m, const ta_launch *l, const char *name)
{
	TSNode p, g = p1_grid_fn(m, l, &p);
	if (!l->grid_uses_meta || ts_node_is_null(g))
		return false;
	char *pn = ta_node_text(m->src, p), *body = ta_node_text(m->src, g);
	char *a = ta_xasprintf("%s[\"%s\"]", pn, name), *b = ta_xasprintf("%s['%s']", pn, name);
	size_t j = 0;
	for (size_t i = 0; body[i]; i++)
		if (!isspace((unsigned char)body[i]))
			body[j++] = body[i];
	body[j] = '\0';
	bool r = strstr(body, a) || strstr(body, b);
	free(pn);
	free(body);
	free(a);
	free(b);
	return r;
}

/* A tile the kernel divides by another tile or takes modulo one
 * (`masked_blocks = BLOCK_M // BLOCK_N`): its algorithm leans on their
 * ratio (BLOCK_M = 64 under BLOCK_N = 128 makes that count 0 and skips a
 * causal mask), so both stay as launched. */
static void p1_tile_ratios(const ta_model *m, const ta_kernel *k, p1_tiles *t)
{
	ta_walk cur;
	ta_walk_start(&cur, k->node);
	for (;;) {
		TSNode n = ta_walk_node(&cur);
		TSNode op = ts_node_child_by_field_name(n, "operator", 8);
		if (ta_node_is(n, "binary_operator") && !ts_node_is_null(op) &&
		    (ta_node_is(op, "//") || ta_node_is(op, "%"))) {
			char *a = ta_node_text(m->src, ta_node_unparen(ta_node_field(n, "left")));
			char *b = ta_node_text(m->src, ta_node_unparen(ta_node_field(n, "right")));
			const ta_param *pa = a ? ta_kernel_param(k, a) : NULL, *pb = b ? ta_kernel_param(k, b) : NULL;
			if (pa && pb && pa != pb && is_tile_param(pa) && is_tile_param(pb))
				for (size_t x = 0; x < t->n; x++)
					if (!strcmp(t->v[x].name, a) || !strcmp(t->v[x].name, b))
						p1_tile_fix(&t->v[x], ta_xasprintf("%s stays: line %u computes %s %s %s, which "
										   "configs moving one tile alone would change",
										   t->v[x].name, ts_node_start_point(n).row + 1,
										   a, ta_node_is(op, "//") ? "//" : "%", b));
			free(a);
			free(b);
		}
		if (!ta_walk_next(&cur, true))
			break;
	}
	ta_walk_finish(&cur);
}

/* ---- tiles, read as values (analyze/values.h) ------------------------------ */

/* What launch l passes for tile parameter pi of k: *arg the argument (a
 * null node when the launch leaves it to its default), *var the wrapper's
 * name when the argument is one (caller frees), and the value when it is a
 * power of two written there or reached through the wrapper's names
 * (`BLOCK_M = 64`, `BM, BN = 64, 32`, a module constant); 0 otherwise. */
static int p1_tile_arg(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t pi, TSNode *arg,
		       char **var)
{
	*var = NULL;
	*arg = ta_values_launch_arg(m, l, k, pi, NULL);
	if (ts_node_is_null(*arg))
		return 0;
	TSNode a = ta_node_unparen(*arg);
	if (ta_node_is(a, "identifier"))
		*var = ta_node_text(m->src, a);
	long v;
	if (!ta_values_int(m, a, &v))
		return 0;
	return v > 0 && v <= 65536 && (v & (v - 1)) == 0 ? (int)v : 0;
}

/* The grid node of launch l whose value the rules read: a lambda's body,
 * the tuple (or other expression) it was bound to, or a null node. */
static TSNode p1_grid_node(const ta_model *m, const ta_launch *l)
{
	TSNode f = p1_grid_fn(m, l, NULL);
	return ts_node_is_null(f) ? ta_edits_node(m, l->grid_def_span) : f;
}

/* Whether the read n of a tile's name divides a size by it: the divisor of
 * triton.cdiv(x, n), of x // n, or a term of x in (x + n - 1) // n. */
static bool p1_divides(const ta_model *m, TSNode n, const char *var)
{
	TSNode p = ta_node_parent(n);
	if (ta_node_is(p, "argument_list") && ta_node_named_count(p) == 2 &&
	    ts_node_eq(ta_node_named_child(p, 1), n)) {
		char *fn = ta_model_canonical(m, ta_node_field(ta_node_parent(p), "function"));
		bool cdiv = fn && ta_name_is(fn, "triton.cdiv");
		free(fn);
		if (cdiv)
			return true;
	}
	for (TSNode c = n; !ts_node_is_null(p) && (ta_node_is(p, "binary_operator") ||
						      ta_node_is(p, "parenthesized_expression"));
	     c = p, p = ta_node_parent(p)) {
		if (!ta_node_is(p, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(p, "operator"), "//"))
			continue;
		TSNode r = ta_node_unparen(ta_node_field(p, "right"));
		if (ts_node_eq(r, n) || (ts_node_eq(ta_node_field(p, "left"), c) && ta_node_is(r, "identifier") &&
					 ta_node_text_eq(m->src, r, var)))
			return true;
	}
	return false;
}

/* How a grid's value reads one tile name: how often, how often as a
 * divisor, and the wrapper's names on the way (`nq` in `grid = (b * h,
 * nq)` with `nq = triton.cdiv(n, BLOCK_M)`). */
typedef struct p1_grid_use {
	const char *var;
	size_t reads, divides;
	TSNode via[8];
	size_t via_count;
	bool via_overflow;
} p1_grid_use;

static ta_values_step p1_grid_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	p1_grid_use *u = ctx;
	if (!ta_node_is(n, "identifier"))
		return TA_VALUES_DESCEND;
	if (ta_node_text_eq(m->src, n, u->var)) {
		u->reads++;
		u->divides += p1_divides(m, n, u->var);
		return TA_VALUES_SKIP;
	}
	TSNode v = ta_values_def(m, n, NULL);
	if (!ts_node_is_null(v) && ta_values_reads(m, v, u->var)) {
		if (u->via_count < sizeof u->via / sizeof *u->via)
			u->via[u->via_count++] = n;
		else
			u->via_overflow = true;
	}
	return TA_VALUES_DESCEND;
}

/* How often the launches of l's host pass var as an argument. */
static size_t p1_args_passing(const ta_model *m, const ta_launch *l, const char *var)
{
	size_t n = 0;
	for (size_t o = 0; o < m->launch_count; o++) {
		const ta_launch *lo = &m->launches[o];
		if (lo->host != l->host || lo->kernel < 0)
			continue;
		const ta_kernel *ko = &m->kernels[lo->kernel];
		for (size_t q = 0; q < ko->param_count; q++) {
			TSNode a = ta_node_unparen(ta_values_launch_arg(m, lo, ko, q, NULL));
			n += ta_node_is(a, "identifier") && ta_node_text_eq(m->src, a, var);
		}
	}
	return n;
}

/* How often the wrapper binds name (statements in its body). */
static size_t p1_host_binds(const ta_model *m, TSNode host, const char *name)
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, host, name, &d);
	return d.more ? SIZE_MAX / 2 : d.n;
}

/* One launch's argument for one tile: its value, and whether the grid
 * follows it (a divisor of the grid's sizes, read through the wrapper's
 * names, which are read nowhere else). */
static void p1_tile_at_launch(const ta_model *m, const ta_launch *l, p1_tile *tile, TSNode arg, const char *var,
			      int v)
{
	char *at = ta_node_text(m->src, arg);
	/* backward's ctx.BLOCK: forward chose it and computed what it saved
	 * (and often the grid) with it; backward alone cannot tune it */
	if (p1_saved_by_forward(m, arg)) {
		p1_tile_fix(tile, ta_xasprintf("%s=%s is forward's choice, read back from ctx: what forward saved "
					       "was computed with it", tile->name, at));
		free(at);
		return;
	}
	if (!v) {
		TSNode a = ta_node_unparen(arg);
		p1_tile_fix(tile, ta_node_is(a, "integer") ?
			    ta_xasprintf("%s=%s is not a power of two", tile->name, at) :
			    ta_xasprintf("%s=%s is computed, not a literal power of two", tile->name, at));
		free(at);
		return;
	}
	if (tile->seed && tile->seed != v)
		p1_tile_fix(tile, ta_xasprintf("%s is launched with %d and %d", tile->name, tile->seed, v));
	tile->seed = v;
	/* A grid that reads the tile from its config already follows it. */
	if (p1_grid_reads_meta(m, l, tile->name)) {
		tile->grid = true;
		free(at);
		return;
	}
	TSNode g = p1_grid_node(m, l);
	if (!var) {
		/* a literal tile: the grid's numbers cannot be told apart */
		if (!ts_node_is_null(g) && ta_edits_word_in(m->src->text + l->grid_def_span.start,
							    l->grid_def_span.end - l->grid_def_span.start, at))
			p1_tile_fix(tile, ta_xasprintf("the grid at line %u holds the literal %s, which cannot be "
						       "told from other numbers: bind it to a name in the wrapper",
						       l->grid_def_span.line, at));
		free(at);
		return;
	}
	free(at);
	p1_grid_use u = { .var = var };
	if (!ts_node_is_null(g))
		ta_values_walk(m, g, p1_grid_visit, &u);
	if (u.reads && (u.divides != u.reads || u.via_overflow ||
			(l->grid_kind != TA_GRID_TUPLE && ts_node_is_null(p1_grid_fn(m, l, NULL)))))
		p1_tile_fix(tile, ta_xasprintf("the grid at line %u uses %s other than as a divisor of a size "
					       "(triton.cdiv(n, %s))", l->grid_def_span.line, var, var));
	else if (u.reads && !ta_values_stable(m, g, l->span.start))
		p1_tile_fix(tile, ta_xasprintf("a name the grid at line %u reads is bound again before the "
					       "launch at line %u", l->grid_def_span.line, l->span.line));
	tile->grid |= u.reads > 0;
	/* The wrapper reads the name nowhere but in launches and in this grid,
	 * and each name on the way nowhere but in the grid. */
	TSNode h = p1_host_node(m, l);
	size_t expect = p1_host_binds(m, h, var) + p1_args_passing(m, l, var) + u.reads;
	if (ta_edits_ident_count(m, h, var) != expect)
		p1_tile_fix(tile, ta_xasprintf("the wrapper reads %s elsewhere than in the launch and the grid", var));
	for (size_t i = 0; i < u.via_count; i++) {
		char *vn = ta_node_text(m->src, u.via[i]);
		if (ta_edits_ident_count(m, h, vn) != p1_host_binds(m, h, vn) + 1)
			p1_tile_fix(tile, ta_xasprintf("the wrapper reads %s, which holds %s, elsewhere than in the "
						       "grid at line %u", vn, var, l->grid_def_span.line));
		free(vn);
	}
}

/* What e stands for in helper h called by call (a null node: h is the
 * kernel itself): its value, where a parameter of h is what the call
 * passes for it, followed in the caller. */
static TSNode p1_value_via_call(const ta_model *m, const ta_kernel *h, TSNode call, TSNode e)
{
	TSNode v = ts_node_is_null(e) ? e : ta_values_follow(m, e);
	if (ts_node_is_null(call) || !ta_node_is(v, "identifier"))
		return v;
	for (size_t i = 0; i < h->param_count; i++)
		if (ta_node_text_eq(m->src, v, h->params[i].name)) {
			TSNode a = ta_edits_call_arg(m, call, (uint32_t)i, h->params[i].name);
			return ts_node_is_null(a) ? a : ta_values_follow(m, a);
		}
	return v;
}

typedef enum p1_persist { P1_NOT_PERSISTENT, P1_STEPS_BY_GRID, P1_STEPS_OTHERWISE } p1_persist;

/* How h's loops that start at the program id step: by the program count
 * itself, or by something else (a NUM_SMS the launch passes). */
static p1_persist p1_loops_step(const ta_model *m, const ta_kernel *h, TSNode call)
{
	p1_persist r = P1_NOT_PERSISTENT;
	for (size_t l = 0; l < h->loop_count; l++) {
		const ta_loop *lp = &h->loops[l];
		if ((lp->kind != TA_LOOP_RANGE && lp->kind != TA_LOOP_TL_RANGE) || lp->arg_count < 3)
			continue;
		TSNode it = ta_node_unparen(ta_edits_node(m, lp->iter));
		TSNode start = p1_value_via_call(m, h, call, ta_edits_call_arg(m, it, 0, NULL));
		if (!ta_call_named(m, start, "program_id"))
			continue;
		TSNode step = p1_value_via_call(m, h, call, ta_edits_call_arg(m, it, 2, NULL));
		if (ta_node_is(step, "integer"))
			continue;   /* a fixed stride, as the model reads it: not persistent */
		if (!ta_call_named(m, step, "num_programs"))
			return P1_STEPS_OTHERWISE;
		r = P1_STEPS_BY_GRID;
	}
	return r;
}

/* A persistent kernel whose every tile loop starts at the program id and
 * steps by the program count itself (`for tile in range(pid, total,
 * tl.num_programs(0))`, the values bound to names, or passed to a helper
 * that holds the loop) covers its tiles for any grid: its tiles, warps and
 * stages can be tuned with the grid as launched. A step the launch passes
 * (NUM_SMS) ties the grid to the step, and a stepped `tile += ...` form is
 * not read here: both are done by hand. */
static p1_persist p1_persistence(const ta_model *m, const ta_kernel *k)
{
	p1_persist r = p1_loops_step(m, k, (TSNode){ 0 });
	for (size_t i = 0; i < k->op_count && r != P1_STEPS_OTHERWISE; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || &m->kernels[op->helper] == k)
			continue;
		p1_persist h = p1_loops_step(m, &m->kernels[op->helper], ta_edits_node(m, op->span));
		if (h != P1_NOT_PERSISTENT)
			r = h;
	}
	if (r == P1_NOT_PERSISTENT && k->persistent)
		r = P1_STEPS_OTHERWISE;     /* the stepped form */
	return r;
}

/* Whether k divides a size by its tile `name` itself (`(M + BLOCK_M - 1) //
 * BLOCK_M`, tl.cdiv(M, BLOCK_M)): a persistent kernel counts its tiles so,
 * where another kernel's grid does. */
static bool p1_kernel_divides_by(const ta_model *m, const ta_kernel *k, const char *name)
{
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, k->node);
	do {
		TSNode n = ta_walk_node(&w), by = { 0 };
		if (ta_node_is(n, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "//"))
			by = ta_node_field(n, "right");
		else if (ta_call_named(m, n, "cdiv"))
			by = ta_edits_call_arg(m, n, 1, NULL);
		if (!ts_node_is_null(by)) {
			TSNode v = ta_values_follow_names(m, by);
			yes = ta_node_is(v, "identifier") && ta_node_text_eq(m->src, v, name);
		}
	} while (!yes && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return yes;
}

/* What the untuned kernel's launches do with its tiles: which can be tuned
 * (a literal power of two at every launch, by keyword or by position,
 * written there or through the wrapper's names, which are read nowhere but
 * in the launch and as divisors in the grid's value; a grid tile or a loop
 * step of the kernel) and which stay as launched (computed, a whole
 * dimension, read elsewhere). */
/* The kernel's tl.static_assert(A == B [== C ...]): tiles it ties
 * together take one value in every config (p1_tile_dicts keeps those
 * only); a tile tied to anything else (a literal, a page size the caller
 * passes) stays as launched. */
static void p1_tile_asserts(const ta_model *m, const ta_kernel *k, p1_tiles *t)
{
	int group = 0;
	ta_walk cur;
	ta_walk_start(&cur, k->node);
	for (;;) {
		TSNode n = ta_walk_node(&cur);
		char *fn = ta_node_is(n, "call") ? ta_model_canonical(m, ta_node_field(n, "function")) : NULL;
		TSNode cmp = fn && ta_name_is(fn, "triton.language.static_assert")
			? ta_node_unparen(ta_node_named_child(ta_node_field(n, "arguments"), 0)) : (TSNode){ 0 };
		free(fn);
		bool eq = ta_node_is(cmp, "comparison_operator");
		for (uint32_t i = 0; eq && i < ts_node_child_count(cmp); i++) {
			TSNode ch = ts_node_child(cmp, i);
			eq = ts_node_is_named(ch) || ta_node_is(ch, "==");
		}
		if (eq) {
			int tiles[8], nt = 0;
			bool other = false;
			for (uint32_t i = 0; i < ts_node_named_child_count(cmp); i++) {
				TSNode o = ta_node_unparen(ts_node_named_child(cmp, i));
				int x = -1;
				for (size_t j = 0; j < t->n && x < 0 && ta_node_is(o, "identifier"); j++)
					if (ta_node_text_eq(m->src, o, t->v[j].name))
						x = (int)j;
				if (x < 0)
					other = true;
				else if (nt < 8)
					tiles[nt++] = x;
			}
			uint32_t line = ts_node_start_point(n).row + 1;
			if (other) {
				for (int i = 0; i < nt; i++)
					p1_tile_fix(&t->v[tiles[i]], ta_xasprintf("%s stays: the tl.static_assert at line %u "
										  "ties it to a value no config sets",
										  t->v[tiles[i]].name, line));
			} else if (nt >= 2) {
				group++;
				for (int i = 0; i < nt; i++)
					t->same[tiles[i]] = group;
			}
		}
		if (!ta_walk_next(&cur, true))
			break;
	}
	ta_walk_finish(&cur);
}

/* Whether the value of v (analyze/values.h: names followed to their
 * values) reads `tl.program_id`. */
static ta_values_step p1_visit_program_id(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *found = ctx;
	if (ta_node_is(n, "attribute") && ta_node_text_eq(m->src, ta_node_field(n, "attribute"), "program_id")) {
		*found = true;
		return TA_VALUES_STOP;
	}
	return TA_VALUES_DESCEND;
}

static bool p1_reads_program_id(const ta_model *m, TSNode v)
{
	bool found = false;
	ta_values_walk(m, v, p1_visit_program_id, &found);
	return found;
}

/* Whether the pointer of some load or store of k is `base + off` with off
 * the identifier the random draw's offsets are: each element then draws
 * the number of its own index, whatever the tile. */
static bool p1_draw_per_element(const ta_model *m, const ta_kernel *k, TSNode off)
{
	if (!ta_node_is(off, "identifier"))
		return false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || !op->arg_count)
			continue;
		TSNode ptr = ta_node_unparen(ta_edits_node(m, op->args[0]));
		if (!ta_node_is(ptr, "binary_operator"))
			continue;
		TSNode r = ta_node_unparen(ta_node_field(ptr, "right"));
		char *a = ta_node_text(m->src, off);
		bool same = ta_node_is(r, "identifier") && ta_node_text_eq(m->src, r, a);
		free(a);
		if (same)
			return true;
	}
	return false;
}

/* Whether the file's text mentions "rand" anywhere: the one question
 * p1_random_follows asks before walking a kernel. */
static void *p1_file_draws(const ta_model *m)
{
	bool *yes = ta_xmalloc(sizeof *yes);
	*yes = memmem(m->src->text, m->src->len, "rand", 4) != NULL;
	return yes;
}

/* The line of a seeded random draw of k (tl.rand, tl.randn, tl.randint
 * and their 4x forms) whose offsets follow the tile `name`, or 0: another
 * tile draws other numbers for the same elements, so a config changes what
 * a seeded kernel computes (a dropout mask), not only its rounding. A draw
 * at the very offsets an access uses (`tl.rand(seed, offs)` with `x_ptr +
 * offs`) gives each element its own number whatever the tile. */
static uint32_t p1_random_follows(const ta_model *m, const ta_kernel *k, const char *name)
{
	static const char *const draws[] = { "rand", "randn", "randint", "rand4x", "randn4x", "randint4x" };
	/* asked per tile at every launch: a file whose text names no random
	 * draw (almost all, import aliases included) is answered without
	 * walking the kernel's tree */
	if (!*(const bool *)ta_index_cached(m, p1_file_draws, free))
		return 0;
	uint32_t line = 0;
	ta_walk cur;
	ta_walk_start(&cur, k->node);
	do {
		TSNode n = ta_walk_node(&cur);
		if (!ta_node_is(n, "call"))
			continue;
		char *fn = ta_model_canonical(m, ta_node_field(n, "function"));
		const char *last = fn ? strrchr(fn, '.') : NULL;
		bool draw = false, four = false;
		for (size_t i = 0; last && !strncmp(fn, "triton.language", 15) && i < sizeof draws / sizeof *draws; i++)
			if (!strcmp(last + 1, draws[i])) {
				draw = true;
				four = strstr(draws[i], "4x") != NULL;
			}
		free(fn);
		TSNode off = draw ? ta_node_unparen(ta_node_named_child(ta_node_field(n, "arguments"), 1)) : (TSNode){ 0 };
		/* the tile itself, or the program id (a number per program:
		 * which elements share it follows every tile that splits the
		 * work) */
		if (!ts_node_is_null(off) && (four || !p1_draw_per_element(m, k, off)) &&
		    (ta_values_reads(m, off, name) || p1_reads_program_id(m, off)))
			line = ts_node_start_point(n).row + 1;
	} while (!line && ta_walk_next(&cur, true));
	ta_walk_finish(&cur);
	return line;
}

/* Tiles a random draw follows stay as launched (p1_random_follows). */
static void p1_tile_random(const ta_model *m, const ta_kernel *k, p1_tiles *t)
{
	for (size_t x = 0; x < t->n; x++) {
		uint32_t line = p1_random_follows(m, k, t->v[x].name);
		if (line)
			p1_tile_fix(&t->v[x], ta_xasprintf("%s stays: the random numbers drawn at line %u follow it "
							  "(another tile draws other numbers for the same elements)",
							  t->v[x].name, line));
	}
}

static void p1_find_tiles(const ta_model *m, const ta_kernel *k, size_t ki, p1_tiles *t)
{
	size_t launches = 0, passed[8] = { 0 };
	t->dot = ta_kernel_reaches_op(m, (int)ki, TA_OP_BIT(TA_OP_DOT), 0);
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		launches++;
		for (size_t pi = 0; pi < k->param_count; pi++) {
			const ta_param *p = &k->params[pi];
			if (!p1_is_tile(m, k, p))
				continue;
			TSNode arg;
			char *var;
			int v = p1_tile_arg(m, l, k, pi, &arg, &var);
			if (ts_node_is_null(arg)) {
				free(var);
				continue;
			}
			p1_tile *tile = NULL;
			size_t x = 0;
			for (; x < t->n && !tile; x++)
				if (!strcmp(t->v[x].name, p->name))
					tile = &t->v[x];
			if (!tile) {
				if (t->n == sizeof t->v / sizeof t->v[0]) {
					free(var);
					continue;
				}
				x = t->n++;
				tile = &t->v[x];
				*tile = (p1_tile){ .name = p->name, .param = pi };
			} else {
				x--;
			}
			passed[x]++;
			p1_tile_at_launch(m, l, tile, arg, var, v);
			free(var);
		}
	}
	for (size_t x = 0; x < t->n; x++)
		if (passed[x] != launches)
			p1_tile_fix(&t->v[x], ta_xasprintf("%s is not passed at every launch", t->v[x].name));
	p1_tile_ratios(m, k, t);
	p1_tile_asserts(m, k, t);
	p1_tile_random(m, k, t);
	bool by_grid = p1_persistence(m, k) == P1_STEPS_BY_GRID;
	for (size_t x = 0; x < t->n; x++) {
		p1_tile *tile = &t->v[x];
		tile->split = by_grid && p1_kernel_divides_by(m, k, tile->name);
		bool step = p1_via_helpers(m, k, tile->name, p1_loop_reads_here, 0);
		if (!p1_splits(tile) && !step)
			p1_tile_fix(tile, ta_xasprintf("%s covers a whole dimension (neither the grid nor a loop "
						       "steps by it)", tile->name));
		tile->tuned = !tile->fixed;
	}
	/* Unmasked accesses rely on the sizes being multiples of the tiles. */
	for (size_t i = 0; i < k->op_count && !t->divisible; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || op->ptr_shape == TA_PTR_SCALAR ||
		    op->has_mask)
			continue;
		if (op->ptr_shape == TA_PTR_BLOCK_PTR &&
		    ta_kwarg_find(op->kwargs, op->kwarg_count, "boundary_check"))
			continue;
		t->divisible = true;
		t->divisible_line = op->span.line;
	}
	/* A tile no config would change (p1_tile_dicts' range) stays as
	 * launched: moving it into one-valued configs gains nothing. */
	for (size_t x = 0; x < t->n; x++) {
		p1_tile *tile = &t->v[x];
		int hi = p1_tile_hi(t, tile), nv = t->divisible ? tile->seed / 2 : tile->seed * 2;
		if (tile->tuned && (nv < 16 || nv > hi)) {
			p1_tile_fix(tile, ta_xasprintf("%s=%d is outside the tiles tried (16 to %d)", tile->name,
						       tile->seed, hi));
			tile->tuned = false;
		}
	}
}

/* The tile dicts tried: the launched one, the grid tiles doubled, with the
 * loop tiles doubled too, and the first grid tile alone doubled; from 16
 * (tl.dot's least) to p1_tile_hi. Where the kernel relies on
 * the sizes being multiples of the tiles, the tiles only shrink (halves
 * divide what the launched tile divides). Loop tiles alone, doubled or
 * halved, when no tile is the grid's. A dot kernel with two grid tiles
 * and a loop tile (a GEMM's M, N and K) also tries 128×256×64 (the
 * tutorial's first Hopper config, where its GEMMs run best), more grid
 * tiles at 128 and the loop tiles at 64. */
static void p1_tile_dicts(const p1_tiles *t, p1_seed *s)
{
	int variants[6][8];
	size_t nv = 0;
	bool any_loop = false;
	int grids = 0, last_grid = -1;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].tuned && p1_splits(&t->v[i])) {
			grids++;
			last_grid = (int)i;
		}
		any_loop |= t->v[i].tuned && !p1_splits(&t->v[i]);
	}
	bool any_grid = grids > 0, wide = t->dot && grids >= 2 && any_loop && !t->divisible;
	for (int form = 0; form < 6; form++) {
		if ((form == 1 && !any_grid) || (form == 2 && (!any_grid || !any_loop)) || (form == 3 && !any_grid) ||
		    (form == 4 && (any_grid || !any_loop)) || (form == 5 && !wide))
			continue;
		bool first = true;
		for (size_t i = 0; i < t->n; i++) {
			const p1_tile *p = &t->v[i];
			int v = p->seed;
			bool change = form == 1 ? p1_splits(p) : form == 2 || form == 4 || form == 5 ? true :
				      form == 3 ? p1_splits(p) && first : false;
			if (p1_splits(p))
				first = false;
			int hi = p1_tile_hi(t, p);
			if (p->tuned && change && form != 5) {
				int nvv = t->divisible ? v / 2 : v * 2;
				if (nvv >= 16 && nvv <= hi)
					v = nvv;
			}
			if (form == 5 && p->tuned) {
				int w = !p1_splits(p) ? 64 : (int)i == last_grid ? 256 : 128;
				v = w <= hi ? w : v;
			}
			variants[nv][i] = v;
		}
		nv++;
	}
	for (size_t f = 0; f < nv; f++) {
		/* tiles a tl.static_assert ties together differ: that config
		 * would not compile */
		bool tied = true;
		for (size_t i = 0; i < t->n && tied; i++)
			for (size_t j = i + 1; j < t->n && tied; j++)
				tied = !t->same[i] || t->same[i] != t->same[j] || variants[f][i] == variants[f][j];
		if (!tied)
			continue;
		ta_buf b = TA_BUF_INIT;
		ta_buf_putc(&b, '{');
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].tuned)
				ta_buf_printf(&b, "%s\"%s\": %d", b.len > 1 ? ", " : "", t->v[i].name, variants[f][i]);
		ta_buf_putc(&b, '}');
		char *d = ta_buf_steal(&b);
		bool seen = false;
		for (size_t j = 0; j < s->tile_count && !seen; j++)
			seen = !strcmp(s->tiles[j], d);
		if (seen) {
			free(d);
			continue;
		}
		s->tiles = ta_xrealloc(s->tiles, (s->tile_count + 1) * sizeof *s->tiles);
		s->tiles[s->tile_count++] = d;
	}
}

/* The statement binding the name at read id, when it can go with the
 * read: a plain `name = value` of the wrapper, alone on its lines. */
static bool p1_binding_lines(const ta_model *m, const ta_launch *l, TSNode id, uint32_t *start, uint32_t *end)
{
	TSNode b;
	if (ts_node_is_null(ta_values_def(m, id, &b)) || !ta_node_is(b, "assignment") ||
	    !ta_node_is(ta_node_unparen(ta_node_field(b, "left")), "identifier"))
		return false;
	TSNode stmt = ta_node_parent(b), h = p1_host_node(m, l);
	if (!ta_node_is(stmt, "expression_statement") || ta_node_named_count(stmt) != 1 ||
	    ts_node_start_byte(stmt) < ts_node_start_byte(h) || ts_node_end_byte(stmt) > ts_node_end_byte(h) ||
	    ts_node_eq(h, ta_syntax_root(m->syn)))
		return false;
	*start = ta_edits_stmt_lines(m, stmt, end);
	return *start != UINT32_MAX;
}

/* Rewriting a grid to read the tuned tiles from its config: each tile's
 * name becomes META["PARAM"], and the wrapper's names whose value reads
 * one are written out in their place. */
typedef struct p1_meta_subst {
	const char *meta;
	const char *vars[8], *params[8];
	size_t n;
	char *text;
} p1_meta_subst;

static const char *p1_meta_name(const ta_model *m, TSNode id, void *ctx)
{
	p1_meta_subst *s = ctx;
	for (size_t i = 0; i < s->n; i++)
		if (ta_node_text_eq(m->src, id, s->vars[i])) {
			free(s->text);
			s->text = ta_xasprintf("%s[\"%s\"]", s->meta, s->params[i]);
			return s->text;
		}
	TSNode v = ta_values_def(m, id, NULL);
	for (size_t i = 0; i < s->n && !ts_node_is_null(v); i++)
		if (ta_values_reads(m, v, s->vars[i]))
			return TA_VALUES_INLINE;
	return NULL;
}

/* Launch l's grid made a function of the config: a tuple becomes
 * `lambda META: (...)`, a lambda's body reads its parameter. The wrapper's
 * statements that only fed the grid a tile go (into *drop, *ndrop:
 * start/end pairs). */
static int p1_grid_to_meta(const ta_model *m, const ta_launch *l, p1_meta_subst *s, ta_edit *out)
{
	TSNode def = ta_edits_node(m, l->grid_def_span);
	if (ts_node_is_null(def))
		return -1;
	/* a lambda or a function of the config: its parameter and its value */
	TSNode p, body = p1_grid_fn(m, l, &p);
	bool lambda = !ts_node_is_null(body);
	char *pn = NULL;
	if (lambda)
		pn = ta_node_text(m->src, p);
	else if (l->grid_kind == TA_GRID_TUPLE)
		body = def;
	else
		return -1;
	s->meta = lambda ? pn : "META";
	char *t = ta_values_text(m, body, p1_meta_name, s);
	free(s->text);
	s->text = NULL;
	int rc = -1;
	if (t) {
		bool paren = lambda || ta_node_is(body, "list") ||
			     (ta_node_is(body, "tuple") && m->src->text[ts_node_start_byte(body)] == '(');
		char *rep = lambda ? ta_xstrdup(t) : ta_xasprintf(paren ? "lambda META: %s" : "lambda META: (%s)", t);
		rc = ta_edit_replace(out, ts_node_start_byte(body), ts_node_end_byte(body), rep);
		free(rep);
		free(t);
	}
	free(pn);
	return rc;
}

/* The launches stop passing the tuned tiles (a keyword goes; a positional
 * argument goes and those after it are passed by name), their grids read
 * META, and the wrapper's names that only carried a tile to the grid go. */
static int p1_untile_launches(const ta_model *m, const ta_kernel *k, size_t ki, const p1_tiles *t, ta_edit *out,
			      char **why)
{
	uint32_t done_grids[16], dropped[32];
	size_t nd = 0, ndrop = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		p1_meta_subst s = { .n = 0 };
		size_t first_pos = SIZE_MAX;
		bool gone[64] = { false };
		bool keep_bindings = false;
		uint32_t bind_lines[16][2];
		size_t nb = 0;
		for (size_t i = 0; i < t->n; i++) {
			const p1_tile *tile = &t->v[i];
			if (!tile->tuned)
				continue;
			bool kw;
			TSNode arg = ta_values_launch_arg(m, l, k, tile->param, &kw);
			if (ts_node_is_null(arg))
				continue;
			TSNode whole = kw ? ta_node_parent(arg) : arg;
			if (ta_edits_drop_arg(m, out, whole) != 0)
				return ta_edits_refuse(why, "line %u: cannot take %s out of the launch",
						       ts_node_start_point(arg).row + 1, tile->name);
			if (!kw && tile->param < 64) {
				gone[tile->param] = true;
				first_pos = tile->param < first_pos ? tile->param : first_pos;
			}
			TSNode a = ta_node_unparen(arg);
			if (!ta_node_is(a, "identifier"))
				continue;
			if (tile->grid && s.n < 8) {
				s.vars[s.n] = ta_node_text(m->src, a);
				s.params[s.n] = tile->name;
				s.n++;
			}
			uint32_t b0, b1;
			if (nb < 16 && p1_binding_lines(m, l, a, &b0, &b1)) {
				bind_lines[nb][0] = b0;
				bind_lines[nb++][1] = b1;
			}
		}
		/* later positional arguments are passed by name now */
		if (first_pos != SIZE_MAX) {
			for (size_t j = first_pos + 1; j < k->param_count; j++) {
				bool kw;
				TSNode a = ta_values_launch_arg(m, l, k, j, &kw);
				if (ts_node_is_null(a) || kw || (j < 64 && gone[j]))
					continue;
				char *name = ta_xasprintf("%s=", k->params[j].name);
				int rc = ta_edit_replace(out, ts_node_start_byte(a), ts_node_start_byte(a), name);
				free(name);
				if (rc != 0)
					return ta_edits_refuse(why, "line %u: cannot pass %s by name", l->span.line,
							       k->params[j].name);
			}
		}
		bool seen = false;
		for (size_t x = 0; x < nd; x++)
			seen |= done_grids[x] == l->grid_def_span.start;
		int rc = 0;
		if (s.n && !seen) {
			if (nd < 16)
				done_grids[nd++] = l->grid_def_span.start;
			size_t follows = 0;
			for (size_t x = 0; x < s.n; x++)
				follows += p1_grid_reads_meta(m, l, s.params[x]);
			if (follows != s.n) {
				/* the names that carried a tile into the grid, now written out there */
				p1_grid_use u = { .var = NULL };
				TSNode g = p1_grid_node(m, l);
				for (size_t x = 0; x < s.n; x++) {
					u.var = s.vars[x];
					ta_values_walk(m, g, p1_grid_visit, &u);
				}
				for (size_t v = 0; v < u.via_count && !keep_bindings; v++) {
					uint32_t b0, b1;
					if (nb < 16 && p1_binding_lines(m, l, u.via[v], &b0, &b1)) {
						bind_lines[nb][0] = b0;
						bind_lines[nb++][1] = b1;
					} else {
						keep_bindings = true;
					}
				}
				if (p1_grid_to_meta(m, l, &s, out) != 0)
					rc = ta_edits_refuse(why, "line %u: the grid could not be made a function of META",
							     l->span.line);
			}
		}
		for (size_t x = 0; x < s.n; x++)
			free((char *)s.vars[x]);
		if (rc != 0)
			return rc;
		/* a binding goes once, and only when every name on the way goes */
		for (size_t b = 0; b < nb && !keep_bindings; b++) {
			bool again = false;
			for (size_t x = 0; x < ndrop && !again; x++)
				again = dropped[x] == bind_lines[b][0];
			if (again || ndrop == 32)
				continue;
			dropped[ndrop++] = bind_lines[b][0];
			ta_edit_replace(out, bind_lines[b][0], bind_lines[b][1], "");
		}
	}
	return 0;
}

/* P1 on a kernel launched with fixed options and no autotune: an autotune
 * over num_warps and num_stages per GPU generation, seeded from the
 * launches, keyed on the size arguments; the launches stop fixing those
 * two. Tiles stay as launched (tuning them means the grid reads META: L2). */
/* A kernel of the file wrapped by a decorator that is not Triton's (FlagGems'
 * @libentry(), @pointwise_dynamic): the project launches (and tunes) its
 * kernels through its own code. On the H200, a triton.autotune added in such
 * a file failed in 12 of 12 FlagGems sites checked ("function takes exactly
 * N arguments"), above @libentry() or beside it. */
static int p1_foreign_launcher(const ta_model *m, const ta_kernel *k, char **why)
{
	TSNode d;
	int i = ta_index_foreign_decorator(m, &d);   /* the file's first */
	if (i < 0)
		return 0;
	TSNode e = ta_node_unparen(ta_node_named_child(d, 0));
	if (ta_node_is(e, "call"))
		e = ta_node_field(e, "function");
	/* the refusal is the file's: said of the kernel asked about, naming
	 * the one wrapped */
	char *t = ta_node_text(m->src, e);
	char *who = &m->kernels[i] == k ? ta_xstrdup(k->name) :
		    ta_xasprintf("%s's file also holds %s, which", k->name, m->kernels[i].name);
	int rc = ta_edits_refuse(why, "line %u: %s is wrapped by @%s, a launcher of the project's own: an "
				 "autotuner added in this file would run outside it; tune through that launcher "
				 "by hand", ts_node_start_point(d).row + 1, who, t);
	free(who);
	free(t);
	return rc;
}

/* The file is part of a Python package (each folder up to the top has an
 * __init__.py) one of whose __init__.py registers kernels as torch's own
 * operators (`torch.library.Library("aten", "IMPL")`, FlagGems). Triton's
 * autotuner benchmarks with torch calls (its L2 flush is `cache.zero_()`),
 * which then run the package's kernels inside the tuner: on the H200, with
 * Triton 3.6, FlagGems' fill kernel failed there ("function takes exactly
 * 25 arguments (21 given)"), for P1's autotunes on diag.py and for its own
 * on avg_pool2d.py alike. */
static int p1_aten_package(const ta_model *m, char **why)
{
	if (!m->src->path)
		return 0;
	char *dir = ta_path_dirname(m->src->path);
	int rc = 0;
	for (int depth = 0; depth < 16 && rc == 0; depth++) {
		char *init = ta_path_join(dir, "__init__.py");
		char *text = NULL, *err = NULL;
		size_t len = 0;
		bool pkg = ta_read_file(init, 4u << 20, &text, &len, &err) == 0;
		if (pkg && (strstr(text, "Library(\"aten\"") || strstr(text, "Library('aten'")) && strstr(text, "IMPL"))
			rc = ta_edits_refuse(why, "%s registers the package's kernels as torch's aten operators: Triton's "
					     "autotuner benchmarks with torch calls (its cache flush, zero_()), which would run "
					     "those kernels inside the tuner; tune through the project's own tuner",
					     init);
		free(text);
		free(err);
		free(init);
		char *up = ta_path_dirname(dir);
		bool top = !pkg || !strcmp(up, dir);
		free(dir);
		dir = up;
		if (top)
			break;
	}
	free(dir);
	return rc;
}

/* Whether the op at ld cannot run after the one at st in one program: st
 * sits in an arm that returns (`if y == ignore: store zeros; return`), or
 * in another arm of the if that holds ld (`if reduction == 0: store`,
 * `elif ...: load`). */
static bool p1_cannot_follow(const ta_model *m, ta_span st, ta_span ld)
{
	TSNode s = ta_edits_node(m, st);
	if (ts_node_is_null(s))
		return false;
	for (TSNode b = ta_node_parent(s); !ts_node_is_null(b); b = ta_node_parent(b)) {
		if (ts_node_start_byte(b) <= ld.start && ld.end <= ts_node_end_byte(b))
			return ta_node_is(b, "if_statement");
		uint32_t n = ta_node_named_count(b);
		if (ta_node_is(b, "block") && n && ta_node_is(ta_node_named_child(b, n - 1), "return_statement"))
			return true;
	}
	return false;
}

/* Whether the helper takes a spin lock around its accesses (stick-breaking
 * attention's locked accumulation into dK): the lock's atomics order one
 * call's write before another's read. */
static bool p1_locked_helper(const ta_model *m, const ta_kernel *h, int depth)
{
	for (size_t i = 0; i < h->op_count; i++) {
		const ta_op *op = &h->ops[i];
		if ((op->kind == TA_OP_STORE || op->kind == TA_OP_LOAD) &&
		    ta_edits_under_spin_lock(m, ta_edits_node(m, op->span)))
			return true;
		if (op->kind == TA_OP_HELPER_CALL && depth < 3 && op->helper >= 0 &&
		    (size_t)op->helper < m->kernel_count && &m->kernels[op->helper] != h &&
		    p1_locked_helper(m, &m->kernels[op->helper], depth + 1))
			return true;
	}
	return false;
}

/* Whether the helper call op accesses (P1_READ, P1_WRITE) through an
 * argument that mentions one of names. */
static bool p1_helper_access(const ta_model *m, const ta_op *op, char **names, size_t c, unsigned bit)
{
	if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || (size_t)op->helper >= m->kernel_count)
		return false;
	const ta_kernel *h = &m->kernels[op->helper];
	for (size_t a = 0; a < op->arg_count && a < h->param_count; a++) {
		uint32_t hl = 0;
		if (p1_mentions_any(m, ta_edits_node(m, op->args[a]), names, c) &&
		    (p1_access(m, h, h->params[a].name, 1, &hl) & bit))
			return true;
	}
	return false;
}

/* The line where k reads back what it stored through base (a parameter,
 * or a pointer it loads from a table) with no barrier between, or 0; the
 * store's line in *wl. */
static uint32_t p1_roundtrip_of(const ta_model *m, const ta_kernel *k, const char *base, uint32_t *wl)
{
	char **v;
	size_t c = p1_derived(m, k, base, &v);
	uint32_t rl = 0;
	for (size_t i = 0; i < k->op_count && !rl; i++) {
		const ta_op *st = &k->ops[i];
		if (st->kind == TA_OP_HELPER_CALL) {
			/* written inside a helper it hands the address to, read
			 * back here (an attention pooling kernel's row maxima,
			 * rescaled after its loop) */
			if (!p1_helper_access(m, st, v, c, P1_WRITE) || p1_locked_helper(m, &m->kernels[st->helper], 0))
				continue;
		} else if (st->kind != TA_OP_STORE || !p1_mentions_any(m, p1_address(m, st), v, c) ||
			   ta_edits_under_spin_lock(m, ta_edits_node(m, st->span))) {
			continue;
		}
		for (size_t j = 0; j < k->op_count && !rl; j++) {
			const ta_op *ld = &k->ops[j];
			/* a load before the store in a loop (`acc = load(p); store(p,
			 * acc + x)` each pass) reads what the same thread wrote: not one */
			if (ld->span.line <= st->span.line || ld->span.start < st->span.end)
				continue;  /* nor one inside the store's own arguments */
			/* read back here, or inside a helper it hands the address to */
			bool reads = ld->kind == TA_OP_LOAD ? p1_mentions_any(m, p1_address(m, ld), v, c)
							    : p1_helper_access(m, ld, v, c, P1_READ);
			/* tl.debug_barrier() between them orders the whole program */
			if (!reads || p1_cannot_follow(m, st->span, ld->span) ||
			    memmem(m->src->text + st->span.end, ld->span.start - st->span.end, "debug_barrier", 13))
				continue;
			*wl = st->span.line;
			rl = ld->span.line;
		}
	}
	p1_names_free(v, c);
	return rl;
}

/* k reads back, in the same program, memory it stored (a scratch
 * round-trip): a load through a parameter, or a pointer loaded from a
 * table, after a store through it, here or in a helper it hands the
 * address to, with no tl.debug_barrier() between them (nor a spin lock
 * around them). Which thread reads what another wrote, and when, depends
 * on num_warps, on the layouts and on the pipelining a config picks: such a kernel is correct under its own launch options at best
 * (lightllm's grouped_topk_kernel gave other experts on the H200 with more
 * warps; a public FlashAttention forward gave wrong rows under 21-23 of 24
 * configs). Returns 0, or -1 with *why citing both lines. */
static int p1_roundtrip(const ta_model *m, const ta_kernel *k, char **why)
{
	/* the bases: the kernel's pointer parameters, and the pointers it
	 * loads from a table (`R = tl.load(ptrs + z).to(tl.pointer_type(...))`) */
	char *bases[32];
	size_t nb = 0;
	for (size_t p = 0; p < k->param_count && nb < 32; p++)
		if (!k->params[p].constexpr_)
			bases[nb++] = ta_xstrdup(k->params[p].name);
	size_t first, count = ta_model_refs_within(m->assign_nodes, m->assign_node_count, k->node, &first);
	for (size_t i = first; i < first + count && nb < 32; i++) {
		TSNode a = m->assign_nodes[i].node, l = ta_node_field(a, "left"), r = ta_node_field(a, "right");
		if (ta_node_is(a, "assignment") && ta_node_is(l, "identifier") && !ts_node_is_null(r) &&
		    ta_node_contains_identifier(m->src, r, "pointer_type") && ta_node_contains_identifier(m->src, r, "load"))
			bases[nb++] = ta_node_text(m->src, l);
	}
	int rc = 0;
	for (size_t b = 0; b < nb && rc == 0; b++) {
		uint32_t wl = 0, rl = p1_roundtrip_of(m, k, bases[b], &wl);
		if (rl)
			rc = ta_edits_refuse(why, "line %u: %s writes %s at line %u and reads it back in the same program "
					     "(line %u), which is right under its own launch options at most: another "
					     "config's warps, layouts or pipelining may read before the write lands, so no "
					     "autotune edit", rl, k->name, bases[b], wl, rl);
	}
	for (size_t b = 0; b < nb; b++)
		free(bases[b]);
	return rc;
}

/* A comment of the kernel, or on or just above one of its launches, says
 * it is right under one configuration only (a race, a deadlock, "only
 * correct with ..."). Returns 0, or -1 with *why citing it. */
static int p1_one_config_comment(const ta_model *m, const ta_kernel *k, size_t ki, char **why)
{
	static const char *const words[] = { "race", "races", "racy", "raced", "deadlock", "deadlocks", NULL };
	static const char *const phrases[] = { "only correct", "correct only", "only works", "works only",
					       "do not tune", "don't tune", "do not autotune", "don't autotune", NULL };
	uint32_t ranges[33][2];
	size_t nr = 0;
	ranges[nr][0] = k->span.start;
	ranges[nr++][1] = k->span.end;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk)) && nr < 33;) {
		/* the launch's lines and the three lines above it */
		uint32_t from = ta_edits_line_start(m, l->span.start);
		for (int up = 0; up < 3 && from > 0; up++)
			from = ta_edits_line_start(m, from - 1);
		ranges[nr][0] = from;
		ranges[nr++][1] = ta_edits_line_next(m, l->span.end);
	}
	TSNode root = ta_syntax_root(m->syn);
	for (size_t r = 0; r < nr; r++) {
		for (uint32_t i = ranges[r][0]; i < ranges[r][1] && i < m->src->len; i++) {
			if (m->src->text[i] != '#')
				continue;
			TSNode cm = ta_node_named_at(root, i, i + 1);
			if (!ta_node_is(cm, "comment") || ts_node_start_byte(cm) != i)
				continue;
			char *t = ta_node_text(m->src, cm);
			for (char *q = t; *q; q++)
				*q = (char)tolower((unsigned char)*q);
			bool hit = false;
			for (size_t w = 0; words[w] && !hit; w++)
				hit = ta_edits_word_in(t, strlen(t), words[w]);
			for (size_t w = 0; phrases[w] && !hit; w++)
				hit = strstr(t, phrases[w]) != NULL;
			uint32_t line = ts_node_start_point(cm).row + 1;
			i = ts_node_end_byte(cm);
			if (hit) {
				char *o = ta_node_text(m->src, cm);
				size_t tl = strlen(o);
				int rc = ta_edits_refuse(why, "line %u: the comment `%.*s%s` says %s may be right under some "
							 "launch options only: no autotune edit", line, tl > 70 ? 67 : (int)tl, o,
							 tl > 70 ? "..." : "", k->name);
				free(o);
				free(t);
				return rc;
			}
			free(t);
		}
	}
	return 0;
}

/* The wrapper already tunes k: a launch takes num_warps or num_stages,
 * which the edit would tune, from a configuration looked up per shape
 * (lightllm's run_config, a forward pass's best_config). An autotune would
 * override that tuning and the tools that fill its table. (Tiles looked
 * up stay as launched anyway.) Returns 0, or -1 with *why. */
static int p1_tuned_by_wrapper(const ta_model *m, const ta_kernel *k, size_t ki, char **why)
{
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		for (size_t j = 0; j < l->kwarg_count; j++) {
			const ta_kwarg *kw = &l->kwargs[j];
			if ((!strcmp(kw->name, "num_warps") || !strcmp(kw->name, "num_stages")) &&
			    p1_from_given_config(m, ta_edits_node(m, kw->value_span)))
				return ta_edits_refuse(why, "line %u: the launch takes %s=%s from a configuration the "
						       "wrapper looks up, a tuning of its own that an autotune would "
						       "override", kw->span.line, kw->name, kw->value);
		}
	}
	return 0;
}

/* The options of a launch that triton.Config also sets: Triton's autotuner
 * passes each config's all_kwargs() to the launch, so a launch keeping any
 * of them raises TypeError ("got multiple values for keyword argument
 * 'num_ctas'") on every call. */
static const char *const p1_config_options[] = {
	"num_warps", "num_stages", "num_ctas", "maxnreg", "num_buffers_warp_spec", "num_consumer_groups",
	"reg_dec_producer", "reg_inc_consumer", "ir_override", NULL,
};

static bool p1_config_option(const char *name)
{
	for (size_t i = 0; p1_config_options[i]; i++)
		if (!strcmp(name, p1_config_options[i]))
			return true;
	return false;
}

/* The values a launch option computed per call may take
 * (`num_warps=4 if BLOCK_D <= 64 else 8`): warps a power of two from 2 to
 * 16, stages from 2 to 8. A 1 among them is a pin for some calls, which
 * no config list keeps. */
static bool p1_option_choices(const ta_model *m, TSNode v, int which, long *out, size_t *count)
{
	if (!ta_values_int_choices(m, v, out, 4, count) || *count < 2)
		return false;
	for (size_t i = 0; i < *count; i++) {
		long c = out[i];
		if (which == 0 ? c < 2 || c > 16 || (c & (c - 1)) : c < 2 || c > 8)
			return false;
	}
	return true;
}

typedef struct p1_keyed {
	const ta_kernel *k;
	const ta_launch *l;
	const char *key;
	char *unkeyed;            /* the first value read that the key does not cover */
} p1_keyed;

typedef struct p1_text_find {
	const char *text;
	bool found;
} p1_text_find;

static ta_values_step p1_text_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	p1_text_find *f = ctx;
	if (ts_node_end_byte(n) - ts_node_start_byte(n) == strlen(f->text) && ta_node_text_eq(m->src, n, f->text)) {
		f->found = true;
		return TA_VALUES_STOP;
	}
	return TA_VALUES_DESCEND;
}

/* Whether launch l passes, for a parameter the key holds (any parameter
 * when dtype: the tuner keys on every tensor argument's dtype), a value
 * whose tree holds the text (a name, `x.shape[1]`). */
static bool p1_key_holds(const ta_model *m, const p1_keyed *c, const char *text, bool dtype)
{
	for (size_t i = 0; i < c->k->param_count; i++) {
		char *q = ta_xasprintf("\"%s\"", c->k->params[i].name);
		bool keyed = dtype || strstr(c->key, q);
		free(q);
		if (!keyed)
			continue;
		TSNode arg = ta_values_launch_arg(m, c->l, c->k, i, NULL);
		p1_text_find f = { .text = text };
		if (!ts_node_is_null(arg))
			ta_values_walk(m, arg, p1_text_visit, &f);
		if (f.found)
			return true;
	}
	return false;
}

/* The name at the root of a chain of attributes, subscripts and calls
 * (`x` of `x.shape[1]`, of `x.size(0)`), or a null node. */
static TSNode p1_chain_root(TSNode n)
{
	for (;;) {
		if (ta_node_is(n, "attribute"))
			n = ta_node_field(n, "object");
		else if (ta_node_is(n, "subscript"))
			n = ta_node_field(n, "value");
		else if (ta_node_is(n, "call"))
			n = ta_node_field(n, "function");
		else
			return ta_node_is(n, "identifier") ? n : (TSNode){ 0 };
	}
}

static bool p1_import_alias(const ta_model *m, TSNode id)
{
	char *h = ta_node_text(m->src, id);
	bool module = false;
	for (size_t i = 0; i < m->import_count && !module; i++)
		module = !strcmp(m->imports[i].alias, h);
	free(h);
	return module;
}

/* What a computed option reads, leaf by leaf: a name with no known value
 * (a parameter of the wrapper, a size unpacked from a shape) or a chain on
 * one (`x.shape[1]`, `x.size(0)`, `x.dtype`) is covered when a keyed
 * argument's value holds it; what is called, module functions and GPU
 * queries (the tuner measures on the GPU) are not data. */
static ta_values_step p1_keyed_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	p1_keyed *c = ctx;
	TSNode up = ta_node_parent(n);
	if (p1_gpu_call(m, n))
		return TA_VALUES_SKIP;
	if ((ta_node_is(up, "attribute") && ts_node_eq(ta_node_field(up, "attribute"), n)) ||
	    (ta_node_is(up, "keyword_argument") && ts_node_eq(ta_node_field(up, "name"), n)))
		return TA_VALUES_SKIP;
	bool chain = ta_node_is(n, "attribute") || ta_node_is(n, "subscript") || ta_node_is(n, "call");
	TSNode root = chain ? p1_chain_root(n) : ta_node_is(n, "identifier") ? n : (TSNode){ 0 };
	if (ts_node_is_null(root))
		return TA_VALUES_DESCEND;
	if (chain && ta_node_is(n, "call") && ts_node_eq(root, ta_node_field(n, "function")))
		return TA_VALUES_DESCEND;  /* helper(x): its arguments are what it reads */
	if (p1_import_alias(m, root)) {
		/* triton.next_power_of_2(d): d is what it reads */
		return ta_node_is(n, "call") ? TA_VALUES_DESCEND : TA_VALUES_SKIP;
	}
	if (ta_node_is(up, "call") && ts_node_eq(ta_node_field(up, "function"), n))
		return TA_VALUES_SKIP;  /* the function of a call handled above */
	TSNode v = ta_values_follow_names(m, root);
	if (!ts_node_is_null(v) && !ts_node_eq(v, root))
		return TA_VALUES_DESCEND;  /* the name stands for its value */
	bool dtype = ta_node_is(n, "attribute") && ta_node_text_eq(m->src, ta_node_field(n, "attribute"), "dtype") &&
		     ts_node_eq(ta_node_field(n, "object"), root);
	char *text = ta_node_text(m->src, dtype ? root : n);
	if (p1_key_holds(m, c, text, dtype)) {
		free(text);
		return TA_VALUES_SKIP;
	}
	c->unkeyed = text;
	return TA_VALUES_STOP;
}

/* Each option a launch computes per call reads only what the key holds:
 * per key value the tuner then tries the author's choice among the
 * others. Refused (-1, *why) otherwise. */
static int p1_computed_keyed(const ta_model *m, const ta_kernel *k, const p1_seed *s, const char *key, char **why)
{
	for (size_t i = 0; i < s->computed_count; i++) {
		p1_keyed c = { .k = k, .l = s->computed[i].launch, .key = key };
		ta_values_walk(m, s->computed[i].value, p1_keyed_visit, &c);
		if (!c.unkeyed)
			continue;
		TSNode val = ta_values_follow(m, s->computed[i].value);
		char *vt = ta_node_text(m->src, val);
		for (char *p = vt; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
		int rc = ta_edits_refuse(why, "line %u: the launch computes %s=%s per call from %s, which the autotune "
					 "key [%s] does not hold: one tuned config per key would replace the author's "
					 "choice per call; tune %s by hand", s->computed[i].line, s->computed[i].option, vt,
					 c.unkeyed, key, k->name);
		free(vt);
		free(c.unkeyed);
		return rc;
	}
	return 0;
}

/* The launches' options, taken out of them for the configs: num_warps and
 * num_stages seed what is tuned, where every launch pins one to 1 that
 * stays in every config (the author's deliberate choice); num_ctas,
 * maxnreg and the others move into every config as launched. Refused
 * (-1, *why): a launch passing **opts (which may hold any of them), a
 * value computed per call (`4 if d <= 64 else 8`: no one config list
 * keeps that in every config), launches that disagree on one. *fixes: a
 * launch fixes num_warps or num_stages. */
static int p1_launch_options(const ta_model *m, const ta_kernel *k, size_t ki, p1_seed *s, bool *fixes, ta_edit *out,
			     char **why)
{
	const char *nv[16] = { 0 };    /* the other options: name, value text, per option */
	long vv[16];
	uint32_t at[16] = { 0 };
	size_t no = 0, launches = 0;
	/* per option of num_warps (0) and num_stages (1): launches passing it, passing 1 */
	size_t passed[2] = { 0, 0 }, ones[2] = { 0, 0 };
	uint32_t pin_line[2] = { 0, 0 };
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		launches++;
		for (size_t j = 0; j < l->arg_count; j++)
			if (!strncmp(m->src->text + l->args[j].start, "**", 2)) {
				char *t = ta_edits_text(m, l->args[j].start, l->args[j].end);
				int rc = ta_edits_refuse(why, "line %u: the launch passes %s, which may hold num_warps, num_stages "
							 "or num_ctas, and every config of an autotune sets those too", l->span.line,
							 t);
				free(t);
				return rc;
			}
		for (size_t j = 0; j < l->kwarg_count; j++) {
			const ta_kwarg *kw = &l->kwargs[j];
			if (!p1_config_option(kw->name))
				continue;
			int which = !strcmp(kw->name, "num_warps") ? 0 : !strcmp(kw->name, "num_stages") ? 1 : -1;
			TSNode vn = ta_edits_node(m, kw->value_span);
			long v = 0;
			bool lit = ta_values_int(m, vn, &v) && v > 0 && v < 1000;
			long choice[4];
			size_t nc = 0;
			if (!lit && which >= 0 && s->computed_count < 4 &&
			    p1_option_choices(m, vn, which, choice, &nc)) {
				/* the tuner tries each value the author computes */
				for (size_t c = 0; c < nc; c++)
					iset_add(which ? &s->stages : &s->warps, (int)choice[c]);
				s->computed[s->computed_count].value = vn;
				s->computed[s->computed_count].launch = l;
				s->computed[s->computed_count].option = kw->name;
				s->computed[s->computed_count++].line = kw->span.line;
				*fixes = true;
				passed[which]++;
				TSNode arg = ta_edits_node(m, kw->span);
				if (!ta_node_is(arg, "keyword_argument") || ta_edits_drop_arg(m, out, arg) != 0)
					return ta_edits_refuse(why, "line %u: cannot take %s= out of the launch",
							       kw->span.line, kw->name);
				continue;
			}
			if (!lit && which >= 0) {
				/* a name shows what it holds: num_warps=num_warps (4 if d <= 64 else 8) */
				TSNode val = ta_values_follow(m, vn);
				char *vt = !ts_node_is_null(val) && !ts_node_eq(val, ta_node_unparen(vn))
					   ? ta_node_text(m->src, val) : NULL;
				for (char *c = vt; c && *c; c++)
					if (*c == '\n' || *c == '\r' || *c == '\t')
						*c = ' ';
				int rc = ta_edits_refuse(why, "line %u: the launch computes %s=%s%s%s%s per call, which one config "
							 "list cannot keep in every config: tune %s by hand", kw->span.line,
							 kw->name, kw->value, vt ? " (" : "", vt ? vt : "", vt ? ")" : "",
							 k->name);
				free(vt);
				return rc;
			}
			if (!lit)
				return ta_edits_refuse(why, "line %u: %s=%s is not a literal, and every config of an autotune "
						       "would have to carry it", kw->span.line, kw->name, kw->value);
			if (which >= 0) {
				*fixes = true;
				passed[which]++;
				if (v == 1) {
					ones[which]++;
					pin_line[which] = kw->span.line;
				}
				iset_add(which ? &s->stages : &s->warps, (int)v);
			} else {
				size_t o = 0;
				while (o < no && strcmp(nv[o], kw->name))
					o++;
				if (o == no && no < 16) {
					nv[no] = kw->name;
					vv[no] = v;
					at[no++] = kw->span.line;
				} else if (o < no && vv[o] != v) {
					return ta_edits_refuse(why, "line %u: %s=%ld here and %ld at line %u: one config list "
							       "cannot keep both", kw->span.line, kw->name, v, vv[o], at[o]);
				}
			}
			TSNode arg = ta_edits_node(m, kw->span);
			if (!ta_node_is(arg, "keyword_argument") || ta_edits_drop_arg(m, out, arg) != 0)
				return ta_edits_refuse(why, "line %u: cannot take %s= out of the launch", kw->span.line,
						       kw->name);
		}
	}
	/* an option one launch sets and another leaves to its default */
	for (size_t o = 0; o < no; o++) {
		size_t with = 0;
		walk = ta_index_launch_walk(m, (int)ki);
		for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
			with += ta_kwarg_find(l->kwargs, l->kwarg_count, nv[o]) != NULL;
		if (with != launches)
			return ta_edits_refuse(why, "line %u: %s=%ld is not passed at every launch, and every config of an "
					       "autotune would carry it", at[o], nv[o], vv[o]);
	}
	ta_buf b = TA_BUF_INIT;
	for (size_t o = 0; o < no; o++)
		ta_buf_printf(&b, ", %s=%ld", nv[o], vv[o]);
	s->extra = b.len ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
	/* num_warps=1, num_stages=1: kept in every config where every launch
	 * pins it; a pin some launch leaves out, or changes, cannot be kept */
	static const char *const names[2] = { "num_warps", "num_stages" };
	for (int w = 0; w < 2; w++) {
		if (!ones[w])
			continue;
		if (ones[w] != launches || passed[w] != launches)
			return ta_edits_refuse(why, "line %u: the launch pins %s=1, which another launch of %s does not: "
					       "one config list cannot keep it for one and tune it for the other",
					       pin_line[w], names[w], k->name);
		if (w == 0)
			s->pin_warps = true;
		else
			s->pin_stages = true;
	}
	return 0;
}

/* A launch argument whose value comes from symmetric memory shared with
 * other GPUs (`h = symm_mem.rendezvous(buf, group)`, `h.buffer_ptrs_dev`,
 * `h.signal_pad_ptrs_dev`): the kernel reads, writes or signals its peers. */
static ta_values_step p1_peer_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	if (!ta_call_named(m, n, "rendezvous"))
		return TA_VALUES_DESCEND;
	*(uint32_t *)ctx = ts_node_start_point(n).row + 1;
	return TA_VALUES_STOP;
}

/* Autotuning a kernel that talks to other GPUs runs it once per config on
 * each of them, independently: the trial launches' signals and remote
 * writes are not matched by the peers' (a barrier waits forever, or counts
 * a trial as the real call). Returns 0, or -1 with *why. */
static int p1_peer_kernel(const ta_model *m, const ta_kernel *k, size_t ki, char **why)
{
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		for (size_t i = 0; i < k->param_count; i++) {
			TSNode a = ta_values_launch_arg(m, l, k, i, NULL);
			uint32_t at = 0;
			if (!ts_node_is_null(a) && !ta_values_walk(m, a, p1_peer_visit, &at))
				return ta_edits_refuse(why, "line %u: %s is passed memory shared with other GPUs "
						       "(rendezvous at line %u): an autotuner's trial launches on each GPU "
						       "would signal and write to peers that do not run them", l->span.line,
						       k->name, at);
		}
	return 0;
}

static int p1_untuned_edit(const ta_model *m, const ta_kernel *k, size_t ki, ta_edit *out, char **why)
{
	TSNode dd = ta_node_parent(k->node);
	if (!ta_node_is(dd, "decorated_definition"))
		return ta_edits_refuse(why, "%s: triton.jit is applied by a call, not a decorator", k->name);
	if (p1_persistence(m, k) == P1_STEPS_OTHERWISE)
		return ta_edits_refuse(why, "persistent %s: occupancy must change its grid and tile-loop step too, "
				       "which is done by hand", k->name);
	if (ta_edits_other_backend(m, P1_CUDA_BRANCH, why) != 0)
		return -1;
	uint32_t unnamed = p1_unnamed_write(m, k, true);
	if (unnamed)
		return ta_edits_refuse(why, "line %u: %s adds atomically through an address that comes from none of "
				       "its arguments: autotuning runs it once per config, and what it adds to cannot be "
				       "named in restore_value", unnamed, k->name);
	uint32_t rmw_line = p1_table_rmw(m, k);
	if (rmw_line)
		return ta_edits_refuse(why, "line %u: %s reads and writes through a pointer it loads from memory: "
				       "autotuning runs it once per config, and what it updates in place cannot be named "
				       "in restore_value", rmw_line, k->name);
	uint32_t table_store = p1_unnamed_write(m, k, false);
	if (p1_foreign_launcher(m, k, why) != 0 || p1_peer_kernel(m, k, ki, why) != 0)
		return -1;
	if (p1_aten_package(m, why) != 0)
		return -1;
	if (p1_roundtrip(m, k, why) != 0 || p1_one_config_comment(m, k, ki, why) != 0)
		return -1;
	/* what the tuner would restore, as p1_rmw_args names it below */
	uint32_t first_write = 0;
	bool *restored = p1_restored(m, k, &first_write);
	bool refused = p1_optional_restored(m, k, ki, restored, why) != 0 ||
		       p1_restores_caller_tensor(m, k, ki, restored, why) != 0;
	free(restored);
	if (refused)
		return -1;
	if (p1_descriptor_inplace(m, k, ki, why) != 0 || p1_tuned_by_wrapper(m, k, ki, why) != 0)
		return -1;
	/* The launches lose their tuned arguments: each must launch k alone. */
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		if (ta_edits_launch_alone(m, l, why) != 0)
			return -1;
	p1_seed s = { 0 };
	bool fixes = false;
	if (p1_launch_options(m, k, ki, &s, &fixes, out, why) != 0) {
		p1_seed_free(&s);
		return -1;
	}
	p1_tiles tiles = { .n = 0 };
	p1_find_tiles(m, k, ki, &tiles);
	size_t tuned = 0;
	ta_buf tuned_names = TA_BUF_INIT, kept = TA_BUF_INIT;
	for (size_t i = 0; i < tiles.n; i++) {
		if (tiles.v[i].tuned) {
			tuned++;
			ta_buf_printf(&tuned_names, "%s%s", tuned_names.len ? ", " : "", tiles.v[i].name);
		} else {
			ta_buf_printf(&kept, "%s%s", kept.len ? "; " : "", tiles.v[i].fixed);
		}
	}
	if (s.pin_warps && (s.pin_stages || p1_loopless(m, k, 0)) && !tuned) {
		int r = ta_edits_refuse(why, "%s's launches pin num_warps=1%s, which every config keeps, and no tile is "
					"tuned: nothing is left to tune", k->name,
					s.pin_stages ? " and num_stages=1" : " and it has no loop to pipeline");
		p1_seed_free(&s);
		p1_tiles_free(&tiles);
		ta_buf_free(&tuned_names);
		ta_buf_free(&kept);
		return r;
	}
	if (!fixes && !tuned) {
		int r = ta_edits_refuse(why, "%s's launches fix only tiles that stay as launched: %s", k->name,
					kept.len ? ta_buf_str(&kept) : "none is a tile");
		p1_seed_free(&s);
		p1_tiles_free(&tiles);
		ta_buf_free(&tuned_names);
		ta_buf_free(&kept);
		return r;
	}
	if (tuned && p1_untile_launches(m, k, ki, &tiles, out, why) != 0) {
		p1_seed_free(&s);
		p1_tiles_free(&tiles);
		ta_buf_free(&tuned_names);
		ta_buf_free(&kept);
		return -1;
	}
	s.keep_stages = true;  /* what the author launched with, per shape or per call */
	if (!s.stages.n)
		iset_add(&s.stages, 3);  /* Triton's defaults */
	if (!s.warps.n)
		iset_add(&s.warps, 4);
	char *skipped = NULL, *key = p1_size_key(m, k, &skipped);
	if (key)
		p1_mode_key(k, &tiles, tuned, &key);
	char *torch = ta_edits_module(m, "torch"), *config = ta_edits_module(m, "triton.Config");
	char *autotune = ta_edits_module(m, "triton.autotune");
	char *fn = ta_xasprintf("%s_configs", k->name);
	int rc = 0;
	if (!key && skipped)
		rc = ta_edits_refuse(why, "line %u: of what %s reads in a mask, range or cdiv, %s: nothing the "
				     "autotune key may hold", k->def_line, k->name, skipped);
	else if (!key)
		rc = ta_edits_refuse(why, "%s reads no size argument in a mask, range or cdiv: no autotune key", k->name);
	else if (!torch || !config || !autotune)
		rc = ta_edits_refuse(why, "the file does not import %s", torch ? "triton" : "torch");
	else if (ta_edits_name_taken(m, fn))
		rc = ta_edits_refuse(why, "the name %s() is taken", fn);
	else
		rc = p1_computed_keyed(m, k, &s, key, why);
	if (rc == 0) {
		if (tuned) {
			p1_tile_dicts(&tiles, &s);
		} else {
			s.tiles = ta_xmalloc(sizeof *s.tiles);
			s.tiles[0] = ta_xstrdup("{}");
			s.tile_count = 1;
		}
		uint32_t at = ta_edits_line_start(m, ts_node_start_byte(dd));
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(dd));
		char *def = p1_function(m, k, &s, fn, torch, config, ind);
		bool branch = strstr(def, "get_device_capability") != NULL;
		/* no GPU branch: nothing at import */
		if (table_store)
			ta_edit_set_unsafe(out, "%s" P1_ASSUMES_TABLE_STORE,
					   branch ? P1_ASSUMES_BRANCH : P1_ASSUMES_TUNING_ONLY, table_store);
		else if (!branch)
			ta_edit_set_unsafe(out, "%s", P1_ASSUMES_TUNING_ONLY);
		/* every config runs on the user's tensors while tuning: what the
		 * kernel reads and writes back gets its first contents again */
		uint32_t wl = 0;
		char *rmw_names = NULL, *rmw = p1_rmw_args(m, k, &rmw_names, &wl);
		char *restore = rmw ? ta_xasprintf(", restore_value=[%s]", rmw) : ta_xstrdup("");
		char *dec = ta_xasprintf("%s%s@%s(configs=%s(), key=[%s]%s)\n", def, ind, autotune, fn, key, restore);
		ta_edit_replace(out, at, at, dec);
		ta_buf title = TA_BUF_INIT;
		if (tuned)
			ta_buf_printf(&title, "%s(): autotune %s's %s (the grid reads META), num_warps and num_stages per "
				      "GPU generation, keyed on %s", fn, k->name, ta_buf_str(&tuned_names), key);
		else
			ta_buf_printf(&title, "%s(): autotune %s's num_warps and num_stages per GPU generation, keyed on "
				      "%s", fn, k->name, key);
		if (tuned && tiles.divisible)
			ta_buf_printf(&title, "; tiles only shrink, since line %u reads without a mask",
				      tiles.divisible_line);
		if (tuned && kept.len)
			ta_buf_printf(&title, "; kept as launched: %s", ta_buf_str(&kept));
		for (size_t i = 0; i < s.computed_count; i++) {
			long ch[4];
			size_t nc = 0;
			ta_values_int_choices(m, s.computed[i].value, ch, 4, &nc);
			ta_buf_printf(&title, "; %s, computed per call at line %u (", s.computed[i].option,
				      s.computed[i].line);
			for (size_t c = 0; c < nc; c++)
				ta_buf_printf(&title, "%s%ld", c ? (c + 1 == nc ? " or " : ", ") : "", ch[c]);
			ta_buf_printf(&title, ") from what the key holds, is tried in every config");
		}
		if (rmw)
			ta_buf_printf(&title, "; %s (written back from line %u) restored after each config tried",
				      rmw_names, wl);
		ta_edit_set_title(out, "%s", ta_buf_str(&title));
		ta_buf_free(&title);
		if (rmw)
			rc = ta_edits_need_triton(m, 2, 2, "triton.autotune's restore_value", out, why);
		free(restore);
		free(rmw);
		free(rmw_names);
		out->line = k->span.line;
		free(dec);
		free(def);
		free(ind);
	}
	p1_seed_free(&s);
	p1_tiles_free(&tiles);
	ta_buf_free(&tuned_names);
	ta_buf_free(&kept);
	free(fn);
	free(key);
	free(skipped);
	free(torch);
	free(config);
	free(autotune);
	return rc;
}

/* The names a list of strings in an autotune keyword holds
 * (`restore_value=["out_ptr"]`), each with its quotes taken off; whether
 * name is one of them. */
static bool p1_kw_names(const ta_autotune *a, const char *kw, const char *name)
{
	const ta_kwarg *v = ta_kwarg_find(a->kwargs, a->kwarg_count, kw);
	if (!v || !v->value)
		return false;
	size_t n = strlen(name);
	for (const char *p = v->value; (p = strstr(p, name)); p += n)
		if (p > v->value && (p[-1] == '"' || p[-1] == '\'') && p[n] == p[-1])
			return true;
	return false;
}

/* Widening an existing autotune owes what adding one owes: an argument k
 * reads and writes back (or accumulates into) is named in restore_value or
 * reset_to_zero, under the same preconditions, else the tuner's trial
 * launches of the new configs accumulate into it (`if not FIRST: acc +=
 * tl.load(out)`: a one-config list had no trials). Adds the missing names
 * to the edit in out. Returns 0, or -1 with *why. */
static int p1_widen_restore(const ta_model *m, const ta_kernel *k, ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	size_t ki = (size_t)(k - m->kernels);
	uint32_t wl = 0;
	bool *restore = p1_restored(m, k, &wl);
	ta_buf names = TA_BUF_INIT, quoted = TA_BUF_INIT;
	for (size_t i = 0; i < k->param_count; i++) {
		if (restore[i] && (p1_kw_names(a, "restore_value", k->params[i].name) ||
				   p1_kw_names(a, "reset_to_zero", k->params[i].name)))
			restore[i] = false;  /* the author's already */
		if (!restore[i])
			continue;
		ta_buf_printf(&names, "%s%s", names.len ? ", " : "", k->params[i].name);
		ta_buf_printf(&quoted, "%s\"%s\"", quoted.len ? ", " : "", k->params[i].name);
	}
	int rc = 0;
	uint32_t unnamed = names.len ? p1_unnamed_write(m, k, false) : 0;
	if (!names.len)
		goto done;
	if (unnamed) {
		rc = ta_edits_refuse(why, "line %u: %s writes through an address that comes from none of its arguments: "
				     "more configs mean more trial launches, and what it writes cannot be named in "
				     "restore_value", unnamed, k->name);
		goto done;
	}
	if (p1_optional_restored(m, k, ki, restore, why) != 0 || p1_restores_caller_tensor(m, k, ki, restore, why) != 0 ||
	    p1_descriptor_inplace(m, k, ki, why) != 0) {
		rc = -1;
		goto done;
	}
	/* into the author's restore_value list, else a keyword of its own */
	const ta_kwarg *rv = ta_kwarg_find(a->kwargs, a->kwarg_count, "restore_value");
	TSNode list = rv ? ta_edits_node(m, rv->value_span) : (TSNode){ 0 };
	TSNode any = a->kwarg_count ? ta_edits_node(m, a->kwargs[a->kwarg_count - 1].span) : (TSNode){ 0 };
	TSNode args = ts_node_is_null(any) ? any : ta_node_parent(any);
	if (rv && !ta_node_is(list, "list")) {
		rc = ta_edits_refuse(why, "line %u: restore_value=%s is not a literal list, so %s cannot be added to it: "
				     "more configs mean more trial launches that write %s", rv->span.line, rv->value,
				     ta_buf_str(&names), ta_buf_str(&names));
		goto done;
	}
	if (rv) {
		uint32_t n = ta_node_named_count(list);
		uint32_t at = n ? ts_node_end_byte(ta_node_named_child(list, n - 1)) : ts_node_start_byte(list) + 1;
		char *t = ta_xasprintf("%s%s", n ? ", " : "", ta_buf_str(&quoted));
		ta_edit_replace(out, at, at, t);
		free(t);
	} else if (ta_node_is(args, "argument_list")) {
		uint32_t n = ta_node_named_count(args);
		TSNode last = ta_node_named_child(args, n - 1);
		while (n > 1 && ta_node_is(last, "comment"))
			last = ta_node_named_child(args, --n - 1);
		char *t = ta_xasprintf(", restore_value=[%s]", ta_buf_str(&quoted));
		ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), t);
		free(t);
	} else {
		rc = ta_edits_refuse(why, "%s's autotune takes no keywords to add restore_value beside, and more configs "
				     "mean more trial launches that write %s", k->name, ta_buf_str(&names));
		goto done;
	}
	char *title = ta_xasprintf("%s; %s (written back from line %u) restored after each config tried",
				   out->title ? out->title : "", ta_buf_str(&names), wl);
	ta_edit_set_title(out, "%s", title);
	free(title);
	rc = ta_edits_need_triton(m, 2, 2, "triton.autotune's restore_value", out, why);
done:
	free(restore);
	ta_buf_free(&names);
	ta_buf_free(&quoted);
	return rc;
}

/* The configs need widening: what the P1 detector reports. */
static bool p1_narrow(const ta_autotune *a)
{
	bool stages = false, warps = false;
	for (size_t i = 0; i < a->vary_count; i++) {
		stages |= !strcmp(a->varies[i], "num_stages");
		warps |= !strcmp(a->varies[i], "num_warps");
	}
	return !a->branches_on_capability || (!stages && !warps);
}

/* A launch of the untuned kernel fixes a tile (constexpr) or a launch
 * option by keyword: what the detector reports. */
static bool p1_fixed_launch(const ta_model *m, const ta_kernel *k, size_t ki)
{
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		for (size_t j = 0; j < l->kwarg_count; j++)
			if (!strcmp(l->kwargs[j].name, "num_warps") || !strcmp(l->kwargs[j].name, "num_stages"))
				return true;
		/* a constexpr passed by name or by position */
		for (size_t i = 0; i < k->param_count; i++)
			if (k->params[i].constexpr_ && !ts_node_is_null(ta_values_launch_arg(m, l, k, i, NULL)))
				return true;
	}
	return false;
}

/* A tile (constexpr) a launch of the untuned kernel leaves at a power-of-two
 * default, or NULL. */
static const ta_param *p1_default_left(const ta_model *m, const ta_kernel *k, size_t ki)
{
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		for (size_t i = 0; i < k->param_count; i++) {
			const ta_param *p = &k->params[i];
			if (p1_pow2_default(p) && ts_node_is_null(ta_values_launch_arg(m, l, k, i, NULL)))
				return p;
		}
	return NULL;
}

/* line falls on the kernel, its autotune, a config of it (the detector
 * reports a named list at its first config) or one of its launches. */
static bool p1_at_line(const ta_model *m, const ta_kernel *k, size_t ki, uint32_t line)
{
	const ta_autotune *a = k->autotune;
	if (!line || ta_edits_at_line(k->span, line))
		return true;
	if (a && (ta_edits_at_line(a->span, line) || ta_edits_at_line(a->configs_span, line)))
		return true;
	for (size_t i = 0; a && i < a->config_count; i++)
		if (ta_edits_at_line(a->configs[i].span, line))
			return true;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		if (ta_edits_at_line(l->span, line))
			return true;
	return false;
}

/* Rewrite: configs from a function that branches on the GPU generation and varies num_stages and num_warps. */
/* The pytest test function (`def test_...`) a kernel is declared in, or
 * NULL (caller frees): such a kernel is the test's fixture, not code to
 * speed up. */
static char *p1_in_test(const ta_model *m, const ta_kernel *k)
{
	for (TSNode n = ta_node_parent(k->node); !ts_node_is_null(n); n = ta_node_parent(n)) {
		if (!ta_node_is(n, "function_definition"))
			continue;
		char *name = ta_node_text(m->src, ta_node_field(n, "name"));
		if (name && !strncmp(name, "test", 4))
			return name;
		free(name);
	}
	return NULL;
}

/* The configs branch on torch.cuda.get_device_capability(), which ROCm
 * answers with its gfx version (an MI300 says (9, 4), the Hopper branch):
 * files that test for another back-end are refused, the rest assume CUDA. */
TA_REWRITE(P1, NULL, TA_UNSAFE(P1_ASSUMES_BRANCH))
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		if (k->is_helper)
			continue;
		const ta_autotune *a = k->autotune;
		if (!p1_at_line(m, k, ki, line))
			continue;
		char *test = p1_in_test(m, k);
		if (test) {
			ta_sites_refuse(&s, ta_xasprintf("line %u: %s is declared inside the test %s: tuning it "
							 "would change what that test checks", k->span.line, k->name, test));
			free(test);
			continue;
		}
		char *w = NULL;
		if (!a) {
			bool fixed = p1_fixed_launch(m, k, ki);
			const ta_param *dp = fixed ? NULL : p1_default_left(m, k, ki);
			if (dp)
				ta_sites_refuse(&s, ta_xasprintf("line %u: %s leaves %s at its default (%s in the "
								 "signature), and this edit tunes tiles the launch "
								 "passes: pass it at the launch, or write the configs "
								 "by hand", k->span.line, k->name, dp->name,
								 dp->default_value));
			if (!fixed)
				continue;
			if (ta_sites_made(&s, p1_untuned_edit(m, k, ki, out, &w), &w, out))
				return 0;
			continue;
		}
		if (!p1_narrow(a)) {
			if (k->persistent && !p1_varies_occupancy(a))
				ta_sites_refuse(&s, ta_xasprintf("persistent %s: occupancy must change its grid and "
								     "tile-loop step too, which is done by hand", k->name));
			continue;
		}
		int rc = p1_autotuned(m, k, out, &w);
		if (rc == 0)
			rc = p1_widen_restore(m, k, out, &w);
		if (ta_sites_made(&s, rc, &w, out))
			return 0;
	}
	return ta_sites_end(&s, why_not, line, "no kernel with fixed tiles or a narrow, one-GPU config list");
}
