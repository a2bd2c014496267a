/* SPDX-License-Identifier: MIT */
/* The locality pick: which map of the chosen job runs, and which replica it reads. */
#include "fixture.h"

static void expect(struct sw_sched *s, uint32_t node, uint32_t task, enum sw_locality locality,
                   uint32_t src)
{
	struct sw_assignment a = fx_one(s, node, SW_MAP, 1);

	assert_int_equal(a.task, task);
	assert_int_equal(a.locality, locality);
	assert_int_equal(a.src_node, src);
}

/* Racks: 0 = nodes 0, 1; 1 = nodes 2, 3; 2 = nodes 4, 5. */
static void locality_pick_prefers_node_then_rack_then_remote_with_correct_src(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 3, 2);
	s = fx_sched(&c, "fifo", 1);
	fx_job_init(&j, 7, 0, 0, 4, 0, 6);
	fx_map_on(&j, 0, 2, 4, 2);
	fx_map_on(&j, 1, 2, 5, 1);
	fx_map_on(&j, 2, 1, 3);
	fx_map_on(&j, 3, 3, 5, 4, 2);
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);

	/* Node-local beats an earlier map that is only rack-local. */
	expect(s, 3, 2, SW_LOCALITY_NODE, 3);
	/* Rack-local reads the replica inside the rack, not the first one listed. */
	expect(s, 3, 0, SW_LOCALITY_RACK, 2);
	expect(s, 0, 1, SW_LOCALITY_RACK, 1);
	/* Nothing left in rack 0: remote, reading the first replica. */
	expect(s, 0, 3, SW_LOCALITY_REMOTE, 5);
	sw_sched_destroy(s);
}

static void locality_pick_never_hands_out_a_map_twice(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;
	struct sw_assignment a;
	int seen[12] = {0};

	(void)state;
	/* Every map is reachable through three node lists, three rack lists and the cursor. */
	fx_cluster_init(&c, 3, 2);
	s = fx_sched(&c, "fifo", 1);
	fx_job_init(&j, 1, 0, 0, 12, 0, 6);
	for (uint32_t m = 0; m < 12; m++)
		fx_map_on(&j, m, 3, m % 6, (m + 2) % 6, (m + 3) % 6);
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	for (int i = 0; i < 12; i++) {
		a = fx_one(s, (uint32_t)(i % 6), SW_MAP, 1);
		assert_int_equal(seen[a.task]++, 0);
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 1), 0);
	}
	assert_int_equal(sw_sched_jobs_live(s), 0);
	sw_sched_destroy(s);
}

/* The live controller's placement (its input splits have no HDFS): a first replica spread
 * by job and map, a second on the next node of another rack. */
static void input_is_placed_spread_by_job_and_map_with_a_replica_on_another_rack(void **state)
{
	(void)state;
	const struct sw_node_spec two_racks[] = {
	        {.rack = 0}, {.rack = 0}, {.rack = 1}, {.rack = 1}};
	const struct sw_node_spec one_rack[] = {{.rack = 0}, {.rack = 0}, {.rack = 0}};
	struct sw_cluster_spec c = {2, 4, NULL, two_racks};
	struct sw_map_spec m;

	assert_int_equal(sw_sched_place_input(&c, 1, 0, &m), 0); /* 7919 % 4 = 3 */
	assert_int_equal(m.n_replicas, 2);
	assert_int_equal(m.replicas[0], 3);
	assert_int_equal(m.replicas[1], 0);
	assert_int_equal(sw_sched_place_input(&c, 1, 2, &m), 0); /* node 1, then rack 1's 2 */
	assert_int_equal(m.replicas[0], 1);
	assert_int_equal(m.replicas[1], 2);
	c = (struct sw_cluster_spec){1, 3, NULL, one_rack};
	assert_int_equal(sw_sched_place_input(&c, 0, 1, &m), 0); /* no other rack: the last */
	assert_int_equal(m.n_replicas, 2);
	assert_int_equal(m.replicas[0], 1);
	assert_int_equal(m.replicas[1], 0);
	c.n_nodes = 1;
	assert_int_equal(sw_sched_place_input(&c, 5, 9, &m), 0);
	assert_int_equal(m.n_replicas, 1);
	assert_int_equal(m.replicas[0], 0);
	c.n_nodes = 0;
	assert_int_equal(sw_sched_place_input(&c, 5, 9, &m), -EINVAL);
	assert_int_equal(sw_sched_place_input(NULL, 5, 9, &m), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(locality_pick_prefers_node_then_rack_then_remote_with_correct_src),
	        cmocka_unit_test(locality_pick_never_hands_out_a_map_twice),
	        cmocka_unit_test(
	                input_is_placed_spread_by_job_and_map_with_a_replica_on_another_rack),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
