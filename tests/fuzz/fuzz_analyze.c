/* Fuzz target (a): a kernel file's bytes through everything --report and
 * --check do: load + validate, parse, model, every detector, the walk (which
 * runs every mechanical edit generator that applies and diffs its edit),
 * the report in each format and --check (text, json or SARIF by the input's
 * size) over the same bytes as a file.
 *
 * Properties: loading either succeeds or gives a one-line message; the json
 * report and the json/SARIF diagnostics are valid JSON; --check exits 0 or 1
 * (never 2) on bytes that loaded; nothing crashes, leaks or reads out of
 * bounds (ASan/UBSan). */
#include "config.h"
#include "fuzz.h"

#include <jansson.h>

#include "advise/checklist.h"
#include "advise/walk.h"
#include "analyze/analysis.h"
#include "checklist/rules.h"
#include "ui/check.h"
#include "advise/model_report.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static ta_catalog *cat;
static char *file;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init_env();
	char *err = NULL;
	cat = ta_catalog_load(NULL, &err);
	if (!cat) {
		fprintf(stderr, "fuzz: cannot load the catalog: %s\n", err);
		abort();
	}
	file = ta_path_join(fuzz_tmpdir(), "kernel.py");
	atexit(fuzz_cleanup);
	return 0;
}

static void must_be_json(const char *what, const char *text, size_t len)
{
	json_error_t je;
	json_t *j = json_loadb(text, len, 0, &je);
	FUZZ_CHECK(j != NULL, "%s is not JSON (%s at %d): %.*s", what, je.text, je.line,
		   (int)(len > 400 ? 400 : len), text);
	json_decref(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ta_analysis *a = NULL;
	char *err = NULL;
	if (ta_analysis_from_bytes("kernel.py", (const char *)data, size, &a, &err) != 0) {
		fuzz_check_message(err);
		free(err);
		return 0;
	}

	/* The detectors alone, and what the walk needs of them. */
	ta_rules_result *r = ta_rules_run(a->model, NULL);
	FUZZ_CHECK(r != NULL, "no rules result");
	const char *order[64];
	FUZZ_CHECK(ta_rules_count() <= 64, "more entries than expected");
	for (size_t k = 0; k < a->model->kernel_count; k++) {
		size_t n = ta_rules_walk_order(r, (int)k, order);
		FUZZ_CHECK(n <= ta_rules_count(), "walk order too long");
		for (size_t e = 0; e < ta_rules_count(); e++)
			FUZZ_CHECK(ta_rules_status(r, (int)k, e) < TA_STATUS__COUNT, "bad status");
	}
	for (size_t i = 0; i < r->finding_count; i++) {
		const ta_finding *f = &r->findings[i];
		FUZZ_CHECK(f->reason && strchr(f->reason, '\n') == NULL, "finding reason of %s not one line",
			   f->id);
		FUZZ_CHECK(f->span.line >= 1 && f->span.line <= a->src->line_count + 1 &&
			   f->span.start <= f->span.end && f->span.end <= a->src->len,
			   "finding %s points at line %u of %zu (bytes %u-%u of %zu)", f->id,
			   (unsigned)f->span.line, a->src->line_count, (unsigned)f->span.start,
			   (unsigned)f->span.end, a->src->len);
	}
	ta_rules_result_free(r);

	/* The walk: rules, catalog, and every mechanical edit's diff. */
	ta_walk *w = ta_walk_build(a->model, cat, NULL, NULL, "kernel.py");
	FUZZ_CHECK(w != NULL, "no walk");
	FUZZ_CHECK(w->n_kernels <= a->model->kernel_count, "walk has more kernels than the model");
	ta_walk_free(w);

	/* The report in each format; json must parse. */
	static const ta_format fmts[] = { TA_FORMAT_TEXT, TA_FORMAT_MARKDOWN, TA_FORMAT_JSON };
	for (size_t i = 0; i < sizeof fmts / sizeof *fmts; i++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *out = open_memstream(&buf, &len);
		ta_report_write(a->model, fmts[i], out);
		fclose(out);
		if (fmts[i] == TA_FORMAT_JSON)
			must_be_json("the json report", buf, len);
		free(buf);
	}
	ta_analysis_free(a);

	/* --check over the same bytes as a file, in one format (chosen by the
	 * input's size: each run re-reads the file and the catalog). */
	fuzz_write_file(file, data, size);
	static const ta_format cfmts[] = { TA_FORMAT_TEXT, TA_FORMAT_JSON, TA_FORMAT_SARIF };
	for (size_t i = size % 3; i == size % 3; i++) {
		char *buf = NULL, *ebuf = NULL;
		size_t len = 0, elen = 0;
		FILE *out = open_memstream(&buf, &len), *eout = open_memstream(&ebuf, &elen);
		ta_check_options o = { .format = cfmts[i] };
		char *paths[] = { file };
		int rc = ta_check_run(paths, 1, &o, out, eout);
		fclose(out);
		fclose(eout);
		FUZZ_CHECK(rc == 0 || rc == 1, "--check exit %d on bytes that loaded: %s", rc, ebuf);
		if (cfmts[i] != TA_FORMAT_TEXT)
			must_be_json("the --check output", buf, len);
		free(buf);
		free(ebuf);
	}
	return 0;
}
