/* P5: Large descriptor store without subtiling.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The last block dimension of the descriptor a store writes through, as the
 * name of a parameter (caller frees), or NULL when it is not visible. */
static char *store_block_width(ta_rule_ctx *c, const ta_op *store)
{
	if (!store->receiver)
		return NULL;
	const ta_op *d = ta_op_defining(c->k, store->receiver, store->span.start);
	if (!d || d->kind != TA_OP_MAKE_DESCRIPTOR)
		return NULL;
	const ta_kwarg *kw = ta_kwarg_find(d->kwargs, d->kwarg_count, "block_shape");
	TSNode list = kw ? ta_rule_node(c, kw->value_span) : d->arg_count >= 4 ? ta_rule_node(c, d->args[3]) :
		      (TSNode){ 0 };
	uint32_t n = ta_node_is(list, "list") || ta_node_is(list, "tuple") ? ta_node_named_count(list) : 0;
	if (!n)
		return NULL;
	return ta_node_text(c->m->src, ta_node_named_child(list, n - 1));
}

ta_status ta_detect_p5(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_op *store = NULL;
	/* a store under a flag no run of the kernel sets is never made */
	for (size_t i = 0; i < k->op_count && !store; i++)
		if (k->ops[i].kind == TA_OP_DESC_STORE && !ta_rule_op_unreached(c, &k->ops[i]))
			store = &k->ops[i];
	if (!store)
		return TA_STATUS_NOT_APPLICABLE;
	/* The epilogue of a matmul: the stored tile is an accumulator of
	 * tl.dot. An elementwise kernel's store (SwiGLU, a copy) holds no
	 * accumulator to split, so subtiling it saves no registers. */
	bool dot = false;
	for (size_t i = 0; i < k->op_count && !dot; i++)
		dot = k->ops[i].kind == TA_OP_DOT;
	if (!dot)
		return TA_STATUS_NOT_APPLICABLE;
	for (size_t i = 0; i < k->param_count; i++)
		if (strstr(k->params[i].name, "SUBTILE") || strstr(k->params[i].name, "subtile"))
			return TA_STATUS_SATISFIED;
	/* The tile's width: the descriptor's last block dimension when the
	 * kernel builds it, else the usual N-tile names. */
	char *width = store_block_width(c, store);
	static const char *const names[] = { "BLOCK_N", "BLOCK_SIZE_N", "BN", NULL };
	const char *const *cands = names;
	const char *one[2] = { width, NULL };
	if (width)
		cands = one;
	ta_status s = TA_STATUS_NOT_APPLICABLE;
	for (; *cands && s == TA_STATUS_NOT_APPLICABLE; cands++) {
		if (!ta_kernel_param(k, *cands))
			continue;
		long vals[64];
		size_t nv = ta_rule_param_values(c, *cands, vals, 64);
		long big = 0;
		for (size_t i = 0; i < nv; i++)
			if (vals[i] > big)
				big = vals[i];
		if (big >= 128) {
			ta_rule_add(c, store->span, "`%s` stores its output tile through a descriptor with %s up to "
				    "%ld and no epilogue subtile option", k->name, *cands, big);
			s = TA_STATUS_APPLIES;
		} else if (big) {
			s = TA_STATUS_SATISFIED;
		}
	}
	free(width);
	return s;
}

/* An expression that needs no parentheses as the left operand of `+`
 * (sum_ok) or of `//`. */
static bool atom(const ta_model *m, TSNode n, bool sum_ok)
{
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		return ta_node_text_eq(m->src, op, "*") || ta_node_text_eq(m->src, op, "//") ||
		       ta_node_text_eq(m->src, op, "%") ||
		       (sum_ok && (ta_node_text_eq(m->src, op, "+") || ta_node_text_eq(m->src, op, "-")));
	}
	return ta_node_is(n, "identifier") || ta_node_is(n, "integer") || ta_node_is(n, "attribute") ||
	       ta_node_is(n, "call") || ta_node_is(n, "subscript") || ta_node_is(n, "parenthesized_expression");
}

