/* SPDX-License-Identifier: MIT */
/*
 * The event loop of the simulated cluster. Three queues feed it: network flow completions
 * (sim_net), timed events (arrivals, compute completions, utilisation samples) and node
 * heartbeats. At equal times flows come first, then events, then heartbeats, each queue in its
 * own strict order (start order, scheduling order, node id), so a run is a pure function of
 * its workload and configuration.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"

enum { EV_ARRIVAL, EV_COMPUTE, EV_SAMPLE, EV_NETSAT, EV_NODE_DOWN, EV_NODE_UP, EV_SUBMIT, EV_TX };

/* With tasks pending but none running, the scheduler must launch something within its
 * locality waits; an hour of simulated time without any is a scheduler that never will. */
#define STALL_SECONDS 3600.0

void sw_sim_config_default(struct sw_sim_config *c)
{
	memset(c, 0, sizeof(*c));
	sw_sched_config_default(&c->sched);
	c->heartbeat = 3;
	c->oob_heartbeat = 1;
	c->sample_interval = 10;
	c->parallel_copies = 5;
	c->netsat_interval = 3;
	c->max_attempts = SW_SCHED_MAX_ATTEMPTS;
	c->ratio_history = 1;
	c->workflow_deadline = 2;
	c->straggler_slowdown = 3;
}

int sw_sim_fail(struct sim *s, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->err->msg, sizeof(s->err->msg), fmt, ap);
	va_end(ap);
	return rc;
}

/* ---- timed events ---- */

/* Queues an event; @return its id (an index into s->events) or a negative errno. */
static int64_t schedule(struct sim *s, double t, uint32_t type, uint32_t arg, struct sim_task *task)
{
	struct sim_event *e;
	uint32_t id;

	if (s->free_event == SIM_HEAP_NONE) {
		uint32_t ncap = s->n_events_cap ? 2 * s->n_events_cap : 1024, i;
		struct sim_event *ne = realloc(s->events, (size_t)ncap * sizeof(*ne));

		if (!ne || sw_sim_heap_reserve(&s->ev_heap, ncap)) {
			if (ne)
				s->events = ne;
			return sw_sim_fail(s, -ENOMEM, "out of memory for events at t=%.3f s",
			                   s->now);
		}
		s->events = ne;
		for (i = ncap; i-- > s->n_events_cap;) {
			ne[i].arg = s->free_event;
			s->free_event = i;
		}
		s->n_events_cap = ncap;
	}
	id = s->free_event;
	e = &s->events[id];
	s->free_event = e->arg;
	*e = (struct sim_event){.t = t, .seq = s->seq++, .type = type, .arg = arg, .task = task};
	sw_sim_heap_push(&s->ev_heap, id, t, e->seq); /* cannot fail: reserved above */
	return id;
}

/* Queues an event whose id nobody keeps; @return 0 or a negative errno. */
static int post(struct sim *s, double t, uint32_t type, uint32_t arg)
{
	int64_t id = schedule(s, t, type, arg, NULL);

	return id < 0 ? (int)id : 0;
}

static void event_free(struct sim *s, uint32_t id)
{
	sw_sim_heap_remove(&s->ev_heap, id);
	s->events[id].arg = s->free_event;
	s->free_event = id;
}

int sw_sim_schedule_compute(struct sim *s, struct sim_task *task, double t)
{
	int64_t id = schedule(s, t, EV_COMPUTE, 0, task);

	if (id < 0)
		return (int)id;
	task->ev = (uint32_t)id;
	return 0;
}

void sw_sim_cancel_compute(struct sim *s, struct sim_task *task)
{
	if (task->ev == SIM_HEAP_NONE)
		return;
	event_free(s, task->ev);
	task->ev = SIM_HEAP_NONE;
}

/* ---- heartbeats ---- */

static void hb_set(struct sim *s, uint32_t node, double t)
{
	s->nodes[node].hb_t = t;
	if (sim_heap_contains(&s->hb_heap, node))
		sw_sim_heap_update(&s->hb_heap, node, t, node);
	else
		sw_sim_heap_push(&s->hb_heap, node, t,
		                 node); /* cannot fail: reserved for every node */
}

/* Puts a parked node back on its heartbeat grid at the first beat not before now. */
static void hb_wake(struct sim *s, uint32_t node)
{
	struct sim_node *n = &s->nodes[node];
	double k = ceil((s->now - n->hb_base) / s->c->heartbeat);

	if (n->down || sim_heap_contains(&s->hb_heap, node))
		return;
	n->hb_k = k > 0 ? (uint64_t)k : 0;
	if (n->hb_base + (double)n->hb_k * s->c->heartbeat < s->now)
		n->hb_k++;
	hb_set(s, node, n->hb_base + (double)n->hb_k * s->c->heartbeat);
}

