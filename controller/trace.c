/* SPDX-License-Identifier: MIT */
/*
 * Recording and replaying scheduler calls. Each call has its recorder (make the call, write
 * its line) and its replayer (read the line, make the call, compare) next to each other, so
 * the two cannot drift apart. Doubles are written by jansson with 17 significant digits,
 * which reads back to the same double, so a replay passes the scheduler the same times.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "sw_ctl_trace.h"

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errlen, int code,
                                                      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* Adds "rc", passes the line to the sink and frees obj. Returns rc, or -ENOMEM. */
static int emit(struct sw_ctl_rec *r, json_t *obj, int rc, double now)
{
	r->calls++;
	if (now > r->last_now)
		r->last_now = now;
	if (r->sink == NULL) {
		json_decref(obj);
		return rc;
	}
	if (obj == NULL || json_object_set_new(obj, "rc", json_integer(rc)) < 0) {
		json_decref(obj);
		return -ENOMEM;
	}
	char *line = json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(17));
	json_decref(obj);
	if (line == NULL)
		return -ENOMEM;
	r->sink(r->sink_arg, line, strlen(line));
	free(line);
	return rc;
}

/* The recorded "rc" of a line against what the scheduler returned now. */
static int same_rc(json_t *line, int rc, const char *call, char *err, size_t errlen)
{
	json_int_t want = json_integer_value(json_object_get(line, "rc"));
	if (want == rc)
		return 0;
	return fail(err, errlen, -EILSEQ, "%s returned %d, recorded %lld", call, rc,
	            (long long)want);
}

/* ---- create ---- */

static json_t *config_json(const struct sw_sched_config *c, uint32_t n_queues)
{
	json_t *cap = json_null();
	if (c->queue_capacity != NULL) {
		cap = json_array();
		for (uint32_t i = 0; i < n_queues; i++)
			json_array_append_new(cap, json_real(c->queue_capacity[i]));
	}
	return json_pack("{s:s, s:I, s:I, s:o, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
	                 "s:I}",
	                 "policy", c->policy, "n_users", (json_int_t)c->n_users, "n_queues",
	                 (json_int_t)c->n_queues, "queue_capacity", cap, "slowstart", c->slowstart,
	                 "node_wait", c->node_wait, "rack_wait", c->rack_wait,
	                 "nw_saturation_threshold", c->nw_saturation_threshold, "netsat_window",
	                 c->netsat_window, "netsat_smoothing", c->netsat_smoothing,
	                 "netsat_hysteresis", c->netsat_hysteresis, "map_completion_threshold",
	                 c->map_completion_threshold, "starvation_window", c->starvation_window,
	                 "relaxed_wait", c->relaxed_wait, "sw_mechanisms",
	                 (json_int_t)c->sw_mechanisms);
}

int sw_ctl_rec_create(struct sw_ctl_rec *r, const struct sw_cluster_spec *cluster,
                      const struct sw_sched_config *cfg)
{
	r->sched = sw_sched_create(cluster, cfg);
	if (r->sched == NULL)
		return errno == ENOMEM ? -ENOMEM : -EINVAL;
	json_t *racks = json_array(), *nodes = json_array();
	for (uint32_t i = 0; i < cluster->n_racks; i++)
		json_array_append_new(racks, json_real(cluster->racks[i].uplink_bps));
	for (uint32_t i = 0; i < cluster->n_nodes; i++) {
		const struct sw_node_spec *n = &cluster->nodes[i];
		json_array_append_new(nodes, json_pack("[I, I, I, f, f, f, I]", (json_int_t)n->rack,
		                                       (json_int_t)n->map_slots,
		                                       (json_int_t)n->reduce_slots, n->capacity.cpu,
		                                       n->capacity.mem_gb, n->nic_bps,
		                                       (json_int_t)n->pool));
	}
	json_t *line = json_pack("{s:s, s:o, s:o, s:o}", "call", "create", "racks", racks, "nodes",
	                         nodes, "config", config_json(cfg, cfg->n_queues));
	return emit(r, line, 0, 0);
}

