/* The check lines of a run's output and whether a re-run agrees with the
 * first (advise/check_lines.h): timings left out, numbers compared with
 * their stated tolerance, a failed re-run broken whatever it printed. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "advise/check_lines.h"

static void test_timings_left_out(void **state)
{
	(void)state;
	const char *out =
		"attention[fwd]: triton 1.932 ms, torch 2.100 ms (1.09x)\n"
		"matmul: 512.3 TFLOPS\n"
		"copy: 4.1 TB/s\n"
		"\n"
		"Autotuning kernel matmul_kernel with config BLOCK_M: 64\n"
		"/x/y.py:3: UserWarning: something\n"
		"  warnings.warn(\"something\")\n"
		"grid 64x128x1 ok\n"
		/* Triton 3.6's report: four lines. */
		"Triton autotuning for function softmax_kernel,\n"
		"with key as (32768, 4096, 1, 'torch.float32', 'torch.float32'),\n"
		"finished after 1.23s,\n"
		"best config selected: BLOCK: 1024, num_warps: 4, num_ctas: 1, num_stages: 3;\n"
		"max abs err 3.906e-03\n"
		/* The script's own line of that spelling, not after a report. */
		"with key as 7\n";
	char *c = ta_check_lines(out);
	assert_string_equal(c, "grid 64x128x1 ok\nmax abs err 3.906e-03\nwith key as 7");
	free(c);
	c = ta_check_lines(NULL);
	assert_string_equal(c, "");
	free(c);
	assert_true(ta_check_is_timing("took 3 s", 8));
	assert_false(ta_check_is_timing("3 shapes", 8));
	assert_false(ta_check_is_timing("sm_90 ok", 8));
}

static void test_compare(void **state)
{
	(void)state;
	/* Small errors move when a sum is reordered: the same within 0.01. */
	assert_null(ta_check_lines_differ("max abs err 3.906e-03", "max abs err 7.8e-03"));
	assert_null(ta_check_lines_differ("mean 12.50", "mean 12.55"));
	char *d = ta_check_lines_differ("mean 12.50", "mean 13.50");
	assert_non_null(d);
	assert_non_null(strstr(d, "it printed \"mean 13.50\" where the first run printed \"mean 12.50\""));
	free(d);
	/* Whole numbers are counts: exact. */
	d = ta_check_lines_differ("0 of 4096 elements differ", "3 of 4096 elements differ");
	assert_non_null(d);
	free(d);
	d = ta_check_lines_differ("ok", "ok\nMISMATCH vs torch");
	assert_non_null(strstr(d, "it printed \"MISMATCH vs torch\", which the first run did not"));
	free(d);
	d = ta_check_lines_differ("ok\npassed", "ok");
	assert_non_null(strstr(d, "no longer has the line \"passed\""));
	free(d);
	assert_null(ta_check_lines_differ("", ""));
}

static void test_rerun(void **state)
{
	(void)state;
	ta_run_result ok = { .state = TA_RUN_EXITED, .exit_status = 0 };
	ta_run_result bad = { .state = TA_RUN_EXITED, .exit_status = 1 };
	assert_null(ta_check_rerun(&ok, "exited 0", "check ok", "t 1.0 ms\ncheck ok\n"));
	assert_null(ta_check_rerun(&ok, "exited 0", NULL, "anything\n"));
	char *w = ta_check_rerun(&bad, "exited with status 1", "check ok", "check ok\n");
	assert_string_equal(w, "the run after it exited with status 1");
	free(w);
	w = ta_check_rerun(&ok, "exited 0", "check ok", "t 2.0 ms\ncheck FAILED\n");
	assert_non_null(w);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timings_left_out),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_rerun),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
