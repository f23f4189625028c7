/* Edits of autotuned kernels: S8/G3 (names missing from the key) and L2
 * (a grid that reads META, no launch keywords the configs set). */
#include "config.h"
#include "advise/edits/edits.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* Some config sets name (as a parameter or an option). */
static bool any_config_sets(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->config_count; i++)
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name) ||
		    ta_kwarg_find(a->configs[i].options, a->configs[i].option_count, name))
			return true;
	return in_list(a->varies, a->vary_count, name);
}

/* Every literal config sets name. */
static bool all_configs_set(const ta_autotune *a, const char *name, bool *is_option)
{
	if (a->config_count == 0)
		return false;
	bool opt = false;
	for (size_t i = 0; i < a->config_count; i++) {
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name))
			continue;
		if (ta_kwarg_find(a->configs[i].options, a->configs[i].option_count, name)) {
			opt = true;
			continue;
		}
		return false;
	}
	if (is_option)
		*is_option = opt;
	return true;
}

/* ---- S8 / G3 ------------------------------------------------------------- */

static bool seq_like(const char *name)
{
	return strcasestr(name, "seq") || strcasestr(name, "ctx") || !strcmp(name, "S_qo") ||
	       !strcmp(name, "S_kv") || !strcasecmp(name, "seqlen");
}

TA_EDIT_MAKER(S8)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		const ta_kernel *k = &m->kernels[ki];
		const ta_autotune *a = k->autotune;
		if (!a || (line && !ta_edits_at_line(k->span, line) && !ta_edits_at_line(a->span, line)))
			continue;
		TSNode list = a->key_span.end > a->key_span.start ? ta_edits_node(m, a->key_span) : (TSNode){ 0 };
		if (!ta_node_is(list, "list")) {
			free(why);
			why = ta_xasprintf("%s: the autotune key is not a literal list", k->name);
			continue;
		}
		ta_buf add = TA_BUF_INIT;
		char quote = '"';
		uint32_t n = ta_node_named_count(list);
		TSNode last = { 0 };
		for (uint32_t i = 0; i < n; i++) {
			TSNode c = ts_node_named_child(list, i);
			if (ta_node_is(c, "comment"))
				continue;
			if (ts_node_is_null(last) && ta_node_is(c, "string"))
				quote = m->src->text[ts_node_start_byte(c)];
			last = c;
		}
		if (quote != '\'' && quote != '"')
			quote = '"';
		size_t added = 0;
		for (size_t i = 0; i < k->param_count; i++) {
			const ta_param *p = &k->params[i];
			if (in_list(a->key, a->key_count, p->name) || any_config_sets(a, p->name))
				continue;
			bool heur = false;
			for (size_t h = 0; h < k->heuristic_count; h++)
				heur |= !strcmp(k->heuristics[h].name, p->name);
			if (heur || !(p->constexpr_ || seq_like(p->name)))
				continue;
			ta_buf_printf(&add, "%s%c%s%c", ts_node_is_null(last) && added == 0 ? "" : ", ", quote,
				      p->name, quote);
			added++;
		}
		if (added == 0) {
			ta_buf_free(&add);
			free(why);
			why = ta_xasprintf("%s: the autotune key already holds every constexpr parameter the configs "
					   "do not set", k->name);
			continue;
		}
		uint32_t at = ts_node_is_null(last) ? ts_node_start_byte(list) + 1 : ts_node_end_byte(last);
		ta_edit_replace(out, at, at, ta_buf_str(&add));
		ta_edit_set_title(out, "add %s to %s's autotune key", ta_buf_str(&add) + (ts_node_is_null(last) ? 0 : 2),
				  k->name);
		out->line = a->key_span.line;
		ta_buf_free(&add);
		free(why);
		return 0;
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no autotuned kernel%s", line ? " at that line" : "");
}

/* ---- L2 ------------------------------------------------------------------ */

typedef struct l2_state {
	const ta_model *m;
	const ta_launch *l;
	const ta_autotune *a;
	const char *meta;         /* the lambda's parameter */
	ta_edit *out;
	size_t mapped;
} l2_state;

/* Rewrites triton.cdiv(n, V) inside n where V is the value of a launch
 * keyword the configs set: V -> META["KEYWORD"]. */
static void l2_map_cdiv(l2_state *s, TSNode n)
{
	if (ta_node_is(n, "call")) {
		char *c = ta_model_canonical(s->m, ta_node_field(n, "function"));
		TSNode args = ta_node_field(n, "arguments");
		if (c && ta_name_is(c, "triton.cdiv") && ta_node_named_count(args) == 2) {
			TSNode v = ts_node_named_child(args, 1);
			char *vt = ta_node_text(s->m->src, v);
			for (size_t i = 0; i < s->l->kwarg_count; i++) {
				const ta_kwarg *kw = &s->l->kwargs[i];
				if ((!strcmp(kw->value, vt) || !strcmp(kw->name, vt)) &&
				    all_configs_set(s->a, kw->name, NULL)) {
					char *rep = ta_xasprintf("%s[\"%s\"]", s->meta, kw->name);
					if (ta_edit_replace(s->out, ts_node_start_byte(v), ts_node_end_byte(v), rep) == 0)
						s->mapped++;
					free(rep);
					break;
				}
			}
			free(vt);
		}
		free(c);
	}
	uint32_t k = ta_node_named_count(n);
	for (uint32_t i = 0; i < k; i++)
		l2_map_cdiv(s, ts_node_named_child(n, i));
}

