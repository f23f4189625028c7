/* L2: Grid ignores the autotuned tile. Its detector and its rewrite. */
#include "config.h"
#include "analyze/flat.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A launch keyword the configs also set freezes it. */
static const ta_kwarg *frozen_keyword(const ta_autotune *a, const ta_launch *l)
{
	for (size_t i = 0; i < l->kwarg_count; i++)
		for (size_t j = 0; j < a->config_count; j++)
			if (ta_kwarg_find(a->configs[j].params, a->configs[j].param_count, l->kwargs[i].name))
				return &l->kwargs[i];
	return NULL;
}

/* Names that hold a program id or a value computed from one without
 * touching tensors (pid, pid_m = pid // grid_n, ...): assignments whose
 * right side calls program_id or mentions such a name, to a fixpoint, left
 * out those that build offsets (tl.arange) or read memory. */
static bool *pid_names(ta_rule_ctx *c, const ta_assign *as, size_t n)
{
	bool *pid = ta_xcalloc(n ? n : 1, sizeof *pid);
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = 0; i < n; i++) {
			if (pid[i] || ta_rule_contains(c, as[i].rhs, "arange") || ta_rule_contains(c, as[i].rhs, "load"))
				continue;
			bool v = ta_rule_contains(c, as[i].rhs, "program_id");
			for (size_t j = 0; j < n && !v; j++)
				v = pid[j] && ta_rule_mentions(c, as[i].rhs, as[j].name);
			if (v)
				pid[i] = grew = true;
		}
	}
	return pid;
}

/* Whether n is the program id or a name holding one (pid, pid_m). */
static bool is_pid(ta_rule_ctx *c, TSNode n, const ta_assign *as, const bool *pid, size_t na)
{
	n = ta_node_unparen(n);
	char *t = ta_node_text(c->m->src, n);
	bool yes = strstr(t, "program_id") != NULL;
	for (size_t i = 0; i < na && !yes; i++)
		yes = pid[i] && !strcmp(t, as[i].name);
	/* pid.to(tl.int64) */
	if (!yes && ta_node_is(n, "call")) {
		TSNode f = ta_node_field(n, "function");
		if (ta_node_is(f, "attribute"))
			yes = is_pid(c, ta_node_field(f, "object"), as, pid, na);
	}
	free(t);
	return yes;
}

/* The line of the first product `pid * name` (or `name * pid`) under n;
 * 0 when none. */
static uint32_t pid_product(ta_rule_ctx *c, const char *name, const ta_assign *as, const bool *pid, size_t na)
{
	/* One walk of the kernel (analyze/flat.h), in the order a recursion over named
	 * children meets the products (ts_node_named_child is linear in the
	 * child's index: that recursion cost more than the rest of the rules). */
	uint32_t line = 0;
	ta_walk cur;
	ta_walk_start(&cur, c->k->node);
	for (;;) {
		TSNode n = ta_walk_node(&cur);
		if (ta_node_is(n, "binary_operator") && ta_node_text_eq(c->m->src, ta_node_field(n, "operator"), "*")) {
			TSNode l = ta_node_unparen(ta_node_field(n, "left")), r = ta_node_unparen(ta_node_field(n, "right"));
			if ((ta_node_is(r, "identifier") && ta_node_text_eq(c->m->src, r, name) && is_pid(c, l, as, pid, na)) ||
			    (ta_node_is(l, "identifier") && ta_node_text_eq(c->m->src, l, name) && is_pid(c, r, as, pid, na))) {
				line = ts_node_start_point(n).row + 1;
				break;
			}
		}
		if (!ta_walk_next(&cur, true))
			break;
	}
	ta_walk_finish(&cur);
	return line;
}

/* The line where parameter name sizes each program's share of a grid axis:
 * it multiplies the program id (`pid * BLOCK_M`, `tl.program_id(0) *
 * BLOCK`); 0 when it never does (a tile of a loop inside each program: the
 * grid does not depend on it). *pid: the names holding a program id, found
 * on the first call. */
static uint32_t sizes_grid_axis(ta_rule_ctx *c, const char *name, bool **pid)
{
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	if (!*pid)
		*pid = pid_names(c, as, n);
	return pid_product(c, name, as, *pid, n);
}

