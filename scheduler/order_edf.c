/* SPDX-License-Identifier: MIT */
/*
 * MinEDF (ARIA's Algorithm 1, made work-conserving): a pool per job, ranked in tiers, lower
 * first:
 *   0  a deadline job running fewer tasks of the kind than its allocation, by deadline;
 *   1  a deadline job at or above its allocation, by deadline (spare slots);
 *   2  a job without a deadline, by arrival.
 * The allocation is the Lagrange minimum of the job's remaining tasks for the time left to
 * its deadline, on ARIA's average bound, recomputed at every add, launch and finish of the
 * job. Spare slots come back without preemption: each slot a running task frees goes to
 * tier 0 first.
 */
#include <errno.h>

#include "policy.h"
#include "sw_sched_aria.h"

#define EDF_TIER ORDER_TIER

/* The first pool that holds no live job: ids are reused, the array stays as small as the
 * most jobs live at once. */
uint32_t sw_sched_order_pool_per_job(const struct sw_sched *s, const struct sched_job *j)
{
	uint32_t id = 0;

	(void)j;
	while (id < s->n_pools && s->pools[id] && s->pools[id]->jobs > 0)
		id++;
	return id;
}

/* A profile without durations (one that gives only ShuffleWatcher's ratio) sizes nothing. */
static bool edf_sized(const struct sched_job *j)
{
	const struct sw_job_profile *p = &j->profile;

	return j->has_profile && p->map_avg + p->shuffle_avg + p->reduce_avg > 0;
}

/* Slots of each kind @p j deserves now: its Lagrange minimum on @p bound, all its tasks
 * without a profile or when the deadline can no longer be met. */
static void edf_allocation(const struct sched_job *j, enum sw_aria_bound bound, double now,
                           uint32_t quota[SW_KINDS])
{
	struct sw_aria_model m;

	quota[SW_MAP] = j->n_tasks[SW_MAP];
	quota[SW_REDUCE] = j->n_tasks[SW_REDUCE];
	if (!edf_sized(j) ||
	    sw_sched_aria_model(&j->profile, j->n_tasks[SW_MAP] - j->done[SW_MAP],
	                        j->n_tasks[SW_REDUCE] - j->done[SW_REDUCE], bound, &m) < 0)
		return;
	if (sw_sched_aria_min_slots(&m, j->deadline - now, quota) == -ETIME) {
		quota[SW_MAP] = j->n_tasks[SW_MAP];
		quota[SW_REDUCE] = j->n_tasks[SW_REDUCE];
	}
}

static void edf_update_keys(const struct sw_sched *s, struct sched_pool *p, double now)
{
	const struct sched_job *j =
	        p->runnable[SW_MAP].head ? p->runnable[SW_MAP].head : p->runnable[SW_REDUCE].head;
	uint32_t quota[SW_KINDS];

	if (!j)
		return; /* nothing runnable: the pool is in no heap */
	if (j->deadline <= 0) {
		for (int k = 0; k < SW_KINDS; k++)
			p->key[k] = 2 * EDF_TIER + j->arrival;
		return;
	}
	edf_allocation(j, s->cfg.aria_bound, now, quota);
	for (int k = 0; k < SW_KINDS; k++)
		p->key[k] = (j->running[k] < quota[k] ? 0 : EDF_TIER) + j->deadline;
}

/* Refuses a job that would miss its deadline even alone on the whole cluster (lower bound). */
static int edf_admit(const struct sw_sched *s, const struct sched_job *j, double now)
{
	struct sw_aria_model m;

	if (j->deadline <= 0)
		return 0;
	if (j->deadline >= EDF_TIER)
		return -EINVAL;
	if (j->deadline <= now)
		return -ETIME;
	if (!edf_sized(j))
		return 0;
	if (sw_sched_aria_model(&j->profile, j->n_tasks[SW_MAP], j->n_tasks[SW_REDUCE], SW_ARIA_LOW,
	                        &m) < 0)
		return -EINVAL;
	if (now + sw_sched_aria_time(&m, (uint32_t)s->total_slots[SW_MAP],
	                             (uint32_t)s->total_slots[SW_REDUCE]) >
	    j->deadline)
		return -ETIME;
	return 0;
}

/*
 * ARIA's Algorithm 1 as printed (policy aria): a deadline job runs at most its allocation;
 * a slot that would be spare for it goes on to the jobs without a deadline, or stays empty.
 * MinEDF's spare slots cost more than they seem when they are reduce slots: a reducer
 * started while its maps are pending holds its slot until they are done, so the slot does
 * not come back "as tasks finish" to the next job's minimum.
 */
static bool quota_pick(struct sw_sched *s, struct sched_pool *p, uint32_t node,
                       enum sw_task_kind kind, double now, struct sched_choice *c)
{
	if (p->key[kind] >= EDF_TIER && p->key[kind] < 2 * EDF_TIER)
		return false; /* tier 1: a deadline job at its allocation */
	return sw_sched_pick_locality.pick(s, p, node, kind, now, c);
}

const struct sched_pick_ops sw_sched_pick_quota = {
        .pick = quota_pick,
};

const struct sched_order_ops sw_sched_order_edf = {
        .pool_of = sw_sched_order_pool_per_job,
        .admit = edf_admit,
        .update_keys = edf_update_keys,
};
