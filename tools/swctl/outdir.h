/* SPDX-License-Identifier: MIT */
/*
 * A set of output files that appear together or not at all: each is written under a hidden
 * temporary name and renamed into place only when every file has been written, so a failed
 * run leaves no partial results behind.
 */
#ifndef SWCTL_OUTDIR_H
#define SWCTL_OUTDIR_H

#include <stdio.h>

#define OUTDIR_MAX_FILES 64

struct outdir {
	char dir[512];
	int n;
	char name[OUTDIR_MAX_FILES][128]; /* files opened so far, "" once renamed */
};

/*
 * Whether results could be written to @p dir, checked before a run spends time: @p dir must
 * be a writable directory, or not exist yet under a writable directory (it is created only
 * when results are written). Returns 0, or -errno with the reason in @p why.
 */
int outdir_check(const char *dir, char *why, size_t len);

/* Creates @p dir (and parents) if needed. Returns 0 or -errno. */
int outdir_init(struct outdir *o, const char *dir);

/* Opens a new file @p name for writing under its temporary name; NULL with errno set. */
FILE *outdir_open(struct outdir *o, const char *name);

/* Path the file @p name will have once committed. */
const char *outdir_path(const struct outdir *o, const char *name, char *buf, size_t len);

/* Renames every file into place. Returns 0 or -errno. */
int outdir_commit(struct outdir *o);

/* Removes every temporary file. */
void outdir_abort(struct outdir *o);

/*
 * Creates @p dir, lets @p write fill it with files, and commits them, or removes them all if
 * @p write fails. Returns 0 or -errno.
 */
int outdir_write(const char *dir, int (*write)(struct outdir *o, const void *arg), const void *arg);

#endif
