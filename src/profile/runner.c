#include "config.h"
#include "profile/runner.h"
#include "util/buf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Output read per ta_runner_poll call at most, so that a child flooding its
 * output cannot starve the UI loop that calls us. */
#define READ_BUDGET ((size_t)8 << 20)
/* After the child is gone and its group killed, how long we keep reading
 * pipes held open by something that escaped the group (setsid). */
#define DRAIN_S 1.0

struct ta_runner {
	ta_runner_opts opts;
	char *argv0;                /* for messages */
	pid_t pid;
	int pidfd;                  /* -1 when the kernel has no pidfd_open */
	int out_fd;                 /* child's stdout+stderr, read end */
	int rec_fd;                 /* record socket, our end */
	int exec_fd;                /* CLOEXEC pipe: the child's exec errno, else EOF */
	double t_start, deadline_kill, deadline_drain;
	bool reaped, group_killed, timed_out, cancelled, done;
	int exec_errno;             /* > 0 once the child reported a failed exec */
	ta_run_result res;
	/* the bounded log: a ring of opts.log_cap bytes */
	char *ring;
	size_t ring_cap, ring_start, ring_len;
	ta_proto_decoder dec;
	ta_records scratch;         /* when opts.records is NULL */
	/* output lines for opts.output_line / tee_output */
	char *oline;
	size_t olen, ocap;
	bool oskip;                 /* past the cut of an overlong line */
	ta_buf tee_pend;            /* output records waiting for a record line's end */
	bool tee_mid_line;          /* the tee's last record bytes did not end a line */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

const char *ta_signal_name(int sig, char buf[32])
{
	static const struct { int sig; const char *name; } names[] = {
		{ SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" },
		{ SIGILL, "SIGILL" }, { SIGTRAP, "SIGTRAP" }, { SIGABRT, "SIGABRT" },
		{ SIGBUS, "SIGBUS" }, { SIGFPE, "SIGFPE" }, { SIGKILL, "SIGKILL" },
		{ SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" }, { SIGUSR2, "SIGUSR2" },
		{ SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" },
		{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" }, { SIGSYS, "SIGSYS" },
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(buf, 32, "signal %d", sig);
	return buf;
}

static bool dir_has_cupti(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool found = false;
	struct dirent *e;
	while (!found && (e = readdir(d)) != NULL)
		found = strncmp(e->d_name, "libcupti.so", 11) == 0;
	closedir(d);
	return found;
}

void ta_runner_python_argv(const char *file, char *argv[4])
{
	size_t i = 0;
	argv[i++] = (char *)"python3";
	if (file[0] == '-')
		argv[i++] = (char *)"--";
	argv[i++] = (char *)file;
	while (i < 4)
		argv[i++] = NULL;
}

bool ta_runner_cupti_fits(const char *dir)
{
	if (!CUPTI_SONAME[0] || !dir)
		return true;
	char *path = ta_xasprintf("%s/%s", dir, CUPTI_SONAME);
	bool fits = access(path, F_OK) == 0;
	free(path);
	return fits;
}

const char *ta_runner_find_cupti(const char *hint)
{
	static const char *const places[] = {
		CUPTI_LIBDIR,
		"/usr/local/cuda/targets/x86_64-linux/lib",
		"/usr/local/cuda/extras/CUPTI/lib64",
		"/usr/local/cuda/lib64",
	};
	if (hint && *hint && dir_has_cupti(hint))
		return hint;
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
		if (places[i][0] && dir_has_cupti(places[i]))
			return places[i];
	return NULL;
}

/* The child's environment: ours, with the injector's variables set. Built
 * before fork, since the child may only call async-signal-safe functions.
 * Caller frees the array and its strings. */
static char **child_env(const ta_runner_opts *o, int rec_fd, unsigned long long rec_ino)
{
	size_t n = 0, nx = 0;
	while (environ[n])
		n++;
	while (o->extra_env && o->extra_env[nx])
		nx++;
	char **env = ta_xcalloc(n + nx + 8, sizeof *env);
	size_t k = 0;
	const char *ld = NULL;
	bool print_tuning = false;
	for (size_t i = 0; i < n; i++) {
		const char *e = environ[i];
		print_tuning |= strncmp(e, "TRITON_PRINT_AUTOTUNING=", 24) == 0;
		if (strncmp(e, "TILEADVISE_RECORD_", 18) == 0 ||
		    (o->deep && strncmp(e, "TILEADVISE_DEEP", 15) == 0) ||
		    (o->injector && strncmp(e, "CUDA_INJECTION64_PATH=", 22) == 0))
			continue;
		if (strncmp(e, "LD_LIBRARY_PATH=", 16) == 0) {
			ld = e + 16;
			continue;
		}
		env[k++] = ta_xstrdup(e);
	}
	if (o->injector) {
		env[k++] = ta_xasprintf("CUDA_INJECTION64_PATH=%s", o->injector);
		env[k++] = ta_xasprintf("TILEADVISE_RECORD_FD=%d", rec_fd);
		/* Lets the injector check that the fd it inherited is still our
		 * socket (a grandchild may have the number reused by another file). */
		env[k++] = ta_xasprintf("TILEADVISE_RECORD_INO=%llu", rec_ino);
		if (o->deep) {
			env[k++] = ta_xasprintf("TILEADVISE_DEEP=%s", o->deep);
			if (o->deep_kernels && *o->deep_kernels)
				env[k++] = ta_xasprintf("TILEADVISE_DEEP_KERNELS=%s", o->deep_kernels);
		}
	}
	/* The injector has CUPTI's build-time place as its run path; where
	 * CUPTI lives elsewhere, append (not prepend: the user's own libraries
	 * keep precedence) the place we found. */
	const char *cupti = o->injector ? ta_runner_find_cupti(o->cupti_libdir) : NULL;
	if (cupti && (!ld || !strstr(ld, cupti)))
		env[k++] = ld && *ld ? ta_xasprintf("LD_LIBRARY_PATH=%s:%s", ld, cupti)
				     : ta_xasprintf("LD_LIBRARY_PATH=%s", cupti);
	else if (ld)
		env[k++] = ta_xasprintf("LD_LIBRARY_PATH=%s", ld);
	/* Triton then says which config it chose for each key (the autotune
	 * table); a user's own setting is left alone. */
	if (!print_tuning)
		env[k++] = ta_xstrdup("TRITON_PRINT_AUTOTUNING=1");
	for (size_t x = 0; x < nx; x++) {
		const char *eq = strchr(o->extra_env[x], '=');
		size_t len = eq ? (size_t)(eq - o->extra_env[x]) + 1 : strlen(o->extra_env[x]);
		bool set = false;
		for (size_t i = 0; i < n && !set; i++)
			set = strncmp(environ[i], o->extra_env[x], len) == 0;
		if (!set)
			env[k++] = ta_xstrdup(o->extra_env[x]);
	}
	env[k] = NULL;
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

/* In the child between fork and exec: async-signal-safe calls only. */
static void __attribute__((noreturn))
child_exec(const ta_runner_opts *o, char **env, int out_w, int rec_child, int exec_w)
{
	setpgid(0, 0);
	/* The UI may block or ignore signals; the user's program should not
	 * inherit that. */
	sigset_t all;
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	const int sigs[] = { SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGCHLD, SIGTSTP, SIGTTOU, SIGTTIN };
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0) {
		dup2(devnull, 0);
		if (devnull > 2)
			close(devnull);
	}
	dup2(out_w, 1);
	dup2(out_w, 2);
	if (out_w > 2)
		close(out_w);
	if (rec_child >= 0) {
		int fl = fcntl(rec_child, F_GETFD);
		fcntl(rec_child, F_SETFD, fl & ~FD_CLOEXEC);
	}
	execvpe(o->argv[0], o->argv, env);
	int e = errno;
	ssize_t w = write(exec_w, &e, sizeof e);
	(void)w;
	_exit(127);
}

/* ---- what escapes the group ------------------------------------------------ */

/* A grandchild that leaves the run's process group (setsid, setpgid) would
 * outlive the run: as a child subreaper the orphans of a run become ours,
 * and end_adopted ends them. The pids of the runs under way are not
 * orphans. */
static pid_t live_runs[8];

static void live_run_set(pid_t pid, bool on)
{
	for (size_t i = 0; i < sizeof live_runs / sizeof *live_runs; i++)
		if (on ? live_runs[i] == 0 : live_runs[i] == pid) {
			live_runs[i] = on ? pid : 0;
			return;
		}
}

static bool is_live_run(pid_t pid)
{
	for (size_t i = 0; i < sizeof live_runs / sizeof *live_runs; i++)
		if (live_runs[i] == pid)
			return true;
	return false;
}

static void become_subreaper(void)
{
#ifdef PR_SET_CHILD_SUBREAPER
	static bool done;
	if (!done)
		prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	done = true;
#endif
}

/* Kills and reaps our children that are no run's own (adopted orphans,
 * in another process group than ours); returns how many there were. */
static int kill_adopted(void)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	int n = 0;
	pid_t self = getpid(), group = getpgrp();
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0 || pid == self || is_live_run((pid_t)pid))
			continue;
		char path[64], buf[512];
		snprintf(path, sizeof path, "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t k = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		/* "pid (comm) state ppid pgrp ...": comm may hold anything. */
		const char *p = strrchr(buf, ')');
		char state;
		long ppid, pgrp;
		if (!p || sscanf(p + 1, " %c %ld %ld", &state, &ppid, &pgrp) != 3 || ppid != self ||
		    pgrp == group)
			continue;
		kill((pid_t)pid, SIGKILL);
		waitpid((pid_t)pid, NULL, WNOHANG);
		n++;
	}
	closedir(d);
	return n;
}

/* After the run's group was killed: its members die, their orphans come to
 * us, we end those, until none is left (bounded: 2 s). */
static void end_adopted(pid_t group)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	for (int round = 0; round < 200; round++) {
		int left = kill_adopted();
		if (kill(-group, 0) == 0)
			left++;
		if (left == 0)
			return;
		nanosleep(&nap, NULL);
	}
}

ta_runner *ta_runner_start(const ta_runner_opts *opts, char **err)
{
	*err = NULL;
	if (!opts->argv || !opts->argv[0]) {
		*err = ta_xstrdup("no command to run");
		return NULL;
	}
	const char *capture = getenv("TILEADVISE_CAPTURE");
	if (opts->injector && ta_proto_capture_mode(capture) < 0) {
		*err = ta_xasprintf("TILEADVISE_CAPTURE=%s is not a capture range tileadvise knows: "
				    "profiler-api records only between cudaProfilerStart and cudaProfilerStop; "
				    "unset it to record the whole run", capture);
		return NULL;
	}
	ta_runner *r = ta_xcalloc(1, sizeof *r);
	r->opts = *opts;
	r->argv0 = ta_xstrdup(opts->argv[0]);
	r->pid = -1;
	r->pidfd = r->out_fd = r->rec_fd = r->exec_fd = -1;
	if (r->opts.grace_s <= 0)
		r->opts.grace_s = TA_RUNNER_DEFAULT_GRACE_S;
	r->ring_cap = r->opts.log_cap ? r->opts.log_cap : TA_RUNNER_DEFAULT_LOG_CAP;
	r->ring = ta_xmalloc(r->ring_cap);
	r->res.state = TA_RUN_RUNNING;
	r->res.timeout_s = r->opts.timeout_s;
	ta_records_init(&r->scratch);
	ta_proto_decoder_init(&r->dec, opts->records ? opts->records : &r->scratch, opts->run_index);

	int out[2] = { -1, -1 }, ex[2] = { -1, -1 }, sp[2] = { -1, -1 };
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(ex, O_CLOEXEC) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0) {
		*err = ta_xasprintf("cannot create pipes for the child: %s", strerror(errno));
		goto fail;
	}
	/* Keep the child's record fd clear of 0-2 whatever our own state. */
	if (sp[1] <= 2) {
		int moved = fcntl(sp[1], F_DUPFD_CLOEXEC, 3);
		close(sp[1]);
		sp[1] = moved;
	}
	struct stat st;
	unsigned long long ino = fstat(sp[1], &st) == 0 ? (unsigned long long)st.st_ino : 0;
	char **env = child_env(opts, sp[1], ino);

	r->t_start = now_s();
	become_subreaper();
	pid_t pid = fork();
	if (pid < 0) {
		*err = ta_xasprintf("cannot start the command: fork failed: %s", strerror(errno));
		free_env(env);
		goto fail;
	}
	if (pid == 0)
		child_exec(&r->opts, env, out[1], opts->injector ? sp[1] : -1, ex[1]);
	free_env(env);
	setpgid(pid, pid);      /* also here: no window where a signal misses the group */
	r->pid = pid;
	live_run_set(pid, true);
	close(out[1]);
	close(ex[1]);
	close(sp[1]);
	r->out_fd = out[0];
	r->exec_fd = ex[0];
	r->rec_fd = sp[0];
	fcntl(r->out_fd, F_SETFL, O_NONBLOCK);
	fcntl(r->rec_fd, F_SETFL, O_NONBLOCK);
#ifdef SYS_pidfd_open
	r->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (r->pidfd >= 0)
		fcntl(r->pidfd, F_SETFD, FD_CLOEXEC);
#endif
	return r;

fail:
	for (int i = 0; i < 2; i++) {
		close_fd(&out[i]);
		close_fd(&ex[i]);
		close_fd(&sp[i]);
	}
	ta_proto_decoder_finish(&r->dec);
	ta_records_clear(&r->scratch);
	free(r->ring);
	free(r->argv0);
	free(r);
	return NULL;
}

static void ring_append(ta_runner *r, const char *p, size_t n)
{
	r->res.log_bytes += n;
	if (n >= r->ring_cap) {
		/* Only the tail of this piece survives. */
		r->res.log_dropped += r->ring_len + (n - r->ring_cap);
		memcpy(r->ring, p + (n - r->ring_cap), r->ring_cap);
		r->ring_start = 0;
		r->ring_len = r->ring_cap;
		return;
	}
	size_t over = r->ring_len + n > r->ring_cap ? r->ring_len + n - r->ring_cap : 0;
	r->ring_start = (r->ring_start + over) % r->ring_cap;
	r->ring_len -= over;
	r->res.log_dropped += over;
	size_t end = (r->ring_start + r->ring_len) % r->ring_cap;
	size_t first = n < r->ring_cap - end ? n : r->ring_cap - end;
	memcpy(r->ring + end, p, first);
	memcpy(r->ring, p + first, n - first);
	r->ring_len += n;
}

#define OUTPUT_LINE_MAX ((size_t)64 << 10)

/* Writes the pending output records when the tee is between record lines
 * (or, at the end, after ending a cut one). */
static void tee_flush(ta_runner *r, bool at_end)
{
	if (!r->tee_pend.len || !r->opts.records_tee)
		return;
	if (r->tee_mid_line) {
		if (!at_end)
			return;
		fputc('\n', r->opts.records_tee);
		r->tee_mid_line = false;
	}
	fwrite(r->tee_pend.data, 1, r->tee_pend.len, r->opts.records_tee);
	ta_buf_clear(&r->tee_pend);
}

/* The length of a valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t k = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;
	if (k == 0 || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return k;
}

static void output_deliver(ta_runner *r, const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (r->opts.output_line)
		r->opts.output_line(r->opts.output_ctx, line, len);
	if (!r->opts.tee_output || !r->opts.records_tee)
		return;
	/* JSON wants UTF-8: other bytes become '?' (as in the injector). */
	ta_buf_puts(&r->tee_pend, "{\"type\":\"output\",\"line\":\"");
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)line[i];
		size_t k = c < 0x80 ? 1 : utf8_len((const unsigned char *)line + i, len - i);
		if (k == 0) {
			ta_buf_putc(&r->tee_pend, '?');
			i++;
		} else {
			ta_buf_json_escaped(&r->tee_pend, line + i, k);
			i += k;
		}
	}
	ta_buf_puts(&r->tee_pend, "\"}\n");
	tee_flush(r, false);
}

