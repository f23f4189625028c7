/* Builds the Triton model from the syntax tree: one walk for the file's
 * names (imports, definitions, assignments), then one iterative walk over the
 * tree that attributes every call to its kernel or host function. */
#include "config.h"
#include "analyze/flat.h"
#include "analyze/index.h"
#include "analyze/model_internal.h"
#include "analyze/values.h"
#include "analyze/reexport.h"
#include "analyze/namemap.h"
#include "analyze/names.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/fsutil.h"

#include <stdlib.h>
#include <string.h>

void ta_model_shutdown(void)
{
	/* Nothing cached any more: the model reads the tree in code. */
}

/* ---- builder state ----------------------------------------------------- */

typedef struct var_def {
	char *name;
	TSNode value;
	int owner;                /* function index, -1 for module level */
} var_def;

typedef struct builder {
	ta_model *m;
	const ta_source *src;
	var_def *vars;            /* every `name = value` of the file */
	size_t var_count, var_cap;
	size_t *by_owner;         /* var indexes by owner, then name, document order kept */
	size_t *owner_start;      /* owner o's vars: by_owner[owner_start[o+1] .. owner_start[o+2]) */
	size_t kernel_cap, launch_cap, host_cap, import_cap, function_cap;
	int *fn_host;             /* function index -> host index or -1 */
	int module_host;          /* host index of <module>, or -1 */
	struct walk_node {        /* the nodes the main walk acts on, document order */
		TSNode node, parent;
		size_t depth;
	} *walk_nodes;
	size_t walk_node_count, walk_node_cap;
	size_t assign_node_cap, compare_node_cap, bind_node_cap;
	struct host_match {       /* host patterns, applied after the walk */
		TSNode node;
		ta_host_kind kind;
	} *host_matches;
	size_t host_match_count, host_match_cap;
	bool *cfg_seen;           /* functions already read for one autotune's configs */
	struct advance {          /* the kernel's `p += offs` / `p -= offs`, by name */
		const char *name;     /* into the file's text */
		uint32_t len;
		TSNode node;
	} *advances;              /* of the kernel whose pointers are being classified */
	size_t advance_count;
	struct helper_call {      /* the calls of @triton.jit helpers, by callee */
		size_t helper, caller, op;
	} *helper_calls;
	size_t helper_call_count;
	bool helper_calls_built;
	signed char *helper_scalar; /* per kernel: helper_returns_scalar, -1 not yet read */
	size_t helper_scalar_count;
} builder;

static const TSNode null_node;

static char *text(const builder *b, TSNode n)
{
	return ta_node_text(b->src, n);
}

static bool text_eq(const builder *b, TSNode n, const char *s)
{
	return ta_node_text_eq(b->src, n, s);
}

static ta_span span(const builder *b, TSNode n)
{
	return ta_span_of(b->src, n);
}

/* The inside of a Python string literal (prefix and quotes dropped). */
static char *string_value(const builder *b, TSNode n)
{
	char *t = text(b, n);
	char *p = t;
	while (*p && *p != '"' && *p != '\'')
		p++;
	size_t q = 0;
	while (p[q] == p[0] && q < 3 && p[q])
		q++;
	if (q == 2)
		q = 1;  /* "" is an empty string, not a triple quote */
	size_t len = strlen(p);
	char *v = len >= 2 * q ? ta_xstrndup(p + q, len - 2 * q) : ta_xstrdup("");
	free(t);
	return v;
}

/* ---- names ------------------------------------------------------------- */

static const char *alias_target(const ta_model *m, const char *name, size_t len)
{
	return ta_index_import_target(m, name, len);
}

char *ta_model_canonical(const ta_model *m, TSNode expr)
{
	/* Collect the attribute chain from the outside in, without recursion. */
	TSNode parts[64];
	size_t n = 0;
	TSNode cur = expr;
	while (ta_node_is(cur, "attribute") && n < 63) {
		parts[n++] = ta_node_field(cur, "attribute");
		cur = ta_node_field(cur, "object");
	}
	if (!ta_node_is(cur, "identifier"))
		return NULL;
	ta_buf out = TA_BUF_INIT;
	uint32_t a = ts_node_start_byte(cur), e = ts_node_end_byte(cur);
	const char *target = alias_target(m, m->src->text + a, e - a);
	if (target)
		ta_buf_puts(&out, target);
	else
		ta_buf_append(&out, m->src->text + a, e - a);
	while (n-- > 0) {
		ta_buf_putc(&out, '.');
		uint32_t pa = ts_node_start_byte(parts[n]), pe = ts_node_end_byte(parts[n]);
		ta_buf_append(&out, m->src->text + pa, pe - pa);
	}
	return ta_buf_steal(&out);
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t ls = strlen(s), lf = strlen(suf);
	return ls >= lf && !strcmp(s + ls - lf, suf);
}

/* True for triton's own name: "triton.jit", "triton.runtime.jit.jit"... */
static bool is_triton_name(const char *canon, const char *last)
{
	if (!canon || !has_prefix(canon, "triton"))
		return false;
	const char *dot = strrchr(canon, '.');
	return dot && !strcmp(dot + 1, last);
}

/* Triton language functions: triton.language.X and its submodules. */
static const char *tl_function(const char *canon)
{
	if (!canon)
		return NULL;
	if (has_prefix(canon, "triton.language.")) {
		const char *dot = strrchr(canon, '.');
		return dot + 1;
	}
	return NULL;
}

/* ---- small tree helpers -------------------------------------------------- */

/* Positional argument i of a call's argument list, or a null node. */
static TSNode call_arg(TSNode call, uint32_t want)
{
	TSNode args = ta_node_field(call, "arguments");
	uint32_t n = ta_node_named_count(args), pos = 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "keyword_argument") || ta_node_is(a, "comment"))
			continue;
		if (pos++ == want)
			return a;
	}
	return null_node;
}

static TSNode call_kwarg(const builder *b, TSNode call, const char *name)
{
	TSNode args = ta_node_field(call, "arguments");
	uint32_t n = ta_node_named_count(args);
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "keyword_argument") && text_eq(b, ta_node_field(a, "name"), name))
			return ta_node_field(a, "value");
	}
	return null_node;
}

static void collect_args(const builder *b, TSNode call, ta_kwarg **kw, size_t *nkw,
			 ta_span **args, size_t *nargs)
{
	TSNode list = ta_node_field(call, "arguments");
	uint32_t n = ta_node_named_count(list);
	size_t kcap = 0, acap = 0;
	for (uint32_t i = 0; i < n; i++) {
		TSNode a = ta_node_named_child(list, i);
		if (ta_node_is(a, "comment"))
			continue;
		if (ta_node_is(a, "keyword_argument")) {
			if (!kw)
				continue;
			ta_kwarg *k = TA_PUSH(*kw, *nkw, kcap);
			k->name = text(b, ta_node_field(a, "name"));
			k->value = text(b, ta_node_field(a, "value"));
			k->span = span(b, a);
			k->value_span = span(b, ta_node_field(a, "value"));
		} else if (args) {
			*TA_PUSH(*args, *nargs, acap) = span(b, a);
		}
	}
}

/* Index of the innermost function containing byte offset off, or -1.
 * Functions are in document order, so a binary search finds the last one
 * starting before off; walking back stops at the first top-level function. */
static int function_at(const ta_model *m, uint32_t off)
{
	size_t lo = 0, hi = m->function_count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (m->functions[mid].span.start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		const ta_function *f = &m->functions[i];
		if (f->span.start <= off && off < f->span.end)
			return (int)i;
		if (f->parent < 0)
			return -1;
	}
	return -1;
}

static int find_function(const ta_model *m, const char *name)
{
	for (size_t i = 0; i < m->function_count; i++)
		if (!strcmp(m->functions[i].name, name))
			return (int)i;
	return -1;
}

/* The assignments of name owned by owner (-1 = module level): by_owner[*end
 * - n .. *end), found by a binary search (a function of 10,000 statements
 * asks for each name it reads). Returns the first. */
static size_t owner_name_first(const builder *b, int owner, const char *name, size_t *end)
{
	size_t lo = b->owner_start[owner + 1], hi = b->owner_start[owner + 2];
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(b->vars[b->by_owner[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t e = lo;
	while (e < b->owner_start[owner + 2] && !strcmp(b->vars[b->by_owner[e]].name, name))
		e++;
	*end = e;
	return lo;
}

/* Every assignment of name owned by owner, in document order. */
#define FOR_OWNER_NAME(b, owner, name, v) \
	for (size_t _end, _i = owner_name_first((b), (owner), (name), &_end); \
	     _i < _end && ((v) = &(b)->vars[(b)->by_owner[_i]], 1); _i++)

/* The value last assigned to name in the given owner (function index or -1),
 * at or before offset `before`; falls back to module level. */
static TSNode lookup_var(const builder *b, const char *name, int owner, uint32_t before)
{
	const var_def *v;
	TSNode found = null_node;
	FOR_OWNER_NAME(b, owner, name, v)
		if (ts_node_start_byte(v->value) <= before)
			found = v->value;
	if (ts_node_is_null(found) && owner != -1)
		FOR_OWNER_NAME(b, -1, name, v)
			found = v->value;
	return found;
}

/* ---- imports ------------------------------------------------------------- */

static void add_import(builder *b, char *alias, char *target, const char *from, uint32_t line)
{
	ta_import *im = TA_PUSH(b->m->imports, b->m->import_count, b->import_cap);
	im->alias = alias;
	im->target = target;
	im->from = from ? ta_xstrdup(from) : NULL;
	im->line = line;
	if (has_prefix(target, "triton"))
		b->m->imports_triton = true;
}

static void read_import(builder *b, TSNode imp, TSNode from)
{
	{
		TSNode stmt = ts_node_is_null(imp) ? from : imp;
		char *module = NULL;
		if (!ts_node_is_null(from))
			module = text(b, ta_node_field(from, "module_name"));
		uint32_t n = ta_node_named_count(stmt);
		for (uint32_t i = 0; i < n; i++) {
			TSNode ch = ta_node_named_child(stmt, i);
			if (!ts_node_is_null(from) && ts_node_eq(ch, ta_node_field(from, "module_name")))
				continue;
			char *name = NULL, *alias = NULL;
			if (ta_node_is(ch, "aliased_import")) {
				name = text(b, ta_node_field(ch, "name"));
				alias = text(b, ta_node_field(ch, "alias"));
			} else if (ta_node_is(ch, "dotted_name")) {
				name = text(b, ch);
			} else {
				continue;
			}
			/* `from . import util` names the module .util, not ..util */
			char *target = !module ? ta_xstrdup(name) :
				       module[strspn(module, ".")] ? ta_xasprintf("%s.%s", module, name) :
				       ta_xasprintf("%s%s", module, name);
			/* `from vllm.triton_utils import tl, triton`: Triton as the
			 * project's own module re-exports it (analyze/reexport.h) */
			char *re = module ? ta_reexport_target(b->m->src->path, module, name) : NULL;
			if (re) {
				free(target);
				target = re;
			}
			if (!alias) {
				/* `import a.b` binds `a` to a; `from m import x` binds x. */
				if (module) {
					alias = ta_xstrdup(name);
				} else {
					char *dot = strchr(name, '.');
					alias = dot ? ta_xstrndup(name, (size_t)(dot - name)) : ta_xstrdup(name);
					if (dot) {
						free(target);
						target = ta_xstrdup(alias);
					}
				}
			}
			add_import(b, alias, target, module, (uint32_t)ta_node_line(stmt));
			free(name);
		}
		free(module);
	}
}

/* ---- definitions and assignments ---------------------------------------- */

static void read_function(builder *b, TSNode def, TSNode whole, TSNode name, uint32_t *last_start)
{
	if (ts_node_start_byte(def) == *last_start)
		return;   /* the same def matched by both patterns */
	*last_start = ts_node_start_byte(def);
	TSNode node = ts_node_is_null(whole) ? def : whole;
	int parent = function_at(b->m, ts_node_start_byte(node));
	ta_function *f = TA_PUSH(b->m->functions, b->m->function_count, b->function_cap);
	f->name = text(b, name);
	f->node = node;
	f->span = span(b, node);
	f->kernel = -1;
	f->parent = parent;
}

/* The node types and fields the names walk tests, as ids: comparing ids is
 * what keeps this walk cheaper than the query it replaced. */
typedef struct names_ids {
	TSSymbol import, import_from, decorated, function, identifier, assignment, binary,
		paren, integer, comparison, call, attribute, for_s, while_s, assert_s, aug_assign,
		walrus, subscript;
	TSFieldId name, definition, left, right, operator, function_f, attribute_f;
} names_ids;

/* Looked up once per run: each lookup scans the grammar's names
 * (7 M instructions over 64 files when done per file). */
static void names_ids_init(names_ids *out)
{
	static _Thread_local names_ids ids;
	static _Thread_local bool done;
	if (done) {
		*out = ids;
		return;
	}
	names_ids *id = &ids;
	const TSLanguage *l = tree_sitter_python();
#define SYM(s) ts_language_symbol_for_name(l, s, (uint32_t)strlen(s), true)
#define FLD(s) ts_language_field_id_for_name(l, s, (uint32_t)strlen(s))
	*id = (names_ids){
		.import = SYM("import_statement"), .import_from = SYM("import_from_statement"),
		.decorated = SYM("decorated_definition"), .function = SYM("function_definition"),
		.identifier = SYM("identifier"), .assignment = SYM("assignment"),
		.binary = SYM("binary_operator"), .paren = SYM("parenthesized_expression"),
		.integer = SYM("integer"), .comparison = SYM("comparison_operator"),
		.call = SYM("call"), .attribute = SYM("attribute"), .for_s = SYM("for_statement"),
		.while_s = SYM("while_statement"), .assert_s = SYM("assert_statement"),
		.aug_assign = SYM("augmented_assignment"), .walrus = SYM("named_expression"),
		.subscript = SYM("subscript"),
		.name = FLD("name"), .definition = FLD("definition"), .left = FLD("left"),
		.right = FLD("right"), .operator = FLD("operator"), .function_f = FLD("function"),
		.attribute_f = FLD("attribute"),
	};
#undef SYM
#undef FLD
	done = true;
	*out = ids;
}

static bool has_symbol(TSNode n, TSSymbol s)
{
	return !ts_node_is_null(n) && ts_node_is_named(n) && ts_node_symbol(n) == s;
}

static bool operator_is(TSNode bin, const names_ids *id, const char *op)
{
	TSNode o = ta_node_field_id(bin, id->operator);
	return !ts_node_is_null(o) && !strcmp(ts_node_type(o), op);
}

/* The one binary operator inside the parentheses of `(a op b)`, or null. */
static TSNode paren_binary(TSNode n, const names_ids *id, const char *op)
{
	if (!has_symbol(n, id->paren))
		return null_node;
	uint32_t k = ts_node_named_child_count(n);
	for (uint32_t i = 0; i < k; i++) {
		TSNode in = ta_node_named_child(n, i);
		if (has_symbol(in, id->binary) && operator_is(in, id, op))
			return in;
	}
	return null_node;
}

/* bin is `X // right`: a hand-written ceiling division `(a + b - 1) // b` or
 * `(n + 63) // 64` (the added constant one less than the divisor). */
static bool is_hand_cdiv(const builder *b, TSNode bin, TSNode right, const names_ids *id)
{
	if (!operator_is(bin, id, "//"))
		return false;
	TSNode left = ta_node_field_id(bin, id->left);
	TSNode minus = paren_binary(left, id, "-");
	if (!ts_node_is_null(minus)) {
		TSNode plus = ta_node_field_id(minus, id->left);
		TSNode one = ta_node_field_id(minus, id->right);
		if (!has_symbol(plus, id->binary) || !operator_is(plus, id, "+") ||
		    !has_symbol(one, id->integer) || !text_eq(b, one, "1"))
			return false;
		TSNode den = ta_node_field_id(plus, id->right);
		if (ts_node_is_null(den) || !ts_node_is_named(den) ||
		    ts_node_is_null(ta_node_field_id(plus, id->left)))
			return false;
		uint32_t l1 = ts_node_end_byte(den) - ts_node_start_byte(den);
		uint32_t l2 = ts_node_end_byte(right) - ts_node_start_byte(right);
		return l1 == l2 && !memcmp(b->src->text + ts_node_start_byte(den),
					   b->src->text + ts_node_start_byte(right), l1);
	}
	TSNode plus = paren_binary(left, id, "+");
	if (ts_node_is_null(plus) || !has_symbol(right, id->integer))
		return false;
	TSNode add = ta_node_field_id(plus, id->right);
	if (!has_symbol(add, id->integer))
		return false;
	char *a = text(b, add), *d = text(b, right);
	bool ok = strtoll(a, NULL, 0) + 1 == strtoll(d, NULL, 0);
	free(a);
	free(d);
	return ok;
}

static void push_host_match(builder *b, TSNode n, ta_host_kind kind)
{
	struct host_match *hm = TA_PUSH(b->host_matches, b->host_match_count, b->host_match_cap);
	hm->node = n;
	hm->kind = kind;
}

/* One node of the names walk; at[0..depth] are its ancestors and itself.
 * Each pattern is taken at its last node in document order, the order the
 * query it replaced returned matches in (a nested ceiling division comes
 * before the one around it). */
static void names_visit(builder *b, const names_ids *id, const ta_flat *f, const uint32_t *at,
			size_t depth, uint32_t *last_start)
{
	/* kinds and fields from the flat copy, which is read in order: asking
	 * the node reads the tree again, out of cache by now */
	const ta_flat_node *e = &f->nodes[at[depth]];
	if (!e->named)
		return;
	TSSymbol s = e->symbol;
	TSFieldId field = e->field;
	TSNode n = ta_flat_node_at(f, at[depth]);
	TSNode parent = depth ? ta_flat_node_at(f, at[depth - 1]) : null_node;
#define IS(k, sym) (f->nodes[at[k]].named && f->nodes[at[k]].symbol == (sym))
#define FIELD(k) (f->nodes[at[k]].field)
	/* Kept for the main walk, which then need not walk the tree again; an
	 * attribute only when it may be `.T`. */
	if (s == id->function || s == id->call || s == id->for_s || s == id->while_s ||
	    s == id->assert_s ||
	    (s == id->attribute && b->src->text[ts_node_end_byte(n) - 1] == 'T')) {
		struct walk_node *wn = TA_PUSH(b->walk_nodes, b->walk_node_count, b->walk_node_cap);
		wn->node = n;
		wn->parent = parent;
		wn->depth = depth;
	}
	if (s == id->assignment || s == id->aug_assign || s == id->comparison) {
		ta_model *m = b->m;
		ta_node_ref *r = s == id->comparison
			? TA_PUSH(m->compare_nodes, m->compare_node_count, b->compare_node_cap)
			: TA_PUSH(m->assign_nodes, m->assign_node_count, b->assign_node_cap);
		r->node = n;
		r->function = -1;   /* once every function is read */
	}
	if (s == id->assignment || s == id->aug_assign || s == id->for_s || s == id->walrus) {
		ta_node_ref *r = TA_PUSH(b->m->bind_nodes, b->m->bind_node_count, b->bind_node_cap);
		r->node = n;
		r->function = -1;   /* not needed by its readers */
	}
	if (s == id->import) {
		read_import(b, n, null_node);
	} else if (s == id->import_from) {
		read_import(b, null_node, n);
	} else if (s == id->assignment) {
		TSNode left = ta_node_field_id(n, id->left);
		TSNode right = ta_node_field_id(n, id->right);
		if (has_symbol(left, id->identifier) && !ts_node_is_null(right)) {
			var_def *v = TA_PUSH(b->vars, b->var_count, b->var_cap);
			v->name = text(b, left);
			v->value = right;
		}
	} else if (s == id->identifier && field == id->name && depth && IS(depth - 1, id->function)) {
		TSNode whole = depth >= 2 && IS(depth - 2, id->decorated) && FIELD(depth - 1) == id->definition
			? ta_flat_node_at(f, at[depth - 2]) : null_node;
		read_function(b, parent, whole, n, last_start);
	} else if (s == id->identifier && field == id->attribute_f && depth >= 3 &&
		   IS(depth - 1, id->attribute) && IS(depth - 2, id->call) &&
		   FIELD(depth - 1) == id->function_f && IS(depth - 3, id->comparison) &&
		   text_eq(b, n, "stride")) {
		push_host_match(b, ta_flat_node_at(f, at[depth - 3]), TA_HOST_STRIDE_TEST);
	}
	if (field == id->right && depth && IS(depth - 1, id->binary) && is_hand_cdiv(b, parent, n, id))
		push_host_match(b, parent, TA_HOST_HAND_CDIV);
#undef IS
#undef FIELD
}

/* One walk over the tree for the file's names: imports, definitions and
 * assignments are read now, host patterns kept for after the main walk.
 * Written in code, not as a tree-sitter query: the 0.20 query cursor cost
 * twice this walk and its compilation as much again, and its matching grew
 * with the square of an operator chain's length (x + x + ... of 70,000
 * terms: 13 s). Definitions come in document order, so every def precedes
 * what it contains. */
static void read_names(builder *b, const ta_flat *f)
{
	/* Names every Triton file uses even when a snippet forgets the import. */
	add_import(b, ta_xstrdup("tl"), ta_xstrdup("triton.language"), NULL, 0);
	b->m->imports_triton = false;

	names_ids id;
	names_ids_init(&id);
	uint32_t last_start = UINT32_MAX;
	uint32_t *at = NULL;   /* the node's ancestors and itself, as flat indices */
	size_t at_cap = 0, depth = 0;
	for (uint32_t i = 0; i < f->count; i++) {
		/* the tree's nodes in document order: up from the last node's
		 * path to this one's parent */
		uint32_t parent = f->nodes[i].parent;
		if (parent == TA_FLAT_NONE)
			depth = 0;
		else {
			while (at[depth] != parent)
				depth--;
			depth++;
		}
		if (depth >= at_cap)
			ta_grow((void **)&at, &at_cap, depth + 1, sizeof *at);
		at[depth] = i;
		names_visit(b, &id, f, at, depth, &last_start);
	}
	free(at);
	ta_model *m = b->m;
	for (size_t i = 0; i < m->assign_node_count; i++)
		m->assign_nodes[i].function = function_at(m, ts_node_start_byte(m->assign_nodes[i].node));
	for (size_t i = 0; i < m->compare_node_count; i++)
		m->compare_nodes[i].function = function_at(m, ts_node_start_byte(m->compare_nodes[i].node));
}

static int by_name(const void *x, const void *y, void *vars)
{
	const var_def *v = vars;
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = strcmp(v[i].name, v[j].name);
	return c ? c : (i > j) - (i < j);
}

static void read_assignments(builder *b)
{
	for (size_t i = 0; i < b->var_count; i++)
		b->vars[i].owner = function_at(b->m, ts_node_start_byte(b->vars[i].value));
	/* Group by owner with a counting sort, keeping document order. */
	size_t owners = b->m->function_count + 1;
	b->owner_start = ta_xcalloc(owners + 2, sizeof(size_t));
	for (size_t i = 0; i < b->var_count; i++)
		b->owner_start[b->vars[i].owner + 2]++;
	for (size_t o = 1; o < owners + 2; o++)
		b->owner_start[o] += b->owner_start[o - 1];
	size_t *fill = ta_xmalloc((owners + 1) * sizeof(size_t));
	memcpy(fill, b->owner_start, (owners + 1) * sizeof(size_t));
	b->by_owner = ta_xmalloc((b->var_count ? b->var_count : 1) * sizeof(size_t));
	for (size_t i = 0; i < b->var_count; i++)
		b->by_owner[fill[b->vars[i].owner + 1]++] = i;
	free(fill);
	/* Then by name within each owner (document order kept among one
	 * name's): a lookup is a binary search, not a pass over the owner's. */
	for (size_t o = 0; o < owners; o++) {
		size_t lo = b->owner_start[o], n = b->owner_start[o + 1] - lo;   /* owner o - 1 */
		if (n > 1)
			qsort_r(b->by_owner + lo, n, sizeof *b->by_owner, by_name, b->vars);
	}
}

/* A module-level name bound only to Triton's own functions, such as
 * `rsqrt = tl.math.rsqrt` (or `tl.libdevice.rsqrt` on an older Triton, in
 * the other branch of a version test): the name stands for that function
 * as an import alias would, so calls through it are Triton's, not a helper
 * the file does not show. */
static void read_module_aliases(builder *b)
{
	size_t lo = b->owner_start[0], hi = b->owner_start[1];   /* owner -1 */
	for (size_t i = lo; i < hi;) {
		size_t j = i;
		const char *name = b->vars[b->by_owner[i]].name;
		while (j < hi && !strcmp(b->vars[b->by_owner[j]].name, name))
			j++;
		char *first = NULL;
		bool all = !ta_index_import_target(b->m, name, strlen(name));
		for (size_t x = i; x < j && all; x++) {
			TSNode v = b->vars[b->by_owner[x]].value;
			char *c = ta_node_is(v, "attribute") ? ta_model_canonical(b->m, v) : NULL;
			all = c && has_prefix(c, "triton.");
			if (all && !first)
				first = c;
			else
				free(c);
		}
		if (all && first) {
			bool was = b->m->imports_triton;
			add_import(b, ta_xstrdup(name), first, NULL, (uint32_t)ta_node_line(b->vars[b->by_owner[i]].value));
			b->m->imports_triton = was;
		} else {
			free(first);
		}
		i = j;
	}
}

/* ---- autotune configs ------------------------------------------------------ */

static void add_unique(char ***v, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i], s))
			return;
	*v = ta_xrealloc(*v, (*n + 1) * sizeof(char *));
	(*v)[(*n)++] = ta_xstrdup(s);
}

