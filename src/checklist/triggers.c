/* The trigger table: T1-T5 decide which sections the walk opens first. */
#include "config.h"
#include "checklist/rules_internal.h"
#include "checklist/rewrite_internal.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>

#include <string.h>
#include <strings.h>

/* What an online-softmax loop holds: dots, a running max, an exponential.
 * A dot is counted once however often its helper is called: a scores-only
 * helper called in the loop and again for the last block has one dot (QK,
 * no PV), not two. */
typedef struct attn_shape {
	int dots, maxes, exps;
	int own_maxes, running;   /* the kernel's own maxes in the loop, and those of
				     a value carried around it (`tl.maximum(m_i, ...)`) */
	uint32_t dot_lines[4];    /* the first four products, in the loop's order */
	const ta_op *dot_ops[4];
} attn_shape;

/* Whether the ops a and b sit in different arms of one if (`if is_fp32:
 * tl.dot(q, k, input_precision="ieee") else: tl.dot(q, k)`): one product
 * written twice, only one of which runs. */
static bool exclusive_arms(const ta_model *m, const ta_op *a, const ta_op *b)
{
	TSNode na = ta_edits_node(m, a->span), nb = ta_edits_node(m, b->span);
	if (ts_node_is_null(na) || ts_node_is_null(nb))
		return false;
	for (TSNode i = ta_node_ancestor(na, "if_statement"); !ts_node_is_null(i);
	     i = ta_node_ancestor(i, "if_statement")) {
		uint32_t is = ts_node_start_byte(i), ie = ts_node_end_byte(i);
		if (ts_node_start_byte(nb) < is || ts_node_end_byte(nb) > ie)
			continue;
		/* both inside this if: in one arm each? */
		TSNode arm_a = na, arm_b = nb;
		while (!ts_node_is_null(arm_a) && !ts_node_eq(ta_node_parent(arm_a), i))
			arm_a = ta_node_parent(arm_a);
		while (!ts_node_is_null(arm_b) && !ts_node_eq(ta_node_parent(arm_b), i))
			arm_b = ta_node_parent(arm_b);
		return !ts_node_is_null(arm_a) && !ts_node_is_null(arm_b) && !ts_node_eq(arm_a, arm_b) &&
		       !ta_node_is(arm_a, "comparison_operator") && !ta_node_is(arm_b, "comparison_operator");
	}
	return false;
}

static void count_op(const ta_model *m, attn_shape *s, const ta_op *op)
{
	switch (op->kind) {
	case TA_OP_DOT:
		for (int i = 0; i < s->dots && i < 4; i++)
			if (s->dot_ops[i] == op || exclusive_arms(m, s->dot_ops[i], op))
				return;
		if (s->dots < 4) {
			s->dot_lines[s->dots] = op->span.line;
			s->dot_ops[s->dots] = op;
		}
		s->dots++;
		break;
	case TA_OP_MAX:
		/* the row max of the scores; an elementwise tl.maximum alone
		 * (`start = tl.maximum(lo, j)`, a loop bound) is no softmax */
		s->maxes++;
		break;
	case TA_OP_EXP: case TA_OP_EXP2:
		s->exps++;
		break;
	default:
		break;
	}
}

static bool is_attention_shape(const attn_shape *s)
{
	return s->dots >= 2 && s->maxes > 0 && s->exps > 0;
}

/* Whether a max op (tl.max, tl.maximum) of kernel k in loop l takes a
 * value the loop carries: a name bound before the loop and again inside it
 * (the running max m_i), not only the scores of this pass (a backward's
 * row max that tests a tile against the saved log-sum-exp). */
static bool carried_max(const ta_model *m, const ta_kernel *k, const ta_op *op, int l)
{
	const ta_span loop = k->loops[l].span;
	for (size_t a = 0; a < op->arg_count; a++) {
		TSNode n = ta_node_unparen(ta_edits_node(m, op->args[a]));
		if (!ta_node_is(n, "identifier"))
			continue;
		size_t nb;
		const ta_values_binding *b = ta_values_bindings(m, k->node, m->src->text + ts_node_start_byte(n),
								 ts_node_end_byte(n) - ts_node_start_byte(n), &nb);
		/* a parameter is bound on entry (a helper's m_i from its caller) */
		char *name = ta_node_text(m->src, n);
		bool before = ta_kernel_param(k, name) != NULL, inside = false;
		free(name);
		for (size_t i = 0; i < nb; i++) {
			before |= b[i].point < loop.start;
			/* a binding takes effect where its statement ends: the
			 * loop's last one, where the loop does */
			inside |= b[i].point > loop.start && b[i].point <= loop.end;
		}
		if (before && inside)
			return true;
	}
	return false;
}

