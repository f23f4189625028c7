/* Edits of the tuning space: P1 (a config builder that branches on the
 * GPU generation and varies stages and warps) and P5 (an EPILOGUE_SUBTILE
 * constexpr splitting the descriptor store, both values in the configs). */
#include "config.h"
#include "advise/edits/edits.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- shared ------------------------------------------------------------- */

/* name is bound or read anywhere in the file. */
static bool name_taken(const ta_model *m, const char *name)
{
	return ta_node_contains_identifier(m->src, ta_syntax_root(m->syn), name);
}

/* An expression that needs no parentheses as the left operand of `+`
 * (sum_ok) or of `//`. */
static bool atom(const ta_model *m, TSNode n, bool sum_ok)
{
	if (ta_node_is(n, "binary_operator")) {
		TSNode op = ta_node_field(n, "operator");
		return ta_node_text_eq(m->src, op, "*") || ta_node_text_eq(m->src, op, "//") ||
		       ta_node_text_eq(m->src, op, "%") ||
		       (sum_ok && (ta_node_text_eq(m->src, op, "+") || ta_node_text_eq(m->src, op, "-")));
	}
	return ta_node_is(n, "identifier") || ta_node_is(n, "integer") || ta_node_is(n, "attribute") ||
	       ta_node_is(n, "call") || ta_node_is(n, "subscript") || ta_node_is(n, "parenthesized_expression");
}

static char *operand(const ta_model *m, TSNode n, bool sum_ok)
{
	char *t = ta_node_text(m->src, n);
	if (atom(m, n, sum_ok))
		return t;
	char *p = ta_xasprintf("(%s)", t);
	free(t);
	return p;
}

/* Only whitespace precedes off on its line. */
static bool starts_line(const ta_model *m, uint32_t off)
{
	for (uint32_t i = ta_edits_line_start(m, off); i < off; i++)
		if (m->src->text[i] != ' ' && m->src->text[i] != '\t')
			return false;
	return true;
}

/* ---- P5: epilogue subtile ------------------------------------------------ */

#define SUBTILE "EPILOGUE_SUBTILE"

/* Adds `"EPILOGUE_SUBTILE": value` at the end of a config's dict. Returns
 * the offset where it went (UINT32_MAX when the dict is not literal) and
 * the entry text in *entry (caller frees). */
static uint32_t dict_entry(const ta_model *m, TSNode config, const char *value, char **entry)
{
	TSNode dict = ta_edits_call_arg(m, config, 0, "kwargs");
	if (!ta_node_is(dict, "dictionary"))
		return UINT32_MAX;
	TSNode last = { 0 };
	char q = '"';
	uint32_t n = ta_node_named_count(dict);
	for (uint32_t i = 0; i < n; i++) {
		TSNode p = ts_node_named_child(dict, i);
		if (ta_node_is(p, "comment"))
			continue;
		if (!ta_node_is(p, "pair"))
			return UINT32_MAX;       /* **spread: the keys are not all visible */
		TSNode key = ta_node_field(p, "key");
		if (ts_node_is_null(last) && ta_node_is(key, "string") && m->src->text[ts_node_start_byte(key)] == '\'')
			q = '\'';
		last = p;
	}
	*entry = ta_xasprintf("%s%c" SUBTILE "%c: %s", ts_node_is_null(last) ? "" : ", ", q, q, value);
	return ts_node_is_null(last) ? ts_node_start_byte(dict) + 1 : ts_node_end_byte(last);
}

/* A config that is an element of a list: keep it with the flag off and add
 * a copy with the flag on right after it, in the same layout. */
static int p5_list_config(const ta_model *m, TSNode config, ta_edit *out, char **why)
{
	char *off, *on;
	uint32_t at = dict_entry(m, config, "False", &off);
	if (at == UINT32_MAX)
		return ta_edits_refuse(why, "line %u: the config's parameters are not a literal dict",
				       (unsigned)ts_node_start_point(config).row + 1);
	dict_entry(m, config, "True", &on);
	uint32_t s = ts_node_start_byte(config), e = ts_node_end_byte(config);
	char *head = ta_edits_text(m, s, at), *tail = ta_edits_text(m, at, e);
	bool own_line = starts_line(m, s);
	char *ind = ta_edits_indent_at(m, s);
	char *copy = own_line ? ta_xasprintf(",\n%s%s%s%s", ind, head, on, tail) : ta_xasprintf(", %s%s%s", head, on, tail);
	ta_edit_replace(out, at, at, off);
	ta_edit_replace(out, e, e, copy);
	free(copy);
	free(ind);
	free(head);
	free(tail);
	free(off);
	free(on);
	return 0;
}

