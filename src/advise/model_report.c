/* `tileadvise --report`: the model of a file written out (see
 * model_report.h). */
#include "config.h"
#include "advise/model_report.h"
#include "analyze/analysis.h"
#include "analyze/index.h"
#include "util/buf.h"
#include "util/json.h"
#include "util/text.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *configs_kind_name(ta_configs_kind k)
{
	switch (k) {
	case TA_CONFIGS_NONE: return "none";
	case TA_CONFIGS_LIST: return "literal list";
	case TA_CONFIGS_COMPREHENSION: return "comprehension";
	case TA_CONFIGS_FUNCTION: return "function";
	case TA_CONFIGS_NAME: return "module variable";
	case TA_CONFIGS_UNRESOLVED: return "not resolved";
	}
	return "?";
}

/* In markdown, what comes from the file (names, expressions, paths) is
 * written as code spans or escaped text: a '<' in a default value or a
 * '*' in a grid must neither become HTML nor emphasis. Text stays raw. */
static void coden(ta_buf *b, bool md, const char *s, size_t n)
{
	if (md)
		ta_md_buf_code(b, s, n);
	else
		ta_buf_append(b, s, n);
}

static void code(ta_buf *b, bool md, const char *s)
{
	coden(b, md, s, strlen(s));
}

static void text(ta_buf *b, bool md, const char *s)
{
	if (md)
		ta_md_buf_text(b, s);
	else
		ta_text_escape(b, s, strlen(s), 0);   /* a name's line break is no new line */
}

static void join(ta_buf *b, bool md, char **v, size_t n, const char *sep)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			ta_buf_puts(b, sep);
		code(b, md, v[i]);
	}
}

/* "name=value" as one piece of code. */
static void kwarg(ta_buf *b, bool md, const ta_kwarg *kw)
{
	char *s = ta_xasprintf("%s=%s", kw->name, kw->value);
	code(b, md, s);
	free(s);
}

/* One line describing an op: "load 2D masked -> a". */
static void describe_op(ta_buf *b, bool md, const ta_op *op)
{
	ta_buf_puts(b, ta_op_kind_name(op->kind));
	if (op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE) {
		ta_buf_printf(b, " %s", ta_ptr_shape_name(op->ptr_shape));
		if (op->has_mask)
			ta_buf_puts(b, " masked");
		if (op->gather)
			ta_buf_puts(b, " gather");
	} else if (op->kind == TA_OP_DOT && op->has_acc) {
		ta_buf_puts(b, " with accumulator");
	} else if (op->kind == TA_OP_HELPER_CALL || op->kind == TA_OP_OTHER) {
		ta_buf_puts(b, " ");
		code(b, md, op->callee ? op->callee : "?");
	}
	if (op->receiver) {
		ta_buf_puts(b, " on ");
		code(b, md, op->receiver);
	}
	for (size_t i = 0; i < op->kwarg_count; i++)
		if (op->kind == TA_OP_DOT && strcmp(op->kwargs[i].name, "acc")) {
			ta_buf_puts(b, " ");
			kwarg(b, md, &op->kwargs[i]);
		}
	if (op->target) {
		ta_buf_printf(b, " -> %s", op->augmented ? "+= " : "");
		code(b, md, op->target);
	}
}

/* The start of a list line at a nesting level: two spaces a level and, in
 * markdown, "- " after them (a nested list item); in text two more spaces. */
static void item(ta_buf *b, bool md, int level)
{
	ta_buf_printf(b, "%*s%s", level * 2, "", md ? "- " : "  ");
}

