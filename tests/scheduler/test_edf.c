/* SPDX-License-Identifier: MIT */
/*
 * MinEDF (minedf) and the combined policy (sw-minedf): EDF order, the Lagrange minimum as a
 * cap, spare slots handed out and reclaimed, jobs without a deadline last, admission, and
 * NASS deciding within the deadline order when a heavy shuffle starts.
 * Cluster: one rack of 4 nodes, 8 map and 8 reduce slots, unless a test says otherwise.
 */
#include "sw_fixture.h"

/* 100 s maps: a job of 8 maps and no reduce has T_avg = 750 / m + 50, T_low = 800 / m. */
static const struct sw_job_profile maps100 = {.map_avg = 100, .map_max = 100};

static struct fx_job *job(struct fx_job *j, uint64_t id, double arrival, double deadline,
                          uint32_t n_maps, uint32_t n_reduces)
{
	fx_job_init(j, id, 0, arrival, n_maps, n_reduces, 4);
	j->spec.deadline = deadline;
	j->spec.profile = &maps100;
	return j;
}

static void add(struct sw_sched *s, struct fx_job *j, double now)
{
	assert_int_equal(sw_sched_job_add(s, &j->spec, now), 0);
}

static void earliest_deadline_goes_first_whatever_the_arrival(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b, none;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "minedf", 1);
	add(s, job(&none, 3, 0, 0, 1, 0), 0); /* no deadline: after every deadline job */
	add(s, job(&a, 1, 0, 5000, 1, 0), 0);
	add(s, job(&b, 2, 1, 3000, 1, 0), 1);
	assert_int_equal(fx_next_map(s, 4, 1), 2);
	assert_int_equal(fx_next_map(s, 4, 1), 1);
	assert_int_equal(fx_next_map(s, 4, 1), 3);
	sw_sched_destroy(s);
}

static void job_is_capped_at_its_minimum_and_spare_slots_follow_edf_then_come_back(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b, late;
	struct sw_sched *s;
	uint64_t got[8];
	struct sw_job_status st;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "minedf", 1);
	add(s, job(&a, 1, 0, 425, 8, 0), 0); /* 750 / m + 50 <= 425: m = 2 */
	add(s, job(&b, 2, 0, 850, 8, 0), 0); /* m = 1 */
	for (int i = 0; i < 8; i++)
		got[i] = fx_next_map(s, 4, 0);
	/* A to its minimum, B to its minimum, then every spare slot by deadline: A. */
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 2);
	for (int i = 3; i < 8; i++)
		assert_int_equal(got[i], 1);
	/* The cluster is full when a job with a later deadline than A's arrives: at t = 2 it
	 * needs 750 / m + 50 <= 429, m = 2. The slots A frees go to it first. */
	add(s, job(&late, 3, 1, 431, 8, 0), 1);
	for (uint32_t m = 0; m < 3; m++)
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, m, 2), 0);
	assert_int_equal(fx_next_map(s, 4, 2), 3);
	assert_int_equal(fx_next_map(s, 4, 2), 3);
	assert_int_equal(fx_next_map(s, 4, 2), 1); /* C has its minimum: spare again, A first */
	assert_int_equal(sw_sched_job_status(s, 3, &st), 0);
	assert_int_equal(st.running[SW_MAP], 2);
	sw_sched_destroy(s);
}

/* Offers each of the 4 nodes' 2 map slots once; counts what each job got. */
static void offer_every_map_slot(struct sw_sched *s, uint32_t *per_job)
{
	struct sw_assignment as;

	for (uint32_t n = 0; n < 4; n++)
		for (int k = 0; k < 2; k++)
			if (fx_offer(s, n, SW_MAP, 1, 0, &as) == 1)
				per_job[as.job]++;
}

/*
 * ARIA's Algorithm 1 as printed (aria): the same allocations, but no spare slot for a
 * deadline job: A runs 2 maps, B 1, and the other 5 slots stay empty until a job without a
 * deadline takes them.
 */
