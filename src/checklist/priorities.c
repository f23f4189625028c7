/* Section 2: the post-TMA priority list (P1-P7). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool has_dot(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_DOT)
			return true;
	return false;
}

/* Pointer BMM: a dot kernel reading its tiles through raw pointers. */
static bool pointer_tiles(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_LOAD && k->ops[i].ptr_shape == TA_PTR_2D)
			return true;
	return false;
}

/* The dot kernels launched with the grid defined at def (one grid variable
 * can serve several launches): named together, so that the finding, made
 * once per kernel, prints once. */
static char *kernels_on_grid(const ta_rule_ctx *c, ta_span def, size_t *count)
{
	const ta_kernel **ks = ta_xcalloc(c->m->launch_count + 1, sizeof *ks);
	size_t n = 0;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel < 0 || l->grid_dims != 3 || l->grid_def_span.start != def.start ||
		    l->grid_def_span.end != def.end)
			continue;
		const ta_kernel *k = &c->m->kernels[l->kernel];
		bool seen = false;   /* one kernel can be launched twice on the grid */
		for (size_t j = 0; j < n && !seen; j++)
			seen = ks[j] == k;
		if (!seen && (k == c->k || (has_dot(k) && pointer_tiles(k))))
			ks[n++] = k;
	}
	*count = n;
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

/* How many tile counts a grid dimension's text holds: triton.cdiv(...)
 * calls and floor divisions (`M // 64`, `(M + 63) // 64`). */
static int tile_counts(const char *t)
{
	int n = 0;
	for (const char *p = t; (p = strstr(p, "cdiv(")); p += 5)
		n++;
	if (n)   /* a // inside cdiv's arguments (out_c // groups) counts no tile */
		return n;
	for (const char *p = t; (p = strstr(p, "//")); p += 2)
		n++;
	return n;
}

/* The grid is (m_blocks, n_blocks, batch) in some order: two dimensions
 * are one tile count each and the third counts none (a batch or head
 * count). Not: attention's (splits, q blocks, heads), a grid whose m and
 * n blocks are already one axis, a chunked scan's (v blocks, chunks, heads),
 * tiles of a head dimension (a recurrence's (K tiles, V tiles, heads)). */
/* A tile count over a head dimension (`triton.cdiv(K, meta['BK'])`,
 * `cdiv(head_dim, BLOCK_D)`): a handful of tiles per head, so grouping
 * program ids has nothing to keep together. */
static bool over_head_dim(const char *t)
{
	const char *c = strstr(t, "cdiv(");
	if (!c)
		return false;
	c += 5;
	while (*c == ' ')
		c++;
	size_t n = strcspn(c, ",)");
	while (n && c[n - 1] == ' ')
		n--;
	static const char *const heads[] = { "K", "V", "D", "head_dim", "HEAD_DIM", "headdim", "dstate", NULL };
	for (size_t i = 0; heads[i]; i++)
		if (n == strlen(heads[i]) && !strncmp(c, heads[i], n))
			return true;
	return strcasestr(c, "head") && (size_t)(strcasestr(c, "head") - c) < n;
}

static bool mn_batch_grid(const ta_launch *l)
{
	int tiles = 0, plain = 0;
	for (int d = 0; d < 3; d++) {
		int n = tile_counts(l->grid_dim_text[d]);
		if (n == 1 && over_head_dim(l->grid_dim_text[d]))
			return false;
		tiles += n == 1;
		plain += n == 0;
	}
	return tiles == 2 && plain == 1;
}

ta_status ta_detect_p4(ta_rule_ctx *c)
{
	if (!has_dot(c->k) || c->k->launch_count == 0 || c->attention || !pointer_tiles(c->k))
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->grid_dims != 3 || !l->grid_dim_text || !mn_batch_grid(l))
			continue;
		size_t on_grid;
		char *who = kernels_on_grid(c, l->grid_def_span, &on_grid);
		bool several = on_grid > 1;
		ta_finding *f = ta_rule_add(c, l->grid_def_span,
			"dot kernel%s %s %s launched on a 3D grid (%s, %s, %s): a 2D grid of (tiles, batch) "
			"with the tile ids grouped by GROUP_SIZE_M runs tiles that share rows of A and "
			"columns of B one after the other, so those are read from L2", several ? "s" : "", who,
			several ? "are" : "is", l->grid_dim_text[0], l->grid_dim_text[1], l->grid_dim_text[2]);
		free(who);
		ta_finding_line(f, l->span.line);
		for (size_t j = 0; j < c->k->op_count; j++)
			if (c->k->ops[j].kind == TA_OP_PROGRAM_ID && c->k->ops[j].arg_count &&
			    ta_rule_contains(c, c->k->ops[j].args[0], "2"))
				ta_finding_line(f, c->k->ops[j].span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

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
