/* SPDX-License-Identifier: MIT */
/* ARIA: profiles from task records, the profile store, the bounds and the Lagrange minimum. */
#include <math.h>
#include <string.h>

#include "fixture.h"
#include "sw_sched_aria.h"

/* The notes' Fig. 5 profile: a = 64 x 100 = 6400, b = 41 x (20 + 21) = 1681, c_low = 0. */
static const struct sw_job_profile fig5 = {
        .map_avg = 100,
        .map_max = 130,
        .shuffle_first_avg = 20,
        .shuffle_first_max = 25,
        .shuffle_avg = 20,
        .shuffle_max = 30,
        .reduce_avg = 21,
        .reduce_max = 28,
};

static struct sw_aria_model model(const struct sw_job_profile *p, uint32_t nm, uint32_t nr,
                                  enum sw_aria_bound b)
{
	struct sw_aria_model m;

	assert_int_equal(sw_sched_aria_model(p, nm, nr, b, &m), 0);
	return m;
}

static void bounds_follow_equations_5_to_7(void **state)
{
	struct sw_aria_model lo = model(&fig5, 64, 41, SW_ARIA_LOW);
	struct sw_aria_model up = model(&fig5, 64, 41, SW_ARIA_UP);
	struct sw_aria_model avg = model(&fig5, 64, 41, SW_ARIA_AVG);

	(void)state;
	assert_float_equal(lo.a, 6400, 1e-9);
	assert_float_equal(lo.b, 1681, 1e-9);
	assert_float_equal(lo.c, 0, 1e-9);
	/* Up: (N - 1) x avg, c = M_max + Sh1_max + Shtyp_max - Shtyp_avg + R_max. */
	assert_float_equal(up.a, 6300, 1e-9);
	assert_float_equal(up.b, 1640, 1e-9);
	assert_float_equal(up.c, 130 + 25 + 30 - 20 + 28, 1e-9);
	assert_float_equal(avg.a, 6350, 1e-9);
	assert_float_equal(avg.c, (0 + 193) / 2.0, 1e-9);
	/* T_low on 16 map and 8 reduce slots: 6400/16 + 1681/8 + 0 (Eq. 5 term by term:
	 * T_M = 64 x 100 / 16, T_Sh = (41/8 - 1) x 20 + Sh1 20, T_R = 41 x 21 / 8). */
	assert_float_equal(sw_sched_aria_time(&lo, 16, 8),
	                   64 * 100 / 16.0 + 20 + (41 / 8.0 - 1) * 20 + 41 * 21 / 8.0, 1e-9);
	assert_float_equal(sw_sched_aria_time(&avg, 16, 8),
	                   (sw_sched_aria_time(&lo, 16, 8) + sw_sched_aria_time(&up, 16, 8)) / 2,
	                   1e-9);
}

static void more_slots_than_tasks_do_not_shorten_a_stage(void **state)
{
	struct sw_aria_model lo = model(&fig5, 64, 41, SW_ARIA_LOW);

	(void)state;
	assert_float_equal(sw_sched_aria_time(&lo, 64, 41), sw_sched_aria_time(&lo, 500, 500),
	                   1e-9);
	assert_true(isinf(sw_sched_aria_time(&lo, 0, 41)));
	/* A job with no reduce left pays neither shuffle nor reduce. */
	lo = model(&fig5, 10, 0, SW_ARIA_UP);
	assert_float_equal(sw_sched_aria_time(&lo, 10, 0), 9 * 100 / 10.0 + 130, 1e-9);
}

/* The notes' claim 3: the lower-bound column of ARIA's Fig. 5. */
static void lagrange_minimum_reproduces_figure_5_lower_bound_column(void **state)
{
	struct sw_aria_model lo = model(&fig5, 64, 41, SW_ARIA_LOW);
	const double deadline[] = {240, 300, 360, 420};
	const uint32_t want[][2] = {{41, 21}, {33, 17}, {27, 14}, {24, 12}};
	uint32_t got[SW_KINDS];

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sw_sched_aria_min_slots(&lo, deadline[i], got), 0);
		assert_int_equal(got[SW_MAP], want[i][0]);
		assert_int_equal(got[SW_REDUCE], want[i][1]);
	}
}

