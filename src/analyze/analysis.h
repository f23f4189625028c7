/* One analysed file: source, syntax and model together, the unit every
 * front end works on. */
#ifndef TA_ANALYZE_ANALYSIS_H
#define TA_ANALYZE_ANALYSIS_H

#include "analyze/model.h"
#include "analyze/source.h"
#include "analyze/syntax.h"

typedef struct ta_analysis {
	ta_source *src;
	ta_syntax *syn;
	ta_model *model;
} ta_analysis;

/* Loads, parses and models path. Returns 0, or -1 with *err (caller frees):
 * a one-line message naming the file and what to do. Free with
 * ta_analysis_free. */
int ta_analysis_open(const char *path, ta_analysis **out, char **err);
/* The same over bytes in memory. */
int ta_analysis_from_bytes(const char *name, const char *bytes, size_t len,
			   ta_analysis **out, char **err);
/* The same over a source already loaded, which the analysis takes (freed
 * with it, also on failure). */
int ta_analysis_of_source(ta_source *src, ta_analysis **out, char **err);
void ta_analysis_free(ta_analysis *a);

#endif
