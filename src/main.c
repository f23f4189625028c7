/* tileadvise: an optimization advisor for Triton kernels.
 * Parses the options and hands the work to one front end. */
#include "config.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "advise/advisor.h"
#include "advise/checklist.h"
#include "advise/edit_cmd.h"
#include "advise/findings.h"
#include "advise/model_report.h"
#include "advise/profile_cmd.h"
#include "advise/session.h"
#include "util/exitcode.h"
#include "util/fsutil.h"
#include "util/text.h"
#include "ui/explain.h"
#include "ui/check.h"
#include "ui/discover.h"
#include "ui/record_session.h"
#include "ui/walk_cli.h"
#include "ui/session_report.h"
#include "ui/tui/tui.h"
#include "util/buf.h"

enum mode { MODE_NONE, MODE_REPORT, MODE_CHECK, MODE_PROFILE, MODE_LIST_RULES, MODE_EXPLAIN, MODE_EDIT, MODE_WALK };

typedef struct options {
	enum mode mode;
	int format;               /* ta_format, -1 until given */
	const char *explain_id;
	const char *edit_action;  /* "apply", "diff", "undo", "redo" */
	const char *edit_spec;    /* ID[:LINE] */
	double timeout_s;
	int repeat;
	const char *baseline;
	const char *records_in;
	const char *records_out;
	const char *gpu_preset;
	const char *baseline_records;
	bool deep;                /* --deep: PC sampling and counters runs */
	char **command;           /* argv after "--", NULL-terminated; NULL when none */
	char **files;
	int file_count;
	const char *select;       /* --check: ids to report */
	const char *ignore;       /* --check: ids to leave out */
	bool fixes;               /* --check: whether each finding's edit can be made */
	bool fix;                 /* --fix: make the edits first */
	bool fix_diff;            /* --diff with no id: show them instead */
	const char *color;        /* --color: auto, always, never (NULL: auto) */
	const char *extend_select; /* --extend-select */
	const char *config;       /* --config */
	const char *stdin_filename; /* --stdin-filename */
	bool exit_zero;           /* --check: findings do not make the exit status 1 */
	bool statistics;          /* --check: a count per entry instead of the findings */
	bool preview;             /* --check: report the entries in preview too */
	bool show_notes;          /* --check: report the trigger notes too */
	char **excludes;          /* --check: --exclude patterns (argv's strings) */
	size_t n_excludes;
	bool isolated;            /* --check: no pyproject.toml */
	bool unsafe_fixes;        /* --apply: also make an edit that is unsafe */
	bool no_profile;          /* the advisor: static analysis only */
	const char *replay;       /* the advisor: a recorded session, read-only */
	const char *test_command; /* the advisor: run after each applied edit */
	const char *record_session; /* write a session without a terminal */
	ta_record_step *steps;    /* --step, in order (owned array; strings in argv) */
	bool keep_neutral;        /* --walk: keep steps within noise */
	double budget_s;          /* --walk: the whole walk's time; 0: none */
	size_t n_steps;
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

/* The option groups of --help, by the key ranges of options.def. */
static int option_group(int key)
{
	if (key >= 400 && key < 450)
		return 0;                                  /* the advisor */
	if (key == 'R' || key == 'c' || key == 'f' || (key >= 256 && key < 300))
		return 1;                                  /* reading and checking */
	if (key == 'p' || (key >= 300 && key < 350))
		return 2;                                  /* profiling */
	if (key >= 350 && key < 400)
		return 3;                                  /* edits */
	return 4;
}

/* Writes text from column `col` on, wrapped to 80 columns with later lines
 * indented to `indent`. */
static void wrap_help(FILE *out, const char *text, int col, int indent)
{
	const int width = 80;
	const char *p = text;
	while (*p) {
		int room = width - col;
		size_t n = strlen(p);
		if ((int)n > room) {
			n = (size_t)room;
			while (n > 0 && p[n] != ' ')
				n--;
			if (n == 0)   /* one long word: let it run over */
				n = strcspn(p, " ");
		}
		fprintf(out, "%.*s\n", (int)n, p);
		p += n;
		while (*p == ' ')
			p++;
		if (*p)
			fprintf(out, "%*s", indent, "");
		col = indent;
	}
}

static void usage(FILE *out)
{
	static const char *const groups[] = {
		"The advisor (tileadvise FILE [-- COMMAND...])", "Reading and checking files", "Profiling",
		"Edits", "Other",
	};
	fprintf(out,
		"Usage: tileadvise [OPTION]... FILE [-- COMMAND...]\n"
		"Walk a Triton kernel file through an optimization checklist.\n"
		"Options may come before or after FILE; -- ends them.\n");
	for (int g = 0; g < (int)(sizeof groups / sizeof *groups); g++) {
		fprintf(out, "\n%s:\n", groups[g]);
		for (size_t i = 0; i < OPTION_COUNT; i++) {
			const option_doc *o = &option_docs[i];
			if (option_group(o->key) != g)
				continue;
			bool shortopt = o->key > 0 && o->key < 128;
			char left[64];
			int n = snprintf(left, sizeof left, "%c%c%s --%s%s%s", shortopt ? '-' : ' ',
					 shortopt ? o->key : ' ', shortopt ? "," : " ", o->name, o->arg ? "=" : "",
					 o->arg ? o->arg : "");
			if (n > 24) {   /* a long name: its help on the next line */
				fprintf(out, "  %s\n%28s", left, "");
				wrap_help(out, o->help, 28, 28);
			} else {
				fprintf(out, "  %-25s ", left);
				wrap_help(out, o->help, 28, 28);
			}
		}
	}
	fprintf(out,
		"\nExit status: 0 success; 1 findings (--check), no step kept (--walk); 2 bad\n"
		"input or usage; 130 --walk interrupted.\n"
		"Report bugs with the file that shows them; see tileadvise(1).\n");
}

static ta_exit usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "tileadvise: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'tileadvise --help' for more information.\n");
	return TA_EXIT_ERROR;
}