void sw_sim_slot_freed(struct sim *s, uint32_t node, enum sw_task_kind kind)
{
	struct sim_node *n = &s->nodes[node];

	if (n->down)
		return; /* it comes back empty */
	n->free[kind]++;
	if (!s->c->oob_heartbeat) {
		hb_wake(s, node);
		return;
	}
	/* Hadoop's out-of-band heartbeat: the TaskTracker reports at once, and its next regular
	 * heartbeat comes one interval after this one. */
	if (sim_heap_contains(&s->hb_heap, node) && n->hb_t == s->now)
		return;
	n->hb_base = s->now;
	n->hb_k = 0;
	hb_set(s, node, s->now);
}

/*
 * A heartbeat that cannot launch anything (no job live, or no free slot) is not sent to the
 * scheduler, and the node leaves the heartbeat queue until that changes: a job arrival or a
 * freed slot puts it back on the same grid of beats, so every beat that could launch a task
 * happens exactly when it would have.
 */
static int heartbeat(struct sim *s, uint32_t node)
{
	struct sim_node *n = &s->nodes[node];
	struct sw_heartbeat hb = {.node = node,
	                          .free_slots = {n->free[SW_MAP], n->free[SW_REDUCE]}};
	int got, i, rc;

	sw_sim_heap_remove(&s->hb_heap, node);
	if (!sw_sched_jobs_live(s->sched)) {
		s->idle_parked++;
		return 0;
	}
	sw_sim_tx_free_slots(s, node, hb.free_slots);
	if (!hb.free_slots[SW_MAP] && !hb.free_slots[SW_REDUCE])
		return 0; /* a freed slot or a drop of the transactional load wakes it */
	got = sw_sched_heartbeat(s->sched, &hb, s->now, s->assign, s->assign_max);
	if (got < 0)
		return sw_sim_fail(
		        s, got, "heartbeat of node %u at t=%.3f s: sw_sched_heartbeat failed: %s",
		        node, s->now, strerror(-got));
	for (i = 0; i < got && i < s->assign_max; i++) {
		const struct sw_assignment *a = &s->assign[i];

		/* A launch of this heartbeat failed a job (its input was lost): drop its others. */
		if (a->job < s->w->n_jobs && s->r->jobs[a->job].failed)
			continue;
		rc = sw_sim_task_launch(s, node, a);
		if (rc)
			return rc;
	}
	n->hb_k++;
	hb_set(s, node, n->hb_base + (double)n->hb_k * s->c->heartbeat);
	return 0;
}

/* ---- arrivals ---- */

static int wake_periodic(struct sim *s);

static int submit(struct sim *s, size_t idx)
{
	int rc = wake_periodic(s);

	if (!rc)
		rc = sw_sim_job_arrive(s, idx);
	if (rc)
		return rc;
	s->last_progress = s->now;
	if (s->idle_parked) {
		s->idle_parked = 0;
		for (uint32_t i = 0; i < s->cluster.n_nodes; i++)
			hb_wake(s, i);
	}
	return 0;
}

int sw_sim_post_submit(struct sim *s, uint32_t idx)
{
	return post(s, s->now, EV_SUBMIT, idx);
}

static int arrivals(struct sim *s)
{
	int rc;

	if (sw_sim_workflow_waits(s, s->next_arrival)) {
		s->next_arrival++; /* workflow.c submits it once the jobs it reads have ended */
	} else {
		if (!sw_sim_gate_open(s)) {
			s->gate_waiting =
			        1; /* the loop posts the arrival again once there is room */
			return 0;
		}
		s->gate_waiting = 0;
		rc = submit(s, s->next_arrival++);
		if (rc)
			return rc;
		if (s->live[s->next_arrival - 1]) /* not refused */
			sw_sim_gate_admitted(s, s->live[s->next_arrival - 1]);
	}
	/* The next job may have arrived while this one waited at the gate: time never goes back. */
	if (s->next_arrival < s->w->n_jobs)
		return post(s, fmax(s->w->jobs[s->next_arrival].arrival, s->now), EV_ARRIVAL, 0);
	return 0;
}

/* ---- utilisation samples ---- */

/* Bytes rack @p rack's uplink has carried out and in up to now; returns its capacity. */
static double uplink_bytes(const struct sim *s, uint32_t rack, double *out, double *in)
{
	uint32_t lo = sw_sim_net_link(s->net, SIM_LINK_UP_OUT, rack);

	*out = sw_sim_net_link_bytes(s->net, lo, s->now);
	*in = sw_sim_net_link_bytes(s->net, sw_sim_net_link(s->net, SIM_LINK_UP_IN, rack), s->now);
	return sw_sim_net_link_capacity(s->net, lo);
}

/* Most sample rows (7.6 days at 10 s) and values per direction (16 MiB of floats) kept: past
 * them, pairs of samples merge and the interval doubles, so a long replay (or a slow uplink)
 * cannot fill memory, nor the uplink files a user opens. */
#define SAMPLE_ROWS_MAX   (1U << 16)
#define SAMPLE_VALUES_MAX (1U << 22)

static bool jobs_live(const struct sim *s)
{
	return s->next_arrival > s->jobs_done;
}

