/* SPDX-License-Identifier: MIT */
/* Heartbeats and task events: the only calls that move tasks between states. */
#include <errno.h>
#include <math.h>

#include "policy.h"

struct decision {
	struct sw_sched *s;
	uint32_t node;
	enum sw_task_kind kind;
	double now;
	struct sched_choice choice;
};

static bool try_pool(struct sched_pool *p, void *arg)
{
	struct decision *d = arg;

	if (sw_sched_hold_full(d->s, p, d->kind))
		return false; /* the next pool may take the slot */
	return d->s->policy->pick->pick(d->s, p, d->node, d->kind, d->now, &d->choice);
}

static void launch(struct sw_sched *s, const struct decision *d, struct sw_assignment *out)
{
	struct sched_job *j = d->choice.job;
	struct sched_task *t = &j->tasks[d->kind][d->choice.task];
	struct sched_pool *p = s->pools[j->pool];
	struct sched_node *n = &s->nodes[d->node];

	t->started = d->now;
	t->node = d->node;
	t->state = TASK_RUNNING;
	t->started_seen = false;
	j->pending[d->kind]--;
	j->running[d->kind]++;
	p->running[d->kind]++;
	n->running[d->kind]++;
	sw_sched_hold_count(s, j, d->kind, 1);
	sw_sched_resources_add(&p->used, sw_sched_task_demand(j, d->kind), 1);
	sw_sched_resources_add(&n->used, sw_sched_task_demand(j, d->kind), 1);
	sw_sched_keep_take(n, j, d->kind);
	if (j->pending[d->kind] == 0) {
		sw_sched_pool_list_del(s, p, j, d->kind);
		sw_sched_keep_forget(s, j,
		                     d->kind); /* none left to start where the plan kept room */
	}
	sw_sched_pool_refresh(s, p, d->now);
	*out = (struct sw_assignment){
	        .job = j->id,
	        .kind = d->kind,
	        .task = d->choice.task,
	        .locality = d->choice.locality,
	        .src_node = d->choice.src_node,
	};
}

int sw_sched_plan(struct sw_sched *s, double now)
{
	int rc;

	if (!s->policy->order->plan)
		return -EOPNOTSUPP;
	rc = s->policy->order->plan(s, now);
	if (rc < 0)
		return rc;
	s->plan_due = false;
	s->plan_next = now + s->cfg.plan_period;
	sw_sched_pool_refresh_all(s, now);
	return 0;
}

int sw_sched_heartbeat(struct sw_sched *s, const struct sw_heartbeat *hb, double now,
                       struct sw_assignment *out, int max)
{
	int n_out = 0;

	if (!s || !hb || hb->node >= s->n_nodes || max < 0 || (max > 0 && !out) || !isfinite(now))
		return -EINVAL;
	if (s->nodes[hb->node].down)
		return 0;
	/* Out of memory keeps the previous plan; the next heartbeat tries again. */
	if (s->policy->order->plan && (s->plan_due || now >= s->plan_next))
		(void)sw_sched_plan(s, now);
	if (s->policy->pick->heartbeat_begin)
		s->policy->pick->heartbeat_begin(s, now);
	for (int k = 0; k < SW_KINDS; k++) {
		const struct sched_node *node = &s->nodes[hb->node];
		/* Trust our own count over a report that would overfill the node. */
		int free_slots = node->slots[k] - node->running[k];
		struct decision d = {.s = s, .node = hb->node, .kind = k, .now = now};

		if (hb->free_slots[k] < free_slots)
			free_slots = hb->free_slots[k];
		for (int i = 0; i < free_slots && n_out < max; i++) {
			/* A plan's targets on this node first (keep.c); the ORDER's heap then
			 * offers the room no target claims, if there is any. */
			if (!sw_sched_keep_serve(s, hb->node, k, try_pool, &d) &&
			    (sw_sched_keep_full(node, k) ||
			     !sw_sched_pool_heap_walk(&s->ready[k][sw_sched_node_hw(s, hb->node)],
			                              try_pool, &d)))
				break;
			launch(s, &d, &out[n_out++]);
		}
	}
	return n_out;
}

/* Live job @p job if it has task @p task of @p kind, else NULL with *rc set (-EINVAL bad
 * argument, -ENOENT). */
static struct sched_job *task_find(struct sw_sched *s, uint64_t job, enum sw_task_kind kind,
                                   uint32_t task, double now, int *rc)
{
	struct sched_job *j;

	*rc = -EINVAL;
	if (!s || (unsigned)kind >= SW_KINDS || !isfinite(now))
		return NULL;
	*rc = -ENOENT;
	j = sw_sched_job_table_find(&s->jobs, job);
	if (!j || task >= j->n_tasks[kind])
		return NULL;
	*rc = 0;
	return j;
}

