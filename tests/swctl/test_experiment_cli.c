/* SPDX-License-Identifier: MIT */
/*
 * swctl experiment as a user runs it: a file with a replay and a sweep writes both runs'
 * directories and one comparison row per paper entry; a bad file is named by file and line,
 * by the path of the bad key, or by the run, before anything runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* An experiment on the small mix; %s is the mix's path. */
static const char *const experiment =
        "{\"description\": \"two runs\",\n"
        " \"defaults\": {\"mix\": \"%s\", \"warmup\": 0, \"schedulers\": \"fair,sw-fair\"},\n"
        " \"runs\": [\n"
        "  {\"name\": \"replay\", \"options\": {\"baseline\": \"sw-fair\"},\n"
        "   \"paper\": [{\"scheduler\": \"fair\", \"metric\": \"throughput\", \"value\": 1.0},\n"
        "             {\"scheduler\": \"fair\", \"class\": \"heavy\", \"metric\": "
        "\"xrack_shuffle\", \"value\": 0.5, \"note\": \"made up\"}]},\n"
        "  {\"name\": \"over\", \"sweep\": {\"oversub\": [2, 4, 8]},\n"
        "   \"paper\": [{\"scheduler\": \"sw-fair\", \"metric\": \"xrack\", \"value\": 0.9, "
        "\"at\": {\"oversub\": 4}},\n"
        "             {\"scheduler\": \"fair\", \"metric\": \"turnaround\", \"value\": 1.0, "
        "\"at\": {\"oversub\": 8}, \"baseline\": \"fair\"}]}\n"
        " ]}\n";

static const char *write_experiment(const char *name, const char *text)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), text, cli_write_file("mix.jsonl", cli_small_mix));
	return cli_write_file(name, buf);
}

static int has_line(const char *path, const char *want)
{
	char line[1024];
	FILE *f = fopen(path, "r");
	int found = 0;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want) == line;
	fclose(f);
	return found;
}

static void experiment_writes_each_run_and_a_comparison_row_per_paper_entry(void **state)
{
	const char *file = write_experiment("two.json", experiment), *out = cli_path("two");
	char path[700];

	(void)state;
	assert_int_equal(cli_run("experiment", file, "--out", out, "--no-plot", "--quiet", NULL),
	                 0);
	snprintf(path, sizeof(path), "%s/replay/results.csv", out);
	assert_int_equal(cli_lines(path), 1 + 2 * 4);
	snprintf(path, sizeof(path), "%s/over/sweep.csv", out);
	assert_int_equal(cli_lines(path), 1 + 3 * 2 * 4);
	snprintf(path, sizeof(path), "%s/over/oversub=8", out);
	assert_int_equal(cli_entries(path), 7);
	/* replay, over, comparison.csv, comparison.md */
	assert_int_equal(cli_entries(out), 4);
	snprintf(path, sizeof(path), "%s/comparison.csv", out);
	assert_int_equal(cli_lines(path), 1 + 4);
	assert_true(has_line(path, "replay,,fair,all,throughput,sw-fair,"));
	assert_true(has_line(path, "replay,,fair,heavy,xrack_shuffle,sw-fair,"));
	assert_true(has_line(path, "over,oversub=4,sw-fair,all,xrack,fair,"));
	/* a scheduler against itself: ratio 1, as the paper value says */
	assert_true(
	        has_line(path, "over,oversub=8,fair,all,turnaround,fair,1.0000,1.0000,0.0,no,"));
}

static void only_runs_the_named_runs_and_compares_those(void **state)
{
	const char *file = write_experiment("only.json", experiment), *out = cli_path("only");
	char path[700];

	(void)state;
	assert_int_equal(cli_run("experiment", file, "--out", out, "--only", "over", "--no-plot",
	                         "--quiet", NULL),
	                 0);
	/* over, comparison.csv, comparison.md */
	assert_int_equal(cli_entries(out), 3);
	snprintf(path, sizeof(path), "%s/comparison.csv", out);
	assert_int_equal(cli_lines(path), 1 + 2);
}

