/* What Triton's autotuner says about its choices, and the autotune table.
 *
 * With TRITON_PRINT_AUTOTUNING=1 (the runner sets it), Triton's Autotuner
 * prints on stdout, once per tuned key (python/triton/runtime/autotuner.py):
 *
 *   Triton 3.3 and later:            Triton 3.0 to 3.2:
 *     Triton autotuning for function NAME,     Triton autotuning for function NAME
 *     with key as KEY,                           finished after T.TTs; best config
 *     finished after T.TTs,                      selected: CONFIG;
 *     best config selected: CONFIG;
 *
 * and, before benchmarking each configuration (Triton 3.2 and later),
 * "Autotuning kernel NAME with config CONFIG", plus "Autotuning failed with
 * ERROR" when one does not compile or fit. CONFIG is Config.__str__: the
 * kwargs then num_warps, num_ctas, num_stages, maxnreg (and ir_override in
 * later versions), "NAME: VALUE" joined by ", ".
 *
 * The parser takes the child's output line by line. Lines of other output
 * may come in between the lines of a block; a block cut short (output lost,
 * run ended) is counted, not kept. */
#ifndef TA_PROFILE_AUTOTUNE_H
#define TA_PROFILE_AUTOTUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "profile/measure.h"

typedef struct ta_tune_param {
	char *name, *value;
} ta_tune_param;

typedef struct ta_tune_config {
	char *text;                  /* as printed (owned) */
	ta_tune_param *params;       /* parsed "name: value" pairs (owned) */
	size_t n_params;
	int num_warps, num_stages;   /* -1 when not in the text */
	bool failed;                 /* followed by "Autotuning failed with" */
} ta_tune_config;

typedef struct ta_tune_block {
	char *kernel;                /* the function's name */
	char *key;                   /* the tuple Triton tuned for; NULL in the older format */
	double seconds;              /* tuning time; < 0: not printed */
	ta_tune_config best;
	ta_tune_config *tried;       /* the configs benchmarked for it, in order (may be none) */
	size_t n_tried;
} ta_tune_block;

typedef struct ta_autotune_log {
	ta_tune_block *blocks;       /* in the order printed */
	size_t n_blocks;
	size_t n_truncated;          /* blocks begun but not finished */
	/* parser state */
	ta_tune_block cur;           /* the block being read (cur.kernel != NULL) */
	int cur_lines;               /* lines since its first */
	ta_tune_block *pend;         /* "Autotuning kernel" lines not yet in a block
	                              * (kernel and, in best, the config) */
	size_t n_pend, cap_pend;
} ta_autotune_log;

void ta_autotune_log_init(ta_autotune_log *l);
/* One line of output (without its "\n"; a "\r" is dropped). */
void ta_autotune_log_line(ta_autotune_log *l, const char *line, size_t len);
/* Whether a line of output starts a report block: the autotuner tuned a
 * key in that run (a choice read from Triton's cache prints none). */
bool ta_autotune_line_tuned(const char *line, size_t len);
/* Splits text into lines and feeds them (a last line without "\n" too). */
void ta_autotune_log_text(ta_autotune_log *l, const char *text, size_t len);
/* Ends the output: a block being read counts as truncated. */
void ta_autotune_log_finish(ta_autotune_log *l);
void ta_autotune_log_clear(ta_autotune_log *l);

/* Feeds the "output" records of a saved record stream (--save-records),
 * {"type":"output","line":"..."}, in order. Returns how many, or -1 with
 * *err set (caller frees) when the file cannot be read. */
long ta_autotune_log_load_records(ta_autotune_log *l, const char *path, char **err);

/* The value of a parameter of a parsed config, or NULL. */
const char *ta_tune_config_get(const ta_tune_config *c, const char *name);
/* Parses Config.__str__ text into c (c->text is a copy). */
void ta_tune_config_parse(ta_tune_config *c, const char *text, size_t len);
void ta_tune_config_clear(ta_tune_config *c);

/* (Re)builds the autotune table of each kernel of m: the launch groups with
 * autotuning launches plus the chosen one, in the order they first ran.
 * With log (may be NULL), each "best config selected" of a kernel maps to
 * the group with 32 x num_warps threads per block whose steady launches
 * come next in time order, and the configs' texts are attached when the
 * printed ones line up with the groups; without it the chosen one is the
 * steady state (the main group). ta_measure_build calls it with NULL. */
void ta_autotune_attach(ta_measurement *m, const ta_autotune_log *log);

void ta_autotune_table_clear(ta_autotune_table *t);
void ta_autotune_table_copy(ta_autotune_table *dst, const ta_autotune_table *src);

/* What a row's launch shape tells of its config when Triton printed none:
 * "num_warps=8 (from the block)", or "-" (caller frees). */
char *ta_autotune_config_from_shape(const ta_autotune_row *r);

/* Config text without what is Triton's default (num_ctas: 1, "None"
 * values): "BLOCK_M: 64, BLOCK_N: 64, num_warps: 4, num_stages: 3". Caller
 * frees. */
char *ta_autotune_short_config(const char *text);

/* Whether any kernel of m has an autotune table. */
bool ta_autotune_any(const ta_measurement *m);

#endif
