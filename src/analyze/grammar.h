/* The built-in Python grammar as the parser uses it (see grammar.c). */
#ifndef TA_ANALYZE_GRAMMAR_H
#define TA_ANALYZE_GRAMMAR_H

#include <tree_sitter/api.h>

/* tree_sitter_python() with every parse state's actions in one dense
 * table; the grammar itself when the table cannot be made. */
const TSLanguage *ta_grammar_python(void);

#endif
