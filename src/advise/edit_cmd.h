/* The command-line actions on suggested edits: `--diff ID[:LINE]`,
 * `--apply ID[:LINE]`, `--undo`, `--redo`. */
#ifndef TA_ADVISE_EDIT_CMD_H
#define TA_ADVISE_EDIT_CMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "util/exitcode.h"

/* Parses "ID" or "ID:LINE". Returns 0, or -1 when malformed. */
int ta_edit_parse_spec(const char *spec, char id[8], uint32_t *line);

/* The command-line actions: "apply" and "diff" take spec, "undo" and "redo"
 * ignore it. Prints the diff on out and problems as one line on err; an
 * unsafe edit's assumption goes to err too. "apply" makes an unsafe edit
 * only when unsafe_fixes (--unsafe-fixes). Returns the exit status:
 * TA_EXIT_OK done, TA_EXIT_ERROR refused or failed. */
ta_exit ta_edit_run(const char *action, const char *spec, const char *path, bool unsafe_fixes, FILE *out,
		    FILE *err);

#endif
