/* SPDX-License-Identifier: MIT */
/* GET /metrics: Prometheus text format 0.0.4, written directly (no C client is packaged). */
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP swcontroller_%s %s\n# TYPE swcontroller_%s %s\n", name, help, name,
	        type);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
	head(f, name, "counter", help);
	fprintf(f, "swcontroller_%s %llu\n", name, (unsigned long long)v);
}

/* A gauge of three states (the order of enum ctl_node_state and enum ctl_job_state). */
static void by_state(FILE *f, const char *name, const char *help, const char *const state[3],
                     const uint32_t n[3])
{
	head(f, name, "gauge", help);
	for (int i = 0; i < 3; i++)
		fprintf(f, "swcontroller_%s{state=\"%s\"} %u\n", name, state[i], n[i]);
}

enum rack_value { UTILISATION, SATURATED, PACE };

/* One gauge per rack from NetSat's view: its utilisation, its saturated flag, or its pace. */
static void rack_gauge(FILE *f, struct ctl *c, const char *name, const char *help,
                       enum rack_value what)
{
	head(f, name, "gauge", help);
	for (uint32_t r = 0; r < c->conf.n_racks; r++) {
		struct sw_net_status st = {0};
		sw_sched_net_status(c->rec.sched, r, &st);
		fprintf(f, "swcontroller_%s{rack=\"%u\"} %.6f\n", name, r,
		        what == UTILISATION ? st.utilisation
		        : what == SATURATED ? (double)st.saturated
		                            : (double)sw_ctl_rack_pace(c, r));
	}
}

static const char *const line_name[SW_NASS_LINES] = {"preferred_map", "local_map",   "any_map",
                                                     "light_reduce",  "sarp_reduce", "heavy_reduce",
                                                     "any_reduce"};

char *sw_ctl_metrics(struct ctl *c, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (f == NULL)
		return NULL;
	uint32_t nodes[3] = {0}, connected = 0, jobs[3] = {0};
	for (uint32_t i = 0; i < c->conf.n_nodes; i++) {
		nodes[c->nodes[i].state]++;
		connected += c->nodes[i].conn != NULL;
	}
	for (size_t i = 0; i < c->n_jobs; i++)
		jobs[c->jobs[i]->state]++;
	static const char *const node_states[] = {"new", "up", "lost"}, *const job_states[] = {
	                                                                        "running", "done",
	                                                                        "failed"};
	by_state(f, "nodes", "Configured nodes by state (new: never registered).", node_states,
	         nodes);
	head(f, "agents_connected", "gauge", "Authenticated agent connections.");
	fprintf(f, "swcontroller_agents_connected %u\n", connected);
	by_state(f, "jobs", "Jobs by state.", job_states, jobs);
	head(f, "jobs_live", "gauge", "Jobs the scheduler holds.");
	fprintf(f, "swcontroller_jobs_live %u\n", sw_sched_jobs_live(c->rec.sched));
	counter(f, "jobs_submitted_total", "Jobs accepted by POST /jobs.", c->jobs_submitted);
	counter(f, "scheduler_calls_total", "Scheduler calls made and recorded.", c->rec.calls);
	counter(f, "tasks_assigned_total", "Tasks handed out by heartbeats.", c->rec.assigned);
	counter(f, "messages_total", "Wire messages received.", c->msgs_in);
	counter(f, "bad_messages_total",
	        "Malformed or unexpected wire messages (connection closed).", c->bad_msgs);
	counter(f, "refused_total", "Agents refused (key, node id, version) or not accepted.",
	        c->refused);
	counter(f, "nodes_lost_total", "Nodes declared lost.", c->lost_events);
	counter(f, "agents_restarted_total",
	        "Agents that came back with a new boot epoch while their node was up.",
	        c->restarts);
	counter(f, "map_outputs_kept_total",
	        "Finished maps' outputs that a restarted agent's store still held (not run again).",
	        c->outputs_kept);
	counter(f, "fetch_failures_total", "Failed fetches of map output reported by reduces.",
	        c->fetch_reports);
	counter(f, "fetch_failure_reruns_total",
	        "Finished maps run again because reduces could not fetch their output.",
	        c->fetch_reruns);
	rack_gauge(f, c, "rack_utilisation",
	           "NetSat's smoothed uplink utilisation of each rack (larger of in and out).",
	           UTILISATION);
	rack_gauge(f, c, "rack_saturated", "1 while NetSat marks the rack NetworkSaturated.",
	           SATURATED);
	rack_gauge(f, c, "rack_pace_bytes_per_second",
	           "Cross-rack bytes/s the rack's agents may send together (pace_uplink), 0 "
	           "while unpaced.",
	           PACE);
	struct sw_nass_stats ns;
	if (sw_sched_nass_stats(c->rec.sched, &ns) == 0) {
		head(f, "nass_launches_total", "counter",
		     "Tasks NASS launched per ShuffleWatcher Figure 3 line, on racks saturated or "
		     "not.");
		for (int s = 0; s < 2; s++)
			for (int l = 0; l < SW_NASS_LINES; l++)
				fprintf(f,
				        "swcontroller_nass_launches_total{line=\"%s\",saturated=\"%"
				        "d\"} "
				        "%llu\n",
				        line_name[l], s, (unsigned long long)ns.launched[s][l]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
