/* SPDX-License-Identifier: MIT */
/*
 * swctl netsat-watch as a user runs it, on loopback in the test's own namespace (the
 * sources' counts are checked to the byte on namespaces by tests/netsat/test_netns.c).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

static void watch_prints_a_header_and_one_line_per_interval_up_to_count(void **state)
{
	(void)state;
	assert_int_equal(
	        cli_run("netsat-watch", "--dev", "lo", "--interval", "0.05", "--count", "3", NULL),
	        0);
	assert_non_null(strstr(cli_out, "rx_Mbit/s"));
	assert_non_null(strstr(cli_out, "backlog_B"));
	assert_int_equal(lines(cli_out), 4);
}

static void an_unknown_interface_or_namespace_is_named_with_exit_status_1(void **state)
{
	(void)state;
	assert_int_equal(cli_run("netsat-watch", "--dev", "sw-nosuch0", "--count", "1", NULL), 1);
	assert_non_null(strstr(cli_out, "no interface sw-nosuch0"));
	assert_int_equal(cli_run("netsat-watch", "--dev", "lo", "--netns", "sw-nosuch-ns", NULL),
	                 1);
	assert_non_null(strstr(cli_out, "/run/netns/sw-nosuch-ns"));
}

/* A watch without --count runs until stopped: SIGTERM (what a script that started it in the
 * background sends) ends it with status 0. It went on for ever before, SIGTERM caught by
 * swctl's handler and never looked at. */
static void sigterm_ends_an_endless_watch_with_status_0(void **state)
{
	(void)state;
	const char *out = cli_path("watch.out");
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 1);
		execl(getenv("SWCTL"), "swctl", "netsat-watch", "--dev", "lo", "--interval", "0.05",
		      (char *)NULL);
		_exit(127);
	}
	while (cli_lines(out) < 3) { /* the header and two samples: it is in its loop */
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
	}
	kill(pid, SIGTERM);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void bad_options_exit_2_with_the_usage(void **state)
{
	(void)state;
	assert_int_equal(cli_run("netsat-watch", NULL), 2);
	assert_non_null(strstr(cli_out, "--dev is required"));
	assert_int_equal(cli_run("netsat-watch", "--dev", "lo", "--interval", "0", NULL), 2);
	assert_non_null(strstr(cli_out, "--interval 0"));
	assert_int_equal(cli_run("netsat-watch", "--dev", "lo", "--count", "x", NULL), 2);
	assert_int_equal(cli_run("netsat-watch", "--help", NULL), 0);
	assert_non_null(strstr(cli_out, "usage: swctl netsat-watch"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(watch_prints_a_header_and_one_line_per_interval_up_to_count),
	        cmocka_unit_test(an_unknown_interface_or_namespace_is_named_with_exit_status_1),
	        cmocka_unit_test(sigterm_ends_an_endless_watch_with_status_0),
	        cmocka_unit_test(bad_options_exit_2_with_the_usage),
	};

	return cli_main("swctl netsat-watch", tests, sizeof(tests) / sizeof(tests[0]));
}
