/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"

/* Runs "gnuplot SCRIPT" inside @p dir and waits: 0, -ENOENT (no gnuplot) or -EIO. */
static int run(const char *dir, const char *script)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (chdir(dir) < 0)
			_exit(126);
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return -ENOENT;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
}

int gnuplot_render(const char *prefix, const char *dir, const char *name)
{
	char script[256];
	int rc;

	snprintf(script, sizeof(script), "%s.gp", name);
	rc = run(dir, script);
	if (rc < 0)
		fprintf(stderr, "%s: gnuplot could not render %s/%s.png: %s\n", prefix, dir, name,
		        rc == -ENOENT ? "gnuplot is not installed" : strerror(-rc));
	return rc;
}
