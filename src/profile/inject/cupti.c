/* libtileadvise-cupti.so: loaded by the CUDA driver into the user's process
 * through CUDA_INJECTION64_PATH. It records kernel activity with CUPTI and
 * writes it, one JSON line per record, to the socket named by
 * TILEADVISE_RECORD_FD (see profile/protocol.h).
 *
 * It must never disturb the program it measures: it depends on CUPTI and
 * libc only, prints nothing, never exits, never blocks for long on a stalled
 * reader, and turns every CUPTI failure into an "error" record. Without a
 * valid record fd it does nothing at all.
 *
 * The timed run also subscribes to the launch callbacks (adapt.h): every
 * launch is counted and its host time kept, so that the tool can give the
 * period of the user's calls next to the GPU time, and a launch shape whose
 * GPU time has settled is only sampled (adaptive tracing), which takes
 * CUPTI's per-launch cost off launch-bound programs. TILEADVISE_TRACE=full
 * traces every launch (still counting them); =plain is the old way, activity
 * records only and no subscriber, for a program that brings its own CUPTI
 * client (torch.profiler: CUPTI allows one subscriber per process).
 * TILEADVISE_CAPTURE=profiler-api records only between the program's
 * cuProfilerStart and cuProfilerStop (see protocol.h).
 *
 * TILEADVISE_DEEP=pc or =sol turns this run into a --deep one: instead of
 * timing launches it samples PCs (pcsamp.c) or reads hardware counters of
 * chosen launches (sol.cc). Those perturb timing, so the tool runs them
 * apart from the timed run. */
#include "config.h"
#include "profile/inject/adapt.h"
#include "profile/inject/deep.h"
#include "profile/protocol.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ACTIVITY_BUFFER_SIZE ((size_t)1 << 20)
#define LINE_MAX_BYTES 4096
#define BATCH_BYTES 16384
/* How long a send may wait for a reader that is not draining. */
#define SEND_TIMEOUT_MS 2000
#define DEFAULT_FLUSH_MS 500

