/* The advisor (see advisor.h): opening a file or a replay, its session,
 * analysing again, the walk, the events, and what front ends read. */
#include "config.h"
#include "advise/advisor_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "advise/device.h"
#include "advise/findings.h"
#include "advise/trust.h"
#include "checklist/filter.h"
#include "util/buf.h"
#include "util/fsutil.h"

/* ---- events ------------------------------------------------------------------ */

adv_event *adv_push(ta_advisor *a, ta_advisor_event_kind kind, bool error, char *text)
{
	adv_event *e = TA_APPEND(a->events, a->n_events);
	e->kind = kind;
	e->error = error;
	e->text = text;
	e->edit = e->run = -1;
	return e;
}

void adv_note(ta_advisor *a, ta_advisor_event_kind kind, bool error, const char *fmt, ...)
{
	ta_buf b = TA_BUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	ta_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	adv_push(a, kind, error, ta_buf_steal(&b));
}

bool ta_advisor_next_event(ta_advisor *a, ta_advisor_event *ev)
{
	free(a->taken);
	a->taken = NULL;
	if (a->head >= a->n_events) {
		a->head = a->n_events = 0;
		return false;
	}
	adv_event *e = &a->events[a->head++];
	a->taken = e->text;
	*ev = (ta_advisor_event){ .kind = e->kind, .error = e->error, .see_log = e->see_log,
				  .offers_revert = e->offers_revert, .text = e->text ? e->text : "",
				  .edit = e->edit, .run = e->run };
	return true;
}

/* ---- the walk ------------------------------------------------------------------ */

/* The file's first syntax error, once per text, before anything else:
 * which kernel it leaves unadvised, or that it lies outside them. */
static void say_syntax_error(ta_advisor *a)
{
	const ta_syntax *syn = a->an->syn;
	if (!syn->error_count || a->syntax_said == a->an->src->hash)
		return;
	a->syntax_said = a->an->src->hash;
	const ta_syntax_error *e = &syn->errors[0];
	const char *kernel = NULL;
	for (size_t k = 0; k < a->walk->n_kernels && !kernel; k++)
		if (a->walk->kernels[k].syntax_error)
			kernel = a->walk->kernels[k].name;
	adv_note(a, TA_ADVISOR_NOTE, true, "syntax error at line %zu, column %zu: %s%s%s%s", e->line, e->column,
		 e->what ? e->what : "cannot parse", kernel ? "; `" : " (outside the kernels: their walk goes on)",
		 kernel ? kernel : "", kernel ? "` is not advised until it parses" : "");
}

void adv_rebuild_walk(ta_advisor *a)
{
	if (!a->an || a->opt.measuring)
		return;
	ta_session *s = a->sess;
	int r = ta_session_run_of(s, s->current);
	/* Diffs are made when a step is shown or the front end is idle: the
	 * first frame does not wait for every step's edit. */
	ta_walk *w = ta_walk_build_filtered(a->an->model, a->cat, r >= 0 ? &s->runs[r] : NULL, s->baseline,
					    a->has_gpu ? &a->gpu : NULL, s->file_name, a->filter);
	ta_session_annotate(s, w);
	ta_session_set_walk(s, w);
	a->walk = w;
	a->shown_src = a->an->src;
	a->walk_version++;
	say_syntax_error(a);
}

/* A lazy walk's kernel gets its steps when it is shown; what the session
 * says of them (applied, skipped) is marked then. */
void ta_advisor_kernel_ready(ta_advisor *a, size_t k)
{
	ta_walk *w = a->walk;
	if (!w || k >= w->n_kernels || !w->kernels[k].steps_pending)
		return;
	ta_walk_kernel_ready(w, k);
	ta_session_annotate(a->sess, w);
}

void ta_advisor_step_ready(ta_advisor *a, size_t k, size_t i)
{
	ta_walk *w = a->walk;
	if (w && k < w->n_kernels && i < w->kernels[k].n_steps)
		ta_walk_step_ready(w, &w->kernels[k].steps[i]);
}

size_t ta_advisor_ready_one(ta_advisor *a)
{
	ta_walk *w = a->walk;
	size_t kernels = w ? w->n_kernels_pending : 0;
	size_t left = ta_walk_ready_one(w);
	if (w && w->n_kernels_pending != kernels)
		ta_session_annotate(a->sess, w);
	return left;
}

void ta_advisor_walk_complete(ta_advisor *a)
{
	while (ta_advisor_ready_one(a))
		;
}

size_t ta_advisor_walk_pending(const ta_advisor *a)
{
	return ta_walk_pending(a->walk);
}