static int l2_one(const ta_model *m, const ta_launch *l, ta_edit *out, char **why)
{
	const ta_kernel *k = &m->kernels[l->kernel];
	const ta_autotune *a = k->autotune;
	if (a->config_count == 0)
		return ta_edits_refuse(why, "line %u: %s's configs are not literal, so what they set is unknown",
				       l->span.line, k->name);
	/* Launch keywords every config sets. */
	TSNode call = ta_edits_node(m, l->span);
	TSNode args = ta_node_field(call, "arguments");
	bool drops_param = false;
	size_t dropped = 0;
	ta_buf names = TA_BUF_INIT;
	for (size_t i = 0; i < l->kwarg_count; i++) {
		bool opt = false;
		if (!all_configs_set(a, l->kwargs[i].name, &opt))
			continue;
		uint32_t n = ta_node_named_count(args);
		for (uint32_t j = 0; j < n; j++) {
			TSNode c = ts_node_named_child(args, j);
			if (ts_node_start_byte(c) == l->kwargs[i].span.start) {
				ta_edits_drop_arg(out, c);
				dropped++;
				drops_param |= !opt;
				ta_buf_printf(&names, "%s%s", names.len ? ", " : "", l->kwargs[i].name);
			}
		}
	}
	/* The grid. */
	bool reads_meta = l->grid_uses_meta;
	if (!reads_meta && (l->grid_kind == TA_GRID_TUPLE || l->grid_kind == TA_GRID_LAMBDA)) {
		for (size_t i = 0; i < m->launch_count; i++)
			if (&m->launches[i] != l && m->launches[i].grid_def_span.start == l->grid_def_span.start &&
			    m->launches[i].grid_def_span.end == l->grid_def_span.end &&
			    m->launches[i].kernel != l->kernel) {
				ta_buf_free(&names);
				return ta_edits_refuse(why, "line %u: the grid is shared with a launch of another kernel "
						       "(line %u)", l->span.line, m->launches[i].span.line);
			}
		TSNode def = ta_edits_node(m, l->grid_def_span);
		bool multi = ts_node_is_null(def);   /* k[a, b]: no single node */
		l2_state s = { m, l, a, "META", out, 0 };
		TSNode body = def;
		if (l->grid_kind == TA_GRID_LAMBDA) {
			TSNode ps = ta_node_field(def, "parameters");
			char *pn = ta_node_named_count(ps) ? ta_node_text(m->src, ts_node_named_child(ps, 0)) : NULL;
			if (!pn) {
				ta_buf_free(&names);
				return ta_edits_refuse(why, "line %u: the grid lambda takes no parameter", l->span.line);
			}
			s.meta = pn;
			body = ta_node_field(def, "body");
			l2_map_cdiv(&s, body);
			free(pn);
		} else if (multi) {
			TSNode sub = ta_node_parent(ts_node_named_descendant_for_byte_range(ta_syntax_root(m->syn),
							    l->grid_span.start, l->grid_span.start));
			while (!ts_node_is_null(sub) && !ta_node_is(sub, "subscript"))
				sub = ta_node_parent(sub);
			uint32_t n = ta_node_named_count(sub);
			for (uint32_t i = 1; i < n; i++)
				l2_map_cdiv(&s, ts_node_named_child(sub, i));
		} else {
			l2_map_cdiv(&s, def);
		}
		if (s.mapped > 0) {
			reads_meta = true;
			if (l->grid_kind == TA_GRID_TUPLE) {
				bool paren = !multi && (ta_node_is(def, "list") ||
							m->src->text[l->grid_def_span.start] == '(');
				uint32_t s0 = l->grid_def_span.start, s1 = l->grid_def_span.end;
				ta_edit_replace(out, s0, s0, paren ? "lambda META: " : "lambda META: (");
				if (!paren)
					ta_edit_replace(out, s1, s1, ")");
			}
		}
	}
	if (drops_param && !reads_meta) {
		ta_buf_free(&names);
		return ta_edits_refuse(why, "line %u: the grid is computed from the tile size in Python (not through "
				       "triton.cdiv(n, BLOCK) in the grid); write it as lambda META: ... by hand",
				       l->span.line);
	}
	if (out->repl_count == 0) {
		ta_buf_free(&names);
		return ta_edits_refuse(why, "line %u: the grid reads META and the launch passes nothing the configs set",
				       l->span.line);
	}
	if (dropped)
		ta_edit_set_title(out, "let autotune choose: grid from META, drop %s from the launch", ta_buf_str(&names));
	else
		ta_edit_set_title(out, "let autotune choose: grid from META");
	out->line = l->span.line;
	ta_buf_free(&names);
	return 0;
}

TA_EDIT_MAKER(L2)
{
	char *why = NULL;
	for (size_t i = 0; i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		if (l->kernel < 0 || !m->kernels[l->kernel].autotune)
			continue;
		if (kernel_or_host >= 0 && l->kernel != kernel_or_host)
			continue;
		if (line && !ta_edits_at_line(l->span, line) && !ta_edits_at_line(l->grid_def_span, line))
			continue;
		char *w = NULL;
		if (l2_one(m, l, out, &w) == 0) {
			free(why);
			return 0;
		}
		ta_edit_clear(out);
		if (!why)
			why = w;
		else
			free(w);
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no launch of an autotuned kernel%s", line ? " at that line" : "");
}