static char *operand(const ta_model *m, TSNode n, bool sum_ok)
{
	char *t = ta_node_text(m->src, n);
	if (atom(m, n, sum_ok))
		return t;
	char *p = ta_xasprintf("(%s)", t);
	free(t);
	return p;
}

/* Only whitespace precedes off on its line. */
static bool starts_line(const ta_model *m, uint32_t off)
{
	for (uint32_t i = ta_edits_line_start(m, off); i < off; i++)
		if (m->src->text[i] != ' ' && m->src->text[i] != '\t')
			return false;
	return true;
}

/* ---- P5: epilogue subtile ------------------------------------------------ */

#define SUBTILE "EPILOGUE_SUBTILE"

/* Adds `"EPILOGUE_SUBTILE": value` at the end of a config's dict, or
 * `EPILOGUE_SUBTILE=value` to the copy P1 writes of a tile (`dict(t)`).
 * Returns the offset where it went (UINT32_MAX when the dict is not
 * literal) and the entry text in *entry (caller frees). */
static uint32_t dict_entry(const ta_model *m, TSNode config, const char *value, char **entry)
{
	TSNode dict = ta_edits_call_arg(m, config, 0, "kwargs");
	if (ta_node_is(dict, "call") && ta_node_text_eq(m->src, ta_node_field(dict, "function"), "dict") &&
	    ta_node_named_count(ta_node_field(dict, "arguments")) == 1 &&
	    ta_node_is(ta_edits_call_arg(m, dict, 0, NULL), "identifier")) {
		TSNode copied = ta_edits_call_arg(m, dict, 0, NULL);
		*entry = ta_xasprintf(", " SUBTILE "=%s", value);
		return ts_node_end_byte(copied);
	}
	if (!ta_node_is(dict, "dictionary"))
		return UINT32_MAX;
	TSNode last = { 0 };
	char q = '"';
	uint32_t n = ta_node_named_count(dict);
	for (uint32_t i = 0; i < n; i++) {
		TSNode p = ta_node_named_child(dict, i);
		if (ta_node_is(p, "comment"))
			continue;
		if (!ta_node_is(p, "pair"))
			return UINT32_MAX;       /* **spread: the keys are not all visible */
		TSNode key = ta_node_field(p, "key");
		if (ts_node_is_null(last) && ta_node_is(key, "string") && m->src->text[ts_node_start_byte(key)] == '\'')
			q = '\'';
		last = p;
	}
	*entry = ta_xasprintf("%s%c" SUBTILE "%c: %s", ts_node_is_null(last) ? "" : ", ", q, q, value);
	return ts_node_is_null(last) ? ts_node_start_byte(dict) + 1 : ts_node_end_byte(last);
}

/* A config that is an element of a list: keep it with the flag off and add
 * a copy with the flag on right after it, in the same layout. */
static int p5_list_config(const ta_model *m, TSNode config, ta_edit *out, char **why)
{
	char *off, *on;
	uint32_t at = dict_entry(m, config, "False", &off);
	if (at == UINT32_MAX)
		return ta_edits_refuse(why, "line %u: the config's parameters are not a literal dict",
				       (unsigned)ts_node_start_point(config).row + 1);
	dict_entry(m, config, "True", &on);
	uint32_t s = ts_node_start_byte(config), e = ts_node_end_byte(config);
	char *head = ta_edits_text(m, s, at), *tail = ta_edits_text(m, at, e);
	bool own_line = starts_line(m, s);
	char *ind = ta_edits_indent_at(m, s);
	char *copy = own_line ? ta_xasprintf(",\n%s%s%s%s", ind, head, on, tail) : ta_xasprintf(", %s%s%s", head, on, tail);
	ta_edit_replace(out, at, at, off);
	ta_edit_replace(out, e, e, copy);
	free(copy);
	free(ind);
	free(head);
	free(tail);
	free(off);
	free(on);
	return 0;
}

/* A config that is the body of a comprehension: the flag becomes one more
 * loop of it. */
