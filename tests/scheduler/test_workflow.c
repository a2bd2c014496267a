/* SPDX-License-Identifier: MIT */
/* Workflows: the basic model, the refined (pipelined) model and Algorithm 2 (thesis 4.1). */
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "sw_sched_aria.h"

/* A job whose low-bound map stage is @p tm and reduce stage @p tr on 10 + 10 slots; its up
 * bound adds the maxima (equal to the means here) and loses one task's share. */
static struct sw_wf_job job(double tm, double tr, uint32_t stage)
{
	return (struct sw_wf_job){
	        .profile = {.map_min = tm,
	                    .map_avg = tm,
	                    .map_max = tm,
	                    .reduce_avg = tr,
	                    .reduce_max = tr},
	        .n_maps = 10,
	        .n_reduces = 10,
	        .stage = stage,
	};
}

static double wf_time(const struct sw_wf_job *jobs, uint32_t n, enum sw_aria_bound b, uint32_t ms,
                      uint32_t rs)
{
	struct sw_workflow w = {jobs, n};
	double t;

	assert_int_equal(sw_sched_workflow_time(&w, b, ms, rs, &t), 0);
	return t;
}

/*
 * Two concurrent jobs, given in the wrong order: J2 (maps 20 s, reduces 5 s) and J1 (10 s,
 * 30 s). Johnson's rule runs J1 first (its map stage is the shorter of its two), so J2's maps
 * run during J1's reduces: low bound 10 + 30 + 5 = 45 s, where J2 first would take 60 s.
 * Up bound: J1 maps 9 + 10 = 19, reduces 27 + 30 = 57; J2 maps 18 + 20 = 38, reduces 4.5 + 5
 * = 9.5: max(19 + 38, 19 + 57) + 9.5 = 85.5 s; TW_avg the mean of the two.
 */
static void concurrent_jobs_pipeline_in_johnsons_order(void **state)
{
	struct sw_wf_job jobs[2] = {job(20, 5, 0), job(10, 30, 0)};

	(void)state;
	assert_float_equal(wf_time(jobs, 2, SW_ARIA_LOW, 10, 10), 45, 1e-9);
	assert_float_equal(wf_time(jobs, 2, SW_ARIA_UP, 10, 10), 85.5, 1e-9);
	assert_float_equal(wf_time(jobs, 2, SW_ARIA_AVG, 10, 10), (45 + 85.5) / 2, 1e-9);
	/* Half the map slots double the map stages: J2's maps (20 + 40) now end after J1's
	 * reduces (20 + 30), and J2's reduces follow them: 65 s. */
	assert_float_equal(wf_time(jobs, 2, SW_ARIA_LOW, 5, 10), 65, 1e-9);
}

static void stages_run_one_after_another(void **state)
{
	struct sw_wf_job jobs[2] = {job(20, 5, 1), job(10, 30, 0)};

	(void)state;
	assert_float_equal(wf_time(jobs, 2, SW_ARIA_LOW, 10, 10), 10 + 30 + 20 + 5, 1e-9);
	assert_true(isinf(wf_time(jobs, 2, SW_ARIA_LOW, 0, 10)));
}

static void basic_model_sums_the_jobs_rows(void **state)
{
	struct sw_wf_job jobs[2] = {job(20, 5, 0), job(10, 30, 1)};
	struct sw_workflow w = {jobs, 2};
	struct sw_aria_model sum, one[2];

	(void)state;
	jobs[1].n_maps = 40;
	for (int b = SW_ARIA_LOW; b <= SW_ARIA_UP; b++) {
		assert_int_equal(sw_sched_workflow_basic(&w, b, &sum), 0);
		for (int i = 0; i < 2; i++)
			assert_int_equal(sw_sched_aria_model(&jobs[i].profile, jobs[i].n_maps,
			                                     jobs[i].n_reduces, b, &one[i]),
			                 0);
		assert_float_equal(sum.a, one[0].a + one[1].a, 1e-9);
		assert_float_equal(sum.b, one[0].b + one[1].b, 1e-9);
		assert_float_equal(sum.c, one[0].c + one[1].c, 1e-9);
		assert_int_equal(sum.n_maps, 40);
		assert_int_equal(sum.n_reduces, 10);
	}
}

/* The fewest m + r with TW_avg(m, r) <= t, m <= ms, r <= rs: exhaustive search. */
static uint32_t brute_force(const struct sw_wf_job *jobs, uint32_t n, double t, uint32_t ms,
                            uint32_t rs)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t m = 1; m <= ms; m++)
		for (uint32_t r = 1; r <= rs; r++)
			if (m + r < best && wf_time(jobs, n, SW_ARIA_AVG, m, r) <= t)
				best = m + r;
	return best;
}

