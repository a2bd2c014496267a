/* SPDX-License-Identifier: MIT */
/*
 * Failures in the simulated cluster, told to the scheduler through its failure events: a task
 * attempt that fails (drawn per attempt), a node lost, and a job that fails when one of its
 * tasks has failed max_attempts times. The simulator undoes the lost work the way the
 * scheduler does, and checks that both sent back the same number of tasks.
 */
#include <errno.h>
#include <string.h>

#include "rng.h"
#include "sim_engine.h"

/* Keep the failure and straggler draws apart from the workload's streams of the same seed,
 * and from each other. */
#define FAIL_SALT 0x6661696c75726573ULL
#define SLOW_SALT 0x736c6f7761747472ULL

static int running(const struct sim_task *t)
{
	return t->phase != SIM_PENDING && t->phase != SIM_DONE;
}

/* Whether this attempt of @p t draws below @p p, from a stream of its own per (seed, salt,
 * job, task, attempt), whatever the order of events: a task's attempts are consecutive
 * counters, which splitmix64 spreads apart. */
static int attempt_draw(const struct sim *s, const struct sim_task *t, uint64_t salt, double p)
{
	uint64_t task = ((uint64_t)t->job->idx << 33) | ((uint64_t)t->kind << 32) | t->idx;
	struct rng r;

	if (!(p > 0))
		return 0;
	rng_init(&r, s->w->seed ^ salt, rng_splitmix64(&task) + t->attempts);
	return rng_uniform(&r) < p;
}

int sw_sim_attempt_fails(const struct sim *s, const struct sim_task *t)
{
	return attempt_draw(s, t, FAIL_SALT, s->c->task_failure_rate);
}

double sw_sim_attempt_slowdown(const struct sim *s, const struct sim_task *t)
{
	return attempt_draw(s, t, SLOW_SALT, s->c->straggler_rate) ? s->c->straggler_slowdown : 1.0;
}

static int sched_fail(struct sim *s, int rc, const char *call, const struct sim_job *j)
{
	return sw_sim_fail(s, rc, "job %llu: %s at t=%.3f s failed: %s",
	                   (unsigned long long)j->desc->id, call, s->now, strerror(-rc));
}

/* One of @p j's tasks failed too often: the job is killed and recorded as failed. */
static int job_fail(struct sim *s, struct sim_job *j)
{
	int rc = sw_sched_job_remove(s->sched, j->idx, s->now);

	if (rc < 0)
		return sched_fail(s, rc, "sw_sched_job_remove", j);
	for (uint32_t i = 0; i < j->n_maps + j->n_reduces; i++) {
		struct sim_task *t = &j->tasks[i];

		if (running(t)) {
			sw_sim_task_abort(s, t);
			sw_sim_slot_freed(s, t->node, t->kind);
		}
	}
	j->rec->failed = 1;
	s->r->jobs_failed++;
	return sw_sim_job_end(s, j);
}

int sw_sim_attempt_failed(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;
	int rc = sw_sched_task_failed(s->sched, j->idx, t->kind, t->idx, s->now);

	if (rc < 0)
		return sched_fail(s, rc, "sw_sched_task_failed", j);
	j->rec->failed_attempts++;
	s->r->failed_attempts++;
	sw_sim_task_abort(s, t);
	s->last_progress = s->now;
	sw_sim_slot_freed(s, t->node, t->kind);
	return (uint32_t)rc >= s->c->max_attempts ? job_fail(s, j) : 0;
}

/* Tasks of @p j lost with @p node go back to pending, as the scheduler sent them back; adds
 * how many to *@p got. */
static void job_tasks_lost(struct sim *s, struct sim_job *j, uint32_t node, uint32_t *got)
{
	int need = j->reduces_done < j->n_reduces;

	for (uint32_t i = 0; i < j->n_maps + j->n_reduces; i++) {
		struct sim_task *t = &j->tasks[i];

		if (running(t) && t->node == node) {
			sw_sim_task_abort(s, t);
			j->rec->lost_attempts++;
			s->r->lost_attempts++;
			(*got)++;
		} else if (t->kind == SW_MAP && t->phase == SIM_DONE && t->node == node && need) {
			t->phase = SIM_PENDING;
			j->maps_done--;
			j->rec->maps_rerun++;
			s->r->maps_rerun++;
			(*got)++;
		}
	}
}

/* Running reducers drop the lost outputs, which leave the job's list until they re-run. */
static int outputs_lost(struct sim *s, struct sim_job *j, uint32_t node)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < j->n_running; i++) {
		int rc = sw_sim_shuffle_forget(s, &j->tasks[j->n_maps + j->running[i]], node);

		if (rc)
			return rc;
	}
	for (uint32_t i = 0; i < j->n_outputs; i++)
		if (j->tasks[j->outputs[i].map].phase != SIM_PENDING)
			j->outputs[kept++] = j->outputs[i];
	j->n_outputs = kept;
	return 0;
}

/* Flows of @p j's other tasks from or to the lost node: input reads move to another replica,
 * output pipelines go on without it. Either may end the job (freeing it). */
static int job_flows_lost(struct sim *s, struct sim_job *j, uint32_t node)
{
	uint32_t idx = j->idx, n = j->n_maps + j->n_reduces;

	/* s->live[idx] first: once it is NULL, j and its tasks are freed. */
	for (uint32_t i = 0; s->live[idx] && i < n; i++) {
		struct sim_task *t = &j->tasks[i];
		int rc = 0;

		if (t->phase == SIM_INPUT && t->io[0].src == node)
			rc = sw_sim_map_source_lost(s, t);
		for (uint32_t x = 0; !rc && s->live[idx] && t->phase == SIM_WRITE && x < 2; x++) {
			struct sim_xfer *f = &t->io[x];

			if (f->flow != SIM_FLOW_NONE && (f->src == node || f->dst == node))
				rc = sw_sim_write_flow_lost(s, f);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int sw_sim_node_lost(struct sim *s, uint32_t node)
{
	int expect = sw_sched_node_lost(s->sched, node, s->now);
	uint32_t got = 0;

	if (expect < 0)
		return sw_sim_fail(s, expect,
		                   "node %u lost at t=%.3f s: sw_sched_node_lost failed: %s", node,
		                   s->now, strerror(-expect));
	s->r->nodes_lost++;
	s->last_progress = s->now;
	for (size_t i = 0; i < s->w->n_jobs; i++) {
		struct sim_job *j = s->live[i];
		uint32_t before = got;
		int rc;

		if (!j)
			continue;
		job_tasks_lost(s, j, node, &got);
		rc = got > before ? outputs_lost(s, j, node) : 0;
		if (!rc)
			rc = job_flows_lost(s, j, node);
		if (rc)
			return rc;
	}
	if (got != (uint32_t)expect)
		return sw_sim_fail(s, -EPROTO,
		                   "node %u lost at t=%.3f s: the scheduler sent %d tasks back to "
		                   "pending, the simulator %u",
		                   node, s->now, expect, got);
	return 0;
}
