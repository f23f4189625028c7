/* S8: Autotune key misses mode parameters. Its detector and its rewrite. */
#include "config.h"
#include "checklist/rewrite_internal.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Constexpr parameters that change the specialisation and so the best
 * config; tensor dtypes need no entry: the autotuner adds them itself. */
static const char *const mode_params[] = {
	"WINDOW_SIZE", "SLIDING_WINDOW", "SOFT_CAP", "SOFTCAP", "LOGIT_CAP", "STAGE", "IS_CAUSAL",
	"CAUSAL", "QUERY_GROUP_SIZE", "HEAD_DIM", "BLOCK_D", "BLOCK_DMODEL", "D_HEAD", "HEAD_SIZE",
	"BLOCK_DK", "BLOCK_DV", "NUM_QUERIES_PER_KV", NULL,
};

static const char *const seq_params[] = {
	"N_CTX", "S_QO", "S_KV", "SEQ_LEN", "SEQLEN", "SEQLEN_Q", "SEQLEN_K", "N_CTX_Q", "N_CTX_KV",
	"N_CTX_K", "MAX_SEQLEN", "SEQ_LEN_Q", "SEQ_LEN_KV", "SEQ_LEN_K", NULL,
};

bool ta_s8_mode_param(const char *name)
{
	return ta_name_among(name, mode_params);
}

static bool in_key(const ta_autotune *a, const char *name)
{
	for (size_t i = 0; i < a->key_count; i++)
		if (!strcmp(a->key[i], name))
			return true;
	return false;
}

static bool in_list(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* The value of name comes from the configs or a heuristic, not from the
 * caller: a tuned tile (FlagGems' cross-entropy tunes BLOCK_D over its D
 * dimension), never a head dimension to key on. Launches found in the file
 * that pass every other argument but not this one count too. */
static bool tuned(const ta_model *m, const ta_kernel *k, size_t ki, const char *name)
{
	const ta_autotune *a = k->autotune;
	for (size_t i = 0; i < a->config_count; i++)
		if (ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name))
			return true;
	if (in_list(a->varies, a->vary_count, name))
		return true;
	for (size_t i = 0; i < k->heuristic_count; i++)
		if (!strcmp(k->heuristics[i].name, name))
			return true;
	const ta_param *p = ta_kernel_param(k, name);
	size_t pi = p ? (size_t)(p - k->params) : 0;
	bool launched = false;
	ta_launch_walk walk = ta_index_launch_walk(m, (int)ki);
	for (const ta_launch *l; p && !p->default_value && (l = ta_launch_walk_next(&walk));) {
		char *t = ta_edits_launch_arg(m, l, k, pi);
		if (t) {
			free(t);
			return false;
		}
		launched = true;
	}
	return launched;
}

/* The key already holds a rounded equivalent of length parameter si: a
 * key argument every launch computes from what it passes for the length by
 * `//`, a shift, triton.next_power_of_2 or a rounding function
 * (`CACHE_KEY_SEQLEN_Q = seqlen_q // 32`). Its name, or NULL. */
static const char *rounded_in_key(const ta_model *m, const ta_kernel *k, size_t ki, size_t si)
{
	const ta_autotune *a = k->autotune;
	for (size_t j = 0; j < k->param_count; j++) {
		if (j == si || !in_list(a->key, a->key_count, k->params[j].name))
			continue;
		if (ta_edits_rounds(m, k, ki, si, j))
			return k->params[j].name;
	}
	return NULL;
}

/* A key name that is a sequence length by its name (CACHE_KEY_SEQLEN_Q). */
static bool seq_named(const char *name)
{
	return strcasestr(name, "seqlen") || strcasestr(name, "seq_len") || strcasestr(name, "ctx");
}

/* Whether a sequence length sets how far a loop of the kernel runs: named in
 * a loop's range or condition, or in a value assigned before and named
 * there (`hi = tl.minimum(N_CTX, ...)`). A length that only bounds masks (a
 * chunked scan whose loops run over a fixed chunk) does not move the best
 * config, and putting it in the key would retune for every length. */
/* A min() of the length and a size the key holds (`min(chunk_size, seqlen -
 * pid_c * chunk_size)`): the loop runs over at most that keyed chunk. */
static bool capped_by_key(ta_rule_ctx *c, ta_span s)
{
	const ta_autotune *a = c->k->autotune;
	if (!ta_rule_contains(c, s, "min(") && !ta_rule_contains(c, s, "minimum("))
		return false;
	for (size_t i = 0; i < a->key_count; i++)
		if (ta_rule_mentions(c, s, a->key[i]))
			return true;
	return false;
}

static bool bounds_a_loop(ta_rule_ctx *c, const char *name)
{
	const ta_kernel *k = c->k;
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	for (size_t l = 0; l < k->loop_count; l++) {
		ta_span it = k->loops[l].iter;
		if (!it.end)
			continue;
		if (ta_rule_mentions(c, it, name) && !capped_by_key(c, it))
			return true;
		for (size_t i = 0; i < n; i++)
			if (as[i].stmt.start < it.start && ta_rule_mentions(c, as[i].rhs, name) &&
			    ta_rule_mentions(c, it, as[i].name) && !capped_by_key(c, as[i].rhs))
				return true;
	}
	return false;
}

/* What the key of c's kernel lacks, as "A, B" (caller frees), or NULL:
 * mode parameters the configs do not set, and sequence lengths that set how
 * far a loop runs when the key holds no length, not even a rounded one. */
