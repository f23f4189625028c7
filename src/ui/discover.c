/* --check's file discovery: see discover.h. */
#include "config.h"
#include "ui/discover.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef HAVE_LIBGIT2
#include <dlfcn.h>
#include <git2.h>
#endif

#include "util/buf.h"
#include "util/fsutil.h"
#include "util/text.h"

/* Deeper folders are not walked (a link loop made of bind mounts, a
 * generated tree): said on err, and the run ends in an error. */
#define MAX_DEPTH 64

/* Folders no kernel of the project lives in: installed packages, caches,
 * build output (ruff and the ignore crate pass over the same). */
static const char *const skipped_folders[] = {
	"node_modules", "site-packages", "dist-packages", "__pycache__", "__pypackages__",
	"build", "dist", "_build", "buck-out", "venv",
};

typedef struct walk {
	const ta_discover *d;
	char ***paths;
	size_t *n, *cap;
	FILE *err;
	ta_exit *rc;
	const char *root_real;    /* links are followed only inside it */
	bool told_gitignore;      /* the note of a build without libgit2 */
#ifdef HAVE_LIBGIT2
	git_repository *repo;     /* the work tree root_real lies in, or NULL */
	const char *workdir;      /* its folder, with a final '/' */
#endif
} walk;

#ifdef HAVE_LIBGIT2
/* libgit2, loaded by its soname on the first folder walked (or --version),
 * not linked: loading it and the libraries it pulls in (TLS, SSH, Kerberos)
 * cost every start about 5 ms of CPU, which files named one by one never
 * need. Unloadable, the build behaves as one without libgit2. */
static struct {
	bool tried, ok;
	__typeof__(&git_libgit2_init) init;
	__typeof__(&git_libgit2_shutdown) shutdown;
	__typeof__(&git_repository_open_ext) open_ext;
	__typeof__(&git_repository_workdir) workdir;
	__typeof__(&git_repository_free) repo_free;
	__typeof__(&git_ignore_path_is_ignored) ignored;
} git;

