/* S1: Raw pointer loads of 2D tiles. Its detector and its rewrite. */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdarg.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* What every S1 edit assumes; the host asserts it where it can. */
#define S1_ASSUMES "assumes each tensor read through a descriptor has a 16-byte aligned base and strides (TMA's rule) and Triton 3.4 or newer (tl.make_tensor_descriptor)"

static bool uses_descriptors(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++) {
		ta_op_kind kd = k->ops[i].kind;
		if (kd == TA_OP_DESC_LOAD || kd == TA_OP_DESC_STORE || kd == TA_OP_MAKE_DESCRIPTOR ||
		    kd == TA_OP_MAKE_BLOCK_PTR || ((kd == TA_OP_LOAD || kd == TA_OP_STORE) &&
						   k->ops[i].ptr_shape == TA_PTR_BLOCK_PTR))
			return true;
	}
	return false;
}

/* ---- S1's detector: where the fast form already exists, and what the
 * tile is ------------------------------------------------------------------ */

/* Kernel ki (or a @jit helper it calls, three calls deep) reads through a
 * descriptor (want_store: writes). */
static bool s1_kernel_has_desc(const ta_model *m, int ki, bool want_store, int depth)
{
	if (ki < 0 || depth > 3)
		return false;
	const ta_kernel *k = &m->kernels[ki];
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *o = &k->ops[i];
		if (o->kind == (want_store ? TA_OP_DESC_STORE : TA_OP_DESC_LOAD) ||
		    (o->kind == TA_OP_HELPER_CALL && o->helper != ki && s1_kernel_has_desc(m, o->helper, want_store, depth + 1)))
			return true;
	}
	return false;
}

/* The code in [a, b) of the kernel, less [xa, xb), reads (writes) through a
 * descriptor, itself or in a helper it calls. */
static bool s1_desc_between(const ta_rule_ctx *c, uint32_t a, uint32_t b, uint32_t xa, uint32_t xb, bool store)
{
	const ta_kernel *k = c->k;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *o = &k->ops[i];
		if (o->span.start < a || o->span.end > b || (o->span.start >= xa && o->span.end <= xb))
			continue;
		if (o->kind == (store ? TA_OP_DESC_STORE : TA_OP_DESC_LOAD) ||
		    (o->kind == TA_OP_HELPER_CALL && o->helper != c->kernel &&
		     s1_kernel_has_desc(c->m, o->helper, store, 1)))
			return true;
	}
	return false;
}

/* The condition is a flag the kernel's @triton.heuristics sets from the
 * sizes (P2's EVEN_K = K % BLOCK_K == 0): its branches split whole blocks
 * from a tail, they do not choose a back-end. */
static bool s1_shape_flag(const ta_rule_ctx *c, TSNode cond)
{
	cond = ta_node_unparen(cond);
	if (ta_node_is(cond, "not_operator"))
		cond = ta_node_unparen(ta_node_field(cond, "argument"));
	for (size_t i = 0; ta_node_is(cond, "identifier") && i < c->k->heuristic_count; i++)
		if (ta_node_text_eq(c->m->src, cond, c->k->heuristics[i].name))
			return true;
	return false;
}

/* The access sits in one branch of a choice whose other branch makes the
 * same access through a descriptor (`if USE_TMA: x = desc.load(...) else:
 * x = tl.load(...)`, or the same as a conditional expression): the fast
 * form is there already, this is its fallback. */
/* Whether the profiled GPU gathers rows by descriptor (Blackwell: B100,
 * B200, B300, GB200, the RTX 50 series); without a profile the checklist
 * reads for Hopper, where TMA has no row gather. */
static bool s1_row_gather_gpu(const ta_rule_ctx *c)
{
	static const char *const blackwell[] = { "B100", "B200", "B300", "GB200", "GB300", "Blackwell", "RTX 50",
						 NULL };
	const char *d = c->ev ? c->ev->device : NULL;
	for (size_t i = 0; d && blackwell[i]; i++)
		if (strstr(d, blackwell[i]))
			return true;
	return false;
}

/* Where the index of one load that gives a gathered access its rows
 * comes from: the load's line, and, when that load sits in a branch that
 * does not also hold the access (`if HAS_VALIDS: offs = tl.load(valids +
 * offs)`), the branch's condition as "when C" or "unless C" (caller frees;
 * NULL when it loads on every path). */
/* The arm of an if holding node n but not the byte `access` (where the
 * access is), as "when C" or "unless C" (caller frees), or NULL. */
static char *s1_arm_holding(const ta_rule_ctx *c, TSNode n, uint32_t access)
{
	for (TSNode p = ta_node_parent(n), below = n; !ts_node_is_null(p); below = p, p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition") || (access >= ts_node_start_byte(p) && access < ts_node_end_byte(p)))
			return NULL;
		if ((ta_node_is(p, "if_statement") || ta_node_is(p, "elif_clause")) &&
		    !ts_node_eq(below, ta_node_field(p, "condition")) && !ta_node_is(below, "else_clause") &&
		    !ta_node_is(below, "elif_clause")) {
			char *cond = ta_node_text(c->m->src, ta_node_field(p, "condition"));
			char *w = ta_xasprintf("when %s", cond);
			free(cond);
			return w;
		}
		if (ta_node_is(p, "else_clause")) {
			char *cond = ta_node_text(c->m->src, ta_node_field(ta_node_parent(p), "condition"));
			char *w = ta_xasprintf("unless %s", cond);
			free(cond);
			return w;
		}
	}
	return NULL;
}

static char *s1_gather_when(const ta_rule_ctx *c, const ta_op *op, uint32_t at, uint32_t *line)
{
	*line = 0;
	TSNode root = ta_syntax_root(c->m->syn);
	TSNode ld = ta_node_named_at(root, at - 1, at - 1);
	if (ts_node_is_null(ld))
		return NULL;
	*line = ts_node_start_point(ld).row + 1;
	return s1_arm_holding(c, ld, op->span.start);
}

/* ---- a gather chosen by a branch ----------------------------------------
 * `if y_grouped: rows = M_block else: rows = M_idx` with M_idx loaded: the
 * index load itself runs on every path, but the access reads it only
 * through a name an arm of an if binds (cute-kernels' scatter2scatter). */

typedef struct s1_reach {
	const ta_rule_ctx *c;
	TSNode ld;               /* the index load */
	TSNode access;           /* the load or store that reads rows */
	char *when;              /* out: "when C" / "unless C" */
	int depth;
} s1_reach;

static bool s1_reaches(s1_reach *r, TSNode n);
static bool s1_param_reaches(s1_reach *r, TSNode id);


/* A parameter of the helper the access is in (c->k): whether what a call
 * of it in the load's function passes reaches the load, the arms read
 * from that call. */
static bool s1_param_reaches(s1_reach *r, TSNode id)
{
	const ta_rule_ctx *c = r->c;
	char *name = ta_node_text(c->m->src, id);
	const ta_param *p = ta_kernel_param(c->k, name);
	TSNode ld_fn = ta_node_ancestor(r->ld, "function_definition"), root = ta_syntax_root(c->m->syn);
	bool yes = false;
	for (size_t ki = 0; p && ki < c->m->kernel_count && !yes; ki++) {
		const ta_kernel *caller = &c->m->kernels[ki];
		for (size_t i = 0; i < caller->op_count && !yes; i++) {
			const ta_op *op = &caller->ops[i];
			if (op->kind != TA_OP_HELPER_CALL || op->helper != c->kernel ||
			    op->span.start < ts_node_start_byte(ld_fn) || op->span.start >= ts_node_end_byte(ld_fn))
				continue;
			size_t pi = (size_t)(p - c->k->params);
			const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, name);
			ta_span a = kw ? kw->value_span : pi < op->arg_count ? op->args[pi] : (ta_span){ 0 };
			if (a.end <= a.start)
				continue;
			TSNode saved = r->access;
			r->access = ta_node_named_at(root, op->span.start, op->span.end);
			yes = s1_reaches(r, ta_node_named_at(root, a.start, a.end));
			r->access = saved;
		}
	}
	free(name);
	return yes;
}

/* Whether the value of v (analyze/values.h: names followed to their
 * values, `rows = idx_b` with `idx_b = tl.load(...)`) loads: an index of
 * rows. */
static ta_values_step s1_visit_load(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	bool *found = ctx;
	if (!ta_node_is(n, "call"))
		return TA_VALUES_DESCEND;
	char *f = ta_model_canonical(m, ta_node_field(n, "function"));
	*found = f && ta_name_is(f, "triton.language.load");
	free(f);
	return *found ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

static bool s1_loads_index(const ta_rule_ctx *c, TSNode v)
{
	bool found = false;
	if (!ts_node_is_null(v))
		ta_values_walk(c->m, v, s1_visit_load, &found);
	return found;
}

/* Whether the name's bindings reach the load: with several, where only
 * those of one arm do, r->when says which. */
static bool s1_name_reaches(s1_reach *r, TSNode id)
{
	TSNode fn = ta_node_ancestor(id, "function_definition");
	char *name = ta_node_text(r->c->m->src, id);
	size_t n;
	const ta_values_binding *d = ta_values_bindings(r->c->m, fn, name, strlen(name), &n);
	free(name);
	size_t reach = 0, plain = 0, last = 0;
	for (size_t i = 0; i < n; i++) {
		if (d[i].mutation || ts_node_start_byte(d[i].binding) >= ts_node_start_byte(r->access) ||
		    !ta_node_is(d[i].binding, "assignment"))
			continue;
		if (s1_reaches(r, ta_node_field(d[i].binding, "right"))) {
			reach++;
			last = i;
		} else if (!s1_loads_index(r->c, ta_node_field(d[i].binding, "right"))) {
			/* a binding that loads its own index (`rows =
			 * tl.load(out_idx + offs)` in the other arm) is another
			 * gather, no plain tile */
			plain++;
		}
	}
	if (reach == 1 && plain && !r->when)
		r->when = s1_arm_holding(r->c, d[last].binding, ts_node_start_byte(r->access));
	if (reach || plain)
		return reach > 0;
	return s1_param_reaches(r, id);
}

static bool s1_reaches(s1_reach *r, TSNode n)
{
	if (ts_node_is_null(n) || r->depth > 8)
		return false;
	/* the load itself, or a part of it; a node around it is descended
	 * into, for the arm that holds it */
	if (ts_node_start_byte(n) >= ts_node_start_byte(r->ld) && ts_node_end_byte(n) <= ts_node_end_byte(r->ld))
		return true;
	if (ta_node_is(n, "identifier")) {
		r->depth++;
		bool yes = s1_name_reaches(r, n);
		r->depth--;
		return yes;
	}
	/* `M_block if y_grouped else M_idx`: the index on one side */
	if (ta_node_is(n, "conditional_expression") && ta_node_named_count(n) == 3) {
		bool lhs = s1_reaches(r, ta_node_named_child(n, 0)), rhs = s1_reaches(r, ta_node_named_child(n, 2));
		if (lhs != rhs && !r->when) {
			char *cond = ta_node_text(r->c->m->src, ta_node_named_child(n, 1));
			r->when = ta_xasprintf("%s %s", lhs ? "when" : "unless", cond);
			free(cond);
		}
		return lhs || rhs;
	}
	for (uint32_t i = 0; i < ta_node_named_count(n); i++)
		if (s1_reaches(r, ta_node_named_child(n, i)))
			return true;
	return false;
}

/* "when C" / "unless C" where the access reads the index loaded at `at`
 * only through a name one arm of an if binds (in the access's function,
 * or in a caller that passes it to the helper the access is in); NULL
 * otherwise. */
static char *s1_gather_branch(const ta_rule_ctx *c, const ta_op *op, uint32_t at)
{
	TSNode root = ta_syntax_root(c->m->syn), access = ta_rule_node(c, op->span);
	TSNode ld = ta_node_named_at(root, at - 1, at - 1);
	if (ts_node_is_null(ld) || !op->arg_count)
		return NULL;
	s1_reach r = { .c = c, .ld = ld, .access = access };
	if (!s1_reaches(&r, ta_rule_node(c, op->args[0]))) {
		free(r.when);
		return NULL;
	}
	return r.when;
}

/* Where a gathered access's rows come from, every index load that reaches
 * it (a helper's parameter: one per caller that passes a gathered tile):
 * "the index loaded at line 155 when HAS_VOCAB_ORDERING or at line 151
 * when HAS_VALIDS". *flagged: each of them under a flag, so the rows are
 * a plain tile otherwise. Caller frees. */
static char *s1_gather_sources(const ta_rule_ctx *c, const ta_op *op, bool *flagged)
{
	ta_buf b = TA_BUF_INIT;
	size_t n = 0;
	*flagged = true;
	char *whens[4] = { 0 };
	for (size_t g = 0; g < 4 && op->gather_at[g]; g++) {
		uint32_t line;
		char *when = s1_gather_when(c, op, op->gather_at[g], &line);
		if (!when && line)
			when = s1_gather_branch(c, op, op->gather_at[g]);
		if (!line) {
			free(when);
			continue;
		}
		*flagged &= when != NULL;
		ta_buf_printf(&b, "%s%sline %u%s%s", n ? " or " : "the index loaded at ", n ? "at " : "", line,
			      when ? " " : "", when ? when : "");
		whens[n++] = when;
	}
	/* an index in each arm of one test ("when F" and "unless F"): no
	 * path is left where the rows form a plain tile */
	for (size_t i = 0; i < n && *flagged; i++)
		for (size_t j = 0; j < n && *flagged; j++)
			if (whens[i] && whens[j] && !strncmp(whens[i], "when ", 5) && !strncmp(whens[j], "unless ", 7) &&
			    !strcmp(whens[i] + 5, whens[j] + 7))
				*flagged = false;
	for (size_t i = 0; i < n; i++)
		free(whens[i]);
	if (!n) {
		*flagged = false;
		ta_buf_puts(&b, "a loaded index");
	}
	return ta_buf_steal(&b);
}

static bool s1_fast_form_beside(const ta_rule_ctx *c, const ta_op *op)
{
	bool store = op->kind == TA_OP_STORE;
	TSNode n = ta_rule_node(c, op->span);
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
	     n = p, p = ta_node_parent(p)) {
		if (ta_node_is(p, "conditional_expression") && ta_node_named_count(p) == 3) {
			TSNode here = ta_node_named_child(p, 0), there = ta_node_named_child(p, 2);
			if (ts_node_eq(n, there)) {
				there = here;
				here = n;
			} else if (!ts_node_eq(n, here)) {
				continue;     /* in the condition */
			}
			if (s1_desc_between(c, ts_node_start_byte(there), ts_node_end_byte(there), 0, 0, store))
				return true;
		} else if (ta_node_is(p, "block")) {
			TSNode arm = ta_node_parent(p);
			TSNode ifs = ta_node_is(arm, "elif_clause") || ta_node_is(arm, "else_clause") ? ta_node_parent(arm) : arm;
			if (!ta_node_is(ifs, "if_statement") || s1_shape_flag(c, ta_node_field(ifs, "condition")))
				continue;
			/* the whole if less this arm and the conditions */
			TSNode cond = ta_node_field(ifs, "condition");
			uint32_t a = ts_node_end_byte(cond), b = ts_node_end_byte(ifs);
			if (s1_desc_between(c, a, b, ts_node_start_byte(p), ts_node_end_byte(p), store))
				return true;
		}
	}
	return false;
}

/* Whether the test reads as "this is another back-end than CUDA" where it
 * holds: a back-end test, not negated. */
static bool s1_backend_cond(const ta_model *m, TSNode cond, bool *negated)
{
	cond = ta_node_unparen(cond);
	*negated = ta_node_is(cond, "not_operator");
	if (*negated)
		cond = ta_node_field(cond, "argument");
	uint32_t a = ts_node_start_byte(cond), b = ts_node_end_byte(cond);
	return ta_text_backend_test(m->src->text + a, b - a);
}

/* The launch runs only on another back-end: it is made where a back-end
 * test holds (the arm of `if torch.version.hip:`, the else of `if not
 * is_hip():`), or its callee is chosen by one (`fn = raw if IS_AMD else tma`). */
/* `fn = A if TEST else B`, and the launch runs fn when it is kernel (its
 * only_if "fn is A"): TEST is a back-end test that holds for kernel's arm. */
static bool s1_alias_elsewhere(const ta_model *m, const char *only_if)
{
	const char *is = strstr(only_if, " is ");
	if (!is || strstr(is + 4, " or "))
		return false;
	char *name = ta_xstrndup(only_if, (size_t)(is - only_if));
	const char *kernel = is + 4;
	bool hit = false;
	for (size_t i = 0; i < m->assign_node_count && !hit; i++) {
		TSNode a = m->assign_nodes[i].node;
		TSNode left = ta_node_field(a, "left"), right = ta_node_unparen(ta_node_field(a, "right"));
		if (!ta_node_text_eq(m->src, left, name) || !ta_node_is(right, "conditional_expression") ||
		    ta_node_named_count(right) != 3)
			continue;
		bool negated;
		if (!s1_backend_cond(m, ta_node_named_child(right, 1), &negated))
			continue;
		bool first = ta_node_text_eq(m->src, ta_node_unparen(ta_node_named_child(right, 0)), kernel);
		bool second = ta_node_text_eq(m->src, ta_node_unparen(ta_node_named_child(right, 2)), kernel);
		hit = (first && !negated) || (second && negated);
	}
	free(name);
	return hit;
}

static bool s1_launch_elsewhere(const ta_model *m, const ta_launch *l)
{
	if (l->only_if) {
		size_t n = strlen(l->only_if);
		bool negated = !strncmp(l->only_if, "not ", 4);
		if (s1_alias_elsewhere(m, l->only_if))
			return true;
		if (ta_text_backend_test(l->only_if, n) && !strstr(l->only_if, " is "))
			return !negated;
	}
	TSNode root = ta_syntax_root(m->syn);
	TSNode n = ta_node_named_at(root, l->span.start, l->span.end);
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
	     n = p, p = ta_node_parent(p)) {
		if (!ta_node_is(p, "block"))
			continue;
		TSNode arm = ta_node_parent(p);
		bool negated;
		if (ta_node_is(arm, "if_statement") || ta_node_is(arm, "elif_clause")) {
			if (s1_backend_cond(m, ta_node_field(arm, "condition"), &negated) && !negated)
				return true;
		} else if (ta_node_is(arm, "else_clause")) {
			TSNode ifs = ta_node_parent(arm);
			if (s1_backend_cond(m, ta_node_field(ifs, "condition"), &negated) && negated)
				return true;
		}
	}
	return false;
}

/* Words of a kernel's name that name another back-end (`_attn_fwd_hip`). */
static bool s1_backend_named(const char *name)
{
	static const char *const words[] = { "hip", "amd", "rocm", "xpu", "npu", "mlu", "musa", "ascend", NULL };
	for (const char *w = name; *w;) {
		size_t len = strcspn(w, "_");
		for (int i = 0; words[i]; i++)
			if (len == strlen(words[i]) && !strncasecmp(w, words[i], len))
				return true;
		w += len + (w[len] == '_');
	}
	return false;
}

/* The kernel is written for another back-end (often the twin of a CUDA
 * kernel that already uses descriptors): every launch the file holds runs
 * on another back-end, or, where the file launches it nowhere, its name
 * says so. TMA is NVIDIA's: no fast form to offer it. (Nothing here asks
 * for another kernel: a file analysed in parts sees one group of kernels
 * that name each other at a time.) */
static bool s1_other_backend_twin(const ta_rule_ctx *c)
{
	bool any = false, all = true;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		any = true;
		all &= s1_launch_elsewhere(c->m, l);
	}
	return any ? all : s1_backend_named(c->k->name);
}

/* The step of the pointer's last axis when a literal integer above 1 scales
 * it (`(2 * c)[None, :]`, `c[None, :] * 2`, `cols = tl.arange(0, C) * 2`):
 * a de-interleave, whose elements are not contiguous; else 0. */