static char *s8_missing(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_autotune *a = k->autotune;
	size_t ki = (size_t)c->kernel;
	ta_buf missing = TA_BUF_INIT;
	bool seq_in_key = false, has_seq = false;
	for (size_t i = 0; i < k->param_count; i++)
		if (ta_name_among(k->params[i].name, seq_params)) {
			has_seq = true;
			seq_in_key |= in_key(a, k->params[i].name);
		}
	for (size_t i = 0; i < a->key_count; i++)
		seq_in_key |= seq_named(a->key[i]);
	/* a length the author keeps out of specialisation (one compiled kernel
	 * for every length) is deliberate: keying on it would retune per length */
	const ta_kwarg *dns = ta_kwarg_find(k->jit_kwargs, k->jit_kwarg_count, "do_not_specialize");
	for (size_t i = 0; i < k->param_count; i++) {
		const ta_param *p = &k->params[i];
		bool mode = p->constexpr_ && ta_s8_mode_param(p->name);
		bool seq = !seq_in_key && has_seq && ta_name_among(p->name, seq_params) &&
			   !(dns && ta_edits_word_in(dns->value, strlen(dns->value), p->name)) &&
			   bounds_a_loop(c, p->name) && !rounded_in_key(c->m, k, ki, i);
		if ((mode || seq) && !in_key(a, p->name) && !tuned(c->m, k, ki, p->name))
			ta_buf_printf(&missing, "%s%s", missing.len ? ", " : "", p->name);
	}
	return missing.len ? ta_buf_steal(&missing) : (ta_buf_free(&missing), NULL);
}

ta_status ta_detect_s8(ta_rule_ctx *c)
{
	const ta_kernel *k = c->k;
	const ta_autotune *a = k->autotune;
	if (!a)
		return TA_STATUS_NOT_APPLICABLE;
	char *lacks = s8_missing(c);
	ta_buf missing = TA_BUF_INIT;
	if (lacks)
		ta_buf_puts(&missing, lacks);
	free(lacks);
	ta_status s = TA_STATUS_SATISFIED;
	if (missing.len) {
		ta_span where = a->key_span.end ? a->key_span : a->span;
		char *key = a->key_span.end ? ta_rule_text(c, a->key_span) : ta_xstrdup("(none)");
		ta_finding *f = ta_rule_add(c, where, "autotune key %s of `%s` lacks %s: modes share one tuned config",
					    key, k->name, ta_buf_str(&missing));
		ta_finding_line(f, a->span.line);
		free(key);
		s = TA_STATUS_APPLIES;
	}
	ta_buf_free(&missing);
	return s;
}

/* ---- the rewrite ---------------------------------------------------------- */

/* Rewrite: add the missing constexpr names to the autotune key. */
TA_REWRITE(S8, NULL, TA_SAFE)
{
	ta_sites s = TA_SITES_INIT;
	for (size_t ki = 0; ki < m->kernel_count; ki++) {
		if (!ta_edits_kernel_selected(kernel_or_host, ki))
			continue;
		const ta_kernel *k = &m->kernels[ki];
		const ta_autotune *a = k->autotune;
		if (!a || (line && !ta_edits_at_line(k->span, line) && !ta_edits_at_line(a->span, line)))
			continue;
		TSNode list = a->key_span.end > a->key_span.start ? ta_edits_node(m, a->key_span) : (TSNode){ 0 };
		if (!ta_node_is(list, "list")) {
			ta_sites_refuse(&s, ta_xasprintf("%s: the autotune key is not a literal list", k->name));
			continue;
		}
		ta_buf add = TA_BUF_INIT;
		char quote = '"';
		uint32_t n = ta_node_named_count(list);
		TSNode last = { 0 };
		for (uint32_t i = 0; i < n; i++) {
			TSNode c = ta_node_named_child(list, i);
			if (ta_node_is(c, "comment"))
				continue;
			if (ts_node_is_null(last) && ta_node_is(c, "string"))
				quote = m->src->text[ts_node_start_byte(c)];
			last = c;
		}
		if (quote != '\'' && quote != '"')
			quote = '"';
		/* exactly what the detector reports the key lacks */
		ta_rule_ctx rc = { .m = m, .k = k, .kernel = (int)ki };
		char *lacks = s8_missing(&rc);
		ta_rule_ctx_release(&rc);
		size_t added = 0;
		for (char *tok = lacks, *save = NULL; (tok = strtok_r(tok, ", ", &save)); tok = NULL) {
			ta_buf_printf(&add, "%s%c%s%c", ts_node_is_null(last) && added == 0 ? "" : ", ", quote, tok,
				      quote);
			added++;
		}
		free(lacks);
		if (added == 0) {
			ta_buf_free(&add);
			ta_sites_refuse(&s, ta_xasprintf("%s: the autotune key lacks no mode parameter or loop-bounding length", k->name));
			continue;
		}
		uint32_t at = ts_node_is_null(last) ? ts_node_start_byte(list) + 1 : ts_node_end_byte(last);
		ta_edit_replace(out, at, at, ta_buf_str(&add));
		ta_edit_set_title(out, "add %s to %s's autotune key", ta_buf_str(&add) + (ts_node_is_null(last) ? 0 : 2),
				  k->name);
		out->line = a->key_span.line;
		ta_buf_free(&add);
		return ta_sites_done(&s);
	}
	return ta_sites_end(&s, why_not, line, "no autotuned kernel");
}
