/* Edits inside kernels: D4 (expand_dims -> indexing), S3 (zeros + 3-arg
 * dot), D6 (constexpr annotation), D1 (loop_unroll_factor=1). */
#include "config.h"
#include "advise/edits/edits.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static bool kernel_selected(int kernel_or_host, size_t k)
{
	return kernel_or_host < 0 || (size_t)kernel_or_host == k;
}

/* Runs one(m, k, i) over the ops of kind in the selected kernels at line. */
typedef int (*op_fn)(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why);

static int each_op(const ta_model *m, int kernel_or_host, uint32_t line, ta_op_kind kind, op_fn one,
		   ta_edit *out, char **why_not, const char *none)
{
	char *why = NULL;
	for (size_t k = 0; k < m->kernel_count; k++) {
		if (!kernel_selected(kernel_or_host, k))
			continue;
		const ta_kernel *kn = &m->kernels[k];
		for (size_t i = 0; i < kn->op_count; i++) {
			if (kn->ops[i].kind != kind || !ta_edits_at_line(kn->ops[i].span, line))
				continue;
			char *w = NULL;
			if (one(m, kn, &kn->ops[i], out, &w) == 0) {
				free(why);
				return 0;
			}
			ta_edits_keep_why(&why, w);
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "%s%s", none, line ? " on that line" : "");
}

/* ---- D4 ------------------------------------------------------------------ */

static bool primary(TSNode n)
{
	static const char *const kinds[] = {
		"identifier", "attribute", "subscript", "call", "parenthesized_expression",
	};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		if (ta_node_is(n, kinds[i]))
			return true;
	return false;
}

static int d4_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	(void)k;
	if (op->receiver)
		return ta_edits_refuse(why, "line %u: the method form x.expand_dims() is left alone", op->span.line);
	const ta_kwarg *ax = ta_kwarg_find(op->kwargs, op->kwarg_count, "axis");
	if (op->arg_count < 1 || (op->arg_count < 2 && !ax))
		return ta_edits_refuse(why, "line %u: expand_dims without an axis", op->span.line);
	char *axis = ax ? ta_xstrdup(ax->value) : ta_edits_text(m, op->args[1].start, op->args[1].end);
	const char *idx = !strcmp(axis, "0") ? "[None, :]" : !strcmp(axis, "1") ? "[:, None]" : NULL;
	if (!idx) {
		int r = ta_edits_refuse(why, "line %u: axis %s: only axes 0 and 1 rewrite without knowing the rank",
					op->span.line, axis);
		free(axis);
		return r;
	}
	free(axis);
	TSNode x = ta_edits_node(m, op->args[0]);
	char *xt = ta_edits_text(m, op->args[0].start, op->args[0].end);
	char *rep = primary(x) ? ta_xasprintf("%s%s", xt, idx) : ta_xasprintf("(%s)%s", xt, idx);
	ta_edit_replace(out, op->span.start, op->span.end, rep);
	ta_edit_set_title(out, "index with %s instead of calling expand_dims", idx);
	out->line = op->span.line;
	free(rep);
	free(xt);
	return 0;
}

TA_EDIT_MAKER(D4)
{
	return each_op(m, kernel_or_host, line, TA_OP_EXPAND_DIMS, d4_one, out, why_not,
		       "no tl.expand_dims call");
}

/* ---- S3 ------------------------------------------------------------------ */

static bool word_in(const char *s, size_t n, const char *w)
{
	size_t wl = strlen(w);
	for (size_t i = 0; i + wl <= n; i++) {
		if (memcmp(s + i, w, wl) != 0)
			continue;
		bool l = i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_');
		bool r = i + wl == n || !(isalnum((unsigned char)s[i + wl]) || s[i + wl] == '_');
		if (l && r)
			return true;
	}
	return false;
}

static bool is_float32(const ta_model *m, const char *dtype_text, TSNode dtype)
{
	char *c = ts_node_is_null(dtype) ? NULL : ta_model_canonical(m, dtype);
	bool f = (c && (ta_name_is(c, "triton.language.float32") || !strcmp(c, "float32"))) ||
		 !strcmp(dtype_text, "tl.float32");
	free(c);
	return f;
}

