/* What the detectors share: adding findings, serving another entry's,
 * and the recognisers over source text, loops and assignments. */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/values.h"
#include "checklist/rules_internal.h"
#include "util/buf.h"
#include "util/text.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- findings --------------------------------------------------------- */

void ta_finding_line(ta_finding *f, uint32_t line)
{
	for (size_t i = 0; i < f->line_count; i++)
		if (f->lines[i] == line)
			return;
	*TA_APPEND(f->lines, f->line_count) = line;
}

void ta_finding_set_part(ta_finding *f, const char *key, const char *text)
{
	ta_finding_part *p = TA_APPEND(f->parts, f->part_count);
	p->key = key;
	p->text = ta_xstrdup(text);
}

const char *ta_finding_part_of(const ta_finding *f, const char *key)
{
	for (size_t i = 0; i < f->part_count; i++)
		if (!strcmp(f->parts[i].key, key))
			return f->parts[i].text;
	return NULL;
}

void ta_finding_release(ta_finding *f)
{
	free(f->reason);
	free(f->lines);
	free(f->measure);
	for (size_t i = 0; i < f->part_count; i++)
		free(f->parts[i].text);
	free(f->parts);
}

static ta_finding *push_finding(ta_rule_ctx *c, ta_span span)
{
	ta_rules_result *r = c->res;
	ta_finding *f = TA_PUSH(r->findings, r->finding_count, r->finding_cap);
	f->kernel = c->kernel;
	f->id = c->id;
	f->span = span;
	f->host = ta_rules_host_at(c->m, span.start);
	return f;
}

int ta_rules_host_at(const ta_model *m, uint32_t off)
{
	/* none inside a kernel; else the innermost function holding off */
	return ta_index_in_kernel(m, off) ? -1 : ta_index_host_at(m, off);
}

/* Folds a reason to one line (rules.h promises it): quoted source text may
 * span lines; each line break with the blanks around it becomes one space. */
static char *fold_one_line(char *s)
{
	char *w = s;
	for (const char *r = s; *r;) {
		if (*r == '\n' || *r == '\r') {
			while (w > s && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
			while (*r == '\n' || *r == '\r' || *r == ' ' || *r == '\t')
				r++;
			*w++ = ' ';
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return s;
}

ta_finding *ta_rule_add(ta_rule_ctx *c, ta_span span, const char *fmt, ...)
{
	ta_finding *f = push_finding(c, span);
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	f->reason = fold_one_line(ta_buf_steal(&b));
	ta_finding_line(f, span.line);
	return f;
}

bool ta_rule_reported_at(const ta_rule_ctx *c, uint32_t start)
{
	for (size_t i = 0; i < c->res->finding_count; i++) {
		const ta_finding *f = &c->res->findings[i];
		if (f->id == c->id && f->kernel == c->kernel && f->span.start == start)
			return true;
	}
	return false;
}

ta_status ta_rule_status_of(const ta_rule_ctx *c, const char *id)
{
	int e = ta_rules_index(id);
	return e < 0 ? TA_STATUS_NOT_APPLICABLE : ta_rules_status(c->res, c->kernel, (size_t)e);
}

static ta_status serve(ta_rule_ctx *c, const char *from, unsigned tags, unsigned without)
{
	size_t n = c->res->finding_count;
	bool copied = false;
	for (size_t i = c->first_finding; i < n; i++) {
		const ta_finding src = c->res->findings[i];   /* the array may move */
		if (src.kernel != c->kernel || strcmp(src.id, from) || (tags && !(src.tags & tags)) ||
		    (src.tags & without))
			continue;
		ta_finding *f = push_finding(c, src.span);
		f->host = src.host;
		f->reason = ta_xasprintf("%s (as %s)", src.reason, from);
		for (size_t l = 0; l < src.line_count; l++)
			ta_finding_line(f, src.lines[l]);
		f->measure = src.measure ? ta_xstrdup(src.measure) : NULL;
		f->tags = src.tags;
		copied = true;
	}
	if (copied)
		return TA_STATUS_APPLIES;
	ta_status s = ta_rule_status_of(c, from);
	return s == TA_STATUS_APPLIES ? TA_STATUS_SATISFIED : s;
}

ta_status ta_rule_serve(ta_rule_ctx *c, const char *from, unsigned tags)
{
	return serve(c, from, tags, 0);
}

ta_status ta_rule_serve_except(ta_rule_ctx *c, const char *from, unsigned without)
{
	return serve(c, from, 0, without);
}

/* ---- text helpers ------------------------------------------------------- */

char *ta_rule_text(const ta_rule_ctx *c, ta_span s)
{
	if (s.end < s.start || s.end > c->m->src->len)
		return ta_xstrdup("");
	return ta_xstrndup(c->m->src->text + s.start, s.end - s.start);
}


bool ta_text_mentions(const char *text, size_t len, const char *ident)
{
	size_t n = strlen(ident);
	if (!n || n > len)
		return false;
	for (size_t i = 0; i + n <= len; i++) {
		if (text[i] != ident[0] || memcmp(text + i, ident, n))
			continue;
		if (i > 0 && (ta_text_ident_char(text[i - 1]) || text[i - 1] == '.'))
			continue;
		if (i + n < len && ta_text_ident_char(text[i + n]))
			continue;
		return true;
	}
	return false;
}

char *ta_rule_kernel_list(const ta_kernel *const *ks, size_t n)
{
	const ta_kernel **seen = ta_xcalloc(n ? n : 1, sizeof *seen);
	/* the kernels met so far, by address (open addressing, at most half
	 * full): a host may launch thousands */
	size_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	const ta_kernel **met = ta_xcalloc(cap, sizeof *met);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)(((uintptr_t)ks[i] >> 4) * 0x9E3779B97F4A7C15ull >> 20) & (cap - 1);
		while (met[s] && met[s] != ks[i])
			s = (s + 1) & (cap - 1);
		if (!met[s])
			met[s] = seen[m++] = ks[i];
	}
	free(met);
	ta_buf b = TA_BUF_INIT;
	size_t shown = m > 3 ? 2 : m;
	for (size_t i = 0; i < shown; i++)
		ta_buf_printf(&b, "%s`%s`", i == 0 ? "" : i + 1 == m ? " and " : ", ", seen[i]->name);
	if (m > shown)
		ta_buf_printf(&b, " and %zu more", m - shown);
	free(seen);
	return ta_buf_steal(&b);
}

bool ta_rule_host_is_test(const ta_host *h)
{
	if (!h->name || strncmp(h->name, "test", 4))
		return false;
	/* test, test_x, and the numbered test1, test2 of a module's own checks */
	const char *r = h->name + 4;
	if (*r == '_')
		return true;
	while (*r >= '0' && *r <= '9')
		r++;
	return *r == '\0';
}

bool ta_rule_mentions(const ta_rule_ctx *c, ta_span s, const char *ident)
{
	if (s.end <= s.start || s.end > c->m->src->len)
		return false;
	return ta_text_mentions(c->m->src->text + s.start, s.end - s.start, ident);
}

bool ta_rule_contains(const ta_rule_ctx *c, ta_span s, const char *needle)
{
	size_t n = strlen(needle);
	if (s.end <= s.start || s.end > c->m->src->len || n > s.end - s.start)
		return false;
	const char *t = c->m->src->text + s.start;
	for (size_t i = 0; i + n <= s.end - s.start; i++)
		if (!memcmp(t + i, needle, n))
			return true;
	return false;
}

static bool reads_under(const ta_model *m, TSNode n, const char *name)
{
	if (ta_node_is(n, "identifier"))
		return ta_node_text_eq(m->src, n, name);
	if (ta_node_is(n, "keyword_argument"))   /* f(NAME=...): its value only */
		return reads_under(m, ta_node_field(n, "value"), name);
	if (ta_node_is(n, "attribute"))           /* x.NAME: x only */
		return reads_under(m, ta_node_field(n, "object"), name);
	uint32_t nc = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < nc; i++)
		if (reads_under(m, ts_node_named_child(n, i), name))
			return true;
	return false;
}

