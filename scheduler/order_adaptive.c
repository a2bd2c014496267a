/* SPDX-License-Identifier: MIT */
/*
 * Polo's Adaptive Scheduler (thesis chapter 3; ICPP'10 Eq. 1): a pool per job, ranked per
 * slot kind in Polo's priority classes, lower first:
 *   0  a job past the goal of this phase, by deadline (run as soon as possible);
 *   1  a job with no completed task yet (no mean to estimate from), oldest first; a reduce
 *      with no reduce finished is estimated from the maps' mean (Polo's 3.4.5);
 *   2  the others by required slots s_req, the most needed first;
 *   3  a job without a deadline, by arrival.
 * s_req comes from the job's own completed tasks (the core's done[] and duration_sum[]),
 * not from a profile: Polo estimates online. It is recomputed at every add, launch and finish
 * of the job; a launch lowers it by one, which is how surplus slots spread over the jobs.
 * Under adaptive-hw an accelerable job's map need is s_req,acc (Eq. 2) over its accelerated
 * maps alone, and each map need is handed to accel.c, which bars the pool from the ready heap
 * of the nodes whose slots the job would pass.
 */
#include <errno.h>
#include <math.h>

#include "policy.h"
#include "sw_sched_aria.h"

double sw_sched_adaptive_slots(double mu, double running_left, uint32_t running, uint32_t pending,
                               double time_left)
{
	return (running_left + pending * mu) / time_left - running;
}

/*
 * The goal of a phase: maps get the share of the timeframe their work takes, reduces the
 * job's deadline (the notes' 2.4, with Polo's default relative cost of a reduce of 1.0).
 */
double sw_sched_adaptive_phase_goal(const struct sched_job *j, enum sw_task_kind kind)
{
	double n = j->n_tasks[SW_MAP] + j->n_tasks[SW_REDUCE];

	if (kind == SW_REDUCE)
		return j->deadline;
	return j->arrival + (j->deadline - j->arrival) * j->n_tasks[SW_MAP] / n;
}

static void adaptive_update_keys(const struct sw_sched *s, struct sched_pool *p, double now)
{
	const struct sched_job *j =
	        p->runnable[SW_MAP].head ? p->runnable[SW_MAP].head : p->runnable[SW_REDUCE].head;

	if (!j)
		return; /* nothing runnable: the pool is in no heap */
	for (int k = 0; k < SW_KINDS; k++) {
		double goal = sw_sched_adaptive_phase_goal(j, k), mu, need = NAN;
		uint32_t running = j->running[k];
		int k_mu;

		if (j->deadline <= 0) {
			p->key[k] = 3 * ORDER_TIER + j->arrival;
		} else if (now >= goal) {
			p->key[k] = j->deadline;
			need = INFINITY;
		} else if (j->done[k] == 0 && j->done[SW_MAP] == 0) {
			p->key[k] = ORDER_TIER + j->arrival;
		} else {
			/* Running tasks are taken as half done: the core keeps no sum of their
			 * start times, and half is the mean left of a task seen at a random
			 * point of its life. Before a reduce finished, a reduce lasts a map
			 * (Polo's default relative cost of a reduce, 1.0). An accelerable job's
			 * maps count only the accelerated pool's (Eq. 2). */
			if (k != SW_MAP || !j->accel || !sw_sched_accel_pool(j, &mu, &running)) {
				k_mu = j->done[k] > 0 ? k : SW_MAP;
				mu = j->duration_sum[k_mu] / j->done[k_mu];
			}
			need = sw_sched_adaptive_slots(mu, running * mu / 2, running, j->pending[k],
			                               goal - now);
			p->key[k] = 2 * ORDER_TIER - need;
		}
		if (k == SW_MAP && j->accel) {
			sw_sched_accel_keyed(s, j, need);
			for (int h = 0; h < SCHED_HW_CLASSES; h++)
				p->barred[k][h] = sw_sched_accel_barred(s, j, h);
		}
	}
}

/* Class 2 keys are 2 * ORDER_TIER - s_req: s_req <= 0 from 2 * ORDER_TIER on, up to class 3. */
bool sw_sched_adaptive_ahead(const struct sched_pool *p)
{
	return p->key[SW_MAP] >= 2 * ORDER_TIER && p->key[SW_MAP] < 3 * ORDER_TIER;
}

/* Soft deadlines: every job is admitted; only a key out of its tier is refused. */
int sw_sched_order_admit_soft(const struct sw_sched *s, const struct sched_job *j, double now)
{
	(void)s;
	(void)now;
	return j->deadline >= ORDER_TIER ? -EINVAL : 0;
}

const struct sched_order_ops sw_sched_order_adaptive = {
        .pool_of = sw_sched_order_pool_per_job,
        .admit = sw_sched_order_admit_soft,
        .update_keys = adaptive_update_keys,
};
