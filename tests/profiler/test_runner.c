/* The runner against small scripts: exit codes, signals, timeout, cancel,
 * a grandchild left behind, exec failures, the record channel (good, messy,
 * closed early) and a flood of output with bounded memory. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "profile/runner.h"

static const char *python(void)
{
	const char *p = getenv("PYTHON3");
	return p && *p ? p : "python3";
}

static char *speak_path(void)
{
	static char path[4096];
	const char *src = getenv("TA_SRCDIR");
	snprintf(path, sizeof path, "%s/tests/profiler/scripts/speak.py", src ? src : ".");
	return path;
}

typedef struct run {
	ta_runner *r;
	char *describe;
	ta_run_result res;
} run;

static run run_cmd(char *const *argv, double timeout_s, ta_records *recs)
{
	ta_runner_opts o;
	memset(&o, 0, sizeof o);
	o.argv = argv;
	o.injector = "/nonexistent/libtileadvise-cupti.so";   /* sets the variables */
	o.timeout_s = timeout_s;
	o.grace_s = 0.3;
	o.records = recs;
	char *err = NULL;
	run x;
	x.r = ta_runner_start(&o, &err);
	assert_non_null(x.r);
	ta_runner_wait(x.r);
	x.describe = ta_runner_describe(x.r);
	x.res = *ta_runner_result(x.r);
	return x;
}

static void run_free(run *x)
{
	free(x->describe);
	ta_runner_free(x->r);
}

static run sh(const char *script, double timeout_s)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	return run_cmd(argv, timeout_s, NULL);
}

static void test_exit_codes(void **state)
{
	(void)state;
	run x = sh("echo hello; exit 0", 10);
	assert_string_equal(x.describe, "exited 0");
	size_t len;
	char *log = ta_runner_log(x.r, &len);
	assert_string_equal(log, "hello\n");
	free(log);
	run_free(&x);
	x = sh("echo oops >&2; exit 1", 10);
	assert_string_equal(x.describe, "exited with status 1");
	log = ta_runner_log(x.r, NULL);
	assert_string_equal(log, "oops\n");      /* stderr is in the log too */
	free(log);
	run_free(&x);
}

static void test_signal(void **state)
{
	(void)state;
	run x = sh("kill -SEGV $$", 10);
	assert_int_equal(x.res.state, TA_RUN_SIGNALED);
	assert_string_equal(x.describe, "killed by SIGSEGV");
	run_free(&x);
}

static void test_timeout(void **state)
{
	(void)state;
	run x = sh("sleep 30", 0.5);
	assert_int_equal(x.res.state, TA_RUN_TIMED_OUT);
	assert_string_equal(x.describe, "timed out after 0.5 s");
	/* It did not wait for the child's 30 s: a bound far from the 0.5 s
	 * expected, so that a loaded machine or a sanitizer build cannot fail it. */
	assert_true(x.res.elapsed_s < 15);
	run_free(&x);
}

/* A child that ignores SIGINT is killed after the grace period. */
static void test_cancel_ignoring_sigint(void **state)
{
	(void)state;
	ta_runner_opts o;
	memset(&o, 0, sizeof o);
	char *argv[] = { "/bin/sh", "-c", "trap '' INT; echo ready; while :; do sleep 1; done", NULL };
	o.argv = argv;
	o.grace_s = 0.3;
	char *err = NULL;
	ta_runner *r = ta_runner_start(&o, &err);
	assert_non_null(r);
	/* wait for it to be up, driving the runner the way a UI would */
	for (int i = 0; i < 200; i++) {
		struct pollfd fds[8];
		size_t n = ta_runner_fds(r, fds, 8);
		assert_true(n >= 1 && n <= 4);
		poll(fds, n, 20);
		ta_runner_poll(r, 0);
		char *log = ta_runner_log(r, NULL);
		bool up = strstr(log, "ready") != NULL;
		free(log);
		if (up)
			break;
	}
	ta_runner_cancel(r);
	ta_runner_wait(r);
	char *d = ta_runner_describe(r);
	assert_string_equal(d, "cancelled");
	assert_true(ta_runner_result(r)->elapsed_s < 30);   /* the child never ends by itself */
	free(d);
	ta_runner_free(r);
}

static bool process_gone(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return true;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = '\0';
		const char *p = strrchr(buf, ')');
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return true;     /* dead, waiting for a reaper we do not control */
		usleep(20000);
	}
	return false;
}