bool ta_rule_kernel_reads(const ta_model *m, const ta_kernel *k, const char *name)
{
	TSNode body = ta_node_field(k->node, "body");
	return ts_node_is_null(body) || reads_under(m, body, name);
}

bool ta_rule_clamped(const ta_model *m, const ta_kernel *k, const char *name)
{
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, k->node);
	do {
		TSNode n = ta_walk_node(&w);
		if (!ta_node_is(n, "assignment") || !ta_node_text_eq(m->src, ta_node_field(n, "left"), name))
			continue;
		TSNode r = ta_node_unparen(ta_node_field(n, "right"));
		yes = ta_call_named(m, r, "minimum") || ta_call_named(m, r, "maximum");
	} while (!yes && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return yes;
}

bool ta_call_named(const ta_model *m, TSNode n, const char *suffix)
{
	if (!ta_node_is(n, "call"))
		return false;
	char *f = ta_node_text(m->src, ta_node_field(n, "function"));
	size_t l = f ? strlen(f) : 0, ls = strlen(suffix);
	bool yes = l >= ls && !strcmp(f + l - ls, suffix);
	free(f);
	return yes;
}

TSNode ta_rule_node(const ta_rule_ctx *c, ta_span s)
{
	TSNode root = ta_syntax_root(c->m->syn);
	return ta_node_named_at(root, s.start, s.end);
}

/* The child of n that contains offset at, or a null node. */
static TSNode child_holding(TSNode n, uint32_t at)
{
	uint32_t count = ta_node_named_count(n);
	for (uint32_t i = 0; i < count; i++) {
		TSNode ch = ta_node_named_child(n, i);
		if (ts_node_start_byte(ch) <= at && at < ts_node_end_byte(ch))
			return ch;
	}
	return (TSNode){ 0 };
}

bool ta_rule_apart_arms(const ta_rule_ctx *c, uint32_t a, uint32_t b)
{
	TSNode root = ta_syntax_root(c->m->syn);
	for (TSNode n = ts_node_named_descendant_for_byte_range(root, a, a); !ts_node_is_null(n);
	     n = ta_node_parent(n)) {
		if (!ta_node_is(n, "if_statement") || ts_node_start_byte(n) > b || b >= ts_node_end_byte(n))
			continue;
		/* the lowest if holding both: apart when in two of its arms */
		TSNode ca = child_holding(n, a), cb = child_holding(n, b);
		TSNode cond = ta_node_field(n, "condition");
		if (ts_node_is_null(ca) || ts_node_is_null(cb) || ts_node_eq(ca, cb))
			return false;
		return !ts_node_eq(ca, cond) && !ts_node_eq(cb, cond);
	}
	return false;
}

char *ta_op_arg(const ta_rule_ctx *c, const ta_op *op, size_t i)
{
	return i < op->arg_count ? ta_rule_text(c, op->args[i]) : NULL;
}

/* ---- kernel structure --------------------------------------------------- */

/* Every host's ops grouped by kind: at[h * TA_HOST__COUNT + kind] is where
 * the run of host h's ops of that kind starts in ops, the next slot where
 * it ends. */
typedef struct host_ops {
	size_t *at;
	uint32_t *ops;
} host_ops;

static void *build_host_ops(const ta_model *m)
{
	host_ops *x = ta_xcalloc(1, sizeof *x);
	size_t slots = m->host_count * TA_HOST__COUNT, total = 0;
	x->at = ta_xcalloc(slots + 1, sizeof *x->at);
	for (size_t h = 0; h < m->host_count; h++)
		for (size_t i = 0; i < m->hosts[h].op_count; i++)
			x->at[h * TA_HOST__COUNT + m->hosts[h].ops[i].kind + 1]++;
	for (size_t s = 0; s < slots; s++)
		x->at[s + 1] += x->at[s];
	total = x->at[slots];
	x->ops = ta_xcalloc(total ? total : 1, sizeof *x->ops);
	size_t *fill = ta_xcalloc(slots ? slots : 1, sizeof *fill);
	for (size_t h = 0; h < m->host_count; h++)
		for (size_t i = 0; i < m->hosts[h].op_count; i++) {
			size_t s = h * TA_HOST__COUNT + m->hosts[h].ops[i].kind;
			x->ops[x->at[s] + fill[s]++] = (uint32_t)i;
		}
	free(fill);
	return x;
}

static void free_host_ops(void *p)
{
	host_ops *x = p;
	if (x) {
		free(x->at);
		free(x->ops);
	}
	free(x);
}

const uint32_t *ta_rule_host_ops(const ta_rule_ctx *c, int host, ta_host_kind kind, size_t *n)
{
	const host_ops *x = ta_index_cached(c->m, build_host_ops, free_host_ops);
	size_t s = (size_t)host * TA_HOST__COUNT + kind;
	*n = x->at[s + 1] - x->at[s];
	return x->ops + x->at[s];
}

/* The model keeps a kernel's loops and ops in document order (a loop's
 * nest right after it, each loop's parent before it): the lookups below are
 * binary searches, so that a kernel of thousands of loops stays linear. */
int ta_kernel_loop_at(const ta_kernel *k, uint32_t off)
{
	size_t lo = 0, hi = k->loop_count;   /* loops starting at or before off: [0, lo) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->loops[mid].span.start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The last loop starting at or before off is the innermost holding it
	 * or nested in it: climb to the first that holds off. */
	int l = (int)lo - 1;
	while (l >= 0 && off >= k->loops[l].span.end)
		l = k->loops[l].parent;
	return l;
}

size_t ta_loop_nest_end(const ta_kernel *k, int l)
{
	size_t j = (size_t)l + 1;
	while (j < k->loop_count && k->loops[j].span.start < k->loops[l].span.end)
		j++;
	return j;
}

