/* SPDX-License-Identifier: MIT */
/*
 * swctl replay as a user runs it: the real binary in a child process, on small mixes written
 * into a private directory. Checks the command-line contract: results appear complete or not
 * at all, bad input is named by file, line and field with a non-zero exit, and two runs of one
 * mix write the same bytes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>

#include "cli.h"

static void replay_writes_every_result_file_and_no_temporary_one(void **state)
{
	const char *mix = cli_write_file("good.jsonl", cli_small_mix), *res = cli_path("res");

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair,delay", "--warmup",
	                         "0", "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	assert_non_null(strstr(cli_out, "all jobs"));
	assert_non_null(strstr(cli_out, "heavy jobs"));
	assert_non_null(strstr(cli_out, "each window job against the same job under fair"));
	/* results.json, results.csv, jobs.csv, uplink-fair.csv, uplink-delay.csv, uplink.gp,
	 * xrack.gp */
	assert_int_equal(cli_entries(res), 7);
}

/* Column @p col of the results.csv row starting "@p row," in @p csv. */
static double csv_value(const char *csv, const char *row, const char *col)
{
	FILE *f = fopen(csv, "r");
	char line[1024], *field, *save;
	int want = -1, i = 0;
	double v = -1;

	assert_non_null(f);
	assert_non_null(fgets(line, sizeof(line), f));
	for (field = strtok_r(line, ",\n", &save); field; field = strtok_r(NULL, ",\n", &save), i++)
		if (!strcmp(field, col))
			want = i;
	assert_true(want >= 0);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, row, strlen(row)) && line[strlen(row)] == ',') {
			i = 0;
			for (field = strtok_r(line, ",\n", &save); field && i < want;
			     field = strtok_r(NULL, ",\n", &save))
				i++;
			assert_non_null(field);
			v = strtod(field, NULL);
		}
	fclose(f);
	return v;
}

static void results_give_the_papers_traffic_and_a_work_weighted_throughput(void **state)
{
	const char *mix = cli_write_file("paper.jsonl", cli_small_mix), *res = cli_path("paper");
	char csv[600];
	double done, jobs_h, work_h;

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair,sw-fair", "--warmup",
	                         "0", "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	assert_non_null(strstr(cli_out, "task-h/h"));
	assert_non_null(strstr(cli_out, "shuf+in"));
	snprintf(csv, sizeof(csv), "%s/results.csv", res);
	for (int k = 0; k < 2; k++) {
		const char *all = k ? "sw-fair,all" : "fair,all";
		const char *light = k ? "sw-fair,light" : "fair,light";

		/* the paper's cross-rack traffic: shuffle and remote map input, no replica writes
		 */
		assert_float_equal(csv_value(csv, all, "xrack_paper_bytes"),
		                   csv_value(csv, all, "xrack_shuffle_bytes") +
		                           csv_value(csv, all, "xrack_map_input_bytes"),
		                   0.5);
		/* The window is the 60 s of arrivals; only grep finishes in it: 2 GB of maps at
		 * 30 MB/s and 2 MB of shuffle at 30 MB/s, 66.73 task-s, whatever the network. */
		done = csv_value(csv, light, "completed");
		jobs_h = csv_value(csv, light, "jobs_per_hour");
		work_h = csv_value(csv, light, "work_task_h_per_hour");
		assert_float_equal(done, 1, 0);
		assert_float_equal(work_h / jobs_h * done * 3600, 66.73, 0.2);
		assert_float_equal(csv_value(csv, all, "work_task_h_per_hour"), work_h, 0);
	}
	assert_float_equal(csv_value(csv, "fair,all", "work_throughput_vs_baseline"), 1, 0);
	assert_float_equal(csv_value(csv, "fair,all", "xrack_paper_vs_baseline"), 1, 0);
}

