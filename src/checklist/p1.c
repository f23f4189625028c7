/* P1: Autotune breadth and per-GPU configs. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool is_tile_param(const ta_param *p)
{
	if (!p->constexpr_)
		return false;
	return strncasecmp(p->name, "BLOCK", 5) == 0 || strstr(p->name, "_BLOCK") ||
	       strncasecmp(p->name, "TILE", 4) == 0 || strstr(p->name, "_SIZE") != NULL;
}

static bool varies(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->vary_count; i++)
		if (!strcasecmp(a->varies[i], name))
			return true;
	return false;
}

static ta_span configs_where(const ta_autotune *a)
{
	if (a->configs_kind == TA_CONFIGS_LIST || a->configs_kind == TA_CONFIGS_COMPREHENSION)
		return a->configs_span;
	return a->config_count ? a->configs[0].span : a->span;
}

/* Below this GPU time per launch, the autotuner's work on every call (its
 * key, its cache lookup, in Python) is of the same order as the kernel: on
 * an H200 the bundled cat example's 5.3 us copies ran as fast after P1 and
 * the whole call took 1.4x as long. */
#define P1_SHORT_LAUNCH_NS 20000.0

/* Launch keywords that fix tiles or launch options of an untuned kernel. */
static ta_status p1_untuned(ta_rule_ctx *c)
{
	const ta_kernel_evidence *e = ta_evidence_find(c->ev, c->k->name);
	bool found = false;
	for (size_t i = 0; i < c->m->launch_count; i++) {
		const ta_launch *l = &c->m->launches[i];
		if (l->kernel != c->kernel)
			continue;
		ta_buf fixed = TA_BUF_INIT;
		uint32_t kw_line = 0;
		for (size_t j = 0; j < l->kwarg_count; j++) {
			const ta_kwarg *kw = &l->kwargs[j];
			const ta_param *p = ta_kernel_param(c->k, kw->name);
			if ((p && is_tile_param(p)) || !strcmp(kw->name, "num_warps") || !strcmp(kw->name, "num_stages")) {
				ta_buf_printf(&fixed, "%s%s=%s", fixed.len ? ", " : "", kw->name, kw->value);
				kw_line = kw->span.line;
			}
		}
		if (fixed.len) {
			ta_finding *f = ta_rule_add(c, l->span,
				"`%s` is launched with fixed %s and no @triton.autotune", c->k->name, ta_buf_str(&fixed));
			ta_finding_line(f, kw_line);
			if (e && e->median_ns > 0 && e->median_ns < P1_SHORT_LAUNCH_NS)
				f->measure = ta_xasprintf(
					"each launch runs %.1f us on the GPU: the autotuner adds host work to every "
					"call (its key, its cache lookup), which can cost more than a better config "
					"saves at this size; time the whole call, not only the kernel",
					e->median_ns / 1e3);
			found = true;
		}
		ta_buf_free(&fixed);
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_NOT_APPLICABLE;
}

/* The kernels whose autotune reads the same config list as k's, in file
 * order: one list tuned for several kernels gets one finding (the same text
 * for each), naming them all. *count: how many. */
static char *sharing_configs(const ta_rule_ctx *c, ta_span where, size_t *count)
{
	const ta_kernel **ks = ta_xcalloc(c->m->kernel_count + 1, sizeof *ks);
	size_t n = 0;
	for (size_t i = 0; i < c->m->kernel_count; i++) {
		const ta_kernel *o = &c->m->kernels[i];
		if (o != c->k && (o->is_helper || !o->autotune || !o->autotune->config_count))
			continue;
		ta_span w = o == c->k ? where : configs_where(o->autotune);
		if (w.start == where.start && w.end == where.end)
			ks[n++] = o;
	}
	*count = n;
	char *names = ta_rule_kernel_list(ks, n);
	free(ks);
	return names;
}

ta_status ta_detect_p1(ta_rule_ctx *c)
{
	const ta_autotune *a = c->k->autotune;
	if (c->k->is_helper)
		return TA_STATUS_NOT_APPLICABLE;
	if (!a)
		return p1_untuned(c);
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || a->config_count == 0)
		return TA_STATUS_NOT_APPLICABLE;
	ta_span where = configs_where(a);
	bool found = false;
	size_t sharing;
	char *who = sharing_configs(c, where, &sharing);
	if (!varies(a, "num_stages") && !varies(a, "num_warps")) {
		ta_rule_add(c, where, "the autotune configs of %s vary neither num_stages nor num_warps", who);
		found = true;
	}
	if (!a->branches_on_capability) {
		ta_finding *f = ta_rule_add(c, where,
			"%s use%s one config list for every GPU: nothing branches on "
			"torch.cuda.get_device_capability() or the backend", who, sharing > 1 ? "" : "s");
		f->tags |= TA_TAG_GPU_SPLIT;
		found = true;
	}
	free(who);
	/* occupancy, or the program count itself (Triton's grouped GEMM tunes NUM_SM) */
	if (c->k->persistent && !varies(a, "occupancy") && !varies(a, "OCCUPANCY") && !varies(a, "NUM_SMS") &&
	    !varies(a, "NUM_SM") && !varies(a, "NUM_PROGRAMS")) {
		ta_rule_add(c, where, "persistent `%s` has no occupancy in its autotune configs", c->k->name);
		found = true;
	}
	return found ? TA_STATUS_APPLIES : TA_STATUS_SATISFIED;
}

