/* SPDX-License-Identifier: MIT */
/*
 * swagent's controller link against a controller played by the test through sw_wire (the real
 * protocol over a real tcp connection on loopback): registration, heartbeats, task events,
 * NetSat counters, Assign / MapOutputs / KillTask / JobDone / Pace, a controller without the key, a
 * refusal, and events of tasks that end while the controller is away.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_int.h"
#include "link.h"
#include "metrics.h"

#define JOB    9
#define SECRET "secret-of-job-9-in-the-test"

struct event {
	SwWire__TaskEvent__Type type;
	uint64_t job;
	SwWire__TaskKind kind;
	uint32_t task, attempt;
	uint32_t n_parts;
	uint64_t part_bytes[4];
	uint32_t part_crc[4];
	char error[256];
};

/* The controller's side. */
struct ctl {
	struct sw_dp_ctx *dp;
	struct sw_dp_ep *ep;
	struct sw_wire_key key;
	struct sw_wire_handshake hs;
	char addr[SW_DP_ADDRSTRLEN];
	const char *refuse; /* answer Hello with Refused(refuse) */
	int hellos, auths_ok, closed, heartbeats;
	SwWire__Hello hello; /* the last one, strings copied below */
	char shuffle_addr[SW_DP_ADDRSTRLEN], replica_addr[SW_DP_ADDRSTRLEN], node_id[64];
	uint32_t free_maps, free_reduces;
	size_t running; /* attempts the last heartbeat listed */
	uint64_t rx_by_rack[4];
	struct event ev[64];
	int n_ev;
	int fetch_failures; /* reported in heartbeats; the last one's fields below */
	uint32_t ff_reduce, ff_map, ff_map_attempt;
	char ff_server[SW_DP_ADDRSTRLEN];
};

/* The agent's side. */
static struct sw_agent *ag;
static struct sw_agent_link *lnk;
static char dir[64];

static void on_end(struct sw_agent *a, const struct sw_agent_task_result *r, void *arg)
{
	(void)a, (void)arg;
	sw_agent_link_task_end(lnk, r);
}

static void on_fetch_failed(struct sw_agent *a, const struct sw_agent_fetch_failure *f, void *arg)
{
	(void)a, (void)arg;
	sw_agent_link_fetch_failed(lnk, f);
}

static void ctl_send(struct ctl *c, enum sw_wire_type type, const ProtobufCMessage *m)
{
	char err[SW_WIRE_ERRLEN];
	assert_int_equal(sw_wire_send(c->ep, type, m, err, sizeof(err)), 0);
}