/* A parameter the configs tune (set to more than one value; not num_warps
 * / num_stages) that sizes each program's share of a grid axis, with the
 * line that shows it; NULL when
 * the configs are not resolved from the source (what they set is unknown),
 * set only warps and stages, or set only tiles of loops inside a program. */
static const char *tuned_grid_parameter(ta_rule_ctx *c, const ta_autotune *a, uint32_t *line)
{
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || !a->config_count)
		return NULL;
	/* Each name once: the configs set the same few (a walk of the kernel
	 * per config and parameter was most of L2's time). */
	bool *pid = NULL;
	const char **tried = NULL;
	size_t ntried = 0, cap = 0;
	const char *found = NULL;
	for (size_t i = 0; i < a->config_count && !found; i++)
		for (size_t p = 0; p < a->configs[i].param_count && !found; p++) {
			const char *name = a->configs[i].params[p].name;
			bool again = false;
			for (size_t t = 0; t < ntried && !again; t++)
				again = !strcmp(tried[t], name);
			if (again || !ta_kernel_param(c->k, name))
				continue;
			*TA_PUSH(tried, ntried, cap) = name;
			/* one value in every config (`for BM in [64]`): nothing tuned */
			bool varies = false;
			for (size_t v = 0; v < a->vary_count && !varies; v++)
				varies = !strcmp(a->varies[v], name);
			if (!varies)
				continue;
			uint32_t l = sizes_grid_axis(c, name, &pid);
			if (l) {
				*line = l;
				found = name;
			}
		}
	free(pid);
	free(tried);
	return found;
}

