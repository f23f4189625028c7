/* The advisor's measuring mode (--profile, advise/profile_cmd.h): the
 * file's command timed `repeat` times into one run, the two --deep runs
 * joining it, then the baseline; what each part's children did is kept
 * for the front end to say (ta_advisor_measured). Nothing of the session
 * or the walk changes, and no event is sent. */
#include "config.h"
#include "advise/advisor_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fsutil.h"

/* ---- opening --------------------------------------------------------------------- */

int adv_open_measuring(ta_advisor *a, char **err)
{
	a->path = a->opt.file ? ta_xstrdup(a->opt.file) : NULL;
	if (!a->opt.no_analysis && ta_analysis_open(a->path, &a->an, err) != 0)
		return -1;
	const ta_source *src = a->an ? a->an->src : NULL;
	a->sess = ta_session_new(a->path ? a->path : "-", src ? src->text : "", src ? src->len : 0);
	adv_take_commands(a);
	if (adv_find_device(a, err) != 0)
		return -1;
	/* The records a live run sends, saved as they come (not a stream's). */
	if (a->opt.records_out && !a->opt.records && !(a->tee = fopen(a->opt.records_out, "w")))
		a->measured.tee_error = ta_xasprintf("cannot write %s: %s", a->opt.records_out, strerror(errno));
	return 0;
}

static void part_clear(ta_run_part *p)
{
	free(p->start_error);
	free(p->describe);
	free(p->log_tail);
	memset(p, 0, sizeof *p);
}

void adv_measure_free(ta_advisor *a)
{
	ta_measured *m = &a->measured;
	part_clear(&m->timed);
	part_clear(&m->deep[0]);
	part_clear(&m->deep[1]);
	part_clear(&m->base);
	free(m->records_error);
	free(m->tee_error);
	free(m->baseline_error);
	memset(m, 0, sizeof *m);
	ta_run_free(a->base_run);
	a->base_run = NULL;
	if (a->tee)
		fclose(a->tee);
	a->tee = NULL;
}

const ta_measured *ta_advisor_measured(const ta_advisor *a)
{
	return &a->measured;
}

/* ---- the parts ------------------------------------------------------------------- */

/* A CUPTI client inside the program (torch.profiler's Kineto) that finds
 * our subscriber first says so on its output with this code. */
static void spot_other_client(void *ctx, const char *line, size_t len)
{
	static const char code[] = "MULTIPLE_SUBSCRIBERS";
	if (len >= sizeof code - 1 && memmem(line, len, code, sizeof code - 1))
		*(bool *)ctx = true;
}

static char *tail_lines(const char *s, size_t len, int lines)
{
	size_t i = len;
	int seen = 0;
	while (i > 0) {
		if (s[i - 1] == '\n' && i != len && ++seen >= lines)
			break;
		i--;
	}
	return ta_xstrndup(s + i, len - i);
}

/* A run of argv (NULL: the file's command) on the file's kernels (or those
 * named): the timed one saves its records and reads Triton's report. */
static ta_run *new_run(const ta_advisor *a, char *const *argv, bool timed)
{
	ta_run_opts o = {
		.file = a->path,
		.model = a->an ? a->an->model : NULL,
		.kernel_names = a->opt.kernel_names,
		.autotuned = a->opt.autotuned,
		.n_kernel_names = a->opt.n_kernel_names,
		.argv = argv,
		.injector = a->opt.injector,
		.timeout_s = a->opt.timeout_s,
		.tee = timed ? a->tee : NULL,
		.read_tune = timed,
		.tune_first = timed && !a->opt.records,
		.output_line = timed && !a->opt.records ? spot_other_client : NULL,
		.output_ctx = (void *)&a->spot,
	};
	return ta_run_new(&o);
}

static ta_run_part *part_of(ta_advisor *a)
{
	switch (a->mphase) {
	case ADV_M_TIMED: return &a->measured.timed;
	case ADV_M_DEEP_PC: return &a->measured.deep[0];
	case ADV_M_DEEP_SOL: return &a->measured.deep[1];
	default: return &a->measured.base;
	}
}

/* Starts the part's next child of run in mode; false (the reason kept)
 * when it cannot start. */
static bool start_child(ta_advisor *a, ta_run *run, ta_run_kind kind, ta_run_mode mode)
{
	ta_run_part *p = part_of(a);
	char *err = NULL;
	if (ta_run_start(run, mode, &err) != 0) {
		p->start_error = err ? err : ta_xstrdup("?");
		return false;
	}
	p->children++;
	a->active = run;
	a->run_kind = kind;
	clock_gettime(CLOCK_MONOTONIC, &a->run_start);
	return true;
}

/* What the child that ended did, for its part. Returns whether the part
 * stops here (it could not run, ran out of time, or was cancelled). */
