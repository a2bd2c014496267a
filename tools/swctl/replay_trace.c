/* SPDX-License-Identifier: MIT */
/* swctl replay-trace: re-executes a controller's scheduler-call trace on a fresh scheduler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "sw_ctl_trace.h"

static void replay_trace_usage(FILE *f)
{
	fprintf(f,
	        "usage: swctl replay-trace FILE\n\n"
	        "Replays FILE, the JSON Lines trace of scheduler calls a controller wrote\n"
	        "(trace_file in its config), on a fresh scheduler of the same policy and\n"
	        "cluster, and checks that every call returns what it returned live and every\n"
	        "heartbeat hands out the same tasks. Exit status 0 when all are identical, 1 at\n"
	        "the first difference or bad line (named by its line number).\n");
}

int cmd_replay_trace(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		replay_trace_usage(stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		replay_trace_usage(stderr);
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (f == NULL) {
		perror(argv[1]);
		return 1;
	}
	struct sw_ctl_rec rec = {0};
	char *line = NULL, err[512];
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int rc = 0;
	while (rc == 0 && (n = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[n - 1] == '\n')
			n--;
		if ((rc = sw_ctl_rec_replay(&rec, line, (size_t)n, err, sizeof(err))) < 0)
			fprintf(stderr, "swctl replay-trace: %s:%zu: %s\n", argv[1], lineno, err);
	}
	free(line);
	fclose(f);
	if (rc == 0 && rec.sched == NULL) {
		fprintf(stderr, "swctl replay-trace: %s: no \"create\" line\n", argv[1]);
		rc = -1;
	}
	if (rc == 0)
		printf("%s: %llu scheduler calls replayed, %llu tasks assigned: identical\n",
		       argv[1], (unsigned long long)rec.calls, (unsigned long long)rec.assigned);
	sw_ctl_rec_fini(&rec);
	return rc == 0 ? 0 : 1;
}