static bool is_config_call(const builder *b, TSNode n)
{
	if (!ta_node_is(n, "call"))
		return false;
	char *c = ta_model_canonical(b->m, ta_node_field(n, "function"));
	bool yes = c && (is_triton_name(c, "Config") || !strcmp(c, "Config"));
	free(c);
	return yes;
}

/* The tile dicts behind a config whose parameters are a comprehension's
 * variable, as P1 writes them: `Config(dict(t), ...) for t in tiles` (or
 * `Config(t, ...)`) with `tiles` a literal list of dicts in scope. The
 * list, or a null node when the config is not of that form. */
static TSNode config_tiles(const builder *b, TSNode call, TSNode arg)
{
	if (ta_node_is(arg, "call") && text_eq(b, ta_node_field(arg, "function"), "dict") &&
	    ta_node_named_count(ta_node_field(arg, "arguments")) == 1)
		arg = call_arg(arg, 0);
	if (!ta_node_is(arg, "identifier"))
		return null_node;
	TSNode comp = ta_node_parent(call);
	if (!ta_node_is(comp, "list_comprehension") && !ta_node_is(comp, "generator_expression"))
		return null_node;
	char *var = text(b, arg);
	TSNode fc = null_node;
	uint32_t n = ta_node_named_count(comp);
	for (uint32_t i = 0; i < n && ts_node_is_null(fc); i++) {
		fc = ta_node_named_child(comp, i);
		if (!ta_node_is(fc, "for_in_clause") || !text_eq(b, ta_node_field(fc, "left"), var))
			fc = null_node;
	}
	free(var);
	TSNode seq = ta_node_field(fc, "right");
	if (!ta_node_is(seq, "identifier"))
		return null_node;
	char *name = text(b, seq);
	TSNode v = lookup_var(b, name, function_at(b->m, ts_node_start_byte(call)), ts_node_start_byte(call));
	free(name);
	if (!ta_node_is(v, "list") && !ta_node_is(v, "tuple"))
		return null_node;
	uint32_t dicts = 0, k = ta_node_named_count(v);
	for (uint32_t j = 0; j < k; j++) {
		TSNode d = ta_node_named_child(v, j);
		if (ta_node_is(d, "dictionary"))
			dicts++;
		else if (!ta_node_is(d, "comment"))
			return null_node;
	}
	return dicts ? v : null_node;
}

static void parse_config_dict(builder *b, ta_autotune *a, TSNode call, TSNode dict);

static void parse_config(builder *b, ta_autotune *a, TSNode call)
{
	TSNode dict = call_arg(call, 0);
	if (ts_node_is_null(dict))
		dict = call_kwarg(b, call, "kwargs");
	/* `triton.Config(block_tile, ...)`: the dict last bound to the name
	 * before the call, in the function that builds the list */
	if (ta_node_is(dict, "identifier")) {
		char *name = text(b, dict);
		TSNode v = lookup_var(b, name, function_at(b->m, ts_node_start_byte(call)), ts_node_start_byte(call));
		free(name);
		if (ta_node_is(v, "dictionary"))
			dict = v;
	}
	TSNode tiles = config_tiles(b, call, dict);
	if (ts_node_is_null(tiles)) {
		parse_config_dict(b, a, call, dict);
		return;
	}
	/* One config per tile dict, each with the call's options. */
	uint32_t n = ta_node_named_count(tiles);
	for (uint32_t i = 0; i < n; i++)
		if (ta_node_is(ta_node_named_child(tiles, i), "dictionary"))
			parse_config_dict(b, a, call, ta_node_named_child(tiles, i));
}

static void parse_config_dict(builder *b, ta_autotune *a, TSNode call, TSNode dict)
{
	ta_config *c = TA_APPEND(a->configs, a->config_count);
	c->span = span(b, call);
	size_t pcap = 0, ocap = 0;
	if (ta_node_is(dict, "dictionary")) {
		uint32_t n = ta_node_named_count(dict);
		for (uint32_t i = 0; i < n; i++) {
			TSNode pair = ta_node_named_child(dict, i);
			if (!ta_node_is(pair, "pair"))
				continue;
			TSNode key = ta_node_field(pair, "key"), val = ta_node_field(pair, "value");
			ta_kwarg *k = TA_PUSH(c->params, c->param_count, pcap);
			k->name = ta_node_is(key, "string") ? string_value(b, key) : text(b, key);
			k->value = text(b, val);
			k->span = span(b, pair);
			k->value_span = span(b, val);
		}
	}
	/* Config(kwargs, num_warps, num_stages, ...) also takes them by position. */
	static const char *const positional[] = { NULL, "num_warps", "num_stages", "num_ctas", "maxnreg" };
	for (uint32_t i = 1; i < 5; i++) {
		TSNode v = call_arg(call, i);
		if (ts_node_is_null(v))
			break;
		ta_kwarg *k = TA_PUSH(c->options, c->option_count, ocap);
		k->name = ta_xstrdup(positional[i]);
		k->value = text(b, v);
		k->span = k->value_span = span(b, v);
	}
	ta_kwarg *kw = NULL;
	size_t nkw = 0;
	collect_args(b, call, &kw, &nkw, NULL, NULL);
	for (size_t i = 0; i < nkw; i++) {
		if (!strcmp(kw[i].name, "kwargs"))
			continue;
		if (!strcmp(kw[i].name, "pre_hook") && strcmp(kw[i].value, "None"))
			a->has_pre_hook = true;
		*TA_PUSH(c->options, c->option_count, ocap) = kw[i];
		kw[i].name = kw[i].value = NULL;
	}
	ta_kwargs_free(kw, nkw);
}

/* Names bound by loops or comprehensions in scope mark what varies:
 * a config value that mentions one of them is a swept parameter. */
static void mark_swept(builder *b, ta_autotune *a, const ta_config *c, char **vars, size_t nvars)
{
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	for (size_t i = 0; i < c->param_count + c->option_count; i++) {
		const ta_kwarg *k = i < c->param_count ? &c->params[i] : &c->options[i - c->param_count];
		TSNode val = ts_node_descendant_for_byte_range(root, k->value_span.start,
							       k->value_span.end);
		for (size_t v = 0; v < nvars; v++) {
			if (ta_node_contains_identifier(b->src, val, vars[v])) {
				add_unique(&a->varies, &a->vary_count, k->name);
				break;
			}
		}
	}
}

static bool mentions_capability(const builder *b, TSNode n)
{
	static const char *const hints[] = {
		"get_device_capability", "get_current_target", "is_hip", "is_cuda",
		"torch.version.hip", "get_available_triton_backend", "capability", ".arch",
		"is_hopper", "is_blackwell", "is_ampere", "get_device_properties", "backend",
	};
	/* Vendor and device tests by name, in any case: `X if IS_AMD else Y`,
	 * `[] if check_shared_mem() else [...]`, is_rocm(), IS_CDNA3. */
	static const char *const words[] = {
		"is_amd", "_amd", "amd_", "rocm", "is_hip", "cdna", "nvidia", "shared_mem", "smem",
		"device_name", "hopper", "blackwell", "ampere", "is_sm", "sm90", "sm100", "sm80",
	};
	char *t = text(b, n);
	/* what the code does, not what its comments say ("configs for modern
	 * NVIDIA GPUs" over a list that branches on nothing) */
	uint32_t base = ts_node_start_byte(n);
	ta_walk w;
	ta_walk_start(&w, n);
	do {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "comment"))
			memset(t + (ts_node_start_byte(x) - base), ' ', ts_node_end_byte(x) - ts_node_start_byte(x));
	} while (ta_walk_next(&w, true));
	ta_walk_finish(&w);
	bool yes = false;
	for (size_t i = 0; i < sizeof hints / sizeof *hints && !yes; i++)
		yes = strstr(t, hints[i]) != NULL;
	for (size_t i = 0; i < sizeof words / sizeof *words && !yes; i++)
		yes = strcasestr(t, words[i]) != NULL;
	free(t);
	return yes;
}

/* Walks a subtree for triton.Config calls, noting loop and comprehension
 * variables in scope. Iterative: config builders can be long. */
static void collect_configs_in(builder *b, ta_autotune *a, TSNode root, int depth);

