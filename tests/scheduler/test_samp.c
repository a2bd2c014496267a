/* SPDX-License-Identifier: MIT */
/*
 * SAMP (ShuffleWatcher Figure 4): which racks a job's maps prefer, on hand-built placements,
 * including Figure 5's two jobs whose data sits on both racks. Maps are 128 MiB; a map's
 * replicas are set per test. Two racks of two nodes (4 map slots each) unless said.
 */
#include "sw_fixture.h"

struct sworld {
	struct fx_cluster c;
	struct sw_sched_config cfg;
	struct sw_sched *s;
	struct fx_job j[2];
	struct sw_job_profile p[2];
};

static void setup(struct sworld *w, const char *policy, uint32_t racks, uint32_t per_rack)
{
	fx_cluster_init(&w->c, racks, per_rack);
	swx_config(&w->cfg, policy, 1);
	w->s = swx_sched(&w->c, &w->cfg);
}

/* Job i (id i + 1) whose map m has its one replica on nodes[m]; ratio 0 = no profile. */
static void add(struct sworld *w, int i, double ratio, uint32_t n_reduces, uint32_t n_maps,
                const uint32_t *nodes)
{
	fx_job_init(&w->j[i], (uint64_t)i + 1, 0, i, n_maps, n_reduces, w->c.spec.n_nodes);
	for (uint32_t m = 0; m < n_maps; m++)
		fx_map_on(&w->j[i], m, 1, nodes[m]);
	if (ratio > 0)
		swx_ratio(&w->j[i], &w->p[i], ratio);
	assert_int_equal(sw_sched_job_add(w->s, &w->j[i].spec, i), 0);
}

static void figure5_jobs_with_data_on_both_racks_prefer_one_rack_each(void **state)
{
	struct sworld w;
	uint8_t racks[2];
	uint32_t red[2];
	int on_rack[2][2] = {{0}};

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		setup(&w, pass ? "fair" : "sw-fair", 2, 2);
		for (int i = 0; i < 2; i++) {
			fx_job_init(&w.j[i], (uint64_t)i + 1, 0, i, 4, 2, 4);
			for (uint32_t m = 0; m < 4; m++) /* every map on both racks */
				fx_map_on(&w.j[i], m, 2, (uint32_t)i, (uint32_t)i + 2);
			assert_int_equal(sw_sched_job_add(w.s, &w.j[i].spec, i), 0);
		}
		if (!pass) {
			assert_int_equal(swx_view(w.s, 1, 2, racks, red).n_map_racks, 1);
			assert_memory_equal(racks, ((uint8_t[]){1, 0}), 2);
			assert_memory_equal(red, ((uint32_t[]){2, 0}), sizeof(red));
			swx_view(w.s, 2, 2, racks, red);
			assert_memory_equal(racks, ((uint8_t[]){0, 1}), 2);
			assert_memory_equal(red, ((uint32_t[]){0, 2}), sizeof(red));
		}
		/* Nodes free up evenly on both racks, as in the figure. */
		for (int k = 0; k < 8; k++) {
			uint32_t node = (uint32_t)(k % 4);
			struct sw_assignment a = fx_one(w.s, node, SW_MAP, 2 + k);

			on_rack[pass][a.job - 1] += node / 2 == 0; /* maps each job ran on rack 0 */
		}
		sw_sched_destroy(w.s);
	}
	/* ShuffleWatcher: all of job 1's map output on rack 0, all of job 2's on rack 1. */
	assert_int_equal(on_rack[0][0], 4);
	assert_int_equal(on_rack[0][1], 0);
	/* Fair's locality pick spreads job 1 over both racks. */
	assert_true(on_rack[1][0] > 0 && on_rack[1][0] < 4);
}

static void remote_maps_are_accepted_when_they_save_more_shuffle(void **state)
{
	static const uint32_t nodes[] = {0, 0, 1, 2};
	struct sworld w;
	uint8_t racks[2];
	uint32_t red[2];

	(void)state;
	setup(&w, "sw-fair", 2, 2);
	add(&w, 0, 2.0, 4, 4, nodes); /* rack 0 alone: 1 remote map < 4 maps' shuffle / 2 */
	swx_view(w.s, 1, 2, racks, red);
	assert_memory_equal(racks, ((uint8_t[]){1, 0}), 2);
	assert_memory_equal(red, ((uint32_t[]){4, 0}), sizeof(red));
	sw_sched_destroy(w.s);
}

