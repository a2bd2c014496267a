/* SPDX-License-Identifier: MIT */
/*
 * Failures: a task attempt that failed, a node lost and back. Each sends tasks back to
 * pending through requeue(), which restores everything a launch or a finish changed: the
 * job's counters, the cursors of its locality indexes, its place in the pool's runnable
 * lists, the pool's rank, and (through the PICK's hooks) Delay's and NASS's per-job state.
 */
#include <errno.h>
#include <math.h>

#include "policy.h"

/* Forgets map @p m's registered output, if it has one. */
static void output_drop(struct sw_sched *s, struct sched_job *j, uint32_t m)
{
	struct sched_map *map = &j->maps[m];

	if (map->output_node == SW_NO_NODE)
		return;
	j->outputs--;
	j->output_bytes -= map->output_bytes;
	if (s->policy->pick->map_output_dropped)
		s->policy->pick->map_output_dropped(s, j, m);
	map->output_node = SW_NO_NODE;
	map->output_bytes = 0;
}

/* Task @p task of @p j, no longer running or done, is pending again. */
static void requeue(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind, uint32_t task)
{
	struct sched_task *t = &j->tasks[kind][task];

	t->state = TASK_PENDING;
	t->started_seen = false;
	j->pending[kind]++;
	sw_sched_job_rewind(s, j, kind, task);
	/* A job is on its pool's list of a kind while it has pending tasks of it (reduces:
	 * once slow-start is reached, which a lost map does not undo). */
	if (j->pending[kind] == 1 && (kind == SW_MAP || j->reduces_ready))
		sw_sched_pool_list_add(s, s->pools[j->pool], j, kind);
	if (s->policy->pick->task_requeued)
		s->policy->pick->task_requeued(s, j, kind, task);
}

/* Running task @p t goes back to pending; its attempt left nothing behind. */
static void attempt_over(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                         uint32_t task)
{
	sw_sched_task_release(s, j, kind, &j->tasks[kind][task]);
	if (kind == SW_MAP)
		output_drop(s, j, task);
	requeue(s, j, kind, task);
}

int sw_sched_task_failed(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                         double now)
{
	int rc;
	struct sched_job *j;
	struct sched_task *t = sw_sched_task_running(s, job, kind, task, now, &j, &rc);

	if (!t)
		return rc;
	attempt_over(s, j, kind, task);
	if (t->failures < UINT16_MAX)
		t->failures++;
	j->failed[kind]++;
	sw_sched_pool_refresh(s, s->pools[j->pool], now);
	return t->failures;
}

/* Where a finished map's output lives: where it was registered, else where the map ran. */
static uint32_t output_node(const struct sched_job *j, uint32_t m)
{
	uint32_t node = j->maps[m].output_node;

	return node != SW_NO_NODE ? node : j->tasks[SW_MAP][m].node;
}

/* Finished map @p m of @p j runs again: its output is gone and a reduce still needs it. */
static void output_lost(struct sw_sched *s, struct sched_job *j, uint32_t m)
{
	const struct sw_resources *was = sw_sched_task_demand(j, SW_REDUCE);

	j->done[SW_MAP]--;
	sw_sched_reduces_recharge(s, j, was);
	j->duration_sum[SW_MAP] -= j->tasks[SW_MAP][m].duration;
	output_drop(s, j, m);
	requeue(s, j, SW_MAP, m);
	j->lost_outputs++;
}

int sw_sched_map_output_lost(struct sw_sched *s, uint64_t job, uint32_t map, double now)
{
	struct sched_job *j;

	if (!s || !isfinite(now))
		return -EINVAL;
	j = sw_sched_job_table_find(&s->jobs, job);
	if (!j || map >= j->n_tasks[SW_MAP])
		return -ENOENT;
	if (j->tasks[SW_MAP][map].state != TASK_DONE || j->done[SW_REDUCE] == j->n_tasks[SW_REDUCE])
		return -EALREADY;
	output_lost(s, j, map);
	sw_sched_pool_refresh(s, s->pools[j->pool], now);
	return 0;
}

/*
 * Sends back @p j's tasks that ran on @p node and are lost with it, and its finished maps'
 * outputs there unless @p keep_outputs; @return how many.
 */
static uint32_t job_node_lost(struct sw_sched *s, struct sched_job *j, uint32_t node,
                              bool keep_outputs)
{
	bool outputs_needed = !keep_outputs && j->done[SW_REDUCE] < j->n_tasks[SW_REDUCE];
	uint32_t n = 0;

	for (int k = 0; k < SW_KINDS; k++) {
		for (uint32_t i = 0; i < j->n_tasks[k]; i++) {
			struct sched_task *t = &j->tasks[k][i];

			if (t->state == TASK_RUNNING && t->node == node) {
				attempt_over(s, j, k, i);
				j->lost[k]++;
				n++;
			} else if (k == SW_MAP && t->state == TASK_DONE && outputs_needed &&
			           output_node(j, i) == node) {
				output_lost(s, j, i);
				n++;
			}
		}
	}
	return n;
}

/* The node's capacity joins (@p sign 1) or leaves (-1) the totals DRF ranks by. */
static void node_capacity(struct sw_sched *s, uint32_t node, double now, double sign)
{
	const struct sched_node *n = &s->nodes[node];

	s->total.cpu += sign * n->capacity.cpu;
	s->total.mem_gb += sign * n->capacity.mem_gb;
	s->plan_due = true; /* a planning ORDER places on the nodes up */
	if (s->policy->pick->node_changed)
		s->policy->pick->node_changed(s, node);
	/* Every pool's rank may read the totals (DRF); a rare event may pay for all of them. */
	sw_sched_pool_refresh_all(s, now);
}

static int check_node(const struct sw_sched *s, uint32_t node, double now, bool down)
{
	if (!s || node >= s->n_nodes || !isfinite(now))
		return -EINVAL;
	return s->nodes[node].down == down ? -EALREADY : 0;
}

/*
 * Walks every task of every live job: O(tasks live), paid once per lost node, so that
 * launches and finishes keep no per-node task lists.
 */
static int node_tasks_lost(struct sw_sched *s, uint32_t node, bool keep_outputs)
{
	uint32_t n = 0;

	for (uint32_t b = 0; b <= s->jobs.mask; b++)
		for (struct sched_job *j = s->jobs.buckets[b]; j; j = j->hash_next)
			n += job_node_lost(s, j, node, keep_outputs);
	return (int)(n > INT32_MAX ? INT32_MAX : n);
}

int sw_sched_node_lost(struct sw_sched *s, uint32_t node, double now)
{
	int rc = check_node(s, node, now, true);

	if (rc < 0)
		return rc;
	s->nodes[node].down = true;
	rc = node_tasks_lost(s, node, false);
	node_capacity(s, node, now, -1);
	return rc;
}

int sw_sched_node_restarted(struct sw_sched *s, uint32_t node, double now)
{
	int rc = check_node(s, node, now, true); /* -EALREADY: it is down */

	if (rc < 0)
		return rc == -EALREADY ? -EHOSTDOWN : rc;
	rc = node_tasks_lost(s, node, true);
	/* The freed slots and the tasks back to pending change every pool's rank and lists. */
	sw_sched_pool_refresh_all(s, now);
	return rc;
}

int sw_sched_node_up(struct sw_sched *s, uint32_t node, double now)
{
	int rc = check_node(s, node, now, false);

	if (rc < 0)
		return rc;
	s->nodes[node].down = false;
	node_capacity(s, node, now, 1);
	return 0;
}