static void collect_configs(builder *b, ta_autotune *a, TSNode root)
{
	bool *outer = b->cfg_seen;
	b->cfg_seen = ta_xcalloc(b->m->function_count ? b->m->function_count : 1, sizeof *b->cfg_seen);
	collect_configs_in(b, a, root, 0);
	free(b->cfg_seen);
	b->cfg_seen = outer;
}

/* A config builder that returns another one's list (Triton's matmul
 * tutorial: get_autotune_config() returns get_cuda_autotune_config()):
 * the functions of this file it calls, a few levels deep. */
static void collect_called_configs(builder *b, ta_autotune *a, TSNode call, int depth)
{
	TSNode fn = ta_node_field(call, "function");
	if (depth >= 3 || !ta_node_is(fn, "identifier"))
		return;
	char *name = text(b, fn);
	int f = find_function(b->m, name);
	free(name);
	if (f >= 0 && b->m->functions[f].kernel < 0 && !b->cfg_seen[f]) {
		b->cfg_seen[f] = true;
		if (mentions_capability(b, b->m->functions[f].node))
			a->branches_on_capability = true;
		collect_configs_in(b, a, b->m->functions[f].node, depth + 1);
	}
}

static void collect_configs_in(builder *b, ta_autotune *a, TSNode root, int depth)
{
	char **vars = NULL;
	size_t nvars = 0, first = a->config_count;
	ta_walk c;
	ta_walk_start(&c, root);
	for (;;) {
		TSNode n = ta_walk_node(&c);
		bool descend = true;
		if (ta_node_is(n, "for_statement") || ta_node_is(n, "for_in_clause")) {
			/* `for nw in NUM_WARPS` over a module list chosen per back-end
			 * (`[...] if IS_AMD else [...]`) */
			TSNode right = ta_node_field(n, "right");
			if (ta_node_is(right, "identifier")) {
				char *rn = text(b, right);
				TSNode v = lookup_var(b, rn, -1, ts_node_start_byte(n));
				free(rn);
				if (!ts_node_is_null(v) && ta_node_is(v, "conditional_expression") && mentions_capability(b, v))
					a->branches_on_capability = true;
			}
			TSNode left = ta_node_field(n, "left");
			/* `for BM in [64]`: one value, nothing swept */
			if (ta_node_one_item_literal(right))
				left = (TSNode){ 0 };
			if (ts_node_is_null(left)) {
				/* nothing */
			} else if (ta_node_is(left, "identifier")) {
				char *t = text(b, left);
				add_unique(&vars, &nvars, t);
				free(t);
			} else {
				uint32_t k = ta_node_named_count(left);
				for (uint32_t i = 0; i < k; i++) {
					TSNode id = ta_node_named_child(left, i);
					if (ta_node_is(id, "identifier")) {
						char *t = text(b, id);
						add_unique(&vars, &nvars, t);
						free(t);
					}
				}
			}
		} else if (is_config_call(b, n)) {
			parse_config(b, a, n);
			descend = false;
		} else if (ta_node_is(n, "call")) {
			collect_called_configs(b, a, n, depth);
		} else if (ta_node_is(n, "if_statement") || ta_node_is(n, "conditional_expression")) {
			if (mentions_capability(b, n))
				a->branches_on_capability = true;
		}
		if (!ta_walk_next(&c, descend))
			break;
	}
	ta_walk_finish(&c);
	/* Now that all loop variables are known, mark what each config sweeps. */
	for (size_t i = first; i < a->config_count && nvars; i++)
		mark_swept(b, a, &a->configs[i], vars, nvars);
	ta_strv_free(vars, nvars);
}

/* A config builder this file does not define, handed the meta-parameters
 * by name: the string keys of a dict argument, written there or bound to a
 * name before the call (`generate_configs({"BLOCK_D": BLOCK_D_LIST,
 * "num_warps": [4, 8]})`). Those it sets are config values, whatever the
 * builder does with them; a key whose value is a list of two or more items
 * varies too. Launch options (num_warps, ...) are not meta-parameters. */
static void builder_params(builder *b, ta_autotune *a, TSNode call)
{
	static const char *const options[] = { "num_warps", "num_stages", "num_ctas", "maxnreg", NULL };
	TSNode args = ta_node_field(call, "arguments");
	for (uint32_t i = 0; i < ta_node_named_count(args); i++) {
		TSNode d = ta_node_named_child(args, i);
		if (ta_node_is(d, "keyword_argument"))
			d = ta_node_field(d, "value");
		if (ta_node_is(d, "identifier")) {
			char *n = text(b, d);
			d = lookup_var(b, n, function_at(b->m, ts_node_start_byte(call)), ts_node_start_byte(call));
			free(n);
		}
		if (!ta_node_is(d, "dictionary"))
			continue;
		for (uint32_t j = 0; j < ta_node_named_count(d); j++) {
			TSNode pair = ta_node_named_child(d, j);
			TSNode k = ta_node_field(pair, "key"), v = ta_node_field(pair, "value");
			if (!ta_node_is(pair, "pair") || !ta_node_is(k, "string"))
				continue;
			char *key = string_value(b, k);
			if (key && *key && !ta_name_among(key, options)) {
				add_unique(&a->builder_params, &a->builder_param_count, key);
				if ((ta_node_is(v, "list") || ta_node_is(v, "tuple")) && ta_node_named_count(v) > 1)
					add_unique(&a->varies, &a->vary_count, key);
			}
			free(key);
		}
	}
}

static void resolve_configs(builder *b, ta_autotune *a, TSNode expr, int depth)
{
	if (ts_node_is_null(expr) || depth > 4)
		return;
	if (ta_node_is(expr, "list") || ta_node_is(expr, "tuple")) {
		if (a->configs_kind == TA_CONFIGS_NONE)
			a->configs_kind = TA_CONFIGS_LIST;
		collect_configs(b, a, expr);
	} else if (ta_node_is(expr, "list_comprehension")) {
		a->configs_kind = TA_CONFIGS_COMPREHENSION;
		collect_configs(b, a, expr);
	} else if (ta_node_is(expr, "binary_operator") || ta_node_is(expr, "parenthesized_expression")) {
		uint32_t n = ta_node_named_count(expr);
		for (uint32_t i = 0; i < n; i++)
			resolve_configs(b, a, ta_node_named_child(expr, i), depth + 1);
	} else if (ta_node_is(expr, "conditional_expression")) {
		if (mentions_capability(b, expr))
			a->branches_on_capability = true;
		uint32_t n = ta_node_named_count(expr);
		for (uint32_t i = 0; i < n; i++)
			resolve_configs(b, a, ta_node_named_child(expr, i), depth + 1);
	} else if (ta_node_is(expr, "call")) {
		TSNode fn = ta_node_field(expr, "function");
		char *name = text(b, fn);
		int f = ta_node_is(fn, "identifier") ? find_function(b->m, name) : -1;
		if (f >= 0) {
			a->configs_kind = TA_CONFIGS_FUNCTION;
			free(a->configs_function);
			a->configs_function = ta_xstrdup(name);
			if (mentions_capability(b, b->m->functions[f].node))
				a->branches_on_capability = true;
			collect_configs(b, a, b->m->functions[f].node);
		} else if (!strcmp(name, "list") || !strcmp(name, "tuple") || !strcmp(name, "sorted")) {
			resolve_configs(b, a, call_arg(expr, 0), depth + 1);
		} else if (!strcmp(name, "filter")) {
			/* filter(keep, configs): the list is the second argument */
			resolve_configs(b, a, call_arg(expr, 1), depth + 1);
		} else {
			a->configs_kind = TA_CONFIGS_UNRESOLVED;
			builder_params(b, a, expr);
		}
		free(name);
	} else if (ta_node_is(expr, "identifier")) {
		char *name = text(b, expr);
		/* its value when the decorator runs: the last binding before it */
		TSNode v = lookup_var(b, name, -1, a->span.start);
		if (ts_node_is_null(v))
			v = lookup_var(b, name, -1, UINT32_MAX);
		free(name);
		if (ts_node_is_null(v)) {
			a->configs_kind = TA_CONFIGS_UNRESOLVED;
		} else {
			resolve_configs(b, a, v, depth + 1);
			if (a->configs_kind == TA_CONFIGS_LIST)
				a->configs_kind = TA_CONFIGS_NAME;
		}
	} else {
		a->configs_kind = TA_CONFIGS_UNRESOLVED;
	}
}

/* Names whose value differs between two configs vary: config i's name N
 * with value v varies when some config gives N another value than v or
 * none (a config's value of N: its first param named N, else its first
 * option). In two passes over the configs, whatever their number (a file
 * may list thousands): per name, how many configs give it a value, the
 * first such value and whether another differs from it. */
typedef struct config_name {
	const char *value;        /* the first config's value of the name */
	size_t present;           /* configs that give it one */
	size_t last;              /* the last config counted, + 1 */
	bool differs, added;
} config_name;

static const ta_kwarg *config_kwarg(const ta_config *c, size_t p)
{
	return p < c->param_count ? &c->params[p] : &c->options[p - c->param_count];
}

static void compute_varies(ta_autotune *a)
{
	ta_namemap names = TA_NAMEMAP_INIT;
	config_name *st = NULL;
	size_t n = 0;
	for (size_t j = 0; j < a->config_count; j++) {
		const ta_config *d = &a->configs[j];
		for (size_t p = 0; p < d->param_count + d->option_count; p++) {
			const ta_kwarg *k = config_kwarg(d, p);
			if (!k->name)
				continue;
			size_t len = strlen(k->name);
			ta_namemap_slot *s = ta_namemap_find(&names, k->name, len);
			config_name *x;
			if (!s) {
				ta_namemap_add(&names, k->name, len, (uint32_t)n);
				x = TA_APPEND(st, n);
			} else {
				x = &st[s->value];
			}
			if (x->last == j + 1)
				continue;      /* not this config's value of the name */
			x->last = j + 1;
			if (x->present++ == 0)
				x->value = k->value;
			else if (strcmp(x->value, k->value))
				x->differs = true;
		}
	}
	for (size_t i = 0; i < a->vary_count; i++) {
		ta_namemap_slot *s = ta_namemap_find(&names, a->varies[i], strlen(a->varies[i]));
		if (s)
			st[s->value].added = true;
	}
	for (size_t i = 0; i < a->config_count; i++) {
		const ta_config *c = &a->configs[i];
		for (size_t p = 0; p < c->param_count + c->option_count; p++) {
			const ta_kwarg *k = config_kwarg(c, p);
			/* Hooks are not tuning knobs: one config having one is no sweep. */
			if (!k->name || (p >= c->param_count && (!strcmp(k->name, "pre_hook") || !strcmp(k->name, "post_hook"))))
				continue;
			config_name *x = &st[ta_namemap_find(&names, k->name, strlen(k->name))->value];
			if (x->added || (x->present == a->config_count && !x->differs && !strcmp(x->value, k->value)))
				continue;
			x->added = true;
			a->varies = ta_xrealloc(a->varies, (a->vary_count + 1) * sizeof(char *));
			a->varies[a->vary_count++] = ta_xstrdup(k->name);
		}
	}
	ta_namemap_free(&names);
	free(st);
}

static ta_autotune *parse_autotune(builder *b, TSNode call)
{
	ta_autotune *a = ta_xcalloc(1, sizeof *a);
	a->tuners = 1;
	a->span = span(b, call);
	collect_args(b, call, &a->kwargs, &a->kwarg_count, NULL, NULL);
	TSNode configs = call_kwarg(b, call, "configs");
	if (ts_node_is_null(configs))
		configs = call_arg(call, 0);
	a->configs_span = span(b, configs);
	resolve_configs(b, a, configs, 0);
	compute_varies(a);
	TSNode key = call_kwarg(b, call, "key");
	if (ts_node_is_null(key))
		key = call_arg(call, 1);
	if (ta_node_is(key, "identifier")) {
		char *name = text(b, key);
		TSNode v = lookup_var(b, name, -1, a->span.start);
		if (ts_node_is_null(v))
			v = lookup_var(b, name, -1, UINT32_MAX);
		free(name);
		if (!ts_node_is_null(v))
			key = v;
	}
	if (!ts_node_is_null(key)) {
		a->key_span = span(b, key);
		uint32_t n = ta_node_named_count(key);
		for (uint32_t i = 0; i < n; i++) {
			TSNode s = ta_node_named_child(key, i);
			if (ta_node_is(s, "string")) {
				char *v = string_value(b, s);
				add_unique(&a->key, &a->key_count, v);
				free(v);
			}
		}
	}
	TSNode prune = call_kwarg(b, call, "prune_configs_by");
	if (!ts_node_is_null(prune)) {
		a->has_prune = true;
		a->prune_span = span(b, prune);
	}
	TSNode hook = call_kwarg(b, call, "pre_hook");
	if (!ts_node_is_null(hook) && !ta_node_is(hook, "none"))   /* pre_hook=None is no hook */
		a->has_pre_hook = true;
	return a;
}

static void parse_heuristics(builder *b, ta_kernel *k, TSNode call)
{
	TSNode dict = call_arg(call, 0);
	if (ts_node_is_null(dict))
		dict = call_kwarg(b, call, "values");
	k->heuristics_span = span(b, call);
	if (!ta_node_is(dict, "dictionary"))
		return;
	uint32_t n = ta_node_named_count(dict);
	for (uint32_t i = 0; i < n; i++) {
		TSNode pair = ta_node_named_child(dict, i);
		if (!ta_node_is(pair, "pair"))
			continue;
		TSNode key = ta_node_field(pair, "key");
		ta_heuristic *h = TA_APPEND(k->heuristics, k->heuristic_count);
		h->name = ta_node_is(key, "string") ? string_value(b, key) : text(b, key);
		h->expr = text(b, ta_node_field(pair, "value"));
		h->span = span(b, pair);
	}
}

/* ---- kernels ------------------------------------------------------------- */

/* Whether a definition (decorated or not) is a statement of the module. */
static bool top_level(TSNode def)
{
	TSNode p = ts_node_parent(def);
	if (ta_node_is(p, "decorated_definition"))
		p = ts_node_parent(p);
	return ta_node_is(p, "module");
}

static int add_kernel(builder *b, int fn)
{
	ta_function *f = &b->m->functions[fn];
	if (f->kernel >= 0)
		return f->kernel;
	ta_kernel *k = TA_PUSH(b->m->kernels, b->m->kernel_count, b->kernel_cap);
	f = &b->m->functions[fn];
	f->kernel = (int)b->m->kernel_count - 1;
	k->name = ta_xstrdup(f->name);
	/* `def k` twice at the top level: the launches run the second */
	int prev = ta_model_find_kernel(b->m, k->name);
	bool rebinds = prev >= 0 && top_level(f->node) && top_level(b->m->kernels[prev].node) &&
		       ts_node_start_byte(f->node) > ts_node_start_byte(b->m->kernels[prev].node);
	ta_model_index_kernel(b->m, k->name, f->kernel, rebinds);
	k->span = f->span;
	TSNode def = ta_node_is(f->node, "decorated_definition") ? ta_node_field(f->node, "definition") : f->node;
	k->node = def;
	k->def_span = span(b, def);
	k->def_line = k->def_span.line;
	TSNode body = ta_node_field(def, "body");
	k->body_span = span(b, body);
	/* One level of indentation, as the body's first statement has it. */
	TSNode first = ta_node_named_child(body, 0);
	uint32_t col = ts_node_start_point(first).column, def_col = ts_node_start_point(def).column;
	size_t len;
	const char *line = ta_source_line(b->src, ta_node_line(first), &len);
	k->indent = col > def_col && col <= len ? ta_xstrndup(line + def_col, col - def_col) : ta_xstrdup("    ");

	TSNode params = ta_node_field(def, "parameters");
	size_t cap = 0;
	uint32_t n = ta_node_named_count(params);
	for (uint32_t i = 0; i < n; i++) {
		TSNode p = ta_node_named_child(params, i);
		TSNode name = p, type = null_node, dflt = null_node;
		if (ta_node_is(p, "typed_parameter")) {
			name = ta_node_named_child(p, 0);
			type = ta_node_field(p, "type");
		} else if (ta_node_is(p, "default_parameter") || ta_node_is(p, "typed_default_parameter")) {
			name = ta_node_field(p, "name");
			type = ta_node_field(p, "type");
			dflt = ta_node_field(p, "value");
		} else if (!ta_node_is(p, "identifier")) {
			continue;
		}
		ta_param *pr = TA_PUSH(k->params, k->param_count, cap);
		pr->name = text(b, name);
		pr->span = span(b, p);
		if (!ts_node_is_null(type)) {
			pr->annotation = text(b, type);
			TSNode t = ta_node_named_count(type) ? ta_node_named_child(type, 0) : type;
			char *c = ta_model_canonical(b->m, t);
			pr->constexpr_ = c && (has_suffix(c, ".constexpr") || !strcmp(c, "constexpr"));
			free(c);
		}
		if (!ts_node_is_null(dflt))
			pr->default_value = text(b, dflt);
	}
	return f->kernel;
}

