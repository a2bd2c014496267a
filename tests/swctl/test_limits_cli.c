/* SPDX-License-Identifier: MIT */
/*
 * swctl on absurd but well-formed input, as a user runs it: every value beyond a documented
 * bound is refused before anything runs, with the option or the file, line and field, and
 * nothing is written; values within the bounds replay in bounded time and memory.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void users_beyond_the_bound_are_refused_before_running(void **state)
{
	const char *res = cli_path("users-res");
	const char *mix = cli_write_file(
	        "bigid.jsonl", "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 2147483648, "
	                       "\"bench\": \"grep\", \"input_bytes\": 1000}}\n");

	(void)state;
	assert_int_equal(cli_run("replay", "--users", "3000000000", "--out", res, NULL), 2);
	assert_non_null(strstr(cli_out, "--users 3000000000: expected a whole number from 1 to "
	                                "1048576"));
	assert_int_equal(cli_run("replay", "--mix", mix, "--out", res, "--quiet", NULL), 1);
	assert_non_null(strstr(cli_out, "bigid.jsonl:1: field 'user': must be at most 1048575"));
	assert_int_equal(cli_entries(res), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(users_beyond_the_bound_are_refused_before_running),
	};

	return cli_main("swctl_limits_cli", tests, sizeof(tests) / sizeof(tests[0]));
}