/* Levenshtein distance between a and the first n bytes of b, capped at 3
 * (only "one or two letters away" is asked). */
static size_t edit_distance(const char *a, const char *b, size_t n)
{
	size_t la = strlen(a);
	if (la > 64 || n > 64 || (la > n ? la - n : n - la) > 2)
		return 3;
	size_t row[65];
	for (size_t j = 0; j <= n; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= n; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			if (up + 1 < best)
				best = up + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[n] < 3 ? row[n] : 3;
}

/* A long option given by a prefix of its name: refused, with the name. */
static ta_exit usage_error_hint(const char *arg, const char *full)
{
	fprintf(stderr, "tileadvise: unrecognized option '%s'; did you mean '--%s'?\n", arg, full);
	fprintf(stderr, "Try 'tileadvise --help' for more information.\n");
	return TA_EXIT_ERROR;
}

/* Why getopt refused a long option: unknown, ambiguous, or its argument
 * missing. */
static int long_option_error(const char *arg, const struct option *longopts)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	int matches = 0, exact = -1, which = -1;
	for (int i = 0; longopts[i].name; i++) {
		if (strncmp(longopts[i].name, name, len))
			continue;
		matches++;
		which = i;
		if (strlen(longopts[i].name) == len)
			exact = i;
	}
	if (exact >= 0)
		which = exact;
	if (matches == 0) {
		/* a misspelling: the option one or two letters away */
		int best = -1;
		size_t best_d = 3;
		for (int i = 0; longopts[i].name; i++) {
			size_t d = edit_distance(longopts[i].name, name, len);
			if (d < best_d) {
				best_d = d;
				best = i;
			}
		}
		if (best >= 0)
			return usage_error_hint(arg, longopts[best].name);
		return usage_error("unrecognized option '%s'", arg);
	}
	/* options go by their whole name (parse_options) */
	if (exact < 0 && matches == 1)
		return usage_error_hint(arg, longopts[which].name);
	if (exact < 0)
		return usage_error("unrecognized option '%s'", arg);
	if (longopts[which].has_arg == no_argument && eq)
		return usage_error("option '--%s' takes no argument", longopts[which].name);
	return usage_error("option '--%s' needs an argument", longopts[which].name);
}