/*
 * The thesis' setting on random workflows of 2-4 jobs in 1-3 stages: deadline twice the
 * time on every task's slot; the basic pair meets it under the refined model, and Algorithm 2
 * finds the fewest slots within the basic pair that the refined model says meet it.
 */
static void algorithm_2_finds_the_fewest_slots_exhaustive_search_finds(void **state)
{
	unsigned seed = 4;
	int fewer = 0;

	(void)state;
	for (int run = 0; run < 200; run++) {
		struct sw_wf_job jobs[4];
		uint32_t n = 2 + rand_r(&seed) % 3, ms = 0, rs = 0, basic[SW_KINDS],
		         refined[SW_KINDS];
		struct sw_workflow w = {jobs, n};
		double t;

		for (uint32_t i = 0; i < n; i++) {
			struct sw_job_profile *p = &jobs[i].profile;

			memset(&jobs[i], 0, sizeof(jobs[i]));
			jobs[i].n_maps = 1 + rand_r(&seed) % 40;
			jobs[i].n_reduces = 1 + rand_r(&seed) % 12;
			jobs[i].stage = rand_r(&seed) % 3;
			p->map_avg = 5 + rand_r(&seed) % 60;
			p->map_max = p->map_avg * 1.3;
			p->map_min = p->map_avg * 0.7;
			p->shuffle_first_avg = p->shuffle_avg = rand_r(&seed) % 30;
			p->shuffle_first_max = p->shuffle_max = p->shuffle_avg * 1.4;
			p->reduce_avg = 1 + rand_r(&seed) % 60;
			p->reduce_max = p->reduce_avg * 1.2;
			ms = jobs[i].n_maps > ms ? jobs[i].n_maps : ms;
			rs = jobs[i].n_reduces > rs ? jobs[i].n_reduces : rs;
		}
		t = 2 * wf_time(jobs, n, SW_ARIA_AVG, ms, rs);
		assert_int_equal(sw_sched_workflow_slots(&w, t, basic, refined), 0);
		assert_true(wf_time(jobs, n, SW_ARIA_AVG, basic[SW_MAP], basic[SW_REDUCE]) <= t);
		assert_true(wf_time(jobs, n, SW_ARIA_AVG, refined[SW_MAP], refined[SW_REDUCE]) <=
		            t);
		assert_true(refined[SW_MAP] <= basic[SW_MAP]);
		assert_true(refined[SW_REDUCE] <= basic[SW_REDUCE]);
		assert_int_equal(refined[SW_MAP] + refined[SW_REDUCE],
		                 brute_force(jobs, n, t, basic[SW_MAP], basic[SW_REDUCE]));
		fewer += refined[SW_MAP] + refined[SW_REDUCE] < basic[SW_MAP] + basic[SW_REDUCE];
	}
	assert_true(fewer > 100);
}

static void workflow_errors_are_reported(void **state)
{
	struct sw_wf_job jobs[1] = {job(10, 10, 0)};
	struct sw_workflow w = {jobs, 1}, empty = {jobs, 0};
	uint32_t basic[SW_KINDS], refined[SW_KINDS];
	struct sw_aria_model m;
	double t;

	(void)state;
	assert_int_equal(sw_sched_workflow_basic(&empty, SW_ARIA_AVG, &m), -EINVAL);
	assert_int_equal(sw_sched_workflow_time(&w, 3, 1, 1, &t), -EINVAL);
	assert_int_equal(sw_sched_workflow_slots(NULL, 100, basic, refined), -EINVAL);
	assert_int_equal(sw_sched_workflow_slots(&w, NAN, basic, refined), -EINVAL);
	/* Not even every task's slot meets 1 s: ARIA's "give it everything". */
	assert_int_equal(sw_sched_workflow_slots(&w, 1, basic, refined), -ETIME);
	assert_int_equal(basic[SW_MAP], 10);
	assert_int_equal(refined[SW_REDUCE], 10);
	jobs[0].n_maps = 0;
	assert_int_equal(sw_sched_workflow_time(&w, SW_ARIA_LOW, 1, 1, &t), -EINVAL);
	jobs[0].n_maps = 10;
	jobs[0].profile.reduce_avg = -1;
	assert_int_equal(sw_sched_workflow_slots(&w, 100, basic, refined), -EINVAL);
}

/* Map tasks each user runs after every node of @p c offers all its map slots at @p now. */
static void offer_all(struct sw_sched *s, uint32_t n_nodes, double now, struct sw_assignment *out,
                      int *n)
{
	*n = 0;
	for (uint32_t node = 0; node < n_nodes; node++)
		*n += fx_offer(s, node, SW_MAP, 2, now, out + *n);
}

