/* What a name holds (values.h). */
#include "config.h"
#include "analyze/values.h"
#include "analyze/flat.h"
#include "analyze/index.h"
#include "analyze/syntax.h"
#include "util/buf.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

const char TA_VALUES_INLINE[] = "<inline>";

enum { VALUES_DEPTH = 16 };

/* One name bound by one statement (values.h). */
typedef ta_values_binding vdef;

typedef struct vtable {
	vdef *v;
	size_t n;
} vtable;

static TSNode null_node(void)
{
	TSNode n = { 0 };
	return n;
}

static bool is_kind(TSNode n, const char *k)
{
	return !ts_node_is_null(n) && ta_node_is(n, k);
}

/* The function a node is read or bound in: its innermost def, or a null
 * node at module level. */
static TSNode function_of(TSNode n)
{
	return ta_node_ancestor(n, "function_definition");
}

static uint32_t scope_key(TSNode fn)
{
	return ts_node_is_null(fn) ? 0 : ts_node_start_byte(fn) + 1;
}

static bool is_pattern(TSNode n)
{
	return is_kind(n, "pattern_list") || is_kind(n, "tuple_pattern") || is_kind(n, "list_pattern") ||
	       is_kind(n, "tuple") || is_kind(n, "list") || is_kind(n, "expression_list") ||
	       is_kind(n, "parenthesized_expression");
}

static void add_def(const ta_model *m, vtable *t, size_t *cap, TSNode binding, TSNode id, uint32_t scope,
		    uint32_t point, bool mutation)
{
	uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
	if (b < a || b > m->src->len)
		return;
	vdef *d = TA_PUSH(t->v, t->n, *cap);
	d->name = m->src->text + a;
	d->len = b - a;
	d->scope = scope;
	d->point = point;
	d->binding = binding;
	d->target = id;
	d->mutation = mutation;
}

/* The identifiers a target binds (or mutates, for `x[i] =` and `x.a =`). */
static void add_targets(const ta_model *m, vtable *t, size_t *cap, TSNode binding, TSNode target,
			uint32_t scope, uint32_t point, int depth)
{
	if (ts_node_is_null(target) || depth > 64)
		return;
	if (is_kind(target, "identifier")) {
		add_def(m, t, cap, binding, target, scope, point, false);
	} else if (is_pattern(target) || is_kind(target, "list_splat_pattern")) {
		uint32_t n = ta_node_named_count(target);
		for (uint32_t i = 0; i < n; i++)
			add_targets(m, t, cap, binding, ta_node_named_child(target, i), scope, point, depth + 1);
	} else if (is_kind(target, "subscript") || is_kind(target, "attribute")) {
		TSNode base = target;
		while (is_kind(base, "subscript") || is_kind(base, "attribute"))
			base = ta_node_field(base, is_kind(base, "subscript") ? "value" : "object");
		if (is_kind(base, "identifier"))
			add_def(m, t, cap, binding, base, scope, point, true);
	}
}

static int by_name_scope_point(const void *pa, const void *pb)
{
	const vdef *a = pa, *b = pb;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	int c = memcmp(a->name, b->name, a->len);
	if (c)
		return c;
	if (a->scope != b->scope)
		return a->scope < b->scope ? -1 : 1;
	if (a->point != b->point)
		return a->point < b->point ? -1 : 1;
	return ts_node_start_byte(a->target) < ts_node_start_byte(b->target) ? -1 : 1;
}

static void *build_table(const ta_model *m)
{
	vtable *t = ta_xcalloc(1, sizeof *t);
	size_t cap = 0;
	for (size_t i = 0; i < m->bind_node_count; i++) {
		TSNode b = m->bind_nodes[i].node;
		uint32_t scope = scope_key(function_of(b));
		if (is_kind(b, "for_statement")) {
			TSNode left = ta_node_field(b, "left");
			add_targets(m, t, &cap, b, left, scope, ts_node_end_byte(left), 0);
		} else if (is_kind(b, "named_expression")) {
			add_targets(m, t, &cap, b, ta_node_field(b, "name"), scope, ts_node_end_byte(b), 0);
		} else {
			/* `a = b = v` is one assignment whose right side is another:
			 * each binds where the whole statement ends */
			add_targets(m, t, &cap, b, ta_node_field(b, "left"), scope, ts_node_end_byte(b), 0);
		}
	}
	if (t->n)
		qsort(t->v, t->n, sizeof *t->v, by_name_scope_point);
	return t;
}