/* ---- P1: configs per GPU generation --------------------------------------- */

/* A small set of ints, kept sorted. */
typedef struct iset {
	int v[16];
	size_t n;
} iset;

static void iset_add(iset *s, int x)
{
	size_t i = 0;
	while (i < s->n && s->v[i] < x)
		i++;
	if ((i < s->n && s->v[i] == x) || s->n == 16)
		return;
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
	s->v[i] = x;
	s->n++;
}

static char *iset_tuple(const iset *s)
{
	ta_buf b = TA_BUF_INIT;
	ta_buf_putc(&b, '(');
	for (size_t i = 0; i < s->n; i++)
		ta_buf_printf(&b, "%s%d", i ? ", " : "", s->v[i]);
	ta_buf_puts(&b, s->n == 1 ? ",)" : ")");
	return ta_buf_steal(&b);
}

/* A small positive integer literal. */
static bool small_int(const char *t, int *v)
{
	if (!*t || strlen(t) > 3)
		return false;
	for (const char *p = t; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	*v = atoi(t);
	return *v > 0;
}

/* What the current configs teach: their tile dicts (as written, each
 * once) and the stages and warps they use. */
typedef struct p1_seed {
	char **tiles;
	size_t tile_count;
	iset stages, warps;
} p1_seed;

static void p1_seed_free(p1_seed *s)
{
	for (size_t i = 0; i < s->tile_count; i++)
		free(s->tiles[i]);
	free(s->tiles);
}

static bool occupancy_name(const char *n)
{
	return !strcasecmp(n, "occupancy") || !strcasecmp(n, "NUM_SMS") || !strcasecmp(n, "NUM_SM") ||
	       !strcasecmp(n, "NUM_PROGRAMS");
}

static int p1_seeds(const ta_model *m, const ta_kernel *k, p1_seed *s, char **why)
{
	const ta_autotune *a = k->autotune;
	bool occupancy = false;
	for (size_t i = 0; i < a->config_count; i++) {
		const ta_config *c = &a->configs[i];
		TSNode dict = ta_edits_call_arg(m, ta_edits_node(m, c->span), 0, "kwargs");
		if (!ta_node_is(dict, "dictionary"))
			return ta_edits_refuse(why, "line %u: the config's parameters are not a literal dict", c->span.line);
		int st = 3, wa = 4;        /* Triton's defaults */
		for (size_t j = 0; j < c->option_count; j++) {
			const ta_kwarg *o = &c->options[j];
			int *to = !strcmp(o->name, "num_stages") ? &st : !strcmp(o->name, "num_warps") ? &wa : NULL;
			if (!to)
				return ta_edits_refuse(why, "line %u: a config sets %s, which the new list would not carry",
						       c->span.line, o->name);
			if (!small_int(o->value, to))
				return ta_edits_refuse(why, "line %u: %s=%s is not a literal", c->span.line, o->name,
						       o->value);
		}
		for (size_t j = 0; j < c->param_count; j++)
			occupancy |= occupancy_name(c->params[j].name);
		iset_add(&s->stages, st);
		iset_add(&s->warps, wa);
		char *t = ta_node_text(m->src, dict);
		bool seen = false;
		for (size_t j = 0; j < s->tile_count && !seen; j++)
			seen = !strcmp(s->tiles[j], t);
		if (seen) {
			free(t);
			continue;
		}
		s->tiles = ta_xrealloc(s->tiles, (s->tile_count + 1) * sizeof *s->tiles);
		s->tiles[s->tile_count++] = t;
	}
	if (k->persistent && !occupancy)
		return ta_edits_refuse(why, "persistent %s: occupancy must change its grid and tile-loop step too, "
				       "which is done by hand", k->name);
	return 0;
}

/* The pipeline depths of each GPU generation, seeded from the current
 * ones: Blackwell and Hopper have room for deeper pipelines; Ampere has
 * less shared memory, so it gets shallower ones. rows: sm100, sm90, sm80. */
static void p1_stage_rows(const iset *seed, iset rows[3])
{
	int lo = seed->v[0], hi = seed->v[seed->n - 1];
	rows[0] = *seed;
	rows[1] = *seed;
	rows[2] = (iset){ .n = 0 };
	iset_add(&rows[0], hi + 1);
	iset_add(&rows[0], hi + 2);
	iset_add(&rows[1], hi + 1);
	iset_add(&rows[2], lo > 2 ? lo - 1 : 2);
	iset_add(&rows[2], lo > 2 ? lo : 3);
}

/* The generation test: configs are built when the module is imported,
 * which must still work where no GPU is present (it takes the last row). */
static char *p1_capability_line(const char *torch)
{
	return ta_xasprintf("major, _ = %s.cuda.get_device_capability() if %s.cuda.is_available() else (0, 0)",
			    torch, torch);
}

static const char *const p1_heads[3] = { "if major >= 10:", "elif major == 9:", "else:" };

/* A literal list or tuple of small ints into s; false when it is not one. */
static bool int_list(const ta_model *m, TSNode n, iset *s)
{
	if (!ta_node_is(n, "list") && !ta_node_is(n, "tuple"))
		return false;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++) {
		char *t = ta_node_text(m->src, ts_node_named_child(n, i));
		int v;
		bool ok = small_int(t, &v);
		free(t);
		if (!ok)
			return false;
		iset_add(s, v);
	}
	return c > 0;
}