static void test_grandchild_killed(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/ta-grandchild-XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	char script[512];
	/* the grandchild keeps stdout open, so the run also proves we do not
	 * wait for its EOF forever */
	snprintf(script, sizeof script, "sleep 60 & echo $! > %s; exit 0", tmpl);
	run x = sh(script, 10);
	assert_string_equal(x.describe, "exited 0");
	assert_true(x.res.elapsed_s < 30);   /* not the grandchild's 60 s */
	FILE *f = fopen(tmpl, "r");
	int pid = 0;
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	fclose(f);
	unlink(tmpl);
	assert_true(pid > 0);
	assert_true(process_gone((pid_t)pid));
	run_free(&x);
}

/* A grandchild that leaves the group (setsid) is ended with the run too:
 * the runner is a child subreaper and ends what is reparented to it. */
static void test_setsid_grandchild_killed(void **state)
{
	(void)state;
	char tmpl[] = "/tmp/ta-setsid-XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	close(fd);
	char script[512];
	snprintf(script, sizeof script, "setsid sleep 60 >/dev/null 2>&1 </dev/null & echo $! > %s; "
		 "sleep 0.2; exit 0", tmpl);
	run x = sh(script, 10);
	assert_string_equal(x.describe, "exited 0");
	FILE *f = fopen(tmpl, "r");
	int pid = 0;
	assert_int_equal(fscanf(f, "%d", &pid), 1);
	fclose(f);
	unlink(tmpl);
	assert_true(pid > 0);
	assert_true(process_gone((pid_t)pid));
	run_free(&x);
}

static void test_exec_failures(void **state)
{
	(void)state;
	char *argv[] = { "no-such-command-for-tileadvise", NULL };
	run x = run_cmd(argv, 10, NULL);
	assert_int_equal(x.res.state, TA_RUN_EXEC_FAILED);
	assert_string_equal(x.describe, "command not found: no-such-command-for-tileadvise");
	run_free(&x);

	char tmpl[] = "/tmp/ta-noexec-XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	chmod(tmpl, 0600);
	char *argv2[] = { tmpl, NULL };
	x = run_cmd(argv2, 10, NULL);
	char want[128];
	snprintf(want, sizeof want, "not executable: %s", tmpl);
	assert_string_equal(x.describe, want);
	unlink(tmpl);
	run_free(&x);
}

static void test_records_good(void **state)
{
	(void)state;
	ta_records recs;
	ta_records_init(&recs);
	char *argv[] = { (char *)python(), speak_path(), "good", NULL };
	run x = run_cmd(argv, 30, &recs);
	assert_string_equal(x.describe, "exited 0");
	assert_int_equal(recs.n_hello, 1);
	assert_int_equal(recs.n_kernels, 3);
	assert_int_equal(recs.n_bye, 1);
	assert_int_equal(recs.driver_version, 13000);
	assert_int_equal(recs.kernels[2].end_ns - recs.kernels[2].start_ns, 102);
	assert_int_equal(recs.n_malformed + recs.n_truncated, 0);
	assert_true(x.res.record_bytes > 0);
	run_free(&x);
	ta_records_clear(&recs);
}

static void test_records_messy(void **state)
{
	(void)state;
	ta_records recs;
	ta_records_init(&recs);
	char *argv[] = { (char *)python(), speak_path(), "messy", NULL };
	run x = run_cmd(argv, 30, &recs);
	assert_string_equal(x.describe, "exited 0");
	assert_int_equal(recs.n_kernels, 2);       /* the split one assembled */
	assert_int_equal(recs.kernels[1].end_ns - recs.kernels[1].start_ns, 101);
	assert_int_equal(recs.n_malformed, 2);     /* garbage, missing fields */
	assert_int_equal(recs.n_unknown, 1);
	assert_int_equal(recs.n_truncated, 1);
	assert_int_equal(recs.n_bye, 0);
	run_free(&x);
	ta_records_clear(&recs);
}

static void test_record_fd_closed_early(void **state)
{
	(void)state;
	ta_records recs;
	ta_records_init(&recs);
	char *argv[] = { (char *)python(), speak_path(), "close", NULL };
	run x = run_cmd(argv, 30, &recs);
	assert_string_equal(x.describe, "exited 0");
	assert_int_equal(recs.n_hello, 1);
	char *log = ta_runner_log(x.r, NULL);
	assert_non_null(strstr(log, "still running 999\n"));
	free(log);
	run_free(&x);
	ta_records_clear(&recs);
}

