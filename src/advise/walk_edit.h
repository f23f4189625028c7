/* The walk's bridge to the edit generators, kept in its own unit because
 * the walk's step kinds and the checklist's edit kinds are apart there.
 * Internal to src/advise and the TUI. */
#ifndef TA_ADVISE_WALK_EDIT_H
#define TA_ADVISE_WALK_EDIT_H

#include <stdint.h>

#include "analyze/model.h"
#include "checklist/rules.h"

/* Makes the mechanical edit for finding f's site and its unified diff
 * labelled name. Returns 0 with *diff, *title and *unsafe (the edit's
 * assumption, NULL when it is safe; caller frees all three), or -1 with
 * *why_not (caller frees). */
int ta_walk_edit_diff(const ta_model *m, const ta_finding *f, const char *name, char **diff,
		      char **title, char **unsafe, char **why_not);

/* The same for the finding of id about kernel (by name) on line, as the
 * advisor's site list offers it. */
int ta_walk_edit_diff_at(const ta_model *m, const char *id, const char *kernel, uint32_t line,
			 const char *name, char **diff, char **title, char **why_not);

/* The assumption of id's edit about kernel at line when it is unsafe
 * (caller frees), or NULL: safe, or no edit there. */
char *ta_walk_edit_unsafe(const ta_model *m, const char *id, const char *kernel, uint32_t line);

/* Makes the edit a step showed, for its finding of id about kernel (by
 * name) on line, and applies it (see ta_edit_apply); a served entry's edit
 * is made by its server's rewrite (entries.def). Returns 0 or -1, with *msg
 * either way (caller frees). */
int ta_walk_edit_apply(const ta_source *src, const ta_syntax *syn, const ta_model *m,
		       const char *id, const char *kernel, uint32_t line, char **msg);

#endif
