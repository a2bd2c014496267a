/* SPDX-License-Identifier: MIT */
/*
 * Wire messages of authenticated agents to scheduler calls: every call the controller makes
 * on the scheduler because of an agent starts here, and each goes through the recorder
 * (sw_ctl_rec_*), so the trace holds them all. A task event maps to its call (STARTED:
 * task_started; FINISHED: map_output for a map, then task_finished; FAILED: task_failed),
 * a reduce's report of a fetch that failed may send its map back to run (fetch_failure),
 * the heartbeat itself to sw_sched_heartbeat, whose assignments go back as one Assign.
 * Events of an attempt that is not the task's current one (a task that was handed out again
 * after its node was lost, a job that ended) are ignored with a log line.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const char *const kind_name[] = {"map", "reduce"};

/* A FINISHED map's partitions: one per reduce, each reduce once. Stores them. */
static int take_parts(struct ctl_job *j, uint32_t map, const SwWire__TaskEvent *e, uint64_t *bytes)
{
	if (e->n_partitions != j->n_reduces)
		return -1;
	struct ctl_part *p = &j->parts[(size_t)map * j->n_reduces];
	memset(p, 0, j->n_reduces * sizeof(*p));
	uint8_t *seen = calloc(j->n_reduces + 1, 1);
	if (seen == NULL)
		return -1;
	int rc = 0;
	*bytes = 0;
	for (size_t i = 0; i < e->n_partitions; i++) {
		const SwWire__Partition *w = e->partitions[i];
		if (w->reduce >= j->n_reduces || seen[w->reduce]) {
			rc = -1;
			break;
		}
		seen[w->reduce] = 1;
		p[w->reduce] = (struct ctl_part){w->bytes, w->crc32c};
		*bytes += w->bytes;
	}
	free(seen);
	return rc;
}

static void task_failed(struct ctl *c, struct ctl_job *j, enum sw_task_kind kind, uint32_t idx,
                        const char *why)
{
	struct ctl_task *t = &j->tasks[kind][idx];
	int n = sw_ctl_rec_task_failed(&c->rec, j->id, kind, idx, c->now);
	sw_ctl_task_state(c, t, TASK_PENDING);
	t->failures++;
	sw_ctl_store_task(c, j, kind, idx);
	sw_ctl_log(c, "job %llu %s %u attempt %u failed on %s: %s", (unsigned long long)j->id,
	           kind_name[kind], idx, t->attempt, c->conf.nodes[t->node].name, why);
	if (n >= CTL_MAX_ATTEMPTS) {
		char msg[160];
		snprintf(msg, sizeof(msg), "%s %u failed %d times, last: %.100s", kind_name[kind],
		         idx, n, why);
		sw_ctl_rec_job_remove(&c->rec, j->id, c->now);
		sw_ctl_job_kill_tasks(c, j, msg);
		sw_ctl_job_end(c, j, JOB_FAILED, msg);
	}
}

static void task_finished(struct ctl *c, struct ctl_job *j, enum sw_task_kind kind, uint32_t idx,
                          uint32_t node, const SwWire__TaskEvent *e)
{
	struct ctl_task *t = &j->tasks[kind][idx];
	uint64_t bytes = 0;
	if (kind == SW_MAP) {
		if (take_parts(j, idx, e, &bytes) < 0) {
			task_failed(c, j, kind, idx, "finished without one partition per reduce");
			return;
		}
		sw_ctl_rec_map_output(&c->rec, j->id, idx, node, bytes, c->now);
		sw_ctl_store_parts(c, j, idx);
	}
	sw_ctl_rec_task_finished(&c->rec, j->id, kind, idx, c->now);
	sw_ctl_task_state(c, t, TASK_DONE);
	j->done[kind]++;
	sw_ctl_store_task(c, j, kind, idx);
	if (kind == SW_MAP)
		sw_ctl_job_map_done(c, j, idx);
	if (j->done[SW_MAP] == j->n_maps && j->done[SW_REDUCE] == j->n_reduces)
		sw_ctl_job_end(c, j, JOB_DONE, NULL);
}