/* The whole body of a helper counts when the helper is called in the loop. */
static void count_helper(const ta_model *m, int helper, attn_shape *s, int depth)
{
	if (helper < 0 || depth > 3)
		return;
	const ta_kernel *h = &m->kernels[helper];
	for (size_t i = 0; i < h->op_count; i++) {
		count_op(m, s, &h->ops[i]);
		if (h->ops[i].kind == TA_OP_HELPER_CALL)
			count_helper(m, h->ops[i].helper, s, depth + 1);
	}
}

/* Finds a loop of kernel ki with the attention shape; returns its index or
 * -1, and the shape found. Helpers called anywhere are searched too. */
static int attention_loop(const ta_model *m, int ki, attn_shape *out, int depth)
{
	const ta_kernel *k = &m->kernels[ki];
	int best = -1;
	for (size_t l = 0; l < k->loop_count; l++) {
		attn_shape s = { 0 };
		size_t first, end = ta_loop_ops(k, (int)l, &first);
		for (size_t i = first; i < end; i++) {
			const ta_op *op = &k->ops[i];
			if (op->loop < 0 || !ta_loop_within(k, op->loop, (int)l))
				continue;
			count_op(m, &s, op);
			s.own_maxes += op->kind == TA_OP_MAX;
			if (op->kind == TA_OP_MAX || op->kind == TA_OP_MAXIMUM)
				s.running += carried_max(m, k, op, (int)l);
			if (op->kind == TA_OP_HELPER_CALL)
				count_helper(m, op->helper, &s, 1);
		}
		/* the innermost such loop: the online softmax's own (a
		 * neighbourhood kernel's KV loop under its loops over planes) */
		/* online: a max the loop carries, or one a helper keeps (a
		 * backward that rebuilds the probabilities from a saved
		 * log-sum-exp and only tests a tile's row max has none) */
		bool online = s.running > 0 || s.own_maxes < s.maxes;
		if (is_attention_shape(&s) && online && (best < 0 || ta_loop_within(k, (int)l, best))) {
			*out = s;
			best = (int)l;
		}
	}
	if (best >= 0)
		return best;
	if (depth < 3)
		for (size_t i = 0; i < k->op_count; i++)
			if (k->ops[i].kind == TA_OP_HELPER_CALL && k->ops[i].helper >= 0 &&
			    k->ops[i].helper != ki && attention_loop(m, k->ops[i].helper, out, depth + 1) >= 0)
				return -2 - k->ops[i].helper;
	return -1;
}

bool ta_rules_attention_at(const ta_model *m, int ki, size_t loop)
{
	const ta_kernel *k = &m->kernels[ki];
	attn_shape s = { 0 };
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->loop < 0 || !ta_loop_within(k, op->loop, (int)loop))
			continue;
		count_op(m, &s, op);
		if (op->kind == TA_OP_HELPER_CALL)
			count_helper(m, op->helper, &s, 1);
	}
	return is_attention_shape(&s);
}

/* The parameters that bear on section 4, and the items that check them.
 * The scale (sm_scale) is no such parameter: no item reads it. */
static const struct attention_hint {
	const char *name;
	const char *items;        /* the G items, space-separated */
} attention_hints[] = {
	{ "QUERY_GROUP_SIZE", "G1 G3" }, { "num_kv_heads", "G1 G3" }, { "WINDOW_SIZE", "G3" },
	{ "SOFT_CAP", "G3 G5" }, { "softcap", "G3 G5" }, { "logit_cap", "G3 G5" },
	{ "IS_CAUSAL", "G3 G8" }, { "CAUSAL", "G3 G8" }, { "STAGE", "G3 G8" }, { NULL, NULL },
};

/* "; its parameters A, B are what G1, G3 and G5 check", or "" (caller
 * frees). */