/* Cuts the output into lines for output_line and the tee. */
static void output_feed(ta_runner *r, const char *p, size_t n)
{
	while (n > 0) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;
		if (!r->oskip) {
			size_t room = OUTPUT_LINE_MAX - r->olen;
			size_t k = take < room ? take : room;
			ta_grow((void **)&r->oline, &r->ocap, r->olen + k + 1, 1);
			memcpy(r->oline + r->olen, p, k);
			r->olen += k;
			if (r->olen == OUTPUT_LINE_MAX && !nl) {
				output_deliver(r, r->oline, r->olen);
				r->olen = 0;
				r->oskip = true;
			}
		}
		if (!nl)
			break;
		if (!r->oskip)
			output_deliver(r, r->oline, r->olen);
		r->olen = 0;
		r->oskip = false;
		p = nl + 1;
		n -= take + 1;
	}
}

/* Reads what is there; closes the fd at EOF. Returns bytes read. */
static size_t pump(ta_runner *r, int *fd, bool records, size_t budget)
{
	char buf[65536];
	size_t total = 0;
	while (*fd >= 0 && total < budget) {
		ssize_t n = read(*fd, buf, sizeof buf);
		if (n > 0) {
			total += (size_t)n;
			if (records) {
				r->res.record_bytes += (unsigned long long)n;
				if (r->opts.records_tee) {
					fwrite(buf, 1, (size_t)n, r->opts.records_tee);
					r->tee_mid_line = buf[n - 1] != '\n';
					tee_flush(r, false);
				}
				ta_proto_decoder_feed(&r->dec, buf, (size_t)n);
			} else {
				ring_append(r, buf, (size_t)n);
				if (r->opts.output_line || r->opts.tee_output)
					output_feed(r, buf, (size_t)n);
			}
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
			close_fd(fd);
		} else if (errno != EINTR) {
			break;
		}
	}
	return total;
}

