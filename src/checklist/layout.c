/* Section 1: layout flags -> structure (L1-L4). */
#include "config.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <string.h>

ta_status ta_detect_l3(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!a)
		return TA_STATUS_NOT_APPLICABLE;
	bool any = false, found = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->host < 0)
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
			if (ta_rule_reported_at(c, op->span.start))
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

/* Whether text names one of the variables a for loop's target binds
 * (`t`, or any name of `i, (a, b)`). */
static bool bound_by(const char *target, const char *text)
{
	size_t n = strlen(text);
	if (!n || !(isalpha((unsigned char)text[0]) || text[0] == '_'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(isalnum((unsigned char)text[i]) || text[i] == '_'))
			return false;
	return ta_text_mentions(target, strlen(target), text);
}

/* The argument of launch l that is the item of its loop's list: the loop
 * variable itself (`for t in tensors`, `for a, b in zip(xs, ys)`) or
 * `xs[i]` under `for i in range(len(xs))`, passed to a parameter that is
 * not tl.constexpr. NULL when the loop walks anything else: chunks of one
 * tensor from a helper call (`for start, n in launch_chunks(...)`),
 * literal values (constexpr specialisations, sizes), a repeat count.
 * Caller frees. */
static char *item_argument(ta_rule_ctx *c, const ta_launch *l)
{
	const char *it = l->loop_iter, *var = l->loop_var;
	if (!it || !var)
		return NULL;
	char *indexed = NULL;      /* "xs[i]" for range(len(xs)) */
	if (!strncmp(it, "range(len(", 10)) {
		const char *close = strchr(it + 10, ')');
		if (!close || strcmp(close, "))"))
			return NULL;
		indexed = ta_xasprintf("%.*s[%s]", (int)(close - it - 10), it + 10, var);
	} else if (it[0] == '(' || it[0] == '[') {
		const char *p = it + 1;
		while (*p == ' ' || *p == '\n')
			p++;
		if (isdigit((unsigned char)*p) || *p == '"' || *p == '\'' || *p == '-')
			return NULL;  /* literal values, not tensors */
	} else if (strchr(it, '(') && strncmp(it, "zip(", 4) && strncmp(it, "enumerate(", 10)) {
		return NULL;       /* a call that makes the items: chunks, ranges */
	}
	const ta_kernel *k = c->k;
	char *found = NULL;
	for (size_t i = 0; i < l->arg_count + l->kwarg_count && !found; i++) {
		const ta_param *p = NULL;
		char *a;
		if (i < l->arg_count) {
			p = i < k->param_count ? &k->params[i] : NULL;
			a = ta_rule_text(c, l->args[i]);
		} else {
			const ta_kwarg *kw = &l->kwargs[i - l->arg_count];
			p = ta_kernel_param(k, kw->name);
			a = ta_xstrdup(kw->value);
		}
		if (p && !p->constexpr_ && (indexed ? !strcmp(a, indexed) : bound_by(var, a)))
			found = a;
		else
			free(a);
	}
	free(indexed);
	return found;
}

ta_status ta_detect_l4(ta_rule_ctx *c)
{
	if (c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	bool found = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (l->loop_depth == 0)
			continue;
		/* a test's loop over cases is not the kernel users' launch path */
		if (l->host >= 0 && ta_rule_host_is_test(&c->m->hosts[l->host]))
			continue;
		char *item = item_argument(c, l);
		if (!item)
			continue;
		free(item);
		ta_finding *f = ta_rule_add(c, l->span,
			"`%s` is launched once per item of `%s` from the loop at line %u: one batched launch "
			"(program_id(1) picks the tensor) saves the launch overhead",
			c->k->name, l->loop_iter, l->loop_span.line);
		ta_finding_line(f, l->loop_span.line);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}