static void ctl_message(struct ctl *c, const struct sw_wire_msg *m)
{
	SwWire__Challenge ch = SW_WIRE__CHALLENGE__INIT;
	SwWire__Welcome w = SW_WIRE__WELCOME__INIT;
	SwWire__Refused r = SW_WIRE__REFUSED__INIT;
	switch (m->type) {
	case SW_WIRE_HELLO:
		c->hellos++;
		c->hello = *m->hello;
		snprintf(c->node_id, sizeof(c->node_id), "%s", m->hello->node_id);
		snprintf(c->shuffle_addr, sizeof(c->shuffle_addr), "%s", m->hello->shuffle_addr);
		snprintf(c->replica_addr, sizeof(c->replica_addr), "%s", m->hello->replica_addr);
		if (c->refuse) {
			r.reason = (char *)c->refuse;
			ctl_send(c, SW_WIRE_REFUSED, &r.base);
			break;
		}
		assert_int_equal(sw_wire_challenge_make(&c->hs, &c->key, m->hello, &ch), 0);
		ctl_send(c, SW_WIRE_CHALLENGE, &ch.base);
		break;
	case SW_WIRE_AUTH:
		assert_int_equal(sw_wire_auth_check(&c->hs, &c->key, m->auth), 0);
		c->auths_ok++;
		w.heartbeat_ms = 200;
		w.lost_after_ms = 2000;
		ctl_send(c, SW_WIRE_WELCOME, &w.base);
		break;
	case SW_WIRE_HEARTBEAT: {
		const SwWire__Heartbeat *hb = m->heartbeat;
		c->heartbeats++;
		c->free_maps = hb->free_map_slots;
		c->free_reduces = hb->free_reduce_slots;
		assert_true(hb->running_listed);
		c->running = hb->n_running;
		for (size_t i = 0; i < hb->n_netsat; i++)
			if (hb->netsat[i]->rack < 4)
				c->rx_by_rack[hb->netsat[i]->rack] = hb->netsat[i]->rx_bytes;
		for (size_t i = 0; i < hb->n_events; i++) {
			const SwWire__TaskEvent *e = hb->events[i];
			struct event *x = &c->ev[c->n_ev++];
			assert_true(c->n_ev < 64);
			*x = (struct event){.type = e->type,
			                    .job = e->task->job,
			                    .kind = e->task->kind,
			                    .task = e->task->task,
			                    .attempt = e->task->attempt,
			                    .n_parts = (uint32_t)e->n_partitions};
			for (size_t p = 0; p < e->n_partitions && p < 4; p++) {
				x->part_bytes[p] = e->partitions[p]->bytes;
				x->part_crc[p] = e->partitions[p]->crc32c;
			}
			snprintf(x->error, sizeof(x->error), "%s", e->error ? e->error : "");
		}
		for (size_t i = 0; i < hb->n_fetch_failures; i++) {
			const SwWire__FetchFailure *f = hb->fetch_failures[i];
			c->fetch_failures++;
			c->ff_reduce = f->reduce->task;
			c->ff_map = f->map;
			c->ff_map_attempt = f->map_attempt;
			snprintf(c->ff_server, sizeof(c->ff_server), "%s", f->server);
		}
		break;
	}
	default:
		fail_msg("the agent sent %s", sw_wire_type_name(m->type));
	}
}

/* One round: the agent's loop, then the controller's events. */
static void pump(struct ctl *c)
{
	assert_int_equal(sw_agent_run_once(ag, 10), 0);
	struct sw_dp_event ev;
	while (sw_dp_poll(c->dp, &ev, 1) == 1) {
		if (ev.type == SW_DP_EV_ACCEPT) {
			c->ep = ev.ep;
		} else if (ev.type == SW_DP_EV_SEND) {
			sw_wire_sent(&ev);
		} else if (ev.type == SW_DP_EV_CLOSED) {
			c->closed++;
			if (ev.ep == c->ep)
				c->ep = NULL;
			sw_dp_ep_close(ev.ep);
		} else if (ev.type == SW_DP_EV_RECV) {
			struct sw_wire_msg m;
			char err[SW_WIRE_ERRLEN];
			assert_int_equal(
			        sw_wire_decode(ev.tag, ev.data, ev.len, &m, err, sizeof(err)), 0);
			sw_dp_release(c->dp, &ev);
			ctl_message(c, &m);
			sw_wire_msg_free(&m);
		}
	}
}

/* Pumps until the controller has seen n events; no deadline (meson's timeout catches a hang). */
static void wait_events(struct ctl *c, int n)
{
	while (c->n_ev < n)
		pump(c);
}

static void ctl_start(struct ctl *c, const uint8_t *key_byte)
{
	memset(c, 0, sizeof(*c));
	memset(c->key.bytes, *key_byte, sizeof(c->key.bytes));
	struct sw_dp_config dc;
	sw_wire_dp_config(&dc);
	assert_int_equal(sw_dp_open(&dc, &c->dp), 0);
	assert_int_equal(sw_dp_listen(c->dp, "127.0.0.1:0"), 0);
	sw_dp_listen_addr(c->dp, c->addr, sizeof(c->addr));
}

