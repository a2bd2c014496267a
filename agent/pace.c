/* SPDX-License-Identifier: MIT */
/*
 * Cross-rack pacing (agent/README.md, "Pacing"): the controller's Pace gives this agent a cap
 * on what it sends to other racks and the addresses of its own rack's hosts. The cap is the
 * shuffle server context's token bucket (sw_dp_set_rate; the dpdk backend has one), which its
 * connections to hosts outside the rack draw on together (sw_dp_ep_set_paced), so a busy one
 * takes what idle ones leave. Connections are marked at each Pace and whenever one comes;
 * those inside the rack stay unpaced: their bytes never cross the uplink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_int.h"

static bool in_rack(const struct sw_agent *ag, const char *peer)
{
	struct sw_dp_addr a;
	if (sw_dp_addr_parse(peer, &a) < 0)
		return false;
	for (size_t i = 0; i < ag->n_pace_hosts; i++)
		if (ag->pace_hosts[i] == a.ip)
			return true;
	return false;
}

struct marks {
	struct sw_agent *ag;
	uint32_t paced;
};

static int mark(struct sw_dp_ep *ep, const char *peer, const struct sw_dp_counters *c, void *arg)
{
	(void)c;
	struct marks *m = arg;
	bool cross = !in_rack(m->ag, peer);
	/* -ENOTCONN: a connection going down; -ENOTSUP: logged by sw_agent_pace_set */
	m->paced += sw_dp_ep_set_paced(ep, cross) == 0 && cross;
	return 0;
}

void sw_agent_pace_mark(struct sw_agent *ag)
{
	struct marks m = {.ag = ag};
	if (ag->pace_bps == 0) {
		ag->paced_conns = 0; /* marks left from an earlier Pace draw on a rate of 0 */
		return;
	}
	sw_dp_foreach_peer(ag->srv_dp, mark, &m);
	ag->paced_conns = m.paced;
}

int sw_agent_pace_set(struct sw_agent *ag, uint64_t bytes_per_s, char *const *hosts, size_t n)
{
	uint32_t *ips = calloc(n ? n : 1, sizeof(*ips));
	if (ips == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char addr[SW_DP_ADDRSTRLEN + 8];
		struct sw_dp_addr a;
		snprintf(addr, sizeof(addr), "%.*s:0", SW_DP_ADDRSTRLEN - 1, hosts[i]);
		if (sw_dp_addr_parse(addr, &a) < 0) {
			free(ips);
			return -EINVAL;
		}
		ips[i] = a.ip;
	}
	free(ag->pace_hosts);
	ag->pace_hosts = ips;
	ag->n_pace_hosts = n;
	ag->pace_bps = bytes_per_s;
	if (sw_dp_set_rate(ag->srv_dp, bytes_per_s) == -ENOTSUP && bytes_per_s > 0 &&
	    !ag->pace_unsupported) {
		sw_agent_log(ag,
		             "the controller asks to pace cross-rack sends, but transport %s "
		             "cannot (dpdk can): not paced",
		             ag->conf.transport);
		ag->pace_unsupported = true;
	}
	sw_agent_pace_mark(ag);
	return 0;
}
