/* The flat copy of a tree (analyze/flat.h) answers as tree-sitter's own node
 * API does: the same nodes in the same order, and for each the same parent,
 * named children and children by field, and the same walks with and without
 * descending. Checked node by node on tricky snippets (comments between
 * arguments, decorators, f-strings, a syntax error, zero-width nodes) and
 * on every Python file of the examples and the rule fixtures. */
#include "config.h"
/* ---- shared test helpers (kept in each file: one program per test) ---- */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analyze/flat.h"
#include "analyze/source.h"
#include "analyze/syntax.h"
#include "util/buf.h"

static inline const char *ta_test_srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

static bool same(TSNode a, TSNode b)
{
	return ts_node_eq(a, b) || (ts_node_is_null(a) && ts_node_is_null(b));
}

/* Every node, in the order a cursor visits them, against the copy. */
static size_t check_tree(const ta_syntax *syn)
{
	const ta_flat *f = ta_syntax_flat(syn);
	assert_non_null(f);
	TSNode root = ta_syntax_root(syn);
	assert_ptr_equal(ta_flat_of(root), f);
	uint32_t fields = ts_language_field_count(tree_sitter_python());
	TSTreeCursor c = ts_tree_cursor_new(root);
	uint32_t i = 0;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&c);
		assert_true(i < f->count);
		assert_true(same(ta_flat_node_at(f, i), n));
		assert_int_equal(ta_flat_index(f, n), i);
		assert_int_equal(f->nodes[i].symbol, ts_node_symbol(n));
		assert_int_equal(f->nodes[i].named, ts_node_is_named(n));
		assert_ptr_equal(ta_flat_type(n), ts_node_type(n));
		/* tree-sitter 0.20 finds the parent by byte ranges, which a
		 * zero-width node can fool: those only where it has width */
		if (ts_node_start_byte(n) < ts_node_end_byte(n))
			assert_true(same(ta_node_parent(n), ts_node_parent(n)));
		/* the descent by range, over the node's own range and others */
		uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
		const uint32_t ranges[][2] = { { a, b }, { a, a }, { b, b }, { a + 1, b }, { a, b + 1 } };
		for (size_t r = 0; r < sizeof ranges / sizeof *ranges; r++)
			assert_true(same(ta_flat_named_descendant(root, ranges[r][0], ranges[r][1]),
					 ts_node_named_descendant_for_byte_range(root, ranges[r][0], ranges[r][1])));
		/* a cursor's first child for a byte, at the node's bounds */
		for (size_t r = 0; r < 3; r++) {
			uint32_t goal = r == 0 ? a : r == 1 ? b : a + (b - a) / 2;
			TSTreeCursor g = ts_tree_cursor_new(n);
			TSNode got = { 0 };
			bool found = ts_tree_cursor_goto_first_child_for_byte(&g, goal) >= 0;
			assert_int_equal(ta_flat_child_for_byte(n, goal, &got), found);
			if (found)
				assert_true(same(got, ts_tree_cursor_current_node(&g)));
			ts_tree_cursor_delete(&g);
		}
		uint32_t named = ts_node_named_child_count(n);
		for (uint32_t k = 0; k <= named; k++)
			assert_true(same(ta_node_named_child(n, k), ts_node_named_child(n, k)));
		/* backwards too: the list of a node's named children is made on
		 * the first question past the eighth, whichever it is */
		for (uint32_t k = named + 1; k-- > 0;)
			assert_true(same(ta_node_named_child(n, k), ts_node_named_child(n, k)));
		for (TSFieldId fid = 1; fid <= fields; fid++)
			assert_true(same(ta_node_field_id(n, fid), ts_node_child_by_field_id(n, fid)));
		/* a walk of the node's subtree, skipping every other subtree */
		TSTreeCursor w = ts_tree_cursor_new(n);
		ta_walk fw;
		ta_walk_start(&fw, n);
		assert_ptr_equal(fw.flat, f);
		for (unsigned step = 0;; step++) {
			TSNode at = ts_tree_cursor_current_node(&w);
			assert_true(same(ta_walk_node(&fw), at));
			assert_int_equal(ta_walk_named_symbol(&fw), ts_node_is_named(at) ? ts_node_symbol(at) : 0);
			assert_int_equal(ta_walk_field(&fw), ts_tree_cursor_current_field_id(&w));
			bool descend = step % 3 != 2;
			bool more = ta_cursor_next(&w, descend);
			assert_int_equal(ta_walk_next(&fw, descend), more);
			if (!more)
				break;
		}
		ta_walk_finish(&fw);
		ts_tree_cursor_delete(&w);
		i++;
		if (!ta_cursor_next(&c, true))
			break;
	}
	ts_tree_cursor_delete(&c);
	assert_int_equal(i, f->count);
	/* the copy read from tree-sitter's own arrays (analyze/ts_layout.h)
	 * against the cursor's, field by field */
	ta_flat *by_layout = ta_flat_build_by(root, true), *by_cursor = ta_flat_build_by(root, false);
	assert_int_equal(by_layout->count, by_cursor->count);
	for (uint32_t k = 0; k < by_cursor->count; k++) {
		const ta_flat_node *x = &by_layout->nodes[k], *y = &by_cursor->nodes[k];
		assert_memory_equal(x->context, y->context, sizeof x->context);
		assert_ptr_equal(x->id, y->id);
		assert_int_equal(x->parent, y->parent);
		assert_int_equal(x->end, y->end);
		assert_int_equal(x->symbol, y->symbol);
		assert_int_equal(x->field, y->field);
		assert_int_equal(x->named, y->named);
	}
	ta_flat_free(by_cursor);
	ta_flat_free(by_layout);
	assert_ptr_equal(ta_flat_of(root), f);
	return i;
}