static void text_kernel(const ta_model *m, const ta_kernel *k, bool md, ta_buf *b)
{
	const char *h = md ? "### " : "";
	const char *li = md ? "- " : "  ";
	ta_buf_printf(b, "%skernel ", h);
	code(b, md, k->name);
	ta_buf_printf(b, "  (lines %u-%u)%s\n", k->span.line, k->span.end_line,
		      k->is_helper ? ", helper called by other kernels" : "");
	if (k->alias_count) {
		ta_buf_printf(b, "%salso bound as: ", li);
		join(b, md, k->aliases, k->alias_count, ", ");
		ta_buf_puts(b, k->wrapped ? " (wrapped by a call)\n" : "\n");
	}
	ta_buf_printf(b, "%sparameters:", li);
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		char *one = ta_xasprintf("%s%s%s%s", p->name, p->constexpr_ ? ": constexpr" : "",
					 p->default_value ? " = " : "", p->default_value ? p->default_value : "");
		ta_buf_puts(b, i ? ", " : " ");
		code(b, md, one);
		free(one);
	}
	ta_buf_puts(b, "\n");
	if (k->autotune) {
		const ta_autotune *a = k->autotune;
		ta_buf_printf(b, "%sautotune: %zu config%s (%s", li, a->config_count,
			      a->config_count == 1 ? "" : "s", configs_kind_name(a->configs_kind));
		if (a->configs_function) {
			ta_buf_puts(b, " ");
			code(b, md, a->configs_function);
		}
		ta_buf_puts(b, ")");
		if (a->vary_count) {
			ta_buf_puts(b, ", varies ");
			join(b, md, a->varies, a->vary_count, ", ");
		} else {
			ta_buf_puts(b, ", varies nothing");
		}
		ta_buf_puts(b, md ? "; key \\[" : "; key [");
		join(b, md, a->key, a->key_count, ", ");
		ta_buf_printf(b, "%s%s%s%s\n", md ? "\\]" : "]", a->has_prune ? "; prune_configs_by" : "",
			      a->has_pre_hook ? "; pre_hook" : "",
			      a->branches_on_capability ? "; branches on the GPU" : "");
	}
	for (size_t i = 0; i < k->heuristic_count; i++) {
		char *one = ta_xasprintf("%s = %s", k->heuristics[i].name, k->heuristics[i].expr);
		ta_buf_printf(b, "%sheuristic ", li);
		code(b, md, one);
		ta_buf_puts(b, "\n");
		free(one);
	}
	if (k->persistent)
		ta_buf_printf(b, "%spersistent: loops over tiles with a program-count stride\n", li);
	/* Ops grouped under their loops, in document order. */
	for (size_t l = 0; l < k->loop_count; l++) {
		const ta_loop *lp = &k->loops[l];
		item(b, md, lp->depth - 1);
		ta_buf_printf(b, "line %u: %s loop (depth %d)", lp->span.line, ta_loop_kind_name(lp->kind),
			      lp->depth);
		for (size_t i = 0; i < lp->kwarg_count; i++) {
			ta_buf_puts(b, " ");
			kwarg(b, md, &lp->kwargs[i]);
		}
		ta_buf_puts(b, "\n");
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->loop != (int)l)
				continue;
			item(b, md, lp->depth);
			ta_buf_printf(b, "line %u: ", op->span.line);
			describe_op(b, md, op);
			ta_buf_puts(b, "\n");
		}
	}
	bool header = false;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->loop >= 0 || (op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE &&
				      op->kind != TA_OP_DOT && op->kind != TA_OP_TRANS &&
				      op->kind != TA_OP_MAKE_DESCRIPTOR && op->kind != TA_OP_DESC_LOAD &&
				      op->kind != TA_OP_DESC_STORE && op->kind != TA_OP_HELPER_CALL))
			continue;
		if (!header)
			ta_buf_printf(b, "%soutside loops:\n", li);
		header = true;
		item(b, md, 1);
		ta_buf_printf(b, "line %u: ", op->span.line);
		describe_op(b, md, op);
		ta_buf_puts(b, "\n");
	}
	int shown = 0;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)(k - m->kernels));
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		if (!shown++)
			ta_buf_printf(b, "%slaunches:\n", li);
		item(b, md, 1);
		ta_buf_printf(b, "line %u in ", l->span.line);
		code(b, md, l->host >= 0 ? m->hosts[l->host].name : "<module>");
		ta_buf_printf(b, ": grid %s", ta_grid_kind_name(l->grid_kind));
		if (l->grid_dims) {
			ta_buf_printf(b, " (%d dim%s: ", l->grid_dims, l->grid_dims == 1 ? "" : "s");
			join(b, md, l->grid_dim_text, (size_t)l->grid_dims, ", ");
			ta_buf_puts(b, ")");
		}
		if (l->grid_uses_meta)
			ta_buf_puts(b, " reads META");
		for (size_t j = 0; j < l->kwarg_count; j++) {
			ta_buf_puts(b, j ? ", " : "; keywords ");
			kwarg(b, md, &l->kwargs[j]);
		}
		if (l->loop_depth) {
			ta_buf_puts(b, "; inside a loop over ");
			if (l->loop_iter)
				code(b, md, l->loop_iter);
			else
				ta_buf_puts(b, "a condition");
		}
		ta_buf_puts(b, "\n");
	}
	if (!shown && !k->is_helper)
		ta_buf_printf(b, "%slaunches: none in this file\n", li);
	ta_buf_puts(b, "\n");
}

