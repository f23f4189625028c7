/* Times parse-only against parse + model + rules over one file, N rounds,
 * and prints the medians and the ratio. Used by tests/bench/rules.sh.
 * Usage: bench_rules FILE [ITERATIONS] */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "analyze/model.h"
#include "checklist/rules.h"
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
		fprintf(stderr, "usage: bench_rules FILE [ITERATIONS]\n");
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 20;
	if (iters < 1)
		iters = 1;
	ta_source *src;
	char *err;
	if (ta_source_load(argv[1], &src, &err) != 0) {
		fprintf(stderr, "bench_rules: %s\n", err);
		free(err);
		return 2;
	}
	double *parse = calloc((size_t)iters, sizeof *parse);
	double *model = calloc((size_t)iters, sizeof *model);
	double *rules = calloc((size_t)iters, sizeof *rules);
	double *total = calloc((size_t)iters, sizeof *total);
	size_t kernels = 0, findings = 0;
	for (int i = -1; i < iters; i++) {   /* round -1 warms up */
		double t0 = now();
		ta_syntax *syn = ta_syntax_parse(src, &err);
		double t1 = now();
		ta_model *m = syn ? ta_model_build(src, syn, &err) : NULL;
		double t2 = now();
		if (!m) {
			fprintf(stderr, "bench_rules: %s\n", err);
			return 2;
		}
		ta_rules_result *r = ta_rules_run(m, NULL);
		double t3 = now();
		kernels = m->kernel_count;
		findings = r->finding_count;
		ta_rules_result_free(r);
		ta_model_free(m);
		ta_syntax_free(syn);
		if (i >= 0) {
			parse[i] = t1 - t0;
			model[i] = t2 - t1;
			rules[i] = t3 - t2;
			total[i] = t3 - t0;
		}
	}
	double mp = median(parse, iters), mm = median(model, iters), mr = median(rules, iters),
	       mt = median(total, iters);
	printf("file: %s (%zu lines, %zu kernels, %zu findings), %d rounds\n", argv[1], src->line_count,
	       kernels, findings, iters);
	printf("parse        %8.2f ms\n", mp * 1e3);
	printf("model        %8.2f ms\n", mm * 1e3);
	printf("rules        %8.2f ms\n", mr * 1e3);
	printf("total        %8.2f ms\n", mt * 1e3);
	printf("rules/parse  %8.2f\n", mr / mp);
	printf("total/parse  %8.2f (target <= 3)\n", mt / mp);
	free(parse);
	free(model);
	free(rules);
	free(total);
	ta_source_free(src);
	ta_model_shutdown();
	return 0;
}
