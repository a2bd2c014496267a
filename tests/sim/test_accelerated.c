/* SPDX-License-Identifier: MIT */
/* Accelerated nodes (sw_topology.accelerated) and accelerable jobs (sw_job_desc.speedup): a
 * map computes its job's speedup times faster on a node of the accelerated pool. */
#include <errno.h>
#include <string.h>

#include "mix.h"

/* One node; one grep job (no output) of one block and one reducer, of speedup @p speedup. */
static double finish(uint32_t accelerated, double speedup)
{
	struct mix m;
	struct sw_sim_result r;
	struct sw_job_desc *j = &m.jobs[0];
	double t;

	make_mix(&m);
	m.w.topo.n_racks = 1;
	m.w.topo.nodes_per_rack = 1;
	m.w.topo.accelerated = accelerated;
	m.w.n_jobs = 1;
	memset(j, 0, sizeof(*j));
	j->id = 1;
	j->bench = (uint16_t)sw_sim_bench_find("grep");
	j->input_bytes = m.w.block_bytes;
	j->shuffle_bytes = 8 * MB;
	j->n_reduces = 1;
	j->speedup = speedup;
	run(&m, "fifo", &r);
	t = r.jobs[0].finish;
	sw_sim_result_free(&r);
	return t;
}

/* On an accelerated node the map takes 1 / speedup of its time, the reduce its own; on a
 * regular node, or for a job that is not accelerable, nothing changes. */
static void an_accelerable_map_runs_its_speedup_faster_on_an_accelerated_node(void **state)
{
	const struct sw_bench *b = &sw_sim_bench_table(NULL)[sw_sim_bench_find("grep")];
	double map = (double)SW_BLOCK_BYTES_DEFAULT / b->map_rate;
	double base = finish(0, 4);

	(void)state;
	assert_true(finish(1, 1) == base);
	assert_true(finish(1, 0) == base);
	assert_float_equal(base - finish(1, 4), map * 0.75, 1e-6);
}

/* The accelerated pool is the cluster's last nodes, and no more than it has. */
static void the_accelerated_pool_is_the_last_nodes(void **state)
{
	struct sw_topology t;
	struct sw_cluster_spec c;
	const char *field;
	char why[128];

	(void)state;
	sw_sim_topology_default(&t);
	t.accelerated = 6;
	assert_int_equal(sw_sim_topology_build(&t, &c), 0);
	for (uint32_t n = 0; n < c.n_nodes; n++)
		assert_int_equal(c.nodes[n].pool, n >= c.n_nodes - 6);
	sw_sim_topology_free(&c);
	t.accelerated = 101;
	assert_int_equal(sw_sim_topology_check(&t, &field, why, sizeof(why)), -EINVAL);
	assert_string_equal(field, "accelerated");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(an_accelerable_map_runs_its_speedup_faster_on_an_accelerated_node),
	        cmocka_unit_test(the_accelerated_pool_is_the_last_nodes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