/* --step ID=RECORDS[,MEASURED]: split in place (optarg is argv's). */
static int parse_step(char *arg, options *o)
{
	char *eq = strchr(arg, '=');
	char id[8];
	uint32_t line;
	if (!eq || eq == arg || !eq[1])
		return -1;
	*eq = '\0';
	if (ta_edit_parse_spec(arg, id, &line) != 0 || line) {
		*eq = '=';
		return -1;
	}
	char *comma = strrchr(eq + 1, ',');
	if (comma)
		*comma = '\0';
	if (!eq[1] || (comma && !comma[1]))
		return -1;
	ta_record_step *st = TA_APPEND(o->steps, o->n_steps);
	st->id = arg;
	st->records = eq + 1;
	st->measured = comma ? comma + 1 : NULL;
	return 0;
}

/* Whether word is ID or ID:LINE of a checklist entry. */
static bool names_entry(const char *word)
{
	char id[8];
	uint32_t line;
	return word && ta_edit_parse_spec(word, id, &line) == 0 && ta_entry_known(id);
}

static ta_exit parse_options(int argc, char **argv, options *o)
{
	struct option longopts[OPTION_COUNT + 1];
	/* "-": non-options come back in order (as key 1), so options may follow
	 * the file as with GNU tools, while "--" still ends the options and
	 * leaves the command after it untouched. */
	char shortopts[OPTION_COUNT * 2 + 2] = "-";
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
	/* `--diff` alone is ruff's: the diffs --fix would make. A next word that
	 * is a checklist id ("--diff D12") is its argument as before. */
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--diff") && !names_entry(i + 1 < argc ? argv[i + 1] : NULL))
			argv[i] = (char *)"--diff=";
	int c, nfiles = 0, li;
	for (;;) {
		int at = optind;
		li = -1;
		if ((c = getopt_long(argc, argv, shortopts, longopts, &li)) == -1)
			break;
		/* Long options by their whole name only: getopt takes any unique
		 * prefix, and `--fix` (ruff's mass fix) read as --fixes opened the
		 * advisor. The token is argv[at]: a long option is one word. */
		if (li >= 0 && at < argc && !strncmp(argv[at], "--", 2)) {
			const char *name = argv[at] + 2;
			size_t len = strcspn(name, "=");
			if (len != strlen(longopts[li].name))
				return usage_error_hint(argv[at], longopts[li].name);
		}
		switch (c) {
		case 1:
			/* Files gather at the front of argv, in slots getopt has
			 * already passed (it does not permute in this mode). */
			argv[1 + nfiles++] = optarg;
			break;
		case 'R':
			o->mode = MODE_REPORT;
			break;
		case 'c':
			o->mode = MODE_CHECK;
			break;
		case 258:
			o->select = optarg;
			break;
		case 259:
			o->ignore = optarg;
			break;
		case 260:
			o->fixes = true;
			break;
		case 269:
			o->extend_select = optarg;
			break;
		case 270:
			o->config = optarg;
			break;
		case 271:
			o->stdin_filename = optarg;
			break;
		case 268:
			if (ta_text_color_wanted(optarg, STDOUT_FILENO) < 0)
				return usage_error("--color takes auto, always or never, not '%s'", optarg);
			o->color = optarg;
			break;
		case 267:
			o->fix = true;
			if (o->mode == MODE_NONE)
				o->mode = MODE_CHECK;
			break;
		case 261:
			o->exit_zero = true;
			break;
		case 262:
			o->statistics = true;
			break;
		case 263:
			o->preview = true;
			break;
		case 266:
			o->show_notes = true;
			break;
		case 264:
			*TA_APPEND(o->excludes, o->n_excludes) = optarg;
			break;
		case 265:
			o->isolated = true;
			break;
		case 'p':
			o->mode = MODE_PROFILE;
			break;
		case 300: {
			char *end;
			o->timeout_s = strtod(optarg, &end);
			if (*end || o->timeout_s <= 0)
				return usage_error("--timeout needs a positive number of seconds, not '%s'", optarg);
			break;
		}
		case 301: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || n < 1 || n > 1000)
				return usage_error("--repeat needs a count from 1 to 1000, not '%s'", optarg);
			o->repeat = (int)n;
			break;
		}
		case 302:
			o->baseline = optarg;
			break;
		case 303:
			o->records_in = optarg;
			break;
		case 304:
			o->records_out = optarg;
			break;
		case 305:
			o->gpu_preset = optarg;
			break;
		case 306:
			o->baseline_records = optarg;
			break;
		case 307:
			o->deep = true;
			break;
		case 256:
			o->mode = MODE_LIST_RULES;
			break;
		case 257:
			o->mode = MODE_EXPLAIN;
			o->explain_id = optarg;
			break;
		case 354:
			o->unsafe_fixes = true;
			break;
		case 351:
			if (!*optarg) {   /* --diff alone: what --fix would do */
				o->fix_diff = true;
				if (o->mode == MODE_NONE)
					o->mode = MODE_CHECK;
				break;
			}
			/* fall through */
		case 350: case 352: case 353:
			if (o->mode == MODE_EDIT)
				return usage_error("one edit at a time: '%s' follows another --apply, --diff, --undo "
						   "or --redo (run tileadvise once per edit)", argv[at]);
			o->mode = MODE_EDIT;
			o->edit_action = c == 350 ? "apply" : c == 351 ? "diff" : c == 352 ? "undo" : "redo";
			o->edit_spec = optarg;
			break;
		case 400:
			o->no_profile = true;
			break;
		case 401:
			o->replay = optarg;
			break;
		case 402:
			o->test_command = optarg;
			break;
		case 403:
			o->record_session = optarg;
			break;
		case 405:
			o->mode = MODE_WALK;
			break;
		case 406:
			o->keep_neutral = true;
			break;
		case 407: {
			char *end;
			o->budget_s = strtod(optarg, &end);
			if (*end || !(o->budget_s > 0))
				return usage_error("--budget needs a positive number of seconds, not '%s'", optarg);
			break;
		}
		case 404:
			if (parse_step(optarg, o) != 0)
				return usage_error("--step needs ID=RECORDS or ID=RECORDS,MEASURED, not '%s'", optarg);
			break;
		case 'f':
			o->format = ta_format_parse(optarg);
			if (o->format < 0)
				return usage_error("unknown format '%s' (text, markdown, json; --check: text, json, sarif, "
						   "github; --walk: text, markdown, jsonl; --profile: text, json, csv, "
						   "markdown)", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(TA_EXIT_OK);
		case 'V':
			printf("tileadvise %s\n", PACKAGE_VERSION);
			printf(".gitignore in --check DIR: %s; pyproject.toml [tool.tileadvise]: %s\n",
			       ta_discover_reads_gitignore() ? "read (libgit2)" : "not read (built without libgit2)",
			       ta_findings_read_toml() ? "read (toml++)" : "not read (built without toml++)");
			printf("Copyright (c) 2026 the tileadvise authors. MIT License.\n");
			exit(TA_EXIT_OK);
		case '?':
		default:
			if (!strncmp(argv[optind - 1], "--", 2))
				return long_option_error(argv[optind - 1], longopts);
			if (optopt > 0 && optopt < 128 && !strchr(shortopts + 1, optopt))
				return usage_error("invalid option '-%s'", (char[]){ (char)optopt, 0 });
			if (optopt > 0 && optopt < 128)
				return usage_error("option '-%s' needs an argument", (char[]){ (char)optopt, 0 });
			return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	/* After "--": with no FILE before it, the files up to a second "--";
	 * then the command to profile (tileadvise FILE -- CMD, or
	 * tileadvise -- -odd-name.py -- CMD). */
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		int i = optind;
		if (nfiles == 0)
			for (; i < argc && strcmp(argv[i], "--"); i++)
				argv[1 + nfiles++] = argv[i];
		else
			i--;   /* at the "--" that ends the files */
		if (i < argc && i + 1 < argc)
			o->command = argv + i + 1;
	}
	o->files = argv + 1;
	o->file_count = nfiles;
	if ((o->fix || o->fix_diff) && o->mode != MODE_CHECK)
		return usage_error("%s", o->fix ? "--fix edits the files --check reads: it goes with --check alone"
					       : "--diff with no id shows --fix's edits: it goes with --check or --fix");
	return TA_EXIT_OK;
}

