/* The --deep collectors inside the injector: PC sampling by source line
 * (pcsamp.c) and hardware counters per launch from the range profiler
 * (sol.cc). The injector core (cupti.c) owns the one CUPTI subscriber a
 * process may have and hands each collector the callbacks it enabled.
 * Each collector reports failures as "error" records and then stays idle:
 * the user's program must run on whatever CUPTI refuses. */
#ifndef TA_INJECT_DEEP_H
#define TA_INJECT_DEEP_H

#include <cupti.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the core lends a collector. */
typedef struct ta_inject_hooks {
	long pid;
	void (*emit)(const char *line, size_t n);        /* one complete record line */
	void (*error)(const char *where, CUptiResult rc); /* an "error" record */
	void (*note)(const char *where, const char *message); /* an "error" record
							       * without a CUPTI code */
	/* True when name is one of the kernels the tool asked about
	 * (TILEADVISE_DEEP_KERNELS, comma-separated; Triton's "_<digits>..."
	 * suffixes match too), or when it asked about none. */
	bool (*wanted)(const char *name);
} ta_inject_hooks;

/* Enables the callbacks the collector needs on sub. Returns false (after
 * reporting why) when it cannot work in this process. */
bool ta_pcsamp_setup(CUpti_SubscriberHandle sub, const ta_inject_hooks *hooks);
void ta_pcsamp_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);
/* At exit: collects what is left, maps PCs to source lines, writes the
 * pcline and pctotal records. */
void ta_pcsamp_finish(void);

bool ta_sol_setup(CUpti_SubscriberHandle sub, const ta_inject_hooks *hooks);
void ta_sol_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);
void ta_sol_finish(void);

/* Turns on (enable 1) or off (0) the launch callbacks both collectors and
 * the timed run use (driver API, every launch form Triton and PyTorch use).
 * Returns false after the first failure. */
bool ta_inject_launch_callbacks(CUpti_SubscriberHandle sub, uint32_t enable,
				void (*error)(const char *, CUptiResult));

/* Function, grid, block and dynamic shared memory of a launch, from the
 * parameters of one of those callbacks (cupti.c). Returns false for a form
 * that does not carry them. */
bool ta_inject_launch_params(CUpti_CallbackId cbid, const void *params, const void **func, int32_t grid[3],
			     int32_t block[3], int32_t *smem);

#ifdef __cplusplus
}
#endif

#endif