/* Fewest slots by trying every pair, as the test's own reference. */
static uint32_t brute_force(const struct sw_aria_model *m, double t)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t x = 1; x <= m->n_maps; x++)
		for (uint32_t y = 1; y <= m->n_reduces; y++)
			if (sw_sched_aria_time(m, x, y) <= t && x + y < best)
				best = x + y;
	return best;
}

/*
 * The makespan theorem behind Eqs. 1-2 (the notes' claim 1): n tasks handed greedily to the
 * first of k slots to come free end between n mu / k and (n - 1) mu / k + lambda, the map
 * stage's low and up bounds of a profile with mean mu and maximum lambda.
 */
static void greedy_makespan_lies_between_the_low_and_up_bounds(void **state)
{
	unsigned seed = 5;

	(void)state;
	for (int run = 0; run < 500; run++) {
		uint32_t n = 1 + rand_r(&seed) % 300, k = 1 + rand_r(&seed) % 40;
		double d[300], slot[40] = {0}, sum = 0, max = 0, makespan = 0;
		struct sw_job_profile p = {0};
		struct sw_aria_model lo, up;

		for (uint32_t i = 0; i < n; i++) {
			/* about N(100, 20), a sum of uniforms */
			d[i] = 100 + 20 *
			                     ((rand_r(&seed) % 1000 + rand_r(&seed) % 1000 +
			                       rand_r(&seed) % 1000) /
			                              1000.0 -
			                      1.5) *
			                     2;
			sum += d[i];
			max = fmax(max, d[i]);
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t first = 0;

			for (uint32_t s = 1; s < k; s++)
				first = slot[s] < slot[first] ? s : first;
			slot[first] += d[i];
			makespan = fmax(makespan, slot[first]);
		}
		p.map_avg = sum / n;
		p.map_max = max;
		lo = model(&p, n, 0, SW_ARIA_LOW);
		up = model(&p, n, 0, SW_ARIA_UP);
		/* min(k, n) slots: more slots than tasks do not help */
		assert_true(sw_sched_aria_time(&lo, k, 0) <= makespan + 1e-9);
		assert_true(makespan <= sw_sched_aria_time(&up, k, 0) + 1e-9);
	}
}

static void lagrange_minimum_is_within_one_slot_of_brute_force(void **state)
{
	unsigned seed = 12;
	int checked = 0, infeasible = 0;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct sw_job_profile p = {0};
		struct sw_aria_model m;
		uint32_t got[SW_KINDS], best, nm, nr;
		double t;
		int rc;

		p.map_avg = 5 + rand_r(&seed) % 200;
		p.shuffle_first_avg = rand_r(&seed) % 60;
		p.shuffle_avg = rand_r(&seed) % 60;
		p.reduce_avg = 1 + rand_r(&seed) % 100;
		p.map_max = p.map_avg * 1.3;
		p.shuffle_first_max = p.shuffle_first_avg * 1.2;
		p.shuffle_max = p.shuffle_avg * 1.5;
		p.reduce_max = p.reduce_avg * 1.2;
		nm = 1 + rand_r(&seed) % 40;
		nr = 1 + rand_r(&seed) % 30;
		m = model(&p, nm, nr, rand_r(&seed) % 3);
		t = sw_sched_aria_time(&m, m.n_maps, m.n_reduces) *
		    (1 + (rand_r(&seed) % 400) / 40.0);
		if (rand_r(&seed) % 10 == 0) /* now and then a deadline no allocation meets */
			t = sw_sched_aria_time(&m, m.n_maps, m.n_reduces) * 0.9;
		rc = sw_sched_aria_min_slots(&m, t, got);
		best = brute_force(&m, t);
		if (best == UINT32_MAX) {
			assert_int_equal(rc, -ETIME);
			assert_int_equal(got[SW_MAP], m.n_maps);
			assert_int_equal(got[SW_REDUCE], m.n_reduces);
			infeasible++;
			continue;
		}
		assert_int_equal(rc, 0);
		assert_true(sw_sched_aria_time(&m, got[SW_MAP], got[SW_REDUCE]) <= t);
		assert_true(got[SW_MAP] + got[SW_REDUCE] <= best + 1);
		checked++;
	}
	assert_true(checked > 2000);
	assert_true(infeasible > 200);
}