size_t ta_loop_ops(const ta_kernel *k, int l, size_t *first)
{
	uint32_t bound[2] = { k->loops[l].span.start, k->loops[l].span.end };
	size_t at[2];
	for (int b = 0; b < 2; b++) {
		size_t lo = 0, hi = k->op_count;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (k->ops[mid].span.start < bound[b])
				lo = mid + 1;
			else
				hi = mid;
		}
		at[b] = lo;
	}
	*first = at[0];
	return at[1];
}

size_t ta_rule_assigns_within(const ta_assign *as, size_t n, ta_span s, size_t *first)
{
	uint32_t bound[2] = { s.start, s.end };
	size_t at[2];
	for (int b = 0; b < 2; b++) {
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (as[mid].stmt.start < bound[b])
				lo = mid + 1;
			else
				hi = mid;
		}
		at[b] = lo;
	}
	*first = at[0];
	return at[1];
}

_Static_assert(TA_OP__COUNT <= 64, "TA_OP_BIT needs one bit per op kind");

bool ta_kernel_reaches_op(const ta_model *m, int ki, uint64_t kinds, int depth)
{
	if (ki < 0 || depth > 3)
		return false;
	const ta_kernel *k = &m->kernels[ki];
	for (size_t i = 0; i < k->op_count; i++)
		if ((kinds & TA_OP_BIT(k->ops[i].kind)) ||
		    (k->ops[i].kind == TA_OP_HELPER_CALL && k->ops[i].helper != ki &&
		     ta_kernel_reaches_op(m, k->ops[i].helper, kinds, depth + 1)))
			return true;
	return false;
}

/* Kernel ki, or a helper it calls (down to depth 3), has a loop or a tl.dot. */
static bool loops_or_dots(const ta_model *m, int ki, int depth)
{
	if (ki < 0 || depth > 3)
		return false;
	const ta_kernel *k = &m->kernels[ki];
	if (k->loop_count)
		return true;
	for (size_t i = 0; i < k->op_count; i++)
		if (k->ops[i].kind == TA_OP_DOT ||
		    (k->ops[i].kind == TA_OP_HELPER_CALL && k->ops[i].helper != ki &&
		     loops_or_dots(m, k->ops[i].helper, depth + 1)))
			return true;
	return false;
}

/* Whether kernel ki calls a function by a plain name that is neither a
 * Python builtin nor a kernel of this file: a @jit helper imported from
 * another module, whose loops and dots are not seen here. */
static bool calls_unseen(const ta_model *m, int ki)
{
	static const char *const builtins[] = { "range", "len", "min", "max", "abs", "int", "float", "bool", "print",
						"isinstance", "getattr", "tuple", "list", "zip", "enumerate",
						"static_print", "static_assert", NULL };
	bool unseen = false;
	ta_walk w;
	ta_walk_start(&w, m->kernels[ki].node);
	do {
		TSNode n = ta_walk_node(&w);
		if (!ta_node_is(n, "call"))
			continue;
		TSNode fn = ta_node_field(n, "function");
		if (!ta_node_is(fn, "identifier"))
			continue;
		char *name = ta_node_text(m->src, fn);
		bool known = ta_model_find_kernel(m, name) >= 0;
		for (int i = 0; builtins[i] && !known; i++)
			known = !strcmp(name, builtins[i]);
		if (!known) {
			char *canon = ta_model_canonical(m, fn);
			known = canon && !strncmp(canon, "triton.", 7);
			free(canon);
		}
		unseen = !known;
		free(name);
	} while (!unseen && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return unseen;
}

static bool one_shot(const ta_model *m, int ki, int depth)
{
	if (loops_or_dots(m, ki, 0) || calls_unseen(m, ki))
		return false;
	for (size_t c = 0; c < m->kernel_count; c++)
		for (size_t i = 0; i < m->kernels[c].op_count; i++)
			if (m->kernels[c].ops[i].kind == TA_OP_HELPER_CALL && m->kernels[c].ops[i].helper == ki &&
			    ((int)c == ki || depth >= 2 || !one_shot(m, (int)c, depth + 1)))
				return false;
	return true;
}

bool ta_kernel_one_shot(const ta_model *m, int ki)
{
	return ki >= 0 && (size_t)ki < m->kernel_count && one_shot(m, ki, 0);
}

/* Kernel ki, or a @jit helper it calls (down to depth 3), multiplies tiles
 * or moves a tile or row of data (not a scalar) in a loop; in_loop: ki
 * runs inside a loop of its caller. */
static bool streams(const ta_model *m, int ki, bool in_loop, int depth)
{
	if (ki < 0 || (size_t)ki >= m->kernel_count || depth > 3)
		return false;
	const ta_kernel *k = &m->kernels[ki];
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		bool moves = op->kind == TA_OP_LOAD || op->kind == TA_OP_STORE || op->kind == TA_OP_DESC_LOAD ||
			     op->kind == TA_OP_DESC_STORE;
		if (op->kind == TA_OP_DOT || (moves && (in_loop || op->loop >= 0) && op->ptr_shape != TA_PTR_SCALAR) ||
		    (op->kind == TA_OP_HELPER_CALL && op->helper != ki &&
		     streams(m, op->helper, in_loop || op->loop >= 0, depth + 1)))
			return true;
	}
	return false;
}

bool ta_kernel_streams(const ta_model *m, int ki)
{
	return ki >= 0 && (size_t)ki < m->kernel_count && (calls_unseen(m, ki) || streams(m, ki, false, 0));
}

bool ta_loop_within(const ta_kernel *k, int inner, int outer)
{
	for (int l = inner; l >= 0; l = k->loops[l].parent)
		if (l == outer)
			return true;
	return false;
}

/* Does the span mention one of the comma-separated names of a loop header's
 * variable text ("i" or "i, j")? */
static bool mentions_loop_var(const ta_rule_ctx *c, ta_span s, const char *vars)
{
	char *copy = ta_xstrdup(vars), *save = NULL;
	bool hit = false;
	for (char *t = strtok_r(copy, ", ()", &save); t && !hit; t = strtok_r(NULL, ", ()", &save))
		hit = ta_rule_mentions(c, s, t);
	free(copy);
	return hit;
}

/* Which assignments inside loop l (as[first .. end)) give their name a
 * value that changes from one iteration to the next: those that add to it,
 * mention the variable of l or of a loop in its nest, or mention a name so
 * given, to a fixed point. varying[i - first]. */
static bool *loop_varying(ta_rule_ctx *c, const ta_assign *as, size_t first, size_t end, int l)
{
	const ta_kernel *k = c->k;
	size_t nest = ta_loop_nest_end(k, l);
	bool *varying = ta_xcalloc(end > first ? end - first : 1, sizeof *varying);
	for (bool grew = true; grew;) {
		grew = false;
		for (size_t i = first; i < end; i++) {
			if (varying[i - first])
				continue;
			/* `x += step`, and `x = x + step` too: it reads its own value */
			bool v = as[i].augmented || ta_rule_mentions(c, as[i].rhs, as[i].name);
			for (size_t j = (size_t)l; j < nest && !v; j++)
				v = k->loops[j].var && mentions_loop_var(c, as[i].rhs, k->loops[j].var);
			for (size_t j = first; j < end && !v; j++)
				v = varying[j - first] && ta_rule_mentions(c, as[i].rhs, as[j].name);
			if (v)
				varying[i - first] = grew = true;
		}
	}
	return varying;
}

