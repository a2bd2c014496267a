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

/* A scheduler of @p policy on one rack of 4 nodes letting a job defer @p delays times. */
static struct sw_sched *with_delays(struct fx_cluster *c, const char *policy, uint32_t delays)
{
	struct sw_sched_config cfg;
	struct sw_sched *s;

	fx_cluster_init(c, 1, 4);
	sw_sched_config_default(&cfg);
	cfg.policy = policy;
	cfg.affinity_max_delays = delays;
	s = sw_sched_create(&c->spec, &cfg);
	assert_non_null(s);
	return s;
}

/* Job 1: 3 maps of 10 s with their input on node 1 only, one finished (mean 10 s) and one
 * running there at t = 10, so its last map would read remotely anywhere else. */
static void one_map_left_on_node_1(struct sw_sched *s, struct fx_job *j, double deadline)
{
	struct sw_assignment a;

	fx_job_init(j, 1, 0, 0, 3, 0, 4);
	for (uint32_t m = 0; m < 3; m++)
		fx_map_on(j, m, 1, 1);
	j->spec.deadline = deadline;
	assert_int_equal(sw_sched_job_add(s, &j->spec, 0), 0);
	a = fx_one(s, 1, SW_MAP, 0);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 10), 0);
	a = fx_one(s, 1, SW_MAP, 10);
	assert_int_equal(a.locality, SW_LOCALITY_NODE);
}

static void job_ahead_of_its_goal_defers_a_remote_map_as_often_as_allowed(void **state)
{
	struct sw_assignment out[2];

	(void)state;
	for (uint32_t delays = 0; delays <= 3; delays++) {
		struct fx_cluster c;
		struct fx_job j;
		struct sw_sched *s = with_delays(&c, "adaptive", delays);

		/* Goal 10,000 s: with one running it needs (5 + 10) / 9,990 - 1 < 0 slots. */
		one_map_left_on_node_1(s, &j, 10000);
		for (uint32_t d = 0; d < delays; d++)
			assert_int_equal(fx_offer(s, 0, SW_MAP, 1, 10 + d, out), 0);
		assert_int_equal(fx_offer(s, 0, SW_MAP, 1, 10 + delays, out), 1);
		assert_int_equal(out[0].locality, SW_LOCALITY_RACK);
		sw_sched_destroy(s);
	}
}

static void job_that_needs_slots_never_defers(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s = with_delays(&c, "adaptive", 3);
	struct sw_assignment out[2];

	(void)state;
	/* Goal 12 s: (5 + 10) / 2 - 1 = 6.5 more slots needed: the remote map runs at once. */
	one_map_left_on_node_1(s, &j, 12);
	assert_int_equal(fx_offer(s, 0, SW_MAP, 1, 10, out), 1);
	sw_sched_destroy(s);
}

static void deferred_slot_goes_to_the_next_job(void **state)
{
	struct fx_cluster c;
	struct fx_job j, other;
	struct sw_sched *s = with_delays(&c, "adaptive", 1);
	struct sw_assignment out;

	(void)state;
	one_map_left_on_node_1(s, &j, 10000);
	/* Job 2, without a deadline, ranks after job 1; its map 0 reads on node 0, map 1 on
	 * node 1. */
	fx_job_init(&other, 2, 0, 10, 2, 0, 4);
	fx_map_on(&other, 0, 1, 0);
	fx_map_on(&other, 1, 1, 1);
	assert_int_equal(sw_sched_job_add(s, &other.spec, 10), 0);
	assert_int_equal(fx_next_map(s, 1, 10), 2);
	/* Job 1's one deferral is spent: node 0's other slot reads its last map remotely. */
	assert_int_equal(fx_next_map(s, 1, 10), 1);
	/* A job without a goal never defers: node 2 reads job 2's map 1 from node 1. */
	out = fx_one(s, 2, SW_MAP, 10);
	assert_int_equal(out.job, 2);
	assert_int_equal(out.locality, SW_LOCALITY_RACK);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(required_slots_follow_equation_1),
	        cmocka_unit_test(missed_then_unmeasured_then_most_needed_first),
	        cmocka_unit_test(jobs_without_deadline_come_after_every_deadline_job),
	        cmocka_unit_test(job_ahead_of_its_goal_defers_a_remote_map_as_often_as_allowed),
	        cmocka_unit_test(job_that_needs_slots_never_defers),
	        cmocka_unit_test(deferred_slot_goes_to_the_next_job),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
