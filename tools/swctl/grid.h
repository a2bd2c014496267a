/* SPDX-License-Identifier: MIT */
/*
 * A set of replays run together: one point per combination of swept values (a plain replay is
 * a grid of one point), each point under its schedulers, every (point x scheduler) simulation
 * in one pool of worker threads so that all cores stay busy across points.
 */
#ifndef SWCTL_GRID_H
#define SWCTL_GRID_H

#include "metrics.h"
#include "options.h"
#include "report.h"
#include "runner.h"

#define GRID_MAX_PARAMS 2

struct grid_point {
	char label[256];                    /* "oversub=5,mix=mix1"; "" for a plain replay */
	const char *value[GRID_MAX_PARAMS]; /* this point's value of each swept parameter */
	char *own[GRID_MAX_PARAMS];         /* "--NAME=VALUE" arguments the options point into */
	char *set;                          /* grid_set_option's argument, last in argv */
	char **argv;                        /* owned copy of the argument vector */
	struct replay_opts opts;            /* parsed; do not copy (it points into itself) */
	struct sw_workload *w;              /* may be shared with an earlier point */
	int own_w;
	struct runner_job *runs;         /* opts.n_schedulers runs, inside grid.runs */
	struct metrics *m;               /* likewise, inside grid.m */
	double window_start, window_end; /* steady-state window, seconds */
	int all_jobs;                    /* the window was empty: every job counts (report.h) */
	struct report rep;
};

struct grid {
	int n_params;
	const char *param[GRID_MAX_PARAMS]; /* long option names */
	int n_points;
	struct grid_point *points;
	int n_runs;
	struct runner_job *runs;
	struct metrics *m;
	/* Runs the jobs instead of the simulator when set (swctl replay --live): fills each
	 * job's result and rc; returns 0 or the first failure's code. */
	int (*run)(struct runner_job *jobs, int n, void *arg);
	void *run_arg;
};

/* Allocates @p n_points empty points. Returns 0 or -ENOMEM. */
int grid_alloc(struct grid *g, int n_points);

/*
 * Parses point @p i's options from @p argv (copied, with "--NAME=VALUE" for each swept
 * parameter appended) using @p ctx; errors name the point after ctx->prefix. Returns
 * options_parse()'s result.
 */
int grid_parse_point(struct grid *g, int i, int argc, char **argv, const struct options_ctx *ctx);

/*
 * Parses point @p i's options again with @p arg ("--NAME=VALUE") after all of them, so that it
 * overrides the run's options (not a swept option's value: the caller refuses that); a second
 * call replaces the first one's argument. swctl experiment sets each point's calibrated load
 * this way. Returns options_parse()'s result, or -ENOMEM.
 */
int grid_set_option(struct grid *g, int i, const char *arg, const struct options_ctx *ctx);

/*
 * Loads every point's mix (once per distinct set of load options), runs all simulations with
 * @p workers threads and computes each point's metrics and report. Errors are printed after
 * @p prefix. Returns 0, or -errno for a mix that does not load (-EINVAL) or a failed run.
 */
int grid_run(struct grid *g, int workers, double progress, const char *prefix);

void grid_free(struct grid *g);

#endif