/* The one exported symbol (the library is built with hidden visibility). */
__attribute__((visibility("default"))) int InitializeInjection(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_result;
static int rec_fd = -1;
static pid_t init_pid;
static atomic_bool writer_dead;
static atomic_ullong n_written, n_lost;

/* Lines are batched so that one send carries many; the batch lock also
 * keeps lines from two threads from mixing. */
static pthread_mutex_t batch_lock = PTHREAD_MUTEX_INITIALIZER;
static char batch[BATCH_BYTES];
static size_t batch_len;
static size_t batch_lines;

static pthread_t flush_thread;
static bool flush_thread_started;
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flush_cond = PTHREAD_COND_INITIALIZER;
static bool flush_stop;
static unsigned flush_ms = DEFAULT_FLUSH_MS;

/* ---- the launch book (timed run) ----------------------------------------- */

typedef enum trace_mode { TRACE_ADAPTIVE, TRACE_FULL, TRACE_PLAIN } trace_mode;
static trace_mode trace = TRACE_ADAPTIVE;
static bool book_on;                 /* subscribed: launches are counted */
/* Held briefly by the launch callback and by the activity buffer thread;
 * never while calling CUPTI (CUPTI may hold its own locks around either). */
static pthread_mutex_t book_lock = PTHREAD_MUTEX_INITIALIZER;
static ta_adapt book;
/* Whether kernel activity is enabled now; toggled by launch threads only. */
static pthread_mutex_t toggle_lock = PTHREAD_MUTEX_INITIALIZER;
static bool tracing_on;
static bool toggle_failed;
/* TILEADVISE_CAPTURE=profiler-api: launches count only between
 * cuProfilerStart and cuProfilerStop. Outside, the launch callbacks and
 * kernel activity are off, so the program pays what it would without us
 * (CUPTI still calls us on the two profiler calls). */
static bool capture_api;
static pthread_mutex_t capture_lock = PTHREAD_MUTEX_INITIALIZER;
static bool capturing;               /* under capture_lock */
/* cuFuncGetName (CUDA 12.3+), for a launch whose callback has no name. */
static int (*func_get_name)(const char **, void *);

static void send_all(const char *p, size_t n, size_t lines)
{
	if (atomic_load(&writer_dead)) {
		atomic_fetch_add(&n_lost, lines);
		return;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n > 0) {
		/* MSG_NOSIGNAL: a gone reader gives EPIPE, not a SIGPIPE that
		 * would kill the user's program. */
		ssize_t k = send(rec_fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct timespec t1;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			long waited = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
			if (waited < SEND_TIMEOUT_MS) {
				struct pollfd pfd = { rec_fd, POLLOUT, 0 };
				poll(&pfd, 1, (int)(SEND_TIMEOUT_MS - waited));
				continue;
			}
		}
		/* EPIPE, a reader stalled too long, or anything else: stop
		 * writing for good rather than risk hanging the program. */
		atomic_store(&writer_dead, true);
		atomic_fetch_add(&n_lost, lines);
		return;
	}
	atomic_fetch_add(&n_written, lines);
}

/* Caller holds batch_lock. */
static void batch_flush_locked(void)
{
	if (batch_len > 0)
		send_all(batch, batch_len, batch_lines);
	batch_len = 0;
	batch_lines = 0;
}

/* Caller holds batch_lock. */
static void batch_add_locked(const char *line, size_t n)
{
	if (n == 0) {
		atomic_fetch_add(&n_lost, 1);  /* did not fit in LINE_MAX_BYTES */
		return;
	}
	if (batch_len + n > sizeof batch)
		batch_flush_locked();
	memcpy(batch + batch_len, line, n);
	batch_len += n;
	batch_lines++;
}

static void emit_line(const char *line, size_t n)
{
	pthread_mutex_lock(&batch_lock);
	batch_add_locked(line, n);
	batch_flush_locked();
	pthread_mutex_unlock(&batch_lock);
}

static void report_error(const char *where, CUptiResult rc)
{
	const char *msg = NULL;
	if (cuptiGetResultString(rc, &msg) != CUPTI_SUCCESS || !msg)
		msg = "unknown CUPTI error";
	char line[LINE_MAX_BYTES];
	emit_line(line, ta_proto_encode_error(line, sizeof line, (long)getpid(), where, (int)rc, msg));
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	/* CUPTI wants 8-byte alignment. */
	void *p = NULL;
	if (posix_memalign(&p, 8, ACTIVITY_BUFFER_SIZE) != 0)
		p = NULL;
	*buffer = p;
	*size = p ? ACTIVITY_BUFFER_SIZE : 0;
	*max_records = 0;
}

static void kernel_line(const CUpti_ActivityKernel10 *k, uint64_t weight, char *line, size_t cap, size_t *n)
{
	ta_proto_kernel pk;
	memset(&pk, 0, sizeof pk);
	pk.weight = weight;
	pk.name = k->name;
	pk.start_ns = k->start;
	pk.end_ns = k->end;
	pk.grid[0] = k->gridX;
	pk.grid[1] = k->gridY;
	pk.grid[2] = k->gridZ;
	pk.block[0] = k->blockX;
	pk.block[1] = k->blockY;
	pk.block[2] = k->blockZ;
	pk.regs = k->registersPerThread;
	pk.smem_static = k->staticSharedMemory;
	pk.smem_dynamic = k->dynamicSharedMemory;
	pk.local_per_thread = k->localMemoryPerThread;
	pk.device = k->deviceId;
	pk.stream = k->streamId;
	pk.correlation = k->correlationId;
	pk.graph_id = k->graphId;
	pk.graph_node_id = k->graphNodeId;
	*n = ta_proto_encode_kernel(line, cap, (long)init_pid, &pk);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
				      size_t size, size_t valid)
{
	(void)ctx;
	(void)stream;
	(void)size;
	CUpti_Activity *rec = NULL;
	char line[LINE_MAX_BYTES];
	pthread_mutex_lock(&batch_lock);
	while (buffer && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
		if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
			continue;
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
		uint64_t weight = 1;
		if (book_on) {
			pthread_mutex_lock(&book_lock);
			weight = ta_adapt_take_weight(&book, k->correlationId);
			if (k->name && k->end > k->start) {
				int32_t grid[3] = { k->gridX, k->gridY, k->gridZ };
				int32_t block[3] = { k->blockX, k->blockY, k->blockZ };
				ta_adapt_sample(&book, k->name, grid, block, k->dynamicSharedMemory,
						(double)(k->end - k->start));
			}
			pthread_mutex_unlock(&book_lock);
		}
		size_t n = 0;
		kernel_line(k, weight, line, sizeof line, &n);
		batch_add_locked(line, n);
	}
	batch_flush_locked();
	pthread_mutex_unlock(&batch_lock);
	if (book_on) {
		pthread_mutex_lock(&book_lock);
		ta_adapt_settle(&book);
		pthread_mutex_unlock(&book_lock);
	}
	free(buffer);
}

/* Periodic flush so that records stream while the program runs (CUPTI's own
 * periodic flush only hands over full buffers). */
static void *flush_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&flush_lock);
	while (!flush_stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += flush_ms / 1000;
		ts.tv_nsec += (long)(flush_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&flush_cond, &flush_lock, &ts);
		if (flush_stop || atomic_load(&writer_dead))
			break;
		pthread_mutex_unlock(&flush_lock);
		cuptiActivityFlushAll(0);
		pthread_mutex_lock(&flush_lock);
	}
	pthread_mutex_unlock(&flush_lock);
	return NULL;
}