static void min_slots_of_a_finished_stage_asks_nothing_of_it(void **state)
{
	struct sw_aria_model m = model(&fig5, 0, 41, SW_ARIA_LOW);
	uint32_t got[SW_KINDS];

	(void)state;
	/* Maps done: 1681 / r <= 100 needs r = 17 reduce slots and no map slot. */
	assert_int_equal(sw_sched_aria_min_slots(&m, 100, got), 0);
	assert_int_equal(got[SW_MAP], 0);
	assert_int_equal(got[SW_REDUCE], 17);
	m = model(&fig5, 64, 0, SW_ARIA_LOW);
	assert_int_equal(sw_sched_aria_min_slots(&m, 200, got), 0);
	assert_int_equal(got[SW_MAP], 32);
	assert_int_equal(got[SW_REDUCE], 0);
	assert_int_equal(sw_sched_aria_min_slots(&m, -1, got), -ETIME);
	assert_int_equal(sw_sched_aria_min_slots(&m, NAN, got), -EINVAL);
}

static void model_rejects_bad_profiles(void **state)
{
	struct sw_job_profile p = fig5;
	struct sw_aria_model m;

	(void)state;
	p.reduce_max = -1;
	assert_int_equal(sw_sched_aria_model(&p, 1, 1, SW_ARIA_AVG, &m), -EINVAL);
	p.reduce_max = NAN;
	assert_int_equal(sw_sched_aria_model(&p, 1, 1, SW_ARIA_AVG, &m), -EINVAL);
	assert_int_equal(sw_sched_aria_model(&fig5, 1, 1, 3, &m), -EINVAL);
	assert_int_equal(sw_sched_aria_model(NULL, 1, 1, SW_ARIA_AVG, &m), -EINVAL);
}

/*
 * A run with 4 maps on 2 slots (ending at 10, 12, 22, 26) and 3 reduces on 2 slots: two
 * start at 5 with the maps (first wave: shuffle until 30 and 32, so 4 and 6 s after the
 * last map), one starts at 40 (second wave: shuffle 10 s).
 */
static void profile_is_built_from_task_records_as_the_notes_define(void **state)
{
	const struct sw_task_record r[] = {
	        {SW_MAP, 0, 10, 0, 100, 200},      {SW_MAP, 0, 12, 0, 100, 200},
	        {SW_MAP, 10, 22, 0, 100, 100},     {SW_MAP, 12, 26, 0, 100, 300},
	        {SW_REDUCE, 5, 40, 30, 200, 50},   {SW_REDUCE, 5, 50, 32, 300, 50},
	        {SW_REDUCE, 40, 60, 50, 300, 200},
	};
	struct sw_job_profile p;

	(void)state;
	assert_int_equal(sw_sched_profile_build(r, 7, &p), 0);
	assert_float_equal(p.map_min, 10, 1e-9);
	assert_float_equal(p.map_avg, (10 + 12 + 12 + 14) / 4.0, 1e-9);
	assert_float_equal(p.map_max, 14, 1e-9);
	assert_float_equal(p.shuffle_first_avg, 5, 1e-9);
	assert_float_equal(p.shuffle_first_max, 6, 1e-9);
	assert_float_equal(p.shuffle_avg, 10, 1e-9);
	assert_float_equal(p.shuffle_max, 10, 1e-9);
	assert_float_equal(p.reduce_avg, (10 + 18 + 10) / 3.0, 1e-9);
	assert_float_equal(p.reduce_max, 18, 1e-9);
	assert_float_equal(p.map_input_avg, 100, 1e-9);
	assert_float_equal(p.shuffle_input_ratio, 800 / 400.0, 1e-9);
	assert_float_equal(p.reduce_selectivity, 300 / 800.0, 1e-9);
	/* One reduce wave: its shuffle stands in for the typical one. */
	assert_int_equal(sw_sched_profile_build(r, 6, &p), 0);
	assert_float_equal(p.shuffle_avg, 5, 1e-9);
	assert_float_equal(p.shuffle_max, 6, 1e-9);
}