static int p5_comprehension_config(const ta_model *m, TSNode config, TSNode comp, ta_edit *out, char **why)
{
	const char *var = !ta_edits_name_taken(m, "subtile") ? "subtile" : !ta_edits_name_taken(m, "epilogue_subtile") ?
			  "epilogue_subtile" : NULL;
	if (!var)
		return ta_edits_refuse(why, "line %u: no free name for the comprehension's new loop variable",
				       (unsigned)ts_node_start_point(comp).row + 1);
	char *entry;
	uint32_t at = dict_entry(m, config, var, &entry);
	if (at == UINT32_MAX)
		return ta_edits_refuse(why, "line %u: the config's parameters are not a literal dict",
				       (unsigned)ts_node_start_point(config).row + 1);
	uint32_t n = ta_node_named_count(comp);
	TSNode last = ta_node_named_child(comp, n - 1);
	while (ta_node_is(last, "comment") && n > 1)
		last = ta_node_named_child(comp, --n - 1);
	uint32_t e = ts_node_end_byte(last);
	/* A clause that starts its own line gets a sibling line. */
	char *loop;
	if (ta_edits_alone_on_line(m, last, true) && ts_node_start_point(last).row != ts_node_start_point(config).row) {
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(last));
		loop = ta_xasprintf("\n%sfor %s in (False, True)", ind, var);
		free(ind);
	} else {
		loop = ta_xasprintf(" for %s in (False, True)", var);
	}
	ta_edit_replace(out, at, at, entry);
	ta_edit_replace(out, e, e, loop);
	free(loop);
	free(entry);
	return 0;
}

/* Both values of the flag in every config of the kernel's autotune. */
static int p5_configs(const ta_model *m, const ta_kernel *k, ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	if (!a)
		return ta_edits_refuse(why, "%s is not autotuned: " SUBTILE " needs both values in its configs",
				       k->name);
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || !a->config_count)
		return ta_edits_refuse(why, "%s's configs are not literal in this file", k->name);
	/* Configs shared with another kernel would hand it a parameter it lacks. */
	for (size_t i = 0; i < m->kernel_count; i++) {
		const ta_autotune *o = m->kernels[i].autotune;
		for (size_t j = 0; &m->kernels[i] != k && o && j < o->config_count; j++)
			if (o->configs[j].span.start == a->configs[0].span.start)
				return ta_edits_refuse(why, "line %u: these configs also tune %s, which has no " SUBTILE,
						       a->configs[0].span.line, m->kernels[i].name);
	}
	for (size_t i = 0; i < a->config_count; i++) {
		/* the tiles of one `Config(dict(t), ...) for t in tiles` share its call */
		if (i && a->configs[i].span.start == a->configs[i - 1].span.start)
			continue;
		TSNode c = ta_edits_node(m, a->configs[i].span);
		TSNode p = ta_node_parent(c);
		int rc;
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, SUBTILE))
			return ta_edits_refuse(why, "line %u: a config already sets " SUBTILE, a->configs[i].span.line);
		if (ta_node_is(p, "list"))
			rc = p5_list_config(m, c, out, why);
		else if (ta_node_is(p, "list_comprehension"))
			rc = p5_comprehension_config(m, c, p, out, why);
		else
			rc = ta_edits_refuse(why, "line %u: a config is neither a list element nor a comprehension's "
					     "body", a->configs[i].span.line);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The tl.make_tensor_descriptor call that builds the descriptor, when the
 * kernel builds it (once). */
static const ta_op *p5_descriptor(const ta_kernel *k, const char *name, uint32_t before)
{
	const ta_op *d = NULL;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind == TA_OP_MAKE_DESCRIPTOR && op->target && !strcmp(op->target, name)) {
			if (d || op->span.start > before)
				return NULL;
			d = op;
		}
	}
	return d;
}

/* Two names for the halves that the kernel does not use yet. */
static bool half_names(const ta_model *m, const ta_kernel *k, const char *base, char **h0, char **h1)
{
	static const char *const pairs[][2] = { { "%s0", "%s1" }, { "%s_lo", "%s_hi" } };
	for (size_t i = 0; i < 2; i++) {
		*h0 = ta_xasprintf(pairs[i][0], base);
		*h1 = ta_xasprintf(pairs[i][1], base);
		if (!ta_node_contains_identifier(m->src, k->node, *h0) &&
		    !ta_node_contains_identifier(m->src, k->node, *h1))
			return true;
		free(*h0);
		free(*h1);
	}
	*h0 = *h1 = NULL;
	return false;
}