static char *hint_clause(const ta_model *m, const ta_kernel *k)
{
	ta_buf names = TA_BUF_INIT;
	unsigned items = 0;       /* bit i: G(i) */
	size_t count = 0;
	for (size_t i = 0; i < k->param_count; i++)
		for (const struct attention_hint *h = attention_hints; h->name; h++) {
			if (strcasecmp(k->params[i].name, h->name) || !ta_rule_kernel_reads(m, k, k->params[i].name))
				continue;
			ta_buf_printf(&names, "%s%s", count++ ? ", " : "", k->params[i].name);
			for (const char *g = h->items; (g = strchr(g, 'G')); g++)
				items |= 1u << (g[1] - '0');
			break;
		}
	if (!count) {
		ta_buf_free(&names);
		return ta_xstrdup("");
	}
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "; its parameter%s %s %s what ", count > 1 ? "s" : "", ta_buf_str(&names),
		      count > 1 ? "are" : "is");
	int n = __builtin_popcount(items), at = 0;
	for (int g = 1; g <= 8; g++)
		if (items >> g & 1)
			ta_buf_printf(&b, "%sG%d", at++ == 0 ? "" : at == n ? " and " : ", ", g);
	ta_buf_puts(&b, " check");
	ta_buf_free(&names);
	return ta_buf_steal(&b);
}

ta_status ta_detect_t1(ta_rule_ctx *c)
{
	attn_shape s = { 0 };
	int l = attention_loop(c->m, c->kernel, &s, 0);
	if (l == -1)
		return TA_STATUS_NOT_APPLICABLE;
	/* The hints name a launched kernel's parameters (an autotune key, a
	 * launch): a helper's are what its caller passes, maybe changed
	 * (tutorial 06's inner loop gets `4 - STAGE`). */
	char *hints = c->k->is_helper ? ta_xstrdup("") : hint_clause(c->m, c->k);
	ta_finding *f;
	if (l >= 0) {
		/* every product of the loop (a low-rank score is two of them,
		 * then the value product): naming two of three would leave out
		 * the one that makes it attention */
		static const char *const counts[] = { "", "one", "two", "three", "four" };
		int shown = s.dots < 4 ? s.dots : 4;
		ta_buf lines = TA_BUF_INIT;
		for (int i = 0; i < shown; i++)
			ta_buf_printf(&lines, "%s%u", i == 0 ? "" : ", ", s.dot_lines[i]);
		if (s.dots > 4)
			ta_buf_puts(&lines, ", ...");
		f = ta_rule_add(c, c->k->def_span,
				"`%s` is attention by structure: %s tl.dot (line%s %s) in the loop at line %u "
				"with a running max and an exponential%s",
				c->k->name, s.dots <= 4 ? counts[s.dots] : "several", shown > 1 ? "s" : "",
				ta_buf_str(&lines), c->k->loops[l].span.line, hints);
		ta_buf_free(&lines);
		ta_finding_line(f, c->k->loops[l].span.line);
		for (int i = 0; i < shown; i++)
			ta_finding_line(f, s.dot_lines[i]);
	} else {
		const ta_kernel *h = &c->m->kernels[-2 - l];
		f = ta_rule_add(c, c->k->def_span,
				"`%s` is attention by structure: its helper `%s` (line %u) runs the online-softmax loop "
				"with two tl.dot", c->k->name, h->name, h->def_line);
		ta_finding_line(f, h->def_line);
	}
	free(hints);
	return TA_STATUS_APPLIES;
}

/* ---- T2: what a layout flag does ---------------------------------------- */

/* Ops whose presence in what a flag selects makes it choose a layout:
 * transposes, and the reads, writes and pointers of memory. */
static bool layout_op(ta_op_kind kd)
{
	switch (kd) {
	case TA_OP_TRANS: case TA_OP_PERMUTE: case TA_OP_LOAD: case TA_OP_STORE: case TA_OP_MAKE_DESCRIPTOR:
	case TA_OP_MAKE_BLOCK_PTR: case TA_OP_ADVANCE: case TA_OP_DESC_LOAD: case TA_OP_DESC_STORE:
		return true;
	default:
		return false;
	}
}

/* Where a layout op reads its addressing: a load's or store's pointer, the
 * whole call of a block pointer or descriptor. */
static ta_span layout_reads(const ta_op *op)
{
	if ((op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE) && op->arg_count)
		return op->args[0];
	return op->span;
}

static bool within(ta_span s, uint32_t a, uint32_t b)
{
	return s.start >= a && s.end <= b;
}

