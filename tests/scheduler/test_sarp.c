/* SPDX-License-Identifier: MIT */
/*
 * SARP (ShuffleWatcher Figure 6): preferred reduces per rack from the intermediate data,
 * SAMP's tentative split before MapCompletionThreshold, and Figure 7's example.
 */
#include "sw_fixture.h"

#define GB (1ull << 30)

struct rworld {
	struct fx_cluster c;
	struct sw_sched_config cfg;
	struct sw_sched *s;
	struct fx_job j[2];
	struct swx_net net;
};

static void setup(struct rworld *w, const char *policy, uint32_t racks, uint32_t per_rack)
{
	fx_cluster_init(&w->c, racks, per_rack);
	swx_config(&w->cfg, policy, 1);
	w->s = swx_sched(&w->c, &w->cfg);
	w->net = (struct swx_net){0};
}

/* Cross-rack shuffle of a job whose data is split @p data (GB per rack) when its reduces are
 * split @p reduces: each reduce fetches its share of every other rack's data. */
static double cross_rack_gb(const double *data, const uint32_t *reduces, uint32_t n_racks)
{
	double total = 0, n = 0, cross = 0;

	for (uint32_t r = 0; r < n_racks; r++) {
		total += data[r];
		n += reduces[r];
	}
	for (uint32_t r = 0; r < n_racks; r++)
		cross += reduces[r] / n * (total - data[r]);
	return cross;
}

/*
 * Figure 7: two jobs of 100 GB of intermediate data on two racks, 90 GB of job 1's on rack 0
 * and 90 GB of job 2's on rack 1, 10 reduces each. Spread evenly, each job moves 50 GB
 * across racks; placed by SARP (9 + 1), 18 GB: 64% less.
 */
static void figure7_sarp_cuts_cross_rack_shuffle_by_64_percent(void **state)
{
	static const double data[2][2] = {{90, 10}, {10, 90}};
	uint32_t placed[2][2][2] = {{{0}}}; /* [pass][job][rack] */
	struct rworld w;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		setup(&w, pass ? "fair" : "sw-fair", 2, 8);
		for (int i = 0; i < 2; i++) {
			uint64_t id = (uint64_t)i + 1;

			fx_job_init(&w.j[i], id, 0, i, 10, 10, 16);
			for (uint32_t m = 0; m < 10;
			     m++) /* 9 maps on job i's rack, 1 on the other */
				fx_map_on(&w.j[i], m, 1, (m < 9) == (i == 0) ? m % 8 : 8 + m % 8);
			assert_int_equal(sw_sched_job_add(w.s, &w.j[i].spec, i), 0);
			for (uint32_t m = 0; m < 10; m++) {
				uint32_t node = w.j[i].maps[m].replicas[0];

				swx_run_map(w.s, id, node, 10 * GB, i + 0.1 * m);
			}
		}
		if (!pass) {
			uint32_t red[2];

			swx_view(w.s, 1, 2, NULL, red);
			assert_memory_equal(red, ((uint32_t[]){9, 1}), sizeof(red));
			assert_true(swx_view(w.s, 2, 2, NULL, red).sarp_from_outputs);
			assert_memory_equal(red, ((uint32_t[]){1, 9}), sizeof(red));
			assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 1.0), 1);
			assert_int_equal(swx_util(w.s, &w.c, &w.net, 1, 1.0), 1);
		}
		/* Reduce slots free up on both racks in turn. */
		for (uint32_t k = 0; k < 20; k++) {
			uint32_t node = (k % 2) * 8 + (k / 2) % 8;
			struct sw_assignment a = fx_one(w.s, node, SW_REDUCE, 10 + k);

			placed[pass][a.job - 1][node / 8]++;
		}
		sw_sched_destroy(w.s);
	}
	for (int i = 0; i < 2; i++) {
		double sarp = cross_rack_gb(data[i], placed[0][i], 2);
		double fair = cross_rack_gb(data[i], placed[1][i], 2);

		assert_float_equal(sarp, 18, 1e-9);
		assert_float_equal(fair, 50, 1e-9);
		assert_float_equal(1 - sarp / fair, 0.64, 1e-9);
	}
}

