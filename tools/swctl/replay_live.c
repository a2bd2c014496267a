/* SPDX-License-Identifier: MIT */
/*
 * swctl replay --live DIR: the mix on the emulated racks `swctl cluster up` made (DIR), once
 * per scheduler: the controller restarted under that policy, every job submitted over HTTP at
 * its arrival time, its turnaround as the controller measured it. Each ToR uplink's counters
 * are sampled every second (the uplink plots), and the run's cross-rack bytes are counted
 * twice: on the uplinks, and by the agents (NetSat's per-source-rack receive counters).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cluster.h"
#include "live.h"
#include "replay_live.h"
#include "report.h"
#include "sw_netsat.h"

#define LIVE_STALL_S 600 /* no job finishing for this long fails the run */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int replay_live_open(struct replay_live *l, const char *dir)
{
	memset(l, 0, sizeof(*l));
	int rc = cluster_state_load(dir, &l->c);
	if (rc == -ENOENT)
		fprintf(stderr, "swctl replay: --live %s: no cluster there (swctl cluster up)\n",
		        dir);
	if (rc)
		return -1;
	for (int r = 0; r < l->c.racks; r++) {
		char ns[64], err[256];
		cluster_ns_name(&l->c, r, -1, ns, sizeof(ns));
		struct sw_netsat_source_spec spec = {.kind = "link", .dev = "uplink", .netns = ns};
		if (sw_netsat_source_open(&spec, &l->up[r], err, sizeof(err))) {
			fprintf(stderr, "swctl replay: --live %s: %s\n", dir, err);
			replay_live_close(l);
			return -1;
		}
	}
	return 0;
}

void replay_live_close(struct replay_live *l)
{
	for (int r = 0; r < CLUSTER_MAX_RACKS; r++)
		sw_netsat_source_close(l->up[r]);
	memset(l->up, 0, sizeof(l->up));
}

/* Each rack uplink's bytes out of and into its rack. */
static int read_uplinks(struct replay_live *l, uint64_t *out, uint64_t *in)
{
	for (int r = 0; r < l->c.racks; r++) {
		struct sw_netsat_counters n;
		if (sw_netsat_source_read(l->up[r], &n)) {
			fprintf(stderr, "swctl replay: rack %d uplink: %s\n", r,
			        sw_netsat_source_error(l->up[r]));
			return -1;
		}
		out[r] = n.tx_bytes;
		in[r] = n.rx_bytes;
	}
	return 0;
}

/* Every agent's NetSat counters, node x source rack, from its /metrics. */
static int read_netsat(struct replay_live *l, uint64_t *rx)
{
	for (int i = 0; i < l->c.racks * l->c.nodes; i++) {
		char addr[48], *answer = NULL;
		cluster_node_ip(i / l->c.nodes, i % l->c.nodes, addr, sizeof(addr) - 6);
		strcat(addr, ":7003");
		if (live_http(addr, "GET", "/metrics", NULL, &answer) != 200) {
			fprintf(stderr, "swctl replay: agent r%dn%d: no /metrics\n", i / l->c.nodes,
			        i % l->c.nodes);
			free(answer);
			return -1;
		}
		unsigned rack;
		unsigned long long v;
		for (char *s = answer; (s = strstr(s, "\nswagent_rx_bytes_total{rack=\"")); s++)
			if (sscanf(s, "\nswagent_rx_bytes_total{rack=\"%u\"} %llu", &rack, &v) ==
			            2 &&
			    rack < (unsigned)l->c.racks)
				rx[(size_t)i * l->c.racks + rack] = v;
		free(answer);
	}
	return 0;
}

