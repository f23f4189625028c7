/* A session's markdown report: `--report --replay` and the advisor's
 * report file. */
#ifndef TA_UI_SESSION_REPORT_H
#define TA_UI_SESSION_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "advise/session.h"

/* The markdown report of a session: file, GPU, each kernel's steps,
 * applied edits with before -> after and interval. Returns 0, or -1 on a
 * write error. */
int ta_session_report(const ta_session *s, const ta_walk *w, FILE *out);

#endif