/* ---- the file ------------------------------------------------------------------ */

static void remember_stat(ta_advisor *a)
{
	struct stat st;
	if (a->path && stat(a->path, &st) == 0) {
		a->file_mtime = st.st_mtim;
		a->file_size = st.st_size;
	}
}

int adv_reanalyse(ta_advisor *a, const char *label)
{
	ta_analysis *an;
	char *err;
	if (ta_analysis_open(a->path, &an, &err) != 0) {
		adv_note(a, TA_ADVISOR_NOTE, true, "%s", err);
		free(err);
		remember_stat(a);
		return -1;
	}
	ta_analysis_free(a->an);
	a->an = an;
	remember_stat(a);
	ta_session *s = a->sess;
	int known = ta_session_find_version(s, an->src->hash);
	if (known >= 0) {
		s->current = (unsigned)known;
		s->file_hash = an->src->hash;
		s->file_size = an->src->len;
	} else {
		ta_session_add_version(s, an->src->text, an->src->len, label);
	}
	adv_rebuild_walk(a);
	return 0;
}

int ta_advisor_reread(ta_advisor *a, const char *label)
{
	uint64_t before = a->an ? a->an->src->hash : 0;
	if (a->read_only || adv_reanalyse(a, label) != 0)
		return -1;
	return a->an->src->hash != before;
}

bool ta_advisor_watch(ta_advisor *a)
{
	if (a->read_only || !a->path || a->run_kind != TA_RUN_NONE)
		return false;
	struct stat st;
	if (stat(a->path, &st) != 0)
		return false;
	if (st.st_size == a->file_size && st.st_mtim.tv_sec == a->file_mtime.tv_sec &&
	    st.st_mtim.tv_nsec == a->file_mtime.tv_nsec)
		return false;
	if (adv_reanalyse(a, "changed on disk") == 0)
		adv_note(a, TA_ADVISOR_NOTE, false, "%s changed on disk: analysed again", a->sess->file_name);
	return true;
}

int ta_advisor_save(ta_advisor *a, const char *kernel, const char *step, char **err)
{
	if (a->read_only || !a->sess || a->opt.measuring)
		return 0;
	ta_session *s = a->sess;
	free(s->pos_kernel);
	s->pos_kernel = kernel ? ta_xstrdup(kernel) : NULL;
	snprintf(s->pos_step, sizeof s->pos_step, "%s", step ? step : "");
	ta_advisor_walk_complete(a);   /* the file holds every kernel's steps and diffs */
	return ta_session_save(s, a->session_path, err);
}

/* ---- opening --------------------------------------------------------------------- */

static int open_replay(ta_advisor *a, char **err)
{
	if (ta_session_load(a->opt.replay, &a->sess, err) != 0)
		return -1;
	ta_session *s = a->sess;
	a->read_only = true;
	const ta_session_version *v = &s->versions[s->current];
	if (ta_source_from_bytes(s->file_name, v->text, v->len, &a->shown_src, err) != 0)
		return -1;
	if (!s->walk) {
		/* An older recording without steps: analyse the recorded text. */
		ta_analysis *an;
		if (ta_analysis_from_bytes(s->file_name, v->text, v->len, &an, err) != 0)
			return -1;
		int r = ta_session_run_of(s, s->current);
		ta_session_set_walk(s, ta_walk_build_vs(an->model, a->cat, r >= 0 ? &s->runs[r] : NULL,
							s->baseline, NULL, s->file_name));
		ta_analysis_free(an);
	}
	ta_session_annotate(s, s->walk);
	a->walk = s->walk;
	a->walk_version++;
	a->why_no_profile = ta_xstrdup("replay: read-only");
	return 0;
}

int adv_find_device(ta_advisor *a, char **err)
{
	ta_device d;
	ta_device_request r = { .preset = a->opt.gpu_preset,
				.records = a->opt.records || a->opt.records_for || a->opt.recording,
				.no_profile = a->opt.no_profile };
	if (ta_device_resolve(&r, &d, err) != 0)
		return -1;
	a->has_gpu = d.has_gpu;
	a->gpu = d.gpu;
	a->why_no_profile = d.why_not;
	ta_session *s = a->sess;
	if (a->has_gpu)
		ta_session_set_env_gpu(s, &a->gpu);
	else if (a->why_no_profile && !s->env.has_gpu) {
		free(s->env.no_gpu);
		s->env.no_gpu = ta_xstrdup(a->why_no_profile);
	}
	return 0;
}

/* --baseline-records is read now; --baseline CMD is measured after the
 * file's own run, unless the session already holds that command's run. */
