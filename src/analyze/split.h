/* A large file analysed in parts (issue 18, item 7): tree-sitter's tree
 * takes 30-60 times the text it holds, so a file is parsed a few hundred
 * kilobytes at a time, each part a set of whole top-level statements that
 * refer only to each other (and to the file's imports, which every part
 * holds), so that a part's model and findings are those of the whole
 * file's for the same kernels. */
#ifndef TA_ANALYZE_SPLIT_H
#define TA_ANALYZE_SPLIT_H

#include <stddef.h>
#include <tree_sitter/api.h>

#include "analyze/source.h"

typedef struct ta_split_part {
	TSRange *ranges;          /* ascending, apart; for ta_syntax_parse_ranges */
	size_t range_count;
} ta_split_part;

/* Cuts src into parts of about part_bytes each. Returns how many (at least
 * 2) with the parts in *out (free with ta_split_free), or 0 when the file
 * is to be analysed whole: it is one part anyway, does not parse cleanly,
 * or holds something every kernel may depend on without naming it. How:
 * a scan of the text proposes where top-level statements start; each run
 * of them is parsed (one run of part_bytes at a time, freed before the
 * next), which confirms the cuts and gives the names each statement
 * defines and mentions; statements that mention a name another defines go
 * together, and so do all top-level statements that are not a def, a class
 * or an import. */
size_t ta_split(const ta_source *src, size_t part_bytes, ta_split_part **out);
void ta_split_free(ta_split_part *parts, size_t n);

#endif