/* --report --replay SESSION: a recorded session's markdown report, the
 * one the advisor's w key writes. */
static ta_exit run_session_report(const options *o)
{
	if (o->file_count)
		return usage_error("%s", "--replay takes the session, not a FILE");
	if (o->format == TA_FORMAT_JSON || o->format == TA_FORMAT_SARIF || o->format == TA_FORMAT_GITHUB ||
	    o->format == TA_FORMAT_JSONL)
		return usage_error("%s", "--report --replay writes markdown (the session itself is the JSON)");
	ta_session *s;
	char *err;
	if (ta_session_load(o->replay, &s, &err) != 0) {
		fprintf(stderr, "tileadvise: %s\n", ta_text_name(err));
		free(err);
		return TA_EXIT_ERROR;
	}
	ta_session_annotate(s, s->walk);
	ta_exit rc = ta_session_report(s, s->walk, stdout) != 0 ? TA_EXIT_ERROR : TA_EXIT_OK;
	ta_session_free(s);
	return rc;
}

static ta_exit run_report(const options *o)
{
	if (o->replay)
		return run_session_report(o);
	if (o->file_count != 1)
		return usage_error("%s", o->file_count ? "--report takes one FILE" : "--report needs a FILE");
	if (o->format == TA_FORMAT_SARIF || o->format == TA_FORMAT_GITHUB || o->format == TA_FORMAT_JSONL)
		return usage_error("%s", "--report writes text, markdown or json");
	return ta_report_file(o->files[0], o->format < 0 ? TA_FORMAT_TEXT : (ta_format)o->format, stdout, stderr);
}

