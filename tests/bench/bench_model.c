/* Times parse-only against parse + model over one file, N iterations each,
 * and prints the medians and their ratio. Used by tests/bench/model.sh and
 * tests/bench/hostile.sh. With FACTOR, exits 1 when the model's median
 * takes more than FACTOR times the parse's plus a second (the bound the
 * model's unit test once timed itself; timings belong here, not in a test
 * that must not flake).
 * Usage: bench_model FILE [ITERATIONS [FACTOR]] */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/model.h"
#include "analyze/source.h"
#include "analyze/syntax.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_model FILE [ITERATIONS [FACTOR]]\n");
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	if (iters < 1)
		iters = 1;
	double factor = argc > 3 ? atof(argv[3]) : 0;
	ta_source *src;
	char *err;
	if (ta_source_load(argv[1], &src, &err) != 0) {
		fprintf(stderr, "bench_model: %s\n", err);
		free(err);
		return 2;
	}
	double *parse = calloc((size_t)iters, sizeof *parse);
	double *both = calloc((size_t)iters, sizeof *both);
	double *model = calloc((size_t)iters, sizeof *model);
	size_t kernels = 0, launches = 0;
	/* One warm-up round loads the queries and the page cache out of the figures. */
	for (int i = -1; i < iters; i++) {
		double t0 = now();
		ta_syntax *syn = ta_syntax_parse(src, &err);
		double t1 = now();
		if (!syn) {
			fprintf(stderr, "bench_model: %s\n", err);
			return 2;
		}
		ta_model *m = ta_model_build(src, syn, &err);
		double t2 = now();
		if (!m) {
			fprintf(stderr, "bench_model: %s\n", err);
			return 2;
		}
		kernels = m->kernel_count;
		launches = m->launch_count;
		ta_model_free(m);
		ta_syntax_free(syn);
		if (i >= 0) {
			parse[i] = t1 - t0;
			model[i] = t2 - t1;
			both[i] = t2 - t0;
		}
	}
	double mp = median(parse, iters), mb = median(both, iters), mm = median(model, iters);
	printf("file: %s (%zu lines, %zu bytes, %zu kernels, %zu launches)\n", argv[1], src->line_count,
	       src->len, kernels, launches);
	printf("iterations: %d\n", iters);
	printf("parse only:    median %.3f ms\n", mp * 1e3);
	printf("model only:    median %.3f ms\n", mm * 1e3);
	printf("parse + model: median %.3f ms\n", mb * 1e3);
	printf("ratio (parse+model)/parse: %.2f (target <= 2.00)\n", mb / mp);
	int rc = 0;
	if (factor > 0) {
		bool over = mm > factor * mp + 1.0;
		printf("%s: model %.3f s against %.0fx the parse (%.3f s) + 1 s\n", over ? "over" : "within",
		       mm, factor, mp);
		rc = over;
	}
	free(parse);
	free(both);
	free(model);
	ta_source_free(src);
	ta_model_shutdown();
	return rc;
}