/* Runs made one at a time into one directory add up to the whole comparison, in file order. */
static void only_keeps_the_rows_of_the_runs_it_left_out(void **state)
{
	const char *file = write_experiment("keep.json", experiment), *out = cli_path("keep");
	char csv[700], md[700], first[1024];
	FILE *f;

	(void)state;
	assert_int_equal(cli_run("experiment", file, "--out", out, "--only", "over", "--no-plot",
	                         "--quiet", NULL),
	                 0);
	/* a table of someone's own below the comparison, its rows named like a run */
	snprintf(md, sizeof(md), "%s/comparison.md", out);
	f = fopen(md, "a");
	assert_non_null(f);
	fputs("\nBy hand:\n\n| over | oversub |\n|---|---|\n| over | by hand |\n", f);
	fclose(f);
	assert_int_equal(cli_run("experiment", file, "--out", out, "--only", "replay", "--no-plot",
	                         "--quiet", NULL),
	                 0);
	snprintf(csv, sizeof(csv), "%s/comparison.csv", out);
	assert_int_equal(cli_lines(csv), 1 + 4);
	assert_true(has_line(csv, "replay,,fair,all,throughput,sw-fair,"));
	assert_true(has_line(csv, "over,oversub=4,sw-fair,all,xrack,fair,"));
	assert_true(has_line(csv, "over,oversub=8,fair,all,turnaround,fair,1.0000,1.0000,0.0,no,"));
	f = fopen(csv, "r");
	assert_non_null(f);
	assert_non_null(fgets(first, sizeof(first), f));
	assert_non_null(fgets(first, sizeof(first), f));
	fclose(f);
	assert_int_equal(strncmp(first, "replay,", 7), 0);
	assert_true(has_line(md, "| over | oversub=8 | fair | all | turnaround | fair | 1.00 |"));
	assert_true(has_line(md, "| replay |  | fair | heavy | xrack_shuffle | sw-fair |"));
	assert_false(has_line(md, "| over | by hand |")); /* only the comparison's own rows */
	assert_false(has_line(md, "| over | oversub |"));
}

static void malformed_json_is_named_by_file_and_line(void **state)
{
	const char *file = cli_write_file("broken.json", "{\"runs\": [\n"
	                                                 "  {\"name\": \"a\"},\n"
	                                                 "  {\"name\": \"b\" \"options\": {}}\n"
	                                                 "]}\n");
	char want[600];

	(void)state;
	assert_int_equal(cli_run("experiment", file, "--out", cli_path("broken"), NULL), 2);
	snprintf(want, sizeof(want), "%s:3:", file);
	assert_non_null(strstr(cli_out, want));
	assert_int_equal(cli_entries(cli_path("broken")), 0);
}

static void unknown_key_is_named_by_its_path(void **state)
{
	const char *opt = cli_write_file(
	        "key.json", "{\"runs\": [{\"name\": \"a\"}, {\"name\": \"b\", \"options\": "
	                    "{\"oversub\": 2, \"foo\": 1}}]}");
	const char *run = cli_write_file("runkey.json", "{\"runs\": [{\"name\": \"a\", "
	                                                "\"sweeep\": {\"oversub\": [2]}}]}");
	const char *entry = cli_write_file(
	        "entry.json", "{\"runs\": [{\"name\": \"a\", \"paper\": [{\"scheduler\": \"fair\", "
	                      "\"metric\": \"throughput\", \"value\": 1, \"figure\": 8}]}]}");

	(void)state;
	assert_int_equal(cli_run("experiment", opt, "--out", cli_path("k"), NULL), 2);
	assert_non_null(strstr(cli_out, "runs[1].options.foo"));
	assert_int_equal(cli_run("experiment", run, "--out", cli_path("k"), NULL), 2);
	assert_non_null(strstr(cli_out, "runs[0].sweeep: unknown key"));
	assert_int_equal(cli_run("experiment", entry, "--out", cli_path("k"), NULL), 2);
	assert_non_null(strstr(cli_out, "runs[0].paper[0].figure: unknown key"));
	assert_int_equal(cli_entries(cli_path("k")), 0);
}

/* A mistake in the last run is reported before the first run starts. */
static void unknown_scheduler_in_a_run_is_refused_before_anything_runs(void **state)
{
	const char *file = write_experiment(
	        "sched.json",
	        "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0},\n"
	        " \"runs\": [{\"name\": \"fine\"},\n"
	        "  {\"name\": \"typo\", \"options\": {\"schedulers\": \"fair,sw-fiar\"}}]}");

	(void)state;
	assert_int_equal(cli_run("experiment", file, "--out", cli_path("s"), NULL), 2);
	assert_non_null(
	        strstr(cli_out, "runs[1] (typo): --schedulers: unknown scheduler 'sw-fiar'"));
	assert_null(strstr(cli_out, "== fine"));
	assert_int_equal(cli_entries(cli_path("s")), 0);
}

