/* S8: Autotune key misses mode parameters. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "analyze/reexport.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Constexpr parameters that change the specialisation and so the best
 * config; tensor dtypes need no entry: the autotuner adds them itself. */
static const char *const mode_params[] = {
	"WINDOW_SIZE", "SLIDING_WINDOW", "SOFT_CAP", "SOFTCAP", "LOGIT_CAP", "STAGE", "IS_CAUSAL",
	"CAUSAL", "QUERY_GROUP_SIZE", "HEAD_DIM", "BLOCK_D", "BLOCK_DMODEL", "D_HEAD", "HEAD_SIZE",
	"BLOCK_DK", "BLOCK_DV", "NUM_QUERIES_PER_KV", NULL,
};

static const char *const seq_params[] = {
	"N_CTX", "S_QO", "S_KV", "SEQ_LEN", "SEQLEN", "SEQLEN_Q", "SEQLEN_K", "N_CTX_Q", "N_CTX_KV",
	"N_CTX_K", "MAX_SEQLEN", "SEQ_LEN_Q", "SEQ_LEN_KV", "SEQ_LEN_K", NULL,
};

bool ta_s8_mode_param(const char *name)
{
	return ta_name_among(name, mode_params);
}

static bool in_key(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->key_count; i++)
		if (!strcmp(a->key[i], name))
			return true;
	return false;
}

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* The value of name comes from the configs or a heuristic, not from the
 * caller: a tuned tile (FlagGems' cross-entropy tunes BLOCK_D over its D
 * dimension), never a head dimension to key on. Launches found in the file
 * that pass every other argument but not this one count too. */
static bool tuned(const ta_model *m, const ta_kernel *k, size_t ki, const char *name)
{
	const ta_autotune *a = k->autotune;
	for (size_t i = 0; i < a->config_count; i++)
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name))
			return true;
	if (in_list(a->varies, a->vary_count, name) || in_list(a->builder_params, a->builder_param_count, name))
		return true;
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (!strcmp(k->heuristics[i].name, name))
			return true;
	const ta_param *p = ta_kernel_param(k, name);
	size_t pi = p ? (size_t)(p - k->params) : 0;
	bool launched = false;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; p && !p->default_value && (l = ta_launch_walk_next(&walk));) {
		char *t = ta_edits_launch_arg(m, l, k, pi);
		if (t) {
			free(t);
			return false;
		}
		launched = true;
	}
	return launched;
}

/* The key already holds a rounded equivalent of length parameter si: a
 * key argument every launch computes from what it passes for the length by
 * `//`, a shift, triton.next_power_of_2 or a rounding function
 * (`CACHE_KEY_SEQLEN_Q = seqlen_q // 32`). Its name, or NULL. */
static const char *rounded_in_key(const ta_model *m, const ta_kernel *k, size_t ki, size_t si)
{
	const ta_autotune *a = k->autotune;
	for (size_t j = 0; j < k->param_count; j++) {
		if (j == si || !in_list(a->key, a->key_count, k->params[j].name))
			continue;
		if (ta_edits_rounds(m, k, ki, si, j))
			return k->params[j].name;
	}
	return NULL;
}

/* A key name that is a sequence length by its name (CACHE_KEY_SEQLEN_Q). */
static bool seq_named(const char *name)
{
	return strcasestr(name, "seqlen") || strcasestr(name, "seq_len") || strcasestr(name, "ctx");
}

/* Whether a sequence length sets how far a loop of the kernel runs: named in
 * a loop's range or condition, or in a value assigned before and named
 * there (`hi = tl.minimum(N_CTX, ...)`). A length that only bounds masks (a
 * chunked scan whose loops run over a fixed chunk) does not move the best
 * config, and putting it in the key would retune for every length. */
/* A min() of the length and a size the key holds (`min(chunk_size, seqlen -
 * pid_c * chunk_size)`): the loop runs over at most that keyed chunk. */
static bool capped_by_key(ta_rule_ctx *c, ta_span s)
{
	const ta_autotune *a = c->k->autotune;
	if (!ta_rule_contains(c, s, "min(") && !ta_rule_contains(c, s, "minimum("))
		return false;
	for (size_t i = 0; i < a->key_count; i++)
		if (ta_rule_mentions(c, s, a->key[i]))
			return true;
	return false;
}

static bool bounds_a_loop(ta_rule_ctx *c, const char *name)
{
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t l = 0; l < k->loop_count; l++) {
		ta_span it = k->loops[l].iter;
		if (!it.end)
			continue;
		if (ta_rule_mentions(c, it, name) && !capped_by_key(c, it))
			return true;
		for (size_t i = 0; i < n; i++)
			if (as[i].stmt.start < it.start && ta_rule_mentions(c, as[i].rhs, name) &&
			    ta_rule_mentions(c, it, as[i].name) && !capped_by_key(c, as[i].rhs))
				return true;
	}
	return false;
}

/* ---- a mode by what it does ---------------------------------------------- */

/* Keywords of triton.language calls that pick the instruction a constexpr
 * compiles to (tl.dot's input_precision=PRECISION). */
static const char *const variant_keywords[] = { "input_precision", "allow_tf32", "precision", NULL };

static bool s8_selects_code(const ta_model *m, int ki, const char *name, int depth);

/* A literal a mode is compared with: a string, True or False (`act ==
 * "relu"`, `PRECISION == "ieee"`). Numbers are sizes, not modes; a value
 * compared with None is an optional value (a dtype the caller may leave
 * out, often one derived from the tensors' dtypes, which the key holds). */
static bool s8_mode_literal(TSNode n)
{
	n = ta_node_unparen(n);
	return ta_node_is(n, "string") || ta_node_is(n, "true") || ta_node_is(n, "false");
}

/* Whether the test cond reads name as a flag: its truth (`if HAS_BIAS`,
 * `not FUSE`, `A and B`) or a comparison with a string or a boolean. A size
 * compared with a number (`if BT > 16`) picks a path by size: keys hold
 * sizes where they move the best tile (the named ones above), not every
 * constexpr so compared. */
static bool s8_flag_test_by(const ta_model *m, TSNode cond, const char *name, bool compared);

static bool s8_flag_test(const ta_model *m, TSNode cond, const char *name)
{
	return s8_flag_test_by(m, cond, name, true);
}

/* compared: a comparison with a string or a boolean counts as well as a
 * truth test. */
static bool s8_flag_test_by(const ta_model *m, TSNode cond, const char *name, bool compared)
{
	ta_walk w;
	ta_walk_start(&w, cond);
	bool hit = false;
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier") && ta_node_text_eq(m->src, x, name)) {
			TSNode p = ta_node_parent(x);
			while (ta_node_is(p, "parenthesized_expression"))
				p = ta_node_parent(p);
			if (ts_node_eq(x, ta_node_unparen(cond)) || ta_node_is(p, "not_operator") ||
			    ta_node_is(p, "boolean_operator"))
				hit = true;
			else if (compared && ta_node_is(p, "comparison_operator"))
				for (uint32_t i = 0; i < ta_node_named_count(p) && !hit; i++)
					hit = s8_mode_literal(ta_node_named_child(p, i));
		}
		if (hit || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return hit;
}

/* Whether [a, b) of kernel ki hands name to a @jit helper whose parameter
 * selects code there. */