static long s1_literal_step(const ta_model *m, TSNode n)
{
	n = ta_node_unparen(n);
	if (!ta_node_is(n, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*"))
		return 0;
	TSNode l = ta_node_unparen(ta_node_field(n, "left")), r = ta_node_unparen(ta_node_field(n, "right"));
	TSNode lit = ta_node_is(l, "integer") ? l : ta_node_is(r, "integer") ? r : (TSNode){ 0 };
	if (ts_node_is_null(lit))
		return 0;
	char *t = ta_node_text(m->src, lit);
	long v = strtol(t, NULL, 0);
	free(t);
	return v > 1 ? v : 0;
}

/* The last plain binding of identifier id that ends before `before`
 * (`x = ...`, not `x += ...`), or NULL. */
static const ta_assign *s1_binding_before(ta_rule_ctx *c, TSNode id, uint32_t before)
{
	char *name = ta_node_text(c->m->src, id);
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n), *def = NULL;
	for (size_t i = 0; i < n; i++)
		if (!as[i].augmented && as[i].stmt.end <= before && !strcmp(as[i].name, name))
			def = &as[i];
	free(name);
	return def;
}

static long s1_last_step(ta_rule_ctx *c, TSNode ptr, uint32_t before, int rank, int depth)
{
	/* each name followed costs two levels: `x_2 = x_1 + 1` over `x_1 =
	 * offs + c[None, :] * 2` is four deep */
	if (ts_node_is_null(ptr) || depth > 7)
		return 0;
	ptr = ta_node_unparen(ptr);
	if (ta_node_is(ptr, "identifier")) {
		const ta_assign *def = s1_binding_before(c, ptr, before);
		return def ? s1_last_step(c, ta_rule_node(c, def->rhs), def->stmt.start, rank, depth + 1) : 0;
	}
	TSNode t[16];
	size_t count = ta_edits_chain_terms(c->m, ptr, "+", t, 16);
	for (size_t i = 0; i < count; i++) {
		TSNode term = ta_node_unparen(t[i]);
		if (count == 1 && ta_node_is(term, "binary_operator") &&
		    !ta_node_text_eq(c->m->src, ta_node_field(term, "operator"), "*"))
			break;
		if (ta_node_is(term, "identifier")) {
			long v = s1_last_step(c, term, before, rank, depth + 1);
			if (v)
				return v;
			continue;
		}
		/* the term on the last axis: x[None, :] (x[None, None, :]) */
		TSNode sub = term;
		long k = s1_literal_step(c->m, term);
		if (k) {
			TSNode l = ta_node_unparen(ta_node_field(term, "left"));
			sub = ta_node_is(l, "integer") ? ta_node_unparen(ta_node_field(term, "right")) : l;
			/* offsets laid out on the last axis where they are made
			 * (`cols = tl.arange(0, 32)[None, :]`, then `4 * cols`) */
			const ta_assign *def = ta_node_is(sub, "identifier") ? s1_binding_before(c, sub, before) : NULL;
			if (def)
				sub = ta_node_unparen(ta_rule_node(c, def->rhs));
		}
		if (!ta_node_is(sub, "subscript"))
			continue;
		uint32_t nsub = ta_node_named_count(sub);
		if ((int)nsub - 1 != rank || !ta_node_is(ta_node_named_child(sub, nsub - 1), "slice"))
			continue;
		if (k)
			return k;
		/* the subscripted offsets scaled where they are made */
		TSNode v = ta_node_unparen(ta_node_named_child(sub, 0));
		if (ta_node_is(v, "identifier")) {
			const ta_assign *def = s1_binding_before(c, v, before);
			if (def)
				v = ta_rule_node(c, def->rhs);
		}
		k = s1_literal_step(c->m, v);
		if (k)
			return k;
	}
	return 0;
}

/* The line of the first loop of k that moves tiles (a 2D load, gathered
 * or plain, a descriptor load, or a dot), or 0: where a kernel with a
 * serial or reduction loop spends its time. A loop of scalar or row loads
 * (a search over group ends, a forward substitution) is not. */
static uint32_t s1_loading_loop(const ta_model *m, const ta_kernel *k, int depth)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->loop >= 0 && ((op->kind == TA_OP_LOAD && op->ptr_shape == TA_PTR_2D) ||
				      op->kind == TA_OP_DESC_LOAD || op->kind == TA_OP_DOT))
			return k->loops[op->loop].span.line;
	}
	/* the loop split into a helper the kernel calls */
	for (size_t i = 0; i < k->op_count && depth < 2; i++) {
		const ta_op *op = &k->ops[i];
		uint32_t at = op->kind == TA_OP_HELPER_CALL && op->helper >= 0 && (size_t)op->helper < m->kernel_count
				      ? s1_loading_loop(m, &m->kernels[op->helper], depth + 1) : 0;
		if (at)
			return at;
	}
	return 0;
}

/* Whether a helper k calls moves a plain raw 2D tile in a loop of its own
 * (the K loop split into a helper): then k's loop work is raw tiles, and
 * k's tiles outside it are sites of the same finding, as if inlined. */
static bool s1_helper_loop_raw(const ta_model *m, const ta_kernel *k, int depth)
{
	for (size_t i = 0; i < k->op_count && depth < 2; i++) {
		const ta_op *call = &k->ops[i];
		if (call->kind != TA_OP_HELPER_CALL || call->helper < 0 || (size_t)call->helper >= m->kernel_count)
			continue;
		const ta_kernel *h = &m->kernels[call->helper];
		for (size_t j = 0; j < h->op_count; j++)
			if ((h->ops[j].kind == TA_OP_LOAD || h->ops[j].kind == TA_OP_STORE) && h->ops[j].loop >= 0 &&
			    h->ops[j].ptr_shape == TA_PTR_2D && !h->ops[j].gather)
				return true;
		if (s1_helper_loop_raw(m, h, depth + 1))
			return true;
	}
	return false;
}

/* The op of kernel k at which finding f is anchored, or NULL. */
static const ta_op *s1_finding_op(const ta_kernel *k, const ta_finding *f)
{
	for (size_t j = 0; j < k->op_count; j++)
		if (k->ops[j].span.start == f->span.start)
			return &k->ops[j];
	return NULL;
}

/* Whether loop a holds loop l (a persistent kernel's tile loop around
 * its K loop). */
static bool s1_loop_holds(const ta_kernel *k, int a, int l)
{
	for (int p = l >= 0 ? k->loops[l].parent : -1; p >= 0; p = k->loops[p].parent)
		if (p == a)
			return true;
	return false;
}

/* The loops of k whose accesses are moved once per output tile: a
 * persistent kernel's tile loop (one from the program id stepping by the
 * program count) that holds the loop `work` that moves the kernel's tiles,
 * its prologue and epilogue; NULL when none (work < 0, or no such loop).
 * Asked once per kernel, not per access. Caller frees. */
static bool *s1_tile_loops(const ta_kernel *k, int work)
{
	bool *once = NULL;
	for (size_t l = 0; work >= 0 && l < k->loop_count; l++)
		if (s1_loop_holds(k, (int)l, work) && ta_kernel_tile_loop(k, l)) {
			if (!once)
				once = ta_xcalloc(k->loop_count, sizeof *once);
			once[l] = true;
		}
	return once;
}

/* Where op is moved once: outside every loop (once per program), or in
 * one of the tile loops s1_tile_loops found (once per output tile). */
static bool s1_moved_once(const ta_op *op, const bool *tile_loops)
{
	return op->loop < 0 || (tile_loops && tile_loops[op->loop]);
}

/* Turn the S1 findings of c's kernel from `from` on into notes that end
 * in `why`; none when a plain one is in the loop that moves the kernel's
 * tiles (work, a loop index of the kernel or -1). A guided one (an
 * interleaved tile, a row gather) in a loop stays as it is, and one
 * outside every loop becomes a note too. */
static void s1_notes(ta_rule_ctx *c, size_t from, const char *why, int work)
{
	const ta_kernel *k = c->k;
	bool *tile_loops = s1_tile_loops(k, work);
	size_t plain = 0;
	for (size_t i = from; i < c->res->finding_count; i++) {
		const ta_finding *f = &c->res->findings[i];
		if (f->kernel != c->kernel || strcmp(f->id, "S1") || (f->tags & TA_TAG_NOTE))
			continue;
		const ta_op *op = s1_finding_op(k, f);
		if (!op || (!s1_moved_once(op, tile_loops) && !(f->tags & TA_TAG_GUIDED))) {
			free(tile_loops);
			return;
		}
		plain += s1_moved_once(op, tile_loops);
	}
	for (size_t i = from; plain && i < c->res->finding_count; i++) {
		ta_finding *f = &c->res->findings[i];
		const ta_op *op = f->kernel == c->kernel && !strcmp(f->id, "S1") ? s1_finding_op(k, f) : NULL;
		if (!op || (f->tags & TA_TAG_NOTE) || !s1_moved_once(op, tile_loops))
			continue;
		char *per = op->loop < 0 ? ta_xstrdup("program")
					 : ta_xasprintf("output tile of the loop at line %u", k->loops[op->loop].span.line);
		char *r = ta_xasprintf("%s, but this tile is %s once per %s, %s: little to gain there", f->reason,
				       strstr(f->reason, " stored ") ? "stored" : "loaded", per, why);
		free(per);
		free(f->reason);
		f->reason = r;
		f->tags |= TA_TAG_NOTE;
	}
	free(tile_loops);
}

/* A kernel with no loop and no tl.dot, nor any kernel calling it (a
 * row-dot preprocess, a merge of split results, an elementwise pass):
 * each tile crosses memory once, coalesced raw loads already stream it at
 * bandwidth, and there is no loop for TMA to pipeline nor an MMA to stage
 * for. Its findings become notes. */
static bool s1_one_shot_notes(ta_rule_ctx *c, size_t from)
{
	if (!ta_kernel_one_shot(c->m, (int)c->kernel))
		return false;
	s1_notes(c, from, "in a kernel with no loop and no tl.dot", -1);
	return true;
}

/* A kernel whose every plain raw tile is read or written once per program,
 * outside the loop that loads what the kernel works through (weights
 * before a recurrence whose steps gather their rows, an epilogue store
 * after a descriptor K loop), or outside every loop of a kernel with no
 * tl.dot when none moves a tile (a state loaded before a recurrence over
 * rows and stored after it; a group search before a GEMM tile is the
 * GEMM's work, and stays): TMA's gain is in the loop it pipelines; a
 * tile moved once saves the address math of one tile. The findings from
 * `from` on become notes that say so. */
static void s1_outside_loop_notes(ta_rule_ctx *c, size_t from)
{
	const ta_kernel *k = c->k;
	uint32_t loop = s1_loading_loop(c->m, k, 0);
	/* a helper without loops of its own: where its callers call it (the
	 * Q tile's load split into a helper called before the KV loop) */
	bool called = false, outside = true;
	for (size_t ki = 0; !loop && !k->loop_count && ki < c->m->kernel_count && outside; ki++) {
		const ta_kernel *caller = &c->m->kernels[ki];
		for (size_t i = 0; i < caller->op_count && outside; i++) {
			const ta_op *op = &caller->ops[i];
			if (op->kind != TA_OP_HELPER_CALL || op->helper != c->kernel)
				continue;
			uint32_t at = s1_loading_loop(c->m, caller, 0);
			called = true;
			outside = op->loop < 0 && at;
			if (outside && !loop)
				loop = at;
		}
	}
	/* a loop that moves no tile (a recurrence over rows, a search): the
	 * tiles outside it still cross memory once per program */
	bool helper_in_loop = false, dot = false;
	for (size_t i = 0; i < k->op_count; i++) {
		helper_in_loop |= k->ops[i].loop >= 0 && k->ops[i].kind == TA_OP_HELPER_CALL;
		dot |= k->ops[i].kind == TA_OP_DOT;
	}
	if (!loop && !called && k->loop_count && !helper_in_loop && !dot)
		loop = k->loops[0].span.line;
	/* no loop of its own, and the only loops in the helpers it calls
	 * outside any loop, with no tl.dot there (a search of the sequence a
	 * row belongs to in its offsets): the same */
	const char *in = NULL;
	for (size_t i = 0; i < k->op_count && !loop && !called && !k->loop_count && !dot; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || (size_t)op->helper >= c->m->kernel_count ||
		    op->helper == (int)c->kernel)
			continue;
		const ta_kernel *h = &c->m->kernels[op->helper];
		bool hdot = false;
		for (size_t j = 0; j < h->op_count; j++)
			hdot |= h->ops[j].kind == TA_OP_DOT || h->ops[j].kind == TA_OP_HELPER_CALL;
		if (hdot)
			break;
		if (h->loop_count) {
			loop = h->loops[0].span.line;
			in = h->name;
		}
	}
	if (!loop || (called && !outside) || s1_helper_loop_raw(c->m, k, 0))
		return;
	char *why = in ? ta_xasprintf("outside the loop at line %u (in `%s`)", loop, in)
		       : ta_xasprintf("outside the loop at line %u", loop);
	/* the kernel's own loop that moves its tiles, whose enclosing loops
	 * (a persistent kernel's tile loop) move an epilogue once per tile */
	int work = -1;
	for (size_t i = 0; i < k->loop_count && work < 0 && !in && !called; i++)
		if (k->loops[i].span.line == loop)
			work = (int)i;
	s1_notes(c, from, why, work);
	free(why);
}

/* A row stride that is a length the kernel loads and caps (`offs_m[:,
 * None] * seqlen` with `seqlen = tl.load(lengths + b)` and `seqlen =
 * tl.minimum(seqlen, max_len)`, or the cap bound to another name): a
 * jagged row's length, which TMA's rule of 16-byte strides does not allow
 * in general, so no descriptor describes the tile. */
static bool s1_loaded(const ta_model *m, TSNode v, bool pointer);

typedef struct s1_len_walk {
	const ta_model *m;
	const ta_kernel *k;
	bool found;
} s1_len_walk;

/* Some binding of the identifier id in the kernel is a tl.load. */
static bool s1_loaded_def(const s1_len_walk *w, TSNode id)
{
	char *name = ta_node_text(w->m->src, id);
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(w->m, w->k->node, name, &d);
	free(name);
	bool loaded = false;
	for (size_t i = 0; i < d.n && !loaded; i++)
		loaded = ta_node_is(d.v[i], "assignment") &&
			 s1_loaded(w->m, ta_node_unparen(ta_node_field(d.v[i], "right")), false);
	return loaded;
}

static bool s1_loaded_length(const s1_len_walk *w, TSNode id)
{
	if (!ta_node_is(id, "identifier"))
		return false;
	char *name = ta_node_text(w->m->src, id);
	bool loaded = s1_loaded_def(w, id);
	/* truncated = tl.minimum(seq_len, cap), seq_len loaded */
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(w->m, w->k->node, name, &d);
	for (size_t i = 0; i < d.n && !loaded; i++) {
		TSNode r = ta_node_is(d.v[i], "assignment") ? ta_node_unparen(ta_node_field(d.v[i], "right"))
							   : (TSNode){ 0 };
		TSNode a0 = ta_call_named(w->m, r, "minimum") ? ta_node_unparen(ta_edits_call_arg(w->m, r, 0, NULL))
							      : (TSNode){ 0 };
		if (ta_node_is(a0, "identifier") && !ta_node_text_eq(w->m->src, a0, name))
			loaded = s1_loaded_def(w, a0);
	}
	bool yes = loaded && ta_rule_clamped(w->m, w->k, name);
	free(name);
	return yes;
}

static ta_values_step s1_len_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	s1_len_walk *w = ctx;
	if (!ta_node_is(n, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*"))
		return TA_VALUES_DESCEND;
	TSNode l = ta_node_unparen(ta_node_field(n, "left")), r = ta_node_unparen(ta_node_field(n, "right"));
	for (int side = 0; side < 2 && !w->found; side++) {
		TSNode idx = side ? r : l, f = side ? l : r;
		if (!ta_node_is(idx, "subscript"))
			continue;
		char *t = ta_node_text(m->src, idx);
		w->found = t && strstr(t, "None") && s1_loaded_length(w, f);
		free(t);
	}
	return w->found ? TA_VALUES_STOP : TA_VALUES_DESCEND;
}

static bool s1_length_stride(ta_rule_ctx *c, const ta_op *op)
{
	if (!op->arg_count)
		return false;
	s1_len_walk w = { c->m, c->k, false };
	TSNode p = ta_node_unparen(ta_rule_node(c, op->args[0]));
	ta_values_walk(c->m, p, s1_len_visit, &w);
	/* a pointer tile bound once and advanced in the loop (`a_ptrs +=
	 * BLOCK_N`) has no single value: its first binding holds the rows */
	if (!w.found && ta_node_is(p, "identifier")) {
		char *name = ta_node_text(c->m->src, p);
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(c->m, c->k->node, name, &d);
		free(name);
		for (size_t i = 0; i < d.n && !w.found; i++)
			if (ta_node_is(d.v[i], "assignment"))
				ta_values_walk(c->m, ta_node_field(d.v[i], "right"), s1_len_visit, &w);
	}
	return w.found;
}

/* Whether the additive term t of a pointer is a tile of base pointers
 * loaded from memory (`bases[:, None]`, bases = tl.load(table + rank)
 * .to(tl.pointer_type(...)), through names): each row has its own base. */
static bool s1_loaded_bases(ta_rule_ctx *c, TSNode t, int depth)
{
	t = ta_node_unparen(t);
	if (depth > 8 || ts_node_is_null(t))
		return false;
	bool axes = false;
	while (ta_node_is(t, "subscript")) {
		axes = true;
		t = ta_node_unparen(ta_node_field(t, "value"));
	}
	if (ta_node_is(t, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(t, "operator"), "+"))
		return s1_loaded_bases(c, ta_node_field(t, "left"), depth + 1) ||
		       s1_loaded_bases(c, ta_node_field(t, "right"), depth + 1);
	if (!axes && ta_node_is(t, "identifier")) {
		TSNode v = ta_values_follow_names(c->m, t);
		return !ts_node_eq(v, t) && s1_loaded_bases(c, v, depth + 1);
	}
	if (!axes)
		return false;
	/* the tile given axes: a load's values cast to pointers (loaded
	 * indices added at unit stride, `x + rows * N + idx[None, :]`, are a
	 * column gather, not bases) */
	t = ta_values_follow_names(c->m, t);
	bool pointers = false;
	for (int i = 0; i < 4 && ta_node_is(t, "call"); i++) {
		if (ta_call_named(c->m, t, "load"))
			return pointers;
		TSNode fn = ta_node_field(t, "function"), args = ta_node_field(t, "arguments");
		if (!ta_node_is(fn, "attribute") || !ta_node_text_eq(c->m->src, ta_node_field(fn, "attribute"), "to"))
			return false;
		TSNode to = ta_node_named_count(args) ? ta_node_named_child(args, 0) : (TSNode){ 0 };
		pointers |= ta_node_is(to, "call") && ta_call_named(c->m, to, "pointer_type");
		t = ta_values_follow_names(c->m, ta_node_unparen(ta_node_field(fn, "object")));
	}
	return false;
}

/* Whether op's pointer adds a tile of base pointers loaded from memory, one
 * per row (a scatter to the rows of several peers' buffers): no descriptor,
 * on any GPU, describes rows of different tensors. */
static bool s1_row_bases(ta_rule_ctx *c, const ta_op *op)
{
	return op->arg_count && s1_loaded_bases(c, ta_values_follow_names(c->m, ta_rule_node(c, op->args[0])), 0);
}

/* Which of k's raw 2D accesses are no tile (ta_tile_not_2d, one walk of
 * each pointer): not2d[i] for op i. Returns " (left out: the raw 2D loads
 * at lines 12 and 14, whose offsets on one axis are a division or
 * remainder of a range (elements repeat), which no descriptor box
 * describes)" for the ones whose rows or columns repeat
 * (plain or gathered), loads and stores named apart, or NULL when there
 * are none (caller frees). */
/* "the raw 2D loads at lines 12 and 14" into b (n lines, at most 8). */
static void s1_access_lines(ta_buf *b, const char *what, const uint32_t *lines, size_t n)
{
	ta_buf_printf(b, "the raw 2D %s%s at line%s ", what, n > 1 ? "s" : "", n > 1 ? "s" : "");
	for (size_t i = 0; i < n; i++)
		ta_buf_printf(b, "%s%u", i == 0 ? "" : i + 1 == n ? " and " : ", ", lines[i]);
}

static char *s1_left_out(ta_rule_ctx *c, bool *not2d)
{
	const ta_kernel *k = c->k;
	uint32_t lines[2][8], looked[8];
	size_t n[2] = { 0, 0 }, nl = 0;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		bool repeats = false;
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || op->ptr_shape != TA_PTR_2D)
			continue;
		/* a table lookup (an index loaded per element: a codebook
		 * read, a class's logit) is named too, so that the count is
		 * not read as all of the kernel's raw traffic */
		if (op->lookup) {
			if (op->kind == TA_OP_LOAD && nl < 8 && (nl == 0 || looked[nl - 1] != op->span.line))
				looked[nl++] = op->span.line;
			continue;
		}
		not2d[i] = ta_tile_shape(c->m, k, op, &repeats);
		/* a gathered access (an implicit GEMM's input, columns from a
		 * loaded table) whose rows repeat is no tile either: named too */
		if (!repeats)
			continue;
		int st = op->kind == TA_OP_STORE;
		if (n[st] < 8 && (n[st] == 0 || lines[st][n[st] - 1] != op->span.line))
			lines[st][n[st]++] = op->span.line;
	}
	if (!n[0] && !n[1] && !nl)
		return NULL;
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, " (left out: ");
	if (n[0])
		s1_access_lines(&b, "load", lines[0], n[0]);
	if (n[1]) {
		ta_buf_puts(&b, n[0] ? " and " : "");
		s1_access_lines(&b, "store", lines[1], n[1]);
	}
	if (n[0] || n[1])
		ta_buf_printf(&b, ", whose offsets on one axis are a division or remainder of a range (elements repeat), "
				  "which no descriptor box describes");
	if (nl) {
		ta_buf_printf(&b, "%sthe raw load%s at line%s ", n[0] || n[1] ? "; " : "", nl > 1 ? "s" : "", nl > 1 ? "s" : "");
		for (size_t i = 0; i < nl; i++)
			ta_buf_printf(&b, "%s%u", i == 0 ? "" : i + 1 == nl ? " and " : ", ", looked[i]);
		ta_buf_puts(&b, nl > 1 ? ", table lookups: each element's address reads a loaded index, so they move"
				       : ", a table lookup: each element's address reads a loaded index, so it moves");
		ta_buf_puts(&b, " elements, not rows of a tile");
	}
	ta_buf_puts(&b, ")");
	return ta_buf_steal(&b);
}

