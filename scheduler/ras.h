/* SPDX-License-Identifier: MIT */
/*
 * Private: RAS, Polo's Resource-aware Adaptive Scheduler (thesis chapter 4; the notes'
 * section 3): the utility of a placement (Eqs. 5-7) and the placement of job slots on nodes
 * with CPU, memory and I/O capacities that maximises the lowest utility (Eqs. 8-10), and
 * Reverse-Adaptive's minimum s_fit and utility (thesis 5.3). Pure
 * functions on plain arrays, so the tests check them against worked examples and against
 * exhaustive search; ras.c drives them from the live jobs as the ras ORDER's PLAN.
 */
#ifndef SW_RAS_H
#define SW_RAS_H

#include <stdbool.h>
#include <stdint.h>

#include "sw_sched.h"

/* The utility of no map slot at all (log 0): finite, below every other value. */
#define RAS_UTIL_NONE (-1e9)

/* What a job needs, in slots: the input of its utility. */
struct ras_need {
	double s_req;    /* map slots to run in parallel to meet the goal, at most s_pend */
	uint32_t s_pend; /* maps not completed (running ones included) */
	uint32_t r_pend; /* reduces not completed */
	/* Reverse-Adaptive: u^M is Eq. 14 around s_fit, the maps that must run in the next
	 * cycle; false: RAS's Eq. 6. */
	bool reverse;
	uint32_t s_fit;
};

/* u^M (Eq. 6): log from RAS_UTIL_NONE at 0 slots to 0 at s_req, linear to 1 at s_pend. */
double sw_sched_ras_utility_map(double s_alloc, double s_req, uint32_t s_pend);
/* u^R (Eq. 7): log(r_alloc) / log(r_pend) - 1, in [-1, 0]; 0 once every reduce is placed. */
double sw_sched_ras_utility_reduce(uint32_t r_alloc, uint32_t r_pend);

/* u = u^M + u^R of a job holding @p maps map and @p reduces reduce slots: Eq. 6 or, for a
 * reverse need, Eq. 14, plus Eq. 7. */
double sw_sched_ras_utility(const struct ras_need *need, double maps, uint32_t reduces);

/* One job of a placement problem. */
struct ras_job_in {
	struct ras_need need;
	struct sw_resources demand[SW_KINDS]; /* one map, one reduce */
	uint32_t pinned[SW_KINDS];            /* its tasks already placed (in nodes[].pinned) */
};

/* One node of a placement problem: what job slots may use. */
struct ras_node_in {
	struct sw_resources capacity;
	uint16_t slots[SW_KINDS]; /* most tasks of each kind at once */
	/* Tasks that stay where they are (running reduces: no task is preempted) and what
	 * they hold: the placement adds to them. */
	struct sw_resources used;
	uint16_t pinned[SW_KINDS];
};

/* One task slot the placement adds: job @p job's, of @p kind, on node @p node. */
struct ras_put {
	uint32_t job, node;
	enum sw_task_kind kind;
};

/*
 * Places job slots beside the pinned ones: reduces first, spread over the nodes (each to the
 * next node, after the last one used, with room and the fewest reduces: no two on one node
 * while another has none), then maps by max-min water-filling: the job of lowest utility
 * u = u^M + u^R gets one more map slot on the first node with room for it, until every job
 * has s_pend slots or no room. Fills alloc[j][kind] (slots per job, the pinned ones
 * included) and, when @p puts is not NULL, one ras_put per slot added (at most the nodes'
 * slots less their pinned tasks), *n_puts of them. @p scratch holds
 * ras_place_scratch(n_jobs, n_nodes) bytes.
 * @return the lowest utility over the jobs (1 when there is none).
 */
double sw_sched_ras_place(const struct ras_node_in *nodes, uint32_t n_nodes,
                          const struct ras_job_in *jobs, uint32_t n_jobs,
                          uint32_t (*alloc)[SW_KINDS], struct ras_put *puts, uint32_t *n_puts,
                          void *scratch);
size_t sw_sched_ras_place_scratch(uint32_t n_jobs, uint32_t n_nodes);

/*
 * Reverse-Adaptive (thesis 5.3): the share of every node's slots a transactional
 * load takes over time, f(t), piecewise constant: v[i].share on [v[i].t, v[i + 1].t),
 * v[n - 1].share from v[n - 1].t on, 0 before v[0].t; t ascending, shares in [0, 1].
 */
struct ras_avail {
	const struct sw_sched_tx_point *v;
	uint32_t n;
};

/* f(@p t): 0 for f NULL, empty, or before its first breakpoint (transactional.c). */
double sw_sched_ras_share(const struct ras_avail *f, double t);

/* Slot-seconds @p slots slots leave to MapReduce in [a, b]: the integral of slots (1 - f);
 * f NULL or empty: no transactional load. 0 when b <= a. */
double sw_sched_ras_avail(const struct ras_avail *f, double slots, double a, double b);

/* One job of a reverse fit: its map deadline, map length mu (s) and maps not completed. */
struct ras_rfit_job {
	double deadline, mu;
	uint32_t s_pend;
};

struct ras_rfit_order {
	double deadline;
	uint32_t job;
};

/*
 * Algorithm 2 (reverse fitting): periods between consecutive deadlines, the earliest one
 * starting at the next control instant (now + cycle); from the latest deadline backwards,
 * each period's slot-seconds go to the jobs whose deadline is at or after its end, the later
 * deadlines first, as whole tasks (floor(slot-seconds / mu)). Fills s_fit[j], the maps of job
 * j that fit in no later period: its minimum for the next cycle. @p order: n_jobs scratch.
 */
void sw_sched_ras_reverse_fit(const struct ras_rfit_job *jobs, uint32_t n_jobs,
                              const struct ras_avail *f, double slots, double now, double cycle,
                              struct ras_rfit_order *order, uint32_t *s_fit);

/* u^M of Reverse-Adaptive (Eq. 14): log up to 0 at s_fit (RAS_UTIL_NONE at 0 slots), linear
 * to 1/2 at s_req, linear to 1 at s_pend; from s_fit straight to 1 when s_req <= s_fit. */
double sw_sched_ras_utility_fit(double s_alloc, double s_fit, double s_req, uint32_t s_pend);

#endif /* SW_RAS_H */
