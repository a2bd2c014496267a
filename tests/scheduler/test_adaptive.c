/* SPDX-License-Identifier: MIT */
/*
 * Polo's Adaptive Scheduler (adaptive, sw-adaptive): Eq. 1 on the notes' worked example, and
 * the priority classes: missed goal first, then jobs with no completed task, then the most
 * required slots, re-ranked as each launch lowers a job's need.
 * Cluster: one rack of 4 nodes, 8 map slots.
 */
#include "fixture.h"
#include "sw_sched_aria.h"

static void required_slots_follow_equation_1(void **state)
{
	(void)state;
	/* The notes' 2.3: mu 60 s, 10 running with 30 s left each, 90 pending, 600 s left. */
	assert_float_equal(sw_sched_adaptive_slots(60, 10 * 30, 10, 90, 600), -0.5, 1e-12);
	assert_float_equal(sw_sched_adaptive_slots(10, 0, 0, 19, 200), 0.95, 1e-12);
}

static struct fx_job *job(struct fx_job *j, uint64_t id, double arrival, double deadline,
                          uint32_t n_maps)
{
	fx_job_init(j, id, 0, arrival, n_maps, 0, 4);
	j->spec.deadline = deadline;
	return j;
}

/* Runs one map of @p id from @p start to @p end: the job's mean becomes end - start. */
static void run_one_map(struct sw_sched *s, uint64_t id, double start, double end)
{
	struct sw_assignment a = fx_one(s, 0, SW_MAP, start);

	assert_int_equal(a.job, id);
	assert_int_equal(sw_sched_task_finished(s, id, SW_MAP, a.task, end), 0);
}

static void missed_then_unmeasured_then_most_needed_first(void **state)
{
	static const char *const policies[] = {"adaptive", "sw-adaptive"};

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct fx_cluster c;
		struct fx_job relaxed, tight, late, fresh;
		struct sw_sched *s;

		fx_cluster_init(&c, 1, 4);
		s = fx_sched(&c, policies[p], 1);
		/* relaxed: 20 maps of 10 s, goal 1000; tight: the same, goal 300. */
		assert_int_equal(sw_sched_job_add(s, &job(&relaxed, 3, 0, 1000, 20)->spec, 0), 0);
		run_one_map(s, 3, 0, 10);
		assert_int_equal(sw_sched_job_add(s, &job(&tight, 4, 10, 300, 20)->spec, 10), 0);
		run_one_map(s, 4, 10, 20); /* unmeasured (class 1) goes before relaxed */
		assert_int_equal(sw_sched_job_add(s, &job(&late, 1, 20, 50, 1)->spec, 20), 0);
		assert_int_equal(sw_sched_job_add(s, &job(&fresh, 2, 20, 5000, 1)->spec, 20), 0);
		/* At t = 100: late has missed its goal; fresh has no mean yet; tight needs
		 * 190 / 200 = 0.95 slots, relaxed 190 / 900 = 0.21. A launch takes one off:
		 * tight then needs (5 + 180) / 200 - 1 = -0.075, below relaxed. */
		assert_int_equal(fx_next_map(s, 4, 100), 1);
		assert_int_equal(fx_next_map(s, 4, 100), 2);
		assert_int_equal(fx_next_map(s, 4, 100), 4);
		assert_int_equal(fx_next_map(s, 4, 100), 3);
		assert_int_equal(fx_next_map(s, 4, 100), 4);
		sw_sched_destroy(s);
	}
}

static void jobs_without_deadline_come_after_every_deadline_job(void **state)
{
	struct fx_cluster c;
	struct fx_job none, d;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "adaptive", 1);
	assert_int_equal(sw_sched_job_add(s, &job(&none, 1, 0, 0, 2)->spec, 0), 0);
	assert_int_equal(sw_sched_job_add(s, &job(&d, 2, 5, 1000, 1)->spec, 5), 0);
	assert_int_equal(fx_next_map(s, 4, 5), 2);
	assert_int_equal(fx_next_map(s, 4, 5), 1);
	/* Soft deadlines: a past one is admitted (and served first), one beyond the keys not. */
	assert_int_equal(sw_sched_job_add(s, &job(&d, 3, 5, 1, 1)->spec, 5), 0);
	assert_int_equal(fx_next_map(s, 4, 5), 3);
	assert_int_equal(sw_sched_job_add(s, &job(&d, 4, 5, 2e12, 1)->spec, 5), -EINVAL);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(required_slots_follow_equation_1),
	        cmocka_unit_test(missed_then_unmeasured_then_most_needed_first),
	        cmocka_unit_test(jobs_without_deadline_come_after_every_deadline_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