/* 2 GiB of output: the log keeps the last 1 MiB, memory stays flat. */
static void test_flood_bounded(void **state)
{
	(void)state;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	long rss_before = ru.ru_maxrss;
	run x = sh("head -c 2147483648 /dev/zero | tr '\\0' x; echo; echo tail-marker", 60);
	assert_string_equal(x.describe, "exited 0");
	assert_true(x.res.log_bytes == 2147483648ull + 1 + 12);
	assert_true(x.res.log_dropped == x.res.log_bytes - TA_RUNNER_DEFAULT_LOG_CAP);
	size_t len;
	char *log = ta_runner_log(x.r, &len);
	assert_int_equal(len, TA_RUNNER_DEFAULT_LOG_CAP);
	assert_non_null(strstr(log, "tail-marker\n"));
	free(log);
	getrusage(RUSAGE_SELF, &ru);
	print_message("flood: %.1f s, max RSS %ld -> %ld KiB\n", x.res.elapsed_s, rss_before, ru.ru_maxrss);
	assert_true(ru.ru_maxrss - rss_before < 16 * 1024);
	run_free(&x);
}

static void test_environment(void **state)
{
	(void)state;
	run x = sh("test -n \"$TILEADVISE_RECORD_FD\" && test -S /proc/self/fd/$TILEADVISE_RECORD_FD"
		   " && echo \"$CUDA_INJECTION64_PATH\" && test ! -t 0", 10);
	assert_string_equal(x.describe, "exited 0");
	char *log = ta_runner_log(x.r, NULL);
	assert_string_equal(log, "/nonexistent/libtileadvise-cupti.so\n");
	free(log);
	run_free(&x);
}

/* TILEADVISE_CAPTURE passes through to the injector; a value it does not
 * know stops the run before it starts, with the one it knows named. */
static void test_capture_range(void **state)
{
	(void)state;
	setenv("TILEADVISE_CAPTURE", "profiler-api", 1);
	run x = sh("echo \"$TILEADVISE_CAPTURE\"", 10);
	char *log = ta_runner_log(x.r, NULL);
	assert_string_equal(log, "profiler-api\n");
	free(log);
	run_free(&x);

	setenv("TILEADVISE_CAPTURE", "cudaProfilerAPI", 1);   /* nsys's spelling, wrong case */
	char *argv[] = { "/bin/true", NULL };
	ta_runner_opts o;
	memset(&o, 0, sizeof o);
	o.argv = argv;
	o.injector = "/nonexistent/libtileadvise-cupti.so";
	char *err = NULL;
	assert_null(ta_runner_start(&o, &err));
	assert_non_null(strstr(err, "TILEADVISE_CAPTURE=cudaProfilerAPI is not"));
	assert_non_null(strstr(err, "profiler-api records only between cudaProfilerStart"));
	free(err);
	o.injector = NULL;   /* a run without the injector (a baseline) ignores it */
	ta_runner *r = ta_runner_start(&o, &err);
	assert_non_null(r);
	ta_runner_wait(r);
	ta_runner_free(r);
	unsetenv("TILEADVISE_CAPTURE");
	assert_int_equal(ta_proto_capture_mode("cudaProfilerApi"), 1);
	assert_int_equal(ta_proto_capture_mode(""), 0);
	assert_int_equal(ta_proto_capture_mode(NULL), 0);
}

/* A folder whose CUPTI is another version than the build's does not fit
 * (the tool then says to rebuild instead of "not loaded"). */
static void test_cupti_version(void **state)
{
	(void)state;
	char dir[] = "/tmp/ta-cupti-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/libcupti.so.12", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	if (CUPTI_SONAME[0]) {
		assert_false(ta_runner_cupti_fits(dir));
		snprintf(path, sizeof path, "%s/%s", dir, CUPTI_SONAME);
		f = fopen(path, "w");
		assert_non_null(f);
		fclose(f);
		assert_true(ta_runner_cupti_fits(dir));
		unlink(path);
	} else {
		assert_true(ta_runner_cupti_fits(dir));   /* no CUPTI at build time: unknown */
	}
	snprintf(path, sizeof path, "%s/libcupti.so.12", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cupti_version),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_cancel_ignoring_sigint),
		cmocka_unit_test(test_grandchild_killed),
		cmocka_unit_test(test_setsid_grandchild_killed),
		cmocka_unit_test(test_exec_failures),
		cmocka_unit_test(test_records_good),
		cmocka_unit_test(test_records_messy),
		cmocka_unit_test(test_record_fd_closed_early),
		cmocka_unit_test(test_flood_bounded),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_capture_range),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
