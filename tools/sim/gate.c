/* SPDX-License-Identifier: MIT */
/*
 * ARIA's load-threshold arrivals (section 5.7, sw_sim_config.load_threshold): jobs are not
 * submitted at a rate but whenever the cluster has room. The next job of the workload is
 * submitted at its arrival or later, at the first instant when the load plus the slots it
 * needs (its Lagrange minimum pair for its deadline) stay below the threshold; the jobs behind
 * it wait their turn. SW_SIM_LOAD_SUM (the default) weighs the load as ARIA's words say, each
 * kind's share of its slots summed: on W2 it runs the cluster at ARIA's average load, where
 * SW_SIM_LOAD_KINDS, each kind of slot on its own, runs it at twice that (perf/README.md,
 * "MinEDF in ARIA's setting"). The load is the running tasks plus what the gate has let in
 * and not yet seen launch: ARIA's simulator starts a job's tasks at its arrival, ours at the
 * next heartbeats, and without that owed part every job waiting at one instant would see the
 * same running count and pass together. With nothing running or owed the job goes in whatever
 * it needs, or a job larger than the threshold would never start.
 */
#include "sim_engine.h"
#include "sw_sched_aria.h"

/* The slots of each kind job @p d asks for: its Lagrange minimum pair on the policies' bound,
 * all its tasks without a deadline or when no allocation meets it, at most every slot of the
 * kind. */
static void need(const struct sim *s, const struct sw_job_desc *d, uint64_t n[SW_KINDS])
{
	uint32_t n_maps = sw_sim_workload_n_maps(s->w, d), slots[SW_KINDS];
	uint64_t all[SW_KINDS] = {s->map_slots, s->total_slots - s->map_slots};
	struct sw_job_profile p;
	struct sw_aria_model m;

	n[SW_MAP] = n_maps;
	n[SW_REDUCE] = d->n_reduces;
	if (d->deadline > 0) {
		sw_sim_workload_profile(s->w, d, &p);
		if (sw_sched_aria_model(&p, n_maps, d->n_reduces, s->c->sched.aria_bound, &m) ==
		            0 &&
		    sw_sched_aria_min_slots(&m, d->deadline - d->arrival, slots) == 0) {
			n[SW_MAP] = slots[SW_MAP];
			n[SW_REDUCE] = slots[SW_REDUCE];
		}
	}
	for (int k = 0; k < SW_KINDS; k++)
		n[k] = n[k] < all[k] ? n[k] : all[k];
}

bool sw_sim_gate_open(struct sim *s)
{
	const struct sw_job_desc *d = &s->w->jobs[s->next_arrival];
	uint64_t all[SW_KINDS] = {s->map_slots, s->total_slots - s->map_slots};
	double sum = 0;

	if (!(s->c->load_threshold > 0))
		return true;
	if (!s->gate_waiting)
		need(s, d, s->gate_need); /* the job's need does not change while it waits */
	if (!s->running && !s->gate_owed[SW_MAP] && !s->gate_owed[SW_REDUCE])
		return true;
	for (int k = 0; k < SW_KINDS; k++) {
		double load = (double)(s->running_kind[k] + s->gate_owed[k] + s->gate_need[k]);

		if (s->c->load_measure == SW_SIM_LOAD_SUM)
			sum += all[k] ? load / (double)all[k] : 0;
		else if (s->gate_need[k] && !(load < s->c->load_threshold * (double)all[k]))
			return false;
	}
	return s->c->load_measure != SW_SIM_LOAD_SUM || sum < s->c->load_threshold;
}

void sw_sim_gate_admitted(struct sim *s, struct sim_job *j)
{
	if (!(s->c->load_threshold > 0))
		return;
	for (int k = 0; k < SW_KINDS; k++) {
		j->gate_owed[k] = s->gate_need[k];
		s->gate_owed[k] += j->gate_owed[k];
	}
}

/* @p n of job @p j's owed slots of kind @p k are taken. */
static void pay(struct sim *s, struct sim_job *j, int k, uint64_t n)
{
	n = n < j->gate_owed[k] ? n : j->gate_owed[k];
	j->gate_owed[k] -= n;
	s->gate_owed[k] -= n;
}

void sw_sim_gate_launched(struct sim *s, struct sim_task *t)
{
	pay(s, t->job, t->kind, 1);
}

void sw_sim_gate_ended(struct sim *s, struct sim_job *j)
{
	for (int k = 0; k < SW_KINDS; k++)
		pay(s, j, k, j->gate_owed[k]);
}
