/* Triton's autotuning lines, and the autotune table built from them and the
 * launch groups. */
#include "config.h"
#include "profile/autotune.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <ctype.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "Triton autotuning for function "
#define TRIED "Autotuning kernel "
#define FAILED "Autotuning failed with"
#define KEY_AS "with key as "
#define KEY_INFO "key info: "
#define FINISHED "finished after "
#define BEST "best config selected: "
/* A block whose last line does not come within this many lines is lost. */
#define MAX_BLOCK_LINES 64

/* ---- configs --------------------------------------------------------------- */

void ta_tune_config_clear(ta_tune_config *c)
{
	for (size_t i = 0; i < c->n_params; i++) {
		free(c->params[i].name);
		free(c->params[i].value);
	}
	free(c->params);
	free(c->text);
	memset(c, 0, sizeof *c);
	c->num_warps = c->num_stages = -1;
}

/* Whether s starts a "name: " item (a Python identifier, then ": "). */
static size_t item_name_len(const char *s, const char *end)
{
	const char *p = s;
	if (p >= end || !(isalpha((unsigned char)*p) || *p == '_'))
		return 0;
	while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
		p++;
	return p + 1 < end && p[0] == ':' && p[1] == ' ' ? (size_t)(p - s) : 0;
}

void ta_tune_config_parse(ta_tune_config *c, const char *text, size_t len)
{
	memset(c, 0, sizeof *c);
	c->num_warps = c->num_stages = -1;
	while (len > 0 && (text[len - 1] == ' ' || text[len - 1] == ';'))
		len--;
	c->text = ta_xstrndup(text, len);
	const char *p = c->text, *end = c->text + len;
	size_t cap = 0;
	while (p < end) {
		size_t nl = item_name_len(p, end);
		if (nl == 0)
			break;
		const char *v = p + nl + 2;
		/* The value runs to the next ", name: " (values may hold commas). */
		const char *q = v;
		while (q < end && !(q + 2 < end && q[0] == ',' && q[1] == ' ' && item_name_len(q + 2, end)))
			q++;
		ta_tune_param *x = TA_PUSH(c->params, c->n_params, cap);
		x->name = ta_xstrndup(p, nl);
		x->value = ta_xstrndup(v, (size_t)(q - v));
		p = q < end ? q + 2 : end;
	}
	const char *w = ta_tune_config_get(c, "num_warps"), *st = ta_tune_config_get(c, "num_stages");
	if (w && isdigit((unsigned char)*w))
		c->num_warps = atoi(w);
	if (st && isdigit((unsigned char)*st))
		c->num_stages = atoi(st);
}

const char *ta_tune_config_get(const ta_tune_config *c, const char *name)
{
	for (size_t i = 0; i < c->n_params; i++)
		if (strcmp(c->params[i].name, name) == 0)
			return c->params[i].value;
	return NULL;
}

/* ---- the parser ---------------------------------------------------------------- */

static void block_clear(ta_tune_block *b)
{
	free(b->kernel);
	free(b->key);
	ta_tune_config_clear(&b->best);
	for (size_t i = 0; i < b->n_tried; i++)
		ta_tune_config_clear(&b->tried[i]);
	free(b->tried);
	memset(b, 0, sizeof *b);
	b->seconds = -1;
}

void ta_autotune_log_init(ta_autotune_log *l)
{
	memset(l, 0, sizeof *l);
	l->cur.seconds = -1;
}

void ta_autotune_log_clear(ta_autotune_log *l)
{
	for (size_t i = 0; i < l->n_blocks; i++)
		block_clear(&l->blocks[i]);
	free(l->blocks);
	block_clear(&l->cur);
	for (size_t i = 0; i < l->n_pend; i++)
		block_clear(&l->pend[i]);
	free(l->pend);
	ta_autotune_log_init(l);
}

/* Finds needle in s[0, n); returns a pointer just past it, or NULL. */
static const char *after(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (s[i] == needle[0] && memcmp(s + i, needle, k) == 0)
			return s + i + k;
	return NULL;
}

/* Text from p to end, without a trailing separator (',' or ';') and spaces. */
static char *field(const char *p, const char *end)
{
	while (end > p && (end[-1] == ' ' || end[-1] == ',' || end[-1] == ';'))
		end--;
	return ta_xstrndup(p, (size_t)(end - p));
}