static void free_table(void *p)
{
	vtable *t = p;
	if (t)
		free(t->v);
	free(t);
}

static const vtable *table_of(const ta_model *m)
{
	return ta_index_cached(m, build_table, free_table);
}

/* The definitions of (name, scope), sorted by point: *count of them. */
static const vdef *defs_of(const ta_model *m, const char *name, size_t len, uint32_t scope, size_t *count)
{
	const vtable *t = table_of(m);
	vdef key = { .name = name, .len = (uint32_t)len, .scope = scope, .point = 0 };
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const vdef *d = &t->v[mid];
		int c = d->len != key.len ? (d->len < key.len ? -1 : 1) : memcmp(d->name, name, len);
		if (!c && d->scope != scope)
			c = d->scope < scope ? -1 : 1;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t end = lo;
	while (end < t->n && t->v[end].len == key.len && !memcmp(t->v[end].name, name, len) &&
	       t->v[end].scope == scope)
		end++;
	*count = end - lo;
	/* a file with no binding at all has no table to point into */
	return *count ? t->v + lo : NULL;
}

const ta_values_binding *ta_values_bindings(const ta_model *m, TSNode fn, const char *name, size_t len,
					    size_t *count)
{
	return defs_of(m, name, len, scope_key(fn), count);
}

static bool contains(TSNode outer, uint32_t at)
{
	return !ts_node_is_null(outer) && ts_node_start_byte(outer) <= at && at < ts_node_end_byte(outer);
}

/* The name of one parameter node (`x`, `x: int`, `x=1`, `*xs`, `**kw`). */
static TSNode param_name(TSNode p)
{
	if (is_kind(p, "identifier"))
		return p;
	if (is_kind(p, "default_parameter") || is_kind(p, "typed_default_parameter"))
		return ta_node_field(p, "name");
	if (is_kind(p, "typed_parameter") || is_kind(p, "list_splat_pattern") ||
	    is_kind(p, "dictionary_splat_pattern")) {
		uint32_t n = ta_node_named_count(p);
		for (uint32_t i = 0; i < n; i++)
			if (is_kind(ta_node_named_child(p, i), "identifier"))
				return ta_node_named_child(p, i);
		/* typed_parameter's first child may itself be a splat */
		return n ? param_name(ta_node_named_child(p, 0)) : null_node();
	}
	return null_node();
}

static bool has_param(const ta_model *m, TSNode params, const char *name)
{
	uint32_t n = ta_node_named_count(params);
	for (uint32_t i = 0; i < n; i++) {
		TSNode id = param_name(ta_node_named_child(params, i));
		if (!ts_node_is_null(id) && ta_node_text_eq(m->src, id, name))
			return true;
	}
	return false;
}

static bool is_comprehension(TSNode n)
{
	return is_kind(n, "list_comprehension") || is_kind(n, "set_comprehension") ||
	       is_kind(n, "dictionary_comprehension") || is_kind(n, "generator_expression");
}

/* Whether an identifier is read as a variable: not an attribute's name,
 * a keyword's name or a parameter's name. */
static bool is_variable_read(TSNode id)
{
	TSNode p = ta_node_parent(id);
	if (is_kind(p, "attribute"))
		return !ts_node_eq(ta_node_field(p, "attribute"), id);
	if (is_kind(p, "keyword_argument"))
		return !ts_node_eq(ta_node_field(p, "name"), id);
	if (is_kind(p, "parameters") || is_kind(p, "lambda_parameters") || is_kind(p, "default_parameter") ||
	    is_kind(p, "typed_parameter") || is_kind(p, "typed_default_parameter"))
		return is_kind(p, "default_parameter") || is_kind(p, "typed_default_parameter") ?
		       !ts_node_eq(ta_node_field(p, "name"), id) : false;
	return true;
}

/* The scope a read of name at id looks it up in: *fn (null at module
 * level). False when an enclosing lambda or comprehension binds the name
 * itself (its value is per call or per element). */
