/* D15: Allocated on the CPU, then copied to the GPU.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether the allocation holds data the host already has (`torch.tensor(x)`,
 * a list of pointers, a Python scalar): allocated with device= it is built
 * on the CPU and copied just the same, so there is no copy to save. */
static bool d15_host_data(const ta_host_op *a)
{
	return a->callee && (!strcmp(a->callee, "torch.tensor") || !strcmp(a->callee, "torch.as_tensor"));
}

/* The line of the innermost branch (`if`, `elif`, `else`, `try`, a
 * conditional expression) of its function that the allocation lies under
 * (an `else` arm: the else's line); 0 when it runs on every call. */
static unsigned d15_branch_line(const ta_model *m, ta_span at)
{
	TSNode n = ts_node_named_descendant_for_byte_range(ta_syntax_root(m->syn), at.start, at.end);
	for (; !ts_node_is_null(n) && !ta_node_is(n, "function_definition"); n = ta_node_parent(n))
		if (ta_node_is(n, "if_statement") || ta_node_is(n, "elif_clause") || ta_node_is(n, "else_clause") ||
		    ta_node_is(n, "try_statement") || ta_node_is(n, "conditional_expression"))
			return (unsigned)ta_node_line(n);
	return 0;
}

ta_status ta_detect_d15(ta_rule_ctx *c)
{
	bool found = false;
	ta_host_walk walk = ta_index_host_walk(c->m, c->kernel);
	for (const ta_host *h; (h = ta_rule_next_host(&walk));) {
		/* a script's main() runs once: its inputs are set up, not
		 * allocated per call */
		if (h->name && !strcmp(h->name, "main"))
			continue;
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *a = &h->ops[i];
			if (a->kind != TA_HOST_ALLOC || a->has_device || d15_host_data(a))
				continue;
			for (size_t j = 0; j < h->op_count; j++) {
				const ta_host_op *t = &h->ops[j];
				/* copied later by name, or in the same expression
				 * (`torch.zeros(n).cuda()`, `.to(x.device)` chained) */
				bool named = a->target && t->receiver && !strcmp(t->receiver, a->target) &&
					     t->span.start > a->span.start;
				bool chained = t->span.start <= a->span.start && a->span.end < t->span.end;
				if (t->kind == TA_HOST_TO_DEVICE && (named || chained)) {
					unsigned br = d15_branch_line(c->m, a->span);
					char when[64] = "on every call";
					if (br)
						snprintf(when, sizeof when, "whenever the branch at line %u runs", br);
					ta_finding *f = named
						? ta_rule_add(c, a->span, "`%s` is allocated on the CPU and then copied with %s "
							      "%s: allocate it with device=", a->target, t->text, when)
						: ta_rule_add(c, a->span, "`%s` is allocated on the CPU and then copied to the "
							      "GPU by `%s` %s: allocate it with device=", a->text,
							      t->text, when);
					ta_finding_line(f, t->span.line);
					found = true;
					break;
				}
			}
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* name is assigned (or passed to an in-place method) in [s, e). */
static bool touched_between(const ta_model *m, TSNode n, const char *name, uint32_t s, uint32_t e)
{
	if (ts_node_end_byte(n) <= s || ts_node_start_byte(n) >= e)
		return false;
	if (ts_node_start_byte(n) >= s && ts_node_end_byte(n) <= e && ta_node_is(n, "identifier") &&
	    ta_node_text_eq(m->src, n, name))
		return true;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (touched_between(m, ta_node_named_child(n, i), name, s, e))
			return true;
	return false;
}

/* Every binding of a->target that may reach the copy t is an allocation
 * this edit moves to the device: a's own statement dominates the copy (the
 * copy lies after it in its block or a block inside it) and nothing else
 * in the function binds the name before the copy. Else -1 with *why naming
 * the other binding. */
static int d15_reaches(const ta_model *m, const ta_host_op *a, TSNode as, TSNode ts, char **why)
{
	TSNode fn = ta_node_ancestor(as, "function_definition");
	TSNode scope = ts_node_is_null(fn) ? ta_syntax_root(m->syn) : fn;
	ta_edits_defs d = { .n = 0 };
	ta_edits_find_defs(m, scope, a->target, &d);
	if (d.more)
		return ta_edits_refuse(why, "line %u: %s is bound more than eight times in the function", a->span.line,
				       a->target);
	TSNode block = ta_node_parent(as);
	bool dominates = !ts_node_is_null(block) && ts_node_start_byte(ts) >= ts_node_end_byte(as) &&
			 ts_node_end_byte(ts) <= ts_node_end_byte(block);
	for (size_t i = 0; i < d.n; i++) {
		TSNode b = d.v[i];
		uint32_t bs = ts_node_start_byte(b);
		if (bs >= ts_node_start_byte(ts) || (bs >= ts_node_start_byte(as) && bs < ts_node_end_byte(as)))
			continue;
		if (bs < ts_node_start_byte(as) && dominates)
			continue;   /* overwritten by the allocation before the copy */
		return ta_edits_refuse(why, "line %u: %s is also bound at line %u, on a path to the copy at line %u that "
				       "this edit would leave on the CPU", a->span.line, a->target,
				       (unsigned)ta_node_line(b), (unsigned)ta_node_line(ts));
	}
	if (!dominates)
		return ta_edits_refuse(why, "line %u: the allocation of %s is not on every path to the copy at line %u: "
				       "without it the copy moves something else", a->span.line, a->target,
				       (unsigned)ta_node_line(ts));
	return 0;
}

/* The device a copy `x.cuda()` or `x.to(dev)` moves to, as text to write
 * after `device=` (caller frees); NULL for anything else (a dtype cast, a
 * copy with more arguments). */
static char *copy_device(const ta_model *m, TSNode tc)
{
	TSNode tf = ta_node_field(tc, "function");
	TSNode targs = ta_node_field(tc, "arguments");
	if (!ta_node_is(tf, "attribute"))
		return NULL;
	char *meth = ta_node_text(m->src, ta_node_field(tf, "attribute"));
	char *dev = NULL;
	uint32_t na = ta_node_named_count(targs);
	if (meth && !strcmp(meth, "cuda") && na == 0) {
		dev = ta_xstrdup("\"cuda\"");
	} else if (meth && !strcmp(meth, "to") && na == 1) {
		TSNode arg = ta_node_named_child(targs, 0);
		if (ta_node_is(arg, "keyword_argument") && ta_node_text_eq(m->src, ta_node_field(arg, "name"), "device"))
			arg = ta_node_field(arg, "value");
		if (!ta_node_is(arg, "keyword_argument"))
			dev = ta_node_text(m->src, arg);
		/* a dtype is not a device */
		if (dev && (strstr(dev, "float") || strstr(dev, "int") || strstr(dev, "bool") || strstr(dev, "dtype"))) {
			free(dev);
			dev = NULL;
		}
	}
	free(meth);
	return dev;
}

/* `device=dev` written into the allocation call ac. */
static void d15_device_into(ta_edit *out, TSNode ac, const char *dev)
{
	TSNode aargs = ta_node_field(ac, "arguments");
	uint32_t an = ta_node_named_count(aargs);
	TSNode last = an ? ta_node_named_child(aargs, an - 1) : (TSNode){ 0 };
	char *kw = ta_xasprintf("%sdevice=%s", ts_node_is_null(last) ? "" : ", ", dev);
	uint32_t at = ts_node_is_null(last) ? ts_node_end_byte(aargs) - 1 : ts_node_end_byte(last);
	ta_edit_replace(out, at, at, kw);
	free(kw);
}

/* The edit's title and line, and its assumption when the allocation is
 * random: the device's generator draws other numbers than the CPU's. */
static void d15_finish(ta_edit *out, const ta_host *h, const ta_host_op *a, const char *what, const char *dev)
{
	ta_edit_set_title(out, "allocate %s on the device (device=%s) instead of copying it in %s", what, dev,
			  h->name);
	if (a->callee && (!strcmp(a->callee, "torch.randn") || !strcmp(a->callee, "torch.rand")))
		ta_edit_set_unsafe(out, "assumes %s's random values need not equal those %s drew on the CPU for the "
				   "same seed", what, a->callee);
	out->line = a->span.line;
}

static int d15_one(const ta_model *m, const ta_host *h, const ta_host_op *a, const ta_host_op *t, ta_edit *out,
		   char **why)
{
	TSNode ac = ta_edits_node(m, a->span), tc = ta_edits_node(m, t->span);
	if (!ta_node_is(ac, "call") || !ta_node_is(tc, "call"))
		return ta_edits_refuse(why, "line %u: the allocation or the copy is not a plain call", a->span.line);
	TSNode targs = ta_node_field(tc, "arguments");
	char *dev = copy_device(m, tc);
	if (!dev)
		return ta_edits_refuse(why, "line %u: `%s` is not .to(device) or .cuda() with a device alone",
				       t->span.line, t->text);
	/* The device is known at the allocation, and the CPU tensor is not
	 * used before it is copied. */
	TSNode as = ta_node_ancestor(ac, "expression_statement");
	TSNode ts = ta_node_ancestor(tc, "expression_statement");
	TSNode devn = ta_node_named_child(targs, 0);
	char **names;
	size_t nn = ta_edits_names(m, devn, &names);
	bool late = false;
	for (size_t i = 0; i < nn && !late && !ts_node_is_null(as); i++) {
		TSNode fn = ts_node_is_null(as) ? as : ta_node_parent(as);
		late = touched_between(m, fn, names[i], ts_node_end_byte(as), ts_node_start_byte(tc));
	}
	ta_edits_names_free(names, nn);
	if (ts_node_is_null(as) || ts_node_is_null(ts) || late) {
		free(dev);
		return ta_edits_refuse(why, "line %u: the device `%s` is not known where %s is allocated", a->span.line,
				       t->text, a->target);
	}
	if (d15_reaches(m, a, as, ts, why) != 0) {
		free(dev);
		return -1;
	}
	if (touched_between(m, ta_node_parent(as), a->target, ts_node_end_byte(as), ts_node_start_byte(ts))) {
		free(dev);
		return ta_edits_refuse(why, "line %u: %s is used on the CPU before the copy at line %u", a->span.line,
				       a->target, t->span.line);
	}
	/* device= into the allocation. */
	d15_device_into(out, ac, dev);
	/* `x = x.to(dev)` goes; elsewhere `x.to(dev)` becomes `x`. */
	TSNode asg = ta_node_named_child(ts, 0);
	uint32_t end;
	uint32_t start = ta_edits_stmt_lines(m, ts, &end);
	if (ta_node_is(asg, "assignment") && ta_node_text_eq(m->src, ta_node_field(asg, "left"), a->target) &&
	    ts_node_eq(ta_node_field(asg, "right"), tc) && start != UINT32_MAX) {
		ta_edit_replace(out, start, end, "");
	} else {
		ta_edit_replace(out, ts_node_start_byte(tc), ts_node_end_byte(tc), a->target);
	}
	d15_finish(out, h, a, a->target, dev);
	free(dev);
	return 0;
}

/* The copy t chained onto the allocation a in one expression
 * (`torch.zeros(n).to(torch.float32).cuda()`): device= goes into the
 * allocation and the copy's call goes, the casts between kept. */
static int d15_chained(const ta_model *m, const ta_host *h, const ta_host_op *a, const ta_host_op *t,
		       ta_edit *out, char **why)
{
	TSNode ac = ta_edits_node(m, a->span), tc = ta_edits_node(m, t->span);
	if (!ta_node_is(ac, "call") || !ta_node_is(tc, "call"))
		return ta_edits_refuse(why, "line %u: the allocation or the copy is not a plain call", a->span.line);
	char *dev = copy_device(m, tc);
	if (!dev)
		return ta_edits_refuse(why, "line %u: `%s` is not .to(device) or .cuda() with a device alone",
				       t->span.line, t->text);
	TSNode obj = ta_node_field(ta_node_field(tc, "function"), "object");
	d15_device_into(out, ac, dev);
	ta_edit_replace(out, ts_node_end_byte(obj), ts_node_end_byte(tc), "");
	d15_finish(out, h, a, a->text, dev);
	free(dev);
	return 0;
}

static bool d15_site(const ta_model *m, const ta_host *h, const ta_host_op *a)
{
	(void)m, (void)h;
	return a->kind == TA_HOST_ALLOC && !a->has_device;
}

/* The allocation a and the first copy of it to the device after it; not a
 * site (-2) when it is never copied. */
static int d15_at(const ta_model *m, const ta_host *h, const ta_host_op *a, ta_edit *out, char **why)
{
	for (size_t j = 0; j < h->op_count; j++) {
		const ta_host_op *t = &h->ops[j];
		if (t->kind != TA_HOST_TO_DEVICE)
			continue;
		if (a->target && t->receiver && !strcmp(t->receiver, a->target) && t->span.start > a->span.start)
			return d15_one(m, h, a, t, out, why);
		if (t->span.start <= a->span.start && a->span.end < t->span.end)
			return d15_chained(m, h, a, t, out, why);
	}
	return -2;
}

/* Rewrite: allocate on the device (device=) instead of .to(device) after. */
TA_REWRITE(D15, NULL, TA_MIXED("assumes random values drawn on the device need not equal those the CPU generator gave"))
{
	return ta_edits_each_host_op(m, kernel_or_host, line, d15_site, d15_at, out, why_not,
				     "no CPU allocation copied to the device afterwards");
}