static void paper_entry_must_name_a_point_of_the_sweep(void **state)
{
	const char *file = write_experiment(
	        "at.json", "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0},\n"
	                   " \"runs\": [{\"name\": \"s\", \"sweep\": {\"oversub\": [2, 4]},\n"
	                   "  \"paper\": [{\"scheduler\": \"fair\", \"metric\": \"xrack\", "
	                   "\"value\": 1, \"at\": {\"oversub\": 3}}]}]}");

	(void)state;
	assert_int_equal(cli_run("experiment", file, "--out", cli_path("at"), NULL), 2);
	assert_non_null(strstr(cli_out, "runs[0].paper[0].at"));
	assert_int_equal(cli_entries(cli_path("at")), 0);
}

/* The row of comparison.csv @p path that begins with @p prefix into @p line, and its "ours",
 * the fifth field from the end (the note, last, is empty here); 0, or -1 when there is none. */
static int csv_ours(const char *path, const char *prefix, char *line, size_t len, double *ours)
{
	FILE *f = fopen(path, "r");
	int rc = -1;

	assert_non_null(f);
	while (rc && fgets(line, (int)len, f))
		if (strstr(line, prefix) == line) {
			char *c = line + strlen(line);

			for (int i = 0; i < 5; i++)
				while (*--c != ',')
					;
			*ours = strtod(c + 1, NULL);
			rc = 0;
		}
	fclose(f);
	return rc;
}

/* An entry whose "at" leaves out a swept seed is the median over the seeds, with their range;
 * leaving out any other swept option is still refused. */
