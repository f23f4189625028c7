/* The decoder half of the record protocol: line assembly and JSON decoding.
 * Anything malformed is counted and skipped; nothing here fails the run. */
#include "config.h"
#include "profile/protocol.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void ta_records_init(ta_records *r)
{
	memset(r, 0, sizeof *r);
	r->driver_version = -1;
}

void ta_records_clear(ta_records *r)
{
	for (size_t i = 0; i < r->n_kernels; i++)
		free(r->kernels[i].name);
	free(r->kernels);
	for (size_t i = 0; i < r->n_errors; i++)
		free(r->errors[i]);
	free(r->errors);
	for (size_t i = 0; i < r->n_notes; i++)
		free(r->notes[i]);
	free(r->notes);
	for (size_t i = 0; i < r->n_pclines; i++) {
		ta_pcline_rec *p = &r->pclines[i];
		free(p->kernel);
		free(p->file);
		for (size_t j = 0; j < p->n_reasons; j++)
			free(p->reasons[j]);
		free(p->reasons);
		free(p->counts);
	}
	free(r->pclines);
	for (size_t i = 0; i < r->n_sols; i++) {
		for (size_t j = 0; j < r->sols[i].n; j++)
			free(r->sols[i].names[j]);
		free(r->sols[i].names);
		free(r->sols[i].values);
		free(r->sols[i].kernel);
	}
	free(r->sols);
	for (size_t i = 0; i < r->n_calls; i++)
		free(r->calls[i].name);
	free(r->calls);
	free(r->untuned);
	ta_records_init(r);
}

/* Reads an integer field; false when absent or not an integer. */
static bool get_int(json_t *o, const char *key, json_int_t *v)
{
	json_t *x = json_object_get(o, key);
	if (!json_is_integer(x))
		return false;
	*v = json_integer_value(x);
	return true;
}

static json_int_t int_or(json_t *o, const char *key, json_int_t dflt)
{
	json_int_t v;
	return get_int(o, key, &v) ? v : dflt;
}

/* A launch dimension triple, each within [1, max[i]]: CUDA's limits, so
 * that products of the three (threads per block, blocks) cannot overflow
 * downstream whatever a damaged or hostile stream says. */
static bool get_triple(json_t *o, const char *key, int32_t out[3], const json_int_t max[3])
{
	json_t *a = json_object_get(o, key);
	if (!json_is_array(a) || json_array_size(a) != 3)
		return false;
	for (size_t i = 0; i < 3; i++) {
		json_t *x = json_array_get(a, i);
		if (!json_is_integer(x) || json_integer_value(x) < 1 || json_integer_value(x) > max[i])
			return false;
		out[i] = (int32_t)json_integer_value(x);
	}
	return true;
}

/* A field the figures add or multiply, bounded where it is decoded (a
 * hostile stream's -2147352521 bytes of shared memory overflowed the walk
 * and the report): absent or not an integer is 0 (as before); an integer
 * outside [0, max] makes the line malformed. */
static bool get_bounded(json_t *o, const char *key, json_int_t max, json_int_t *out)
{
	json_t *x = json_object_get(o, key);
	*out = 0;
	if (!json_is_integer(x))
		return true;   /* absent or null: not known, 0 as before */
	if (json_integer_value(x) < 0 || json_integer_value(x) > max)
		return false;
	*out = json_integer_value(x);
	return true;
}

/* Shared memory per block (no GPU so far has more than 1 MiB a block),
 * registers per thread (at most 255; 65,536 in a block), local memory per
 * thread (CUDA's limit is 512 KiB). */
#define SMEM_MAX ((json_int_t)1 << 20)
#define REGS_MAX ((json_int_t)65536)
#define LOCAL_MAX ((json_int_t)16 << 20)

static const json_int_t grid_max[3] = { 2147483647, 65535, 65535 };
static const json_int_t block_max[3] = { 1024, 1024, 64 };

