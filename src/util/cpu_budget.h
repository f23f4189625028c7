/* A budget of CPU time for one call on the calling thread, enforced from a
 * watchdog thread: once the thread has used the budget (its own CPU clock,
 * which a loaded machine does not stretch as it stretches the wall clock),
 * the watchdog sets a flag the long call polls (tree-sitter's cancellation
 * flag). So whether a borderline input passes does not depend on what else
 * the machine runs.
 *
 *	size_t stop = 0;
 *	ta_cpu_budget *b = ta_cpu_budget_start(&stop, budget_us);
 *	... a call that returns early once stop is set ...
 *	bool spent = ta_cpu_budget_finish(b);
 */
#ifndef TA_UTIL_CPU_BUDGET_H
#define TA_UTIL_CPU_BUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ta_cpu_budget ta_cpu_budget;

/* Starts watching the calling thread's CPU time; *flag is set to 1 once it
 * has used budget_us from now. NULL when the thread's CPU clock or a
 * thread cannot be had (the caller then relies on its own wall-clock
 * limit). */
ta_cpu_budget *ta_cpu_budget_start(size_t *flag, uint64_t budget_us);

/* Stops the watchdog and frees b (NULL is fine); whether it set the flag. */
bool ta_cpu_budget_finish(ta_cpu_budget *b);

#endif
