/* Whether a re-run after an edit still does what the first run did: the
 * user's own script is a test too.
 *
 * The check lines of a run's output are the lines it printed that are not
 * timings: every non-empty line except those that carry a timing or a
 * throughput (a number followed by a time unit, GB/s, TFLOPS, it/s, or a
 * speed-up such as "1.4x"), Triton's autotuning report, and Python's
 * warnings (they vary from run to run and say nothing about the results).
 * What is left is what a script prints to say whether its results are right
 * ("MISMATCH vs torch", "max abs err 3.9e-03", "ok").
 *
 * Two runs agree when their check lines agree one by one: the text between
 * numbers is the same, whole numbers are equal, and other numbers are equal
 * within 1% or both under 0.01 in magnitude (the error of a half-precision
 * result moves that much when an edit reorders a sum). */
#ifndef TA_ADVISE_CHECK_LINES_H
#define TA_ADVISE_CHECK_LINES_H

#include <stdbool.h>

#include "profile/runner.h"

/* The check lines of output (may be NULL), joined by "\n" (caller frees;
 * "" when there are none). */
char *ta_check_lines(const char *output);

/* Whether a timing or a throughput is on the line (len bytes). */
bool ta_check_is_timing(const char *line, unsigned long len);

/* NULL when the check lines now agree with first, else one sentence
 * saying where they part (caller frees). */
char *ta_check_lines_differ(const char *first, const char *now);

/* Why a re-run after an edit is broken, or NULL when it is not: it did not
 * exit with status 0 (how: the runner's sentence, "exited with status 1"),
 * or first (the first run's check lines; NULL: none kept) is given and
 * output's check lines differ from it. Caller frees. */
char *ta_check_rerun(const ta_run_result *res, const char *how, const char *first,
		     const char *output);

#endif
