/* SPDX-License-Identifier: MIT */
/* Runs simulations (workload x scheduler), one per core at a time. */
#ifndef SWCTL_RUNNER_H
#define SWCTL_RUNNER_H

#include "sw_sim.h"

/* Most threads --jobs may ask for: far more than cores, few enough to create. */
#define RUNNER_MAX_WORKERS 256

struct runner_job {
	const struct sw_workload *w;
	const char *label;        /* shown before the scheduler in the progress line, or NULL */
	struct sw_sim_config cfg; /* cfg.sched.policy names the scheduler */
	struct sw_sim_result result;
	struct sw_input_error err;
	int rc;
	double wall; /* seconds the run took */
};

/* Default seconds between progress lines when stderr is not a terminal. */
#define RUNNER_PROGRESS_EVERY 10.0

/*
 * Runs every job with up to @p workers threads (the library keeps no global state, so runs
 * are independent). Unless @p progress is 0, shows on stderr each running simulation's
 * simulated time, jobs done and events per second: one line redrawn five times a second on a
 * terminal, else one line every @p progress seconds (a redirected or scheduled run).
 * Returns 0 when every run succeeded, else the first failure's code.
 */
int runner_run(struct runner_job *jobs, int n, int workers, double progress);

/* Set by SIGINT or SIGTERM once runner_catch_signals ran: simulations stop (-ECANCELED). */
extern volatile sig_atomic_t runner_interrupted;

/* Ctrl-C (and SIGTERM) stop the simulations instead of killing swctl mid-write. */
void runner_catch_signals(void);

/*
 * Holds SIGINT and SIGTERM while results are written, so that they appear whole; a signal
 * that came meanwhile is delivered (setting runner_interrupted) on release.
 */
void runner_hold_signals(void);
void runner_release_signals(void);

#endif
