/* SPDX-License-Identifier: MIT */
/* Topologies, and expanding job records into map tasks and job specs the scheduler takes. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sw_workload.h"

static void paper_workload(struct sw_workload *w)
{
	struct sw_paper_opts o;

	sw_sim_paper_opts_default(&o);
	o.seed = 17;
	assert_int_equal(sw_sim_workload_paper(w, &o), 0);
}

/* One job on the default topology, expanded into freshly allocated maps. */
static struct sw_map_spec *expand(const struct sw_workload *w, const struct sw_job_desc *j,
                                  struct sw_job_spec *spec)
{
	struct sw_map_spec *maps = calloc(sw_sim_workload_n_maps(w, j), sizeof(*maps));

	assert_non_null(maps);
	sw_sim_workload_expand(w, j, maps, spec);
	return maps;
}

static void default_topology_is_the_papers_ten_racks_of_ten_at_five_to_one(void **state)
{
	struct sw_topology t;
	struct sw_cluster_spec c;

	(void)state;
	sw_sim_topology_default(&t);
	assert_int_equal(sw_sim_topology_build(&t, &c), 0);
	assert_int_equal(c.n_racks, 10);
	assert_int_equal(c.n_nodes, 100);
	for (uint32_t r = 0; r < c.n_racks; r++)
		assert_true(c.racks[r].uplink_bps == 500e6);
	for (uint32_t n = 0; n < c.n_nodes; n++) {
		assert_int_equal(c.nodes[n].rack, n / 10);
		assert_int_equal(c.nodes[n].map_slots, 2);
		assert_int_equal(c.nodes[n].reduce_slots, 2);
		assert_true(c.nodes[n].nic_bps == 250e6);
		assert_true(c.nodes[n].capacity.cpu == 4 && c.nodes[n].capacity.mem_gb == 15);
	}
	sw_sim_topology_free(&c);
	assert_null(c.nodes);
}

static void facebook_topology_has_600_nodes_in_30_racks(void **state)
{
	struct sw_topology t;
	struct sw_cluster_spec c;

	(void)state;
	sw_sim_topology_facebook(&t);
	t.uplink_bps = 3e9;
	assert_int_equal(sw_sim_topology_build(&t, &c), 0);
	assert_int_equal(c.n_nodes, 600);
	assert_int_equal(c.nodes[599].rack, 29);
	assert_true(c.racks[0].uplink_bps == 3e9);
	sw_sim_topology_free(&c);
}

static void topology_without_racks_or_capacity_is_rejected(void **state)
{
	struct sw_topology t;
	struct sw_cluster_spec c;

	(void)state;
	sw_sim_topology_default(&t);
	t.n_racks = 0;
	assert_int_equal(sw_sim_topology_build(&t, &c), -EINVAL);
	sw_sim_topology_default(&t);
	t.nic_bps = 0;
	assert_int_equal(sw_sim_topology_build(&t, &c), -EINVAL);
	sw_sim_topology_default(&t);
	t.oversub = 0;
	assert_int_equal(sw_sim_topology_build(&t, &c), -EINVAL);
}

static void one_map_per_block_and_one_for_an_empty_input(void **state)
{
	struct sw_workload w;
	struct sw_job_desc j = {.id = 1, .shuffle_bytes = 1000, .n_reduces = 1};
	struct sw_job_spec spec;
	struct sw_map_spec *maps;

	(void)state;
	paper_workload(&w);
	j.input_bytes = 0;
	assert_int_equal(sw_sim_workload_n_maps(&w, &j), 1);
	maps = expand(&w, &j, &spec);
	assert_int_equal(maps[0].input_bytes, 0);
	assert_int_equal(maps[0].output_bytes, 1000);
	free(maps);
	j.input_bytes = 64 << 20;
	assert_int_equal(sw_sim_workload_n_maps(&w, &j), 1);
	j.input_bytes = (3ULL << 26) + 5;
	assert_int_equal(sw_sim_workload_n_maps(&w, &j), 4);
	maps = expand(&w, &j, &spec);
	assert_int_equal(spec.n_maps, 4);
	assert_int_equal(maps[0].input_bytes, 64 << 20);
	assert_int_equal(maps[3].input_bytes, 5);
	free(maps);
	sw_sim_workload_free(&w);
}

