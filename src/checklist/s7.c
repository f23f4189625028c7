/* S7: Unconditional .contiguous() in the wrapper.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int s7_precondition(const ta_model *m, const ta_host *h, const ta_host_op *op, TSNode call, char **why_not);

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
	ta_host_walk walk = ta_index_host_walk(c->m, c->kernel);
	for (const ta_host *h; (h = ta_rule_next_host(&walk));) {
		for (size_t i = 0; i < h->op_count; i++) {
			const ta_host_op *op = &h->ops[i];
			/* x.transpose(...).contiguous() is a needed copy; S7 is about inputs. */
			if (op->kind != TA_HOST_CONTIGUOUS || !op->receiver || strpbrk(op->receiver, "().[]"))
				continue;
			any = true;
			if (conditional(c, op->span))
				continue;
			/* Skipping the copy saves something only where the kernels
			 * read every stride but the last: a kernel that derives its
			 * offsets from sizes (a flat kernel, `row * N + col`) relies
			 * on the whole layout, and there .contiguous() copies only
			 * when it must. */
			char *why = NULL;
			int pre = s7_precondition(c->m, h, op, ta_rule_node(c, op->span), &why);
			free(why);
			if (pre != 0)
				continue;
			ta_rule_add(c, op->span, "`%s` calls %s.contiguous() on every call, and its kernels read every "
				    "stride of %s but the last: copy only when the last stride is not 1 "
				    "(if %s.stride(-1) != 1)", h->name, op->receiver, op->receiver, op->receiver);
			found = true;
		}
	}
	if (found)
		return TA_STATUS_APPLIES;
	return any ? TA_STATUS_SATISFIED : TA_STATUS_NOT_APPLICABLE;
}

/* ---- S7: x = x.contiguous() only when the last stride asks for it -------- */

/* A receiver we may evaluate twice: a name or a chain of attributes. */
static bool plain_name(TSNode n)
{
	if (ta_node_is(n, "identifier"))
		return true;
	return ta_node_is(n, "attribute") && plain_name(ta_node_field(n, "object"));
}

/* Inside an `if` or a conditional expression that tests a stride. */
static bool already_conditional(const ta_model *m, TSNode n)
{
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition") || ta_node_is(p, "module"))
			break;
		TSNode cond = ta_node_is(p, "if_statement") ? ta_node_field(p, "condition") :
			      ta_node_is(p, "conditional_expression") ? ta_node_named_child(p, 1) : (TSNode){ 0 };
		if (!ts_node_is_null(cond)) {
			char *t = ta_node_text(m->src, cond);
			bool s = strstr(t, "stride") || strstr(t, "is_contiguous");
			free(t);
			if (s)
				return true;
		}
	}
	return false;
}

/* ---- S7's precondition: what the kernel relies on is what it is told ---- */

/* The number of dimensions the host states for name: `a, b = name.shape`
 * (or .size()), `assert name.dim() == 2`, `assert name.ndim == 3`; 0 when
 * none. A comparison outside an assert (`1 if x.ndim == 1 else ...`) tests
 * the rank, it does not state it. */
static int s7_ndim_in(const ta_model *m, TSNode n, const char *name, bool asserted);

static int s7_ndim(const ta_model *m, TSNode n, const char *name)
{
	return s7_ndim_in(m, n, name, false);
}

