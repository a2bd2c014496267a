/* SPDX-License-Identifier: MIT */
/* Task lengths that vary within a job (the workload's spread): the draws, the profile that
 * sees them and the simulator that runs them. */
#include <math.h>
#include <string.h>

#include "mix.h"
#include "sw_workload.h"

/* Without a spread every task of a job computes its benchmark's time; with one the factors
 * are N(1, cv): mean 1 and deviation cv over many tasks, the same on every call, another
 * draw for another job or kind. */
static void factors_are_one_without_spread_and_normal_with_it(void **state)
{
	struct mix m;
	struct sw_job_desc *j;
	double sum = 0, sq = 0;
	const uint32_t n = 20000;

	(void)state;
	make_mix(&m);
	j = &m.jobs[0];
	for (uint32_t i = 0; i < 100; i++)
		assert_true(sw_sim_task_factor(&m.w, j, SW_MAP, i) == 1.0);
	m.w.spread[j->bench].map_cv = 0.2;
	for (uint32_t i = 0; i < n; i++) {
		double f = sw_sim_task_factor(&m.w, j, SW_MAP, i);

		assert_true(f > 0);
		assert_true(f == sw_sim_task_factor(&m.w, j, SW_MAP, i));
		sum += f;
		sq += f * f;
	}
	assert_float_equal(sum / n, 1.0, 0.01);
	assert_float_equal(sqrt(sq / n - (sum / n) * (sum / n)), 0.2, 0.01);
	assert_true(sw_sim_task_factor(&m.w, j, SW_REDUCE, 3) == 1.0);
	m.jobs[1].bench = j->bench;
	assert_true(sw_sim_task_factor(&m.w, j, SW_MAP, 3) !=
	            sw_sim_task_factor(&m.w, &m.jobs[1], SW_MAP, 3));
}

/* The profile is what a profiler records: the min, mean and max of the tasks' own lengths. */
static void the_profile_sees_every_task_s_length(void **state)
{
	struct mix m;
	struct sw_job_desc *j;
	const struct sw_bench *b;
	struct sw_job_profile flat, p;
	uint32_t n;
	double block, sum = 0, lo = INFINITY, hi = 0;

	(void)state;
	make_mix(&m);
	j = &m.jobs[0];
	b = &sw_sim_bench_table(NULL)[j->bench];
	j->input_bytes = 40 * m.w.block_bytes; /* 40 maps of a full block */
	j->n_reduces = 5;
	sw_sim_workload_profile(&m.w, j, &flat);
	m.w.spread[j->bench] = (struct sw_task_spread){.map_cv = 0.2, .reduce_cv = 0.1};
	sw_sim_workload_profile(&m.w, j, &p);
	n = sw_sim_workload_n_maps(&m.w, j);
	assert_int_equal(n, 40);
	block = (double)m.w.block_bytes / b->map_rate;
	for (uint32_t i = 0; i < n; i++) {
		double d = block * sw_sim_task_factor(&m.w, j, SW_MAP, i);

		sum += d;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
	}
	assert_true(flat.map_min == block && flat.map_max == block);
	assert_float_equal(p.map_avg, sum / n, 1e-9 * block);
	assert_true(p.map_min == lo && p.map_max == hi);
	assert_true(p.reduce_max > flat.reduce_avg);
	assert_true(p.reduce_max >= p.reduce_avg);
	/* what the network does is not the spread's */
	assert_true(p.shuffle_avg == flat.shuffle_avg && p.shuffle_max == flat.shuffle_max);
}

/* One job of one map and one reducer on an idle cluster: with a spread it ends later (or
 * sooner) by exactly what its two tasks' factors add to their compute times. */
static void a_run_computes_each_task_for_its_own_length(void **state)
{
	struct mix m;
	struct sw_sim_result flat, spread;
	struct sw_job_desc *j;
	const struct sw_bench *b;
	double fm, fr, want;

	(void)state;
	make_mix(&m);
	m.w.n_jobs = 1;
	j = &m.jobs[0];
	b = &sw_sim_bench_table(NULL)[j->bench];
	j->input_bytes = m.w.block_bytes;
	j->shuffle_bytes = 32 * MB;
	j->output_bytes = 0;
	j->n_reduces = 1;
	run(&m, "fifo", &flat);
	m.w.spread[j->bench] = (struct sw_task_spread){.map_cv = 0.5, .reduce_cv = 0.5};
	run(&m, "fifo", &spread);
	fm = sw_sim_task_factor(&m.w, j, SW_MAP, 0);
	fr = sw_sim_task_factor(&m.w, j, SW_REDUCE, 0);
	assert_true(fm != 1.0 && fr != 1.0);
	want = (fm - 1) * (double)j->input_bytes / b->map_rate +
	       (fr - 1) * (double)j->shuffle_bytes / b->reduce_rate;
	assert_float_equal(spread.jobs[0].finish - flat.jobs[0].finish, want, 1e-6);
	sw_sim_result_free(&flat);
	sw_sim_result_free(&spread);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(factors_are_one_without_spread_and_normal_with_it),
	        cmocka_unit_test(the_profile_sees_every_task_s_length),
	        cmocka_unit_test(a_run_computes_each_task_for_its_own_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
