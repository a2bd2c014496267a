/* SPDX-License-Identifier: MIT */
/* Small input files written into a private temporary directory, for bad-input tests. */
#ifndef SW_TEST_TMPFILES_H
#define SW_TEST_TMPFILES_H

#include "sw_workload.h"

/* cmocka group setup: creates the directory; every file written afterwards goes into it. */
int tmp_setup(void **state);
/* cmocka group teardown: removes the files written and the directory. */
int tmp_teardown(void **state);
/* Writes @p text to @p name in the directory; returns the file's path (static storage). */
const char *tmp_write(const char *name, const char *text);
/* Checks that a load failed with @p rc, left nothing behind and that its message starts with
 * "path:" @p msg. */
void tmp_assert_error(int rc, int want_rc, const struct sw_workload *w,
                      const struct sw_input_error *err, const char *path, const char *msg);

#endif /* SW_TEST_TMPFILES_H */