static ta_exit run_profile(const options *o)
{
	if (o->file_count != 1)
		return usage_error("%s", "--profile needs one FILE (the command to run may follow --)");
	if (o->format >= 0 && o->format != TA_FORMAT_TEXT && o->format != TA_FORMAT_JSON &&
	    o->format != TA_FORMAT_CSV && o->format != TA_FORMAT_MARKDOWN)
		return usage_error("%s", "--profile writes text, json, csv or markdown");
	ta_profile_request req = {
		.file = o->files[0],
		.analyse = true,
		.command = o->command,
		.baseline = o->baseline,
		.timeout_s = o->timeout_s,
		.repeat = o->repeat,
		.format = o->format == TA_FORMAT_JSON ? TA_PROFILE_JSON : o->format == TA_FORMAT_CSV ? TA_PROFILE_CSV
			: o->format == TA_FORMAT_MARKDOWN ? TA_PROFILE_MARKDOWN : TA_PROFILE_TEXT,
		.records_in = o->records_in,
		.records_out = o->records_out,
		.gpu_preset = o->gpu_preset,
		.baseline_records = o->baseline_records,
		.deep = o->deep,
	};
	return ta_profile_run_command(&req, stdout, stderr);
}

static ta_exit run_edit(const options *o)
{
	if (o->file_count != 1)
		return usage_error("--%s takes one FILE", o->edit_action);
	return ta_edit_run(o->edit_action, o->edit_spec, o->files[0], o->unsafe_fixes, stdout, stderr);
}

