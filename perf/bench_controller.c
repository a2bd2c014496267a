/* SPDX-License-Identifier: MIT */
/*
 * Load generator for swcontroller: N agents that speak the real wire protocol (one tcp
 * connection each), heartbeating every PERIOD ms, spread evenly over the period: agent i
 * at start + i * PERIOD / N + k * PERIOD. The agents are dealt over PROCS processes (agent
 * i to process i % PROCS), each with its own dataplane context, so the offered load does
 * not depend on how fast one loop gets round: every process sleeps until its next agent is
 * due (a timerfd, microsecond resolution) or a message arrives. Every task an Assign hands
 * out is reported FINISHED at the agent's next heartbeat (the script's jobs have no
 * reduces), so the controller keeps scheduling.
 *
 * Prints heartbeats sent per second against those offered; how late against its schedule
 * each heartbeat left (offered vs achieved: a generator that falls behind sends in bursts
 * and measures itself, not the controller); and the latency from the moment a heartbeat was
 * sent to the moment its Assign was read (p50, p99).
 *
 * usage: bench_controller AGENTS_ADDR KEY_FILE N PERIOD_MS SECONDS [PROCS]
 * Node ids are n0 .. n(N-1), node i in rack i / 40 (bench-controller.sh writes the same
 * list into the controller's config).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sw_wire.h"

#define MAX_HELD 16
/* The controller takes at most 256 unauthenticated connections; all processes together stay
 * under it. */
#define REGISTER_WAVE 128

struct agent {
	int id; /* node n<id> */
	struct sw_dp_ep *ep;
	struct sw_wire_handshake hs;
	int up;
	double sent_at; /* last heartbeat */
	int waiting;    /* an Assign would answer that heartbeat */
	SwWire__TaskRef held[MAX_HELD];
	int n_held;
};

/* What one process measured: sent back to the parent through a pipe. */
struct tally {
	unsigned long long sent, assigned;
	size_t n_lat, n_late;
};

struct samples {
	double *v;
	size_t n, cap;
};

static struct sw_wire_key key;
static struct samples lat, late;
static unsigned long long assigned, refused;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *why)
{
	fprintf(stderr, "bench_controller: %s: %s\n", what, why);
	exit(1);
}

static void add(struct samples *s, double v)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1 << 16;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (s->v == NULL)
			die("samples", strerror(ENOMEM));
	}
	s->v[s->n++] = v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double pct(const struct samples *s, double p)
{
	return s->n ? s->v[(size_t)(s->n * p) < s->n ? (size_t)(s->n * p) : s->n - 1] : 0;
}