static void model_options_reach_every_job(void **state)
{
	const char *mix = cli_write_file("model.jsonl", cli_small_mix), *res = cli_path("model");
	char csv[600];
	double grep_s;

	(void)state;
	snprintf(csv, sizeof(csv), "%s/jobs.csv", res);
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair", "--warmup", "0",
	                         "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	grep_s = csv_value(csv, "fair,2", "turnaround_s");
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair", "--warmup", "0",
	                         "--reduces", "3", "--compute-scale", "2", "--placement", "rack",
	                         "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	for (int k = 1; k <= 3; k++) {
		char row[16];

		snprintf(row, sizeof(row), "fair,%d", k);
		assert_float_equal(csv_value(csv, row, "reduces"), 3, 0);
	}
	/* grep runs alone: 2 GB of maps at 30 MB/s on 6 nodes' 12 slots, twice as long */
	assert_true(csv_value(csv, "fair,2", "turnaround_s") > 1.8 * grep_s);
}

static void starvation_window_as_a_multiple_of_the_baselines_mean_completion(void **state)
{
	const char *mix = cli_write_file("window.jsonl", cli_small_mix);

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair,sw-fair", "--warmup",
	                         "0", "--starvation-window", "2x", "--out", cli_path("window"),
	                         "--no-plot", "--quiet", NULL),
	                 0);
	/* the two window jobs under Fair: grep 8.1 s and selfjoin 85.9 s, mean 47.0 s */
	assert_non_null(strstr(cli_out, "starvation window 2 x 47 s (mean completion under "
	                                "fair) = 94 s"));
	assert_int_equal(cli_run("replay", "--starvation-window", "x", NULL), 2);
	assert_non_null(strstr(cli_out, "expected seconds or Kx"));
}

/* A small paper mix: each probe replays Delay in a fraction of a second. */
static void calibrate_brackets_the_load_where_delay_stops_keeping_up(void **state)
{
	const char *mix = cli_write_file("cal.jsonl", cli_small_mix);
	char *last;

	(void)state;
	assert_int_equal(cli_run("calibrate", "--duration", "0.5", "--warmup", "0.1",
	                         "--size-scale", "0.05", "--quiet", NULL),
	                 0);
	assert_non_null(strstr(cli_out, "under the baseline"));
	assert_non_null(strstr(cli_out, "falls behind"));
	last = strstr(cli_out, "the cluster is used maximally at --interarrival ");
	assert_non_null(last);
	/* the answer is the shortest inter-arrival that kept up */
	assert_true(strtod(last + strlen("the cluster is used maximally at --interarrival "),
	                   NULL) > 0);
	assert_int_equal(cli_run("calibrate", "--mix", mix, NULL), 2);
	assert_non_null(strstr(cli_out, "a JSON Lines mix has its arrival times"));
}

static void two_replays_of_one_mix_write_identical_results(void **state)
{
	const char *mix = cli_write_file("same.jsonl", cli_small_mix);
	const char *a = cli_path("a"), *b = cli_path("b");
	char fa[640], fb[640];

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--warmup", "0", "--out", a, "--no-plot",
	                         "--quiet", NULL),
	                 0);
	assert_int_equal(cli_run("replay", "--mix", mix, "--warmup", "0", "--out", b, "--no-plot",
	                         "--quiet", NULL),
	                 0);
	for (const char *const *f =
	             (const char *const[]){"results.csv", "jobs.csv", "uplink-sw-fair.csv", NULL};
	     *f; f++) {
		snprintf(fa, sizeof(fa), "%s/%s", a, *f);
		snprintf(fb, sizeof(fb), "%s/%s", b, *f);
		assert_true(cli_same_file(fa, fb));
	}
}

/* The paper's measures side by side, here the exact network against its quantum; results
 * written before those columns existed still compare, without them. */