/* The parse (with analyze/grammar.c's dense table) gives the tree the
 * generated grammar gives: the same nodes, kinds, fields and ranges. */
static void same_as_generated_grammar(const ta_syntax *syn, const char *text, size_t len)
{
	TSParser *p = ts_parser_new();
	assert_true(ts_parser_set_language(p, tree_sitter_python()));
	TSTree *t = ts_parser_parse_string(p, NULL, text, (uint32_t)len);
	ts_parser_delete(p);
	assert_non_null(t);
	assert_ptr_not_equal(ts_tree_language(ta_syntax_root(syn).tree), tree_sitter_python());
	char *want = ts_node_string(ts_tree_root_node(t)), *got = ts_node_string(ta_syntax_root(syn));
	assert_string_equal(got, want);
	TSTreeCursor a = ts_tree_cursor_new(ts_tree_root_node(t)), b = ts_tree_cursor_new(ta_syntax_root(syn));
	for (bool more = true; more;) {
		TSNode x = ts_tree_cursor_current_node(&a), y = ts_tree_cursor_current_node(&b);
		assert_int_equal(ts_node_start_byte(x), ts_node_start_byte(y));
		assert_int_equal(ts_node_end_byte(x), ts_node_end_byte(y));
		more = ta_cursor_next(&a, true);
		assert_int_equal(ta_cursor_next(&b, true), more);
	}
	ts_tree_cursor_delete(&a);
	ts_tree_cursor_delete(&b);
	free(want);
	free(got);
	ts_tree_delete(t);
}

static size_t check_text(const char *name, const char *text, size_t len)
{
	ta_source *src = NULL;
	char *err = NULL;
	assert_int_equal(ta_source_from_bytes(name, text, len, &src, &err), 0);
	ta_syntax *syn = ta_syntax_parse(src, &err);
	assert_non_null(syn);
	same_as_generated_grammar(syn, text, len);
	size_t n = check_tree(syn);
	ta_syntax_free(syn);
	ta_source_free(src);
	return n;
}

static void test_snippets(void **state)
{
	(void)state;
	static const char *const snippets[] = {
		"import triton\nimport triton.language as tl\n\n"
		"@triton.autotune(configs=[triton.Config({'BLOCK': 64}, num_warps=4)], key=['n'])\n"
		"@triton.jit\n"
		"def k(x_ptr, n, BLOCK: tl.constexpr):\n"
		"    pid = tl.program_id(0)  # the block\n"
		"    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
		"    x = tl.load(x_ptr + offs,  # a comment between arguments\n"
		"                mask=offs < n, other=0.0)\n"
		"    for i in range(0, (n + BLOCK - 1) // BLOCK):\n"
		"        x += i if i > 0 else -i\n"
		"    tl.store(x_ptr + offs, x.T, mask=not offs >= n and True)\n",
		"def f(a, *args, **kw):\n    return f\"{a!r:>{kw['w']}} {args[0]}\", lambda q=1: q\n",
		"x = [i for i in range(3) if i] ; y = {k: v for k, v in z.items()}\nprint(x, y, sep='')\n",
		"def broken(:\n    x = (1 +\n    return\n",
		"class C(B, metaclass=M):\n    \"\"\"doc\"\"\"\n    def m(self): pass\n",
		"async def f(a):\n    return await g(*a, **k)\n",
		"lambda: (yield)\nprint >>f, 1\nexec 'x'\n\t\tif x:\n  y\n",
		"\n",
	};
	for (size_t i = 0; i < sizeof snippets / sizeof *snippets; i++)
		check_text("s.py", snippets[i], strlen(snippets[i]));
}

static size_t check_folder(const char *dir)
{
	size_t nodes = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char *p = ta_xasprintf("%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			nodes += check_folder(p);
		} else {
			size_t len = strlen(e->d_name);
			if (len > 3 && !strcmp(e->d_name + len - 3, ".py")) {
				ta_source *src = NULL;
				char *err = NULL;
				if (ta_source_load(p, &src, &err) == 0) {
					nodes += check_text(p, src->text, src->len);
					ta_source_free(src);
				}
				free(err);
			}
		}
		free(p);
	}
	closedir(d);
	return nodes;
}

static void test_files(void **state)
{
	(void)state;
	char *ex = ta_xasprintf("%s/examples", ta_test_srcdir());
	/* the rule cases of tests/entries/ID.md, as make check writes them */
	const char *cases = getenv("TA_CASES");
	char *fx = ta_xasprintf("%s/rules", cases && *cases ? cases : TA_BUILD_BUILDDIR "/tests/entry-cases");
	size_t nodes = check_folder(ex) + check_folder(fx);
	assert_true(nodes > 10000);
	free(ex);
	free(fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_snippets),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests_name("flat", tests, NULL, NULL);
}