static bool s8_passed_to_selecting_helper(const ta_model *m, int ki, const char *name, int depth)
{
	const ta_kernel *k = &m->kernels[ki];
	for (size_t i = 0; i < k->op_count && depth < 3; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_HELPER_CALL || op->helper < 0 || op->helper == ki)
			continue;
		const ta_kernel *h = &m->kernels[op->helper];
		for (size_t j = 0; j < op->arg_count && j < h->param_count; j++)
			if (ta_text_mentions(m->src->text + op->args[j].start, op->args[j].end - op->args[j].start, name) &&
			    s8_selects_code(m, op->helper, h->params[j].name, depth + 1))
				return true;
		for (size_t j = 0; j < op->kwarg_count; j++)
			if (ta_text_mentions(op->kwargs[j].value, strlen(op->kwargs[j].value), name) &&
			    ta_kernel_param(h, op->kwargs[j].name) &&
			    s8_selects_code(m, op->helper, op->kwargs[j].name, depth + 1))
				return true;
	}
	return false;
}

/* Whether the constexpr name of kernel ki selects code: a test of it (if,
 * elif, conditional expression, the condition of a while), a keyword that
 * picks an instruction's variant, or a helper's parameter that does. Such
 * a value compiles a different kernel whose best config may differ. */
/* Whether node a is the name x, as written. */
static bool s8_is_name(const ta_model *m, TSNode a, TSNode x)
{
	if (!ta_node_is(a, "identifier"))
		return false;
	char *t = ta_node_text(m->src, x);
	bool yes = ta_node_text_eq(m->src, a, t);
	free(t);
	return yes;
}

/* Whether e calls anything (`1 + tl.exp(-x)`: a silu, not a scale). */
static bool s8_computes(TSNode e)
{
	if (ta_node_is(e, "call"))
		return true;
	for (uint32_t i = 0; i < ta_node_named_count(e); i++)
		if (s8_computes(ta_node_named_child(e, i)))
			return true;
	return false;
}

/* `x * e`, `x / e` or `tl.maximum(x, e)` (tl.minimum too) of the name x:
 * the value scaled or clamped, nothing else computed from it. */
static bool s8_scales(const ta_model *m, TSNode e, TSNode x)
{
	e = ta_node_unparen(e);
	if (ta_node_is(e, "binary_operator")) {
		TSNode op = ta_node_field(e, "operator");
		return (ta_node_text_eq(m->src, op, "*") || ta_node_text_eq(m->src, op, "/")) &&
		       s8_is_name(m, ta_node_unparen(ta_node_field(e, "left")), x) &&
		       !s8_computes(ta_node_field(e, "right"));
	}
	if (ta_call_named(m, e, "maximum") || ta_call_named(m, e, "minimum")) {
		TSNode args = ta_node_field(e, "arguments");
		return ta_node_named_count(args) == 2 && s8_is_name(m, ta_node_named_child(args, 0), x) &&
		       !s8_computes(ta_node_named_child(args, 1));
	}
	return false;
}

/* A statement that scales or clamps a value in place: `x /= B`, `x *= s`,
 * `x = x / n`, `x = tl.maximum(x, 0.0)`. */
static bool s8_scale_statement(const ta_model *m, TSNode st)
{
	if (!ta_node_is(st, "expression_statement") || ta_node_named_count(st) != 1)
		return false;
	TSNode a = ta_node_named_child(st, 0), left = ta_node_field(a, "left");
	if (!ta_node_is(left, "identifier"))
		return false;
	if (ta_node_is(a, "augmented_assignment")) {
		TSNode op = ta_node_field(a, "operator");
		return ta_node_text_eq(m->src, op, "*=") || ta_node_text_eq(m->src, op, "/=");
	}
	return ta_node_is(a, "assignment") && s8_scales(m, ta_node_field(a, "right"), left);
}

static bool s8_block_scales(const ta_model *m, TSNode block)
{
	uint32_t n = ta_node_named_count(block);
	for (uint32_t i = 0; i < n; i++) {
		TSNode st = ta_node_named_child(block, i);
		if (!ta_node_is(st, "comment") && !s8_scale_statement(m, st))
			return false;
	}
	return n > 0;
}

/* The block of an elif or else arm (tree-sitter names them apart). */
static TSNode s8_arm_block(TSNode arm)
{
	return ta_node_field(arm, ta_node_is(arm, "elif_clause") ? "consequence" : "body");
}

/* A constant of Triton's (`tl.float8e4nv`, `tl.float16`): a name the
 * module triton or triton.language, as the file imports it, holds. */
static bool s8_triton_constant(const ta_model *m, TSNode attr)
{
	TSNode o = ta_node_field(attr, "object");
	while (ta_node_is(o, "attribute"))
		o = ta_node_field(o, "object");
	if (!ta_node_is(o, "identifier"))
		return false;
	const char *t = ta_index_import_target(m, m->src->text + ts_node_start_byte(o), ts_node_end_byte(o) - ts_node_start_byte(o));
	return t && !strncmp(t, "triton", 6);
}

/* Whether the name is the module triton or math, as the file imports it. */
static bool s8_triton_or_math(const ta_model *m, const char *name)
{
	const char *t = ta_index_import_target(m, name, strlen(name));
	return t && (!strcmp(t, "triton") || !strcmp(t, "math"));
}

/* Whether v is computed from a tl.arange, through the names it reads
 * (`offs = start + tl.arange(0, B)`, `pair_idx = offs % H`, then pair_idx). */
static bool s8_from_range(const ta_model *m, TSNode v, int depth)
{
	if (ts_node_is_null(v) || depth > 4)
		return false;
	if (memmem(m->src->text + ts_node_start_byte(v), ts_node_end_byte(v) - ts_node_start_byte(v), "arange(", 7))
		return true;
	bool from = false;
	ta_walk w;
	ta_walk_start(&w, v);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier")) {
			/* any binding of it in the function (one in a loop too) */
			TSNode fn = ta_node_ancestor(x, "function_definition");
			size_t nb = 0;
			const ta_values_binding *b = ta_values_bindings(m, fn, m->src->text + ts_node_start_byte(x),
									ts_node_end_byte(x) - ts_node_start_byte(x), &nb);
			for (size_t i = 0; i < nb && !from; i++)
				from = !b[i].mutation && ta_node_is(b[i].binding, "assignment") &&
				       s8_from_range(m, ta_node_field(b[i].binding, "right"), depth + 1);
		}
		if (from || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return from;
}

/* `x * 2`, `2 * x`, `x << 1`: an index spread over a stride of two or more
 * (an interleave), which lays out the accesses it feeds another way. */
static bool s8_layout_scale(const ta_model *m, TSNode e)
{
	if (!ta_node_is(e, "binary_operator"))
		return false;
	TSNode op = ta_node_field(e, "operator");
	bool mul = ta_node_text_eq(m->src, op, "*"), shl = ta_node_text_eq(m->src, op, "<<");
	if (!mul && !shl)
		return false;
	for (int side = 0; side < 2; side++) {
		TSNode v = ta_node_unparen(ta_node_field(e, side ? "right" : "left"));
		if (!ta_node_is(v, "integer"))
			continue;
		char *t = ta_node_text(m->src, v);
		long n = strtol(t, NULL, 0);
		free(t);
		/* of a range of indices (`pair_idx * 2`), not of a size (`3 * BLOCK`) */
		if (((mul && n >= 2) || (shl && side && n >= 1)) &&
		    s8_from_range(m, ta_node_unparen(ta_node_field(e, side ? "left" : "right")), 0))
			return true;
	}
	return false;
}

