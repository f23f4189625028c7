/* Lookups over a whole model, built on first use (see index.h). */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/index.h"
#include "analyze/namemap.h"
#include "analyze/syntax.h"
#include "util/buf.h"
#include "analyze/source.h"

#include <stdlib.h>
#include <string.h>

/* Kernel -> hosts or launches, as one array cut per kernel. */
typedef struct per_kernel {
	size_t *start;            /* kernel_count + 1 */
	int *items;
} per_kernel;

/* Word -> host operations, one list per word. */
typedef struct op_list {
	ta_host_op_ref *items;
	size_t count, cap;
} op_list;

struct ta_model_index {
	bool have_idents, have_module, have_funcs, have_hosts, have_launches, have_wraps;
	ta_namemap idents;        /* value unused; names point into the text */
	ta_namemap defs, assigns;  /* value: first statement's start */
	ta_namemap funcs, imports;
	per_kernel hosts, launches;
	ta_namemap targets;       /* import alias -> index of its last import */
	size_t targets_seen;      /* imports entered in targets */
	ta_namemap firsts;        /* import target -> its first import */
	size_t firsts_seen;
	bool have_spans, have_foreign;
	bool hosts_overlap;       /* spans that neither nest nor part: scan */
	uint32_t *kspans;         /* merged kernel spans: start, end pairs */
	size_t kspan_count;
	int *hosts_sorted;        /* by start, longer first, lower index last */
	int *host_parent;         /* per host: the innermost host around it */
	size_t hosts_sorted_count;
	int module_host;
	int foreign_kernel;
	TSNode foreign_decorator;
	struct {
		void *(*build)(const ta_model *);
		void (*destroy)(void *);
		void *data;
	} cached[12];
	ta_namemap wrap_words;    /* word -> index in wraps */
	op_list *wraps;
	size_t wrap_count, wrap_cap;
};

static void insert_node(ta_namemap *t, const ta_model *m, TSNode n, uint32_t value)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b >= a && b <= m->src->len)
		ta_namemap_add(t, m->src->text + a, b - a, value);
}

static struct ta_model_index *index_of(const ta_model *m)
{
	return m->index;
}

/* Every identifier node of the tree, named or inside an error. */
static void build_idents(const ta_model *m, struct ta_model_index *x)
{
	x->have_idents = true;
	ta_walk c;
	ta_walk_start(&c, ta_syntax_root(m->syn));
	do {
		TSNode cur = ta_walk_node(&c);
		if (ts_node_is_named(cur) && !strcmp(ts_node_type(cur), "identifier"))
			insert_node(&x->idents, m, cur, 0);
	} while (ta_walk_next(&c, true));
	ta_walk_finish(&c);
}

/* The module's statements, once, with one cursor (ts_node_named_child is
 * linear in the child's index in tree-sitter 0.20). */
static void build_module(const ta_model *m, struct ta_model_index *x)
{
	x->have_module = true;
	TSTreeCursor c = ts_tree_cursor_new(ta_syntax_root(m->syn));
	if (ts_tree_cursor_goto_first_child(&c)) {
		do {
			TSNode s = ts_tree_cursor_current_node(&c);
			if (!ts_node_is_named(s))
				continue;
			uint32_t at = ts_node_start_byte(s);
			TSNode d = ta_node_is(s, "decorated_definition") ? ta_node_field(s, "definition") : s;
			if (ta_node_is(d, "function_definition") || ta_node_is(d, "class_definition")) {
				TSNode id = ta_node_field(d, "name");
				if (!ts_node_is_null(id))
					insert_node(&x->defs, m, id, at);
			}
			TSNode a = ta_node_is(s, "expression_statement") ? ta_node_named_child(s, 0) : (TSNode){ 0 };
			if (ta_node_is(a, "assignment")) {
				TSNode left = ta_node_field(a, "left");
				if (!ts_node_is_null(left))
					insert_node(&x->assigns, m, left, at);
			}
		} while (ts_tree_cursor_goto_next_sibling(&c));
	}
	ts_tree_cursor_delete(&c);
}