static bool p1_varies_occupancy(const ta_autotune *a)
{
	for (size_t i = 0; i < a->vary_count; i++)
		if (occupancy_name(a->varies[i]))
			return true;
	return false;
}

/* The builder function, at the indentation of the kernel's definition. */
static char *p1_function(const ta_model *m, const ta_kernel *k, const p1_seed *s, const char *fn,
			 const char *torch, const char *config, const char *ind)
{
	const char *u = ta_edits_indent_unit(m, ind);
	iset rows[3], warps = s->warps;
	p1_stage_rows(&s->stages, rows);
	if (!k->loop_count)  /* nothing to pipeline: the depth stays as it is */
		rows[0] = rows[1] = rows[2] = s->stages;
	iset_add(&warps, 4);
	iset_add(&warps, 8);
	char *w = iset_tuple(&warps), *cap = p1_capability_line(torch);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sdef %s():\n", ind, fn);
	bool tileless = s->tile_count == 1 && !strcmp(s->tiles[0], "{}");
	ta_buf_printf(&b, "%s%s# %s's %s on each GPU generation, with pipeline depths that fit it\n", ind, u,
		      k->name, tileless ? "launch options" : "tiles");
	ta_buf_printf(&b, "%s%s%s\n", ind, u, cap);
	free(cap);
	for (int i = 0; i < 3; i++) {
		char *st = iset_tuple(&rows[i]);
		ta_buf_printf(&b, "%s%s%s\n%s%s%sstages, warps = %s, %s\n", ind, u, p1_heads[i], ind, u, u, st, w);
		free(st);
	}
	if (tileless) {
		ta_buf_printf(&b, "%s%sreturn [%s({}, num_stages=s, num_warps=w) for s in stages for w in warps]\n\n\n",
			      ind, u, config);
	} else {
		ta_buf_printf(&b, "%s%stiles = [\n", ind, u);
		for (size_t i = 0; i < s->tile_count; i++)
			ta_buf_printf(&b, "%s%s%s%s,\n", ind, u, u, s->tiles[i]);
		ta_buf_printf(&b, "%s%s]\n", ind, u);
		ta_buf_printf(&b, "%s%sreturn [\n%s%s%s%s(dict(t), num_stages=s, num_warps=w)\n", ind, u, ind, u, u,
			      config);
		ta_buf_printf(&b, "%s%s%sfor t in tiles for s in stages for w in warps\n%s%s]\n\n\n", ind, u, u, ind,
			      u);
	}
	free(w);
	return ta_buf_steal(&b);
}