static void remote_maps_are_refused_when_the_shuffle_is_light(void **state)
{
	static const uint32_t nodes[] = {0, 0, 1, 2};
	struct sworld w;
	uint8_t racks[2];
	uint32_t red[2];

	(void)state;
	setup(&w, "sw-fair", 2, 2);
	add(&w, 0, 0.1, 4, 4, nodes); /* 0.1 * 4 maps / 2 crossing < 1 remote map */
	swx_view(w.s, 1, 2, racks, red);
	assert_memory_equal(racks, ((uint8_t[]){1, 1}), 2);
	assert_memory_equal(red, ((uint32_t[]){2, 2}), sizeof(red));
	sw_sched_destroy(w.s);
}

static void racks_join_by_input_held_while_traffic_falls(void **state)
{
	/* Rack 2 holds 5 maps, rack 0 four, rack 1 one. With ratio 0.7 the estimate is 5 maps
	 * remote for {2}, 1 + 5 * 0.7 = 4.5 for {2, 0}, 10 * 0.7 * 2/3 = 4.67 for all three. */
	static const uint32_t nodes[] = {4, 4, 5, 5, 4, 0, 0, 1, 1, 2};
	struct sworld w;
	uint8_t racks[3];
	uint32_t red[3];

	(void)state;
	setup(&w, "sw-fair", 3, 2);
	add(&w, 0, 0.7, 6, 10, nodes);
	assert_int_equal(swx_view(w.s, 1, 3, racks, red).n_map_racks, 2);
	assert_memory_equal(racks, ((uint8_t[]){1, 0, 1}), 3);
	assert_memory_equal(red, ((uint32_t[]){3, 0, 3}), sizeof(red));
	sw_sched_destroy(w.s);
}

static void replicas_are_chosen_before_any_remote_map(void **state)
{
	struct sworld w;
	uint8_t racks[2];
	struct sw_assignment a;

	(void)state;
	setup(&w, "sw-fair", 2, 2);
	fx_job_init(&w.j[0], 1, 0, 0, 2, 1, 4);
	fx_map_on(&w.j[0], 0, 2, 0, 2);
	fx_map_on(&w.j[0], 1, 2, 1, 3);
	swx_ratio(&w.j[0], &w.p[0], 2.0);
	assert_int_equal(sw_sched_job_add(w.s, &w.j[0].spec, 0), 0);
	swx_view(w.s, 1, 2, racks, NULL);
	assert_memory_equal(racks, ((uint8_t[]){1, 0}), 2);
	a = fx_one(w.s, 0, SW_MAP, 1);
	assert_int_equal(a.locality, SW_LOCALITY_NODE);
	a = fx_one(w.s, 0, SW_MAP, 1);
	assert_int_equal(a.locality, SW_LOCALITY_RACK); /* the rack-0 replica of map 1 */
	assert_int_equal(a.src_node, 1);
	sw_sched_destroy(w.s);
}

static void without_samp_no_rack_is_preferred_and_reduces_follow_the_input(void **state)
{
	static const uint32_t nodes[] = {0, 0, 1, 2};
	struct sworld w;
	uint8_t racks[2];
	uint32_t red[2];

	(void)state;
	setup(&w, "sw-nass-sarp", 2, 2);
	add(&w, 0, 2.0, 4, 4, nodes);
	assert_int_equal(swx_view(w.s, 1, 2, racks, red).n_map_racks, 0);
	assert_memory_equal(racks, ((uint8_t[]){0, 0}), 2);
	assert_memory_equal(red, ((uint32_t[]){3, 1}), sizeof(red));
	sw_sched_destroy(w.s);
	/* The config can switch SAMP off under sw-fair as well. */
	fx_cluster_init(&w.c, 2, 2);
	swx_config(&w.cfg, "sw-fair", 1);
	w.cfg.sw_mechanisms = SW_MECH_ALL & ~(unsigned)SW_MECH_SAMP;
	w.s = swx_sched(&w.c, &w.cfg);
	add(&w, 0, 2.0, 4, 4, nodes);
	assert_int_equal(swx_view(w.s, 1, 2, NULL, NULL).n_map_racks, 0);
	sw_sched_destroy(w.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(figure5_jobs_with_data_on_both_racks_prefer_one_rack_each),
	        cmocka_unit_test(remote_maps_are_accepted_when_they_save_more_shuffle),
	        cmocka_unit_test(remote_maps_are_refused_when_the_shuffle_is_light),
	        cmocka_unit_test(racks_join_by_input_held_while_traffic_falls),
	        cmocka_unit_test(replicas_are_chosen_before_any_remote_map),
	        cmocka_unit_test(without_samp_no_rack_is_preferred_and_reduces_follow_the_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
