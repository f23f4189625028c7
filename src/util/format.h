/* The output formats the front ends take (--format), once: --report
 * writes text, markdown or json; --check text, json, sarif or github;
 * --profile text or json; --walk text, markdown or jsonl. */
#ifndef TA_UTIL_FORMAT_H
#define TA_UTIL_FORMAT_H

typedef enum ta_format {
	TA_FORMAT_TEXT, TA_FORMAT_MARKDOWN, TA_FORMAT_JSON, TA_FORMAT_SARIF,
	TA_FORMAT_GITHUB,            /* --check: GitHub Actions workflow commands */
	TA_FORMAT_JSONL,             /* --walk: one JSON object per event */
	TA_FORMAT_CSV                /* --profile: one row per kernel and launch shape */
} ta_format;

/* Parses "text", "markdown"/"md", "json", "sarif", "github", "jsonl"; returns -1
 * when unknown. */
int ta_format_parse(const char *s);

#endif