/* A job without input (a generator) has one map per block of what it emits, each emitting
 * an equal share: its shuffle, or its output when it has no reducer. Before, one map made
 * the whole shuffle on one node. */
static void a_job_without_input_has_one_map_per_block_it_emits(void **state)
{
	struct sw_workload w;
	struct sw_job_desc j = {.id = 3, .shuffle_bytes = (3ULL << 26) + 5, .n_reduces = 1};
	struct sw_job_spec spec;
	struct sw_map_spec *maps;
	uint64_t sum = 0;

	(void)state;
	paper_workload(&w);
	assert_int_equal(sw_sim_workload_n_maps(&w, &j), 4);
	maps = expand(&w, &j, &spec);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(maps[i].input_bytes, 0);
		assert_true(maps[i].output_bytes >= j.shuffle_bytes / 4);
		assert_true(maps[i].output_bytes <= j.shuffle_bytes / 4 + 5);
		sum += maps[i].output_bytes;
	}
	assert_int_equal(sum, j.shuffle_bytes);
	free(maps);
	j = (struct sw_job_desc){.id = 4, .output_bytes = 2ULL << 26, .n_reduces = 0};
	assert_int_equal(sw_sim_workload_n_maps(&w, &j), 2);
	sw_sim_workload_free(&w);
}

static void map_outputs_split_shuffle_by_input_and_sum_exactly(void **state)
{
	struct sw_workload w;

	(void)state;
	paper_workload(&w);
	for (size_t i = 0; i < w.n_jobs; i++) {
		const struct sw_job_desc *j = &w.jobs[i];
		struct sw_job_spec spec;
		struct sw_map_spec *maps = expand(&w, j, &spec);
		uint64_t in = 0, out = 0;

		for (uint32_t m = 0; m < spec.n_maps; m++) {
			in += maps[m].input_bytes;
			out += maps[m].output_bytes;
		}
		assert_int_equal(in, j->input_bytes);
		assert_int_equal(out, j->shuffle_bytes);
		/* A full block's output is its input share, rounded down. */
		assert_int_equal(maps[0].output_bytes, (unsigned __int128)j->shuffle_bytes *
		                                               maps[0].input_bytes /
		                                               j->input_bytes);
		free(maps);
	}
	sw_sim_workload_free(&w);
}

static void replicas_are_one_node_then_two_distinct_nodes_of_another_rack(void **state)
{
	struct sw_workload w;
	uint32_t first_rack_seen = 0;

	(void)state;
	paper_workload(&w);
	for (size_t i = 0; i < w.n_jobs; i++) {
		struct sw_job_spec spec;
		struct sw_map_spec *maps = expand(&w, &w.jobs[i], &spec);

		for (uint32_t m = 0; m < spec.n_maps; m++) {
			const uint32_t *r = maps[m].replicas;

			assert_int_equal(maps[m].n_replicas, 3);
			assert_true(r[0] < 100 && r[1] < 100 && r[2] < 100);
			assert_true(r[0] != r[1] && r[1] != r[2] && r[0] != r[2]);
			assert_int_equal(r[1] / 10, r[2] / 10);
			assert_true(r[0] / 10 != r[1] / 10);
			first_rack_seen |= 1u << (r[0] / 10);
		}
		free(maps);
	}
	assert_int_equal(first_rack_seen, (1u << 10) - 1);
	sw_sim_workload_free(&w);
}

static void rack_loaded_input_has_one_replica_of_every_block_in_the_jobs_rack(void **state)
{
	struct sw_workload w;
	uint32_t writer_racks_seen = 0;

	(void)state;
	paper_workload(&w);
	w.placement = SW_PLACEMENT_RACK;
	for (size_t i = 0; i < w.n_jobs; i++) {
		struct sw_job_spec spec;
		struct sw_map_spec *maps = expand(&w, &w.jobs[i], &spec);
		uint32_t rack = maps[0].replicas[0] / 10;

		for (uint32_t m = 0; m < spec.n_maps; m++) {
			const uint32_t *r = maps[m].replicas;

			assert_int_equal(maps[m].n_replicas, 3);
			assert_int_equal(r[0] / 10, rack); /* the writer's rack */
			assert_true(r[1] != r[2]);
			assert_int_equal(r[1] / 10, r[2] / 10);
			assert_true(r[1] / 10 != rack);
		}
		writer_racks_seen |= 1u << rack;
		free(maps);
	}
	assert_int_equal(writer_racks_seen, (1u << 10) - 1);
	sw_sim_workload_free(&w);
}