static void profile_build_rejects_bad_records(void **state)
{
	struct sw_task_record r[] = {{SW_MAP, 0, 10, 0, 1, 1}, {SW_REDUCE, 5, 40, 30, 1, 1}};
	struct sw_job_profile p;

	(void)state;
	assert_int_equal(sw_sched_profile_build(r + 1, 1, &p), -EINVAL); /* no map */
	r[1].shuffle_end = 41;
	assert_int_equal(sw_sched_profile_build(r, 2, &p), -EINVAL);
	r[1].shuffle_end = 30;
	r[0].end = -1;
	assert_int_equal(sw_sched_profile_build(r, 2, &p), -EINVAL);
	r[0].end = INFINITY;
	assert_int_equal(sw_sched_profile_build(r, 2, &p), -EINVAL);
	r[0].end = 10;
	r[0].kind = 7;
	assert_int_equal(sw_sched_profile_build(r, 2, &p), -EINVAL);
	assert_int_equal(sw_sched_profile_build(NULL, 2, &p), -EINVAL);
}

static void profile_store_is_keyed_by_user_and_job_name(void **state)
{
	struct sw_sched_profile_db *db = sw_sched_profile_db_create(2);
	struct sw_job_profile a = fig5, b = fig5, got;
	char long_name[SW_PROFILE_NAME_MAX + 2];

	(void)state;
	assert_non_null(db);
	b.map_avg = 7;
	assert_int_equal(sw_sched_profile_db_put(db, 1, "sort", &a), 0);
	assert_int_equal(sw_sched_profile_db_put(db, 2, "sort", &b), 0);
	assert_int_equal(sw_sched_profile_db_get(db, 1, "sort", &got), 0);
	assert_float_equal(got.map_avg, 100, 0);
	assert_int_equal(sw_sched_profile_db_get(db, 2, "sort", &got), 0);
	assert_float_equal(got.map_avg, 7, 0);
	assert_int_equal(sw_sched_profile_db_get(db, 1, "grep", &got), -ENOENT);
	/* Full: a new key is refused, an existing one is replaced. */
	assert_int_equal(sw_sched_profile_db_put(db, 3, "sort", &a), -ENOSPC);
	assert_int_equal(sw_sched_profile_db_put(db, 1, "sort", &b), 0);
	assert_int_equal(sw_sched_profile_db_get(db, 1, "sort", &got), 0);
	assert_float_equal(got.map_avg, 7, 0);
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	assert_int_equal(sw_sched_profile_db_put(db, 1, long_name, &a), -EINVAL);
	assert_int_equal(sw_sched_profile_db_put(db, 1, "", &a), -EINVAL);
	assert_int_equal(sw_sched_profile_db_get(db, 1, NULL, &got), -EINVAL);
	sw_sched_profile_db_destroy(db);
	assert_null(sw_sched_profile_db_create(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(bounds_follow_equations_5_to_7),
	        cmocka_unit_test(more_slots_than_tasks_do_not_shorten_a_stage),
	        cmocka_unit_test(lagrange_minimum_reproduces_figure_5_lower_bound_column),
	        cmocka_unit_test(lagrange_minimum_is_within_one_slot_of_brute_force),
	        cmocka_unit_test(greedy_makespan_lies_between_the_low_and_up_bounds),
	        cmocka_unit_test(min_slots_of_a_finished_stage_asks_nothing_of_it),
	        cmocka_unit_test(model_rejects_bad_profiles),
	        cmocka_unit_test(profile_is_built_from_task_records_as_the_notes_define),
	        cmocka_unit_test(profile_build_rejects_bad_records),
	        cmocka_unit_test(profile_store_is_keyed_by_user_and_job_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