static int replay_create(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	json_t *racks, *nodes, *cfgj, *cap;
	json_error_t je;
	struct sw_sched_config cfg;
	const char *policy;
	json_int_t users, queues, mech;
	sw_sched_config_default(&cfg);
	if (r->sched != NULL)
		return fail(err, errlen, -EPROTO, "a second \"create\"");
	if (json_unpack_ex(line, &je, 0, "{s:o, s:o, s:o}", "racks", &racks, "nodes", &nodes,
	                   "config", &cfgj) < 0 ||
	    json_unpack_ex(
	            cfgj, &je, 0,
	            "{s:s, s:I, s:I, s:o, s:F, s:F, s:F, s:F, s:F, s:F, s:F, s:F, s:F, s:F, "
	            "s:I}",
	            "policy", &policy, "n_users", &users, "n_queues", &queues, "queue_capacity",
	            &cap, "slowstart", &cfg.slowstart, "node_wait", &cfg.node_wait, "rack_wait",
	            &cfg.rack_wait, "nw_saturation_threshold", &cfg.nw_saturation_threshold,
	            "netsat_window", &cfg.netsat_window, "netsat_smoothing", &cfg.netsat_smoothing,
	            "netsat_hysteresis", &cfg.netsat_hysteresis, "map_completion_threshold",
	            &cfg.map_completion_threshold, "starvation_window", &cfg.starvation_window,
	            "relaxed_wait", &cfg.relaxed_wait, "sw_mechanisms", &mech) < 0 ||
	    !json_is_array(racks) || !json_is_array(nodes))
		return fail(err, errlen, -EPROTO, "create: %s", je.text);
	size_t nr = json_array_size(racks), nn = json_array_size(nodes);
	struct sw_rack_spec *rs = calloc(nr ? nr : 1, sizeof(*rs));
	struct sw_node_spec *ns = calloc(nn ? nn : 1, sizeof(*ns));
	double *qc = json_is_array(cap) ? calloc((size_t)queues + 1, sizeof(double)) : NULL;
	int rc = rs && ns && (qc || !json_is_array(cap)) ? 0 : -ENOMEM;
	for (size_t i = 0; rc == 0 && i < nr; i++)
		rs[i].uplink_bps = json_number_value(json_array_get(racks, i));
	for (size_t i = 0; rc == 0 && i < nn; i++) {
		json_int_t rack, ms, rsl, pool;
		struct sw_node_spec *n = &ns[i];
		if (json_unpack_ex(json_array_get(nodes, i), &je, 0, "[I, I, I, F, F, F, I]", &rack,
		                   &ms, &rsl, &n->capacity.cpu, &n->capacity.mem_gb, &n->nic_bps,
		                   &pool) < 0)
			rc = fail(err, errlen, -EPROTO, "create: nodes[%zu]: %s", i, je.text);
		n->rack = (uint32_t)rack;
		n->map_slots = (uint16_t)ms;
		n->reduce_slots = (uint16_t)rsl;
		n->pool = (uint32_t)pool;
	}
	for (size_t i = 0; rc == 0 && qc && i < (size_t)queues; i++)
		qc[i] = json_number_value(json_array_get(cap, i));
	if (rc == 0) {
		cfg.policy = policy;
		cfg.n_users = (uint32_t)users;
		cfg.n_queues = (uint32_t)queues;
		cfg.queue_capacity = qc;
		cfg.sw_mechanisms = (unsigned)mech;
		struct sw_cluster_spec cl = {(uint32_t)nr, (uint32_t)nn, rs, ns};
		r->sched = sw_sched_create(&cl, &cfg);
		if (r->sched == NULL)
			rc = fail(err, errlen, -EILSEQ,
			          "create: the scheduler refused the recorded "
			          "cluster and config");
	}
	free(rs);
	free(ns);
	free(qc);
	return rc;
}

/* ---- job_add ---- */

