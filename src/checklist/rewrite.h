/* Rewrites: the mechanical edits of checklist entries, made from the model
 * of one file as a ta_edit (analyze/diff.h), and the guided templates of
 * the others. Nothing here touches a file: advise/edit.h applies what is
 * made here.
 *
 * Which entry a rewrite serves is in entries.def (G4 is written by S3's
 * rewrite); each rewrite is defined in the file of the entry that owns it. */
#ifndef TA_CHECKLIST_REWRITE_H
#define TA_CHECKLIST_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/diff.h"
#include "analyze/model.h"
#include "checklist/entry.h"
#include "checklist/rules.h"

/* Makes the edit for one site. kernel_or_host is a kernel index for
 * kernel-side entries, a host index for host-side ones, or -1 for any.
 * line 0 takes the first site, else the site on (or spanning) that line.
 * Returns 0 with *out filled (the caller clears it), or, with *why_not
 * (caller frees, one line): -1 when a site exists but a precondition of the
 * rewrite does not hold (offer the guided template), -2 when there is no
 * site at all. */
typedef int (*ta_rewrite_fn)(const ta_model *m, int kernel_or_host, uint32_t line,
			     ta_edit *out, char **why_not);

/* Whether a rewrite's edits keep the program's meaning, as ruff sorts its
 * fixes. Safe: for every input the code accepts today. Unsafe: only under
 * an assumption the edit states (ta_edit.unsafe); --apply makes those only
 * with --unsafe-fixes, the advisor asks first. */
typedef enum ta_fix_safety {
	TA_FIX_SAFE,      /* every edit it makes is safe */
	TA_FIX_UNSAFE,    /* every edit it makes states an assumption */
	TA_FIX_MIXED      /* safe at some sites, unsafe (stated) at others */
} ta_fix_safety;

struct ta_rewrite {
	const char *owner;        /* the entry whose file defines it: "S3" */
	ta_rewrite_fn make;       /* NULL only for ta_rewrite_NONE */
	const char *demoted;      /* non-NULL: shown as a diff but not applied by the
				     tool (measured slower on a real kernel); why */
	ta_fix_safety safety;
	const char *assumes;      /* unsafe and mixed: the assumption in general
				     ("assumes ..."), for --explain; each edit states
				     its own with the user's names */
};

/* "safe", "unsafe" or "safe or unsafe" (by site). */
const char *ta_fix_safety_name(ta_fix_safety s);

/* One object per REWRITE column of entries.def; ta_rewrite_NONE (make NULL)
 * stands for "guided". Repeated extern declarations are harmless. */
#define ENTRY(ID, det, SEC, NEEDS, RW, SCOPE, SERVED, OPENS, FLAGS) extern const ta_rewrite ta_rewrite_##RW;
#include "checklist/entries.def"
#undef ENTRY

/* The rewrite that writes id's edit (G4: S3's); NULL when id is unknown or
 * its edit is guided. A demoted rewrite is returned: callers decide. */
const ta_rewrite *ta_rewrite_find(const char *id);

/* Makes the edit of finding f at its site: its entry's rewrite (a served
 * entry's is its server's) for f's kernel, or f's host function for a
 * host-side rewrite, at f's line. The edit carries f's id (G4, not S3).
 * Same contract as ta_rewrite_fn; -1 with "ID has no mechanical edit"
 * when the entry is guided. */
int ta_rewrite_at(const ta_model *m, const ta_finding *f, ta_edit *out, char **why_not);

/* ta_rewrite_at for the site of a finding of id about kernel on line, as
 * a walk step recorded it (the advisor applies what its step showed). */
int ta_rewrite_at_line(const ta_model *m, const char *id, int kernel, uint32_t line, ta_edit *out,
		       char **why_not);

/* What --apply ID[:LINE] and a recorded step make: the first finding of id
 * (on line; line 0: on any line) whose rewrite yields an edit, among those
 * an edit may be made for (ta_rules_find). With offered, only a finding
 * --check reports counts: one whose entry waits for a measurement (D1
 * without a profile) refuses with a sentence saying so, so --apply never
 * makes what --check did not offer. Returns 0 with *out and *at (the
 * finding, borrowed from r); -1 when every such finding refuses (*why_not:
 * the first one's reason, *at that finding); -2 when id has no such finding
 * there (*why_not says so). */
int ta_rewrite_first(const ta_model *m, const ta_rules_result *r, const char *id, uint32_t line, bool offered,
		     ta_edit *out, const ta_finding **at, char **why_not);

/* A guided edit: the template of id as a comment block, with {0}, {1}...
 * replaced by names[0], names[1]..., inserted before line (1-based) with that
 * line's indentation and the file's line ending. Returns -1 with *err
 * (caller frees) when line is outside the file. */
int ta_rewrite_guided(const ta_model *m, const char *id, uint32_t line,
		      const char *const *names, size_t name_count, ta_edit *out, char **err);

#endif
