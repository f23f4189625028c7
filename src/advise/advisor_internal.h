/* The advisor's state, shared by its three parts: opening, the file and
 * the session (advisor.c), the runs (advisor_runs.c) and the edits
 * (advisor_edit.c). Internal to src/advise. */
#ifndef TA_ADVISE_ADVISOR_INTERNAL_H
#define TA_ADVISE_ADVISOR_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "advise/advisor.h"
#include "advise/run.h"
#include "analyze/analysis.h"

typedef struct adv_event {
	ta_advisor_event_kind kind;
	bool error, see_log, offers_revert;
	char *text;
	int edit, run;
} adv_event;

struct ta_advisor {
	ta_advisor_options opt;      /* strings borrowed from the caller */
	bool read_only;              /* a replay */
	char *path;                  /* the kernel file */
	char *session_path;
	ta_catalog *cat;
	ta_analysis *an;             /* NULL in a replay */
	ta_source *shown_src;        /* a replay's recorded text; else an->src */
	ta_session *sess;
	ta_walk *walk;               /* the session's (sess->walk) */
	unsigned walk_version;
	uint64_t syntax_said;        /* the text whose syntax error was last said (its hash) */

	/* what the walk reports (ta_advisor_scope): NULL filter, every entry */
	struct ta_filter *filter;
	char *select, *ignore;
	bool preview;

	/* the device */
	bool has_gpu;
	ta_gpu_info gpu;
	char *why_no_profile;        /* NULL when runs can be made */

	/* runs */
	ta_run_kind run_kind;
	ta_run *active;              /* the one of run, deep and test with a child going; NULL */
	ta_run *run;                 /* the timed run or the baseline (owned) */
	struct timespec run_start;
	char *run_label;
	int pending_edit;            /* the session edit waiting for its after-run; -1 */
	bool baseline_pending;       /* --baseline CMD still to be measured */
	ta_run *deep;                /* the two --deep runs (owned) */
	ta_run *test;                /* the test command (owned) */
	int deep_run;                /* the session run they add to; -1 none */
	char *last_log;              /* output of the last run (owned) */
	char *last_run_note;         /* how it ended */
	size_t runs_made;            /* timed runs of the file so far (records_for) */
	bool offer;                  /* a revert is offered and not answered */

	/* measuring (--profile): the part in flight and what was had */
	int mphase;                  /* ADV_M_*, below */
	ta_measured measured;
	ta_run *base_run;            /* the baseline's records (owned) */
	FILE *tee;                   /* records_out, while the timed and --deep runs go */
	bool spot;                   /* a child's output named another CUPTI client */

	/* commands the session file stores that this command line did not
	 * give, held back until allowed (advise/trust.h) */
	char **stored_command;
	char *stored_test;
	char *trust_question;

	/* the file as last read */
	struct timespec file_mtime;
	off_t file_size;

	/* events not taken yet */
	adv_event *events;
	size_t n_events, head;
	char *taken;                 /* the text of the last event taken */
};

/* advisor.c */
void adv_note(ta_advisor *a, ta_advisor_event_kind kind, bool error, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The same with the edit, run and flags of the event. */
adv_event *adv_push(ta_advisor *a, ta_advisor_event_kind kind, bool error, char *text);
void adv_rebuild_walk(ta_advisor *a);
int adv_reanalyse(ta_advisor *a, const char *label);
bool adv_first_run_due(const ta_advisor *a);

/* advisor_edit.c: after an edit, its run (or its test) */
void adv_measure_edit(ta_advisor *a, const char *label);

/* advisor_step.c: a recording's first run, from its stream. */
int adv_record_first_run(ta_advisor *a, const char *records, const char *label);

/* advisor_measure.c: the measuring mode's runs */
enum { ADV_M_NONE, ADV_M_TIMED, ADV_M_DEEP_PC, ADV_M_DEEP_SOL, ADV_M_BASELINE, ADV_M_DONE };
int adv_open_measuring(ta_advisor *a, char **err);
void adv_measure_start(ta_advisor *a);
int adv_measure_poll(ta_advisor *a);
void adv_measure_free(ta_advisor *a);

/* advisor.c */
void adv_take_commands(ta_advisor *a);
int adv_find_device(ta_advisor *a, char **err);

/* advisor_runs.c */
void adv_start_profile(ta_advisor *a, const char *label);
void adv_start_test(ta_advisor *a);
void adv_start_baseline(ta_advisor *a);
void adv_runs_free(ta_advisor *a);

#endif