static void aria_gives_a_deadline_job_its_allocation_and_no_spare_slot(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b, none;
	struct sw_sched *s;
	uint32_t per_job[4] = {0};

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "aria", 1);
	add(s, job(&a, 1, 0, 425, 8, 0), 0); /* m = 2 */
	add(s, job(&b, 2, 0, 850, 8, 0), 0); /* m = 1 */
	offer_every_map_slot(s, per_job);
	assert_int_equal(per_job[1], 2);
	assert_int_equal(per_job[2], 1);
	add(s, job(&none, 3, 0, 0, 8, 0), 0);
	offer_every_map_slot(s, per_job);
	assert_int_equal(per_job[1], 2);
	assert_int_equal(per_job[2], 1);
	assert_int_equal(per_job[3], 5);
	sw_sched_destroy(s);
}

/* The same job under aria sized on each bound: T_up = 700 / m + 100 <= 425 needs m = 3 where
 * T_avg = 750 / m + 50 needs 2; a bound that is none is refused. */
static void the_minimum_is_sized_on_the_configured_bound(void **state)
{
	struct fx_cluster c;
	struct fx_job a;
	struct sw_sched_config cfg;
	struct sw_sched *s;
	uint32_t per_job[2] = {0};

	(void)state;
	fx_cluster_init(&c, 1, 4);
	sw_sched_config_default(&cfg);
	cfg.policy = "aria";
	cfg.aria_bound = SW_ARIA_UP;
	s = sw_sched_create(&c.spec, &cfg);
	assert_non_null(s);
	add(s, job(&a, 1, 0, 425, 8, 0), 0);
	offer_every_map_slot(s, per_job);
	assert_int_equal(per_job[1], 3);
	sw_sched_destroy(s);
	cfg.aria_bound = (enum sw_aria_bound)(SW_ARIA_UP + 1);
	assert_null(sw_sched_create(&c.spec, &cfg));
}

static void job_falling_behind_gets_a_larger_allocation(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "minedf", 1);
	/* B's deadline is later but its allocation (1 at t = 0) is recomputed as time passes:
	 * at t = 500 it needs 650 / m + 50 <= 350 (7 maps left), m = 3. */
	add(s, job(&a, 1, 0, 2000, 8, 0), 0);
	add(s, job(&b, 2, 0, 850, 8, 0), 0);
	assert_int_equal(fx_next_map(s, 4, 0), 2);
	assert_int_equal(fx_next_map(s, 4, 0), 1); /* B at its minimum of 1 */
	assert_int_equal(sw_sched_task_finished(s, 2, SW_MAP, 0, 500), 0);
	assert_int_equal(fx_next_map(s, 4, 500), 2);
	assert_int_equal(fx_next_map(s, 4, 500), 2);
	assert_int_equal(fx_next_map(s, 4, 500), 2);
	assert_int_equal(fx_next_map(s, 4, 500), 2); /* spare: B still has the earlier deadline */
	sw_sched_destroy(s);
}