/* Completes the current block: it takes the pending tried configs of its kernel. */
static void block_done(ta_autotune_log *l)
{
	ta_tune_block *b = &l->cur;
	size_t cap = 0, k = 0;
	for (size_t i = 0; i < l->n_pend; i++) {
		if (strcmp(l->pend[i].kernel, b->kernel) == 0) {
			*TA_PUSH(b->tried, b->n_tried, cap) = l->pend[i].best;
			free(l->pend[i].kernel);
		} else {
			l->pend[k++] = l->pend[i];
		}
	}
	l->n_pend = k;
	ta_tune_block *slot = TA_APPEND(l->blocks, l->n_blocks);
	*slot = *b;
	memset(b, 0, sizeof *b);
	b->seconds = -1;
}

/* Reads what a line (or the rest of the header line) says about the block. */
static bool block_fields(ta_autotune_log *l, const char *s, const char *end)
{
	ta_tune_block *b = &l->cur;
	bool any = false;
	const char *best = after(s, (size_t)(end - s), BEST);
	const char *stop = best ? best - strlen(BEST) : end;
	const char *p;
	if ((p = after(s, (size_t)(stop - s), KEY_AS)) || (p = after(s, (size_t)(stop - s), KEY_INFO))) {
		/* The key runs to the next field on the line, if any. */
		const char *q = after(p, (size_t)(stop - p), FINISHED);
		free(b->key);
		b->key = field(p, q ? q - strlen(FINISHED) : stop);
		any = true;
	}
	if ((p = after(s, (size_t)(stop - s), FINISHED))) {
		char *e;
		double t = strtod(p, &e);
		if (e != p && *e == 's')
			b->seconds = t;
		any = true;
	}
	if (best) {
		const char *q = best, *bend = end;
		/* The config ends at its ';' (Config.__str__ has none). */
		const char *semi = memchr(q, ';', (size_t)(end - q));
		if (semi)
			bend = semi;
		ta_tune_config_clear(&b->best);
		ta_tune_config_parse(&b->best, q, (size_t)(bend - q));
		block_done(l);
		any = true;
	}
	return any;
}

bool ta_autotune_line_tuned(const char *line, size_t len)
{
	return after(line, len, HEADER) != NULL;
}

void ta_autotune_log_line(ta_autotune_log *l, const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	const char *end = line + len, *p;
	if ((p = after(line, len, HEADER))) {
		if (l->cur.kernel) {
			l->n_truncated++;
			block_clear(&l->cur);
		}
		const char *q = p;
		while (q < end && *q != ',' && *q != ' ')
			q++;
		if (q == p)
			return;
		l->cur.kernel = ta_xstrndup(p, (size_t)(q - p));
		l->cur_lines = 0;
		block_fields(l, q, end);     /* the older format has it all on one line */
		return;
	}
	if ((p = after(line, len, TRIED))) {
		const char *w = after(p, (size_t)(end - p), " with config ");
		if (!w)
			return;
		ta_tune_block *x = TA_PUSH(l->pend, l->n_pend, l->cap_pend);
		x->kernel = ta_xstrndup(p, (size_t)(w - strlen(" with config ") - p));
		x->seconds = -1;
		ta_tune_config_parse(&x->best, w, (size_t)(end - w));
		return;
	}
	if (after(line, len, FAILED)) {
		if (l->n_pend)
			l->pend[l->n_pend - 1].best.failed = true;
		return;
	}
	if (l->cur.kernel && !block_fields(l, line, end) && ++l->cur_lines > MAX_BLOCK_LINES) {
		l->n_truncated++;
		block_clear(&l->cur);
	}
}

void ta_autotune_log_text(ta_autotune_log *l, const char *text, size_t len)
{
	while (len > 0) {
		const char *nl = memchr(text, '\n', len);
		size_t n = nl ? (size_t)(nl - text) : len;
		ta_autotune_log_line(l, text, n);
		if (!nl)
			break;
		text = nl + 1;
		len -= n + 1;
	}
}

void ta_autotune_log_finish(ta_autotune_log *l)
{
	if (l->cur.kernel) {
		l->n_truncated++;
		block_clear(&l->cur);
	}
}

