/* SPDX-License-Identifier: MIT */
/*
 * Where a job's input splits live. The live controller has no HDFS: it places each split by
 * this rule when a job is submitted, and the simulator's --map-input live places them the
 * same way, so that a live run and its simulation read the same inputs from the same nodes.
 */
#include <errno.h>

#include "sw_sched.h"

int sw_sched_place_input(const struct sw_cluster_spec *cluster, uint64_t job, uint32_t map,
                         struct sw_map_spec *m)
{
	uint32_t n, first;

	if (!cluster || !m || cluster->n_nodes == 0)
		return -EINVAL;
	n = cluster->n_nodes;
	/* 7919 (a prime) spreads consecutive jobs' first splits over the nodes */
	first = (uint32_t)((job * 7919 + map) % n);
	m->n_replicas = 1;
	m->replicas[0] = first;
	for (uint32_t k = 1; k < n; k++) {
		uint32_t o = (first + k) % n;

		if (cluster->nodes[o].rack != cluster->nodes[first].rack || k == n - 1) {
			m->replicas[m->n_replicas++] = o;
			break;
		}
	}
	return 0;
}
