#include "config.h"
#include "analyze/analysis.h"
#include "util/buf.h"

#include <stdlib.h>

int ta_analysis_of_source(ta_source *src, ta_analysis **out, char **err)
{
	*out = NULL;
	ta_analysis *a = ta_xcalloc(1, sizeof *a);
	a->src = src;
	a->syn = ta_syntax_parse(src, err);
	if (a->syn)
		a->model = ta_model_build(src, a->syn, err);
	if (!a->model) {
		ta_analysis_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

int ta_analysis_open(const char *path, ta_analysis **out, char **err)
{
	ta_source *src;
	*out = NULL;
	if (ta_source_load(path, &src, err) != 0)
		return -1;
	return ta_analysis_of_source(src, out, err);
}

int ta_analysis_from_bytes(const char *name, const char *bytes, size_t len,
			   ta_analysis **out, char **err)
{
	ta_source *src;
	*out = NULL;
	if (ta_source_from_bytes(name, bytes, len, &src, err) != 0)
		return -1;
	return ta_analysis_of_source(src, out, err);
}

void ta_analysis_free(ta_analysis *a)
{
	if (!a)
		return;
	ta_model_free(a->model);
	ta_syntax_free(a->syn);
	ta_source_free(a->src);
	free(a);
}