/* What ta_rule_varies_in_loop knows of one loop, made on its first
 * question: which of its assignments vary, and their names sorted (each
 * question then looks up the names it reads, not every assignment). */
struct ta_loop_vary {
	bool *varying;
	const char **names;       /* into the assignments; sorted, each once */
	size_t n_names;
	bool dotted;              /* some name is no plain identifier: ask each */
};

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether the text at s reads one of the sorted names as a whole word
 * (not an attribute: ta_text_mentions's rule). */
static bool reads_any(const ta_rule_ctx *c, ta_span s, const char *const *names, size_t n)
{
	if (s.end <= s.start || s.end > c->m->src->len)
		return false;
	const char *t = c->m->src->text + s.start;
	size_t len = s.end - s.start;
	char word[128];
	for (size_t i = 0; i < len;) {
		if (!ta_text_ident_char(t[i]) || (i > 0 && t[i - 1] == '.')) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < len && ta_text_ident_char(t[j]))
			j++;
		if (j - i < sizeof word) {
			memcpy(word, t + i, j - i);
			word[j - i] = '\0';
			const char *key = word;
			if (bsearch(&key, names, n, sizeof *names, cmp_name))
				return true;
		}
		i = j;
	}
	return false;
}

bool ta_rule_varies_in_loop(ta_rule_ctx *c, ta_span s, int l)
{
	const ta_kernel *k = c->k;
	if (l < 0 || (size_t)l >= k->loop_count)
		return false;
	size_t n, first;
	const ta_assign *as = ta_rule_assigns(c, &n);
	size_t end = ta_rule_assigns_within(as, n, k->loops[l].span, &first);
	/* The same for every question about loop l: made once per kernel. */
	if (!c->loop_vary)
		c->loop_vary = ta_xcalloc(k->loop_count, sizeof *c->loop_vary);
	struct ta_loop_vary *v = &c->loop_vary[l];
	if (!v->varying) {
		v->varying = loop_varying(c, as, first, end, l);
		v->names = ta_xcalloc(end > first ? end - first : 1, sizeof *v->names);
		for (size_t i = first; i < end; i++)
			if (v->varying[i - first]) {
				v->names[v->n_names++] = as[i].name;
				for (const char *p = as[i].name; *p && !v->dotted; p++)
					v->dotted = !ta_text_ident_char(*p);
			}
		qsort(v->names, v->n_names, sizeof *v->names, cmp_name);
	}
	bool hit = false;
	for (size_t j = (size_t)l, nest = ta_loop_nest_end(k, l); j < nest && !hit; j++)
		hit = k->loops[j].var && mentions_loop_var(c, s, k->loops[j].var);
	if (v->dotted) {
		for (size_t i = 0; i < v->n_names && !hit; i++)
			hit = ta_rule_mentions(c, s, v->names[i]);
	} else if (!hit) {
		hit = reads_any(c, s, v->names, v->n_names);
	}
	return hit;
}

const ta_op *ta_op_defining(const ta_kernel *k, const char *name, uint32_t before)
{
	const ta_op *found = NULL;
	for (size_t i = 0; i < k->op_count; i++) {
		const ta_op *op = &k->ops[i];
		if (op->target && !strcmp(op->target, name) && op->span.start < before)
			if (!found || op->span.start >= found->span.start)
				found = op;
	}
	return found;
}

void ta_rule_ctx_release(ta_rule_ctx *c)
{
	for (size_t i = 0; i < c->assign_count; i++)
		free(c->assigns[i].name);
	free(c->assigns);
	for (size_t i = 0; c->loop_vary && i < c->k->loop_count; i++) {
		free(c->loop_vary[i].varying);
		free(c->loop_vary[i].names);
	}
	free(c->loop_vary);
	c->assigns = NULL;
	c->assign_count = 0;
	c->assigns_done = false;
	c->loop_vary = NULL;
}

static void collect_assigns(ta_rule_ctx *c)
{
	c->assigns_done = true;
	const ta_kernel *k = c->k;
	TSNode body = ta_node_field(k->node, "body");
	if (ts_node_is_null(body))
		return;
	/* The model's list, less those of functions nested in the kernel. */
	size_t first, n = ta_model_refs_within(c->m->assign_nodes, c->m->assign_node_count, body, &first);
	for (size_t i = first; i < first + n; i++) {
		const ta_node_ref *r = &c->m->assign_nodes[i];
		if (r->function < 0 || c->m->functions[r->function].kernel != c->kernel)
			continue;
		TSNode left = ta_node_field(r->node, "left"), right = ta_node_field(r->node, "right");
		if (ta_node_is(left, "identifier") && !ts_node_is_null(right)) {
			ta_assign *a = TA_APPEND(c->assigns, c->assign_count);
			a->name = ta_node_text(c->m->src, left);
			a->rhs = ta_span_of(c->m->src, right);
			a->stmt = ta_span_of(c->m->src, r->node);
			a->loop = ta_kernel_loop_at(k, a->stmt.start);
			a->augmented = ta_node_is(r->node, "augmented_assignment");
		}
	}
}

const ta_assign *ta_rule_assigns(ta_rule_ctx *c, size_t *n)
{
	if (!c->assigns_done)
		collect_assigns(c);
	*n = c->assign_count;
	return c->assigns;
}

static bool parse_long(const char *s, long *v)
{
	if (!s || !*s)
		return false;
	char *end;
	long x = strtol(s, &end, 0);
	while (*end == ' ')
		end++;
	if (*end)
		return false;
	*v = x;
	return true;
}

/* The integers a comprehension around a config gives the variable var:
 * `for bn in (128, 256)` in `[triton.Config({'BLOCK_N': bn}) for bn in ...]`. */
static size_t comprehension_values(const ta_rule_ctx *c, ta_span cfg, const char *var, long *vals,
				   size_t max)
{
	size_t n = 0;
	for (TSNode p = ta_rule_node(c, cfg); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (!ta_node_is(p, "list_comprehension") && !ta_node_is(p, "generator_expression"))
			continue;
		for (uint32_t i = 0; i < ts_node_named_child_count(p); i++) {
			TSNode fc = ta_node_named_child(p, i);
			if (!ta_node_is(fc, "for_in_clause") ||
			    !ta_node_text_eq(c->m->src, ta_node_field(fc, "left"), var))
				continue;
			TSNode seq = ta_node_unparen(ta_node_field(fc, "right"));
			if (!ta_node_is(seq, "tuple") && !ta_node_is(seq, "list"))
				continue;
			for (uint32_t j = 0; j < ts_node_named_child_count(seq) && n < max; j++) {
				TSNode v = ta_node_named_child(seq, j);
				char *t = ta_xstrndup(c->m->src->text + ts_node_start_byte(v),
						      ts_node_end_byte(v) - ts_node_start_byte(v));
				if (ta_node_is(v, "integer") && parse_long(t, &vals[n]))
					n++;
				free(t);
			}
		}
		break;
	}
	return n;
}