static void deep_finish(void);

static void at_exit(void)
{
	/* A forked child inherits the atexit entry but not CUPTI's threads. */
	if (getpid() != init_pid)
		return;
	deep_finish();
	if (flush_thread_started) {
		pthread_mutex_lock(&flush_lock);
		flush_stop = true;
		pthread_cond_signal(&flush_cond);
		pthread_mutex_unlock(&flush_lock);
		pthread_join(flush_thread, NULL);
		flush_thread_started = false;
	}
	CUptiResult rc = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	if (rc != CUPTI_SUCCESS)
		report_error("cuptiActivityFlushAll", rc);
	size_t dropped = 0;
	if (cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) != CUPTI_SUCCESS)
		dropped = 0;
	char line[LINE_MAX_BYTES];
	pthread_mutex_lock(&batch_lock);
	if (book_on) {
		pthread_mutex_lock(&book_lock);
		for (size_t i = 0; i < book.n_shapes; i++) {
			const ta_adapt_shape *b = &book.shapes[i];
			ta_proto_calls pc = {
				.name = b->name,
				.smem_dynamic = b->smem_dynamic,
				.launches = b->launches,
				.traced = b->traced,
				.converged = b->converged,
				.n_period = b->n_period,
				.p25_ns = ta_adapt_period_quantile(b, 0.25),
				.median_ns = ta_adapt_period_quantile(b, 0.5),
				.p75_ns = ta_adapt_period_quantile(b, 0.75),
			};
			memcpy(pc.grid, b->grid, sizeof pc.grid);
			memcpy(pc.block, b->block, sizeof pc.block);
			batch_add_locked(line, ta_proto_encode_calls(line, sizeof line, (long)init_pid, &pc));
		}
		pthread_mutex_unlock(&book_lock);
	}
	batch_flush_locked();
	/* The bye line counts itself as written only if it gets through. */
	unsigned long long written = atomic_load(&n_written) + 1;
	batch_add_locked(line, ta_proto_encode_bye(line, sizeof line, (long)init_pid, written,
						  (uint64_t)dropped, atomic_load(&n_lost)));
	batch_flush_locked();
	pthread_mutex_unlock(&batch_lock);
}

