/* The checklist's detectors: every entry of entries.def (T1-T5, L1-L4,
 * P1-P7, S1-S8, G1-G8, D1-D16) run over the model of one file, giving
 * findings and, for each entry and kernel, a status.
 *
 * The entries and their order are those of entries.def (entry.h); titles,
 * impacts and explanations live in the catalog (src/advise/checklist). The
 * reason of a finding is written here, in the user's names. */
#ifndef TA_CHECKLIST_RULES_H
#define TA_CHECKLIST_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze/evidence.h"
#include "analyze/model.h"
#include "checklist/entry.h"

/* Every status of an entry, once: STATUS(name, its name as users read it).
 * The enum and ta_status_name are made from it; sessions store the names
 * (examples/NAME/session*.json), the walk, the advisor and the reports show
 * them, so no other place spells them.
 *   NOT_APPLICABLE  nothing of the kind in this kernel
 *   SATISFIED       the good pattern is present
 *   APPLIES         at least one finding
 *   NEEDS_PROFILE   decidable only with a measurement
 *   NEEDS_BASELINE  decidable only against a baseline */
#define TA_STATUS_TABLE(STATUS)                   \
	STATUS(NOT_APPLICABLE, "not applicable") \
	STATUS(SATISFIED, "satisfied")           \
	STATUS(APPLIES, "applies")               \
	STATUS(NEEDS_PROFILE, "needs profile")   \
	STATUS(NEEDS_BASELINE, "needs baseline")

typedef enum ta_status {
#define TA_STATUS_ENUM(name, text) TA_STATUS_##name,
	TA_STATUS_TABLE(TA_STATUS_ENUM)
#undef TA_STATUS_ENUM
	TA_STATUS__COUNT
} ta_status;

/* Finding tags: facets a serving detector marks so that an entry it serves
 * can take only part of its findings (S4 takes P1's GPU-split findings; G2
 * leaves out the fixed launches whose wrapper picks them per GPU). */
enum { TA_TAG_GPU_SPLIT = 1u << 0, TA_TAG_GUIDED = 1u << 1, TA_TAG_PER_GPU_CHOICE = 1u << 2 };
/* A finding with nothing to change on the GPU it is read for (a row
 * gather, whose descriptor form is Blackwell's, read for Hopper): --check
 * prints it as a note, which --show-notes shows and the exit status
 * ignores. */
enum { TA_TAG_NOTE = 1u << 3 };

/* A finding carries its site: the kernel it is about, the host function
 * its span lies in (when it points at host code), and the span. A rewrite
 * is made for that site (ta_rewrite_at), never re-found from a line. */
typedef struct ta_finding {
	int kernel;               /* index in model->kernels */
	int host;                 /* index in model->hosts holding span, or -1 (kernel code) */
	const char *id;           /* static: "S1" */
	ta_span span;             /* where to point */
	char *reason;             /* one line, the user's names */
	uint32_t *lines;          /* evidence: code lines (1-based), span's line first */
	size_t line_count;
	char *measure;            /* profile-backed entries: what the profile showed or
				     must show; NULL otherwise */
	unsigned tags;
	struct ta_finding_part *parts; /* pieces of the reason, by key, for a line
				     that merges several findings (S1's per-kernel
				     line: "left_out", "col_stride"); none usually */
	size_t part_count;
} ta_finding;

typedef struct ta_finding_part {
	const char *key;          /* static */
	char *text;
} ta_finding_part;

/* The piece of f's reason kept under key, or NULL. */
const char *ta_finding_part_of(const ta_finding *f, const char *key);
/* Frees what a finding holds (not the finding itself). */
void ta_finding_release(ta_finding *f);

/* Length of a finding's reason without the " (as ID)" a served entry's
 * finding appends: findings of one place with the same base are shown as
 * one finding with several ids. */
size_t ta_reason_base_len(const char *reason);

typedef struct ta_rules_result {
	const ta_model *model;    /* borrowed */
	ta_finding *findings;     /* in entry order, then source order */
	size_t finding_count;
	size_t finding_cap;
	ta_status *status;        /* kernel_count x ta_rules_count(), row per kernel */
	size_t kernel_count;
	size_t kernels_run;       /* kernels 0 .. kernels_run - 1 have been checked */
	char **withheld;          /* kernel_count x ta_rules_count(): why an entry whose
	                           * shape is there does not apply (the code relies on
	                           * what its edit would change), or NULL; see
	                           * ta_rules_withheld */
	const ta_evidence *ev;    /* borrowed, for ta_rules_run_next; may be NULL */
} ta_rules_result;

/* The entries, in the seed's order. */
size_t ta_rules_count(void);
const char *ta_rules_id(size_t entry);
/* The section's data name: "triggers", "layout", ... "deeper". */
const char *ta_rules_section(size_t entry);
/* The entry serving id's findings when another detector serves it (G4 ->
 * "S3"), else NULL. */
const char *ta_rules_served_by(size_t entry);
/* Index of an id (case-insensitive), or -1. */
int ta_rules_index(const char *id);
const char *ta_status_name(ta_status s);

/* Runs every detector over m. ev may be NULL (no profile). Never fails;
 * free the result with ta_rules_result_free. */
ta_rules_result *ta_rules_run(const ta_model *m, const ta_evidence *ev);
/* The same, a kernel at a time, in file order (a detector may look at
 * the findings of the kernels before, so the order is the same as
 * ta_rules_run's): ta_rules_start checks none; each ta_rules_run_next
 * checks the next kernel and returns how many are left. m and ev must live
 * until the last one. */
ta_rules_result *ta_rules_start(const ta_model *m, const ta_evidence *ev);
size_t ta_rules_run_next(ta_rules_result *r);
void ta_rules_result_free(ta_rules_result *r);

ta_status ta_rules_status(const ta_rules_result *r, int kernel, size_t entry);
/* Why id does not apply to a kernel that has its shape (the first such
 * kernel's reason: "line 14: k writes buf at line 13 and reads it back
 * ..."), or NULL: what --diff and --apply say instead of "does not apply". */
const char *ta_rules_withheld(const ta_rules_result *r, const char *id);

/* The host function holding byte offset off (the innermost), the module's
 * host when off is at top level, or -1 inside a kernel. */
int ta_rules_host_at(const ta_model *m, uint32_t off);

/* Whether f is reported: its entry applies to its kernel (a served
 * entry's copy counts; a finding of an entry that ends satisfied does not). */
bool ta_rules_reported(const ta_rules_result *r, const ta_finding *f);
/* The n-th finding of id (case-insensitive) on line (its span's first
 * line; line 0: any line) that an edit may be made for: reported, or
 * waiting for a measurement to decide (D1 without a profile). In the
 * order --check lists them; NULL when there are fewer. Borrowed from r. */
const ta_finding *ta_rules_find(const ta_rules_result *r, const char *id, uint32_t line, size_t n);

/* The order in which the walk visits the entries for kernel: triggers
 * first, then what the fired ones open (entries.def's OPENS; an urgent
 * trigger's first), then the rest in the seed's order. Writes up to
 * ta_rules_count() static ids into out; returns how many. */
size_t ta_rules_walk_order(const ta_rules_result *r, int kernel, const char **out);

/* Parses a comma-separated list of ids ("S1,p3") into on[ta_rules_count()]
 * (set true for each). Returns 0, or -1 with *err (caller frees) naming
 * the first unknown id. */
int ta_rules_parse_ids(const char *list, bool *on, char **err);

#endif