/* P1 on a comprehension of configs (the common form in larger kernel
 * libraries): it moves into a function whose pipeline depths depend on the
 * GPU generation; the comprehension iterates over them and is otherwise
 * kept as written. */
static int p1_comprehension(const ta_model *m, const ta_kernel *k, const char *fn, const char *torch,
			    ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	TSNode comp = ta_edits_node(m, a->configs_span), body = ta_node_field(comp, "body");
	if (!ta_node_is(comp, "list_comprehension"))
		return ta_edits_refuse(why, "%s's configs are a comprehension written elsewhere: move it by hand",
				       k->name);
	char *canon = ta_node_is(body, "call") ? ta_model_canonical(m, ta_node_field(body, "function")) : NULL;
	bool is_config = canon && ta_name_is(canon, "triton.Config");
	free(canon);
	if (!is_config)
		return ta_edits_refuse(why, "line %u: the comprehension does not make one triton.Config per item",
				       a->configs_span.line);
	if (ta_node_contains_identifier(m->src, comp, "stages") || ta_node_contains_identifier(m->src, comp, "major"))
		return ta_edits_refuse(why, "line %u: the comprehension already uses the names stages or major",
				       a->configs_span.line);
	if (k->persistent && !p1_varies_occupancy(a))
		return ta_edits_refuse(why, "persistent %s: occupancy must change its grid and tile-loop step too, "
				       "which is done by hand", k->name);
	if (!k->loop_count)
		return ta_edits_refuse(why, "%s has no loop for num_stages to pipeline: per-GPU tiles and warps "
				       "are chosen by hand", k->name);
	/* What num_stages is now, and the change that makes it iterate stages. */
	uint32_t cs = ts_node_start_byte(comp), ce = ts_node_end_byte(comp);
	TSNode st = ta_edits_call_arg(m, body, 2, "num_stages");
	iset seed = { .n = 0 };
	uint32_t r0 = 0, r1 = 0;  /* range of comp replaced by rtext */
	const char *rtext = "stages";
	char *clause = NULL;      /* added after the last clause */
	uint32_t clause_at = 0;
	if (ta_node_is(st, "identifier")) {
		uint32_t n = ta_node_named_count(comp);
		for (uint32_t i = 0; i < n && !r1; i++) {
			TSNode c = ts_node_named_child(comp, i);
			if (!ta_node_is(c, "for_in_clause"))
				continue;
			char *lv = ta_node_text(m->src, ta_node_field(c, "left"));
			bool same = ta_node_text_eq(m->src, st, lv);
			free(lv);
			TSNode right = ta_node_field(c, "right");
			if (same && int_list(m, right, &seed)) {
				r0 = ts_node_start_byte(right);
				r1 = ts_node_end_byte(right);
			}
		}
		if (!r1) {
			char *v = ta_node_text(m->src, st);
			int rc = ta_edits_refuse(why, "line %u: num_stages=%s does not iterate a literal list of the "
						 "comprehension", a->configs_span.line, v);
			free(v);
			return rc;
		}
	} else {
		int v = 3;  /* Triton's default */
		char *t = ts_node_is_null(st) ? NULL : ta_node_text(m->src, st);
		bool ok = !t || small_int(t, &v);
		free(t);
		if (!ok || ta_node_contains_identifier(m->src, comp, "num_stages") != !ts_node_is_null(st))
			return ta_edits_refuse(why, "line %u: num_stages of the comprehension is neither a literal nor "
					       "one of its loop variables", a->configs_span.line);
		iset_add(&seed, v);
		if (!ts_node_is_null(st)) {
			r0 = ts_node_start_byte(st);
			r1 = ts_node_end_byte(st);
			rtext = "num_stages";
		} else {
			/* no num_stages yet: one more keyword after the last argument */
			TSNode args = ta_node_field(body, "arguments");
			uint32_t n = ta_node_named_count(args);
			if (!n)
				return ta_edits_refuse(why, "line %u: a triton.Config without arguments",
						       a->configs_span.line);
			r0 = r1 = ts_node_end_byte(ts_node_named_child(args, n - 1));
			rtext = ", num_stages=num_stages";
		}
		uint32_t n = ta_node_named_count(comp);
		TSNode last = ts_node_named_child(comp, n - 1);
		while (ta_node_is(last, "comment") && n > 1)
			last = ts_node_named_child(comp, --n - 1);
		clause_at = ts_node_end_byte(last);
		clause = ta_xstrdup(" for num_stages in stages");
	}
	/* The comprehension's text with the change, its continuation lines
	 * moved to the function body's indentation. */
	char *ind = ta_edits_indent_at(m, k->span.start);
	const char *u = ta_edits_indent_unit(m, ind);
	char *old_ind = ta_edits_indent_at(m, cs), *body_ind = ta_xasprintf("%s%s", ind, u);
	ta_buf t = TA_BUF_INIT;
	for (uint32_t i = cs; i < ce; i++) {
		if (i == r0)
			ta_buf_puts(&t, rtext);
		if (clause && i == clause_at)
			ta_buf_puts(&t, clause);
		if (i >= r0 && i < r1)
			continue;
		char ch = m->src->text[i];
		ta_buf_putc(&t, ch);
		if (ch == '\n' && !strncmp(m->src->text + i + 1, old_ind, strlen(old_ind))) {
			ta_buf_puts(&t, body_ind);
			i += (uint32_t)strlen(old_ind);
		}
	}
	char *comp_text = ta_buf_steal(&t);
	iset rows[3];
	p1_stage_rows(&seed, rows);
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sdef %s():\n", ind, fn);
	ta_buf_printf(&b, "%s# %s's configs on each GPU generation, with pipeline depths that fit it\n", body_ind,
		      k->name);
	char *cap = p1_capability_line(torch);
	ta_buf_printf(&b, "%s%s\n", body_ind, cap);
	free(cap);
	for (int i = 0; i < 3; i++) {
		char *tu = iset_tuple(&rows[i]);
		ta_buf_printf(&b, "%s%s\n%s%sstages = %s\n", body_ind, p1_heads[i], body_ind, u, tu);
		free(tu);
	}
	ta_buf_printf(&b, "%sreturn %s\n\n\n", body_ind, comp_text);
	char *def = ta_buf_steal(&b), *callt = ta_xasprintf("%s()", fn);
	uint32_t at = ta_edits_line_start(m, k->span.start);
	ta_edit_replace(out, at, at, def);
	ta_edit_replace(out, a->configs_span.start, a->configs_span.end, callt);
	ta_edit_set_title(out, "%s(): %s's pipeline depths per GPU generation", fn, k->name);
	out->line = a->configs_span.line;
	free(def);
	free(callt);
	free(comp_text);
	free(old_ind);
	free(body_ind);
	free(ind);
	free(clause);
	return 0;
}

