/* SPDX-License-Identifier: MIT */
/*
 * Delay scheduling. The cluster: rack 0 = nodes 0, 1; rack 1 = nodes 2, 3; waits 5 s + 5 s.
 * User 0's job 1 keeps its input on node 0 only; user 1's job 2 has one map, on node 2.
 */
#include "fixture.h"

struct delay_fx {
	struct fx_cluster c;
	struct fx_job local0, local2;
	struct sw_sched *s;
};

static int setup(void **state)
{
	struct delay_fx *f = calloc(1, sizeof(*f));

	fx_cluster_init(&f->c, 2, 2);
	f->s = fx_sched(&f->c, "delay", 2);
	fx_job_init(&f->local0, 1, 0, 0, 8, 0, 1);
	fx_job_init(&f->local2, 2, 1, 0, 1, 0, 1);
	fx_map_on(&f->local2, 0, 1, 2);
	assert_int_equal(sw_sched_job_add(f->s, &f->local0.spec, 0), 0);
	assert_int_equal(sw_sched_job_add(f->s, &f->local2.spec, 0), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct delay_fx *f = *state;

	sw_sched_destroy(f->s);
	free(f);
	return 0;
}

static int offer_map(struct delay_fx *f, uint32_t node, double now, struct sw_assignment *a)
{
	return fx_offer(f->s, node, SW_MAP, 1, now, a);
}

static void delay_skips_job_without_local_task_until_node_wait(void **state)
{
	struct delay_fx *f = *state;
	struct sw_assignment a;

	/* User 0 is first in fair order but has nothing on node 2: job 2 takes the slot. */
	assert_int_equal(offer_map(f, 2, 0, &a), 1);
	assert_int_equal(a.job, 2);
	assert_int_equal(a.locality, SW_LOCALITY_NODE);
	/* Node 1 is rack-local for job 1, but it has waited less than node_wait. */
	assert_int_equal(offer_map(f, 3, 1, &a), 0);
	assert_int_equal(offer_map(f, 1, 4.9, &a), 0);
	/* A node-local slot is always taken at once. */
	assert_int_equal(offer_map(f, 0, 4.95, &a), 1);
	assert_int_equal(a.job, 1);
	assert_int_equal(a.locality, SW_LOCALITY_NODE);
}

static void delay_allows_rack_local_after_node_wait_then_remote_after_rack_wait(void **state)
{
	struct delay_fx *f = *state;
	struct sw_assignment a;

	assert_int_equal(offer_map(f, 2, 0, &a), 1); /* job 2; job 1 skipped from t=0 */
	assert_int_equal(offer_map(f, 1, 4.9, &a), 0);
	assert_int_equal(offer_map(f, 1, 5.0, &a), 1);
	assert_int_equal(a.job, 1);
	assert_int_equal(a.locality, SW_LOCALITY_RACK);
	assert_int_equal(a.src_node, 0);
	/* Launching rack-local restarts the wait: off-rack needs a further rack_wait. */
	assert_int_equal(offer_map(f, 3, 6, &a), 0);
	assert_int_equal(offer_map(f, 3, 10.9, &a), 0);
	assert_int_equal(offer_map(f, 3, 11.0, &a), 1);
	assert_int_equal(a.job, 1);
	assert_int_equal(a.locality, SW_LOCALITY_REMOTE);
	assert_int_equal(a.src_node, 0);
}

static void delay_resets_level_to_locality_of_last_launch(void **state)
{
	struct delay_fx *f = *state;
	struct sw_assignment a;

	assert_int_equal(offer_map(f, 2, 0, &a), 1);
	assert_int_equal(offer_map(f, 3, 10, &a), 1);
	assert_int_equal(a.locality, SW_LOCALITY_REMOTE);
	/* Once off-rack, the job may stay off-rack... */
	assert_int_equal(offer_map(f, 3, 10.1, &a), 1);
	assert_int_equal(a.locality, SW_LOCALITY_REMOTE);
	/* ...until it launches node-local again, which brings back the node-level wait. */
	assert_int_equal(offer_map(f, 0, 10.2, &a), 1);
	assert_int_equal(a.locality, SW_LOCALITY_NODE);
	assert_int_equal(offer_map(f, 2, 10.3, &a), 0);
}

static void delay_counts_waiting_only_after_a_skip(void **state)
{
	struct delay_fx *f = *state;
	struct sw_assignment a;

	/* No heartbeat skipped job 1 before t=100: it has not waited at all. */
	assert_int_equal(offer_map(f, 0, 1, &a), 1);
	assert_int_equal(offer_map(f, 1, 100, &a), 0);
	assert_int_equal(offer_map(f, 1, 104, &a), 0);
	assert_int_equal(offer_map(f, 1, 105, &a), 1);
	assert_int_equal(a.locality, SW_LOCALITY_RACK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(delay_skips_job_without_local_task_until_node_wait,
	                                        setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                delay_allows_rack_local_after_node_wait_then_remote_after_rack_wait, setup,
	                teardown),
	        cmocka_unit_test_setup_teardown(delay_resets_level_to_locality_of_last_launch,
	                                        setup, teardown),
	        cmocka_unit_test_setup_teardown(delay_counts_waiting_only_after_a_skip, setup,
	                                        teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