/* --walk FILE [-- COMMAND]: the measured walk, no terminal. */
static ta_exit run_walk(const options *o)
{
	if (o->file_count != 1)
		return usage_error("%s", "--walk needs one FILE (the command to run may follow --)");
	if (o->format >= 0 && o->format != TA_FORMAT_TEXT && o->format != TA_FORMAT_MARKDOWN &&
	    o->format != TA_FORMAT_JSONL)
		return usage_error("%s", "--walk writes text, markdown or jsonl");
	if (o->replay || o->no_profile)
		return usage_error("%s", o->replay ? "--walk walks the file itself, not a --replay"
						   : "--walk measures every step: it has no --no-profile");
	ta_walk_cli_options w = {
		.file = o->files[0],
		.command = o->command,
		.test_command = o->test_command,
		.select = o->select,
		.ignore = o->ignore,
		.preview = o->preview,
		.isolated = o->isolated,
		.unsafe_fixes = o->unsafe_fixes,
		.keep_neutral = o->keep_neutral,
		.budget_s = o->budget_s,
		.timeout_s = o->timeout_s,
		.gpu_preset = o->gpu_preset,
		.records = o->records_in,
		.format = o->format < 0 ? TA_FORMAT_TEXT : (ta_format)o->format,
	};
	return ta_walk_cli_run(&w);
}

static ta_exit run_catalog(const options *o)
{
	if (o->mode == MODE_LIST_RULES && o->format >= 0 && o->format != TA_FORMAT_TEXT && o->format != TA_FORMAT_JSON)
		return usage_error("%s", "--list-rules writes text or json");
	char *err;
	ta_catalog *cat = ta_catalog_load(NULL, &err);
	if (!cat) {
		fprintf(stderr, "tileadvise: %s\n", ta_text_name(err));
		free(err);
		return TA_EXIT_ERROR;
	}
	ta_exit rc = TA_EXIT_OK;
	if (o->mode == MODE_LIST_RULES && o->format == TA_FORMAT_JSON)
		ta_explain_list_json(cat, stdout);
	else if (o->mode == MODE_LIST_RULES)
		ta_explain_list(cat, stdout, ta_text_color_wanted(o->color, STDOUT_FILENO) == 1);
	else
		rc = ta_explain_entry(cat, o->explain_id, stdout);
	ta_catalog_free(cat);
	return rc;
}