static bool git_load(void)
{
	if (git.tried)
		return git.ok;
	git.tried = true;
	void *h = dlopen(LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	/* through a void * as POSIX has dlsym's result converted */
	void *f[6] = { dlsym(h, "git_libgit2_init"), dlsym(h, "git_libgit2_shutdown"),
		       dlsym(h, "git_repository_open_ext"), dlsym(h, "git_repository_workdir"),
		       dlsym(h, "git_repository_free"), dlsym(h, "git_ignore_path_is_ignored") };
	for (size_t i = 0; i < 6; i++)
		if (!f[i]) {
			dlclose(h);
			return false;
		}
	memcpy(&git.init, &f[0], sizeof f[0]);
	memcpy(&git.shutdown, &f[1], sizeof f[1]);
	memcpy(&git.open_ext, &f[2], sizeof f[2]);
	memcpy(&git.workdir, &f[3], sizeof f[3]);
	memcpy(&git.repo_free, &f[4], sizeof f[4]);
	memcpy(&git.ignored, &f[5], sizeof f[5]);
	git.ok = true;
	return true;
}
#endif

static bool has_py_suffix(const char *name)
{
	size_t n = strlen(name);
	return n > 3 && !strcmp(name + n - 3, ".py");
}

/* A link is followed only when its target stays inside root. */
static bool inside(const char *root_real, const char *path)
{
	char *real = realpath(path, NULL);
	if (!real)
		return false;
	size_t n = strlen(root_real);
	bool yes = !strncmp(real, root_real, n) && (real[n] == '/' || real[n] == '\0' || !strcmp(root_real, "/"));
	free(real);
	return yes;
}

/* A virtual environment by its marks rather than its name (.venv, env,
 * py311...): venv and virtualenv write pyvenv.cfg, conda conda-meta/. */
static bool is_environment(const char *dir)
{
	char *cfg = ta_path_join(dir, "pyvenv.cfg"), *conda = ta_path_join(dir, "conda-meta");
	bool yes = access(cfg, F_OK) == 0 || ta_path_is_dir(conda);
	free(cfg);
	free(conda);
	return yes;
}

static bool skipped_by_name(const char *name)
{
	for (size_t i = 0; i < sizeof skipped_folders / sizeof *skipped_folders; i++)
		if (!strcmp(name, skipped_folders[i]))
			return true;
	size_t n = strlen(name);
	return n > 9 && !strcmp(name + n - 9, ".egg-info");
}

/* rel: the path under base ("a/b.py"); tries "**" + '/' at the start
 * against every tail of rel. */
static bool match_anchored(const char *pat, const char *rel)
{
	if (!strncmp(pat, "**/", 3)) {
		for (const char *p = rel; p; p = strchr(p, '/'), p = p ? p + 1 : NULL)
			if (fnmatch(pat + 3, p, FNM_PATHNAME) == 0)
				return true;
		return false;
	}
	return fnmatch(pat, rel, FNM_PATHNAME) == 0;
}

static bool excluded(const ta_discover *d, const char *abs, const char *name, bool is_dir)
{
	for (size_t i = 0; i < d->n_exclude; i++) {
		char *pat = ta_xstrdup(d->exclude[i].pattern);
		size_t len = strlen(pat);
		bool dir_only = false;
		if (len > 3 && !strcmp(pat + len - 3, "/**")) {
			pat[len -= 3] = '\0';   /* the folder itself: pruned with all it holds */
			dir_only = true;
		}
		while (len > 1 && pat[len - 1] == '/') {
			pat[--len] = '\0';
			dir_only = true;
		}
		bool hit = false;
		if (!dir_only || is_dir) {
			if (!strchr(pat, '/')) {
				hit = fnmatch(pat, name, 0) == 0;
			} else {
				const char *base = d->exclude[i].base;
				size_t bl = strlen(base);
				while (bl > 1 && base[bl - 1] == '/')
					bl--;
				const char *p = pat[0] == '/' ? pat + 1 : pat;
				if (!strncmp(abs, base, bl) && abs[bl] == '/')
					hit = match_anchored(p, abs + bl + 1);
			}
		}
		free(pat);
		if (hit)
			return true;
	}
	return false;
}

bool ta_discover_matches(const ta_exclude *e, const char *path)
{
	const char *name = strrchr(path, '/');
	name = name ? name + 1 : path;
	if (!strchr(e->pattern, '/'))
		return fnmatch(e->pattern, name, 0) == 0;
	/* the path from base: an absolute path, or one from the current folder */
	char *cwd = path[0] == '/' ? NULL : getcwd(NULL, 0);
	char *abs = cwd ? ta_path_join(cwd, path) : ta_xstrdup(path);
	free(cwd);
	char *real = realpath(abs, NULL);   /* "./a/../b.py" as the base is written */
	const char *at = real ? real : abs, *base = e->base;
	size_t bl = strlen(base);
	while (bl > 1 && base[bl - 1] == '/')
		bl--;
	bool hit = false;
	if (!strncmp(at, base, bl) && at[bl] == '/') {
		const char *rel = at + bl + 1, *pat = e->pattern[0] == '/' ? e->pattern + 1 : e->pattern;
		size_t pl = strlen(pat);
		if (pl > 3 && !strcmp(pat + pl - 3, "/**"))   /* a folder and all it holds */
			hit = !strncmp(rel, pat, pl - 2) || match_anchored(pat, rel);
		else
			hit = match_anchored(pat, rel);
	}
	free(real);
	free(abs);
	return hit;
}

static bool git_ignored(walk *w, const char *abs, bool is_dir)
{
#ifdef HAVE_LIBGIT2
	if (!w->repo)
		return false;
	size_t wl = strlen(w->workdir);
	if (strncmp(abs, w->workdir, wl))
		return false;
	char *rel = ta_xasprintf("%s%s", abs + wl, is_dir ? "/" : "");
	int ignored = 0;
	bool yes = git.ignored(&ignored, w->repo, rel) == 0 && ignored;
	free(rel);
	return yes;
#else
	(void)w, (void)abs, (void)is_dir;
	return false;
#endif
}

static void walk_dir(walk *w, const char *dir, const char *abs, int depth)
{
	if (depth > MAX_DEPTH) {
		fprintf(w->err, "tileadvise: %s: not checked: more than %d folders deep (check it on its own)\n",
			ta_text_name(dir), MAX_DEPTH);
		*w->rc = TA_EXIT_ERROR;
		return;
	}
	DIR *dh = opendir(dir);
	if (!dh) {
		fprintf(w->err, "tileadvise: %s: cannot read the folder: %s\n", ta_text_name(dir), strerror(errno));
		*w->rc = TA_EXIT_ERROR;
		return;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.') {
			/* hidden files and folders, . and ..; a .gitignore that
			 * this build cannot read is said once */
			if (!strcmp(e->d_name, ".gitignore") && w->d->respect_gitignore &&
			    !ta_discover_reads_gitignore() && !w->told_gitignore) {
				fprintf(w->err, "tileadvise: note: %s/.gitignore is not read: this tileadvise was "
						"built without libgit2 (--exclude PATTERN leaves paths out)\n", ta_text_name(dir));
				w->told_gitignore = true;
			}
			continue;
		}
		*TA_PUSH(names, n, cap) = ta_xstrdup(e->d_name);
	}
	closedir(dh);
	if (n)
		qsort(names, n, sizeof *names, ta_strptr_cmp);
	for (size_t i = 0; i < n; i++) {
		char *p = ta_path_join(dir, names[i]);
		char *pa = ta_path_join(abs, names[i]);
		struct stat st;
		bool ok = lstat(p, &st) == 0;
		if (ok && S_ISLNK(st.st_mode))
			ok = inside(w->root_real, p) && stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
		bool is_dir = ok && S_ISDIR(st.st_mode);
		if (ok && (excluded(w->d, pa, names[i], is_dir) ||
			   (w->d->respect_gitignore && git_ignored(w, pa, is_dir))))
			ok = false;
		if (is_dir && ok) {
			if (!skipped_by_name(names[i]) && !is_environment(p))
				walk_dir(w, p, pa, depth + 1);
		} else if (ok && S_ISREG(st.st_mode) && has_py_suffix(names[i]) && st.st_size > 0) {
			/* An empty file met in a folder is a package's __init__.py:
			 * no kernel, nothing to say (named, too: empty_py). */
			*TA_PUSH(*w->paths, *w->n, *w->cap) = p;
			p = NULL;
		}
		free(p);
		free(pa);
		free(names[i]);
	}
	free(names);
}