size_t ta_rule_param_values(const ta_rule_ctx *c, const char *name, long *vals, size_t max)
{
	size_t n = 0;
	const ta_autotune *a = c->k->autotune;
	for (size_t i = 0; a && i < a->config_count && n < max; i++) {
		const ta_kwarg *kw = ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name);
		if (kw && parse_long(kw->value, &vals[n]))
			n++;
		else if (kw)
			n += comprehension_values(c, a->configs[i].span, kw->value, vals + n, max - n);
	}
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; n < max && (l = ta_launch_walk_next(&walk));) {
		const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, name);
		if (kw && parse_long(kw->value, &vals[n]))
			n++;
	}
	const ta_param *p = ta_kernel_param(c->k, name);
	if (p && p->default_value && n < max && parse_long(p->default_value, &vals[n]))
		n++;
	return n;
}

bool ta_is_layout_flag(const char *name)
{
	static const char *const flags[] = {
		"transpose", "transpose_a", "transpose_b", "transpose_v", "transpose_k",
		"transpose_q", "trans_a", "trans_b", "trans_v", "a_trans", "b_trans",
		"is_transposed", "layout", "mla_layout", "layout_mode", "kv_layout", NULL,
	};
	return ta_name_among(name, flags);
}

/* ---- shared by several entries ---------------------------------------- */

int ta_rule_dots_in_loop(const ta_kernel *k, int l)
{
	int n = 0;
	size_t first, end = ta_loop_ops(k, l, &first);
	for (size_t i = first; i < end; i++)
		n += k->ops[i].kind == TA_OP_DOT;
	return n;
}

/* ---- the dimensions of a tile ------------------------------------------ */

/* The assignment of name that the code at `before` reads: the last plain
 * one before it (NULL: none). */
static const ta_assign *last_assign(ta_rule_ctx *c, const char *name, uint32_t before)
{
	size_t n;
	const ta_assign *as = ta_rule_assigns(c, &n);
	const ta_assign *def = NULL;
	for (size_t i = 0; i < n; i++)
		if (!as[i].augmented && as[i].stmt.end <= before && !strcmp(as[i].name, name))
			def = &as[i];
	return def;
}

static void dims_of(ta_rule_ctx *c, TSNode n, uint32_t before, ta_tile_dims *d, int depth);

/* The upper bound of the tl.arange that value (a subscripted offset)
 * ranges over, as a node, following names; a null node when none. */
static TSNode range_bound(ta_rule_ctx *c, TSNode n, uint32_t before, int depth)
{
	if (ts_node_is_null(n) || depth > 4)
		return (TSNode){ 0 };
	n = ta_node_unparen(n);
	if (ta_node_is(n, "identifier")) {
		char *name = ta_node_text(c->m->src, n);
		const ta_assign *a = last_assign(c, name, before);
		free(name);
		return a ? range_bound(c, ta_rule_node(c, a->rhs), a->stmt.start, depth + 1) : (TSNode){ 0 };
	}
	if (ta_node_is(n, "call")) {
		char *fn = ta_model_canonical(c->m, ta_node_field(n, "function"));
		bool arange = fn && !strcmp(fn, "triton.language.arange");
		free(fn);
		TSNode args = ta_node_field(n, "arguments");
		if (arange)
			return ta_node_named_count(args) >= 2 ? ta_node_named_child(args, 1) : (TSNode){ 0 };
		return (TSNode){ 0 };
	}
	if (ta_node_is(n, "binary_operator")) {
		TSNode l = range_bound(c, ta_node_field(n, "left"), before, depth + 1);
		return ts_node_is_null(l) ? range_bound(c, ta_node_field(n, "right"), before, depth + 1) : l;
	}
	return (TSNode){ 0 };
}

/* The dimensions a pointer expression spans: each x[:, None]-style term
 * puts the range of x on the axis of its slice. */
static void pointer_dims(ta_rule_ctx *c, TSNode n, uint32_t before, ta_tile_dims *d, int depth)
{
	if (ts_node_is_null(n) || depth > 6)
		return;
	n = ta_node_unparen(n);
	if (ta_node_is(n, "subscript")) {
		uint32_t nsub = ta_node_named_count(n);
		bool none = false;
		int slice = -1;
		for (uint32_t i = 1; i < nsub; i++) {
			TSNode x = ta_node_named_child(n, i);
			none |= ta_node_is(x, "none");
			if (ta_node_is(x, "slice"))
				slice = (int)i - 1;
		}
		if (none && nsub - 1 <= TA_TILE_MAX_RANK) {
			if ((int)nsub - 1 > d->rank)
				d->rank = (int)nsub - 1;
			if (slice >= 0 && ts_node_is_null(d->size[slice]))
				d->size[slice] = range_bound(c, ta_node_named_child(n, 0), before, 0);
			return;
		}
	}
	if (ta_node_is(n, "binary_operator")) {
		pointer_dims(c, ta_node_field(n, "left"), before, d, depth + 1);
		pointer_dims(c, ta_node_field(n, "right"), before, d, depth + 1);
	} else if (ta_node_is(n, "identifier")) {
		char *name = ta_node_text(c->m->src, n);
		const ta_assign *a = ta_kernel_param(c->k, name) ? NULL : last_assign(c, name, before);
		free(name);
		if (a)
			pointer_dims(c, ta_rule_node(c, a->rhs), a->stmt.start, d, depth + 1);
	}
}

/* A shape written as a tuple or list: its elements are the sizes. */
static void shape_dims(TSNode shape, ta_tile_dims *d)
{
	shape = ta_node_unparen(shape);
	if (!ta_node_is(shape, "tuple") && !ta_node_is(shape, "list"))
		return;
	uint32_t n = ta_node_named_count(shape);
	if (n > TA_TILE_MAX_RANK)
		return;
	d->rank = (int)n;
	for (uint32_t i = 0; i < n; i++)
		d->size[i] = ta_node_named_child(shape, i);
}

