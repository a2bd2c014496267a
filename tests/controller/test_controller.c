/* SPDX-License-Identifier: MIT */
/*
 * swcontroller as a process, driven by agents that speak the real wire protocol on loopback
 * (tests/controller/peer.c): jobs run to completion and the trace replays identically;
 * wrong keys, unknown or doubled node ids, malformed, oversized and out-of-order messages are
 * refused with a clear reason and cost only their own connection; a silent agent is declared
 * lost and its tasks run elsewhere; after kill -9 and a restart the job completes; a job's
 * deadline reaches the scheduler and survives the restart.
 * argv[1]: the swctl binary (replay-trace is checked with it).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "peer.h"

static const char *swctl;
static const char *const names[4] = {"r0n0", "r0n1", "r1n0", "r1n1"};

/* A task an agent was given and will report on its next heartbeat. */
struct held {
	SwWire__TaskRef ref;
	uint32_t maps_known; /* reduces: distinct map outputs received */
	uint8_t seen[64];
	bool started, done;
};

struct node {
	struct agent a;
	struct held tasks[64];
	int n;
	bool silent; /* stops heartbeating */
	uint32_t ran[2];
	double rate[2]; /* the synthetic runner's compute rate of the last map and reduce given */
};

/* The partition checksum a map reports: the reducer must be handed the same. */
static uint32_t crc_of(uint64_t job, uint32_t map, uint32_t reduce)
{
	return (uint32_t)(job * 1000003u + map * 1009u + reduce);
}

static void take_locations(struct held *h, SwWire__MapLocation **locs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_true(locs[i]->map < 64);
		assert_int_equal(locs[i]->crc32c, crc_of(h->ref.job, locs[i]->map, h->ref.task));
		assert_int_equal(locs[i]->bytes, 100 + locs[i]->map);
		assert_string_equal(locs[i]->server, "127.0.0.1:7070");
		if (!h->seen[locs[i]->map]) {
			h->seen[locs[i]->map] = 1;
			h->maps_known++;
		}
	}
}

/* Reads what the controller sent the node. */
static void receive(struct node *nd)
{
	struct sw_wire_msg m;
	while (agent_poll(&nd->a, &m) == 0) {
		if (m.type == SW_WIRE_ASSIGN) {
			for (size_t i = 0; i < m.assign->n_tasks; i++) {
				const SwWire__Task *t = m.assign->tasks[i];
				assert_true(nd->n < 64);
				assert_int_equal(t->shuffle_secret.len, 32);
				struct held *h = &nd->tasks[nd->n++];
				memset(h, 0, sizeof(*h));
				h->ref = *t->ref;
				h->ref.base.unknown_fields = NULL;
				h->ref.base.n_unknown_fields = 0;
				take_locations(h, t->maps, t->n_maps);
				nd->ran[t->ref->kind]++;
				if (t->synthetic)
					nd->rate[t->ref->kind] = t->synthetic->compute_bytes_per_s;
			}
		} else if (m.type == SW_WIRE_MAP_OUTPUTS) {
			const SwWire__TaskRef *r = m.map_outputs->reduce;
			for (int i = 0; i < nd->n; i++)
				if (nd->tasks[i].ref.job == r->job &&
				    nd->tasks[i].ref.kind == r->kind &&
				    nd->tasks[i].ref.task == r->task &&
				    nd->tasks[i].ref.attempt == r->attempt)
					take_locations(&nd->tasks[i], m.map_outputs->maps,
					               m.map_outputs->n_maps);
		}
		sw_wire_msg_free(&m);
	}
}