/* An agent with the cluster key (all bytes 1) registering at c. */
static void agent_start_with_store(struct ctl *c, uint64_t store_mem)
{
	snprintf(dir, sizeof(dir), "/tmp/sw-link-test-XXXXXX");
	assert_non_null(mkdtemp(dir));
	struct sw_agent_conf conf = {.rack = 1,
	                             .map_slots = 2,
	                             .reduce_slots = 1,
	                             .store_mem = store_mem,
	                             .heartbeat_ms = 3000};
	strcpy(conf.node_id, "r1n3");
	snprintf(conf.controller, sizeof(conf.controller), "%s", c->addr);
	strcpy(conf.shuffle_listen, "127.0.0.1:0");
	strcpy(conf.replica_listen, "127.0.0.1:0");
	strcpy(conf.transport, "tcp");
	snprintf(conf.store_dir, sizeof(conf.store_dir), "%s", dir);
	snprintf(conf.data_dir, sizeof(conf.data_dir), "%s/data", dir);
	struct sw_wire_key key;
	memset(key.bytes, 1, sizeof(key.bytes));
	struct sw_agent_hooks h = {.on_task_end = on_end, .on_fetch_failed = on_fetch_failed};
	assert_int_equal(sw_agent_create(&conf, key.bytes, sizeof(key.bytes), &h, &ag), 0);
	assert_int_equal(sw_agent_link_create(ag, &key, &lnk), 0);
}

static void agent_start(struct ctl *c)
{
	agent_start_with_store(c, 4u << 20);
}

static void stop(struct ctl *c)
{
	sw_agent_link_destroy(lnk);
	lnk = NULL;
	sw_agent_destroy(ag);
	sw_dp_close(c->dp);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

static void registered(struct ctl *c)
{
	while (!sw_agent_link_up(lnk) || c->heartbeats == 0)
		pump(c);
}

/* ---------------------------------------------------------------------------------------- */

static const uint8_t cluster = 1, impostor = 2;

static void test_the_agent_registers_with_a_controller_that_proves_the_key(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	assert_int_equal(c.hellos, 1);
	assert_string_equal(c.node_id, "r1n3");
	assert_int_equal(c.hello.rack, 1);
	assert_int_equal(c.hello.map_slots, 2);
	assert_int_equal(c.hello.reduce_slots, 1);
	assert_true(c.hello.boot_epoch != 0);
	assert_string_equal(c.shuffle_addr, sw_agent_shuffle_addr(ag));
	assert_string_equal(c.replica_addr, sw_agent_replica_addr(ag));
	assert_int_equal(c.free_maps, 2);
	assert_int_equal(c.free_reduces, 1);
	/* heartbeats keep coming at Welcome's period */
	while (c.heartbeats < 3)
		pump(&c);
	size_t len;
	char *page = sw_agent_metrics_text(ag, lnk, &len);
	assert_non_null(strstr(page, "swagent_registered 1\n"));
	assert_non_null(strstr(page, "swagent_registrations_total 1\n"));
	free(page);
	stop(&c);
}

static void test_the_agent_hangs_up_on_a_controller_without_the_key(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &impostor);
	agent_start(&c);
	while (c.closed == 0)
		pump(&c);
	assert_int_equal(c.hellos, 1);
	assert_int_equal(c.auths_ok, 0);
	assert_false(sw_agent_link_up(lnk));
	stop(&c);
}

static void test_a_refused_agent_tries_again_later(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	c.refuse = "node id r1n3 is registered from another address";
	agent_start(&c);
	while (c.hellos < 2) /* the retry comes after a second */
		pump(&c);
	assert_false(sw_agent_link_up(lnk));
	c.refuse = NULL;
	registered(&c);
	stop(&c);
}

static SwWire__Task *task_new(SwWire__TaskKind kind, uint32_t task)
{
	SwWire__Task *t = calloc(1, sizeof(*t));
	SwWire__TaskRef *ref = calloc(1, sizeof(*ref));
	sw_wire__task__init(t);
	sw_wire__task_ref__init(ref);
	ref->job = JOB;
	ref->kind = kind;
	ref->task = task;
	t->ref = ref;
	t->shuffle_secret.data = (uint8_t *)SECRET;
	t->shuffle_secret.len = strlen(SECRET);
	t->job_maps = 2;
	t->job_reduces = 2;
	return t;
}

static void task_free(SwWire__Task *t)
{
	free(t->ref);
	if (t->runner_case == SW_WIRE__TASK__RUNNER_SYNTHETIC) /* a oneof: one pointer */
		free(t->synthetic);
	else if (t->runner_case == SW_WIRE__TASK__RUNNER_EXEC)
		free(t->exec);
	for (size_t i = 0; i < t->n_maps; i++)
		free(t->maps[i]);
	free(t->maps);
	free(t);
}