/* The axis a term of a 2D pointer indexes: 0 for `r[:, None]`, 1 for
 * `c[None, :]`, -1 otherwise; *scale gets the factor it is multiplied by
 * (NULL when none). */
static int s1_term_axis(const ta_model *m, TSNode term, TSNode *scale)
{
	term = ta_node_unparen(term);
	*scale = (TSNode){ 0 };
	if (ta_node_is(term, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(term, "operator"), "*")) {
		TSNode l = ta_node_unparen(ta_node_field(term, "left")), r = ta_node_unparen(ta_node_field(term, "right"));
		bool ls = ta_node_is(l, "subscript");
		if (ls == ta_node_is(r, "subscript"))
			return -1;
		*scale = ls ? r : l;
		term = ls ? l : r;
	}
	if (!ta_node_is(term, "subscript") || ta_node_named_count(term) != 3)
		return -1;
	bool first = ta_node_is(ta_node_named_child(term, 1), "slice"),
	     last = ta_node_is(ta_node_named_child(term, 2), "slice");
	return first && !last ? 0 : last && !first ? 1 : -1;
}

/* Whether the offsets a `r[:, None]` term subscripts are scaled where they
 * are made (`r = offs * stride_r`, the last binding of r before `before`). */
static bool s1_scaled_where_made(ta_rule_ctx *c, TSNode term, uint32_t before)
{
	TSNode v = ta_node_unparen(ta_node_named_child(ta_node_unparen(term), 0));
	if (!ta_node_is(v, "identifier"))
		return ta_node_is(v, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(v, "operator"), "*");
	const ta_assign *def = s1_binding_before(c, v, before);
	if (!def)
		return false;
	TSNode r = ta_node_unparen(ta_rule_node(c, def->rhs));
	return ta_node_is(r, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(r, "operator"), "*");
}

/* A stride written as names: `stride_wn`, `cfg.ld`, or their product
 * (`H * V`, maybe with a literal: `2 * D`). */
static bool s1_stride_names(const ta_model *m, TSNode n, int depth)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "identifier") || ta_node_is(n, "attribute"))
		return true;
	if (depth > 3 || !ta_node_is(n, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(n, "operator"), "*"))
		return false;
	TSNode l = ta_node_unparen(ta_node_field(n, "left")), r = ta_node_unparen(ta_node_field(n, "right"));
	return (s1_stride_names(m, l, depth + 1) || ta_node_is(l, "integer")) &&
	       (s1_stride_names(m, r, depth + 1) || ta_node_is(r, "integer")) &&
	       !(ta_node_is(l, "integer") && ta_node_is(r, "integer"));
}

/* A tile whose rows are the contiguous axis: its row term unscaled and its
 * column term scaled by a name (`w + k[:, None] + n[None, :] * stride_wn`,
 * a weight stored N-major), the pointer followed through the name it is
 * bound to before `before`. Returns the stride's text (caller frees), or
 * NULL. A descriptor needs the unit stride last: it describes the
 * transposed view, and the loaded tile is transposed back. */
static char *s1_rows_contiguous(ta_rule_ctx *c, TSNode ptr, uint32_t before, int depth)
{
	ptr = ta_node_unparen(ptr);
	if (ts_node_is_null(ptr) || depth > 3)
		return NULL;
	if (ta_node_is(ptr, "identifier")) {
		/* every binding before the access says the same: a pointer bound
		 * in both arms of a constexpr if (a state stored either way round)
		 * is contiguous by rows in one layout only */
		char *name = ta_node_text(c->m->src, ptr), *stride = NULL;
		size_t n;
		const ta_assign *as = ta_rule_assigns(c, &n);
		for (size_t i = 0; i < n; i++) {
			if (as[i].augmented || as[i].stmt.end > before || strcmp(as[i].name, name))
				continue;
			char *st = s1_rows_contiguous(c, ta_rule_node(c, as[i].rhs), as[i].stmt.start, depth + 1);
			bool same = st && (!stride || !strcmp(st, stride));
			free(stride);
			stride = same ? st : NULL;
			if (!same) {
				free(st);
				break;
			}
		}
		free(name);
		return stride;   /* NULL: no binding, or one that disagrees */
	}
	TSNode t[16];
	size_t count = ta_edits_chain_terms(c->m, ptr, "+", t, 16);
	int rows = 0, cols = 0;
	TSNode stride = { 0 };
	for (size_t i = 0; i < count; i++) {
		TSNode scale;
		int axis = s1_term_axis(c->m, t[i], &scale);
		if (axis == 0) {
			rows++;
			if (!ts_node_is_null(scale) || s1_scaled_where_made(c, t[i], before))
				return NULL;
		} else if (axis == 1) {
			cols++;
			stride = scale;
		}
	}
	stride = ta_node_unparen(stride);
	if (rows != 1 || cols != 1 || !s1_stride_names(c->m, stride, 0))
		return NULL;
	return ta_node_text(c->m->src, stride);
}

/* The pointer ptr without its constant offsets, its terms sorted: what
 * the phases of one interleaved tile share (`input_ptr + offsets` and
 * `input_ptr + offsets + 3`; `Q + x_1_off` and `Q + x_2_off` with `x_2_off
 * = x_1_off + 1`). Caller frees. */
static char *s1_phase_base(ta_rule_ctx *c, TSNode ptr, uint32_t before)
{
	TSNode t[16];
	size_t count = ta_edits_chain_terms(c->m, ta_node_unparen(ptr), "+", t, 16);
	char *texts[16];
	size_t n = 0;
	for (size_t i = 0; i < count; i++) {
		TSNode term = ta_node_unparen(t[i]);
		if (ta_node_is(term, "integer"))
			continue;
		/* a name bound to another plus a constant: that other */
		const ta_assign *def = ta_node_is(term, "identifier") ? s1_binding_before(c, term, before) : NULL;
		if (def) {
			TSNode u[3];
			TSNode rhs = ta_node_unparen(ta_rule_node(c, def->rhs));
			size_t nu = ta_edits_chain_terms(c->m, rhs, "+", u, 3);
			if (nu == 2 && ta_node_is(ta_node_unparen(u[1]), "integer"))
				term = ta_node_unparen(u[0]);
		}
		texts[n++] = ta_node_text(c->m->src, term);
	}
	qsort(texts, n, sizeof *texts, ta_strptr_cmp);
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		ta_buf_printf(&b, "%s%s", i ? "+" : "", texts[i]);
		free(texts[i]);
	}
	return ta_buf_steal(&b);
}

typedef struct s1_phase {
	const char *key;
	size_t at;    /* index in the results */
} s1_phase;

static int s1_cmp_phase(const void *x, const void *y)
{
	const s1_phase *a = x, *b = y;
	int d = strcmp(a->key, b->key);
	return d ? d : (a->at > b->at) - (a->at < b->at);
}

/* The interleaved sites of c's kernel from `from` on that are phases of
 * one tile (the same base pointer, step, direction and loop: `x_1` and `x_2`
 * of a rotary pair, the four bytes of a packed word) become one finding,
 * the first's, which names the others: one load or store of the whole tile
 * covers them all. */
static void s1_merge_phases(ta_rule_ctx *c, size_t from)
{
	ta_rules_result *r = c->res;
	size_t n = 0;
	s1_phase *ph = ta_xmalloc((r->finding_count - from + 1) * sizeof *ph);
	for (size_t i = from; i < r->finding_count; i++) {
		const char *key = r->findings[i].kernel == c->kernel && !strcmp(r->findings[i].id, "S1")
					  ? ta_finding_part_of(&r->findings[i], "phase")
					  : NULL;
		if (key)
			ph[n++] = (s1_phase){ key, i };
	}
	qsort(ph, n, sizeof *ph, s1_cmp_phase);
	bool *gone = ta_xcalloc(r->finding_count - from + 1, sizeof *gone);
	for (size_t a = 0, b; a < n; a = b) {
		for (b = a + 1; b < n && !strcmp(ph[b].key, ph[a].key); b++)
			;
		if (b - a < 2)
			continue;
		ta_finding *f = &r->findings[ph[a].at];
		bool store = ph[a].key[0] == 's';
		ta_buf others = TA_BUF_INIT;
		for (size_t i = a + 1; i < b; i++) {
			const ta_finding *g = &r->findings[ph[i].at];
			const char *tick = g->reason[0] == '`' ? strchr(g->reason + 1, '`') : NULL;
			ta_buf_puts(&others, i == a + 1 ? "" : i + 1 == b ? " and " : ", ");
			if (tick)
				ta_buf_printf(&others, "%.*s at line %u", (int)(tick - g->reason + 1), g->reason, g->span.line);
			else
				ta_buf_printf(&others, "the %s at line %u", store ? "store" : "load", g->span.line);
			ta_finding_line(f, g->span.line);
			gone[ph[i].at - from] = true;
		}
		bool many = b - a > 2;
		char *reason = ta_xasprintf("%s; %s %s %s of the same tile (one %s of it covers %s)", f->reason,
					    ta_buf_str(&others),
					    store ? (many ? "write" : "writes") : (many ? "read" : "reads"),
					    many ? "other phases" : "another phase", store ? "store" : "load",
					    many ? "them all" : "both");
		free(f->reason);
		f->reason = reason;
		ta_buf_free(&others);
	}
	/* drop the merged ones, keeping the order */
	size_t w = from;
	for (size_t i = from; i < r->finding_count; i++) {
		if (gone[i - from]) {
			ta_finding_release(&r->findings[i]);
			continue;
		}
		if (w != i)
			r->findings[w] = r->findings[i];
		w++;
	}
	r->finding_count = w;
	free(gone);
	free(ph);
}

/* Stores through one pointer name are one tile within one loop (`acc`
 * stored masked in one arm of an if, unmasked in the other, or by each
 * arm of a mode's if/elif), two when made in different loops, or one in a
 * loop and one after it: a padding pass's zeros and the main pass's
 * results through one reused name, a running state and the final one
 * through a name bound again to another tensor. The per-kernel line
 * (advise/findings.c) keeps them apart by this part. */
static void s1_mark_store_loop(const ta_op *op, ta_finding *f)
{
	if (op->kind != TA_OP_STORE)
		return;
	char key[16];
	snprintf(key, sizeof key, "%d", op->loop);
	ta_finding_set_part(f, "store_loop", key);
}

ta_status ta_detect_s1(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false;
	size_t first = c->res->finding_count;
	/* Tensor descriptors are TMA, a feature of NVIDIA GPUs: a file under
	 * an Ascend, ROCm or other back-end's folder has no such fast form,
	 * nor a kernel only launched for one. */
	if (ta_file_other_backend(c->m, NULL) == TA_BACKEND_FOLDER || s1_other_backend_twin(c))
		return TA_STATUS_NOT_APPLICABLE;
	/* The raw 2D accesses left out because their rows are a division of a
	 * range (a permutation, a head split): the findings name them, so that
	 * their counts are not read as every raw access of the kernel. */
	bool *not2d = ta_xcalloc(k->op_count ? k->op_count : 1, sizeof *not2d);
	char *left_out = s1_left_out(c, not2d);
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || op->ptr_shape != TA_PTR_2D)
			continue;
		/* a table lookup (`tl.load(code + idx)`, every axis from the
		 * loaded index) reads elements, not rows of a tile; a raw access
		 * whose other branch uses a descriptor is the fast form's fallback */
		if (op->lookup || s1_fast_form_beside(c, op) || not2d[i] ||
		    ta_edits_under_spin_lock(c->m, ta_rule_node(c, op->span)) ||
		    ta_rule_op_unreached(c, op) || (!op->gather && s1_length_stride(c, op)) || s1_row_bases(c, op))
			continue;
		const char *what = op->kind == TA_OP_LOAD ? "loaded" : "stored";
		char *ptr = op->arg_count ? ta_rule_text(c, op->args[0]) : ta_xstrdup("?");
		if (strlen(ptr) > 72)
			strcpy(ptr + 69, "...");
		for (char *p = ptr; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		int rank = op->ptr_rank >= 2 ? op->ptr_rank : 2;
		long step = op->arg_count ? s1_last_step(c, ta_rule_node(c, op->args[0]), op->span.start, rank, 0) : 0;
		/* an interleave by 3 (packed 24-bit values): the whole tile is
		 * 3 x a power of two wide, which no Triton tile is */
		if (step > 1 && (step & (step - 1))) {
			free(ptr);
			continue;
		}
		ta_finding *f;
		if (op->gather) {
			/* TMA gathers and scatters rows on Blackwell only: on Hopper
			 * the finding says so, and that an index given only under a
			 * flag leaves a plain tile, which a descriptor loads anywhere */
			bool store = op->kind == TA_OP_STORE, flagged;
			char *from = s1_gather_sources(c, op, &flagged);
			if (flagged)
				f = ta_rule_add(c, op->span,
					"%s%s%s tile %s through a 2D pointer `%s` whose rows come from %s, and "
					"otherwise form a plain tile: a descriptor %s is the fast form of the first "
					"on Blackwell (sm_100 and later; Hopper's TMA has no row %s), a descriptor %s "
					"of the second on Hopper too", op->target ? "`" : "",
					op->target ? op->target : "a", op->target ? "`" : "", what, ptr, from,
					store ? "scatter" : "gather", store ? "scatter" : "gather",
					store ? "store" : "load");
			else if (s1_row_gather_gpu(c))
				f = ta_rule_add(c, op->span,
					"%s%s%s tile %s through a %s %dD pointer `%s` (rows from %s): a descriptor %s "
					"is the fast form on this GPU (Blackwell, sm_100 and later)",
					op->target ? "`" : "", op->target ? op->target : "a", op->target ? "`" : "", what,
					store ? "scattered" : "gathered", rank, ptr, from, store ? "scatter" : "gather");
			else {
				/* on Hopper there is nothing to change: read for
				 * information, a note */
				f = ta_rule_add(c, op->span,
					"%s%s%s tile %s through a %s %dD pointer `%s` (rows from %s): on Hopper this "
					"raw access is the form to keep (its TMA has no row %s); a descriptor %s is the "
					"fast form on Blackwell (sm_100 and later)",
					op->target ? "`" : "", op->target ? op->target : "a", op->target ? "`" : "", what,
					store ? "scattered" : "gathered", rank, ptr, from, store ? "scatter" : "gather",
					store ? "scatter" : "gather");
				f->tags |= TA_TAG_NOTE;
			}
			free(from);
			f->tags |= TA_TAG_GUIDED;
		} else if (step) {
			f = ta_rule_add(c, op->span,
				"%s%s%s tile %s with a raw %dD %spointer `%s` whose last axis steps by %ld: a tensor "
				"descriptor needs a last stride of 1, so the fast form %s", op->target ? "`" : "",
				op->target ? op->target : "a", op->target ? "`" : "", what, rank,
				op->has_mask ? "masked " : "", ptr, step,
				op->kind == TA_OP_LOAD
					? "loads the whole interleaved tile through one and splits it in registers "
					  "(tl.reshape, tl.split)"
					: "joins the interleaved tile in registers (tl.join, tl.reshape) and stores "
					  "it whole through one");
			f->tags |= TA_TAG_GUIDED;
			char *base = s1_phase_base(c, ta_rule_node(c, op->args[0]), op->span.start);
			char *key = ta_xasprintf("%c %ld %d %s", op->kind == TA_OP_LOAD ? 'l' : 's', step, op->loop, base);
			ta_finding_set_part(f, "phase", key);
			free(key);
			free(base);
		} else {
			char *cm = rank == 2 && op->arg_count
					   ? s1_rows_contiguous(c, ta_rule_node(c, op->args[0]), op->span.start, 0)
					   : NULL;
			static const char col_why[] = "the descriptor describes the transposed view, whose strides "
						      "TMA needs in multiples of 16 bytes, and tl.trans transposes "
						      "the tile between the two";
			char *col = cm ? ta_xasprintf(" (columns step by `%s`, rows are contiguous: %s)", cm, col_why)
				       : NULL;
			f = ta_rule_add(c, op->span, "%s%s%s tile %s with a raw %dD %spointer `%s`: a tensor "
				"descriptor %s is the fast form%s%s", op->target ? "`" : "",
				op->target ? op->target : "a", op->target ? "`" : "", what, rank,
				op->has_mask ? "masked " : "", ptr, op->kind == TA_OP_LOAD ? "load" : "store",
				col ? col : "", left_out ? left_out : "");
			/* the pieces the per-kernel line merges (advise/findings.c) */
			if (cm) {
				ta_finding_set_part(f, "col_stride", cm);
				ta_finding_set_part(f, "col_why", col_why);
			}
			if (left_out)
				ta_finding_set_part(f, "left_out", left_out);
			s1_mark_store_loop(op, f);
			free(col);
			free(cm);
		}
		free(ptr);
		found = true;
	}
	free(left_out);
	free(not2d);
	if (found)
		s1_merge_phases(c, first);
	if (found && !s1_one_shot_notes(c, first))
		s1_outside_loop_notes(c, first);
	if (found)
		return TA_STATUS_APPLIES;
	return uses_descriptors(k) || s1_kernel_has_desc(c->m, c->kernel, false, 0) ||
	       s1_kernel_has_desc(c->m, c->kernel, true, 0) ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* The statement holding n directly inside a block (or the module). */
static TSNode block_stmt(TSNode n)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p); n = p, p = ta_node_parent(p))
		if (ta_node_is(p, "block") || ta_node_is(p, "module"))
			return n;
	return (TSNode){ 0 };
}

static bool node_within(TSNode inner, TSNode outer)
{
	return ts_node_start_byte(inner) >= ts_node_start_byte(outer) &&
	       ts_node_end_byte(inner) <= ts_node_end_byte(outer);
}

/* The binding of name that reaches the statement `use`: the last plain
 * `name = expr` before it, in a block that holds use, with no other
 * binding between them nor in a loop around use that does not hold it
 * (fla-style kernels rebind their pointers chunk after chunk). Returns its
 * right side and sets *assign; a null node otherwise. */
static TSNode reaching_def(const ta_model *m, const ta_kernel *k, const char *name, TSNode use, TSNode *assign)
{
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, k->node, name, &d);
	TSNode best = { 0 };
	for (size_t i = 0; i < d.n; i++)
		if (ts_node_end_byte(d.v[i]) <= ts_node_start_byte(use) &&
		    (ts_node_is_null(best) || ts_node_start_byte(d.v[i]) > ts_node_start_byte(best)))
			best = d.v[i];
	if (d.more || !ta_node_is(best, "assignment") || !ta_node_is(ta_node_field(best, "left"), "identifier") ||
	    !ta_node_is(ta_node_parent(best), "expression_statement"))
		return (TSNode){ 0 };
	TSNode blk = ta_node_parent(ta_node_parent(best));
	if (!node_within(use, blk))
		return (TSNode){ 0 };
	for (size_t i = 0; i < d.n; i++) {
		if (ts_node_eq(d.v[i], best))
			continue;
		uint32_t at = ts_node_start_byte(d.v[i]);
		if (at >= ts_node_end_byte(best) && at < ts_node_start_byte(use))
			return (TSNode){ 0 };
		for (TSNode p = ta_node_parent(use); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
		     p = ta_node_parent(p))
			if ((ta_node_is(p, "for_statement") || ta_node_is(p, "while_statement")) &&
			    !node_within(best, p) && node_within(d.v[i], p))
				return (TSNode){ 0 };
	}
	*assign = best;
	return ta_node_field(best, "right");
}

/* Are the names n reads bound to the same values at `use` as just after
 * `from` (a statement before it)? Not when one is rebound in between, or
 * inside a loop around use that does not hold from. */
