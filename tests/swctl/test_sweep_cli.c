/* SPDX-License-Identifier: MIT */
/*
 * swctl sweep as a user runs it: one CSV row per point, scheduler and job class with ratios
 * to the baseline at the same point, one replay directory per point, and bad grid values
 * refused before anything runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *mix(void)
{
	return cli_write_file("mix.jsonl", cli_small_mix);
}

static int is_dir(const char *out, const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", out, name);
	return cli_entries(path) > 0;
}

static void sweep_writes_a_row_per_point_scheduler_and_class_and_a_directory_per_point(void **state)
{
	const char *out = cli_path("one"), *m = mix();
	char csv[600];

	(void)state;
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,4,8", "--mix", m, "--warmup", "0",
	                         "--schedulers", "fair,delay,sw-fair", "--out", out, "--no-plot",
	                         "--quiet", NULL),
	                 0);
	assert_non_null(strstr(cli_out, "oversub=8"));
	snprintf(csv, sizeof(csv), "%s/sweep.csv", out);
	assert_int_equal(cli_lines(csv), 1 + 3 * 3 * 4);
	/* three point directories, sweep.csv and the two plot scripts */
	assert_int_equal(cli_entries(out), 6);
	assert_true(is_dir(out, "oversub=2"));
	assert_true(is_dir(out, "oversub=8"));
	/* results.json, results.csv, jobs.csv, three uplink-*.csv, uplink.gp, xrack.gp */
	snprintf(csv, sizeof(csv), "%s/oversub=4", out);
	assert_int_equal(cli_entries(csv), 8);
}

/* The 2 x 2 sweep of the listing test, run here (@p mode NULL), listed or collected. */
static int grid_2x2(const char *m, const char *out, const char *mode)
{
	return cli_run("sweep", "--param", "oversub=2,8", "--param", "seed=1,2", "--mix", m,
	               "--warmup", "0", "--schedulers", "fair,sw-fair", "--out", out, "--no-plot",
	               "--quiet", mode, NULL);
}

/* A sweep listed as one replay per point, run by a shell as GNU parallel or Slurm would, and
 * collected, writes the same sweep.csv and plot scripts as the sweep run here; a point that
 * has not run makes the collection fail naming it, and write nothing. */
static void listed_points_run_elsewhere_collect_into_the_local_sweeps_files(void **state)
{
	const char *m = mix(), *local = cli_path("local"), *remote = cli_path("remote");
	char cmd[1400], a[700], b[700];

	(void)state;
	assert_int_equal(grid_2x2(m, local, NULL), 0);
	assert_int_equal(grid_2x2(m, remote, "--list"), 0);
	snprintf(a, sizeof(a), "%s/points.txt", remote);
	assert_int_equal(cli_lines(a), 4);
	assert_int_equal(cli_entries(remote), 1); /* nothing ran */
	/* every point but the last: the collection must refuse the missing one */
	snprintf(cmd, sizeof(cmd), "head -n 3 '%s' | sh -e >/dev/null", a);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(grid_2x2(m, remote, "--collect"), 1);
	assert_non_null(strstr(cli_out, "point oversub=8,seed=2"));
	snprintf(b, sizeof(b), "%s/sweep.csv", remote);
	assert_int_equal(cli_lines(b), -1);
	snprintf(cmd, sizeof(cmd), "tail -n 1 '%s' | sh -e >/dev/null", a);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(grid_2x2(m, remote, "--collect"), 0);
	for (const char *const *f = (const char *const[]){"sweep.csv", "sweep-xrack.gp",
	                                                  "sweep-throughput.gp", NULL};
	     *f; f++) {
		snprintf(a, sizeof(a), "%s/%s", local, *f);
		snprintf(b, sizeof(b), "%s/%s", remote, *f);
		assert_true(cli_same_file(a, b));
	}
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,8", "--mix", m, "--out", remote,
	                         "--list", "--collect", NULL),
	                 2);
}

/* Checks every row of @p csv: the baseline's "all" rows have ratios of exactly 1. */
static void assert_baseline_ratios_are_one(const char *csv, const char *baseline, int want_rows)
{
	FILE *f = fopen(csv, "r");
	char line[1024], pattern[64];
	int rows = 0;

	assert_non_null(f);
	snprintf(pattern, sizeof(pattern), ",%s,all,", baseline);
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, pattern);

		if (!p)
			continue;
		/* the last five columns: throughput, turnaround, xrack, work throughput and
		 * xrack as the paper counts it, each against the baseline */
		for (int k = 0; k < 5; k++) {
			p = strrchr(line, ',');
			assert_non_null(p);
			assert_float_equal(strtod(p + 1, NULL), 1.0, 1e-9);
			*p = '\0';
		}
		rows++;
	}
	fclose(f);
	assert_int_equal(rows, want_rows);
}