long ta_autotune_log_load_records(ta_autotune_log *l, const char *path, char **err)
{
	char *data, *why;
	size_t len;
	if (ta_read_file(path, (size_t)1 << 30, &data, &len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	long n = 0;
	for (size_t i = 0; i < len;) {
		const char *s = data + i, *nl = memchr(s, '\n', len - i);
		size_t k = nl ? (size_t)(nl - s) : len - i;
		i += k + 1;
		/* Cheap test first: most lines are kernel records. */
		if (!after(s, k < 40 ? k : 40, "\"output\""))
			continue;
		json_t *o = json_loadb(s, k, 0, NULL);
		const char *type = json_string_value(json_object_get(o, "type"));
		json_t *line = json_object_get(o, "line");
		if (type && strcmp(type, "output") == 0 && json_is_string(line)) {
			ta_autotune_log_line(l, json_string_value(line), json_string_length(line));
			n++;
		}
		json_decref(o);
	}
	free(data);
	return n;
}

/* ---- the table -------------------------------------------------------------- */

void ta_autotune_table_clear(ta_autotune_table *t)
{
	for (size_t i = 0; i < t->n_rows; i++)
		free(t->rows[i].config);
	free(t->rows);
	free(t->key);
	memset(t, 0, sizeof *t);
	t->seconds = -1;
}

void ta_autotune_table_copy(ta_autotune_table *dst, const ta_autotune_table *src)
{
	*dst = *src;
	dst->key = src->key ? ta_xstrdup(src->key) : NULL;
	dst->rows = src->n_rows ? ta_xcalloc(src->n_rows, sizeof *dst->rows) : NULL;
	for (size_t i = 0; i < src->n_rows; i++) {
		dst->rows[i] = src->rows[i];
		dst->rows[i].config = src->rows[i].config ? ta_xstrdup(src->rows[i].config) : NULL;
	}
}

bool ta_autotune_any(const ta_measurement *m)
{
	for (size_t i = 0; m && i < m->n_kernels; i++)
		if (m->kernels[i].tune.n_rows)
			return true;
	return false;
}

static int threads_of(const ta_kernel_group *g)
{
	return g->cfg.block[0] * g->cfg.block[1] * g->cfg.block[2];
}

/* The group a "best config selected" maps to: 32 x num_warps threads, the
 * first whose steady launches start after prev_seq; else the previous
 * choice again when it fits (the same config won for another key). */
static long map_best(const ta_kernel_measure *km, const ta_tune_config *best, size_t prev_seq, long prev)
{
	long found = -1;
	for (size_t g = 0; g < km->n_groups; g++) {
		const ta_kernel_group *x = &km->groups[g];
		if (x->steady_seq == SIZE_MAX || (prev >= 0 && x->steady_seq <= prev_seq))
			continue;
		if (best->num_warps > 0 && threads_of(x) != 32 * best->num_warps)
			continue;
		if (found < 0 || x->steady_seq < km->groups[found].steady_seq)
			found = (long)g;
	}
	if (found < 0 && prev >= 0 &&
	    (best->num_warps <= 0 || threads_of(&km->groups[prev]) == 32 * best->num_warps))
		found = prev;
	return found;
}

typedef struct row_src {
	size_t group;
	size_t seq;
	const char *config;          /* borrowed */
	bool chosen;
} row_src;

static int cmp_row(const void *x, const void *y)
{
	const row_src *a = x, *b = y;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

static void build_table(ta_kernel_measure *km, const ta_autotune_log *log)
{
	ta_autotune_table *t = &km->tune;
	ta_autotune_table_clear(t);
	if (km->n_groups == 0)
		return;
	const char **chosen_text = ta_xcalloc(km->n_groups, sizeof *chosen_text);
	bool *chosen = ta_xcalloc(km->n_groups, sizeof *chosen);
	bool any_tuned = false;
	for (size_t g = 0; g < km->n_groups; g++)
		any_tuned |= km->groups[g].autotune > 0;
	size_t n_tried = 0;
	long prev = -1;
	size_t prev_seq = 0;
	for (size_t i = 0; log && i < log->n_blocks; i++) {
		const ta_tune_block *b = &log->blocks[i];
		if (strcmp(b->kernel, km->name) != 0)
			continue;
		t->tunings++;
		if (b->key) {
			free(t->key);
			t->key = ta_xstrdup(b->key);
		}
		if (b->seconds >= 0)
			t->seconds = (t->seconds < 0 ? 0 : t->seconds) + b->seconds;
		for (size_t k = 0; k < b->n_tried; k++)
			n_tried += !b->tried[k].failed;
		long g = map_best(km, &b->best, prev_seq, prev);
		if (g >= 0) {
			chosen[g] = true;
			chosen_text[g] = b->best.text;
			prev = g;
			prev_seq = km->groups[g].steady_seq;
		}
	}
	t->tried = n_tried;
	if (!any_tuned && t->tunings == 0)
		goto out;
	if (t->tunings == 0)
		chosen[km->main_group] = true;    /* no printed lines: the steady state */
	row_src *rs = ta_xcalloc(km->n_groups, sizeof *rs);
	size_t n = 0;
	for (size_t g = 0; g < km->n_groups; g++)
		if (km->groups[g].autotune > 0 || chosen[g])
			rs[n++] = (row_src){ .group = g, .seq = km->groups[g].first_seq,
					     .config = chosen_text[g], .chosen = chosen[g] };
	qsort(rs, n, sizeof *rs, cmp_row);
	/* The configs benchmarked, in order, name the rows when they line up:
	 * as many as the rows, the same warps, the chosen one where it ran. */
	if (n_tried == n) {
		const ta_tune_config **tried = ta_xcalloc(n, sizeof *tried);
		size_t k = 0;
		for (size_t i = 0; i < log->n_blocks; i++)
			if (strcmp(log->blocks[i].kernel, km->name) == 0)
				for (size_t j = 0; j < log->blocks[i].n_tried; j++)
					if (!log->blocks[i].tried[j].failed)
						tried[k++] = &log->blocks[i].tried[j];
		bool fits = true;
		for (size_t r = 0; r < n && fits; r++) {
			int w = tried[r]->num_warps;
			fits = (w <= 0 || threads_of(&km->groups[rs[r].group]) == 32 * w) &&
			       (!rs[r].config || strcmp(rs[r].config, tried[r]->text) == 0);
		}
		for (size_t r = 0; r < n && fits; r++)
			rs[r].config = tried[r]->text;
		free(tried);
	}
	t->rows = ta_xcalloc(n, sizeof *t->rows);
	t->n_rows = n;
	for (size_t r = 0; r < n; r++) {
		const ta_kernel_group *g = &km->groups[rs[r].group];
		ta_autotune_row *row = &t->rows[r];
		row->config = rs[r].config ? ta_xstrdup(rs[r].config) : NULL;
		memcpy(row->grid, g->cfg.grid, sizeof row->grid);
		memcpy(row->block, g->cfg.block, sizeof row->block);
		row->regs = g->cfg.regs;
		row->smem_static = g->cfg.smem_static;
		row->smem_dynamic = g->cfg.smem_dynamic;
		row->chosen = rs[r].chosen;
		/* The chosen one: its steady launches; the others: their tuning. */
		bool steady = row->chosen && g->n_durations > 0;
		row->launches = steady ? g->n_durations : g->n_tune;
		row->median_ns = steady ? g->summary.median : g->n_tune ? g->tune_summary.median : -1;
		if (g->has_occupancy) {
			row->has_occupancy = true;
			row->occupancy = g->occ.occupancy;
			row->blocks_per_sm = g->occ.blocks_per_sm;
			snprintf(row->limiter, sizeof row->limiter, "%s", ta_limiter_name(g->occ.limiter));
		}
	}
	free(rs);
out:
	free(chosen_text);
	free(chosen);
}

void ta_autotune_attach(ta_measurement *m, const ta_autotune_log *log)
{
	for (size_t i = 0; i < m->n_kernels; i++)
		build_table(&m->kernels[i], log);
}

char *ta_autotune_short_config(const char *text)
{
	ta_tune_config c;
	ta_tune_config_parse(&c, text, strlen(text));
	ta_buf b = TA_BUF_INIT;
	for (size_t i = 0; i < c.n_params; i++) {
		const ta_tune_param *x = &c.params[i];
		/* Triton's defaults say nothing about this config. */
		if (strcmp(x->value, "None") == 0 ||
		    (strcmp(x->name, "num_ctas") == 0 && strcmp(x->value, "1") == 0))
			continue;
		ta_buf_printf(&b, "%s%s: %s", b.len ? ", " : "", x->name, x->value);
	}
	if (c.n_params == 0)
		ta_buf_puts(&b, text);
	ta_tune_config_clear(&c);
	return ta_buf_steal(&b);
}

char *ta_autotune_config_from_shape(const ta_autotune_row *r)
{
	int threads = r->block[0] * r->block[1] * r->block[2];
	return threads > 0 && threads % 32 == 0 ? ta_xasprintf("num_warps=%d (from the block)", threads / 32)
						: ta_xstrdup("-");
}
