/* Which findings a front end reports, decided once for all of them
 * (--check, the advisor's walk, --walk): the ids a project or the command
 * line selects or ignores, the entries in preview, and the suppression
 * comments in the file itself.
 *
 * Id lists (--select, --ignore, pyproject's select/ignore) are
 * comma-separated ids ("S1,p3"), section letters ("S": every S entry),
 * "ALL" (every entry, X0 and X1), "X0", the id under which an unknown id in
 * a suppression comment is reported, and "X1", under which a comment that
 * silences nothing is (only when named).
 *
 * Suppression comments, after "# tileadvise:":
 *   ignore[ID,...]            this line (or, on a kernel's def line, the kernel)
 *   ignore                    the same, every id
 *   ignore-next-line[ID,...]  the next line (a comment on a line of its own)
 *   ignore-file[ID,...]       the whole file (ids optional: every id) */
#ifndef TA_CHECKLIST_FILTER_H
#define TA_CHECKLIST_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/source.h"

#define TA_FILTER_SUPPRESSION_ID "X0"
/* The id of a suppression comment that silences nothing (ruff's RUF100):
 * reported only when a list names it (X1 or ALL). */
#define TA_FILTER_UNUSED_ID "X1"

typedef struct ta_filter ta_filter;

/* A filter that reports every entry not in preview (preview: those too).
 * Free with ta_filter_free. */
ta_filter *ta_filter_new(bool preview);
void ta_filter_free(ta_filter *f);
/* A filter deciding as f does, to change apart from it (one file's
 * per-file-ignores). */
ta_filter *ta_filter_copy(const ta_filter *f);
/* Reports only the entries list names. An entry in preview that list names
 * by its own id is reported without preview. Returns 0, or -1 with *err
 * (caller frees) naming the first unknown id. */
int ta_filter_select(ta_filter *f, const char *list, char **err);
/* Leaves out the entries list names. Same contract. */
int ta_filter_ignore(ta_filter *f, const char *list, char **err);
/* Adds the entries list names to the selection (ruff's extend-select):
 * with no select, to the default set. Same contract. */
int ta_filter_extend(ta_filter *f, const char *list, char **err);
/* Whether id's findings are reported (X0 too). */
bool ta_filter_wants(const ta_filter *f, const char *id);

/* The suppression comments of one file. */
typedef struct ta_suppressions ta_suppressions;

/* Reads src's comments (src must outlive nothing: all is copied). Free with
 * ta_suppressions_free. */
ta_suppressions *ta_suppressions_read(const ta_source *src);
void ta_suppressions_free(ta_suppressions *s);
/* Whether a comment silences id for a finding at line of the kernel whose
 * def is on def_line. s may be NULL (none). */
bool ta_suppressions_silence(const ta_suppressions *s, uint32_t line, uint32_t def_line, const char *id);
/* Whether a comment silences finding f of r: it names f's id, or the id of
 * another finding r shows as the same one (same place and reason but for
 * a served entry's " (as ID)": [P1, G2] is silenced by ignore[G2] too). */
struct ta_rules_result;
struct ta_finding;
bool ta_suppressions_silence_finding(const ta_suppressions *s, const struct ta_rules_result *r,
				     const struct ta_finding *f);
/* The same for every finding of r at once, in n log n (--check): an array
 * of r->finding_count flags (caller frees), or NULL when the file has no
 * comment and nothing is silenced. ta_suppressions_silence_finding asks
 * one finding, passing over r's findings when the file has comments (the
 * walk, whose rules grow kernel by kernel). */
bool *ta_suppressions_silenced(const ta_suppressions *s, const struct ta_rules_result *r);

/* An id a comment names that the checklist does not know. */
typedef struct ta_unknown_id {
	const char *id;           /* as written (owned by the suppressions) */
	uint32_t line, col;       /* of the comment's '#' */
} ta_unknown_id;
/* Every such id in file order, as an array *out (caller frees; NULL when
 * none). */
size_t ta_suppressions_unknown(const ta_suppressions *s, ta_unknown_id **out);
/* Notes the comments that silence a finding of r (every finding the rules
 * made, whatever the filter reports): the comment's place and an id of
 * the finding, or every id. Call for every part of a file. */
void ta_suppressions_note_used(ta_suppressions *s, const struct ta_rules_result *r);
/* The (comment, id) pairs that silenced nothing, in file order, as an
 * array *out (caller frees; NULL when none): id is the id, or NULL for a
 * comment naming every id. An unknown id is not one (X0 reports it). */
size_t ta_suppressions_unused(const ta_suppressions *s, ta_unknown_id **out);

#endif