bool ta_index_identifier(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_idents)
		build_idents(m, x);
	return ta_namemap_find(&x->idents, name, strlen(name)) != NULL;
}

uint32_t ta_index_module_def(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_module)
		build_module(m, x);
	const ta_namemap_slot *s = ta_namemap_find(&x->defs, name, strlen(name));
	return s ? s->value : UINT32_MAX;
}

uint32_t ta_index_module_assign(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_module)
		build_module(m, x);
	const ta_namemap_slot *s = ta_namemap_find(&x->assigns, name, strlen(name));
	return s ? s->value : UINT32_MAX;
}

bool ta_index_function(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_funcs) {
		x->have_funcs = true;
		for (size_t i = 0; i < m->function_count; i++)
			ta_namemap_add(&x->funcs, m->functions[i].name, strlen(m->functions[i].name), 0);
		for (size_t i = 0; i < m->import_count; i++)
			ta_namemap_add(&x->imports, m->imports[i].alias, strlen(m->imports[i].alias), 0);
	}
	return ta_namemap_find(&x->funcs, name, strlen(name)) != NULL;
}

bool ta_index_import_alias(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_funcs)
		(void)ta_index_function(m, "");
	return ta_namemap_find(&x->imports, name, strlen(name)) != NULL;
}

const char *ta_index_import_target(const ta_model *m, const char *name, size_t len)
{
	struct ta_model_index *x = index_of(m);
	for (; x->targets_seen < m->import_count; x->targets_seen++) {
		const char *a = m->imports[x->targets_seen].alias;
		ta_namemap_set(&x->targets, a, strlen(a), (uint32_t)x->targets_seen);
	}
	const ta_namemap_slot *s = ta_namemap_find(&x->targets, name, len);
	return s ? m->imports[s->value].target : NULL;
}

const char *ta_index_import_of(const ta_model *m, const char *module, const ta_import **im)
{
	struct ta_model_index *x = index_of(m);
	for (; x->firsts_seen < m->import_count; x->firsts_seen++) {
		const char *t = m->imports[x->firsts_seen].target;
		ta_namemap_add(&x->firsts, t, strlen(t), (uint32_t)x->firsts_seen);
	}
	const ta_namemap_slot *s = ta_namemap_find(&x->firsts, module, strlen(module));
	if (im)
		*im = s ? &m->imports[s->value] : NULL;
	return s ? m->imports[s->value].alias : NULL;
}

static const ta_model *sort_model;

static int by_start(const void *pa, const void *pb)
{
	const ta_span *a = &sort_model->hosts[*(const int *)pa].span, *b = &sort_model->hosts[*(const int *)pb].span;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (a->end != b->end)
		return a->end > b->end ? -1 : 1;
	return *(const int *)pa > *(const int *)pb ? -1 : *(const int *)pa < *(const int *)pb;
}

