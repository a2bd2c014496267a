/* SPDX-License-Identifier: MIT */
/* The paper mix generator: class shares, arrivals, sizes and determinism. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "sw_workload.h"

/* Enough jobs that a share is known to about +-0.4% (one standard deviation). */
#define N_JOBS_WANTED 20000

static void generate(struct sw_workload *w, enum sw_paper_mix mix, uint64_t seed)
{
	struct sw_paper_opts o;

	sw_sim_paper_opts_default(&o);
	o.mix = mix;
	o.seed = seed;
	o.duration = N_JOBS_WANTED * o.mean_interarrival;
	assert_int_equal(sw_sim_workload_paper(w, &o), 0);
	assert_true(w->n_jobs > N_JOBS_WANTED * 0.95);
}

/* |observed - expected| within five standard deviations of a binomial share. */
static void assert_share(size_t hits, size_t n, double expected)
{
	double sd = sqrt(expected * (1 - expected) / n);

	assert_true(fabs((double)hits / n - expected) < 5 * sd);
}

static void check_class_shares(enum sw_paper_mix mix, const double percent[SW_CLASSES])
{
	const struct sw_bench *b = sw_sim_bench_table(NULL);
	struct sw_workload w;
	size_t count[SW_CLASSES] = {0};

	generate(&w, mix, 7);
	for (size_t i = 0; i < w.n_jobs; i++)
		count[b[w.jobs[i].bench].cls]++;
	for (int c = 0; c < SW_CLASSES; c++)
		assert_share(count[c], w.n_jobs, percent[c] / 100);
	sw_sim_workload_free(&w);
}

static void mix1_is_20_light_20_medium_60_heavy(void **state)
{
	(void)state;
	check_class_shares(SW_MIX1, (const double[]){20, 20, 60});
}

static void mix2_is_40_light_20_medium_40_heavy(void **state)
{
	(void)state;
	check_class_shares(SW_MIX2, (const double[]){40, 20, 40});
}

static void mix3_is_60_light_20_medium_20_heavy(void **state)
{
	(void)state;
	check_class_shares(SW_MIX3, (const double[]){60, 20, 20});
}

static void mix2_matches_table1_benchmark_shares(void **state)
{
	unsigned n_bench;
	const struct sw_bench *b = sw_sim_bench_table(&n_bench);
	struct sw_workload w;
	size_t count[32] = {0};

	(void)state;
	assert_true(n_bench <= 32);
	generate(&w, SW_MIX2, 11);
	for (size_t i = 0; i < w.n_jobs; i++)
		count[w.jobs[i].bench]++;
	/* Table 1's own percentages are mix2's shares; benchmarks outside it never come. */
	for (unsigned i = 0; i < n_bench; i++) {
		if (b[i].mix_percent > 0)
			assert_share(count[i], w.n_jobs, b[i].mix_percent / 100);
		else
			assert_int_equal(count[i], 0);
	}
	sw_sim_workload_free(&w);
}

static void interarrival_times_average_40_seconds_and_arrive_in_order(void **state)
{
	struct sw_workload w;
	double sum = 0, prev = 0;

	(void)state;
	generate(&w, SW_MIX2, 3);
	for (size_t i = 0; i < w.n_jobs; i++) {
		assert_true(w.jobs[i].arrival >= prev);
		sum += w.jobs[i].arrival - prev;
		prev = w.jobs[i].arrival;
	}
	/* Exponential gaps: standard deviation of the mean is 40 / sqrt(n). */
	assert_true(fabs(sum / w.n_jobs - 40) < 5 * 40 / sqrt(w.n_jobs));
	sw_sim_workload_free(&w);
}

static void input_sizes_follow_table2_scaled_by_input_scale(void **state)
{
	struct sw_workload w;
	size_t small = 0, over_1tb = 0;

	(void)state;
	generate(&w, SW_MIX2, 5);
	for (size_t i = 0; i < w.n_jobs; i++) {
		const struct sw_job_desc *j = &w.jobs[i];

		small += j->input_bytes < 100e6 * 0.1;
		over_1tb += j->input_bytes > 1e12 * 0.1;
		assert_true(j->input_bytes >= 1e6 * 0.1 && j->input_bytes <= 2e12 * 0.1);
	}
	assert_share(small, w.n_jobs, 0.20);
	assert_share(over_1tb, w.n_jobs, 0.05);
	sw_sim_workload_free(&w);
}