static int p1_autotuned(const ta_model *m, const ta_kernel *k, ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	if (a->configs_kind == TA_CONFIGS_FUNCTION)
		return ta_edits_refuse(why, "%s's configs come from %s(): widen that function by hand", k->name,
				       a->configs_function);
	if (a->configs_kind == TA_CONFIGS_COMPREHENSION) {
		char *torch = ta_edits_module(m, "torch");
		char *fn = ta_xasprintf("%s_configs", k->name);
		int rc = !torch ? ta_edits_refuse(why, "the file does not import torch") :
			 ta_edits_name_taken(m, fn) ? ta_edits_refuse(why, "the name %s() is taken", fn) :
			 p1_comprehension(m, k, fn, torch, out, why);
		free(fn);
		free(torch);
		return rc;
	}
	if ((a->configs_kind != TA_CONFIGS_LIST && a->configs_kind != TA_CONFIGS_NAME) || !a->config_count)
		return ta_edits_refuse(why, "%s's configs are not a literal list in this file", k->name);
	char *torch = ta_edits_module(m, "torch");
	char *config = ta_edits_module(m, "triton.Config");
	if (!torch || !config) {
		free(torch);
		free(config);
		return ta_edits_refuse(why, "the file does not import %s", torch ? "triton" : "torch");
	}
	p1_seed s = { 0 };
	int rc = p1_seeds(m, k, &s, why);
	char *fn = ta_xasprintf("%s_configs", k->name);
	if (rc == 0 && ta_edits_name_taken(m, fn))
		rc = ta_edits_refuse(why, "the name %s() is taken", fn);
	if (rc == 0) {
		uint32_t at = ta_edits_line_start(m, k->span.start);
		char *ind = ta_edits_indent_at(m, k->span.start);
		char *def = p1_function(m, k, &s, fn, torch, config, ind);
		char *callt = ta_xasprintf("%s()", fn);
		ta_edit_replace(out, at, at, def);
		ta_edit_replace(out, a->configs_span.start, a->configs_span.end, callt);
		ta_edit_set_title(out, "%s(): %s's configs per GPU generation, varying num_stages and num_warps", fn,
				  k->name);
		/* where the detector reports: a named list at its first config */
		out->line = a->configs_kind == TA_CONFIGS_NAME ? a->configs[0].span.line : a->configs_span.line;
		free(callt);
		free(def);
		free(ind);
	}
	free(fn);
	p1_seed_free(&s);
	free(torch);
	free(config);
	return rc;
}

