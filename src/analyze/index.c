/* Lookups over a whole model, built on first use (see index.h). */
#include "config.h"
#include "analyze/index.h"
#include "analyze/syntax.h"
#include "util/buf.h"
#include "analyze/source.h"

#include <stdlib.h>
#include <string.h>

/* Names are byte ranges of the file's text (or, for functions and imports,
 * the model's strings): nothing is copied. */
typedef struct slot {
	const char *name;         /* NULL: empty */
	uint32_t len;
	uint32_t value;
} slot;

typedef struct table {
	slot *slots;
	size_t cap, used;
} table;

/* Kernel -> hosts or launches, as one array cut per kernel. */
typedef struct per_kernel {
	size_t *start;            /* kernel_count + 1 */
	int *items;
} per_kernel;

struct ta_model_index {
	bool have_idents, have_module, have_funcs, have_hosts, have_launches;
	table idents;             /* value unused */
	table defs, assigns;      /* value: first statement's start */
	table funcs, imports;
	per_kernel hosts, launches;
};

static slot *lookup(const table *t, const char *name, size_t len)
{
	if (!t->cap)
		return NULL;
	size_t h = (size_t)ta_hash_bytes(name, len) & (t->cap - 1);
	while (t->slots[h].name) {
		if (t->slots[h].len == len && !memcmp(t->slots[h].name, name, len))
			return &t->slots[h];
		h = (h + 1) & (t->cap - 1);
	}
	return NULL;
}

/* Adds name with value unless present (the first value stays). */
static void insert(table *t, const char *name, size_t len, uint32_t value)
{
	if ((t->used + 1) * 2 > t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 256;
		slot *ns = ta_xcalloc(ncap, sizeof *ns);
		for (size_t i = 0; i < t->cap; i++) {
			if (!t->slots[i].name)
				continue;
			size_t h = (size_t)ta_hash_bytes(t->slots[i].name, t->slots[i].len) & (ncap - 1);
			while (ns[h].name)
				h = (h + 1) & (ncap - 1);
			ns[h] = t->slots[i];
		}
		free(t->slots);
		t->slots = ns;
		t->cap = ncap;
	}
	size_t h = (size_t)ta_hash_bytes(name, len) & (t->cap - 1);
	while (t->slots[h].name) {
		if (t->slots[h].len == len && !memcmp(t->slots[h].name, name, len))
			return;
		h = (h + 1) & (t->cap - 1);
	}
	t->slots[h] = (slot){ .name = name, .len = (uint32_t)len, .value = value };
	t->used++;
}

static void insert_node(table *t, const ta_model *m, TSNode n, uint32_t value)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	if (b >= a && b <= m->src->len)
		insert(t, m->src->text + a, b - a, value);
}

static void table_free(table *t)
{
	free(t->slots);
}

static struct ta_model_index *index_of(const ta_model *m)
{
	return m->index;
}

/* Every identifier node of the tree, named or inside an error. */
static void build_idents(const ta_model *m, struct ta_model_index *x)
{
	x->have_idents = true;
	TSTreeCursor c = ts_tree_cursor_new(ta_syntax_root(m->syn));
	do {
		TSNode cur = ts_tree_cursor_current_node(&c);
		if (ts_node_is_named(cur) && !strcmp(ts_node_type(cur), "identifier"))
			insert_node(&x->idents, m, cur, 0);
	} while (ta_cursor_next(&c, true));
	ts_tree_cursor_delete(&c);
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
			TSNode a = ta_node_is(s, "expression_statement") ? ts_node_named_child(s, 0) : (TSNode){ 0 };
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
	return lookup(&x->idents, name, strlen(name)) != NULL;
}

uint32_t ta_index_module_def(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_module)
		build_module(m, x);
	const slot *s = lookup(&x->defs, name, strlen(name));
	return s ? s->value : UINT32_MAX;
}

uint32_t ta_index_module_assign(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_module)
		build_module(m, x);
	const slot *s = lookup(&x->assigns, name, strlen(name));
	return s ? s->value : UINT32_MAX;
}

bool ta_index_function(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_funcs) {
		x->have_funcs = true;
		for (size_t i = 0; i < m->function_count; i++)
			insert(&x->funcs, m->functions[i].name, strlen(m->functions[i].name), 0);
		for (size_t i = 0; i < m->import_count; i++)
			insert(&x->imports, m->imports[i].alias, strlen(m->imports[i].alias), 0);
	}
	return lookup(&x->funcs, name, strlen(name)) != NULL;
}

bool ta_index_import_alias(const ta_model *m, const char *name)
{
	struct ta_model_index *x = index_of(m);
	if (!x->have_funcs)
		(void)ta_index_function(m, "");
	return lookup(&x->imports, name, strlen(name)) != NULL;
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

void ta_index_free(struct ta_model_index *x)
{
	if (!x)
		return;
	table_free(&x->idents);
	table_free(&x->defs);
	table_free(&x->assigns);
	table_free(&x->funcs);
	table_free(&x->imports);
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