static bool stable(const ta_model *m, const ta_kernel *k, TSNode n, TSNode from, TSNode use)
{
	char **v;
	size_t count = ta_edits_names(m, n, &v);
	bool ok = true;
	for (size_t i = 0; i < count && ok; i++) {
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, k->node, v[i], &d);
		ok = !d.more;
		for (size_t j = 0; j < d.n && ok; j++) {
			uint32_t at = ts_node_start_byte(d.v[j]);
			if (at >= ts_node_end_byte(from) && at < ts_node_start_byte(use))
				ok = false;
			for (TSNode p = ta_node_parent(use); ok && !ts_node_is_null(p) &&
			     !ta_node_is(p, "function_definition"); p = ta_node_parent(p)) {
				if (!ta_node_is(p, "for_statement") && !ta_node_is(p, "while_statement"))
					continue;
				if (!node_within(from, p) && node_within(d.v[j], p))
					ok = false;
			}
		}
	}
	ta_edits_names_free(v, count);
	return ok;
}

/* The value name has at the access (c's statement): its reaching binding,
 * when the names that binding reads still hold there. Sets *assign. */
static TSNode value_at_access(const ta_model *m, const ta_kernel *k, const char *name, TSNode use, TSNode *assign)
{
	TSNode v = reaching_def(m, k, name, use, assign);
	return ts_node_is_null(v) || !stable(m, k, v, *assign, use) ? (TSNode){ 0 } : v;
}

/* The operands of a chain of one associative operator ("+" or "*") with
 * the parentheses around inner chains opened: `p + (a + b)` gives p, a, b,
 * `o_t[:, None] * H * D` gives o_t[:, None], H, D (pointer arithmetic and
 * products regroup freely). Operands keep their own parentheses. Returns 0
 * past max. */
static size_t flat_operands(const ta_model *m, TSNode n, const char *op, TSNode *out, size_t max)
{
	TSNode u = ta_node_unparen(n);
	if (ta_node_is(u, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(u, "operator"), op)) {
		size_t l = flat_operands(m, ta_node_field(u, "left"), op, out, max);
		size_t r = l ? flat_operands(m, ta_node_field(u, "right"), op, out + l, max - l) : 0;
		return r ? l + r : 0;
	}
	if (max == 0)
		return 0;
	out[0] = n;
	return 1;
}

/* ---- S1: a raw 2D tile through a tensor descriptor ---------------------- */

/* One axis of the tile: offsets start + tl.arange(0, BLOCK), the stride
 * (NULL: none written, so 1) and the bound from the mask (NULL: none). */
typedef struct s1_axis {
	TSNode offs;              /* the subscripted offsets as written */
	char *start, *block, *stride, *bound;
	char *wrap;               /* M of offsets written (start + tl.arange(...)) % M */
	TSNode def;               /* the offsets' assignment when named */
} s1_axis;

typedef struct s1_ctx {
	const ta_model *m;
	const ta_kernel *k;
	const ta_op *op;
	TSNode call, stmt;
	char *base;
	TSNode bterm[12];         /* the base's terms, as written in the pointer */
	size_t bterm_n;
	s1_axis ax[2];
	TSNode ptr_def, mask_def; /* definitions of a pointer / mask passed by name */
	/* The K loop's advanced pointer (`p += BLOCK_K * stride` after the
	 * access): the statement, the loop, the axis it moves along, how far
	 * it has moved at the loop variable's value, and the tensor's extent
	 * along it read from the loop bound (NULL when not). */
	TSNode adv, loop;
	int adv_axis;
	char *adv_off, *adv_step, *adv_extent;
	/* The base is a pointer the kernel loads from a table, and its row
	 * stride a value it loads (a grouped GEMM's a_ptrs and lds): nothing
	 * the host holds says their alignment, so the kernel checks it
	 * (s1_versioned). */
	bool table;
	char *table_ty;           /* the element type it casts the table's pointer to */
	char *why;
} s1_ctx;

/* The launches of c's kernel in turn (the model's list of them). */
static ta_launch_walk s1_launches(const s1_ctx *c)
{
	return ta_index_launch_walk(c->m, (int)(c->k - c->m->kernels));
}

static void s1_free(s1_ctx *c)
{
	free(c->base);
	for (int i = 0; i < 2; i++) {
		free(c->ax[i].start);
		free(c->ax[i].block);
		free(c->ax[i].stride);
		free(c->ax[i].bound);
		free(c->ax[i].wrap);
	}
	free(c->adv_off);
	free(c->adv_step);
	free(c->adv_extent);
	free(c->table_ty);
}

static int s1_fail(s1_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Keeps why the site was refused, prefixed with its line; returns -1. */
static int s1_fail(s1_ctx *c, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "line %u: ", c->op->span.line);
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(c->why);
	c->why = ta_buf_steal(&b);
	return -1;
}

/* n without what does not change its values: parentheses, `.to(...)`
 * casts and the compiler hints tl.multiple_of / max_contiguous /
 * max_constancy around it. */
static TSNode unhint(const ta_model *m, TSNode n)
{
	for (int i = 0; i < 8; i++) {
		n = ta_node_unparen(n);
		if (!ta_node_is(n, "call"))
			break;
		TSNode fn = ta_node_field(n, "function");
		if (ta_node_is(fn, "attribute") && ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), "to")) {
			n = ta_node_field(fn, "object");
			continue;
		}
		char *canon = ta_model_canonical(m, fn);
		bool hint = canon && (ta_name_is(canon, "triton.language.multiple_of") ||
				      ta_name_is(canon, "triton.language.max_contiguous") ||
				      ta_name_is(canon, "triton.language.max_constancy"));
		free(canon);
		if (!hint)
			break;
		n = ta_edits_call_arg(m, n, 0, "input");
	}
	return n;
}

/* A block size the compiler knows: an integer, a constexpr parameter, or
 * arithmetic of them (`BD // 2`), as a descriptor's block shape needs. */
static bool constexpr_arith(const s1_ctx *c, TSNode n, int depth)
{
	n = ta_node_unparen(n);
	if (ta_node_is(n, "integer"))
		return true;
	if (ta_node_is(n, "identifier")) {
		char *t = ta_node_text(c->m->src, n);
		const ta_param *p = ta_kernel_param(c->k, t);
		free(t);
		return p && p->constexpr_;
	}
	if (depth > 8 || !ta_node_is(n, "binary_operator"))
		return false;
	TSNode op = ta_node_field(n, "operator");
	if (!ta_node_text_eq(c->m->src, op, "*") && !ta_node_text_eq(c->m->src, op, "//") &&
	    !ta_node_text_eq(c->m->src, op, "+") && !ta_node_text_eq(c->m->src, op, "-"))
		return false;
	return constexpr_arith(c, ta_node_field(n, "left"), depth + 1) &&
	       constexpr_arith(c, ta_node_field(n, "right"), depth + 1);
}

/* tl.arange(0, BLOCK) with BLOCK a constexpr parameter or a literal, written
 * here or bound to a name before (`o_c = tl.arange(0, BC)`). */
static bool arange_block(s1_ctx *c, TSNode n, char **block)
{
	n = unhint(c->m, n);
	if (ta_edits_bcast_kind(c->m, n) > 0)  /* tl.arange(0, B)[:, None] made pre-broadcast */
		n = unhint(c->m, ta_node_field(n, "value"));
	if (ta_node_is(n, "identifier")) {
		char *name = ta_node_text(c->m->src, n);
		TSNode from, v = value_at_access(c->m, c->k, name, c->stmt, &from);
		free(name);
		if (ts_node_is_null(v))
			return false;
		n = unhint(c->m, v);
	}
	if (!ta_node_is(n, "call"))
		return false;
	char *canon = ta_model_canonical(c->m, ta_node_field(n, "function"));
	bool ar = canon && ta_name_is(canon, "triton.language.arange");
	free(canon);
	TSNode a0 = ta_edits_call_arg(c->m, n, 0, "start"), a1 = ta_edits_call_arg(c->m, n, 1, "end");
	if (!ar || ts_node_is_null(a0) || ts_node_is_null(a1) || !ta_node_text_eq(c->m->src, a0, "0") ||
	    !ts_node_is_null(ta_edits_call_arg(c->m, n, 2, NULL)))
		return false;
	if (!constexpr_arith(c, a1, 0))
		return false;
	*block = ta_node_text(c->m->src, a1);
	return true;
}

/* The start and block of the offsets subscripted in axis a. */
static int s1_offsets(s1_ctx *c, s1_axis *a)
{
	const ta_model *m = c->m;
	TSNode v = ta_node_unparen(a->offs), from = { 0 };
	char *name = ta_node_is(v, "identifier") ? ta_node_text(m->src, v) : NULL;
	if (name) {
		v = reaching_def(m, c->k, name, c->stmt, &from);
		/* It must also be the binding the pointer's definition read. */
		if (!ts_node_is_null(v) && !ts_node_is_null(c->ptr_def) &&
		    ts_node_start_byte(from) > ts_node_start_byte(c->ptr_def))
			v = (TSNode){ 0 };
		if (ts_node_is_null(v)) {
			int r = s1_fail(c, "the offsets %s are bound more than once (or not in the kernel)", name);
			free(name);
			return r;
		}
		v = ta_node_unparen(v);
		/* `(start + tl.arange(0, BLOCK)) % M` keeps the rows in bounds
		 * without a mask (Triton's matmul tutorial). A descriptor pads
		 * those rows with zeros instead, which only the rows past M see:
		 * safe when nothing but this tile reads the offsets. */
		v = unhint(m, v);
		if (ta_node_is(v, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(v, "operator"), "%") &&
		    ta_edits_ident_count(m, c->k->node, name) == 2) {
			a->wrap = ta_node_text(m->src, ta_node_field(v, "right"));
			v = unhint(m, ta_node_field(v, "left"));
		}
	} else {
		v = unhint(m, v);
	}
	/* rows = offs_m[:, None]: the offsets are those of offs_m (whose
	 * binding is not the one a dead `rows` would take with it) */
	TSNode outer = from;
	if (ta_edits_bcast_kind(m, v) > 0) {
		v = unhint(m, ta_node_field(v, "value"));
		char *inner = ta_node_is(v, "identifier") ? ta_node_text(m->src, v) : NULL;
		if (inner) {
			v = unhint(m, reaching_def(m, c->k, inner, c->stmt, &from));
			free(inner);
		}
	}
	TSNode start = { 0 };
	if (!arange_block(c, v, &a->block)) {
		TSNode l = ta_node_field(v, "left"), r = ta_node_field(v, "right");
		bool plus = ta_node_is(v, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(v, "operator"), "+");
		if (plus && arange_block(c, r, &a->block))
			start = l;
		else if (plus && arange_block(c, l, &a->block))
			start = r;
		if (ts_node_is_null(start) || ta_edits_bcast_mask(m, start) != 0) {
			int rc = s1_fail(c, "the offsets %s are not start + tl.arange(0, BLOCK)", name ? name : "(inline)");
			free(name);
			return rc;
		}
	}
	/* The start is read again at the load: it must still hold there. */
	if (name && !ts_node_is_null(start) && !stable(m, c->k, start, from, c->stmt)) {
		int rc = s1_fail(c, "a name in the start of %s changes before the access", name);
		free(name);
		return rc;
	}
	a->start = ts_node_is_null(start) ? ta_xstrdup("0") : ta_node_text(m->src, start);
	a->def = outer;
	free(name);
	return 0;
}

/* Offsets broadcast where they were made (`rows = pid * BM +
 * tl.arange(0, BM)[:, None]`, FlagGems' style): 1 for rows, 2 for columns,
 * 0 for a name that is not such a tile. */
static int pre_axis(s1_ctx *c, TSNode id)
{
	if (!ta_node_is(id, "identifier"))
		return 0;
	char *name = ta_node_text(c->m->src, id);
	TSNode from, v = ta_kernel_param(c->k, name) ? (TSNode){ 0 } : value_at_access(c->m, c->k, name, c->stmt, &from);
	free(name);
	if (ts_node_is_null(v))
		return 0;
	int bm = ta_edits_bcast_mask(c->m, unhint(c->m, v));
	return bm == 1 || bm == 2 ? bm : 0;
}

/* The axes a pointer term spans: its own broadcasts and those of the
 * pre-broadcast offsets it names (bits as bcast_mask). */
static int term_axes(s1_ctx *c, TSNode t)
{
	int bm = ta_edits_bcast_mask(c->m, t);
	TSNode f[8];
	size_t n = flat_operands(c->m, t, "*", f, 8);
	for (size_t i = 0; i < n; i++) {
		int p = pre_axis(c, ta_node_unparen(f[i]));
		bm |= p ? 1 << (p - 1) : 0;
	}
	return bm;
}

/* rows[:, None] * stride, stride * rows[:, None], rows[:, None] alone, or
 * a longer product with the rows as one factor (`o_t[:, None] * H * D`). */
static int s1_term(s1_ctx *c, TSNode t, int axis)
{
	const ta_model *m = c->m;
	TSNode f[8], sub = { 0 };
	size_t n = flat_operands(m, t, "*", f, 8), subs = 0;
	ta_buf stride = TA_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		TSNode u = ta_node_unparen(f[i]);
		if (ta_edits_bcast_kind(m, u) == axis + 1) {
			sub = ta_node_field(u, "value");
			subs++;
		} else if (pre_axis(c, u) == axis + 1) {
			sub = u;  /* the pre-broadcast name itself */
			subs++;
		} else if (ta_edits_bcast_mask(m, u) == 0) {
			char *ft = ta_node_text(m->src, f[i]);
			ta_buf_printf(&stride, "%s%s", stride.len ? " * " : "", ft);
			free(ft);
		} else {
			subs = 2;  /* another broadcast: not a plain tile term */
		}
	}
	if (subs != 1 || c->ax[axis].block) {
		ta_buf_free(&stride);
		return s1_fail(c, "the pointer tile is not base + rows[:, None] * stride + cols[None, :]");
	}
	c->ax[axis].offs = sub;
	c->ax[axis].stride = stride.len ? ta_buf_steal(&stride) : NULL;
	ta_buf_free(&stride);
	return s1_offsets(c, &c->ax[axis]);
}

static int s1_versioned_arm(const ta_model *m, const ta_kernel *k, TSNode x, TSNode *ifs);

/* The K loop of Triton's matmul tutorial: `p = base + ...` before a for
 * loop whose body reads p (in a statement of its own, or in a branch of
 * one) and then, as a statement of its own, advances it (`p += BLOCK_K *
 * stride_k`). Returns the definition's right side and
 * sets ptr_def, adv and loop; a null node when p is not bound that way. */
static TSNode advanced_def(s1_ctx *c, const char *name)
{
	const ta_model *m = c->m;
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, c->k->node, name, &d);
	/* The access may sit in a branch of the loop's body (P2's `if EVEN_K:`
	 * form): top is the body's statement that holds it. */
	TSNode top = c->stmt, body = ta_node_parent(top);
	while (ta_node_is(body, "block") && !ta_node_is(ta_node_parent(body), "for_statement")) {
		TSNode p = ta_node_parent(body);
		if (ta_node_is(p, "else_clause") || ta_node_is(p, "elif_clause"))
			p = ta_node_parent(p);
		if (!ta_node_is(p, "if_statement"))
			break;
		top = p;
		body = ta_node_parent(top);
	}
	TSNode loop = ta_node_parent(body);
	/* In the descriptor copy of a loop this rule wrote twice, the twin's
	 * advance (the loop as written, in the else arm) is not this one's. */
	TSNode vifs;
	if (ta_node_is(loop, "for_statement") && s1_versioned_arm(m, c->k, loop, &vifs) == 1) {
		TSNode twin = ta_node_field(ta_node_field(vifs, "alternative"), "body");
		size_t kept = 0;
		for (size_t i = 0; i < d.n; i++)
			if (!(ts_node_start_byte(d.v[i]) >= ts_node_start_byte(twin) &&
			      ts_node_end_byte(d.v[i]) <= ts_node_end_byte(twin)))
				d.v[kept++] = d.v[i];
		d.n = kept;
	}
	if (d.n != 2 || d.more || !ta_node_is(d.v[0], "assignment") || !ta_node_is(d.v[1], "augmented_assignment") ||
	    !ta_node_is(ta_node_field(d.v[0], "left"), "identifier") ||
	    !ta_node_is(ta_node_field(d.v[1], "left"), "identifier") ||
	    !ta_node_text_eq(m->src, ta_node_field(d.v[1], "operator"), "+=") ||
	    !ta_node_is(body, "block") || !ta_node_is(loop, "for_statement"))
		return (TSNode){ 0 };
	TSNode adv = ta_node_parent(d.v[1]);
	if (!ta_node_is(adv, "expression_statement") || !ts_node_eq(ta_node_parent(adv), body) ||
	    ts_node_start_byte(adv) < ts_node_end_byte(top) || ts_node_end_byte(d.v[0]) > ts_node_start_byte(loop))
		return (TSNode){ 0 };
	c->ptr_def = d.v[0];
	c->adv = adv;
	c->loop = loop;
	return ta_node_field(d.v[0], "right");
}

/* t without its whitespace, in place: for comparing expressions. */
static char *squeeze(char *t)
{
	size_t j = 0;
	for (size_t i = 0; t[i]; i++)
		if (!isspace((unsigned char)t[i]))
			t[j++] = t[i];
	t[j] = '\0';
	return t;
}

/* Whitespace-free text of a node. */
static char *squeezed(const ta_model *m, TSNode n)
{
	return squeeze(ta_node_text(m->src, n));
}

/* f(E, X) for f a ceiling division (tl.cdiv, triton.cdiv): E, else NULL. */
static char *cdiv_of(const ta_model *m, TSNode n, const char *x)
{
	n = ta_node_unparen(n);
	if (!ta_node_is(n, "call"))
		return NULL;
	TSNode fn = ta_node_field(n, "function"), last = ta_node_is(fn, "attribute") ? ta_node_field(fn, "attribute") : fn;
	TSNode e = ta_edits_call_arg(m, n, 0, NULL), d = ta_edits_call_arg(m, n, 1, NULL);
	if (!ta_node_text_eq(m->src, last, "cdiv") || ts_node_is_null(e) || ts_node_is_null(d))
		return NULL;
	char *dt = squeezed(m, d);
	bool same = !strcmp(dt, x);
	free(dt);
	return same ? ta_node_text(m->src, e) : NULL;
}

/* For an advanced pointer: the axis its step moves along and how far it has
 * moved at the loop variable v (range(n) or range(0, n): v * STEP;
 * range(0, n, STEP): v). */
static int s1_advance(s1_ctx *c)
{
	const ta_model *m = c->m;
	if (ts_node_is_null(c->adv))
		return 0;
	TSNode step = ta_node_unparen(ta_node_field(ta_node_named_child(c->adv, 0), "right")), x = { 0 };
	c->adv_axis = -1;
	if (ta_node_is(step, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(step, "operator"), "*")) {
		TSNode l = ta_node_unparen(ta_node_field(step, "left")), r = ta_node_unparen(ta_node_field(step, "right"));
		for (int a = 0; a < 2 && c->adv_axis < 0; a++) {
			if (!c->ax[a].stride)
				continue;
			if (ta_node_text_eq(m->src, r, c->ax[a].stride))
				c->adv_axis = a, x = l;
			else if (ta_node_text_eq(m->src, l, c->ax[a].stride))
				c->adv_axis = a, x = r;
		}
	}
	if (c->adv_axis < 0 && !c->ax[1].stride)
		c->adv_axis = 1, x = step;
	char *st = ta_node_text(m->src, step);
	if (c->adv_axis < 0) {
		s1_fail(c, "the pointer advances by %s, not by a step times one axis's stride", st);
		free(st);
		return -1;
	}
	free(st);
	if (!stable(m, c->k, x, c->ptr_def, c->stmt))
		return s1_fail(c, "the pointer's step changes inside the loop");
	TSNode var = ta_node_field(c->loop, "left"), rng = ta_node_unparen(ta_node_field(c->loop, "right"));
	char *canon = ta_node_is(rng, "call") ? ta_model_canonical(m, ta_node_field(rng, "function")) : NULL;
	bool is_range = canon && (!strcmp(canon, "range") || ta_name_is(canon, "triton.language.range") ||
				  ta_name_is(canon, "triton.language.static_range"));
	free(canon);
	TSNode a[4];
	uint32_t n = 0;
	for (; is_range && n < 4; n++) {
		a[n] = ta_edits_call_arg(m, rng, n, NULL);
		if (ts_node_is_null(a[n]))
			break;
	}
	char *v = ta_node_is(var, "identifier") ? ta_node_text(m->src, var) : NULL;
	ta_edits_defs vd = { 0 };
	if (v)   /* bound by this loop alone (a twin of it binds its own) */
		ta_edits_find_defs(m, c->loop, v, &vd);
	if (!v || vd.n != 1 || vd.more || !is_range || n == 0 || n > 3 ||
	    (n >= 2 && !ta_node_text_eq(m->src, a[0], "0"))) {
		free(v);
		return s1_fail(c, "the loop that advances the pointer is not `for v in range(n)`, range(0, n) "
			       "or range(0, n, STEP)");
	}
	char *xs = squeezed(m, x);
	c->adv_step = xs;
	bool simple = ta_node_is(x, "identifier") || ta_node_is(x, "integer") || ta_node_is(x, "attribute");
	char *xt = ta_node_text(m->src, x);
	if (n == 3) {
		char *s3 = squeezed(m, a[2]);
		bool same = !strcmp(s3, xs);
		free(s3);
		if (!same) {
			free(v);
			free(xt);
			return s1_fail(c, "the loop's step is not the pointer's step %s", xs);
		}
		c->adv_off = v;
		c->adv_extent = ta_node_text(m->src, a[1]);
	} else {
		c->adv_off = ta_xasprintf(simple ? "%s * %s" : "%s * (%s)", v, xt);
		c->adv_extent = cdiv_of(m, a[n - 1], xs);
		free(v);
	}
	free(xt);
	return 0;
}

