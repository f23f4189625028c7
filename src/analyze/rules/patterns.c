/* Section 3: fast vs slow patterns (S1-S8). */
#include "config.h"
#include "analyze/rules/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

ta_status ta_detect_s1(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if ((op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE) || op->ptr_shape != TA_PTR_2D)
			continue;
		const char *what = op->kind == TA_OP_LOAD ? "loaded" : "stored";
		char *ptr = op->arg_count ? ta_rule_text(c, op->args[0]) : ta_xstrdup("?");
		if (strlen(ptr) > 72)
			strcpy(ptr + 69, "...");
		for (char *p = ptr; *p; p++)
			if (*p == '\n' || *p == '\t')
				*p = ' ';
		ta_finding *f;
		if (op->gather) {
			f = ta_rule_add(c, op->span,
				"%s%s%s tile %s through a gathered 2D pointer `%s` (rows from a loaded index): "
				"a descriptor gather is the fast form", op->target ? "`" : "",
				op->target ? op->target : "a", op->target ? "`" : "", what, ptr);
			f->tags |= TA_TAG_GUIDED;
		} else {
			f = ta_rule_add(c, op->span, "%s%s%s tile %s with a raw 2D %spointer `%s`: a tensor "
				"descriptor %s is the fast form", op->target ? "`" : "",
				op->target ? op->target : "a", op->target ? "`" : "", what,
				op->has_mask ? "masked " : "", ptr, op->kind == TA_OP_LOAD ? "load" : "store");
		}
		free(ptr);
		found = true;
	}
	if (found)
		return TA_STATUS_APPLIES;
	return uses_descriptors(k) ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

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

/* The accumulator a dot adds into, as text (caller frees), or NULL. */
static char *dot_accumulator(const ta_rule_ctx *c, const ta_op *dot)
{
	if (dot->arg_count >= 3)
		return ta_rule_text(c, dot->args[2]);
	const ta_kwarg *acc = ta_kwarg_find(dot->kwargs, dot->kwarg_count, "acc");
	if (acc)
		return ta_xstrdup(acc->value);
	if (dot->augmented && dot->target)
		return ta_xstrdup(dot->target);
	return NULL;
}

ta_status ta_detect_s3(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool dots = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *dot = &k->ops[i];
		if (dot->kind != TA_OP_DOT)
			continue;
		dots = true;
		char *acc = dot_accumulator(c, dot);
		if (!acc)
			continue;
		/* The zeros must be made in the same loop body as the dot: one made
		 * before the loop is carried across iterations (the normal form). */
		const ta_op *z = NULL;
		for (size_t j = 0; j < k->op_count; j++) {
			const ta_op *op = &k->ops[j];
			if (op->kind == TA_OP_ZEROS && op->target && !strcmp(op->target, acc) &&
			    op->span.start < dot->span.start && op->loop == dot->loop)
				z = op;
		}
		/* ...and nothing else may assign it in between. */
		if (z) {
			size_t n;
			const ta_assign *as = ta_rule_assigns(c, &n);
			for (size_t a = 0; a < n && z; a++)
				if (!strcmp(as[a].name, acc) && as[a].stmt.start > z->span.end &&
				    as[a].stmt.end < dot->span.start)
					z = NULL;
		}
		if (z) {
			ta_finding *f;
			if (dot->loop >= 0)
				f = ta_rule_add(c, dot->span,
					"`%s` is zeroed at line %u and then used as the accumulator of this tl.dot on "
					"every iteration of the loop at line %u: `%s = tl.dot(a, b)` does the same",
					acc, z->span.line, k->loops[dot->loop].span.line, acc);
			else
				f = ta_rule_add(c, dot->span,
					"`%s` is zeroed at line %u only to accumulate this tl.dot: `%s = tl.dot(a, b)` "
					"does the same", acc, z->span.line, acc);
			ta_finding_line(f, z->span.line);
			found = true;
		}
		free(acc);
	}
	if (found)
		return TA_STATUS_APPLIES;
	return dots ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_s4(ta_rule_ctx *c)
{
	if (!c->k->autotune)
		return TA_STATUS_NOT_APPLICABLE;   /* no config list at all: P1's business */
	return ta_rule_serve(c, "P1", TA_TAG_GPU_SPLIT);
}


/* The shape list of a descriptor op as a node, or null. */
static TSNode descriptor_shape(const ta_rule_ctx *c, const ta_op *op)
{
	const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, "shape");
	if (kw)
		return ta_rule_node(c, kw->value_span);
	if (op->arg_count >= 2)
		return ta_rule_node(c, op->args[1]);
	TSNode none = { 0 };
	return none;
}