/* One heartbeat: every held task starts, then finishes (a reduce once it knows all maps). */
static void heartbeat(struct node *nd, uint32_t job_maps, uint32_t job_reduces)
{
	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	SwWire__TaskEvent ev[128], *evp[128];
	SwWire__Partition parts[64][16], *pp[64][16];
	SwWire__TaskRef *running[64];
	size_t n = 0;
	uint32_t busy[2] = {0};
	for (int i = 0; i < nd->n; i++)
		if (!nd->tasks[i].done)
			running[hb.n_running++] = &nd->tasks[i].ref;
	hb.running = running;
	hb.running_listed = 1;
	for (int i = 0; i < nd->n; i++) {
		struct held *h = &nd->tasks[i];
		if (h->done)
			continue;
		sw_wire__task_event__init(&ev[n]);
		ev[n].task = &h->ref;
		if (!h->started) {
			ev[n].type = SW_WIRE__TASK_EVENT__TYPE__STARTED;
			h->started = true;
			evp[n] = &ev[n];
			n++;
			busy[h->ref.kind]++;
			continue;
		}
		if (h->ref.kind == SW_WIRE__TASK_KIND__REDUCE && h->maps_known < job_maps) {
			busy[h->ref.kind]++;
			continue;
		}
		ev[n].type = SW_WIRE__TASK_EVENT__TYPE__FINISHED;
		if (h->ref.kind == SW_WIRE__TASK_KIND__MAP) {
			for (uint32_t r = 0; r < job_reduces; r++) {
				sw_wire__partition__init(&parts[i][r]);
				parts[i][r].reduce = r;
				parts[i][r].bytes = 100 + h->ref.task;
				parts[i][r].crc32c = crc_of(h->ref.job, h->ref.task, r);
				pp[i][r] = &parts[i][r];
			}
			ev[n].n_partitions = job_reduces;
			ev[n].partitions = pp[i];
		}
		h->done = true;
		evp[n] = &ev[n];
		n++;
	}
	hb.free_map_slots = 2 - busy[0];
	hb.free_reduce_slots = 2 - busy[1];
	hb.n_events = n;
	hb.events = evp;
	assert_int_equal(agent_send(&nd->a, SW_WIRE_HEARTBEAT, &hb.base), 0);
}

static char *job_state(const struct ctlproc *p, int id)
{
	char *body, *state = NULL, key[64];
	assert_int_equal(ctl_http(p, "GET", "/jobs", NULL, &body), 200);
	snprintf(key, sizeof(key), "\"id\": %d,", id);
	char *at = strstr(body, key);
	if (at) {
		char *s = strstr(at, "\"state\": \"");
		if (s) {
			s += 10;
			state = strndup(s, strcspn(s, "\""));
		}
	}
	free(body);
	return state;
}

/* The number after the first "key" of text (after its colon), NAN when absent. */
static double number_after(const char *text, const char *key)
{
	const char *at = strstr(text, key);
	return at ? strtod(at + strlen(key) + strspn(at + strlen(key), ": "), NULL) : NAN;
}

/* The contents of file path (malloc'd). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *text = calloc(1, 1 << 20);
	assert_non_null(text);
	fread(text, 1, (1 << 20) - 1, f);
	fclose(f);
	return text;
}

/* Heartbeats the nodes that are not silent until job id is done (or a bound of rounds). */
static void run_until_done(const struct ctlproc *p, struct node *nodes, int n, int id,
                           uint32_t maps, uint32_t reduces)
{
	for (int round = 0; round < 3000; round++) {
		for (int i = 0; i < n; i++) {
			if (nodes[i].silent)
				continue;
			heartbeat(&nodes[i], maps, reduces);
			receive(&nodes[i]);
		}
		if (round % 10 == 9) {
			char *st = job_state(p, id);
			bool done = st && !strcmp(st, "done");
			free(st);
			if (done)
				return;
		}
	}
	fail_msg("job %d did not finish", id);
}

static void join_all(const struct ctlproc *p, struct node *nodes, uint64_t epoch)
{
	for (int i = 0; i < 4; i++) {
		memset(&nodes[i], 0, sizeof(nodes[i]));
		assert_int_equal(agent_join(&nodes[i].a, p, names[i], (uint32_t)i / 2,
		                            &p->cluster_key, epoch),
		                 0);
		assert_int_equal(nodes[i].a.welcome.heartbeat_ms, 100);
	}
}

static int submit(const struct ctlproc *p, const char *job)
{
	char *body;
	int id = -1;
	assert_int_equal(ctl_http(p, "POST", "/jobs", job, &body), 201);
	assert_int_equal(sscanf(body, "{\"id\": %d}", &id), 1);
	free(body);
	return id;
}

