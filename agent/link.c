/* SPDX-License-Identifier: MIT */
/*
 * The controller link: registers (Hello, Challenge, Auth, Welcome), heartbeats every
 * heartbeat_ms and at once when a task ends, turns Assign, MapOutputs, KillTask, JobDone and
 * Pace into calls on the agent's core. It has a dp context of its own (sw_wire's settings), so
 * every send completion on it is a sw_wire buffer. When the connection breaks the tasks keep
 * running: the link reconnects (1 s, doubling up to 30 s) and registers again with the same
 * boot epoch, and task events not yet sent go out in the first heartbeat after Welcome.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sw_wire.h>

#include "agent_int.h"
#include "link.h"

#define RETRY_MIN_MS 1000
#define RETRY_MAX_MS 30000

enum state { DOWN, HELLO_SENT, AUTH_SENT, UP };

/* A task event waiting for the next heartbeat, with the storage its message points into. */
struct pending {
	SwWire__TaskEvent ev;
	SwWire__TaskRef ref;
	SwWire__Partition *parts;
	SwWire__Partition **pparts;
	char *error;
};

/* Fetch failures waiting for the next heartbeat: at most this many (more are dropped; the
 * reduce fails again and reports again a second later). */
#define MAX_FETCH_FAILURES 64

struct pending_ff {
	SwWire__FetchFailure ff;
	SwWire__TaskRef ref;
	char server[SW_DP_ADDRSTRLEN];
	char error[128];
};

struct sw_agent_link {
	struct sw_agent *ag;
	struct sw_dp_ctx *dp;
	struct sw_dp_ep *ep;
	struct sw_agent_watch dp_watch, hb_timer, retry_timer;
	enum state state;
	struct sw_wire_key key;
	struct sw_wire_handshake hs;
	uint64_t boot_epoch;
	uint32_t heartbeat_ms, retry_ms;
	struct pending *ev;
	size_t n_ev, cap_ev;
	struct pending_ff ff[MAX_FETCH_FAILURES];
	size_t n_ff;
	uint64_t heartbeats, registrations;
};

static void link_connect(struct sw_agent_link *l);

static void link_down(struct sw_agent_link *l, const char *why)
{
	if (l->ep) {
		sw_agent_log(l->ag, "controller %s: %s; reconnecting in %u ms",
		             l->ag->conf.controller, why, l->retry_ms);
		sw_dp_ep_close(l->ep);
		l->ep = NULL;
	}
	l->state = DOWN;
	sw_agent_timer_start(l->ag, &l->retry_timer, l->retry_ms);
	l->retry_ms = l->retry_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : l->retry_ms * 2;
}

static int link_send(struct sw_agent_link *l, enum sw_wire_type type, const ProtobufCMessage *m)
{
	char err[SW_WIRE_ERRLEN];
	int rc = sw_wire_send(l->ep, type, m, err, sizeof(err));
	if (rc && rc != -EAGAIN)
		sw_agent_log(l->ag, "controller: %s", err);
	return rc;
}

/* ---------------------------------------------------------------------------------------- */
/* Heartbeats and task events */

static void pending_free(struct pending *p)
{
	free(p->parts);
	free(p->pparts);
	free(p->error);
}

static void task_ref(SwWire__TaskRef *r, uint64_t job, enum sw_agent_kind kind, uint32_t task,
                     uint32_t attempt)
{
	sw_wire__task_ref__init(r);
	r->job = job;
	r->kind = kind == SW_AGENT_MAP ? SW_WIRE__TASK_KIND__MAP : SW_WIRE__TASK_KIND__REDUCE;
	r->task = task;
	r->attempt = attempt;
}

