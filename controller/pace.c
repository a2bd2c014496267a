/* SPDX-License-Identifier: MIT */
/*
 * NetSat-driven pacing (controller/README.md, "Pacing"): while NetSat marks a rack saturated,
 * its agents together send at most pace_uplink of the rack's uplink to other racks, an equal
 * share each, which its shuffle server's connections to hosts outside its rack draw on
 * together (agent/pace.c). pace_uplink is above the saturation threshold, so a rack paced at
 * full demand stays saturated (and paced) instead of flipping every NetSat window, and below
 * 1, so that the uplink's queue drains. A Pace goes to an agent only when what it should do
 * changed: its rack became saturated or stopped being so, the rack's connected agents changed
 * (the share), or a node of the rack registered (the hosts that stay unpaced).
 */
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

uint64_t sw_ctl_rack_pace(struct ctl *c, uint32_t rack)
{
	struct sw_net_status st = {0};
	if (c->conf.pace_uplink <= 0 || sw_sched_net_status(c->rec.sched, rack, &st) < 0 ||
	    !st.saturated)
		return 0;
	return (uint64_t)(c->conf.pace_uplink * c->conf.uplink_bps / 8);
}

/* The IPv4 address of each node of @p rack whose agent registered once (from its shuffle
 * address), into @p ips (n_nodes entries); returns how many. */
static size_t rack_hosts(struct ctl *c, uint32_t rack, char (*ips)[SW_DP_ADDRSTRLEN])
{
	size_t n = 0;
	for (uint32_t i = 0; i < c->conf.n_nodes; i++) {
		const char *a = c->nodes[i].shuffle_addr, *colon = strrchr(a, ':');
		if (c->conf.nodes[i].rack != rack || colon == NULL)
			continue;
		memcpy(ips[n], a, (size_t)(colon - a));
		ips[n++][colon - a] = '\0';
	}
	return n;
}

static void send_pace(struct ctl *c, struct ctl_conn *conn, uint64_t bps, uint32_t rack)
{
	char(*ips)[SW_DP_ADDRSTRLEN] = calloc(c->conf.n_nodes, sizeof(*ips));
	char **ptrs = calloc(c->conf.n_nodes, sizeof(*ptrs));
	if (ips == NULL || ptrs == NULL) {
		free(ips);
		free(ptrs);
		return; /* tried again at the next tick */
	}
	SwWire__Pace p = SW_WIRE__PACE__INIT;
	p.bytes_per_s = bps;
	p.n_rack_hosts = rack_hosts(c, rack, ips);
	for (size_t i = 0; i < p.n_rack_hosts; i++)
		ptrs[i] = ips[i];
	p.rack_hosts = ptrs;
	sw_ctl_send(c, conn, SW_WIRE_PACE, &p.base);
	free(ips);
	free(ptrs);
	if (!conn->pace_sent || (bps != 0) != (conn->pace_bps != 0))
		sw_ctl_log(c, "%s: %s", c->conf.nodes[conn->node].name,
		           bps ? "rack saturated: cross-rack sends paced"
		               : "cross-rack sends unpaced");
	conn->pace_sent = true;
	conn->pace_bps = bps;
	conn->pace_gen = c->rack_gen[rack];
}

void sw_ctl_pace(struct ctl *c)
{
	if (c->conf.pace_uplink <= 0)
		return;
	uint32_t agents[CTL_MAX_RACKS]; /* connected agents per rack, n_racks of them */
	memset(agents, 0, c->conf.n_racks * sizeof(agents[0]));
	for (uint32_t i = 0; i < c->conf.n_nodes; i++)
		agents[c->conf.nodes[i].rack] += c->nodes[i].conn != NULL;
	for (uint32_t i = 0; i < c->conf.n_nodes; i++) {
		struct ctl_conn *conn = c->nodes[i].conn;
		uint32_t rack = c->conf.nodes[i].rack;
		if (conn == NULL || conn->closing)
			continue;
		uint64_t bps = sw_ctl_rack_pace(c, rack) / agents[rack];
		if (!conn->pace_sent || conn->pace_bps != bps ||
		    conn->pace_gen != c->rack_gen[rack])
			send_pace(c, conn, bps, rack);
	}
}