static int run_swctl(const char *arg1, const char *arg2)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "%s %s %s >/dev/null", swctl, arg1, arg2);
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void a_job_runs_to_completion_on_four_agents_and_its_trace_replays_identically(void **s)
{
	(void)s;
	struct ctlproc p;
	struct node nodes[4];
	ctl_setup(&p, 100, 5000, NULL);
	join_all(&p, nodes, 1);
	int id =
	        submit(&p, "{\"name\": \"t\", \"maps\": 12, \"reduces\": 3, \"input_bytes\": 1000, "
	                   "\"compute_bytes_per_s\": 5e6, \"reduce_compute_bytes_per_s\": 7e6}");
	run_until_done(&p, nodes, 4, id, 12, 3);
	uint32_t maps = 0, reduces = 0;
	for (int i = 0; i < 4; i++) {
		maps += nodes[i].ran[0];
		reduces += nodes[i].ran[1];
		/* maps and reduces compute at their own rates */
		assert_true(!nodes[i].ran[0] || nodes[i].rate[0] == 5e6);
		assert_true(!nodes[i].ran[1] || nodes[i].rate[1] == 7e6);
	}
	assert_int_equal(maps, 12);
	assert_int_equal(reduces, 3);
	assert_true(ctl_logged(&p, "job 1 (t) done"));
	assert_int_equal(ctl_stop(&p, SIGTERM), 0);
	assert_int_equal(run_swctl("replay-trace", p.trace), 0);
	/* A trace whose recorded assignment differs fails the replay. */
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "sed -i '0,/\"out\":\\[\\[1,0,/s//\"out\":[[1,0,1/' %s",
	         p.trace);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(run_swctl("replay-trace", p.trace), 1);
	for (int i = 0; i < 4; i++)
		agent_close(&nodes[i].a);
	ctl_cleanup(&p);
}

static void agents_without_the_cluster_key_are_refused_with_the_reason(void **s)
{
	(void)s;
	struct ctlproc p;
	struct agent a;
	struct sw_wire_key wrong;
	ctl_setup(&p, 100, 5000, NULL);
	wrong = p.cluster_key;
	wrong.bytes[0] ^= 1;
	assert_int_equal(agent_join(&a, &p, "r0n0", 0, &wrong, 1), -ECONNREFUSED);
	assert_true(a.controller_unproven);
	assert_string_equal(a.refused, "wrong cluster key (node r0n0)");
	agent_close(&a);
	assert_true(ctl_logged(&p, "refused: wrong cluster key (node r0n0)"));
	/* The node can still join with the key. */
	assert_int_equal(agent_join(&a, &p, "r0n0", 0, &p.cluster_key, 1), 0);
	agent_close(&a);
	ctl_cleanup(&p);
}

static void unknown_ids_wrong_racks_and_a_second_claim_of_a_live_node_are_refused(void **s)
{
	(void)s;
	struct ctlproc p;
	struct agent a, b;
	ctl_setup(&p, 100, 5000, NULL);
	assert_int_equal(agent_join(&a, &p, "r9n9", 0, &p.cluster_key, 1), -ECONNREFUSED);
	assert_string_equal(a.refused, "unknown node id r9n9 (not in the controller's config)");
	agent_close(&a);
	assert_int_equal(agent_join(&a, &p, "r0n1", 1, &p.cluster_key, 1), -ECONNREFUSED);
	assert_string_equal(a.refused, "node r0n1 is in rack 0 in the controller's config, not 1");
	agent_close(&a);
	assert_int_equal(agent_join(&a, &p, "r0n1", 0, &p.cluster_key, 1), 0);
	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	assert_int_equal(agent_send(&a, SW_WIRE_HEARTBEAT, &hb.base), 0);
	assert_int_equal(agent_join(&b, &p, "r0n1", 0, &p.cluster_key, 2), -ECONNREFUSED);
	assert_non_null(strstr(b.refused, "node r0n1 is connected already, from 127.0.0.1:"));
	agent_close(&b);
	agent_close(&a);
	ctl_cleanup(&p);
}