/* The kernel's size arguments, for the autotune key: parameters that are
 * not constexpr and not strides, read by a comparison (a mask), a loop's
 * range or a ceiling division. */
static char *p1_size_key(const ta_model *m, const ta_kernel *k)
{
	bool *used = ta_xcalloc(k->param_count ? k->param_count : 1, sizeof *used);
	TSTreeCursor cur = ts_tree_cursor_new(k->node);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		bool bound = ta_node_is(n, "comparison_operator");
		if (ta_node_is(n, "call")) {
			char *fn = ta_node_text(m->src, ta_node_field(n, "function"));
			size_t l = fn ? strlen(fn) : 0;
			bound = fn && ((l >= 4 && !strcmp(fn + l - 4, "cdiv")) || (l >= 5 && !strcmp(fn + l - 5, "range")));
			free(fn);
		}
		for (size_t i = 0; bound && i < k->param_count; i++) {
			const ta_param *p = &k->params[i];
			if (!p->constexpr_ && strncmp(p->name, "stride", 6) &&
			    ta_node_contains_identifier(m->src, n, p->name))
				used[i] = true;
		}
		if (!ta_cursor_next(&cur, true))
			break;
	}
	ts_tree_cursor_delete(&cur);
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < k->param_count; i++)
		if (used[i])
			ta_buf_printf(&b, "%s\"%s\"", b.len ? ", " : "", k->params[i].name);
	free(used);
	return b.len ? ta_buf_steal(&b) : (ta_buf_free(&b), NULL);
}

