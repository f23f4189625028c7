/* Runs a fuzz target over files, without libFuzzer: the seed corpora and
 * the regression inputs (every crash the fuzzers found) go through the
 * same checks in `make check`, built by the main compiler (gcc or clang,
 * with the sanitizers when configured with --enable-sanitizers).
 *
 *   replay_TARGET FILE...
 *
 * Prints "ran N inputs" and exits 0; a failed check aborts (the test
 * script reports which input). */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/buf.h"
#include "util/fsutil.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	LLVMFuzzerInitialize(&argc, &argv);
	int n = 0;
	for (int i = 1; i < argc; i++) {
		char *data, *err;
		size_t len;
		if (ta_read_file(argv[i], (size_t)64 << 20, &data, &len, &err) != 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], err);
			free(err);
			return 2;
		}
		fprintf(stderr, "replay: %s\n", argv[i]);
		LLVMFuzzerTestOneInput((const uint8_t *)data, len);
		free(data);
		n++;
	}
	printf("ran %d inputs\n", n);
	return 0;
}