int sw_ctl_rec_job_add(struct sw_ctl_rec *r, const struct sw_job_spec *job, double now)
{
	int rc = sw_sched_job_add(r->sched, job, now);
	json_t *maps = json_array();
	for (uint32_t i = 0; i < job->n_maps; i++) {
		const struct sw_map_spec *m = &job->maps[i];
		json_t *rep = json_array();
		for (uint8_t k = 0; k < m->n_replicas; k++)
			json_array_append_new(rep, json_integer(m->replicas[k]));
		json_array_append_new(maps, json_pack("[I, I, o]", (json_int_t)m->input_bytes,
		                                      (json_int_t)m->output_bytes, rep));
	}
	json_t *line = json_pack(
	        "{s:s, s:f, s:I, s:I, s:I, s:i, s:f, s:I, s:[f, f], s:[f, f], s:f, s:o}", "call",
	        "job_add", "now", now, "id", (json_int_t)job->id, "user", (json_int_t)job->user,
	        "queue", (json_int_t)job->queue, "cls", (int)job->cls, "arrival", job->arrival,
	        "n_reduces", (json_int_t)job->n_reduces, "map_demand", job->map_demand.cpu,
	        job->map_demand.mem_gb, "reduce_demand", job->reduce_demand.cpu,
	        job->reduce_demand.mem_gb, "deadline", job->deadline, "maps", maps);
	return emit(r, line, rc, now);
}

static int replay_job_add(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	struct sw_job_spec job = {0};
	json_t *maps;
	json_error_t je;
	json_int_t id, user, queue, nred;
	int cls;
	double now;
	if (json_unpack_ex(line, &je, 0,
	                   "{s:F, s:I, s:I, s:I, s:i, s:F, s:I, s:[F, F], s:[F, F], s:F, s:o}",
	                   "now", &now, "id", &id, "user", &user, "queue", &queue, "cls", &cls,
	                   "arrival", &job.arrival, "n_reduces", &nred, "map_demand",
	                   &job.map_demand.cpu, &job.map_demand.mem_gb, "reduce_demand",
	                   &job.reduce_demand.cpu, &job.reduce_demand.mem_gb, "deadline",
	                   &job.deadline, "maps", &maps) < 0 ||
	    !json_is_array(maps))
		return fail(err, errlen, -EPROTO, "job_add: %s", je.text);
	size_t n = json_array_size(maps);
	struct sw_map_spec *ms = calloc(n ? n : 1, sizeof(*ms));
	if (ms == NULL)
		return -ENOMEM;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		json_int_t in, out;
		json_t *rep;
		if (json_unpack_ex(json_array_get(maps, i), &je, 0, "[I, I, o]", &in, &out, &rep) <
		            0 ||
		    !json_is_array(rep) || json_array_size(rep) > SW_MAX_REPLICAS) {
			rc = fail(err, errlen, -EPROTO,
			          "job_add: maps[%zu] is not [in, out, [nodes]]", i);
			break;
		}
		ms[i].input_bytes = (uint64_t)in;
		ms[i].output_bytes = (uint64_t)out;
		ms[i].n_replicas = (uint8_t)json_array_size(rep);
		for (size_t k = 0; k < ms[i].n_replicas; k++)
			ms[i].replicas[k] = (uint32_t)json_integer_value(json_array_get(rep, k));
	}
	if (rc == 0) {
		job.id = (uint64_t)id;
		job.user = (uint32_t)user;
		job.queue = (uint32_t)queue;
		job.cls = (enum sw_job_class)cls;
		job.n_maps = (uint32_t)n;
		job.maps = ms;
		job.n_reduces = (uint32_t)nred;
		rc = same_rc(line, sw_sched_job_add(r->sched, &job, now), "job_add", err, errlen);
	}
	free(ms);
	return rc;
}

/* ---- heartbeat ---- */

int sw_ctl_rec_heartbeat(struct sw_ctl_rec *r, const struct sw_heartbeat *hb, double now,
                         struct sw_assignment *out, int max)
{
	int rc = sw_sched_heartbeat(r->sched, hb, now, out, max);
	json_t *tasks = json_array();
	for (int i = 0; i < rc; i++) {
		const struct sw_assignment *a = &out[i];
		json_array_append_new(tasks, json_pack("[I, i, I, i, I]", (json_int_t)a->job,
		                                       (int)a->kind, (json_int_t)a->task,
		                                       (int)a->locality, (json_int_t)a->src_node));
	}
	if (rc > 0)
		r->assigned += (uint64_t)rc;
	json_t *line = json_pack("{s:s, s:f, s:I, s:[i, i], s:i, s:o}", "call", "heartbeat", "now",
	                         now, "node", (json_int_t)hb->node, "free", hb->free_slots[SW_MAP],
	                         hb->free_slots[SW_REDUCE], "max", max, "out", tasks);
	return emit(r, line, rc, now);
}