static ta_exit run_check(const options *o)
{
	if (o->file_count == 0)
		return usage_error("%s", "--check needs a FILE or folder");
	if (o->format == TA_FORMAT_MARKDOWN || o->format == TA_FORMAT_JSONL)
		return usage_error("%s", "--check writes text, json, sarif or github");
	if (o->config && o->isolated)
		return usage_error("%s", "--isolated reads no settings file; --config names one: give one of them");
	/* The project's settings: from the first path's folder up (standard
	 * input: the current folder, or --stdin-filename's), or --config's. */
	ta_project proj;
	char *err = NULL;
	const char *first = !strcmp(o->files[0], "-") && o->stdin_filename ? o->stdin_filename : o->files[0];
	if (ta_findings_project(first, o->isolated, o->config, &proj, stderr, &err) != 0) {
		fprintf(stderr, "tileadvise: %s\n", ta_text_name(err));
		free(err);
		return TA_EXIT_ERROR;
	}
	int format = o->format;
	if (format < 0 && proj.output_format) {
		format = ta_format_parse(proj.output_format);
		if (format < 0 || format == TA_FORMAT_MARKDOWN || format == TA_FORMAT_JSONL) {
			fprintf(stderr, "tileadvise: %s: output-format '%s': --check writes text, json, sarif or "
					"github\n", proj.path, proj.output_format);
			ta_project_free(&proj);
			return TA_EXIT_ERROR;
		}
	}
	/* exclude patterns: the file's from its folder, --exclude's from here */
	char *cwd = getcwd(NULL, 0);
	ta_exclude *ex = ta_xcalloc(proj.n_exclude + o->n_excludes + 1, sizeof *ex);
	size_t nex = 0;
	for (size_t i = 0; i < proj.n_exclude; i++)
		ex[nex++] = (ta_exclude){ proj.exclude[i], proj.dir };
	for (size_t i = 0; i < o->n_excludes; i++)
		ex[nex++] = (ta_exclude){ o->excludes[i], cwd ? cwd : "." };
	/* extend-select: the file's and the command line's, both */
	char *extend = proj.extend_select && o->extend_select
		? ta_xasprintf("%s,%s", proj.extend_select, o->extend_select) : NULL;
	ta_file_ignore *pfi = ta_xcalloc(proj.n_pfi + 1, sizeof *pfi);
	for (size_t i = 0; i < proj.n_pfi; i++)
		pfi[i] = (ta_file_ignore){ { proj.pfi_patterns[i], proj.dir }, proj.pfi_ids[i] };
	ta_check_options co = { .format = format < 0 ? TA_FORMAT_TEXT : (ta_format)format,
				.select = o->select ? o->select : proj.select,
				.ignore = o->ignore ? o->ignore : proj.ignore, .fixes = o->fixes,
				.extend_select = extend ? extend : o->extend_select ? o->extend_select : proj.extend_select,
				.file_ignores = pfi, .n_file_ignores = proj.n_pfi, .stdin_filename = o->stdin_filename,
				.exit_zero = o->exit_zero, .statistics = o->statistics,
				.exclude = ex, .n_exclude = nex, .no_gitignore = proj.respect_gitignore == 0,
				.preview = o->preview || proj.preview == 1, .show_notes = o->show_notes,
				.fix = o->fix, .fix_diff = o->fix_diff, .unsafe_fixes = o->unsafe_fixes,
				.color = ta_text_color_wanted(o->color, STDOUT_FILENO) == 1 };
	ta_exit rc;
	if (o->statistics && co.format != TA_FORMAT_TEXT)
		rc = usage_error("%s", "--statistics prints text");
	else
		rc = ta_check_run(o->files, o->file_count, &co, stdout, stderr);
	free(ex);
	free(cwd);
	free(extend);
	free(pfi);
	ta_project_free(&proj);
	return rc;
}

/* --record-session OUT [--step ...]: a session from recorded runs, no
 * terminal. */
static ta_exit run_record_walk(const options *o)
{
	char *err;
	ta_record_options ro = { .file = o->file_count ? o->files[0] : NULL, .records = o->records_in,
				 .baseline_records = o->baseline_records, .gpu_preset = o->gpu_preset,
				 .steps = o->steps, .n_steps = o->n_steps, .out = o->record_session,
				 .select = o->select, .ignore = o->ignore, .isolated = o->isolated };
	if (!o->n_steps) {
		if (!o->file_count) {
			fprintf(stderr, "tileadvise: --record-session needs the kernel FILE\n");
			return TA_EXIT_ERROR;
		}
		if (ta_session_record_walk(&ro, &err) < 0) {
			fprintf(stderr, "tileadvise: %s\n", ta_text_name(err));
			free(err);
			return TA_EXIT_ERROR;
		}
		fprintf(stderr, "tileadvise: session written to %s\n", o->record_session);
		return TA_EXIT_OK;
	}
	if (o->file_count != 1)
		return usage_error("%s", "--record-session needs the kernel FILE");
	int kept = ta_session_record_walk(&ro, &err);
	if (kept < 0) {
		fprintf(stderr, "tileadvise: %s\n", ta_text_name(err));
		free(err);
		return TA_EXIT_ERROR;
	}
	if (kept)
		fprintf(stderr, "tileadvise: %d of %zu steps keep the measured file: today's edit differs from "
				"it (their versions say so)\n", kept, o->n_steps);
	fprintf(stderr, "tileadvise: session with %zu applied step%s written to %s\n", o->n_steps,
		o->n_steps == 1 ? "" : "s",
		o->record_session);
	return TA_EXIT_OK;
}