static void signal_group(ta_runner *r, int sig)
{
	if (r->pid > 0 && !r->reaped)
		kill(-r->pid, sig);
}

static void begin_stop(ta_runner *r)
{
	if (r->deadline_kill > 0)
		return;
	signal_group(r, SIGINT);
	r->deadline_kill = now_s() + r->opts.grace_s;
}

void ta_runner_cancel(ta_runner *r)
{
	if (r->done || r->reaped)
		return;
	r->cancelled = true;
	begin_stop(r);
}

/* Notices the child's exit without reaping it, kills what is left of its
 * group while the zombie still holds the group id, then reaps. */
static void check_child(ta_runner *r)
{
	if (r->reaped)
		return;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)r->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
		return;
	kill(-r->pid, SIGKILL);
	r->group_killed = true;
	int status = 0;
	while (waitpid(r->pid, &status, 0) < 0 && errno == EINTR)
		;
	r->reaped = true;
	live_run_set(r->pid, false);
	end_adopted(r->pid);
	r->res.elapsed_s = now_s() - r->t_start;
	if (WIFEXITED(status)) {
		r->res.state = TA_RUN_EXITED;
		r->res.exit_status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r->res.state = TA_RUN_SIGNALED;
		r->res.term_signal = WTERMSIG(status);
	}
	r->deadline_drain = now_s() + DRAIN_S;
	close_fd(&r->pidfd);
}