/* P1 on a kernel launched with fixed options and no autotune: an autotune
 * over num_warps and num_stages per GPU generation, seeded from the
 * launches, keyed on the size arguments; the launches stop fixing those
 * two. Tiles stay as launched (tuning them means the grid reads META: L2). */
static int p1_untuned_edit(const ta_model *m, const ta_kernel *k, size_t ki, ta_edit *out, char **why)
{
	TSNode dd = ta_node_parent(k->node);
	if (!ta_node_is(dd, "decorated_definition"))
		return ta_edits_refuse(why, "%s: triton.jit is applied by a call, not a decorator", k->name);
	if (k->persistent)
		return ta_edits_refuse(why, "persistent %s: occupancy must change its grid and tile-loop step too, "
				       "which is done by hand", k->name);
	p1_seed s = { 0 };
	bool fixes = false;
	for (size_t i = 0; i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		for (size_t j = 0; l->kernel == (int)ki && j < l->kwarg_count; j++) {
			const ta_kwarg *kw = &l->kwargs[j];
			iset *to = !strcmp(kw->name, "num_stages") ? &s.stages : !strcmp(kw->name, "num_warps") ? &s.warps :
				   NULL;
			int v;
			if (!to)
				continue;
			fixes = true;
			if (small_int(kw->value, &v)) {
				iset_add(to, v);
			} else if (to == &s.warps) {
				/* a computed count (a heuristic on the block size) may
				 * go up to 32 warps for wide rows: keep that range */
				iset_add(to, 16);
				iset_add(to, 32);
			}
			TSNode arg = ta_edits_node(m, kw->span);
			if (!ta_node_is(arg, "keyword_argument") || ta_edits_drop_arg(out, arg) != 0)
				return ta_edits_refuse(why, "line %u: cannot take %s= out of the launch", kw->span.line,
						       kw->name);
		}
	}
	if (!fixes)
		return ta_edits_refuse(why, "%s's launches fix its tiles only: tuning them means a grid that reads META "
				       "(L2), done by hand", k->name);
	if (!s.stages.n)
		iset_add(&s.stages, 3);  /* Triton's defaults */
	if (!s.warps.n)
		iset_add(&s.warps, 4);
	char *key = p1_size_key(m, k);
	char *torch = ta_edits_module(m, "torch"), *config = ta_edits_module(m, "triton.Config");
	char *autotune = ta_edits_module(m, "triton.autotune");
	char *fn = ta_xasprintf("%s_configs", k->name);
	int rc = 0;
	if (!key)
		rc = ta_edits_refuse(why, "%s reads no size argument in a mask, range or cdiv: no autotune key", k->name);
	else if (!torch || !config || !autotune)
		rc = ta_edits_refuse(why, "the file does not import %s", torch ? "triton" : "torch");
	else if (ta_edits_name_taken(m, fn))
		rc = ta_edits_refuse(why, "the name %s() is taken", fn);
	if (rc == 0) {
		char *tile = ta_xstrdup("{}");
		s.tiles = &tile;
		s.tile_count = 1;
		uint32_t at = ta_edits_line_start(m, ts_node_start_byte(dd));
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(dd));
		char *def = p1_function(m, k, &s, fn, torch, config, ind);
		char *dec = ta_xasprintf("%s%s@%s(configs=%s(), key=[%s])\n", def, ind, autotune, fn, key);
		ta_edit_replace(out, at, at, dec);
		ta_edit_set_title(out, "%s(): autotune %s's num_warps and num_stages per GPU generation, keyed on %s", fn,
				  k->name, key);
		out->line = k->span.line;
		free(dec);
		free(def);
		free(ind);
		free(tile);
		s.tiles = NULL;
		s.tile_count = 0;
	}
	free(fn);
	free(key);
	free(torch);
	free(config);
	free(autotune);
	return rc;
}

