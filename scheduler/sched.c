/* SPDX-License-Identifier: MIT */
/* Lifecycle of a scheduler and of its jobs. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

/* Fractions of queue_capacity must sum to 1 within this. */
#define CAPACITY_SUM_EPS 1e-6

void sw_sched_config_default(struct sw_sched_config *cfg)
{
	*cfg = (struct sw_sched_config){
	        .policy = "fair",
	        .n_users = 1,
	        .n_queues = 1,
	        .queue_capacity = NULL,
	        .slowstart = 0.05,
	        .node_wait = 5,
	        .rack_wait = 5,
	        .nw_saturation_threshold = 0.8,
	        .netsat_window = 3,
	        .netsat_smoothing = 0.5,
	        .netsat_hysteresis = 0.05,
	        .map_completion_threshold = 0.15,
	        .starvation_window = 600,
	        .relaxed_wait = 5,
	        .sw_mechanisms = SW_MECH_ALL,
	        .plan_period = 30,
	        .affinity_max_delays = 1,
	        .accel_threshold = 1.5,
	        .aria_bound = SW_ARIA_AVG,
	};
}

static bool nonneg(double x)
{
	return isfinite(x) && x >= 0;
}

static bool resources_ok(const struct sw_resources *r)
{
	return nonneg(r->cpu) && nonneg(r->mem_gb) && nonneg(r->io);
}

static int check_cluster(const struct sw_cluster_spec *c)
{
	if (!c || c->n_racks == 0 || c->n_nodes == 0 || !c->racks || !c->nodes)
		return -EINVAL;
	for (uint32_t r = 0; r < c->n_racks; r++)
		if (!nonneg(c->racks[r].uplink_bps))
			return -EINVAL;
	for (uint32_t i = 0; i < c->n_nodes; i++) {
		const struct sw_node_spec *n = &c->nodes[i];

		if (n->rack >= c->n_racks || !resources_ok(&n->capacity) || !nonneg(n->nic_bps))
			return -EINVAL;
	}
	return 0;
}

static bool fraction_ok(double x)
{
	return x >= 0 && x <= 1;
}

static int check_sw_config(const struct sw_sched_config *cfg)
{
	if (!(isfinite(cfg->nw_saturation_threshold) && cfg->nw_saturation_threshold > 0) ||
	    !(isfinite(cfg->netsat_window) && cfg->netsat_window > 0) ||
	    !(cfg->netsat_smoothing > 0 && cfg->netsat_smoothing <= 1))
		return -EINVAL;
	if (!(nonneg(cfg->netsat_hysteresis) &&
	      cfg->netsat_hysteresis < cfg->nw_saturation_threshold) ||
	    !fraction_ok(cfg->map_completion_threshold) || !nonneg(cfg->starvation_window) ||
	    !nonneg(cfg->relaxed_wait) || (cfg->sw_mechanisms & ~(unsigned)SW_MECH_ALL) ||
	    !(isfinite(cfg->plan_period) && cfg->plan_period > 0))
		return -EINVAL;
	return 0;
}

static int check_config(const struct sw_sched_config *cfg)
{
	double sum = 0;

	if (!cfg || !sw_sched_policy_find(cfg->policy) || cfg->n_users == 0 || cfg->n_queues == 0 ||
	    cfg->n_users > SW_SCHED_MAX_USERS || cfg->n_queues > SW_SCHED_MAX_QUEUES)
		return -EINVAL;
	if (!(cfg->slowstart >= 0 && cfg->slowstart <= 1) || !nonneg(cfg->node_wait) ||
	    !nonneg(cfg->rack_wait) || (unsigned)cfg->aria_bound > SW_ARIA_UP ||
	    !(isfinite(cfg->accel_threshold) && cfg->accel_threshold >= 1))
		return -EINVAL;
	if (check_sw_config(cfg) < 0)
		return -EINVAL;
	if (!cfg->queue_capacity)
		return 0;
	for (uint32_t q = 0; q < cfg->n_queues; q++) {
		if (!nonneg(cfg->queue_capacity[q]))
			return -EINVAL;
		sum += cfg->queue_capacity[q];
	}
	return fabs(sum - 1) <= CAPACITY_SUM_EPS ? 0 : -EINVAL;
}

