/* SPDX-License-Identifier: MIT */
/*
 * The task timeline (sw_sim_config.timeline): when a job completes, each of its tasks' last
 * attempt (the one that counts: its launch, node and end) joins sw_sim_result.tasks. Failed
 * and lost attempts are not kept; the jobs' records count them. A planning policy's control
 * cycles join sw_sim_result.plans as they happen, one row per live job.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_engine.h"

static int reserve(struct sim *s, size_t more)
{
	struct sw_task_run *t;
	size_t cap = s->tasks_cap ? s->tasks_cap : 1024;

	while (cap - s->r->n_tasks < more)
		cap *= 2;
	if (cap == s->tasks_cap)
		return 0;
	t = realloc(s->r->tasks, cap * sizeof(*t));
	if (!t)
		return -ENOMEM;
	s->r->tasks = t;
	s->tasks_cap = cap;
	return 0;
}

int sw_sim_timeline_add(struct sim *s, const struct sim_job *j)
{
	uint32_t n = j->n_maps + j->n_reduces;

	if (reserve(s, n))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct sim_task *t = &j->tasks[i];

		s->r->tasks[s->r->n_tasks++] = (struct sw_task_run){
		        .job = j->desc->id,
		        .task = t->idx,
		        .node = t->node,
		        .pool = s->cluster.nodes[t->node].pool,
		        .kind = t->kind,
		        .start = t->start,
		        .end = t->end,
		};
	}
	return 0;
}

void sw_sim_timeline_plan(void *arg, const struct sw_plan_row *row)
{
	struct sim *s = arg;
	struct sw_plan_row *p = s->r->plans;

	if (s->r->n_plans == s->plans_cap) {
		size_t cap = s->plans_cap ? 2 * s->plans_cap : 1024;

		p = realloc(p, cap * sizeof(*p));
		if (!p) {
			s->plans_lost = true;
			return;
		}
		s->r->plans = p;
		s->plans_cap = cap;
	}
	p[s->r->n_plans] = *row;
	/* the scheduler's id is the job's index in the workload */
	p[s->r->n_plans++].job = s->w->jobs[row->job].id;
}