static void send_heartbeat(struct sw_agent_link *l)
{
	struct sw_agent *ag = l->ag;
	if (l->state != UP)
		return;
	uint32_t maps = sw_agent_running(ag, SW_AGENT_MAP);
	uint32_t reduces = sw_agent_running(ag, SW_AGENT_REDUCE);
	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	hb.free_map_slots = ag->conf.map_slots > maps ? ag->conf.map_slots - maps : 0;
	hb.free_reduce_slots =
	        ag->conf.reduce_slots > reduces ? ag->conf.reduce_slots - reduces : 0;
	SwWire__RackBytes *rb = calloc(ag->n_racks + 1, sizeof(*rb));
	SwWire__RackBytes **prb = calloc(ag->n_racks + 1, sizeof(*prb));
	SwWire__TaskEvent **pev = calloc(l->n_ev + 1, sizeof(*pev));
	SwWire__FetchFailure *pff[MAX_FETCH_FAILURES];
	size_t n_run = 0;
	for (const struct sw_agent_task *t = ag->tasks; t; t = t->next)
		n_run++;
	SwWire__TaskRef *run = calloc(n_run + 1, sizeof(*run));
	SwWire__TaskRef **prun = calloc(n_run + 1, sizeof(*prun));
	if (!rb || !prb || !pev || !run || !prun)
		goto out;
	/* every attempt running here, so that a restarted controller can fail those it believes
	 * assigned that never arrived; cheap (slots bound it), so in every heartbeat */
	size_t k = 0;
	for (const struct sw_agent_task *t = ag->tasks; t; t = t->next, k++) {
		task_ref(&run[k], t->spec.job, t->spec.kind, t->spec.task, t->spec.attempt);
		prun[k] = &run[k];
	}
	hb.running = prun;
	hb.n_running = n_run;
	hb.running_listed = 1;
	for (uint32_t r = 0; r < ag->n_racks; r++) {
		uint64_t rx = sw_agent_rx_bytes(ag, r);
		if (!rx)
			continue;
		sw_wire__rack_bytes__init(&rb[hb.n_netsat]);
		rb[hb.n_netsat].rack = r;
		rb[hb.n_netsat].rx_bytes = rx;
		prb[hb.n_netsat] = &rb[hb.n_netsat];
		hb.n_netsat++;
	}
	hb.netsat = prb;
	for (size_t i = 0; i < l->n_ev; i++)
		pev[i] = &l->ev[i].ev;
	hb.events = pev;
	hb.n_events = l->n_ev;
	for (size_t i = 0; i < l->n_ff; i++)
		pff[i] = &l->ff[i].ff;
	hb.fetch_failures = pff;
	hb.n_fetch_failures = l->n_ff;
	if (link_send(l, SW_WIRE_HEARTBEAT, &hb.base) == 0) {
		l->heartbeats++;
		for (size_t i = 0; i < l->n_ev; i++)
			pending_free(&l->ev[i]);
		l->n_ev = 0;
		l->n_ff = 0;
	}
	/* not sent (no credit, connection breaking): the events wait for the next one */
out:
	free(rb);
	free(prb);
	free(pev);
	free(run);
	free(prun);
}

static void on_hb_timer(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent_link *l = container_of(w, struct sw_agent_link, hb_timer);
	sw_agent_timer_ack(w);
	send_heartbeat(l);
	sw_agent_timer_start(l->ag, w, l->heartbeat_ms);
}

static struct pending *pending_add(struct sw_agent_link *l, SwWire__TaskEvent__Type type,
                                   uint64_t job, enum sw_agent_kind kind, uint32_t task,
                                   uint32_t attempt)
{
	if (l->n_ev == l->cap_ev) {
		size_t cap = l->cap_ev ? 2 * l->cap_ev : 16;
		struct pending *p = realloc(l->ev, cap * sizeof(*p));
		if (!p)
			return NULL;
		l->ev = p;
		l->cap_ev = cap;
		/* the events point into their own entries: re-point after the move */
		for (size_t i = 0; i < l->n_ev; i++)
			l->ev[i].ev.task = &l->ev[i].ref;
	}
	struct pending *p = &l->ev[l->n_ev++];
	memset(p, 0, sizeof(*p));
	sw_wire__task_event__init(&p->ev);
	task_ref(&p->ref, job, kind, task, attempt);
	p->ev.type = type;
	p->ev.task = &p->ref;
	return p;
}

static void event_failed(struct sw_agent_link *l, uint64_t job, enum sw_agent_kind kind,
                         uint32_t task, uint32_t attempt, const char *why)
{
	struct pending *p =
	        pending_add(l, SW_WIRE__TASK_EVENT__TYPE__FAILED, job, kind, task, attempt);
	if (p && (p->error = strdup(why)))
		p->ev.error = p->error;
}

