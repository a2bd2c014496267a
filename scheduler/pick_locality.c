/* SPDX-License-Identifier: MIT */
/*
 * Locality pick: the earliest job of the pool whose task fits the node; for maps its best
 * placed pending map (node-local, else rack-local, else remote).
 */
#include "policy.h"

bool sw_sched_pick_first_reduce(struct sched_pool *pool, const struct sched_node *n,
                                struct sched_choice *c)
{
	for (struct sched_job *j = pool->runnable[SW_REDUCE].head; j; j = j->link[SW_REDUCE].next)
		if (sw_sched_job_fits(j, SW_REDUCE, n) && sw_sched_job_reduce_next(j, c))
			return true;
	return false;
}

static bool locality_pick(struct sw_sched *s, struct sched_pool *pool, uint32_t node,
                          enum sw_task_kind kind, double now, struct sched_choice *c)
{
	const struct sched_node *n = &s->nodes[node];

	(void)now;
	if (kind == SW_REDUCE)
		return sw_sched_pick_first_reduce(pool, n, c);
	for (struct sched_job *j = pool->runnable[SW_MAP].head; j; j = j->link[SW_MAP].next)
		if (sw_sched_job_fits(j, SW_MAP, n) &&
		    sw_sched_job_map_at(s, j, node, SW_LOCALITY_REMOTE, c))
			return true;
	return false;
}

const struct sched_pick_ops sw_sched_pick_locality = {
        .pick = locality_pick,
};