/* Submits job @p j of the mix; its controller id, or 0 after a message. */
static uint64_t submit(const struct sw_workload *w, const struct sw_job_desc *j)
{
	const struct sw_bench *b = &sw_sim_bench_table(NULL)[j->bench];
	uint64_t maps = (j->input_bytes + w->block_bytes - 1) / w->block_bytes;
	maps = maps ? maps : 1;
	json_t *o = json_pack(
	        "{s:s, s:I, s:I, s:I, s:I, s:I, s:f, s:f}", "name", b->name, "user",
	        (json_int_t)j->user, "maps", (json_int_t)maps, "reduces", (json_int_t)j->n_reduces,
	        "input_bytes", (json_int_t)(j->input_bytes / maps ? j->input_bytes / maps : 1),
	        "map_output_bytes", (json_int_t)(j->shuffle_bytes / maps), "compute_bytes_per_s",
	        b->map_rate, "reduce_compute_bytes_per_s", b->reduce_rate);
	if (j->n_reduces)
		json_object_set_new(o, "reduce_output_bytes",
		                    json_integer((json_int_t)(j->output_bytes / j->n_reduces)));
	if (j->deadline > 0) /* submitted at its arrival: the controller's clock starts there */
		json_object_set_new(o, "deadline_s", json_real(j->deadline - j->arrival));
	char *body = json_dumps(o, JSON_COMPACT), *answer = NULL;
	json_decref(o);
	int status = body ? live_http(CLUSTER_CTL_HTTP, "POST", "/jobs", body, &answer) : -1;
	json_t *a = status == 201 ? json_loads(answer, 0, NULL) : NULL;
	uint64_t id = (uint64_t)json_integer_value(json_object_get(a, "id"));
	if (id == 0)
		fprintf(stderr, "swctl replay: job %llu not submitted (HTTP %d): %s\n",
		        (unsigned long long)j->id, status, answer ? answer : "");
	json_decref(a);
	free(body);
	free(answer);
	return id;
}

/* Reads /jobs: each of the @p n jobs submitted that ended gets its record's finish and failed
 * and its @p ended flag. Returns how many have ended, or -1. */
static int poll_jobs(const uint64_t *ids, size_t n, struct sw_job_record *rec, unsigned char *ended)
{
	char *answer = NULL;
	int status = live_http(CLUSTER_CTL_HTTP, "GET", "/jobs", NULL, &answer);
	json_t *a = status == 200 ? json_loads(answer, 0, NULL) : NULL, *v;
	free(answer);
	if (a == NULL)
		return -1;
	size_t i;
	json_array_foreach(a, i, v)
	{
		uint64_t id = (uint64_t)json_integer_value(json_object_get(v, "id"));
		const char *st = json_string_value(json_object_get(v, "state"));
		for (size_t k = 0; st && k < n; k++)
			if (ids[k] == id && strcmp(st, "running") != 0) {
				rec[k].finish = rec[k].arrival +
				                json_number_value(json_object_get(v, "seconds"));
				rec[k].failed = !strcmp(st, "failed");
				ended[k] = 1;
			}
	}
	json_decref(a);
	int count = 0;
	for (size_t k = 0; k < n; k++)
		count += ended[k];
	return count;
}

/* One uplink sample: each rack's utilisation since the last one, appended to @p r. */
static int sample(struct replay_live *l, struct sw_sim_result *r, uint64_t *prev_out,
                  uint64_t *prev_in, double dt)
{
	uint64_t out[CLUSTER_MAX_RACKS], in[CLUSTER_MAX_RACKS];
	size_t n = (size_t)(r->n_samples + 1) * r->n_racks;
	float *o = realloc(r->uplink_out, n * sizeof(float));
	if (o)
		r->uplink_out = o;
	float *i = realloc(r->uplink_in, n * sizeof(float));
	if (i)
		r->uplink_in = i;
	if (!o || !i || read_uplinks(l, out, in))
		return -1;
	double cap = dt * (double)l->c.uplink_bps / 8;
	for (uint32_t k = 0; k < r->n_racks; k++) {
		o[(size_t)r->n_samples * r->n_racks + k] = (float)((out[k] - prev_out[k]) / cap);
		i[(size_t)r->n_samples * r->n_racks + k] = (float)((in[k] - prev_in[k]) / cap);
		prev_out[k] = out[k];
		prev_in[k] = in[k];
	}
	r->n_samples++;
	return 0;
}