static void compare_shows_the_papers_measures_and_reads_older_results(void **state)
{
	const char *mix = cli_write_file("cmp.jsonl", cli_small_mix);
	const char *a = cli_path("a"), *b = cli_path("b"), *old = cli_path("c");
	char csv[640];
	FILE *f;

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--warmup", "0", "--out", a, "--no-plot",
	                         "--quiet", "--schedulers", "fair,sw-fair", NULL),
	                 0);
	assert_int_equal(cli_run("replay", "--mix", mix, "--warmup", "0", "--out", b, "--no-plot",
	                         "--quiet", "--schedulers", "fair,sw-fair", "--net-quantum", "1",
	                         NULL),
	                 0);
	assert_int_equal(cli_run("compare", a, b, NULL), 0);
	assert_non_null(strstr(cli_out, "work_task_h_per_hour"));
	assert_non_null(strstr(cli_out, "xrack_paper_bytes"));
	assert_non_null(strstr(cli_out, "xrack_paper_vs_baseline"));
	assert_non_null(strstr(cli_out, "sw-fair all"));
	assert_int_equal(mkdir(old, 0700), 0);
	snprintf(csv, sizeof(csv), "%s/results.csv", old);
	f = fopen(csv, "w");
	assert_non_null(f);
	fputs("scheduler,class,jobs_per_hour,turnaround_mean_s,xrack_shuffle_bytes,"
	      "xrack_map_input_bytes,xrack_output_bytes,xrack_total_bytes,throughput_vs_baseline,"
	      "turnaround_vs_baseline,xrack_vs_baseline\nfair,all,12,50,100,20,60,180,1,1,1\n",
	      f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(cli_run("compare", old, a, NULL), 0);
	assert_non_null(strstr(cli_out, "xrack_total_bytes"));
	assert_non_null(strstr(cli_out, "work_task_h_per_hour")); /* a has it */
	assert_int_equal(cli_run("compare", old, old, NULL), 0);
	assert_null(strstr(cli_out, "work_task_h_per_hour"));
	assert_non_null(strstr(cli_out, "jobs_per_hour"));
}

/* The report's lowest utility is the least share of its deadline a job had left when it
 * finished, (D - T) / D, negative for a late job: computed here from jobs.csv. */
static void the_lowest_utility_is_the_least_share_of_a_deadline_left(void **state)
{
	const char *mix = cli_write_file("util.jsonl", cli_small_mix), *res = cli_path("util");
	const char *row;
	char csv[600], key[16];
	double least = INFINITY, printed;
	unsigned jobs, met, missed;

	(void)state;
	snprintf(csv, sizeof(csv), "%s/jobs.csv", res);
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fifo", "--baseline",
	                         "fifo", "--warmup", "0", "--deadline-factor", "1.2:1.2", "--out",
	                         res, "--no-plot", NULL),
	                 0);
	/* the window ends at the last arrival: jobs 1 and 2 */
	for (int job = 1; job <= 2; job++) {
		double submitted, deadline, finish, left;

		snprintf(key, sizeof(key), "fifo,%d", job);
		submitted = csv_value(csv, key, "submitted_s");
		deadline = csv_value(csv, key, "deadline_s");
		finish = csv_value(csv, key, "finish_s");
		assert_true(deadline > submitted);
		left = 100 * (deadline - finish) / (deadline - submitted);
		if (left < least)
			least = left;
	}
	row = strstr(cli_out, "lowest utility");
	assert_non_null(row);
	row = strstr(row, "\nfifo ");
	assert_non_null(row);
	assert_int_equal(
	        sscanf(row + 6, "%u %u %u %*u %*f%% %*f%% %lf%%", &jobs, &met, &missed, &printed),
	        4);
	assert_int_equal(jobs, 2);
	assert_true(missed > 0 && met > 0); /* both signs: the least is a late job's */
	assert_float_equal(printed, least, 0.051);
}

/* Length of the line starting at @p line. */
static size_t line_length(const char *line)
{
	const char *end = strchr(line, '\n');

	return end ? (size_t)(end - line) : strlen(line);
}

