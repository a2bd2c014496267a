/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
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

int outdir_check(const char *dir, char *why, size_t len)
{
	char path[512];
	struct stat st;

	if (strlen(dir) >= sizeof(path) || !*dir) {
		snprintf(why, len, "%s", *dir ? strerror(ENAMETOOLONG) : "empty path");
		return *dir ? -ENAMETOOLONG : -EINVAL;
	}
	strcpy(path, dir);
	/* The directory itself, else the nearest ancestor that exists: it will hold the rest. */
	while (stat(path, &st) < 0) {
		char *slash = strrchr(path, '/');

		if (errno != ENOENT && errno != ENOTDIR) {
			snprintf(why, len, "%s: %s", path, strerror(errno));
			return -errno;
		}
		if (!slash) {
			strcpy(path, ".");
		} else if (slash == path) {
			path[1] = '\0';
		} else {
			*slash = '\0';
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "%s exists and is not a directory", path);
		return -ENOTDIR;
	}
	if (access(path, W_OK | X_OK) < 0) {
		snprintf(why, len, "cannot write in %s: %s", path, strerror(errno));
		return -errno;
	}
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

static const char *temp_path(const struct outdir *o, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s/.%s.%d.tmp", o->dir, name, (int)getpid());
	return buf;
}

FILE *outdir_open(struct outdir *o, const char *name)
{
	char path[768];
	FILE *f;

	if (o->n == OUTDIR_MAX_FILES || strlen(name) >= sizeof(o->name[0])) {
		errno = o->n == OUTDIR_MAX_FILES ? EMFILE : ENAMETOOLONG;
		return NULL;
	}
	f = fopen(temp_path(o, name, path, sizeof(path)), "w");
	if (f)
		strcpy(o->name[o->n++], name);
	return f;
}

int outdir_commit(struct outdir *o)
{
	char from[768], to[768];

	for (int i = 0; i < o->n; i++) {
		if (rename(temp_path(o, o->name[i], from, sizeof(from)),
		           outdir_path(o, o->name[i], to, sizeof(to))) < 0) {
			int rc = -errno;

			outdir_abort(o);
			return rc;
		}
		o->name[i][0] = '\0';
	}
	return 0;
}

void outdir_abort(struct outdir *o)
{
	char path[768];

	for (int i = 0; i < o->n; i++)
		if (o->name[i][0])
			unlink(temp_path(o, o->name[i], path, sizeof(path)));
}

int outdir_write(const char *dir, int (*write)(struct outdir *o, const void *arg), const void *arg)
{
	struct outdir o;
	int rc = outdir_init(&o, dir);

	if (rc == 0)
		rc = write(&o, arg);
	if (rc == 0)
		return outdir_commit(&o);
	outdir_abort(&o);
	return rc;
}
