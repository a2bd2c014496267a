/* SPDX-License-Identifier: MIT */
/*
 * ARIA's load-threshold arrivals (section 5.7, sw_sim_config.load_threshold): jobs are not
 * submitted at a rate but whenever the cluster has room. The next job of the workload is
 * submitted at its arrival or later, at the first instant when the load plus the slots it
 * needs (its Lagrange minimum for its deadline) stay below the threshold's share of every
 * slot of the cluster; the jobs behind it wait their turn. The load is the running tasks plus
 * what the gate has let in and not yet seen launch: ARIA's simulator starts a job's tasks at
 * its arrival, ours at the next heartbeats, and without that owed part every job waiting at
 * one instant would see the same running count and pass together. With nothing running or
 * owed the job goes in whatever it needs, or a job larger than the threshold would never start.
 */
#include "sim_engine.h"
#include "sw_sched_aria.h"

/* The slots job @p d asks for: its Lagrange minimum on the average bound, all its tasks
 * without a deadline or when no allocation meets it, at most every slot of the cluster. */
static uint64_t need(const struct sim *s, const struct sw_job_desc *d)
{
	uint32_t n_maps = sw_sim_workload_n_maps(s->w, d), slots[SW_KINDS];
	uint64_t n = (uint64_t)n_maps + d->n_reduces;
	struct sw_job_profile p;
	struct sw_aria_model m;

	if (d->deadline > 0) {
		sw_sim_workload_profile(s->w, d, &p);
		if (sw_sched_aria_model(&p, n_maps, d->n_reduces, SW_ARIA_AVG, &m) == 0 &&
		    sw_sched_aria_min_slots(&m, d->deadline - d->arrival, slots) == 0)
			n = (uint64_t)slots[SW_MAP] + slots[SW_REDUCE];
	}
	return n < s->total_slots ? n : s->total_slots;
}

bool sw_sim_gate_open(struct sim *s)
{
	const struct sw_job_desc *d = &s->w->jobs[s->next_arrival];

	if (!s->gate_waiting && s->c->load_threshold > 0)
		s->gate_need = need(s, d); /* the job's need does not change while it waits */
	if (!(s->c->load_threshold > 0) || (!s->running && !s->gate_owed))
		return true;
	return (double)(s->running + s->gate_owed + s->gate_need) <
	       s->c->load_threshold * (double)s->total_slots;
}

void sw_sim_gate_admitted(struct sim *s, struct sim_job *j)
{
	if (!(s->c->load_threshold > 0))
		return;
	j->gate_owed = s->gate_need;
	s->gate_owed += j->gate_owed;
}

void sw_sim_gate_pay(struct sim *s, struct sim_job *j, uint64_t n)
{
	n = n < j->gate_owed ? n : j->gate_owed;
	j->gate_owed -= n;
	s->gate_owed -= n;
}