static int copy_cluster(struct sw_sched *s, const struct sw_cluster_spec *c)
{
	size_t slots = 0;

	for (uint32_t i = 0; i < c->n_nodes; i++)
		slots += (size_t)c->nodes[i].map_slots + c->nodes[i].reduce_slots;
	s->n_nodes = c->n_nodes;
	s->n_racks = c->n_racks;
	s->nodes = calloc(c->n_nodes, sizeof(*s->nodes));
	s->keeps = calloc(slots + 1, sizeof(*s->keeps));
	s->rack_uplink_bps = calloc(c->n_racks, sizeof(*s->rack_uplink_bps));
	s->netsat = calloc(c->n_racks, sizeof(*s->netsat));
	if (!s->nodes || !s->keeps || !s->rack_uplink_bps || !s->netsat)
		return -ENOMEM;
	slots = 0;
	for (uint32_t r = 0; r < c->n_racks; r++)
		s->rack_uplink_bps[r] = c->racks[r].uplink_bps;
	for (uint32_t i = 0; i < c->n_nodes; i++) {
		const struct sw_node_spec *in = &c->nodes[i];
		struct sched_node *n = &s->nodes[i];

		n->rack = in->rack;
		n->hw_pool = in->pool;
		n->slots[SW_MAP] = in->map_slots;
		n->slots[SW_REDUCE] = in->reduce_slots;
		n->capacity = in->capacity;
		n->nic_bps = in->nic_bps;
		n->keep = s->keeps + slots;
		slots += (size_t)in->map_slots + in->reduce_slots;
		s->total.cpu += in->capacity.cpu;
		s->total.mem_gb += in->capacity.mem_gb;
		s->largest.cpu = fmax(s->largest.cpu, in->capacity.cpu);
		s->largest.mem_gb = fmax(s->largest.mem_gb, in->capacity.mem_gb);
		s->largest.io = fmax(s->largest.io, in->capacity.io);
		s->total_slots[SW_MAP] += in->map_slots;
		s->total_slots[SW_REDUCE] += in->reduce_slots;
	}
	return 0;
}

static int copy_config(struct sw_sched *s, const struct sw_sched_config *cfg)
{
	s->cfg = *cfg;
	s->cfg.policy = s->policy->name;
	s->queue_capacity = malloc(cfg->n_queues * sizeof(*s->queue_capacity));
	if (!s->queue_capacity)
		return -ENOMEM;
	for (uint32_t q = 0; q < cfg->n_queues; q++)
		s->queue_capacity[q] =
		        cfg->queue_capacity ? cfg->queue_capacity[q] : 1.0 / cfg->n_queues;
	s->cfg.queue_capacity = s->queue_capacity;
	return 0;
}

struct sw_sched *sw_sched_create(const struct sw_cluster_spec *cluster,
                                 const struct sw_sched_config *cfg)
{
	struct sw_sched *s;
	int rc = check_cluster(cluster);

	if (rc == 0)
		rc = check_config(cfg);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	s->policy = sw_sched_policy_find(cfg->policy);
	s->n_hw = s->policy->pick->hw_classes ? SCHED_HW_CLASSES : 1;
	for (int k = 0; k < SW_KINDS; k++)
		for (uint32_t h = 0; h < SCHED_HW_CLASSES; h++)
			sw_sched_pool_heap_init(&s->ready[k][h], k, h);
	rc = copy_cluster(s, cluster);
	if (rc == 0)
		rc = copy_config(s, cfg);
	if (rc == 0)
		rc = sw_sched_job_table_init(&s->jobs);
	if (rc == 0 && s->policy->pick->init)
		rc = s->policy->pick->init(s);
	if (rc < 0) {
		sw_sched_destroy(s);
		errno = -rc;
		return NULL;
	}
	return s;
}

void sw_sched_destroy(struct sw_sched *s)
{
	if (!s)
		return;
	if (s->jobs.buckets) {
		for (uint32_t b = 0; b <= s->jobs.mask; b++) {
			while (s->jobs.buckets[b]) {
				struct sched_job *j = s->jobs.buckets[b];

				s->jobs.buckets[b] = j->hash_next;
				sw_sched_job_free(j);
			}
		}
	}
	if (s->policy->pick->fini)
		s->policy->pick->fini(s);
	sw_sched_job_table_fini(&s->jobs);
	for (uint32_t i = 0; i < s->n_pools; i++)
		free(s->pools[i]);
	free(s->pools);
	for (int k = 0; k < SW_KINDS; k++)
		for (uint32_t h = 0; h < SCHED_HW_CLASSES; h++)
			sw_sched_pool_heap_fini(&s->ready[k][h]);
	free(s->nodes);
	free(s->keeps);
	free(s->rack_uplink_bps);
	free(s->netsat);
	free(s->queue_capacity);
	free(s->holds);
	free(s->tx);
	free(s);
}

const char *sw_sched_policy(const struct sw_sched *s)
{
	return s->policy->name;
}

uint32_t sw_sched_jobs_live(const struct sw_sched *s)
{
	return s->jobs.count;
}

/* A kind's demand must be sane and, if the job has such tasks, fit the largest node. */
static bool demand_ok(const struct sw_sched *s, const struct sw_resources *d, uint32_t n_tasks)
{
	if (!resources_ok(d))
		return false;
	return n_tasks == 0 || (d->cpu <= s->largest.cpu && d->mem_gb <= s->largest.mem_gb &&
	                        d->io <= s->largest.io);
}