static int s3_one(const ta_model *m, const ta_kernel *k, const ta_op *dot, ta_edit *out, char **why)
{
	const ta_kwarg *acc = ta_kwarg_find(dot->kwargs, dot->kwarg_count, "acc");
	const char *x = dot->target;
	int form;  /* 1: third argument, 2: acc=, 3: x += dot(a, b) */
	if (!x)
		return ta_edits_refuse(why, "line %u: the dot's result is not assigned to a name", dot->span.line);
	if (dot->augmented && dot->arg_count == 2 && !acc)
		form = 3;
	else if (!dot->augmented && dot->arg_count == 3 && !acc &&
		 dot->args[2].end - dot->args[2].start == strlen(x) &&
		 !memcmp(m->src->text + dot->args[2].start, x, strlen(x)))
		form = 1;
	else if (!dot->augmented && acc && !strcmp(acc->value, x))
		form = 2;
	else
		return ta_edits_refuse(why, "line %u: not `%s = tl.dot(a, b, %s)`, `acc=%s` or `%s += tl.dot(a, b)`",
				       dot->span.line, x, x, x, x);
	/* The latest zeros into x before the dot. */
	const ta_op *z = NULL;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *o = &k->ops[i];
		if (o->kind == TA_OP_ZEROS && o->target && !strcmp(o->target, x) && !o->augmented &&
		    o->span.start < dot->span.start && (!z || o->span.start > z->span.start))
			z = o;
	}
	if (!z)
		return ta_edits_refuse(why, "line %u: %s is not a tl.zeros accumulator", dot->span.line, x);
	TSNode zc = ta_edits_node(m, z->span), dc = ta_edits_node(m, dot->span);
	TSNode zs = ta_edits_statement(zc), ds = ta_edits_statement(dc);
	if (ts_node_is_null(zs) || ts_node_is_null(ds) ||
	    !ts_node_eq(ta_node_parent(zs), ta_node_parent(ds)))
		return ta_edits_refuse(why, "line %u: %s is carried across loop iterations or branches "
				       "(zeros at line %u): the normal accumulator pattern", dot->span.line, x,
				       z->span.line);
	uint32_t gap0 = ts_node_end_byte(zs), gap1 = ts_node_start_byte(ds);
	if (gap1 < gap0 || word_in(m->src->text + gap0, gap1 - gap0, x))
		return ta_edits_refuse(why, "line %u: %s is used between its zeros (line %u) and the dot",
				       dot->span.line, x, z->span.line);
	if (!ta_edits_alone_on_line(m, zs, false))
		return ta_edits_refuse(why, "line %u: the zeros statement shares its line", z->span.line);
	/* dtype of the zeros: tl.dot's default result is float32. */
	const ta_kwarg *zd = ta_kwarg_find(z->kwargs, z->kwarg_count, "dtype");
	char *dtype = zd ? ta_xstrdup(zd->value) :
		      z->arg_count >= 2 ? ta_edits_text(m, z->args[1].start, z->args[1].end) : NULL;
	TSNode dn = zd ? ta_edits_node(m, zd->value_span) : z->arg_count >= 2 ? ta_edits_node(m, z->args[1]) :
		   (TSNode){ 0 };
	bool keep_dtype = dtype && !is_float32(m, dtype, dn) &&
			  !ta_kwarg_find(dot->kwargs, dot->kwarg_count, "out_dtype");
	if (keep_dtype && form == 3) {
		int r = ta_edits_refuse(why, "line %u: %s is %s and `+=` would keep the float32 result's type",
					dot->span.line, x, dtype);
		free(dtype);
		return r;
	}
	char *extra = keep_dtype ? ta_xasprintf(", out_dtype=%s", dtype) : ta_xstrdup("");
	free(dtype);
	/* Drop the zeros line. */
	ta_edit_replace(out, ta_edits_line_start(m, ts_node_start_byte(zs)),
			ta_edits_line_next(m, ts_node_end_byte(zs)), "");
	TSNode args = ta_node_field(dc, "arguments");
	if (form == 3) {
		/* The `+=` of the augmented assignment the dot sits in (the model's
		 * `augmented` comes from the call's parent, not from the statement:
		 * recovered parses can nest it deeper). */
		TSNode op = ta_node_field(ta_node_parent(dc), "operator");
		if (ts_node_is_null(op)) {
			free(extra);
			ta_edit_clear(out);
			return ta_edits_refuse(why, "line %u: cannot find the `+=` of the dot", dot->span.line);
		}
		/* (a kept dtype was refused above: `extra` is empty here) */
		ta_edit_replace(out, ts_node_start_byte(op), ts_node_end_byte(op), "=");
	} else {
		/* The accumulator argument, with the comma before it. */
		TSNode target = (TSNode){ 0 };
		uint32_t n = ta_node_named_count(args);
		for (uint32_t i = 0; i < n; i++) {
			TSNode c = ts_node_named_child(args, i);
			uint32_t s = ts_node_start_byte(c);
			if ((form == 1 && s == dot->args[2].start) || (form == 2 && s == acc->span.start))
				target = c;
		}
		TSNode prev = ts_node_is_null(target) ? target : ts_node_prev_named_sibling(target);
		if (ts_node_is_null(prev)) {
			free(extra);
			ta_edit_clear(out);
			return ta_edits_refuse(why, "line %u: cannot find the accumulator argument", dot->span.line);
		}
		ta_edit_replace(out, ts_node_end_byte(prev), ts_node_end_byte(target), extra);
	}
	free(extra);
	ta_edit_set_title(out, "start %s from tl.dot instead of adding to fresh zeros", x);
	out->line = dot->span.line;
	return 0;
}