static bool read_scope(const ta_model *m, TSNode id, const char *name, TSNode *fn)
{
	for (TSNode p = ta_node_parent(id); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (is_kind(p, "function_definition")) {
			*fn = p;
			return true;
		}
		if (is_kind(p, "lambda") && has_param(m, ta_node_field(p, "parameters"), name))
			return false;
		if (is_comprehension(p)) {
			uint32_t n = ta_node_named_count(p);
			for (uint32_t i = 0; i < n; i++) {
				TSNode c = ta_node_named_child(p, i);
				if (is_kind(c, "for_in_clause") &&
				    ta_node_contains_identifier(m->src, ta_node_field(c, "left"), name))
					return false;
			}
		}
	}
	*fn = null_node();
	return true;
}

/* Statements and expressions whose parts may not run, or run again. */
static bool is_branching(TSNode n)
{
	static const char *const kinds[] = {
		"if_statement", "elif_clause", "else_clause", "for_statement", "while_statement",
		"try_statement", "except_clause", "finally_clause", "match_statement", "case_clause",
		"conditional_expression", "boolean_operator", "list_comprehension", "set_comprehension",
		"dictionary_comprehension", "generator_expression", "lambda", "function_definition",
		"class_definition", NULL,
	};
	for (size_t i = 0; kinds[i]; i++)
		if (is_kind(n, kinds[i]))
			return true;
	return false;
}

static bool is_loop(TSNode n)
{
	return is_kind(n, "for_statement") || is_kind(n, "while_statement");
}

/* The definition of (name, scope) that reaches at: NULL when none does or
 * not one alone. *local: whether the scope binds the name at all. */
static const vdef *reaching(const ta_model *m, const char *name, size_t len, TSNode fn, uint32_t at, bool *local)
{
	size_t n;
	const vdef *d = defs_of(m, name, len, scope_key(fn), &n);
	*local = n > 0;
	const vdef *last = NULL;
	for (size_t i = 0; i < n && d[i].point <= at; i++)
		last = &d[i];
	if (!last)
		return NULL;
	/* two bindings at one point (`a = a = 1`, `x, x = ...`) */
	if (last > d && last[-1].point == last->point)
		return NULL;
	/* the binding runs whenever the read does: nothing between it and
	 * the innermost node holding both may be skipped or repeated */
	TSNode p = is_kind(last->binding, "for_statement") ? last->binding : ta_node_parent(last->binding);
	for (; !ts_node_is_null(p) && !contains(p, at); p = ta_node_parent(p))
		if (is_branching(p))
			return NULL;
	/* bound after the read, in a loop around both: another iteration
	 * reads that binding, unless `last` sits in that loop too (it then
	 * runs before the read in every iteration: `s = dot(..); s = s * c`) */
	for (const vdef *e = last + 1; e < d + n; e++)
		for (TSNode q = ta_node_parent(e->binding); !ts_node_is_null(q) && !ts_node_eq(q, fn);
		     q = ta_node_parent(q))
			if (is_loop(q) && ts_node_start_byte(q) < at && contains(q, at) &&
			    !(ts_node_start_byte(last->binding) > ts_node_start_byte(q) && contains(q, last->point)))
				return NULL;
	return last;
}

/* What a binding gives its target, or a null node. */
static TSNode bound_value(const vdef *d)
{
	if (d->mutation)
		return null_node();
	TSNode b = d->binding;
	if (is_kind(b, "named_expression"))
		return ta_node_field(b, "value");
	if (!is_kind(b, "assignment"))
		return null_node();   /* `x += 1`, a for target */
	TSNode left = ta_node_unparen(ta_node_field(b, "left")), right = ta_node_field(b, "right");
	while (is_kind(right, "assignment"))
		right = ta_node_field(right, "right");
	if (ts_node_is_null(right))
		return null_node();   /* `x: int` */
	if (ts_node_eq(left, d->target))
		return right;
	/* `a, b = x, y`: the element at the target's place */
	if (!is_pattern(left))
		return null_node();
	TSNode r = ta_node_unparen(right);
	if (!is_kind(r, "expression_list") && !is_kind(r, "tuple") && !is_kind(r, "list"))
		return null_node();
	uint32_t nl = ta_node_named_count(left), nr = ta_node_named_count(r);
	if (nl != nr)
		return null_node();
	for (uint32_t i = 0; i < nr; i++)
		if (is_kind(ta_node_named_child(r, i), "list_splat") ||
		    is_kind(ta_node_named_child(left, i), "list_splat_pattern"))
			return null_node();
	for (uint32_t i = 0; i < nl; i++)
		if (ts_node_eq(ta_node_unparen(ta_node_named_child(left, i)), d->target))
			return ta_node_named_child(r, i);
	return null_node();
}