/* The bound a mask gives the advanced axis: `offs < K - v * STEP` (or
 * `- v` for range(0, K, STEP)) bounds the moving window by K. Takes the
 * bound's text; returns K's text or NULL. */
static char *advanced_bound(s1_ctx *c, TSNode r)
{
	const ta_model *m = c->m;
	/* the bound kept in a name (`k_left = K - k0`) is that bound */
	r = ta_values_follow(m, r);
	if (!ta_node_is(r, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(r, "operator"), "-"))
		return NULL;
	char *moved = squeezed(m, ta_node_field(r, "right"));
	char *v = squeezed(m, ta_node_field(c->loop, "left"));
	char *f1 = ta_xasprintf("%s*%s", v, c->adv_step), *f2 = ta_xasprintf("%s*%s", c->adv_step, v);
	char *f3 = ta_xasprintf("%s*(%s)", v, c->adv_step), *f4 = ta_xasprintf("(%s)*%s", c->adv_step, v);
	bool by_index = strchr(c->adv_off, '*') != NULL;
	bool ok = by_index ? (!strcmp(moved, f1) || !strcmp(moved, f2) || !strcmp(moved, f3) || !strcmp(moved, f4))
			   : !strcmp(moved, v);
	free(moved);
	free(v);
	free(f1);
	free(f2);
	free(f3);
	free(f4);
	return ok ? ta_node_text(m->src, ta_node_field(r, "left")) : NULL;
}

static int s1_pointer(s1_ctx *c, TSNode p)
{
	const ta_model *m = c->m;
	if (ta_node_is(p, "identifier")) {
		char *name = ta_node_text(m->src, p);
		TSNode rhs = reaching_def(m, c->k, name, c->stmt, &c->ptr_def);
		if (ts_node_is_null(rhs))
			rhs = advanced_def(c, name);
		if (ts_node_is_null(rhs) || !stable(m, c->k, rhs, c->ptr_def, c->stmt)) {
			int r = s1_fail(c, "the pointer tile %s is advanced or rebound before the access", name);
			free(name);
			return r;
		}
		free(name);
		p = rhs;
	}
	TSNode t[12];
	size_t n = flat_operands(m, p, "+", t, 12);
	/* Offsets summed under a name of their own (`q_off = rows[:, None] *
	 * s + cols[None, :]`, then `q_ptr + q_off`): their terms, read where
	 * the name was bound, with nothing they read rebound since. */
	for (size_t i = 0; i < n && ts_node_is_null(c->ptr_def); i++) {
		TSNode u = ta_node_unparen(t[i]), from, sub[12];
		if (!ta_node_is(u, "identifier") || term_axes(c, u) != 0)
			continue;
		char *name = ta_node_text(m->src, u);
		TSNode v = ta_kernel_param(c->k, name) ? (TSNode){ 0 } : value_at_access(m, c->k, name, c->stmt, &from);
		free(name);
		size_t sn = ts_node_is_null(v) ? 0 : flat_operands(m, v, "+", sub, 12);
		int axes = 0;
		for (size_t j = 0; j < sn; j++)
			axes |= term_axes(c, sub[j]);
		if (axes != 3 || n - 1 + sn > 12)
			continue;
		memmove(t + i + sn, t + i + 1, (n - i - 1) * sizeof *t);
		memcpy(t + i, sub, sn * sizeof *t);
		n += sn - 1;
		c->ptr_def = from;
	}
	ta_buf base = TA_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		int bm = term_axes(c, t[i]);
		if (bm == 0) {
			if (c->bterm_n < 12)
				c->bterm[c->bterm_n++] = t[i];
			char *s = ta_node_text(m->src, t[i]);
			ta_buf_printf(&base, "%s%s", base.len ? " + " : "", s);
			free(s);
		} else if ((bm == 1 || bm == 2) && s1_term(c, t[i], bm - 1) != 0) {
			ta_buf_free(&base);
			return -1;
		} else if (bm != 1 && bm != 2) {
			ta_buf_free(&base);
			return s1_fail(c, "the pointer tile is not base + rows[:, None] * stride + cols[None, :]");
		}
	}
	if (!n || !base.len || !c->ax[0].block || !c->ax[1].block) {
		ta_buf_free(&base);
		return s1_fail(c, "the pointer tile is not base + rows[:, None] * stride + cols[None, :]");
	}
	if (!c->ax[0].stride) {
		ta_buf_free(&base);
		return s1_fail(c, "the rows have no stride: not a row-major tile");
	}
	c->base = ta_buf_steal(&base);
	return s1_advance(c);
}

/* One term of a bounds mask: `offs[:, None] < M` (or `[None, :]`), or a
 * row / column mask broadcast here, `m_t[:, None]` with `m_t = o_t < T`
 * made before, or `(o_t < T)[:, None]`. Sets the axis (0 rows, 1 columns), the offsets as
 * written and the bound; false when the term is neither. */
static bool mask_term(s1_ctx *c, TSNode term, int *axis, TSNode *offs, TSNode *bound)
{
	const ta_model *m = c->m;
	term = ta_node_unparen(term);
	int kind = ta_edits_bcast_kind(m, term);
	TSNode cmp = term;
	if (kind > 0) {
		/* `m_t[:, None]`, or the comparison itself broadcast,
		 * `(o_t < T)[:, None]` */
		TSNode v = ta_node_unparen(ta_node_field(term, "value")), from;
		char *name = ta_node_is(v, "identifier") ? ta_node_text(m->src, v) : NULL;
		cmp = name ? ta_node_unparen(value_at_access(m, c->k, name, c->stmt, &from)) : v;
		free(name);
		if (ts_node_is_null(cmp))
			return false;
	}
	if (!ta_node_is(cmp, "comparison_operator") || ta_node_named_count(cmp) != 2 ||
	    ta_node_child_count(cmp) != 3 || !ta_node_text_eq(m->src, ts_node_child(cmp, 1), "<"))
		return false;
	TSNode l = ta_node_unparen(ta_node_named_child(cmp, 0)), r = ta_node_named_child(cmp, 1);
	if (ta_edits_bcast_mask(m, r) != 0)
		return false;
	if (kind <= 0) {
		kind = ta_edits_bcast_kind(m, l);
		if (kind > 0) {
			l = ta_node_field(l, "value");
		} else {
			kind = pre_axis(c, l);  /* rows < M with rows made [:, None] */
			if (kind <= 0)
				return false;
		}
	} else if (ta_edits_bcast_mask(m, l) != 0) {
		return false;
	}
	*axis = kind - 1;
	*offs = l;
	*bound = r;
	return true;
}

/* On the axis the pointer advances along, offsets (through names) that are
 * the pointer's offsets moved as far as the pointer has: `ks` with `ks =
 * k0 + offs_k` for `a_ptrs += BLOCK_K * stride_ak` over range(0, K,
 * BLOCK_K). */
static bool s1_moved_offsets(s1_ctx *c, int axis, TSNode offs)
{
	const ta_model *m = c->m;
	if (ts_node_is_null(c->adv) || axis != c->adv_axis || !c->adv_off)
		return false;
	TSNode v = ta_node_unparen(offs), from;
	if (ta_node_is(v, "identifier")) {
		char *name = ta_node_text(m->src, v);
		v = ta_node_unparen(value_at_access(m, c->k, name, c->stmt, &from));
		free(name);
	}
	if (!ta_node_is(v, "binary_operator") || !ta_node_text_eq(m->src, ta_node_field(v, "operator"), "+"))
		return false;
	char *l = squeezed(m, ta_node_field(v, "left")), *r = squeezed(m, ta_node_field(v, "right"));
	char *o = squeezed(m, c->ax[axis].offs), *moved = squeeze(ta_xstrdup(c->adv_off));
	bool yes = (!strcmp(l, moved) && !strcmp(r, o)) || (!strcmp(r, moved) && !strcmp(l, o));
	free(l);
	free(r);
	free(o);
	free(moved);
	return yes;
}

/* The terms of a mask's & chain, through the names it is made of: a term
 * that is a name bound in the kernel (and still holding at the access)
 * stands for its value's terms (`mask = row_ok & col_ok`, `row_ok =
 * rows[:, None] < M`). Parenthesised chains open (& regroups freely). The
 * count, 0 past max. */
static size_t s1_mask_terms(s1_ctx *c, TSNode mask, TSNode *out, size_t max, int depth)
{
	const ta_model *m = c->m;
	TSNode t[8];
	size_t n = ta_edits_chain_terms(m, mask, "&", t, 8), k = 0;
	for (size_t i = 0; i < n; i++) {
		TSNode u = ta_node_unparen(t[i]), from;
		if (depth < 4 && ta_node_is(u, "identifier")) {
			char *name = ta_node_text(m->src, u);
			TSNode v = ta_node_unparen(value_at_access(m, c->k, name, c->stmt, &from));
			free(name);
			if (ta_node_is(v, "binary_operator") || ta_node_is(v, "comparison_operator") ||
			    ta_node_is(v, "identifier") || ta_node_is(v, "subscript"))
				u = v;
		}
		bool chain = ta_node_is(u, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(u, "operator"), "&");
		bool name_of_name = ta_node_is(u, "identifier") && !ts_node_eq(u, ta_node_unparen(t[i]));
		if (depth < 4 && (chain || name_of_name)) {
			size_t r = s1_mask_terms(c, u, out + k, max - k, depth + 1);
			if (!r)
				return 0;
			k += r;
			continue;
		}
		if (k == max)
			return 0;
		out[k++] = ts_node_eq(u, ta_node_unparen(t[i])) ? t[i] : u;
	}
	return n ? k : 0;
}

/* `A if FLAG else B` with FLAG a constexpr parameter and every term of A
 * among B's, names followed (P2's EVEN_N form: whole blocks drop a bound
 * that is true on them, `mask_d[None, :] if EVEN_N else kv_mask`): B. A
 * descriptor bounded as B reads what either branch reads within the
 * tensor and pads the rest with zeros, so B stands for both. Anything
 * else: the mask itself. */
static TSNode flag_mask(s1_ctx *c, TSNode mask)
{
	const ta_model *m = c->m;
	TSNode x = ta_node_unparen(mask);
	if (!ta_node_is(x, "conditional_expression") || ta_node_named_count(x) != 3)
		return mask;
	TSNode a = ta_node_named_child(x, 0), flag = ta_node_named_child(x, 1), b = ta_node_named_child(x, 2);
	if (!ta_node_is(flag, "identifier"))
		return mask;
	char *fn = ta_node_text(m->src, flag);
	const ta_param *p = ta_kernel_param(c->k, fn);
	free(fn);
	if (!p || !p->constexpr_)
		return mask;
	TSNode ta[8], tb[8];
	size_t na = s1_mask_terms(c, a, ta, 8, 0), nb = s1_mask_terms(c, b, tb, 8, 0);
	if (!na || !nb)
		return mask;
	for (size_t i = 0; i < na; i++) {
		char *x1 = ta_node_text(m->src, ta_node_unparen(ta[i]));
		bool in = false;
		for (size_t j = 0; j < nb && !in; j++)
			in = ta_node_text_eq(m->src, ta_node_unparen(tb[j]), x1);
		free(x1);
		if (!in)
			return mask;
	}
	return ta_node_unparen(b);
}

/* The mask: (rows[:, None] < M) & (cols[None, :] < N), either term alone
 * or none, written in place or through names; the same offsets as the
 * pointer. */
static int s1_mask(s1_ctx *c, TSNode mask)
{
	const ta_model *m = c->m;
	if (ts_node_is_null(mask))
		return 0;
	if (ta_node_is(mask, "identifier")) {
		char *name = ta_node_text(m->src, mask);
		TSNode rhs = value_at_access(m, c->k, name, c->stmt, &c->mask_def);
		if (ts_node_is_null(rhs)) {
			int r = s1_fail(c, "the mask %s is rebound or its bounds change before the access", name);
			free(name);
			return r;
		}
		free(name);
		mask = rhs;
	}
	mask = flag_mask(c, mask);
	TSNode t[4];
	size_t n = s1_mask_terms(c, mask, t, 4, 0);
	for (size_t i = 0; i < n; i++) {
		int axis;
		TSNode offs, r;
		if (!mask_term(c, t[i], &axis, &offs, &r))
			return s1_fail(c, "the mask is not the bounds mask (rows[:, None] < M) & (cols[None, :] < N)");
		s1_axis *a = &c->ax[axis];
		char *mo = ta_node_text(m->src, offs);
		bool same = ta_node_text_eq(m->src, a->offs, mo);
		free(mo);
		if (!same && !a->bound && s1_moved_offsets(c, axis, offs)) {
			/* `ks < K` with `ks = k0 + offs_k`: where the advanced
			 * pointer is, the whole extent bounds it */
			a->bound = ta_node_text(m->src, r);
			continue;
		}
		if (!same || a->bound)
			return s1_fail(c, "the mask bounds other offsets than the pointer tile's");
		if (!ts_node_is_null(c->adv) && axis == c->adv_axis) {
			a->bound = advanced_bound(c, r);
			if (!a->bound) {
				char *rt = ta_node_text(m->src, r);
				s1_fail(c, "the mask bounds the advancing axis by %s, not by `K - %s`", rt, c->adv_off);
				free(rt);
				return -1;
			}
		} else {
			a->bound = ta_node_text(m->src, r);
		}
	}
	if (!n)
		return s1_fail(c, "the mask is not the bounds mask (rows[:, None] < M) & (cols[None, :] < N)");
	return 0;
}

/* A literal zero: what a descriptor pads with. */
static bool zero_literal(const ta_model *m, TSNode n)
{
	if (!ta_node_is(n, "integer") && !ta_node_is(n, "float"))
		return false;
	char *t = ta_node_text(m->src, n), *end;
	double v = strtod(t, &end);
	bool z = *end == '\0' && v == 0.0;
	free(t);
	return z;
}

/* The host keeps x's last stride 1 before launch l: x = x.contiguous(),
 * x freshly allocated from a shape, or an assert saying so. */
static bool host_contiguous(const ta_model *m, const ta_launch *l, const char *x)
{
	const ta_host *h = NULL;
	if (l->host >= 0)
		h = &m->hosts[l->host];
	for (size_t i = 0; !h && i < m->host_count; i++)
		if (!strcmp(m->hosts[i].name, "<module>"))
			h = &m->hosts[i];
	if (!h)
		return false;
	static const char *const fresh[] = { "torch.empty", "torch.zeros", "torch.ones", "torch.full",
					     "torch.rand", "torch.randn", NULL };
	char *a1 = ta_xasprintf("%s.is_contiguous()", x), *a2 = ta_xasprintf("%s.stride(-1) == 1", x);
	bool yes = false;
	for (size_t i = 0; i < h->op_count && !yes; i++) {
		const ta_host_op *op = &h->ops[i];
		if (op->span.start > l->span.start)
			continue;
		if (op->kind == TA_HOST_CONTIGUOUS && op->target && !strcmp(op->target, x))
			yes = true;
		for (size_t f = 0; fresh[f] && op->kind == TA_HOST_ALLOC && op->target && op->callee; f++)
			if (!strcmp(op->target, x) && !strcmp(op->callee, fresh[f]))
				yes = true;
		if (op->kind == TA_HOST_ASSERT && op->text && (strstr(op->text, a1) || strstr(op->text, a2)))
			yes = true;
	}
	free(a1);
	free(a2);
	return yes;
}

static size_t s1_param_index(const ta_kernel *k, const char *name);

/* Is st the last stride of its tensor: x.stride(-1), or x.stride(d) of an
 * x the host says has d + 1 dimensions? */
static bool last_stride_of(const ta_values_stride *st)
{
	return st->dim == -1 || (st->rank > 0 && st->dim == (long)st->rank - 1);
}

/* The last stride is 1 for sure: none written, a literal 1, or a parameter
 * every launch passes as the last stride of an x the host keeps
 * contiguous (x.stride(-1), x.stride(1) of a 2D x, the last of *x.stride()
 * of a 4D x), without a guess at the ranks of starred strides. */
static bool last_stride_one(s1_ctx *c, const char *s)
{
	const ta_model *m = c->m;
	if (!s || !strcmp(s, "1"))
		return true;
	size_t idx = s1_param_index(c->k, s);
	if (idx == c->k->param_count)
		return false;
	size_t seen = 0;
	ta_launch_walk walk = s1_launches(c);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk)); seen++) {
		ta_values_stride st;
		if (!ta_values_launch_stride(m, l, c->k, idx, &st))
			return false;
		char *xt = ta_node_text(m->src, st.tensor);
		bool ok = !st.assume && last_stride_of(&st) && host_contiguous(m, l, xt);
		free(xt);
		ta_values_stride_free(&st);
		if (!ok)
			return false;
	}
	return seen > 0;
}

/* A name for the descriptor: x_ptr -> x_desc, not yet used in the kernel. */
static char *desc_name(s1_ctx *c)
{
	const char *b = c->base;
	size_t n = 0;
	while (isalnum((unsigned char)b[n]) || b[n] == '_')
		n++;
	char *stem = ta_xstrndup(b, n);
	static const char *const tails[] = { "_ptrs", "_ptr", "Ptr", "ptr", NULL };
	for (size_t i = 0; tails[i]; i++) {
		size_t tl = strlen(tails[i]), sl = strlen(stem);
		if (sl > tl && !strcmp(stem + sl - tl, tails[i])) {
			stem[sl - tl] = '\0';
			break;
		}
	}
	if (!*stem || isdigit((unsigned char)stem[0])) {
		free(stem);
		stem = ta_xstrdup("tile");
	}
	char *name = ta_xasprintf("%s_desc", stem);
	for (int i = 2; ta_edits_ident_count(c->m, c->k->node, name) > 0; i++) {
		free(name);
		name = ta_xasprintf("%s_desc%d", stem, i);
	}
	free(stem);
	return name;
}

/* Does n read word, itself or through a name the kernel binds to
 * something that does (`a_tile = a_ptr + ...`, advanced in the loop)? */
static bool s1_reads_word(s1_ctx *c, TSNode n, const char *word, int depth)
{
	const ta_model *m = c->m;
	if (ta_edits_ident_count(m, n, word) > 0)
		return true;
	if (depth >= 3)
		return false;
	char **v;
	size_t count = ta_edits_names(m, n, &v);
	bool yes = false;
	for (size_t i = 0; i < count && !yes; i++) {
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, c->k->node, v[i], &d);
		for (size_t j = 0; j < d.n && !yes; j++) {
			TSNode r = ta_node_field(d.v[j], "right");
			yes = !ts_node_is_null(r) && !ts_node_eq(ta_node_parent(d.v[j]), n) && s1_reads_word(c, r, word, depth + 1);
		}
	}
	ta_edits_names_free(v, count);
	return yes;
}

/* Does every branch of if statement `ifs` (its body, each elif and an
 * else, which it must have) read the tile's base pointer, written or
 * through the kernel's names? */
static bool s1_every_branch_reads(s1_ctx *c, TSNode ifs)
{
	size_t w = 0;
	while (c->base[w] && (isalnum((unsigned char)c->base[w]) || c->base[w] == '_'))
		w++;
	if (!w)
		return false;
	char *word = ta_xstrndup(c->base, w);
	bool has_else = false, all = true;
	uint32_t n = ta_node_named_count(ifs);
	for (uint32_t i = 0; i < n && all; i++) {
		TSNode ch = ta_node_named_child(ifs, i), body = ch;
		if (ta_node_is(ch, "else_clause") || ta_node_is(ch, "elif_clause")) {
			has_else |= ta_node_is(ch, "else_clause");
			body = ta_node_field(ch, "body");
			if (ts_node_is_null(body))
				body = ta_node_named_child(ch, ta_node_named_count(ch) - 1);
		} else if (!ta_node_is(ch, "block")) {
			continue;  /* the condition */
		}
		all = s1_reads_word(c, body, word, 0);
	}
	free(word);
	return all && has_else;
}

/* Where the descriptor is made: before the access's statement, lifted out
 * of the loops and ifs around it that rebind none of the names it reads. */