/* Room for @p rows rows; more than samples_max + 1 are never needed (see coarsen). */
static int sample_room(struct sim *s, uint32_t rows)
{
	struct sw_sim_result *r = s->r;
	uint32_t nr = r->n_racks, ncap = s->samples_cap ? s->samples_cap : 256;
	float *o, *in;

	if (rows <= s->samples_cap)
		return 0;
	while (ncap < rows)
		ncap *= 2;
	if (ncap > s->samples_max + 1)
		ncap = s->samples_max + 1;
	o = realloc(r->uplink_out, (size_t)ncap * nr * sizeof(*o));
	if (o)
		r->uplink_out = o;
	in = o ? realloc(r->uplink_in, (size_t)ncap * nr * sizeof(*in)) : NULL;
	if (!in)
		return sw_sim_fail(s, -ENOMEM, "out of memory for samples at t=%.3f s", s->now);
	r->uplink_in = in;
	s->samples_cap = ncap;
	return 0;
}

/* A full series (samples_max rows, an even count) becomes half as many rows of twice the
 * interval, each the mean of two: every row still covers one whole interval from time 0. */
static void coarsen(struct sim *s)
{
	struct sw_sim_result *r = s->r;
	size_t nr = r->n_racks;

	for (size_t i = 0; i < r->n_samples / 2; i++)
		for (size_t k = 0; k < nr; k++) {
			float *o = r->uplink_out, *in = r->uplink_in;

			o[i * nr + k] = (o[2 * i * nr + k] + o[(2 * i + 1) * nr + k]) / 2;
			in[i * nr + k] = (in[2 * i * nr + k] + in[(2 * i + 1) * nr + k]) / 2;
		}
	r->n_samples /= 2;
	r->sample_interval *= 2;
}

static int sample(struct sim *s, double span)
{
	struct sw_sim_result *r = s->r;
	uint32_t k, nr = r->n_racks;
	int rc = sample_room(s, r->n_samples + 1);

	if (rc)
		return rc;
	for (k = 0; k < nr; k++) {
		double bo, bi;
		double cap = uplink_bytes(s, k, &bo, &bi) * span;

		r->uplink_out[(size_t)r->n_samples * nr + k] = (float)((bo - s->prev_out[k]) / cap);
		r->uplink_in[(size_t)r->n_samples * nr + k] = (float)((bi - s->prev_in[k]) / cap);
		s->prev_out[k] = bo;
		s->prev_in[k] = bi;
	}
	r->n_samples++;
	s->last_sample = s->now;
	return 0;
}

/* A periodic sample: one row of one interval, then the next one unless the cluster is idle. */
static int sample_tick(struct sim *s)
{
	int rc = sample(s, s->r->sample_interval);

	if (rc)
		return rc;
	if (s->r->n_samples == s->samples_max)
		coarsen(s);
	if (!jobs_live(s)) {
		s->sample_parked = 1;
		return 0;
	}
	return post(s, s->last_sample + s->r->sample_interval, EV_SAMPLE, 0);
}

/* An idle cluster moves no byte: the samples of an idle gap are zero rows, written at once
 * when the next job arrives (merging as the series fills), so a gap of any length costs at
 * most one pass over the series per doubling of the interval. */
static int sample_wake(struct sim *s)
{
	struct sw_sim_result *r = s->r;

	s->sample_parked = 0;
	for (;;) {
		double whole = floor((s->now - s->last_sample) / r->sample_interval);
		uint32_t m = s->samples_max - r->n_samples;
		int rc;

		if (whole < 1)
			break;
		if (whole < m)
			m = (uint32_t)whole;
		rc = sample_room(s, r->n_samples + m);
		if (rc)
			return rc;
		memset(&r->uplink_out[(size_t)r->n_samples * r->n_racks], 0,
		       (size_t)m * r->n_racks * sizeof(float));
		memset(&r->uplink_in[(size_t)r->n_samples * r->n_racks], 0,
		       (size_t)m * r->n_racks * sizeof(float));
		r->n_samples += m;
		s->last_sample += m * r->sample_interval;
		if (r->n_samples == s->samples_max)
			coarsen(s);
	}
	return post(s, s->last_sample + r->sample_interval, EV_SAMPLE, 0);
}

/*
 * NetSat: each rack's cumulative uplink counters go to the scheduler through the same call a
 * live controller makes with its agents' counters. Uplinks carry only cross-rack traffic
 * (shuffle, remote map input, output replicas), which is exactly what NetSat watches.
 */
static int netsat_sample(struct sim *s, double t)
{
	for (uint32_t k = 0; k < s->cluster.n_racks; k++) {
		double out, in;
		int rc;

		uplink_bytes(s, k, &out, &in);
		rc = sw_sched_net_sample(s->sched, k, (uint64_t)out, (uint64_t)in, t);

		if (rc < 0)
			return sw_sim_fail(
			        s, rc, "scheduler refused the NetSat sample of rack %u at t=%.3f s",
			        k, t);
	}
	s->last_netsat = t;
	return 0;
}

