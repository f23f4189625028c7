/* What --deep found for one kernel in one run, in the form a session
 * keeps: the lines with stall samples (each with its top reason) and the
 * speed-of-light figures. Owned copies, so a session can be saved, read
 * back and replayed without the records. */
#ifndef TA_ADVISE_DEEP_FIGURES_H
#define TA_ADVISE_DEEP_FIGURES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile/deep.h"

typedef struct ta_hot_figure {
	uint32_t line;
	double share;                /* of the kernel's stall samples, 0..1 */
	char reason[40];             /* its top stall reason (CUPTI's short name) */
	double reason_share;         /* of the line's samples, 0..1 */
} ta_hot_figure;

typedef struct ta_deep_figures {
	uint64_t samples;            /* the kernel's stall samples; 0: no PC sampling */
	ta_hot_figure *hot;          /* lines of the file holding >= 0.1%, by line (owned) */
	size_t n_hot;
	double elsewhere_share;      /* on lines of other files (Triton's own) */
	bool has_sol;
	ta_sol sol;
} ta_deep_figures;

void ta_deep_figures_set(ta_deep_figures *out, const ta_deep_kernel *k);
void ta_deep_figures_clear(ta_deep_figures *f);
void ta_deep_figures_copy(ta_deep_figures *dst, const ta_deep_figures *src);
/* NULL when f holds nothing. */
json_t *ta_deep_figures_json(const ta_deep_figures *f);
/* Reads what ta_deep_figures_json wrote; anything malformed is dropped. */
void ta_deep_figures_from_json(ta_deep_figures *f, json_t *o);

/* The hot line entry for line, or NULL. */
const ta_hot_figure *ta_deep_figures_line(const ta_deep_figures *f, uint32_t line);
/* "38% of stall samples are on lines 88–90: long_scoreboard (waiting for
 * global or local memory)" for the given lines (any order, repeats fine),
 * or NULL when they hold under 2% (caller frees). */
char *ta_deep_figures_sentence(const ta_deep_figures *f, const uint32_t *lines, size_t n);
/* "DRAM 91.5%, SM 5.7% of peak, occupancy 84.9%: memory-bound" (caller
 * frees), or NULL without counters. */
char *ta_deep_figures_sol_line(const ta_deep_figures *f);

#endif
