/* SPDX-License-Identifier: MIT */
/*
 * Dominant Resource Fairness (Ghodsi et al., NSDI'11): per-user pools ranked by dominant
 * share, the largest of the user's cpu and memory use as fractions of the cluster's, lowest
 * first, for both slot kinds alike.
 */
#include <math.h>

#include "policy.h"

static uint32_t drf_pool_of(const struct sw_sched *s, const struct sched_job *j)
{
	(void)s;
	return j->user;
}

static double fraction(double used, double total)
{
	return total > 0 ? used / total : 0;
}

static void drf_update_keys(const struct sw_sched *s, struct sched_pool *p, double now)
{
	double share = fmax(fraction(p->used.cpu, s->total.cpu),
	                    fraction(p->used.mem_gb, s->total.mem_gb));

	(void)now;
	p->key[SW_MAP] = p->key[SW_REDUCE] = share;
}

const struct sched_order_ops sw_sched_order_drf = {
        .pool_of = drf_pool_of,
        .update_keys = drf_update_keys,
};