static void fixed_reducers_go_to_every_job_that_shuffles_within_the_bounds(void **state)
{
	struct sw_workload w;

	(void)state;
	paper_workload(&w);
	w.jobs[0].shuffle_bytes = 0; /* map-only */
	w.jobs[0].n_reduces = 0;
	sw_sim_workload_set_reduces(&w, 7);
	assert_int_equal(w.jobs[0].n_reduces, 0);
	for (size_t i = 1; i < w.n_jobs; i++)
		assert_int_equal(w.jobs[i].n_reduces, w.jobs[i].shuffle_bytes ? 7 : 0);
	/* 100 nodes: at most 2^24 / 100 reducers per job, whatever is asked */
	sw_sim_workload_set_reduces(&w, SW_WORKLOAD_MAX_REDUCES);
	assert_int_equal(w.jobs[1].n_reduces, SW_WORKLOAD_MAX_REDUCES);
	w.topo.nodes_per_rack = 1000;
	sw_sim_workload_set_reduces(&w, SW_WORKLOAD_MAX_REDUCES);
	assert_int_equal(w.jobs[1].n_reduces, SW_WORKLOAD_MAX_REDUCE_NODES / 10000);
	sw_sim_workload_free(&w);
}

static void compute_scale_scales_profiles_and_work(void **state)
{
	struct sw_workload w;
	struct sw_job_profile a, b;
	double work;

	(void)state;
	paper_workload(&w);
	sw_sim_workload_profile(&w, &w.jobs[1], &a);
	work = sw_sim_job_work(&w, &w.jobs[1]);
	w.compute_scale = 2;
	sw_sim_workload_profile(&w, &w.jobs[1], &b);
	assert_float_equal(b.map_avg, 2 * a.map_avg, 1e-9 * a.map_avg);
	assert_float_equal(b.reduce_avg, 2 * a.reduce_avg, 1e-9 * a.reduce_avg + 1e-12);
	assert_float_equal(b.shuffle_avg, a.shuffle_avg, 0); /* the network is not scaled */
	assert_float_equal(sw_sim_job_work(&w, &w.jobs[1]), 2 * work, 1e-9 * work);
	sw_sim_workload_free(&w);
}

static void single_rack_still_gets_three_distinct_replicas(void **state)
{
	struct sw_workload w = {.block_bytes = 1, .seed = 3};
	struct sw_job_desc j = {.id = 9, .input_bytes = 200, .n_reduces = 1};
	struct sw_job_spec spec;
	struct sw_map_spec *maps;

	(void)state;
	sw_sim_topology_default(&w.topo);
	w.topo.n_racks = 1;
	w.topo.nodes_per_rack = 3;
	maps = expand(&w, &j, &spec);
	for (uint32_t m = 0; m < spec.n_maps; m++) {
		const uint32_t *r = maps[m].replicas;

		assert_int_equal(maps[m].n_replicas, 3);
		assert_true(r[0] != r[1] && r[1] != r[2] && r[0] != r[2]);
	}
	free(maps);
}

static void expansion_depends_only_on_seed_and_job_id(void **state)
{
	struct sw_workload w;
	struct sw_job_spec sa, sb, sa2;
	struct sw_map_spec *a, *b, *a2;

	(void)state;
	paper_workload(&w);
	a = expand(&w, &w.jobs[5], &sa);
	b = expand(&w, &w.jobs[6], &sb);
	free(b);
	/* Expanding job 6 in between does not change job 5's placement. */
	a2 = expand(&w, &w.jobs[5], &sa2);
	assert_int_equal(sa.n_maps, sa2.n_maps);
	assert_memory_equal(a, a2, sa.n_maps * sizeof(*a));
	free(a2);
	w.seed++;
	a2 = expand(&w, &w.jobs[5], &sa2);
	assert_true(sa.n_maps == 1 ? 1 : memcmp(a, a2, sa.n_maps * sizeof(*a)) != 0);
	free(a2);
	free(a);
	sw_sim_workload_free(&w);
}