static void on_message(struct agent *a, const struct sw_wire_msg *m)
{
	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	char err[SW_WIRE_ERRLEN];
	switch (m->type) {
	case SW_WIRE_CHALLENGE:
		if (sw_wire_challenge_answer(&a->hs, &key, m->challenge, &auth) < 0 ||
		    sw_wire_send(a->ep, SW_WIRE_AUTH, &auth.base, err, sizeof(err)) < 0)
			die(a->hs.node_id, "handshake failed");
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
			add(&lat, now_s() - a->sent_at);
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

/* Handles every event there is, without sleeping. */
static void drain(struct sw_dp_ctx *dp)
{
	struct sw_dp_event evs[64];
	char err[SW_WIRE_ERRLEN];
	int n;
	while ((n = sw_dp_poll(dp, evs, 64)) > 0)
		for (int i = 0; i < n; i++) {
			struct sw_dp_event ev = evs[i];
			struct agent *a = ev.ep ? sw_dp_ep_user(ev.ep) : NULL;
			struct sw_wire_msg m;
			if (ev.type == SW_DP_EV_SEND) {
				sw_wire_sent(&ev);
			} else if (ev.type == SW_DP_EV_CLOSED) {
				die(a ? a->hs.node_id : "?", sw_dp_strerror(ev.status));
			} else if (ev.type == SW_DP_EV_RECV) {
				int rc = sw_wire_decode(ev.tag, ev.data, ev.len, &m, err,
				                        sizeof(err));
				sw_dp_release(dp, &ev);
				if (rc < 0)
					die(a->hs.node_id, err);
				on_message(a, &m);
				sw_wire_msg_free(&m);
			}
		}
	if (n < 0)
		die("sw_dp_poll", sw_dp_strerror(n));
}

static void heartbeat(struct agent *a)
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
	if (sw_wire_send(a->ep, SW_WIRE_HEARTBEAT, &hb.base, err, sizeof(err)) < 0)
		die(a->hs.node_id, err);
	a->n_held = 0;
	a->sent_at = now_s();
	a->waiting = 1;
}

/* Connects and authenticates this process's agents, a wave at a time. */
static void register_agents(struct sw_dp_ctx *dp, const char *addr, struct agent *ag, int n,
                            int wave)
{
	char err[SW_WIRE_ERRLEN];
	double t0 = now_s();
	for (int first = 0; first < n; first += wave) {
		int last = first + wave < n ? first + wave : n, up = 0;
		for (int i = first; i < last; i++) {
			struct agent *a = &ag[i];
			SwWire__Hello hello = SW_WIRE__HELLO__INIT;
			char id[32];
			snprintf(id, sizeof(id), "n%d", a->id);
			if (sw_dp_connect(dp, addr, &a->ep) < 0 ||
			    sw_wire_hello_init(&a->hs, id, &hello) < 0)
				die(id, "cannot connect");
			sw_dp_ep_set_user(a->ep, a);
			hello.rack = (uint32_t)a->id / 40;
			hello.map_slots = hello.reduce_slots = 2;
			hello.boot_epoch = 1;
			hello.shuffle_addr = "127.0.0.1:7070";
			hello.replica_addr = "127.0.0.1:7071";
			if (sw_wire_send(a->ep, SW_WIRE_HELLO, &hello.base, err, sizeof(err)) < 0)
				die(id, err);
		}
		while (up < last - first && !refused && now_s() - t0 < 300) {
			drain(dp);
			sw_dp_wait(dp, 10);
			up = 0;
			for (int i = first; i < last; i++)
				up += ag[i].up;
		}
		if (up < last - first || refused) {
			fprintf(stderr, "bench_controller: agents n%d.. did not all register\n",
			        ag[first].id);
			exit(1);
		}
	}
}

/* One process: agents w, w + procs, w + 2 procs, ... of n. Registers them, says so on
 * `ready`, reads the common start time from `go`, runs the schedule for secs, and writes
 * its tally and samples to `out`. */
static int worker(const char *addr, int n, int procs, int w, double period, double secs, int ready,
                  int go, int out)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *dp;
	int mine = (n - w + procs - 1) / procs;
	struct agent *ag = calloc((size_t)mine, sizeof(*ag));
	if (ag == NULL)
		die("agents", strerror(ENOMEM));
	sw_wire_dp_config(&cfg);
	if (sw_dp_open(&cfg, &dp) < 0)
		die("dataplane", "cannot open a context");
	for (int k = 0; k < mine; k++)
		ag[k].id = w + k * procs;
	int wave = REGISTER_WAVE / procs > 0 ? REGISTER_WAVE / procs : 1;
	register_agents(dp, addr, ag, mine, wave);
	double start;
	if (write(ready, "r", 1) != 1 || read(go, &start, sizeof(start)) != sizeof(start))
		die("worker", "lost the parent");

	/* Sleep on the dataplane's fd and a timer armed for the next agent due. */
	int ep = epoll_create1(0), tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct epoll_event e = {.events = EPOLLIN, .data.u32 = 0};
	if (ep < 0 || tfd < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, sw_dp_fd(dp), &e) < 0)
		die("epoll", strerror(errno));
	e.data.u32 = 1;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e) < 0)
		die("epoll", strerror(errno));
	unsigned long long sent = 0;
	long next = 0; /* heartbeats of this process so far: agent next % mine, round next / mine */
	for (;;) {
		/* The k-th agent of this process is agent w + k procs of the whole schedule. */
		double due =
		        start + ((double)(w + (next % mine) * procs) / n + next / mine) * period;
		double t = now_s();
		if (due - start >= secs)
			break;
		if (t >= due) {
			heartbeat(&ag[next % mine]);
			add(&late, t - due);
			next++, sent++;
			continue;
		}
		drain(dp);
		struct itimerspec its = {
		        .it_value = {(time_t)due, (long)((due - (time_t)due) * 1e9)}};
		timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
		struct epoll_event got[2];
		int k = epoll_wait(ep, got, 2, -1);
		for (int i = 0; i < k; i++) {
			uint64_t x;
			if (got[i].data.u32 == 1 && read(tfd, &x, sizeof(x)) < 0 && errno != EAGAIN)
				die("timerfd", strerror(errno));
		}
	}
	/* Answers to the last heartbeats. */
	for (double t = now_s(); now_s() - t < 0.5;) {
		drain(dp);
		sw_dp_wait(dp, 5);
	}
	struct tally tl = {sent, assigned, lat.n, late.n};
	if (write(out, &tl, sizeof(tl)) != sizeof(tl) ||
	    write(out, lat.v, lat.n * sizeof(double)) != (ssize_t)(lat.n * sizeof(double)) ||
	    write(out, late.v, late.n * sizeof(double)) != (ssize_t)(late.n * sizeof(double)))
		die("worker", "cannot report");
	sw_dp_close(dp);
	return 0;
}

