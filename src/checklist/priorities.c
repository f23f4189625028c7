/* Section 2: the post-TMA priority list, the entries without a file of their
 * own (P7; P4 is in p4.c). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

ta_status ta_detect_p7(ta_rule_ctx *c)
{
	if (c->k->is_helper || c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	if (!e || !c->ev->sm_count)
		return TA_STATUS_NEEDS_PROFILE;
	double blocks = (double)(e->grid[0] ? e->grid[0] : 1) * (e->grid[1] ? e->grid[1] : 1) *
			(e->grid[2] ? e->grid[2] : 1);
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	const ta_launch *first = ta_launch_walk_next(&walk);
	ta_span where = first ? first->span : c->k->def_span;
	if (!c->k->persistent && blocks > 16.0 * c->ev->sm_count && e->median_ns > 0 &&
	    e->median_ns / (e->waves > 0 ? e->waves : blocks / c->ev->sm_count) < 5000) {
		ta_finding *f = ta_rule_add(c, where,
			"`%s` launches %.0f short programs on %u SMs: a persistent loop over tiles saves "
			"the per-program start", c->k->name, blocks, c->ev->sm_count);
		f->measure = ta_xasprintf("%.0f blocks, %.1f waves, median %.1f µs", blocks, e->waves, e->median_ns / 1e3);
		return TA_STATUS_APPLIES;
	}
	if (c->k->persistent && e->waves > 0 && e->waves < 0.5 && e->occupancy > 0) {
		ta_finding *f = ta_rule_add(c, where,
			"persistent `%s` fills %.0f%% of one wave: its program count ignores occupancy",
			c->k->name, e->waves * 100);
		f->measure = ta_xasprintf("%.0f blocks on %u SMs, occupancy %.2f", blocks, c->ev->sm_count, e->occupancy);
		return TA_STATUS_APPLIES;
	}
	return TA_STATUS_SATISFIED;
}