/* The @p rows lines after the header that follows @p title in cli_out are as long as it. */
static void assert_rows_in_columns(const char *title, int rows)
{
	const char *header = strstr(cli_out, title), *row;

	assert_non_null(header);
	header = strstr(header, "\nscheduler ");
	assert_non_null(header);
	row = ++header;
	for (int i = 0; i < rows; i++) {
		row = strchr(row, '\n');
		assert_non_null(row);
		row++;
		assert_int_equal(line_length(row), line_length(header));
	}
}

/* A scheduler name longer than the table's 12 columns widens the column: every row of a
 * table stays as long as its header, so each figure stands under its heading. */
static void the_scheduler_column_fits_the_longest_name(void **state)
{
	const char *mix = cli_write_file("wide.jsonl", cli_small_mix), *res = cli_path("wide");

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fifo,reverse-adaptive",
	                         "--baseline", "fifo", "--warmup", "0", "--deadline-factor",
	                         "1.2:1.2", "--out", res, "--no-plot", NULL),
	                 0);
	assert_non_null(strstr(cli_out, "\nreverse-adaptive "));
	assert_rows_in_columns("all jobs:", 2);
	assert_rows_in_columns("deadlines of the window's jobs", 2);
}

/* --time-scale stretches a .jsonl mix's arrivals, --deadline-factor draws deadlines from each
 * job's time alone, --transactional takes a share of every node's slots; bad values are
 * refused naming the option or the file's line. */
static void deadline_and_transactional_options_reach_the_replay(void **state)
{
	const char *mix = cli_write_file("tx.jsonl", cli_small_mix), *res = cli_path("tx");
	const char *half = cli_write_file("half.csv", "0,0.5\n");
	const char *bad = cli_write_file("bad.csv", "0,0.5\n10,2\n");
	char csv[600];
	double grep_s, at, deadline;

	(void)state;
	snprintf(csv, sizeof(csv), "%s/jobs.csv", res);
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fifo", "--baseline",
	                         "fifo", "--warmup", "0", "--out", res, "--no-plot", "--quiet",
	                         NULL),
	                 0);
	grep_s = csv_value(csv, "fifo,2", "turnaround_s");
	assert_float_equal(csv_value(csv, "fifo,2", "deadline_s"), 0, 0);
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fifo", "--baseline",
	                         "fifo", "--warmup", "0", "--time-scale", "2", "--deadline-factor",
	                         "2:2", "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	at = csv_value(csv, "fifo,2", "arrival_s");
	deadline = csv_value(csv, "fifo,2", "deadline_s");
	assert_float_equal(at, 60, 0);
	assert_true(deadline > at);
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fifo,reverse-adaptive",
	                         "--baseline", "fifo", "--warmup", "0", "--transactional", half,
	                         "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	/* grep's maps ran on half the slots */
	assert_true(csv_value(csv, "fifo,2", "turnaround_s") > 1.5 * grep_s);
	assert_int_equal(cli_run("replay", "--mix", mix, "--transactional", bad, "--out", res,
	                         "--quiet", NULL),
	                 1);
	assert_non_null(strstr(cli_out, ":2: field 'share': must be in [0, 1]"));
	assert_int_equal(cli_run("replay", "--deadline-factor", "3:2", NULL), 2);
	assert_non_null(strstr(cli_out, "--deadline-factor 3:2: expected LO:HI"));
}

/* --timeline on: tasks.csv has one row per task of every job under every scheduler, and each
 * scheduler's running tasks per job and the plot script come with it; a bad value is refused. */