/* A kernel wrapped by a second tuner (`small = tuner(configs=SMALL,
 * ...)(fn)` beside `large = tuner(configs=LARGE, ...)(fn)`): each launch
 * picks from one of the lists, so the values a parameter takes are every
 * list's. The first wrapper's place, key and keywords stay. */
static void merge_autotune(ta_autotune *into, ta_autotune *more)
{
	into->configs = ta_xrealloc(into->configs, (into->config_count + more->config_count + 1) * sizeof *into->configs);
	if (more->config_count)   /* a tuner whose configs are not read has none (and no array) */
		memcpy(into->configs + into->config_count, more->configs, more->config_count * sizeof *more->configs);
	into->config_count += more->config_count;
	more->config_count = 0;
	into->branches_on_capability |= more->branches_on_capability;
	into->tuners += more->tuners;
	for (size_t i = 0; i < more->vary_count; i++)
		add_unique(&into->varies, &into->vary_count, more->varies[i]);
	compute_varies(into);
	ta_autotune_free(more);
}

/* A library's own autotuner decorating a jit kernel, called the way
 * triton.autotune is (FlagGems' @libtuner(configs=..., key=...)): its
 * configs and key are read the same way. */
static bool autotune_like(const builder *b, TSNode call)
{
	return !ts_node_is_null(call_kwarg(b, call, "configs")) && !ts_node_is_null(call_kwarg(b, call, "key"));
}

/* The canonical name of a decorator: as written, or, when it names a
 * function of the project's own module (`@jit_kernel` imported from it,
 * `@util.jit_kernel` through the module), what that function applies when
 * it wraps one of Triton's decorators (analyze/reexport.h). Asked for
 * decorators only: each asks for a module's file to be read. */
static char *decorator_canonical(builder *b, TSNode callee)
{
	char *c = ta_model_canonical(b->m, callee);
	if (!c || !strncmp(c, "triton", 6) || !b->m->src->path)
		return c;
	TSNode head = callee;
	while (ta_node_is(head, "attribute"))
		head = ta_node_field(head, "object");
	char *module = NULL, *name = NULL;
	if (ta_node_is(callee, "identifier")) {
		/* `from M import name` */
		const ta_import *im = NULL;
		char *t = text(b, callee);
		for (size_t i = 0; i < b->m->import_count && !im; i++)
			if (b->m->imports[i].from && !strcmp(b->m->imports[i].alias, t))
				im = &b->m->imports[i];
		if (im) {
			module = ta_xstrdup(im->from);
			name = t;
		} else {
			free(t);
		}
	} else if (ta_node_is(callee, "attribute") && ts_node_eq(ta_node_field(callee, "object"), head) &&
		   ta_node_is(head, "identifier")) {
		/* `mod.name`, mod a module the file imports */
		char *h = text(b, head);
		const char *t = alias_target(b->m, h, strlen(h));
		if (t) {
			module = ta_xstrdup(t);
			name = text(b, ta_node_field(callee, "attribute"));
		}
		free(h);
	}
	char *r = module && name ? ta_reexport_wrapper(b->m->src->path, module, name) : NULL;
	free(module);
	free(name);
	if (r) {
		free(c);
		return r;
	}
	return c;
}

/* Applies one decorator or wrapper call (jit, autotune, heuristics) to the
 * function; returns true when it makes the function a kernel. */
static bool apply_wrapper(builder *b, int fn, TSNode expr, bool *jit_seen)
{
	TSNode callee = ta_node_is(expr, "call") ? ta_node_field(expr, "function") : expr;
	char *c = decorator_canonical(b, callee);
	bool kernel = false;
	if (c && (is_triton_name(c, "jit") || (!strcmp(c, "jit") && b->m->imports_triton))) {
		int k = add_kernel(b, fn);
		if (ta_node_is(expr, "call"))
			collect_args(b, expr, &b->m->kernels[k].jit_kwargs,
				     &b->m->kernels[k].jit_kwarg_count, NULL, NULL);
		*jit_seen = kernel = true;
	} else if (ta_node_is(expr, "call") && ((c && is_triton_name(c, "autotune")) || autotune_like(b, expr))) {
		int k = add_kernel(b, fn);
		ta_autotune **at = &b->m->kernels[k].autotune;
		if (!*at)
			*at = parse_autotune(b, expr);
		else if (ts_node_start_byte(expr) != (*at)->span.start)
			merge_autotune(*at, parse_autotune(b, expr));
		kernel = true;
	} else if (c && is_triton_name(c, "heuristics") && ta_node_is(expr, "call")) {
		int k = add_kernel(b, fn);
		parse_heuristics(b, &b->m->kernels[k], expr);
		kernel = true;
	}
	free(c);
	return kernel;
}

static void read_decorated_kernels(builder *b)
{
	for (size_t i = 0; i < b->m->function_count; i++) {
		TSNode node = b->m->functions[i].node;
		if (!ta_node_is(node, "decorated_definition"))
			continue;
		/* Decide first whether jit is among the decorators. */
		bool jit = false;
		uint32_t n = ta_node_named_count(node);
		for (uint32_t d = 0; d < n; d++) {
			TSNode dec = ta_node_named_child(node, d);
			if (!ta_node_is(dec, "decorator"))
				continue;
			TSNode e = ta_node_named_child(dec, 0);
			TSNode callee = ta_node_is(e, "call") ? ta_node_field(e, "function") : e;
			char *c = decorator_canonical(b, callee);
			if (c && (is_triton_name(c, "jit") || (!strcmp(c, "jit") && b->m->imports_triton)))
				jit = true;
			free(c);
		}
		if (!jit)
			continue;
		bool seen = false;
		for (uint32_t d = 0; d < n; d++) {
			TSNode dec = ta_node_named_child(node, d);
			if (ta_node_is(dec, "decorator"))
				apply_wrapper(b, (int)i, ta_node_named_child(dec, 0), &seen);
		}
	}
}

static void add_alias(builder *b, int kernel, const char *name)
{
	ta_kernel *k = &b->m->kernels[kernel];
	if (!strcmp(k->name, name))
		return;
	add_unique(&k->aliases, &k->alias_count, name);
	ta_model_index_kernel(b->m, name, kernel, false);
}

/* `k = triton.autotune(...)(triton.jit(fn))` and the like: unwrap the calls
 * down to a function of the file, applying each wrapper on the way back up.
 * Returns the function index or -1. */
static int unwrap_function(builder *b, TSNode expr, int depth, bool *jit)
{
	if (depth > 8 || ts_node_is_null(expr))
		return -1;
	if (ta_node_is(expr, "identifier")) {
		char *name = text(b, expr);
		int f = find_function(b->m, name);
		free(name);
		return f;
	}
	if (!ta_node_is(expr, "call"))
		return -1;
	TSNode callee = ta_node_field(expr, "function");
	TSNode wrapper = ta_node_is(callee, "call") ? callee : expr;
	char *c = ta_model_canonical(b->m, ta_node_field(wrapper, "function"));
	bool known = (c && (is_triton_name(c, "jit") || is_triton_name(c, "autotune") ||
			    is_triton_name(c, "heuristics") || has_suffix(c, "wrap_triton"))) ||
		     autotune_like(b, wrapper);   /* a package's own tuner: `tuner.autotune(configs=..., key=...)(fn)` */
	free(c);
	if (!known)
		return -1;
	int f = unwrap_function(b, call_arg(expr, 0), depth + 1, jit);
	if (f >= 0)
		apply_wrapper(b, f, wrapper, jit);
	return f;
}

static void read_wrapped_kernels(builder *b)
{
	for (size_t i = 0; i < b->var_count; i++) {
		var_def *v = &b->vars[i];
		if (!ta_node_is(v->value, "call"))
			continue;
		bool jit = false;
		int f = unwrap_function(b, v->value, 0, &jit);
		int k = f >= 0 ? b->m->functions[f].kernel : -1;
		if (k < 0)
			continue;
		if (!ta_node_is(b->m->functions[f].node, "decorated_definition"))
			b->m->kernels[k].wrapped = true;
		add_alias(b, k, v->name);
	}
	/* Plain aliases: `fn = my_kernel`. */
	for (size_t i = 0; i < b->var_count; i++) {
		var_def *v = &b->vars[i];
		if (!ta_node_is(v->value, "identifier") ||
		    (v->owner >= 0 && b->m->functions[v->owner].kernel >= 0))
			continue;
		char *name = text(b, v->value);
		int k = ta_model_find_kernel(b->m, name);
		if (k >= 0)
			add_alias(b, k, v->name);
		free(name);
	}
}

/* ---- the walk ---------------------------------------------------------------- */

typedef struct frame {
	size_t depth;             /* tree depth of the node that pushed it */
	enum { FR_FUNCTION, FR_KLOOP, FR_HLOOP } kind;
	int index;                /* function, kernel loop or -1 */
	TSNode node;
} frame;

typedef struct walk {
	builder *b;
	frame *frames;
	size_t frame_count, frame_cap;
	int fn;                   /* innermost function, -1 at module level */
	int kernel;               /* its kernel index, or -1 */
	int kloop;                /* innermost kernel loop */
	int kloop_depth;
	int hloop_depth;
	TSNode hloop;             /* innermost host loop */
} walk;

static int host_index(builder *b, int fn)
{
	int *slot = fn >= 0 ? &b->fn_host[fn] : &b->module_host;
	if (*slot >= 0)
		return *slot;
	*slot = (int)b->m->host_count;
	const char *name = fn >= 0 ? b->m->functions[fn].name : "<module>";
	ta_span s = fn >= 0 ? b->m->functions[fn].span : (ta_span){ 0 };
	ta_host *h = TA_PUSH(b->m->hosts, b->m->host_count, b->host_cap);
	h->name = ta_xstrdup(name);
	h->span = s;
	if (fn >= 0) {
		TSNode node = b->m->functions[fn].node;
		if (ta_node_is(node, "decorated_definition"))
			node = ta_node_field(node, "definition");
		TSNode params = ta_node_field(node, "parameters");
		uint32_t n = ta_node_named_count(params);
		for (uint32_t i = 0; i < n; i++) {
			TSNode p = ta_node_named_child(params, i);
			TSNode id = ta_node_is(p, "identifier") ? p :
				    ta_node_is(p, "typed_parameter") ? ta_node_named_child(p, 0) :
				    ta_node_field(p, "name");
			if (ta_node_is(id, "identifier")) {
				h->params = ta_xrealloc(h->params, (h->param_count + 1) * sizeof(char *));
				h->params[h->param_count++] = text(b, id);
			}
		}
	}
	return (int)b->m->host_count - 1;
}

/* The variable a call's result is assigned to, from the call's parent. */
static void set_target(const builder *b, TSNode parent, TSNode call, char **target, bool *augmented)
{
	if (!ts_node_eq(ta_node_field(parent, "right"), call))
		return;
	TSNode left = ta_node_field(parent, "left");
	if (ta_node_is(parent, "assignment") && ta_node_is(left, "identifier")) {
		*target = text(b, left);
	} else if (ta_node_is(parent, "augmented_assignment") && ta_node_is(left, "identifier")) {
		*target = text(b, left);
		*augmented = text_eq(b, ta_node_field(parent, "operator"), "+=");
	}
}

typedef struct op_name {
	const char *name;
	ta_op_kind kind;
} op_name;

/* triton.language functions by their last name component. */
static const op_name tl_ops[] = {
	{ "load", TA_OP_LOAD }, { "store", TA_OP_STORE }, { "dot", TA_OP_DOT },
	{ "trans", TA_OP_TRANS }, { "permute", TA_OP_PERMUTE }, { "reshape", TA_OP_RESHAPE },
	{ "view", TA_OP_RESHAPE }, { "zeros", TA_OP_ZEROS }, { "arange", TA_OP_ARANGE },
	{ "expand_dims", TA_OP_EXPAND_DIMS }, { "broadcast_to", TA_OP_BROADCAST_TO },
	{ "program_id", TA_OP_PROGRAM_ID }, { "num_programs", TA_OP_NUM_PROGRAMS },
	{ "make_tensor_descriptor", TA_OP_MAKE_DESCRIPTOR },
	{ "_experimental_make_tensor_descriptor", TA_OP_MAKE_DESCRIPTOR },
	{ "make_block_ptr", TA_OP_MAKE_BLOCK_PTR }, { "advance", TA_OP_ADVANCE },
	{ "_experimental_descriptor_load", TA_OP_DESC_LOAD },
	{ "_experimental_descriptor_store", TA_OP_DESC_STORE },
	{ "tanh", TA_OP_TANH }, { "exp", TA_OP_EXP }, { "exp2", TA_OP_EXP2 },
	{ "max", TA_OP_MAX }, { "maximum", TA_OP_MAXIMUM }, { "sum", TA_OP_SUM },
	{ "where", TA_OP_WHERE }, { "assume", TA_OP_ASSUME }, { "multiple_of", TA_OP_MULTIPLE_OF },
	{ "max_contiguous", TA_OP_MULTIPLE_OF }, { "cdiv", TA_OP_CDIV },
	{ "atomic_add", TA_OP_ATOMIC }, { "atomic_max", TA_OP_ATOMIC }, { "atomic_cas", TA_OP_ATOMIC },
	{ "atomic_xchg", TA_OP_ATOMIC }, { "atomic_min", TA_OP_ATOMIC },
	{ "inline_asm_elementwise", TA_OP_INLINE_ASM },
};

/* Tensor methods inside kernels: x.trans(), desc.load([...]). */
static const op_name tensor_methods[] = {
	{ "trans", TA_OP_TRANS }, { "permute", TA_OP_PERMUTE }, { "reshape", TA_OP_RESHAPE },
	{ "expand_dims", TA_OP_EXPAND_DIMS }, { "broadcast_to", TA_OP_BROADCAST_TO },
	{ "load", TA_OP_DESC_LOAD }, { "store", TA_OP_DESC_STORE },
};

static int lookup_op(const op_name *table, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(table[i].name, name))
			return (int)table[i].kind;
	return -1;
}

static ta_op *add_op(walk *w, ta_op_kind kind, char *callee, TSNode node, TSNode parent)
{
	builder *b = w->b;
	ta_kernel *k = &b->m->kernels[w->kernel];
	ta_op *op = TA_APPEND(k->ops, k->op_count);
	op->kind = kind;
	op->callee = callee;
	op->span = span(b, node);
	op->loop = w->kloop;
	op->loop_depth = w->kloop_depth;
	op->helper = -1;
	if (ta_node_is(node, "call")) {
		collect_args(b, node, &op->kwargs, &op->kwarg_count, &op->args, &op->arg_count);
		set_target(b, parent, node, &op->target, &op->augmented);
	}
	return op;
}

static void walk_kernel_call(walk *w, TSNode call, TSNode parent)
{
	builder *b = w->b;
	TSNode fn = ta_node_field(call, "function");
	char *canon = ta_model_canonical(b->m, fn);
	const char *tl = tl_function(canon);
	int kind = -1;
	if (tl) {
		kind = lookup_op(tl_ops, sizeof tl_ops / sizeof *tl_ops, tl);
		if (kind < 0)
			kind = TA_OP_OTHER;
	} else if (canon && strstr(canon, "libdevice.")) {
		kind = has_suffix(canon, ".tanh") ? TA_OP_TANH :
		       has_suffix(canon, ".exp2") ? TA_OP_EXP2 : TA_OP_OTHER;
	} else if (ta_node_is(fn, "identifier")) {
		int helper = ta_model_find_kernel(b->m, canon ? canon : "");
		if (helper >= 0 && helper != w->kernel) {
			ta_op *op = add_op(w, TA_OP_HELPER_CALL, canon, call, parent);
			op->helper = helper;
			return;
		}
	} else if (ta_node_is(fn, "attribute")) {
		/* A method on a tile or descriptor: the receiver is a local name. */
		TSNode obj = ta_node_field(fn, "object");
		char *method = text(b, ta_node_field(fn, "attribute"));
		kind = lookup_op(tensor_methods, sizeof tensor_methods / sizeof *tensor_methods, method);
		if (kind >= 0) {
			ta_op *op = add_op(w, (ta_op_kind)kind, canon ? canon : ta_xstrdup(method), call, parent);
			op->receiver = text(b, obj);
			free(method);
			return;
		}
		free(method);
	}
	if (kind < 0) {
		free(canon);
		return;
	}
	ta_op *op = add_op(w, (ta_op_kind)kind, canon, call, parent);
	if (kind == TA_OP_LOAD || kind == TA_OP_STORE) {
		op->has_mask = ta_kwarg_find(op->kwargs, op->kwarg_count, "mask") != NULL ||
			       op->arg_count >= (kind == TA_OP_STORE ? 3u : 2u);
	} else if (kind == TA_OP_DOT) {
		op->has_acc = op->arg_count >= 3 || ta_kwarg_find(op->kwargs, op->kwarg_count, "acc");
	} else if (kind == TA_OP_DESC_LOAD || kind == TA_OP_DESC_STORE) {
		TSNode d = call_arg(call, 0);
		op->receiver = text(b, d);
	}
}