static void entry_without_a_seed_is_the_median_over_the_seeds(void **state)
{
	/* a synthesised mix, since a seed draws its jobs and placement (a .jsonl mix's stay) */
	const char *file = cli_write_file(
	        "seeds.json",
	        "{\"defaults\": {\"mix\": \"mix2\", \"duration\": 0.1, \"size-scale\": 0.01, "
	        "\"warmup\": 0, \"schedulers\": \"fair,delay\"},\n"
	        " \"runs\": [{\"name\": \"s\", \"sweep\": {\"oversub\": [2, 4], \"seed\": [1, 2, "
	        "3]},\n"
	        "  \"paper\": [{\"scheduler\": \"delay\", \"metric\": \"xrack\", \"value\": 1, "
	        "\"at\": {\"oversub\": 4}},\n"
	        "   {\"scheduler\": \"delay\", \"metric\": \"xrack\", \"value\": 1, \"at\": "
	        "{\"oversub\": 4, \"seed\": 1}},\n"
	        "   {\"scheduler\": \"delay\", \"metric\": \"xrack\", \"value\": 1, \"at\": "
	        "{\"oversub\": 4, \"seed\": 2}},\n"
	        "   {\"scheduler\": \"delay\", \"metric\": \"xrack\", \"value\": 1, \"at\": "
	        "{\"oversub\": 4, \"seed\": 3}}]}]}");
	const char *bare = write_experiment(
	        "bare.json", "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0},\n"
	                     " \"runs\": [{\"name\": \"s\", \"sweep\": {\"oversub\": [2, 4], "
	                     "\"seed\": [1, 2]},\n"
	                     "  \"paper\": [{\"scheduler\": \"fair\", \"metric\": \"xrack\", "
	                     "\"value\": 1}]}]}");
	char out[600], path[700], line[1024], want[1100], prefix[64];
	double seed[3], median, lo, hi, t;

	(void)state;
	snprintf(out, sizeof(out), "%s", cli_path("seeds"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--no-plot", "--quiet", NULL),
	                 0);
	snprintf(path, sizeof(path), "%s/comparison.csv", out);
	assert_int_equal(cli_lines(path), 1 + 4);
	for (int i = 0; i < 3; i++) {
		snprintf(prefix, sizeof(prefix), "s,oversub=4,seed=%d,", i + 1);
		assert_int_equal(csv_ours(path, prefix, line, sizeof(line), &seed[i]), 0);
	}
	/* the seeds must differ for the median to be told from any one of them */
	assert_true(seed[0] != seed[1] || seed[1] != seed[2]);
	for (int i = 0; i < 2; i++) /* sort three */
		for (int k = 0; k < 2 - i; k++)
			if (seed[k] > seed[k + 1]) {
				t = seed[k];
				seed[k] = seed[k + 1];
				seed[k + 1] = t;
			}
	assert_int_equal(csv_ours(path, "s,oversub=4 median", line, sizeof(line), &median), 0);
	assert_true(fabs(median - seed[1]) < 1e-4);
	assert_int_equal(sscanf(line, "s,oversub=4 median of 3 seeds (%lf to %lf),", &lo, &hi), 2);
	assert_true(fabs(lo - seed[0]) < 6e-4 && fabs(hi - seed[2]) < 6e-4);
	*strchr(line + 2, ',') = '\0'; /* "s," and the point */
	snprintf(want, sizeof(want), "| s | %s | delay | all | xrack | fair |", line + 2);
	snprintf(path, sizeof(path), "%s/comparison.md", out);
	assert_true(has_line(path, want));

	assert_int_equal(cli_run("experiment", bare, "--out", cli_path("bare"), NULL), 2);
	assert_non_null(strstr(cli_out, "runs[0].paper[0]: missing \"at\""));
	assert_int_equal(cli_entries(cli_path("bare")), 0);
}

/* --collect compares the results DIR holds without running anything: the same rows as the
 * run that wrote them, to results.csv's rounding; a run not there is named, status 1. */
static void collect_compares_the_results_already_there(void **state)
{
	static const char *const rows[] = {"replay,,fair,all,throughput,sw-fair,",
	                                   "replay,,fair,heavy,xrack_shuffle,sw-fair,",
	                                   "over,oversub=4,sw-fair,all,xrack,fair,",
	                                   "over,oversub=8,fair,all,turnaround,fair,"};
	const char *file = write_experiment("collect.json", experiment);
	char out[600], empty[600], path[700], line[1024];
	double ran[4], read;

	(void)state;
	snprintf(out, sizeof(out), "%s", cli_path("collect"));
	snprintf(empty, sizeof(empty), "%s", cli_path("collect-empty"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--no-plot", "--quiet", NULL),
	                 0);
	snprintf(path, sizeof(path), "%s/comparison.csv", out);
	for (int i = 0; i < 4; i++)
		assert_int_equal(csv_ours(path, rows[i], line, sizeof(line), &ran[i]), 0);
	assert_int_equal(remove(path), 0);
	assert_int_equal(cli_run("experiment", file, "--out", out, "--collect", NULL), 0);
	assert_non_null(strstr(cli_out, "== over: 3 points read from"));
	assert_int_equal(cli_lines(path), 1 + 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(csv_ours(path, rows[i], line, sizeof(line), &read), 0);
		assert_true(fabs(read - ran[i]) < 1e-3);
	}
	assert_int_equal(cli_run("experiment", file, "--out", empty, "--collect", NULL), 1);
	assert_non_null(strstr(cli_out, "replay/results.csv"));
	assert_int_equal(cli_entries(empty), 0);
}

/* A terasort whose reducers crowd an 8:1 uplink: the network quantum changes its results (on
 * the small mix every link carries few flows, which share at once, so it changes nothing). */
static const char crowded_mix[] =
        "{\"topology\": {\"racks\": 2, \"nodes_per_rack\": 16, \"nic_bps\": 1e9, \"oversub\": 8}}\n"
        "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": \"terasort\", "
        "\"input_bytes\": 8000000000}}\n"
        "{\"job\": {\"id\": 2, \"arrival\": 30, \"user\": 1, \"bench\": \"grep\", "
        "\"input_bytes\": 2000000000}}\n";

/* swctl replay of @p mix as the network tests' experiment files run it (fair and sw-fair, no
 * warm-up) with replay option @p opt set to @p value, into @p out: swctl's exit status. */
static int replay_with(const char *mix, const char *opt, const char *value, const char *out)
{
	return cli_run("replay", "--mix", mix, "--warmup", "0", "--schedulers", "fair,sw-fair", opt,
	               value, "--out", out, "--no-plot", "--quiet", NULL);
}

/* Writes experiment file @p name: one run "a" of @p mix under fair and sw-fair, no warm-up,
 * with the further defaults @p more (JSON members); returns its path (a cli_path). */
static const char *one_run_experiment(const char *name, const char *mix, const char *more)
{
	char text[1024];

	snprintf(text, sizeof(text),
	         "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0, \"schedulers\": "
	         "\"fair,sw-fair\", %s},\n \"runs\": [{\"name\": \"a\"}]}",
	         mix, more);
	return cli_write_file(name, text);
}

/* --net-quantum runs every run with the quantum, over the file's own setting: each run gives
 * what swctl replay gives with that quantum, which on this mix is not the exact network's. */
static void net_quantum_applies_to_every_run(void **state)
{
	char file[600], mix[600], out[600], exact[600], quantum[600], a[700], b[700], path[700];
	char text[1024];

	(void)state;
	/* cli_path() keeps four paths at a time */
	snprintf(mix, sizeof(mix), "%s", cli_write_file("crowded.jsonl", crowded_mix));
	snprintf(text, sizeof(text),
	         "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0, \"schedulers\": "
	         "\"fair,sw-fair\", \"net-quantum\": 0},\n"
	         " \"runs\": [{\"name\": \"a\"}, {\"name\": \"b\", \"options\": "
	         "{\"net-quantum\": 0.5}}]}",
	         mix);
	snprintf(file, sizeof(file), "%s", cli_write_file("quantum.json", text));
	snprintf(out, sizeof(out), "%s", cli_path("q"));
	snprintf(exact, sizeof(exact), "%s", cli_path("exact"));
	snprintf(quantum, sizeof(quantum), "%s", cli_path("quantum"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--net-quantum", "1",
	                         "--no-plot", "--quiet", NULL),
	                 0);
	assert_int_equal(replay_with(mix, "--net-quantum", "0", exact), 0);
	assert_int_equal(replay_with(mix, "--net-quantum", "1", quantum), 0);
	snprintf(a, sizeof(a), "%s/a/results.csv", out);
	snprintf(b, sizeof(b), "%s/b/results.csv", out);
	snprintf(path, sizeof(path), "%s/results.csv", quantum);
	assert_true(cli_same_file(a, path));
	assert_true(cli_same_file(b, path));
	snprintf(path, sizeof(path), "%s/results.csv", exact);
	assert_false(cli_same_file(a, path));
	snprintf(path, sizeof(path), "%s/comparison.md", out);
	assert_true(has_line(path, "Every run with the network quantum of 1 s"));
}

/* A quantum out of range, or one a run sweeps, is refused before anything runs. */
static void net_quantum_out_of_range_or_swept_is_refused(void **state)
{
	char file[600], swept[600], bad[600];

	(void)state;
	snprintf(file, sizeof(file), "%s", write_experiment("two-q.json", experiment));
	snprintf(swept, sizeof(swept), "%s",
	         write_experiment("swept.json",
	                          "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0},\n"
	                          " \"runs\": [{\"name\": \"s\", \"sweep\": {\"net-quantum\": "
	                          "[0, 1]}}]}"));
	snprintf(bad, sizeof(bad), "%s", cli_path("bad"));
	assert_int_equal(cli_run("experiment", file, "--out", bad, "--net-quantum", "11", NULL), 2);
	assert_non_null(strstr(cli_out, "swctl experiment: --net-quantum 11: must be at most 10"));
	assert_int_equal(cli_run("experiment", file, "--out", bad, "--net-quantum", "-1", NULL), 2);
	assert_non_null(strstr(cli_out, "--net-quantum -1: expected a number >= 0"));
	assert_int_equal(cli_run("experiment", swept, "--out", bad, "--net-quantum", "1", NULL), 2);
	assert_non_null(strstr(cli_out,
	                       "runs[0].sweep.net-quantum: swept, so --net-quantum cannot set it"));
	assert_int_equal(cli_entries(bad), 0);
}

/* --net-model runs every run with the model, over the file's own setting, as swctl replay
 * does with it (not as the exact model does on this mix); a model it does not know, or one a
 * run sweeps, is refused before anything runs. */
static void net_model_applies_to_every_run_unless_bad_or_swept(void **state)
{
	char file[600], mix[600], out[600], rack[600], a[700], path[700], text[1024];

	(void)state;
	snprintf(mix, sizeof(mix), "%s", cli_write_file("crowded-m.jsonl", crowded_mix));
	snprintf(file, sizeof(file), "%s",
	         one_run_experiment("model.json", mix, "\"net-model\": \"flow\""));
	snprintf(out, sizeof(out), "%s", cli_path("m"));
	snprintf(rack, sizeof(rack), "%s", cli_path("rack"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--net-model", "rack",
	                         "--no-plot", "--quiet", NULL),
	                 0);
	assert_int_equal(replay_with(mix, "--net-model", "rack", rack), 0);
	snprintf(a, sizeof(a), "%s/a/results.csv", out);
	snprintf(path, sizeof(path), "%s/results.csv", rack);
	assert_true(cli_same_file(a, path));
	snprintf(path, sizeof(path), "%s/comparison.md", out);
	assert_true(has_line(path, "Every run with the rack network model"));

	snprintf(out, sizeof(out), "%s", cli_path("m-bad"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--net-model", "star", NULL), 2);
	assert_non_null(strstr(cli_out, "swctl experiment: --net-model star: expected one of"));
	snprintf(text, sizeof(text),
	         "{\"defaults\": {\"mix\": \"%s\", \"warmup\": 0},\n"
	         " \"runs\": [{\"name\": \"s\", \"sweep\": {\"net-model\": "
	         "[\"flow\", \"rack\"]}}]}",
	         mix);
	snprintf(file, sizeof(file), "%s", cli_write_file("model-swept.json", text));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--net-model", "rack", NULL), 2);
	assert_non_null(
	        strstr(cli_out, "runs[0].sweep.net-model: swept, so --net-model cannot set it"));
	assert_int_equal(cli_entries(out), 0);
}

/* A terasort whose maps take waves on eight nodes, so its reducers fetch while maps run: rack
 * fetches of at least 64 MiB change its replay where 1 MiB does not. */
static const char waves_mix[] =
        "{\"topology\": {\"racks\": 2, \"nodes_per_rack\": 4, \"nic_bps\": 1e9, \"oversub\": 8}}\n"
        "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": \"terasort\", "
        "\"input_bytes\": 32000000000}}\n";

/* --rack-fetch-min runs every run with those rack fetches, over the file's own setting, as
 * swctl replay does with it (not as the file's 0 does on this mix); a bad value is refused in
 * replay's words before anything runs. */
static void rack_fetch_min_applies_to_every_run(void **state)
{
	char file[600], mix[600], out[600], ref[600], a[700], path[700];

	(void)state;
	snprintf(mix, sizeof(mix), "%s", cli_write_file("waves.jsonl", waves_mix));
	snprintf(file, sizeof(file), "%s",
	         one_run_experiment("fetch-min.json", mix,
	                            "\"net-model\": \"rack\", \"rack-fetch-min\": 0"));
	snprintf(out, sizeof(out), "%s", cli_path("f"));
	snprintf(ref, sizeof(ref), "%s", cli_path("f-ref"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--rack-fetch-min", "67108864",
	                         "--no-plot", "--quiet", NULL),
	                 0);
	assert_int_equal(cli_run("replay", "--mix", mix, "--warmup", "0", "--schedulers",
	                         "fair,sw-fair", "--net-model", "rack", "--rack-fetch-min",
	                         "67108864", "--out", ref, "--no-plot", "--quiet", NULL),
	                 0);
	snprintf(a, sizeof(a), "%s/a/results.csv", out);
	snprintf(path, sizeof(path), "%s/results.csv", ref);
	assert_true(cli_same_file(a, path));
	assert_int_equal(replay_with(mix, "--net-model", "rack", ref), 0);
	assert_false(cli_same_file(a, path));
	snprintf(path, sizeof(path), "%s/comparison.md", out);
	assert_true(has_line(path, "Every run with rack fetches of at least 67108864 bytes"));

	snprintf(out, sizeof(out), "%s", cli_path("f-bad"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--rack-fetch-min", "-5", NULL),
	                 2);
	assert_non_null(strstr(cli_out, "swctl experiment: --rack-fetch-min -5"));
	assert_int_equal(cli_entries(out), 0);
}

/* "calibrate": each seed of the sweep runs at the load swctl calibrate finds for that seed (on
 * this small mix seeds 1 and 2 calibrate to different rates, so one rate for both fails), and
 * the point is then the replay at that rate; a calibrated run that sweeps the load, or replays a
 * JSON Lines mix, or says anything but true or false, is refused before anything runs. */
static void calibrate_runs_each_seed_at_its_own_load(void **state)
{
	static const char *const small[] = {"--mix",    "mix2", "--duration",   "0.5",
	                                    "--warmup", "0.1",  "--size-scale", "0.05"};
	const char *file = cli_write_file(
	        "calibrate.json",
	        "{\"defaults\": {\"mix\": \"mix2\", \"duration\": 0.5, \"warmup\": 0.1, "
	        "\"size-scale\": 0.05, \"schedulers\": \"fair,sw-fair\"},\n"
	        " \"runs\": [{\"name\": \"c\", \"calibrate\": true, \"sweep\": {\"seed\": [1, "
	        "2]}}]}");
	const char *const bad[][2] = {
	        {"{\"runs\": [{\"name\": \"c\", \"calibrate\": true, \"sweep\": "
	         "{\"interarrival\": [20, 40]}}]}",
	         "runs[0] (c): calibrate: the run sweeps --interarrival, which calibration sets"},
	        {"{\"runs\": [{\"name\": \"c\", \"calibrate\": true, \"options\": {\"mix\": "
	         "\"%s\"}}]}",
	         "runs[0] (c): calibrate: --mix"},
	        {"{\"runs\": [{\"name\": \"c\", \"calibrate\": 1}]}",
	         "runs[0].calibrate: expected true or false"},
	};
	const char *tag = "the cluster is used maximally at --interarrival ";
	char out[600], replay[600], rate[2][32], seed[8], a[700], b[700], *at;

	(void)state;
	snprintf(out, sizeof(out), "%s", cli_path("calibrated"));
	assert_int_equal(cli_run("experiment", file, "--out", out, "--no-plot", "--quiet", NULL),
	                 0);
	at = cli_out;
	for (int i = 0; i < 2; i++) {
		snprintf(a, sizeof(a), "c: seed=%d: calibrating --interarrival", i + 1);
		at = strstr(at, a);
		assert_non_null(at);
		at = strstr(at, tag);
		assert_non_null(at);
		assert_int_equal(sscanf(at + strlen(tag), "%31s", rate[i]), 1);
	}
	assert_string_not_equal(rate[0], rate[1]);
	for (int i = 0; i < 2; i++) {
		snprintf(seed, sizeof(seed), "%d", i + 1);
		assert_int_equal(cli_run("calibrate", small[0], small[1], small[2], small[3],
		                         small[4], small[5], small[6], small[7], "--seed", seed,
		                         "--quiet", NULL),
		                 0);
		snprintf(a, sizeof(a), "%s%s ", tag, rate[i]);
		assert_non_null(strstr(cli_out, a));
		snprintf(replay, sizeof(replay), "%s", cli_path(i ? "replay2" : "replay1"));
		assert_int_equal(cli_run("replay", small[0], small[1], small[2], small[3], small[4],
		                         small[5], small[6], small[7], "--seed", seed,
		                         "--interarrival", rate[i], "--schedulers", "fair,sw-fair",
		                         "--out", replay, "--no-plot", "--quiet", NULL),
		                 0);
		snprintf(a, sizeof(a), "%s/results.csv", replay);
		snprintf(b, sizeof(b), "%s/c/seed=%d/results.csv", out, i + 1);
		assert_true(cli_same_file(a, b));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *f = write_experiment("bad-calibrate.json", bad[i][0]);

		assert_int_equal(cli_run("experiment", f, "--out", cli_path("bad-calibrate"), NULL),
		                 2);
		assert_non_null(strstr(cli_out, bad[i][1]));
		assert_int_equal(cli_entries(cli_path("bad-calibrate")), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(experiment_writes_each_run_and_a_comparison_row_per_paper_entry),
	        cmocka_unit_test(only_runs_the_named_runs_and_compares_those),
	        cmocka_unit_test(only_keeps_the_rows_of_the_runs_it_left_out),
	        cmocka_unit_test(malformed_json_is_named_by_file_and_line),
	        cmocka_unit_test(unknown_key_is_named_by_its_path),
	        cmocka_unit_test(unknown_scheduler_in_a_run_is_refused_before_anything_runs),
	        cmocka_unit_test(paper_entry_must_name_a_point_of_the_sweep),
	        cmocka_unit_test(entry_without_a_seed_is_the_median_over_the_seeds),
	        cmocka_unit_test(collect_compares_the_results_already_there),
	        cmocka_unit_test(net_quantum_applies_to_every_run),
	        cmocka_unit_test(net_quantum_out_of_range_or_swept_is_refused),
	        cmocka_unit_test(net_model_applies_to_every_run_unless_bad_or_swept),
	        cmocka_unit_test(rack_fetch_min_applies_to_every_run),
	        cmocka_unit_test(calibrate_runs_each_seed_at_its_own_load),
	};

	return cli_main("swctl_experiment_cli", tests, sizeof(tests) / sizeof(tests[0]));
}
