/* SPDX-License-Identifier: MIT */
/*
 * Per-node targets (RAS's Task Scheduler, notes-polo-adaptive-ras.md 3.6): a plan that places tasks
 * on nodes makes job slots there, and each node keeps the room of those of its job slots that no
 * task of their job fills: until the job's task starts, and again when it ends while the job has
 * tasks to start (the thesis's job slot belongs to its job until the next plan: "a task of the
 * appropriate type from the appropriate job" takes the freed slot). Any other task fits only
 * beside that room, so a large task the plan put on a node (a Sort map's 0.5 GB beside its
 * reducer) is not starved by small ones that end and start around it. Room the plan did not give
 * anyone stays open to every job (work-conserving).
 */
#include <math.h>

#include "policy.h"

/* Tasks of entry @p e's job that the node keeps room for. */
static uint16_t left(const struct sched_keep *e)
{
	return e->placed > e->running ? e->placed - e->running : 0;
}

/* Entry of job @p j and @p kind on node @p n, NULL when the plan kept it none. */
static struct sched_keep *find(const struct sched_node *n, const struct sched_job *j,
                               enum sw_task_kind kind)
{
	for (uint16_t i = 0; i < n->n_keep; i++)
		if (n->keep[i].job == j->id && n->keep[i].kind == kind)
			return &n->keep[i];
	return NULL;
}

/* Entry of job @p j and @p kind on node @p n with room kept, else NULL. */
static struct sched_keep *find_left(const struct sched_node *n, const struct sched_job *j,
                                    enum sw_task_kind kind)
{
	struct sched_keep *e = find(n, j, kind);

	return e && left(e) > 0 ? e : NULL;
}

/* Sets entry @p e's counts, moving node @p n's kept room by the change in its tasks left. */
static void set(struct sched_node *n, struct sched_keep *e, uint16_t placed, uint16_t running)
{
	int before = left(e), change;

	e->placed = placed;
	e->running = running;
	change = left(e) - before;
	sw_sched_resources_add(&n->kept, &e->demand, change);
	n->kept_tasks[e->kind] = (uint16_t)(n->kept_tasks[e->kind] + change);
	/* Sums of doubles drift: a node that keeps no task keeps exactly nothing. */
	if (n->kept_tasks[SW_MAP] + n->kept_tasks[SW_REDUCE] == 0)
		n->kept = (struct sw_resources){0};
}

void sw_sched_keep_clear(struct sw_sched *s)
{
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		struct sched_node *n = &s->nodes[i];

		n->n_keep = 0;
		n->kept = (struct sw_resources){0};
		n->kept_tasks[SW_MAP] = n->kept_tasks[SW_REDUCE] = 0;
	}
}

void sw_sched_keep_add(struct sched_node *n, const struct sched_job *j, enum sw_task_kind kind)
{
	struct sched_keep *e = find(n, j, kind);

	/* A plan puts at most a node's slots there, and its keep holds that many entries. */
	if (!e) {
		e = &n->keep[n->n_keep++];
		*e = (struct sched_keep){
		        .job = j->id, .kind = kind, .demand = *sw_sched_task_demand(j, kind)};
	}
	set(n, e, e->placed + 1, e->running);
}

const struct sched_keep *sw_sched_keep_own(const struct sched_node *n, const struct sched_job *j,
                                           enum sw_task_kind kind)
{
	return find_left(n, j, kind);
}

void sw_sched_keep_take(struct sched_node *n, const struct sched_job *j, enum sw_task_kind kind)
{
	struct sched_keep *e = find(n, j, kind);

	if (e)
		set(n, e, e->placed, e->running + 1);
}

void sw_sched_keep_give(struct sched_node *n, const struct sched_job *j, enum sw_task_kind kind)
{
	struct sched_keep *e = find(n, j, kind);

	if (e && e->running > 0)
		set(n, e, e->placed, e->running - 1);
}

void sw_sched_keep_forget(struct sw_sched *s, const struct sched_job *j, enum sw_task_kind kind)
{
	if (!s->policy->order->plan)
		return; /* only a plan keeps room */
	for (uint32_t i = 0; i < s->n_nodes; i++) {
		struct sched_node *n = &s->nodes[i];
		struct sched_keep *e = find(n, j, kind);

		if (e)
			set(n, e, 0, e->running);
	}
}

/* The pool of the job of entry @p e, NULL when the job is gone or keeps nothing there. */
static struct sched_pool *pool_of(const struct sw_sched *s, const struct sched_keep *e)
{
	const struct sched_job *j = left(e) ? sw_sched_job_table_find(&s->jobs, e->job) : NULL;

	return j ? s->pools[j->pool] : NULL;
}

bool sw_sched_keep_serve(struct sw_sched *s, uint32_t node, enum sw_task_kind kind,
                         bool (*try_pool)(struct sched_pool *p, void *arg), void *arg)
{
	const struct sched_node *n = &s->nodes[node];
	double last = -INFINITY;
	uint16_t last_i = 0;

	/* Entries in (pool key, index) order, the lowest first; a node holds a few. */
	for (uint16_t tried = 0; tried < n->n_keep; tried++) {
		struct sched_pool *best = NULL;
		uint16_t best_i = 0;

		for (uint16_t i = 0; i < n->n_keep; i++) {
			struct sched_pool *p =
			        n->keep[i].kind == kind ? pool_of(s, &n->keep[i]) : NULL;

			if (!p || p->key[kind] < last || (p->key[kind] == last && i <= last_i))
				continue;
			if (!best || p->key[kind] < best->key[kind]) {
				best = p;
				best_i = i;
			}
		}
		if (!best)
			return false;
		if (try_pool(best, arg))
			return true;
		last = best->key[kind];
		last_i = best_i;
	}
	return false;
}

bool sw_sched_keep_full(const struct sched_node *n, enum sw_task_kind kind)
{
	return n->kept_tasks[kind] > 0 && n->running[kind] + n->kept_tasks[kind] >= n->slots[kind];
}