static bool decode_kernel(ta_records *r, json_t *o, int run)
{
	json_t *name = json_object_get(o, "name");
	json_int_t start, end, regs, smem_static, smem_dynamic, local;
	int32_t grid[3], block[3];
	if (!json_is_string(name) || !get_int(o, "start", &start) || !get_int(o, "end", &end) ||
	    !get_triple(o, "grid", grid, grid_max) || !get_triple(o, "block", block, block_max) ||
	    end < start || !get_bounded(o, "regs", REGS_MAX, &regs) ||
	    !get_bounded(o, "smem_static", SMEM_MAX, &smem_static) ||
	    !get_bounded(o, "smem_dynamic", SMEM_MAX, &smem_dynamic) || !get_bounded(o, "local", LOCAL_MAX, &local))
		return false;
	ta_kernel_rec *k = TA_PUSH(r->kernels, r->n_kernels, r->cap_kernels);
	k->name = ta_xstrdup(json_string_value(name));
	k->pid = (long)int_or(o, "pid", 0);
	k->run = run;
	k->start_ns = (uint64_t)start;
	k->end_ns = (uint64_t)end;
	memcpy(k->grid, grid, sizeof grid);
	memcpy(k->block, block, sizeof block);
	k->regs = (uint32_t)regs;
	k->smem_static = (int32_t)smem_static;
	k->smem_dynamic = (int32_t)smem_dynamic;
	k->local_per_thread = (uint32_t)local;
	k->device = (uint32_t)int_or(o, "device", 0);
	k->stream = (uint32_t)int_or(o, "stream", 0);
	k->correlation = (uint32_t)int_or(o, "corr", 0);
	k->graph_id = (uint32_t)int_or(o, "graph", 0);
	k->graph_node_id = (uint64_t)int_or(o, "graph_node", 0);
	json_int_t w = int_or(o, "w", 1);
	k->weight = w >= 1 ? (uint64_t)w : 1;
	return true;
}

/* A period in ns from a "calls" line: finite, not negative. */
static double period_ns(json_t *o, const char *key)
{
	json_t *x = json_object_get(o, key);
	double v = json_is_number(x) ? json_number_value(x) : -1;
	return v >= 0 && v < 1e15 ? v : -1;
}

static bool decode_calls(ta_records *r, json_t *o, int run)
{
	json_t *name = json_object_get(o, "name");
	json_int_t launches, traced, smem_dynamic;
	int32_t grid[3], block[3];
	if (!json_is_string(name) || !get_triple(o, "grid", grid, grid_max) ||
	    !get_triple(o, "block", block, block_max) || !get_int(o, "launches", &launches) ||
	    !get_int(o, "traced", &traced) || launches < 0 || traced < 0 || traced > launches ||
	    !get_bounded(o, "smem_dynamic", SMEM_MAX, &smem_dynamic))
		return false;
	ta_calls_rec *c = TA_PUSH(r->calls, r->n_calls, r->cap_calls);
	memset(c, 0, sizeof *c);
	c->name = ta_xstrdup(json_string_value(name));
	c->pid = (long)int_or(o, "pid", 0);
	c->run = run;
	memcpy(c->grid, grid, sizeof grid);
	memcpy(c->block, block, sizeof block);
	c->smem_dynamic = (int32_t)smem_dynamic;
	c->launches = (uint64_t)launches;
	c->traced = (uint64_t)traced;
	c->converged = json_is_true(json_object_get(o, "converged"));
	json_t *p = json_object_get(o, "period");
	json_int_t n;
	if (json_is_object(p) && get_int(p, "n", &n) && n > 0) {
		double lo = period_ns(p, "p25"), med = period_ns(p, "median"), hi = period_ns(p, "p75");
		if (lo >= 0 && med >= lo && hi >= med) {
			c->n_period = (uint64_t)n;
			c->p25_ns = lo;
			c->median_ns = med;
			c->p75_ns = hi;
		}
	}
	return true;
}