static void timeline_lists_every_task_of_every_job(void **state)
{
	const char *mix = cli_write_file("tl.jsonl", cli_small_mix), *res = cli_path("tl");
	char jobs[600], tasks[600];
	double n = 0;

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair,fifo", "--warmup",
	                         "0", "--timeline", "on", "--out", res, "--no-plot", "--quiet",
	                         NULL),
	                 0);
	/* the 7 files of a replay, tasks.csv, running-fair.csv, running-fifo.csv, tasks.gp */
	assert_int_equal(cli_entries(res), 11);
	snprintf(jobs, sizeof(jobs), "%s/jobs.csv", res);
	snprintf(tasks, sizeof(tasks), "%s/tasks.csv", res);
	for (int id = 1; id <= 3; id++) {
		char row[16];

		snprintf(row, sizeof(row), "fair,%d", id);
		n += csv_value(jobs, row, "maps") + csv_value(jobs, row, "reduces");
	}
	assert_true(n > 3);
	assert_int_equal(cli_lines(tasks), 1 + 2 * (int)n);
	assert_int_equal(cli_run("replay", "--mix", mix, "--timeline", "yes", NULL), 2);
	assert_non_null(strstr(cli_out, "--timeline yes: expected one of off on"));
}

static void bad_mix_names_file_line_and_field_exits_1_and_writes_nothing(void **state)
{
	const char *mix = cli_write_file(
	        "negative.jsonl", "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": "
	                          "\"grep\", \"input_bytes\": 1000}}\n"
	                          "{\"job\": {\"id\": 2, \"arrival\": 1, \"user\": 0, \"bench\": "
	                          "\"grep\", \"input_bytes\": -5}}\n");
	const char *res = cli_path("bad-res");
	char want[600];

	(void)state;
	assert_int_equal(
	        cli_run("replay", "--mix", mix, "--out", res, "--no-plot", "--quiet", NULL), 1);
	snprintf(want, sizeof(want), "%s:2:", mix);
	assert_non_null(strstr(cli_out, want));
	assert_non_null(strstr(cli_out, "input_bytes"));
	assert_int_equal(cli_entries(res), 0);
}

static void unknown_benchmark_in_a_mix_is_named(void **state)
{
	const char *mix = cli_write_file("bench.jsonl", "{\"job\": {\"id\": 1, \"arrival\": 0, "
	                                                "\"user\": 0, \"bench\": \"sortt\", "
	                                                "\"input_bytes\": 1000}}\n");

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--out", cli_path("r2"), "--quiet", NULL),
	                 1);
	assert_non_null(strstr(cli_out, ":1:"));
	assert_non_null(strstr(cli_out, "sortt"));
	assert_int_equal(cli_entries(cli_path("r2")), 0);
}

static void truncated_swim_trace_is_named_by_line(void **state)
{
	const char *trace = cli_write_file("cut.tsv", "job0\t10\t10\t1000\t2000\t300\n"
	                                              "job1\t20\t10\t1000");

	(void)state;
	assert_int_equal(
	        cli_run("replay", "--mix", trace, "--out", cli_path("r3"), "--quiet", NULL), 1);
	assert_non_null(strstr(cli_out, ":2:"));
	assert_int_equal(cli_entries(cli_path("r3")), 0);
}

static void missing_mix_file_is_named(void **state)
{
	const char *missing = cli_path("nowhere.jsonl");

	(void)state;
	assert_int_equal(
	        cli_run("replay", "--mix", missing, "--out", cli_path("r4"), "--quiet", NULL), 1);
	assert_non_null(strstr(cli_out, missing));
}

static void unknown_scheduler_or_baseline_is_refused_before_running(void **state)
{
	(void)state;
	assert_int_equal(cli_run("replay", "--schedulers", "fair,fastest", NULL), 2);
	assert_non_null(strstr(cli_out, "unknown scheduler 'fastest'"));
	assert_int_equal(cli_run("replay", "--schedulers", "fifo,drf", "--baseline", "fair", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "--baseline fair"));
	assert_int_equal(cli_run("replay", "--duration", "-3", NULL), 2);
	assert_non_null(strstr(cli_out, "--duration"));
}

