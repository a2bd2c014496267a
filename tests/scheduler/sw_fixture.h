/* SPDX-License-Identifier: MIT */
/* Helpers for the ShuffleWatcher tests: NetSat samples and jobs with a shuffle profile. */
#ifndef SW_SCHED_SW_FIXTURE_H
#define SW_SCHED_SW_FIXTURE_H

#include "fixture.h"

/* Cumulative cross-rack counters the tests feed NetSat, one sampling clock per rack. */
struct swx_net {
	uint64_t out[FX_MAX_NODES];
	double t[FX_MAX_NODES];
	bool started[FX_MAX_NODES];
};

/* A config for @p policy, @p n_users users and queues, slow-start 0 (reduces are NASS's
 * business from the start) and no smoothing (a window's rate is the utilisation). */
void swx_config(struct sw_sched_config *cfg, const char *policy, uint32_t n_users);

struct sw_sched *swx_sched(const struct fx_cluster *c, const struct sw_sched_config *cfg);

/* Feeds rack @p rack one window at utilisation @p u of its uplink; @return the sample's
 * result (1 saturated, 0 not). */
int swx_util(struct sw_sched *s, const struct fx_cluster *c, struct swx_net *net, uint32_t rack,
             double u);

/* Gives job @p j a profile with ShuffleInputRatio @p ratio (heavy above 1). */
void swx_ratio(struct fx_job *j, struct sw_job_profile *p, double ratio);

/* ShuffleWatcher's view of @p job: PreferredMapRacks into @p map_racks and the preferred or
 * tentative reduces per rack into @p reduces (both n_racks long, may be NULL). */
struct sw_job_shuffle swx_view(struct sw_sched *s, uint64_t job, uint32_t n_racks,
                               uint8_t *map_racks, uint32_t *reduces);

/* Offers one map slot on @p node, asserts that @p job's map comes, and finishes that map
 * with an output of @p bytes on the node. */
void swx_run_map(struct sw_sched *s, uint64_t job, uint32_t node, uint64_t bytes, double now);

#endif /* SW_SCHED_SW_FIXTURE_H */