static bool decode_error(ta_records *r, json_t *o)
{
	const char *where = json_string_value(json_object_get(o, "where"));
	const char *msg = json_string_value(json_object_get(o, "message"));
	if (!msg)
		return false;
	json_int_t code;
	bool has_code = get_int(o, "code", &code);
	char **slot = has_code && code == 0 ? TA_PUSH(r->notes, r->n_notes, r->cap_notes)
					    : TA_PUSH(r->errors, r->n_errors, r->cap_errors);
	if (has_code && code == 0)
		*slot = ta_xasprintf("%s%s%s", where ? where : "", where ? ": " : "", msg);
	else if (has_code)
		*slot = ta_xasprintf("%s%s%s (code %lld)", where ? where : "", where ? ": " : "",
				     msg, (long long)code);
	else
		*slot = ta_xasprintf("%s%s%s", where ? where : "", where ? ": " : "", msg);
	return true;
}

/* A count field: a non-negative integer. */
static bool get_count(json_t *o, const char *key, uint64_t *v)
{
	json_int_t x;
	if (!get_int(o, key, &x) || x < 0)
		return false;
	*v = (uint64_t)x;
	return true;
}

static bool decode_pcline(ta_records *r, json_t *o)
{
	const char *kernel = json_string_value(json_object_get(o, "kernel"));
	const char *file = json_string_value(json_object_get(o, "file"));
	json_t *stalls = json_object_get(o, "stalls");
	json_int_t line;
	uint64_t samples;
	if (!kernel || !file || !get_int(o, "line", &line) || line < 0 || line > UINT32_MAX ||
	    !get_count(o, "samples", &samples) || !json_is_array(stalls))
		return false;
	size_t n = json_array_size(stalls);
	for (size_t i = 0; i < n; i++) {
		json_t *pair = json_array_get(stalls, i);
		if (!json_is_array(pair) || json_array_size(pair) != 2 ||
		    !json_is_string(json_array_get(pair, 0)) ||
		    !json_is_integer(json_array_get(pair, 1)) ||
		    json_integer_value(json_array_get(pair, 1)) < 0)
			return false;
	}
	ta_pcline_rec *p = TA_PUSH(r->pclines, r->n_pclines, r->cap_pclines);
	p->kernel = ta_xstrdup(kernel);
	p->file = ta_xstrdup(file);
	p->line = (uint32_t)line;
	p->samples = samples;
	p->n_reasons = n;
	p->reasons = ta_xcalloc(n ? n : 1, sizeof *p->reasons);
	p->counts = ta_xcalloc(n ? n : 1, sizeof *p->counts);
	for (size_t i = 0; i < n; i++) {
		json_t *pair = json_array_get(stalls, i);
		p->reasons[i] = ta_xstrdup(json_string_value(json_array_get(pair, 0)));
		p->counts[i] = (uint64_t)json_integer_value(json_array_get(pair, 1));
	}
	return true;
}

static bool decode_pctotal(ta_records *r, json_t *o)
{
	uint64_t samples, v;
	if (!get_count(o, "samples", &samples))
		return false;
	r->has_pc_total = true;
	r->pc_samples += samples;
	if (get_count(o, "dropped", &v))
		r->pc_dropped += v;
	if (get_count(o, "unattributed", &v))
		r->pc_unattributed += v;
	if (get_count(o, "other", &v))
		r->pc_other += v;
	if (get_count(o, "period", &v) && v <= 31)
		r->pc_period = (uint32_t)v;
	if (json_is_true(json_object_get(o, "hw_full")))
		r->pc_hw_full = true;
	return true;
}

