/* tileadvise: an optimization advisor for Triton kernels.
 * Parses the options and hands the work to one front end. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/checklist.h"
#include "analyze/analysis.h"
#include "ui/explain.h"
#include "ui/report.h"
#include "util/buf.h"

enum mode { MODE_NONE, MODE_REPORT, MODE_LIST_RULES, MODE_EXPLAIN };

typedef struct options {
	enum mode mode;
	int format;               /* ta_format, -1 until given */
	const char *explain_id;
	char **files;
	int file_count;
} options;

typedef struct option_doc {
	const char *name;
	int key;
	const char *arg;
	const char *help;
} option_doc;

static const option_doc option_docs[] = {
#define OPTION(name, key, arg, help) { name, key, arg, help },
#include "options.def"
#undef OPTION
};
#define OPTION_COUNT (sizeof option_docs / sizeof *option_docs)

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: tileadvise [OPTION]... FILE\n"
		"Walk a Triton kernel file through an optimization checklist.\n\n"
		"Options:\n");
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		const option_doc *o = &option_docs[i];
		char left[64];
		snprintf(left, sizeof left, "%c%c%s --%s%s%s", o->key > 0 && o->key < 128 ? '-' : ' ',
			 o->key > 0 && o->key < 128 ? o->key : ' ', o->key > 0 && o->key < 128 ? "," : " ",
			 o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
		fprintf(out, "  %-26s %s\n", left, o->help);
	}
	fprintf(out,
		"\nExit status: 0 success; 1 findings (--check); 2 bad input or usage.\n"
		"Report bugs with the file that shows them; see tileadvise(1).\n");
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "tileadvise: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'tileadvise --help' for more information.\n");
	return 2;
}

static int parse_options(int argc, char **argv, options *o)
{
	struct option longopts[OPTION_COUNT + 1];
	char shortopts[OPTION_COUNT * 2 + 2] = "+";
	size_t ns = 1;
	for (size_t i = 0; i < OPTION_COUNT; i++) {
		longopts[i] = (struct option){ option_docs[i].name,
					       option_docs[i].arg ? required_argument : no_argument,
					       NULL, option_docs[i].key };
		if (option_docs[i].key > 0 && option_docs[i].key < 128) {
			shortopts[ns++] = (char)option_docs[i].key;
			if (option_docs[i].arg)
				shortopts[ns++] = ':';
		}
	}
	shortopts[ns] = '\0';
	longopts[OPTION_COUNT] = (struct option){ 0 };
	o->format = -1;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'R':
			o->mode = MODE_REPORT;
			break;
		case 256:
			o->mode = MODE_LIST_RULES;
			break;
		case 257:
			o->mode = MODE_EXPLAIN;
			o->explain_id = optarg;
			break;
		case 'f':
			o->format = ta_format_parse(optarg);
			if (o->format < 0)
				return usage_error("unknown format '%s' (text, markdown or json)", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'V':
			printf("tileadvise %s\n", PACKAGE_VERSION);
			printf("Copyright (c) 2026 the tileadvise authors. MIT License.\n");
			exit(0);
		case '?':
		default:
			if (optopt && optopt < 128)
				return usage_error("invalid option '-%c'", (char[]){ (char)optopt, 0 });
			return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	o->files = argv + optind;
	o->file_count = argc - optind;
	return 0;
}

static int run_report(const options *o)
{
	if (o->file_count != 1)
		return usage_error("%s", o->file_count ? "--report takes one FILE" : "--report needs a FILE");
	if (o->format == TA_FORMAT_SARIF)
		return usage_error("%s", "--report writes text, markdown or json");
	ta_analysis *a;
	char *err;
	if (ta_analysis_open(o->files[0], &a, &err) != 0) {
		fprintf(stderr, "tileadvise: %s\n", err);
		free(err);
		return 2;
	}
	ta_report_write(a->model, o->format < 0 ? TA_FORMAT_TEXT : (ta_format)o->format, stdout);
	ta_analysis_free(a);
	return 0;
}

static int run_catalog(const options *o)
{
	char *err;
	ta_catalog *cat = ta_catalog_load(NULL, &err);
	if (!cat) {
		fprintf(stderr, "tileadvise: %s\n", err);
		free(err);
		return 2;
	}
	int rc = 0;
	if (o->mode == MODE_LIST_RULES)
		ta_explain_list(cat, stdout, isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
	else
		rc = ta_explain_entry(cat, o->explain_id, stdout);
	ta_catalog_free(cat);
	return rc;
}

int main(int argc, char **argv)
{
	options o = { 0 };
	int rc = parse_options(argc, argv, &o);
	if (rc != 0)
		return rc;
	switch (o.mode) {
	case MODE_REPORT:
		rc = run_report(&o);
		break;
	case MODE_LIST_RULES:
	case MODE_EXPLAIN:
		rc = run_catalog(&o);
		break;
	case MODE_NONE:
	default:
		if (o.file_count == 0) {
			usage(stderr);
			return 2;
		}
		fprintf(stderr, "tileadvise: the interactive advisor is not built yet; "
				"use 'tileadvise --report %s'\n", o.files[0]);
		rc = 2;
		break;
	}
	ta_model_shutdown();
	return rc;
}