static void jobs_per_user_sets_users_from_the_steady_state_window(void **state)
{
	(void)state;
	/* 0.4 h of window at one job per 40 s is 36 jobs: one each for 36 users. */
	assert_int_equal(cli_run("replay", "--jobs-per-user", "1", "--duration", "0.5", "--warmup",
	                         "0.1", "--schedulers", "fair", "--out", cli_path("jpu"),
	                         "--no-plot", "--quiet", NULL),
	                 0);
	assert_non_null(strstr(cli_out, " 36 users;"));
	assert_int_equal(cli_run("replay", "--jobs-per-user", "4", "--users", "10", NULL), 2);
	assert_non_null(strstr(cli_out, "replaces --users"));
}

static void thresholds_outside_their_range_are_refused(void **state)
{
	(void)state;
	assert_int_equal(cli_run("replay", "--saturation-threshold", "0", NULL), 2);
	assert_non_null(strstr(cli_out, "--saturation-threshold"));
	assert_int_equal(cli_run("replay", "--map-completion-threshold", "1.5", NULL), 2);
	assert_non_null(strstr(cli_out, "--map-completion-threshold"));
	assert_int_equal(cli_run("replay", "--ratio-history", "maybe", NULL), 2);
	assert_non_null(strstr(cli_out, "--ratio-history maybe: expected one of off on"));
	assert_int_equal(cli_run("replay", "--reduces", "0", NULL), 2);
	assert_non_null(strstr(cli_out, "--reduces 0: expected a whole number from 1 to 65536"));
	assert_int_equal(cli_run("replay", "--placement", "striped", NULL), 2);
	assert_non_null(strstr(cli_out, "--placement striped: expected one of random rack"));
	assert_int_equal(cli_run("replay", "--compute-scale", "0", NULL), 2);
	assert_non_null(strstr(cli_out, "--compute-scale 0: expected a number >= 0.001"));
	assert_int_equal(cli_run("replay", "--contention", "yes", NULL), 2);
	assert_non_null(strstr(cli_out, "--contention yes: expected one of off on"));
	assert_int_equal(cli_run("replay", "--slots-only", "1", NULL), 2);
	assert_non_null(strstr(cli_out, "--slots-only 1: expected one of off on"));
	assert_int_equal(cli_run("replay", "--copy-memory", "half", NULL), 2);
	assert_non_null(strstr(cli_out, "--copy-memory half: expected one of reduce none"));
	assert_int_equal(cli_run("replay", "--aria-bound", "mean", NULL), 2);
	assert_non_null(strstr(cli_out, "--aria-bound mean: expected one of low avg up"));
}

/* One job, or jobs that all arrive at once, leave no steady-state window even with --warmup 0:
 * the replay measures every job instead and says so, rather than failing after loading. */
static void a_mix_without_a_steady_state_window_is_measured_whole_and_says_so(void **state)
{
	const char *one = cli_write_file(
	        "one.jsonl", "{\"job\": {\"id\": 1, \"arrival\": 30, \"user\": 0, \"bench\": "
	                     "\"grep\", \"input_bytes\": 100000000}}\n");
	const char *res = cli_path("one-res"), *json = cli_path("one-res/results.json");
	char cmd[700];

	(void)state;
	for (const char *const *w = (const char *const[]){"0", "1", NULL}; *w; w++) {
		assert_int_equal(cli_run("replay", "--mix", one, "--schedulers", "fair,sw-fair",
		                         "--warmup", *w, "--out", res, "--no-plot", "--quiet",
		                         NULL),
		                 0);
		assert_non_null(strstr(cli_out, "no job arrived in the steady-state window"));
		assert_non_null(strstr(cli_out, "all jobs count"));
		assert_non_null(strstr(cli_out, "all jobs: 1 arrived in the window"));
	}
	snprintf(cmd, sizeof(cmd), "grep -q '\"window_all_jobs\": true' '%s'", json);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "grep -q '^fair,all,1,1,' '%s/results.csv'", res);
	assert_int_equal(system(cmd), 0);
}

/* --out is checked before anything runs: a run is never thrown away for want of a place to
 * write, and a file in the way is named rather than "Input/output error". */