static bool decode_sol(ta_records *r, json_t *o)
{
	const char *kernel = json_string_value(json_object_get(o, "kernel"));
	json_t *metrics = json_object_get(o, "metrics");
	if (!kernel || !json_is_object(metrics))
		return false;
	ta_sol_rec *s = TA_PUSH(r->sols, r->n_sols, r->cap_sols);
	s->kernel = ta_xstrdup(kernel);
	s->correlation = (uint32_t)int_or(o, "corr", 0);
	s->passes = (size_t)int_or(o, "passes", 0);
	s->has_shape = get_triple(o, "grid", s->grid, grid_max) &&
		       get_triple(o, "block", s->block, block_max);
	size_t n = json_object_size(metrics), k = 0;
	s->names = ta_xcalloc(n ? n : 1, sizeof *s->names);
	s->values = ta_xcalloc(n ? n : 1, sizeof *s->values);
	const char *key;
	json_t *val;
	json_object_foreach(metrics, key, val) {
		if (!json_is_number(val))
			continue;       /* null: CUPTI could not evaluate it */
		s->names[k] = ta_xstrdup(key);
		s->values[k] = json_number_value(val);
		k++;
	}
	s->n = k;
	return true;
}

static const char *const run_kinds[] = { "timed", "pc", "sol" };

/* Forgets the kernel and calls records since the last "run" line. */
static void drop_since_run(ta_records *r)
{
	for (size_t i = r->kernels_at_run; i < r->n_kernels; i++)
		free(r->kernels[i].name);
	if (r->n_kernels > r->kernels_at_run)
		r->n_kernels = r->kernels_at_run;
	for (size_t i = r->calls_at_run; i < r->n_calls; i++)
		free(r->calls[i].name);
	if (r->n_calls > r->calls_at_run)
		r->n_calls = r->calls_at_run;
}

static void mark_run(ta_records *r)
{
	r->kernels_at_run = r->n_kernels;
	r->calls_at_run = r->n_calls;
}

static bool decode_run(ta_records *r, json_t *o)
{
	const char *mode = json_string_value(json_object_get(o, "mode"));
	json_t *wall = json_object_get(o, "wall_s");
	if (!mode || !json_is_number(wall) || json_number_value(wall) < 0)
		return false;
	if (strcmp(mode, "timed") == 0 && json_is_true(json_object_get(o, "dropped"))) {
		drop_since_run(r);
		return true;
	}
	mark_run(r);
	for (int k = 0; k < 3; k++)
		if (strcmp(mode, run_kinds[k]) == 0) {
			if (k == TA_RUN_KIND_TIMED && json_is_false(json_object_get(o, "tuned")))
				*TA_PUSH(r->untuned, r->n_untuned, r->cap_untuned) = (int)r->run_count[k];
			r->run_wall_s[k] += json_number_value(wall);
			r->run_count[k]++;
			return true;
		}
	return false;
}

void ta_records_note_run(ta_records *r, int kind, double wall_s, bool untuned, FILE *tee)
{
	if (kind < 0 || kind > 2)
		return;
	untuned &= kind == TA_RUN_KIND_TIMED;
	if (untuned)
		*TA_PUSH(r->untuned, r->n_untuned, r->cap_untuned) = (int)r->run_count[kind];
	mark_run(r);
	r->run_wall_s[kind] += wall_s;
	r->run_count[kind]++;
	if (tee)
		fprintf(tee, "{\"type\":\"run\",\"mode\":\"%s\",\"wall_s\":%.3f%s}\n", run_kinds[kind],
			wall_s, untuned ? ",\"tuned\":false" : "");
}

void ta_records_drop_run(ta_records *r, double wall_s, FILE *tee)
{
	drop_since_run(r);
	if (tee)
		fprintf(tee, "{\"type\":\"run\",\"mode\":\"timed\",\"wall_s\":%.3f,\"dropped\":true}\n", wall_s);
}

bool ta_records_run_untuned(const ta_records *r, int run)
{
	for (size_t i = 0; i < r->n_untuned; i++)
		if (r->untuned[i] == run)
			return true;
	return false;
}