static int replay_heartbeat(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	struct sw_heartbeat hb;
	json_error_t je;
	json_t *tasks;
	json_int_t node;
	int fm, fr, max;
	double now;
	if (json_unpack_ex(line, &je, 0, "{s:F, s:I, s:[i, i], s:i, s:o}", "now", &now, "node",
	                   &node, "free", &fm, &fr, "max", &max, "out", &tasks) < 0 ||
	    max < 0 || max > 65536 || !json_is_array(tasks))
		return fail(err, errlen, -EPROTO, "heartbeat: %s", je.text);
	hb.node = (uint32_t)node;
	hb.free_slots[SW_MAP] = (uint16_t)fm;
	hb.free_slots[SW_REDUCE] = (uint16_t)fr;
	struct sw_assignment *out = calloc((size_t)max + 1, sizeof(*out));
	if (out == NULL)
		return -ENOMEM;
	int n = sw_sched_heartbeat(r->sched, &hb, now, out, max);
	int rc = same_rc(line, n, "heartbeat", err, errlen);
	for (int i = 0; rc == 0 && i < n; i++) {
		json_int_t job, task, src;
		int kind, loc;
		const struct sw_assignment *a = &out[i];
		if (json_unpack(json_array_get(tasks, (size_t)i), "[I, i, I, i, I]", &job, &kind,
		                &task, &loc, &src) < 0 ||
		    (uint64_t)job != a->job || kind != (int)a->kind || (uint32_t)task != a->task ||
		    loc != (int)a->locality || (uint32_t)src != a->src_node)
			rc = fail(err, errlen, -EILSEQ,
			          "heartbeat of node %u: assignment %d is job %llu %s %u (locality "
			          "%d, "
			          "from node %d), recorded otherwise",
			          hb.node, i, (unsigned long long)a->job,
			          a->kind == SW_MAP ? "map" : "reduce", a->task, (int)a->locality,
			          a->src_node == SW_NO_NODE ? -1 : (int)a->src_node);
	}
	if (n > 0)
		r->assigned += (uint64_t)n;
	free(out);
	return rc;
}

/* ---- task_started, task_finished: the same shape ---- */

typedef int (*task_fn)(struct sw_sched *, uint64_t, enum sw_task_kind, uint32_t, double);

static int rec_task(struct sw_ctl_rec *r, const char *call, task_fn fn, uint64_t job,
                    enum sw_task_kind kind, uint32_t task, double now)
{
	int rc = fn(r->sched, job, kind, task, now);
	json_t *line = json_pack("{s:s, s:f, s:I, s:i, s:I}", "call", call, "now", now, "job",
	                         (json_int_t)job, "kind", (int)kind, "task", (json_int_t)task);
	return emit(r, line, rc, now);
}

static int replay_task(struct sw_ctl_rec *r, json_t *line, const char *call, task_fn fn, char *err,
                       size_t errlen)
{
	json_error_t je;
	json_int_t job, task;
	int kind;
	double now;
	if (json_unpack_ex(line, &je, 0, "{s:F, s:I, s:i, s:I}", "now", &now, "job", &job, "kind",
	                   &kind, "task", &task) < 0)
		return fail(err, errlen, -EPROTO, "%s: %s", call, je.text);
	return same_rc(line,
	               fn(r->sched, (uint64_t)job, (enum sw_task_kind)kind, (uint32_t)task, now),
	               call, err, errlen);
}

int sw_ctl_rec_task_started(struct sw_ctl_rec *r, uint64_t job, enum sw_task_kind kind,
                            uint32_t task, double now)
{
	return rec_task(r, "task_started", sw_sched_task_started, job, kind, task, now);
}

int sw_ctl_rec_task_finished(struct sw_ctl_rec *r, uint64_t job, enum sw_task_kind kind,
                             uint32_t task, double now)
{
	return rec_task(r, "task_finished", sw_sched_task_finished, job, kind, task, now);
}