static void bad_messages_close_only_their_own_connection(void **s)
{
	(void)s;
	struct ctlproc p;
	struct agent a, good;
	struct sw_wire_msg m;
	ctl_setup(&p, 100, 5000, NULL);
	assert_int_equal(agent_join(&good, &p, "r1n0", 1, &p.cluster_key, 1), 0);

	static const uint8_t junk[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
	agent_connect(&a, &p);
	assert_int_equal(agent_send_raw(&a, SW_WIRE_HELLO, junk, sizeof(junk)), 0);
	assert_int_equal(agent_next(&a, &m), -ECONNRESET);
	agent_close(&a);
	assert_true(ctl_logged(&p, "malformed Hello (10 bytes); connection closed"));

	size_t big = SW_WIRE_MAX_MSG + 1;
	uint8_t *buf = calloc(1, big);
	agent_connect(&a, &p);
	assert_int_equal(agent_send_raw(&a, SW_WIRE_HELLO, buf, big), 0);
	assert_int_equal(agent_next(&a, &m), -ECONNRESET);
	agent_close(&a);
	free(buf);

	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	agent_connect(&a, &p);
	assert_int_equal(agent_send(&a, SW_WIRE_HEARTBEAT, &hb.base), 0);
	assert_int_equal(agent_next(&a, &m), -ECONNRESET);
	agent_close(&a);
	assert_true(ctl_logged(&p, "sent Heartbeat where Hello was due; connection closed"));

	agent_connect(&a, &p);
	assert_int_equal(agent_send_raw(&a, 99, "", 0), 0);
	assert_int_equal(agent_next(&a, &m), -ECONNRESET);
	agent_close(&a);
	assert_true(ctl_logged(&p, "unknown message type 99"));

	/* The registered agent was not disturbed, and the controller still answers. */
	assert_int_equal(agent_send(&good, SW_WIRE_HEARTBEAT, &hb.base), 0);
	char *body;
	assert_int_equal(ctl_http(&p, "GET", "/status", NULL, &body), 200);
	assert_non_null(strstr(body, "\"connected\": true"));
	free(body);
	agent_close(&good);
	assert_int_equal(ctl_stop(&p, SIGTERM), 0);
	ctl_cleanup(&p);
}

static void a_silent_agent_is_declared_lost_and_its_tasks_run_elsewhere(void **s)
{
	(void)s;
	struct ctlproc p;
	struct node nodes[4];
	ctl_setup(&p, 100, 1000, NULL);
	join_all(&p, nodes, 1);
	int id = submit(&p, "{\"maps\": 8, \"reduces\": 2, \"input_bytes\": 1000}");
	/* r0n0 takes its tasks and falls silent before reporting anything. */
	heartbeat(&nodes[0], 8, 2);
	for (int i = 0; i < 200 && nodes[0].n == 0; i++)
		receive(&nodes[0]);
	assert_true(nodes[0].n > 0);
	nodes[0].silent = true;
	run_until_done(&p, nodes, 4, id, 8, 2);
	assert_true(ctl_logged(&p, "node r0n0 lost: no heartbeat for"));
	assert_true(ctl_logged(&p, "lost_after_ms 1000"));
	char *body;
	assert_int_equal(ctl_http(&p, "GET", "/metrics", NULL, &body), 200);
	assert_non_null(strstr(body, "swcontroller_nodes{state=\"lost\"} 1"));
	free(body);
	/* Back (the same agent: same boot epoch), it joins again, and the attempts it still
	 * lists as running, handed out elsewhere since, are killed. */
	agent_close(&nodes[0].a);
	assert_int_equal(agent_join(&nodes[0].a, &p, "r0n0", 0, &p.cluster_key, 1), 0);
	heartbeat(&nodes[0], 8, 2);
	struct sw_wire_msg m;
	bool killed = false;
	while (!killed && agent_next(&nodes[0].a, &m) == 0) {
		killed = m.type == SW_WIRE_KILL_TASK &&
		         !strcmp(m.kill_task->reason,
		                 "not an attempt this controller runs on this node");
		sw_wire_msg_free(&m);
	}
	assert_true(killed);
	assert_int_equal(ctl_stop(&p, SIGTERM), 0);
	assert_true(ctl_logged(&p, "node r0n0 is back"));
	assert_int_equal(run_swctl("replay-trace", p.trace), 0);
	for (int i = 0; i < 4; i++)
		agent_close(&nodes[i].a);
	ctl_cleanup(&p);
}

static void after_kill_9_and_a_restart_the_agents_rejoin_and_the_job_completes(void **s)
{
	(void)s;
	struct ctlproc p;
	struct node nodes[4];
	ctl_setup(&p, 100, 5000, NULL);
	join_all(&p, nodes, 7);
	int id = submit(&p, "{\"maps\": 10, \"reduces\": 2, \"input_bytes\": 1000, "
	                    "\"deadline_s\": 3600}");
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 4; i++) {
			heartbeat(&nodes[i], 10, 2);
			receive(&nodes[i]);
		}
	assert_int_equal(ctl_stop(&p, SIGKILL), 128 + SIGKILL);
	ctl_start(&p);
	assert_true(ctl_logged(&p, "state restored from"));
	char *body;
	assert_int_equal(ctl_http(&p, "GET", "/jobs", NULL, &body), 200);
	assert_true(number_after(body, "\"deadline_s\"") == 3600);
	free(body);
	for (int i = 0; i < 4; i++) {
		agent_close(&nodes[i].a);
		/* The agents kept running: same boot epoch, the same tasks. */
		assert_int_equal(
		        agent_join(&nodes[i].a, &p, names[i], (uint32_t)i / 2, &p.cluster_key, 7),
		        0);
	}
	run_until_done(&p, nodes, 4, id, 10, 2);
	assert_int_equal(ctl_stop(&p, SIGTERM), 0);
	assert_int_equal(run_swctl("replay-trace", p.trace), 0);
	for (int i = 0; i < 4; i++)
		agent_close(&nodes[i].a);
	ctl_cleanup(&p);
}