static void add_host_op(walk *w, ta_host_kind kind, TSNode node, TSNode parent, char *callee,
			TSNode receiver)
{
	builder *b = w->b;
	int hi = host_index(b, w->fn);  /* may move hosts: index first */
	ta_host *h = &b->m->hosts[hi];
	ta_host_op *op = TA_APPEND(h->ops, h->op_count);
	op->kind = kind;
	op->span = span(b, node);
	op->text = text(b, node);
	op->callee = callee;
	op->loop_depth = w->hloop_depth;
	if (!ts_node_is_null(receiver))
		op->receiver = text(b, receiver);
	if (ta_node_is(node, "call")) {
		collect_args(b, node, &op->kwargs, &op->kwarg_count, NULL, NULL);
		bool aug = false;
		if (!ts_node_is_null(parent))
			set_target(b, parent, node, &op->target, &aug);
	}
}

static bool is_alloc(const char *c)
{
	static const char *const names[] = {
		"torch.empty", "torch.zeros", "torch.ones", "torch.full", "torch.randn",
		"torch.rand", "torch.empty_strided", "torch.arange", "torch.tensor",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (!strcmp(c, names[i]))
			return true;
	return false;
}

/* x.to(torch.float16), x.to(y.dtype), x.to(dtype=...): a cast, not a move. */
static bool is_dtype_cast(const builder *b, TSNode call)
{
	TSNode a = call_arg(call, 0);
	if (ts_node_is_null(a))
		return !ts_node_is_null(call_kwarg(b, call, "dtype")) &&
		       ts_node_is_null(call_kwarg(b, call, "device"));
	if (!ts_node_is_null(call_kwarg(b, call, "device")))
		return false;
	char *t = text(b, a);
	static const char *const dtypes[] = {
		"float", "bfloat", "half", "double", "int", "uint", "bool", "complex", "long",
	};
	bool cast = has_suffix(t, ".dtype") || !strcmp(t, "dtype");
	if (!cast && has_prefix(t, "torch.")) {
		for (size_t i = 0; i < sizeof dtypes / sizeof *dtypes && !cast; i++)
			cast = has_prefix(t + 6, dtypes[i]);
	}
	free(t);
	return cast;
}

static void walk_host_call(walk *w, TSNode call, TSNode parent)
{
	builder *b = w->b;
	TSNode fn = ta_node_field(call, "function");
	char *canon = ta_model_canonical(b->m, fn);
	if (ta_node_is(fn, "attribute")) {
		TSNode obj = ta_node_field(fn, "object");
		TSNode attr = ta_node_field(fn, "attribute");
		char *objc = ta_model_canonical(b->m, obj);
		bool module = objc && (has_prefix(objc, "torch") || has_prefix(objc, "triton"));
		free(objc);
		if (!module || ta_node_is(obj, "call") || ta_node_is(obj, "subscript")) {
			ta_host_kind kind = TA_HOST__COUNT;
			if (text_eq(b, attr, "contiguous"))
				kind = TA_HOST_CONTIGUOUS;
			else if (text_eq(b, attr, "clone"))
				kind = TA_HOST_CLONE;
			else if ((text_eq(b, attr, "to") && !is_dtype_cast(b, call)) || text_eq(b, attr, "cuda"))
				kind = TA_HOST_TO_DEVICE;
			else if (text_eq(b, attr, "reshape") || text_eq(b, attr, "view"))
				kind = TA_HOST_RESHAPE;
			if (kind != TA_HOST__COUNT) {
				add_host_op(w, kind, call, parent, canon, obj);
				return;
			}
			/* x.new_zeros(n) allocates as torch.zeros(n, device=x.device)
			 * does: a tensor of x's device and dtype */
			static const char *const news[] = { "new_empty", "new_zeros", "new_ones", "new_full", NULL };
			for (size_t i = 0; news[i]; i++)
				if (text_eq(b, attr, news[i])) {
					free(canon);
					add_host_op(w, TA_HOST_ALLOC, call, parent, ta_xasprintf("torch.Tensor.%s", news[i]), obj);
					int hi = host_index(b, w->fn);
					b->m->hosts[hi].ops[b->m->hosts[hi].op_count - 1].has_device = true;
					return;
				}
		}
	}
	if (!canon)
		return;
	ta_host_kind kind = TA_HOST__COUNT;
	if (is_alloc(canon) || (has_prefix(canon, "torch.") && has_suffix(canon, "_like") &&
				(strstr(canon, "empty") || strstr(canon, "zeros") || strstr(canon, "ones"))))
		kind = TA_HOST_ALLOC;
	else if (is_triton_name(canon, "set_allocator"))
		kind = TA_HOST_SET_ALLOCATOR;
	else if (has_suffix(canon, "TensorDescriptor") || has_suffix(canon, "TensorDescriptor.from_tensor") ||
		 has_suffix(canon, "create_2d_tma_descriptor") || has_suffix(canon, "create_1d_tma_descriptor"))
		kind = TA_HOST_TENSOR_DESCRIPTOR;
	else if (is_triton_name(canon, "autotune") && w->fn >= 0)
		kind = TA_HOST_AUTOTUNE_CALL;
	else if (is_triton_name(canon, "jit") && w->fn >= 0)
		kind = TA_HOST_JIT_CALL;
	else if (strstr(canon, "get_device_capability") || strstr(canon, "get_current_target") ||
		 strstr(canon, "get_device_properties"))
		kind = TA_HOST_CAPABILITY;
	else if (is_triton_name(canon, "cdiv"))
		kind = TA_HOST_CDIV;
	if (kind == TA_HOST__COUNT) {
		free(canon);
		return;
	}
	add_host_op(w, kind, call, parent, canon, null_node);
	if (kind == TA_HOST_ALLOC) {
		int hi = host_index(b, w->fn);
		ta_host_op *op = &b->m->hosts[hi].ops[b->m->hosts[hi].op_count - 1];
		op->has_device = ta_kwarg_find(op->kwargs, op->kwarg_count, "device") != NULL ||
				 has_suffix(canon, "_like");
	}
}

/* ---- launches ----------------------------------------------------------------- */

static TSNode resolve_grid(walk *w, ta_launch *l, TSNode grid, int depth)
{
	builder *b = w->b;
	if (depth > 3)
		return grid;
	if (ta_node_is(grid, "identifier")) {
		char *name = text(b, grid);
		TSNode v = lookup_var(b, name, w->fn, ts_node_start_byte(grid));
		int f = -1;
		/* A grid function defined in the launching function (several
		 * host functions may each define their own `def grid(meta)`):
		 * the last such def before the launch, unless an assignment to
		 * the name comes after it; else the file's first. */
		for (size_t i = 0; i < b->m->function_count; i++)
			if (b->m->functions[i].parent == w->fn && w->fn >= 0 && !strcmp(b->m->functions[i].name, name) &&
			    ts_node_start_byte(b->m->functions[i].node) < ts_node_start_byte(grid))
				f = (int)i;
		if (f >= 0 && !ts_node_is_null(v) && ts_node_start_byte(v) > ts_node_start_byte(b->m->functions[f].node))
			f = -1;
		if (f >= 0)
			v = null_node;
		else if (ts_node_is_null(v))
			f = find_function(b->m, name);
		free(name);
		if (!ts_node_is_null(v))
			return resolve_grid(w, l, v, depth + 1);
		if (f >= 0) {
			l->grid_kind = TA_GRID_FUNCTION;
			return b->m->functions[f].node;
		}
		l->grid_kind = TA_GRID_NAME;
	}
	return grid;
}

/* Which arm of the if statement ifs holds offset off: 0 its consequence,
 * 1... its elif clauses and else, -1 none (its condition). */
static int arm_of(TSNode ifs, uint32_t off)
{
	TSNode c = ta_node_field(ifs, "consequence");
	if (!ts_node_is_null(c) && off >= ts_node_start_byte(c) && off < ts_node_end_byte(c))
		return 0;
	for (uint32_t i = 0, arm = 1; i < ta_node_named_count(ifs); i++) {
		TSNode x = ta_node_named_child(ifs, i);
		if (!ta_node_is(x, "elif_clause") && !ta_node_is(x, "else_clause"))
			continue;
		if (off >= ts_node_start_byte(x) && off < ts_node_end_byte(x))
			return (int)arm;
		arm++;
	}
	return -1;
}

/* Whether the name id spells is assigned anywhere in fn (a plain, an
 * augmented or a tuple assignment, a for target). */
static bool assigned_in(const ta_source *src, TSNode fn, TSNode id)
{
	char *name = ta_node_text(src, id);
	bool yes = false;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(fn, "body"));
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if ((ta_node_is(x, "assignment") || ta_node_is(x, "augmented_assignment") ||
		     ta_node_is(x, "for_statement")) &&
		    ta_node_contains_identifier(src, ta_node_field(x, "left"), name))
			yes = true;
		if (yes || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	free(name);
	return yes;
}

/* Whether the ifs p and q test the same condition, as written, and that
 * condition reads nothing but names never assigned in the function (a
 * kernel's constexpr flags): then they take the same arm. */
static bool same_test(const ta_source *src, TSNode p, TSNode q)
{
	TSNode cp = ta_node_field(p, "condition"), cq = ta_node_field(q, "condition");
	uint32_t lp = ts_node_end_byte(cp) - ts_node_start_byte(cp), lq = ts_node_end_byte(cq) - ts_node_start_byte(cq);
	if (ts_node_is_null(cp) || ts_node_is_null(cq) || lp != lq ||
	    memcmp(src->text + ts_node_start_byte(cp), src->text + ts_node_start_byte(cq), lp))
		return false;
	TSNode fn = ta_node_ancestor(p, "function_definition");
	if (ts_node_is_null(fn))
		return false;
	bool fixed = true;
	ta_walk w;
	ta_walk_start(&w, cp);
	for (;;) {
		TSNode x = ta_walk_node(&w);
		if (ta_node_is(x, "identifier") || ta_node_is(x, "call"))
			fixed = !ta_node_is(x, "call") && !assigned_in(src, fn, x);
		if (!fixed || !ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	return fixed;
}

/* Offsets a and b lie in arms that pair up of two ifs testing the same
 * fixed condition (`if C: p = A else: p = B`, later `if C: use(p)`): they
 * take the same arm, so a binding at a never reaches a read at b. */
static bool paired_other_arm(const builder *b, uint32_t a, uint32_t at)
{
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	for (TSNode p = ta_node_named_at(root, a, a); !ts_node_is_null(p) && !ta_node_is(p, "function_definition");
	     p = ta_node_parent(p)) {
		int ia = ta_node_is(p, "if_statement") ? arm_of(p, a) : -1;
		for (TSNode q = ta_node_named_at(root, at, at); ia >= 0 && !ts_node_is_null(q) &&
							       !ta_node_is(q, "function_definition");
		     q = ta_node_parent(q)) {
			int iq = ta_node_is(q, "if_statement") ? arm_of(q, at) : -1;
			if (iq >= 0 && ia != iq && !ts_node_eq(p, q) && same_test(b->src, p, q))
				return true;
		}
	}
	return false;
}

/* Offsets a and b lie in different arms of one if statement: a binding at
 * a never reaches a read at b. */
static bool other_arm(TSNode root, uint32_t a, uint32_t b)
{
	for (TSNode p = ta_node_named_at(root, a, a); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (!ta_node_is(p, "if_statement"))
			continue;
		if (ta_node_is(p, "function_definition"))
			break;

		if (b < ts_node_start_byte(p) || b >= ts_node_end_byte(p))
			continue;
		int ia = arm_of(p, a), ib = arm_of(p, b);
		if (ia >= 0 && ib >= 0 && ia != ib)
			return true;
	}
	return false;
}

/* Whether the first parameter of params (a function's or a lambda's) is
 * read in body: a grid that reads its META. */
static bool reads_first_param(builder *b, TSNode params, TSNode body)
{
	TSNode p0 = ta_node_param_name(ts_node_is_null(params) ? null_node : ta_node_named_child(params, 0));
	if (ts_node_is_null(p0))
		return false;
	char *pn = text(b, p0);
	bool reads = ta_node_contains_identifier(b->src, body, pn);
	free(pn);
	return reads;
}

/* A grid function or lambda in the launching function, bound on another
 * arm of an if than the grid l resolved to (`def grid(META)` when autotuning, a
 * tuple otherwise), that reads its parameter: the grid reads META on the
 * path where the configs exist. */
static bool other_arm_reads_meta(walk *w, TSNode grid, TSNode def)
{
	builder *b = w->b;
	if (w->fn < 0 || !ta_node_is(grid, "identifier") || ts_node_is_null(def))
		return false;
	char *name = text(b, grid);
	bool reads = false;
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	for (size_t i = 0; i < b->m->function_count && !reads; i++) {
		const ta_function *f = &b->m->functions[i];
		if (f->parent != w->fn || strcmp(f->name, name) || ts_node_start_byte(f->node) > ts_node_start_byte(grid) ||
		    !other_arm(root, ts_node_start_byte(f->node), ts_node_start_byte(def)))
			continue;
		TSNode fdef = ta_node_is(f->node, "decorated_definition") ? ta_node_field(f->node, "definition") : f->node;
		reads = reads_first_param(b, ta_node_field(fdef, "parameters"), ta_node_field(fdef, "body"));
	}
	/* or a lambda bound to the name on another arm */
	const var_def *v;
	FOR_OWNER_NAME(b, w->fn, name, v) {
		if (reads)
			break;
		if (!ta_node_is(v->value, "lambda") || ts_node_start_byte(v->value) > ts_node_start_byte(grid) ||
		    !other_arm(root, ts_node_start_byte(v->value), ts_node_start_byte(def)))
			continue;
		reads = reads_first_param(b, ta_node_field(v->value, "parameters"), ta_node_field(v->value, "body"));
	}
	free(name);
	return reads;
}

/* Dimension count and META use of a grid expression. */
static void analyze_grid(walk *w, ta_launch *l, TSNode grid)
{
	builder *b = w->b;
	l->grid_kind = TA_GRID_OTHER;
	TSNode def = resolve_grid(w, l, grid, 0);
	l->grid_def_span = span(b, def);
	TSNode body = def, meta_scope = null_node;
	char **params = NULL;
	size_t nparams = 0;
	if (ta_node_is(def, "lambda")) {
		l->grid_kind = TA_GRID_LAMBDA;
		TSNode ps = ta_node_field(def, "parameters");
		uint32_t n = ta_node_named_count(ps);
		for (uint32_t i = 0; i < n; i++) {
			TSNode p = ta_node_param_name(ta_node_named_child(ps, i));
			if (!ts_node_is_null(p)) {
				char *t = text(b, p);
				add_unique(&params, &nparams, t);
				free(t);
			}
		}
		body = ta_node_field(def, "body");
	} else if (l->grid_kind == TA_GRID_FUNCTION) {
		TSNode fdef = ta_node_is(def, "decorated_definition") ? ta_node_field(def, "definition") : def;
		TSNode ps = ta_node_field(fdef, "parameters");
		uint32_t n = ta_node_named_count(ps);
		for (uint32_t i = 0; i < n; i++) {
			TSNode p = ta_node_param_name(ta_node_named_child(ps, i));
			if (!ts_node_is_null(p)) {
				char *t = text(b, p);
				add_unique(&params, &nparams, t);
				free(t);
			}
		}
		/* The returned tuple is the grid; META may be read anywhere in
		 * the body (block_m = META["BLOCK_M"] before the return). */
		TSNode blk = ta_node_field(fdef, "body");
		meta_scope = blk;
		uint32_t k = ta_node_named_count(blk);
		body = null_node;
		for (uint32_t i = 0; i < k; i++) {
			TSNode st = ta_node_named_child(blk, i);
			if (ta_node_is(st, "return_statement"))
				body = ta_node_named_child(st, 0);
		}
	} else if (ta_node_is(def, "tuple") || ta_node_is(def, "list")) {
		l->grid_kind = TA_GRID_TUPLE;
	} else if (ta_node_is(def, "call")) {
		l->grid_kind = TA_GRID_CALL;
	}
	if (ta_node_is(body, "parenthesized_expression"))
		body = ta_node_named_child(body, 0);
	if (ta_node_is(body, "tuple") || ta_node_is(body, "list")) {
		uint32_t n = ta_node_named_count(body);
		for (uint32_t i = 0; i < n; i++) {
			TSNode d = ta_node_named_child(body, i);
			if (ta_node_is(d, "comment"))
				continue;
			l->grid_dim_text = ta_xrealloc(l->grid_dim_text, (size_t)(l->grid_dims + 1) * sizeof(char *));
			l->grid_dim_text[l->grid_dims++] = text(b, d);
		}
	} else if (!ts_node_is_null(body) && l->grid_kind != TA_GRID_CALL && l->grid_kind != TA_GRID_NAME) {
		l->grid_dim_text = ta_xmalloc(sizeof(char *));
		l->grid_dim_text[0] = text(b, body);
		l->grid_dims = 1;
	}
	if (ts_node_is_null(meta_scope))
		meta_scope = body;
	for (size_t i = 0; i < nparams; i++)
		if (ta_node_contains_identifier(b->src, meta_scope, params[i]))
			l->grid_uses_meta = true;
	ta_strv_free(params, nparams);
	if (!l->grid_uses_meta && other_arm_reads_meta(w, grid, def))
		l->grid_uses_meta = true;
}

/* The kernels a launch may run when its callee is chosen by a conditional
 * expression: `fn = A if c else B` (as last assigned before the launch,
 * nested choices followed) or `(A if c else B)` written at the call. */
typedef struct launch_choice {
	int kernel;
	char *only_if;            /* owned; see ta_launch */
} launch_choice;
#define MAX_CHOICES 8

static bool has_call(TSNode n)
{
	if (ta_node_is(n, "call"))
		return true;
	uint32_t c = ta_node_named_count(n);
	for (uint32_t i = 0; i < c; i++)
		if (has_call(ts_node_named_child(n, i)))
			return true;
	return false;
}

/* Kernel k runs when only_if holds; a kernel named twice (`A.fn if c else
 * A`) runs when either test holds. */
static void add_choice(launch_choice *ch, size_t *n, int k, char *only_if)
{
	for (size_t i = 0; i < *n; i++)
		if (ch[i].kernel == k) {
			char *both = ta_xasprintf("%s or %s", ch[i].only_if, only_if);
			free(ch[i].only_if);
			free(only_if);
			ch[i].only_if = both;
			return;
		}
	if (*n < MAX_CHOICES)
		ch[(*n)++] = (launch_choice){ k, only_if };
	else
		free(only_if);
}

/* The kernel a branch of a choice names: `A`, or `A.fn` (A's function
 * without its autotune or heuristics, the same body); -1 for a name that
 * is no kernel (a Python fallback), -2 for anything else (a call, another
 * attribute: it might reach a kernel some way not followed here). */
static int branch_kernel(builder *b, TSNode br)
{
	TSNode id = br;
	if (ta_node_is(br, "attribute")) {
		if (!text_eq(b, ta_node_field(br, "attribute"), "fn"))
			return -2;
		id = ta_node_field(br, "object");
	}
	if (!ta_node_is(id, "identifier"))
		return -2;
	char *t = text(b, id);
	int k = ta_model_find_kernel(b->m, t);
	free(t);
	return k >= 0 || ts_node_eq(br, id) ? k : -2;
}

/* The branches of the alias `name = ...` that name kernels: each runs when
 * `name is BRANCH`, whatever the condition was. False when a branch is
 * something not followed (then no choice is made at all). */
static bool alias_choices(builder *b, const char *name, TSNode e, int depth, launch_choice *ch, size_t *n)
{
	e = ta_node_unparen(e);
	if (depth > 4 || !ta_node_is(e, "conditional_expression") || ta_node_named_count(e) != 3)
		return false;
	for (uint32_t i = 0; i < 3; i += 2) {
		TSNode br = ta_node_unparen(ts_node_named_child(e, i));
		if (ta_node_is(br, "conditional_expression")) {
			if (!alias_choices(b, name, br, depth + 1, ch, n))
				return false;
			continue;
		}
		int k = branch_kernel(b, br);
		if (k == -2)
			return false;
		if (k >= 0) {
			char *bt = text(b, br);
			add_choice(ch, n, k, ta_xasprintf("%s is %s", name, bt));
			free(bt);
		}
	}
	return true;
}

static size_t launch_choices(walk *w, TSNode target, uint32_t at, launch_choice *ch)
{
	builder *b = w->b;
	size_t n = 0;
	if (ta_node_is(target, "identifier")) {
		char *name = text(b, target);
		if (!alias_choices(b, name, lookup_var(b, name, w->fn, at), 0, ch, &n)) {
			for (size_t i = 0; i < n; i++)
				free(ch[i].only_if);
			n = 0;
		}
		free(name);
		return n;
	}
	/* At the call: the condition is tested again in the guard, so only one
	 * without calls (no side effects, the same value just before). */
	TSNode e = ta_node_unparen(target);
	if (!ta_node_is(e, "conditional_expression") || ta_node_named_count(e) != 3)
		return 0;
	TSNode cond = ts_node_named_child(e, 1);
	if (has_call(cond))
		return 0;
	char *ct = text(b, cond);
	bool bare = ta_node_is(cond, "identifier") || ta_node_is(cond, "attribute") ||
		    ta_node_is(cond, "parenthesized_expression");
	int ks[2] = { branch_kernel(b, ta_node_unparen(ts_node_named_child(e, 0))),
		      branch_kernel(b, ta_node_unparen(ts_node_named_child(e, 2))) };
	if (ks[0] != -2 && ks[1] != -2 && ks[0] != ks[1])
		for (int i = 0; i < 2; i++)
			if (ks[i] >= 0)
				add_choice(ch, &n, ks[i], ta_xasprintf(bare ? "%s%s" : "%s(%s)", i ? "not " : "", ct));
	if (ks[0] >= 0 && ks[0] == ks[1])   /* the same kernel either way */
		add_choice(ch, &n, ks[0], NULL);
	free(ct);
	return n;
}

static void push_launch(walk *w, TSNode call, TSNode sub, TSNode value, int k, char *only_if)
{
	builder *b = w->b;
	ta_launch *l = TA_PUSH(b->m->launches, b->m->launch_count, b->launch_cap);
	l->kernel = k;
	l->only_if = only_if;
	l->callee = text(b, value);
	l->span = span(b, call);
	/* The grid is the subscript; `k[a, b]` is a tuple of two. */
	uint32_t nsub = ta_node_named_count(sub);
	TSNode grid = nsub >= 2 ? ta_node_named_child(sub, 1) : null_node;
	if (nsub > 2) {
		l->grid_span = span(b, grid);
		l->grid_span.end = ts_node_end_byte(ta_node_named_child(sub, nsub - 1));
		l->grid_kind = TA_GRID_TUPLE;
		l->grid_def_span = l->grid_span;
		for (uint32_t i = 1; i < nsub; i++) {
			l->grid_dim_text = ta_xrealloc(l->grid_dim_text, (size_t)(l->grid_dims + 1) * sizeof(char *));
			l->grid_dim_text[l->grid_dims++] = text(b, ta_node_named_child(sub, i));
		}
	} else {
		l->grid_span = span(b, grid);
		analyze_grid(w, l, grid);
	}
	collect_args(b, call, &l->kwargs, &l->kwarg_count, &l->args, &l->arg_count);
	l->host = host_index(b, w->fn);
	ta_host *h = &b->m->hosts[l->host];
	h->launches = ta_xrealloc(h->launches, (h->launch_count + 1) * sizeof(int));
	h->launches[h->launch_count++] = (int)b->m->launch_count - 1;
	l->loop_depth = w->hloop_depth;
	if (w->hloop_depth > 0) {
		l->loop_span = span(b, w->hloop);
		if (ta_node_is(w->hloop, "for_statement")) {
			l->loop_var = text(b, ta_node_field(w->hloop, "left"));
			l->loop_iter = text(b, ta_node_field(w->hloop, "right"));
		}
	}
	b->m->kernels[k].launch_count++;
}

static void walk_launch(walk *w, TSNode call, TSNode sub)
{
	builder *b = w->b;
	TSNode value = ta_node_field(sub, "value");
	int k = -1;
	TSNode target = value;
	/* wrap_triton(kernel)[grid](...) */
	if (ta_node_is(value, "call")) {
		char *c = ta_model_canonical(b->m, ta_node_field(value, "function"));
		if (c && has_suffix(c, "wrap_triton"))
			target = call_arg(value, 0);
		free(c);
	}
	if (ta_node_is(target, "identifier") || ta_node_is(target, "attribute")) {
		TSNode id = ta_node_is(target, "attribute") ? ta_node_field(target, "attribute") : target;
		char *name = text(b, id);
		k = ta_model_find_kernel(b->m, name);
		free(name);
	}
	launch_choice ch[MAX_CHOICES] = { { k, NULL } };
	size_t nch = k >= 0 ? 1 : launch_choices(w, target, ts_node_start_byte(call), ch);
	for (size_t i = 0; i < nch; i++)
		push_launch(w, call, sub, value, ch[i].kernel, ch[i].only_if);
}

/* ---- kernel loops ----------------------------------------------------------------- */

static void add_kernel_loop(walk *w, TSNode node)
{
	builder *b = w->b;
	ta_kernel *k = &b->m->kernels[w->kernel];
	ta_loop *lp = TA_APPEND(k->loops, k->loop_count);
	lp->span = span(b, node);
	lp->parent = w->kloop;
	lp->depth = w->kloop_depth + 1;
	if (ta_node_is(node, "while_statement")) {
		lp->kind = TA_LOOP_WHILE;
		TSNode cond = ta_node_field(node, "condition");
		lp->iter = span(b, cond);
		lp->header = lp->iter;
		return;
	}
	TSNode right = ta_node_field(node, "right");
	lp->var = text(b, ta_node_field(node, "left"));
	lp->iter = span(b, right);
	lp->header = span(b, node);
	lp->header.end = ts_node_end_byte(right);
	lp->header.end_line = (uint32_t)ta_node_end_line(right);
	lp->kind = TA_LOOP_FOR_OTHER;
	if (ta_node_is(right, "call")) {
		char *c = ta_model_canonical(b->m, ta_node_field(right, "function"));
		if (c && !strcmp(c, "range"))
			lp->kind = TA_LOOP_RANGE;
		else if (c && (has_suffix(c, "static_range") && has_prefix(c, "triton")))
			lp->kind = TA_LOOP_STATIC_RANGE;
		else if (c && has_prefix(c, "triton") && has_suffix(c, ".range"))
			lp->kind = TA_LOOP_TL_RANGE;
		free(c);
		ta_span *args = NULL;
		size_t nargs = 0;
		collect_args(b, right, &lp->kwargs, &lp->kwarg_count, &args, &nargs);
		lp->args = ta_xcalloc(nargs ? nargs : 1, sizeof(char *));
		for (size_t i = 0; i < nargs; i++)
			lp->args[i] = ta_xstrndup(b->src->text + args[i].start, args[i].end - args[i].start);
		lp->arg_count = nargs;
		free(args);
	}
}

/* ---- the iterative walk -------------------------------------------------------- */

static void push_frame(walk *w, size_t depth, int kind, int index, TSNode node)
{
	frame *f = TA_PUSH(w->frames, w->frame_count, w->frame_cap);
	f->depth = depth;
	f->kind = kind;
	f->index = index;
	f->node = node;
}

/* Recomputes the context from the frame stack after a push or pop. */
static void refresh_context(walk *w)
{
	w->fn = -1;
	w->kernel = -1;
	w->kloop = -1;
	w->kloop_depth = 0;
	w->hloop_depth = 0;
	w->hloop = null_node;
	for (size_t i = 0; i < w->frame_count; i++) {
		frame *f = &w->frames[i];
		if (f->kind == FR_FUNCTION) {
			w->fn = f->index;
			w->kernel = w->b->m->functions[f->index].kernel;
			w->kloop = -1;
			w->kloop_depth = 0;
			w->hloop_depth = 0;
		} else if (f->kind == FR_KLOOP) {
			w->kloop = f->index;
			w->kloop_depth++;
		} else {
			w->hloop_depth++;
			w->hloop = f->node;
		}
	}
}

static void enter(walk *w, TSNode n, TSNode parent, size_t depth)
{
	builder *b = w->b;
	const char *type = ts_node_type(n);
	if (!strcmp(type, "function_definition")) {
		int f = function_at(b->m, ts_node_start_byte(ta_node_field(n, "name")));
		if (f >= 0) {
			push_frame(w, depth, FR_FUNCTION, f, n);
			refresh_context(w);
		}
	} else if (!strcmp(type, "for_statement") || !strcmp(type, "while_statement")) {
		if (w->kernel >= 0) {
			add_kernel_loop(w, n);
			push_frame(w, depth, FR_KLOOP, (int)b->m->kernels[w->kernel].loop_count - 1, n);
		} else {
			push_frame(w, depth, FR_HLOOP, -1, n);
		}
		refresh_context(w);
	} else if (!strcmp(type, "call")) {
		TSNode fn = ta_node_field(n, "function");
		if (ta_node_is(fn, "subscript")) {
			if (w->kernel < 0)
				walk_launch(w, n, fn);
		} else if (w->kernel >= 0) {
			walk_kernel_call(w, n, parent);
		} else {
			walk_host_call(w, n, parent);
		}
	} else if (!strcmp(type, "attribute") && w->kernel >= 0) {
		/* x.T transposes a tile */
		if (text_eq(b, ta_node_field(n, "attribute"), "T") && !ta_node_is(parent, "call"))
			add_op(w, TA_OP_TRANS, ta_xstrdup(".T"), n, parent)->receiver =
				text(b, ta_node_field(n, "object"));
	} else if (!strcmp(type, "assert_statement") && w->kernel < 0) {
		add_host_op(w, TA_HOST_ASSERT, n, null_node, NULL, null_node);
	}
}

/* Runs enter() over the nodes the names walk kept, in document order. A
 * frame ends before the next kept node that is not inside it: one as deep or
 * deeper, or one that starts where the frame's node has ended. */
static void walk_tree(builder *b)
{
	walk w = { .b = b, .fn = -1, .kernel = -1, .kloop = -1 };
	for (size_t i = 0; i < b->walk_node_count; i++) {
		const struct walk_node *wn = &b->walk_nodes[i];
		bool popped = false;
		uint32_t start = ts_node_start_byte(wn->node);
		while (w.frame_count && (w.frames[w.frame_count - 1].depth >= wn->depth ||
					 ts_node_end_byte(w.frames[w.frame_count - 1].node) <= start)) {
			w.frame_count--;
			popped = true;
		}
		if (popped)
			refresh_context(&w);
		enter(&w, wn->node, wn->parent, wn->depth);
	}
	free(w.frames);
}

/* ---- pointer shapes ------------------------------------------------------------- */

typedef struct shape_info {
	int rank;                 /* broadcast rank seen: 2 for [:, None] */
	unsigned dims;            /* dimensions a range spans: x[:, None] spans 0,
				     x[None, :] spans 1; a tile needs two */
	bool arange;              /* a tl.arange flows in: at least 1D */
	bool block_ptr;
	bool loaded;              /* a loaded value flows in (a gather) */
	unsigned loaded_dims;     /* the dims a loaded index itself spans: two or
				     more give every element its own address */
	uint32_t loaded_at[4];    /* where the first such load starts, + 1; a helper's
				     parameter: one per call that passes a gathered tile */
	unsigned direct;          /* the dims spanned outside loaded values */
	bool bare;                /* a range not given an axis (`+ tl.arange(0, C)`):
				     it broadcasts on the last one */
	bool branchy;             /* a name read has several bindings: the shape
				     depends on where it is read */
	bool reduced;             /* a reduction along an axis whose result varies
				     along none (tl.argmax of a [1, N] row) */
} shape_info;

static void shape_of(builder *b, const ta_kernel *k, TSNode expr, uint32_t before,
		     int depth, char ***seen, size_t *nseen, shape_info *out);

/* tl.zeros, tl.full or tl.ones written in place: one value everywhere. */
static bool constant_block(const builder *b, TSNode n)
{
	n = ta_node_unparen(n);
	if (!ta_node_is(n, "call"))
		return false;
	char *cn = ta_model_canonical(b->m, ta_node_field(n, "function"));
	const char *tl = tl_function(cn);
	bool c = tl && (!strcmp(tl, "zeros") || !strcmp(tl, "full") || !strcmp(tl, "ones"));
	free(cn);
	return c;
}

/* What a call of Triton's `tl` (its function's name) reduces:
 * REDUCE_ALL, every axis (tl.sum(x), tl.max(x): no axis given, by position
 * or keyword, or None), a scalar whatever x is; REDUCE_AXIS, the one axis
 * given as an integer in *axis (`tl.argmax(x, axis=1)`, `tl.sum(x, 0)`;
 * negative from the end); REDUCE_NONE otherwise (no reduction, or an axis
 * not written as a number). */
enum { REDUCE_NONE, REDUCE_ALL, REDUCE_AXIS };

static int reduction_of(const builder *b, const char *tl, TSNode call, int *axis)
{
	static const char *const reductions[] = { "sum", "max", "min", "argmax", "argmin", "xor_sum", NULL };
	if (!tl || !ta_name_among(tl, reductions))
		return REDUCE_NONE;
	TSNode args = ta_node_field(call, "arguments"), ax = { 0 };
	uint32_t pos = 0;
	bool more = false;        /* a positional argument past the axis, not None */
	for (uint32_t i = 0; i < ta_node_named_count(args); i++) {
		TSNode a = ta_node_named_child(args, i);
		if (ta_node_is(a, "keyword_argument")) {
			if (text_eq(b, ta_node_field(a, "name"), "axis"))
				ax = ta_node_field(a, "value");
		} else if (!ta_node_is(a, "comment")) {
			if (pos == 1)
				ax = a;
			else if (pos > 1)
				more |= !text_eq(b, a, "None");
			pos++;
		}
	}
	if (ts_node_is_null(ax) || text_eq(b, ax, "None"))
		return pos >= 1 && !more ? REDUCE_ALL : REDUCE_NONE;
	char *t = text(b, ax), *end = NULL;
	long v = strtol(t, &end, 10);
	bool number = end && !*end && end != t && v > -8 && v < 8;
	free(t);
	*axis = (int)v;
	return number ? REDUCE_AXIS : REDUCE_NONE;
}

static void add_loaded_at(shape_info *out, uint32_t at)
{
	for (size_t i = 0; i < 4; i++) {
		if (out->loaded_at[i] == at)
			return;
		if (!out->loaded_at[i]) {
			out->loaded_at[i] = at;
			return;
		}
	}
}

/* What a value contributes once it is given axes (x[:, None], expand_dims,
 * reshape, broadcast_to): all of it but its bare range. */
static void merge_given_axes(shape_info *out, const shape_info *inner)
{
	out->arange |= inner->arange;
	out->block_ptr |= inner->block_ptr;
	out->loaded |= inner->loaded;
	out->loaded_dims |= inner->loaded_dims;
	/* the first load a value reads is where its index comes from; the
	 * others a helper's callers pass, or the arms of an if bind, are
	 * alternatives (shape_of_passed, shape_of_name): all of them, when the
	 * value had none yet */
	if (!out->loaded_at[0])
		for (size_t i = 0; i < 4 && inner->loaded_at[i]; i++)
			out->loaded_at[i] = inner->loaded_at[i];
	out->branchy |= inner->branchy;
	out->dims |= inner->dims;
	out->direct |= inner->direct;
	if (inner->rank > out->rank)
		out->rank = inner->rank;
}

/* A binding at def_at, after the read at read_at, that no loop around the
 * read brings back to it: it never gives the read its value (a scalar
 * `seq = tl.load(p + i)` read into a base pointer keeps its shape when a
 * later branch binds `seq` to a loaded block). */
static bool after_read(TSNode root, uint32_t def_at, uint32_t read_at)
{
	if (def_at <= read_at)
		return false;
	for (TSNode p = ta_node_named_at(root, read_at, read_at); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition"))
			break;
		if ((ta_node_is(p, "for_statement") || ta_node_is(p, "while_statement")) &&
		    def_at < ts_node_end_byte(p))
			return false;
	}
	return true;
}

/* `p += offs` (or -=) in the kernel rebinds p to p + offs: what the
 * offsets add to p's shape. A pointer parameter advanced by 2D offsets
 * (`lhs_ptr += rows[:, None] * s_m + cols[None, :] * s_k`, then
 * tl.load(lhs_ptr)) is a tile, as `a_ptrs = lhs_ptr + ...` would be. The
 * file's assignments are in document order: the kernel's are found by a
 * binary search. */
static int by_advance_name(const void *x, const void *y)
{
	const struct advance *a = x, *c = y;
	if (a->len != c->len)
		return a->len < c->len ? -1 : 1;
	int r = memcmp(a->name, c->name, a->len);
	return r ? r : ts_node_start_byte(a->node) < ts_node_start_byte(c->node) ? -1 : 1;
}

/* The kernel's advances, sorted by name (once per kernel: a kernel of
 * thousands of loads asks for each of its names). */
static void index_advances(builder *b, const ta_kernel *k)
{
	const ta_model *m = b->m;
	b->advance_count = 0;
	size_t lo = 0, hi = m->assign_node_count, cap = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ts_node_start_byte(m->assign_nodes[mid].node) < k->def_span.start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->assign_node_count; i++) {
		TSNode n = m->assign_nodes[i].node;
		if (ts_node_start_byte(n) >= k->def_span.end)
			break;
		if (!ta_node_is(n, "augmented_assignment"))
			continue;
		TSNode l = ta_node_field(n, "left");
		if (!ta_node_is(l, "identifier") || ts_node_is_null(ta_node_field(n, "right")) ||
		    !(text_eq(b, ta_node_field(n, "operator"), "+=") || text_eq(b, ta_node_field(n, "operator"), "-=")))
			continue;
		struct advance *a = TA_PUSH(b->advances, b->advance_count, cap);
		a->name = b->src->text + ts_node_start_byte(l);
		a->len = ts_node_end_byte(l) - ts_node_start_byte(l);
		a->node = n;
	}
	if (b->advance_count)
		qsort(b->advances, b->advance_count, sizeof *b->advances, by_advance_name);
}

static void shape_of_advances(builder *b, const ta_kernel *k, const char *name, uint32_t before, int depth,
			      char ***seen, size_t *nseen, shape_info *out)
{
	size_t len = strlen(name), lo = 0, hi = b->advance_count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct advance *a = &b->advances[mid];
		int c = a->len != len ? (a->len < len ? -1 : 1) : memcmp(a->name, name, len);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	for (size_t i = lo; i < b->advance_count && b->advances[i].len == len &&
			    !memcmp(b->advances[i].name, name, len); i++) {
		TSNode n = b->advances[i].node, r = ta_node_field(n, "right");
		if (other_arm(root, ts_node_start_byte(n), before) || after_read(root, ts_node_start_byte(n), before))
			continue;
		out->branchy = true;   /* what it adds depends on where p is read */
		shape_of(b, k, r, ts_node_start_byte(r), depth + 1, seen, nseen, out);
	}
}

static int by_helper(const void *x, const void *y)
{
	const struct helper_call *a = x, *c = y;
	if (a->helper != c->helper)
		return a->helper < c->helper ? -1 : 1;
	if (a->caller != c->caller)
		return a->caller < c->caller ? -1 : 1;
	return (a->op > c->op) - (a->op < c->op);
}

/* Every call of a helper kernel, sorted by callee, once per model. */
static void index_helper_calls(builder *b)
{
	size_t cap = 0;
	for (size_t ci = 0; ci < b->m->kernel_count; ci++) {
		const ta_kernel *caller = &b->m->kernels[ci];
		for (size_t i = 0; i < caller->op_count; i++) {
			const ta_op *op = &caller->ops[i];
			if (op->kind != TA_OP_HELPER_CALL || op->helper < 0)
				continue;
			if (b->helper_call_count == cap) {
				cap = cap ? cap * 2 : 16;
				b->helper_calls = ta_xrealloc(b->helper_calls, cap * sizeof *b->helper_calls);
			}
			b->helper_calls[b->helper_call_count++] = (struct helper_call){ (size_t)op->helper, ci, i };
		}
	}
	if (b->helper_call_count)
		qsort(b->helper_calls, b->helper_call_count, sizeof *b->helper_calls, by_helper);
	b->helper_calls_built = true;
}

/* A parameter of a @triton.jit helper holds what its callers pass: a
 * pointer tile built in the kernel and handed over (`_mm_backward(...,
 * b_ptrs, ...)` with b_ptrs = C + offs_v[:, None] * s) keeps the caller's
 * axes, on which the helper adds its own (`b_ptrs + d[None, :] * s_d`).
 * Each call site's argument, read in its kernel where the call is. */
static void shape_of_passed(builder *b, const ta_kernel *k, const char *name, int depth, shape_info *out)
{
	const ta_param *p = ta_kernel_param(k, name);
	if (!p || p->constexpr_ || depth > 8)
		return;
	size_t pi = (size_t)(p - k->params), self = (size_t)(k - b->m->kernels);
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	if (!b->helper_calls_built)
		index_helper_calls(b);
	size_t lo = 0, hi = b->helper_call_count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b->helper_calls[mid].helper < self)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t h = lo; h < b->helper_call_count && b->helper_calls[h].helper == self; h++) {
		const ta_kernel *caller = &b->m->kernels[b->helper_calls[h].caller];
		{
			const ta_op *op = &caller->ops[b->helper_calls[h].op];
			const ta_kwarg *kw = ta_kwarg_find(op->kwargs, op->kwarg_count, name);
			ta_span a = kw ? kw->value_span : pi < op->arg_count ? op->args[pi] : (ta_span){ 0 };
			if (a.end <= a.start)
				continue;
			TSNode arg = ta_node_named_at(root, a.start, a.end);
			char **cseen = NULL;
			size_t ncseen = 0;
			shape_info inner = { 0 };
			shape_of(b, caller, arg, op->span.start, depth + 1, &cseen, &ncseen, &inner);
			ta_strv_free(cseen, ncseen);
			uint32_t first = inner.loaded_at[0];
			inner.loaded_at[0] = 0;
			merge_given_axes(out, &inner);
			if (first)
				add_loaded_at(out, first);  /* one per call: alternatives */
			out->bare |= inner.bare;
		}
	}
}