/* The exec pipe gives the child's errno when exec failed, EOF when it
 * succeeded (the pipe is close-on-exec). */
static void read_exec_status(ta_runner *r)
{
	if (r->exec_fd < 0)
		return;
	struct pollfd p = { r->exec_fd, POLLIN, 0 };
	if (poll(&p, 1, 0) <= 0)
		return;
	int e = 0;
	ssize_t k = read(r->exec_fd, &e, sizeof e);
	if (k == (ssize_t)sizeof e && e > 0)
		r->exec_errno = e;
	if (k >= 0)
		close_fd(&r->exec_fd);
}

static void finish(ta_runner *r)
{
	read_exec_status(r);
	close_fd(&r->exec_fd);
	close_fd(&r->out_fd);
	close_fd(&r->rec_fd);
	ta_proto_decoder_finish(&r->dec);
	if (r->olen > 0 && !r->oskip)
		output_deliver(r, r->oline, r->olen);
	r->olen = 0;
	tee_flush(r, true);
	if (r->exec_errno > 0) {
		r->res.state = TA_RUN_EXEC_FAILED;
		r->res.exec_errno = r->exec_errno;
	} else if (r->timed_out) {
		r->res.state = TA_RUN_TIMED_OUT;
	} else if (r->cancelled) {
		r->res.state = TA_RUN_CANCELLED;
	}
	r->done = true;
}

