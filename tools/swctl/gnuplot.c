/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot.h"

int gnuplot_run(const char *dir, const char *script)
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

void gnuplot_report(const char *prefix, const char *dir, const char *what, int rc)
{
	fprintf(stderr, "%s: gnuplot could not render %s/%s: %s\n", prefix, dir, what,
	        rc == -ENOENT ? "gnuplot is not installed" : strerror(-rc));
}