/* CUPTI will record nothing (no GPU, no driver, another profiler): say
 * goodbye at once, so that the tool does not take the missing final flush
 * for a process that was killed. */
static void give_up(void)
{
	char line[LINE_MAX_BYTES];
	pthread_mutex_lock(&batch_lock);
	unsigned long long written = atomic_load(&n_written) + 1;
	batch_add_locked(line, ta_proto_encode_bye(line, sizeof line, (long)init_pid, written, 0,
						  atomic_load(&n_lost)));
	batch_flush_locked();
	pthread_mutex_unlock(&batch_lock);
}

/* ---- --deep ---------------------------------------------------------------- */

typedef enum deep_mode { DEEP_NONE, DEEP_PC, DEEP_SOL } deep_mode;
static deep_mode deep;
static CUpti_SubscriberHandle subscriber;
static char *wanted_list;           /* TILEADVISE_DEEP_KERNELS, commas */

static void emit_hook(const char *line, size_t n)
{
	emit_line(line, n);
}

/* name equals an entry, or is an entry followed by Triton's "_<digit>..."
 * specialisation suffix. */
static bool wanted_hook(const char *name)
{
	if (!wanted_list || !*wanted_list)
		return true;
	size_t len = strlen(name);
	for (const char *p = wanted_list; *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		if (n > 0 && n <= len && memcmp(name, p, n) == 0 &&
		    (name[n] == '\0' || (name[n] == '_' && name[n + 1] >= '0' && name[n + 1] <= '9')))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

static void note_hook(const char *where, const char *message)
{
	char line[LINE_MAX_BYTES];
	emit_line(line, ta_proto_encode_error(line, sizeof line, (long)getpid(), where, 0, message));
}

static const ta_inject_hooks hooks = {
	.emit = emit_hook,
	.error = report_error,
	.note = note_hook,
	.wanted = wanted_hook,
};
static ta_inject_hooks deep_hooks;

/* cuptiEnableCallback (enable 1) or its undoing (0) for each of ids in one
 * domain. False after the first failure, reported as what. */
static bool enable_each(CUpti_SubscriberHandle sub, uint32_t enable, CUpti_CallbackDomain domain,
			const CUpti_CallbackId *ids, size_t n, const char *what,
			void (*error)(const char *, CUptiResult))
{
	for (size_t i = 0; i < n; i++) {
		CUptiResult rc = cuptiEnableCallback(enable, sub, domain, ids[i]);
		if (rc != CUPTI_SUCCESS) {
			char where[96];
			snprintf(where, sizeof where, "cuptiEnableCallback(%s%s)", what, enable ? "" : ", off");
			error(where, rc);
			return false;
		}
	}
	return true;
}

bool ta_inject_launch_callbacks(CUpti_SubscriberHandle sub, uint32_t enable,
				void (*error)(const char *, CUptiResult))
{
	static const CUpti_CallbackId launches[] = {
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
		CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	};
	return enable_each(sub, enable, CUPTI_CB_DOMAIN_DRIVER_API, launches,
			   sizeof launches / sizeof *launches, "DRIVER_API launch", error);
}

bool ta_inject_launch_params(CUpti_CallbackId cbid, const void *params, const void **func, int32_t grid[3],
			     int32_t block[3], int32_t *smem)
{
	unsigned g[3], b[3], sm;
	switch (cbid) {
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
		/* The cooperative forms have the same leading fields. */
		const cuLaunchKernel_params *p = (const cuLaunchKernel_params *)params;
		*func = p->f;
		g[0] = p->gridDimX; g[1] = p->gridDimY; g[2] = p->gridDimZ;
		b[0] = p->blockDimX; b[1] = p->blockDimY; b[2] = p->blockDimZ;
		sm = p->sharedMemBytes;
		break;
	}
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
		const cuLaunchKernelEx_params *p = (const cuLaunchKernelEx_params *)params;
		if (!p->config)
			return false;
		*func = p->f;
		g[0] = p->config->gridDimX; g[1] = p->config->gridDimY; g[2] = p->config->gridDimZ;
		b[0] = p->config->blockDimX; b[1] = p->config->blockDimY; b[2] = p->config->blockDimZ;
		sm = p->config->sharedMemBytes;
		break;
	}
	default:
		return false;
	}
	for (int i = 0; i < 3; i++) {
		grid[i] = (int32_t)g[i];
		block[i] = (int32_t)b[i];
	}
	*smem = (int32_t)sm;
	return true;
}