/* A config that is the body of a comprehension: the flag becomes one more
 * loop of it. */
static int p5_comprehension_config(const ta_model *m, TSNode config, TSNode comp, ta_edit *out, char **why)
{
	const char *var = !name_taken(m, "subtile") ? "subtile" : !name_taken(m, "epilogue_subtile") ?
			  "epilogue_subtile" : NULL;
	if (!var)
		return ta_edits_refuse(why, "line %u: no free name for the comprehension's new loop variable",
				       (unsigned)ts_node_start_point(comp).row + 1);
	char *entry;
	uint32_t at = dict_entry(m, config, var, &entry);
	if (at == UINT32_MAX)
		return ta_edits_refuse(why, "line %u: the config's parameters are not a literal dict",
				       (unsigned)ts_node_start_point(config).row + 1);
	uint32_t n = ta_node_named_count(comp);
	TSNode last = ts_node_named_child(comp, n - 1);
	while (ta_node_is(last, "comment") && n > 1)
		last = ts_node_named_child(comp, --n - 1);
	uint32_t e = ts_node_end_byte(last);
	/* A clause that starts its own line gets a sibling line. */
	char *loop;
	if (ta_edits_alone_on_line(m, last, true) && ts_node_start_point(last).row != ts_node_start_point(config).row) {
		char *ind = ta_edits_indent_at(m, ts_node_start_byte(last));
		loop = ta_xasprintf("\n%sfor %s in (False, True)", ind, var);
		free(ind);
	} else {
		loop = ta_xasprintf(" for %s in (False, True)", var);
	}
	ta_edit_replace(out, at, at, entry);
	ta_edit_replace(out, e, e, loop);
	free(loop);
	free(entry);
	return 0;
}

/* Both values of the flag in every config of the kernel's autotune. */
static int p5_configs(const ta_model *m, const ta_kernel *k, ta_edit *out, char **why)
{
	const ta_autotune *a = k->autotune;
	if (!a)
		return ta_edits_refuse(why, "%s is not autotuned: " SUBTILE " needs both values in its configs",
				       k->name);
	if (a->configs_kind == TA_CONFIGS_UNRESOLVED || a->configs_kind == TA_CONFIGS_NONE || !a->config_count)
		return ta_edits_refuse(why, "%s's configs are not literal in this file", k->name);
	/* Configs shared with another kernel would hand it a parameter it lacks. */
	for (size_t i = 0; i < m->kernel_count; i++) {
		const ta_autotune *o = m->kernels[i].autotune;
		for (size_t j = 0; &m->kernels[i] != k && o && j < o->config_count; j++)
			if (o->configs[j].span.start == a->configs[0].span.start)
				return ta_edits_refuse(why, "line %u: these configs also tune %s, which has no " SUBTILE,
						       a->configs[0].span.line, m->kernels[i].name);
	}
	for (size_t i = 0; i < a->config_count; i++) {
		TSNode c = ta_edits_node(m, a->configs[i].span);
		TSNode p = ta_node_parent(c);
		int rc;
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, SUBTILE))
			return ta_edits_refuse(why, "line %u: a config already sets " SUBTILE, a->configs[i].span.line);
		if (ta_node_is(p, "list"))
			rc = p5_list_config(m, c, out, why);
		else if (ta_node_is(p, "list_comprehension"))
			rc = p5_comprehension_config(m, c, p, out, why);
		else
			rc = ta_edits_refuse(why, "line %u: a config is neither a list element nor a comprehension's "
					     "body", a->configs[i].span.line);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The tl.make_tensor_descriptor call that builds the descriptor, when the
 * kernel builds it (once). */
static const ta_op *p5_descriptor(const ta_kernel *k, const char *name, uint32_t before)
{
	const ta_op *d = NULL;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->kind == TA_OP_MAKE_DESCRIPTOR && op->target && !strcmp(op->target, name)) {
			if (d || op->span.start > before)
				return NULL;
			d = op;
		}
	}
	return d;
}

/* Two names for the halves that the kernel does not use yet. */
static bool half_names(const ta_model *m, const ta_kernel *k, const char *base, char **h0, char **h1)
{
	static const char *const pairs[][2] = { { "%s0", "%s1" }, { "%s_lo", "%s_hi" } };
	for (size_t i = 0; i < 2; i++) {
		*h0 = ta_xasprintf(pairs[i][0], base);
		*h1 = ta_xasprintf(pairs[i][1], base);
		if (!ta_node_contains_identifier(m->src, k->node, *h0) &&
		    !ta_node_contains_identifier(m->src, k->node, *h1))
			return true;
		free(*h0);
		free(*h1);
	}
	*h0 = *h1 = NULL;
	return false;
}