TA_EDIT_MAKER(S3)
{
	return each_op(m, kernel_or_host, line, TA_OP_DOT, s3_one, out, why_not,
		       "no tl.dot accumulating into fresh zeros");
}

/* ---- D6 ------------------------------------------------------------------ */

static bool dim_like(const char *name)
{
	bool upper = true;
	for (const char *p = name; *p; p++)
		if (islower((unsigned char)*p))
			upper = false;
	if (upper)
		return true;
	static const char *const parts[] = { "dim", "head", "pad" };
	for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
		for (const char *p = name; *p; p++)
			if (!strncasecmp(p, parts[i], strlen(parts[i])))
				return true;
	}
	return false;
}

/* Where p is used as a size: a tl.arange bound or a loop trip count. */
static uint32_t size_use_line(const ta_model *m, const ta_kernel *k, const ta_param *p)
{
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_ARANGE &&
		    word_in(m->src->text + k->ops[i].span.start, k->ops[i].span.end - k->ops[i].span.start, p->name))
			return k->ops[i].span.line;
	if (!dim_like(p->name))
		return 0;
	for (size_t i = 0; i < k->loop_count; i++) {
		const ta_loop *l = &k->loops[i];
		if (l->kind == TA_LOOP_WHILE || l->kind == TA_LOOP_FOR_OTHER)
			continue;
		for (size_t a = 0; a < l->arg_count; a++)
			if (word_in(l->args[a], strlen(l->args[a]), p->name))
				return l->header.line;
	}
	return 0;
}