static void set_tracing(bool want)
{
	pthread_mutex_lock(&toggle_lock);
	if (want != tracing_on && !toggle_failed) {
		CUptiResult rc = want ? cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
				      : cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
		if (rc == CUPTI_SUCCESS) {
			tracing_on = want;
		} else {
			/* Trace everything from now on rather than lose launches. */
			toggle_failed = true;
			if (!tracing_on)
				tracing_on = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ==
					     CUPTI_SUCCESS;
			report_error(want ? "cuptiActivityEnable(adaptive)" : "cuptiActivityDisable(adaptive)", rc);
		}
	}
	pthread_mutex_unlock(&toggle_lock);
}

/* The timed run's launch callback: count, keep the host time, decide. */
static void book_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cd = (const CUpti_CallbackData *)data;
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API || cd->callbackSite != CUPTI_API_ENTER)
		return;
	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch || cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
		/* A graph's kernels do not pass through here one by one. */
		if (trace == TRACE_ADAPTIVE)
			set_tracing(true);
		return;
	}
	const void *func = NULL;
	int32_t grid[3], block[3], smem = 0;
	if (!ta_inject_launch_params(cbid, cd->functionParams, &func, grid, block, &smem))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	const char *name = cd->symbolName;
	if (!name && func_get_name && func_get_name(&name, (void *)func) != 0)
		name = NULL;   /* counted as overflow: traced, not in the book */
	pthread_mutex_lock(&book_lock);
	bool want = ta_adapt_launch(&book, func, name, grid, block, smem, now);
	/* A sampled launch stands for those of its shape left untraced before
	 * it: its record carries that weight. */
	if (want && trace == TRACE_ADAPTIVE)
		ta_adapt_keep_weight(&book, cd->correlationId, book.last_weight);
	/* Hurry the records of a shape that is still being traced in full:
	 * its decision waits for them. */
	bool hurry = false;
	if (trace == TRACE_ADAPTIVE && want && book.last) {
		uint64_t n = book.last->launches;
		hurry = !book.last->converged && n >= 32 && (n & (n - 1)) == 0;
	}
	pthread_mutex_unlock(&book_lock);
	if (trace == TRACE_ADAPTIVE)
		set_tracing(want);
	if (hurry && flush_thread_started)
		pthread_cond_signal(&flush_cond);
}

/* The timed run's launch callbacks: every launch form and the graph launches. */
static bool book_callbacks(uint32_t enable)
{
	static const CUpti_CallbackId graphs[] = {
		CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
		CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	};
	return ta_inject_launch_callbacks(subscriber, enable, report_error) &&
	       enable_each(subscriber, enable, CUPTI_CB_DOMAIN_DRIVER_API, graphs,
			   sizeof graphs / sizeof *graphs, "graph launch", report_error);
}

static bool is_profiler_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, bool *start)
{
	if (domain == CUPTI_CB_DOMAIN_DRIVER_API &&
	    (cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart || cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop)) {
		*start = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
		return true;
	}
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
	    (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
	     cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000)) {
		*start = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000;
		return true;
	}
	return false;
}

/* Into or out of the capture range. A runtime call reaches us twice (its
 * own callback and the driver call it makes), hence the state. Adaptive
 * tracing turns activity on again at the first launch that wants it. */
static void capture_switch(bool on)
{
	pthread_mutex_lock(&capture_lock);
	if (on != capturing && book_callbacks(on)) {
		capturing = on;
		if (!on || trace == TRACE_FULL)
			set_tracing(on);
	}
	pthread_mutex_unlock(&capture_lock);
}