void sw_agent_link_task_end(struct sw_agent_link *l, const struct sw_agent_task_result *r)
{
	if (r->state == SW_AGENT_KILLED) /* the controller asked for it: no event expected */
		return;
	if (r->state == SW_AGENT_FAILED) {
		event_failed(l, r->job, r->kind, r->task, r->attempt, r->reason);
	} else {
		struct pending *p = pending_add(l, SW_WIRE__TASK_EVENT__TYPE__FINISHED, r->job,
		                                r->kind, r->task, r->attempt);
		if (p && r->partitions) {
			p->parts = calloc(r->partitions, sizeof(*p->parts));
			p->pparts = calloc(r->partitions, sizeof(*p->pparts));
			for (uint32_t i = 0; p->parts && p->pparts && i < r->partitions; i++) {
				sw_wire__partition__init(&p->parts[i]);
				p->parts[i].reduce = i;
				p->parts[i].bytes = r->part_bytes[i];
				p->parts[i].crc32c = r->part_crc[i];
				p->pparts[i] = &p->parts[i];
			}
			if (p->parts && p->pparts) {
				p->ev.partitions = p->pparts;
				p->ev.n_partitions = r->partitions;
			}
		}
	}
	send_heartbeat(l); /* out of band: the controller can assign the freed slot at once */
}

void sw_agent_link_fetch_failed(struct sw_agent_link *l, const struct sw_agent_fetch_failure *f)
{
	if (l->n_ff == MAX_FETCH_FAILURES)
		return;
	struct pending_ff *p = &l->ff[l->n_ff++];
	sw_wire__fetch_failure__init(&p->ff);
	task_ref(&p->ref, f->job, SW_AGENT_REDUCE, f->reduce, f->attempt);
	snprintf(p->server, sizeof(p->server), "%s", f->server);
	snprintf(p->error, sizeof(p->error), "%s", f->error);
	p->ff.reduce = &p->ref;
	p->ff.map = f->map;
	p->ff.map_attempt = f->map_attempt;
	p->ff.server = p->server;
	p->ff.error = p->error;
}

/* ---------------------------------------------------------------------------------------- */
/* Messages from the controller */

static void source_from(struct sw_agent_source *s, const SwWire__MapLocation *m)
{
	memset(s, 0, sizeof(*s));
	s->map = m->map;
	s->attempt = m->attempt;
	s->rack = m->rack;
	snprintf(s->addr, sizeof(s->addr), "%s", m->server);
	s->has_sum = true;
	s->bytes = m->bytes;
	s->crc = m->crc32c;
}

static void assign_task(struct sw_agent_link *l, const SwWire__Task *t)
{
	const SwWire__TaskRef *ref = t->ref;
	enum sw_agent_kind kind =
	        ref->kind == SW_WIRE__TASK_KIND__MAP ? SW_AGENT_MAP : SW_AGENT_REDUCE;
	struct sw_agent_task_spec s = {.job = ref->job,
	                               .task = ref->task,
	                               .kind = kind,
	                               .attempt = ref->attempt,
	                               .secret = t->shuffle_secret.data,
	                               .secret_len = t->shuffle_secret.len,
	                               .partitions = t->job_reduces,
	                               .maps = t->job_maps};
	struct sw_agent_source *src = calloc(t->n_maps + 1, sizeof(*src));
	if (!src) {
		event_failed(l, ref->job, kind, ref->task, ref->attempt, "agent out of memory");
		return;
	}
	for (size_t i = 0; i < t->n_maps; i++)
		source_from(&src[i], t->maps[i]);
	s.sources = src;
	s.n_sources = (uint32_t)t->n_maps;
	if (t->runner_case == SW_WIRE__TASK__RUNNER_SYNTHETIC) {
		const SwWire__Synthetic *y = t->synthetic;
		s.runner = "synthetic";
		s.input_bytes = y->input_bytes;
		s.rate = y->compute_bytes_per_s;
		s.output_bytes = y->output_bytes;
		s.replicas = (const char *const *)y->replica_addrs;
		s.n_replicas = (uint32_t)y->n_replica_addrs;
	} else if (t->runner_case == SW_WIRE__TASK__RUNNER_EXEC) {
		s.runner = "exec";
		s.argv = (const char *const *)t->exec->argv;
		s.argc = (uint32_t)t->exec->n_argv;
	}
	int rc = s.runner ? sw_agent_task_start(l->ag, &s) : -EINVAL;
	free(src);
	if (rc == -EEXIST) { /* sent again (a restarted controller): it runs, and says so */
		sw_agent_log(l->ag, "job %llu %s %u attempt %u: assigned again; already running",
		             (unsigned long long)ref->job, kind == SW_AGENT_MAP ? "map" : "reduce",
		             ref->task, ref->attempt);
		return;
	}
	if (rc) {
		char why[160];
		snprintf(why, sizeof(why), "agent could not start it: %s",
		         !s.runner       ? "the task names no runner"
		         : rc == -EINVAL ? "invalid parameters for its runner"
		                         : strerror(-rc));
		sw_agent_log(l->ag, "job %llu %s %u attempt %u: %s", (unsigned long long)ref->job,
		             kind == SW_AGENT_MAP ? "map" : "reduce", ref->task, ref->attempt, why);
		event_failed(l, ref->job, kind, ref->task, ref->attempt, why);
		return;
	}
	pending_add(l, SW_WIRE__TASK_EVENT__TYPE__STARTED, ref->job, kind, ref->task, ref->attempt);
}