static void read_all(int fd, void *buf, size_t len)
{
	for (size_t got = 0; got < len;) {
		ssize_t r = read(fd, (char *)buf + got, len - got);
		if (r <= 0)
			die("parent", "a worker died");
		got += (size_t)r;
	}
}

int main(int argc, char **argv)
{
	char err[SW_WIRE_ERRLEN];
	if (argc != 6 && argc != 7) {
		fprintf(stderr, "usage: bench_controller AGENTS_ADDR KEY_FILE N PERIOD_MS SECONDS "
		                "[PROCS]\n");
		return 2;
	}
	int n = atoi(argv[3]), procs = argc == 7 ? atoi(argv[6]) : 1;
	double period = atof(argv[4]) / 1000, secs = atof(argv[5]);
	if (n <= 0 || procs <= 0 || procs > n || period <= 0)
		die("arguments", "N, PERIOD_MS and PROCS must be > 0, PROCS at most N");
	if (sw_wire_key_load(argv[2], &key, err, sizeof(err)) < 0)
		die(argv[2], err);
	int ready[2], go[2], *out = calloc((size_t)procs, sizeof(int));
	if (out == NULL || pipe(ready) < 0 || pipe(go) < 0)
		die("pipe", strerror(errno));
	double t0 = now_s();
	for (int w = 0; w < procs; w++) {
		int o[2];
		if (pipe(o) < 0)
			die("pipe", strerror(errno));
		pid_t pid = fork();
		if (pid < 0)
			die("fork", strerror(errno));
		if (pid == 0) {
			close(o[0]);
			close(ready[0]);
			close(go[1]);
			_exit(worker(argv[1], n, procs, w, period, secs, ready[1], go[0], o[1]));
		}
		close(o[1]);
		out[w] = o[0];
	}
	close(ready[1]);
	close(go[0]);
	for (int w = 0; w < procs;) {
		/* A worker that fails exits; the others then read EOF from `go` and exit too. */
		struct pollfd p = {ready[0], POLLIN, 0};
		char c;
		if (waitpid(-1, NULL, WNOHANG) > 0)
			die("parent", "a worker failed to register its agents");
		if (poll(&p, 1, 1000) == 1 && read(ready[0], &c, 1) == 1)
			w++;
	}
	printf("registered %d agents in %.2f s (%d processes)\n", n, now_s() - t0, procs);
	fflush(stdout);
	double start = now_s() + 0.1;
	for (int w = 0; w < procs; w++)
		if (write(go[1], &start, sizeof(start)) != sizeof(start))
			die("parent", "a worker died");
	unsigned long long sent = 0, got = 0;
	for (int w = 0; w < procs; w++) {
		struct tally tl;
		read_all(out[w], &tl, sizeof(tl));
		sent += tl.sent;
		got += tl.assigned;
		for (size_t i = 0; i < tl.n_lat + tl.n_late; i++) {
			double v;
			read_all(out[w], &v, sizeof(v));
			add(i < tl.n_lat ? &lat : &late, v);
		}
	}
	int failed = 0;
	while (procs-- > 0) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	qsort(lat.v, lat.n, sizeof(double), cmp_double);
	qsort(late.v, late.n, sizeof(double), cmp_double);
	printf("sent late against the schedule: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
	       pct(&late, 0.5) * 1e3, pct(&late, 0.99) * 1e3, pct(&late, 1) * 1e3);
	printf("heartbeats %llu in %.1f s: %.0f/s (offered %.0f/s); tasks assigned %llu; "
	       "heartbeat-to-assignment latency over %zu assignments: p50 %.3f ms, p99 %.3f ms\n",
	       sent, secs, sent / secs, n / period, got, lat.n, pct(&lat, 0.5) * 1e3,
	       pct(&lat, 0.99) * 1e3);
	return failed;
}