typedef struct p5_store {
	TSNode stmt, offsets, value;
	TSNode bm, bn;            /* the descriptor's block shape */
	TSNode bn_at;             /* where the halved width goes in it */
} p5_store;

/* Checks the store and its descriptor; fills s. NULL, or why not (static
 * text after "line N: "). */
static const char *p5_shape(const ta_model *m, const ta_kernel *k, const ta_op *op, p5_store *s)
{
	TSNode call = ta_edits_node(m, op->span);
	TSNode recv = ta_node_field(ta_node_field(call, "function"), "object");
	if (!op->receiver || !ta_node_is(recv, "identifier"))
		return "the store is not made through a named descriptor";
	for (size_t i = 0; i < k->op_count; i++)
		if ((k->ops[i].kind == TA_OP_DESC_LOAD || k->ops[i].kind == TA_OP_DESC_STORE) && &k->ops[i] != op &&
		    k->ops[i].receiver && !strcmp(k->ops[i].receiver, op->receiver))
			return "the descriptor is used by another load or store too, which a half-width box would break";
	const ta_op *d = p5_descriptor(k, op->receiver, op->span.start);
	if (!d)
		return "the descriptor is not built once in the kernel with tl.make_tensor_descriptor (a host "
		       "descriptor's box would need a pre_hook)";
	TSNode dc = ta_edits_node(m, d->span);
	TSNode shape = ta_edits_call_arg(m, dc, 3, "block_shape");
	if ((!ta_node_is(shape, "list") && !ta_node_is(shape, "tuple")) || ta_node_named_count(shape) != 2)
		return "the descriptor's block_shape is not a literal pair [BLOCK_M, BLOCK_N]";
	s->bm = ts_node_named_child(shape, 0);
	s->bn = s->bn_at = ts_node_named_child(shape, 1);
	s->offsets = ta_edits_call_arg(m, call, 0, NULL);
	s->value = ta_edits_call_arg(m, call, 1, NULL);
	if ((!ta_node_is(s->offsets, "list") && !ta_node_is(s->offsets, "tuple")) ||
	    ta_node_named_count(s->offsets) != 2 || ts_node_is_null(s->value) ||
	    ta_node_named_count(ta_node_field(call, "arguments")) != 2)
		return "the store is not desc.store([off_m, off_n], tile)";
	s->stmt = ta_node_parent(call);
	uint32_t end;
	if (!ta_node_is(s->stmt, "expression_statement") || !ta_node_is(ta_node_parent(s->stmt), "block") ||
	    ta_edits_stmt_lines(m, s->stmt, &end) == UINT32_MAX)
		return "the store is not a statement of its own lines";
	return NULL;
}

/* The if/else that replaces the store statement. */
static char *p5_branch(const ta_model *m, const ta_op *op, const p5_store *s, const char *tl, const char *h0,
		       const char *h1, TSNode tile, const char *conv, uint32_t start, uint32_t end)
{
	char *ind = ta_edits_indent_at(m, start);
	const char *u = ta_edits_indent_unit(m, ind);
	char *bm = ta_node_text(m->src, s->bm), *bn = operand(m, s->bn, false), *t = ta_node_text(m->src, tile);
	char *o0 = ta_node_text(m->src, ts_node_named_child(s->offsets, 0));
	char *o1 = ta_node_text(m->src, ts_node_named_child(s->offsets, 1));
	char *o1p = operand(m, ts_node_named_child(s->offsets, 1), true);
	char *orig = ta_edits_text(m, start, end);
	char *ro = ta_edits_reindent(orig, u);
	bool nl = end > start && m->src->text[end - 1] == '\n';
	ta_buf b = TA_BUF_INIT;
	ta_buf_printf(&b, "%sif " SUBTILE ":\n", ind);
	ta_buf_printf(&b, "%s%s%s, %s = %s.split(%s.permute(%s.reshape(%s, (%s, 2, %s // 2)), (0, 2, 1)))\n", ind, u,
		      h0, h1, tl, tl, tl, t, bm, bn);
	ta_buf_printf(&b, "%s%s%s.store([%s, %s], %s%s)\n", ind, u, op->receiver, o0, o1, h0, conv);
	ta_buf_printf(&b, "%s%s%s.store([%s, %s + %s // 2], %s%s)\n", ind, u, op->receiver, o0, o1p, bn, h1, conv);
	ta_buf_printf(&b, "%selse:\n%s%s", ind, ro, nl ? "" : "\n");
	free(ind);
	free(bm);
	free(bn);
	free(t);
	free(o0);
	free(o1);
	free(o1p);
	free(orig);
	free(ro);
	return ta_buf_steal(&b);
}

