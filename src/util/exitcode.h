/* The program's exit statuses, once. Every front end (--check, --report,
 * --profile, the edits, --explain, the advisor, --walk) returns one of these and
 * main() passes it on; --help and the man page's EXIT STATUS section say
 * the same in words. */
#ifndef TA_UTIL_EXITCODE_H
#define TA_UTIL_EXITCODE_H

typedef enum ta_exit {
	TA_EXIT_OK = 0,       /* the work was done; --check: nothing to report */
	TA_EXIT_FINDINGS = 1, /* --check reported findings (notes alone do not count) */
	TA_EXIT_ERROR = 2,    /* bad input, a usage error, or the work could not be done */
	TA_EXIT_INTERRUPTED = 130, /* --walk stopped by a signal (128 + SIGINT), the file as
	                      * of its last kept step */
} ta_exit;

#endif
