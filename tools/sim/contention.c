/* SPDX-License-Identifier: MIT */
/*
 * Node contention (sw_sim_config.contention; README.md, "Node contention"): tasks computing
 * on one node share its CPU, disk and memory. Each resource is shared in proportion to the
 * demands asking for it, and a task runs at the share of its tightest resource:
 * speed = min(1, min over its resources of capacity / load). Memory asked beyond the node's
 * capacity also shrinks its CPU and disk by capacity / load (the node swaps), which is what
 * makes too many slots slower than fewer. A reduce copying its input holds memory too (Polo's
 * thesis: a reduce in its shuffle phase "only consumes memory"), though it computes nothing.
 * A resource of capacity 0, or a demand of 0, is not modelled. Every start or end of a
 * compute or copy phase on a node brings that node's computing tasks up to now and moves
 * their ends.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_engine.h"

int sw_sim_contention_setup(struct sim *s)
{
	uint32_t nn = s->cluster.n_nodes;

	if (!s->c->contention)
		return 0;
	for (uint32_t i = 0; i < nn; i++) {
		const struct sw_node_spec *ns = &s->cluster.nodes[i];

		if ((uint32_t)ns->map_slots + ns->reduce_slots > s->stride)
			s->stride = (uint32_t)ns->map_slots + ns->reduce_slots;
	}
	s->computing = calloc((size_t)nn * (s->stride ? s->stride : 1), sizeof(*s->computing));
	s->n_computing = calloc(nn ? nn : 1, sizeof(*s->n_computing));
	s->copying = calloc(nn ? nn : 1, sizeof(*s->copying));
	return s->computing && s->n_computing && s->copying ? 0 : -ENOMEM;
}

void sw_sim_contention_free(struct sim *s)
{
	free(s->computing);
	free(s->n_computing);
	free(s->copying);
}

static const struct sw_resources *demand(const struct sim_task *t)
{
	return t->kind == SW_MAP ? &t->job->bench->map_demand : &t->job->bench->reduce_demand;
}

/* The share of @p cap a task asking @p d gets when the node's tasks ask @p load in all. */
static double share(double d, double cap, double load)
{
	return d > 0 && cap > 0 && load > cap ? cap / load : 1.0;
}

/* Brings node @p node's computing tasks up to now, gives each its speed under the node's
 * present load and queues its end anew. */
static int reshare(struct sim *s, uint32_t node)
{
	struct sim_task **ts = &s->computing[(size_t)node * s->stride];
	const struct sw_resources *cap = &s->cluster.nodes[node].capacity;
	struct sw_resources load = {0};
	double swap;
	uint32_t n = s->n_computing[node];

	load.mem_gb = s->copying[node].mem_gb;
	for (uint32_t i = 0; i < n; i++) {
		const struct sw_resources *d = demand(ts[i]);

		load.cpu += d->cpu;
		load.mem_gb += d->mem_gb;
		load.io += d->io;
	}
	swap = share(1, cap->mem_gb, load.mem_gb);
	for (uint32_t i = 0; i < n; i++) {
		struct sim_task *t = ts[i];
		const struct sw_resources *d = demand(t);
		double speed = share(d->cpu, cap->cpu * swap, load.cpu);
		int rc;

		speed = fmin(speed, share(d->io, cap->io * swap, load.io));
		speed = fmin(speed, share(d->mem_gb, cap->mem_gb, load.mem_gb));
		t->work_left -= t->speed * (s->now - t->since);
		t->work_left = t->work_left > 0 ? t->work_left : 0;
		t->since = s->now;
		if (speed == t->speed && t->ev != SIM_HEAP_NONE)
			continue;
		t->speed = speed;
		sw_sim_cancel_compute(s, t);
		rc = sw_sim_schedule_compute(s, t, s->now + t->work_left / speed);
		if (rc)
			return rc;
	}
	return 0;
}

int sw_sim_compute_start(struct sim *s, struct sim_task *t, double work)
{
	if (!s->computing)
		return sw_sim_schedule_compute(s, t, s->now + work);
	t->work_left = work;
	t->since = s->now;
	t->speed = 0; /* no end queued yet */
	t->cpos = s->n_computing[t->node];
	s->computing[(size_t)t->node * s->stride + t->cpos] = t;
	s->n_computing[t->node]++;
	return reshare(s, t->node);
}

void sw_sim_compute_stop(struct sim *s, struct sim_task *t)
{
	struct sim_task **ts;
	uint32_t last;

	sw_sim_cancel_compute(s, t);
	if (!s->computing)
		return;
	ts = &s->computing[(size_t)t->node * s->stride];
	last = --s->n_computing[t->node];
	ts[t->cpos] = ts[last];
	ts[t->cpos]->cpos = t->cpos;
	/* Cannot fail: every task it queues again gave back its queued end first. */
	(void)reshare(s, t->node);
}

struct sw_resources sw_sim_shuffle_demand(const struct sim *s, const struct sw_bench *b)
{
	struct sw_resources d = b->shuffle_demand;

	/* All 0: the benchmark has no shuffle profile (the scheduler's rule). */
	if (!d.cpu && !d.mem_gb && !d.io)
		return b->reduce_demand;
	if (s->c->copy_memory == SW_SIM_COPY_NONE)
		d.mem_gb = 0;
	return d;
}

/* Reduce @p t starts (@p sign 1) or stops (-1) copying on its node. */
static void copy_change(struct sim *s, const struct sim_task *t, int sign)
{
	struct sim_copying *c;

	if (!s->copying)
		return;
	c = &s->copying[t->node];
	c->mem_gb += sign * sw_sim_shuffle_demand(s, t->job->bench).mem_gb;
	c->reduces += sign > 0 ? 1 : -1;
	/* Sums of doubles drift: a node with no copying reduce holds exactly nothing. */
	if (c->reduces == 0)
		c->mem_gb = 0;
	/* Cannot fail: every task it queues again gave back its queued end first. */
	(void)reshare(s, t->node);
}

void sw_sim_copy_start(struct sim *s, const struct sim_task *t)
{
	copy_change(s, t, 1);
}

void sw_sim_copy_stop(struct sim *s, const struct sim_task *t)
{
	copy_change(s, t, -1);
}