static int s7_ndim_in(const ta_model *m, TSNode n, const char *name, bool asserted)
{
	if (ts_node_is_null(n))
		return 0;
	if (ta_node_is(n, "assignment")) {
		TSNode l = ta_node_field(n, "left"), r = ta_node_unparen(ta_node_field(n, "right"));
		if (ta_node_is(r, "call"))
			r = ta_node_field(r, "function");
		if ((ta_node_is(l, "pattern_list") || ta_node_is(l, "tuple_pattern")) && ta_node_is(r, "attribute") &&
		    ta_node_text_eq(m->src, ta_node_field(r, "object"), name) &&
		    (ta_node_text_eq(m->src, ta_node_field(r, "attribute"), "shape") ||
		     ta_node_text_eq(m->src, ta_node_field(r, "attribute"), "size"))) {
			int c = 0;
			for (uint32_t i = 0; i < ta_node_named_count(l); i++)
				c += ta_node_is(ta_node_named_child(l, i), "list_splat_pattern") ? 100 : 1;
			return c < 100 ? c : 0;
		}
	}
	if (asserted && ta_node_is(n, "comparison_operator") && ta_node_named_count(n) == 2) {
		TSNode a = ta_node_unparen(ta_node_named_child(n, 0)), b = ta_node_named_child(n, 1);
		TSNode op = ts_node_child(n, 1);
		if (ta_node_is(a, "call"))
			a = ta_node_field(a, "function");
		if (ta_node_is(op, "==") && ta_node_is(a, "attribute") && ta_node_is(b, "integer") &&
		    ta_node_text_eq(m->src, ta_node_field(a, "object"), name) &&
		    (ta_node_text_eq(m->src, ta_node_field(a, "attribute"), "dim") ||
		     ta_node_text_eq(m->src, ta_node_field(a, "attribute"), "ndim"))) {
			char *t = ta_node_text(m->src, b);
			int v = atoi(t);
			free(t);
			return v > 0 && v < 16 ? v : 0;
		}
	}
	/* in an assert: its test, or one side of an `and` in it */
	bool in_assert = ta_node_is(n, "assert_statement") || (asserted && ta_node_is(n, "boolean_operator"));
	/* outside an assert only assignments count, and no expression holds one */
	if (!in_assert && ta_node_is_expression(n))
		return 0;
	for (uint32_t i = 0; i < ta_node_named_count(n); i++) {
		int v = s7_ndim_in(m, ta_node_named_child(n, i), name, in_assert);
		if (v)
			return v;
	}
	return 0;
}

/* For `name.stride(K)` (K an integer literal, maybe negative) the
 * dimension K, counted from the front when ndim is known; -100 for any
 * other node. */
static int s7_stride_dim(const ta_model *m, TSNode n, const char *name, int ndim)
{
	n = ta_node_unparen(n);
	if (!ta_node_is(n, "call"))
		return -100;
	TSNode f = ta_node_field(n, "function"), args = ta_node_field(n, "arguments");
	if (!ta_node_is(f, "attribute") || !ta_node_text_eq(m->src, ta_node_field(f, "object"), name) ||
	    !ta_node_text_eq(m->src, ta_node_field(f, "attribute"), "stride") || ta_node_named_count(args) != 1)
		return -100;
	char *t = ta_node_text(m->src, ta_node_named_child(args, 0));
	char *end;
	long v = strtol(t, &end, 10);
	bool ok = *t && !*end;
	free(t);
	if (!ok || v <= -16 || v >= 16)
		return -100;
	return v < 0 ? (int)(ndim + v) : (int)v;
}

/* A read of name the copy's absence cannot change: its shape, sizes, dtype,
 * device, one stride by index. */
static bool s7_harmless_use(const ta_model *m, TSNode id, const char *name, int ndim)
{
	TSNode p = ta_node_parent(id);
	if (!ta_node_is(p, "attribute") || !ts_node_eq(ta_node_field(p, "object"), id))
		return false;
	static const char *const attrs[] = { "shape", "dtype", "device", "ndim", "is_cuda", NULL };
	static const char *const calls[] = { "size", "numel", "dim", "element_size", NULL };
	TSNode a = ta_node_field(p, "attribute");
	for (size_t i = 0; attrs[i]; i++)
		if (ta_node_text_eq(m->src, a, attrs[i]))
			return true;
	TSNode c = ta_node_parent(p);
	if (!ta_node_is(c, "call"))
		return false;
	for (size_t i = 0; calls[i]; i++)
		if (ta_node_text_eq(m->src, a, calls[i]))
			return true;
	return s7_stride_dim(m, c, name, ndim) > -100;
}

typedef struct s7_facts {
	const char *name;
	int ndim;
	uint32_t after;           /* uses before this offset are not looked at */
	const ta_launch *const *launches;
	size_t nl;
	uint32_t bad_line;        /* a use that relies on the layout */
	char *bad;                /* its text */
} s7_facts;

static bool in_launch_args(const s7_facts *f, TSNode n)
{
	for (size_t i = 0; i < f->nl; i++)
		for (size_t a = 0; a < f->launches[i]->arg_count; a++)
			if (ts_node_start_byte(n) >= f->launches[i]->args[a].start &&
			    ts_node_end_byte(n) <= f->launches[i]->args[a].end)
				return true;
	for (size_t i = 0; i < f->nl; i++)
		for (size_t a = 0; a < f->launches[i]->kwarg_count; a++)
			if (ts_node_start_byte(n) >= f->launches[i]->kwargs[a].value_span.start &&
			    ts_node_end_byte(n) <= f->launches[i]->kwargs[a].value_span.end)
				return true;
	return false;
}