static void text_hosts(const ta_model *m, bool md, ta_buf *b)
{
	bool any = false;
	for (size_t i = 0; i < m->host_count; i++) {
		const ta_host *h = &m->hosts[i];
		if (!h->op_count)
			continue;
		if (!any)
			ta_buf_printf(b, "%shost code\n", md ? "### " : "");
		any = true;
		ta_buf_puts(b, md ? "- " : "  ");
		code(b, md, h->name);
		ta_buf_puts(b, ":\n");
		for (size_t j = 0; j < h->op_count; j++) {
			const ta_host_op *op = &h->ops[j];
			/* One line per op: cut at the first line break as well as at 60. */
			int shown = (int)strcspn(op->text, "\r\n");
			bool cut = op->text[shown] != '\0' || shown > 60;
			if (shown > 60)
				shown = 60;
			ta_buf_printf(b, "%sline %u: %s: ", md ? "  - " : "    ", op->span.line,
				      ta_host_kind_name(op->kind));
			coden(b, md, op->text, (size_t)shown);
			ta_buf_printf(b, "%s\n", cut ? "..." : "");
		}
	}
	if (any)
		ta_buf_puts(b, "\n");
}

static void report_text(const ta_model *m, bool md, FILE *out)
{
	ta_buf b = TA_BUF_INIT;
	const ta_source *src = m->src;
	size_t kernels = 0;
	for (size_t i = 0; i < m->kernel_count; i++)
		kernels += !m->kernels[i].is_helper;
	ta_buf_puts(&b, md ? "## " : "");
	text(&b, md, src->path);
	ta_buf_printf(&b, ": %zu kernel%s", kernels, kernels == 1 ? "" : "s");
	if (kernels != m->kernel_count)
		ta_buf_printf(&b, " and %zu helper%s", m->kernel_count - kernels,
			      m->kernel_count - kernels == 1 ? "" : "s");
	ta_buf_printf(&b, ", %zu launch%s, %zu line%s\n\n", m->launch_count, m->launch_count == 1 ? "" : "es",
		      src->line_count, src->line_count == 1 ? "" : "s");
	for (size_t i = 0; i < m->syn->error_count; i++) {
		const ta_syntax_error *e = &m->syn->errors[i];
		ta_buf_puts(&b, md ? "- " : "");
		text(&b, md, src->path);
		ta_buf_printf(&b, ":%zu:%zu: syntax error: ", e->line, e->column);
		text(&b, md, e->what);
		ta_buf_puts(&b, " (analysed what parsed)\n");
	}
	if (m->syn->error_count)
		ta_buf_puts(&b, "\n");
	if (!m->kernel_count)
		ta_buf_printf(&b, "No Triton kernel (@triton.jit function) in this file: nothing to advise on.\n");
	for (size_t i = 0; i < m->kernel_count; i++)
		text_kernel(m, &m->kernels[i], md, &b);
	text_hosts(m, md, &b);
	fputs(ta_buf_str(&b), out);
	ta_buf_free(&b);
}