/* Calls that cost what an operator costs: a clamp, a select, a rounding,
 * the program's place in the grid. */
static bool s8_cheap_call(const ta_model *m, TSNode call)
{
	static const char *const cheap[] = { "min",  "max",	    "abs",	    "minimum", "maximum",
					     "where", "cdiv", "program_id", "num_programs", NULL };
	TSNode fn = ta_node_field(call, "function");
	if (ta_node_is(fn, "attribute"))
		fn = ta_node_field(fn, "attribute");
	if (!ta_node_is(fn, "identifier"))
		return false;
	char *t = ta_node_text(m->src, fn);
	bool yes = ta_name_among(t, cheap);
	free(t);
	return yes;
}

/* Whether e computes without a call or a broadcast (`BLOCK_N - 1 -
 * array_c`, `(N % BLOCK_N - 1) * H`, `i >= c`): index and offset arithmetic,
 * no load, no math function, no tile laid out another way (`x[:, None]`). */
static bool s8_plain_value(const ta_model *m, TSNode e)
{
	/* an attribute is a dtype or a constant (`tl.float8e4nv if FP8 else
	 * tl.float16`): another kernel, not another index */
	if ((ta_node_is(e, "call") && !s8_cheap_call(m, e)) || ta_node_is(e, "lambda") || ta_node_is(e, "attribute"))
		return false;
	if (ta_node_is(e, "subscript") && ta_text_mentions(m->src->text + ts_node_start_byte(e),
							  ts_node_end_byte(e) - ts_node_start_byte(e), "None"))
		return false;
	if (s8_layout_scale(m, e))
		return false;
	if (ta_node_is(e, "call"))   /* a cheap one: its arguments decide */
		e = ta_node_field(e, "arguments");
	for (uint32_t i = 0; i < ta_node_named_count(e); i++)
		if (!s8_plain_value(m, ta_node_named_child(e, i)))
			return false;
	return true;
}

/* A block that only assigns plain values to names, nested ifs of the same
 * kind included (`stride = -1; array_c = BLOCK_N - 1 - array_c`): a
 * direction or an offset picked, the same work whichever it is. */
static bool s8_block_picks_values(const ta_model *m, TSNode block)
{
	uint32_t n = ta_node_named_count(block);
	for (uint32_t i = 0; i < n; i++) {
		TSNode st = ta_node_named_child(block, i);
		if (ta_node_is(st, "comment") || ta_node_is(st, "pass_statement"))
			continue;
		if (ta_node_is(st, "if_statement")) {
			if (!s8_plain_value(m, ta_node_field(st, "condition")) ||
			    !s8_block_picks_values(m, ta_node_field(st, "consequence")))
				return false;
			for (uint32_t j = 0; j < ta_node_named_count(st); j++) {
				TSNode arm = ta_node_named_child(st, j);
				if ((ta_node_is(arm, "else_clause") || ta_node_is(arm, "elif_clause")) &&
				    (!s8_plain_value(m, ta_node_field(arm, "condition")) ||
				     !s8_block_picks_values(m, s8_arm_block(arm))))
					return false;
			}
			continue;
		}
		if (!ta_node_is(st, "expression_statement") || ta_node_named_count(st) != 1)
			return false;
		TSNode a = ta_node_named_child(st, 0);
		if (!(ta_node_is(a, "assignment") || ta_node_is(a, "augmented_assignment")) ||
		    !ta_node_is(ta_node_field(a, "left"), "identifier") || !s8_plain_value(m, ta_node_field(a, "right")))
			return false;
	}
	return n > 0;
}

/* The lines of b sorted, in place: the work without its order; unique:
 * each line once (a set of names). */
static void s8_sort_lines(ta_buf *b, bool unique)
{
	if (!b->len)
		return;
	size_t n = 0;
	for (size_t i = 0; i < b->len; i++)
		n += b->data[i] == '\n';
	char **lines = ta_xmalloc(n * sizeof *lines), *copy = ta_xstrndup(b->data, b->len);
	size_t k = 0;
	for (char *p = copy, *e; k < n && (e = strchr(p, '\n')); p = e + 1) {
		*e = '\0';
		lines[k++] = p;
	}
	qsort(lines, k, sizeof *lines, ta_strptr_cmp);
	ta_buf_clear(b);
	for (size_t i = 0; i < k; i++)
		if (!unique || !i || strcmp(lines[i], lines[i - 1]))
			ta_buf_printf(b, "%s\n", lines[i]);
	free(lines);
	free(copy);
}

/* The names a block binds, as "a\nb\n" sorted (caller frees), or NULL
 * when it does anything but assign names through cheap calls (a pick). */
static char *s8_pick_names(const ta_model *m, TSNode block)
{
	ta_buf b = TA_BUF_INIT;
	for (uint32_t i = 0; i < ta_node_named_count(block); i++) {
		TSNode st = ta_node_named_child(block, i);
		if (ta_node_is(st, "comment"))
			continue;
		TSNode a = ta_node_is(st, "expression_statement") ? ta_node_named_child(st, 0) : (TSNode){ 0 };
		bool cheap = ta_node_is(a, "assignment") && ta_node_is(ta_node_field(a, "left"), "identifier");
		ta_walk w;
		ta_walk_start(&w, st);
		for (; cheap;) {
			TSNode x = ta_walk_node(&w);
			cheap = !ta_node_is(x, "call") || s8_cheap_call(m, x);
			if (!ta_walk_next(&w, true))
				break;
		}
		ta_walk_finish(&w);
		if (!cheap) {
			ta_buf_free(&b);
			return NULL;
		}
		TSNode l = ta_node_field(a, "left");
		ta_buf_printf(&b, "%.*s\n", (int)(ts_node_end_byte(l) - ts_node_start_byte(l)),
			      m->src->text + ts_node_start_byte(l));
	}
	/* a set: `array = ...; array = tl.where(array >= 0, array, 0) - 1`
	 * binds one name */
	s8_sort_lines(&b, true);
	return ta_buf_steal(&b);
}

/* An if with an else whose every arm only binds the same names through
 * cheap calls (`if last: pos = C - c - 1 else: pos = C - c`): a value
 * picked, the same work whichever arm runs. */
static bool s8_pick(const ta_model *m, TSNode x)
{
	if (!ta_node_is(x, "if_statement"))
		return false;
	char *first = s8_pick_names(m, ta_node_field(x, "consequence"));
	bool pick = first && *first, has_else = false;
	for (uint32_t i = 0; pick && i < ta_node_named_count(x); i++) {
		TSNode arm = ta_node_named_child(x, i);
		if (!ta_node_is(arm, "else_clause") && !ta_node_is(arm, "elif_clause"))
			continue;
		has_else |= ta_node_is(arm, "else_clause");
		char *names = s8_pick_names(m, s8_arm_block(arm));
		pick = names && !strcmp(names, first);
		free(names);
	}
	free(first);
	return pick && has_else;
}