static int netsat(struct sim *s)
{
	int rc = netsat_sample(s, s->now);

	if (rc)
		return rc;
	if (!jobs_live(s)) {
		s->netsat_parked = 1;
		return 0;
	}
	return post(s, s->now + s->c->netsat_interval, EV_NETSAT, 0);
}

/* ---- injected node failures ---- */

static uint32_t fault_node(const struct sim *s, const struct sw_sim_fault *f)
{
	return s->rack_nodes[s->rack_first[f->rack] + f->node];
}

/* The fault names a node of the topology. */
static int fault_check(struct sim *s, uint32_t i)
{
	const struct sw_sim_fault *f = &s->c->faults[i];
	uint32_t n;

	if (f->rack >= s->cluster.n_racks)
		return sw_sim_fail(s, -EINVAL,
		                   "fault %u (node %u.%u at %g s): the cluster has racks 0-%u",
		                   i + 1, f->rack, f->node, f->at, s->cluster.n_racks - 1);
	n = s->rack_first[f->rack + 1] - s->rack_first[f->rack];
	if (f->node >= n)
		return sw_sim_fail(s, -EINVAL,
		                   "fault %u (node %u.%u at %g s): rack %u has nodes 0-%u", i + 1,
		                   f->rack, f->node, f->at, f->rack, n - 1);
	return 0;
}

/* The node stops heartbeating; its tasks are lost (fault.c) and no flow may use its NIC. */
static int node_down(struct sim *s, uint32_t node)
{
	int rc;

	s->nodes[node].down = 1;
	if (sim_heap_contains(&s->hb_heap, node))
		sw_sim_heap_remove(&s->hb_heap, node);
	rc = sw_sim_node_lost(s, node);
	if (rc)
		return rc;
	sw_sim_net_update(s->net, s->now);
	if (sw_sim_net_link_load(s->net, sw_sim_net_link(s->net, SIM_LINK_NIC_TX, node)) > 0 ||
	    sw_sim_net_link_load(s->net, sw_sim_net_link(s->net, SIM_LINK_NIC_RX, node)) > 0)
		return sw_sim_fail(s, -EPROTO, "node %u lost at t=%.3f s: flows still use its NIC",
		                   node, s->now);
	return 0;
}

/* The node is back, empty, on its grid of heartbeats. */
static int node_up(struct sim *s, uint32_t node)
{
	struct sim_node *n = &s->nodes[node];
	int rc = sw_sched_node_up(s->sched, node, s->now);

	if (rc < 0)
		return sw_sim_fail(s, rc, "node %u back at t=%.3f s: sw_sched_node_up failed: %s",
		                   node, s->now, strerror(-rc));
	n->down = 0;
	n->free[SW_MAP] = s->cluster.nodes[node].map_slots;
	n->free[SW_REDUCE] = s->cluster.nodes[node].reduce_slots;
	hb_wake(s, node);
	return 0;
}

/* The run's byte totals: per node by source rack, and per uplink. */
static int totals(struct sim *s)
{
	struct sw_sim_result *r = s->r;
	uint32_t nn = s->cluster.n_nodes, nr = s->cluster.n_racks;

	r->node_rx = calloc((size_t)nn * nr, sizeof(*r->node_rx));
	r->uplink_bytes_out = calloc(nr, sizeof(*r->uplink_bytes_out));
	r->uplink_bytes_in = calloc(nr, sizeof(*r->uplink_bytes_in));
	if (!r->node_rx || !r->uplink_bytes_out || !r->uplink_bytes_in)
		return sw_sim_fail(s, -ENOMEM, "out of memory for the byte totals");
	r->n_nodes = nn;
	for (uint32_t i = 0; i < nn; i++)
		for (uint32_t k = 0; k < nr; k++)
			r->node_rx[(size_t)i * nr + k] = sw_sim_net_rx_bytes(s->net, i, k);
	for (uint32_t k = 0; k < nr; k++) {
		double out, in;

		uplink_bytes(s, k, &out, &in);
		r->uplink_bytes_out[k] = (uint64_t)llround(out);
		r->uplink_bytes_in[k] = (uint64_t)llround(in);
	}
	return 0;
}

/*
 * NetSat's smoothed utilisation decays by (1 - smoothing) per window of zero traffic, and
 * reaches exactly 0 (below the smallest double) within this many samples: feeding only the
 * last of an idle gap's samples leaves the scheduler in the state all of them would have.
 */
static double netsat_catch_up(const struct sim *s)
{
	double a = s->c->sched.netsat_smoothing;
	double per_window = ceil(s->c->sched.netsat_window / s->c->netsat_interval);

	if (!(a < 1))
		return 2 * per_window;
	return (ceil(1100 * log(2) / -log1p(-a)) + 1) * per_window;
}

static int netsat_wake(struct sim *s)
{
	double whole = floor((s->now - s->last_netsat) / s->c->netsat_interval);
	double skip = fmax(0, whole - netsat_catch_up(s));
	double t0 = s->last_netsat;

	s->netsat_parked = 0;
	for (double j = skip + 1; j <= whole; j++) {
		int rc = netsat_sample(s, t0 + j * s->c->netsat_interval);

		if (rc)
			return rc;
	}
	return post(s, s->last_netsat + s->c->netsat_interval, EV_NETSAT, 0);
}

