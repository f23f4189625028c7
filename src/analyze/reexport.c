/* Triton re-exported by a project's own module (reexport.h). */
#include "config.h"
#include "analyze/reexport.h"
#include "analyze/flat.h"
#include "analyze/source.h"
#include "analyze/syntax.h"
#include "util/buf.h"
#include "util/fsutil.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 2       /* modules followed from the first */
#define MAX_UP 12         /* folders searched above the importer */
#define CACHE_SLOTS 512

/* The names by which projects re-export Triton: anything else is not
 * looked up for an import (no file is read for `from .utils import
 * cdiv_fn`). Besides Triton's own names, a project's aliases of them say so
 * in their name (Fast-LLM's triton_jit, triton_autotune, TritonConfig,
 * tl_arange, tl_constexpr). A decorator is looked up whatever it is called
 * (ta_reexport_wrapper): a wrapper of Triton's may be called anything. */
static bool reexported_name(const char *name)
{
	static const char *const names[] = { "triton", "tl", "language", "jit", "autotune", "heuristics", "Config",
					     "libdevice", NULL };
	for (size_t i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			return true;
	return !strncmp(name, "tl_", 3) || !strncmp(name, "triton_", 7) || !strncmp(name, "Triton", 6);
}

/* The file of module (absolute `a.b`, or relative `..a`) as imported from
 * the file at importer (an absolute path), or NULL. */
static char *find_module(const char *importer, const char *module)
{
	size_t dots = strspn(module, ".");
	const char *rest = module + dots;
	char *rel = ta_xstrdup(rest);
	for (char *p = rel; *p; p++)
		if (*p == '.')
			*p = '/';
	char *dir = ta_path_dirname(importer), *found = NULL;
	/* a relative import climbs one folder per dot after the first; an
	 * absolute one is looked for in each folder above the importer */
	int ups = dots ? (int)dots - 1 : 0, tries = dots ? 1 : MAX_UP;
	for (int i = 0; i < ups; i++) {
		char *up = ta_path_dirname(dir);
		free(dir);
		dir = up;
	}
	for (int t = 0; t < tries && !found; t++) {
		char *base = *rel ? ta_path_join(dir, rel) : ta_xstrdup(dir);
		char *py = ta_xasprintf("%s.py", base), *init = ta_path_join(base, "__init__.py");
		if (*rel && ta_path_exists(py) && !ta_path_is_dir(py))
			found = ta_xstrdup(py);
		else if (ta_path_exists(init) && !ta_path_is_dir(init))
			found = ta_xstrdup(init);
		free(py);
		free(init);
		free(base);
		char *up = ta_path_dirname(dir);
		bool top = !strcmp(up, dir);
		free(dir);
		dir = up;
		if (top)
			break;
	}
	free(dir);
	free(rel);
	return found;
}

/* find_module, remembered by the importer's folder and the module (a
 * folder's files import the same modules, most of them not the project's:
 * a miss is remembered too). */
static struct module_slot {
	char *key;                /* the importer's folder, a newline, the module */
	char *file;               /* NULL: not found */
} module_cache[CACHE_SLOTS];
static size_t module_next;

static char *cached_module(const char *importer, const char *module)
{
	char *dir = ta_path_dirname(importer);
	char *key = ta_xasprintf("%s\n%s", dir, module);
	free(dir);
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		if (module_cache[i].key && !strcmp(module_cache[i].key, key)) {
			free(key);
			return module_cache[i].file ? ta_xstrdup(module_cache[i].file) : NULL;
		}
	char *file = find_module(importer, module);
	struct module_slot *s = &module_cache[module_next++ % CACHE_SLOTS];
	free(s->key);
	free(s->file);
	s->key = key;
	s->file = file ? ta_xstrdup(file) : NULL;
	return file;
}

/* A module file read and parsed (as any file: size-bounded, regular files
 * only): its tree, with its source in *src; NULL when either fails (*src
 * may then be set). The caller frees both. A tree is not kept past the
 * question: trees come from the parser's arena. */
static ta_syntax *load_module(const char *file, ta_source **src)
{
	char *err = NULL;
	*src = NULL;
	ta_syntax *syn = ta_source_load(file, src, &err) == 0 ? ta_syntax_parse(*src, &err) : NULL;
	free(err);
	return syn;
}

static char *resolve(const char *importer, const char *module, const char *name, int depth, bool any_name);

/* What the import statement st of the module file at path binds `want` to,
 * when that is Triton; NULL otherwise. */
static char *import_binding(const ta_source *src, const char *path, TSNode st, const char *want, int depth)
{
	bool from = ta_node_is(st, "import_from_statement");
	if (!from && !ta_node_is(st, "import_statement"))
		return NULL;
	TSNode mod = from ? ta_node_field(st, "module_name") : (TSNode){ 0 };
	char *module = from ? ta_node_text(src, mod) : NULL, *result = NULL;
	for (uint32_t i = 0; i < ta_node_named_count(st) && !result; i++) {
		TSNode ch = ta_node_named_child(st, i);
		if (from && ts_node_eq(ch, mod))
			continue;
		TSNode nm = ta_node_is(ch, "aliased_import") ? ta_node_field(ch, "name") : ch;
		if (!ta_node_is(nm, "dotted_name"))
			continue;
		char *n = ta_node_text(src, nm);
		char *alias = ta_node_is(ch, "aliased_import") ? ta_node_text(src, ta_node_field(ch, "alias")) :
			      from ? ta_xstrdup(n) : ta_xstrndup(n, strcspn(n, "."));
		if (!strcmp(alias, want)) {
			char *target = from ? ta_xasprintf("%s.%s", module, n) :
				       ta_node_is(ch, "aliased_import") ? ta_xstrdup(n) : ta_xstrdup(alias);
			if (!strncmp(target, "triton", 6) && (target[6] == '\0' || target[6] == '.'))
				result = target;
			else {
				free(target);
				if (from && depth < MAX_DEPTH)
					result = resolve(path, module, n, depth + 1, false);
			}
		}
		free(alias);
		free(n);
	}
	free(module);
	return result;
}

static char *search_block(const ta_source *src, const char *path, TSNode block, const char *want, int depth,
			  int nest);

/* A dotted name `a.b.c` whose head the module binds to Triton: its full
 * name (`tl.arange` with tl = triton.language: triton.language.arange). */
static char *dotted_value(const ta_source *src, const char *path, TSNode root, TSNode v, int depth)
{
	TSNode head = v;
	while (ta_node_is(head, "attribute"))
		head = ta_node_field(head, "object");
	if (!ta_node_is(head, "identifier"))
		return NULL;
	char *h = ta_node_text(src, head), *full = ta_node_text(src, v), *r = NULL;
	/* the head as the module itself binds it (an import, or an alias of
	 * its own), one level: `tl_arange = tl.arange` asks for tl */
	char *t = strcmp(h, "triton") && reexported_name(h) ? search_block(src, path, root, h, depth + MAX_DEPTH, 0) :
		  !strcmp(h, "triton") ? ta_xstrdup("triton") : NULL;
	if (t && !strchr(full, ' ') && !strchr(full, '\n'))
		r = ta_xasprintf("%s%s", t, full + strlen(h));
	free(t);
	free(h);
	free(full);
	return r;
}

/* What `want = value` at module level binds want to, when that is Triton:
 * an alias (`tl_constexpr = tl.constexpr`), or a decorator wrapped by a
 * project's own call (`triton_jit = try_decorate(lambda: triton.jit)`,
 * `partial(triton.autotune, ...)`), which stands for that decorator: Triton's
 * jit, autotune and heuristics alone, since a wrapped function is no longer
 * the function. */
static char *assign_binding(const ta_source *src, const char *path, TSNode root, TSNode st, const char *want,
			    int depth)
{
	if (!ta_node_is(st, "expression_statement") || depth > 2 * MAX_DEPTH)
		return NULL;
	TSNode a = ta_node_named_child(st, 0);
	if (!ta_node_is(a, "assignment"))
		return NULL;
	TSNode l = ta_node_field(a, "left"), v = ta_node_field(a, "right");
	if (!ta_node_is(l, "identifier") || !ta_node_text_eq(src, l, want) || ts_node_is_null(v))
		return NULL;
	if (ta_node_is(v, "attribute") || ta_node_is(v, "identifier"))
		return dotted_value(src, path, root, v, depth);
	if (!ta_node_is(v, "call"))
		return NULL;
	TSNode args = ta_node_field(v, "arguments");
	for (uint32_t i = 0; i < ta_node_named_count(args); i++) {
		TSNode x = ta_node_named_child(args, i);
		if (ta_node_is(x, "lambda"))
			x = ta_node_field(x, "body");
		if (!ta_node_is(x, "attribute"))
			continue;
		char *r = dotted_value(src, path, root, x, depth);
		if (r && (!strcmp(r, "triton.jit") || !strcmp(r, "triton.autotune") || !strcmp(r, "triton.heuristics") ||
			  !strcmp(r, "triton.runtime.jit") || !strcmp(r, "triton.runtime.autotune")))
			return r;
		free(r);
	}
	return NULL;
}

/* Whether node n, in the body of a function, calls one of Triton's
 * decorators (`return triton.autotune(configs=..., key=key)`, or an inner
 * function applying `triton.jit(fn)`): its full name, or NULL. */
static char *calls_decorator(const ta_source *src, const char *path, TSNode root, TSNode n, int depth)
{
	char *r = NULL;
	ta_walk w;
	ta_walk_start(&w, n);
	do {
		TSNode x = ta_walk_node(&w);
		if (!ta_node_is(x, "call"))
			continue;
		TSNode fn = ta_node_field(x, "function");
		/* `triton.autotune(...)(fn)`: the inner call names it */
		while (ta_node_is(fn, "call"))
			fn = ta_node_field(fn, "function");
		if (!ta_node_is(fn, "attribute"))
			continue;
		r = dotted_value(src, path, root, fn, depth);
		if (r && !(!strcmp(r, "triton.jit") || !strcmp(r, "triton.autotune") || !strcmp(r, "triton.heuristics"))) {
			free(r);
			r = NULL;
		}
	} while (!r && ta_walk_next(&w, true));
	ta_walk_finish(&w);
	return r;
}

/* What a module-level `def want(...)` stands for when its body applies one
 * of Triton's decorators: a project's own wrapper (`def autotune(configs,
 * key, **kw): return triton.autotune(configs=configs, key=key, **kw)`),
 * used as `@autotune(...)` the way Triton's is, so the kernel under it is
 * autotuned (or jitted) by that decorator. */
static char *def_binding(const ta_source *src, const char *path, TSNode root, TSNode st, const char *want,
			 int depth)
{
	if (ta_node_is(st, "decorated_definition"))
		st = ta_node_field(st, "definition");
	if (!ta_node_is(st, "function_definition") || !ta_node_text_eq(src, ta_node_field(st, "name"), want))
		return NULL;
	return calls_decorator(src, path, root, ta_node_field(st, "body"), depth);
}

/* The module-level statements of a block (if, elif, else, try and except
 * bodies included; not classes), searched for want: its imports, a
 * module-level assignment, then a function of that name that wraps one of
 * Triton's decorators. */
static char *search_in(const ta_source *src, const char *path, TSNode root, TSNode block, const char *want,
		       int depth, int nest)
{
	char *r = NULL;
	for (uint32_t i = 0; i < ta_node_named_count(block) && !r && nest < 8; i++) {
		TSNode s = ta_node_named_child(block, i);
		if (ta_node_is(s, "if_statement") || ta_node_is(s, "try_statement") || ta_node_is(s, "elif_clause") ||
		    ta_node_is(s, "else_clause") || ta_node_is(s, "except_clause") || ta_node_is(s, "block"))
			r = search_in(src, path, root, s, want, depth, nest + 1);
		else if (!(r = import_binding(src, path, s, want, depth)) &&
			 !(r = assign_binding(src, path, root, s, want, depth)))
			r = def_binding(src, path, root, s, want, depth);
	}
	return r;
}

static char *search_block(const ta_source *src, const char *path, TSNode block, const char *want, int depth,
			  int nest)
{
	return search_in(src, path, block, block, want, depth, nest);
}

static struct cache_slot {
	char *key;                /* the module's file, a newline, the name */
	char *value;              /* NULL: not Triton */
} cache[CACHE_SLOTS];
static size_t cache_next;

static char *resolve(const char *importer, const char *module, const char *name, int depth, bool any_name)
{
	if ((!any_name && !reexported_name(name)) || !strncmp(module, "triton", 6))
		return NULL;
	char *file = cached_module(importer, module);
	if (!file)
		return NULL;
	char *key = ta_xasprintf("%s\n%s", file, name);
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		if (cache[i].key && !strcmp(cache[i].key, key)) {
			free(key);
			free(file);
			return cache[i].value ? ta_xstrdup(cache[i].value) : NULL;
		}
	/* parsed for each name asked (the results are kept below) */
	char *result = NULL;
	ta_source *src;
	ta_syntax *syn = load_module(file, &src);
	if (syn)
		result = search_block(src, file, ta_syntax_root(syn), name, depth, 0);
	ta_syntax_free(syn);
	ta_source_free(src);
	struct cache_slot *s = &cache[cache_next++ % CACHE_SLOTS];
	free(s->key);
	free(s->value);
	s->key = key;
	s->value = result ? ta_xstrdup(result) : NULL;
	free(file);
	return result;
}

static char *target_of(const char *importer, const char *module, const char *name, bool any_name)
{
	if (!importer || !module || !name || (!any_name && !reexported_name(name)))
		return NULL;
	char *abs = realpath(importer, NULL);
	if (!abs)
		return NULL;
	char *r = resolve(abs, module, name, 0, any_name);
	free(abs);
	return r;
}

char *ta_reexport_target(const char *importer, const char *module, const char *name)
{
	return target_of(importer, module, name, false);
}

char *ta_reexport_wrapper(const char *importer, const char *module, const char *name)
{
	return target_of(importer, module, name, true);
}

/* The modules the module file `file` (its tree root) imports from its own
 * package (found on disk), appended to files[*n] (at most max), each once. */
static void project_imports(const ta_source *src, TSNode root, const char *file, char **files, size_t *n,
			    size_t max)
{
	for (uint32_t i = 0; i < ta_node_named_count(root) && *n < max; i++) {
		TSNode st = ta_node_named_child(root, i);
		if (!ta_node_is(st, "import_from_statement"))
			continue;
		char *module = ta_node_text(src, ta_node_field(st, "module_name"));
		/* the module itself, and `from . import name` as a module */
		char *cand[2] = { ta_xstrdup(module), NULL };
		if (!module[strspn(module, ".")] && ta_node_named_count(st) > 1) {
			char *name = ta_node_text(src, ta_node_named_child(st, 1));
			cand[1] = ta_xasprintf("%s%s", module, name);
			free(name);
		}
		for (int c = 0; c < 2 && cand[c]; c++) {
			char *f = strncmp(cand[c], "triton", 6) ? cached_module(file, cand[c]) : NULL;
			bool seen = !f;
			for (size_t j = 0; j < *n && !seen; j++)
				seen = !strcmp(files[j], f);
			if (!seen && *n < max)
				files[(*n)++] = f;
			else
				free(f);
			free(cand[c]);
		}
		free(module);
	}
}

bool ta_reexport_package_mentions(const char *importer, const char *module, const char *needle)
{
	if (!importer || !module || !needle || !strncmp(module, "triton", 6))
		return false;
	char *abs = realpath(importer, NULL);
	char *first = abs ? cached_module(abs, module) : NULL;
	free(abs);
	if (!first)
		return false;
	enum { MAX_FILES = 16 };
	char *files[MAX_FILES] = { first };
	size_t n = 1, depth_end = 1;
	bool found = false;
	/* breadth first: the module, then what it imports, then theirs */
	for (size_t i = 0, depth = 0; i < n && !found; i++) {
		if (i == depth_end) {
			depth++;
			depth_end = n;
		}
		/* each file read once: its text for the needle, its tree for
		 * the modules it imports */
		ta_source *src;
		ta_syntax *syn = load_module(files[i], &src);
		found = src && strstr(src->text, needle) != NULL;
		if (!found && syn && depth < 2)
			project_imports(src, ta_syntax_root(syn), files[i], files, &n, MAX_FILES);
		ta_syntax_free(syn);
		ta_source_free(src);
	}
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	return found;
}

/* ---- a project's arithmetic helper --------------------------------------- */

static void add_name(char ***v, size_t *n, char *s)
{
	*v = ta_xrealloc(*v, (*n + 1) * sizeof **v);
	(*v)[(*n)++] = s;
}

static bool among(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

/* The names a function binds: its parameters, and what its body assigns
 * or loops over. */
static void bound_names(const ta_source *src, TSNode def, char ***v, size_t *n)
{
	ta_walk w;
	ta_walk_start(&w, def);
	for (;;) {
		TSNode x = ta_walk_node(&w), p = ta_node_parent(x);
		if (ta_node_is(x, "identifier") && !ts_node_is_null(p) &&
		    ((ta_node_is(p, "parameters") || ta_node_is(p, "default_parameter") ||
		      ta_node_is(p, "typed_parameter") || ta_node_is(p, "typed_default_parameter") ||
		      ta_node_is(p, "list_splat_pattern") || ta_node_is(p, "dictionary_splat_pattern") ||
		      ta_node_is(p, "pattern_list") || ta_node_is(p, "tuple_pattern")) ||
		     ((ta_node_is(p, "assignment") || ta_node_is(p, "augmented_assignment") ||
		       ta_node_is(p, "for_statement") || ta_node_is(p, "for_in_clause")) &&
		      ts_node_eq(x, ta_node_field(p, "left")))))
			add_name(v, n, ta_node_text(src, x));
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
}

/* Whether the function definition def computes from its arguments alone:
 * every name its body reads is one it binds, a builtin or the math module
 * (`return 2 ** math.ceil(math.log(x, 2))`), so that equal arguments give
 * equal results; no global, no setting, no call of the project's. */
static bool pure_def(const ta_source *src, TSNode def)
{
	static const char *const builtins[] = { "min", "max", "abs", "int", "float", "round", "len", "range", "pow",
						"divmod", "bool", "sum", "isinstance", "math", "True", "False",
						"None", "ValueError", "AssertionError", NULL };
	char **bound = NULL;
	size_t nb = 0;
	bound_names(src, def, &bound, &nb);
	TSNode body = ta_node_field(def, "body");
	bool pure = !ts_node_is_null(body);
	ta_walk w;
	ta_walk_start(&w, body);
	while (pure) {
		TSNode x = ta_walk_node(&w), p = ta_node_parent(x);
		if (ta_node_is(x, "identifier") &&
		    !(ta_node_is(p, "attribute") && ts_node_eq(x, ta_node_field(p, "attribute"))) &&
		    !(ta_node_is(p, "keyword_argument") && ts_node_eq(x, ta_node_field(p, "name")))) {
			char *t = ta_node_text(src, x);
			bool known = among(bound, nb, t);
			for (size_t i = 0; builtins[i] && !known; i++)
				known = !strcmp(builtins[i], t);
			free(t);
			pure = known;
		}
		if (ta_node_is(x, "global_statement") || ta_node_is(x, "nonlocal_statement") ||
		    ta_node_is(x, "yield") || ta_node_is(x, "await"))
			pure = false;
		if (!ta_walk_next(&w, true))
			break;
	}
	ta_walk_finish(&w);
	for (size_t i = 0; i < nb; i++)
		free(bound[i]);
	free(bound);
	return pure;
}

static int pure_in(const char *path, const char *name, int depth);

/* The module-level statements of root for `def name`, or an import of name
 * from another module of the project: 1 pure, 0 not, -1 not found. */
static int pure_search(const ta_source *src, const char *path, TSNode block, const char *name, int depth, int nest)
{
	int r = -1;
	for (uint32_t i = 0; i < ta_node_named_count(block) && r < 0 && nest < 8; i++) {
		TSNode s = ta_node_named_child(block, i);
		if (ta_node_is(s, "if_statement") || ta_node_is(s, "try_statement") || ta_node_is(s, "else_clause") ||
		    ta_node_is(s, "block")) {
			r = pure_search(src, path, s, name, depth, nest + 1);
			continue;
		}
		TSNode d = ta_node_is(s, "decorated_definition") ? ta_node_field(s, "definition") : s;
		if (ta_node_is(d, "function_definition") && ta_node_text_eq(src, ta_node_field(d, "name"), name)) {
			r = !ta_node_is(s, "decorated_definition") && pure_def(src, d);
			continue;
		}
		if (!ta_node_is(s, "import_from_statement") || depth >= MAX_DEPTH)
			continue;
		TSNode mod = ta_node_field(s, "module_name");
		for (uint32_t j = 0; j < ta_node_named_count(s) && r < 0; j++) {
			TSNode ch = ta_node_named_child(s, j);
			if (ts_node_eq(ch, mod))
				continue;
			TSNode nm = ta_node_is(ch, "aliased_import") ? ta_node_field(ch, "name") : ch;
			TSNode as = ta_node_is(ch, "aliased_import") ? ta_node_field(ch, "alias") : nm;
			if (!ta_node_text_eq(src, as, name))
				continue;
			char *module = ta_node_text(src, mod), *orig = ta_node_text(src, nm);
			char *file = strncmp(module, "triton", 6) ? cached_module(path, module) : NULL;
			r = file ? pure_in(file, orig, depth + 1) : 0;
			free(file);
			free(module);
			free(orig);
		}
	}
	return r;
}

static int pure_in(const char *path, const char *name, int depth)
{
	ta_source *src;
	ta_syntax *syn = load_module(path, &src);
	int r = syn ? pure_search(src, path, ta_syntax_root(syn), name, depth, 0) : -1;
	ta_syntax_free(syn);
	ta_source_free(src);
	return r;
}

bool ta_reexport_pure_function(const char *importer, const char *module, const char *name)
{
	if (!importer || !module || !name || !strncmp(module, "triton", 6))
		return false;
	char *abs = realpath(importer, NULL);
	char *file = abs ? cached_module(abs, module) : NULL;
	free(abs);
	int r = file ? pure_in(file, name, 0) : -1;
	free(file);
	return r == 1;
}

bool ta_reexport_pure_def(const ta_source *src, TSNode def)
{
	return ta_node_is(def, "function_definition") && pure_def(src, def);
}
