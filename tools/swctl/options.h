/* SPDX-License-Identifier: MIT */
/*
 * The replay options, parsed and checked in one place: swctl replay parses its command line
 * with it, swctl sweep once per grid point, swctl experiment once per run, so that an option
 * means the same and is refused with the same words everywhere.
 */
#ifndef SWCTL_OPTIONS_H
#define SWCTL_OPTIONS_H

#include "load.h"
#include "sw_sim.h"

#define OPTIONS_MAX_SCHEDULERS 16

struct replay_opts {
	struct load_opts load;
	struct sw_sim_config sim;                  /* every run's settings but the policy */
	char schedulers[256];                      /* the list as given */
	const char *names[OPTIONS_MAX_SCHEDULERS]; /* split from a copy of the list */
	char names_buf[256];
	int n_schedulers;
	const char *baseline;
	int baseline_index;   /* into names */
	double warmup;        /* hours, < 0 for the default */
	double jobs_per_user; /* 0: --users or the mix's default decides */
	/* --starvation-window Kx: K times the mean completion time measured under the baseline
	 * (grid.c runs it first, without a window); 0 when the window is given in seconds */
	double starvation_multiple;
	const char *out; /* NULL: the command's default */
	int workers;
	int plot;
	double progress; /* seconds between progress lines off a terminal; 0: none (--quiet) */
};

/* How one command uses the parser. */
struct options_ctx {
	const char *prefix; /* starts every error message, e.g. "swctl replay" */
	const char *usage;  /* printed before the option list by --help; NULL refuses --help */
	/* swctl sweep's --param; NULL refuses it. Returns 0 or -EINVAL (after printing why). */
	int (*param)(void *arg, const char *value);
	void *param_arg;
};

/* The option list printed by every command that takes replay options. */
extern const char options_help[];

/*
 * Parses @p argv (argv[0] is the command name) into @p o and checks everything that can be
 * checked without loading the mix: ranges, the scheduler list, the baseline, --jobs-per-user.
 * Later options override earlier ones. Strings in @p o point into @p argv.
 * Returns 0, 1 after printing --help, or -EINVAL after printing why on stderr.
 */
int options_parse(int argc, char **argv, struct replay_opts *o, const struct options_ctx *ctx);

/*
 * Looks up an option by its exact long name. Returns 1 if it takes a value, 0 if it is a flag,
 * -ENOENT if there is no such option.
 */
int options_lookup(const char *name);

/*
 * The ramp-up left out of the steady-state window, in seconds, for arrivals spanning
 * @p span_s: --warmup, or by default 1 h or a fifth of the span, whichever is shorter.
 */
double options_warmup_s(const struct replay_opts *o, double span_s);

#endif