static int replay_task_started(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_task(r, line, "task_started", sw_sched_task_started, err, errlen);
}

static int replay_task_finished(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_task(r, line, "task_finished", sw_sched_task_finished, err, errlen);
}

int sw_ctl_rec_task_failed(struct sw_ctl_rec *r, uint64_t job, enum sw_task_kind kind,
                           uint32_t task, double now)
{
	return rec_task(r, "task_failed", sw_sched_task_failed, job, kind, task, now);
}

static int replay_task_failed(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_task(r, line, "task_failed", sw_sched_task_failed, err, errlen);
}

/* map_output_lost takes a map index: recorded as a task of kind map */
static int map_output_lost(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                           double now)
{
	return kind == SW_MAP ? sw_sched_map_output_lost(s, job, task, now) : -EINVAL;
}

int sw_ctl_rec_map_output_lost(struct sw_ctl_rec *r, uint64_t job, uint32_t map, double now)
{
	return rec_task(r, "map_output_lost", map_output_lost, job, SW_MAP, map, now);
}

static int replay_map_output_lost(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_task(r, line, "map_output_lost", map_output_lost, err, errlen);
}

/* ---- node_lost, node_up, job_remove, node_restarted: one id ---- */

typedef int (*id_fn)(struct sw_sched *, uint64_t, double);

static int node_lost(struct sw_sched *s, uint64_t node, double now)
{
	return sw_sched_node_lost(s, (uint32_t)node, now);
}

static int node_up(struct sw_sched *s, uint64_t node, double now)
{
	return sw_sched_node_up(s, (uint32_t)node, now);
}

static int node_restarted(struct sw_sched *s, uint64_t node, double now)
{
	return sw_sched_node_restarted(s, (uint32_t)node, now);
}

static const struct {
	const char *call, *key;
	id_fn fn;
} id_calls[] = {
        {"node_lost", "node", node_lost},
        {"node_up", "node", node_up},
        {"job_remove", "job", sw_sched_job_remove},
        {"node_restarted", "node", node_restarted},
};

static int rec_id(struct sw_ctl_rec *r, int which, uint64_t id, double now)
{
	int rc = id_calls[which].fn(r->sched, id, now);
	json_t *line = json_pack("{s:s, s:f, s:I}", "call", id_calls[which].call, "now", now,
	                         id_calls[which].key, (json_int_t)id);
	return emit(r, line, rc, now);
}

static int replay_id(struct sw_ctl_rec *r, json_t *line, int which, char *err, size_t errlen)
{
	json_error_t je;
	json_int_t id;
	double now;
	if (json_unpack_ex(line, &je, 0, "{s:F, s:I}", "now", &now, id_calls[which].key, &id) < 0)
		return fail(err, errlen, -EPROTO, "%s: %s", id_calls[which].call, je.text);
	return same_rc(line, id_calls[which].fn(r->sched, (uint64_t)id, now), id_calls[which].call,
	               err, errlen);
}

int sw_ctl_rec_node_lost(struct sw_ctl_rec *r, uint32_t node, double now)
{
	return rec_id(r, 0, node, now);
}

int sw_ctl_rec_node_up(struct sw_ctl_rec *r, uint32_t node, double now)
{
	return rec_id(r, 1, node, now);
}

int sw_ctl_rec_job_remove(struct sw_ctl_rec *r, uint64_t job, double now)
{
	return rec_id(r, 2, job, now);
}

int sw_ctl_rec_node_restarted(struct sw_ctl_rec *r, uint32_t node, double now)
{
	return rec_id(r, 3, node, now);
}

static int replay_node_lost(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_id(r, line, 0, err, errlen);
}

static int replay_node_up(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_id(r, line, 1, err, errlen);
}

static int replay_job_remove(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_id(r, line, 2, err, errlen);
}

static int replay_node_restarted(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	return replay_id(r, line, 3, err, errlen);
}

/* ---- map_output ---- */

