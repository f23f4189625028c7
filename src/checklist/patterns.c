/* Section 3: fast vs slow patterns (S1-S8). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An operand made by broadcast_to or a 3D load. */
static bool broadcast_operand(ta_rule_ctx *c, const ta_op *dot, size_t arg)
{
	const ta_kernel *k = c->k;
	if (arg >= dot->arg_count)
		return false;
	if (ta_rule_contains(c, dot->args[arg], "broadcast_to"))
		return true;
	char *name = ta_rule_text(c, dot->args[arg]);
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	bool yes = false;
	for (size_t i = 0; i < n && !yes; i++) {
		if (strcmp(as[i].name, name) || as[i].stmt.start > dot->span.start)
			continue;
		for (size_t j = 0; j < k->op_count && !yes; j++) {
			const ta_op *op = &k->ops[j];
			if (op->span.start < as[i].rhs.start || op->span.end > as[i].rhs.end)
				continue;
			yes = op->kind == TA_OP_BROADCAST_TO || (op->kind == TA_OP_LOAD && op->ptr_rank >= 3);
		}
	}
	free(name);
	return yes;
}

ta_status ta_detect_s2(ta_rule_ctx *c)
{
	bool dots = false, found = false;
	for (size_t i = 0; i < c->k->op_count; i++) {
		const ta_op *op = &c->k->ops[i];
		if (op->kind != TA_OP_DOT)
			continue;
		dots = true;
		if (broadcast_operand(c, op, 0) || broadcast_operand(c, op, 1)) {
			ta_rule_add(c, op->span, "tl.dot in `%s` takes a broadcast (3D) operand: one batch or head "
				    "per program with a 2D tl.dot is the fast form", c->k->name);
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