/*
 * --fail-node RACK.NODE@SEC[+DOWN], live: at SEC after the first arrival the node's swagent is
 * killed with SIGKILL, and started again DOWN seconds later (never without +DOWN, until the
 * run ends). @p state: 0 pending, 1 down, 2 done. Returns -1 after a message.
 */
static int faults(struct replay_live *l, const struct sw_sim_config *cfg, double t, uint8_t *state,
                  struct sw_sim_result *r)
{
	for (uint32_t i = 0; i < cfg->n_faults; i++) {
		const struct sw_sim_fault *f = &cfg->faults[i];
		if (state[i] == 0 && t >= f->at) {
			fprintf(stderr, "\nswctl replay: %.0f s: killing the agent of node %u.%u\n",
			        t, f->rack, f->node);
			if (cluster_kill_agent(&l->c, (int)f->rack, (int)f->node) < 0)
				return -1;
			state[i] = 1;
			r->nodes_lost++;
		}
		if (state[i] == 1 && f->down_for > 0 && t >= f->at + f->down_for) {
			fprintf(stderr,
			        "\nswctl replay: %.0f s: starting the agent of node %u.%u\n", t,
			        f->rack, f->node);
			if (cluster_start_agent(&l->c, (int)f->rack, (int)f->node))
				return -1;
			state[i] = 2;
		}
	}
	return 0;
}

/*
 * --kill-controller @AT+PAUSE: at AT the controller is killed with SIGKILL and PAUSE seconds
 * later started again on its state, which it recovers; the agents keep their tasks running
 * and register again. @p state: 0 pending, 1 down, 2 done. Returns -1 after a message.
 */
static int controller_fault(struct replay_live *l, double t, uint8_t *state)
{
	if (*state == 0 && l->kill_ctl.on && t >= l->kill_ctl.at) {
		fprintf(stderr, "\nswctl replay: %.0f s: killing the controller\n", t);
		if (cluster_kill_controller(&l->c) < 0)
			return -1;
		*state = 1;
	}
	if (*state == 1 && t >= l->kill_ctl.at + l->kill_ctl.pause) {
		fprintf(stderr, "\nswctl replay: %.0f s: starting the controller\n", t);
		if (cluster_start_controller(&l->c, 60))
			return -1;
		*state = 2;
	}
	return 0;
}

/* Starts the agents a run's faults left down, so the next run has every node, and waits until
 * every agent is registered (a restarted one's /metrics is up). */
static int revive(struct replay_live *l, const struct sw_sim_config *cfg, uint8_t *state)
{
	for (uint32_t i = 0; i < cfg->n_faults; i++)
		if (state[i] == 1 &&
		    cluster_start_agent(&l->c, (int)cfg->faults[i].rack, (int)cfg->faults[i].node))
			return -1;
	return cfg->n_faults ? cluster_wait_registered(&l->c, 60) : 0;
}