static int by_kspan(const void *pa, const void *pb)
{
	const uint32_t *a = pa, *b = pb;
	return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Kernel spans merged where they overlap; host functions sorted by start
 * with, for each, the innermost host around it (functions nest, they never
 * overlap otherwise). */
static void build_spans(const ta_model *m, struct ta_model_index *x)
{
	x->have_spans = true;
	uint32_t *ks = ta_xmalloc((m->kernel_count ? m->kernel_count : 1) * 2 * sizeof *ks);
	size_t nk = 0;
	for (size_t k = 0; k < m->kernel_count; k++)
		if (m->kernels[k].span.start < m->kernels[k].span.end) {
			ks[2 * nk] = m->kernels[k].span.start;
			ks[2 * nk + 1] = m->kernels[k].span.end;
			nk++;
		}
	qsort(ks, nk, 2 * sizeof *ks, by_kspan);
	size_t w = 0;
	for (size_t i = 0; i < nk; i++) {
		if (w && ks[2 * i] <= ks[2 * w - 1]) {
			if (ks[2 * i + 1] > ks[2 * w - 1])
				ks[2 * w - 1] = ks[2 * i + 1];
			continue;
		}
		ks[2 * w] = ks[2 * i];
		ks[2 * w + 1] = ks[2 * i + 1];
		w++;
	}
	x->kspans = ks;
	x->kspan_count = w;

	x->module_host = -1;
	x->hosts_sorted = ta_xmalloc((m->host_count ? m->host_count : 1) * sizeof *x->hosts_sorted);
	x->host_parent = ta_xmalloc((m->host_count ? m->host_count : 1) * sizeof *x->host_parent);
	size_t n = 0;
	for (size_t h = 0; h < m->host_count; h++) {
		if (!strcmp(m->hosts[h].name, "<module>"))
			x->module_host = (int)h;   /* the last, as the scan kept it */
		else if (m->hosts[h].span.start < m->hosts[h].span.end)
			x->hosts_sorted[n++] = (int)h;
	}
	sort_model = m;
	qsort(x->hosts_sorted, n, sizeof *x->hosts_sorted, by_start);
	x->hosts_sorted_count = n;
	int *stack = ta_xmalloc((n ? n : 1) * sizeof *stack);
	size_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		const ta_span *s = &m->hosts[x->hosts_sorted[i]].span;
		while (depth && !(m->hosts[x->hosts_sorted[stack[depth - 1]]].span.start <= s->start &&
				  s->end <= m->hosts[x->hosts_sorted[stack[depth - 1]]].span.end)) {
			if (m->hosts[x->hosts_sorted[stack[depth - 1]]].span.end > s->start)
				x->hosts_overlap = true;
			depth--;
		}
		x->host_parent[i] = depth ? stack[depth - 1] : -1;
		stack[depth++] = (int)i;
	}
	free(stack);
}

bool ta_index_in_kernel(const ta_model *m, uint32_t off)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_spans)
		build_spans(m, x);
	size_t lo = 0, hi = x->kspan_count;
	while (lo < hi) {   /* the first merged span ending after off */
		size_t mid = (lo + hi) / 2;
		if (x->kspans[2 * mid + 1] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->kspan_count && x->kspans[2 * lo] <= off;
}

int ta_index_host_at(const ta_model *m, uint32_t off)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_spans)
		build_spans(m, x);
	if (x->hosts_overlap) {
		int best = -1;
		for (size_t h = 0; h < m->host_count; h++) {
			const ta_span *hs = &m->hosts[h].span;
			if (strcmp(m->hosts[h].name, "<module>") && hs->start <= off && off < hs->end &&
			    (best < 0 || hs->end - hs->start < m->hosts[best].span.end - m->hosts[best].span.start))
				best = (int)h;
		}
		return best >= 0 ? best : x->module_host;
	}
	size_t lo = 0, hi = x->hosts_sorted_count;
	while (lo < hi) {   /* past the last host starting at or before off */
		size_t mid = (lo + hi) / 2;
		if (m->hosts[x->hosts_sorted[mid]].span.start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The deepest host starting at or before off, then out to the first
	 * that holds off. */
	for (long i = (long)lo - 1; i >= 0; i = x->host_parent[i]) {
		const ta_span *s = &m->hosts[x->hosts_sorted[i]].span;
		if (s->start <= off && off < s->end)
			return x->hosts_sorted[i];
	}
	return x->module_host;
}

int ta_index_foreign_decorator(const ta_model *m, TSNode *decorator)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_foreign) {
		x->have_foreign = true;
		x->foreign_kernel = -1;
		for (size_t i = 0; i < m->kernel_count && x->foreign_kernel < 0; i++) {
			TSNode dd = ta_node_parent(m->kernels[i].node);
			if (!ta_node_is(dd, "decorated_definition"))
				continue;
			uint32_t n = ta_node_named_count(dd);
			for (uint32_t j = 0; j < n; j++) {
				TSNode d = ta_node_named_child(dd, j);
				if (!ta_node_is(d, "decorator"))
					continue;
				TSNode e = ta_node_unparen(ta_node_named_child(d, 0));
				if (ta_node_is(e, "call"))
					e = ta_node_field(e, "function");
				char *canon = ta_model_canonical(m, e);
				bool triton = canon && !strncmp(canon, "triton.", 7);
				free(canon);
				if (!triton) {
					x->foreign_kernel = (int)i;
					x->foreign_decorator = d;
					break;
				}
			}
		}
	}
	if (decorator)
		*decorator = x->foreign_decorator;
	return x->foreign_kernel;
}

