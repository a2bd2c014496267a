/* SPDX-License-Identifier: MIT */
/*
 * swctl sweep: replays over a grid of one or two replay options, one point per combination,
 * every (point x scheduler) simulation in one worker pool. swctl experiment runs its sweeps
 * through the same calls.
 */
#ifndef SWCTL_SWEEP_H
#define SWCTL_SWEEP_H

#include "grid.h"

#define SWEEP_MAX_VALUES 64

struct sweep_param {
	char name[64]; /* long option name, e.g. "saturation-threshold" */
	char *buf;     /* the value list, split in place */
	int n;         /* values */
	const char *value[SWEEP_MAX_VALUES];
};

struct sweep {
	int n_params;
	struct sweep_param param[GRID_MAX_PARAMS];
	const char *prefix;       /* starts error messages */
	struct replay_opts fixed; /* the options without the swept values */
	struct grid g;            /* first parameter outermost */
	char out[512];            /* output directory */
};

/*
 * Parses "swctl sweep" arguments (argv[0] is the command name) and every grid point's
 * options, so a bad value anywhere is refused before anything runs. Returns 0, 1 after
 * printing --help, or -EINVAL after printing why (prefixed with @p prefix).
 */
int sweep_prepare(struct sweep *s, int argc, char **argv, const char *prefix);

/*
 * Runs every point, prints the table and writes sweep.csv, the plots and one directory per
 * point into s->out. Returns 0 or -errno (printed).
 */
int sweep_execute(struct sweep *s);

void sweep_free(struct sweep *s);

/* Writes sweep.csv, the plot scripts and every point's directory, all or nothing. */
int sweep_write(const struct sweep *s);

/* Renders sweep-throughput.png and sweep-xrack.png, and each point's replay plots. */
int sweep_plot(const struct sweep *s);

#endif