static int p5_one(const ta_model *m, const ta_kernel *k, const ta_op *op, ta_edit *out, char **why)
{
	p5_store s;
	const char *bad = p5_shape(m, k, op, &s);
	if (bad)
		return ta_edits_refuse(why, "line %u: %s", op->span.line, bad);
	char *tl = ta_edits_module(m, "triton.language");
	if (!tl)
		return ta_edits_refuse(why, "the file does not import triton.language");
	/* Split the tile before its conversion: `acc.to(T)` becomes two halves
	 * of acc, each converted on its own. */
	TSNode tile = s.value;
	char *conv = ta_xstrdup("");
	TSNode fn = ta_node_field(s.value, "function");
	if (ta_node_is(s.value, "call") && ta_node_is(fn, "attribute") &&
	    ta_node_text_eq(m->src, ta_node_field(fn, "attribute"), "to") &&
	    ta_node_is(ta_node_field(fn, "object"), "identifier")) {
		tile = ta_node_field(fn, "object");
		free(conv);
		conv = ta_edits_text(m, ts_node_end_byte(tile), ts_node_end_byte(s.value));
	}
	char *base = ta_node_is(tile, "identifier") ? ta_node_text(m->src, tile) : ta_xstrdup("tile");
	char *h0, *h1;
	int rc = 0;
	if (!half_names(m, k, base, &h0, &h1)) {
		rc = ta_edits_refuse(why, "line %u: no free names for the two halves of `%s`", op->span.line, base);
		goto done;
	}
	if ((rc = p5_configs(m, k, out, why)) != 0 || (rc = ta_edits_add_constexpr(m, k, SUBTILE, out, why)) != 0)
		goto names;
	/* The descriptor's box follows the flag. */
	char *bn = operand(m, s.bn, false), *bnt = ta_node_text(m->src, s.bn);
	char *box = ta_xasprintf("%s // 2 if " SUBTILE " else %s", bn, bnt);
	ta_edit_replace(out, ts_node_start_byte(s.bn_at), ts_node_end_byte(s.bn_at), box);
	free(box);
	free(bn);
	free(bnt);
	uint32_t end, start = ta_edits_stmt_lines(m, s.stmt, &end);
	char *rep = p5_branch(m, op, &s, tl, h0, h1, tile, conv, start, end);
	ta_edit_replace(out, start, end, rep);
	free(rep);
	ta_edit_set_title(out, SUBTILE ": store %s's output tile as two halves, both values in the configs", k->name);
	out->line = op->span.line;
names:
	free(h0);
	free(h1);
done:
	free(base);
	free(conv);
	free(tl);
	return rc;
}

static bool has_subtile(const ta_kernel *k)
{
	for (size_t i = 0; i < k->param_count; i++)
		if (strstr(k->params[i].name, "SUBTILE") || strstr(k->params[i].name, "subtile"))
			return true;
	return false;
}

TA_EDIT_MAKER(P5)
{
	char *why = NULL;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (kernel_or_host >= 0 && (size_t)kernel_or_host != ki)
			continue;
		const ta_kernel *k = &m->kernels[ki];
		if (has_subtile(k))
			continue;
		for (size_t i = 0; i < k->op_count; i++) {
			const ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_DESC_STORE || !ta_edits_at_line(op->span, line))
				continue;
			char *w = NULL;
			if (p5_one(m, k, op, out, &w) == 0) {
				free(why);
				return 0;
			}
			ta_edit_clear(out);
			ta_edits_keep_why(&why, w);
			break;   /* the detector reports a kernel's first store */
		}
	}
	if (why) {
		*why_not = why;
		return -1;
	}
	return ta_edits_none(why_not, "no descriptor store in a kernel without a subtile option%s",
			     line ? " on that line" : "");
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
			 name_taken(m, fn) ? ta_edits_refuse(why, "the name %s() is taken", fn) :
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
	if (rc == 0 && name_taken(m, fn))
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
	else if (name_taken(m, fn))
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

TA_EDIT_MAKER(P1)
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