void *ta_index_cached(const ta_model *m, void *(*build)(const ta_model *m), void (*destroy)(void *))
{
	struct ta_model_index *x = index_of(m);
	size_t n = sizeof x->cached / sizeof *x->cached, i = 0;
	for (; i < n && x->cached[i].build; i++)
		if (x->cached[i].build == build)
			return x->cached[i].data;
	if (i == n)
		abort();   /* more tables than slots: a programming error */
	x->cached[i].build = build;
	x->cached[i].destroy = destroy;
	x->cached[i].data = build(m);
	return x->cached[i].data;
}

static bool word_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_';
}

/* Files each word of text[a, b) under (host, op), once per list. */
static void file_words(const ta_model *m, struct ta_model_index *x, uint32_t a, uint32_t b, int host, int op)
{
	const char *t = m->src->text;
	if (b > m->src->len)
		b = (uint32_t)m->src->len;
	for (uint32_t i = a; i < b;) {
		if (!word_char(t[i])) {
			i++;
			continue;
		}
		uint32_t j = i;
		while (j < b && word_char(t[j]))
			j++;
		const ta_namemap_slot *s = ta_namemap_find(&x->wrap_words, t + i, j - i);
		size_t w;
		if (s) {
			w = s->value;
		} else {
			w = x->wrap_count;
			ta_namemap_add(&x->wrap_words, t + i, j - i, (uint32_t)w);
			*TA_PUSH(x->wraps, x->wrap_count, x->wrap_cap) = (op_list){ 0 };
		}
		op_list *l = &x->wraps[w];
		if (!l->count || l->items[l->count - 1].host != host || l->items[l->count - 1].op != op)
			*TA_PUSH(l->items, l->count, l->cap) = (ta_host_op_ref){ host, op };
		i = j;
	}
}

const ta_host_op_ref *ta_index_wrap_calls(const ta_model *m, const char *word, size_t *count)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_wraps) {
		x->have_wraps = true;
		TSNode root = ta_syntax_root(m->syn);
		for (size_t hi = 0; hi < m->host_count; hi++) {
			const ta_host *h = &m->hosts[hi];
			if (h->span.end == 0 || h->launch_count == 0)
				continue;
			for (size_t i = 0; i < h->op_count; i++) {
				const ta_host_op *op = &h->ops[i];
				if (op->kind != TA_HOST_AUTOTUNE_CALL && op->kind != TA_HOST_JIT_CALL)
					continue;
				file_words(m, x, op->span.start, op->span.end, (int)hi, (int)i);
				TSNode p = ta_node_parent(ta_node_named_at(root, op->span.start, op->span.end));
				if (ta_node_is(p, "call"))
					file_words(m, x, ts_node_start_byte(p), ts_node_end_byte(p), (int)hi, (int)i);
			}
		}
	}
	const ta_namemap_slot *s = ta_namemap_find(&x->wrap_words, word, strlen(word));
	if (!s) {
		*count = 0;
		return NULL;
	}
	*count = x->wraps[s->value].count;
	return x->wraps[s->value].items;
}

/* Kernel -> the outer items (hosts, launches) whose inner entries name it,
 * ascending, each once: two passes, count then place. */
