/* The Python grammar with its parse table made dense.
 *
 * A generated grammar keeps the actions of its first states in a dense
 * table (state by symbol) and those of the other states, most of them
 * (2,619 of Python's 2,809), as lists of (value, symbols) groups that the
 * runtime scans for each look-up: tree-sitter 0.20's
 * ts_language_table_entry, the parse's largest single cost (about 150
 * instructions a look-up, 7% of `--check`'s CPU time over the 64 files of
 * tests/bench/astgrep.sh). Both forms are the language ABI's own: here the
 * lists are written out once per process into a dense table of all states
 * (1.5 MB) and the parser is given a copy of the language that reads it.
 * Every look-up answers as before: the first group that lists a symbol
 * gives its value, a symbol no group lists gives 0. */
#include "config.h"
#include "analyze/grammar.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/parser.h>

const TSLanguage *tree_sitter_python(void);

const TSLanguage *ta_grammar_python(void)
{
	static TSLanguage dense;
	static bool made, usable;
	if (made)
		return usable ? &dense : tree_sitter_python();
	made = true;
	const TSLanguage *l = tree_sitter_python();
	size_t states = l->state_count, symbols = l->symbol_count, large = l->large_state_count;
	if (large >= states)
		return l;
	uint16_t *table = calloc(states * symbols, sizeof *table);
	bool *listed = calloc(symbols, sizeof *listed);
	if (!table || !listed) {
		free(table);
		free(listed);
		return l;
	}
	memcpy(table, l->parse_table, large * symbols * sizeof *table);
	for (size_t s = large; s < states; s++) {
		uint16_t *row = &table[s * symbols];
		const uint16_t *d = &l->small_parse_table[l->small_parse_table_map[s - large]];
		memset(listed, 0, symbols * sizeof *listed);
		for (uint16_t groups = *d++; groups > 0; groups--) {
			uint16_t value = *d++, count = *d++;
			for (; count > 0; count--) {
				uint16_t sym = *d++;
				if (sym < symbols && !listed[sym]) {
					listed[sym] = true;
					row[sym] = value;
				}
			}
		}
	}
	free(listed);
	dense = *l;
	dense.large_state_count = l->state_count;
	dense.parse_table = table;
	usable = true;
	return &dense;
}