/* The reaching definition of the name id reads. */
static const vdef *def_of(const ta_model *m, TSNode id)
{
	if (!is_kind(id, "identifier") || !is_variable_read(id))
		return NULL;
	uint32_t a = ts_node_start_byte(id), b = ts_node_end_byte(id);
	if (b <= a || b > m->src->len)
		return NULL;
	const char *name = m->src->text + a;
	size_t len = b - a;
	char *s = ta_xstrndup(name, len);
	TSNode fn;
	const vdef *d = NULL;
	if (read_scope(m, id, s, &fn)) {
		bool local;
		d = reaching(m, name, len, fn, a, &local);
		/* a function that neither binds the name nor takes it reads the
		 * module's binding, when the module has exactly one */
		if (!d && !local && !ts_node_is_null(fn) && !has_param(m, ta_node_field(fn, "parameters"), s)) {
			size_t n;
			const vdef *md = defs_of(m, name, len, 0, &n);
			if (n == 1) {
				d = md;
				for (TSNode p = ta_node_parent(md->binding); !ts_node_is_null(p) && d; p = ta_node_parent(p))
					if (is_branching(p))
						d = NULL;
			}
		}
	}
	/* the target of its own binding is no read */
	if (d && ts_node_eq(d->target, id))
		d = NULL;
	free(s);
	return d;
}

TSNode ta_values_def(const ta_model *m, TSNode id, TSNode *binding)
{
	const vdef *d = def_of(m, id);
	TSNode v = d ? bound_value(d) : null_node();
	if (binding)
		*binding = ts_node_is_null(v) ? null_node() : d->binding;
	return v;
}

TSNode ta_values_unpacked(const ta_model *m, TSNode id, uint32_t *index)
{
	const vdef *d = def_of(m, id);
	if (!d || d->mutation || !is_kind(d->binding, "assignment"))
		return null_node();
	TSNode left = ta_node_unparen(ta_node_field(d->binding, "left"));
	TSNode right = ta_node_unparen(ta_node_field(d->binding, "right"));
	if (!is_pattern(left) || ts_node_is_null(right) || is_kind(right, "expression_list") ||
	    is_kind(right, "tuple") || is_kind(right, "list") || is_kind(right, "assignment"))
		return null_node();
	uint32_t nl = ta_node_named_count(left), at = nl;
	for (uint32_t i = 0; i < nl; i++) {
		TSNode t = ta_node_unparen(ta_node_named_child(left, i));
		if (is_kind(t, "list_splat_pattern"))
			return null_node();   /* the places after it are not known */
		if (ts_node_eq(t, d->target))
			at = i;
	}
	if (at == nl)
		return null_node();
	if (index)
		*index = at;
	return right;
}

static bool same_text(const ta_model *m, TSNode a, TSNode b)
{
	uint32_t la = ts_node_end_byte(a) - ts_node_start_byte(a), lb = ts_node_end_byte(b) - ts_node_start_byte(b);
	return !ts_node_is_null(a) && !ts_node_is_null(b) && la == lb &&
	       !memcmp(m->src->text + ts_node_start_byte(a), m->src->text + ts_node_start_byte(b), la);
}

/* The first parameter's name node of a function definition, or null. */
static TSNode first_param(TSNode fn)
{
	TSNode ps = ta_node_field(fn, "parameters");
	TSNode p = ts_node_is_null(ps) || !ta_node_named_count(ps) ? null_node() : ta_node_named_child(ps, 0);
	if (is_kind(p, "typed_parameter") || is_kind(p, "default_parameter") || is_kind(p, "typed_default_parameter"))
		p = is_kind(p, "typed_parameter") ? ta_node_named_child(p, 0) : ta_node_field(p, "name");
	return is_kind(p, "identifier") ? p : null_node();
}

