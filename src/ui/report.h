/* `tileadvise --report`: the model of a file, for people (text, markdown)
 * and for scripts (json). */
#ifndef TA_UI_REPORT_H
#define TA_UI_REPORT_H

#include <stdio.h>

#include "analyze/model.h"

typedef enum ta_format {
	TA_FORMAT_TEXT, TA_FORMAT_MARKDOWN, TA_FORMAT_JSON, TA_FORMAT_SARIF,
	TA_FORMAT_GITHUB             /* --check: GitHub Actions workflow commands */
} ta_format;

/* Parses "text", "markdown"/"md", "json", "sarif"; returns -1 when unknown. */
int ta_format_parse(const char *s);

void ta_report_write(const ta_model *m, ta_format fmt, FILE *out);

#endif