/* The binding v reads name in its own value (`b_kt = tl.load(b_kt, ...)`)
 * at offset before: the value it binds reaches that read only around the
 * loop, and not when another binding of name in the same loop, on the
 * read's path, comes first each pass (`b_kt = k + offs` at the loop's
 * top): the tile read is that pointer, not the loaded values. */
static bool killed_before_read(const builder *b, int owner, const char *name, const var_def *v, uint32_t before)
{
	if (before < ts_node_start_byte(v->value) || before >= ts_node_end_byte(v->value))
		return false;
	TSNode root = ts_tree_root_node(b->m->syn->tree), loop = { 0 };
	for (TSNode p = ta_node_named_at(root, before, before); !ts_node_is_null(p); p = ta_node_parent(p)) {
		if (ta_node_is(p, "function_definition"))
			break;
		if (ta_node_is(p, "for_statement") || ta_node_is(p, "while_statement")) {
			loop = p;
			break;
		}
	}
	if (ts_node_is_null(loop))
		return false;
	const var_def *w;
	FOR_OWNER_NAME(b, owner, name, w) {
		uint32_t at = ts_node_start_byte(w->value);
		if (w != v && at > ts_node_start_byte(loop) && at < before && !other_arm(root, at, before) &&
		    ta_values_runs_before(ta_node_parent(w->value), before))
			return true;
	}
	return false;
}