/* The method `name` of the class holding the method fn, or null. */
static TSNode sibling_method(const ta_model *m, TSNode fn, const char *name)
{
	TSNode holder = ts_node_parent(fn);
	if (is_kind(holder, "decorated_definition"))
		holder = ts_node_parent(holder);
	TSNode cls = ts_node_parent(holder);
	if (!is_kind(holder, "block") || !is_kind(cls, "class_definition"))
		return null_node();
	for (uint32_t i = 0; i < ta_node_named_count(holder); i++) {
		TSNode d = ta_node_named_child(holder, i);
		if (is_kind(d, "decorated_definition"))
			d = ta_node_field(d, "definition");
		if (is_kind(d, "function_definition") && ta_node_text_eq(m->src, ta_node_field(d, "name"), name))
			return d;
	}
	return null_node();
}

/* An autograd Function's `ctx.NAME` read in backward: the value forward
 * gives it (`ctx.BLOCK = BLOCK`), when forward sets it once, else null. */
static TSNode ctx_saved(const ta_model *m, TSNode attr)
{
	/* cheap tests first: ta_values_walk asks this of every attribute */
	TSNode obj = ta_node_field(attr, "object");
	if (!is_kind(obj, "identifier"))
		return null_node();
	TSNode fn = function_of(attr);
	if (ts_node_is_null(fn) || !ta_node_text_eq(m->src, ta_node_field(fn, "name"), "backward") ||
	    !same_text(m, first_param(fn), obj))
		return null_node();
	TSNode fwd = sibling_method(m, fn, "forward"), fp = first_param(fwd);
	if (ts_node_is_null(fp) || ts_node_is_null(ta_node_field(fwd, "body")))
		return null_node();
	TSNode value = null_node();
	int count = 0;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fwd, "body"));
	for (bool more = true; more;) {
		TSNode n = ta_walk_node(&w);
		/* another function's or class's ctx is not this one */
		bool scope = is_kind(n, "function_definition") || is_kind(n, "class_definition") || is_kind(n, "lambda");
		TSNode l = is_kind(n, "assignment") ? ta_node_field(n, "left") : null_node();
		if (is_kind(l, "attribute") && same_text(m, ta_node_field(l, "object"), fp) &&
		    same_text(m, ta_node_field(l, "attribute"), ta_node_field(attr, "attribute"))) {
			value = ta_node_field(n, "right");
			count++;
		}
		more = ta_walk_next(&w, !scope);
	}
	ta_walk_finish(&w);
	return count == 1 ? value : null_node();
}

static TSNode follow(const ta_model *m, TSNode n, bool through_ctx)
{
	n = ta_node_unparen(n);
	for (int i = 0; i < VALUES_DEPTH; i++) {
		TSNode v = is_kind(n, "identifier") ? ta_values_def(m, n, NULL)
			 : through_ctx && is_kind(n, "attribute") ? ctx_saved(m, n) : null_node();
		if (ts_node_is_null(v))
			break;
		n = ta_node_unparen(v);
	}
	return n;
}

TSNode ta_values_follow(const ta_model *m, TSNode n)
{
	return follow(m, n, true);
}

TSNode ta_values_follow_names(const ta_model *m, TSNode n)
{
	return follow(m, n, false);
}

/* ---- the walk ---------------------------------------------------------------- */

typedef struct vframe {
	TSNode n, via;
	int depth;
} vframe;

bool ta_values_walk(const ta_model *m, TSNode n, ta_values_visit visit, void *ctx)
{
	if (ts_node_is_null(n))
		return true;
	vframe *stack = NULL;
	size_t sn = 0, cap = 0;
	*TA_PUSH(stack, sn, cap) = (vframe){ n, null_node(), 0 };
	bool go = true;
	while (sn && go) {
		vframe f = stack[--sn];
		ta_values_step s = visit(m, f.n, f.via, ctx);
		if (s == TA_VALUES_STOP) {
			go = false;
			break;
		}
		if (s == TA_VALUES_SKIP)
			continue;
		if (is_kind(f.n, "identifier")) {
			if (f.depth < VALUES_DEPTH) {
				TSNode v = ta_values_def(m, f.n, NULL);
				if (!ts_node_is_null(v))
					*TA_PUSH(stack, sn, cap) = (vframe){ v, f.n, f.depth + 1 };
			}
			continue;
		}
		/* backward's ctx.NAME: the value forward saved there */
		TSNode saved = is_kind(f.n, "attribute") && f.depth < VALUES_DEPTH ? ctx_saved(m, f.n) : null_node();
		if (!ts_node_is_null(saved)) {
			*TA_PUSH(stack, sn, cap) = (vframe){ saved, f.n, f.depth + 1 };
			continue;
		}
		uint32_t c = ta_node_named_count(f.n);
		for (uint32_t i = c; i-- > 0;)
			*TA_PUSH(stack, sn, cap) = (vframe){ ta_node_named_child(f.n, i), f.via, f.depth };
	}
	free(stack);
	return go;
}