static void a_deadline_reaches_the_scheduler_and_bad_ones_get_the_reason(void **s)
{
	(void)s;
	struct ctlproc p;
	struct node nodes[4];
	char *body;
	ctl_setup(&p, 100, 5000, "policy = adaptive\n");
	join_all(&p, nodes, 1);
	static const char *const bad[] = {"-1", "1e10", "\"soon\"", "null"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char job[128];
		snprintf(job, sizeof(job), "{\"maps\": 4, \"reduces\": 1, \"deadline_s\": %s}",
		         bad[i]);
		assert_int_equal(ctl_http(&p, "POST", "/jobs", job, &body), 400);
		assert_non_null(strstr(body, "deadline_s"));
		free(body);
	}
	int id = submit(&p, "{\"maps\": 8, \"reduces\": 2, \"input_bytes\": 1000, "
	                    "\"deadline_s\": 600}");
	assert_int_equal(ctl_http(&p, "GET", "/jobs", NULL, &body), 200);
	double submitted = number_after(body, "\"submitted\"");
	assert_true(number_after(body, "\"deadline_s\"") == 600);
	free(body);
	run_until_done(&p, nodes, 4, id, 8, 2);
	assert_int_equal(ctl_stop(&p, SIGTERM), 0);
	/* the scheduler got it as an absolute time on the controller's clock */
	char *trace = slurp(p.trace);
	const char *add = strstr(trace, "\"call\":\"job_add\"");
	assert_non_null(add);
	assert_true(number_after(add, "\"deadline\"") == submitted + 600);
	free(trace);
	assert_int_equal(run_swctl("replay-trace", p.trace), 0);
	for (int i = 0; i < 4; i++)
		agent_close(&nodes[i].a);
	ctl_cleanup(&p);
}

static void bad_submissions_get_the_reason_and_metrics_pass_promtool(void **s)
{
	(void)s;
	struct ctlproc p;
	char *body;
	ctl_setup(&p, 100, 5000, NULL);
	assert_int_equal(ctl_http(&p, "POST", "/jobs", "{\"maps\": 0, \"reduces\": 1}", &body),
	                 400);
	assert_non_null(strstr(body, "maps: 0 is not in 1..100000"));
	free(body);
	assert_int_equal(
	        ctl_http(&p, "POST", "/jobs", "{\"maps\": 1, \"reduces\": 1, \"x\": 1}", &body),
	        400);
	assert_non_null(strstr(body, "x"));
	free(body);
	assert_int_equal(ctl_http(&p, "POST", "/jobs", "{\"maps\": 1,", &body), 400);
	assert_non_null(strstr(body, "job is not JSON"));
	free(body);
	char *huge = malloc(70000);
	memset(huge, ' ', 69999);
	huge[69999] = '\0';
	assert_int_equal(ctl_http(&p, "POST", "/jobs", huge, &body), 413);
	free(huge);
	free(body);
	assert_int_equal(ctl_http(&p, "DELETE", "/jobs", NULL, &body), 405);
	free(body);
	assert_int_equal(ctl_http(&p, "GET", "/metrics", NULL, &body), 200);
	char path[160], cmd[320];
	snprintf(path, sizeof(path), "%s/metrics.txt", p.dir);
	FILE *f = fopen(path, "w");
	fputs(body, f);
	fclose(f);
	free(body);
	snprintf(cmd, sizeof(cmd), "promtool check metrics < %s", path);
	assert_int_equal(system(cmd), 0);
	ctl_cleanup(&p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_controller SWCTL (SWCONTROLLER in the environment)\n");
		return 2;
	}
	swctl = argv[1];
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(
	                a_job_runs_to_completion_on_four_agents_and_its_trace_replays_identically),
	        cmocka_unit_test(agents_without_the_cluster_key_are_refused_with_the_reason),
	        cmocka_unit_test(
	                unknown_ids_wrong_racks_and_a_second_claim_of_a_live_node_are_refused),
	        cmocka_unit_test(bad_messages_close_only_their_own_connection),
	        cmocka_unit_test(a_silent_agent_is_declared_lost_and_its_tasks_run_elsewhere),
	        cmocka_unit_test(
	                after_kill_9_and_a_restart_the_agents_rejoin_and_the_job_completes),
	        cmocka_unit_test(a_deadline_reaches_the_scheduler_and_bad_ones_get_the_reason),
	        cmocka_unit_test(bad_submissions_get_the_reason_and_metrics_pass_promtool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