/* The configs need widening: what the P1 detector reports. */
static bool p1_narrow(const ta_autotune *a)
{
	bool stages = false, warps = false;
	for (size_t i = 0; i < a->vary_count; i++) {
		stages |= !strcmp(a->varies[i], "num_stages");
		warps |= !strcmp(a->varies[i], "num_warps");
	}
	return !a->branches_on_capability || (!stages && !warps);
}

/* A launch of the untuned kernel fixes a tile (constexpr) or a launch
 * option by keyword: what the detector reports. */
static bool p1_fixed_launch(const ta_model *m, const ta_kernel *k, size_t ki)
{
	for (size_t i = 0; i < m->launch_count; i++) {
		const ta_launch *l = &m->launches[i];
		for (size_t j = 0; l->kernel == (int)ki && j < l->kwarg_count; j++) {
			const ta_param *p = ta_kernel_param(k, l->kwargs[j].name);
			if ((p && p->constexpr_) || !strcmp(l->kwargs[j].name, "num_warps") ||
			    !strcmp(l->kwargs[j].name, "num_stages"))
				return true;
		}
	}
	return false;
}

/* line falls on the kernel, its autotune, a config of it (the detector
 * reports a named list at its first config) or one of its launches. */
static bool p1_at_line(const ta_model *m, const ta_kernel *k, size_t ki, uint32_t line)
{
	const ta_autotune *a = k->autotune;
	if (!line || ta_edits_at_line(k->span, line))
		return true;
	if (a && (ta_edits_at_line(a->span, line) || ta_edits_at_line(a->configs_span, line)))
		return true;
	for (size_t i = 0; a && i < a->config_count; i++)
		if (ta_edits_at_line(a->configs[i].span, line))
			return true;
	for (size_t i = 0; i < m->launch_count; i++)
		if (m->launches[i].kernel == (int)ki && ta_edits_at_line(m->launches[i].span, line))
			return true;
	return false;
}

/* Rewrite: configs from a function that branches on the GPU generation and varies num_stages and num_warps. */
TA_REWRITE(P1, NULL)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		const ta_kernel *k = &m->kernels[ki];
		if (k->is_helper)
			continue;
		const ta_autotune *a = k->autotune;
		if (!p1_at_line(m, k, ki, line))
			continue;
		char *w = NULL;
		if (!a) {
			if (!p1_fixed_launch(m, k, ki))
				continue;
			if (p1_untuned_edit(m, k, ki, out, &w) == 0) {
				free(why);
				return 0;
			}
			ta_edit_clear(out);
			ta_edits_keep_why(&why, w);
			continue;
		}
		if (!p1_narrow(a)) {
			if (k->persistent && !p1_varies_occupancy(a))
				ta_edits_keep_why(&why, ta_xasprintf("persistent %s: occupancy must change its grid and "
								     "tile-loop step too, which is done by hand", k->name));
			continue;
		}
		if (p1_autotuned(m, k, out, &w) == 0) {
			free(why);
			return 0;
		}
		ta_edit_clear(out);
		ta_edits_keep_why(&why, w);
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no kernel with fixed tiles or a narrow, one-GPU config list%s",
			     line ? " at that line" : "");
}