static TSNode s1_place(s1_ctx *c, const char *args)
{
	const ta_model *m = c->m;
	TSNode at = c->stmt;
	for (;;) {
		TSNode blk = ta_node_parent(at), loop = ta_node_parent(blk);
		/* out of an if's branch too (P2's EVEN branches): making a
		 * descriptor has no effect but its value */
		if (ta_node_is(loop, "else_clause") || ta_node_is(loop, "elif_clause"))
			loop = ta_node_parent(loop);
		if (!ta_node_is(blk, "block") || (!ta_node_is(loop, "for_statement") &&
						  !ta_node_is(loop, "while_statement") && !ta_node_is(loop, "if_statement")))
			break;
		/* An if whose other branches do not read the base too guards it
		 * (`if HAS_Z:` with z_ptr None otherwise, or a pointer bound under
		 * the same flag): the descriptor stays inside. */
		if (ta_node_is(loop, "if_statement") && !s1_every_branch_reads(c, loop))
			break;
		bool moves = true;
		const char *p = args;
		/* Names in the descriptor's arguments, read word by word. */
		while (*p && moves) {
			if (!(isalpha((unsigned char)*p) || *p == '_') || (p > args && (isalnum((unsigned char)p[-1]) ||
									      p[-1] == '_' || p[-1] == '.'))) {
				p++;
				continue;
			}
			size_t n = 0;
			while (isalnum((unsigned char)p[n]) || p[n] == '_')
				n++;
			char *w = ta_xstrndup(p, n);
			ta_edits_defs d = { 0 };
			ta_edits_find_defs(m, loop, w, &d);
			moves = d.n == 0 && !d.more;
			free(w);
			p += n;
		}
		if (!moves)
			break;
		at = loop;
	}
	return at;
}

/* Deletes the lines of a pointer or mask definition nothing else reads:
 * its name occurs `uses` times in the kernel, all of them going away. */
static bool drop_dead(s1_ctx *c, TSNode assign, ta_edit *out, size_t uses)
{
	if (ts_node_is_null(assign))
		return false;
	TSNode stmt = ta_node_parent(assign);
	char *name = ta_node_text(c->m->src, ta_node_field(assign, "left"));
	uint32_t end, s = ta_node_is(stmt, "expression_statement") ? ta_edits_stmt_lines(c->m, stmt, &end) : UINT32_MAX;
	bool dead = s != UINT32_MAX && ta_edits_ident_count(c->m, c->k->node, name) == uses;
	if (dead)
		ta_edit_replace(out, s, end, "");
	free(name);
	return dead;
}

/* With the pointer's definition gone, offsets only it read go too. */
static void drop_dead_offsets(s1_ctx *c, ta_edit *out)
{
	for (int a = 0; a < 2; a++)
		if (!ts_node_is_null(c->ax[a].def) && (a == 0 || !ts_node_eq(c->ax[a].def, c->ax[0].def)))
			drop_dead(c, c->ax[a].def, out, 2);
}

/* ---- S1 on kernels given their strides: bounds and host contracts ------- */

/* An unmasked axis whose offsets start at the variable of a loop around
 * the access (`for k0 in range(0, K, BLOCK_K)`, the EVEN branch P2 writes):
 * the loop's stop bounds what the kernel reads, so it is the descriptor's
 * extent there. NULL when the start is not such a variable. */
static char *s1_loop_bound(s1_ctx *c, const char *start)
{
	const ta_kernel *k = c->k;
	for (int li = c->op->loop; li >= 0 && (size_t)li < k->loop_count; li = k->loops[li].parent) {
		const ta_loop *l = &k->loops[li];
		if (!l->var || strcmp(l->var, start) ||
		    (l->kind != TA_LOOP_RANGE && l->kind != TA_LOOP_TL_RANGE && l->kind != TA_LOOP_STATIC_RANGE))
			continue;
		if (l->arg_count == 1)
			return ta_xstrdup(l->args[0]);
		if (l->arg_count == 2 || l->arg_count == 3)
			return ta_xstrdup(l->args[1]);
		return NULL;
	}
	return NULL;
}

static size_t s1_param_index(const ta_kernel *k, const char *name)
{
	for (size_t i = 0; name && i < k->param_count; i++)
		if (!strcmp(k->params[i].name, name))
			return i;
	return k->param_count;
}

/* The pointer parameter the descriptor's base starts from: the base
 * itself, or the first term of the sum that binds it (`q_base = Q + b *
 * stride_qb`), followed through a few names. */
static size_t s1_base_param(s1_ctx *c)
{
	const ta_model *m = c->m;
	size_t n = 0;
	const char *b = c->base;
	while (isalnum((unsigned char)b[n]) || b[n] == '_')
		n++;
	char *name = ta_xstrndup(b, n);
	for (int hop = 0; hop < 4; hop++) {
		size_t i = s1_param_index(c->k, name);
		if (i < c->k->param_count) {
			free(name);
			return i;
		}
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, c->k->node, name, &d);
		free(name);
		if (d.n != 1 || d.more || !ta_node_is(d.v[0], "assignment"))
			return c->k->param_count;
		TSNode r = ta_node_unparen(ta_node_field(d.v[0], "right"));
		while (ta_node_is(r, "binary_operator") && ta_node_text_eq(m->src, ta_node_field(r, "operator"), "+"))
			r = ta_node_unparen(ta_node_field(r, "left"));
		if (!ta_node_is(r, "identifier"))
			return c->k->param_count;
		name = ta_node_text(m->src, r);
	}
	free(name);
	return c->k->param_count;
}

/* Writes `assert cond, msg` before the statement of launch l, at its
 * indentation, once (an earlier edit may have written it already). Where
 * the call may run another kernel (`fn = A if c else B`), the contract is
 * this kernel's only: it must hold when the call runs this one. */
static int s1_assert_before(s1_ctx *c, const ta_launch *l, const char *cond, const char *msg, ta_edit *out,
			    bool *wrote)
{
	const ta_model *m = c->m;
	TSNode st = ta_edits_node(m, l->span);
	while (!ts_node_is_null(st) && !ta_node_is(st, "expression_statement"))
		st = ta_node_parent(st);
	if (ts_node_is_null(st) || !ta_edits_alone_on_line(m, st, true))
		return s1_fail(c, "the launch at line %u shares its line with other code", l->span.line);
	char *as = l->only_if ? ta_xasprintf("assert not (%s) or (%s), %s", l->only_if, cond, msg)
			      : ta_xasprintf("assert %s, %s", cond, msg);
	TSNode h = l->host >= 0 ? ta_edits_node(m, m->hosts[l->host].span) : ta_syntax_root(m->syn);
	char *ht = ts_node_is_null(h) ? NULL : ta_node_text(m->src, h);
	bool have = ht && strstr(ht, as);
	free(ht);
	if (!have) {
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(st));
		char *line = ta_xasprintf("%s%s\n", ind, as);
		uint32_t at = ta_edits_line_start(m, ts_node_start_byte(st));
		ta_edit_replace(out, at, at, line);
		free(line);
		free(ind);
		*wrote = true;
	}
	free(as);
	return 0;
}

/* TMA's host contract at every launch of the kernel: the tensor whose
 * last stride the kernel is given as parameter `last` has that stride 1,
 * and its address and other strides are multiples of 16 bytes. Each
 * launch must pass the base's tensor X and X.stride(d) for `last`; the
 * assert goes before the launch's statement, once. Returns 0, or -1 with
 * c->why when a launch does not say which tensor it is. */
/* Does launch l pass some argument as `... if x is not None else ...`
 * (x may be None there, and the kernel then does not reach it)? */
static bool s1_passed_optional(const ta_model *m, const ta_launch *l, const ta_kernel *k, const char *x)
{
	char *want = ta_xasprintf("%sisnotNone", x);
	bool found = false;
	for (size_t i = 0; i < k->param_count && !found; i++) {
		TSNode a = ta_node_unparen(ta_edits_launch_arg_node(m, l, k, i));
		if (!ta_node_is(a, "conditional_expression") || ta_node_named_count(a) != 3)
			continue;
		char *ct = squeezed(m, ta_node_named_child(a, 1));
		found = !strcmp(ct, want);
		free(ct);
	}
	free(want);
	return found;
}

/* `x.stride(d) if x is not None else 0` passed for a stride, with x passed
 * for the base (`base`): *sa becomes x.stride(d); returns the assert's
 * guard "x is None or (". NULL, *sa unchanged, for anything else. */
static char *s1_optional_stride(const ta_model *m, TSNode *sa, TSNode base)
{
	TSNode e = ta_node_unparen(*sa);
	if (!ta_node_is(e, "conditional_expression") || ta_node_named_count(e) != 3 || !ta_node_is(base, "identifier"))
		return NULL;
	TSNode a = ta_node_unparen(ta_node_named_child(e, 0)), cond = ta_node_named_child(e, 1);
	TSNode z = ta_node_named_child(e, 2);
	char *bt = ta_node_text(m->src, base), *ct = squeezed(m, cond);
	char *want = ta_xasprintf("%sisnotNone", bt);
	bool ok = !strcmp(ct, want) && ta_node_text_eq(m->src, z, "0") && ta_node_is(a, "call");
	TSNode fn = ok ? ta_node_field(a, "function") : (TSNode){ 0 };
	ok = ok && ta_node_is(fn, "attribute") && ta_node_text_eq(m->src, ta_node_field(fn, "object"), bt);
	char *r = ok ? ta_xasprintf("%s is None or (", bt) : NULL;
	if (ok)
		*sa = a;
	free(bt);
	free(ct);
	free(want);
	return r;
}

static int s1_host_contract(s1_ctx *c, const char *last, ta_edit *out, bool *wrote)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	size_t li = s1_param_index(k, last), bi = s1_base_param(c);
	if (li == k->param_count)
		return s1_fail(c, "the last stride %s is not a parameter of %s", last, k->name);
	if (bi == k->param_count)
		return s1_fail(c, "the tile's base does not start from a parameter of %s", k->name);
	size_t seen = 0;
	ta_launch_walk walk = s1_launches(c);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk)); seen++) {
		TSNode sa = ta_edits_launch_arg_node(m, l, k, li), ba = ta_edits_launch_arg_node(m, l, k, bi);
		/* An optional tensor (`x.stride(2) if x is not None else 0`, with
		 * x passed for the base): the kernel reaches it only when given
		 * one, and the contract holds for it then. Else any stride the
		 * values layer reads: written, bound to a name, or starred. */
		char *opt = s1_optional_stride(m, &sa, ba);
		ta_values_stride st = { 0 };
		TSNode fn = ta_node_field(sa, "function"), d = ta_edits_call_arg(m, sa, 0, NULL);
		bool have = opt ? ta_values_int(m, d, &st.dim) && ts_node_is_null(ta_edits_call_arg(m, sa, 1, NULL))
			    : ta_values_launch_stride(m, l, k, li, &st);
		if (opt)
			st.tensor = ta_node_field(fn, "object");
		if (!have || !ta_node_is(st.tensor, "identifier") || !ta_node_is(ba, "identifier")) {
			free(opt);
			ta_values_stride_free(&st);
			return s1_fail(c, "the launch at line %u does not pass %s as x.stride(d) of the tensor it passes for "
				       "%s: the unit stride cannot be checked on the host", l->span.line, last,
				       k->params[bi].name);
		}
		char *xt = ta_node_text(m->src, st.tensor), *bt = ta_node_text(m->src, ba);
		if (strcmp(xt, bt)) {
			s1_fail(c, "the launch at line %u passes %s for %s but the strides of %s", l->span.line, bt,
				k->params[bi].name, xt);
			free(xt);
			free(bt);
			free(opt);
			ta_values_stride_free(&st);
			return -1;
		}
		/* Strides passed as *x.stride() after others of unknown rank:
		 * the parameters they fill rest on those ranks. */
		if (st.assume) {
			char *rm = ta_xasprintf("\"%s takes *x.stride() by position: the descriptor edit read the strides "
						"for tensors of these ranks\"", k->name);
			int r = s1_assert_before(c, l, st.assume, rm, out, wrote);
			free(rm);
			if (r != 0) {
				free(xt);
				free(bt);
				free(opt);
				ta_values_stride_free(&st);
				return r;
			}
		}
		char *as = ta_xasprintf("%s%s.stride(%ld) == 1 and %s.data_ptr() %% 16 == 0 and all(s * "
					"%s.element_size() %% 16 == 0 for i, s in enumerate(%s.stride()) if i != %ld %% "
					"%s.dim())%s", opt ? opt : "", xt, st.dim, xt, xt, xt, st.dim, xt, opt ? ")" : "");
		char *msg = ta_xasprintf("\"%s accesses %s through a TMA tensor descriptor: its last dimension "
					 "must be contiguous, its address and other strides multiples of 16 bytes\"",
					 k->name, xt);
		free(opt);
		free(xt);
		free(bt);
		ta_values_stride_free(&st);
		int r = s1_assert_before(c, l, as, msg, out, wrote);
		free(as);
		free(msg);
		if (r != 0)
			return r;
	}
	if (!seen)
		return s1_fail(c, "%s is not launched in this file: nowhere to check its strides", k->name);
	return 0;
}

/* The integer a node holds when it is a literal: true and *v, else false. */
static bool int_literal(const ta_model *m, TSNode n, long *v)
{
	n = ta_node_unparen(n);
	if (!ta_node_is(n, "integer"))
		return false;
	char *t = ta_node_text(m->src, n), *end;
	*v = strtol(t, &end, 0);
	bool ok = *end == '\0';
	free(t);
	return ok;
}

/* An expression of k's parameters and literals (`out_w`, `H * D`, `64`)
 * with each parameter replaced by what launch l passes for it: the host's
 * value, or NULL when the launch does not pass one or the expression has
 * more than names, literals, + - * // and parentheses. */
static char *launch_value(const ta_model *m, const ta_launch *l, const ta_kernel *k, const char *expr)
{
	ta_buf b = TA_BUF_INIT;
	for (const char *p = expr; *p;) {
		if (isalpha((unsigned char)*p) || *p == '_') {
			size_t n = 0;
			while (isalnum((unsigned char)p[n]) || p[n] == '_')
				n++;
			char *name = ta_xstrndup(p, n);
			size_t i = s1_param_index(k, name);
			free(name);
			TSNode a = i < k->param_count ? ta_edits_launch_arg_node(m, l, k, i) : (TSNode){ 0 };
			ta_values_stride st;
			if (ts_node_is_null(a) && i < k->param_count && ta_values_launch_stride(m, l, k, i, &st)) {
				/* an element of *x.stride(), at a place no guess made */
				char *x = st.assume ? NULL : ta_node_text(m->src, st.tensor);
				if (x)
					ta_buf_printf(&b, "%s.stride(%ld)", x, st.dim);
				free(x);
				ta_values_stride_free(&st);
				if (!x) {
					ta_buf_free(&b);
					return NULL;
				}
				p += n;
				continue;
			}
			if (ts_node_is_null(a)) {
				ta_buf_free(&b);
				return NULL;
			}
			char *t = ta_node_text(m->src, a);
			bool atom = ta_node_is(a, "identifier") || ta_node_is(a, "integer") || ta_node_is(a, "attribute");
			ta_buf_printf(&b, atom ? "%s" : "(%s)", t);
			free(t);
			p += n;
		} else if (strchr("0123456789 +-*/()", *p)) {
			ta_buf_printf(&b, "%c", *p++);
		} else {
			ta_buf_free(&b);
			return NULL;
		}
	}
	return ta_buf_steal(&b);
}

/* Every name in expr is a parameter of k. */
static bool params_only(const ta_kernel *k, const char *expr)
{
	for (const char *p = expr; *p;) {
		if (isalpha((unsigned char)*p) || *p == '_') {
			size_t n = 0;
			while (isalnum((unsigned char)p[n]) || p[n] == '_')
				n++;
			char *name = ta_xstrndup(p, n);
			bool ok = s1_param_index(k, name) < k->param_count;
			free(name);
			if (!ok)
				return false;
			p += n;
		} else if (strchr("0123456789 +-*/()", *p)) {
			p++;
		} else {
			return false;
		}
	}
	return true;
}

/* The single value the kernel binds name to (followed through a few
 * plain renamings), or a null node. */
static TSNode s1_kernel_value(s1_ctx *c, const char *name)
{
	const ta_model *m = c->m;
	char *n = ta_xstrdup(name);
	TSNode v = { 0 };
	for (int hop = 0; hop < 4; hop++) {
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, c->k->node, n, &d);
		/* `x = tl.multiple_of(x, 8)` after x's binding only adds a hint */
		TSNode one = { 0 };
		size_t values = 0;
		for (size_t i = 0; i < d.n; i++) {
			TSNode r = ta_node_is(d.v[i], "assignment") ? ta_node_unparen(ta_node_field(d.v[i], "right"))
								   : (TSNode){ 0 };
			bool hint = (ta_call_named(m, r, "multiple_of") || ta_call_named(m, r, "max_contiguous")) &&
				    ta_node_text_eq(m->src, ta_edits_call_arg(m, r, 0, NULL), n);
			if (!hint) {
				one = d.v[i];
				values++;
			}
		}
		free(n);
		n = NULL;
		if (values != 1 || d.more || !ta_node_is(one, "assignment"))
			return (TSNode){ 0 };
		v = ta_node_unparen(ta_node_field(one, "right"));
		if (!ta_node_is(v, "identifier"))
			return v;
		n = ta_node_text(m->src, v);
	}
	free(n);
	return (TSNode){ 0 };
}

/* `tl.load(...)`, or `tl.load(...).to(T)`: a value read from memory as is
 * (not a difference of offsets, a length or a product). With pointer, the
 * cast must make it a pointer (`.to(tl.pointer_type(tl.float16))`). */
static bool s1_loaded(const ta_model *m, TSNode v, bool pointer)
{
	bool cast = false;
	if (ta_node_is(v, "call")) {
		TSNode fn = ta_node_field(v, "function");
		if (ta_node_is(fn, "attribute") && ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), "to")) {
			TSNode ty = ta_edits_call_arg(m, v, 0, NULL);
			cast = ta_call_named(m, ty, "pointer_type");
			v = ta_node_unparen(ta_node_field(fn, "object"));
		}
	}
	return ta_call_named(m, v, "load") && (!pointer || cast);
}

/* The table form of TMA's rule (c->table): the base starts from a pointer
 * the kernel loads and casts, and the row stride is exactly a value it
 * loads, or a parameter. */
static bool s1_table_base(s1_ctx *c)
{
	const char *rs = c->ax[0].stride;
	if (!c->bterm_n || !rs)
		return false;
	/* the base's first term, through the names that bind it to a sum
	 * (`a_tile = a_base + rows * lda + ks`, loaded as `a_tile + k0`) */
	TSNode v = ta_node_unparen(c->bterm[0]);
	for (int hop = 0; hop < 4 && ta_node_is(v, "identifier"); hop++) {
		char *b = ta_node_text(c->m->src, v);
		v = s1_kernel_value(c, b);
		free(b);
		while (ta_node_is(v, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(v, "operator"), "+"))
			v = ta_node_unparen(ta_node_field(v, "left"));
	}
	if (ts_node_is_null(v) || !s1_loaded(c->m, v, true))
		return false;
	bool ok = s1_param_index(c->k, rs) < c->k->param_count;
	if (!ok) {
		TSNode sv = s1_kernel_value(c, rs);
		ok = !ts_node_is_null(sv) && s1_loaded(c->m, sv, false);
	}
	if (ok) {
		/* `.to(tl.pointer_type(T))`: T */
		TSNode pt = ta_edits_call_arg(c->m, v, 0, NULL);
		TSNode ty = ta_edits_call_arg(c->m, pt, 0, NULL);
		c->table_ty = ts_node_is_null(ty) ? NULL : ta_node_text(c->m->src, ty);
	}
	return ok;
}

/* TMA's rule where the kernel does not take the tensor's strides (it
 * computes its row stride, `out_base + rows * out_w + cols`): at every
 * launch, the base tensor's address and the row stride the kernel uses,
 * times the element size, are asserted multiples of 16 bytes, as is one
 * launch-passed factor of every term the base is offset by (`pid * out_h
 * * out_w` has out_w). Returns 0, or -1 with c->why naming what cannot be
 * checked on the host. */
