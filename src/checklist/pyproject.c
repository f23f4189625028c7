/* Finding the project's pyproject.toml (see pyproject.h); the TOML itself
 * is read by toml++ in toml_read.cc. */
#include "config.h"
#include "checklist/pyproject.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/buf.h"
#include "util/fsutil.h"

bool ta_project_reads_toml(void)
{
#ifdef HAVE_TOMLPP
	return true;
#else
	return false;
#endif
}

#ifndef HAVE_TOMLPP
int ta_project_parse(const char *path, ta_project *p, FILE *warn, char **err)
{
	(void)p, (void)err;
	fprintf(warn, "tileadvise: note: %s: [tool.tileadvise] is not read: this tileadvise was "
		      "built without a TOML parser (toml++)\n", path);
	return 0;
}
#endif

/* Only a file that names tileadvise can hold the table: others (however
 * broken) are passed over unparsed. */
static bool mentions_us(const char *path)
{
	char *data = NULL, *why = NULL;
	size_t len;
	bool yes = ta_read_file(path, (size_t)4 << 20, &data, &len, &why) == 0 && len &&
		   memmem(data, len, "tileadvise", 10);
	free(data);
	free(why);
	return yes;
}

int ta_project_find(const char *start, ta_project *p, FILE *warn, char **err)
{
	memset(p, 0, sizeof *p);
	p->respect_gitignore = p->preview = -1;
	*err = NULL;
	char *dir = realpath(start, NULL);
	if (!dir)
		return 0;
	for (;;) {
		char *path = ta_path_join(dir, "pyproject.toml");
		int rc = access(path, R_OK) == 0 && mentions_us(path) ? ta_project_parse(path, p, warn, err) : 0;
		if (rc != 0) {
			if (rc > 0) {
				p->path = path;
				p->dir = dir;
				return 0;
			}
			free(path);
			free(dir);
			ta_project_free(p);
			return -1;
		}
		free(path);
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			break;
		*slash = '\0';
	}
	free(dir);
	return 0;
}

void ta_project_free(ta_project *p)
{
	free(p->path);
	free(p->dir);
	free(p->select);
	free(p->ignore);
	free(p->extend_select);
	for (size_t i = 0; i < p->n_pfi; i++) {
		free(p->pfi_patterns[i]);
		free(p->pfi_ids[i]);
	}
	free(p->pfi_patterns);
	free(p->pfi_ids);
	for (size_t i = 0; i < p->n_exclude; i++)
		free(p->exclude[i]);
	free(p->exclude);
	free(p->output_format);
	memset(p, 0, sizeof *p);
	p->respect_gitignore = p->preview = -1;
}
