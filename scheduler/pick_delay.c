/* SPDX-License-Identifier: MIT */
/*
 * Delay Scheduling (Zaharia et al., EuroSys'10), as the Hadoop Fair Scheduler implements it
 * (FairScheduler.getAllowedLocalityLevel). Each job remembers the locality of its last
 * launched map and how long it has been skipped since. A job may always launch node-local;
 * rack-local once it has waited node_wait; anywhere once it has waited node_wait + rack_wait
 * (or rack_wait, if its last map was already rack-local). Launching a map sets the job's
 * level to that map's locality and its wait to zero. A job skipped for locality leaves the
 * slot to the next job, then the next pool, in fair order: that is the relaxed fairness.
 *
 * Wait accounting is HFS's: at each heartbeat, every job skipped during the previous one is
 * credited the time between the two. Only the jobs skipped are listed, so the cost is paid
 * by the decisions that skipped them, never by a scan of all jobs.
 */
#include <errno.h>
#include <stdlib.h>

#include "policy.h"

struct delay_sched {
	double last_heartbeat;
	bool seen_heartbeat;
	struct sched_job **skipped; /* jobs skipped since the last heartbeat began */
	uint32_t n_skipped, cap;
};

static int delay_init(struct sw_sched *s)
{
	s->pick_priv = calloc(1, sizeof(struct delay_sched));
	return s->pick_priv ? 0 : -ENOMEM;
}

static void delay_fini(struct sw_sched *s)
{
	struct delay_sched *d = s->pick_priv;

	if (d)
		free(d->skipped);
	free(d);
	s->pick_priv = NULL;
}

/* A job is listed at most once, so room for every live job means skipping never fails. */
static int delay_job_added(struct sw_sched *s, struct sched_job *j, double now)
{
	struct delay_sched *d = s->pick_priv;
	uint32_t cap = d->cap ? d->cap : 64;
	struct sched_job **v;

	(void)j;
	(void)now;
	while (cap < s->jobs.count)
		cap *= 2;
	if (cap == d->cap)
		return 0;
	v = realloc(d->skipped, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	d->skipped = v;
	d->cap = cap;
	return 0;
}

static void delay_heartbeat_begin(struct sw_sched *s, double now)
{
	struct delay_sched *d = s->pick_priv;
	double dt = d->seen_heartbeat && now > d->last_heartbeat ? now - d->last_heartbeat : 0;

	for (uint32_t i = 0; i < d->n_skipped; i++) {
		d->skipped[i]->delay.waited += dt;
		d->skipped[i]->delay.skip_idx = SCHED_NONE;
	}
	d->n_skipped = 0;
	d->last_heartbeat = now;
	d->seen_heartbeat = true;
}

static void delay_job_removed(struct sw_sched *s, struct sched_job *j)
{
	struct delay_sched *d = s->pick_priv;
	uint32_t i = j->delay.skip_idx;

	if (i == SCHED_NONE)
		return;
	d->skipped[i] = d->skipped[--d->n_skipped];
	d->skipped[i]->delay.skip_idx = i;
}

static void skip(struct delay_sched *d, struct sched_job *j)
{
	if (j->delay.skip_idx != SCHED_NONE)
		return;
	j->delay.skip_idx = d->n_skipped;
	d->skipped[d->n_skipped++] = j;
}

static enum sw_locality allowed_level(const struct sw_sched *s, const struct sched_job *j)
{
	double w = j->delay.waited;

	switch (j->delay.level) {
	case SW_LOCALITY_NODE:
		if (w >= s->cfg.node_wait + s->cfg.rack_wait)
			return SW_LOCALITY_REMOTE;
		return w >= s->cfg.node_wait ? SW_LOCALITY_RACK : SW_LOCALITY_NODE;
	case SW_LOCALITY_RACK:
		return w >= s->cfg.rack_wait ? SW_LOCALITY_REMOTE : SW_LOCALITY_RACK;
	default:
		return SW_LOCALITY_REMOTE;
	}
}

static bool delay_pick(struct sw_sched *s, struct sched_pool *pool, uint32_t node,
                       enum sw_task_kind kind, double now, struct sched_choice *c)
{
	const struct sched_node *n = &s->nodes[node];

	(void)now;
	if (kind == SW_REDUCE)
		return sw_sched_pick_first_reduce(pool, n, c);
	for (struct sched_job *j = pool->runnable[SW_MAP].head; j; j = j->link[SW_MAP].next) {
		if (!sw_sched_job_fits(j, SW_MAP, n))
			continue;
		if (sw_sched_job_map_at(s, j, node, allowed_level(s, j), c)) {
			j->delay.level = c->locality;
			j->delay.waited = 0;
			return true;
		}
		skip(s->pick_priv, j);
	}
	return false;
}

const struct sched_pick_ops sw_sched_pick_delay = {
        .init = delay_init,
        .fini = delay_fini,
        .heartbeat_begin = delay_heartbeat_begin,
        .job_added = delay_job_added,
        .job_removed = delay_job_removed,
        .pick = delay_pick,
};