static int s1_expr_contract(s1_ctx *c, ta_edit *out, bool *wrote)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	const char *rs = c->ax[0].stride;
	size_t bi = s1_base_param(c);
	if (bi == k->param_count && s1_table_base(c)) {
		c->table = true;
		return 0;
	}
	if (bi == k->param_count)
		return s1_fail(c, "the tile's base does not start from a parameter of %s: its 16-byte alignment "
			       "cannot be checked on the host", k->name);
	if (!params_only(k, rs))
		return s1_fail(c, "the row stride %s is computed in %s: its 16-byte multiple cannot be checked on "
			       "the host", rs, k->name);
	/* The offsets of the base: its terms after the first, and those of
	 * each name it is bound from, up to the pointer parameter. */
	TSNode offs[24];
	size_t no = 0;
	for (size_t i = 1; i < c->bterm_n && no < 24; i++)
		offs[no++] = c->bterm[i];
	TSNode head = c->bterm_n ? ta_node_unparen(c->bterm[0]) : (TSNode){ 0 };
	for (int hop = 0; hop < 4 && ta_node_is(head, "identifier"); hop++) {
		char *name = ta_node_text(m->src, head);
		bool param = s1_param_index(k, name) < k->param_count;
		ta_edits_defs d = { 0 };
		if (!param)
			ta_edits_find_defs(m, k->node, name, &d);
		free(name);
		if (param || d.n != 1 || d.more || !ta_node_is(d.v[0], "assignment"))
			break;
		TSNode t[12];
		size_t n = flat_operands(m, ta_node_field(d.v[0], "right"), "+", t, 12);
		for (size_t i = 1; i < n && no < 24; i++)
			offs[no++] = t[i];
		head = n ? ta_node_unparen(t[0]) : (TSNode){ 0 };
	}
	/* Each offset term needs a factor whose multiple of 16 bytes the
	 * contract asserts: the row stride, else the last parameter in it. */
	const char *need[25];
	size_t nn = 0;
	need[nn++] = rs;
	char *owned[24];
	size_t nown = 0;
	int rc = 0;
	for (size_t i = 0; i < no && rc == 0; i++) {
		TSNode f[12];
		size_t nf = flat_operands(m, offs[i], "*", f, 12);
		const char *pick = NULL;
		for (size_t j = 0; j < nf && !pick; j++) {
			long v;
			if (ta_node_text_eq(m->src, ta_node_unparen(f[j]), rs) ||
			    (int_literal(m, f[j], &v) && v % 16 == 0))
				pick = rs;
		}
		for (size_t j = nf; j-- > 0 && !pick;) {
			TSNode u = ta_node_unparen(f[j]);
			char *t = ta_node_is(u, "identifier") ? ta_node_text(m->src, u) : NULL;
			if (t && s1_param_index(k, t) < k->param_count && nown < 24) {
				owned[nown++] = t;
				pick = t;
			} else {
				free(t);
			}
		}
		if (!pick) {
			char *t = ta_node_text(m->src, offs[i]);
			rc = s1_fail(c, "the descriptor's base is offset by %s, which has no factor the launch passes: "
				     "its 16-byte alignment cannot be checked on the host", t);
			free(t);
			break;
		}
		bool dup = false;
		for (size_t j = 0; j < nn; j++)
			dup = dup || !strcmp(need[j], pick);
		if (!dup)
			need[nn++] = pick;
	}
	size_t seen = 0;
	ta_launch_walk walk = s1_launches(c);
	for (const ta_launch *l; rc == 0 && (l = ta_launch_walk_next(&walk)); seen++) {
		TSNode ba = ta_edits_launch_arg_node(m, l, k, bi);
		if (!ta_node_is(ba, "identifier")) {
			rc = s1_fail(c, "the launch at line %u does not pass %s as a tensor's name: its 16-byte alignment "
				     "cannot be checked on the host", l->span.line, k->params[bi].name);
			break;
		}
		char *xt = ta_node_text(m->src, ba);
		ta_buf as = TA_BUF_INIT;
		bool opt = s1_passed_optional(m, l, k, xt);
		ta_buf_printf(&as, "%s%s%s.data_ptr() %% 16 == 0", opt ? xt : "", opt ? " is None or (" : "", xt);
		for (size_t j = 0; j < nn && rc == 0; j++) {
			char *v = launch_value(m, l, k, need[j]);
			if (!v)
				rc = s1_fail(c, "the launch at line %u does not pass %s: the descriptor's 16-byte alignment "
					     "cannot be checked on the host", l->span.line, need[j]);
			else
				ta_buf_printf(&as, " and (%s) * %s.element_size() %% 16 == 0", v, xt);
			free(v);
		}
		ta_buf_printf(&as, "%s", opt ? ")" : "");
		char *msg = ta_xasprintf("\"%s accesses %s through a TMA tensor descriptor: its address and row "
					 "stride (%s) must be multiples of 16 bytes\"", k->name, xt, rs);
		if (rc == 0)
			rc = s1_assert_before(c, l, as.data, msg, out, wrote);
		ta_buf_free(&as);
		free(msg);
		free(xt);
	}
	for (size_t i = 0; i < nown; i++)
		free(owned[i]);
	if (rc == 0 && !seen)
		return s1_fail(c, "%s is not launched in this file: nowhere to check TMA's 16-byte alignment", k->name);
	return rc;
}

/* The least value the constexpr parameter idx of k takes where a launch
 * does not pass it: every autotune config (the list, or the function that
 * builds it) sets it to a literal, or its default is one. False when not
 * known (a heuristic, a config that computes it). */
static bool unpassed_min(const ta_model *m, const ta_kernel *k, size_t idx, long *min)
{
	const char *name = k->params[idx].name;
	for (size_t h = 0; h < k->heuristic_count; h++)
		if (!strcmp(k->heuristics[h].name, name))
			return false;
	const ta_autotune *at = k->autotune;
	if (at) {
		TSNode n = ta_edits_configs_node(m, at);
		long hi;
		if (!ts_node_is_null(n) && ta_configs_range(m, n, name, min, &hi))
			return true;
	}
	const char *d = k->params[idx].default_value;
	if (!d || !*d || strspn(d, "0123456789") != strlen(d))
		return false;
	*min = strtol(d, NULL, 10);
	return true;
}

/* TMA's block must span at least 16 bytes in its last dimension. Where
 * its value is written here (a literal in the kernel, the launch, every
 * config or the default) and is 16 elements or more, that holds for every
 * element type; where it is less, or the launch computes it
 * (`BLOCK_N=triton.next_power_of_2(N)`), an assert at the launch checks it
 * times the element size. Refused when the value is nowhere to be seen.
 * Returns 0, or -1 with c->why. */
static int s1_block_bytes(s1_ctx *c, ta_edit *out, bool *wrote)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	const char *b = c->ax[1].block;
	bool lit = *b && strspn(b, "0123456789") == strlen(b);
	long lv = lit ? strtol(b, NULL, 10) : 0, cmin = 0;
	size_t idx = lit ? k->param_count : s1_param_index(k, b);
	bool expr = !lit && idx == k->param_count;  /* `BD // 2`: from what each launch passes */
	if (!lit && !expr && !k->params[idx].constexpr_)
		return s1_fail(c, "the tile's last dimension %s is not a constexpr parameter: the 16 bytes a TMA block "
			       "needs there cannot be shown", b);
	bool cknown = !lit && !expr && unpassed_min(m, k, idx, &cmin);
	size_t bi = s1_base_param(c), seen = 0;
	ta_launch_walk walk = s1_launches(c);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk)); seen++) {
		TSNode a = lit || expr ? (TSNode){ 0 } : ta_edits_launch_arg_node(m, l, k, idx);
		long v = lit ? lv : cmin;
		char *e = expr ? launch_value(m, l, k, b) : NULL;
		if (expr && !e)
			return s1_fail(c, "the tile's last dimension %s is not computed from values the launch at line %u "
				       "passes: the 16 bytes a TMA block needs there cannot be shown", b, l->span.line);
		if (!lit && !expr && ts_node_is_null(a) && !cknown)
			return s1_fail(c, "the tile's last dimension %s has no value written for the launch at line %u (a "
				       "literal, a config or a default): the 16 bytes a TMA block needs there cannot be "
				       "shown", b, l->span.line);
		/* a literal, or a name of the wrapper holding one (analyze/values.h) */
		if (!ts_node_is_null(a) && !ta_values_int(m, a, &v))
			e = ta_node_text(m->src, a);
		if (!e && v >= 16)
			continue;
		TSNode ba = bi < k->param_count ? ta_edits_launch_arg_node(m, l, k, bi) : (TSNode){ 0 };
		if (!ta_node_is(ba, "identifier")) {
			free(e);
			return s1_fail(c, "the tile's last dimension %s may be under 16 elements and the launch at line %u "
				       "does not name the tensor: the 16 bytes a TMA block needs cannot be checked on the "
				       "host", b, l->span.line);
		}
		char *xt = ta_node_text(m->src, ba);
		char *vt = e ? ta_xasprintf("(%s)", e) : ta_xasprintf("%ld", v);
		bool opt = s1_passed_optional(m, l, k, xt);
		char *as = ta_xasprintf("%s%s%s * %s.element_size() >= 16", opt ? xt : "", opt ? " is None or " : "",
					vt, xt);
		char *msg = ta_xasprintf("\"%s accesses %s through a TMA tensor descriptor: its block's last "
					 "dimension (%s) must span 16 bytes\"", k->name, xt, b);
		int r = s1_assert_before(c, l, as, msg, out, wrote);
		free(as);
		free(msg);
		free(vt);
		free(xt);
		free(e);
		if (r != 0)
			return r;
	}
	if (!seen && (lit ? lv : cknown ? cmin : 0) < 16)
		return s1_fail(c, "the tile's last dimension %s is not shown to be 16 elements or more and %s is not "
			       "launched in this file: the 16 bytes a TMA block needs cannot be checked", b, k->name);
	return 0;
}

/* A statement before `at` in its block that binds a name to
 * tl.make_tensor_descriptor(args) and a name bound once: that name, or NULL. */
static char *s1_same_descriptor(s1_ctx *c, TSNode at, const char *tl, const char *args)
{
	const ta_model *m = c->m;
	char *want = ta_xasprintf("%s.make_tensor_descriptor(%s)", tl, args);
	char *found = NULL;
	for (TSNode p = ts_node_prev_named_sibling(at); !ts_node_is_null(p) && !found;
	     p = ts_node_prev_named_sibling(p)) {
		TSNode a = ta_node_is(p, "expression_statement") ? ta_node_named_child(p, 0) : (TSNode){ 0 };
		if (!ta_node_is(a, "assignment") || !ta_node_is(ta_node_field(a, "left"), "identifier") ||
		    !ta_node_text_eq(m->src, ta_node_field(a, "right"), want))
			continue;
		char *n = ta_node_text(m->src, ta_node_field(a, "left"));
		ta_edits_defs d = { 0 };
		ta_edits_find_defs(m, c->k->node, n, &d);
		if (d.n == 1 && !d.more)
			found = n;
		else
			free(n);
	}
	free(want);
	return found;
}

/* The dimension d of x.stride(d) that every launch of k passes for
 * parameter `param` of the same tensor x (as text in *x, caller frees):
 * -1 stays -1 and is taken as the last; INT_MIN when a launch passes
 * something else or launches differ. A place that rests on a guessed rank
 * is taken: the host contract asserts the guess before the descriptor is
 * used. */
static int s1_stride_dim(const ta_model *m, const ta_kernel *k, const char *param, char **x)
{
	size_t idx = s1_param_index(k, param);
	int dim = INT_MIN;
	*x = NULL;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)(k - m->kernels));
	for (const ta_launch *l; idx < k->param_count && (l = ta_launch_walk_next(&walk));) {
		ta_values_stride st;
		if (!ta_values_launch_stride(m, l, k, idx, &st))
			goto unknown;
		char *xt = ta_node_text(m->src, st.tensor);
		bool differs = (*x && strcmp(*x, xt)) || (dim != INT_MIN && dim != (int)st.dim);
		int v = (int)st.dim;
		ta_values_stride_free(&st);
		if (differs) {
			free(xt);
			goto unknown;
		}
		free(*x);
		*x = xt;
		dim = v;
	}
	if (dim == INT_MIN)
		goto unknown;
	return dim;
unknown:
	free(*x);
	*x = NULL;
	return INT_MIN;
}

/* The tile is X's transpose (P3 loaded it so): its rows step by X's last
 * stride and its columns by an earlier one (rows by x.stride(3), columns
 * by x.stride(2)). A descriptor needs the unit stride last, so it is made
 * over X as stored and the loaded tile transposed. */
static bool s1_transposed(s1_ctx *c)
{
	if (!c->ax[0].stride || !c->ax[1].stride)
		return false;
	char *x0, *x1;
	int d0 = s1_stride_dim(c->m, c->k, c->ax[0].stride, &x0), d1 = s1_stride_dim(c->m, c->k, c->ax[1].stride, &x1);
	bool t = x0 && x1 && !strcmp(x0, x1) && d0 != INT_MIN && d1 != INT_MIN && d1 != -1 && (d0 == -1 || d0 > d1);
	free(x0);
	free(x1);
	return t;
}

/* A cache or eviction hint a descriptor access may drop: a literal
 * cache_modifier other than ".cv" (a load that must see another program's
 * writes), or a literal eviction_policy. */
static bool s1_cache_hint(const ta_kwarg *kw, bool load)
{
	static const char *const ld[] = { "", ".ca", ".cg" }, *const st[] = { "", ".wb", ".cg", ".cs", ".wt" },
		*const ev[] = { "", "evict_first", "evict_last", "evict_normal" };
	bool cm = !strcmp(kw->name, "cache_modifier"), ep = !strcmp(kw->name, "eviction_policy");
	size_t n = strlen(kw->value);
	if ((!cm && !ep) || n < 2 || (kw->value[0] != '"' && kw->value[0] != '\'') || kw->value[n - 1] != kw->value[0])
		return false;
	const char *const *set = ep ? ev : load ? ld : st;
	size_t count = ep ? sizeof ev / sizeof *ev : load ? sizeof ld / sizeof *ld : sizeof st / sizeof *st;
	for (size_t i = 0; i < count; i++)
		if (strlen(set[i]) == n - 2 && !strncmp(kw->value + 1, set[i], n - 2))
			return true;
	return false;
}

/* A launch of k inside a torch.library.triton_op: that function is also
 * the op's fake kernel, which torch.compile runs on tensors with no
 * storage, where the contract's data_ptr() raises. Its line, or 0. */
static uint32_t s1_in_triton_op(const ta_model *m, const ta_kernel *k)
{
	ta_launch_walk walk = ta_index_launch_walk(m, (int)(k - m->kernels));
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		TSNode n = ta_edits_node(m, l->span);
		while (!ts_node_is_null(n) && !ta_node_is(n, "function_definition"))
			n = ta_node_parent(n);
		TSNode dd = ts_node_is_null(n) ? n : ta_node_parent(n);
		if (!ta_node_is(dd, "decorated_definition"))
			continue;
		for (uint32_t j = 0; j < ta_node_named_count(dd); j++) {
			TSNode d = ta_node_named_child(dd, j);
			if (!ta_node_is(d, "decorator"))
				continue;
			char *t = ta_node_text(m->src, d);
			bool op = t && ta_edits_word_in(t, strlen(t), "triton_op");
			free(t);
			if (op)
				return ts_node_start_point(d).row + 1;
		}
	}
	return 0;
}

/* Whether a and b lie in different branches of one if (never both run). */
static bool s1_exclusive(TSNode a, TSNode b)
{
	for (int side = 0; side < 2; side++) {
		TSNode x = side ? b : a, y = side ? a : b;
		for (TSNode p = ta_node_parent(x); !ts_node_is_null(p); p = ta_node_parent(p)) {
			if (!ta_node_is(p, "else_clause") && !ta_node_is(p, "elif_clause"))
				continue;
			TSNode ifs = ta_node_parent(p);
			if (node_within(y, ifs) && !node_within(y, p))
				return true;
		}
	}
	return false;
}

/* Op is an atomic that sets a lock or a flag (atomic_xchg, atomic_cas, or
 * one with a release sem=) and may run after the store call: later in
 * the kernel and not in another branch of an if, or in a loop around both. */
static bool s1_signal_after(const ta_model *m, const ta_op *op, TSNode store)
{
	if (op->kind != TA_OP_ATOMIC || !op->callee)
		return false;
	TSNode at = ta_edits_node(m, op->span);
	bool looped = false;
	for (TSNode p = ta_node_parent(store); !ts_node_is_null(p) && !looped; p = ta_node_parent(p))
		looped = (ta_node_is(p, "for_statement") || ta_node_is(p, "while_statement")) && node_within(at, p);
	const ta_kwarg *sem = ta_kwarg_find(op->kwargs, op->kwarg_count, "sem");
	const char *dot = strrchr(op->callee, '.'), *fn = dot ? dot + 1 : op->callee;
	bool signal = !strcmp(fn, "atomic_xchg") || !strcmp(fn, "atomic_cas") ||
		      (sem && sem->value && (strstr(sem->value, "release") || strstr(sem->value, "acq_rel")));
	return signal && (looped || (op->span.start >= ts_node_end_byte(store) && !s1_exclusive(at, store)));
}

/* ---- S1 on table bases: the loop written twice ------------------------- */

/* Bits of an element of the type a table's pointer is cast to, or 0. */
static int s1_elem_bits(const char *ty)
{
	static const struct { const char *name; int bits; } known[] = {
		{ "float16", 16 }, { "bfloat16", 16 }, { "int16", 16 }, { "uint16", 16 },
		{ "float32", 32 }, { "int32", 32 }, { "uint32", 32 },
		{ "float64", 64 }, { "int64", 64 }, { "uint64", 64 },
		{ "int8", 8 }, { "uint8", 8 }, { "float8e4nv", 8 }, { "float8e5", 8 },
		{ "float8e4b15", 8 }, { "float8e4b8", 8 }, { "float8e5b16", 8 },
	};
	const char *dot = ty ? strrchr(ty, '.') : NULL;
	const char *n = dot ? dot + 1 : ty;
	for (size_t i = 0; n && i < sizeof known / sizeof known[0]; i++)
		if (!strcmp(n, known[i].name))
			return known[i].bits;
	return 0;
}

/* A guard this edit writes: name's one binding in k is an `&` of tests
 * `x % N == 0`. */
static bool s1_guard_name(const ta_model *m, const ta_kernel *k, TSNode id)
{
	if (!ta_node_is(id, "identifier"))
		return false;
	char *n = ta_node_text(m->src, id);
	ta_edits_defs d = { 0 };
	ta_edits_find_defs(m, k->node, n, &d);
	free(n);
	if (d.n != 1 || d.more || !ta_node_is(d.v[0], "assignment"))
		return false;
	TSNode t[8];
	size_t nt = flat_operands(m, ta_node_field(d.v[0], "right"), "&", t, 8);
	for (size_t i = 0; i < nt; i++) {
		TSNode cmp = ta_node_unparen(t[i]);
		if (!ta_node_is(cmp, "comparison_operator") || ts_node_child_count(cmp) != 3 ||
		    strcmp(ts_node_type(ts_node_child(cmp, 1)), "=="))
			return false;
		TSNode l = ta_node_unparen(ts_node_child(cmp, 0));
		long zero;
		if (!int_literal(m, ts_node_child(cmp, 2), &zero) || zero != 0 || !ta_node_is(l, "binary_operator") ||
		    !ta_node_text_eq(m->src, ta_node_field(l, "operator"), "%"))
			return false;
	}
	return nt > 0;
}

/* Whether x is one arm of a loop this edit wrote twice: the only statement
 * of `if GUARDS: x else: twin`, the twin of the same kind and (a loop)
 * header, GUARDS the names of guards. 1: x is the descriptor copy, 2: the
 * loop as written; 0: neither. *ifs: the if. */
static int s1_versioned_arm(const ta_model *m, const ta_kernel *k, TSNode x, TSNode *ifs)
{
	TSNode blk = ta_node_parent(x), arm = ta_node_parent(blk);
	if (!ta_node_is(blk, "block") || ta_node_named_count(blk) != 1)
		return 0;
	bool in_else = ta_node_is(arm, "else_clause");
	TSNode i = in_else ? ta_node_parent(arm) : arm;
	if (!ta_node_is(i, "if_statement") || ta_node_named_count(i) != 3)
		return 0;
	TSNode then = ta_node_field(i, "consequence"), alt = ta_node_field(i, "alternative");
	TSNode body = ta_node_is(alt, "else_clause") ? ta_node_field(alt, "body") : (TSNode){ 0 };
	if (ts_node_is_null(body) || ta_node_named_count(then) != 1 || ta_node_named_count(body) != 1)
		return 0;
	TSNode a = ta_node_named_child(then, 0), b = ta_node_named_child(body, 0);
	if (strcmp(ts_node_type(a), ts_node_type(b)))
		return 0;
	if (ta_node_is(a, "for_statement")) {
		char *la = ta_node_text(m->src, ta_node_field(a, "left")), *ra = ta_node_text(m->src, ta_node_field(a, "right"));
		bool same = ta_node_text_eq(m->src, ta_node_field(b, "left"), la) &&
			    ta_node_text_eq(m->src, ta_node_field(b, "right"), ra);
		free(la);
		free(ra);
		if (!same)
			return 0;
	}
	TSNode g[8];
	size_t ng = flat_operands(m, ta_node_field(i, "condition"), "&", g, 8);
	for (size_t j = 0; j < ng; j++)
		if (!s1_guard_name(m, k, ta_node_unparen(g[j])))
			return 0;
	if (!ng)
		return 0;
	*ifs = i;
	return in_else ? 2 : 1;
}

