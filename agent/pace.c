/* SPDX-License-Identifier: MIT */
/*
 * Cross-rack pacing (agent/README.md, "Pacing"): the controller's Pace gives this agent a cap
 * on what it sends to other racks and the addresses of its own rack's hosts. The cap is dealt
 * in equal parts over the shuffle server's connections to hosts outside the rack, through the
 * dataplane's per-connection token bucket (sw_dp_ep_set_rate; the dpdk backend has one), and
 * dealt again whenever such a connection comes or goes. Connections inside the rack stay
 * unpaced: their bytes never cross the uplink.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_int.h"

struct deal {
	struct sw_agent *ag;
	uint64_t rate;  /* per cross-rack connection */
	uint32_t cross; /* cross-rack connections */
	uint32_t paced;
	int rc;
};

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

static int count(struct sw_dp_ep *ep, const char *peer, const struct sw_dp_counters *c, void *arg)
{
	(void)ep, (void)c;
	struct deal *d = arg;
	d->cross += !in_rack(d->ag, peer);
	return 0;
}

static int set(struct sw_dp_ep *ep, const char *peer, const struct sw_dp_counters *c, void *arg)
{
	(void)c;
	struct deal *d = arg;
	uint64_t rate = in_rack(d->ag, peer) ? 0 : d->rate;
	int rc = sw_dp_ep_set_rate(ep, rate);
	if (rc == -ENOTSUP)
		return d->rc = rc;       /* the backend has no pacing: no connection will take it */
	d->paced += rc == 0 && rate > 0; /* -ENOTCONN: a connection going down */
	return 0;
}

void sw_agent_pace_deal(struct sw_agent *ag)
{
	if (ag->pace_bps == 0 && ag->paced_conns == 0)
		return; /* nothing to cap, nothing to lift */
	struct deal d = {.ag = ag};
	sw_dp_foreach_peer(ag->srv_dp, count, &d);
	d.rate = d.cross ? ag->pace_bps / d.cross : 0;
	if (ag->pace_bps > 0 && d.rate == 0)
		d.rate = 1; /* 0 would lift the cap */
	sw_dp_foreach_peer(ag->srv_dp, set, &d);
	ag->paced_conns = d.paced;
	if (d.rc == -ENOTSUP && ag->pace_bps > 0 && !ag->pace_unsupported) {
		sw_agent_log(ag,
		             "the controller asks to pace cross-rack sends, but transport %s "
		             "cannot (dpdk can): not paced",
		             ag->conf.transport);
		ag->pace_unsupported = true;
	}
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
	sw_agent_pace_deal(ag);
	return 0;
}
