/* SPDX-License-Identifier: MIT */
/*
 * /metrics: the agent's counters in Prometheus text format, served by libmicrohttpd inside the
 * agent's loop (MHD_USE_EPOLL: its epoll fd sits in ours and MHD_run() runs when it is ready).
 * Anything but GET /metrics gets 404 (405 for other methods on /metrics).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "agent_int.h"
#include "link.h"
#include "metrics.h"

struct sw_agent_metrics {
	struct sw_agent *ag;
	struct sw_agent_link *link;
	struct MHD_Daemon *mhd;
	struct sw_agent_watch w;
	char addr[SW_DP_ADDRSTRLEN];
};

static void metric(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void one(FILE *f, const char *name, const char *type, const char *help, uint64_t v)
{
	metric(f, name, type, help);
	fprintf(f, "%s %llu\n", name, (unsigned long long)v);
}

char *sw_agent_metrics_text(struct sw_agent *ag, struct sw_agent_link *link, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	const struct sw_agent_counters *c = &ag->cnt;
	fprintf(f, "# swagent %s, rack %u\n", ag->conf.node_id, ag->conf.rack);
	metric(f, "swagent_info", "gauge", "The agent's node, rack and shuffle transport.");
	fprintf(f, "swagent_info{node=\"%s\",rack=\"%u\",transport=\"%s\"} 1\n", ag->conf.node_id,
	        ag->conf.rack, ag->conf.transport);

	metric(f, "swagent_tasks_running", "gauge", "Tasks running now, by kind.");
	static const char *const kinds[] = {"map", "reduce"};
	for (int k = 0; k < 2; k++)
		fprintf(f, "swagent_tasks_running{kind=\"%s\"} %u\n", kinds[k],
		        sw_agent_running(ag, (enum sw_agent_kind)k));
	metric(f, "swagent_slots", "gauge", "Task slots, by kind.");
	fprintf(f, "swagent_slots{kind=\"map\"} %u\nswagent_slots{kind=\"reduce\"} %u\n",
	        ag->conf.map_slots, ag->conf.reduce_slots);
	metric(f, "swagent_tasks_total", "counter", "Tasks started, and ended by outcome.");
	fprintf(f,
	        "swagent_tasks_total{outcome=\"started\"} %llu\n"
	        "swagent_tasks_total{outcome=\"succeeded\"} %llu\n"
	        "swagent_tasks_total{outcome=\"failed\"} %llu\n"
	        "swagent_tasks_total{outcome=\"killed\"} %llu\n",
	        (unsigned long long)c->tasks_started, (unsigned long long)c->tasks_succeeded,
	        (unsigned long long)c->tasks_failed, (unsigned long long)c->tasks_killed);

	metric(f, "swagent_rx_bytes_total", "counter",
	       "Bytes received from nodes of each rack (NetSat's input).");
	for (uint32_t r = 0; r < ag->n_racks; r++) {
		uint64_t rx = sw_agent_rx_bytes(ag, r);
		if (rx)
			fprintf(f, "swagent_rx_bytes_total{rack=\"%u\"} %llu\n", r,
			        (unsigned long long)rx);
	}

	one(f, "swagent_pace_bytes_per_second", "gauge",
	    "The controller's cap on this agent's cross-rack sends (0: unpaced).", ag->pace_bps);
	one(f, "swagent_paced_connections", "gauge",
	    "Shuffle server connections to other racks paced now.", ag->paced_conns);

	struct sw_shuffle_store_stats st;
	sw_shuffle_store_stats(ag->store, &st);
	struct sw_shuffle_counters sc;
	sw_shuffle_server_counters(ag->srv, &sc);
	struct sw_dp_counters dc, k;
	sw_dp_counters(ag->dp, &dc);
	uint64_t retransmits = 0; /* of every context in the loop: what the wire carried twice */
	for (int i = 0; i < ag->n_dps; i++) {
		sw_dp_counters(ag->dps[i].dp, &k);
		retransmits += k.retransmits;
	}
	const struct {
		const char *name, *type, *help;
		uint64_t v;
	} rows[] = {
	        {"swagent_map_output_bytes_total", "counter",
	         "Map output bytes written into the store.", c->map_output_bytes},
	        {"swagent_fetched_bytes_total", "counter",
	         "Shuffle bytes fetched and verified by reduces.", c->fetched_bytes},
	        {"swagent_fetch_failures_total", "counter",
	         "Fetches that failed (server gone, refused, timed out).", c->fetch_failures},
	        {"swagent_checksum_failures_total", "counter",
	         "Fetched partitions that did not match what the map wrote.", c->checksum_failures},
	        {"swagent_replica_out_bytes_total", "counter",
	         "Output replica bytes acknowledged by other agents.", c->replica_bytes_out},
	        {"swagent_replica_in_bytes_total", "counter",
	         "Output replica bytes stored for other agents.", c->replica_bytes_in},
	        {"swagent_replica_refused_total", "counter",
	         "Replica puts refused (bad frame, wrong key, disk).", c->replica_refused},
	        {"swagent_store_budget_bytes", "gauge", "Memory budget of the map-output store.",
	         st.mem_budget},
	        {"swagent_store_used_bytes", "gauge", "Store memory held by partitions.",
	         st.mem_used},
	        {"swagent_store_spilled_bytes_total", "counter", "Bytes spilled to files.",
	         st.spilled_bytes},
	        {"swagent_shuffle_requests_total", "counter", "Fetch requests served.",
	         sc.requests},
	        {"swagent_shuffle_served_bytes_total", "counter", "Partition bytes served.",
	         sc.bytes_served},
	        {"swagent_shuffle_refused_hmac_total", "counter",
	         "Fetch requests refused for a wrong HMAC.", sc.refused_hmac},
	        {"swagent_replica_transport_rx_bytes_total", "counter",
	         "Payload bytes received on the replica listener's transport.", dc.rx_bytes},
	        {"swagent_replica_transport_tx_bytes_total", "counter",
	         "Payload bytes sent by replica puts.", dc.tx_bytes},
	        {"swagent_transport_retransmits_total", "counter",
	         "Segments the transport sent again (dpdk; 0 on tcp and ucx, whose resends the "
	         "kernel or UCX keep to themselves).",
	         retransmits},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		one(f, rows[i].name, rows[i].type, rows[i].help, rows[i].v);
	if (link) {
		struct sw_agent_link_counters lc;
		sw_agent_link_counters(link, &lc);
		one(f, "swagent_registered", "gauge", "1 while registered with the controller.",
		    sw_agent_link_up(link));
		one(f, "swagent_registrations_total", "counter",
		    "Registrations (Welcome received).", lc.registrations);
		one(f, "swagent_heartbeats_total", "counter", "Heartbeats sent.", lc.heartbeats);
		one(f, "swagent_events_queued", "gauge", "Task events not yet sent.",
		    lc.events_queued);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static enum MHD_Result answer(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **con_cls)
{
	(void)version, (void)upload, (void)upload_len, (void)con_cls;
	struct sw_agent_metrics *m = cls;
	unsigned status = MHD_HTTP_OK;
	char *body = NULL;
	size_t len = 0;
	const char *type = "text/plain; version=0.0.4; charset=utf-8";
	if (strcmp(url, "/metrics")) {
		status = MHD_HTTP_NOT_FOUND;
		body = strdup("not found: only /metrics is served here\n");
	} else if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
		status = MHD_HTTP_METHOD_NOT_ALLOWED;
		body = strdup("method not allowed: use GET\n");
	} else {
		body = sw_agent_metrics_text(m->ag, m->link, &len);
	}
	if (!body)
		return MHD_NO;
	if (!len)
		len = strlen(body);
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, "Content-Type", type);
	enum MHD_Result rc = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return rc;
}