/* The work a statement or an expression does, as the kinds of its
 * statements and the functions it calls, in order (`diff = tl.where(a <
 * b, ...)` and `diff = tl.where(a > b, ...)` alike): two arms alike in it do
 * the same work on other operands (a direction, a triangle, a start).
 * calls_only: the calls, the loops and the names bound to computed values,
 * one a line, with a value an inner if picks left out (s8_pick). */
static void s8_work_shape(const ta_model *m, TSNode n, bool calls_only, ta_buf *out)
{
	ta_walk w;
	ta_walk_start(&w, n);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "call") && !s8_cheap_call(m, x)) {
			TSNode fn = ta_node_field(x, "function");
			ta_buf_printf(out, "(%.*s\n", (int)(ts_node_end_byte(fn) - ts_node_start_byte(fn)),
				      m->src->text + ts_node_start_byte(fn));
		} else if (ta_node_is(x, "for_statement") || ta_node_is(x, "while_statement") ||
			   (!calls_only && ts_node_is_named(x) &&
			    (ta_node_is(x, "if_statement") || ta_node_is(x, "return_statement") ||
			     ta_node_is(x, "expression_statement")))) {
			ta_buf_printf(out, ";%s\n", ts_node_type(x));
		} else if ((ta_node_is(x, "assignment") || ta_node_is(x, "augmented_assignment")) &&
			   (!calls_only || !s8_plain_value(m, ta_node_field(x, "right")))) {
			TSNode l = ta_node_field(x, "left");
			ta_buf_printf(out, "=%.*s\n", (int)(ts_node_end_byte(l) - ts_node_start_byte(l)),
				      m->src->text + ts_node_start_byte(l));
		} else if (ta_node_is(x, "attribute") && !ta_node_is(ta_node_parent(x), "call") &&
			   !ta_node_is(ta_node_parent(x), "attribute") && s8_triton_constant(m, x)) {
			/* a dtype or a constant picked (`tl.float8e4nv`) */
			ta_buf_printf(out, ".%.*s\n", (int)(ts_node_end_byte(x) - ts_node_start_byte(x)),
				      m->src->text + ts_node_start_byte(x));
		} else if (s8_layout_scale(m, x)) {
			ta_buf_printf(out, "*%.*s\n", (int)(ts_node_end_byte(x) - ts_node_start_byte(x)),
				      m->src->text + ts_node_start_byte(x));
		} else if (ta_node_is(x, "keyword_argument") &&
			   (ta_node_text_eq(m->src, ta_node_field(x, "name"), "strides") ||
			    ta_node_text_eq(m->src, ta_node_field(x, "name"), "order"))) {
			/* a block pointer read the other way round: a layout */
			TSNode v = ta_node_field(x, "value");
			ta_buf_printf(out, "@%.*s\n", (int)(ts_node_end_byte(v) - ts_node_start_byte(v)),
				      m->src->text + ts_node_start_byte(v));
		}
		/* loose: a value picked by an inner if is no work of its own */
		if (!ta_walk_next(&w, !(calls_only && s8_pick(m, x))))
			break;
	}
	ta_walk_finish(&w);
}

/* Whether a and b do the same work: alike in s8_work_shape; or, loose,
 * making the same calls, picking the same constants and binding the same
 * names to computed values (not to plain index arithmetic) in any order
 * and among any statements (`if last: pos = C - c - 1 else: pos = C - c`
 * then `q = tl.exp(a * pos)` beside `q = tl.exp(a * (c + 1))`: an offset
 * picked before the same formula). */
static bool s8_same_work_by(const ta_model *m, TSNode a, TSNode b, bool loose)
{
	ta_buf x = TA_BUF_INIT, y = TA_BUF_INIT;
	s8_work_shape(m, a, loose, &x);
	s8_work_shape(m, b, loose, &y);
	if (loose) {
		s8_sort_lines(&x, false);
		s8_sort_lines(&y, false);
	}
	bool same = x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len));
	ta_buf_free(&x);
	ta_buf_free(&y);
	return same;
}

static bool s8_same_work(const ta_model *m, TSNode a, TSNode b)
{
	return s8_same_work_by(m, a, b, false);
}

/* An if with an else whose arms all do the same work (s8_work_shape). */
static bool s8_mirror_arms(const ta_model *m, TSNode top)
{
	TSNode first = ta_node_field(top, "consequence");
	bool has_else = false, same = true;
	for (uint32_t i = 0; same && i < ta_node_named_count(top); i++) {
		TSNode arm = ta_node_named_child(top, i);
		if (ta_node_is(arm, "else_clause") || ta_node_is(arm, "elif_clause")) {
			has_else |= ta_node_is(arm, "else_clause");
			same = s8_same_work_by(m, first, s8_arm_block(arm), true);
		}
	}
	return has_else && same;
}

/* The innermost for or while around n inside its function, or a null
 * node. */
static TSNode s8_loop_around(TSNode n)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
	     p = ta_node_parent(p))
		if (ta_node_is(p, "for_statement") || ta_node_is(p, "while_statement"))
			return p;
	return (TSNode){ 0 };
}

/* The flag an if tests alone, `F` (*yes true) or `not F`, or a null
 * node. */
static TSNode s8_bare_flag(TSNode cond, bool *yes)
{
	cond = ta_node_unparen(cond);
	*yes = ta_node_is(cond, "identifier");
	if (*yes)
		return cond;
	if (ta_node_is(cond, "not_operator")) {
		TSNode a = ta_node_unparen(ta_node_field(cond, "argument"));
		if (ta_node_is(a, "identifier"))
			return a;
	}
	return (TSNode){ 0 };
}

/* x, an if without else on `F` (or `not F`), has a twin in the same loop:
 * an if without else on `not F` (or `F`) whose body does the same work
 * (`if not REVERSE: load` before the update, `if REVERSE: load` after it):
 * each mode does that work once per step, in another place. */
