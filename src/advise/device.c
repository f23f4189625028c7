/* Resolving the device once for every front end (see device.h). */
#include "config.h"
#include "advise/device.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fsutil.h"

int ta_device_resolve(const ta_device_request *r, ta_device *d, char **err)
{
	memset(d, 0, sizeof *d);
	if (r->preset && !ta_gpu_preset(r->preset, &d->gpu)) {
		*err = ta_xasprintf("unknown GPU '%s' (known: %s)", r->preset, TA_DEVICE_PRESETS);
		return -1;
	}
	if (r->no_profile) {
		memset(&d->gpu, 0, sizeof d->gpu);
		d->why_not = ta_xstrdup("profiling off (--no-profile)");
		return 0;
	}
	if (r->preset) {
		d->has_gpu = true;
	} else if (!r->records) {
		char *why = NULL;
		if (ta_gpu_query(0, &d->gpu, &why) == 0) {
			d->has_gpu = true;
		} else {
			d->why_not = ta_xasprintf("no GPU: %s", why ? why : "unknown reason");
			free(why);
		}
	}
#ifndef HAVE_CUPTI
	if (!r->records && !d->why_not)
		d->why_not = ta_xstrdup("profiling is off in this build (configured without CUPTI)");
#endif
	return 0;
}

void ta_device_clear(ta_device *d)
{
	free(d->why_not);
	memset(d, 0, sizeof *d);
}