/* The repository root_real lies in, unless root_real is itself ignored
 * there: a folder named on the command line is read whatever the
 * .gitignore files say of it. */
static void open_repo(walk *w)
{
#ifdef HAVE_LIBGIT2
	w->repo = NULL;
	if (!w->d->respect_gitignore || !git.ok || git.open_ext(&w->repo, w->root_real, 0, NULL) != 0)
		return;
	w->workdir = git.workdir(w->repo);
	char *wd_real = w->workdir ? realpath(w->workdir, NULL) : NULL;
	/* the work tree's path as realpath writes it, so that root_real's
	 * entries start with it */
	bool usable = wd_real && !strncmp(w->root_real, wd_real, strlen(wd_real));
	free(wd_real);
	if (usable && git_ignored(w, w->root_real, true))
		usable = false;
	if (!usable) {
		git.repo_free(w->repo);
		w->repo = NULL;
	}
#else
	(void)w;
#endif
}

/* An empty .py file (a package's __init__.py): no kernel, nothing to say,
 * whether met in a folder or named (a pre-commit hook names every staged
 * file), as linters treat it. */
static bool empty_py(const char *path)
{
	struct stat st;
	return has_py_suffix(path) && stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0;
}

typedef struct file_id {
	dev_t dev;
	ino_t ino;
	size_t at;
} file_id;

static int cmp_file_id(const void *a, const void *b)
{
	const file_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* A file reached twice (`k.py .`, or two folders over one tree) is read
 * once, where it was first reached: its findings are not printed twice. */
static void drop_repeats(char **paths, size_t *n)
{
	if (*n < 2)
		return;
	file_id *ids = ta_xcalloc(*n, sizeof *ids);
	bool *drop = ta_xcalloc(*n, sizeof *drop);
	size_t m = 0;
	for (size_t i = 0; i < *n; i++) {
		struct stat st;
		if (strcmp(paths[i], "-") && stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
			ids[m++] = (file_id){ st.st_dev, st.st_ino, i };
	}
	qsort(ids, m, sizeof *ids, cmp_file_id);
	for (size_t i = 1; i < m; i++)
		if (ids[i].dev == ids[i - 1].dev && ids[i].ino == ids[i - 1].ino)
			drop[ids[i].at] = true;
	size_t k = 0;
	for (size_t i = 0; i < *n; i++) {
		if (drop[i])
			free(paths[i]);
		else
			paths[k++] = paths[i];
	}
	*n = k;
	free(ids);
	free(drop);
}

void ta_discover_files(char *const *args, int count, const ta_discover *d, char ***paths, size_t *n,
		       size_t *cap, FILE *err, ta_exit *rc)
{
	bool stdin_taken = false, told = false;
#ifdef HAVE_LIBGIT2
	/* libgit2 starts on the first folder named, not before: its start
	 * parses the system's certificates (56 M instructions, 4% of a
	 * `--check` of 64 files), which files named one by one never need */
	bool git_up = false;
#endif
	for (int i = 0; i < count; i++) {
		if (!strcmp(args[i], "-")) {
			if (stdin_taken) {
				fprintf(err, "tileadvise: -: standard input is read once; give '-' once\n");
				*rc = TA_EXIT_ERROR;
				continue;
			}
			stdin_taken = true;
			*TA_PUSH(*paths, *n, *cap) = ta_xstrdup(args[i]);
		} else if (ta_path_is_dir(args[i])) {
#ifdef HAVE_LIBGIT2
			if (!git_up && d->respect_gitignore && git_load())
				git_up = git.init() > 0;
#endif
			char *real = realpath(args[i], NULL);
			walk w = { .d = d, .paths = paths, .n = n, .cap = cap, .err = err, .rc = rc,
				   .root_real = real ? real : args[i], .told_gitignore = told };
			open_repo(&w);
			walk_dir(&w, args[i], w.root_real, 0);
			told = w.told_gitignore;
#ifdef HAVE_LIBGIT2
			if (w.repo)
				git.repo_free(w.repo);
#endif
			free(real);
		} else if (!empty_py(args[i])) {
			*TA_PUSH(*paths, *n, *cap) = ta_xstrdup(args[i]);
		}
	}
#ifdef HAVE_LIBGIT2
	if (git_up)
		git.shutdown();
#endif
	drop_repeats(*paths, n);
}

bool ta_discover_reads_gitignore(void)
{
#ifdef HAVE_LIBGIT2
	return git_load();
#else
	return false;
#endif
}