/* Whether another binding of the name, after v and before the read at
 * `before`, runs whenever the read does (in a block that holds the read):
 * v's value never reaches it (`if A: p = K + d[:, None]`, then `if B: p =
 * V + e[None, :]; tl.load(p)` reads the row). */
static bool overwritten_before_read(const builder *b, int owner, const char *name, const var_def *v,
				    uint32_t before)
{
	uint32_t from = ts_node_end_byte(v->value);
	if (from > before)
		return false;
	const var_def *w;
	FOR_OWNER_NAME(b, owner, name, w) {
		uint32_t at = ts_node_start_byte(w->value);
		/* one that reads the name (`page = page.to(tl.int64)`) carries v on */
		if (w != v && at > from && at < before && ta_values_runs_before(ta_node_parent(w->value), before) &&
		    !ta_node_contains_identifier(b->src, w->value, name))
			return true;
	}
	return false;
}

static void shape_of_name(builder *b, const ta_kernel *k, const char *name, uint32_t before,
			  int depth, char ***seen, size_t *nseen, shape_info *out)
{
	for (size_t i = 0; i < *nseen; i++)
		if (!strcmp((*seen)[i], name))
			return;
	add_unique(seen, nseen, name);
	int owner = function_at(b->m, k->def_span.start);
	/* Every assignment of the name in the kernel: a pointer advanced in a loop
	 * keeps the shape it was given before the loop. Not one in another arm of
	 * an if than the read: `if IS_2D: offs = r[:, None] * s + c[None, :]
	 * else: offs = r` gives the read in the else a 1D pointer. */
	const var_def *v;
	size_t end, first = owner_name_first(b, owner, name, &end), defs = end - first;
	/* a parameter is bound once more, on entry: a read before its
	 * rebinding (`first = tl.load(X)`, then `X = X + offs`) is of the base */
	if (ta_kernel_param(k, name))
		defs++;
	if (defs > 1)
		out->branchy = true;
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	FOR_OWNER_NAME(b, owner, name, v)
		if (!(defs > 1 && (other_arm(root, ts_node_start_byte(v->value), before) ||
				   after_read(root, ts_node_start_byte(v->value), before) ||
				   killed_before_read(b, owner, name, v, before) ||
				   overwritten_before_read(b, owner, name, v, before) ||
				   paired_other_arm(b, ts_node_start_byte(v->value), before))))
			shape_of(b, k, v->value, ts_node_start_byte(v->value), depth + 1, seen, nseen, out);
	shape_of_advances(b, k, name, before, depth, seen, nseen, out);
	shape_of_passed(b, k, name, depth, out);
}

/* Whether call n calls a @jit helper of the file whose every return
 * value is a reduction over all axes (`return tl.sum(tl.where(offs == i,
 * x, 0))`: one element picked out of a block): a scalar, whatever blocks
 * its arguments are. */
static bool helper_returns_scalar(builder *b, TSNode n)
{
	TSNode fn = ta_node_field(n, "function");
	if (!ta_node_is(fn, "identifier"))
		return false;
	const ta_kernel *h = NULL;
	size_t hi = 0;
	for (size_t i = 0; i < b->m->kernel_count && !h; i++)
		if (text_eq(b, fn, b->m->kernels[i].name))
			h = &b->m->kernels[(hi = i)];
	if (!h || ts_node_is_null(h->node))
		return false;
	/* read once per helper: a pointer's shape walk meets its calls at
	 * every access */
	if (b->helper_scalar_count != b->m->kernel_count) {
		free(b->helper_scalar);
		b->helper_scalar_count = b->m->kernel_count;
		b->helper_scalar = ta_xmalloc(b->helper_scalar_count);
		memset(b->helper_scalar, -1, b->helper_scalar_count);
	}
	if (b->helper_scalar[hi] >= 0)
		return b->helper_scalar[hi];
	size_t returns = 0, scalar = 0;
	ta_walk w;
	ta_walk_start(&w, ta_node_field(h->node, "body"));
	for (;;) {
		TSNode r = ta_walk_node(&w);
		bool into = true;
		if (ta_node_is(r, "function_definition") || ta_node_is(r, "lambda")) {
			into = false;
		} else if (ta_node_is(r, "return_statement")) {
			returns++;
			TSNode v = ta_node_unparen(ta_node_named_child(r, 0));
			int ax = 0;
			if (ta_node_is(v, "call")) {
				char *cn = ta_model_canonical(b->m, ta_node_field(v, "function"));
				scalar += reduction_of(b, tl_function(cn), v, &ax) == REDUCE_ALL;
				free(cn);
			}
			into = false;
		}
		if (!ta_walk_next(&w, into))
			break;
	}
	ta_walk_finish(&w);
	b->helper_scalar[hi] = returns && scalar == returns;
	return b->helper_scalar[hi];
}