static void task_event(struct ctl *c, uint32_t node, const SwWire__TaskEvent *e)
{
	const SwWire__TaskRef *r = e->task;
	enum sw_task_kind kind = r->kind == SW_WIRE__TASK_KIND__MAP ? SW_MAP : SW_REDUCE;
	struct ctl_job *j = sw_ctl_job(c, r->job);
	uint32_t n = j == NULL ? 0 : kind == SW_MAP ? j->n_maps : j->n_reduces;
	struct ctl_task *t = r->task < n ? &j->tasks[kind][r->task] : NULL;
	if (t == NULL || j->state != JOB_RUNNING || t->state != TASK_RUNNING ||
	    t->attempt != r->attempt || t->node != node) {
		sw_ctl_log(c,
		           "%s: event of job %llu %s %u attempt %u is not of a running attempt "
		           "there: ignored",
		           c->conf.nodes[node].name, (unsigned long long)r->job, kind_name[kind],
		           r->task, r->attempt);
		return;
	}
	switch (e->type) {
	case SW_WIRE__TASK_EVENT__TYPE__STARTED:
		sw_ctl_rec_task_started(&c->rec, j->id, kind, r->task, c->now);
		break;
	case SW_WIRE__TASK_EVENT__TYPE__FINISHED:
		task_finished(c, j, kind, r->task, node, e);
		break;
	default:
		task_failed(c, j, kind, r->task, e->error[0] ? e->error : "(no reason given)");
		break;
	}
}

/*
 * A reduce could not fetch a finished map's output. Hadoop 1's rule, simplified: the map runs
 * again once reduces reported its attempt CTL_FETCH_FAILURES times (a reduce retries every
 * second and reports each failure; one broken reducer alone needs as many failures as three),
 * or at the first report when the map's node has also missed two heartbeats (it is probably
 * gone: no need to wait for lost_after_ms). Its node keeps heartbeating, so the scheduler
 * would hand it maps again: it gets none for CTL_FETCH_BENCH_S. Only the node running the
 * reduce attempt may report for it; reports of an earlier map attempt are ignored.
 */
static void fetch_failure(struct ctl *c, uint32_t node, const SwWire__FetchFailure *f)
{
	const SwWire__TaskRef *r = f->reduce;
	struct ctl_job *j = sw_ctl_job(c, r->job);
	if (j == NULL || j->state != JOB_RUNNING || r->task >= j->n_reduces || f->map >= j->n_maps)
		return;
	const struct ctl_task *rt = &j->tasks[SW_REDUCE][r->task];
	struct ctl_task *t = &j->tasks[SW_MAP][f->map];
	if (rt->state != TASK_RUNNING || rt->attempt != r->attempt || rt->node != node ||
	    t->state != TASK_DONE || t->attempt != f->map_attempt)
		return; /* late: the reduce or the map has moved on */
	c->fetch_reports++;
	if (t->fetch_failures < UINT8_MAX)
		t->fetch_failures++;
	struct ctl_node *mn = &c->nodes[t->node];
	bool silent = c->now - mn->last_seen > 2.0 * c->conf.heartbeat_ms / 1000.0;
	sw_ctl_log(c,
	           "%s: job %llu reduce %u could not fetch map %u (attempt %u) from %s at %s: "
	           "%.100s (report %u%s)",
	           c->conf.nodes[node].name, (unsigned long long)j->id, r->task, f->map,
	           f->map_attempt, c->conf.nodes[t->node].name, mn->shuffle_addr, f->error,
	           t->fetch_failures, silent ? ", its node missed its heartbeats" : "");
	if (t->fetch_failures < CTL_FETCH_FAILURES && !silent)
		return;
	int rc = sw_ctl_rec_map_output_lost(&c->rec, j->id, f->map, c->now);
	if (rc < 0)
		return; /* every reduce is done: nobody needs it any more */
	c->fetch_reruns++;
	j->done[SW_MAP]--;
	sw_ctl_task_state(c, t, TASK_PENDING);
	sw_ctl_store_task(c, j, SW_MAP, f->map);
	mn->no_maps_until = c->now + CTL_FETCH_BENCH_S;
	sw_ctl_log(c,
	           "job %llu map %u runs again: reduces could not fetch its output from %s; %s "
	           "gets no maps for %d s",
	           (unsigned long long)j->id, f->map, c->conf.nodes[t->node].name,
	           c->conf.nodes[t->node].name, CTL_FETCH_BENCH_S);
}

