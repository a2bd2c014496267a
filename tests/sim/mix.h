/* SPDX-License-Identifier: MIT */
/* A small hand-built mix for the whole-run tests, and a run that fails the test on error. */
#ifndef SW_TEST_SIM_MIX_H
#define SW_TEST_SIM_MIX_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sw_sim.h"

#define MB     (1ULL << 20)
#define N_JOBS 24

struct mix {
	struct sw_workload w;
	struct sw_job_desc jobs[N_JOBS];
};

/* Three racks of four nodes with 4:1 uplinks; jobs of every class, small enough to run fast,
 * big enough to overlap and contend for the uplinks. */
void make_mix(struct mix *m);

/* make_mix() and the simulator's default configuration in @p c. */
void make_mix_config(struct mix *m, struct sw_sim_config *c);

/* Replays @p m under @p c (or the defaults when NULL) with @p policy; fails on error. */
void run_with(const struct mix *m, const struct sw_sim_config *c, const char *policy,
              struct sw_sim_result *r);

/* run_with() with the default configuration. */
void run(const struct mix *m, const char *policy, struct sw_sim_result *r);

#endif