typedef struct reads_ctx {
	const char *name;
	bool found;
} reads_ctx;

static ta_values_step reads_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	reads_ctx *r = ctx;
	if (is_kind(n, "identifier") && is_variable_read(n) && ta_node_text_eq(m->src, n, r->name)) {
		r->found = true;
		return TA_VALUES_STOP;
	}
	return TA_VALUES_DESCEND;
}

bool ta_values_reads(const ta_model *m, TSNode n, const char *name)
{
	reads_ctx r = { name, false };
	ta_values_walk(m, n, reads_visit, &r);
	return r.found;
}

/* ---- text -------------------------------------------------------------------- */

static bool atomic(TSNode n)
{
	return is_kind(n, "identifier") || is_kind(n, "integer") || is_kind(n, "float") || is_kind(n, "string") ||
	       is_kind(n, "call") || is_kind(n, "attribute") || is_kind(n, "subscript") ||
	       is_kind(n, "parenthesized_expression") || is_kind(n, "list") || is_kind(n, "true") ||
	       is_kind(n, "false") || is_kind(n, "none") ||
	       (is_kind(n, "tuple") && ts_node_child_count(n) > 0 &&
		ta_node_is(ts_node_child(n, 0), "("));
}

static bool text_of(const ta_model *m, TSNode n, ta_values_subst subst, void *ctx, int depth, ta_buf *out);

/* Appends the identifiers' replacements of n[from, end) to out, the rest as
 * written: one pass over n's own identifiers. */
static bool splice(const ta_model *m, TSNode n, ta_values_subst subst, void *ctx, int depth, ta_buf *out)
{
	uint32_t at = ts_node_start_byte(n), end = ts_node_end_byte(n);
	const char *t = m->src->text;
	ta_walk w;
	ta_walk_start(&w, n);
	bool ok = true;
	for (;;) {
		TSNode c = ta_walk_node(&w);
		bool descend = true;
		if (is_kind(c, "identifier") && is_variable_read(c)) {
			descend = false;
			const char *r = subst ? subst(m, c, ctx) : NULL;
			uint32_t a = ts_node_start_byte(c), b = ts_node_end_byte(c);
			if (r == TA_VALUES_INLINE) {
				TSNode v = ta_values_def(m, c, NULL);
				if (!ts_node_is_null(v)) {
					if (depth >= VALUES_DEPTH) {
						ok = false;
						break;
					}
					ta_buf_printf(out, "%.*s", (int)(a - at), t + at);
					/* a whole element or argument needs no parentheses */
					TSNode up = ta_node_parent(c);
					bool alone = ta_node_is(up, "tuple") || ta_node_is(up, "expression_list") ||
						     ta_node_is(up, "list") || ta_node_is(up, "argument_list") ||
						     (ta_node_is(up, "keyword_argument") && !ts_node_eq(c, n)) ||
						     ts_node_eq(c, n);
					bool paren = !alone && !atomic(ta_node_unparen(v));
					ta_buf_printf(out, "%s", paren ? "(" : "");
					if (!text_of(m, ta_node_unparen(v), subst, ctx, depth + 1, out)) {
						ok = false;
						break;
					}
					ta_buf_printf(out, "%s", paren ? ")" : "");
					at = b;
				}
			} else if (r) {
				ta_buf_printf(out, "%.*s%s", (int)(a - at), t + at, r);
				at = b;
			}
		}
		if (!ta_walk_next(&w, descend))
			break;
	}
	ta_walk_finish(&w);
	if (ok && end > at)
		ta_buf_printf(out, "%.*s", (int)(end - at), t + at);
	return ok;
}

static bool text_of(const ta_model *m, TSNode n, ta_values_subst subst, void *ctx, int depth, ta_buf *out)
{
	return splice(m, n, subst, ctx, depth, out);
}