int ta_runner_next_deadline_ms(const ta_runner *r)
{
	if (r->done)
		return -1;
	double t = now_s(), next = -1;
	if (!r->reaped) {
		if (r->deadline_kill > 0)
			next = r->deadline_kill;
		else if (r->opts.timeout_s > 0)
			next = r->t_start + r->opts.timeout_s;
		/* Without a pidfd the exit is only seen by looking. */
		if (r->pidfd < 0 && (next < 0 || next > t + 0.05))
			next = t + 0.05;
	} else {
		next = r->deadline_drain;
	}
	if (next < 0)
		return -1;
	double ms = (next - t) * 1000.0;
	return ms <= 0 ? 0 : (int)(ms + 1);
}

size_t ta_runner_fds(const ta_runner *r, struct pollfd *fds, size_t max)
{
	size_t n = 0;
	const int all[] = { r->out_fd, r->rec_fd, r->exec_fd, r->reaped ? -1 : r->pidfd };
	for (size_t i = 0; i < 4; i++) {
		if (all[i] < 0)
			continue;
		if (n < max) {
			fds[n].fd = all[i];
			fds[n].events = POLLIN;
			fds[n].revents = 0;
		}
		n++;
	}
	return n;
}

bool ta_runner_poll(ta_runner *r, int timeout_ms)
{
	if (r->done)
		return true;
	struct pollfd fds[4];
	size_t n = ta_runner_fds(r, fds, 4);
	int wait = ta_runner_next_deadline_ms(r);
	if (wait < 0 || (timeout_ms >= 0 && timeout_ms < wait))
		wait = timeout_ms;
	if (n > 0 || wait != 0) {
		int rc = poll(fds, (nfds_t)n, wait);
		(void)rc;   /* EINTR: simply do the work below */
	}
	pump(r, &r->rec_fd, true, READ_BUDGET);
	pump(r, &r->out_fd, false, READ_BUDGET);
	read_exec_status(r);
	check_child(r);
	double t = now_s();
	if (!r->reaped) {
		if (r->opts.timeout_s > 0 && !r->timed_out && !r->cancelled &&
		    t >= r->t_start + r->opts.timeout_s) {
			r->timed_out = true;
			begin_stop(r);
		}
		if (r->deadline_kill > 0 && t >= r->deadline_kill) {
			signal_group(r, SIGKILL);
			r->deadline_kill = t + 3600;    /* sent; now we only wait */
		}
		return false;
	}
	if ((r->out_fd < 0 && r->rec_fd < 0) || t >= r->deadline_drain) {
		finish(r);
		return true;
	}
	return false;
}