static json_t *span_json(const ta_span *s)
{
	return json_pack("{s:i,s:i,s:i}", "line", (json_int_t)s->line, "col", (json_int_t)s->col,
			 "end_line", (json_int_t)s->end_line);
}

static json_t *strv_json(char **v, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

static json_t *kwargs_json(const ta_kwarg *kw, size_t n)
{
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, kw[i].name, json_string(kw[i].value));
	return o;
}

static json_t *kernel_json(const ta_model *m, const ta_kernel *k)
{
	json_t *jk = json_pack("{s:s,s:o,s:b,s:b,s:b}", "name", k->name, "span", span_json(&k->span),
			       "helper", k->is_helper, "persistent", k->persistent, "wrapped", k->wrapped);
	json_object_set_new(jk, "aliases", strv_json(k->aliases, k->alias_count));
	json_t *params = json_array();
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		json_t *jp = json_pack("{s:s,s:b}", "name", p->name, "constexpr", p->constexpr_);
		if (p->annotation)
			json_object_set_new(jp, "annotation", json_string(p->annotation));
		if (p->default_value)
			json_object_set_new(jp, "default", json_string(p->default_value));
		json_array_append_new(params, jp);
	}
	json_object_set_new(jk, "parameters", params);
	if (k->autotune) {
		const ta_autotune *a = k->autotune;
		json_t *configs = json_array();
		for (size_t i = 0; i < a->config_count; i++) {
			json_t *c = json_object();
			json_object_set_new(c, "line", json_integer(a->configs[i].span.line));
			json_object_set_new(c, "params", kwargs_json(a->configs[i].params, a->configs[i].param_count));
			json_object_set_new(c, "options", kwargs_json(a->configs[i].options, a->configs[i].option_count));
			json_array_append_new(configs, c);
		}
		json_t *ja = json_pack("{s:s,s:o,s:o,s:o,s:b,s:b,s:b}",
				       "configs_kind", configs_kind_name(a->configs_kind),
				       "configs", configs, "varies", strv_json(a->varies, a->vary_count),
				       "key", strv_json(a->key, a->key_count), "prune", a->has_prune,
				       "pre_hook", a->has_pre_hook, "branches_on_gpu", a->branches_on_capability);
		if (a->configs_function)
			json_object_set_new(ja, "configs_function", json_string(a->configs_function));
		json_object_set_new(jk, "autotune", ja);
	}
	json_t *heur = json_object();
	for (size_t i = 0; i < k->heuristic_count; i++)
		json_object_set_new(heur, k->heuristics[i].name, json_string(k->heuristics[i].expr));
	json_object_set_new(jk, "heuristics", heur);
	json_t *loops = json_array();
	for (size_t i = 0; i < k->loop_count; i++) {
		const ta_loop *lp = &k->loops[i];
		json_array_append_new(loops, json_pack("{s:s,s:i,s:i,s:i,s:o}", "kind", ta_loop_kind_name(lp->kind),
						       "line", (json_int_t)lp->span.line, "depth", (json_int_t)lp->depth,
						       "parent", (json_int_t)lp->parent,
						       "kwargs", kwargs_json(lp->kwargs, lp->kwarg_count)));
	}
	json_object_set_new(jk, "loops", loops);
	json_t *ops = json_array();
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		json_t *jo = json_pack("{s:s,s:i,s:i,s:i}", "op", ta_op_kind_name(op->kind),
				       "line", (json_int_t)op->span.line, "col", (json_int_t)op->span.col,
				       "loop", (json_int_t)op->loop);
		if (op->callee)
			json_object_set_new(jo, "callee", json_string(op->callee));
		if (op->target)
			json_object_set_new(jo, "target", json_string(op->target));
		if (op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE) {
			json_object_set_new(jo, "pointer", json_string(ta_ptr_shape_name(op->ptr_shape)));
			json_object_set_new(jo, "mask", json_boolean(op->has_mask));
			json_object_set_new(jo, "gather", json_boolean(op->gather));
		}
		if (op->kind == TA_OP_DOT)
			json_object_set_new(jo, "acc", json_boolean(op->has_acc));
		if (op->receiver)
			json_object_set_new(jo, "receiver", json_string(op->receiver));
		json_array_append_new(ops, jo);
	}
	json_object_set_new(jk, "ops", ops);
	json_t *launches = json_array();
	ta_launch_walk walk = ta_index_launch_walk(m, (int)(k - m->kernels));
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		json_t *jl = json_pack("{s:i,s:s,s:s,s:i,s:b,s:o,s:o,s:i,s:s}", "line", (json_int_t)l->span.line,
				       "callee", l->callee, "grid_kind", ta_grid_kind_name(l->grid_kind),
				       "grid_dims", (json_int_t)l->grid_dims, "grid_uses_meta", l->grid_uses_meta,
				       "grid", strv_json(l->grid_dim_text, (size_t)l->grid_dims),
				       "keywords", kwargs_json(l->kwargs, l->kwarg_count),
				       "loop_depth", (json_int_t)l->loop_depth,
				       "host", l->host >= 0 ? m->hosts[l->host].name : "<module>");
		json_array_append_new(launches, jl);
	}
	json_object_set_new(jk, "launches", launches);
	return jk;
}