/* A job arrives at an idle cluster: the periodic events catch up with the gap and restart. */
static int wake_periodic(struct sim *s)
{
	int rc = s->sample_parked ? sample_wake(s) : 0;

	return rc || !s->netsat_parked ? rc : netsat_wake(s);
}

static void progress(struct sim *s)
{
	if (s->c->progress)
		s->c->progress(s->c->progress_arg, s->now, s->jobs_done, s->w->n_jobs);
}

static int event(struct sim *s, uint32_t id)
{
	struct sim_event e = s->events[id];
	const struct sw_sim_fault *f;
	int rc;

	event_free(s, id);
	switch (e.type) {
	case EV_ARRIVAL:
		return arrivals(s);
	case EV_COMPUTE:
		return sw_sim_task_compute_done(s, e.task);
	case EV_NETSAT:
		return netsat(s);
	case EV_NODE_DOWN:
		f = &s->c->faults[e.arg];
		if (s->nodes[fault_node(s, f)].down)
			return 0;
		rc = node_down(s, fault_node(s, f));
		if (rc || !(f->down_for > 0))
			return rc;
		return post(s, s->now + f->down_for, EV_NODE_UP, fault_node(s, f));
	case EV_NODE_UP:
		return node_up(s, e.arg);
	case EV_SUBMIT:
		return submit(s, e.arg);
	case EV_TX: /* the transactional load gave slots back */
		for (uint32_t i = 0; sw_sched_jobs_live(s->sched) && i < s->cluster.n_nodes; i++)
			hb_wake(s, i);
		return 0;
	default:
		rc = sample_tick(s);
		progress(s);
		return rc;
	}
}

/* ---- the loop ---- */

static double top_time(const struct sim *s, uint32_t *ev, uint32_t *hb)
{
	*ev = sim_heap_top(&s->ev_heap);
	*hb = sim_heap_top(&s->hb_heap);
	return fmin(sim_heap_top_key(&s->ev_heap), sim_heap_top_key(&s->hb_heap));
}

static int stalled(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->w->n_jobs && !s->live[i]; i++)
		;
	if (i == s->w->n_jobs)
		return sw_sim_fail(s, -EDEADLK,
		                   "no event left at t=%.3f s with %zu jobs unfinished", s->now,
		                   s->w->n_jobs - s->jobs_done);
	return sw_sim_fail(s, -EDEADLK,
	                   "job %llu (arrived at t=%.3f s) stalled: policy '%s' launched no task "
	                   "for %.0f s of simulated time with nothing running (t=%.3f s)",
	                   (unsigned long long)s->w->jobs[i].id, s->w->jobs[i].arrival,
	                   sw_sched_policy(s->sched), STALL_SECONDS, s->now);
}

static int loop(struct sim *s)
{
	while (s->jobs_done < s->w->n_jobs) {
		uint32_t ev, hb, flow = SIM_FLOW_NONE;
		double t = top_time(s, &ev, &hb), tf = sw_sim_net_next(s->net, &flow);
		double due = sw_sim_net_due(s->net);
		int rc;

		/* A deferred component solve (net_quantum) is an instant of its own. */
		if (due < fmin(t, tf) && due > s->now)
			s->now = due;
		/* Rates change only between instants: every start and end at one time is in. */
		if ((sw_sim_net_dirty(s->net) || due <= s->now) && fmin(t, tf) > s->now) {
			sw_sim_net_update(s->net, s->now);
			tf = sw_sim_net_next(s->net, &flow);
		}
		if (isinf(t) && isinf(tf))
			return stalled(s);
		if (s->c->stop && *s->c->stop)
			return sw_sim_fail(s, -ECANCELED, "interrupted at t=%.3f s", s->now);
		if (!s->running && sw_sched_jobs_live(s->sched) &&
		    s->now - s->last_progress > STALL_SECONDS)
			return stalled(s);
		s->r->events++;
		if (tf <= t) {
			s->now = tf;
			rc = sw_sim_flow_done(s, sw_sim_net_flow_owner(s->net, flow));
		} else {
			s->now = t;
			if (ev != SIM_HEAP_NONE && s->events[ev].t == t)
				rc = event(s, ev);
			else
				rc = heartbeat(s, hb);
		}
		if (!rc && s->gate_waiting && sw_sim_gate_open(s)) {
			s->gate_waiting = 0;
			rc = post(s, s->now, EV_ARRIVAL, 0);
		}
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- setup ---- */

static int check_faults(const struct sw_sim_config *c, struct sw_input_error *err)
{
	if (!(c->task_failure_rate >= 0 && c->task_failure_rate <= 1) || !c->max_attempts ||
	    c->n_faults > SW_SIM_MAX_FAULTS) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: task_failure_rate (%g) must be in [0, 1], "
		         "max_attempts (%u) >= 1 and n_faults (%u) <= %d",
		         c->task_failure_rate, c->max_attempts, c->n_faults, SW_SIM_MAX_FAULTS);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < c->n_faults; i++) {
		const struct sw_sim_fault *f = &c->faults[i];

		if (!(f->at >= 0) || !isfinite(f->at) || !(f->down_for >= 0) ||
		    !isfinite(f->down_for)) {
			snprintf(err->msg, sizeof(err->msg),
			         "simulator config: fault %u (node %u.%u): time (%g s) and down "
			         "time (%g s) must be finite and >= 0",
			         i + 1, f->rack, f->node, f->at, f->down_for);
			return -EINVAL;
		}
	}
	return 0;
}