static void s7_uses(const ta_model *m, TSNode n, s7_facts *f)
{
	if (f->bad || ts_node_end_byte(n) <= f->after)
		return;
	if (ta_node_is(n, "identifier") && ts_node_start_byte(n) >= f->after && ta_node_text_eq(m->src, n, f->name)) {
		TSNode p = ta_node_parent(n);
		bool bound = (ta_node_is(p, "assignment") || ta_node_is(p, "augmented_assignment")) &&
			     ts_node_eq(ta_node_field(p, "left"), n);
		bool keyword = ta_node_is(p, "keyword_argument") && ts_node_eq(ta_node_field(p, "name"), n);
		bool passed = in_launch_args(f, n) &&
			      (ta_node_is(p, "argument_list") || ta_node_is(p, "keyword_argument") ||
			       s7_harmless_use(m, n, f->name, f->ndim));
		if (!bound && !keyword && !passed && !s7_harmless_use(m, n, f->name, f->ndim)) {
			TSNode s = n;
			for (TSNode q = p; !ts_node_is_null(q) && !ta_node_is(q, "block") && !ta_node_is(q, "module");
			     q = ta_node_parent(q))
				s = q;
			f->bad_line = (uint32_t)ta_node_line(n);
			char *t = ta_node_text(m->src, s);
			f->bad = ta_xstrndup(t, strcspn(t, "\n"));
			free(t);
		}
		return;
	}
	for (uint32_t i = 0; i < ta_node_named_count(n); i++)
		s7_uses(m, ta_node_named_child(n, i), f);
}

/* Refuses (-1, *why_not) unless skipping the copy cannot change what the
 * host's kernels compute: the tensor's dimensions are stated, every launch
 * that gets it also gets, and its kernel reads, the stride of every
 * dimension but the last, and after the copy it is used for nothing else
 * than those launches, its shape, sizes, dtype and device. */
static int s7_precondition(const ta_model *m, const ta_host *h, const ta_host_op *op, TSNode call, char **why_not)
{
	const char *x = op->receiver;
	TSNode fn = ta_node_ancestor(call, "function_definition");
	if (ts_node_is_null(fn))
		return ta_edits_refuse(why_not, "line %u: the copy is not inside a wrapper function", op->span.line);
	int ndim = s7_ndim(m, fn, x);
	if (!ndim)
		return ta_edits_refuse(why_not, "line %u: %s states no number of dimensions (`M, N = %s.shape` or "
				       "`assert %s.dim() == 2`), so whether the kernel gets every stride it relies on "
				       "cannot be told", op->span.line, h->name, x, x);
	if (ndim == 1)
		return ta_edits_refuse(why_not, "line %u: %s has one dimension: with a last stride of 1 it is "
				       "contiguous already, and .contiguous() copies only when the test would",
				       op->span.line, x);
	const ta_launch *ls[16];
	size_t nl = 0;
	for (size_t i = 0; i < h->launch_count && nl < 16; i++) {
		const ta_launch *l = &m->launches[h->launches[i]];
		if (l->span.start < op->span.end)
			continue;
		ls[nl++] = l;
	}
	bool gets = false;
	for (size_t i = 0; i < nl; i++) {
		const ta_launch *l = ls[i];
		const ta_kernel *k = l->kernel >= 0 ? &m->kernels[l->kernel] : NULL;
		bool passes = false;
		unsigned told = 0;
		for (size_t a = 0; a < l->arg_count + l->kwarg_count && !passes; a++) {
			TSNode v = ta_edits_node(m, a < l->arg_count ? l->args[a] : l->kwargs[a - l->arg_count].value_span);
			passes = ta_node_is(v, "identifier") && ta_node_text_eq(m->src, v, x);
		}
		if (!passes)
			continue;
		/* the strides only of a launch that gets x: each is a walk of the
		 * kernel's body */
		for (size_t a = 0; a < l->arg_count + l->kwarg_count; a++) {
			bool pos = a < l->arg_count;
			const ta_kwarg *kw = pos ? NULL : &l->kwargs[a - l->arg_count];
			TSNode v = ta_edits_node(m, pos ? l->args[a] : kw->value_span);
			int d = s7_stride_dim(m, v, x, ndim);
			if (d < 0 || d >= ndim || !k || (told & (1u << d)))
				continue;
			/* the parameter it binds, read in the kernel's body */
			const char *pname = pos ? (a < k->param_count ? k->params[a].name : NULL) : kw->name;
			if (pname && ta_edits_ident_count(m, ta_node_field(k->node, "body"), pname) > 0)
				told |= 1u << d;
		}
		gets = true;
		if (!k)
			return ta_edits_refuse(why_not, "line %u: %s is passed to `%s`, which is not a kernel of this file",
					       l->span.line, x, l->callee);
		for (int d = 0; d < ndim - 1; d++)
			if (!(told & (1u << d)))
				return ta_edits_refuse(why_not, "line %u: `%s` is not given %s.stride(%d), or does not read "
						       "it, so it relies on %s being contiguous", l->span.line, k->name, x,
						       d, x);
	}
	if (!gets)
		return ta_edits_refuse(why_not, "line %u: %s is not passed to a kernel launched in %s after the copy",
				       op->span.line, x, h->name);
	s7_facts f = { .name = x, .ndim = ndim, .after = op->span.end, .launches = ls, .nl = nl };
	s7_uses(m, ta_node_field(fn, "body"), &f);
	if (f.bad) {
		int rc = ta_edits_refuse(why_not, "line %u: `%s` uses %s after the copy in a way that may rely on its "
					 "layout", f.bad_line, f.bad, x);
		free(f.bad);
		return rc;
	}
	return 0;
}