static void build_per_kernel(const ta_model *m, per_kernel *p, size_t outer, size_t (*inner)(const ta_model *, size_t),
			     int (*kernel_of)(const ta_model *, size_t, size_t))
{
	size_t nk = m->kernel_count;
	p->start = ta_xcalloc(nk + 2, sizeof *p->start);
	size_t *last = ta_xmalloc((nk ? nk : 1) * sizeof *last);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < nk; k++)
			last[k] = SIZE_MAX;
		size_t *fill = pass ? ta_xcalloc(nk ? nk : 1, sizeof *fill) : NULL;
		for (size_t i = 0; i < outer; i++) {
			size_t n = inner(m, i);
			for (size_t j = 0; j < n; j++) {
				int k = kernel_of(m, i, j);
				if (k < 0 || (size_t)k >= nk || last[k] == i)
					continue;
				last[k] = i;
				if (pass)
					p->items[p->start[k] + fill[k]++] = (int)i;
				else
					p->start[k + 1]++;
			}
		}
		if (!pass) {
			for (size_t k = 0; k < nk; k++)
				p->start[k + 1] += p->start[k];
			p->items = ta_xmalloc((p->start[nk] ? p->start[nk] : 1) * sizeof *p->items);
		}
		free(fill);
	}
	free(last);
}

static size_t host_launch_count(const ta_model *m, size_t h)
{
	return m->hosts[h].launch_count;
}

static int host_launch_kernel(const ta_model *m, size_t h, size_t j)
{
	return m->launches[m->hosts[h].launches[j]].kernel;
}

static size_t one(const ta_model *m, size_t i)
{
	(void)m;
	(void)i;
	return 1;
}

static int launch_kernel(const ta_model *m, size_t i, size_t j)
{
	(void)j;
	return m->launches[i].kernel;
}

static const int *items_of(const per_kernel *p, const ta_model *m, int kernel, size_t *count)
{
	if (kernel < 0 || (size_t)kernel >= m->kernel_count) {
		*count = 0;
		return NULL;
	}
	*count = p->start[kernel + 1] - p->start[kernel];
	return p->items + p->start[kernel];
}

const int *ta_index_kernel_hosts(const ta_model *m, int kernel, size_t *count)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_hosts) {
		x->have_hosts = true;
		build_per_kernel(m, &x->hosts, m->host_count, host_launch_count, host_launch_kernel);
	}
	return items_of(&x->hosts, m, kernel, count);
}

const int *ta_index_kernel_launches(const ta_model *m, int kernel, size_t *count)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_launches) {
		x->have_launches = true;
		build_per_kernel(m, &x->launches, m->launch_count, one, launch_kernel);
	}
	return items_of(&x->launches, m, kernel, count);
}

const ta_launch *ta_index_first_launch(const ta_model *m, int kernel)
{
	const ta_launch *first = NULL;
	ta_launch_walk walk = ta_index_launch_walk(m, kernel);
	for (const ta_launch *l; (l = ta_launch_walk_next(&walk));)
		if (!first || l->span.start < first->span.start)
			first = l;
	return first;
}

void ta_index_free(struct ta_model_index *x)
{
	if (!x)
		return;
	ta_namemap_free(&x->idents);
	ta_namemap_free(&x->defs);
	ta_namemap_free(&x->assigns);
	ta_namemap_free(&x->funcs);
	ta_namemap_free(&x->imports);
	for (size_t i = 0; i < sizeof x->cached / sizeof *x->cached && x->cached[i].build; i++)
		x->cached[i].destroy(x->cached[i].data);
	ta_namemap_free(&x->targets);
	ta_namemap_free(&x->firsts);
	free(x->kspans);
	free(x->hosts_sorted);
	free(x->host_parent);
	ta_namemap_free(&x->wrap_words);
	for (size_t i = 0; i < x->wrap_count; i++)
		free(x->wraps[i].items);
	free(x->wraps);
	free(x->hosts.start);
	free(x->hosts.items);
	free(x->launches.start);
	free(x->launches.items);
	free(x);
}

struct ta_model_index *ta_index_new(void)
{
	return ta_xcalloc(1, sizeof(struct ta_model_index));
}
