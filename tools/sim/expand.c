/* SPDX-License-Identifier: MIT */
/* Turns a job record into the map tasks and job spec the scheduler takes, when it arrives. */
#include "rng.h"
#include "workload_priv.h"

uint32_t sw_sim_workload_n_maps(const struct sw_workload *w, const struct sw_job_desc *j)
{
	return (uint32_t)sw_sim_wl_n_maps(j, w->block_bytes);
}

/* HDFS's default placement: the first replica on the writer's node, a random node for a writer
 * outside the cluster or a random node of @p rack (loaded from that rack) when it is not
 * UINT32_MAX, then two distinct nodes of one other rack. Degenerate topologies get as many
 * distinct nodes as exist. */
static void place(const struct sw_topology *t, struct rng *r, uint32_t rack_of_writer,
                  struct sw_map_spec *m)
{
	uint32_t per = t->nodes_per_rack, n_nodes = t->n_racks * per;
	uint32_t first = rack_of_writer == UINT32_MAX ? rng_below(r, n_nodes)
	                                              : rack_of_writer * per + rng_below(r, per);
	uint32_t rack, a, b;

	m->replicas[0] = first;
	if (t->n_racks >= 2 && per >= 2) {
		rack = rng_below(r, t->n_racks - 1);
		rack += rack >= first / per;
		a = rng_below(r, per);
		b = rng_below(r, per - 1);
		b += b >= a;
		m->replicas[1] = rack * per + a;
		m->replicas[2] = rack * per + b;
		m->n_replicas = 3;
		return;
	}
	/* One rack, or one node per rack: HDFS falls back to random distinct nodes. */
	m->n_replicas = n_nodes < SW_MAX_REPLICAS ? (uint8_t)n_nodes : SW_MAX_REPLICAS;
	for (uint8_t i = 1; i < m->n_replicas; i++) {
		uint8_t k;

		do {
			a = rng_below(r, n_nodes);
			for (k = 0; k < i && m->replicas[k] != a; k++)
				;
		} while (k < i);
		m->replicas[i] = a;
	}
}

void sw_sim_workload_expand(const struct sw_workload *w, const struct sw_job_desc *j,
                            struct sw_map_spec *maps, struct sw_job_spec *spec)
{
	const struct sw_bench *b = &sw_sim_bench_table(NULL)[j->bench];
	uint32_t n = sw_sim_workload_n_maps(w, j);
	uint64_t left = j->input_bytes, out_left = j->shuffle_bytes;
	uint32_t writer = UINT32_MAX;
	struct rng r;

	rng_init(&r, w->seed, j->id);
	if (w->placement == SW_PLACEMENT_RACK)
		writer = rng_below(&r, w->topo.n_racks);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t in = left < w->block_bytes ? left : w->block_bytes;
		/* By input; a generator (no input) emits equal shares. */
		uint64_t out = j->input_bytes
		                       ? (unsigned __int128)j->shuffle_bytes * in / j->input_bytes
		                       : j->shuffle_bytes / n;

		/* Shares round down; the last map takes the remainder so outputs sum exactly. */
		if (i == n - 1)
			out = out_left;
		maps[i].input_bytes = in;
		maps[i].output_bytes = out;
		left -= in;
		out_left -= out;
		place(&w->topo, &r, writer, &maps[i]);
	}
	*spec = (struct sw_job_spec){
	        .id = j->id,
	        .user = j->user,
	        .queue = j->queue,
	        .cls = b->cls,
	        .arrival = j->arrival,
	        .n_maps = n,
	        .maps = maps,
	        .n_reduces = j->n_reduces,
	        .map_demand = b->map_demand,
	        .reduce_demand = b->reduce_demand,
	        .shuffle_demand = b->shuffle_demand,
	        .deadline = j->deadline,
	};
}