static int check(const struct sw_workload *w, const struct sw_sim_config *c,
                 struct sw_input_error *err)
{
	unsigned n_bench, b;
	size_t i;
	int rc;

	if (!(c->heartbeat > 0) || !isfinite(c->heartbeat) || !(c->sample_interval > 0) ||
	    !isfinite(c->sample_interval) || !(c->netsat_interval > 0) ||
	    !isfinite(c->netsat_interval) || !c->parallel_copies) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: heartbeat (%g), sample_interval (%g) and "
		         "netsat_interval "
		         "(%g) must be > 0 and parallel_copies (%u) >= 1",
		         c->heartbeat, c->sample_interval, c->netsat_interval, c->parallel_copies);
		return -EINVAL;
	}
	if (!(c->load_threshold >= 0 && c->load_threshold <= SW_SIM_MAX_LOAD_THRESHOLD)) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: load_threshold (%g) must be in [0, %g]",
		         c->load_threshold, SW_SIM_MAX_LOAD_THRESHOLD);
		return -EINVAL;
	}
	if ((unsigned)c->load_measure > SW_SIM_LOAD_KINDS) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: load_measure (%d) must be SW_SIM_LOAD_SUM or "
		         "SW_SIM_LOAD_KINDS",
		         (int)c->load_measure);
		return -EINVAL;
	}
	if (!(c->straggler_rate >= 0 && c->straggler_rate <= 1) ||
	    !(c->straggler_slowdown >= 1 && c->straggler_slowdown <= SW_SIM_MAX_SLOWDOWN)) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: straggler_rate (%g) must be in [0, 1] and "
		         "straggler_slowdown (%g) in [1, %g]",
		         c->straggler_rate, c->straggler_slowdown, SW_SIM_MAX_SLOWDOWN);
		return -EINVAL;
	}
	if (!(c->net_quantum >= 0 && c->net_quantum <= SW_SIM_MAX_NET_QUANTUM)) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: net_quantum (%g) must be in [0, %g] s", c->net_quantum,
		         SW_SIM_MAX_NET_QUANTUM);
		return -EINVAL;
	}
	if ((unsigned)c->net_model > SW_SIM_NET_RACK) {
		snprintf(err->msg, sizeof(err->msg),
		         "simulator config: net_model (%d) must be SW_SIM_NET_FLOW or "
		         "SW_SIM_NET_RACK",
		         (int)c->net_model);
		return -EINVAL;
	}
	if (c->rack_fetch_min > SW_SIM_MAX_RACK_FETCH_MIN ||
	    (c->rack_fetch_min && c->net_model != SW_SIM_NET_RACK)) {
		snprintf(
		        err->msg, sizeof(err->msg),
		        "simulator config: rack_fetch_min (%llu) must be at most %llu bytes, and 0 "
		        "unless net_model is rack",
		        (unsigned long long)c->rack_fetch_min, SW_SIM_MAX_RACK_FETCH_MIN);
		return -EINVAL;
	}
	rc = check_faults(c, err);
	if (rc)
		return rc;
	sw_sim_bench_table(&n_bench);
	for (b = 0; b < n_bench; b++) {
		const struct sw_bench *bench = &sw_sim_bench_table(NULL)[b];

		if (!(bench->map_rate > 0) || !(bench->reduce_rate > 0)) {
			snprintf(err->msg, sizeof(err->msg),
			         "benchmark %s: map_rate and reduce_rate must be > 0", bench->name);
			return -EINVAL;
		}
	}
	if (w->n_jobs > UINT32_MAX) {
		snprintf(err->msg, sizeof(err->msg), "workload %s: %zu jobs, at most %u", w->name,
		         w->n_jobs, UINT32_MAX);
		return -EINVAL;
	}
	for (i = 0; i < w->n_jobs; i++) {
		const struct sw_job_desc *j = &w->jobs[i];

		if ((uint64_t)j->n_reduces * w->topo.n_racks * w->topo.nodes_per_rack >
		    SW_WORKLOAD_MAX_REDUCE_NODES) {
			snprintf(err->msg, sizeof(err->msg),
			         "workload %s: job %llu: %u reducers x %u nodes is more than 2^24 "
			         "(each keeps state per node)",
			         w->name, (unsigned long long)j->id, j->n_reduces,
			         w->topo.n_racks * w->topo.nodes_per_rack);
			return -EINVAL;
		}
		if (j->bench >= n_bench || !isfinite(j->arrival) ||
		    (i && j->arrival < w->jobs[i - 1].arrival)) {
			snprintf(err->msg, sizeof(err->msg),
			         "workload %s: job %llu: benchmark %u unknown or arrival %g out of "
			         "order",
			         w->name, (unsigned long long)j->id, j->bench, j->arrival);
			return -EINVAL;
		}
	}
	return 0;
}