static void baseline_ratios_are_one_at_every_point(void **state)
{
	const char *out = cli_path("base"), *m = mix();
	char csv[600];

	(void)state;
	assert_int_equal(cli_run("sweep", "--param", "map-completion-threshold=0,0.5,1", "--mix", m,
	                         "--warmup", "0", "--schedulers", "fair,sw-fair", "--baseline",
	                         "sw-fair", "--out", out, "--no-plot", "--quiet", NULL),
	                 0);
	snprintf(csv, sizeof(csv), "%s/sweep.csv", out);
	assert_baseline_ratios_are_one(csv, "sw-fair", 3);
}

static void bad_grid_value_is_refused_before_simulating_and_writes_nothing(void **state)
{
	const char *out = cli_path("bad"), *m = mix();

	(void)state;
	assert_int_equal(cli_run("sweep", "--param", "saturation-threshold=0.5,0.8,2", "--mix", m,
	                         "--out", out, "--quiet", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "saturation-threshold=2"));
	assert_null(strstr(cli_out, "results in"));
	assert_int_equal(cli_entries(out), 0);
	assert_int_equal(cli_run("sweep", "--param", "mix=mix1,mix7", "--out", out, NULL), 2);
	assert_non_null(strstr(cli_out, "mix7"));
	assert_int_equal(cli_entries(out), 0);
	assert_int_equal(cli_run("sweep", "--param", "speed=1,2", "--out", out, NULL), 2);
	assert_non_null(strstr(cli_out, "'speed' is not a replay option"));
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,4", "--oversub", "3", NULL), 2);
	assert_non_null(strstr(cli_out, "swept by --param"));
	assert_int_equal(cli_entries(out), 0);
}

static void two_parameter_grid_has_a_row_per_combination(void **state)
{
	const char *out = cli_path("two"), *m = mix();
	char csv[600];

	(void)state;
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,4", "--param",
	                         "map-completion-threshold=0.05,0.15,0.5", "--mix", m, "--warmup",
	                         "0", "--schedulers", "fair,sw-fair", "--out", out, "--no-plot",
	                         "--quiet", NULL),
	                 0);
	snprintf(csv, sizeof(csv), "%s/sweep.csv", out);
	assert_int_equal(cli_lines(csv), 1 + 2 * 3 * 2 * 4);
	assert_true(is_dir(out, "oversub=4,map-completion-threshold=0.05"));
	assert_baseline_ratios_are_one(csv, "fair", 6);
}

static void sweep_over_mix_files_plots_them_as_categories(void **state)
{
	const char *out = cli_path("mixes"), *a = cli_write_file("a.jsonl", cli_small_mix);
	char list[1200], png[600];

	(void)state;
	snprintf(list, sizeof(list), "mix=%s,%s", a, cli_write_file("b.jsonl", cli_small_mix));
	assert_int_equal(cli_run("sweep", "--param", list, "--warmup", "0", "--schedulers",
	                         "fair,delay", "--out", out, "--quiet", NULL),
	                 0);
	snprintf(png, sizeof(png), "%s/sweep-throughput.png", out);
	assert_int_equal(cli_lines(png) >= 0, 1);
	snprintf(png, sizeof(png), "%s/sweep-xrack.png", out);
	assert_int_equal(cli_lines(png) >= 0, 1);
	/* sweep.csv, two scripts, two plots, two point directories */
	assert_int_equal(cli_entries(out), 7);
}

/* One pool or several threads: which thread runs a simulation must not change its result. */
static void sweep_results_do_not_depend_on_the_number_of_threads(void **state)
{
	const char *one = cli_path("jobs1"), *two = cli_path("jobs2"), *m = mix();
	char a[600], b[600];

	(void)state;
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,4,8", "--mix", m, "--warmup", "0",
	                         "--schedulers", "fair,sw-fair", "--jobs", "1", "--out", one,
	                         "--no-plot", "--quiet", NULL),
	                 0);
	assert_int_equal(cli_run("sweep", "--param", "oversub=2,4,8", "--mix", m, "--warmup", "0",
	                         "--schedulers", "fair,sw-fair", "--jobs", "2", "--out", two,
	                         "--no-plot", "--quiet", NULL),
	                 0);
	snprintf(a, sizeof(a), "%s/sweep.csv", one);
	snprintf(b, sizeof(b), "%s/sweep.csv", two);
	assert_true(cli_same_file(a, b));
	snprintf(a, sizeof(a), "%s/oversub=4/jobs.csv", one);
	snprintf(b, sizeof(b), "%s/oversub=4/jobs.csv", two);
	assert_true(cli_same_file(a, b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(
	                sweep_writes_a_row_per_point_scheduler_and_class_and_a_directory_per_point),
	        cmocka_unit_test(baseline_ratios_are_one_at_every_point),
	        cmocka_unit_test(bad_grid_value_is_refused_before_simulating_and_writes_nothing),
	        cmocka_unit_test(two_parameter_grid_has_a_row_per_combination),
	        cmocka_unit_test(sweep_over_mix_files_plots_them_as_categories),
	        cmocka_unit_test(sweep_results_do_not_depend_on_the_number_of_threads),
	        cmocka_unit_test(listed_points_run_elsewhere_collect_into_the_local_sweeps_files),
	};

	return cli_main("swctl_sweep_cli", tests, sizeof(tests) / sizeof(tests[0]));
}