static void synthetic(SwWire__Task *t, uint64_t bytes)
{
	t->runner_case = SW_WIRE__TASK__RUNNER_SYNTHETIC;
	t->synthetic = calloc(1, sizeof(*t->synthetic));
	sw_wire__synthetic__init(t->synthetic);
	t->synthetic->input_bytes = bytes;
	t->synthetic->compute_bytes_per_s = 1e9;
	t->synthetic->output_bytes = bytes;
}

static void exec_argv(SwWire__Task *t, char **argv, size_t argc)
{
	t->runner_case = SW_WIRE__TASK__RUNNER_EXEC;
	t->exec = calloc(1, sizeof(*t->exec));
	sw_wire__exec__init(t->exec);
	t->exec->argv = argv;
	t->exec->n_argv = argc;
}

static void assign(struct ctl *c, SwWire__Task **tasks, size_t n)
{
	SwWire__Assign a = SW_WIRE__ASSIGN__INIT;
	a.tasks = tasks;
	a.n_tasks = n;
	ctl_send(c, SW_WIRE_ASSIGN, &a.base);
	for (size_t i = 0; i < n; i++)
		task_free(tasks[i]);
}

static SwWire__MapLocation *location(struct ctl *c, const struct event *fin, uint32_t reduce)
{
	SwWire__MapLocation *l = calloc(1, sizeof(*l));
	sw_wire__map_location__init(l);
	l->map = fin->task;
	l->server = c->shuffle_addr;
	l->rack = 1;
	l->bytes = fin->part_bytes[reduce];
	l->crc32c = fin->part_crc[reduce];
	return l;
}

static const struct event *find(struct ctl *c, SwWire__TaskEvent__Type type, SwWire__TaskKind kind,
                                uint32_t task)
{
	for (int i = 0; i < c->n_ev; i++)
		if (c->ev[i].type == type && c->ev[i].kind == kind && c->ev[i].task == task)
			return &c->ev[i];
	return NULL;
}

static void test_assigned_maps_and_a_reduce_report_their_events_and_netsat_bytes(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	SwWire__Task *maps[] = {task_new(SW_WIRE__TASK_KIND__MAP, 0),
	                        task_new(SW_WIRE__TASK_KIND__MAP, 1)};
	synthetic(maps[0], 1000);
	synthetic(maps[1], 3000);
	assign(&c, maps, 2);
	wait_events(&c, 4); /* started and finished, twice */
	const struct event *fin[2];
	for (uint32_t m = 0; m < 2; m++) {
		assert_non_null(
		        find(&c, SW_WIRE__TASK_EVENT__TYPE__STARTED, SW_WIRE__TASK_KIND__MAP, m));
		fin[m] = find(&c, SW_WIRE__TASK_EVENT__TYPE__FINISHED, SW_WIRE__TASK_KIND__MAP, m);
		assert_non_null(fin[m]);
		assert_int_equal(fin[m]->n_parts, 2);
		assert_int_equal(fin[m]->part_bytes[0] + fin[m]->part_bytes[1], m ? 3000 : 1000);
		uint8_t buf[1500];
		sw_agent_synth_fill(buf, fin[m]->part_bytes[1], JOB, m, 1);
		assert_int_equal(fin[m]->part_crc[1], sw_agent_crc32c(buf, fin[m]->part_bytes[1]));
	}

	/* reduce 1 learns of map 0 in its Assign and of map 1 later */
	SwWire__Task *red = task_new(SW_WIRE__TASK_KIND__REDUCE, 1);
	synthetic(red, 0);
	red->synthetic->output_bytes = 100;
	red->maps = calloc(1, sizeof(*red->maps));
	red->maps[0] = location(&c, fin[0], 1);
	red->n_maps = 1;
	assign(&c, &red, 1);
	wait_events(&c, 5);
	assert_non_null(
	        find(&c, SW_WIRE__TASK_EVENT__TYPE__STARTED, SW_WIRE__TASK_KIND__REDUCE, 1));
	while (sw_agent_counters(ag)->fetched_bytes < 500)
		pump(&c);
	assert_null(find(&c, SW_WIRE__TASK_EVENT__TYPE__FINISHED, SW_WIRE__TASK_KIND__REDUCE, 1));
	SwWire__MapOutputs mo = SW_WIRE__MAP_OUTPUTS__INIT;
	SwWire__MapLocation *l = location(&c, fin[1], 1);
	SwWire__TaskRef ref = SW_WIRE__TASK_REF__INIT;
	ref.job = JOB;
	ref.kind = SW_WIRE__TASK_KIND__REDUCE;
	ref.task = 1;
	mo.reduce = &ref;
	mo.maps = &l;
	mo.n_maps = 1;
	ctl_send(&c, SW_WIRE_MAP_OUTPUTS, &mo.base);
	free(l);
	wait_events(&c, 6);
	assert_non_null(
	        find(&c, SW_WIRE__TASK_EVENT__TYPE__FINISHED, SW_WIRE__TASK_KIND__REDUCE, 1));
	/* NetSat: the 2000 bytes of partition 1 of both maps came from rack 1 (this node's own),
	 * counted as the link carried them: with a 64-byte chunk header each and the one
	 * connection's 24-byte hello */
	while (c.rx_by_rack[1] < 2000)
		pump(&c);
	assert_int_equal(c.rx_by_rack[1], 2000 + 2 * 64 + 24);

	SwWire__JobDone jd = SW_WIRE__JOB_DONE__INIT;
	jd.job = JOB;
	ctl_send(&c, SW_WIRE_JOB_DONE, &jd.base);
	uint64_t len;
	while (sw_shuffle_part_len(ag->store, JOB, 0, 0, &len) != -ESRCH)
		pump(&c);
	stop(&c);
}