static int rack_index(struct sim *s)
{
	uint32_t nr = s->cluster.n_racks, nn = s->cluster.n_nodes, i;

	s->rack_first = calloc((size_t)nr + 1, sizeof(*s->rack_first));
	s->rack_nodes = calloc(nn, sizeof(*s->rack_nodes));
	s->rack_pos = calloc(nn, sizeof(*s->rack_pos));
	if (!s->rack_first || !s->rack_nodes || !s->rack_pos)
		return -ENOMEM;
	for (i = 0; i < nn; i++)
		s->rack_first[s->cluster.nodes[i].rack + 1]++;
	for (i = 0; i < nr; i++)
		s->rack_first[i + 1] += s->rack_first[i];
	/* Counting sort keeps each rack's nodes in ascending order. */
	for (i = 0; i < nn; i++)
		s->rack_nodes[s->rack_first[s->cluster.nodes[i].rack]++] = i;
	for (i = nr; i > 0; i--)
		s->rack_first[i] = s->rack_first[i - 1];
	s->rack_first[0] = 0;
	s->fetch_rows = s->c->net_model == SW_SIM_NET_RACK ? nr : nn;
	for (i = 0; i < nr; i++) {
		uint32_t n = s->rack_first[i + 1] - s->rack_first[i];

		for (uint32_t k = 0; k < n; k++)
			s->rack_pos[s->rack_nodes[s->rack_first[i] + k]] = k;
		if (s->c->net_model == SW_SIM_NET_RACK && nr + n > s->fetch_rows)
			s->fetch_rows = nr + n;
	}
	return 0;
}

/* The scheduler's forecast of the transactional load is the load itself (the thesis's f(t) is
 * known in advance); every drop of it wakes the nodes it held. */
static int tx_setup(struct sim *s)
{
	const struct sw_workload *w = s->w;
	int rc = sw_sched_transactional(s->sched, w->tx, w->tx_n);

	if (rc)
		return sw_sim_fail(s, rc, "workload %s: transactional load: %s", w->name,
		                   strerror(-rc));
	for (uint32_t i = 1; !rc && i < w->tx_n; i++)
		if (w->tx[i].share < w->tx[i - 1].share)
			rc = post(s, w->tx[i].t, EV_TX, 0);
	return rc;
}

