/* SPDX-License-Identifier: MIT */
/*
 * Private: RAS, Polo's Resource-aware Adaptive Scheduler (thesis chapter 4; the notes'
 * section 3): the utility of a placement (Eqs. 5-7) and the placement of job slots on nodes
 * with CPU, memory and I/O capacities that maximises the lowest utility (Eqs. 8-10). Pure
 * functions on plain arrays, so the tests check them against worked examples and against
 * exhaustive search; ras.c drives them from the live jobs as the ras ORDER's PLAN.
 */
#ifndef SW_RAS_H
#define SW_RAS_H

#include <stdint.h>

#include "sw_sched.h"

/* The utility of no map slot at all (log 0): finite, below every other value. */
#define RAS_UTIL_NONE (-1e9)

/* What a job needs, in slots: the input of its utility. */
struct ras_need {
	double s_req;    /* map slots to run in parallel to meet the goal, at most s_pend */
	uint32_t s_pend; /* maps not completed (running ones included) */
	uint32_t r_pend; /* reduces not completed */
};

/* u^M (Eq. 6): log from RAS_UTIL_NONE at 0 slots to 0 at s_req, linear to 1 at s_pend. */
double sw_sched_ras_utility_map(double s_alloc, double s_req, uint32_t s_pend);
/* u^R (Eq. 7): log(r_alloc) / log(r_pend) - 1, in [-1, 0]; 0 once every reduce is placed. */
double sw_sched_ras_utility_reduce(uint32_t r_alloc, uint32_t r_pend);

/* One job of a placement problem. */
struct ras_job_in {
	struct ras_need need;
	struct sw_resources demand[SW_KINDS]; /* one map, one reduce */
};

/* One node of a placement problem: what job slots may use. */
struct ras_node_in {
	struct sw_resources capacity;
	uint16_t slots[SW_KINDS]; /* most tasks of each kind at once */
};

/*
 * Places job slots: reduces first, spread over the nodes (each to the node after the last
 * one used that has room: no two on one node while another has none), then maps by max-min
 * water-filling: the job of lowest utility u = u^M + u^R gets one more map slot on the first
 * node with room for it, until every job has s_pend slots or no room. Fills alloc[j][kind]
 * (slots placed per job), and place[(j * n_nodes + n) * SW_KINDS + kind] when @p place is
 * not NULL. @p scratch holds ras_place_scratch(n_jobs, n_nodes) bytes.
 * @return the lowest utility over the jobs (1 when there is none).
 */
double sw_sched_ras_place(const struct ras_node_in *nodes, uint32_t n_nodes,
                          const struct ras_job_in *jobs, uint32_t n_jobs,
                          uint32_t (*alloc)[SW_KINDS], uint32_t *place, void *scratch);
size_t sw_sched_ras_place_scratch(uint32_t n_jobs, uint32_t n_nodes);

#endif /* SW_RAS_H */
