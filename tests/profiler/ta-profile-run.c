/* ta-profile-run: the profile stage on its own, for the GPU script and for
 * trying it without the main program. It fills a ta_profile_request the way
 * src/main.c does for `tileadvise --profile`.
 *
 *   ta-profile-run [--injector SO] [--kernel NAME]... [--timeout S] [--repeat N]
 *                  [--json] [--baseline CMD] [--records-out F] [--replay F]
 *                  [--gpu-preset h200] [FILE] [-- CMD...] */
#include "config.h"
#include "advise/profile_cmd.h"
#include "util/buf.h"
#include "util/datadir.h"
#include "util/fsutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	ta_profile_request req;
	memset(&req, 0, sizeof req);
	const char **names = ta_xcalloc((size_t)argc, sizeof *names);
	char *inj = NULL;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--json") == 0) {
			req.format = TA_PROFILE_JSON;
		} else if (v && strcmp(a, "--injector") == 0) {
			req.injector = v, i++;
		} else if (v && strcmp(a, "--kernel") == 0) {
			names[req.n_kernel_names++] = v, i++;
		} else if (v && strcmp(a, "--timeout") == 0) {
			req.timeout_s = atof(v), i++;
		} else if (v && strcmp(a, "--repeat") == 0) {
			req.repeat = atoi(v), i++;
		} else if (v && strcmp(a, "--baseline") == 0) {
			req.baseline = v, i++;
		} else if (v && strcmp(a, "--records-out") == 0) {
			req.records_out = v, i++;
		} else if (v && strcmp(a, "--replay") == 0) {
			req.records_in = v, i++;
		} else if (v && strcmp(a, "--gpu-preset") == 0) {
			req.gpu_preset = v, i++;
		} else if (a[0] == '-') {
			fprintf(stderr, "ta-profile-run: unknown option %s\n", a);
			return 2;
		} else {
			req.file = a;
		}
	}
	if (i < argc)
		req.command = argv + i;
	if (!req.file && !req.command && !req.records_in) {
		fprintf(stderr, "ta-profile-run: give a FILE, a command after --, or --replay\n");
		return 2;
	}
	if (!req.injector) {
		inj = ta_path_join(ta_libdir(), "libtileadvise-cupti.so");
		req.injector = inj;
	}
	req.kernel_names = names;
	int rc = ta_profile_run_command(&req, stdout, stderr);
	free(inj);
	free(names);
	return rc;
}
