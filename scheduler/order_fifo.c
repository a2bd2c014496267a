/* SPDX-License-Identifier: MIT */
/* FIFO (Hadoop's JobQueueTaskScheduler): one pool of every job, served in arrival order. */
#include "policy.h"

static uint32_t fifo_pool_of(const struct sw_sched *s, const struct sched_job *j)
{
	(void)s;
	(void)j;
	return 0;
}

/* A single pool has nothing to be ranked against: its keys stay 0. */
static void fifo_update_keys(const struct sw_sched *s, struct sched_pool *p, double now)
{
	(void)s;
	(void)p;
	(void)now;
}

const struct sched_order_ops sw_sched_order_fifo = {
        .pool_of = fifo_pool_of,
        .update_keys = fifo_update_keys,
};