/* Hands the node what the scheduler gives it: one Assign with every task. */
static void assign(struct ctl *c, struct ctl_conn *conn, const SwWire__Heartbeat *hb)
{
	const struct ctl_conf_node *cn = &c->conf.nodes[conn->node];
	struct sw_heartbeat h = {.node = conn->node};
	struct sw_assignment a[2 * 1024 + 2];
	h.free_slots[SW_MAP] =
	        (uint16_t)(hb->free_map_slots < cn->map_slots ? hb->free_map_slots : cn->map_slots);
	if (c->now < c->nodes[conn->node].no_maps_until)
		h.free_slots[SW_MAP] = 0; /* reduces could not fetch its map output */
	h.free_slots[SW_REDUCE] =
	        (uint16_t)(hb->free_reduce_slots < cn->reduce_slots ? hb->free_reduce_slots
	                                                            : cn->reduce_slots);
	int n = sw_ctl_rec_heartbeat(&c->rec, &h, c->now, a, cn->map_slots + cn->reduce_slots);
	if (n <= 0)
		return;
	SwWire__Task *tasks = calloc((size_t)n, sizeof(*tasks));
	SwWire__Task **ptrs = calloc((size_t)n, sizeof(*ptrs));
	SwWire__Assign msg = SW_WIRE__ASSIGN__INIT;
	for (int i = 0; tasks && ptrs && i < n; i++) {
		struct ctl_job *j = sw_ctl_job(c, a[i].job);
		struct ctl_task *t = &j->tasks[a[i].kind][a[i].task];
		t->attempt++;
		t->node = conn->node;
		t->fetch_failures = 0;
		sw_ctl_task_state(c, t, TASK_RUNNING);
		sw_ctl_store_task(c, j, a[i].kind, a[i].task);
		if (sw_ctl_task_msg(c, j, a[i].kind, a[i].task, &tasks[i]) == 0)
			ptrs[msg.n_tasks++] = &tasks[i];
	}
	msg.tasks = ptrs;
	if (msg.n_tasks > 0)
		sw_ctl_send(c, conn, SW_WIRE_ASSIGN, &msg.base);
	for (int i = 0; tasks && i < n; i++)
		sw_ctl_task_msg_free(&tasks[i]);
	free(tasks);
	free(ptrs);
}

/* The agent's receive counters by source rack, folded into NetSat's uplink sums. */
static void netsat_report(struct ctl *c, uint32_t node, uint64_t epoch, const SwWire__Heartbeat *hb)
{
	struct sw_netsat_count counts[CTL_MAX_RACKS];
	size_t n = hb->n_netsat < CTL_MAX_RACKS ? hb->n_netsat : CTL_MAX_RACKS;
	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		counts[i] = (struct sw_netsat_count){hb->netsat[i]->rack, hb->netsat[i]->rx_bytes};
	/* The first since this controller started is a baseline: the agent may have counted
	 * for long before (a restart), and folded whole it would read as one burst. */
	int rc = sw_netsat_node_known(c->netsat, node)
	                 ? sw_netsat_report(c->netsat, node, epoch, counts, n)
	                 : sw_netsat_baseline(c->netsat, node, epoch, counts, n);
	if (rc < 0)
		sw_ctl_log(c, "%s: NetSat counters refused (%s)", c->conf.nodes[node].name,
		           strerror(-rc));
}

void sw_ctl_net_samples(struct ctl *c)
{
	if (c->now - c->last_net_sample < c->conf.heartbeat_ms / 1000.0)
		return;
	c->last_net_sample = c->now;
	for (uint32_t r = 0; r < c->conf.n_racks; r++) {
		uint64_t out, in;
		if (sw_netsat_uplink(c->netsat, r, &out, &in) == 0)
			sw_ctl_rec_net_sample(&c->rec, r, out, in, c->now);
	}
}