/* The default mode: the interactive advisor on FILE (or a replay). */
static ta_exit run_tui(const options *o)
{
	if (o->n_steps)
		return run_record_walk(o);
	if (o->file_count == 0 && !o->replay) {
		usage(stderr);
		return TA_EXIT_ERROR;
	}
	if (o->file_count > 1 || (o->replay && o->file_count))
		return usage_error("%s", o->replay ? "--replay takes the session, not a FILE"
						   : "the advisor opens one FILE");
	if (o->record_session)
		return run_record_walk(o);
	ta_tui_options t = {
		.file = o->file_count ? o->files[0] : NULL,
		.replay = o->replay,
		.no_profile = o->no_profile,
		.test_command = o->test_command,
		.command = o->command,
		.records = o->records_in,
		.gpu_preset = o->gpu_preset,
		.timeout_s = o->timeout_s,
		.baseline = o->baseline,
		.baseline_records = o->baseline_records,
		.deep = o->deep,
		.select = o->select,
		.ignore = o->ignore,
		.isolated = o->isolated,
	};
	return ta_tui_run(&t);
}

int main(int argc, char **argv)
{
	options o = { 0 };
	ta_exit rc = parse_options(argc, argv, &o);
	if (rc == TA_EXIT_OK && o.n_steps && (!o.record_session || o.mode != MODE_NONE))
		rc = usage_error("%s", "--step belongs to --record-session OUT");
	if (rc != TA_EXIT_OK) {
		free(o.steps);
		return rc;
	}
	/* Outside the advisor, what is printed quotes file names, sessions and
	 * source text: no control character of theirs reaches the terminal
	 * (glibc lets stdout and stderr be assigned). A diff keeps the file's
	 * carriage returns; one written to a file or pipe is left byte-exact. */
	FILE *real_out = stdout, *real_err = stderr, *safe_out = NULL, *safe_err = NULL;
	if (o.mode != MODE_NONE) {
		bool diff = o.mode == MODE_EDIT || o.fix_diff;
		if (!diff || isatty(STDOUT_FILENO))
			safe_out = ta_text_safe_stream(real_out, diff);
		safe_err = ta_text_safe_stream(real_err, false);
		if (safe_out)
			stdout = safe_out;
		if (safe_err)
			stderr = safe_err;
	}
	switch (o.mode) {
	case MODE_REPORT:
		rc = run_report(&o);
		break;
	case MODE_CHECK:
		rc = run_check(&o);
		break;
	case MODE_PROFILE:
		rc = run_profile(&o);
		break;
	case MODE_LIST_RULES:
	case MODE_EXPLAIN:
		rc = run_catalog(&o);
		break;
	case MODE_EDIT:
		rc = run_edit(&o);
		break;
	case MODE_WALK:
		rc = run_walk(&o);
		break;
	case MODE_NONE:
	default:
		rc = run_tui(&o);
		break;
	}
	free(o.steps);
	free(o.excludes);
	ta_advisor_shutdown();
	if (safe_out) {
		stdout = real_out;
		if (fclose(safe_out) != 0 && rc == TA_EXIT_OK)
			rc = TA_EXIT_ERROR;
	}
	if (safe_err) {
		stderr = real_err;
		fclose(safe_err);
	}
	return rc;
}
