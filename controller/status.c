/* SPDX-License-Identifier: MIT */
/* The JSON bodies of GET /status and GET /jobs (formats in controller/README.md). */
#include <stdlib.h>

#include <jansson.h>

#include "ctl.h"

static const char *const node_state[] = {"new", "up", "lost"};
static const char *const job_state[] = {"running", "done", "failed"};

static char *dump(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_INDENT(1)) : NULL;
	json_decref(o);
	return s;
}

char *sw_ctl_status_json(struct ctl *c)
{
	json_t *nodes = json_array(), *racks = json_array();
	uint32_t jobs[3] = {0};
	for (uint32_t i = 0; i < c->conf.n_nodes; i++) {
		const struct ctl_node *n = &c->nodes[i];
		json_array_append_new(
		        nodes,
		        json_pack("{s:s, s:I, s:s, s:b, s:f, s:s, s:I}", "name",
		                  c->conf.nodes[i].name, "rack", (json_int_t)c->conf.nodes[i].rack,
		                  "state", node_state[n->state], "connected", n->conn != NULL,
		                  "since_heartbeat_s", c->now - n->last_seen, "shuffle_addr",
		                  n->shuffle_addr, "heartbeats", (json_int_t)n->heartbeats));
	}
	for (uint32_t r = 0; r < c->conf.n_racks; r++) {
		struct sw_net_status st = {0};
		sw_sched_net_status(c->rec.sched, r, &st);
		json_array_append_new(
		        racks, json_pack("{s:I, s:f, s:b, s:I}", "rack", (json_int_t)r,
		                         "utilisation", st.utilisation, "saturated", st.saturated,
		                         "pace_bytes_per_s", (json_int_t)sw_ctl_rack_pace(c, r)));
	}
	for (size_t i = 0; i < c->n_jobs; i++)
		jobs[c->jobs[i]->state]++;
	return dump(json_pack("{s:s, s:f, s:o, s:o, s:{s:I, s:I, s:I}, s:I}", "policy",
	                      c->conf.policy, "now", c->now, "nodes", nodes, "racks", racks, "jobs",
	                      "running", (json_int_t)jobs[JOB_RUNNING], "done",
	                      (json_int_t)jobs[JOB_DONE], "failed", (json_int_t)jobs[JOB_FAILED],
	                      "scheduler_calls", (json_int_t)c->rec.calls));
}

static json_t *progress(const struct ctl_job *j, enum sw_task_kind k)
{
	uint32_t n = k == SW_MAP ? j->n_maps : j->n_reduces, running = 0;
	for (uint32_t i = 0; i < n; i++)
		running += j->tasks[k][i].state == TASK_RUNNING;
	return json_pack("{s:I, s:I, s:I}", "total", (json_int_t)n, "running", (json_int_t)running,
	                 "done", (json_int_t)j->done[k]);
}

char *sw_ctl_jobs_json(struct ctl *c)
{
	json_t *a = json_array();
	for (size_t i = 0; i < c->n_jobs; i++) {
		const struct ctl_job *j = c->jobs[i];
		json_t *o = json_pack(
		        "{s:I, s:s, s:I, s:s, s:o, s:o, s:f, s:f, s:s}", "id", (json_int_t)j->id,
		        "name", j->name, "user", (json_int_t)j->user, "state", job_state[j->state],
		        "maps", progress(j, SW_MAP), "reduces", progress(j, SW_REDUCE), "submitted",
		        j->submitted, "seconds",
		        (j->state == JOB_RUNNING ? c->now : j->finished) - j->submitted, "error",
		        j->error);
		if (o != NULL && j->deadline_s > 0)
			json_object_set_new(o, "deadline_s", json_real(j->deadline_s));
		json_array_append_new(a, o);
	}
	return dump(a);
}
