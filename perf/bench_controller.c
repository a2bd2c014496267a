/* SPDX-License-Identifier: MIT */
/*
 * Load generator for swcontroller: N agents that speak the real wire protocol (one tcp
 * connection each, all in this one process and dataplane context), each heartbeating every
 * PERIOD ms, spread evenly over the period. Every task an Assign hands out is reported
 * FINISHED at the agent's next heartbeat (reduces need no map locations here: the jobs the
 * script submits have none), so the controller keeps scheduling. Prints heartbeats sent per
 * second and the latency from a heartbeat to the Assign it produced (p50, p99), measured here.
 *
 * usage: bench_controller AGENTS_ADDR KEY_FILE N PERIOD_MS SECONDS
 * Node ids are n0 .. n(N-1), node i in rack i / 40 (bench-controller.sh writes the same
 * list into the controller's config).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sw_wire.h"

#define MAX_HELD 16

struct agent {
	struct sw_dp_ep *ep;
	struct sw_wire_handshake hs;
	int up;
	double sent_at; /* last heartbeat */
	int waiting;    /* an Assign would answer that heartbeat */
	SwWire__TaskRef held[MAX_HELD];
	int n_held;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static struct sw_wire_key key;
static struct agent *agents;
static double *lat;
static size_t n_lat, cap_lat;
static unsigned long long assigned, refused;

static void on_message(struct agent *a, const struct sw_wire_msg *m)
{
	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	char err[SW_WIRE_ERRLEN];
	switch (m->type) {
	case SW_WIRE_CHALLENGE:
		if (sw_wire_challenge_answer(&a->hs, &key, m->challenge, &auth) < 0 ||
		    sw_wire_send(a->ep, SW_WIRE_AUTH, &auth.base, err, sizeof(err)) < 0) {
			fprintf(stderr, "bench_controller: handshake failed for %s\n",
			        a->hs.node_id);
			exit(1);
		}
		break;
	case SW_WIRE_WELCOME:
		a->up = 1;
		break;
	case SW_WIRE_REFUSED:
		fprintf(stderr, "bench_controller: %s refused: %s\n", a->hs.node_id,
		        m->refused->reason);
		refused++;
		break;
	case SW_WIRE_ASSIGN:
		if (a->waiting) {
			if (n_lat == cap_lat) {
				cap_lat = cap_lat ? 2 * cap_lat : 1 << 16;
				lat = realloc(lat, cap_lat * sizeof(*lat));
			}
			lat[n_lat++] = now_s() - a->sent_at;
			a->waiting = 0;
		}
		for (size_t i = 0; i < m->assign->n_tasks && a->n_held < MAX_HELD; i++) {
			SwWire__TaskRef *r = &a->held[a->n_held++];
			sw_wire__task_ref__init(r);
			r->job = m->assign->tasks[i]->ref->job;
			r->kind = m->assign->tasks[i]->ref->kind;
			r->task = m->assign->tasks[i]->ref->task;
			r->attempt = m->assign->tasks[i]->ref->attempt;
			assigned++;
		}
		break;
	default:
		break;
	}
}

static void progress(struct sw_dp_ctx *dp, int wait_ms)
{
	struct sw_dp_event evs[64];
	char err[SW_WIRE_ERRLEN];
	int n = sw_dp_poll(dp, evs, 64);
	if (n <= 0) {
		sw_dp_wait(dp, wait_ms);
		return;
	}
	do
		for (int i = 0; i < n; i++) {
			struct sw_dp_event ev = evs[i];
			struct agent *a = ev.ep ? sw_dp_ep_user(ev.ep) : NULL;
			struct sw_wire_msg m;
			if (ev.type == SW_DP_EV_SEND) {
				sw_wire_sent(&ev);
			} else if (ev.type == SW_DP_EV_CLOSED) {
				fprintf(stderr, "bench_controller: %s: connection closed (%s)\n",
				        a ? a->hs.node_id : "?", sw_dp_strerror(ev.status));
				exit(1);
			} else if (ev.type == SW_DP_EV_RECV) {
				int rc = sw_wire_decode(ev.tag, ev.data, ev.len, &m, err,
				                        sizeof(err));
				sw_dp_release(dp, &ev);
				if (rc < 0) {
					fprintf(stderr, "bench_controller: %s\n", err);
					exit(1);
				}
				on_message(a, &m);
				sw_wire_msg_free(&m);
			}
		}
	while ((n = sw_dp_poll(dp, evs, 64)) > 0);
}