static void dims_of(ta_rule_ctx *c, TSNode n, uint32_t before, ta_tile_dims *d, int depth)
{
	if (ts_node_is_null(n) || depth > 6 || d->rank)
		return;
	n = ta_node_unparen(n);
	if (ta_node_is(n, "identifier")) {
		char *name = ta_node_text(c->m->src, n);
		const ta_assign *a = last_assign(c, name, before);
		free(name);
		if (a)
			dims_of(c, ta_rule_node(c, a->rhs), a->stmt.start, d, depth + 1);
		return;
	}
	if (ta_node_is(n, "binary_operator")) {
		dims_of(c, ta_node_field(n, "left"), before, d, depth + 1);
		dims_of(c, ta_node_field(n, "right"), before, d, depth + 1);
		return;
	}
	if (!ta_node_is(n, "call"))
		return;
	TSNode fn = ta_node_field(n, "function"), args = ta_node_field(n, "arguments");
	TSNode a0 = ta_node_named_count(args) ? ta_node_named_child(args, 0) : (TSNode){ 0 };
	TSNode a1 = ta_node_named_count(args) > 1 ? ta_node_named_child(args, 1) : (TSNode){ 0 };
	char *name = ta_model_canonical(c->m, fn);
	const char *tl = name && !strncmp(name, "triton.language.", 16) ? name + 16 : NULL;
	if (tl && !strcmp(tl, "load")) {
		pointer_dims(c, a0, before, d, 0);
		d->broadcast = false;
	} else if (tl && (!strcmp(tl, "reshape") || !strcmp(tl, "view"))) {
		shape_dims(a1, d);
	} else if (tl && !strcmp(tl, "broadcast_to")) {
		shape_dims(a1, d);
		d->broadcast = true;
	} else if (tl && (!strcmp(tl, "zeros") || !strcmp(tl, "full"))) {
		shape_dims(a0, d);
	} else if (!tl && ta_node_is(fn, "attribute")) {
		/* x.to(...), x.reshape(a, b, c) */
		TSNode m = ta_node_field(fn, "attribute");
		if (ta_node_text_eq(c->m->src, m, "reshape") || ta_node_text_eq(c->m->src, m, "view")) {
			if (ta_node_is(a0, "tuple") || ta_node_is(a0, "list"))
				shape_dims(a0, d);
			else if (ta_node_named_count(args) <= TA_TILE_MAX_RANK) {
				d->rank = (int)ta_node_named_count(args);
				for (int i = 0; i < d->rank; i++)
					d->size[i] = ta_node_named_child(args, (uint32_t)i);
			}
		} else {
			dims_of(c, ta_node_field(fn, "object"), before, d, depth + 1);
		}
	}
	free(name);
}

int ta_rule_tile_dims(ta_rule_ctx *c, ta_span s, uint32_t before, ta_tile_dims *d)
{
	memset(d, 0, sizeof *d);
	dims_of(c, ta_rule_node(c, s), before, d, 0);
	return d->rank;
}

bool ta_rule_size_at_most(ta_rule_ctx *c, TSNode size, long most, const char **param)
{
	*param = NULL;
	if (ts_node_is_null(size))
		return false;
	char *t = ta_node_text(c->m->src, size);
	long v;
	bool ok = false;
	if (parse_long(t, &v)) {
		ok = v <= most;
	} else if (ta_node_is(size, "identifier")) {
		const ta_param *p = ta_kernel_param(c->k, t);
		long vals[64];
		size_t n = p && p->constexpr_ ? ta_rule_param_values(c, t, vals, 64) : 0;
		ok = n > 0;
		for (size_t i = 0; i < n; i++)
			ok &= vals[i] <= most;
		if (ok)
			*param = p->name;
	}
	free(t);
	return ok;
}

/* Folder names of other back-ends than CUDA. */
static const char *const backend_dirs[] = {
	"rocm", "amd", "hip", "npu", "ascend", "cambricon", "mlu", "xpu", "musa", "mthreads", "kunlunxin",
	"iluvatar", "metax", NULL,
};

/* Tests that a file branches on the back-end it runs on: calls, and the
 * quoted device or vendor names that a test compares with
 * (`X.device.type == "xpu"`, `vendor_name == "kunlunxin"`). */
static const char *const backend_tests[] = {
	"torch.version.hip", "is_hip(", "is_hip_", "is_rocm(", "is_amd(", "is_xpu(", "is_npu(", "is_mlu(",
	"is_npu_available(", "is_xpu_available(", "is_torch_npu_available(", "is_musa(",
	"\"hip\"", "'hip'", "\"xpu\"", "'xpu'", "\"npu\"", "'npu'", "\"mlu\"", "'mlu'", "\"musa\"", "'musa'",
	"\"ascend\"", "'ascend'", "\"cambricon\"", "'cambricon'", "\"kunlunxin\"", "'kunlunxin'",
	"\"mthreads\"", "'mthreads'", "\"iluvatar\"", "'iluvatar'", "\"metax\"", "'metax'", NULL,
};

/* Flags a project keeps for the back-end it runs on (fla's
 * `STATIC_WARPS = 32 if not IS_AMD else 16`): a test where the name is read,
 * not where it is imported or named in a string. */
static const char *const backend_flags[] = {
	"IS_AMD", "IS_HIP", "IS_ROCM", "IS_INTEL", "IS_XPU", "IS_NPU", "IS_MLU", "IS_MUSA", NULL,
};

bool ta_text_backend_test(const char *t, size_t n)
{
	for (int i = 0; backend_tests[i]; i++) {
		size_t len = strlen(backend_tests[i]);
		for (size_t j = 0; j + len <= n; j++)
			if (!memcmp(t + j, backend_tests[i], len))
				return true;
	}
	for (int i = 0; backend_flags[i]; i++)
		if (ta_text_mentions(t, n, backend_flags[i]))
			return true;
	return false;
}

/* The first read of one of backend_flags, as its offset, or -1. */
static long backend_flag_read(const ta_model *m, int *which)
{
	const char *text = m->src->text;
	TSNode root = ta_syntax_root(m->syn);
	long best = -1;
	for (int i = 0; backend_flags[i]; i++) {
		size_t len = strlen(backend_flags[i]);
		for (const char *at = strstr(text, backend_flags[i]); at && (best < 0 || at - text < best);
		     at = strstr(at + len, backend_flags[i])) {
			if ((at > text && ta_text_ident_char(at[-1])) || ta_text_ident_char(at[len]))
				continue;
			uint32_t o = (uint32_t)(at - text);
			TSNode n = ta_node_named_at(root, o, o + (uint32_t)len);
			if (!ta_node_is(n, "identifier"))
				continue;
			bool imported = false;
			for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && !imported; p = ta_node_parent(p))
				imported = ta_node_is(p, "import_from_statement") || ta_node_is(p, "import_statement");
			if (imported)
				continue;
			best = at - text;
			*which = i;
			break;
		}
	}
	return best;
}

