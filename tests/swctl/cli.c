/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static char dir[] = "/tmp/swctl-test-XXXXXX";
char cli_out[16384];

const char cli_small_mix[] =
        "{\"topology\": {\"racks\": 2, \"nodes_per_rack\": 3, \"nic_bps\": 1e9, \"oversub\": 3}}\n"
        "{\"job\": {\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": \"terasort\", "
        "\"input_bytes\": 1000000000}}\n"
        "{\"job\": {\"id\": 2, \"arrival\": 30, \"user\": 1, \"bench\": \"grep\", "
        "\"input_bytes\": 2000000000}}\n"
        "{\"job\": {\"id\": 3, \"arrival\": 60, \"user\": 0, \"bench\": \"selfjoin\", "
        "\"input_bytes\": 500000000}}\n";

const char *cli_path(const char *name)
{
	static char buf[4][512];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, sizeof(buf[0]), "%s/%s", dir, name);
	return p;
}

const char *cli_write_file(const char *name, const char *text)
{
	const char *p = cli_path(name);
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return p;
}

int cli_run(const char *cmd, ...)
{
	const char *argv[64] = {getenv("SWCTL"), cmd};
	char log[512];
	int n = 2, status, fd;
	const char *arg;
	va_list ap;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/output.txt", dir);
	va_start(ap, cmd);
	while ((arg = va_arg(ap, const char *)) && n < 63)
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
	n = (int)read(fd, cli_out, sizeof(cli_out) - 1);
	cli_out[n > 0 ? n : 0] = '\0';
	close(fd);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int count(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	int n = -1;

	assert_non_null(p);
	if (fscanf(p, "%d", &n) != 1)
		n = -1;
	pclose(p);
	return n;
}

int cli_entries(const char *d)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "ls -A '%s' 2>/dev/null | wc -l", d);
	return count(cmd);
}

int cli_lines(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "wc -l < '%s' 2>/dev/null || echo -1", path);
	return count(cmd);
}

int cli_same_file(const char *a, const char *b)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "cmp -s '%s' '%s'", a, b);
	return system(cmd) == 0;
}

int cli_setup(void **state)
{
	(void)state;
	return mkdtemp(dir) ? 0 : -1;
}

int cli_teardown(void **state)
{
	char cmd[600];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int cli_main(const char *name, const struct CMUnitTest *tests, size_t n)
{
	if (!getenv("SWCTL")) {
		fprintf(stderr, "%s: set SWCTL to the swctl binary\n", name);
		return 1;
	}
	return _cmocka_run_group_tests(name, tests, n, cli_setup, cli_teardown);
}
