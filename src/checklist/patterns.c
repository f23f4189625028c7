/* Section 3: fast vs slow patterns (S1-S8). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* rhs is `tl.reshape(x, (A, B))` or `x.reshape(A, B)`: a 2D tile. */
static bool reshaped_2d(ta_rule_ctx *c, ta_span rhs)
{
	TSNode n = ta_node_unparen(ta_rule_node(c, rhs));
	if (!ta_call_named(c->m, n, "reshape"))
		return false;
	TSNode args = ta_node_field(n, "arguments");
	uint32_t na = ta_node_named_count(args);
	TSNode fn = ta_node_field(n, "function");
	/* tl.reshape(x, shape) or x.reshape(shape) / x.reshape(a, b) */
	bool method = ta_node_is(fn, "attribute") && !ta_node_text_eq(c->m->src, ta_node_field(fn, "object"), "tl");
	if (!method && na >= 2) {
		TSNode shape = ta_node_named_child(args, 1);
		return (ta_node_is(shape, "tuple") || ta_node_is(shape, "list")) && ta_node_named_count(shape) == 2;
	}
	if (method && na == 1) {
		TSNode shape = ta_node_named_child(args, 0);
		return (ta_node_is(shape, "tuple") || ta_node_is(shape, "list")) && ta_node_named_count(shape) == 2;
	}
	return method && na == 2;
}

/* An operand made by broadcast_to or a 3D load; *made_by_broadcast says
 * which (broadcast_to). */
static bool broadcast_operand(ta_rule_ctx *c, const ta_op *dot, size_t arg, bool *made_by_broadcast)
{
	const ta_kernel *k = c->k;
	if (arg >= dot->arg_count)
		return false;
	if (ta_rule_contains(c, dot->args[arg], "broadcast_to"))
		return *made_by_broadcast = true;
	char *name = ta_rule_text(c, dot->args[arg]);
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	bool yes = false;
	/* The binding that reaches the dot reshapes the tile to 2D (`x =
	 * tl.reshape(x, (M, K * D))` after a 3D load): the dot's operand is 2D. */
	const ta_assign *last = NULL;
	for (size_t i = 0; i < n; i++)
		if (!as[i].augmented && as[i].stmt.end <= dot->span.start && !strcmp(as[i].name, name))
			last = &as[i];
	if (last && reshaped_2d(c, last->rhs)) {
		free(name);
		return false;
	}
	for (size_t i = 0; i < n && !yes; i++) {
		if (strcmp(as[i].name, name) || as[i].stmt.start > dot->span.start)
			continue;
		for (size_t j = 0; j < k->op_count && !yes; j++) {
			const ta_op *op = &k->ops[j];
			if (op->span.start < as[i].rhs.start || op->span.end > as[i].rhs.end)
				continue;
			/* a 3D load; a 4D one is no operand tl.dot takes (2D or 3D only) */
			yes = op->kind == TA_OP_BROADCAST_TO || (op->kind == TA_OP_LOAD && op->ptr_rank == 3);
			*made_by_broadcast |= op->kind == TA_OP_BROADCAST_TO;
		}
	}
	free(name);
	return yes;
}

/* The operand's value text, or that of the assignment it names (caller
 * frees). */
static char *operand_value(ta_rule_ctx *c, const ta_op *dot, size_t arg)
{
	char *name = ta_rule_text(c, dot->args[arg]);
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	const ta_assign *def = NULL;
	for (size_t i = 0; i < n; i++)
		if (!as[i].augmented && as[i].stmt.end <= dot->span.start && !strcmp(as[i].name, name))
			def = &as[i];
	if (!def)
		return name;
	free(name);
	return ta_rule_text(c, def->rhs);
}

/* One operand is the same for every element of the batch: a 2D tile given
 * a leading axis (`w[None, :, :]`, tl.expand_dims(w, 0)), broadcast or not. */
static bool shared_across_batch(ta_rule_ctx *c, const ta_op *dot)
{
	bool shared = false;
	for (size_t a = 0; a < 2 && a < dot->arg_count && !shared; a++) {
		char *v = operand_value(c, dot, a);
		shared = strstr(v, "[None, :, :]") || strstr(v, "[None,:,:]") || strstr(v, "expand_dims(");
		free(v);
	}
	return shared;
}

/* Batched per-row dots: the first operand is 3D and each element of its
 * batch holds at most 16 rows (its axis 1), as when every row of a block
 * multiplies its own small matrix. One element per program would be the
 * same tiny dot with fewer rows per program: the batch is the rows. */
static bool per_row_dots(ta_rule_ctx *c, const ta_op *dot)
{
	ta_tile_dims a;
	const char *param;
	return dot->arg_count >= 2 && ta_rule_tile_dims(c, dot->args[0], dot->span.start, &a) == 3 &&
	       ta_rule_size_at_most(c, a.size[1], 16, &param) && !shared_across_batch(c, dot);
}

ta_status ta_detect_s2(ta_rule_ctx *c)
{
	bool dots = false, found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_DOT)
			continue;
		dots = true;
		bool bc = false;
		bool a0 = broadcast_operand(c, op, 0, &bc), a1 = broadcast_operand(c, op, 1, &bc);
		if ((a0 || a1) && !per_row_dots(c, op)) {
			ta_rule_add(c, op->span, "tl.dot in `%s` takes a %s operand: one batch or head "
				    "per program with a 2D tl.dot is the fast form", c->k->name,
				    bc ? "broadcast (3D)" : "3D");
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return dots ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_s4(ta_rule_ctx *c)
{
	if (!c->k->autotune)
		return TA_STATUS_NOT_APPLICABLE;   /* no config list at all: P1's business */
	/* a file for one other back-end has one GPU kind to tune for */
	if (ta_file_other_backend(c->m, NULL) == TA_BACKEND_FOLDER)
		return TA_STATUS_NOT_APPLICABLE;
	return ta_rule_serve(c, "P1", TA_TAG_GPU_SPLIT);
}