ta_backend_kind ta_file_other_backend(const ta_model *m, ta_backend_fact *b)
{
	ta_backend_fact none;
	if (!b)
		b = &none;
	const char *path = m->src->path ? m->src->path : "";
	const char *seg = path;
	for (const char *s = path; *s; s++) {
		if (*s != '/')
			continue;
		/* each '_'-separated word of the folder's name: _ascend,
		 * triton_ascend */
		for (const char *d = seg; d < s;) {
			size_t len = strcspn(d, "_/");
			if (d + len > s)
				len = (size_t)(s - d);
			for (size_t i = 0; len && backend_dirs[i]; i++)
				if (len == strlen(backend_dirs[i]) && !strncasecmp(d, backend_dirs[i], len)) {
					b->text = seg;
					b->len = (int)(s - seg);
					b->line = 0;
					return TA_BACKEND_FOLDER;
				}
			d += len + 1;
		}
		seg = s + 1;
	}
	/* The text is searched once per file, not once per kernel and rule
	 * (five callers a kernel: 30 M instructions over 64 files); the last
	 * answer is kept for the same text, recognised by its address, length
	 * and hash. */
	static _Thread_local struct {
		const char *text;
		size_t len;
		uint64_t hash;
		int test;                 /* index in backend_tests, -1: none */
		int flag;                 /* or in backend_flags, -1: none */
		unsigned line;
	} last;
	if (last.text != m->src->text || last.len != m->src->len || last.hash != m->src->hash) {
		last.text = m->src->text;
		last.len = m->src->len;
		last.hash = m->src->hash;
		last.test = -1;
		for (int i = 0; backend_tests[i]; i++) {
			const char *at = strstr(m->src->text, backend_tests[i]);
			if (at) {
				last.test = i;
				last.line = (unsigned)ta_source_line_of(m->src, (size_t)(at - m->src->text));
				break;
			}
		}
		last.flag = -1;
		long at = last.test < 0 ? backend_flag_read(m, &last.flag) : -1;
		if (at >= 0)
			last.line = (unsigned)ta_source_line_of(m->src, (size_t)at);
	}
	if (last.test < 0 && last.flag >= 0) {
		b->text = backend_flags[last.flag];
		b->len = (int)strlen(b->text);
		b->line = last.line;
		return TA_BACKEND_TEST;
	}
	if (last.test < 0)
		return TA_BACKEND_CUDA;
	b->text = backend_tests[last.test];
	/* a call is named without its parenthesis, a device name with its quotes */
	b->len = b->text[0] == '"' || b->text[0] == '\'' ? (int)strlen(b->text) : (int)strcspn(b->text, "(");
	b->line = last.line;
	return TA_BACKEND_TEST;
}

size_t ta_reason_base_len(const char *reason)
{
	size_t n = strlen(reason);
	const char *as = strstr(reason, " (as ");
	if (as && n && reason[n - 1] == ')' && !strchr(as + 5, ' '))
		return (size_t)(as - reason);
	return n;
}

/* ---- code no config reaches -------------------------------------------------- */

/* The integer values node n takes as a config's value: a literal, or the
 * target of a for loop over a literal list of integers around it (a config
 * list built by nested loops: `for split_k in [8, 16]: ... "SPLIT_K":
 * split_k`). Appends to out (at most max); false when not known. */
static bool config_ints(const ta_model *m, TSNode n, long *out, size_t *nout, size_t max)
{
	long v;
	if (ta_values_int(m, n, &v)) {
		if (*nout >= max)
			return false;
		out[(*nout)++] = v;
		return true;
	}
	if (!ta_node_is(n, "identifier"))
		return false;
	char *name = ta_node_text(m->src, n);
	TSNode right = { 0 };
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && ts_node_is_null(right); p = ta_node_parent(p))
		if (ta_node_is(p, "for_statement") && ta_node_is(ta_node_field(p, "left"), "identifier") &&
		    ta_node_text_eq(m->src, ta_node_field(p, "left"), name))
			right = ta_node_field(p, "right");
	free(name);
	if (!ta_node_is(right, "list") && !ta_node_is(right, "tuple"))
		return false;
	uint32_t k = ta_node_named_count(right);
	for (uint32_t i = 0; i < k; i++) {
		if (!ta_values_int(m, ta_node_named_child(right, i), &v) || *nout >= max)
			return false;
		out[(*nout)++] = v;
	}
	return k > 0;
}

/* Whether the branch of `if NAME == V:` (or `!=`) holding op (in_then: its
 * consequence) is one no config takes, NAME a constexpr of an autotuned
 * kernel that every config sets: code the tuner never runs (a split-K
 * kernel's plain store under `if SPLIT_K == 1` when every config splits K). */
static bool branch_unreached_by_configs(ta_rule_ctx *c, TSNode cond, bool in_then)
{
	const ta_autotune *a = c->k->autotune;
	if (!a || !a->config_count || a->configs_kind == TA_CONFIGS_UNRESOLVED)
		return false;
	if (!ta_node_is(cond, "comparison_operator") || ta_node_named_count(cond) != 2)
		return false;
	TSNode lhs = ta_node_named_child(cond, 0), rhs = ta_node_named_child(cond, 1);
	long want;
	char *op_text = NULL;
	for (uint32_t i = 0; i < ts_node_child_count(cond); i++) {
		TSNode t = ts_node_child(cond, i);
		if (!ts_node_is_named(t))
			op_text = ta_node_text(c->m->src, t);
	}
	bool eq = op_text && !strcmp(op_text, "=="), ne = op_text && !strcmp(op_text, "!=");
	free(op_text);
	if ((!eq && !ne) || !ta_node_is(lhs, "identifier") || !ta_values_int(c->m, rhs, &want))
		return false;
	char *name = ta_node_text(c->m->src, lhs);
	const ta_param *prm = ta_kernel_param(c->k, name);
	bool known = prm && prm->constexpr_, reached = false;
	for (size_t i = 0; known && i < a->config_count && !reached; i++) {
		const ta_kwarg *kw = ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name);
		long vals[64];
		size_t nv = 0;
		if (!kw || !config_ints(c->m, ta_rule_node(c, kw->value_span), vals, &nv, 64)) {
			known = false;
			break;
		}
		for (size_t j = 0; j < nv && !reached; j++)
			reached = (vals[j] == want) == (eq == in_then);
	}
	free(name);
	return known && !reached;
}

/* The truth of a flag's value written at n: 1 or 0, or -1 when it is not
 * a literal (True, False, an integer) through the wrapper's names. */
static int flag_literal(const ta_model *m, TSNode n)
{
	n = ta_values_follow(m, n);
	long v;
	if (ta_node_is(n, "true"))
		return 1;
	if (ta_node_is(n, "false"))
		return 0;
	return ta_values_int(m, n, &v) ? v != 0 : -1;
}

/* The truths a config's value at n takes: a literal, or the target of a
 * for loop over a literal list around it (`for use_tma in [False]`). */