ta_status ta_detect_l2(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (!a || c->k->launch_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	/* A persistent kernel's grid is the SM count by design (also one that
	 * strides by tl.num_programs in a while loop the model does not see as
	 * a tile loop). */
	bool persistent = c->k->persistent || ta_rule_contains(c, c->k->body_span, "num_programs");
	uint32_t tuned_line = 0;
	const char *tuned = persistent ? NULL : tuned_grid_parameter(c, a, &tuned_line);
	bool found = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		bool known = l->grid_kind == TA_GRID_TUPLE || l->grid_kind == TA_GRID_LAMBDA ||
			     l->grid_kind == TA_GRID_FUNCTION;
		if (tuned && known && !l->grid_uses_meta && l->grid_dims > 0) {
			ta_finding *f = ta_rule_add(c, l->grid_span,
				"autotuned `%s` is launched with a grid that does not read META, although the "
				"configs tune `%s`, which sizes each program's share of the grid (line %u): "
				"the tuned value never reaches the grid", c->k->name, tuned, tuned_line);
			ta_finding_line(f, l->grid_def_span.line);
			ta_finding_line(f, tuned_line);
			found = true;
		}
		const ta_kwarg *kw = frozen_keyword(a, l);
		if (kw) {
			/* every such keyword: the call fails until all of them go */
			ta_buf names = TA_BUF_INIT;
			size_t n = 0;
			for (size_t i = 0; i < l->kwarg_count; i++)
				for (size_t j = 0; j < a->config_count; j++)
					if (ta_kwarg_find(a->configs[j].params, a->configs[j].param_count,
							  l->kwargs[i].name)) {
						ta_buf_printf(&names, "%s`%s`", n ? ", " : "", l->kwargs[i].name);
						n++;
						break;
					}
			ta_finding *f = ta_rule_add(c, kw->span,
				"launch of autotuned `%s` passes %s, which the autotune configs also set: "
				"Triton's autotuner rejects that (Conflicting meta-parameters), so the call fails "
				"until %s", c->k->name, ta_buf_str(&names), n > 1 ? "they go" : "the keyword goes");
			ta_buf_free(&names);
			ta_finding_line(f, a->span.line);
			found = true;
		}
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
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

/* ---- the rewrite ---------------------------------------------------------- */

typedef struct l2_state {
	const ta_model *m;
	const ta_launch *l;
	const ta_autotune *a;
	const char *meta;         /* the lambda's parameter */
	ta_edit *out;
	size_t mapped;
	const char *const *names; /* without configs (P1 makes them): the tuned tiles */
	size_t name_count;
} l2_state;

static bool l2_tuned(const l2_state *s, const char *kw)
{
	if (s->a)
		return all_configs_set(s->a, kw, NULL);
	for (size_t i = 0; i < s->name_count; i++)
		if (!strcmp(s->names[i], kw))
			return true;
	return false;
}

/* Rewrites triton.cdiv(n, V) inside n where V is the value of a launch
 * keyword the configs set: V -> META["KEYWORD"]. */
static void l2_map_cdiv(l2_state *s, TSNode n)
{
	if (ta_node_is(n, "call")) {
		char *c = ta_model_canonical(s->m, ta_node_field(n, "function"));
		TSNode args = ta_node_field(n, "arguments");
		if (c && ta_name_is(c, "triton.cdiv") && ta_node_named_count(args) == 2) {
			TSNode v = ta_node_named_child(args, 1);
			char *vt = ta_node_text(s->m->src, v);
			for (size_t i = 0; i < s->l->kwarg_count; i++) {
				const ta_kwarg *kw = &s->l->kwargs[i];
				if ((!strcmp(kw->value, vt) || !strcmp(kw->name, vt)) && l2_tuned(s, kw->name)) {
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
		l2_map_cdiv(s, ta_node_named_child(n, i));
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
			TSNode c = ta_node_named_child(args, j);
			if (ts_node_start_byte(c) == l->kwargs[i].span.start) {
				ta_edits_drop_arg(m, out, c);
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
		l2_state s = { m, l, a, "META", out, 0, NULL, 0 };
		TSNode body = def;
		if (l->grid_kind == TA_GRID_LAMBDA) {
			TSNode ps = ta_node_field(def, "parameters");
			char *pn = ta_node_named_count(ps) ? ta_node_text(m->src, ta_node_named_child(ps, 0)) : NULL;
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
				l2_map_cdiv(&s, ta_node_named_child(sub, i));
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

/* For P1 on a kernel launched with fixed tiles: the grid of launch l made
 * a function of META, triton.cdiv(n, V) -> META["NAME"] where V is what l
 * passes for one of names. Returns how many were mapped, or -1 when the
 * grid is neither a tuple nor a lambda written in this file. */
int ta_l2_grid_meta(const ta_model *m, const ta_launch *l, const char *const *names, size_t n, ta_edit *out)
{
	if (l->grid_uses_meta || (l->grid_kind != TA_GRID_TUPLE && l->grid_kind != TA_GRID_LAMBDA))
		return -1;
	TSNode def = ta_edits_node(m, l->grid_def_span);
	if (ts_node_is_null(def))
		return -1;
	l2_state s = { m, l, NULL, "META", out, 0, names, n };
	if (l->grid_kind == TA_GRID_LAMBDA) {
		TSNode ps = ta_node_field(def, "parameters");
		char *pn = ta_node_named_count(ps) ? ta_node_text(m->src, ta_node_named_child(ps, 0)) : NULL;
		if (!pn)
			return -1;
		s.meta = pn;
		l2_map_cdiv(&s, ta_node_field(def, "body"));
		free(pn);
		return (int)s.mapped;
	}
	l2_map_cdiv(&s, def);
	if (s.mapped > 0) {
		bool paren = ta_node_is(def, "list") || m->src->text[l->grid_def_span.start] == '(';
		uint32_t s0 = l->grid_def_span.start, s1 = l->grid_def_span.end;
		ta_edit_replace(out, s0, s0, paren ? "lambda META: " : "lambda META: (");
		if (!paren)
			ta_edit_replace(out, s1, s1, ")");
	}
	return (int)s.mapped;
}

/* Rewrite: grid from META; drop the launch keywords the configs set. */
TA_REWRITE(L2, NULL, TA_UNSAFE("assumes each program of the grid handles one tile of the size the tuner picks, so that the grid may follow that size"))
{
	ta_sites s = TA_SITES_INIT;
	for (size_t i = 0; i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		if (l->kernel < 0 || !m->kernels[l->kernel].autotune)
			continue;
		if (!ta_edits_kernel_selected(kernel_or_host, (size_t)l->kernel))
			continue;
		if (line && !ta_edits_at_line(l->span, line) && !ta_edits_at_line(l->grid_def_span, line))
			continue;
		char *w = NULL;
		if (ta_sites_made(&s, l2_one(m, l, out, &w), &w, out))
			return 0;
	}
	return ta_sites_end(&s, why_not, line, "no launch of an autotuned kernel");
}