static void on_message(struct sw_agent_link *l, const struct sw_wire_msg *m)
{
	struct sw_agent *ag = l->ag;
	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	struct sw_agent_held held;
	int rc;
	/* before Welcome only the handshake's answers are taken */
	if (l->state != UP && m->type != SW_WIRE_CHALLENGE && m->type != SW_WIRE_WELCOME &&
	    m->type != SW_WIRE_REFUSED) {
		link_down(l, "message before the handshake ended");
		return;
	}
	switch (m->type) {
	case SW_WIRE_CHALLENGE:
		if (l->state != HELLO_SENT) {
			link_down(l, "unexpected Challenge");
			return;
		}
		rc = sw_wire_challenge_answer(&l->hs, &l->key, m->challenge, &auth);
		if (rc) {
			link_down(l,
			          "the controller did not prove the cluster key (wrong key on one "
			          "side?)");
			return;
		}
		sw_agent_held_list(ag, &held, &auth);
		if (link_send(l, SW_WIRE_AUTH, &auth.base) == 0)
			l->state = AUTH_SENT;
		sw_agent_held_free(&held);
		break;
	case SW_WIRE_WELCOME:
		if (l->state != AUTH_SENT) {
			link_down(l, "unexpected Welcome");
			return;
		}
		l->state = UP;
		l->retry_ms = RETRY_MIN_MS;
		l->registrations++;
		if (m->welcome->heartbeat_ms)
			l->heartbeat_ms = m->welcome->heartbeat_ms;
		sw_agent_log(ag, "registered with controller %s (heartbeat every %u ms)",
		             ag->conf.controller, l->heartbeat_ms);
		sw_agent_timer_start(ag, &l->hb_timer, 0);
		break;
	case SW_WIRE_REFUSED:
		sw_agent_log(ag, "controller %s refused this agent: %s", ag->conf.controller,
		             m->refused->reason);
		link_down(l, "refused");
		break;
	case SW_WIRE_ASSIGN:
		for (size_t i = 0; i < m->assign->n_tasks; i++)
			assign_task(l, m->assign->tasks[i]);
		send_heartbeat(l); /* STARTED events, and the slots now taken */
		break;
	case SW_WIRE_MAP_OUTPUTS: {
		const SwWire__MapOutputs *mo = m->map_outputs;
		const SwWire__TaskRef *r = mo->reduce;
		for (size_t i = 0; i < mo->n_maps; i++) {
			struct sw_agent_source s;
			source_from(&s, mo->maps[i]);
			rc = sw_agent_task_sources(ag, r->job, r->task, r->attempt, &s, 1);
			/* -ESRCH: the reduce ended meanwhile */
			if (rc && rc != -ESRCH)
				sw_agent_log(
				        ag,
				        "job %llu reduce %u: map output %u from %s not taken: %s",
				        (unsigned long long)r->job, r->task, s.map, s.addr,
				        strerror(-rc));
		}
		break;
	}
	case SW_WIRE_KILL_TASK: {
		const SwWire__TaskRef *r = m->kill_task->task;
		rc = sw_agent_task_kill(ag, r->job, r->task,
		                        r->kind == SW_WIRE__TASK_KIND__MAP ? SW_AGENT_MAP
		                                                           : SW_AGENT_REDUCE,
		                        r->attempt);
		if (rc)
			sw_agent_log(ag, "kill of job %llu task %u attempt %u: not running here",
			             (unsigned long long)r->job, r->task, r->attempt);
		break;
	}
	case SW_WIRE_JOB_DONE:
		sw_agent_job_done(ag, m->job_done->job);
		break;
	case SW_WIRE_PACE:
		rc = sw_agent_pace_set(ag, m->pace->bytes_per_s, m->pace->rack_hosts,
		                       m->pace->n_rack_hosts);
		if (rc)
			sw_agent_log(ag, "Pace from the controller not taken: %s",
			             rc == -EINVAL ? "a rack host is not an IPv4 address"
			                           : strerror(-rc));
		break;
	default:
		link_down(l, "message an agent does not take");
		break;
	}
}