static void before_map_completion_threshold_the_tentative_split_stands(void **state)
{
	struct rworld w;
	uint32_t red[2];

	(void)state;
	setup(&w, "sw-fair", 2, 2);
	fx_job_init(&w.j[0], 1, 0, 0, 20, 4, 4);
	for (uint32_t m = 0; m < 20; m++)
		fx_map_on(&w.j[0], m, 1, m % 2); /* all input on rack 0 */
	assert_int_equal(sw_sched_job_add(w.s, &w.j[0].spec, 0), 0);
	swx_view(w.s, 1, 2, NULL, red);
	assert_memory_equal(red, ((uint32_t[]){4, 0}), sizeof(red)); /* SAMP: rack 0 */
	/* The network is idle: a free reduce slot enables the reduces before any map is done. */
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 1).job, 1);
	assert_true(swx_view(w.s, 1, 2, NULL, NULL).reduces_enabled);
	/* Maps run on rack 1 (line 6) and leave their output there. */
	for (int m = 0; m < 3; m++) {
		swx_run_map(w.s, 1, 2 + (uint32_t)m % 2, 1 * GB, 2 + m);
		swx_view(w.s, 1, 2, NULL, red);
		if (m < 2) { /* ceil(0.15 * 20) = 3 maps */
			assert_false(swx_view(w.s, 1, 2, NULL, NULL).sarp_from_outputs);
			assert_memory_equal(red, ((uint32_t[]){4, 0}), sizeof(red));
		}
	}
	assert_true(swx_view(w.s, 1, 2, NULL, NULL).sarp_from_outputs);
	assert_memory_equal(red, ((uint32_t[]){0, 4}), sizeof(red));
	sw_sched_destroy(w.s);
}

static void preferred_counts_add_up_by_largest_remainder(void **state)
{
	struct rworld w;
	uint32_t red[3];

	(void)state;
	setup(&w, "sw-fair", 3, 1);
	fx_job_init(&w.j[0], 1, 0, 0, 3, 4, 3);
	assert_int_equal(sw_sched_job_add(w.s, &w.j[0].spec, 0), 0);
	swx_run_map(w.s, 1, 0, 3 * GB, 1);
	swx_run_map(w.s, 1, 1, 3 * GB, 2);
	swx_run_map(w.s, 1, 2, 3 * GB, 3); /* map phase complete: SARP on 1:1:1 */
	assert_true(swx_view(w.s, 1, 3, NULL, red).reduces_enabled);
	assert_memory_equal(red, ((uint32_t[]){2, 1, 1}), sizeof(red));
	sw_sched_destroy(w.s);
}

static void outputs_registered_after_their_maps_finish_still_place_reduces(void **state)
{
	struct rworld w;
	struct sw_assignment a[2];
	uint32_t red[2];

	(void)state;
	setup(&w, "sw-fair", 2, 2);
	fx_job_init(&w.j[0], 1, 0, 0, 2, 3, 4);
	fx_map_on(&w.j[0], 0, 2, 0, 2);
	fx_map_on(&w.j[0], 1, 2, 1, 3);
	assert_int_equal(sw_sched_job_add(w.s, &w.j[0].spec, 0), 0);
	swx_view(w.s, 1, 2, NULL, red);
	assert_memory_equal(red, ((uint32_t[]){3, 0}), sizeof(red)); /* SAMP: rack 0 */
	a[0] = fx_one(w.s, 0, SW_MAP, 1);
	a[1] = fx_one(w.s, 2, SW_MAP, 1);
	for (int i = 0; i < 2; i++)
		assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, a[i].task, 2), 0);
	/* Map phase complete, no output yet: enabled on the estimate. */
	assert_false(swx_view(w.s, 1, 2, NULL, NULL).sarp_from_outputs);
	assert_int_equal(sw_sched_map_output(w.s, 1, a[1].task, 2, 5 * GB, 3), 0);
	assert_true(swx_view(w.s, 1, 2, NULL, red).sarp_from_outputs);
	assert_memory_equal(red, ((uint32_t[]){0, 3}), sizeof(red));
	sw_sched_destroy(w.s);
}

static void without_sarp_heavy_reduces_go_by_arrival(void **state)
{
	struct rworld w;

	(void)state;
	setup(&w, "sw-nass", 2, 2);
	for (int i = 0; i < 2; i++) {
		fx_job_init(&w.j[i], (uint64_t)i + 1, 0, i, 2, 1, 4);
		for (uint32_t m = 0; m < 2; m++) /* job 1's data on rack 1, job 2's on rack 0 */
			fx_map_on(&w.j[i], m, 1, i ? m : 2 + m);
		assert_int_equal(sw_sched_job_add(w.s, &w.j[i].spec, i), 0);
		swx_run_map(w.s, (uint64_t)i + 1, i ? 0 : 2, 4 * GB, i + 0.5);
		swx_run_map(w.s, (uint64_t)i + 1, i ? 1 : 3, 4 * GB, i + 0.6);
	}
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 5).job, 1); /* sw-fair would take job 2 */
	sw_sched_destroy(w.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(figure7_sarp_cuts_cross_rack_shuffle_by_64_percent),
	        cmocka_unit_test(before_map_completion_threshold_the_tentative_split_stands),
	        cmocka_unit_test(preferred_counts_add_up_by_largest_remainder),
	        cmocka_unit_test(outputs_registered_after_their_maps_finish_still_place_reduces),
	        cmocka_unit_test(without_sarp_heavy_reduces_go_by_arrival),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