static bool capture_setup(void)
{
	static const CUpti_CallbackId driver[] = {
		CUPTI_DRIVER_TRACE_CBID_cuProfilerStart,
		CUPTI_DRIVER_TRACE_CBID_cuProfilerStop,
	};
	static const CUpti_CallbackId runtime[] = {
		CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
		CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000,
	};
	return enable_each(subscriber, 1, CUPTI_CB_DOMAIN_DRIVER_API, driver, 2, "profiler start/stop",
			   report_error) &&
	       enable_each(subscriber, 1, CUPTI_CB_DOMAIN_RUNTIME_API, runtime, 2, "profiler start/stop",
			   report_error) &&
	       book_callbacks(0);   /* out of the range until the program's first start */
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
				 CUpti_CallbackId cbid, const void *data)
{
	(void)userdata;
	/* The collectors call CUPTI, which may call the driver: a callback
	 * arriving from inside one of ours on the same thread is CUPTI's own
	 * work, not the program's, and would deadlock on the collector lock. */
	static __thread bool inside;
	if (inside)
		return;
	inside = true;
	bool start;
	if (capture_api && is_profiler_call(domain, cbid, &start)) {
		if (((const CUpti_CallbackData *)data)->callbackSite == CUPTI_API_ENTER)
			capture_switch(start);
	} else if (deep == DEEP_NONE)
		book_callback(domain, cbid, data);
	else if (deep == DEEP_PC)
		ta_pcsamp_callback(domain, cbid, data);
	else if (deep == DEEP_SOL)
		ta_sol_callback(domain, cbid, data);
	inside = false;
}

static deep_mode deep_from_env(void)
{
	const char *d = getenv("TILEADVISE_DEEP");
	if (d && strcmp(d, "pc") == 0)
		return DEEP_PC;
	if (d && strcmp(d, "sol") == 0)
		return DEEP_SOL;
	return DEEP_NONE;
}

/* Subscribes and hands over to the collector. False when nothing will be
 * collected (reported already). */
static bool deep_start(void)
{
	const char *w = getenv("TILEADVISE_DEEP_KERNELS");
	wanted_list = w ? strdup(w) : NULL;
	deep_hooks = hooks;
	deep_hooks.pid = (long)init_pid;
	CUptiResult rc = cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_callback, NULL);
	if (rc != CUPTI_SUCCESS) {
		/* Only one subscriber per process: another tool has it. */
		report_error("cuptiSubscribe", rc);
		return false;
	}
	bool ok = deep == DEEP_PC ? ta_pcsamp_setup(subscriber, &deep_hooks)
				  : ta_sol_setup(subscriber, &deep_hooks);
	if (!ok) {
		cuptiUnsubscribe(subscriber);
		deep = DEEP_NONE;
	}
	return ok;
}

static void deep_finish(void)
{
	if (deep == DEEP_PC)
		ta_pcsamp_finish();
	else if (deep == DEEP_SOL)
		ta_sol_finish();
}

/* The fd from the environment, if it is still the runner's socket. */
static int record_fd_from_env(void)
{
	const char *s = getenv("TILEADVISE_RECORD_FD");
	if (!s || !*s)
		return -1;
	char *end;
	long fd = strtol(s, &end, 10);
	if (*end || fd < 0 || fd > 1 << 20)
		return -1;
	struct stat st;
	if (fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode))
		return -1;
	/* A process further down may have the same number for another file. */
	const char *ino = getenv("TILEADVISE_RECORD_INO");
	if (ino && *ino && strtoull(ino, NULL, 10) != (unsigned long long)st.st_ino)
		return -1;
	return (int)fd;
}

