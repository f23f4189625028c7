/* Section 1: layout flags -> structure (L1-L4). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <string.h>

ta_status ta_detect_l3(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!a)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel || l->host < 0)
			continue;
		const ta_host *h = &c->m->hosts[l->host];
		for (size_t j = 0; j < h->op_count; j++) {
			const ta_host_op *op = &h->ops[j];
			if (op->kind != TA_HOST_TENSOR_DESCRIPTOR)
				continue;
			/* only the descriptors this launch passes (a host function
			 * may build them for another kernel it launches) */
			bool passed = op->target ? ta_rule_mentions(c, l->span, op->target) :
				      op->span.start >= l->span.start && op->span.end <= l->span.end;
			if (!passed)
				continue;
			any = true;
			if (a->has_pre_hook)
				continue;
			bool dup = false;
			for (size_t f = 0; f < c->res->finding_count; f++)
				if (c->res->findings[f].id == c->id && c->res->findings[f].kernel == c->kernel &&
				    c->res->findings[f].span.start == op->span.start)
					dup = true;
			if (dup)
				continue;
			ta_finding *f = ta_rule_add(c, op->span,
				"host descriptor `%s` is built with a fixed block shape while `%s` is autotuned "
				"(no pre_hook sets it per config)", op->target ? op->target : op->text, c->k->name);
			ta_finding_line(f, a->span.line);
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* A loop over a list: not `range(n)` (a benchmark repeat), unless it walks
 * a length. */
static bool loops_over_items(const ta_launch *l)
{
	if (!l->loop_iter)
		return false;
	if (!strncmp(l->loop_iter, "range(", 6))
		return strstr(l->loop_iter, "len(") != NULL;
	return true;
}

ta_status ta_detect_l4(ta_rule_ctx *c)
{
	if (c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel || l->loop_depth == 0 || !loops_over_items(l))
			continue;
		ta_finding *f = ta_rule_add(c, l->span,
			"`%s` is launched once per item of `%s` from the loop at line %u: one batched launch "
			"(program_id(1) picks the tensor) saves the launch overhead",
			c->k->name, l->loop_iter, l->loop_span.line);
		ta_finding_line(f, l->loop_span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}
