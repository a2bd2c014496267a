/* SPDX-License-Identifier: MIT */
/*
 * swctl replay with injected failures, as a user runs it: --fail-node and --task-failure-rate
 * replay to completion and report what they cost; bad values are refused by name.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void a_node_failure_replays_every_job_and_reports_the_maps_run_again(void **state)
{
	const char *mix = cli_write_file("f.jsonl", cli_small_mix), *res = cli_path("f-res");
	char path[640];

	(void)state;
	/* At 35 s node 0.1 runs tasks and holds outputs that reduces still need. */
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair,sw-fair", "--warmup",
	                         "0", "--fail-node", "0.1@35+60", "--fail-node", "1.2@50",
	                         "--task-failure-rate", "0.1", "--out", res, "--no-plot", "--quiet",
	                         NULL),
	                 0);
	assert_non_null(
	        strstr(cli_out, "failures: 2 node failures injected, task failure rate 0.1"));
	for (const char *const *p = (const char *const[]){"\nfair ", "\nsw-fair ", NULL}; *p; p++) {
		const char *row = strstr(strstr(cli_out, "failures:"), *p);
		unsigned nodes, lost, rerun, failed, jobs_failed;

		assert_non_null(row);
		assert_int_equal(sscanf(row + strlen(*p), "%u %u %u %u %u", &nodes, &lost, &rerun,
		                        &failed, &jobs_failed),
		                 5);
		assert_int_equal(nodes, 2);
		assert_true(rerun > 0);
		assert_true(failed > 0);
		assert_int_equal(jobs_failed, 0);
	}
	snprintf(path, sizeof(path), "%s/results.json", res);
	assert_true(cli_lines(path) > 0);
}

static void two_replays_with_one_failure_write_identical_results(void **state)
{
	const char *mix = cli_write_file("same-f.jsonl", cli_small_mix);
	const char *a = cli_path("fa"), *b = cli_path("fb");
	char fa[640], fb[640];

	(void)state;
	for (int i = 0; i < 2; i++)
		assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair", "--warmup",
		                         "0", "--fail-node", "0.1@35", "--task-failure-rate", "0.2",
		                         "--out", i ? b : a, "--no-plot", "--quiet", NULL),
		                 0);
	snprintf(fa, sizeof(fa), "%s/jobs.csv", a);
	snprintf(fb, sizeof(fb), "%s/jobs.csv", b);
	assert_true(cli_same_file(fa, fb));
}

static void a_malformed_fail_node_is_refused_naming_it(void **state)
{
	static const char *const bad[] = {"2.x@5",   "2.3",       "2@5",    "2.3@-1",
	                                  "2.3@5+0", "2.3@5+",    ".3@5",   "2.3@",
	                                  "2.3@inf", "2.3@5+60s", "-1.3@5", "99999999999.0@1"};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[128];

		assert_int_equal(cli_run("replay", "--fail-node", bad[i], NULL), 2);
		snprintf(want, sizeof(want), "--fail-node %s: expected RACK.NODE@SECONDS", bad[i]);
		assert_non_null(strstr(cli_out, want));
	}
	assert_int_equal(cli_run("replay", "--task-failure-rate", "1.5", NULL), 2);
	assert_non_null(strstr(cli_out, "--task-failure-rate 1.5: must be in [0, 1]"));
	assert_int_equal(cli_run("replay", "--task-failure-rate", "-0.1", NULL), 2);
	assert_non_null(strstr(cli_out, "--task-failure-rate"));
}

static void a_node_outside_the_cluster_exits_1_naming_the_failure(void **state)
{
	const char *mix = cli_write_file("out.jsonl", cli_small_mix), *res = cli_path("out-res");

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair", "--fail-node",
	                         "0.0@5", "--fail-node", "1.3@10", "--out", res, "--quiet", NULL),
	                 1);
	assert_non_null(strstr(cli_out, "fault 2 (node 1.3 at 10 s): rack 1 has nodes 0-2"));
	assert_int_equal(cli_entries(res), 0);
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair", "--fail-node",
	                         "2.0@5", "--out", res, "--quiet", NULL),
	                 1);
	assert_non_null(strstr(cli_out, "fault 1 (node 2.0 at 5 s): the cluster has racks 0-1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(a_node_failure_replays_every_job_and_reports_the_maps_run_again),
	        cmocka_unit_test(two_replays_with_one_failure_write_identical_results),
	        cmocka_unit_test(a_malformed_fail_node_is_refused_naming_it),
	        cmocka_unit_test(a_node_outside_the_cluster_exits_1_naming_the_failure),
	};

	return cli_main("test_faults_cli", tests, sizeof(tests) / sizeof(tests[0]));
}