/* What the access steps through: the loop that advances its pointer, or
 * the innermost loop whose variable a tile axis starts from (`k0`, `k *
 * BK`); else the access's own statement. */
static TSNode s1_version_unit(s1_ctx *c)
{
	if (!ts_node_is_null(c->adv))
		return c->loop;
	for (TSNode p = ta_node_parent(c->stmt); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
	     p = ta_node_parent(p)) {
		if (!ta_node_is(p, "for_statement"))
			continue;
		char *v = ta_node_text(c->m->src, ta_node_field(p, "left"));
		bool steps = false;
		for (int a = 0; a < 2 && !steps; a++)
			steps = c->ax[a].start && ta_edits_word_in(c->ax[a].start, strlen(c->ax[a].start), v);
		free(v);
		if (steps)
			return p;
		break;
	}
	return c->stmt;
}

/* S1 where the base and row stride come from tables on the GPU
 * (c->table): no host check can see them, so the kernel checks them for
 * each problem and takes the descriptor only where TMA's rule holds. What
 * the access steps through (s1_version_unit) is written twice, `if
 * GUARD:` the descriptor copy, `else:` as written; a loop this edit wrote
 * twice already takes one more guard and the access in its descriptor
 * copy. A branch per access inside the loop would be simpler and cost the
 * loop its pipelining (4.5x slower on an H100:
 * results/gpu/s1-table-probe-2026-12-06). mk: the descriptor's
 * line to insert at `at` (NULL: made already). */
static int s1_versioned(s1_ctx *c, TSNode at, const char *mk, const char *acc, const char *tl, ta_edit *out)
{
	const ta_model *m = c->m;
	TSNode x = s1_version_unit(c), ifs = { 0 };
	uint32_t xe, xs = ta_edits_stmt_lines(m, x, &xe);
	if (xs == UINT32_MAX)
		return s1_fail(c, "line %u: the statement the access steps through shares its line with other "
			       "code", c->op->span.line);
	int arm = s1_versioned_arm(m, c->k, x, &ifs);
	if (arm == 2)
		return s1_fail(c, "line %u: the loop as written, kept for problems TMA's 16-byte rule refuses "
			       "(its descriptor copy is above)", c->op->span.line);
	/* the guard: the row stride and the base, 16-byte multiples */
	char *gname = NULL;
	for (int i = 1; !gname || ta_edits_ident_count(m, c->k->node, gname) > 0; i++) {
		free(gname);
		char *stem = desc_name(c);
		gname = i == 1 ? ta_xasprintf("%s_ok", stem) : ta_xasprintf("%s_ok%d", stem, i);
		free(stem);
	}
	int bits = s1_elem_bits(c->table_ty);
	const char *rs = c->ax[0].stride;
	bool simple = ta_node_is(c->bterm[0], "identifier") && c->bterm_n == 1;
	char *rows = bits ? ta_xasprintf("%s %% %d == 0", rs, 128 / bits)
			  : ta_xasprintf("%s * %s%s%s.dtype.element_ty.primitive_bitwidth %% 128 == 0", rs,
					 simple ? "" : "(", c->base, simple ? "" : ")");
	uint32_t gat = arm == 1 ? ts_node_start_byte(ifs) : ts_node_start_byte(x);
	char *gind = ta_edits_indent_at(m, gat);
	char *guard = ta_xasprintf("%s%s = (%s) & (%s%s%s.to(%s.int64) %% 16 == 0)\n", gind, gname, rows,
				   simple ? "" : "(", c->base, simple ? "" : ")", tl);
	free(rows);
	/* the advance goes from the descriptor copy when nothing else there reads the pointer */
	uint32_t adv_end, adv = UINT32_MAX;
	if (!ts_node_is_null(c->adv)) {
		char *pn = ta_node_text(m->src, ta_node_field(c->ptr_def, "left"));
		adv = ta_edits_stmt_lines(m, c->adv, &adv_end);
		if (ta_edits_ident_count(m, x, pn) != 2)
			adv = UINT32_MAX;
		free(pn);
	}
	uint32_t as = ta_edits_line_start(m, ts_node_start_byte(at));
	bool at_x = ts_node_eq(at, x), at_in = !at_x && ts_node_start_byte(at) >= xs && ts_node_end_byte(at) <= xe;
	if (arm == 1) {
		/* one more guard on the if, the access in its descriptor copy */
		TSNode cond = ta_node_field(ifs, "condition");
		char *ct = ta_node_text(m->src, cond);
		char *nc = ta_xasprintf("%s & %s", ct, gname);
		ta_edit_replace(out, ts_node_start_byte(cond), ts_node_end_byte(cond), nc);
		free(ct);
		free(nc);
		uint32_t is = ta_edits_line_start(m, gat);
		bool together = mk && as == is;
		char *pre = ta_xasprintf("%s%s", together ? mk : "", guard);
		ta_edit_replace(out, is, is, pre);
		free(pre);
		if (mk && !together)
			ta_edit_replace(out, as, as, mk);
		ta_edit_replace(out, c->op->span.start, c->op->span.end, acc);
		if (adv != UINT32_MAX)
			ta_edit_replace(out, adv, adv_end, "");
	} else {
		/* the descriptor copy: x's text with the access (and the advance,
		 * the descriptor where it goes inside x) rewritten */
		ta_edit copy;
		ta_edit_init(&copy, "S1", out->crlf);
		if (mk && at_in)
			ta_edit_replace(&copy, as - xs, as - xs, mk);
		ta_edit_replace(&copy, c->op->span.start - xs, c->op->span.end - xs, acc);
		if (adv != UINT32_MAX)
			ta_edit_replace(&copy, adv - xs, adv_end - xs, "");
		char *fast = NULL, *err = NULL;
		size_t fast_len;
		int rc = ta_edit_apply_text(&copy, m->src->text + xs, xe - xs, &fast, &fast_len, &err);
		ta_edit_clear(&copy);
		if (rc != 0) {
			free(gind);
			free(guard);
			free(gname);
			int r = s1_fail(c, "line %u: %s", c->op->span.line, err);
			free(err);
			return r;
		}
		char *slow = ta_edits_text(m, xs, xe);
		const char *unit = ta_edits_indent_unit(m, gind);
		char *f2 = ta_edits_reindent(fast, unit), *s2 = ta_edits_reindent(slow, unit);
		char *text = ta_xasprintf("%s%s%sif %s:\n%s%selse:\n%s", mk && at_x ? mk : "", guard, gind, gname, f2,
					  gind, s2);
		ta_edit_replace(out, xs, xe, text);
		if (mk && !at_x && !at_in)
			ta_edit_replace(out, as, as, mk);
		free(fast);
		free(slow);
		free(f2);
		free(s2);
		free(text);
	}
	free(gind);
	free(guard);
	free(gname);
	return 0;
}

static int s1_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	s1_ctx c = { .m = m, .k = k, .op = op };
	bool load = op->kind == TA_OP_LOAD;
	c.call = ta_edits_node(m, op->span);
	c.stmt = block_stmt(c.call);
	if (op->gather)
		return ta_edits_refuse(why, "line %u: rows come from a loaded index (a gather): guided", op->span.line);
	if (op->ptr_rank != 2 || !ta_node_is(c.call, "call") || ts_node_is_null(c.stmt))
		return ta_edits_refuse(why, "line %u: not a 2D tile access", op->span.line);
	uint32_t lock = ta_edits_under_spin_lock(m, c.call);
	if (lock)
		return ta_edits_refuse(why, "line %u: under the spin lock taken at line %u: a TMA copy is "
				       "asynchronous and the lock's atomics do not order it", op->span.line, lock);
	/* What holds for the whole file comes first: where it fails, no form
	 * of the access would make the edit possible. A CUDA allocator and TMA
	 * do not fit a file written for another back-end; tl.make_tensor_descriptor
	 * is public from Triton 3.4 (3.3 had it as
	 * tl._experimental_make_tensor_descriptor); the allocator and the host
	 * contracts go where the kernel is launched. */
	if (ta_edits_other_backend(m, "a CUDA allocator and TMA descriptors do not fit it", why) != 0 ||
	    ta_edits_triton_at_least(m, 3, 4, "tl.make_tensor_descriptor", why) != 0)
		return -1;
	if (!ta_edits_allocator_dominates(m, (size_t)(k - m->kernels)) && k->launch_count == 0)
		return ta_edits_refuse(why, "%s is not launched in this file: nowhere to set the allocator", k->name);
	uint32_t traced = s1_in_triton_op(m, k);
	if (traced)
		return ta_edits_refuse(why, "line %u: %s is launched in a torch.library.triton_op, whose body "
				       "torch.compile also runs on fake tensors: the TMA contract's data_ptr() "
				       "cannot run there", traced, k->name);
	/* Only the pointer, the mask, other= / the value: descriptors take no
	 * more. Cache hints go (TMA copies through L2 and has none); they never
	 * change the values, but `.cv` (fetch again, for memory another program
	 * writes meanwhile) and volatile= do say something about them. */
	for (size_t i = 0; i < op->kwarg_count; i++) {
		const char *kn = op->kwargs[i].name;
		if (!s1_cache_hint(&op->kwargs[i], load) && strcmp(kn, "mask") && strcmp(kn, load ? "other" : "value") &&
		    strcmp(kn, "pointer"))
			return ta_edits_refuse(why, "line %u: %s=%s has no descriptor form", op->span.line, kn,
					       op->kwargs[i].value);
	}
	if (op->arg_count > 3)
		return ta_edits_refuse(why, "line %u: extra positional arguments have no descriptor form", op->span.line);
	TSNode ptr = ta_edits_call_arg(m, c.call, 0, "pointer");
	TSNode mask = ta_edits_call_arg(m, c.call, load ? 1 : 2, "mask");
	TSNode other = load ? ta_edits_call_arg(m, c.call, 2, "other") : (TSNode){ 0 };
	TSNode value = load ? (TSNode){ 0 } : ta_edits_call_arg(m, c.call, 1, "value");
	if (!ts_node_is_null(other) && !zero_literal(m, other)) {
		char *o = ta_node_text(m->src, other);
		int r = ta_edits_refuse(why, "line %u: other=%s: a descriptor pads out-of-bounds elements with 0",
					op->span.line, o);
		free(o);
		return r;
	}
	if (!load && (ts_node_is_null(value) || ta_node_is(value, "integer") || ta_node_is(value, "float")))
		return ta_edits_refuse(why, "line %u: the stored value is not a tile", op->span.line);
	/* A TMA store is asynchronous: a lock or flag set after it (that
	 * tells another program the tile is there, stream-K's fix-up) is not
	 * ordered after the data. */
	for (size_t i = 0; !load && i < k->op_count; i++)
		if (s1_signal_after(m, &k->ops[i], c.call))
			return ta_edits_refuse(why, "line %u: the atomic at line %u may follow the store (a lock or "
					       "flag for other programs): a TMA store is asynchronous and not ordered "
					       "before it", op->span.line, k->ops[i].span.line);
	char *tl = ta_edits_module(m, "triton.language");
	if (!tl)
		return ta_edits_refuse(why, "the file does not import triton.language");
	int rc = -1;
	char *name = NULL;
	if (ts_node_is_null(ptr) || s1_pointer(&c, ptr) != 0 || s1_mask(&c, mask) != 0)
		goto done;
	/* Rows and columns one stride apart (`x + s * rows + s * cols`): the
	 * tile overlaps itself, a descriptor's rows cannot. */
	if (c.ax[0].stride && c.ax[1].stride && !strcmp(c.ax[0].stride, c.ax[1].stride)) {
		s1_fail(&c, "rows and columns both step by %s: the tile's rows overlap, which a descriptor's "
			"cannot", c.ax[0].stride);
		goto done;
	}
	for (int a = 0; a < 2; a++) {
		if (c.ax[a].bound)
			continue;
		if (c.ax[a].wrap) {
			c.ax[a].bound = ta_xstrdup(c.ax[a].wrap);
			continue;
		}
		if (!ts_node_is_null(c.adv) && a == c.adv_axis && c.adv_extent && !strcmp(c.ax[a].start, "0")) {
			c.ax[a].bound = ta_xstrdup(c.adv_extent);
			continue;
		}
		if (strcmp(c.ax[a].start, "0") && (c.ax[a].bound = s1_loop_bound(&c, c.ax[a].start)))
			continue;
		if (strcmp(c.ax[a].start, "0")) {
			char *o = ta_node_text(m->src, c.ax[a].offs);
			s1_fail(&c, "the mask does not bound %s: the tensor's extent there is unknown", o);
			free(o);
			goto done;
		}
		c.ax[a].bound = ta_xstrdup(c.ax[a].block);
	}
	/* A transposed tile (P3's): the descriptor over the tensor as stored,
	 * the load transposed with .T. */
	bool transposed = false;
	if (!last_stride_one(&c, c.ax[1].stride) && s1_transposed(&c)) {
		if (!load) {
			s1_fail(&c, "the tile is the transpose of the tensor as stored: only a load is rewritten to a "
				"descriptor load and .T");
			goto done;
		}
		s1_axis t = c.ax[0];
		c.ax[0] = c.ax[1];
		c.ax[1] = t;
		if (!ts_node_is_null(c.adv))
			c.adv_axis = 1 - c.adv_axis;   /* the advancing axis goes with its offsets */
		transposed = true;
	}
	/* The host needs an allocator for in-kernel descriptors, set where it
	 * dominates every launch of the kernel. */
	bool has_alloc = ta_edits_allocator_dominates(m, (size_t)(k - m->kernels));
	const ta_launch *first = ta_index_first_launch(m, (int)(k - m->kernels));
	if (!has_alloc && ta_edits_set_allocator(m, first, out, &c.why) != 0)
		goto done;
	/* The unit last stride and TMA's alignment: proved by the host, or
	 * written as an assert at every launch when the kernel is given them. */
	bool contract = false, covered = false;
	if (!last_stride_one(&c, c.ax[1].stride)) {
		if (s1_host_contract(&c, c.ax[1].stride, out, &contract) != 0) {
			char *w = c.why;
			c.why = ta_xasprintf("%s (its last stride %s is not provably 1)", w, c.ax[1].stride);
			free(w);
			goto done;
		}
		covered = true;
	} else if (c.ax[1].stride && s1_param_index(k, c.ax[1].stride) < k->param_count) {
		ta_edit probe = { 0 };
		probe.crlf = out->crlf;
		char *keep = c.why;
		c.why = NULL;
		bool w = false;
		/* alignment only: where the launches do not say the tensor, as before */
		if (s1_host_contract(&c, c.ax[1].stride, &probe, &w) == 0) {
			for (size_t i = 0; i < probe.repl_count; i++)
				ta_edit_replace(out, probe.repls[i].start, probe.repls[i].end, probe.repls[i].text);
			contract = w;
			covered = true;
		}
		ta_edit_clear(&probe);
		free(c.why);
		c.why = keep;
	}
	/* No descriptor without TMA's alignment checked: where the kernel is
	 * not given the tensor's strides, from the values it does use. */
	if (!covered && s1_expr_contract(&c, out, &contract) != 0)
		goto done;
	if (s1_block_bytes(&c, out, &contract) != 0)
		goto done;
	name = desc_name(&c);
	char *args = ta_xasprintf("%s, shape=[%s, %s], strides=[%s, 1], block_shape=[%s, %s]", c.base,
				  c.ax[0].bound, c.ax[1].bound, c.ax[0].stride, c.ax[0].block, c.ax[1].block);
	TSNode at = s1_place(&c, args);
	char *ind = ta_edits_indent_at(m, ts_node_start_byte(at));
	uint32_t ls = ta_edits_line_start(m, ts_node_start_byte(at));
	if (ls + strlen(ind) != ts_node_start_byte(at)) {
		free(args);
		free(ind);
		s1_fail(&c, "the access's statement shares its line with other code");
		goto done;
	}
	/* The same descriptor made earlier in the same block (the other
	 * branch of P2's EVEN if) is used again rather than made twice. */
	char *same = s1_same_descriptor(&c, at, tl, args), *mk = NULL;
	if (same) {
		free(name);
		name = same;
	} else {
		mk = ta_xasprintf("%s%s = %s.make_tensor_descriptor(%s)\n", ind, name, tl, args);
		if (!c.table)
			ta_edit_replace(out, ls, ls, mk);
	}
	free(args);
	free(ind);
	/* The advanced axis starts where the pointer has moved to. */
	char *at_[2];
	for (int a = 0; a < 2; a++)
		at_[a] = ts_node_is_null(c.adv) || a != c.adv_axis ? ta_xstrdup(c.ax[a].start) :
			 !strcmp(c.ax[a].start, "0") ? ta_xstrdup(c.adv_off) :
			 ta_xasprintf("%s + %s", c.ax[a].start, c.adv_off);
	char *vt = load ? NULL : ta_node_text(m->src, value);
	/* tl.store broadcasts its value to the pointers' shape, a descriptor
	 * store takes the block's shape only: a value with an axis added by
	 * None (`row[None, :]`) is broadcast in the edit. */
	if (vt && strstr(vt, "None")) {
		char *w = ta_xasprintf("%s.broadcast_to(%s, [%s, %s])", tl, vt, c.ax[0].block, c.ax[1].block);
		free(vt);
		vt = w;
	}
	char *acc = load ? ta_xasprintf("%s.load([%s, %s])%s", name, at_[0], at_[1], transposed ? ".T" : "") :
		    ta_xasprintf("%s.store([%s, %s], %s)", name, at_[0], at_[1], vt);
	int vr = c.table ? s1_versioned(&c, at, mk, acc, tl, out) : 0;
	if (!c.table)
		ta_edit_replace(out, op->span.start, op->span.end, acc);
	free(mk);
	free(acc);
	free(vt);
	free(at_[0]);
	free(at_[1]);
	if (vr != 0)
		goto done;
	if (c.table) {
		/* s1_versioned made the rest */
	} else if (!ts_node_is_null(c.adv)) {
		/* The advance goes with the pointer when nothing else reads it. */
		char *pn = ta_node_text(m->src, ta_node_field(c.ptr_def, "left"));
		uint32_t end, st = ta_edits_stmt_lines(m, c.adv, &end);
		if (ta_edits_ident_count(m, k->node, pn) == 3 && st != UINT32_MAX) {
			ta_edit_replace(out, st, end, "");
			if (drop_dead(&c, c.ptr_def, out, 3))
				drop_dead_offsets(&c, out);
		}
		free(pn);
	} else if (drop_dead(&c, c.ptr_def, out, 2)) {
		drop_dead_offsets(&c, out);
	}
	drop_dead(&c, c.mask_def, out, 2);
	ta_edit_set_title(out, "%s the tile through tensor descriptor %s instead of a raw 2D pointer%s%s",
			  load ? "load" : "store", name, ts_node_is_null(c.adv) ? "" : ", at the loop's offset",
			  has_alloc ? "" : " (and set the host allocator)");
	for (size_t i = 0; i < op->kwarg_count; i++) {
		if (!s1_cache_hint(&op->kwargs[i], load))
			continue;
		char *t0 = ta_xstrdup(out->title ? out->title : "");
		ta_edit_set_title(out, "%s; the hint %s=%s goes (a TMA copy goes through L2 and takes no hint)", t0,
				  op->kwargs[i].name, op->kwargs[i].value);
		free(t0);
	}
	if (c.table) {
		char *t0 = ta_xstrdup(out->title ? out->title : "");
		ta_edit_set_title(out, "%s, where %s and its row stride %s are 16-byte aligned (checked in %s for each "
				  "problem: the tables are on the GPU); as written elsewhere", t0, c.base,
				  c.ax[0].stride, k->name);
		free(t0);
		ta_edit_set_unsafe(out, "assumes Triton 3.4 or newer (tl.make_tensor_descriptor); TMA's 16-byte rule "
				   "for %s and %s is checked in the kernel, which runs the code as written where it "
				   "fails", c.base, c.ax[0].stride);
	}
	if (contract) {
		char *t0 = ta_xstrdup(out->title ? out->title : "");
		ta_edit_set_title(out, "%s; TMA's unit last stride and 16-byte alignment asserted at the launches", t0);
		free(t0);
	}
	out->line = op->span.line;
	rc = 0;
done:
	if (rc != 0)
		*why = c.why ? c.why : ta_xasprintf("line %u: not the canonical 2D tile access", op->span.line);
	else
		free(c.why);
	free(name);
	free(tl);
	s1_free(&c);
	return rc;
}

static bool s1_site(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	return (op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE) && op->ptr_shape == TA_PTR_2D &&
	       !ta_tile_not_2d(m, k, op);
}

/* Rewrite: tl.make_tensor_descriptor and desc.load/store for a raw 2D tile, plus the host allocator. */
TA_REWRITE(S1, NULL, TA_UNSAFE(S1_ASSUMES))
{
	return ta_edits_each_op(m, kernel_or_host, line, s1_site, s1_one, out, why_not,
				"no raw 2D pointer tile load or store");
}
