/* A process that never touches CUDA, loading the CUPTI injector the way the
 * driver would (dlopen of $CUDA_INJECTION64_PATH, then InitializeInjection),
 * to test that the injector fails gracefully where there is no GPU.
 *
 *   inject_host MODE
 *
 * MODE: plain       load, initialize, exit(0)
 *       twice       initialize from 4 threads at once, then again
 *       exit_       initialize, then _exit(0) (no atexit: no "bye")
 *       signal      initialize, then die of SIGKILL
 *       fork        initialize, fork a child that exits normally, then exit
 *       selfpair    make its own socket pair, point TILEADVISE_RECORD_FD at
 *                   one end (with TILEADVISE_RECORD_INO), initialize, exit,
 *                   and print on stdout what the injector wrote (read by a
 *                   forked reader) -- for tests without the tool
 *       closedpeer  as selfpair, but the reading end is closed first
 *                   (writes must fail without SIGPIPE)
 *
 * Prints "initialized N" (InitializeInjection's result) on stderr. Exit
 * status 0 unless loading fails (3) or the mode is unknown (2). */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int (*init_fn)(void);

/* With our own pair: the writing end and the reader, so that the exit can
 * close one and wait for the other (else the test may read the output file
 * before the reader has written it). */
static int own_fd = -1;
static pid_t own_reader = -1;

static void wait_for_reader(void)
{
	if (getpid() == own_reader || own_reader <= 0)
		return;
	close(own_fd);
	waitpid(own_reader, NULL, 0);
}

static void *init_thread(void *arg)
{
	(void)arg;
	int r = init_fn();
	return (void *)(long)r;
}

static int load(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	if (!path || !*path) {
		fprintf(stderr, "inject_host: CUDA_INJECTION64_PATH is not set\n");
		return -1;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		fprintf(stderr, "inject_host: dlopen: %s\n", dlerror());
		return -1;
	}
	*(void **)&init_fn = dlsym(h, "InitializeInjection");
	if (!init_fn) {
		fprintf(stderr, "inject_host: no InitializeInjection: %s\n", dlerror());
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	const char *mode = argv[1];
	int sp[2] = { -1, -1 };
	pid_t reader = -1;
	int own = !strcmp(mode, "selfpair") || !strcmp(mode, "closedpeer");
	if (own) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) != 0)
			return 3;
		char buf[64];
		snprintf(buf, sizeof buf, "%d", sp[1]);
		setenv("TILEADVISE_RECORD_FD", buf, 1);
		struct stat st;
		fstat(sp[1], &st);
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)st.st_ino);
		setenv("TILEADVISE_RECORD_INO", buf, 1);
		if (!strcmp(mode, "closedpeer")) {
			close(sp[0]);
		} else {
			reader = fork();
			if (reader == 0) {
				close(sp[1]);
				char b[4096];
				ssize_t n;
				while ((n = read(sp[0], b, sizeof b)) > 0)
					if (write(1, b, (size_t)n) != n)
						break;
				_exit(0);
			}
			close(sp[0]);
			own_fd = sp[1];
			own_reader = reader;
			/* Registered before the injector's exit handler, so it runs after it. */
			atexit(wait_for_reader);
		}
	}
	if (load() != 0)
		return 3;
	int r;
	if (!strcmp(mode, "twice")) {
		pthread_t t[4];
		for (int i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, init_thread, NULL);
		for (int i = 0; i < 4; i++)
			pthread_join(t[i], NULL);
		r = init_fn();
	} else {
		r = init_fn();
	}
	fprintf(stderr, "initialized %d\n", r);
	if (!strcmp(mode, "exit_"))
		_exit(0);
	if (!strcmp(mode, "signal"))
		raise(SIGKILL);
	if (!strcmp(mode, "fork")) {
		pid_t c = fork();
		if (c == 0)
			exit(0);
		int st;
		waitpid(c, &st, 0);
	}
	/* With our own pair, the reader prints what came until our exit:
	 * the injector's exit handler writes "bye", then wait_for_reader. */
	return 0;
}