static void
test_a_task_assigned_twice_runs_once_and_a_kill_frees_its_slot_without_event(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	char *argv[] = {"sleep", "1000"};
	SwWire__Task *t = task_new(SW_WIRE__TASK_KIND__MAP, 5);
	exec_argv(t, argv, 2);
	SwWire__Assign a = SW_WIRE__ASSIGN__INIT;
	a.tasks = &t;
	a.n_tasks = 1;
	ctl_send(&c, SW_WIRE_ASSIGN, &a.base);
	wait_events(&c, 1);
	assert_int_equal(c.ev[0].type, SW_WIRE__TASK_EVENT__TYPE__STARTED);
	/* the same attempt assigned again changes nothing: no event, one task */
	int beats = c.heartbeats;
	ctl_send(&c, SW_WIRE_ASSIGN, &a.base);
	while (c.heartbeats < beats + 2 || c.free_maps != 1)
		pump(&c);
	assert_int_equal(c.running, 1);
	assert_int_equal(c.n_ev, 1);
	SwWire__KillTask k = SW_WIRE__KILL_TASK__INIT;
	k.task = t->ref;
	k.reason = "speculative copy won";
	ctl_send(&c, SW_WIRE_KILL_TASK, &k.base);
	task_free(t);
	while (c.free_maps != 2)
		pump(&c);
	assert_int_equal(c.running, 0);
	assert_int_equal(c.n_ev, 1);
	assert_int_equal(sw_agent_counters(ag)->tasks_killed, 1);
	stop(&c);
}

/* Pacing's message: the cap and the rack's hosts reach the agent; a Pace naming something
 * that is not an IPv4 address is not taken (and the link stays up); 0 lifts the cap. Over
 * tcp no connection can be paced: the cluster suite checks the rates over dpdk. */