static bool child_ended(ta_advisor *a, ta_run *run)
{
	ta_run_part *p = part_of(a);
	const ta_run_result *x = ta_run_outcome(run);
	p->record_bytes += x->record_bytes;
	bool failed = !(x->state == TA_RUN_EXITED && x->exit_status == 0);
	if (failed || !p->any_failed) {
		free(p->describe);
		p->describe = ta_run_describe(run);
	}
	if (failed && !p->any_failed) {
		size_t len;
		char *log = ta_run_log(run, &len);
		p->log_tail = tail_lines(log, len, 20);
		free(log);
	}
	p->any_failed |= failed;
	p->ran_ok |= !failed;
	return x->state == TA_RUN_EXEC_FAILED || x->state == TA_RUN_TIMED_OUT || x->state == TA_RUN_CANCELLED;
}

static int repeats(const ta_advisor *a)
{
	return a->opt.repeat > 0 ? a->opt.repeat : 1;
}

static void done(ta_advisor *a)
{
	a->mphase = ADV_M_DONE;
	a->active = NULL;
	a->run_kind = TA_RUN_NONE;
}

static void end_measured_part(ta_advisor *a);

/* The baseline: its stream, or its command run as the file's was (not
 * when the file's runs are a stream's). */
static void start_baseline(ta_advisor *a)
{
	ta_measured *m = &a->measured;
	a->mphase = ADV_M_BASELINE;
	a->active = NULL;
	a->run_kind = TA_RUN_NONE;
	if (a->opt.baseline_records) {
		char *e = NULL;
		a->base_run = new_run(a, NULL, false);
		if (ta_run_load(a->base_run, a->opt.baseline_records, &e) != 0) {
			m->baseline_error = e;
			ta_run_free(a->base_run);
			a->base_run = NULL;
		} else {
			m->baseline = a->base_run;
		}
		done(a);
		return;
	}
	if (!a->opt.baseline || a->opt.records) {
		done(a);
		return;
	}
	char *argv[] = { "/bin/sh", "-c", (char *)a->opt.baseline, NULL };
	a->base_run = new_run(a, argv, false);
	if (!start_child(a, a->base_run, TA_RUN_BASELINE, TA_RUN_MODE_TIMED))
		done(a);
}

/* The --deep runs, once each, after the timed ones and joining them. */
static void start_deep(ta_advisor *a, int which)
{
	a->mphase = which == 0 ? ADV_M_DEEP_PC : ADV_M_DEEP_SOL;
	a->measured.deep_ran = true;
	if (start_child(a, a->run, which == 0 ? TA_RUN_DEEP_PC : TA_RUN_DEEP_SOL,
			which == 0 ? TA_RUN_MODE_PC : TA_RUN_MODE_SOL))
		return;
	if (which == 0)
		start_deep(a, 1);
	else
		end_measured_part(a);
}

/* The timed and --deep runs are over: their records are saved, the
 * baseline follows. */
static void end_measured_part(ta_advisor *a)
{
	if (a->tee)
		fclose(a->tee);
	a->tee = NULL;
	start_baseline(a);
}

static void end_timed(ta_advisor *a)
{
	ta_measured *m = &a->measured;
	m->timed.other_client = a->spot;
	a->spot = false;
	if (!m->timed.start_error && a->opt.deep && m->timed.ran_ok)
		start_deep(a, 0);
	else if (m->timed.start_error)
		done(a);      /* nothing is measured */
	else
		end_measured_part(a);
}

void adv_measure_start(ta_advisor *a)
{
	if (a->mphase != ADV_M_NONE)
		return;
	ta_measured *m = &a->measured;
	a->mphase = ADV_M_TIMED;
	ta_run_free(a->run);
	a->run = new_run(a, a->sess->command, true);
	if (a->opt.records) {
		char *e = NULL;
		if (ta_run_load(a->run, a->opt.records, &e) != 0) {
			m->records_error = e;
			done(a);
			return;
		}
		m->run = a->run;
		start_baseline(a);
		return;
	}
	m->run = a->run;
	if (!start_child(a, a->run, TA_RUN_PROFILE, TA_RUN_MODE_TIMED))
		end_timed(a);
}

int adv_measure_poll(ta_advisor *a)
{
	ta_run *run = a->active;
	if (!run)
		return TA_ADVISOR_IDLE;
	if (!ta_run_poll(run, 0))
		return TA_ADVISOR_RUNNING;
	bool stop = child_ended(a, run);
	ta_run_part *p = part_of(a);
	switch (a->mphase) {
	case ADV_M_TIMED:
		if (stop || (int)p->children >= repeats(a) || !start_child(a, run, TA_RUN_PROFILE, TA_RUN_MODE_TIMED))
			end_timed(a);
		break;
	case ADV_M_DEEP_PC:
		a->measured.deep[0].other_client = a->spot;
		start_deep(a, 1);
		break;
	case ADV_M_DEEP_SOL:
		a->measured.deep[1].other_client = a->spot;
		end_measured_part(a);
		break;
	case ADV_M_BASELINE:
		if (stop || (int)p->children >= repeats(a) || !start_child(a, run, TA_RUN_BASELINE, TA_RUN_MODE_TIMED)) {
			if (!p->start_error)
				a->measured.baseline = a->base_run;
			done(a);
		}
		break;
	default:
		done(a);
	}
	return TA_ADVISOR_ENDED;
}
