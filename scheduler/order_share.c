/* SPDX-License-Identifier: MIT */
/*
 * Slot-share orders: a pool's rank for a slot kind is its running tasks of that kind over the
 * slots it is entitled to, lowest first.
 *  - Fair (Hadoop Fair Scheduler, per-user pools, equal weights, no minimum shares): weight 1,
 *    so the user with the fewest running tasks of the kind goes first.
 *  - Capacity (Hadoop Capacity Scheduler, per-queue): weight = the queue's guaranteed slots,
 *    so the queue furthest below its guarantee goes first. Only pools with runnable tasks
 *    are ranked at all, so a queue without demand lends its slots to the others (elastic).
 */
#include <math.h>

#include "policy.h"

static void share_update_keys(const struct sw_sched *s, struct sched_pool *p, double now)
{
	(void)s;
	(void)now;
	for (int k = 0; k < SW_KINDS; k++)
		p->key[k] = p->weight[k] > 0 ? p->running[k] / p->weight[k] : INFINITY;
}

static uint32_t pool_per_user(const struct sw_sched *s, const struct sched_job *j)
{
	(void)s;
	return j->user;
}

static uint32_t pool_per_queue(const struct sw_sched *s, const struct sched_job *j)
{
	(void)s;
	return j->queue;
}

static void capacity_pool_init(const struct sw_sched *s, struct sched_pool *p)
{
	for (int k = 0; k < SW_KINDS; k++)
		p->weight[k] = s->queue_capacity[p->id] * s->total_slots[k];
}

const struct sched_order_ops sw_sched_order_fair = {
        .pool_of = pool_per_user,
        .update_keys = share_update_keys,
};

const struct sched_order_ops sw_sched_order_capacity = {
        .pool_of = pool_per_queue,
        .pool_init = capacity_pool_init,
        .update_keys = share_update_keys,
};