static void an_out_that_cannot_hold_results_is_refused_before_running(void **state)
{
	const char *mix = cli_write_file("out.jsonl", cli_small_mix);
	const char *file = cli_write_file("in-the-way", "x\n");
	char under[600], exp[700];

	(void)state;
	snprintf(under, sizeof(under), "%s/sub/dir", file);
	assert_int_equal(cli_run("replay", "--mix", mix, "--out", file, "--quiet", NULL), 2);
	assert_non_null(strstr(cli_out, "in-the-way exists and is not a directory (checked before "
	                                "running)"));
	assert_null(strstr(cli_out, "replay of"));
	assert_int_equal(cli_run("replay", "--mix", mix, "--out", under, "--quiet", NULL), 2);
	assert_non_null(strstr(cli_out, "in-the-way exists and is not a directory"));
	assert_int_equal(cli_run("sweep", "--mix", mix, "--param", "oversub=2,4", "--out", file,
	                         "--quiet", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "exists and is not a directory (checked before running)"));
	snprintf(exp, sizeof(exp),
	         "{\"runs\": [{\"name\": \"a\", \"options\": {\"mix\": \"%s\"}}]}", mix);
	assert_int_equal(cli_run("experiment", cli_write_file("e.json", exp), "--out", file,
	                         "--quiet", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "exists and is not a directory (checked before running)"));
	assert_int_equal(cli_lines(file), 1);
}

/* A repeated scheduler or sweep value would run twice and write one directory: refused before
 * anything runs, with nothing written. */
static void a_scheduler_or_sweep_value_listed_twice_is_refused_before_running(void **state)
{
	const char *mix = cli_write_file("twice.jsonl", cli_small_mix), *res = cli_path("twice");

	(void)state;
	assert_int_equal(cli_run("replay", "--mix", mix, "--schedulers", "fair,sw-fair,fair",
	                         "--out", res, "--quiet", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "--schedulers: 'fair' is listed twice"));
	assert_int_equal(cli_run("sweep", "--mix", mix, "--param", "oversub=5,2,5", "--out", res,
	                         "--quiet", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "--param oversub: value '5' is listed twice"));
	assert_int_equal(cli_entries(res), 0);
}

/* Ctrl-C while the simulations run stops them: exit 130, a message, and no result directory.
 * A progress line (printed because stderr is a pipe, not a terminal) shows they had started. */
static void ctrl_c_during_a_replay_stops_it_and_writes_nothing(void **state)
{
	const char *res = cli_path("interrupted");
	const char *argv[] = {getenv("SWCTL"), "replay", "--schedulers", "fair",  "--jobs", "1",
	                      "--progress",    "0.001",  "--no-plot",    "--out", res,      NULL};
	char buf[8192];
	size_t len = 0;
	ssize_t n;
	int fds[2], status, signalled = 0;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (dup2(fds[1], 2) < 0 || !freopen("/dev/null", "w", stdout))
			_exit(126);
		close(fds[0]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += (size_t)n;
		buf[len] = '\0';
		if (!signalled && strstr(buf, "progress: ")) {
			assert_int_equal(kill(pid, SIGINT), 0);
			signalled = 1;
		}
		if (len == sizeof(buf) - 1)
			len = 0; /* keep reading: only the end matters */
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(signalled);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 130);
	assert_non_null(strstr(buf, "swctl replay: interrupted; nothing written"));
	assert_int_equal(cli_entries(res), 0);
}

static void help_lists_the_schedulers_and_the_cluster_each_mix_runs_on(void **state)
{
	(void)state;
	assert_int_equal(cli_run("replay", "--help", NULL), 0);
	assert_non_null(strstr(cli_out, "schedulers: fifo fair drf capacity delay sw-fair"));
	assert_non_null(strstr(cli_out, "SWIM traces on Facebook's:"));
	assert_non_null(strstr(cli_out, "30 racks x 20 nodes"));
	assert_non_null(strstr(cli_out, "--progress SEC"));
}