ta_status ta_detect_s5(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_param *group = NULL;
	for (size_t i = 0; i < k->param_count && !group; i++)
		if (ta_name_among(k->params[i].name, ta_gqa_group_sizes) ||
		    ta_name_among(k->params[i].name, ta_gqa_kv_head_counts))
			group = &k->params[i];
	if (!group)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_MAKE_DESCRIPTOR)
			continue;
		char *base = ta_op_arg(c, op, 0);
		bool kv = ta_gqa_kv_name(op->target) || ta_gqa_kv_name(base);
		free(base);
		if (!kv)
			continue;
		any = true;
		TSNode shape = descriptor_shape(c, op);
		if (!ta_node_is(shape, "list") && !ta_node_is(shape, "tuple"))
			continue;
		uint32_t n = ta_node_named_count(shape);
		for (uint32_t d = 0; d < n; d++) {
			TSNode el = ts_node_named_child(shape, d);
			if (!ta_node_is(el, "identifier"))
				continue;
			char *t = ta_node_text(c->m->src, el);
			if (ta_name_among(t, ta_gqa_head_counts) && ta_kernel_param(k, t)) {
				ta_rule_add(c, op->span,
					"descriptor %s%s%s declares its head dimension as `%s` (the Q head count) although "
					"`%s` has `%s`: K/V hold `%s // %s` heads", op->target ? "`" : "",
					op->target ? op->target : "", op->target ? "`" : "", t, k->name, group->name, t,
					group->name);
				found = true;
			}
			free(t);
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

ta_status ta_detect_s6(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	bool fast = false, found = false;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_INLINE_ASM)
			fast = true;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind != TA_OP_TANH || op->loop < 0)
			continue;
		if (fast)
			return TA_STATUS_SATISFIED;
		ta_rule_add(c, op->span, "%s inside the loop at line %u: a fast tanh approximation "
			    "(tanh.approx.f32 behind a flag) is cheaper", op->callee ? op->callee : "tanh",
			    k->loops[op->loop].span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : fast ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* True when the node sits under an if/conditional inside its function. */
static bool conditional(const ta_rule_ctx *c, ta_span s)
{
	TSNode n = ta_rule_node(c, s);
	while (!ts_node_is_null(n) && !ta_node_is(n, "function_definition")) {
		if (ta_node_is(n, "if_statement") || ta_node_is(n, "conditional_expression") ||
		    ta_node_is(n, "elif_clause") || ta_node_is(n, "else_clause"))
			return true;
		n = ta_node_parent(n);
	}
	return false;
}

ta_status ta_detect_s7(ta_rule_ctx *c)
{
	bool any = false, found = false;
	for (size_t hi = 0; hi < c->m->host_count; hi++) {
		const ta_host *h = &c->m->hosts[hi];
		bool launches = false;
		for (size_t i = 0; i < h->launch_count; i++)
			launches |= c->m->launches[h->launches[i]].kernel == c->kernel;
		if (!launches || h->span.end == 0 || ta_rule_host_is_test(h))
			continue;
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			/* x.transpose(...).contiguous() is a needed copy; S7 is about inputs. */
			if (op->kind != TA_HOST_CONTIGUOUS || !op->receiver || strpbrk(op->receiver, "().[]"))
				continue;
			any = true;
			if (conditional(c, op->span))
				continue;
			ta_rule_add(c, op->span, "`%s` calls %s.contiguous() on every call: copy only when the "
				    "stride needs it (if %s.stride(-1) != 1)", h->name,
				    op->receiver ? op->receiver : "x", op->receiver ? op->receiver : "x");
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

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

static bool in_key(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->key_count; i++)
		if (!strcmp(a->key[i], name))
			return true;
	return false;
}

static bool tuned(const ta_kernel *k, const char *name)
{
	const ta_autotune *a = k->autotune;
	for (size_t i = 0; i < a->config_count; i++)
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name))
			return true;
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (!strcmp(k->heuristics[i].name, name))
			return true;
	return false;
}

/* Whether a sequence length sets how far a loop of the kernel runs: named in
 * a loop's range or condition, or in a value assigned before and named
 * there (`hi = tl.minimum(N_CTX, ...)`). A length that only bounds masks (a
 * chunked scan whose loops run over a fixed chunk) does not move the best
 * config, and putting it in the key would retune for every length. */
static bool bounds_a_loop(ta_rule_ctx *c, const char *name)
{
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t l = 0; l < k->loop_count; l++) {
		ta_span it = k->loops[l].iter;
		if (!it.end)
			continue;
		if (ta_rule_mentions(c, it, name))
			return true;
		for (size_t i = 0; i < n; i++)
			if (as[i].stmt.start < it.start && ta_rule_mentions(c, as[i].rhs, name) &&
			    ta_rule_mentions(c, it, as[i].name))
				return true;
	}
	return false;
}

ta_status ta_detect_s8(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_autotune *a = k->autotune;
	if (!a)
		return TA_STATUS_NOT_APPLICABLE;
	ta_buf missing = TA_BUF_INIT;
	bool seq_in_key = false, has_seq = false;
	for (size_t i = 0; i < k->param_count; i++)
		if (ta_name_among(k->params[i].name, seq_params)) {
			has_seq = true;
			seq_in_key |= in_key(a, k->params[i].name);
		}
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		bool mode = p->constexpr_ && ta_name_among(p->name, mode_params);
		bool seq = !seq_in_key && has_seq && ta_name_among(p->name, seq_params) &&
			   bounds_a_loop(c, p->name);
		if ((mode || seq) && !in_key(a, p->name) && !tuned(k, p->name))
			ta_buf_printf(&missing, "%s%s", missing.len ? ", " : "", p->name);
	}
	ta_status s = TA_STATUS_SATISFIED;
	if (missing.len) {
		ta_span where = a->key_span.end ? a->key_span : a->span;
		char *key = a->key_span.end ? ta_rule_text(c, a->key_span) : ta_xstrdup("(none)");
		ta_finding *f = ta_rule_add(c, where, "autotune key %s of `%s` lacks %s: modes share one tuned config",
					    key, k->name, ta_buf_str(&missing));
		ta_finding_line(f, a->span.line);
		free(key);
		s = TA_STATUS_APPLIES;
	}
	ta_buf_free(&missing);
	return s;
}
