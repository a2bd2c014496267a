/* SPDX-License-Identifier: MIT */
/* ORDER: which pool gets the next slot, for fifo, fair, drf and capacity. */
#include <stdlib.h>

#include "fixture.h"

static void add(struct sw_sched *s, struct fx_job *j)
{
	assert_int_equal(sw_sched_job_add(s, &j->spec, j->spec.arrival), 0);
}

static void fifo_serves_earliest_job_first(void **state)
{
	struct fx_cluster c;
	struct fx_job late, early;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 2, 2);
	s = fx_sched(&c, "fifo", 2);
	/* Added out of order: arrival time decides, not the order of the calls. */
	fx_job_init(&late, 20, 0, 5, 4, 0, 4);
	fx_job_init(&early, 10, 1, 1, 2, 0, 4);
	add(s, &late);
	add(s, &early);
	assert_int_equal(fx_one(s, 3, SW_MAP, 5).job, 10);
	assert_int_equal(fx_one(s, 3, SW_MAP, 5).job, 10);
	assert_int_equal(fx_one(s, 2, SW_MAP, 5).job, 20);
	sw_sched_destroy(s);
}

static void fair_gives_slot_to_user_with_fewest_running_tasks(void **state)
{
	struct fx_cluster c;
	struct fx_job a1, a2, b;
	struct sw_sched *s;
	uint64_t got[5];

	(void)state;
	fx_cluster_init(&c, 2, 4);
	s = fx_sched(&c, "fair", 2);
	fx_job_init(&a1, 1, 0, 0, 8, 0, 8);
	fx_job_init(&a2, 2, 0, 1, 8, 0, 8);
	fx_job_init(&b, 3, 1, 2, 8, 0, 8);
	add(s, &a1);
	add(s, &a2);
	assert_int_equal(fx_one(s, 0, SW_MAP, 3).job, 1);
	assert_int_equal(fx_one(s, 0, SW_MAP, 3).job, 1);
	/* User 0 runs 2, user 1 arrives with 0: user 1 is served until it catches up. */
	add(s, &b);
	for (int i = 0; i < 5; i++)
		got[i] = fx_one(s, 1 + i, SW_MAP, 4).job;
	assert_int_equal(got[0], 3);
	assert_int_equal(got[1], 3);
	/* 2 each: ties go to the lower pool (user 0), whose jobs run in arrival order. */
	assert_int_equal(got[2], 1);
	assert_int_equal(got[3], 3);
	assert_int_equal(got[4], 1);
	sw_sched_destroy(s);
}

static void fair_orders_reduce_slots_by_running_reduces(void **state)
{
	struct fx_cluster c;
	struct fx_job reduces_only, b;
	struct sw_sched *s;
	struct sw_assignment out[2], map;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "fair", 2);
	fx_job_init(&reduces_only, 1, 0, 0, 0, 4, 4);
	fx_job_init(&b, 2, 1, 1, 3, 4, 4);
	add(s, &reduces_only);
	add(s, &b);
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 2, out), 2);
	map = fx_one(s, 1, SW_MAP, 2);
	/* Job 2's reduces wait for slow-start, so user 0 takes both reduce slots. */
	assert_int_equal(fx_offer(s, 0, SW_REDUCE, 2, 2, out), 2);
	assert_int_equal(out[0].job, 1);
	assert_int_equal(out[1].job, 1);
	assert_int_equal(sw_sched_task_finished(s, 2, SW_MAP, map.task, 3), 0);
	/* Both users run 2 tasks, but user 1 runs no reduces: it gets the reduce slot. */
	assert_int_equal(fx_one(s, 1, SW_REDUCE, 3).job, 2);
	sw_sched_destroy(s);
}

static void drf_orders_users_by_dominant_share(void **state)
{
	static const uint64_t want[] = {1, 2, 1, 1, 2, 1, 1, 2};
	struct fx_cluster c;
	struct fx_job cpu_heavy, mem_heavy;
	struct sw_sched *s;

	(void)state;
	/* 4 nodes: 32 cores, 64 GiB. A user-0 task takes 1/16 of the cores, a user-1 task 1/8
	 * of the memory, so user 0 gets two tasks for each of user 1's. */
	fx_cluster_init(&c, 2, 2);
	s = fx_sched(&c, "drf", 2);
	fx_job_init(&cpu_heavy, 1, 0, 0, 16, 0, 4);
	cpu_heavy.spec.map_demand = (struct sw_resources){.cpu = 2, .mem_gb = 1};
	fx_job_init(&mem_heavy, 2, 1, 0, 16, 0, 4);
	mem_heavy.spec.map_demand = (struct sw_resources){.cpu = 1, .mem_gb = 8};
	add(s, &cpu_heavy);
	add(s, &mem_heavy);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(fx_one(s, i % 4, SW_MAP, 1).job, want[i]);
	sw_sched_destroy(s);
}

static void capacity_prefers_queue_furthest_below_guarantee(void **state)
{
	static const double shares[] = {0.75, 0.25};
	static const uint64_t want[] = {1, 2, 1, 1, 1, 2, 1, 1};
	struct sw_sched_config cfg;
	struct fx_cluster c;
	struct fx_job q0, q1;
	struct sw_sched *s;

	(void)state;
	/* 8 map slots: queue 0 is guaranteed 6, queue 1 is guaranteed 2. */
	fx_cluster_init(&c, 2, 2);
	sw_sched_config_default(&cfg);
	cfg.policy = "capacity";
	cfg.n_users = 1;
	cfg.n_queues = 2;
	cfg.queue_capacity = shares;
	s = sw_sched_create(&c.spec, &cfg);
	assert_non_null(s);
	fx_job_init(&q0, 1, 0, 0, 16, 0, 4);
	fx_job_init(&q1, 2, 0, 0, 16, 0, 4);
	q1.spec.queue = 1;
	add(s, &q0);
	add(s, &q1);
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_int_equal(fx_one(s, i / 2, SW_MAP, 1).job, want[i]);
	sw_sched_destroy(s);
}

static void capacity_lends_idle_queue_capacity(void **state)
{
	struct fx_cluster c;
	struct fx_job q0, q1;
	struct sw_sched *s;
	struct sw_assignment a;

	(void)state;
	fx_cluster_init(&c, 2, 2);
	s = fx_sched(&c, "capacity", 2);
	fx_job_init(&q0, 1, 0, 0, 16, 0, 4);
	add(s, &q0);
	/* Queue 1 has no demand: queue 0 may use all 8 slots, twice its guarantee. */
	for (uint32_t i = 0; i < 8; i++)
		a = fx_one(s, i / 2, SW_MAP, 1);
	fx_job_init(&q1, 2, 1, 2, 16, 0, 4);
	add(s, &q1);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 3), 0);
	/* The lent slot goes back to queue 1 as soon as it frees. */
	assert_int_equal(fx_one(s, 3, SW_MAP, 3).job, 2);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(fifo_serves_earliest_job_first),
	        cmocka_unit_test(fair_gives_slot_to_user_with_fewest_running_tasks),
	        cmocka_unit_test(fair_orders_reduce_slots_by_running_reduces),
	        cmocka_unit_test(drf_orders_users_by_dominant_share),
	        cmocka_unit_test(capacity_prefers_queue_furthest_below_guarantee),
	        cmocka_unit_test(capacity_lends_idle_queue_capacity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