/* Replays the mix once under job->cfg's policy; fills job->result and @p b. */
static int run_one(struct replay_live *l, struct runner_job *job, struct replay_live_bytes *b)
{
	const struct sw_workload *w = job->w;
	struct sw_sim_result *r = &job->result;
	int racks = l->c.racks, nodes = racks * l->c.nodes, rc = -1;
	uint64_t out0[CLUSTER_MAX_RACKS], in0[CLUSTER_MAX_RACKS], out[CLUSTER_MAX_RACKS],
	        in[CLUSTER_MAX_RACKS];
	uint64_t *rx0 = calloc((size_t)nodes * racks, sizeof(uint64_t));
	/* the jobs' controller ids, then each one's output bytes per reduce */
	uint64_t *ids = calloc(w->n_jobs ? 2 * w->n_jobs : 1, sizeof(uint64_t));
	unsigned char *done = calloc(w->n_jobs ? w->n_jobs : 1, 1);
	memset(r, 0, sizeof(*r));
	r->n_jobs = w->n_jobs;
	r->jobs = calloc(w->n_jobs ? w->n_jobs : 1, sizeof(*r->jobs));
	r->n_racks = (uint32_t)racks;
	r->n_nodes = (uint32_t)nodes;
	r->sample_interval = 1;
	r->node_rx = calloc((size_t)nodes * racks, sizeof(uint64_t));
	r->uplink_bytes_out = calloc(racks, sizeof(uint64_t));
	r->uplink_bytes_in = calloc(racks, sizeof(uint64_t));
	if (!rx0 || !ids || !done || !r->jobs || !r->node_rx || !r->uplink_bytes_out ||
	    !r->uplink_bytes_in)
		goto out;

	snprintf(l->c.policy, sizeof(l->c.policy), "%s", job->cfg.sched.policy);
	fprintf(stderr, "swctl replay: %s: restarting the controller of cluster %s\n", l->c.policy,
	        l->c.name);
	if (cluster_restart_controller(&l->c, w->n_users ? w->n_users : 1, 60) ||
	    read_uplinks(l, out0, in0) || read_netsat(l, rx0))
		goto out;
	memcpy(out, out0, sizeof(out));
	memcpy(in, in0, sizeof(in));
	for (size_t k = 0; k < w->n_jobs; k++) {
		const struct sw_job_desc *d = &w->jobs[k];
		r->jobs[k] = (struct sw_job_record){
		        .id = d->id,
		        .user = d->user,
		        .cls = sw_sim_bench_table(NULL)[d->bench].cls,
		        .bench = d->bench,
		        .arrival = d->arrival,
		        .n_reduces = d->n_reduces,
		        .map_output_bytes = d->shuffle_bytes,
		};
	}

	double t0 = now(), last = t0, last_end = t0, base = w->n_jobs ? w->jobs[0].arrival : 0;
	uint8_t fault_state[SW_SIM_MAX_FAULTS] = {0}, ctl_state = 0;
	size_t next = 0, shown_next = 0;
	int ended = 0, shown_ended = -1, tty = isatty(2);
	while (ended < (int)w->n_jobs) {
		double t = now();
		if (faults(l, &job->cfg, t - t0, fault_state, r) ||
		    controller_fault(l, t - t0, &ctl_state))
			goto out;
		/* while the controller is down, jobs wait to be submitted, as users' would */
		for (; ctl_state != 1 && next < w->n_jobs && w->jobs[next].arrival - base <= t - t0;
		     next++)
			if ((ids[next] = submit(w, &w->jobs[next])) == 0)
				goto out;
		if (t - last >= r->sample_interval) {
			if (sample(l, r, out, in, t - last))
				goto out;
			last = t;
			int e = ctl_state == 1 ? ended : poll_jobs(ids, next, r->jobs, done);
			if (e < 0) {
				fprintf(stderr, "swctl replay: the controller does not answer\n");
				goto out;
			}
			if (e > ended)
				last_end = t;
			ended = e;
			if (next != shown_next || ended != shown_ended)
				fprintf(stderr, "%s%s: %.0f s, %zu of %zu jobs submitted, %d ended",
				        tty ? "\r" : "\n", l->c.policy, t - t0, next, w->n_jobs,
				        ended);
			shown_next = next;
			shown_ended = ended;
		}
		if (runner_interrupted) {
			rc = -ECANCELED;
			goto out;
		}
		if (t - last_end > LIVE_STALL_S) {
			fprintf(stderr, "swctl replay: %s: no job ended for %d s\n", l->c.policy,
			        LIVE_STALL_S);
			goto out;
		}
		usleep(20000);
	}
	fprintf(stderr, "\n");
	if (revive(l, &job->cfg, fault_state) || read_uplinks(l, out, in) ||
	    read_netsat(l, r->node_rx))
		goto out;
	b->uplink_out = b->uplink_in = b->netsat = 0;
	for (int k = 0; k < racks; k++) {
		r->uplink_bytes_out[k] = out[k] - out0[k];
		r->uplink_bytes_in[k] = in[k] - in0[k];
		b->uplink_out += r->uplink_bytes_out[k];
		b->uplink_in += r->uplink_bytes_in[k];
	}
	for (int i = 0; i < nodes; i++)
		for (int k = 0; k < racks; k++) {
			size_t x = (size_t)i * racks + k;
			/* an agent started again counts from 0: what it had counted is lost */
			r->node_rx[x] =
			        r->node_rx[x] >= rx0[x] ? r->node_rx[x] - rx0[x] : r->node_rx[x];
			if (k != i / l->c.nodes)
				b->netsat += r->node_rx[x];
		}
	char trace[PATH_MAX + 32];
	snprintf(trace, sizeof(trace), "%s/controller/trace.jsonl", l->c.dir);
	for (size_t k = 0; k < w->n_jobs; k++) /* as submit() made them */
		ids[k + w->n_jobs] =
		        w->jobs[k].n_reduces ? w->jobs[k].output_bytes / w->jobs[k].n_reduces : 0;
	if (replay_live_trace(trace, ids, w->n_jobs, ids + w->n_jobs, r->jobs))
		goto out;
	b->placed = 0;
	for (size_t k = 0; k < w->n_jobs; k++) {
		r->end = fmax(r->end, r->jobs[k].finish);
		r->jobs_failed += (uint32_t)r->jobs[k].failed;
		r->lost_attempts += r->jobs[k].lost_attempts;
		r->maps_rerun += r->jobs[k].maps_rerun;
		r->failed_attempts += r->jobs[k].failed_attempts;
		for (int x = 0; x < SW_TRAFFICS; x++)
			b->placed += r->jobs[k].xrack[x];
	}
	job->wall = now() - t0;
	rc = 0;
out:
	free(rx0);
	free(ids);
	free(done);
	job->rc = rc;
	return rc;
}

