/* The --deep view as text (for --profile) and JSON. */
#ifndef TA_PROFILE_DEEP_REPORT_H
#define TA_PROFILE_DEEP_REPORT_H

#include <jansson.h>

#include "profile/deep.h"
#include "util/buf.h"

/* Appends the deep section: overheads, then per kernel its speed of light
 * and its hottest lines (at most max_lines, by samples). file names the
 * kernel file in the text. */
void ta_deep_text(ta_buf *b, const ta_deep *d, const char *file, size_t max_lines);
json_t *ta_deep_json(const ta_deep *d);

#endif
