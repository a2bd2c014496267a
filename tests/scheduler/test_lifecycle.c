/* SPDX-License-Identifier: MIT */
/* Task and job life: slow-start, resource fit, slots, statistics, removal. */
#include "fixture.h"

static void reduces_wait_for_slowstart_fraction_of_finished_maps(void **state)
{
	struct sw_sched_config cfg;
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;
	struct sw_assignment a[2];

	(void)state;
	fx_cluster_init(&c, 1, 4);
	sw_sched_config_default(&cfg);
	cfg.slowstart = 0.5;
	s = sw_sched_create(&c.spec, &cfg);
	assert_non_null(s);
	fx_job_init(&j, 1, 0, 0, 9, 2, 4); /* ceil(0.5 * 9) = 5 maps must finish */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	for (uint32_t m = 0; m < 5; m++) {
		assert_int_equal(fx_offer(s, 0, SW_REDUCE, 2, m, a), 0);
		a[0] = fx_one(s, m % 4, SW_MAP, m);
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a[0].task, m + 0.5), 0);
	}
	assert_int_equal(fx_offer(s, 0, SW_REDUCE, 2, 6, a), 2);
	assert_int_equal(a[0].task, 0);
	assert_int_equal(a[1].task, 1);
	assert_int_equal(a[0].locality, SW_LOCALITY_NONE);
	assert_int_equal(a[0].src_node, SW_NO_NODE);
	sw_sched_destroy(s);
}

static void default_slowstart_enables_reduces_after_first_map_of_twenty(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_assignment a;
	struct sw_job_status st;

	(void)state;
	fx_world_init(&w, 1, 4, "fair", 20, 1);
	s = w.s;
	a = fx_one(s, 0, SW_MAP, 0);
	assert_int_equal(fx_offer(s, 1, SW_REDUCE, 1, 1, &a), 0);
	assert_int_equal(sw_sched_job_status(s, 1, &st), 0);
	assert_false(st.reduces_ready);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 2), 0);
	assert_int_equal(sw_sched_job_status(s, 1, &st), 0);
	assert_true(st.reduces_ready);
	assert_int_equal(fx_one(s, 1, SW_REDUCE, 2).job, 1);
	sw_sched_destroy(s);
}

static void resource_fit_blocks_a_task_that_does_not_fit(void **state)
{
	struct fx_cluster c;
	struct fx_job big, small;
	struct sw_sched *s;
	struct sw_assignment a[2];

	(void)state;
	fx_cluster_init(&c, 1, 2);
	s = fx_sched(&c, "fifo", 1);
	fx_job_init(&big, 1, 0, 0, 4, 0, 2);
	big.spec.map_demand = (struct sw_resources){.cpu = 5, .mem_gb = 1};
	fx_job_init(&small, 2, 0, 1, 4, 0, 2);
	small.spec.map_demand = (struct sw_resources){.cpu = 1, .mem_gb = 10};
	assert_int_equal(sw_sched_job_add(s, &big.spec, 0), 0);
	/* Two free slots but 8 cores: the second 5-core map does not fit. */
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 1, a), 1);
	assert_int_equal(a[0].job, 1);
	/* A later job whose task fits takes the slot the earlier job cannot use. */
	assert_int_equal(sw_sched_job_add(s, &small.spec, 1), 0);
	assert_int_equal(fx_offer(s, 0, SW_MAP, 1, 2, a), 1);
	assert_int_equal(a[0].job, 2);
	sw_sched_destroy(s);
}

static void resource_fit_counts_memory_as_well_as_cores(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;
	struct sw_assignment a[2];

	(void)state;
	fx_cluster_init(&c, 1, 1);
	s = fx_sched(&c, "drf", 1);
	fx_job_init(&j, 1, 0, 0, 4, 0, 1);
	j.spec.map_demand = (struct sw_resources){.cpu = 1, .mem_gb = 10};
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	/* 16 GiB node: one 10 GiB map fits, two do not. */
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 1, a), 1);
	sw_sched_destroy(s);
}

static void task_finished_frees_its_slot(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_assignment a[2];

	(void)state;
	fx_world_init(&w, 1, 1, "fifo", 6, 0);
	s = w.s;
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 0, a), 2);
	/* A node that reports more free slots than it has left gets nothing more. */
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 1, a + 1), 0);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a[0].task, 2), 0);
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 3, a), 1);
	sw_sched_destroy(s);
}

static void job_is_removed_after_its_last_task_finishes(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_assignment m, r;
	struct sw_job_status st;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 1, 1);
	s = w.s;
	m = fx_one(s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, m.task, 1), 0);
	r = fx_one(s, 1, SW_REDUCE, 1);
	assert_int_equal(sw_sched_jobs_live(s), 1);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_REDUCE, r.task, 2), 0);
	assert_int_equal(sw_sched_jobs_live(s), 0);
	assert_int_equal(sw_sched_job_status(s, 1, &st), -ENOENT);
	/* The id is free again. */
	assert_int_equal(sw_sched_job_add(s, &w.j.spec, 3), 0);
	sw_sched_destroy(s);
}

static void job_status_sums_task_durations_and_map_outputs(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_assignment a, b;
	struct sw_job_status st;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 3, 1);
	s = w.s;
	a = fx_one(s, 0, SW_MAP, 1);
	b = fx_one(s, 1, SW_MAP, 2);
	assert_int_equal(sw_sched_task_started(s, 1, SW_MAP, a.task, 1.5), 0);
	assert_int_equal(sw_sched_map_output(s, 1, a.task, 0, 1000, 2), 0);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 4), 0);
	/* Never reported started: measured from the heartbeat that launched it. */
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, b.task, 3), 0);
	/* An output may also come after its map finished. */
	assert_int_equal(sw_sched_map_output(s, 1, b.task, 1, 24, 3), 0);
	assert_int_equal(sw_sched_job_status(s, 1, &st), 0);
	assert_int_equal(st.done[SW_MAP], 2);
	assert_int_equal(st.pending[SW_MAP], 1);
	assert_int_equal(st.running[SW_MAP], 0);
	assert_true(st.duration_sum[SW_MAP] > 3.5 - 1e-9 && st.duration_sum[SW_MAP] < 3.5 + 1e-9);
	assert_true(st.duration_sum[SW_REDUCE] == 0);
	assert_int_equal(st.outputs, 2);
	assert_int_equal(st.output_bytes, 1024);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(reduces_wait_for_slowstart_fraction_of_finished_maps),
	        cmocka_unit_test(default_slowstart_enables_reduces_after_first_map_of_twenty),
	        cmocka_unit_test(resource_fit_blocks_a_task_that_does_not_fit),
	        cmocka_unit_test(resource_fit_counts_memory_as_well_as_cores),
	        cmocka_unit_test(task_finished_frees_its_slot),
	        cmocka_unit_test(job_is_removed_after_its_last_task_finishes),
	        cmocka_unit_test(job_status_sums_task_durations_and_map_outputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