static bool s8_placed_elsewhere(const ta_model *m, TSNode x)
{
	bool yes;
	TSNode flag = s8_bare_flag(ta_node_field(x, "condition"), &yes);
	TSNode fn = ta_node_ancestor(x, "function_definition");
	if (ts_node_is_null(flag) || ts_node_is_null(fn) || !ts_node_is_null(ta_node_field(x, "alternative")))
		return false;
	TSNode loop = s8_loop_around(x);
	bool twin = false;
	/* the twin is looked for among the first 64 ifs of the body only: a
	 * kernel of thousands of flag tests stays linear */
	int seen = 0;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fn, "body"));
	for (;;) {
		TSNode y = ta_walk_node(&w);
		if (ta_node_is(y, "if_statement") && ++seen > 64)
			break;
		bool other;
		TSNode f = ta_node_is(y, "if_statement") && !ts_node_eq(x, y) &&
				   ts_node_is_null(ta_node_field(y, "alternative"))
				   ? s8_bare_flag(ta_node_field(y, "condition"), &other)
				   : (TSNode){ 0 };
		twin = !ts_node_is_null(f) && other != yes && s8_is_name(m, f, flag) &&
		       ts_node_eq(s8_loop_around(y), loop) &&
		       s8_same_work(m, ta_node_field(x, "consequence"), ta_node_field(y, "consequence"));
		if (twin || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return twin;
}

/* Whether what the test of x (an if or a conditional expression) selects
 * may cost differently: anything but scaling or clamping a value (`if
 * reduction == "mean": x /= B`, `x = x / n if MEAN else x`, a relu's
 * tl.maximum), which costs the same in every config, so that the best
 * config is the same in both modes. A dtype, an address or any other
 * computation it picks counts as work. */
static bool s8_selects_work(const ta_model *m, TSNode x)
{
	if (ta_node_is(x, "conditional_expression") && ta_node_named_count(x) == 3) {
		TSNode a = ta_node_unparen(ta_node_named_child(x, 0)), b = ta_node_unparen(ta_node_named_child(x, 2));
		return !((ta_node_is(b, "identifier") && s8_scales(m, a, b)) ||
			 (ta_node_is(a, "identifier") && s8_scales(m, b, a)) ||
			 (s8_plain_value(m, a) && s8_plain_value(m, b)) || s8_same_work(m, a, b));
	}
	if (ta_node_is(x, "if_statement") || ta_node_is(x, "elif_clause")) {
		/* every arm picks plain values: the same work in each mode */
		TSNode top = x;
		while (ta_node_is(top, "elif_clause"))
			top = ta_node_parent(top);
		bool plain = ta_node_is(top, "if_statement") &&
			     s8_block_picks_values(m, ta_node_field(top, "consequence"));
		for (uint32_t i = 0; plain && i < ta_node_named_count(top); i++) {
			TSNode arm = ta_node_named_child(top, i);
			if (ta_node_is(arm, "else_clause") || ta_node_is(arm, "elif_clause"))
				plain = s8_block_picks_values(m, s8_arm_block(arm));
		}
		if (plain || (ta_node_is(top, "if_statement") &&
			      (s8_mirror_arms(m, top) || s8_placed_elsewhere(m, top))))
			return false;
		if (ta_node_is(x, "elif_clause"))
			return true;
	}
	if (!ta_node_is(x, "if_statement") || !s8_block_scales(m, ta_node_field(x, "consequence")))
		return true;
	for (uint32_t i = 0; i < ta_node_named_count(x); i++) {
		TSNode arm = ta_node_named_child(x, i);
		if ((ta_node_is(arm, "else_clause") || ta_node_is(arm, "elif_clause")) &&
		    !s8_block_scales(m, s8_arm_block(arm)))
			return true;
	}
	return false;
}

static bool s8_selects_code(const ta_model *m, int ki, const char *name, int depth)
{
	const ta_kernel *k = &m->kernels[ki];
	for (size_t i = 0; i < k->op_count; i++)
		for (size_t j = 0; j < k->ops[i].kwarg_count; j++)
			if (ta_name_among(k->ops[i].kwargs[j].name, variant_keywords) &&
			    ta_text_mentions(k->ops[i].kwargs[j].value, strlen(k->ops[i].kwargs[j].value), name))
				return true;
	TSNode body = ta_node_field(k->node, "body");
	if (ts_node_is_null(body))
		return false;
	ta_walk w;
	ta_walk_start(&w, body);
	bool hit = false;
	for (;;) {
		TSNode x = ta_walk_node(&w);
		TSNode cond = { 0 };
		if (ta_node_is(x, "if_statement") || ta_node_is(x, "elif_clause") || ta_node_is(x, "while_statement"))
			cond = ta_node_field(x, "condition");
		else if (ta_node_is(x, "conditional_expression") && ta_node_named_count(x) == 3)
			cond = ta_node_named_child(x, 1);
		hit = !ts_node_is_null(cond) && s8_flag_test(m, cond, name) && s8_selects_work(m, x);
		if (hit || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return hit || s8_passed_to_selecting_helper(m, ki, name, depth);
}

/* What one launch passes for a flag makes it one value per process or one
 * that Triton's key already tells apart:
 *   1  a literal (True, 3, "relu"): one mode at this launch;
 *   2  a module-level name or an import (`GATHER_SUPPORTED=IS_GATHER_SUPPORTED`):
 *      the same value at every call of the process;
 *   3  `x is not None` (or `is None`) of a tensor x the same launch passes:
 *      the autotuner appends the dtype of every argument that has one, and
 *      None has none, so the two modes already have keys of their own;
 *   4  the same test of an x the launch does not pass as such (a stand-in
 *      tensor goes when x is None): the key cannot tell the modes apart;
 *   0  anything else (a caller's argument, a computed value). */
static int s8_launch_value(const ta_model *m, const ta_launch *l, const char *t)
{
	size_t n = strlen(t);
	char *num_end = NULL;
	if (isdigit((unsigned char)t[0]))
		(void)strtod(t, &num_end);     /* `3`, not `3 if causal else 1` */
	if ((num_end && !*num_end) || !strcmp(t, "True") || !strcmp(t, "False") ||
	    ((t[0] == '"' || t[0] == '\'') && n > 1 && t[n - 1] == t[0] && !memchr(t + 1, t[0], n - 2)))
		return 1;
	bool ident = n && !isdigit((unsigned char)t[0]);
	for (size_t i = 0; i < n && ident; i++)
		ident = isalnum((unsigned char)t[i]) || t[i] == '_';
	if (ident) {
		const ta_host *h = l->host >= 0 ? &m->hosts[l->host] : NULL;
		for (size_t i = 0; h && i < h->param_count; i++)
			if (!strcmp(h->params[i], t))
				return 0;
		if (h && h->span.end > h->span.start) {
			/* bound in the function that launches: a value of this call */
			char *assign = ta_xasprintf("%s =", t);
			bool local = false;
			for (const char *at = m->src->text + h->span.start, *end = m->src->text + h->span.end;
			     (at = strstr(at, assign)) && at < end; at++)
				if (at == m->src->text || !(isalnum((unsigned char)at[-1]) || at[-1] == '_' || at[-1] == '.'))
					local = true;
			free(assign);
			if (local)
				return 0;
		}
		if (ta_index_module_assign(m, t) != UINT32_MAX)
			return 2;
		for (size_t i = 0; i < m->import_count; i++)
			if (!strcmp(m->imports[i].alias, t))
				return 2;
		return 0;
	}
	const char *is = strstr(t, " is ");
	if (!is)
		return 0;
	const char *rest = is + 4;
	if (!strncmp(rest, "not ", 4))
		rest += 4;
	if (strcmp(rest, "None"))
		return 0;
	char *x = ta_xstrndup(t, (size_t)(is - t));
	bool passed = false;
	for (size_t i = 0; i < l->arg_count && !passed; i++)
		passed = l->args[i].end - l->args[i].start == strlen(x) &&
			 !memcmp(m->src->text + l->args[i].start, x, strlen(x));
	for (size_t i = 0; i < l->kwarg_count && !passed; i++)
		passed = !strcmp(l->kwargs[i].value, x);
	free(x);
	/* 4: the flag says whether x is given, and x itself is not passed (a
	 * stand-in tensor goes instead: `bias if bias is not None else x`) */
	return passed ? 3 : 4;
}

/* Whether name is called in v as a function that gives one value per
 * argument: Triton's, math's, a builtin, or the project's own arithmetic
 * (`next_power_of_two(d)`, defined in this file or imported from a module
 * of the package: ta_reexport_pure_function), not one that may read a
 * setting. */
static bool s8_pure_function(const ta_model *m, const char *name)
{
	static const char *const pure[] = { "min", "max", "abs", "int", "bool", "round", NULL };
	if (ta_name_among(name, pure))
		return true;
	const char *target = ta_index_import_target(m, name, strlen(name));
	if (target) {
		if (s8_triton_or_math(m, name))
			return true;
		const ta_import *im = NULL;
		(void)ta_index_import_of(m, target, &im);
		size_t fl = im && im->from ? strlen(im->from) : 0;
		const char *orig = fl && !strncmp(target, im->from, fl) && target[fl] == '.' ? target + fl + 1 : name;
		return fl && ta_reexport_pure_function(m->src->path, im->from, orig);
	}
	for (size_t f = 0; f < m->function_count; f++)
		if (m->functions[f].kernel < 0 && m->functions[f].parent < 0 && !strcmp(m->functions[f].name, name))
			return ta_reexport_pure_def(m->src, m->functions[f].node);
	return false;
}

/* Whether every read of name in v is an attribute of it that attr_ok
 * accepts (`x.dtype`, `torch.bfloat16`), and there is one. */
static bool s8_reads_attrs_only(const ta_model *m, TSNode v, const char *name, bool (*attr_ok)(const char *))
{
	bool only = true, any = false;
	ta_walk w;
	ta_walk_start(&w, v);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier") && ta_node_text_eq(m->src, x, name)) {
			TSNode p = ta_node_parent(x);
			any = true;
			only = ta_node_is(p, "attribute") && ts_node_eq(x, ta_node_field(p, "object"));
			if (only) {
				char *a = ta_node_text(m->src, ta_node_field(p, "attribute"));
				only = attr_ok(a);
				free(a);
			}
		}
		if (!only || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return any && only;
}

static bool s8_dtype_query(const char *attr)
{
	static const char *const dtype_attrs[] = { "dtype", "element_size", "itemsize", NULL };
	return ta_name_among(attr, dtype_attrs);
}

static bool s8_torch_dtype_name(const char *attr)
{
	static const char *const prefixes[] = { "float", "bfloat", "half", "int", "uint", "bool", "complex", NULL };
	for (size_t i = 0; prefixes[i]; i++)
		if (!strncmp(attr, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* Whether every read of name in v asks for its dtype (`x.element_size()`,
 * `x.dtype`, `x.itemsize`). */
static bool s8_reads_dtype_only(const ta_model *m, TSNode v, const char *name)
{
	return s8_reads_attrs_only(m, v, name, s8_dtype_query);
}

/* Whether name is the module torch, as the file imports it, and every read
 * of it in v names a dtype (`out.dtype == torch.bfloat16`): a constant. */
static bool s8_torch_dtypes_only(const ta_model *m, TSNode v, const char *name)
{
	const char *t = ta_index_import_target(m, name, strlen(name));
	return t && !strcmp(t, "torch") && s8_reads_attrs_only(m, v, name, s8_torch_dtype_name);
}

/* Whether launch l passes name for a parameter of k the autotune key holds. */
static bool s8_launch_passes(const ta_model *m, const ta_launch *l, const ta_kernel *k, const char *name)
{
	bool passed = false;
	for (size_t j = 0; j < k->param_count && !passed; j++) {
		if (!in_key(k->autotune, k->params[j].name))
			continue;
		char *t = ta_edits_launch_arg(m, l, k, j);
		passed = t && !strcmp(t, name);
		free(t);
	}
	return passed;
}

/* Whether launch l passes the tensor name or a view of it (`x_ =
 * x.reshape(-1, d)`, then X=x_): the same dtype either way. */
static bool s8_launch_passes_view(const ta_model *m, const ta_launch *l, const ta_kernel *k, const char *name)
{
	bool passed = false;
	for (size_t j = 0; j < k->param_count && !passed; j++) {
		bool kw;
		TSNode v = ta_values_launch_arg(m, l, k, j, &kw);
		if (ts_node_is_null(v))
			continue;
		v = ta_values_follow(m, v);
		/* x.reshape(-1, d).contiguous(): down to x */
		while (ta_node_is(v, "call") || ta_node_is(v, "attribute"))
			v = ta_node_is(v, "call") ? ta_node_field(v, "function") : ta_node_field(v, "object");
		passed = ta_node_is(v, "identifier") && ta_node_text_eq(m->src, v, name);
	}
	return passed;
}

/* Whether the value v, at launch l, is computed from what the launch
 * passes for the autotune key alone: names it passes there, the dtypes of
 * tensors it passes (the autotuner appends them to the key), through the
 * functions s8_pure_function accepts and the local names that hold such
 * values (`MAX_FUSED = 65536 // x.element_size()`, then `BLOCK_D =
 * min(MAX_FUSED, triton.next_power_of_2(d))` beside D=d in the key): each
 * key gets one value, so the key separates the modes already. */
static bool s8_decided_by_key(const ta_model *m, const ta_launch *l, const ta_kernel *k, TSNode v, int depth)
{
	v = ta_values_follow(m, v);   /* `masked = M % 64 != 0`, then masked */
	char **names;
	size_t n = ta_edits_names(m, v, &names);
	bool all = n > 0;
	size_t read = 0;
	for (size_t i = 0; i < n && all; i++) {
		TSNode at = ta_node_find_identifier(m->src, v, names[i]);
		TSNode p = ts_node_is_null(at) ? at : ta_node_parent(at);
		bool called = ta_node_is(p, "call") && ts_node_eq(at, ta_node_field(p, "function"));
		if (s8_triton_or_math(m, names[i]) || (called && s8_pure_function(m, names[i])) ||
		    s8_torch_dtypes_only(m, v, names[i]))
			continue;
		read++;
		if (s8_launch_passes(m, l, k, names[i]))
			continue;
		if (s8_reads_dtype_only(m, v, names[i]) && s8_launch_passes_view(m, l, k, names[i]))
			continue;
		TSNode next = ts_node_is_null(at) || depth >= 3 ? (TSNode){ 0 } : ta_values_follow(m, at);
		all = !ts_node_is_null(next) && !ts_node_eq(next, at) && s8_decided_by_key(m, l, k, next, depth + 1);
	}
	ta_edits_names_free(names, n);
	return all && read > 0;
}

/* The launch's value for parameter pi is computed from what it passes for
 * the autotune key alone (s8_decided_by_key: `triton.next_power_of_2(d)`
 * beside head_size=d; Fast-LLM's `not (row_dim % 128 == col_dim % 256 ==
 * inner_dim % 64 == 0)` beside row_dim, col_dim and inner_dim in the key). */
static bool s8_key_decides(const ta_model *m, const ta_launch *l, const ta_kernel *k, size_t pi)
{
	bool kw;
	TSNode v = k->autotune ? ta_values_launch_arg(m, l, k, pi, &kw) : (TSNode){ 0 };
	return !ts_node_is_null(v) && s8_decided_by_key(m, l, k, v, 0);
}

/* What the file's launches show of parameter pi: ONE_MODE when every
 * launch passes a value that is one mode or one Triton's key already
 * separates (s8_launch_value; the literals agreeing), STAND_IN when one
 * passes a presence test of a tensor it replaces by a stand-in, else
 * UNKNOWN (no launch, or values computed elsewhere). */
enum { S8_UNKNOWN, S8_ONE_MODE, S8_STAND_IN };

static int s8_launches_show(const ta_model *m, const ta_kernel *k, size_t ki, size_t pi)
{
	char *first = NULL;
	bool one = true, any = false, stand_in = false;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		char *t = ta_edits_launch_arg(m, l, k, pi);
		int kind = t ? s8_launch_value(m, l, t) : 0;
		if (kind == 0 && t && s8_key_decides(m, l, k, pi))
			kind = 5;   /* one mode per key: separated already */
		stand_in |= kind == 4;
		one &= kind != 0 && kind != 4 && (kind != 1 || !first || !strcmp(first, t));
		any = true;
		if (kind == 1 && !first)
			first = t;
		else
			free(t);
	}
	/* No launch resolves to the kernel (it is launched through a name
	 * bound to one of several, `fn = A if c else B`): the file's launches
	 * that pass the parameter by its keyword stand for them. */
	bool resolved = any;
	for (size_t i = 0; !resolved && i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, k->params[pi].name);
		if (!kw)
			continue;
		int kind = s8_launch_value(m, l, kw->value);
		stand_in |= kind == 4;
		one &= kind != 0 && kind != 4 && (kind != 1 || !first || !strcmp(first, kw->value));
		if (kind == 1 && !first)
			first = ta_xstrdup(kw->value);
		any = true;
	}
	free(first);
	/* passed nowhere in the file, with a default that is a literal or a
	 * module-level value (`GATHER_SUPPORTED: tl.constexpr =
	 * IS_GATHER_SUPPORTED`): the one value the file shows */
	const char *dflt = k->params[pi].default_value;
	if (!any && dflt) {
		ta_launch none = { .host = -1 };
		int kind = s8_launch_value(m, &none, dflt);
		if (kind == 1 || kind == 2)
			return S8_ONE_MODE;
	}
	return stand_in ? S8_STAND_IN : any && one ? S8_ONE_MODE : S8_UNKNOWN;
}

/* Reads of name in kernel ki's body, split by whether they fall in what a
 * truth test of flag selects (the arms of an if or a conditional expression
 * on it); a mode compared with strings guards no tensor's presence. */
static void s8_reads_under(const ta_model *m, const ta_kernel *k, const char *flag, const char *name,
			   size_t *under, size_t *outside)
{
	TSNode body = ta_node_field(k->node, "body");
	*under = *outside = 0;
	if (ts_node_is_null(body))
		return;
	/* the selected ranges, at most 32 */
	uint32_t from[32], to[32];
	size_t nr = 0;
	ta_walk w;
	ta_walk_start(&w, body);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		TSNode cond = { 0 };
		uint32_t a = 0, b = 0;
		if (ta_node_is(x, "if_statement")) {
			cond = ta_node_field(x, "condition");
			a = ts_node_end_byte(cond);
			b = ts_node_end_byte(x);
		} else if (ta_node_is(x, "conditional_expression") && ta_node_named_count(x) == 3) {
			cond = ta_node_named_child(x, 1);
			a = ts_node_start_byte(x);
			b = ts_node_end_byte(x);
		}
		if (!ts_node_is_null(cond) && nr < 32 && s8_flag_test_by(m, cond, flag, false)) {
			from[nr] = a;
			to[nr++] = b;
		}
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	ta_walk_start(&w, body);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier") && ta_node_text_eq(m->src, x, name)) {
			uint32_t at = ts_node_start_byte(x);
			bool in = false;
			for (size_t i = 0; i < nr && !in; i++)
				in = at >= from[i] && at < to[i];
			(*(in ? under : outside))++;
		}
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
}

/* The flag guards an optional tensor: some pointer parameter (one that is
 * not constexpr) is read only where the flag selects. Such flags are the
 * caller's `x is not None`; passed None, the tensor adds no dtype to the
 * autotuner's key, so the two modes are tuned apart already. */
static bool s8_guards_optional(const ta_model *m, const ta_kernel *k, const char *flag)
{
	for (size_t i = 0; i < k->param_count; i++) {
		if (k->params[i].constexpr_ || !strcmp(k->params[i].name, flag))
			continue;
		size_t under, outside;
		s8_reads_under(m, k, flag, k->params[i].name, &under, &outside);
		if (under && !outside)
			return true;
	}
	return false;
}

/* A constexpr parameter the kernel reads that is a mode of it: named as
 * one (HEAD_DIM, STAGE, ...), or a flag selecting code by what it does
 * (HAS_BIAS, FUSE_ADD, a precision), unless the file's launches show it
 * one mode or one the autotuner's own key separates, or, for a flag,
 * where they show no stand-in tensor, it only guards an optional tensor. */
static bool s8_mode(ta_rule_ctx *c, size_t pi)
{
	const ta_param *p = &c->k->params[pi];
	if (!p->constexpr_ || !ta_rule_kernel_reads(c->m, c->k, p->name))
		return false;
	int shown = s8_launches_show(c->m, c->k, (size_t)c->kernel, pi);
	/* a mode by name: unless this kernel's own launches show one value */
	if (ta_s8_mode_param(p->name))
		return c->k->launch_count == 0 || shown != S8_ONE_MODE;
	if (!s8_selects_code(c->m, c->kernel, p->name, 0))
		return false;
	if (shown == S8_ONE_MODE)
		return false;
	return shown == S8_STAND_IN || !s8_guards_optional(c->m, c->k, p->name);
}

/* What the key of c's kernel lacks, as "A, B" (caller frees), or NULL:
 * mode parameters the configs do not set, and sequence lengths that set how
 * far a loop runs when the key holds no length, not even a rounded one. */
static char *s8_missing(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_autotune *a = k->autotune;
	size_t ki = (size_t)c->kernel;
	ta_buf missing = TA_BUF_INIT;
	bool seq_in_key = false, has_seq = false;
	for (size_t i = 0; i < k->param_count; i++)
		if (ta_name_among(k->params[i].name, seq_params)) {
			has_seq = true;
			seq_in_key |= in_key(a, k->params[i].name);
		}
	for (size_t i = 0; i < a->key_count; i++)
		seq_in_key |= seq_named(a->key[i]);
	/* a length the author keeps out of specialisation (one compiled kernel
	 * for every length) is deliberate: keying on it would retune per length */
	const ta_kwarg *dns = ta_kwarg_find(k->jit_kwargs, k->jit_kwarg_count, "do_not_specialize");
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		bool mode = s8_mode(c, i);
		bool seq = !seq_in_key && has_seq && ta_name_among(p->name, seq_params) &&
			   !(dns && ta_edits_word_in(dns->value, strlen(dns->value), p->name)) &&
			   bounds_a_loop(c, p->name) && !rounded_in_key(c->m, k, ki, i);
		if ((mode || seq) && !in_key(a, p->name) && !tuned(c->m, k, ki, p->name))
			ta_buf_printf(&missing, "%s%s", missing.len ? ", " : "", p->name);
	}
	return missing.len ? ta_buf_steal(&missing) : (ta_buf_free(&missing), NULL);
}

/* Every loop in n runs over a literal of one item (`for s in [4]`). */
static bool s8_single_sweeps(TSNode n)
{
	if ((ta_node_is(n, "for_in_clause") || ta_node_is(n, "for_statement")) &&
	    !ta_node_one_item_literal(ta_node_field(n, "right")))
		return false;
	uint32_t nc = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < nc; i++)
		if (!s8_single_sweeps(ts_node_named_child(n, i)))
			return false;
	return true;
}

/* The autotune tries one config: a list of one written in the decorator,
 * one Config in loops over one value each (the model sweeps nothing
 * there), or a module variable bound once to such a list (one bound on
 * each arm of a back-end test may hold more on the other). */
static bool s8_one_config(const ta_model *m, const ta_autotune *a)
{
	if (a->config_count != 1 || a->vary_count || a->tuners != 1)
		return false;
	if (a->configs_kind == TA_CONFIGS_LIST)
		return true;
	if (a->configs_kind == TA_CONFIGS_FUNCTION || a->configs_kind == TA_CONFIGS_COMPREHENSION) {
		TSNode n = ta_edits_configs_node(m, a);
		return !ts_node_is_null(n) && s8_single_sweeps(n);
	}
	if (a->configs_kind != TA_CONFIGS_NAME)
		return false;
	char *name = ta_edits_text(m, a->configs_span.start, a->configs_span.end);
	size_t n = 0;
	ta_values_bindings(m, (TSNode){ 0 }, name, strlen(name), &n);
	free(name);
	return n == 1;
}

/* The key's entries that name no parameter of k, as "A, B" (caller frees),
 * or NULL: Triton's tuner keeps only the arguments it finds by name, so
 * such an entry keys on nothing (a flag renamed or moved to another
 * kernel, a dimension the kernel computes). */
static char *s8_stray(const ta_kernel *k)
{
	const ta_autotune *a = k->autotune;
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < a->key_count; i++)
		if (!ta_kernel_param(k, a->key[i]))
			ta_buf_printf(&b, "%s%s", b.len ? ", " : "", a->key[i]);
	return b.len ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
}