char *ta_values_text(const ta_model *m, TSNode n, ta_values_subst subst, void *ctx)
{
	if (ts_node_is_null(n))
		return NULL;
	ta_buf out = TA_BUF_INIT;
	if (!text_of(m, n, subst, ctx, 0, &out)) {
		ta_buf_free(&out);
		return NULL;
	}
	char *s = ta_xstrdup(ta_buf_str(&out));
	ta_buf_free(&out);
	return s;
}

typedef struct stable_ctx {
	uint32_t at;
	bool stable;
} stable_ctx;

static ta_values_step stable_visit(const ta_model *m, TSNode n, TSNode via, void *ctx)
{
	(void)via;
	stable_ctx *s = ctx;
	if (!is_kind(n, "identifier") || !is_variable_read(n))
		return TA_VALUES_DESCEND;
	uint32_t a = ts_node_start_byte(n), lo = a < s->at ? a : s->at, hi = a < s->at ? s->at : a;
	size_t cnt;
	const vdef *d = defs_of(m, m->src->text + a, ts_node_end_byte(n) - a, scope_key(function_of(n)), &cnt);
	for (size_t i = 0; i < cnt; i++)
		if (d[i].point > lo && d[i].point <= hi && !ts_node_eq(d[i].target, n)) {
			s->stable = false;
			return TA_VALUES_STOP;
		}
	return TA_VALUES_DESCEND;
}

bool ta_values_stable(const ta_model *m, TSNode n, uint32_t at)
{
	stable_ctx s = { at, true };
	ta_values_walk(m, n, stable_visit, &s);
	return s.stable;
}

/* ---- loops ------------------------------------------------------------------- */

/* Whether any identifier of n names something bound inside loop. */
static bool rebound_in(const ta_model *m, TSNode n, TSNode loop)
{
	TSNode fn = function_of(loop);
	ta_walk w;
	ta_walk_start(&w, n);
	bool yes = false;
	for (;;) {
		TSNode c = ta_walk_node(&w);
		if (is_kind(c, "identifier") && is_variable_read(c)) {
			size_t cnt;
			uint32_t a = ts_node_start_byte(c);
			const vdef *d = defs_of(m, m->src->text + a, ts_node_end_byte(c) - a, scope_key(fn), &cnt);
			for (size_t i = 0; i < cnt && !yes; i++)
				yes = contains(loop, ts_node_start_byte(d[i].binding)) && !ts_node_eq(d[i].binding, loop);
			if (yes)
				break;
		}
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return yes;
}

bool ta_values_induction(const ta_model *m, TSNode loop, const char *name, TSNode *init, TSNode *step,
			 TSNode *update)
{
	if (!is_loop(loop))
		return false;
	TSNode fn = function_of(loop), body = ta_node_field(loop, "body");
	size_t n;
	const vdef *d = defs_of(m, name, strlen(name), scope_key(fn), &n);
	const vdef *in = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!contains(loop, ts_node_start_byte(d[i].target)))
			continue;
		if (in)
			return false;  /* rebound twice in the loop */
		in = &d[i];
	}
	if (!in || in->mutation || ts_node_eq(in->binding, loop))
		return false;
	/* directly in the body: the statement's parent is the loop's block */
	TSNode stmt = ta_node_parent(in->binding);
	if (!is_kind(stmt, "expression_statement") || !ts_node_eq(ta_node_parent(stmt), body))
		return false;
	TSNode b = in->binding, s = null_node();
	if (is_kind(b, "augmented_assignment")) {
		TSNode op = ta_node_field(b, "operator");
		if (!ta_node_text_eq(m->src, op, "+=") || !ts_node_eq(ta_node_unparen(ta_node_field(b, "left")), in->target))
			return false;
		s = ta_node_field(b, "right");
	} else if (is_kind(b, "assignment")) {
		TSNode r = ta_node_unparen(ta_node_field(b, "right"));
		if (!ts_node_eq(ta_node_unparen(ta_node_field(b, "left")), in->target) || !is_kind(r, "binary_operator") ||
		    !ta_node_text_eq(m->src, ta_node_field(r, "operator"), "+"))
			return false;
		TSNode l = ta_node_unparen(ta_node_field(r, "left"));
		if (!is_kind(l, "identifier") || !ta_node_text_eq(m->src, l, name))
			return false;
		s = ta_node_field(r, "right");
	} else {
		return false;
	}
	if (ts_node_is_null(s) || rebound_in(m, s, loop))
		return false;
	if (init) {
		bool local;
		const vdef *before = reaching(m, name, strlen(name), fn, ts_node_start_byte(loop), &local);
		*init = before ? bound_value(before) : null_node();
	}
	if (step)
		*step = s;
	if (update)
		*update = b;
	return true;
}

