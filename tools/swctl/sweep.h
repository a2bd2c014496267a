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

/* An options_ctx.param that accepts every --param: a sweep point's arguments still hold them
 * when they are parsed again (grid_set_option, swctl experiment's calibration). */
int sweep_skip_param(void *arg, const char *spec);

/* Writes sweep.csv, the plot scripts and every point's directory, all or nothing. */
int sweep_write(const struct sweep *s);

struct outdir;

/* Point @p p's directory under s->out: its label, with any '/' of a mix path made '_'. */
void sweep_point_dir(const struct sweep *s, const struct grid_point *p, char *buf, size_t len);

/* Writes the plot scripts into @p od from @p ratio: for point i and scheduler k, the
 * throughput ratio to the baseline at [(i * schedulers + k) * 2], cross-rack at + 1. */
int sweep_write_plots(struct outdir *od, const struct sweep *s, const double *ratio);

/*
 * swctl sweep --list: writes s->out/points.txt, one `swctl replay` command line per point
 * (with --out that point's directory), for GNU parallel or a Slurm array to run anywhere.
 * swctl sweep --collect: reads every point's results.csv back from s->out and writes the
 * same sweep.csv and plots as a local sweep. Both return 0 or -errno (printed).
 */
int sweep_list(const struct sweep *s, int argc, char **argv);
int sweep_collect(struct sweep *s);

/* Renders sweep-throughput.png and sweep-xrack.png, and each point's replay plots. */
int sweep_plot(const struct sweep *s);

#endif