static int setup(struct sim *s)
{
	const struct sw_workload *w = s->w;
	struct sw_sched_config cfg = s->c->sched;
	uint32_t i, nn;
	int rc;

	rc = sw_sim_topology_build(&w->topo, &s->cluster);
	if (rc)
		return sw_sim_fail(s, rc, "workload %s: bad topology", w->name);
	nn = s->cluster.n_nodes;
	/* The workload names its users and queues; a config with fewer gets the workload's. */
	if (cfg.n_users < w->n_users)
		cfg.n_users = w->n_users;
	if (!cfg.queue_capacity && cfg.n_queues < w->n_queues)
		cfg.n_queues = w->n_queues;
	if (s->c->timeline) {
		cfg.on_plan = sw_sim_timeline_plan;
		cfg.on_plan_arg = s;
	}
	s->sched = sw_sched_create(&s->cluster, &cfg);
	if (!s->sched) {
		rc = errno ? -errno : -EINVAL;
		return sw_sim_fail(s, rc, "scheduler '%s': cannot create: %s",
		                   cfg.policy ? cfg.policy : "(null)", strerror(-rc));
	}
	if (s->c->ratio_history) {
		unsigned n_bench;

		sw_sim_bench_table(&n_bench);
		s->history = sw_sched_profile_db_create(n_bench);
		if (!s->history)
			return sw_sim_fail(s, -ENOMEM, "out of memory for the ratio history");
	}
	{
		unsigned n_bench;

		sw_sim_bench_table(&n_bench);
		s->profiles = calloc(n_bench, sizeof(*s->profiles));
		if (!s->profiles)
			return sw_sim_fail(s, -ENOMEM, "out of memory for the job profiles");
	}
	s->net = sw_sim_net_create(&s->cluster);
	s->nodes = calloc(nn, sizeof(*s->nodes));
	s->live = calloc(w->n_jobs ? w->n_jobs : 1, sizeof(*s->live));
	s->prev_out = calloc(s->cluster.n_racks, sizeof(*s->prev_out));
	s->prev_in = calloc(s->cluster.n_racks, sizeof(*s->prev_in));
	s->r->jobs = calloc(w->n_jobs ? w->n_jobs : 1, sizeof(*s->r->jobs));
	if (!s->net || !s->nodes || !s->live || !s->prev_out || !s->prev_in || !s->r->jobs ||
	    rack_index(s) || sw_sim_heap_reserve(&s->hb_heap, nn))
		return sw_sim_fail(s, -ENOMEM, "out of memory setting up %u nodes and %zu jobs", nn,
		                   w->n_jobs);
	sw_sim_net_set_quantum(s->net, s->c->net_quantum); /* checked with the config */
	for (i = 0; i < nn; i++) {
		const struct sw_node_spec *ns = &s->cluster.nodes[i];
		int slots = ns->map_slots + ns->reduce_slots;

		s->nodes[i].rack = ns->rack;
		s->total_slots += (uint64_t)ns->map_slots + ns->reduce_slots;
		s->map_slots += ns->map_slots;
		s->nodes[i].free[SW_MAP] = ns->map_slots;
		s->nodes[i].free[SW_REDUCE] = ns->reduce_slots;
		/* Phases spread evenly over one interval, as TaskTrackers started at random. */
		s->nodes[i].hb_base = s->c->heartbeat * i / nn;
		if (slots > s->assign_max)
			s->assign_max = slots;
	}
	rc = sw_sim_workflows_setup(s);
	if (rc)
		return rc;
	if (sw_sim_contention_setup(s))
		return sw_sim_fail(s, -ENOMEM, "out of memory for node contention on %u nodes", nn);
	s->idle_parked = nn; /* no job is live before the first arrival */
	s->assign = calloc(s->assign_max ? s->assign_max : 1, sizeof(*s->assign));
	if (!s->assign)
		return sw_sim_fail(s, -ENOMEM, "out of memory setting up");
	s->r->n_jobs = w->n_jobs;
	s->r->sample_interval = s->c->sample_interval;
	s->r->n_racks = s->cluster.n_racks;
	s->samples_max = SAMPLE_VALUES_MAX / s->cluster.n_racks & ~1U;
	if (s->samples_max > SAMPLE_ROWS_MAX)
		s->samples_max = SAMPLE_ROWS_MAX;
	if (s->samples_max < 2)
		s->samples_max = 2;
	/* Samples and NetSat start with the first arrival (and stop while the cluster is idle). */
	s->sample_parked = s->netsat_parked = 1;
	rc = tx_setup(s);
	if (rc)
		return rc;
	for (i = 0; i < s->c->n_faults; i++) {
		rc = fault_check(s, i);
		if (!rc)
			rc = post(s, s->c->faults[i].at, EV_NODE_DOWN, i);
		if (rc)
			return rc;
	}
	return w->n_jobs ? post(s, w->jobs[0].arrival, EV_ARRIVAL, 0) : 0;
}

static void teardown(struct sim *s)
{
	size_t i;

	for (i = 0; s->live && i < s->w->n_jobs; i++)
		sw_sim_job_free(s->live[i]);
	free(s->live);
	sw_sched_destroy(s->sched);
	sw_sched_profile_db_destroy(s->history);
	free(s->profiles);
	sw_sim_net_destroy(s->net);
	sw_sim_topology_free(&s->cluster);
	free(s->nodes);
	free(s->rack_first);
	free(s->rack_nodes);
	free(s->rack_pos);
	free(s->events);
	free(s->assign);
	free(s->prev_out);
	free(s->prev_in);
	sw_sim_workflows_free(s);
	sw_sim_contention_free(s);
	sw_sim_heap_fini(&s->ev_heap);
	sw_sim_heap_fini(&s->hb_heap);
}

int sw_sim_run(const struct sw_workload *w, const struct sw_sim_config *c, struct sw_sim_result *r,
               struct sw_input_error *err)
{
	struct sim s = {.w = w, .c = c, .r = r, .err = err, .free_event = SIM_HEAP_NONE};
	int rc;

	memset(r, 0, sizeof(*r));
	err->msg[0] = '\0';
	rc = check(w, c, err);
	if (rc)
		return rc;
	sw_sim_heap_init(&s.ev_heap);
	sw_sim_heap_init(&s.hb_heap);
	rc = setup(&s);
	if (!rc)
		rc = loop(&s);
	if (!rc) {
		r->end = s.now;
		/* The last, partial interval, measured over its own length. */
		if (s.now > s.last_sample)
			rc = sample(&s, s.now - s.last_sample);
		if (!rc)
			rc = totals(&s);
		if (!rc && s.plans_lost)
			rc = sw_sim_fail(&s, -ENOMEM, "out of memory for the plan trace");
		progress(&s);
		r->has_nass = sw_sched_nass_stats(s.sched, &r->nass) == 0;
	}
	teardown(&s);
	if (rc)
		sw_sim_result_free(r);
	return rc;
}

void sw_sim_result_free(struct sw_sim_result *r)
{
	free(r->jobs);
	free(r->tasks);
	free(r->plans);
	free(r->uplink_out);
	free(r->uplink_in);
	free(r->node_rx);
	free(r->uplink_bytes_out);
	free(r->uplink_bytes_in);
	memset(r, 0, sizeof(*r));
}
