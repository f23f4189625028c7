/* The grammar the parser is given (analyze/grammar.h) answers every parse
 * table look-up as the generated grammar does: each (state, symbol) against
 * a scan of the grammar's own lists. (test_flat compares the trees the two
 * give on its snippets and files.) */
#include "config.h"
/* ---- shared test helpers (kept in each file: one program per test) ---- */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <tree_sitter/parser.h>

#include "analyze/grammar.h"

const TSLanguage *tree_sitter_python(void);

/* The generated grammar's answer, read the way its two tables are laid out. */
static uint16_t lookup(const TSLanguage *l, uint32_t state, uint32_t symbol)
{
	if (state < l->large_state_count)
		return l->parse_table[state * l->symbol_count + symbol];
	const uint16_t *d = &l->small_parse_table[l->small_parse_table_map[state - l->large_state_count]];
	for (uint16_t groups = *d++; groups > 0; groups--) {
		uint16_t value = *d++, count = *d++;
		for (; count > 0; count--)
			if (*d++ == symbol)
				return value;
	}
	return 0;
}

static void test_every_lookup(void **state)
{
	(void)state;
	const TSLanguage *g = tree_sitter_python(), *d = ta_grammar_python();
	assert_ptr_not_equal(d, g);
	assert_int_equal(d->large_state_count, d->state_count);
	assert_int_equal(d->state_count, g->state_count);
	assert_int_equal(d->symbol_count, g->symbol_count);
	assert_true(g->large_state_count < g->state_count);
	size_t nonzero = 0;
	for (uint32_t s = 0; s < g->state_count; s++)
		for (uint32_t sym = 0; sym < g->symbol_count; sym++) {
			uint16_t want = lookup(g, s, sym);
			assert_int_equal(d->parse_table[s * d->symbol_count + sym], want);
			nonzero += want != 0;
		}
	assert_true(nonzero > 10000);
	/* the same grammar otherwise: names, fields, lexer, scanner */
	assert_ptr_equal(d->symbol_names, g->symbol_names);
	assert_ptr_equal(d->field_map_slices, g->field_map_slices);
	assert_ptr_equal(d->lex_fn, g->lex_fn);
	assert_ptr_equal(d->external_scanner.scan, g->external_scanner.scan);
	assert_ptr_equal(ta_grammar_python(), d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_lookup),
	};
	return cmocka_run_group_tests_name("grammar", tests, NULL, NULL);
}
