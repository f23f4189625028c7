/* `tileadvise --report`: the model of a file, for people (text, markdown)
 * and for scripts (json). */
#ifndef TA_ADVISE_MODEL_REPORT_H
#define TA_ADVISE_MODEL_REPORT_H

#include <stdio.h>

#include "analyze/model.h"
#include "util/exitcode.h"
#include "util/format.h"

/* The model in fmt (text, markdown; json for TA_FORMAT_JSON). */
void ta_report_write(const ta_model *m, ta_format fmt, FILE *out);
/* Analyses the file at path and writes its model; a file that does not
 * read is one line on err. Returns TA_EXIT_OK or TA_EXIT_ERROR. */
ta_exit ta_report_file(const char *path, ta_format fmt, FILE *out, FILE *err);

#endif
