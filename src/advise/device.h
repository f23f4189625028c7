/* The device a front end measures on, resolved once and the same way for
 * the advisor, --walk, --profile and --record-session: the facts of a
 * known GPU named with --gpu (no driver asked), else, unless the
 * measurements come from recorded streams, the driver's first device.
 *
 * An unknown --gpu name is an error everywhere (the caller exits 2): a
 * misspelt name never quietly turns occupancy or profiling off. */
#ifndef TA_ADVISE_DEVICE_H
#define TA_ADVISE_DEVICE_H

#include <stdbool.h>

#include "profile/gpu.h"

typedef struct ta_device_request {
	const char *preset;      /* --gpu NAME; NULL: none */
	bool records;            /* runs are read from recorded streams: no driver asked */
	bool no_profile;         /* nothing runs (--no-profile): no driver asked */
} ta_device_request;

typedef struct ta_device {
	bool has_gpu;            /* gpu holds the facts */
	ta_gpu_info gpu;
	char *why_not;           /* why no run can be made on this machine (no GPU, no
	                          * CUPTI in this build, --no-profile); NULL: runs can be
	                          * made. Owned. */
} ta_device;

/* The names --gpu knows, for messages (profile/gpu.h). */
#define TA_DEVICE_PRESETS ta_gpu_preset_names()

/* Resolves r into *d (clear it with ta_device_clear). Returns 0, or -1 with
 * *err (caller frees) when r->preset names no known GPU:
 * "unknown GPU 'v100' (known: h200, h100, ...)". */
int ta_device_resolve(const ta_device_request *r, ta_device *d, char **err);
void ta_device_clear(ta_device *d);

#endif