static int open_baseline(ta_advisor *a, char **err)
{
	ta_session *s = a->sess;
	if (a->opt.baseline_records) {
		ta_run_figures f;
		char *why;
		if (ta_run_figures_from_records(a->an->model, a->opt.baseline_records,
						a->has_gpu ? &a->gpu : NULL, true, "baseline", &f,
						NULL, &why) != 0) {
			*err = ta_xasprintf("cannot read the baseline records: %s", why);
			free(why);
			return -1;
		}
		ta_session_set_baseline(s, &f, a->opt.baseline_records);
	} else if (a->opt.baseline) {
		a->baseline_pending = !s->baseline || !s->baseline_source ||
				      strcmp(s->baseline_source, a->opt.baseline) != 0;
	}
	return 0;
}

/* A command the session file stores, and this command line does not
 * replace, runs only once allowed (advise/trust.h): until then it is held
 * here and the question asked. Under --no-profile nothing of it would run:
 * it is kept in the session, unasked. */
static void hold_stored_commands(ta_advisor *a)
{
	ta_session *s = a->sess;
	bool cmd = s->command && !a->opt.command;
	bool test = s->test_command && !a->opt.test_command;
	if ((!cmd && !test) || a->opt.no_profile ||
	    ta_trust_allowed(a->path, cmd ? s->command : NULL, test ? s->test_command : NULL))
		return;
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "This session file stores");
	if (cmd) {
		ta_buf_puts(&b, " the command '");
		for (size_t i = 0; s->command[i]; i++)
			ta_buf_printf(&b, "%s%s", i ? " " : "", s->command[i]);
		ta_buf_puts(&b, "'");
		a->stored_command = s->command;
		s->command = NULL;
	}
	if (test) {
		ta_buf_printf(&b, "%s the test '%s'", cmd ? " and" : "", s->test_command);
		a->stored_test = s->test_command;
		s->test_command = NULL;
	}
	ta_buf_puts(&b, ", not given on this command line. Run them? (y: yes, remembered for this "
		    "file; n: no)");
	a->trust_question = ta_buf_steal(&b);
}