static void jobs_have_users_queues_sizes_and_reducers_by_the_rules(void **state)
{
	const struct sw_bench *b = sw_sim_bench_table(NULL);
	struct sw_workload w;

	(void)state;
	generate(&w, SW_MIX1, 9);
	assert_int_equal(w.n_users, 30);
	assert_int_equal(w.n_queues, 3);
	assert_int_equal(w.block_bytes, 64 << 20);
	for (size_t i = 0; i < w.n_jobs; i++) {
		const struct sw_job_desc *j = &w.jobs[i];
		uint64_t want = (j->shuffle_bytes + (1 << 30) - 1) >> 30;

		assert_true(j->user < 30);
		assert_int_equal(j->queue, j->user % 3);
		assert_int_equal(j->shuffle_bytes,
		                 llround(j->input_bytes * b[j->bench].shuffle_ratio));
		assert_int_equal(j->n_reduces, want < 1 ? 1 : want > 200 ? 200 : want);
		assert_true(j->deadline > j->arrival); /* ARIA's rule: tests/sim/test_deadline.c */
	}
	sw_sim_workload_free(&w);
}

static void same_seed_gives_same_jobs_and_other_seed_other_jobs(void **state)
{
	struct sw_workload a, b, c;

	(void)state;
	generate(&a, SW_MIX2, 42);
	generate(&b, SW_MIX2, 42);
	generate(&c, SW_MIX2, 43);
	assert_int_equal(a.n_jobs, b.n_jobs);
	assert_memory_equal(a.jobs, b.jobs, a.n_jobs * sizeof(a.jobs[0]));
	assert_true(a.n_jobs != c.n_jobs ||
	            memcmp(a.jobs, c.jobs, a.n_jobs * sizeof(a.jobs[0])) != 0);
	sw_sim_workload_free(&a);
	sw_sim_workload_free(&b);
	sw_sim_workload_free(&c);
}

static void default_run_is_the_papers_four_hours_of_about_360_jobs(void **state)
{
	struct sw_paper_opts o;
	struct sw_workload w;

	(void)state;
	sw_sim_paper_opts_default(&o);
	assert_int_equal(sw_sim_workload_paper(&w, &o), 0);
	assert_string_equal(w.name, "paper-mix2");
	/* 14400 s / 40 s = 360 jobs, 12 per user; Poisson sd is 19. */
	assert_true(w.n_jobs > 360 - 5 * 19 && w.n_jobs < 360 + 5 * 19);
	assert_int_equal(w.topo.n_racks * w.topo.nodes_per_rack, 100);
	sw_sim_workload_free(&w);
}

static void out_of_range_options_are_rejected(void **state)
{
	struct sw_paper_opts o;
	struct sw_workload w;

	(void)state;
	sw_sim_paper_opts_default(&o);
	o.mix = 4;
	assert_int_equal(sw_sim_workload_paper(&w, &o), -EINVAL);
	sw_sim_paper_opts_default(&o);
	o.n_users = 0;
	assert_int_equal(sw_sim_workload_paper(&w, &o), -EINVAL);
	sw_sim_paper_opts_default(&o);
	o.mean_interarrival = 0;
	assert_int_equal(sw_sim_workload_paper(&w, &o), -EINVAL);
	sw_sim_paper_opts_default(&o);
	o.input_scale = -1;
	assert_int_equal(sw_sim_workload_paper(&w, &o), -EINVAL);
	assert_int_equal(w.n_jobs, 0);
	assert_null(w.jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(mix1_is_20_light_20_medium_60_heavy),
	        cmocka_unit_test(mix2_is_40_light_20_medium_40_heavy),
	        cmocka_unit_test(mix3_is_60_light_20_medium_20_heavy),
	        cmocka_unit_test(mix2_matches_table1_benchmark_shares),
	        cmocka_unit_test(interarrival_times_average_40_seconds_and_arrive_in_order),
	        cmocka_unit_test(input_sizes_follow_table2_scaled_by_input_scale),
	        cmocka_unit_test(jobs_have_users_queues_sizes_and_reducers_by_the_rules),
	        cmocka_unit_test(same_seed_gives_same_jobs_and_other_seed_other_jobs),
	        cmocka_unit_test(default_run_is_the_papers_four_hours_of_about_360_jobs),
	        cmocka_unit_test(out_of_range_options_are_rejected),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
