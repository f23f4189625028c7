/* util/cpu_budget.h: the budget counts the watched thread's CPU time, not
 * the wall clock. A thread that spins past its budget sees the flag set; one
 * that waits three times its budget without using the CPU does not (a parse
 * on a loaded machine is such a wait, stretched, and must not be cut). */
#include "config.h"
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <time.h>

#include "util/cpu_budget.h"

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static size_t flag_now(size_t *flag)
{
	return atomic_load((_Atomic size_t *)flag);
}

static void test_spinning_spends_the_budget(void **state)
{
	(void)state;
	size_t flag = 0;
	uint64_t t0 = thread_cpu_ns();
	ta_cpu_budget *b = ta_cpu_budget_start(&flag, 20000);   /* 20 ms */
	assert_non_null(b);
	/* spin until the watchdog stops us, at most 5 s of CPU */
	while (!flag_now(&flag) && thread_cpu_ns() - t0 < 5000000000u)
		;
	assert_true(flag_now(&flag));
	assert_true(ta_cpu_budget_finish(b));
	assert_true(thread_cpu_ns() - t0 >= 20000000u);
}

static void test_waiting_spends_nothing(void **state)
{
	(void)state;
	size_t flag = 0;
	ta_cpu_budget *b = ta_cpu_budget_start(&flag, 20000);   /* 20 ms */
	assert_non_null(b);
	struct timespec nap = { 0, 60000000 };                  /* 60 ms of wall clock */
	nanosleep(&nap, NULL);
	assert_false(flag_now(&flag));
	assert_false(ta_cpu_budget_finish(b));
}

static void test_finish_without_start(void **state)
{
	(void)state;
	assert_false(ta_cpu_budget_finish(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spinning_spends_the_budget),
		cmocka_unit_test(test_waiting_spends_nothing),
		cmocka_unit_test(test_finish_without_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