int replay_live_run(struct runner_job *jobs, int n, void *arg)
{
	struct replay_live *l = arg;
	char spine[64];
	cluster_ns_name(&l->c, -1, -1, spine, sizeof(spine));
	if (cluster_enter(spine))
		return -EIO;
	for (int i = 0; i < n; i++) {
		int rc = run_one(l, &jobs[i], &l->bytes[i]);
		if (rc)
			return rc == -ECANCELED ? rc : -EIO;
	}
	l->n = n;
	return 0;
}

void replay_live_print(FILE *f, const struct replay_live *l, const struct runner_job *jobs)
{
	fprintf(f,
	        "\ncross-rack bytes counted on cluster %s (%d racks x %d nodes, uplinks %.0f "
	        "Mbit/s): on the ToR uplinks, by the agents (NetSat), and the jobs' by placement "
	        "(the table's xrack)\n%-12s %15s %15s %15s %8s %15s %8s\n",
	        l->c.name, l->c.racks, l->c.nodes, (double)l->c.uplink_bps / 1e6, "scheduler",
	        "uplinks out", "uplinks in", "NetSat", "in/NetSat", "placement", "vs NetSat");
	for (int i = 0; i < l->n; i++) {
		const struct replay_live_bytes *b = &l->bytes[i];
		fprintf(f, "%-12s %15llu %15llu %15llu %+7.1f%% %15llu %+7.1f%%\n",
		        jobs[i].cfg.sched.policy, (unsigned long long)b->uplink_out,
		        (unsigned long long)b->uplink_in, (unsigned long long)b->netsat,
		        100 * (report_ratio((double)b->uplink_in, (double)b->netsat) - 1),
		        (unsigned long long)b->placed,
		        100 * (report_ratio((double)b->placed, (double)b->netsat) - 1));
	}
}