static int check_job(const struct sw_sched *s, const struct sw_job_spec *job, double now)
{
	if (!s || !job || !isfinite(now) || !isfinite(job->arrival))
		return -EINVAL;
	if (job->user >= s->cfg.n_users || job->queue >= s->cfg.n_queues ||
	    (unsigned)job->cls >= SW_CLASSES || job->n_maps + (uint64_t)job->n_reduces == 0)
		return -EINVAL;
	if (!demand_ok(s, &job->map_demand, job->n_maps) ||
	    !demand_ok(s, &job->reduce_demand, job->n_reduces) ||
	    !demand_ok(s, &job->shuffle_demand, job->n_reduces) || !nonneg(job->deadline))
		return -EINVAL;
	return sw_sched_job_table_find(&s->jobs, job->id) ? -EEXIST : 0;
}

int sw_sched_job_add(struct sw_sched *s, const struct sw_job_spec *job, double now)
{
	const struct sched_pick_ops *pick;
	struct sched_pool *p;
	struct sched_job *j;
	int rc = check_job(s, job, now);

	if (rc < 0)
		return rc;
	rc = sw_sched_job_create(s, job, &j);
	if (rc < 0)
		return rc;
	rc = s->policy->order->admit ? s->policy->order->admit(s, j, now) : 0;
	if (rc < 0) {
		sw_sched_job_free(j);
		return rc;
	}
	j->seq = s->next_seq++;
	j->pool = s->policy->order->pool_of(s, j);
	p = sw_sched_pool_get(s, j->pool);
	pick = s->policy->pick;
	if (!p || sw_sched_job_table_insert(&s->jobs, j) < 0) {
		sw_sched_job_free(j);
		return -ENOMEM;
	}
	if (s->policy->order->job_added && s->policy->order->job_added(s, j, now) < 0) {
		sw_sched_job_table_remove(&s->jobs, j);
		sw_sched_job_free(j);
		return -ENOMEM;
	}
	if (pick->job_added && pick->job_added(s, j, now) < 0) {
		sw_sched_job_table_remove(&s->jobs, j);
		sw_sched_job_free(j);
		return -ENOMEM;
	}
	s->plan_due = true; /* a planning ORDER places the newcomer at the next heartbeat */
	p->jobs++;
	if (j->pending[SW_MAP] > 0)
		sw_sched_pool_list_add(s, p, j, SW_MAP);
	if (j->reduces_ready && j->pending[SW_REDUCE] > 0)
		sw_sched_pool_list_add(s, p, j, SW_REDUCE);
	sw_sched_pool_refresh(s, p, now);
	return 0;
}

void sw_sched_job_drop(struct sw_sched *s, struct sched_job *j)
{
	for (int k = 0; k < SW_KINDS; k++)
		sw_sched_keep_forget(s, j, k);
	if (s->policy->pick->job_removed)
		s->policy->pick->job_removed(s, j);
	s->pools[j->pool]->jobs--;
	sw_sched_job_table_remove(&s->jobs, j);
	sw_sched_job_free(j);
}

int sw_sched_job_remove(struct sw_sched *s, uint64_t job, double now)
{
	struct sched_job *j;
	struct sched_pool *p;

	if (!s || !isfinite(now))
		return -EINVAL;
	j = sw_sched_job_table_find(&s->jobs, job);
	if (!j)
		return -ENOENT;
	p = s->pools[j->pool];
	for (int k = 0; k < SW_KINDS; k++)
		for (uint32_t i = 0; i < j->n_tasks[k]; i++)
			if (j->tasks[k][i].state == TASK_RUNNING)
				sw_sched_task_release(s, j, k, &j->tasks[k][i]);
	if (j->pending[SW_MAP] > 0)
		sw_sched_pool_list_del(s, p, j, SW_MAP);
	if (j->reduces_ready && j->pending[SW_REDUCE] > 0)
		sw_sched_pool_list_del(s, p, j, SW_REDUCE);
	sw_sched_job_drop(s, j);
	sw_sched_pool_refresh(s, p, now);
	return 0;
}

int sw_sched_job_status(const struct sw_sched *s, uint64_t job, struct sw_job_status *st)
{
	const struct sched_job *j;

	if (!s || !st)
		return -EINVAL;
	j = sw_sched_job_table_find(&s->jobs, job);
	if (!j)
		return -ENOENT;
	*st = (struct sw_job_status){
	        .reduces_ready = j->reduces_ready,
	        .outputs = j->outputs,
	        .output_bytes = j->output_bytes,
	        .lost_outputs = j->lost_outputs,
	};
	for (int k = 0; k < SW_KINDS; k++) {
		st->failed[k] = j->failed[k];
		st->lost[k] = j->lost[k];
		st->pending[k] = j->pending[k];
		st->running[k] = j->running[k];
		st->done[k] = j->done[k];
		st->duration_sum[k] = j->duration_sum[k];
	}
	return 0;
}
