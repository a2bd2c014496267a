/* SPDX-License-Identifier: MIT */
/*
 * Polo's data affinity (thesis 3.4.2), the PICK of `adaptive`: a map of the job Adaptive put
 * first that would read its input from another node is deferred, and the slot offered to the
 * next job in Adaptive's order, only while the job already has the slots its goal needs
 * (s_req <= 0) and at most affinity_max_delays times in a row; a job that needs slots
 * launches wherever it is offered one. A job without a deadline never defers: it has no
 * measure of enough, and ranked last it would only leave the slot idle. Local means
 * node-local: Polo's TaskTrackers read local or remote data, and a rack-local read is a
 * remote one to him.
 */
#include "policy.h"

static bool affinity_pick(struct sw_sched *s, struct sched_pool *pool, uint32_t node,
                          enum sw_task_kind kind, double now, struct sched_choice *c)
{
	const struct sched_node *n = &s->nodes[node];

	(void)now;
	if (kind == SW_REDUCE)
		return sw_sched_pick_first_reduce(pool, n, c);
	for (struct sched_job *j = pool->runnable[SW_MAP].head; j; j = j->link[SW_MAP].next) {
		if (!sw_sched_job_fits(j, SW_MAP, n))
			continue;
		if (!sw_sched_job_map_at(s, j, node, SW_LOCALITY_NODE, c)) {
			if (j->deferred < s->cfg.affinity_max_delays &&
			    sw_sched_adaptive_ahead(pool)) {
				j->deferred++;
				continue;
			}
			if (!sw_sched_job_map_at(s, j, node, SW_LOCALITY_REMOTE, c))
				continue;
		}
		j->deferred = 0;
		return true;
	}
	return false;
}

const struct sched_pick_ops sw_sched_pick_affinity = {
        .pick = affinity_pick,
};