/* A mix may name a topology file only in its own directory; the user may name one anywhere
 * with --topology, and it replaces the mix's cluster. */
static void topology_outside_the_mix_directory_only_from_the_command_line(void **state)
{
	const char *mix;
	char topo[600], res[600], sub[600], text[900];

	(void)state;
	/* cli_path's buffers are reused: keep copies */
	snprintf(topo, sizeof(topo), "%s",
	         cli_write_file("cluster.json", "{\"racks\": 3, \"nodes_per_rack\": 2}"));
	snprintf(res, sizeof(res), "%s", cli_path("topo-res"));
	snprintf(sub, sizeof(sub), "%s", cli_path("mixes"));
	assert_int_equal(mkdir(sub, 0755), 0);
	snprintf(text, sizeof(text), "{\"topology\": \"../cluster.json\"}\n%s",
	         strchr(cli_small_mix, '\n') + 1);
	mix = cli_write_file("mixes/up.jsonl", text);
	assert_int_equal(cli_run("replay", "--mix", mix, "--out", res, "--quiet", NULL), 1);
	assert_non_null(strstr(cli_out, "up.jsonl:1: field 'topology': leaves the mix file's "
	                                "directory (give it with swctl's --topology)"));
	mix = cli_write_file("mixes/plain.jsonl", strchr(cli_small_mix, '\n') + 1);
	assert_int_equal(cli_run("replay", "--mix", mix, "--topology", topo, "--schedulers", "fair",
	                         "--out", res, "--no-plot", "--quiet", NULL),
	                 0);
	assert_non_null(strstr(cli_out, "3 racks x 2 nodes"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(replay_writes_every_result_file_and_no_temporary_one),
	        cmocka_unit_test(results_give_the_papers_traffic_and_a_work_weighted_throughput),
	        cmocka_unit_test(model_options_reach_every_job),
	        cmocka_unit_test(deadline_and_transactional_options_reach_the_replay),
	        cmocka_unit_test(the_lowest_utility_is_the_least_share_of_a_deadline_left),
	        cmocka_unit_test(the_scheduler_column_fits_the_longest_name),
	        cmocka_unit_test(starvation_window_as_a_multiple_of_the_baselines_mean_completion),
	        cmocka_unit_test(calibrate_brackets_the_load_where_delay_stops_keeping_up),
	        cmocka_unit_test(two_replays_of_one_mix_write_identical_results),
	        cmocka_unit_test(compare_shows_the_papers_measures_and_reads_older_results),
	        cmocka_unit_test(timeline_lists_every_task_of_every_job),
	        cmocka_unit_test(bad_mix_names_file_line_and_field_exits_1_and_writes_nothing),
	        cmocka_unit_test(unknown_benchmark_in_a_mix_is_named),
	        cmocka_unit_test(truncated_swim_trace_is_named_by_line),
	        cmocka_unit_test(missing_mix_file_is_named),
	        cmocka_unit_test(unknown_scheduler_or_baseline_is_refused_before_running),
	        cmocka_unit_test(jobs_per_user_sets_users_from_the_steady_state_window),
	        cmocka_unit_test(thresholds_outside_their_range_are_refused),
	        cmocka_unit_test(a_mix_without_a_steady_state_window_is_measured_whole_and_says_so),
	        cmocka_unit_test(an_out_that_cannot_hold_results_is_refused_before_running),
	        cmocka_unit_test(a_scheduler_or_sweep_value_listed_twice_is_refused_before_running),
	        cmocka_unit_test(ctrl_c_during_a_replay_stops_it_and_writes_nothing),
	        cmocka_unit_test(help_lists_the_schedulers_and_the_cluster_each_mix_runs_on),
	        cmocka_unit_test(topology_outside_the_mix_directory_only_from_the_command_line),
	};

	return cli_main("swctl_replay_cli", tests, sizeof(tests) / sizeof(tests[0]));
}
