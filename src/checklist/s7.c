/* S7: Unconditional .contiguous() in the wrapper.
 * Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
			      ta_node_is(p, "conditional_expression") ? ts_node_named_child(p, 1) : (TSNode){ 0 };
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
	char *needle = ta_xasprintf("%s.stride(", op->receiver);
	ta_span scope = h->span.end > h->span.start ? h->span : (ta_span){ .start = 0, .end = (uint32_t)m->src->len };
	char *body = ta_edits_text(m, scope.start, scope.end);
	bool strides = strstr(body, needle) != NULL;
	free(body);
	free(needle);
	if (!strides)
		return ta_edits_refuse(why_not, "line %u: %s's strides are never passed to the kernel (no %s.stride(...) "
				       "in %s), so it may rely on a contiguous layout", op->span.line, op->receiver,
				       op->receiver, h->name);
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
TA_REWRITE(S7, NULL)
{
	return ta_edits_each_host_op(m, kernel_or_host, line, s7_site, s7_one, out, why_not,
				     "no .contiguous() call in host code");
}
