/* SPDX-License-Identifier: MIT */
/* The replay's comparison: a table on the terminal, JSON and CSV files, and a plot. */
#ifndef SWCTL_REPORT_H
#define SWCTL_REPORT_H

#include <stdio.h>

#include "metrics.h"
#include "runner.h"

struct report {
	const struct sw_workload *w;
	const char *mix;
	int n;                         /* schedulers compared */
	const struct runner_job *runs; /* n runs, result and timing */
	const struct metrics *m;       /* n summaries */
	int baseline;                  /* index of the run others are normalised to */
	/* The steady-state window (warm-up to last arrival) was empty, so every job counts, over
	 * each run's own span from the first arrival to its last finish. */
	int all_jobs;
	double warmup; /* seconds, for saying so */
	/* swctl replay --live --kill-controller: each run's controller was killed and restarted */
	int controller_killed;
};

/* Prints the comparison table, all jobs first, then each job class. */
void report_print(FILE *f, const struct report *rep);

/* Ratio of @p value to @p base, 0 when the base is 0. */
double report_ratio(double value, double base);

#endif
