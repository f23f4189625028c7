#include "config.h"
#include "util/cpu_budget.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

struct ta_cpu_budget {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	clockid_t clock;          /* the watched thread's CPU clock */
	uint64_t start_ns, budget_ns;
	size_t *flag;
	bool done, spent;
};

static uint64_t ns_of(clockid_t c)
{
	struct timespec t;
	if (clock_gettime(c, &t))
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Sleeps a tenth of what is left (1 to 50 ms) between looks: a watched
 * call ends at most that far past its budget, and a short one costs two
 * context switches. */
static void *watch(void *arg)
{
	ta_cpu_budget *b = arg;
	pthread_mutex_lock(&b->lock);
	while (!b->done) {
		uint64_t used = ns_of(b->clock) - b->start_ns;
		if (used >= b->budget_ns) {
			atomic_store((_Atomic size_t *)b->flag, 1);
			b->spent = true;
			break;
		}
		uint64_t nap = (b->budget_ns - used) / 10;
		nap = nap < 1000000u ? 1000000u : nap > 50000000u ? 50000000u : nap;
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		uint64_t ns = (uint64_t)until.tv_nsec + nap;
		until.tv_sec += (time_t)(ns / 1000000000u);
		until.tv_nsec = (long)(ns % 1000000000u);
		int rc;
		do
			rc = pthread_cond_timedwait(&b->wake, &b->lock, &until);
		while (rc == 0 && !b->done);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

ta_cpu_budget *ta_cpu_budget_start(size_t *flag, uint64_t budget_us)
{
	ta_cpu_budget *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	if (pthread_getcpuclockid(pthread_self(), &b->clock)) {
		free(b);
		return NULL;
	}
	b->flag = flag;
	b->budget_ns = budget_us * 1000u;
	b->start_ns = ns_of(b->clock);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->wake, NULL);
	if (pthread_create(&b->thread, NULL, watch, b)) {
		pthread_cond_destroy(&b->wake);
		pthread_mutex_destroy(&b->lock);
		free(b);
		return NULL;
	}
	return b;
}

bool ta_cpu_budget_finish(ta_cpu_budget *b)
{
	if (!b)
		return false;
	pthread_mutex_lock(&b->lock);
	b->done = true;
	pthread_cond_signal(&b->wake);
	pthread_mutex_unlock(&b->lock);
	pthread_join(b->thread, NULL);
	bool spent = b->spent;
	pthread_cond_destroy(&b->wake);
	pthread_mutex_destroy(&b->lock);
	free(b);
	return spent;
}
