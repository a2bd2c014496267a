/* SPDX-License-Identifier: MIT */
/* Running the real swctl binary (path in $SWCTL) as a child process, in a private directory. */
#ifndef TEST_SWCTL_CLI_H
#define TEST_SWCTL_CLI_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

/* stdout and stderr of the last run */
extern char cli_out[16384];

/* A JSON Lines mix of three jobs on two racks of three nodes: replays in milliseconds. */
extern const char cli_small_mix[];

/* @p name inside the test's private directory (four results live at a time). */
const char *cli_path(const char *name);

/* Writes @p text to cli_path(@p name) and returns that path. */
const char *cli_write_file(const char *name, const char *text);

/* Runs "swctl CMD ARGS..." (NULL-terminated); returns its exit status, output in cli_out. */
int cli_run(const char *cmd, ...);

/* Entries in directory @p d (0 if it does not exist). */
int cli_entries(const char *d);

/* Lines in file @p path (-1 if it cannot be read). */
int cli_lines(const char *path);

int cli_same_file(const char *a, const char *b);

/* Group setup and teardown: create and remove the private directory. */
int cli_setup(void **state);
int cli_teardown(void **state);

/* Runs @p tests after checking $SWCTL is set. */
int cli_main(const char *name, const struct CMUnitTest *tests, size_t n);

#endif
