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

static void cluster_and_mix_options_beyond_their_bounds_are_refused(void **state)
{
	const char *res = cli_path("opts-res");

	(void)state;
	assert_int_equal(cli_run("replay", "--oversub", "1e300", "--out", res, "--quiet", NULL), 1);
	assert_non_null(strstr(cli_out, "--oversub 1e+300: the rack uplink must carry from 1e+06"));
	assert_int_equal(cli_run("replay", "--duration", "1e9", "--out", res, "--quiet", NULL), 1);
	assert_non_null(strstr(cli_out, "--duration must be above 0 and at most 277778 h"));
	assert_int_equal(cli_run("replay", "--duration", "20000", "--out", res, "--quiet", NULL),
	                 1);
	assert_non_null(strstr(cli_out, "jobs, more than 1048576"));
	assert_int_equal(cli_run("replay", "--size-scale", "1000", "--out", res, "--quiet", NULL),
	                 1);
	assert_non_null(strstr(cli_out,
	                       "--size-scale 1000: the largest job (2 TB x 100) would have "
	                       "2980233 maps, more than 1048576"));
	assert_int_equal(cli_run("replay", "--seed", "1e300", "--out", res, "--quiet", NULL), 2);
	assert_non_null(strstr(cli_out,
	                       "--seed 1e300: expected a whole number from 1 to 9007199254740992"));
	assert_int_equal(cli_entries(res), 0);
}

/* --jobs 1e12 used to exit 1 without a word (a trillion thread ids do not fit in memory). */
static void a_thread_count_beyond_the_bound_is_refused_with_a_message(void **state)
{
	(void)state;
	assert_int_equal(cli_run("replay", "--jobs", "1e12", NULL), 2);
	assert_non_null(strstr(cli_out, "--jobs 1e12: expected a whole number from 1 to 256"));
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,4", "--jobs", "257", NULL), 2);
	assert_non_null(strstr(cli_out, "--jobs 257: expected a whole number from 1 to 256"));
	assert_int_equal(cli_run("experiment", "x.json", "--jobs", "1000000000000", NULL), 2);
	assert_non_null(strstr(cli_out, "expected a whole number from 1 to 256"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(users_beyond_the_bound_are_refused_before_running),
	        cmocka_unit_test(cluster_and_mix_options_beyond_their_bounds_are_refused),
	        cmocka_unit_test(a_thread_count_beyond_the_bound_is_refused_with_a_message),
	};

	return cli_main("swctl_limits_cli", tests, sizeof(tests) / sizeof(tests[0]));
}