static int s7_one(const ta_model *m, const ta_host *h, const ta_host_op *op, ta_edit *out, char **why_not)
{
	TSNode call = ta_edits_node(m, op->span);
	TSNode fn = ta_node_field(call, "function");
	TSNode recv = ta_node_field(fn, "object");
	TSNode args = ta_node_field(call, "arguments");
	if (!ta_node_is(call, "call") || ta_node_named_count(args) != 0)
		return ta_edits_refuse(why_not, "line %u: not a plain x.contiguous() call", op->span.line);
	if (!plain_name(recv))
		return ta_edits_refuse(why_not, "line %u: `%s` is an expression; tested and copied it would run twice",
				       op->span.line, op->receiver);
	if (already_conditional(m, call))
		return ta_edits_refuse(why_not, "line %u: the copy is already conditional on a stride test",
				       op->span.line);
	/* The kernel must be told the strides, else it may rely on the layout. */
	if (s7_precondition(m, h, op, call, why_not) != 0)
		return -1;
	TSNode parent = ta_node_parent(call);
	TSNode stmt = ta_edits_statement(call);
	if (ta_node_is(parent, "assignment") && !ts_node_is_null(stmt) &&
	    ta_node_text_eq(m->src, ta_node_field(parent, "left"), op->receiver) &&
	    ta_edits_alone_on_line(m, stmt, true)) {
		char *ind = ta_edits_indent_at(m, op->span.start);
		const char *unit = ta_edits_indent_unit(m, ind);
		uint32_t s = ta_edits_line_start(m, ts_node_start_byte(stmt)), e = ts_node_end_byte(stmt);
		char *st = ta_edits_text(m, ts_node_start_byte(stmt), e);
		char *rep = ta_xasprintf("%sif %s.stride(-1) != 1:\n%s%s%s", ind, op->receiver, ind, unit, st);
		ta_edit_replace(out, s, e, rep);
		free(rep);
		free(st);
		free(ind);
	} else {
		bool bare = ta_node_is(parent, "assignment") || ta_node_is(parent, "argument_list") ||
			    ta_node_is(parent, "parenthesized_expression");
		char *rep = ta_xasprintf("%s%s if %s.stride(-1) == 1 else %s.contiguous()%s", bare ? "" : "(",
					 op->receiver, op->receiver, op->receiver, bare ? "" : ")");
		ta_edit_replace(out, op->span.start, op->span.end, rep);
		free(rep);
	}
	ta_edit_set_title(out, "copy %s only when its last stride is not 1", op->receiver);
	out->line = op->span.line;
	return 0;
}

static bool s7_site(const ta_model *m, const ta_host *h, const ta_host_op *op)
{
	(void)m, (void)h;
	return op->kind == TA_HOST_CONTIGUOUS && op->receiver;
}

/* Rewrite: copy with .contiguous() only when the last stride is not 1. */
TA_REWRITE(S7, NULL, TA_SAFE)
{
	return ta_edits_each_host_op(m, kernel_or_host, line, s7_site, s7_one, out, why_not,
				     "no .contiguous() call in host code");
}
