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

/*
 * Runs every job with up to @p workers threads (the library keeps no global state, so runs
 * are independent). Shows progress on stderr when @p progress is set and stderr is a
 * terminal. Returns 0 when every run succeeded, else the first failure's code.
 */
int runner_run(struct runner_job *jobs, int n, int workers, int progress);

#endif