/* The names the left side of an assignment binds (a, or a, b). */
static bool binds_used_in_layout(const ta_model *m, const ta_kernel *k, TSNode left)
{
	if (ta_node_is(left, "identifier")) {
		char *name = ta_node_text(m->src, left);
		bool used = false;
		for (size_t i = 0; i < k->op_count && !used; i++) {
			const ta_op *op = &k->ops[i];
			ta_span r = layout_reads(op);
			used = layout_op(op->kind) && op->kind != TA_OP_TRANS && op->kind != TA_OP_PERMUTE &&
			       r.end > r.start && ta_text_mentions(m->src->text + r.start, r.end - r.start, name);
		}
		free(name);
		return used;
	}
	for (uint32_t i = 0; i < ta_node_named_count(left); i++)
		if (binds_used_in_layout(m, k, ta_node_named_child(left, i)))
			return true;
	return false;
}

static bool flag_selects_layout(const ta_model *m, int ki, const char *flag, int depth);

/* What the test of the flag selects, [a, b) of the source, touches a layout:
 * a layout op in it, a name it binds that a pointer reads, or the flag (or
 * what it selects) handed to a helper that uses it so. */
static bool region_touches_layout(const ta_model *m, const ta_kernel *k, int ki, uint32_t a, uint32_t b,
				  const char *flag, int depth)
{
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (!within(op->span, a, b))
			continue;
		if (layout_op(op->kind))
			return true;
		if (op->kind == TA_OP_HELPER_CALL && op->helper >= 0 && op->helper != ki && depth < 3) {
			const ta_kernel *h = &m->kernels[op->helper];
			for (size_t j = 0; j < op->arg_count && j < h->param_count; j++)
				if (ta_text_mentions(m->src->text + op->args[j].start, op->args[j].end - op->args[j].start,
						     flag) &&
				    flag_selects_layout(m, op->helper, h->params[j].name, depth + 1))
					return true;
		}
	}
	/* the names it binds */
	TSNode root = ta_syntax_root(m->syn);
	TSNode n = ta_node_named_at(root, a, b);
	ta_walk w;
	ta_walk_start(&w, n);
	bool hit = false;
	for (;;) {
		TSNode x = ta_walk_node(&w);
		bool in = ts_node_start_byte(x) >= a && ts_node_end_byte(x) <= b;
		if (in && (ta_node_is(x, "assignment") || ta_node_is(x, "augmented_assignment")) &&
		    binds_used_in_layout(m, k, ta_node_field(x, "left")))
			hit = true;
		if (hit || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return hit;
}

/* Whether the flag, a parameter of kernel ki, chooses between layouts: a
 * test of it (if, elif, conditional expression) selects a transpose, a
 * pointer or a descriptor, a name a pointer reads, or a helper's parameter
 * that does; or it sits inside the addressing of a load or a pointer. A
 * flag that only picks which operand is cast, or is never read, does not. */
static bool flag_selects_layout(const ta_model *m, int ki, const char *flag, int depth)
{
	const ta_kernel *k = &m->kernels[ki];
	TSNode body = ta_node_field(k->node, "body");
	if (ts_node_is_null(body))
		return false;
	for (size_t i = 0; i < k->op_count; i++) {
		ta_span r = layout_reads(&k->ops[i]);
		if (layout_op(k->ops[i].kind) && r.end > r.start &&
		    ta_text_mentions(m->src->text + r.start, r.end - r.start, flag))
			return true;
		if (k->ops[i].kind == TA_OP_HELPER_CALL &&
		    region_touches_layout(m, k, ki, k->ops[i].span.start, k->ops[i].span.end, flag, depth))
			return true;
	}
	ta_walk w;
	ta_walk_start(&w, body);
	bool hit = false;
	for (;;) {
		TSNode x = ta_walk_node(&w);
		TSNode cond = { 0 };
		uint32_t a = 0, b = 0;
		bool binds = false;       /* a conditional expression giving a pointer's name */
		if (ta_node_is(x, "if_statement") || ta_node_is(x, "elif_clause")) {
			cond = ta_node_field(x, "condition");
			a = ts_node_end_byte(cond);
			b = ts_node_end_byte(ta_node_is(x, "elif_clause") ? ta_node_parent(x) : x);
		} else if (ta_node_is(x, "conditional_expression") && ta_node_named_count(x) == 3) {
			cond = ta_node_named_child(x, 1);
			a = ts_node_start_byte(x);
			b = ts_node_end_byte(x);
			TSNode p = ta_node_parent(x);
			binds = ta_node_is(p, "assignment") && binds_used_in_layout(m, k, ta_node_field(p, "left"));
		}
		if (!ts_node_is_null(cond) && ta_node_contains_identifier(m->src, cond, flag))
			hit = binds || region_touches_layout(m, k, ki, a, b, flag, depth);
		if (hit || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return hit;
}

/* Host-side uses of a tensor's layout that a flag may choose between. */
static const char *const host_layout_calls[] = {
	".stride(", ".t()", ".T", ".mT", ".transpose(", ".permute(", ".contiguous(", NULL,
};

static bool text_has_layout_call(const char *t, size_t n)
{
	for (int i = 0; host_layout_calls[i]; i++) {
		size_t len = strlen(host_layout_calls[i]);
		for (size_t j = 0; j + len <= n; j++)
			if (!memcmp(t + j, host_layout_calls[i], len) &&
			    (host_layout_calls[i][len - 1] == '(' || host_layout_calls[i][len - 1] == ')' ||
			     j + len == n || !(isalnum((unsigned char)t[j + len]) || t[j + len] == '_')))
				return true;
	}
	return false;
}

/* Whether the host flag reaches the launch l of kernel ki as what chooses a
 * layout: passed to a kernel parameter that selects one, or read in a call
 * that picks a tensor's stride or layout (`a.stride(3 if trans_a else 2)`),
 * or in a test whose arms do. */
static bool host_flag_reaches(const ta_rule_ctx *c, const ta_launch *l, const char *flag)
{
	const ta_model *m = c->m;
	const ta_kernel *k = c->k;
	for (size_t i = 0; i < l->kwarg_count; i++)
		if (ta_text_mentions(l->kwargs[i].value, strlen(l->kwargs[i].value), flag) &&
		    ta_kernel_param(k, l->kwargs[i].name) && flag_selects_layout(m, c->kernel, l->kwargs[i].name, 0))
			return true;
	for (size_t i = 0; i < l->arg_count && i < k->param_count; i++)
		if (ta_text_mentions(m->src->text + l->args[i].start, l->args[i].end - l->args[i].start, flag) &&
		    flag_selects_layout(m, c->kernel, k->params[i].name, 0))
			return true;
	/* a read of the flag in the launch, inside a stride or transpose call
	 * or a test choosing between them */
	TSNode call = ta_rule_node(c, l->span);
	ta_walk w;
	ta_walk_start(&w, call);
	bool hit = false;
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier") && ta_node_text_eq(m->src, x, flag)) {
			for (TSNode p = ta_node_parent(x); !ts_node_is_null(p) && !hit; p = ta_node_parent(p)) {
				if (ts_node_eq(p, call))
					break;
				if (ta_node_is(p, "call") || ta_node_is(p, "conditional_expression")) {
					uint32_t a = ts_node_start_byte(p), b = ts_node_end_byte(p);
					hit = text_has_layout_call(m->src->text + a, b - a);
				}
			}
		}
		if (hit || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return hit;
}

/* T2: a layout flag on the kernel or on the host function launching it,
 * read where it chooses a layout: a flag's name alone (never read, or only
 * picking which operand is cast) is not one. */
ta_status ta_detect_t2(ta_rule_ctx *c)
{
	for (size_t i = 0; i < c->k->param_count; i++) {
		const ta_param *p = &c->k->params[i];
		if (ta_is_layout_flag(p->name) && flag_selects_layout(c->m, c->kernel, p->name, 0)) {
			ta_rule_add(c, p->span, "`%s` takes the layout flag `%s`: one kernel serves two layouts",
				    c->k->name, p->name);
			return TA_STATUS_APPLIES;
		}
	}
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->host < 0)
			continue;
		const ta_host *h = &c->m->hosts[l->host];
		for (size_t p = 0; p < h->param_count; p++) {
			/* torch's factories take layout= (torch.strided): a
			 * wrapper's flag is the kernel's layout flag only where it
			 * reaches the launch as one. */
			if (ta_is_layout_flag(h->params[p]) && host_flag_reaches(c, l, h->params[p])) {
				ta_rule_add(c, h->span.line ? h->span : l->span,
					    "host function `%s` takes the layout flag `%s` and launches `%s` with it",
					    h->name, h->params[p], c->k->name);
				return TA_STATUS_APPLIES;
			}
		}
	}
	return TA_STATUS_NOT_APPLICABLE;
}

/* T3: the kernel is autotuned (any @triton.autotune in the file opens P1
 * and L2 for the kernels it decorates). */
ta_status ta_detect_t3(ta_rule_ctx *c)
{
	if (!c->k->autotune)
		return TA_STATUS_NOT_APPLICABLE;
	ta_rule_add(c, c->k->autotune->span, "`%s` is autotuned: check the grid and the configs with it (P1, L2)",
		    c->k->name);
	return TA_STATUS_APPLIES;
}

static bool has_raw_tiles(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if ((k->ops[i].kind == TA_OP_LOAD || k->ops[i].kind == TA_OP_STORE) &&
		    k->ops[i].ptr_shape == TA_PTR_2D)
			return true;
	return false;
}

static bool has_descriptors(const ta_kernel *k)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_DESC_LOAD || k->ops[i].kind == TA_OP_DESC_STORE ||
		    k->ops[i].kind == TA_OP_MAKE_DESCRIPTOR)
			return true;
	return false;
}