static void test_a_pace_sets_the_agents_cross_rack_cap_and_a_bad_one_is_not_taken(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	char *hosts[] = {"10.1.0.11", "10.1.0.12"}, *bad[] = {"10.1.0.11", "r0n1"};
	SwWire__Pace p = SW_WIRE__PACE__INIT;
	p.bytes_per_s = 1875000;
	p.rack_hosts = hosts;
	p.n_rack_hosts = 2;
	ctl_send(&c, SW_WIRE_PACE, &p.base);
	while (ag->pace_bps != 1875000)
		pump(&c);
	assert_int_equal(ag->n_pace_hosts, 2);
	p.bytes_per_s = 1;
	p.rack_hosts = bad;
	ctl_send(&c, SW_WIRE_PACE, &p.base);
	p.bytes_per_s = 0;
	p.rack_hosts = hosts;
	ctl_send(&c, SW_WIRE_PACE, &p.base);
	while (ag->pace_bps != 0) {
		pump(&c);
		assert_int_not_equal(ag->pace_bps, 1); /* the bad one was never taken */
	}
	int beats = c.heartbeats, closed = c.closed;
	while (c.heartbeats < beats + 2)
		pump(&c);
	assert_int_equal(c.closed, closed);
	stop(&c);
}

static void test_a_reduces_failed_fetches_reach_the_controller_in_heartbeats(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	/* map 0's (attempt 2) location is a port nobody listens on: every fetch fails, and
	 * each failure is in a heartbeat, tried again a second later */
	SwWire__Task *red = task_new(SW_WIRE__TASK_KIND__REDUCE, 1);
	synthetic(red, 0);
	red->maps = calloc(1, sizeof(*red->maps));
	red->maps[0] = calloc(1, sizeof(**red->maps));
	sw_wire__map_location__init(red->maps[0]);
	red->maps[0]->attempt = 2;
	red->maps[0]->server = "127.0.0.1:1";
	red->n_maps = 1;
	assign(&c, &red, 1);
	while (c.fetch_failures < 2)
		pump(&c);
	assert_int_equal(c.ff_reduce, 1);
	assert_int_equal(c.ff_map, 0);
	assert_int_equal(c.ff_map_attempt, 2);
	assert_string_equal(c.ff_server, "127.0.0.1:1");
	assert_null(find(&c, SW_WIRE__TASK_EVENT__TYPE__FAILED, SW_WIRE__TASK_KIND__REDUCE, 1));
	stop(&c);
}

static void test_a_task_the_agent_cannot_start_is_reported_failed(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	SwWire__Task *t = task_new(SW_WIRE__TASK_KIND__MAP, 4);
	synthetic(t, 10);
	t->shuffle_secret.len = 0; /* a synthetic map without its job's secret */
	assign(&c, &t, 1);
	wait_events(&c, 1);
	assert_int_equal(c.ev[0].type, SW_WIRE__TASK_EVENT__TYPE__FAILED);
	assert_int_equal(c.ev[0].task, 4);
	assert_string_equal(c.ev[0].error,
	                    "agent could not start it: invalid parameters for its runner");
	assert_int_equal(c.free_maps, 2);
	stop(&c);
}

static void test_events_of_tasks_ending_while_the_controller_is_away_arrive_after_it(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	registered(&c);
	uint64_t epoch = c.hello.boot_epoch;
	char flag[128], script[256];
	snprintf(flag, sizeof(flag), "%s/go", dir);
	snprintf(script, sizeof(script), "while [ ! -e %s ]; do sleep 0.05; done", flag);
	char *argv[] = {"sh", "-c", script};
	SwWire__Task *t = task_new(SW_WIRE__TASK_KIND__REDUCE, 0);
	exec_argv(t, argv, 3);
	SwWire__Assign a = SW_WIRE__ASSIGN__INIT;
	a.tasks = &t;
	a.n_tasks = 1;
	ctl_send(&c, SW_WIRE_ASSIGN, &a.base);
	task_free(t);
	wait_events(&c, 1);

	/* the controller goes away; the task ends meanwhile */
	sw_dp_ep_close(c.ep);
	c.ep = NULL;
	while (sw_agent_link_up(lnk))
		pump(&c);
	FILE *fp = fopen(flag, "w");
	fclose(fp);
	while (sw_agent_counters(ag)->tasks_succeeded == 0)
		pump(&c);
	assert_int_equal(c.n_ev, 1);
	/* it comes back: the agent registers again, same boot epoch, and the event arrives */
	wait_events(&c, 2);
	assert_int_equal(c.hellos, 2);
	assert_int_equal(c.hello.boot_epoch, epoch);
	assert_int_equal(c.ev[1].type, SW_WIRE__TASK_EVENT__TYPE__FINISHED);
	assert_int_equal(c.ev[1].kind, SW_WIRE__TASK_KIND__REDUCE);
	stop(&c);
}