static void shape_of(builder *b, const ta_kernel *k, TSNode expr, uint32_t before,
		     int depth, char ***seen, size_t *nseen, shape_info *out)
{
	if (ts_node_is_null(expr) || depth > 8)
		return;
	names_ids id;
	names_ids_init(&id);
	ta_walk c;
	ta_walk_start(&c, expr);
	for (;;) {
		TSNode n = ta_walk_node(&c);
		bool descend = true;
		/* by symbol, not by name: no anonymous node is called so */
		TSSymbol type = ta_walk_named_symbol(&c);
		if (type == id.subscript) {
			uint32_t nsub = ta_node_named_count(n);
			bool none = false;
			unsigned spans = 0;
			for (uint32_t i = 1; i < nsub; i++) {
				TSNode d = ta_node_named_child(n, i);
				none |= ta_node_is(d, "none");
				if (ta_node_is(d, "slice") && i - 1 < 8)
					spans |= 1u << (i - 1);
			}
			if (none) {
				/* the subscripted value's range is given an axis: not bare
				 * (a part of this expression: the same depth) */
				shape_info inner = { 0 };
				shape_of(b, k, ta_node_named_child(n, 0), before, depth, seen, nseen, &inner);
				/* a constant block (`tl.zeros([BM], ...)[:, None]`) spans
				 * nothing: its rows are the same address */
				/* nor does a reduction that varies along no axis
				 * (`tl.argmax(row, axis=1)[:, None]`: one element) */
				if (!constant_block(b, ta_node_named_child(n, 0)) &&
				    !(inner.reduced && !inner.arange && !inner.dims && !inner.loaded)) {
					out->dims |= spans;
					out->direct |= spans;
				}
				if ((int)nsub - 1 > out->rank)
					out->rank = (int)nsub - 1;
				merge_given_axes(out, &inner);
				descend = false;
			}
		} else if (type == id.call) {
			char *cn = ta_model_canonical(b->m, ta_node_field(n, "function"));
			const char *tl = tl_function(cn);
			int red, ax = 0;
			if (tl && !strcmp(tl, "arange"))
				out->arange = out->bare = true;
			else if (tl && !strcmp(tl, "make_block_ptr"))
				out->block_ptr = true;
			else if ((red = reduction_of(b, tl, n, &ax)) == REDUCE_ALL || (!tl && helper_returns_scalar(b, n)))
				descend = false;   /* a scalar: `tl.sum(ends <= row)` is no index per row */
			else if (red == REDUCE_AXIS) {
				/* along one axis: what varies along the others, the axes
				 * above it moving down one */
				shape_info inner = { 0 };
				shape_of(b, k, call_arg(n, 0), before, depth, seen, nseen, &inner);
				int rank = inner.rank ? inner.rank : 1;
				ax = ax < 0 ? rank + ax : ax;
				unsigned low = ax > 0 ? inner.dims & ((1u << ax) - 1) : 0;
				unsigned left = ax >= 0 && ax < 8 ? low | (inner.dims >> (ax + 1)) << ax : inner.dims;
				out->dims |= left;
				out->direct |= left;
				out->arange |= left != 0;
				out->loaded |= inner.loaded;
				out->loaded_dims |= inner.loaded && left ? inner.loaded_dims : 0;
				out->branchy |= inner.branchy;
				out->reduced |= !left && !inner.loaded;
				descend = false;
			}
			else if (tl && !strcmp(tl, "load")) {
				/* A loaded block of offsets makes a gather; a scalar loaded
				 * from a pointer table does not. Its own question: names
				 * already walked for the access (`M_block` in `rows if G
				 * else tl.load(idx + M_block)`) still count here. */
				shape_info inner = { 0 };
				char **lseen = NULL;
				size_t nlseen = 0;
				shape_of(b, k, call_arg(n, 0), before, depth + 1, &lseen, &nlseen, &inner);
				ta_strv_free(lseen, nlseen);
				if (inner.arange || inner.dims) {
					out->loaded = true;
					out->loaded_dims |= inner.dims;
					/* each load a name's bindings reach is a source
					 * (`rows = idx_a` in one arm, `rows =
					 * tl.load(idx_b + offs)` in the other) */
					add_loaded_at(out, ts_node_start_byte(n) + 1);
				}
				out->arange |= inner.arange;
				out->dims |= inner.dims;
				out->branchy |= inner.branchy;
				descend = false;
			}
			else if (tl && !strcmp(tl, "expand_dims")) {
				/* expand_dims(x, 0) is a row [1, N]: x spans dim 1. */
				unsigned d = text_eq(b, call_arg(n, 1), "0") ? 2u : 1u;
				out->dims |= d;
				out->direct |= d;
				if (out->rank < 2)
					out->rank = 2;
				shape_info inner = { 0 };
				shape_of(b, k, call_arg(n, 0), before, depth, seen, nseen, &inner);
				merge_given_axes(out, &inner);
				descend = false;
			} else if (tl && (!strcmp(tl, "broadcast_to") || !strcmp(tl, "reshape"))) {
				TSNode shape = call_arg(n, 1);
				int r = (int)ta_node_named_count(shape);
				if (r > out->rank)
					out->rank = r;
				unsigned d = r >= 2 && r < 8 ? (1u << r) - 1 : 0;
				out->dims |= d;
				out->direct |= d;
				shape_info inner = { 0 };
				shape_of(b, k, call_arg(n, 0), before, depth, seen, nseen, &inner);
				merge_given_axes(out, &inner);
				descend = false;
			}
			free(cn);
		} else if (type == id.identifier) {
			/* An attribute's name (x.shape) or a keyword's (mask=) is not a
			 * value. The walk knows the field it came down by; asking the
			 * tree for the parent would walk down from the root again. */
			TSFieldId field = ta_walk_field(&c);
			if (field != id.attribute_f && field != id.name) {
				/* a parameter too: `A = A + (rm[:, None] * s + rk[None, :])`
				 * rebinds the base to a tile (one without assignments
				 * has nothing to follow) */
				char *name = text(b, n);
				shape_of_name(b, k, name, before, depth, seen, nseen, out);
				free(name);
			}
			descend = false;
		} else if (type == id.attribute) {
			/* tl.float32 and friends are names, not values. */
			descend = false;
			TSNode obj = ta_node_field(n, "object");
			if (!ta_node_is(obj, "identifier") || !alias_target(b->m, b->src->text + ts_node_start_byte(obj),
									      ts_node_end_byte(obj) - ts_node_start_byte(obj)))
				shape_of(b, k, obj, before, depth + 1, seen, nseen, out);
		}
		if (!ta_walk_next(&c, descend))
			break;
	}
	ta_walk_finish(&c);
}

/* A kernel's pointer expressions already classified, by their text: the
 * shape of an expression depends only on its text and the kernel (its
 * parameters and assignments, the file's imports), and a kernel often
 * loads and stores through the same pointer (`tl.load(a_ptrs)` in a loop,
 * `tl.store(x_ptr + offs)` after a load of it), each of which walked the
 * same assignments again. An expression under a syntax error is not kept. */
typedef struct shape_memo {
	struct shape_slot {
		uint32_t start, len;  /* the text, in the source */
		uint64_t hash;
		shape_info si;
	} *slots;
	size_t cap;
} shape_memo;

static struct shape_slot *shape_memo_find(shape_memo *sm, const ta_source *src, uint32_t start,
					   uint32_t len, uint64_t hash)
{
	for (size_t i = hash % sm->cap;; i = (i + 1) % sm->cap) {
		struct shape_slot *s = &sm->slots[i];
		if (!s->len || (s->hash == hash && s->len == len &&
				!memcmp(src->text + s->start, src->text + start, len)))
			return s;
	}
}

static void classify_pointers(builder *b)
{
	TSNode root = ts_tree_root_node(b->m->syn->tree);
	for (size_t ki = 0; ki < b->m->kernel_count; ki++) {
		ta_kernel *k = &b->m->kernels[ki];
		/* at most one slot per load or store, half the table left free */
		index_advances(b, k);
		shape_memo sm = { .cap = 2 * k->op_count + 1 };
		sm.slots = ta_xcalloc(sm.cap, sizeof *sm.slots);
		for (size_t i = 0; i < k->op_count; i++) {
			ta_op *op = &k->ops[i];
			if (op->kind != TA_OP_LOAD && op->kind != TA_OP_STORE)
				continue;
			const ta_kwarg *pk = ta_kwarg_find(op->kwargs, op->kwarg_count, "pointer");
			ta_span ps = op->arg_count ? op->args[0] : pk ? pk->value_span : (ta_span){ 0 };
			if (ps.end == 0) {
				op->ptr_shape = TA_PTR_UNKNOWN;
				continue;
			}
			TSNode expr = ta_node_named_at(root, ps.start, ps.end);
			shape_info si = { 0 };
			uint32_t len = ps.end > ps.start && ps.end <= b->src->len ? ps.end - ps.start : 0;
			struct shape_slot *slot = NULL;
			bool known = false;
			if (len && !ts_node_is_null(expr) && !ts_node_has_error(expr)) {
				uint64_t h = ta_hash_bytes(b->src->text + ps.start, len);
				slot = shape_memo_find(&sm, b->src, ps.start, len, h);
				known = slot->len != 0;
				if (known)
					si = slot->si;
				else
					*slot = (struct shape_slot){ .start = ps.start, .len = len, .hash = h };
			}
			/* a shape that depends on where its names are read is not
			 * the shape of the same text elsewhere */
			if (known && si.branchy)
				known = false;
			if (!known) {
				si = (shape_info){ 0 };
				char **seen = NULL;
				size_t nseen = 0;
				shape_of(b, k, expr, ps.start, 0, &seen, &nseen, &si);
				ta_strv_free(seen, nseen);
				if (slot)
					slot->si = si;
			}
			/* a bare range beside terms on the leading axes broadcasts
			 * on the last: `r[:, None] * s + tl.arange(0, C)` is 2D */
			if (si.bare && si.rank >= 2 && si.rank < 8 && (si.dims & ((1u << (si.rank - 1)) - 1)) &&
			    !(si.dims >> (si.rank - 1) & 1)) {
				si.dims |= 1u << (si.rank - 1);
				si.direct |= 1u << (si.rank - 1);
			}
			op->ptr_rank = si.rank ? si.rank : si.arange ? 1 : 0;
			op->ptr_shape = si.block_ptr ? TA_PTR_BLOCK_PTR :
					__builtin_popcount(si.dims) >= 2 ? TA_PTR_2D :
					si.arange || si.dims ? TA_PTR_1D : TA_PTR_SCALAR;
			op->gather = si.loaded && op->ptr_shape == TA_PTR_2D;
			for (size_t g = 0; op->gather && g < 4; g++)
				op->gather_at[g] = si.loaded_at[g];
			/* no axis of its own, or an index tile that picks each
			 * element's address (`p + idx2d * n + cols[None, :]`,
			 * idx2d loaded through a 2D pointer): no row moves whole */
			op->lookup = op->gather && (!si.direct || __builtin_popcount(si.loaded_dims) >= 2);
		}
		free(sm.slots);
	}
}

/* ---- after the walk --------------------------------------------------------------- */

/* Is this value the program id itself, or it shifted: `tl.program_id(0)`,
 * `pid`, `start_pid - NUM_SMS`? */
static bool is_program_id(const builder *b, const ta_kernel *k, TSNode v, int depth)
{
	v = ta_node_unparen(v);
	if (ta_node_is(v, "call")) {
		char *fn = text(b, ta_node_field(v, "function"));
		bool yes = fn && strstr(fn, "program_id") != NULL;
		free(fn);
		return yes;
	}
	if (ta_node_is(v, "identifier")) {
		for (size_t i = 0; i < k->op_count; i++)
			if (k->ops[i].kind == TA_OP_PROGRAM_ID && k->ops[i].target && text_eq(b, v, k->ops[i].target))
				return true;
		return false;
	}
	if (ta_node_is(v, "binary_operator") && depth < 4 &&
	    (text_eq(b, ta_node_field(v, "operator"), "+") || text_eq(b, ta_node_field(v, "operator"), "-")))
		return is_program_id(b, k, ta_node_field(v, "left"), depth + 1);
	return false;
}

/* A program count: a name (NUM_SMS, num_programs) or tl.num_programs(...). */
static bool is_program_count(const builder *b, TSNode v)
{
	if (ta_node_is(v, "identifier"))
		return true;
	if (!ta_node_is(v, "call"))
		return false;
	char *fn = text(b, ta_node_field(v, "function"));
	bool yes = fn && strstr(fn, "num_programs") != NULL;
	free(fn);
	return yes;
}

/* Statements and what contains them: the nodes worth going down into when
 * looking for a statement. */
static bool holds_statements(TSNode n)
{
	const char *t = ts_node_type(n);
	size_t len = strlen(t);
	return !strcmp(t, "block") || !strcmp(t, "module") || !strcmp(t, "function_definition") ||
	       !strcmp(t, "decorated_definition") ||
	       (len > 10 && !strcmp(t + len - 10, "_statement")) ||
	       (len > 7 && !strcmp(t + len - 7, "_clause"));
}

/* Persistent, the stepped form: inside a loop, a tile index that started at
 * the program id moves on by a program count (`tile_id += NUM_SMS`), as in
 * Triton's fused persistent matmul or a while loop over tiles. Two passes:
 * the names bound from the program id, then their `+=` steps. */
/* Whether the kernel has a statement that the second pass below could take:
 * `x += n` or `x += tl.num_programs(..)` inside one of its loops. Read from
 * the model's assignments (a superset of what the walk reaches), this
 * leaves out both walks of most kernels. */
static bool may_step_by_program_count(const builder *b, const ta_kernel *k)
{
	const ta_model *m = b->m;
	uint32_t from = ts_node_start_byte(k->node), to = ts_node_end_byte(k->node);
	size_t lo = 0, hi = m->assign_node_count;
	while (lo < hi) {         /* the first assignment starting at or after from */
		size_t mid = (lo + hi) / 2;
		if (ts_node_start_byte(m->assign_nodes[mid].node) < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < m->assign_node_count; i++) {
		TSNode n = m->assign_nodes[i].node;
		uint32_t at = ts_node_start_byte(n);
		if (at >= to)
			break;
		if (!ta_node_is(n, "augmented_assignment") || !text_eq(b, ta_node_field(n, "operator"), "+=") ||
		    !ta_node_is(ta_node_field(n, "left"), "identifier") || !is_program_count(b, ta_node_field(n, "right")))
			continue;
		for (size_t l = 0; l < k->loop_count; l++)
			if (k->loops[l].span.start <= at && at < k->loops[l].span.end)
				return true;
	}
	return false;
}

static bool steps_by_program_count(const builder *b, const ta_kernel *k)
{
	if (!may_step_by_program_count(b, k))
		return false;
	char **pid_names = NULL;
	size_t npid = 0;
	bool yes = false;
	for (int pass = 0; pass < 2 && !yes; pass++) {
		/* Only statements hold the assignments wanted here: going down
		 * into every expression of the kernel cost more than the rest. */
		const char *want = pass == 0 ? "assignment" : "augmented_assignment";
		ta_walk c;
		ta_walk_start(&c, k->node);
		for (;;) {
			TSNode n = ta_walk_node(&c);
			bool wanted = ta_node_is(n, want);
			if (wanted) {
				TSNode left = ta_node_field(n, "left"), right = ta_node_field(n, "right");
				if (pass == 0 && ta_node_is(left, "identifier") && is_program_id(b, k, right, 0)) {
					char *x = text(b, left);
					add_unique(&pid_names, &npid, x);
					free(x);
				} else if (pass == 1 && text_eq(b, ta_node_field(n, "operator"), "+=") &&
					   ta_node_is(left, "identifier") && is_program_count(b, right)) {
					uint32_t at = ts_node_start_byte(n);
					bool in_loop = false;
					for (size_t l = 0; l < k->loop_count && !in_loop; l++)
						in_loop = k->loops[l].span.start <= at && at < k->loops[l].span.end;
					for (size_t i = 0; i < npid && in_loop && !yes; i++)
						yes = text_eq(b, left, pid_names[i]);
				}
			}
			/* into an assignment too: `pid = start = tl.program_id(0)` */
			if (yes || !ta_walk_next(&c, wanted || holds_statements(n)))
				break;
		}
		ta_walk_finish(&c);
		if (!npid)
			break;
	}
	ta_strv_free(pid_names, npid);
	return yes;
}

static void finish_kernels(builder *b)
{
	for (size_t ki = 0; ki < b->m->kernel_count; ki++) {
		ta_kernel *k = &b->m->kernels[ki];
		for (size_t i = 0; i < k->op_count; i++)
			if (k->ops[i].kind == TA_OP_HELPER_CALL && k->ops[i].helper >= 0)
				b->m->kernels[k->ops[i].helper].is_helper = true;
		/* Persistent: a tile loop starting at program_id with a program-count
		 * stride. The names program ids are bound to, gathered once (a
		 * kernel of thousands of loops asks for each). */
		const char **pid_names = NULL;
		size_t npid = 0;
		for (size_t i = 0; i < k->op_count; i++)
			if (k->ops[i].kind == TA_OP_PROGRAM_ID && k->ops[i].target)
				*TA_APPEND(pid_names, npid) = k->ops[i].target;
		for (size_t l = 0; l < k->loop_count && !k->persistent; l++)
			k->persistent = ta_loop_steps_by_programs(&k->loops[l], pid_names, npid);
		free(pid_names);
		if (!k->persistent && k->loop_count)
			k->persistent = steps_by_program_count(b, k);
	}
	for (size_t ki = 0; ki < b->m->kernel_count; ki++)
		if (b->m->kernels[ki].launch_count > 0)
			b->m->kernels[ki].is_helper = false;
}

static void read_host_patterns(builder *b)
{
	walk w = { .b = b };
	for (size_t i = 0; i < b->host_match_count; i++) {
		TSNode n = b->host_matches[i].node;
		w.fn = function_at(b->m, ts_node_start_byte(n));
		if (w.fn >= 0 && b->m->functions[w.fn].kernel >= 0)
			continue;   /* a ceiling division inside a kernel is normal */
		add_host_op(&w, b->host_matches[i].kind, n, null_node, NULL, null_node);
	}
}

ta_model *ta_model_build(const ta_source *src, const ta_syntax *syn, char **err)
{
	*err = NULL;
	ta_model *m = ta_xcalloc(1, sizeof *m);
	m->src = src;
	m->syn = syn;
	m->index = ta_index_new();
	builder b = { .m = m, .src = src, .module_host = -1 };
	read_names(&b, ta_syntax_flat(syn));
	b.fn_host = ta_xmalloc((m->function_count ? m->function_count : 1) * sizeof(int));
	for (size_t i = 0; i < m->function_count; i++)
		b.fn_host[i] = -1;
	read_assignments(&b);
	read_module_aliases(&b);
	read_decorated_kernels(&b);
	read_wrapped_kernels(&b);
	walk_tree(&b);
	read_host_patterns(&b);
	classify_pointers(&b);
	finish_kernels(&b);
	for (size_t i = 0; i < b.var_count; i++)
		free(b.vars[i].name);
	free(b.vars);
	free(b.advances);
	free(b.helper_calls);
	free(b.helper_scalar);
	free(b.by_owner);
	free(b.owner_start);
	free(b.fn_host);
	free(b.host_matches);
	free(b.walk_nodes);
	return m;
}
