/* Source loading and bad input: every failure is one line that names the
 * file and says what to do; good files get a correct line table, columns in
 * code points, BOM and CRLF noted. Bad files are made at test time in a
 * temporary folder (binary ones would not survive an editor or a diff). */
#include "config.h"
/* ---- shared test helpers (kept in each file: one program per test) ---- */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze/analysis.h"
#include "util/buf.h"

/* The source tree: TA_SRCDIR from the harness, else the tree we were built from. */
static inline const char *ta_test_srcdir(void)
{
	const char *s = getenv("TA_SRCDIR");
	return s && *s ? s : TA_BUILD_SRCDIR;
}

/* Queries come from the source tree's data/ wherever the test binary runs. */
static inline void ta_test_use_srcdir_data(void)
{
	char *d = ta_xasprintf("%s/data", ta_test_srcdir());
	setenv("TILEADVISE_DATADIR", d, 0);
	free(d);
}

static inline char *ta_test_fixture(const char *dir, const char *name)
{
	return ta_xasprintf("%s/tests/fixtures/%s/%s", ta_test_srcdir(), dir, name);
}

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[256];

static int setup_all(void **state)
{
	(void)state;
	const char *base = getenv("TMPDIR");
	snprintf(tmpdir, sizeof tmpdir, "%s/ta-test-source-XXXXXX", base && *base ? base : "/tmp");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static char *tmp_path(const char *name)
{
	return ta_xasprintf("%s/%s", tmpdir, name);
}

static char *write_tmp(const char *name, const void *data, size_t len)
{
	char *path = tmp_path(name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static int teardown_all(void **state)
{
	(void)state;
	static const char *const names[] = {
		"empty.py", "nul.py", "bad_utf8.py", "overlong.py", "big.py", "locked.py",
		"surrogate.py", "truncated.py", "bom_only.py", "bom_bad.py",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *p = tmp_path(names[i]);
		unlink(p);
		free(p);
	}
	char *d = tmp_path("adir.py");
	rmdir(d);
	free(d);
	rmdir(tmpdir);
	return 0;
}

/* Loads path, expects failure with a one-line message that starts with the
 * path and contains `needle`. */
static void expect_load_error(const char *path, const char *needle)
{
	ta_source *src = (ta_source *)1;
	char *err = NULL;
	assert_int_equal(ta_source_load(path, &src, &err), -1);
	assert_null(src);
	assert_non_null(err);
	if (strncmp(err, path, strlen(path)) != 0 || !strstr(err, needle))
		print_error("message: %s\n", err);
	assert_memory_equal(err, path, strlen(path));
	assert_non_null(strstr(err, needle));
	assert_null(strchr(err, '\n'));
	free(err);
	/* The whole analysis reports the same. */
	ta_analysis *a = (ta_analysis *)1;
	assert_int_equal(ta_analysis_open(path, &a, &err), -1);
	assert_null(a);
	assert_memory_equal(err, path, strlen(path));
	free(err);
}

static void test_missing(void **state)
{
	(void)state;
	char *p = tmp_path("does-not-exist.py");
	expect_load_error(p, "no such file");
	free(p);
}

static void test_directory(void **state)
{
	(void)state;
	char *p = tmp_path("adir.py");
	assert_int_equal(mkdir(p, 0755), 0);
	expect_load_error(p, "is a directory");
	free(p);
}

/* Under root, mode 000 does not stop reads: the check then runs in a child
 * that has given up root (as nobody). Exit codes: 0 right message, 1 wrong,
 * 77 could not drop privileges (reported as a TAP comment, not a failure). */
static int unreadable_as_nobody(const char *path)
{
	if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)
		return 77;
	ta_source *src;
	char *err = NULL;
	if (ta_source_load(path, &src, &err) == 0)
		return 1;
	bool right = !strncmp(err, path, strlen(path)) && strstr(err, "permission denied") &&
		     !strchr(err, '\n');
	if (!right)
		fprintf(stderr, "# message: %s\n", err);
	free(err);
	return right ? 0 : 1;
}

static void test_unreadable(void **state)
{
	(void)state;
	char *p = write_tmp("locked.py", "x = 1\n", 6);
	assert_int_equal(chmod(p, 0), 0);
	int fd = open(p, O_RDONLY);
	if (fd < 0) {
		expect_load_error(p, "permission denied");
		free(p);
		return;
	}
	close(fd);
	/* root: let nobody through the folder, but not into the file */
	assert_int_equal(chmod(tmpdir, 0711), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(unreadable_as_nobody(p));
	int status = 0;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		print_message("# skipped: running as root and cannot drop to nobody; mode 000 does not stop root\n");
	else
		assert_int_equal(WEXITSTATUS(status), 0);
	free(p);
}

static void test_not_regular(void **state)
{
	(void)state;
	/* A character device: never read to the end. */
	expect_load_error("/dev/zero", "not a regular file");
}

static void test_empty(void **state)
{
	(void)state;
	char *p = write_tmp("empty.py", "", 0);
	expect_load_error(p, "empty");
	free(p);
	p = write_tmp("bom_only.py", "\xEF\xBB\xBF", 3);
	expect_load_error(p, "empty");
	free(p);
}

static void test_binary(void **state)
{
	(void)state;
	static const char data[] = "import triton\n\x7f" "ELF\0\0\x01";
	char *p = write_tmp("nul.py", data, sizeof data - 1);
	expect_load_error(p, "binary file (NUL byte at offset 18)");
	free(p);
}

static void test_invalid_utf8(void **state)
{
	(void)state;
	/* Latin-1 é on line 2, after "x = '" (5 code points): 2:6. */
	static const char latin1[] = "import triton\nx = '\xe9t\xe9'\n";
	char *p = write_tmp("bad_utf8.py", latin1, sizeof latin1 - 1);
	char *want = ta_xasprintf("%s:2:6: invalid UTF-8 (byte 0xe9)", p);
	expect_load_error(p, want + strlen(p));
	free(want);
	free(p);

	/* Overlong '/' (C0 AF) after two-byte é: columns count code points. */
	static const char overlong[] = "# \xc3\xa9\xc3\xa9 \xc0\xaf\n";
	p = write_tmp("overlong.py", overlong, sizeof overlong - 1);
	want = ta_xasprintf("%s:1:6: invalid UTF-8 (byte 0xc0)", p);
	expect_load_error(p, want + strlen(p));
	free(want);
	free(p);

	/* A UTF-16 surrogate encoded in UTF-8 (CESU) is not UTF-8. */
	static const char surrogate[] = "a\nb\nc = '\xed\xa0\x80'\n";
	p = write_tmp("surrogate.py", surrogate, sizeof surrogate - 1);
	want = ta_xasprintf("%s:3:6:", p);
	expect_load_error(p, want + strlen(p));
	free(want);
	free(p);

	/* A sequence cut short by the end of the file. */
	static const char truncated[] = "x = 1 # \xe2\x82";
	p = write_tmp("truncated.py", truncated, sizeof truncated - 1);
	expect_load_error(p, ":1:9: invalid UTF-8");
	free(p);

	/* The BOM takes no column. */
	static const char bom_bad[] = "\xEF\xBB\xBFx\xff\n";
	p = write_tmp("bom_bad.py", bom_bad, sizeof bom_bad - 1);
	expect_load_error(p, ":1:2: invalid UTF-8 (byte 0xff)");
	free(p);
}

static void test_too_big(void **state)
{
	(void)state;
	char *p = tmp_path("big.py");
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	/* Sparse: one byte past the limit costs no disk. */
	assert_int_equal(ftruncate(fd, (off_t)TA_SOURCE_MAX_BYTES + 1), 0);
	close(fd);
	expect_load_error(p, "over the 16 MiB limit");
	free(p);

	/* The same limit holds for bytes given from memory. */
	ta_source *src;
	char *err;
	static const char one[] = "x";
	assert_int_equal(ta_source_from_bytes("mem.py", one, TA_SOURCE_MAX_BYTES + 1, &src, &err), -1);
	assert_non_null(strstr(err, "mem.py: file is 16.0 MiB, over the 16 MiB limit"));
	free(err);
}

static void test_exactly_at_limit(void **state)
{
	(void)state;
	char *big = ta_xmalloc(TA_SOURCE_MAX_BYTES);
	memset(big, ' ', TA_SOURCE_MAX_BYTES);
	big[0] = '#';
	big[TA_SOURCE_MAX_BYTES - 1] = '\n';
	ta_source *src;
	char *err = NULL;
	assert_int_equal(ta_source_from_bytes("limit.py", big, TA_SOURCE_MAX_BYTES, &src, &err), 0);
	assert_int_equal(src->line_count, 1);
	assert_int_equal(ta_source_column_of(src, TA_SOURCE_MAX_BYTES - 1), TA_SOURCE_MAX_BYTES);
	ta_source_free(src);
	free(big);
}

static ta_source *from(const char *bytes, size_t len)
{
	ta_source *src = NULL;
	char *err = NULL;
	if (ta_source_from_bytes("mem.py", bytes, len, &src, &err) != 0)
		print_error("%s\n", err);
	assert_non_null(src);
	return src;
}

static void test_line_table(void **state)
{
	(void)state;
	static const char text[] = "a = 1\n\nbc = 2\nlast";
	ta_source *src = from(text, sizeof text - 1);
	assert_false(src->had_bom);
	assert_false(src->crlf);
	assert_int_equal(src->line_count, 4);
	assert_int_equal(src->len, sizeof text - 1);
	assert_int_equal(src->size, sizeof text - 1);
	assert_int_equal(src->hash, ta_hash_bytes(text, sizeof text - 1));
	assert_string_equal(src->path, "mem.py");
	size_t len;
	const char *l = ta_source_line(src, 1, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(l, "a = 1", 5);
	l = ta_source_line(src, 2, &len);
	assert_int_equal(len, 0);
	l = ta_source_line(src, 4, &len);
	assert_int_equal(len, 4);
	assert_memory_equal(l, "last", 4);
	l = ta_source_line(src, 5, &len);   /* past the end: empty, never NULL */
	assert_int_equal(len, 0);
	assert_non_null(l);
	l = ta_source_line(src, 0, &len);
	assert_int_equal(len, 0);
	assert_int_equal(ta_source_line_of(src, 0), 1);
	assert_int_equal(ta_source_line_of(src, 5), 1);   /* the newline belongs to its line */
	assert_int_equal(ta_source_line_of(src, 6), 2);
	assert_int_equal(ta_source_line_of(src, 7), 3);
	assert_int_equal(ta_source_line_of(src, sizeof text - 2), 4);
	assert_int_equal(ta_source_column_of(src, 0), 1);
	assert_int_equal(ta_source_column_of(src, 9), 3);
	ta_source_free(src);

	/* A trailing newline does not start an empty last line. */
	src = from("x\ny\n", 4);
	assert_int_equal(src->line_count, 2);
	ta_source_free(src);
}

static void test_crlf_bom_tabs(void **state)
{
	(void)state;
	static const char text[] = "\xEF\xBB\xBFimport triton\r\ndef f():\r\n\treturn 1\r\n";
	ta_source *src = from(text, sizeof text - 1);
	assert_true(src->had_bom);
	assert_true(src->crlf);
	assert_int_equal(src->len, sizeof text - 1 - 3);
	assert_memory_equal(src->text, "import", 6);
	assert_int_equal(src->size, sizeof text - 1);
	/* The fingerprint covers the file's bytes, BOM included. */
	assert_int_equal(src->hash, ta_hash_bytes(text, sizeof text - 1));
	assert_int_equal(src->line_count, 3);
	size_t len;
	const char *l = ta_source_line(src, 1, &len);   /* without the \r\n */
	assert_int_equal(len, 13);
	assert_memory_equal(l, "import triton", 13);
	l = ta_source_line(src, 3, &len);
	assert_int_equal(len, 9);
	assert_memory_equal(l, "\treturn 1", 9);
	/* A tab is one column, like Python's tokenizer reports it. */
	size_t ret = (size_t)(l - src->text) + 1;
	assert_int_equal(ta_source_column_of(src, ret), 2);
	ta_source_free(src);

	/* Mostly LF with one CRLF: LF. */
	src = from("a\nb\nc\r\n", 7);
	assert_false(src->crlf);
	ta_source_free(src);
}

static void test_columns_code_points(void **state)
{
	(void)state;
	/* é (2 bytes), → (3 bytes), 😀 (4 bytes) */
	static const char text[] = "x = 1\n# \xc3\xa9\xe2\x86\x92\xf0\x9f\x98\x80 z\n";
	ta_source *src = from(text, sizeof text - 1);
	size_t z = (size_t)(strchr(text + 6, 'z') - text);
	assert_int_equal(ta_source_line_of(src, z), 2);
	assert_int_equal(ta_source_column_of(src, z), 7);
	assert_int_equal(ta_source_column_of(src, 6), 1);
	ta_source_free(src);

	/* Columns stay right past many index blocks on one long line. */
	ta_buf b = TA_BUF_INIT;
	ta_buf_puts(&b, "s = '");
	for (int i = 0; i < 5000; i++)
		ta_buf_puts(&b, "\xc3\xa9");   /* 2 bytes, 1 code point each */
	ta_buf_puts(&b, "'\n");
	src = from(b.data, b.len);
	assert_int_equal(ta_source_column_of(src, b.len - 2), 5 + 5000 + 1);
	assert_int_equal(ta_source_column_of(src, 5 + 2 * 2500), 5 + 2500 + 1);
	ta_source_free(src);
	ta_buf_free(&b);
}

static void test_load_good_file(void **state)
{
	(void)state;
	char *path = ta_test_fixture("model", "basic.py");
	ta_source *src;
	char *err;
	assert_int_equal(ta_source_load(path, &src, &err), 0);
	assert_null(err);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(src->size, (uint64_t)st.st_size);
	assert_int_equal(src->mtime.tv_sec, st.st_mtim.tv_sec);
	assert_int_equal(src->text[src->len], '\0');
	ta_source_free(src);
	ta_source_free(NULL);
	free(path);
}

int main(void)
{
	ta_test_use_srcdir_data();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_not_regular),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_binary),
		cmocka_unit_test(test_invalid_utf8),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_exactly_at_limit),
		cmocka_unit_test(test_line_table),
		cmocka_unit_test(test_crlf_bom_tabs),
		cmocka_unit_test(test_columns_code_points),
		cmocka_unit_test(test_load_good_file),
	};
	return cmocka_run_group_tests_name("source", tests, setup_all, teardown_all);
}
