/* SPDX-License-Identifier: MIT */
/* Reading a whole file into a string, for the commands that take a file or reread their own. */
#ifndef SWCTL_READFILE_H
#define SWCTL_READFILE_H

#include <stddef.h>

enum {
	READ_STDIN = 1, /* "-" names standard input */
	READ_QUIET = 2, /* a file that cannot be read is not reported */
};

/*
 * The first @p cap bytes (0: all) of @p path as a NUL-terminated string, which the caller frees.
 * Returns NULL when @p path cannot be opened or read, or memory runs out; unless READ_QUIET is
 * in @p flags, after perror(@p path).
 */
char *read_text(const char *path, size_t cap, unsigned flags);

#endif