static void heartbeat(struct agent *a, double t)
{
	SwWire__Heartbeat hb = SW_WIRE__HEARTBEAT__INIT;
	SwWire__TaskEvent ev[MAX_HELD], *evp[MAX_HELD];
	SwWire__TaskRef *running[MAX_HELD];
	char err[SW_WIRE_ERRLEN];
	for (int i = 0; i < a->n_held; i++) {
		sw_wire__task_event__init(&ev[i]);
		ev[i].type = SW_WIRE__TASK_EVENT__TYPE__FINISHED;
		ev[i].task = &a->held[i];
		evp[i] = &ev[i];
		running[i] = &a->held[i];
	}
	hb.free_map_slots = 2;
	hb.free_reduce_slots = 2;
	hb.n_events = (size_t)a->n_held;
	hb.events = evp;
	hb.n_running = (size_t)a->n_held;
	hb.running = running;
	hb.running_listed = 1;
	if (sw_wire_send(a->ep, SW_WIRE_HEARTBEAT, &hb.base, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench_controller: %s: %s\n", a->hs.node_id, err);
		exit(1);
	}
	a->n_held = 0;
	a->sent_at = t;
	a->waiting = 1;
}

int main(int argc, char **argv)
{
	char err[SW_WIRE_ERRLEN];
	if (argc != 6) {
		fprintf(stderr,
		        "usage: bench_controller AGENTS_ADDR KEY_FILE N PERIOD_MS SECONDS\n");
		return 2;
	}
	int n = atoi(argv[3]);
	double period = atof(argv[4]) / 1000, secs = atof(argv[5]);
	if (sw_wire_key_load(argv[2], &key, err, sizeof(err)) < 0 || n <= 0) {
		fprintf(stderr, "bench_controller: %s\n", n <= 0 ? "N must be > 0" : err);
		return 1;
	}
	struct sw_dp_config cfg;
	struct sw_dp_ctx *dp;
	sw_wire_dp_config(&cfg);
	if (sw_dp_open(&cfg, &dp) < 0)
		return 1;
	agents = calloc((size_t)n, sizeof(*agents));
	/* Registration in waves: the controller takes at most 256 unauthenticated connections. */
	double t0 = now_s();
	for (int first = 0; first < n; first += 128) {
		int last = first + 128 < n ? first + 128 : n, up = 0;
		for (int i = first; i < last; i++) {
			struct agent *a = &agents[i];
			SwWire__Hello hello = SW_WIRE__HELLO__INIT;
			char id[32];
			snprintf(id, sizeof(id), "n%d", i);
			if (sw_dp_connect(dp, argv[1], &a->ep) < 0 ||
			    sw_wire_hello_init(&a->hs, id, &hello) < 0)
				return 1;
			sw_dp_ep_set_user(a->ep, a);
			hello.rack = (uint32_t)i / 40;
			hello.map_slots = hello.reduce_slots = 2;
			hello.boot_epoch = 1;
			hello.shuffle_addr = "127.0.0.1:7070";
			hello.replica_addr = "127.0.0.1:7071";
			if (sw_wire_send(a->ep, SW_WIRE_HELLO, &hello.base, err, sizeof(err)) < 0)
				return 1;
		}
		while (up < last - first && !refused && now_s() - t0 < 300) {
			progress(dp, 10);
			up = 0;
			for (int i = first; i < last; i++)
				up += agents[i].up;
		}
		if (up < last - first || refused) {
			fprintf(stderr, "bench_controller: agents %d..%d did not all register\n",
			        first, last - 1);
			return 1;
		}
	}
	printf("registered %d agents in %.2f s\n", n, now_s() - t0);
	/* Agent i heartbeats at start + i * period / n + k * period. */
	double start = now_s();
	unsigned long long sent = 0;
	long next = 0;
	for (;;) {
		double t = now_s();
		if (t - start >= secs)
			break;
		long due = (long)((t - start) / period * n);
		for (; next <= due; next++)
			heartbeat(&agents[next % n], t), sent++;
		progress(dp, 1);
	}
	double elapsed = now_s() - start;
	for (double t = now_s(); now_s() - t < 0.5;)
		progress(dp, 5);
	qsort(lat, n_lat, sizeof(*lat), cmp_double);
	double p50 = n_lat ? lat[n_lat / 2] : 0, p99 = n_lat ? lat[(size_t)(n_lat * 0.99)] : 0;
	printf("heartbeats %llu in %.1f s: %.0f/s (offered %.0f/s); tasks assigned %llu; "
	       "heartbeat-to-assignment latency over %zu assignments: p50 %.3f ms, p99 %.3f ms\n",
	       sent, elapsed, sent / elapsed, n / period, assigned, n_lat, p50 * 1e3, p99 * 1e3);
	sw_dp_close(dp);
	free(agents);
	free(lat);
	return 0;
}