static void job_spec_carries_the_benchmarks_class_and_demands(void **state)
{
	const struct sw_bench *b = sw_sim_bench_table(NULL);
	struct sw_workload w;
	struct sw_job_desc j = {.id = 4,
	                        .arrival = 12.5,
	                        .user = 7,
	                        .queue = 1,
	                        .input_bytes = 1 << 30,
	                        .shuffle_bytes = 1 << 29,
	                        .n_reduces = 3,
	                        .deadline = 900};
	struct sw_job_spec spec;
	struct sw_map_spec *maps;

	(void)state;
	paper_workload(&w);
	j.bench = sw_sim_bench_find("classification");
	maps = expand(&w, &j, &spec);
	assert_int_equal(spec.id, 4);
	assert_true(spec.arrival == 12.5 && spec.deadline == 900);
	assert_int_equal(spec.user, 7);
	assert_int_equal(spec.queue, 1);
	assert_int_equal(spec.cls, SW_CLASS_LIGHT);
	assert_int_equal(spec.n_maps, 16);
	assert_ptr_equal(spec.maps, maps);
	assert_int_equal(spec.n_reduces, 3);
	assert_true(spec.map_demand.cpu == b[j.bench].map_demand.cpu);
	assert_true(spec.reduce_demand.mem_gb == b[j.bench].reduce_demand.mem_gb);
	assert_null(spec.profile);
	free(maps);
	sw_sim_workload_free(&w);
}

static void scheduler_accepts_every_expanded_job(void **state)
{
	struct sw_workload w;
	struct sw_cluster_spec c;
	struct sw_sched_config cfg;
	struct sw_sched *s;

	(void)state;
	paper_workload(&w);
	assert_int_equal(sw_sim_topology_build(&w.topo, &c), 0);
	sw_sched_config_default(&cfg);
	cfg.n_users = w.n_users;
	cfg.n_queues = w.n_queues;
	s = sw_sched_create(&c, &cfg);
	assert_non_null(s);
	for (size_t i = 0; i < w.n_jobs; i++) {
		struct sw_job_spec spec;
		struct sw_map_spec *maps = expand(&w, &w.jobs[i], &spec);

		assert_int_equal(sw_sched_job_add(s, &spec, spec.arrival), 0);
		free(maps);
	}
	assert_int_equal(sw_sched_jobs_live(s), w.n_jobs);
	sw_sched_destroy(s);
	sw_sim_topology_free(&c);
	sw_sim_workload_free(&w);
}

static void benchmarks_are_found_by_name(void **state)
{
	unsigned n;
	const struct sw_bench *b = sw_sim_bench_table(&n);

	(void)state;
	assert_int_equal(n, 15); /* Table 1's twelve, then Polo's three GridMix jobs */
	assert_int_equal(sw_sim_bench_find("terasort"), 0);
	assert_int_equal(sw_sim_bench_find("gridmix-select"), 14);
	assert_string_equal(b[sw_sim_bench_find("histogram-ratings")].name, "histogram-ratings");
	assert_int_equal(sw_sim_bench_find("teragen"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(default_topology_is_the_papers_ten_racks_of_ten_at_five_to_one),
	        cmocka_unit_test(facebook_topology_has_600_nodes_in_30_racks),
	        cmocka_unit_test(topology_without_racks_or_capacity_is_rejected),
	        cmocka_unit_test(one_map_per_block_and_one_for_an_empty_input),
	        cmocka_unit_test(a_job_without_input_has_one_map_per_block_it_emits),
	        cmocka_unit_test(map_outputs_split_shuffle_by_input_and_sum_exactly),
	        cmocka_unit_test(replicas_are_one_node_then_two_distinct_nodes_of_another_rack),
	        cmocka_unit_test(rack_loaded_input_has_one_replica_of_every_block_in_the_jobs_rack),
	        cmocka_unit_test(fixed_reducers_go_to_every_job_that_shuffles_within_the_bounds),
	        cmocka_unit_test(compute_scale_scales_profiles_and_work),
	        cmocka_unit_test(single_rack_still_gets_three_distinct_replicas),
	        cmocka_unit_test(expansion_depends_only_on_seed_and_job_id),
	        cmocka_unit_test(job_spec_carries_the_benchmarks_class_and_demands),
	        cmocka_unit_test(scheduler_accepts_every_expanded_job),
	        cmocka_unit_test(benchmarks_are_found_by_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