typedef struct p5_store {
	TSNode stmt, offsets, value;
	TSNode bm, bn;            /* the descriptor's block shape */
	TSNode bn_at;             /* where the halved width goes in it */
} p5_store;

/* Checks the store and its descriptor; fills s. NULL, or why not (static
 * text after "line N: "). */
static const char *p5_shape(const ta_model *m, const ta_kernel *k, const ta_op *op, p5_store *s)
{
	TSNode call = ta_edits_node(m, op->span);
	TSNode recv = ta_node_field(ta_node_field(call, "function"), "object");
	if (!op->receiver || !ta_node_is(recv, "identifier"))
		return "the store is not made through a named descriptor";
	for (size_t i = 0; i < k->op_count; i++)
		if ((k->ops[i].kind == TA_OP_DESC_LOAD || k->ops[i].kind == TA_OP_DESC_STORE) && &k->ops[i] != op &&
		    k->ops[i].receiver && !strcmp(k->ops[i].receiver, op->receiver))
			return "the descriptor is used by another load or store too, which a half-width box would break";
	const ta_op *d = p5_descriptor(k, op->receiver, op->span.start);
	if (!d)
		return "the descriptor is not built once in the kernel with tl.make_tensor_descriptor (a host "
		       "descriptor's box would need a pre_hook)";
	TSNode dc = ta_edits_node(m, d->span);
	TSNode shape = ta_edits_call_arg(m, dc, 3, "block_shape");
	if ((!ta_node_is(shape, "list") && !ta_node_is(shape, "tuple")) || ta_node_named_count(shape) != 2)
		return "the descriptor's block_shape is not a literal pair [BLOCK_M, BLOCK_N]";
	s->bm = ta_node_named_child(shape, 0);
	s->bn = s->bn_at = ta_node_named_child(shape, 1);
	s->offsets = ta_edits_call_arg(m, call, 0, NULL);
	s->value = ta_edits_call_arg(m, call, 1, NULL);
	if ((!ta_node_is(s->offsets, "list") && !ta_node_is(s->offsets, "tuple")) ||
	    ta_node_named_count(s->offsets) != 2 || ts_node_is_null(s->value) ||
	    ta_node_named_count(ta_node_field(call, "arguments")) != 2)
		return "the store is not desc.store([off_m, off_n], tile)";
	s->stmt = ta_node_parent(call);
	uint32_t end;
	if (!ta_node_is(s->stmt, "expression_statement") || !ta_node_is(ta_node_parent(s->stmt), "block") ||
	    ta_edits_stmt_lines(m, s->stmt, &end) == UINT32_MAX)
		return "the store is not a statement of its own lines";
	return NULL;
}

/* The if/else that replaces the store statement. */
static char *p5_branch(const ta_model *m, const ta_op *op, const p5_store *s, const char *tl, const char *h0,
		       const char *h1, TSNode tile, const char *conv, uint32_t start, uint32_t end)
{
	char *ind = ta_edits_indent_at(m, start);
	const char *u = ta_edits_indent_unit(m, ind);
	char *bm = ta_node_text(m->src, s->bm), *bn = operand(m, s->bn, false), *t = ta_node_text(m->src, tile);
	char *o0 = ta_node_text(m->src, ta_node_named_child(s->offsets, 0));
	char *o1 = ta_node_text(m->src, ta_node_named_child(s->offsets, 1));
	char *o1p = operand(m, ta_node_named_child(s->offsets, 1), true);
	char *orig = ta_edits_text(m, start, end);
	char *ro = ta_edits_reindent(orig, u);
	bool nl = end > start && m->src->text[end - 1] == '\n';
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sif " SUBTILE ":\n", ind);
	ta_buf_printf(&b, "%s%s%s, %s = %s.split(%s.permute(%s.reshape(%s, (%s, 2, %s // 2)), (0, 2, 1)))\n", ind, u,
		      h0, h1, tl, tl, tl, t, bm, bn);
	ta_buf_printf(&b, "%s%s%s.store([%s, %s], %s%s)\n", ind, u, op->receiver, o0, o1, h0, conv);
	ta_buf_printf(&b, "%s%s%s.store([%s, %s + %s // 2], %s%s)\n", ind, u, op->receiver, o0, o1p, bn, h1, conv);
	ta_buf_printf(&b, "%selse:\n%s%s", ind, ro, nl ? "" : "\n");
	free(ind);
	free(bm);
	free(bn);
	free(t);
	free(o0);
	free(o1);
	free(o1p);
	free(orig);
	free(ro);
	return ta_buf_steal(&b);
}