void ta_runner_wait(ta_runner *r)
{
	while (!ta_runner_poll(r, -1))
		;
}

bool ta_runner_done(const ta_runner *r)
{
	return r->done;
}

const ta_run_result *ta_runner_result(const ta_runner *r)
{
	return &r->res;
}

char *ta_runner_log(const ta_runner *r, size_t *len)
{
	char *s = ta_xmalloc(r->ring_len + 1);
	size_t first = r->ring_len < r->ring_cap - r->ring_start ? r->ring_len : r->ring_cap - r->ring_start;
	memcpy(s, r->ring + r->ring_start, first);
	memcpy(s + first, r->ring, r->ring_len - first);
	s[r->ring_len] = '\0';
	if (len)
		*len = r->ring_len;
	return s;
}

char *ta_runner_describe(const ta_runner *r)
{
	const ta_run_result *x = &r->res;
	char sb[32];
	switch (x->state) {
	case TA_RUN_RUNNING:
		return ta_xstrdup("running");
	case TA_RUN_EXITED:
		return x->exit_status == 0 ? ta_xstrdup("exited 0")
					   : ta_xasprintf("exited with status %d", x->exit_status);
	case TA_RUN_SIGNALED:
		return ta_xasprintf("killed by %s", ta_signal_name(x->term_signal, sb));
	case TA_RUN_TIMED_OUT:
		return ta_xasprintf("timed out after %g s", x->timeout_s);
	case TA_RUN_CANCELLED:
		return ta_xstrdup("cancelled");
	case TA_RUN_EXEC_FAILED:
		if (x->exec_errno == ENOENT)
			return ta_xasprintf("command not found: %s", r->argv0);
		if (x->exec_errno == EACCES || x->exec_errno == ENOEXEC)
			return ta_xasprintf("not executable: %s", r->argv0);
		return ta_xasprintf("cannot run %s: %s", r->argv0, strerror(x->exec_errno));
	}
	return ta_xstrdup("unknown");
}

void ta_runner_free(ta_runner *r)
{
	if (!r)
		return;
	if (!r->reaped && r->pid > 0) {
		kill(-r->pid, SIGKILL);
		kill(r->pid, SIGKILL);
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		live_run_set(r->pid, false);
		end_adopted(r->pid);
	}
	close_fd(&r->pidfd);
	close_fd(&r->out_fd);
	close_fd(&r->rec_fd);
	close_fd(&r->exec_fd);
	if (!r->done)
		ta_proto_decoder_finish(&r->dec);
	ta_records_clear(&r->scratch);
	free(r->oline);
	ta_buf_free(&r->tee_pend);
	free(r->ring);
	free(r->argv0);
	free(r);
}
