/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"

static int make_dirs(const char *path)
{
	char buf[512];

	if (strlen(path) >= sizeof(buf))
		return -ENAMETOOLONG;
	strcpy(buf, path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int outdir_init(struct outdir *o, const char *dir)
{
	memset(o, 0, sizeof(*o));
	if (strlen(dir) >= sizeof(o->dir))
		return -ENAMETOOLONG;
	strcpy(o->dir, dir);
	return make_dirs(dir);
}

const char *outdir_path(const struct outdir *o, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", o->dir, name);
	return buf;
}

FILE *outdir_open(struct outdir *o, const char *name)
{
	FILE *f;

	if (o->n == OUTDIR_MAX_FILES) {
		errno = EMFILE;
		return NULL;
	}
	snprintf(o->final[o->n], sizeof(o->final[0]), "%s/%s", o->dir, name);
	snprintf(o->temp[o->n], sizeof(o->temp[0]), "%s/.%s.%d.tmp", o->dir, name, (int)getpid());
	f = fopen(o->temp[o->n], "w");
	if (f)
		o->n++;
	return f;
}

int outdir_commit(struct outdir *o)
{
	for (int i = 0; i < o->n; i++) {
		if (rename(o->temp[i], o->final[i]) < 0) {
			int rc = -errno;

			outdir_abort(o);
			return rc;
		}
		o->temp[i][0] = '\0';
	}
	return 0;
}

void outdir_abort(struct outdir *o)
{
	for (int i = 0; i < o->n; i++)
		if (o->temp[i][0])
			unlink(o->temp[i]);
}