static int count_user(const struct sw_assignment *a, int n, uint64_t lo, uint64_t hi)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += a[i].job >= lo && a[i].job <= hi;
	return c;
}

/*
 * A workflow's pool: user 0's two concurrent jobs (ids 1, 2) share a hold of 3 map slots on a
 * cluster of 8, under a policy with a pool per user (fair) and one with a pool per job
 * (minedf); user 1 (job 3) takes the 5 other slots. A finished map of user 0 frees one of its
 * 3 for it; lifting the hold lets it take what is free.
 */
static void a_held_users_jobs_share_its_slots_and_the_rest_go_to_others(void **state)
{
	static const char *const policies[] = {"fair", "minedf"};

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct fx_cluster c;
		struct fx_job j[3];
		struct sw_sched *s;
		struct sw_assignment out[16];
		uint32_t three[SW_KINDS] = {3, 0}, none[SW_KINDS] = {0, 0};
		int n;

		fx_cluster_init(&c, 2, 2);
		s = fx_sched(&c, policies[p], 2);
		for (int i = 0; i < 3; i++) {
			fx_job_init(&j[i], 1 + i, i < 2 ? 0 : 1, i, 20, 2, 4);
			assert_int_equal(sw_sched_job_add(s, &j[i].spec, 3), 0);
		}
		assert_int_equal(sw_sched_user_slots(s, 0, three), 0);
		offer_all(s, 4, 4, out, &n);
		assert_int_equal(n, 8);
		assert_int_equal(count_user(out, n, 1, 2), 3);
		assert_int_equal(count_user(out, n, 3, 3), 5);
		for (int i = 0; i < n; i++)
			if (out[i].job <= 2) {
				assert_int_equal(sw_sched_task_finished(s, out[i].job, SW_MAP,
				                                        out[i].task, 5),
				                 0);
				break;
			}
		offer_all(s, 4, 6, out, &n);
		assert_int_equal(n, 1);
		assert_true(out[0].job <= 2);
		/* job 3 finishes a map: that slot is not user 0's to take */
		for (uint32_t t = 0; t < 20; t++)
			if (sw_sched_task_finished(s, 3, SW_MAP, t, 7) == 0)
				break;
		offer_all(s, 4, 7, out, &n);
		assert_int_equal(n, 1);
		assert_int_equal(out[0].job, 3);
		assert_int_equal(sw_sched_user_slots(s, 0, none), 0);
		for (uint32_t t = 0; t < 20; t++)
			if (sw_sched_task_finished(s, 3, SW_MAP, t, 8) == 0)
				break;
		offer_all(s, 4, 8, out, &n);
		assert_int_equal(n, 1);
		assert_true(out[0].job <=
		            2); /* fair: user 0 runs 3 against 5; EDF: earlier arrival */
		sw_sched_destroy(s);
	}
}

/* A hold set while the user runs tasks counts them; users out of range and fifo's shared
 * pool are refused. */
static void a_hold_counts_running_tasks_and_is_refused_where_pools_mix_users(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;
	struct sw_assignment out[16];
	uint32_t two[SW_KINDS] = {2, 1};
	int n;

	(void)state;
	fx_cluster_init(&c, 2, 2);
	s = fx_sched(&c, "fair", 2);
	fx_job_init(&j, 1, 0, 0, 20, 2, 4);
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	assert_int_equal(fx_offer(s, 0, SW_MAP, 2, 1, out), 2);
	assert_int_equal(sw_sched_user_slots(s, 0, two), 0);
	offer_all(s, 4, 2, out, &n);
	assert_int_equal(n, 0);
	assert_int_equal(sw_sched_user_slots(s, 2, two), -EINVAL);
	assert_int_equal(sw_sched_user_slots(NULL, 0, two), -EINVAL);
	assert_int_equal(sw_sched_user_slots(s, 0, NULL), -EINVAL);
	sw_sched_destroy(s);
	s = fx_sched(&c, "fifo", 2);
	assert_int_equal(sw_sched_user_slots(s, 0, two), -EOPNOTSUPP);
	sw_sched_destroy(s);
	s = fx_sched(&c, "capacity", 2);
	assert_int_equal(sw_sched_user_slots(s, 0, two), -EOPNOTSUPP);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(concurrent_jobs_pipeline_in_johnsons_order),
	        cmocka_unit_test(stages_run_one_after_another),
	        cmocka_unit_test(basic_model_sums_the_jobs_rows),
	        cmocka_unit_test(algorithm_2_finds_the_fewest_slots_exhaustive_search_finds),
	        cmocka_unit_test(workflow_errors_are_reported),
	        cmocka_unit_test(a_held_users_jobs_share_its_slots_and_the_rest_go_to_others),
	        cmocka_unit_test(a_hold_counts_running_tasks_and_is_refused_where_pools_mix_users),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