/* Profile-backed triggers only make sense for kernels the file launches. */
static bool measurable(const ta_rule_ctx *c)
{
	return !c->k->is_helper;
}

/* T4: TMA in place (every 2D tile through descriptors) and >20% slower. */
ta_status ta_detect_t4(ta_rule_ctx *c)
{
	if (!measurable(c) || !has_descriptors(c->k) || has_raw_tiles(c->k))
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	if (!e || e->baseline_ratio <= 0)
		return TA_STATUS_NEEDS_BASELINE;
	if (e->baseline_ratio <= 1.2)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, c->k->def_span,
				    "`%s` uses descriptors for its tiles but runs %.2fx the baseline's time",
				    c->k->name, e->baseline_ratio);
	f->measure = ta_xasprintf("median %.1f µs vs baseline ratio %.2f", e->median_ns / 1e3, e->baseline_ratio);
	return TA_STATUS_APPLIES;
}

/* Under this share of both ceilings a kernel that is not tiny is doing
 * something badly wrong (the checklist's "far below the device's memory
 * and compute ceilings"); tiny kernels are all launch latency. */
#define T5_FAR_BELOW_PCT 10.0

#define T5_MIN_NS 20000.0

/* T5 without a baseline: the --deep counters against the ceilings. */
static ta_status t5_from_ceilings(ta_rule_ctx *c, const ta_kernel_evidence *e)
{
	if (e->median_ns < T5_MIN_NS || e->dram_pct >= T5_FAR_BELOW_PCT || e->sm_pct >= T5_FAR_BELOW_PCT)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, c->k->def_span,
				    "`%s` runs far below both ceilings (DRAM %.1f%%, SM %.1f%% of peak) with no "
				    "baseline to compare: check raw 2D loads, broadcast+dot and fixed tiles first",
				    c->k->name, e->dram_pct, e->sm_pct);
	f->measure = ta_xasprintf("median %.1f µs; DRAM %.1f%%, SM %.1f%% of peak (--deep counters)",
				  e->median_ns / 1e3, e->dram_pct, e->sm_pct);
	return TA_STATUS_APPLIES;
}

/* T5: 10x or more slower than the baseline. */
ta_status ta_detect_t5(ta_rule_ctx *c)
{
	if (!measurable(c))
		return TA_STATUS_NOT_APPLICABLE;
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	if (e && e->baseline_ratio <= 0 && e->has_sol)
		return t5_from_ceilings(c, e);
	if (!e || e->baseline_ratio <= 0)
		return TA_STATUS_NEEDS_BASELINE;
	if (e->baseline_ratio < 10)
		return TA_STATUS_SATISFIED;
	ta_finding *f = ta_rule_add(c, c->k->def_span,
				    "`%s` runs %.1fx the baseline's time: check raw 2D loads, broadcast+dot and fixed tiles first",
				    c->k->name, e->baseline_ratio);
	f->measure = ta_xasprintf("median %.1f µs, %.1fx the baseline", e->median_ns / 1e3, e->baseline_ratio);
	return TA_STATUS_APPLIES;
}