/* ---- order ------------------------------------------------------------------- */

bool ta_values_runs_before(TSNode stmt, uint32_t at)
{
	if (ts_node_is_null(stmt) || ts_node_end_byte(stmt) > at)
		return false;
	for (TSNode p = ta_node_parent(stmt); !ts_node_is_null(p) && !contains(p, at); p = ta_node_parent(p))
		if (is_branching(p))
			return false;
	return true;
}

bool ta_values_bound_between(const ta_model *m, TSNode id, uint32_t lo, uint32_t hi)
{
	if (!is_kind(id, "identifier"))
		return true;
	uint32_t a = ts_node_start_byte(id);
	size_t n;
	const vdef *d = defs_of(m, m->src->text + a, ts_node_end_byte(id) - a, scope_key(function_of(id)), &n);
	for (size_t i = 0; i < n; i++)
		if (d[i].point > lo && d[i].point <= hi)
			return true;
	return false;
}

bool ta_values_int(const ta_model *m, TSNode n, long *out)
{
	n = ta_values_follow(m, n);
	bool neg = false;
	if (is_kind(n, "unary_operator") && ta_node_text_eq(m->src, ta_node_field(n, "operator"), "-")) {
		neg = true;
		n = ta_values_follow(m, ta_node_field(n, "argument"));
	}
	if (!is_kind(n, "integer"))
		return false;
	char *t = ta_node_text(m->src, n), *w = t;
	for (char *r = t; *r; r++)
		if (*r != '_')
			*w++ = *r;
	*w = '\0';
	char *end;
	long v = strtol(t, &end, 0);
	bool ok = *end == '\0' && v != LONG_MAX;
	free(t);
	if (ok)
		*out = neg ? -v : v;
	return ok;
}

static bool int_choices(const ta_model *m, TSNode n, long *out, size_t max, size_t *count, int depth)
{
	long v;
	if (ta_values_int(m, n, &v)) {
		for (size_t i = 0; i < *count; i++)
			if (out[i] == v)
				return true;
		if (*count == max)
			return false;
		out[(*count)++] = v;
		return true;
	}
	n = ta_values_follow(m, n);
	/* `a if c else b`: children a, c, b */
	if (depth > 8 || !is_kind(n, "conditional_expression") || ta_node_named_count(n) != 3)
		return false;
	return int_choices(m, ta_node_named_child(n, 0), out, max, count, depth + 1) &&
	       int_choices(m, ta_node_named_child(n, 2), out, max, count, depth + 1);
}

bool ta_values_int_choices(const ta_model *m, TSNode n, long *out, size_t max, size_t *count)
{
	*count = 0;
	return int_choices(m, n, out, max, count, 0);
}

bool ta_values_binding_plain(const ta_values_binding *b)
{
	return !b->mutation && ta_node_is(b->binding, "assignment") &&
	       ts_node_eq(ta_node_field(b->binding, "left"), b->target);
}

bool ta_values_bindings_before(const ta_model *m, TSNode fn, TSNode id, ta_values_binding_fn visit, void *ctx,
			       size_t *seen)
{
	if (ts_node_is_null(fn))
		fn = ta_node_ancestor(id, "function_definition");
	uint32_t a = ts_node_start_byte(id);
	size_t n, count = 0;
	const ta_values_binding *d = ta_values_bindings(m, fn, m->src->text + a, ts_node_end_byte(id) - a, &n);
	bool go = true;
	for (size_t i = 0; i < n && go && d[i].point <= a; i++, count++) {
		TSNode value = !d[i].mutation && ta_node_is(d[i].binding, "assignment")
				       ? ta_node_field(d[i].binding, "right") : (TSNode){ 0 };
		go = visit(m, &d[i], value, ctx);
	}
	if (seen)
		*seen = count;
	return go;
}