static void deadline_that_the_whole_cluster_cannot_meet_is_refused_at_submission(void **state)
{
	struct fx_cluster c;
	struct fx_job a;
	struct sw_job_profile bad = maps100;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	for (int p = 0; p < 2; p++) {
		s = fx_sched(&c, p ? "sw-minedf" : "minedf", 1);
		/* Lower bound on all 8 map slots: 800 / 8 = 100 s. */
		assert_int_equal(sw_sched_job_add(s, &job(&a, 1, 10, 109, 8, 0)->spec, 10), -ETIME);
		assert_int_equal(sw_sched_jobs_live(s), 0);
		assert_int_equal(sw_sched_job_add(s, &job(&a, 1, 10, 5, 8, 0)->spec, 10), -ETIME);
		assert_int_equal(sw_sched_job_add(s, &job(&a, 1, 10, 110, 8, 0)->spec, 10), 0);
		bad.map_max = -1;
		job(&a, 2, 10, 500, 8, 0)->spec.profile = &bad;
		assert_int_equal(sw_sched_job_add(s, &a.spec, 10), -EINVAL);
		bad.map_max = 100;
		/* Without a profile a deadline cannot be sized: accepted, given all it can use. */
		job(&a, 2, 10, 11, 8, 0)->spec.profile = NULL;
		assert_int_equal(sw_sched_job_add(s, &a.spec, 10), 0);
		sw_sched_destroy(s);
	}
	/* Other policies carry the deadline without judging it. */
	s = fx_sched(&c, "fair", 1);
	assert_int_equal(sw_sched_job_add(s, &job(&a, 1, 10, 109, 8, 0)->spec, 10), 0);
	sw_sched_destroy(s);
}

static void pools_of_finished_jobs_are_reused(void **state)
{
	struct fx_cluster c;
	struct fx_job a;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "minedf", 1);
	/* One job after another, each one map on node 0: every one is served at once. */
	for (uint64_t id = 1; id <= 100; id++) {
		add(s, job(&a, id, (double)id, 1000.0 + id, 1, 0), (double)id);
		assert_int_equal(fx_next_map(s, 4, (double)id), id);
		assert_int_equal(sw_sched_task_finished(s, id, SW_MAP, 0, (double)id), 0);
	}
	assert_int_equal(sw_sched_jobs_live(s), 0);
	sw_sched_destroy(s);
}

/* sw-minedf: NASS holds back the heavy shuffle of the earliest-deadline job on a saturated
 * rack while it still has maps; the reduce slot goes to the next job in deadline order. */
static void combined_policy_lets_nass_hold_a_heavy_shuffle_within_edf_order(void **state)
{
	static const char *const policies[] = {"sw-minedf", "minedf"};

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct fx_cluster c;
		struct sw_sched_config cfg;
		struct fx_job a, b;
		struct sw_job_profile heavy = maps100, light = maps100;
		struct swx_net net = {0};
		struct sw_sched *s;

		fx_cluster_init(&c, 2, 2);
		swx_config(&cfg, policies[p], 1);
		s = swx_sched(&c, &cfg);
		heavy.shuffle_input_ratio = 2;
		light.shuffle_input_ratio = 0.5;
		job(&a, 1, 0, 1000, 2, 1)->spec.profile = &heavy;
		fx_map_on(&a, 0, 1, 2);
		fx_map_on(&a, 1, 1, 2);
		job(&b, 2, 0, 2000, 0, 1)->spec.profile = &light; /* no map: its reduce may go */
		add(s, &a, 0);
		add(s, &b, 0);
		assert_int_equal(swx_util(s, &c, &net, 0, 1.0), 1);
		/* Maps follow the deadline order under both. */
		assert_int_equal(fx_one(s, 0, SW_MAP, 5).job, 1);
		assert_int_equal(fx_one(s, 0, SW_REDUCE, 5).job, p == 0 ? 2 : 1);
		sw_sched_destroy(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(earliest_deadline_goes_first_whatever_the_arrival),
	        cmocka_unit_test(
	                job_is_capped_at_its_minimum_and_spare_slots_follow_edf_then_come_back),
	        cmocka_unit_test(the_minimum_is_sized_on_the_configured_bound),
	        cmocka_unit_test(job_falling_behind_gets_a_larger_allocation),
	        cmocka_unit_test(aria_gives_a_deadline_job_its_allocation_and_no_spare_slot),
	        cmocka_unit_test(
	                deadline_that_the_whole_cluster_cannot_meet_is_refused_at_submission),
	        cmocka_unit_test(pools_of_finished_jobs_are_reused),
	        cmocka_unit_test(combined_policy_lets_nass_hold_a_heavy_shuffle_within_edf_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