static void on_ready(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	MHD_run(container_of(w, struct sw_agent_metrics, w)->mhd);
}

int sw_agent_metrics_create(struct sw_agent *ag, struct sw_agent_link *link, const char *addr,
                            struct sw_agent_metrics **out)
{
	char ip[INET_ADDRSTRLEN];
	const char *colon = strrchr(addr, ':');
	struct sockaddr_in sa = {.sin_family = AF_INET};
	if (!colon || (size_t)(colon - addr) >= sizeof(ip))
		return -EINVAL;
	memcpy(ip, addr, (size_t)(colon - addr));
	ip[colon - addr] = 0;
	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		return -EINVAL;
	sa.sin_port = htons((uint16_t)atoi(colon + 1));
	struct sw_agent_metrics *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->ag = ag;
	m->link = link;
	m->w.fn = on_ready;
	/* few scrapers, small pages: a low connection cap bounds what a client can hold */
	m->mhd = MHD_start_daemon(MHD_USE_EPOLL, 0, NULL, NULL, answer, m, MHD_OPTION_SOCK_ADDR,
	                          &sa, MHD_OPTION_CONNECTION_LIMIT, 16u,
	                          MHD_OPTION_CONNECTION_TIMEOUT, 10u, MHD_OPTION_END);
	if (!m->mhd) {
		sw_agent_log(ag, "metrics: cannot listen on %s", addr);
		free(m);
		return -EADDRINUSE;
	}
	const union MHD_DaemonInfo *ep = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_EPOLL_FD);
	const union MHD_DaemonInfo *port = MHD_get_daemon_info(m->mhd, MHD_DAEMON_INFO_BIND_PORT);
	m->w.fd = ep ? ep->epoll_fd : -1;
	int rc = m->w.fd < 0 ? -EIO : sw_agent_watch_add(ag, &m->w);
	if (rc) {
		MHD_stop_daemon(m->mhd);
		free(m);
		return rc;
	}
	snprintf(m->addr, sizeof(m->addr), "%s:%u", ip, port ? port->port : 0);
	*out = m;
	return 0;
}

const char *sw_agent_metrics_addr(const struct sw_agent_metrics *m)
{
	return m->addr;
}

void sw_agent_metrics_destroy(struct sw_agent_metrics *m)
{
	if (!m)
		return;
	sw_agent_watch_del(m->ag, &m->w); /* MHD closes its own fd */
	MHD_stop_daemon(m->mhd);
	free(m);
}