static void report_json(const ta_model *m, FILE *out)
{
	json_t *root = json_pack("{s:o,s:i}", "file", ta_json_raw(m->src->path), "lines", (json_int_t)m->src->line_count);
	json_t *errors = json_array();
	for (size_t i = 0; i < m->syn->error_count; i++) {
		const ta_syntax_error *e = &m->syn->errors[i];
		json_array_append_new(errors, json_pack("{s:i,s:i,s:s}", "line", (json_int_t)e->line,
							"col", (json_int_t)e->column, "message", e->what));
	}
	json_object_set_new(root, "syntax_errors", errors);
	json_t *imports = json_object();
	for (size_t i = 0; i < m->import_count; i++)
		if (m->imports[i].line)
			json_object_set_new(imports, m->imports[i].alias, json_string(m->imports[i].target));
	json_object_set_new(root, "imports", imports);
	json_t *kernels = json_array();
	for (size_t i = 0; i < m->kernel_count; i++)
		json_array_append_new(kernels, kernel_json(m, &m->kernels[i]));
	json_object_set_new(root, "kernels", kernels);
	json_t *hosts = json_array();
	for (size_t i = 0; i < m->host_count; i++) {
		const ta_host *h = &m->hosts[i];
		json_t *ops = json_array();
		for (size_t j = 0; j < h->op_count; j++)
			json_array_append_new(ops, json_pack("{s:s,s:i,s:s}", "kind", ta_host_kind_name(h->ops[j].kind),
							     "line", (json_int_t)h->ops[j].span.line, "text", h->ops[j].text));
		json_array_append_new(hosts, json_pack("{s:s,s:o,s:i}", "name", h->name, "ops", ops,
						       "launches", (json_int_t)h->launch_count));
	}
	json_object_set_new(root, "host", hosts);
	ta_json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	json_decref(root);
}

void ta_report_write(const ta_model *m, ta_format fmt, FILE *out)
{
	if (fmt == TA_FORMAT_JSON)
		report_json(m, out);
	else
		report_text(m, fmt == TA_FORMAT_MARKDOWN, out);
}

ta_exit ta_report_file(const char *path, ta_format fmt, FILE *out, FILE *err)
{
	ta_analysis *a;
	char *why;
	if (ta_analysis_open(path, &a, &why) != 0) {
		fprintf(err, "tileadvise: %s\n", ta_text_name(why));
		free(why);
		return TA_EXIT_ERROR;
	}
	ta_report_write(a->model, fmt, out);
	ta_analysis_free(a);
	return TA_EXIT_OK;
}