ta_status ta_detect_s8(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_autotune *a = k->autotune;
	if (!a)
		return TA_STATUS_NOT_APPLICABLE;
	/* One config: Triton's tuner neither keys nor benchmarks it, so no
	 * mode can share a stale choice (P1 is what widens the list). */
	if (s8_one_config(c->m, a))
		return TA_STATUS_NOT_APPLICABLE;
	char *lacks = s8_missing(c);
	char *stray = s8_stray(k);
	ta_status s = TA_STATUS_SATISFIED;
	if (lacks || stray) {
		ta_span where = a->key_span.end ? a->key_span : a->span;
		char *key = a->key_span.end ? ta_rule_text(c, a->key_span) : ta_xstrdup("(none)");
		ta_buf msg = TA_BUF_INIT;
		ta_buf_printf(&msg, "autotune key %s of `%s` ", key, k->name);
		if (lacks)
			ta_buf_printf(&msg, "lacks %s: modes share one tuned config%s", lacks, stray ? "; it " : "");
		if (stray)
			ta_buf_printf(&msg, "names %s, no parameter of the kernel: Triton skips %s", stray,
				      strchr(stray, ',') ? "those entries" : "that entry");
		ta_finding *f = ta_rule_add(c, where, "%s", ta_buf_str(&msg));
		ta_finding_line(f, a->span.line);
		ta_buf_free(&msg);
		free(key);
		s = TA_STATUS_APPLIES;
	}
	free(lacks);
	free(stray);
	return s;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Rewrite: add the missing constexpr names to the autotune key. */
TA_REWRITE(S8, NULL, TA_SAFE)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		const ta_autotune *a = k->autotune;
		if (!a || (line && !ta_edits_at_line(k->span, line) && !ta_edits_at_line(a->span, line)))
			continue;
		/* A new key is a new tuning: its trial launches run on the
		 * caller's tensors, so a kernel that reads and writes one needs
		 * the autotune to restore it (restore_value, reset_to_zero). */
		uint32_t wline;
		bool *restore = ta_rule_tuner_restores(m, k, &wline);
		const ta_kwarg *rv = ta_kwarg_find(a->kwargs, a->kwarg_count, "restore_value");
		const ta_kwarg *rz = ta_kwarg_find(a->kwargs, a->kwarg_count, "reset_to_zero");
		const char *unrestored = NULL;
		for (size_t i = 0; i < k->param_count && !unrestored; i++)
			if (restore[i] && !(rv && ta_edits_word_in(rv->value, strlen(rv->value), k->params[i].name)) &&
			    !(rz && ta_edits_word_in(rz->value, strlen(rz->value), k->params[i].name)))
				unrestored = k->params[i].name;
		free(restore);
		if (unrestored) {
			ta_sites_refuse(&s, ta_xasprintf("line %u: %s reads and writes `%s`, which its autotune does not "
							 "restore: a wider key would tune again on the caller's data (add "
							 "restore_value first)", wline, k->name, unrestored));
			continue;
		}
		TSNode list = a->key_span.end > a->key_span.start ? ta_edits_node(m, a->key_span) : (TSNode){ 0 };
		if (!ta_node_is(list, "list")) {
			ta_sites_refuse(&s, ta_xasprintf("%s: the autotune key is not a literal list", k->name));
			continue;
		}
		ta_buf add = TA_BUF_INIT;
		char quote = '"';
		uint32_t n = ta_node_named_count(list);
		TSNode last = { 0 };
		for (uint32_t i = 0; i < n; i++) {
			TSNode c = ta_node_named_child(list, i);
			if (ta_node_is(c, "comment"))
				continue;
			if (ts_node_is_null(last) && ta_node_is(c, "string"))
				quote = m->src->text[ts_node_start_byte(c)];
			last = c;
		}
		if (quote != '\'' && quote != '"')
			quote = '"';
		/* exactly what the detector reports the key lacks */
		ta_rule_ctx rc = { .m = m, .k = k, .kernel = (int)ki };
		char *lacks = s8_missing(&rc);
		ta_rule_ctx_release(&rc);
		size_t added = 0;
		for (char *tok = lacks, *save = NULL; lacks && (tok = strtok_r(tok, ", ", &save)); tok = NULL) {
			ta_buf_printf(&add, "%s%c%s%c", ts_node_is_null(last) && added == 0 ? "" : ", ", quote, tok,
				      quote);
			added++;
		}
		free(lacks);
		if (added == 0) {
			ta_buf_free(&add);
			char *stray = s8_stray(k);
			ta_sites_refuse(&s, stray ? ta_xasprintf("%s: the autotune key lacks no mode parameter; the entries "
								 "naming no parameter (%s) are for a person to rename or "
								 "drop: Triton skips them", k->name, stray)
						  : ta_xasprintf("%s: the autotune key lacks no mode parameter or loop-bounding length", k->name));
			free(stray);
			continue;
		}
		uint32_t at = ts_node_is_null(last) ? ts_node_start_byte(list) + 1 : ts_node_end_byte(last);
		ta_edit_replace(out, at, at, ta_buf_str(&add));
		ta_edit_set_title(out, "add %s to %s's autotune key", ta_buf_str(&add) + (ts_node_is_null(last) ? 0 : 2),
				  k->name);
		out->line = a->key_span.line;
		ta_buf_free(&add);
		return ta_sites_done(&s);
	}
	return ta_sites_end(&s, why_not, line, "no autotuned kernel");
}