int sw_ctl_rec_map_output(struct sw_ctl_rec *r, uint64_t job, uint32_t map, uint32_t node,
                          uint64_t bytes, double now)
{
	int rc = sw_sched_map_output(r->sched, job, map, node, bytes, now);
	json_t *line = json_pack("{s:s, s:f, s:I, s:I, s:I, s:I}", "call", "map_output", "now", now,
	                         "job", (json_int_t)job, "map", (json_int_t)map, "node",
	                         (json_int_t)node, "bytes", (json_int_t)bytes);
	return emit(r, line, rc, now);
}

static int replay_map_output(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	json_error_t je;
	json_int_t job, map, node, bytes;
	double now;
	if (json_unpack_ex(line, &je, 0, "{s:F, s:I, s:I, s:I, s:I}", "now", &now, "job", &job,
	                   "map", &map, "node", &node, "bytes", &bytes) < 0)
		return fail(err, errlen, -EPROTO, "map_output: %s", je.text);
	int rc = sw_sched_map_output(r->sched, (uint64_t)job, (uint32_t)map, (uint32_t)node,
	                             (uint64_t)bytes, now);
	return same_rc(line, rc, "map_output", err, errlen);
}

/* ---- net_sample ---- */

int sw_ctl_rec_net_sample(struct sw_ctl_rec *r, uint32_t rack, uint64_t out_bytes,
                          uint64_t in_bytes, double now)
{
	int rc = sw_sched_net_sample(r->sched, rack, out_bytes, in_bytes, now);
	json_t *line = json_pack("{s:s, s:f, s:I, s:I, s:I}", "call", "net_sample", "now", now,
	                         "rack", (json_int_t)rack, "out", (json_int_t)out_bytes, "in",
	                         (json_int_t)in_bytes);
	return emit(r, line, rc, now);
}

static int replay_net_sample(struct sw_ctl_rec *r, json_t *line, char *err, size_t errlen)
{
	json_error_t je;
	json_int_t rack, out, in;
	double now;
	if (json_unpack_ex(line, &je, 0, "{s:F, s:I, s:I, s:I}", "now", &now, "rack", &rack, "out",
	                   &out, "in", &in) < 0)
		return fail(err, errlen, -EPROTO, "net_sample: %s", je.text);
	int rc = sw_sched_net_sample(r->sched, (uint32_t)rack, (uint64_t)out, (uint64_t)in, now);
	return same_rc(line, rc, "net_sample", err, errlen);
}

/* ---- replay ---- */

static const struct {
	const char *name;
	int (*replay)(struct sw_ctl_rec *, json_t *, char *, size_t);
} calls[] = {
        {"create", replay_create},
        {"job_add", replay_job_add},
        {"heartbeat", replay_heartbeat},
        {"task_started", replay_task_started},
        {"task_finished", replay_task_finished},
        {"map_output", replay_map_output},
        {"net_sample", replay_net_sample},
        {"task_failed", replay_task_failed},
        {"map_output_lost", replay_map_output_lost},
        {"node_lost", replay_node_lost},
        {"node_up", replay_node_up},
        {"job_remove", replay_job_remove},
        {"node_restarted", replay_node_restarted},
};

int sw_ctl_rec_replay(struct sw_ctl_rec *r, const char *text, size_t len, char *err, size_t errlen)
{
	json_error_t je;
	json_t *line = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (line == NULL)
		return fail(err, errlen, -EPROTO, "not JSON: %s (column %d)", je.text, je.column);
	const char *name = json_string_value(json_object_get(line, "call"));
	int rc = fail(err, errlen, -EPROTO, "no known \"call\"");
	for (size_t i = 0; name != NULL && i < sizeof(calls) / sizeof(calls[0]); i++) {
		if (strcmp(name, calls[i].name) != 0)
			continue;
		if (r->sched == NULL && calls[i].replay != replay_create)
			rc = fail(err, errlen, -EPROTO, "%s before \"create\"", name);
		else
			rc = calls[i].replay(r, line, err, errlen);
		break;
	}
	if (rc == 0) {
		double now = json_number_value(json_object_get(line, "now"));
		r->calls++;
		if (now > r->last_now)
			r->last_now = now;
	}
	json_decref(line);
	return rc;
}

void sw_ctl_rec_fini(struct sw_ctl_rec *r)
{
	sw_sched_destroy(r->sched);
	r->sched = NULL;
}