TA_EDIT_MAKER(D6)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		for (size_t i = 0; i < k->param_count; i++) {
			const ta_param *p = &k->params[i];
			if (p->constexpr_ || strstr(p->name, "ptr") || !strncmp(p->name, "stride", 6))
				continue;
			uint32_t use = size_use_line(m, k, p);
			if (!use || (line && line != use && !ta_edits_at_line(p->span, line)))
				continue;
			const ta_kwarg *dns = ta_kwarg_find(k->jit_kwargs, k->jit_kwarg_count, "do_not_specialize");
			if (dns && word_in(dns->value, strlen(dns->value), p->name)) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: %s is listed in do_not_specialize", p->span.line,
							    p->name));
				continue;
			}
			if (p->annotation) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: %s is annotated `%s` already", p->span.line,
							    p->name, p->annotation));
				continue;
			}
			char *ce = ta_edits_module(m, "triton.language.constexpr");
			if (!ce)
				return ta_edits_refuse(why_not, "the file does not import triton.language");
			if (p->default_value) {
				char *rep = ta_xasprintf("%s: %s = %s", p->name, ce, p->default_value);
				ta_edit_replace(out, p->span.start, p->span.end, rep);
				free(rep);
			} else {
				char *rep = ta_xasprintf(": %s", ce);
				uint32_t e = p->span.start + (uint32_t)strlen(p->name);
				ta_edit_replace(out, e, e, rep);
				free(rep);
			}
			ta_edit_set_title(out, "make %s a compile-time constant (%s, used at line %u)", p->name, ce, use);
			out->line = p->span.line;
			free(ce);
			free(why);
			return 0;
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no non-constexpr parameter used as a tl.arange bound or loop trip count%s",
			       line ? " on that line" : "");
}

/* ---- D1 ------------------------------------------------------------------ */

/* The loop variable indexes something: it must stay a compile-time value. */
static bool var_indexes(const ta_model *m, TSNode n, const char *var)
{
	if (ts_node_is_null(n))
		return false;
	if (ta_node_is(n, "subscript")) {
		TSNode s = ta_node_field(n, "subscript");
		if (!ts_node_is_null(s) && ta_node_contains_identifier(m->src, s, var))
			return true;
	}
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (var_indexes(m, ts_node_named_child(n, i), var))
			return true;
	return false;
}

TA_EDIT_MAKER(D1)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		for (size_t i = 0; i < k->loop_count; i++) {
			const ta_loop *l = &k->loops[i];
			if (l->kind != TA_LOOP_RANGE && l->kind != TA_LOOP_TL_RANGE && l->kind != TA_LOOP_STATIC_RANGE)
				continue;
			if (!ta_edits_at_line(l->header, line))
				continue;
			if (ta_kwarg_find(l->kwargs, l->kwarg_count, "loop_unroll_factor")) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: the loop sets loop_unroll_factor already",
							    l->header.line));
				continue;
			}
			TSNode call = ta_edits_node(m, l->iter);
			TSNode loop = ta_node_parent(call);
			if (!ta_node_is(call, "call")) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: the loop does not iterate over a range call",
							    l->header.line));
				continue;
			}
			if (l->kind == TA_LOOP_STATIC_RANGE && l->var &&
			    var_indexes(m, ta_node_field(loop, "body"), l->var)) {
				ta_edits_keep_why(&why, ta_xasprintf("line %u: %s indexes a value in the body, so the loop must stay "
							    "static_range", l->header.line, l->var));
				continue;
			}
			char *range = ta_edits_module(m, "triton.language.range");
			if (!range)
				return ta_edits_refuse(why_not, "the file does not import triton.language");
			TSNode fn = ta_node_field(call, "function");
			TSNode args = ta_node_field(call, "arguments");
			uint32_t n = ta_node_named_count(args);
			if (l->kind != TA_LOOP_TL_RANGE)
				ta_edit_replace(out, ts_node_start_byte(fn), ts_node_end_byte(fn), range);
			if (n == 0) {
				free(range);
				ta_edit_clear(out);
				return ta_edits_refuse(why_not, "line %u: a range without arguments", l->header.line);
			}
			TSNode last = ts_node_named_child(args, n - 1);
			ta_edit_replace(out, ts_node_end_byte(last), ts_node_end_byte(last), ", loop_unroll_factor=1");
			ta_edit_set_title(out, "keep the loop at line %u rolled (%s(..., loop_unroll_factor=1))",
					  l->header.line, range);
			out->line = l->header.line;
			free(range);
			free(why);
			return 0;
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no range/tl.range/tl.static_range loop in a kernel%s",
			       line ? " on that line" : "");
}
