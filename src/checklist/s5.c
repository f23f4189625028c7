/* S5: K/V descriptor shaped with the query head count.
 * Its detector and its rewrite. */
#include "config.h"
#include "analyze/names.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- what the detector and the rewrite both recognise ------------------ */

/* The kernel's group-size (or K/V head-count) parameter, or NULL. */
static const ta_param *gqa_group(const ta_kernel *k)
{
	for (size_t i = 0; i < k->param_count; i++)
		if (ta_name_among(k->params[i].name, ta_gqa_group_sizes) ||
		    ta_name_among(k->params[i].name, ta_gqa_kv_head_counts))
			return &k->params[i];
	return NULL;
}

/* An in-kernel descriptor over K or V (by its name or its base's). */
static bool kv_descriptor(const ta_model *m, const ta_op *op)
{
	if (op->kind != TA_OP_MAKE_DESCRIPTOR)
		return false;
	char *base = op->arg_count ? ta_edits_text(m, op->args[0].start, op->args[0].end) : NULL;
	bool kv = ta_gqa_kv_name(op->target) || ta_gqa_kv_name(base);
	free(base);
	return kv;
}

/* A descriptor argument by keyword or position, as a node (null if absent). */
static TSNode desc_arg(const ta_model *m, const ta_op *op, const char *kw, size_t index)
{
	const ta_kwarg *k = ta_kwarg_find(op->kwargs, op->kwarg_count, kw);
	if (k)
		return ta_edits_node(m, k->value_span);
	return op->arg_count > index ? ta_edits_node(m, op->args[index]) : (TSNode){ 0 };
}

/* The Q head-count parameter written in a literal shape list (null if none). */
static TSNode q_heads_in_shape(const ta_model *m, const ta_kernel *k, TSNode shape)
{
	uint32_t n = ta_node_named_count(shape);
	for (uint32_t d = 0; d < n; d++) {
		TSNode el = ta_node_named_child(shape, d);
		char *t = ta_node_is(el, "identifier") ? ta_node_text(m->src, el) : NULL;
		bool q = t && ta_name_among(t, ta_gqa_head_counts) && ta_kernel_param(k, t);
		free(t);
		if (q)
			return el;
	}
	return (TSNode){ 0 };
}

static bool literal_list(TSNode n)
{
	return ta_node_is(n, "list") || ta_node_is(n, "tuple");
}

ta_status ta_detect_s5(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_param *group = gqa_group(k);
	if (!group)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (!kv_descriptor(c->m, op))
			continue;
		any = true;
		TSNode shape = desc_arg(c->m, op, "shape", 1);
		TSNode hn = literal_list(shape) ? q_heads_in_shape(c->m, k, shape) : (TSNode){ 0 };
		if (ts_node_is_null(hn))
			continue;
		char *t = ta_node_text(c->m->src, hn);
		ta_rule_add(c, op->span,
			    "descriptor %s%s%s declares its head dimension as `%s` (the Q head count) although "
			    "`%s` has `%s`: K/V hold `%s // %s` heads", op->target ? "`" : "",
			    op->target ? op->target : "", op->target ? "`" : "", t, k->name, group->name, t,
			    group->name);
		free(t);
		found = true;
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Replaces each identifier H in n (a strides expression) by the K/V count. */
static size_t s5_strides(const ta_model *m, TSNode n, const char *h, const char *kvh, bool list_elem, ta_edit *out)
{
	if (ta_node_is(n, "identifier")) {
		if (!ta_node_text_eq(m->src, n, h))
			return 0;
		char *rep = list_elem || !strstr(kvh, "//") ? ta_xstrdup(kvh) : ta_xasprintf("(%s)", kvh);
		ta_edit_replace(out, ts_node_start_byte(n), ts_node_end_byte(n), rep);
		free(rep);
		return 1;
	}
	if (ta_node_is(n, "attribute"))
		return 0;
	size_t c = 0;
	uint32_t k = ta_node_named_count(n);
	for (uint32_t i = 0; i < k; i++)
		c += s5_strides(m, ta_node_named_child(n, i), h, kvh, false, out);
	return c;
}

static int s5_one(const ta_model *m, const ta_kernel *k, const ta_param *group, const ta_op *op, ta_edit *out,
		  char **why)
{
	TSNode shape = desc_arg(m, op, "shape", 1);
	if (!literal_list(shape))
		return ta_edits_refuse(why, "line %u: the descriptor's shape is not a literal list", op->span.line);
	TSNode hn = q_heads_in_shape(m, k, shape);
	if (ts_node_is_null(hn))
		return ta_edits_refuse(why, "line %u: no head-count parameter in the descriptor's shape", op->span.line);
	char *h = ta_node_text(m->src, hn);
	char *kvh = ta_name_among(group->name, ta_gqa_kv_head_counts) ? ta_xstrdup(group->name) :
		    ta_xasprintf("%s // %s", h, group->name);
	ta_edit_replace(out, ts_node_start_byte(hn), ts_node_end_byte(hn), kvh);
	/* The batch stride written from the Q head count is wrong for K/V too. */
	TSNode strides = desc_arg(m, op, "strides", 2);
	size_t fixed = 0;
	if (ta_node_is(strides, "list") || ta_node_is(strides, "tuple")) {
		uint32_t sn = ta_node_named_count(strides);
		for (uint32_t i = 0; i < sn; i++)
			fixed += s5_strides(m, ta_node_named_child(strides, i), h, kvh, true, out);
	}
	ta_edit_set_title(out, "%s%s%s holds %s heads%s", op->target ? "descriptor " : "a K/V descriptor",
			  op->target ? op->target : "", op->target ? "" : "", kvh,
			  fixed ? " (shape and strides)" : "");
	out->line = op->span.line;
	free(kvh);
	free(h);
	return 0;
}

static bool s5_site(const ta_model *m, const ta_kernel *k, const ta_op *op)
{
	return gqa_group(k) && kv_descriptor(m, op);
}

static int s5_at(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	return s5_one(m, k, gqa_group(k), op, out, why);
}

/* Rewrite: K/V descriptors with H // QUERY_GROUP_SIZE heads (shape and strides). */
TA_REWRITE(S5, NULL, TA_SAFE)
{
	return ta_edits_each_op(m, kernel_or_host, line, s5_site, s5_at, out, why_not,
				"no K/V tensor descriptor in a kernel with a group-size parameter");
}
