/* SPDX-License-Identifier: MIT */
/*
 * swctl experiment: a study checked in as a JSON file (replays and sweeps with shared
 * defaults, and the paper's figures to compare against) run by one command.
 */
#ifndef SWCTL_EXPERIMENT_H
#define SWCTL_EXPERIMENT_H

#include <jansson.h>

#include "sweep.h"

enum exp_metric {
	EXP_THROUGHPUT,
	EXP_TURNAROUND,
	EXP_XRACK,
	EXP_XRACK_SHUFFLE,
	EXP_XRACK_MAP_INPUT,
	EXP_WORK_THROUGHPUT, /* task-hours of compute finished per hour */
	EXP_XRACK_PAPER,     /* shuffle + remote map input, as the paper counts */
	EXP_METRICS,
};

/* One "paper" entry: a figure's ratio and where to find ours. */
struct exp_entry {
	const char *scheduler, *baseline, *note, *cls; /* baseline: NULL for the run's */
	enum exp_metric metric;
	double paper;
	json_t *at;     /* sweeps: the point, swept option -> value */
	char where[64]; /* "runs[0].paper[2]" for messages */
	/* resolved by exp_check_entries(); seed: the index of a swept "seed" that "at" leaves
	 * out (the entry is the median over those draws, point the first of them), else -1 */
	int point, sched, base, group, seed;
};

struct exp_run {
	const char *name;
	char prefix[600]; /* "FILE: runs[i] (name)" */
	int selected;     /* by --only, or all */
	int is_sweep;
	int calibrate; /* "calibrate": each point runs at the load calibrate finds for it */
	int argc;
	char **argv;        /* owned strings */
	struct sweep sweep; /* a sweep's grid, or */
	struct grid replay; /* a replay's one point */
	int n_entries;
	struct exp_entry *entries;
};

/* The network options swctl experiment sets for every run over the file's (to replay a whole
 * study with an approximate network and compare it with its exact run): swctl replay's
 * option names, in exp_net_names. */
enum exp_net_opt { EXP_NET_QUANTUM, EXP_NET_MODEL, EXP_RACK_FETCH_MIN, EXP_NET_OPTS };
extern const char *const exp_net_names[EXP_NET_OPTS];

struct experiment {
	const char *file;
	json_t *root;
	const char *description;
	int n_runs;
	struct exp_run *runs;
	char out[512];
	int workers, plot;
	int collect;             /* --collect: read each run's results back instead of running it */
	double progress;         /* as replay_opts.progress */
	char *net[EXP_NET_OPTS]; /* each network option for every run, as given; NULL: the file's */
};

/*
 * Loads e->file and checks it: the keys of every object, the types of their values, run names,
 * and each run's options as far as they can be checked without parsing them (that is
 * swctl replay's and swctl sweep's parser's job). Fills e->runs with each run's argument list
 * and paper entries. Returns 0 or -EINVAL after naming the file, line or key on stderr.
 */
int exp_read_file(struct experiment *e);

/* Prints "FILE: " and the message on stderr; returns -EINVAL. */
__attribute__((format(printf, 2, 3))) int exp_fail(const struct experiment *e, const char *fmt,
                                                   ...);

/* The run's grid, whichever kind of run it is. */
const struct grid *exp_run_grid(const struct exp_run *r);

/* --collect: fills the run's metrics from the results.csv of each of its points under
 * e->out. Returns 0, or -EINVAL after naming a missing or foreign file (-ENOMEM). */
int exp_collect_run(const struct experiment *e, struct exp_run *r);

/* Compares every selected run's "paper" entries; writes comparison.csv and .md into
 * e->out, all or nothing, and prints the table. Returns 0 or -errno. */
int exp_compare(const struct experiment *e);

/* Checks a run's "paper" entries against its parsed options and resolves their point,
 * schedulers and class. Returns 0 or -EINVAL (printed). */
int exp_check_entries(const struct experiment *e, struct exp_run *r);

/* A number or string as an option value ("0.8", "mix2"); -EINVAL for anything else. */
int exp_scalar(json_t *v, char *buf, size_t len);

extern const char *const exp_metric_names[EXP_METRICS];

#endif