static void initialize(void)
{
	init_result = 1;
	rec_fd = record_fd_from_env();
	if (rec_fd < 0)
		return;        /* not run by tileadvise: stay out of the way */
	init_pid = getpid();
	const char *fm = getenv("TILEADVISE_FLUSH_MS");
	if (fm && *fm)
		flush_ms = (unsigned)strtoul(fm, NULL, 10);

	uint32_t version = 0;
	cuptiGetVersion(&version);
	int driver = -1;
	/* libcuda is already loaded (it is what loads us), often with
	 * RTLD_LOCAL: NOLOAD finds it without loading anything new. */
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	int (*get_driver)(int *) = NULL;
	if (cuda)
		*(void **)&get_driver = dlsym(cuda, "cuDriverGetVersion");
	if (!get_driver || get_driver(&driver) != 0)
		driver = -1;
	if (cuda)
		*(void **)&func_get_name = dlsym(cuda, "cuFuncGetName");
	if (cuda)
		dlclose(cuda);   /* drops only the reference NOLOAD took */
	char line[LINE_MAX_BYTES];
	emit_line(line, ta_proto_encode_hello(line, sizeof line, (long)init_pid, version, driver));

	deep = deep_from_env();
	if (deep != DEEP_NONE) {
		/* No activity tracing next to the collectors: it is not needed
		 * (the timed run has the launches) and would add to their cost. */
		if (deep_start())
			atexit(at_exit);
		else
			give_up();
		return;
	}

	const char *tm = getenv("TILEADVISE_TRACE");
	if (tm && !strcmp(tm, "full"))
		trace = TRACE_FULL;
	else if (tm && !strcmp(tm, "plain"))
		trace = TRACE_PLAIN;
	CUptiResult rc = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
	if (rc != CUPTI_SUCCESS) {
		report_error("cuptiActivityRegisterCallbacks", rc);
		give_up();
		return;
	}
	if (trace != TRACE_PLAIN) {
		ta_adapt_config ac;
		ta_adapt_config_default(&ac);
		ac.adaptive = trace == TRACE_ADAPTIVE;
		const char *sn = getenv("TILEADVISE_SAMPLE_US");
		if (sn && *sn)
			ac.sample_ns = (uint64_t)strtoull(sn, NULL, 10) * 1000u;
		/* Without the subscriber (another CUPTI client took it) the run
		 * is traced as before, only without counts and periods. */
		if (ta_adapt_init(&book, &ac) &&
		    cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_callback, NULL) == CUPTI_SUCCESS) {
			if (book_callbacks(1))
				book_on = true;
			else
				cuptiUnsubscribe(subscriber);
		}
		if (!book_on)
			trace = TRACE_PLAIN;
	}
	bool want_capture = ta_proto_capture_mode(getenv("TILEADVISE_CAPTURE")) == 1;
	if (want_capture && !book_on)
		note_hook("TILEADVISE_CAPTURE",
			  "the capture range needs CUPTI's launch callbacks, which another client holds "
			  "(or TILEADVISE_TRACE=plain): the whole run is recorded");
	/* CONCURRENT_KERNEL, not KERNEL: the latter serialises kernels. */
	rc = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (rc != CUPTI_SUCCESS) {
		/* Another CUPTI client (a profiler) may hold the device. */
		report_error("cuptiActivityEnable(CONCURRENT_KERNEL)", rc);
		give_up();
		return;
	}
	tracing_on = true;
	if (want_capture && book_on) {
		capture_api = capture_setup();
		if (capture_api)
			set_tracing(false);
		else
			book_callbacks(1);   /* record the whole run rather than part of it */
	}
	atexit(at_exit);
	if (flush_ms > 0) {
		/* Our thread must not be the one a process signal (SIGINT for
		 * Python's KeyboardInterrupt) is delivered to. */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		if (pthread_create(&flush_thread, NULL, flush_main, NULL) == 0)
			flush_thread_started = true;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	init_result = 1;
}

/* Called by the CUDA driver at cuInit. Must return 1 ("success") even when we
 * decide to do nothing: the driver may otherwise report a failure. */
int InitializeInjection(void)
{
	pthread_once(&once, initialize);
	return init_result;
}
