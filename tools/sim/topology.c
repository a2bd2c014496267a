/* SPDX-License-Identifier: MIT */
/* Uniform rack topologies and their expansion into the scheduler's cluster description. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_workload.h"

void sw_sim_topology_default(struct sw_topology *t)
{
	/* The paper's EC2 testbed: 10 sub-clusters of 10 "extra-large" instances (4 cores,
	 * 15 GB), 250 Mbit/s measured within a sub-cluster, 500 Mbit/s between sub-clusters:
	 * 10 * 250 / 5 = 500, so oversubscription 5 reproduces both numbers. */
	*t = (struct sw_topology){
	        .n_racks = 10,
	        .nodes_per_rack = 10,
	        .nic_bps = 250e6,
	        .oversub = 5,
	        .map_slots = 2,
	        .reduce_slots = 2,
	        .node_capacity = {.cpu = 4, .mem_gb = 15},
	};
}

void sw_sim_topology_facebook(struct sw_topology *t)
{
	/* Facebook's 2009 Hadoop cluster: 600 nodes; 20 per rack with 1 GbE NICs, and the
	 * paper's 5:1 oversubscription (4 Gbit/s rack uplinks). Nodes keep the paper's shape
	 * so policies see the same per-node slots and resources under both workloads. */
	sw_sim_topology_default(t);
	t->n_racks = 30;
	t->nodes_per_rack = 20;
	t->nic_bps = 1e9;
}

double sw_sim_topology_uplink_bps(const struct sw_topology *t)
{
	if (t->uplink_bps > 0)
		return t->uplink_bps;
	return t->nodes_per_rack * t->nic_bps / t->oversub;
}

int sw_sim_topology_check(const struct sw_topology *t, const char **field, char *why, size_t len)
{
	uint64_t n_nodes = (uint64_t)t->n_racks * t->nodes_per_rack;
	double up = sw_sim_topology_uplink_bps(t);

	*field = NULL;
	if (!t->n_racks || !t->nodes_per_rack || n_nodes > SW_TOPOLOGY_MAX_NODES) {
		*field = t->n_racks ? "nodes_per_rack" : "racks";
		snprintf(why, len, "racks x nodes_per_rack must be from 1 to %u nodes",
		         SW_TOPOLOGY_MAX_NODES);
	} else if (n_nodes * t->n_racks > SW_TOPOLOGY_MAX_NODE_RACKS) {
		*field = "racks";
		snprintf(why, len, "%llu nodes x %u racks must be at most %u",
		         (unsigned long long)n_nodes, t->n_racks, SW_TOPOLOGY_MAX_NODE_RACKS);
	} else if (t->map_slots > SW_TOPOLOGY_MAX_SLOTS ||
	           t->reduce_slots > SW_TOPOLOGY_MAX_SLOTS) {
		*field = t->map_slots > SW_TOPOLOGY_MAX_SLOTS ? "map_slots" : "reduce_slots";
		snprintf(why, len, "must be at most %u", SW_TOPOLOGY_MAX_SLOTS);
	} else if (!(t->nic_bps >= SW_TOPOLOGY_MIN_BPS && t->nic_bps <= SW_TOPOLOGY_MAX_BPS)) {
		*field = "nic_bps";
		snprintf(why, len, "must be from %g to %g bit/s", SW_TOPOLOGY_MIN_BPS,
		         SW_TOPOLOGY_MAX_BPS);
	} else if (!(up >= SW_TOPOLOGY_MIN_BPS && up <= SW_TOPOLOGY_MAX_BPS)) {
		*field = t->uplink_bps > 0 ? "uplink_bps" : "oversub";
		snprintf(why, len, "the rack uplink must carry from %g to %g bit/s, not %g",
		         SW_TOPOLOGY_MIN_BPS, SW_TOPOLOGY_MAX_BPS, up);
	} else if (t->accelerated > n_nodes) {
		*field = "accelerated";
		snprintf(why, len, "must be at most the %llu nodes", (unsigned long long)n_nodes);
	} else if (!(t->node_capacity.cpu > 0) || !(t->node_capacity.mem_gb > 0) ||
	           !isfinite(t->node_capacity.cpu) || !isfinite(t->node_capacity.mem_gb)) {
		*field = t->node_capacity.cpu > 0 ? "mem_gb" : "cpu";
		snprintf(why, len, "must be a positive finite number");
	}
	return *field ? -EINVAL : 0;
}

int sw_sim_topology_build(const struct sw_topology *t, struct sw_cluster_spec *out)
{
	struct sw_rack_spec *racks;
	struct sw_node_spec *nodes;
	uint64_t n_nodes = (uint64_t)t->n_racks * t->nodes_per_rack;
	const char *field;
	char why[128];

	memset(out, 0, sizeof(*out));
	if (sw_sim_topology_check(t, &field, why, sizeof(why)) < 0)
		return -EINVAL;
	racks = calloc(t->n_racks, sizeof(*racks));
	nodes = calloc(n_nodes, sizeof(*nodes));
	if (!racks || !nodes) {
		free(racks);
		free(nodes);
		return -ENOMEM;
	}
	for (uint32_t r = 0; r < t->n_racks; r++)
		racks[r].uplink_bps = sw_sim_topology_uplink_bps(t);
	for (uint32_t n = 0; n < n_nodes; n++)
		nodes[n] = (struct sw_node_spec){
		        .rack = n / t->nodes_per_rack,
		        .map_slots = t->map_slots,
		        .reduce_slots = t->reduce_slots,
		        .capacity = t->node_capacity,
		        .nic_bps = t->nic_bps,
		        .pool = n >= n_nodes - t->accelerated,
		};
	out->n_racks = t->n_racks;
	out->n_nodes = (uint32_t)n_nodes;
	out->racks = racks;
	out->nodes = nodes;
	return 0;
}

void sw_sim_topology_free(struct sw_cluster_spec *c)
{
	free((void *)c->racks);
	free((void *)c->nodes);
	memset(c, 0, sizeof(*c));
}