/* Stopped before the controller answered: the Hello still queued is freed with the link. */
static void test_an_agent_stopped_before_the_controller_answers_frees_what_it_queued(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start(&c);
	stop(&c);
}

/* The Auth carries at most SW_WIRE_MAX_HELD outputs: a store holding more lists the first by
 * job then map, whatever order they were put in, each with its partition count, and the
 * controller's decoder takes the list. */
static void test_a_store_holding_more_outputs_than_an_auth_carries_lists_the_first(void **state)
{
	(void)state;
	struct ctl c;
	ctl_start(&c, &cluster);
	agent_start_with_store(&c, 64u << 20); /* the partitions' metadata counts */
	assert_int_equal(sw_shuffle_job_add(ag->store, JOB + 1, SECRET, strlen(SECRET)), 0);
	assert_int_equal(sw_shuffle_put(ag->store, JOB + 1, 0, 0, "x", 1), 0);
	assert_int_equal(sw_shuffle_job_add(ag->store, JOB, SECRET, strlen(SECRET)), 0);
	for (uint32_t m = SW_WIRE_MAX_HELD; m-- > 0;)
		for (uint32_t p = 0; p < (m == 5 ? 3 : 1); p++)
			assert_int_equal(sw_shuffle_put(ag->store, JOB, m, p, "x", 1), 0);

	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	struct sw_agent_held h;
	assert_int_equal(sw_agent_held_list(ag, &h, &auth), 0);
	assert_int_equal(auth.n_held, SW_WIRE_MAX_HELD);
	for (uint32_t i = 0; i < SW_WIRE_MAX_HELD; i++) {
		assert_int_equal(auth.held[i]->job, JOB);
		assert_int_equal(auth.held[i]->map, i);
		assert_int_equal(auth.held[i]->partitions, i == 5 ? 3 : 1);
	}
	uint8_t mac[SW_WIRE_MAC_LEN] = {0};
	auth.mac = (ProtobufCBinaryData){sizeof(mac), mac};
	void *buf;
	size_t len;
	char err[SW_WIRE_ERRLEN];
	struct sw_wire_msg msg;
	assert_int_equal(sw_wire_encode(SW_WIRE_AUTH, &auth.base, &buf, &len, err, sizeof(err)), 0);
	assert_int_equal(sw_wire_decode(SW_WIRE_AUTH, buf, len, &msg, err, sizeof(err)), 0);
	assert_int_equal(msg.auth->n_held, SW_WIRE_MAX_HELD);
	sw_wire_msg_free(&msg);
	free(buf);
	sw_agent_held_free(&h);
	stop(&c);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_the_agent_registers_with_a_controller_that_proves_the_key),
	        cmocka_unit_test(test_the_agent_hangs_up_on_a_controller_without_the_key),
	        cmocka_unit_test(test_a_refused_agent_tries_again_later),
	        cmocka_unit_test(
	                test_assigned_maps_and_a_reduce_report_their_events_and_netsat_bytes),
	        cmocka_unit_test(
	                test_a_task_assigned_twice_runs_once_and_a_kill_frees_its_slot_without_event),
	        cmocka_unit_test(test_a_reduces_failed_fetches_reach_the_controller_in_heartbeats),
	        cmocka_unit_test(
	                test_a_pace_sets_the_agents_cross_rack_cap_and_a_bad_one_is_not_taken),
	        cmocka_unit_test(test_a_task_the_agent_cannot_start_is_reported_failed),
	        cmocka_unit_test(
	                test_events_of_tasks_ending_while_the_controller_is_away_arrive_after_it),
	        cmocka_unit_test(
	                test_an_agent_stopped_before_the_controller_answers_frees_what_it_queued),
	        cmocka_unit_test(
	                test_a_store_holding_more_outputs_than_an_auth_carries_lists_the_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
