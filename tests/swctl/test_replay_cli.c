/* SPDX-License-Identifier: MIT */
/*
 * swctl replay as a user runs it: the real binary in a child process, on small mixes written
 * into a private directory. Checks the command-line contract: results appear complete or not
 * at all, bad input is named by file, line and field with a non-zero exit, and two runs of one
 * mix write the same bytes.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[] = "/tmp/swctl-test-XXXXXX";
static char out[4096]; /* stdout and stderr of the last run */

static const char *path_in(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

static const char *write_file(const char *name, const char *text)
{
	const char *p = path_in(name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return p;
}

/* Runs swctl with the NULL-terminated arguments; returns its exit status, output in out[]. */
static int swctl(const char *arg, ...)
{
	const char *argv[32] = {getenv("SWCTL"), "replay"};
	static char log[512];
	int n = 2, status, fd;
	va_list ap;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/output.txt", dir);
	va_start(ap, arg);
	for (; arg && n < 31; arg = va_arg(ap, const char *))
		argv[n++] = arg;
	va_end(ap);
	argv[n] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(126);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	fd = open(log, O_RDONLY);
	assert_true(fd >= 0);
	n = (int)read(fd, out, sizeof(out) - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int entries(const char *d)
{
	char cmd[600];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null | wc -l", d);
	p = popen(cmd, "r");
	assert_non_null(p);
	assert_int_equal(fscanf(p, "%d", &n), 1);
	pclose(p);
	return n;
}

static int same_file(const char *a, const char *b)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

static const char *const good_mix =
        "{\"topology\": {\"racks\": 2, \"nodes_per_rack\": 3, \"nic_bps\": 1e9, \"oversub\": 3}}\n"
        "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": \"terasort\", "
        "\"input_bytes\": 1000000000}}\n"
        "{\"job\": {\"id\": 2, \"arrival\": 30, \"user\": 1, \"bench\": \"grep\", "
        "\"input_bytes\": 2000000000}}\n"
        "{\"job\": {\"id\": 3, \"arrival\": 60, \"user\": 0, \"bench\": \"selfjoin\", "
        "\"input_bytes\": 500000000}}\n";

static void replay_writes_every_result_file_and_no_temporary_one(void **state)
{
	const char *mix = write_file("good.jsonl", good_mix), *res = path_in("res");

	(void)state;
	assert_int_equal(swctl("--mix", mix, "--schedulers", "fair,delay", "--warmup", "0", "--out",
	                       res, "--no-plot", "--quiet", NULL),
	                 0);
	assert_non_null(strstr(out, "all jobs"));
	assert_non_null(strstr(out, "heavy jobs"));
	/* results.json, results.csv, jobs.csv, uplink-fair.csv, uplink-delay.csv, uplink.gp */
	assert_int_equal(entries(res), 6);
}

static void two_replays_of_one_mix_write_identical_results(void **state)
{
	const char *mix = write_file("same.jsonl", good_mix);
	const char *a = path_in("a"), *b = path_in("b");
	char fa[640], fb[640];

	(void)state;
	assert_int_equal(
	        swctl("--mix", mix, "--warmup", "0", "--out", a, "--no-plot", "--quiet", NULL), 0);
	assert_int_equal(
	        swctl("--mix", mix, "--warmup", "0", "--out", b, "--no-plot", "--quiet", NULL), 0);
	for (const char *const *f =
	             (const char *const[]){"results.csv", "jobs.csv", "uplink-fifo.csv", NULL};
	     *f; f++) {
		snprintf(fa, sizeof(fa), "%s/%s", a, *f);
		snprintf(fb, sizeof(fb), "%s/%s", b, *f);
		assert_true(same_file(fa, fb));
	}
}

static void bad_mix_names_file_line_and_field_exits_1_and_writes_nothing(void **state)
{
	const char *mix = write_file(
	        "negative.jsonl", "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": "
	                          "\"grep\", \"input_bytes\": 1000}}\n"
	                          "{\"job\": {\"id\": 2, \"arrival\": 1, \"user\": 0, \"bench\": "
	                          "\"grep\", \"input_bytes\": -5}}\n");
	const char *res = path_in("bad-res");
	char want[600];

	(void)state;
	assert_int_equal(swctl("--mix", mix, "--out", res, "--no-plot", "--quiet", NULL), 1);
	snprintf(want, sizeof(want), "%s:2:", mix);
	assert_non_null(strstr(out, want));
	assert_non_null(strstr(out, "input_bytes"));
	assert_int_equal(entries(res), 0);
}

static void unknown_benchmark_in_a_mix_is_named(void **state)
{
	const char *mix = write_file("bench.jsonl", "{\"job\": {\"id\": 1, \"arrival\": 0, "
	                                            "\"user\": 0, \"bench\": \"sortt\", "
	                                            "\"input_bytes\": 1000}}\n");

	(void)state;
	assert_int_equal(swctl("--mix", mix, "--out", path_in("r2"), "--quiet", NULL), 1);
	assert_non_null(strstr(out, ":1:"));
	assert_non_null(strstr(out, "sortt"));
	assert_int_equal(entries(path_in("r2")), 0);
}

static void truncated_swim_trace_is_named_by_line(void **state)
{
	const char *trace = write_file("cut.tsv", "job0\t10\t10\t1000\t2000\t300\n"
	                                          "job1\t20\t10\t1000");

	(void)state;
	assert_int_equal(swctl("--mix", trace, "--out", path_in("r3"), "--quiet", NULL), 1);
	assert_non_null(strstr(out, ":2:"));
	assert_int_equal(entries(path_in("r3")), 0);
}

static void missing_mix_file_is_named(void **state)
{
	const char *missing = path_in("nowhere.jsonl");

	(void)state;
	assert_int_equal(swctl("--mix", missing, "--out", path_in("r4"), "--quiet", NULL), 1);
	assert_non_null(strstr(out, missing));
}

static void unknown_scheduler_or_baseline_is_refused_before_running(void **state)
{
	(void)state;
	assert_int_equal(swctl("--schedulers", "fair,fastest", NULL), 2);
	assert_non_null(strstr(out, "unknown scheduler 'fastest'"));
	assert_int_equal(swctl("--schedulers", "fifo,drf", "--baseline", "fair", NULL), 2);
	assert_non_null(strstr(out, "--baseline fair"));
	assert_int_equal(swctl("--duration", "-3", NULL), 2);
	assert_non_null(strstr(out, "--duration"));
}

static void jobs_per_user_sets_users_from_the_steady_state_window(void **state)
{
	(void)state;
	/* 0.4 h of window at one job per 40 s is 36 jobs: one each for 36 users. */
	assert_int_equal(swctl("--jobs-per-user", "1", "--duration", "0.5", "--warmup", "0.1",
	                       "--schedulers", "fair", "--out", path_in("jpu"), "--no-plot",
	                       "--quiet", NULL),
	                 0);
	assert_non_null(strstr(out, " 36 users;"));
	assert_int_equal(swctl("--jobs-per-user", "4", "--users", "10", NULL), 2);
	assert_non_null(strstr(out, "replaces --users"));
}

static void thresholds_outside_their_range_are_refused(void **state)
{
	(void)state;
	assert_int_equal(swctl("--saturation-threshold", "0", NULL), 2);
	assert_non_null(strstr(out, "--saturation-threshold"));
	assert_int_equal(swctl("--map-completion-threshold", "1.5", NULL), 2);
	assert_non_null(strstr(out, "--map-completion-threshold"));
}

static int make_dir(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(replay_writes_every_result_file_and_no_temporary_one),
	        cmocka_unit_test(two_replays_of_one_mix_write_identical_results),
	        cmocka_unit_test(bad_mix_names_file_line_and_field_exits_1_and_writes_nothing),
	        cmocka_unit_test(unknown_benchmark_in_a_mix_is_named),
	        cmocka_unit_test(truncated_swim_trace_is_named_by_line),
	        cmocka_unit_test(missing_mix_file_is_named),
	        cmocka_unit_test(unknown_scheduler_or_baseline_is_refused_before_running),
	        cmocka_unit_test(jobs_per_user_sets_users_from_the_steady_state_window),
	        cmocka_unit_test(thresholds_outside_their_range_are_refused),
	};

	if (!getenv("SWCTL")) {
		fprintf(stderr, "test_replay_cli: set SWCTL to the swctl binary\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