/* ---------------------------------------------------------------------------------------- */
/* Connection */

static void send_hello(struct sw_agent_link *l)
{
	struct sw_agent *ag = l->ag;
	SwWire__Hello h = SW_WIRE__HELLO__INIT;
	if (sw_wire_hello_init(&l->hs, ag->conf.node_id, &h)) {
		link_down(l, "cannot start the handshake");
		return;
	}
	h.rack = ag->conf.rack;
	h.map_slots = ag->conf.map_slots;
	h.reduce_slots = ag->conf.reduce_slots;
	h.shuffle_addr = ag->shuffle_addr;
	h.replica_addr = ag->replica_addr;
	h.boot_epoch = l->boot_epoch;
	if (link_send(l, SW_WIRE_HELLO, &h.base) == 0)
		l->state = HELLO_SENT;
	else
		link_down(l, "cannot send Hello");
}

static void link_connect(struct sw_agent_link *l)
{
	int rc = sw_dp_connect(l->dp, l->ag->conf.controller, &l->ep);
	if (rc) {
		sw_agent_log(l->ag, "controller %s: %s", l->ag->conf.controller,
		             sw_dp_strerror(rc));
		link_down(l, "cannot connect");
		return;
	}
	send_hello(l); /* queued until the connection is up */
}

static void on_retry(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent_link *l = container_of(w, struct sw_agent_link, retry_timer);
	sw_agent_timer_ack(w);
	if (l->state == DOWN)
		link_connect(l);
}

static void on_dp(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent_link *l = container_of(w, struct sw_agent_link, dp_watch);
	struct sw_dp_event ev;
	while (sw_dp_poll(l->dp, &ev, 1) == 1) {
		if (ev.type == SW_DP_EV_SEND) {
			sw_wire_sent(&ev);
		} else if (ev.type == SW_DP_EV_CLOSED && ev.ep == l->ep) {
			link_down(l, ev.status ? sw_dp_strerror(ev.status) : "connection closed");
		} else if (ev.type == SW_DP_EV_RECV) {
			struct sw_wire_msg m;
			char err[SW_WIRE_ERRLEN];
			int rc = sw_wire_decode(ev.tag, ev.data, ev.len, &m, err, sizeof(err));
			sw_dp_release(l->dp, &ev);
			if (rc) {
				link_down(l, err);
				continue;
			}
			on_message(l, &m);
			sw_wire_msg_free(&m);
		}
	}
}

int sw_agent_link_create(struct sw_agent *ag, const struct sw_wire_key *key,
                         struct sw_agent_link **out)
{
	struct sw_agent_link *l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->ag = ag;
	l->key = *key;
	l->heartbeat_ms = ag->conf.heartbeat_ms;
	l->retry_ms = RETRY_MIN_MS;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	/* a new value on every start: the controller's NetSat resets this node's baseline */
	l->boot_epoch = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	l->dp_watch.fn = on_dp;
	l->hb_timer.fd = -1;
	l->hb_timer.fn = on_hb_timer;
	l->retry_timer.fd = -1;
	l->retry_timer.fn = on_retry;
	struct sw_dp_config dc;
	sw_wire_dp_config(&dc);
	int rc = sw_dp_open(&dc, &l->dp);
	if (rc) {
		free(l);
		return rc;
	}
	rc = sw_agent_dp_watch(ag, &l->dp_watch, l->dp);
	if (rc) {
		sw_dp_close(l->dp);
		free(l);
		return rc;
	}
	link_connect(l);
	*out = l;
	return 0;
}

void sw_agent_link_destroy(struct sw_agent_link *l)
{
	if (!l)
		return;
	sw_agent_watch_close(l->ag, &l->hb_timer);
	sw_agent_watch_close(l->ag, &l->retry_timer);
	sw_agent_dp_unwatch(l->ag, &l->dp_watch);
	sw_dp_ep_close(l->ep);
	sw_wire_dp_close(l->dp);
	for (size_t i = 0; i < l->n_ev; i++)
		pending_free(&l->ev[i]);
	free(l->ev);
	free(l);
}

bool sw_agent_link_up(const struct sw_agent_link *l)
{
	return l->state == UP;
}

void sw_agent_link_counters(const struct sw_agent_link *l, struct sw_agent_link_counters *out)
{
	out->heartbeats = l->heartbeats;
	out->registrations = l->registrations;
	out->events_queued = l->n_ev;
}