static int p5_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	p5_store s;
	const char *bad = p5_shape(m, k, op, &s);
	if (bad)
		return ta_edits_refuse(why, "line %u: %s", op->span.line, bad);
	char *tl = ta_edits_module(m, "triton.language");
	if (!tl)
		return ta_edits_refuse(why, "the file does not import triton.language");
	/* Split the tile before its conversion: `acc.to(T)` becomes two halves
	 * of acc, each converted on its own. */
	TSNode tile = s.value;
	char *conv = ta_xstrdup("");
	TSNode fn = ta_node_field(s.value, "function");
	if (ta_node_is(s.value, "call") && ta_node_is(fn, "attribute") &&
	    ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), "to") &&
	    ta_node_is(ta_node_field(fn, "object"), "identifier")) {
		tile = ta_node_field(fn, "object");
		free(conv);
		conv = ta_edits_text(m, ts_node_end_byte(tile), ts_node_end_byte(s.value));
	}
	char *base = ta_node_is(tile, "identifier") ? ta_node_text(m->src, tile) : ta_xstrdup("tile");
	char *h0, *h1;
	int rc = 0;
	if (!half_names(m, k, base, &h0, &h1)) {
		rc = ta_edits_refuse(why, "line %u: no free names for the two halves of `%s`", op->span.line, base);
		goto done;
	}
	if ((rc = p5_configs(m, k, out, why)) != 0 || (rc = ta_edits_add_constexpr(m, k, SUBTILE, NULL, NULL, out, why)) != 0)
		goto names;
	/* The descriptor's box follows the flag. */
	char *bn = operand(m, s.bn, false), *bnt = ta_node_text(m->src, s.bn);
	char *box = ta_xasprintf("%s // 2 if " SUBTILE " else %s", bn, bnt);
	ta_edit_replace(out, ts_node_start_byte(s.bn_at), ts_node_end_byte(s.bn_at), box);
	free(box);
	free(bn);
	free(bnt);
	uint32_t end, start = ta_edits_stmt_lines(m, s.stmt, &end);
	char *rep = p5_branch(m, op, &s, tl, h0, h1, tile, conv, start, end);
	ta_edit_replace(out, start, end, rep);
	free(rep);
	ta_edit_set_title(out, SUBTILE ": store %s's output tile as two halves, both values in the configs", k->name);
	out->line = op->span.line;
names:
	free(h0);
	free(h1);
done:
	free(base);
	free(conv);
	free(tl);
	return rc;
}

static bool has_subtile(const ta_kernel *k)
{
	for (size_t i = 0; i < k->param_count; i++)
		if (strstr(k->params[i].name, "SUBTILE") || strstr(k->params[i].name, "subtile"))
			return true;
	return false;
}

/* A kernel's first descriptor store, where the detector reports it. */
static bool p5_site(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	(void)m;
	if (op->kind != TA_OP_DESC_STORE || has_subtile(k))
		return false;
	for (const ta_op *o = k->ops; o < op; o++)
		if (o->kind == TA_OP_DESC_STORE)
			return false;
	return true;
}

/* Rewrite: EPILOGUE_SUBTILE: store the output tile as two halves, both values in the configs. */
TA_REWRITE(P5, NULL, TA_SAFE)
{
	return ta_edits_each_op(m, kernel_or_host, line, p5_site, p5_one, out, why_not,
				"no descriptor store in a kernel without a subtile option");
}