static bool listed(const SwWire__Heartbeat *hb, uint64_t job, int kind, uint32_t task,
                   uint32_t attempt)
{
	for (size_t i = 0; i < hb->n_running; i++) {
		const SwWire__TaskRef *r = hb->running[i];
		if (r->job == job && (int)r->kind == kind && r->task == task &&
		    r->attempt == attempt)
			return true;
	}
	for (size_t i = 0; i < hb->n_events; i++) {
		const SwWire__TaskRef *r = hb->events[i]->task;
		if (r->job == job && (int)r->kind == kind && r->task == task &&
		    r->attempt == attempt)
			return true;
	}
	return false;
}

/* The first heartbeat after a registration: attempts this controller believes run on the
 * node but the agent does not list were lost (an Assign the controller committed but died
 * before sending, or tasks of an agent that restarted without a new boot epoch); reduces it
 * does list get every map location again, in case a MapOutputs was lost the same way. */
static void reconcile(struct ctl *c, uint32_t node, const SwWire__Heartbeat *hb)
{
	/* A walk over every task: only when the node has some (the usual first registration
	 * has none; after a restart each node with tasks costs one walk). */
	for (size_t i = 0; c->nodes[node].running > 0 && i < c->n_jobs; i++) {
		struct ctl_job *j = c->jobs[i];
		for (int k = 0; k < SW_KINDS && j->state == JOB_RUNNING; k++) {
			uint32_t n = k == SW_MAP ? j->n_maps : j->n_reduces;
			for (uint32_t t = 0; t < n && j->state == JOB_RUNNING; t++) {
				const struct ctl_task *ct = &j->tasks[k][t];
				if (ct->state != TASK_RUNNING || ct->node != node)
					continue;
				if (!listed(hb, j->id, k, t, ct->attempt))
					task_failed(c, j, (enum sw_task_kind)k, t,
					            "its agent does not run it (registered again)");
				else if (k == SW_REDUCE)
					sw_ctl_job_outputs(c, j, t, -1); /* some may be lost */
			}
		}
	}
}

/* Attempts the agent lists that are not the task's current attempt on this node (it ran them
 * before its node was declared lost, or before its job ended) are stopped. */
static void kill_stale(struct ctl *c, struct ctl_conn *conn, const SwWire__Heartbeat *hb)
{
	for (size_t i = 0; i < hb->n_running; i++) {
		const SwWire__TaskRef *r = hb->running[i];
		int kind = r->kind == SW_WIRE__TASK_KIND__MAP ? SW_MAP : SW_REDUCE;
		struct ctl_job *j = sw_ctl_job(c, r->job);
		uint32_t n = j == NULL ? 0 : kind == SW_MAP ? j->n_maps : j->n_reduces;
		const struct ctl_task *t = r->task < n ? &j->tasks[kind][r->task] : NULL;
		if (t && j->state == JOB_RUNNING && t->state == TASK_RUNNING &&
		    t->attempt == r->attempt && t->node == conn->node)
			continue;
		SwWire__KillTask kill = SW_WIRE__KILL_TASK__INIT;
		kill.task = (SwWire__TaskRef *)r;
		kill.reason = "not an attempt this controller runs on this node";
		sw_ctl_send(c, conn, SW_WIRE_KILL_TASK, &kill.base);
	}
}

static void heartbeat(struct ctl *c, struct ctl_conn *conn, const SwWire__Heartbeat *hb)
{
	struct ctl_node *n = &c->nodes[conn->node];
	n->last_seen = c->now;
	n->heartbeats++;
	if (conn->fresh && hb->running_listed) {
		reconcile(c, conn->node, hb);
		kill_stale(c, conn, hb);
	}
	conn->fresh = false;
	for (size_t i = 0; i < hb->n_events; i++)
		task_event(c, conn->node, hb->events[i]);
	for (size_t i = 0; i < hb->n_fetch_failures; i++)
		fetch_failure(c, conn->node, hb->fetch_failures[i]);
	netsat_report(c, conn->node, n->boot_epoch, hb);
	assign(c, conn, hb);
}

void sw_ctl_dispatch(struct ctl *c, struct ctl_conn *conn, const struct sw_wire_msg *m)
{
	heartbeat(c, conn, m->heartbeat);
}
