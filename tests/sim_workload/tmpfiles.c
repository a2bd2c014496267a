/* SPDX-License-Identifier: MIT */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "tmpfiles.h"

static char dir[64];
static char path[128];
static char written[32][128];
static int n_written;

int tmp_setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/sw_workload_test_XXXXXX");
	assert_non_null(mkdtemp(dir));
	n_written = 0;
	return 0;
}

int tmp_teardown(void **state)
{
	(void)state;
	for (int i = 0; i < n_written; i++)
		unlink(written[i]);
	return rmdir(dir);
}

const char *tmp_write(const char *name, const char *text)
{
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	for (int i = 0; i < n_written; i++)
		if (!strcmp(written[i], path))
			return path;
	assert_true(n_written < 32);
	strcpy(written[n_written++], path);
	return path;
}

void tmp_assert_error(int rc, int want_rc, const struct sw_workload *w,
                      const struct sw_input_error *err, const char *file, const char *msg)
{
	char want[600];

	snprintf(want, sizeof(want), "%s:%s", file, msg);
	if (strncmp(err->msg, want, strlen(want)))
		fail_msg("error message\n  got:  %s\n  want: %s", err->msg, want);
	assert_int_equal(rc, want_rc);
	assert_int_equal(w->n_jobs, 0);
	assert_null(w->jobs);
}