bool ta_proto_decode_line(ta_records *r, const char *line, size_t len, int run)
{
	r->n_lines++;
	json_error_t jerr;
	json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	bool ok = false, unknown = false;
	const char *type = json_is_object(o) ? json_string_value(json_object_get(o, "type")) : NULL;
	if (!type) {
		ok = false;
	} else if (strcmp(type, "kernel") == 0) {
		ok = decode_kernel(r, o, run);
	} else if (strcmp(type, "hello") == 0) {
		json_int_t v;
		r->n_hello++;
		if (get_int(o, "cupti", &v))
			r->cupti_version = (uint32_t)v;
		if (get_int(o, "driver", &v))
			r->driver_version = (int)v;
		ok = true;
	} else if (strcmp(type, "bye") == 0) {
		r->n_bye++;
		r->written += (uint64_t)int_or(o, "written", 0);
		r->dropped += (uint64_t)int_or(o, "dropped", 0);
		r->lost += (uint64_t)int_or(o, "lost", 0);
		ok = true;
	} else if (strcmp(type, "error") == 0) {
		ok = decode_error(r, o);
	} else if (strcmp(type, "pcline") == 0) {
		ok = decode_pcline(r, o);
	} else if (strcmp(type, "pctotal") == 0) {
		ok = decode_pctotal(r, o);
	} else if (strcmp(type, "sol") == 0) {
		ok = decode_sol(r, o);
	} else if (strcmp(type, "calls") == 0) {
		ok = decode_calls(r, o, run);
	} else if (strcmp(type, "run") == 0) {
		ok = decode_run(r, o);
	} else {
		unknown = true;
	}
	json_decref(o);
	if (unknown)
		r->n_unknown++;
	else if (!ok)
		r->n_malformed++;
	return ok;
}

void ta_proto_decoder_init(ta_proto_decoder *d, ta_records *out, int run)
{
	memset(d, 0, sizeof *d);
	d->out = out;
	d->run = run;
}

static void emit(ta_proto_decoder *d, const char *s, size_t n)
{
	if (n > 0 && s[n - 1] == '\r')
		n--;
	if (n == 0)
		return;         /* blank lines are harmless */
	ta_proto_decode_line(d->out, s, n, d->run);
}

void ta_proto_decoder_feed(ta_proto_decoder *d, const char *bytes, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(bytes, '\n', n);
		size_t take = nl ? (size_t)(nl - bytes) : n;
		if (d->skipping) {
			if (nl)
				d->skipping = false;
		} else if (d->len + take > TA_PROTO_MAX_LINE) {
			/* Counted once; the rest up to the next "\n" is dropped. */
			d->out->n_overlong++;
			d->len = 0;
			d->skipping = nl == NULL;
		} else if (nl && d->len == 0) {
			emit(d, bytes, take);   /* the common case: no copy */
		} else {
			ta_grow((void **)&d->line, &d->cap, d->len + take + 1, 1);
			memcpy(d->line + d->len, bytes, take);
			d->len += take;
			if (nl) {
				emit(d, d->line, d->len);
				d->len = 0;
			}
		}
		if (!nl)
			break;
		bytes = nl + 1;
		n -= take + 1;
	}
}

void ta_proto_decoder_finish(ta_proto_decoder *d)
{
	if (d->len > 0 || d->skipping)
		d->out->n_truncated++;
	free(d->line);
	d->line = NULL;
	d->len = d->cap = 0;
	d->skipping = false;
}

int ta_records_load_file(ta_records *r, const char *path, char **err)
{
	char *data, *why;
	size_t len;
	if (ta_read_file(path, (size_t)1 << 30, &data, &len, &why) != 0) {
		*err = ta_xasprintf("%s: %s", path, why);
		free(why);
		return -1;
	}
	ta_proto_decoder d;
	ta_proto_decoder_init(&d, r, 0);
	ta_proto_decoder_feed(&d, data, len);
	ta_proto_decoder_finish(&d);
	free(data);
	return 0;
}