struct sched_task *sw_sched_task_running(struct sw_sched *s, uint64_t job, enum sw_task_kind kind,
                                         uint32_t task, double now, struct sched_job **jp, int *rc)
{
	struct sched_job *j = task_find(s, job, kind, task, now, rc);

	*jp = j;
	if (!j)
		return NULL;
	if (j->tasks[kind][task].state != TASK_RUNNING) {
		*rc = -EALREADY;
		return NULL;
	}
	return &j->tasks[kind][task];
}

int sw_sched_task_started(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                          double now)
{
	int rc;
	struct sched_job *j;
	struct sched_task *t = sw_sched_task_running(s, job, kind, task, now, &j, &rc);

	if (!t)
		return rc;
	if (t->started_seen)
		return -EALREADY;
	t->started = now;
	t->started_seen = true;
	return 0;
}

static void map_done(struct sw_sched *s, struct sched_pool *p, struct sched_job *j)
{
	if (j->reduces_ready || j->done[SW_MAP] < j->slowstart_maps)
		return;
	j->reduces_ready = true;
	if (j->pending[SW_REDUCE] > 0)
		sw_sched_pool_list_add(s, p, j, SW_REDUCE);
}

void sw_sched_task_release(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                           struct sched_task *t)
{
	struct sched_pool *p = s->pools[j->pool];
	struct sched_node *n = &s->nodes[t->node];

	j->running[kind]--;
	p->running[kind]--;
	n->running[kind]--;
	sw_sched_hold_count(s, j, kind, -1);
	sw_sched_resources_add(&p->used, sw_sched_task_demand(j, kind), -1);
	sw_sched_resources_add(&n->used, sw_sched_task_demand(j, kind), -1);
	sw_sched_keep_give(n, j, kind);
	/* Sums of doubles drift: an idle node or pool uses exactly nothing. */
	if (n->running[SW_MAP] + n->running[SW_REDUCE] == 0)
		n->used = (struct sw_resources){0};
	if (p->running[SW_MAP] + p->running[SW_REDUCE] == 0)
		p->used = (struct sw_resources){0};
}

void sw_sched_reduces_recharge(struct sw_sched *s, struct sched_job *j,
                               const struct sw_resources *was)
{
	const struct sw_resources *now = sw_sched_task_demand(j, SW_REDUCE);
	struct sched_pool *p = s->pools[j->pool];

	if (now == was)
		return;
	for (uint32_t r = 0; r < j->n_tasks[SW_REDUCE]; r++) {
		struct sched_node *n = &s->nodes[j->tasks[SW_REDUCE][r].node];

		if (j->tasks[SW_REDUCE][r].state != TASK_RUNNING)
			continue;
		sw_sched_resources_add(&n->used, was, -1);
		sw_sched_resources_add(&n->used, now, 1);
		sw_sched_resources_add(&p->used, was, -1);
		sw_sched_resources_add(&p->used, now, 1);
	}
}

int sw_sched_task_finished(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                           double now)
{
	int rc;
	struct sched_job *j;
	struct sched_task *t = sw_sched_task_running(s, job, kind, task, now, &j, &rc);
	struct sched_pool *p;
	const struct sw_resources *was;

	if (!t)
		return rc;
	p = s->pools[j->pool];
	sw_sched_task_release(s, j, kind, t);
	was = sw_sched_task_demand(j, SW_REDUCE);
	t->state = TASK_DONE;
	t->duration = now - t->started;
	j->done[kind]++;
	sw_sched_reduces_recharge(s, j, was);
	j->duration_sum[kind] += t->duration;
	if (kind == SW_MAP)
		map_done(s, p, j);
	if (s->policy->pick->task_finished)
		s->policy->pick->task_finished(s, j, kind, task, now);
	sw_sched_pool_refresh(s, p, now);
	if (j->done[SW_MAP] + j->done[SW_REDUCE] == j->n_tasks[SW_MAP] + j->n_tasks[SW_REDUCE])
		sw_sched_job_drop(s, j);
	return 0;
}

int sw_sched_map_output(struct sw_sched *s, uint64_t job, uint32_t map, uint32_t node,
                        uint64_t bytes, double now)
{
	int rc;
	struct sched_job *j = task_find(s, job, SW_MAP, map, now, &rc);
	struct sched_map *m;

	if (!j)
		return rc;
	if (node >= s->n_nodes)
		return -EINVAL;
	if (s->nodes[node].down)
		return -EHOSTDOWN;
	m = &j->maps[map];
	if (j->tasks[SW_MAP][map].state == TASK_PENDING || m->output_node != SW_NO_NODE)
		return -EALREADY;
	m->output_node = node;
	m->output_bytes = bytes;
	j->outputs++;
	j->output_bytes += bytes;
	if (s->policy->pick->map_output)
		s->policy->pick->map_output(s, j, map, now);
	return 0;
}