static bool config_truths(const ta_model *m, TSNode n, bool *any_true, bool *any_false)
{
	int t = flag_literal(m, n);
	if (t >= 0) {
		*(t ? any_true : any_false) = true;
		return true;
	}
	if (!ta_node_is(n, "identifier"))
		return false;
	char *name = ta_node_text(m->src, n);
	TSNode right = { 0 };
	/* a for statement around it, or a comprehension's `for x in [...]` */
	for (TSNode p = ta_node_parent(n); !ts_node_is_null(p) && ts_node_is_null(right); p = ta_node_parent(p)) {
		if (ta_node_is(p, "for_statement") && ta_node_is(ta_node_field(p, "left"), "identifier") &&
		    ta_node_text_eq(m->src, ta_node_field(p, "left"), name))
			right = ta_node_field(p, "right");
		for (uint32_t i = 0; ts_node_is_null(right) && ta_node_is(p, "list_comprehension") &&
				     i < ta_node_named_count(p); i++) {
			TSNode f = ta_node_named_child(p, i);
			if (ta_node_is(f, "for_in_clause") && ta_node_is(ta_node_field(f, "left"), "identifier") &&
			    ta_node_text_eq(m->src, ta_node_field(f, "left"), name))
				right = ta_node_field(f, "right");
		}
	}
	free(name);
	right = ta_node_unparen(right);
	if (!ta_node_is(right, "list") && !ta_node_is(right, "tuple"))
		return false;
	uint32_t k = ta_node_named_count(right);
	for (uint32_t i = 0; i < k; i++) {
		int v = flag_literal(m, ta_node_named_child(right, i));
		if (v < 0)
			return false;
		*(v ? any_true : any_false) = true;
	}
	return k > 0;
}

/* Which truths the constexpr flag `name` takes over every run of the
 * kernel: its autotune configs when each sets it, else each launch's
 * keyword or the parameter's default when the kernel is private to its
 * module. False when some value is not known (a heuristic computes it, a
 * launch passes it by position or from a variable, a public kernel another
 * module may launch). */
static bool flag_truths(ta_rule_ctx *c, const char *name, bool *any_true, bool *any_false)
{
	*any_true = *any_false = false;
	const ta_param *prm = ta_kernel_param(c->k, name);
	if (!prm || !prm->constexpr_)
		return false;
	/* a heuristic computes it from the arguments at each launch */
	for (size_t i = 0; i < c->k->heuristic_count; i++)
		if (!strcmp(c->k->heuristics[i].name, name))
			return false;
	const ta_autotune *a = c->k->autotune;
	bool by_configs = a && a->config_count && a->configs_kind != TA_CONFIGS_UNRESOLVED;
	for (size_t i = 0; by_configs && i < a->config_count; i++)
		by_configs = ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name) != NULL;
	if (by_configs) {
		for (size_t i = 0; i < a->config_count; i++) {
			const ta_kwarg *kw = ta_kwarg_find(a->configs[i].params, a->configs[i].param_count, name);
			if (!config_truths(c->m, ta_rule_node(c, kw->value_span), any_true, any_false))
				return false;
		}
		return true;
	}
	/* the file's launches are all the launches only of a kernel private
	 * to its module (`_name`): another module may import a public one and
	 * launch it with the other value */
	if (c->k->name[0] != '_')
		return false;
	bool any = false;
	ta_launch_walk walk = ta_index_launch_walk(c->m, c->kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));) {
		const ta_kwarg *kw = ta_kwarg_find(l->kwargs, l->kwarg_count, name);
		int v = kw ? flag_literal(c->m, ta_rule_node(c, kw->value_span)) : -1;
		if (!kw) {
			/* by position, or left to its default */
			size_t at = (size_t)(prm - c->k->params);
			if (at < l->arg_count || !prm->default_value)
				return false;
			v = !strcmp(prm->default_value, "True") ? 1 : !strcmp(prm->default_value, "False") ? 0 :
			    -1;
		}
		if (v < 0)
			return false;
		*(v ? any_true : any_false) = true;
		any = true;
	}
	return any;
}

bool ta_rule_op_unreached(ta_rule_ctx *c, const ta_op *op)
{
	for (TSNode p = ta_node_parent(ta_rule_node(c, op->span)); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition"))
			break;
		if (!ta_node_is(p, "if_statement"))
			continue;
		TSNode cond = ta_node_unparen(ta_node_field(p, "condition"));
		TSNode cons = ta_node_field(p, "consequence");
		bool in_then = ts_node_start_byte(cons) <= op->span.start && op->span.end <= ts_node_end_byte(cons);
		if (branch_unreached_by_configs(c, cond, in_then))
			return true;
		bool negated = ta_node_is(cond, "not_operator");
		if (negated)
			cond = ta_node_unparen(ta_node_field(cond, "argument"));
		if (!ta_node_is(cond, "identifier"))
			continue;
		char *name = ta_node_text(c->m->src, cond);
		bool t, f, known = flag_truths(c, name, &t, &f);
		free(name);
		/* the branch runs when the flag is (then) true, or (else) false,
		 * turned over by `not` */
		bool needs_true = in_then != negated;
		if (known && !(needs_true ? t : f))
			return true;
	}
	return false;
}

/* ---- a name's one value ---------------------------------------------------------- */

TSNode ta_rule_sole_value(const ta_model *m, TSNode fn, const char *name, size_t len, uint32_t before)
{
	size_t n;
	const ta_values_binding *b = ta_values_bindings(m, fn, name, len, &n);
	if (n != 1 || b[0].mutation || (before && b[0].point > before) || !ta_node_is(b[0].binding, "assignment") ||
	    !ta_node_is(ta_node_field(b[0].binding, "left"), "identifier"))
		return (TSNode){ 0 };
	return ta_node_unparen(ta_node_field(b[0].binding, "right"));
}

/* ---- calls of plain names ------------------------------------------------------- */

/* The file's calls of plain names (`f(...)`), sorted by name, built once
 * per model: where a wrapper is called from, and what it is given. */
typedef struct name_calls {
	ta_name_call *v;
	size_t n;
} name_calls;

static int name_call_cmp(const void *a, const void *b)
{
	const ta_name_call *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->len > y->len) - (x->len < y->len);
}

static void *build_name_calls(const ta_model *m)
{
	name_calls *c = ta_xcalloc(1, sizeof *c);
	size_t cap = 0;
	ta_walk w;
	ta_walk_start(&w, ta_syntax_root(m->syn));
	for (;;) {
		TSNode n = ta_walk_node(&w);
		TSNode f = ta_node_is(n, "call") ? ta_node_field(n, "function") : (TSNode){ 0 };
		if (ta_node_is(f, "identifier")) {
			if (c->n == cap) {
				cap = cap ? cap * 2 : 64;
				c->v = ta_xrealloc(c->v, cap * sizeof *c->v);
			}
			uint32_t a = ts_node_start_byte(f);
			c->v[c->n++] = (ta_name_call){ m->src->text + a, ts_node_end_byte(f) - a, n };
		}
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	if (c->n)
		qsort(c->v, c->n, sizeof *c->v, name_call_cmp);
	return c;
}

static void free_name_calls(void *p)
{
	name_calls *c = p;
	free(c->v);
	free(c);
}

const ta_name_call *ta_rule_calls_of(const ta_model *m, const char *name, size_t len, size_t *n)
{
	const name_calls *c = ta_index_cached(m, build_name_calls, free_name_calls);
	*n = 0;
	if (!c->n)
		return NULL;   /* no calls at all: no table to point into */
	ta_name_call key = { .name = name, .len = (uint32_t)len };
	size_t lo = 0, hi = c->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (name_call_cmp(&c->v[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < c->n && !name_call_cmp(&c->v[end], &key))
		end++;
	*n = end - lo;
	return c->v + lo;
}