static void free_argv(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* The session of the file: resumed from beside it, or a new one. */
static int open_session(ta_advisor *a, char **err)
{
	const ta_source *src = a->an->src;
	if (!a->opt.recording && ta_path_exists(a->session_path)) {
		char *why;
		if (ta_session_load(a->session_path, &a->sess, &why) != 0) {
			*err = ta_xasprintf("%s\n(the kernel file was not touched; move the session file "
					    "away to start a new session)", why);
			free(why);
			return -1;
		}
		ta_session *s = a->sess;
		int known = ta_session_find_version(s, src->hash);
		if (known >= 0)
			s->current = (unsigned)known;
		else
			ta_session_add_version(s, src->text, src->len, "changed outside tileadvise");
		s->file_hash = src->hash;
		s->file_size = src->len;
		adv_note(a, TA_ADVISOR_NOTE, false, "resumed the session of %s (%zu edit%s, %zu run%s)",
			 s->created ? s->created : "before", s->n_edits, s->n_edits == 1 ? "" : "s", s->n_runs,
			 s->n_runs == 1 ? "" : "s");
	} else {
		a->sess = ta_session_new(a->path, src->text, src->len);
	}
	return 0;
}

/* What pyproject.toml said on warn, one note per line. */
static void project_notes(ta_advisor *a, const char *text)
{
	static const char me[] = "tileadvise: ";
	while (text && *text) {
		const char *eol = strchr(text, '\n');
		size_t n = eol ? (size_t)(eol - text) : strlen(text);
		const char *t = text;
		if (n >= sizeof me - 1 && !strncmp(t, me, sizeof me - 1)) {
			t += sizeof me - 1;
			n -= sizeof me - 1;
		}
		if (n)
			adv_push(a, TA_ADVISOR_PROJECT, false, ta_xstrndup(t, n));
		text = eol ? eol + 1 : NULL;
	}
}

/* The entries the walk reports: --select and --ignore, else the project's
 * (from the file's folder up), as --check takes them. */
static int open_scope(ta_advisor *a, char **err)
{
	ta_project p;
	char *said = NULL;
	size_t n_said = 0;
	FILE *warn = open_memstream(&said, &n_said);
	int rc = ta_findings_project(a->path, a->opt.isolated, NULL, &p, warn ? warn : stderr, err);
	if (warn)
		fclose(warn);
	project_notes(a, said);
	free(said);
	if (rc != 0)
		return -1;
	const char *sel = a->opt.select ? a->opt.select : p.select;
	const char *ign = a->opt.ignore ? a->opt.ignore : p.ignore;
	a->preview = a->opt.preview || p.preview == 1;
	if (sel || ign) {
		a->select = sel ? ta_xstrdup(sel) : NULL;
		a->ignore = ign ? ta_xstrdup(ign) : NULL;
		a->filter = ta_filter_new(true);
		char *why = NULL;
		bool file_sel = sel && !a->opt.select, file_ign = ign && !a->opt.ignore;
		if (sel && ta_filter_select(a->filter, sel, &why) != 0)
			*err = file_sel ? ta_xasprintf("%s: select: %s", p.path, why) : ta_xstrdup(why);
		else if (ign && ta_filter_ignore(a->filter, ign, &why) != 0)
			*err = file_ign ? ta_xasprintf("%s: ignore: %s", p.path, why) : ta_xstrdup(why);
		free(why);
		if (*err) {
			ta_project_free(&p);
			return -1;
		}
		if (file_sel || file_ign)
			adv_note(a, TA_ADVISOR_PROJECT, false, "%s: the walk leaves out what [tool.tileadvise]%s%s%s%s "
				 "leaves out of --check", p.path, file_sel ? " select = " : "", file_sel ? sel : "",
				 file_ign ? (file_sel ? ", ignore = " : " ignore = ") : "", file_ign ? ign : "");
	}
	ta_project_free(&p);
	return 0;
}

void ta_advisor_scope(const ta_advisor *a, const char **select, const char **ignore, bool *preview)
{
	*select = a->select;
	*ignore = a->ignore;
	*preview = a->preview;
}

/* Where a recording comes from: the GPU named. */
static void note_recording(ta_advisor *a)
{
	ta_session *s = a->sess;
	if (a->has_gpu)
		s->env.host = ta_xasprintf("recorded on an %s", a->gpu.name);
	else
		s->env.no_gpu = ta_xstrdup("no GPU was named for this recording");
}

/* The software the runs use, as the GPU machine's script names it
 * (TILEADVISE_SOFTWARE: driver, torch and Triton versions), for a
 * recording and a live session alike. */
static void note_software(ta_advisor *a)
{
	const char *sw = getenv("TILEADVISE_SOFTWARE");
	if (!sw || !*sw)
		return;
	free(a->sess->env.software);
	a->sess->env.software = ta_xstrdup(sw);
}

void adv_take_commands(ta_advisor *a)
{
	ta_session *s = a->sess;
	if (a->opt.command) {
		free_argv(s->command);
		size_t n = 0;
		while (a->opt.command[n])
			n++;
		s->command = ta_xcalloc(n + 1, sizeof(char *));
		for (size_t i = 0; i < n; i++)
			s->command[i] = ta_xstrdup(a->opt.command[i]);
	}
	if (a->opt.test_command) {
		free(s->test_command);
		s->test_command = ta_xstrdup(a->opt.test_command);
	}
}

static int open_file(ta_advisor *a, char **err)
{
	a->path = ta_xstrdup(a->opt.file);
	if (ta_analysis_open(a->path, &a->an, err) != 0)
		return -1;
	remember_stat(a);
	a->session_path = a->opt.session_path ? ta_xstrdup(a->opt.session_path) : ta_session_path_for(a->path);
	if (open_session(a, err) != 0)
		return -1;
	hold_stored_commands(a);
	adv_take_commands(a);
	if (open_scope(a, err) != 0 || adv_find_device(a, err) != 0 || open_baseline(a, err) != 0)
		return -1;
	if (a->opt.recording)
		note_recording(a);
	note_software(a);
	adv_rebuild_walk(a);
	return 0;
}

int ta_advisor_open(const ta_advisor_options *o, ta_advisor **out, char **err)
{
	ta_advisor *a = ta_xcalloc(1, sizeof *a);
	a->opt = *o;
	a->pending_edit = -1;
	a->deep_run = -1;
	*out = NULL;
	a->cat = ta_catalog_load(NULL, err);
	int rc = !a->cat ? -1 : o->replay ? open_replay(a, err) : o->measuring ? adv_open_measuring(a, err)
										 : open_file(a, err);
	if (rc != 0) {
		ta_advisor_free(a);
		return -1;
	}
	*out = a;
	return 0;
}

void ta_advisor_free(ta_advisor *a)
{
	if (!a)
		return;
	adv_runs_free(a);
	adv_measure_free(a);
	ta_session_free(a->sess);
	if (!a->an)
		ta_source_free(a->shown_src);
	ta_analysis_free(a->an);
	ta_catalog_free(a->cat);
	ta_filter_free(a->filter);
	free(a->select);
	free(a->ignore);
	free(a->path);
	free(a->session_path);
	free(a->why_no_profile);
	free(a->run_label);
	free(a->last_log);
	free(a->last_run_note);
	free(a->trust_question);
	free_argv(a->stored_command);
	free(a->stored_test);
	for (size_t i = a->head; i < a->n_events; i++)
		free(a->events[i].text);
	free(a->events);
	free(a->taken);
	free(a);
}

/* ---- starting ------------------------------------------------------------------ */

const char *ta_advisor_trust_question(const ta_advisor *a)
{
	return a->trust_question;
}

bool adv_first_run_due(const ta_advisor *a)
{
	if (a->opt.recording)   /* a recording's runs are its streams */
		return a->opt.records && !a->sess->n_runs;
	return !a->read_only && !a->trust_question && ta_session_run_of(a->sess, a->sess->current) < 0 &&
	       !a->opt.no_profile && (a->opt.records || a->opt.records_for || !a->why_no_profile);
}

/* The session file's stored commands: allowed (and remembered), or
 * dropped; then the first run, which waited for this answer. */
void ta_advisor_trust(ta_advisor *a, bool yes)
{
	if (!a->trust_question)
		return;
	ta_session *s = a->sess;
	if (yes) {
		char *err = NULL;
		if (ta_trust_allow(a->path, a->stored_command, a->stored_test, &err) != 0) {
			adv_note(a, TA_ADVISOR_NOTE, true, "%s", err);
			free(err);
		} else {
			adv_note(a, TA_ADVISOR_NOTE, false, "allowed; remembered for this file and these commands");
		}
		if (a->stored_command)
			s->command = a->stored_command;
		if (a->stored_test)
			s->test_command = a->stored_test;
	} else {
		free_argv(a->stored_command);
		free(a->stored_test);
		adv_note(a, TA_ADVISOR_NOTE, false, "not run: python3 %s is profiled and no test runs (give a "
			 "command after -- or --test=CMD to choose)", s->file_name);
	}
	a->stored_command = NULL;
	a->stored_test = NULL;
	free(a->trust_question);
	a->trust_question = NULL;
	if (adv_first_run_due(a))
		adv_start_profile(a, s->n_runs ? "re-run" : "first run");
}

void ta_advisor_start(ta_advisor *a)
{
	if (a->opt.measuring) {
		adv_measure_start(a);
		return;
	}
	if (adv_first_run_due(a))
		adv_start_profile(a, a->sess->n_runs ? "re-run" : a->opt.first_label ? a->opt.first_label
											 : "first run");
	if (!a->active)
		adv_start_baseline(a);
}

/* ---- reading ------------------------------------------------------------------- */

const ta_session *ta_advisor_session(const ta_advisor *a)
{
	return a->sess;
}

const ta_walk *ta_advisor_walk(const ta_advisor *a)
{
	return a->walk;
}

unsigned ta_advisor_walk_version(const ta_advisor *a)
{
	return a->walk_version;
}

const ta_catalog *ta_advisor_catalog(const ta_advisor *a)
{
	return a->cat;
}

const ta_source *ta_advisor_source(const ta_advisor *a)
{
	return a->shown_src;
}

const ta_run_figures *ta_advisor_last_run(const ta_advisor *a)
{
	const ta_session *s = a->sess;
	if (!s || !s->n_runs)
		return NULL;
	int r = ta_session_run_of(s, s->current);
	return r >= 0 ? &s->runs[r] : &s->runs[s->n_runs - 1];
}

const char *ta_advisor_path(const ta_advisor *a)
{
	return a->path;
}

const char *ta_advisor_session_path(const ta_advisor *a)
{
	return a->session_path;
}

bool ta_advisor_read_only(const ta_advisor *a)
{
	return a->read_only;
}

const ta_gpu_info *ta_advisor_gpu(const ta_advisor *a)
{
	return a->has_gpu ? &a->gpu : NULL;
}

const char *ta_advisor_why_no_run(const ta_advisor *a)
{
	return a->why_no_profile;
}

bool ta_advisor_can_run(const ta_advisor *a)
{
	return !a->read_only && !a->opt.no_profile &&
	       (a->opt.records || a->opt.records_for || a->opt.recording || !a->why_no_profile);
}

bool ta_advisor_profiling_off(const ta_advisor *a)
{
	return a->opt.no_profile;
}

bool ta_advisor_uses_records(const ta_advisor *a)
{
	return a->opt.records != NULL;
}

bool ta_advisor_baseline_pending(const ta_advisor *a)
{
	return a->baseline_pending;
}

void ta_advisor_shutdown(void)
{
	ta_model_shutdown();
}
