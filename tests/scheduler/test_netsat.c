/* SPDX-License-Identifier: MIT */
/* NetSat: counters to rates, rates to utilisation, utilisation to NetworkSaturated. */
#include <math.h>

#include "sw_fixture.h"

/* A rack of 2 nodes with a 10 Gb/s uplink; samples every 3 s (one window). */
struct netsat_world {
	struct fx_cluster c;
	struct sw_sched_config cfg;
	struct sw_sched *s;
	struct swx_net net;
};

static void world(struct netsat_world *w, const char *policy)
{
	fx_cluster_init(&w->c, 2, 2);
	swx_config(&w->cfg, policy, 1);
	w->s = swx_sched(&w->c, &w->cfg);
	w->net = (struct swx_net){0};
}

static double utilisation(const struct netsat_world *w, uint32_t rack)
{
	struct sw_net_status st;

	assert_int_equal(sw_sched_net_status(w->s, rack, &st), 0);
	return st.utilisation;
}

static void first_sample_only_sets_a_baseline(void **state)
{
	struct netsat_world w;

	(void)state;
	world(&w, "sw-fair");
	assert_int_equal(sw_sched_net_sample(w.s, 0, 1ull << 40, 1ull << 40, 0), 0);
	assert_true(utilisation(&w, 0) == 0);
	sw_sched_destroy(w.s);
}

static void utilisation_is_larger_direction_rate_over_uplink_capacity(void **state)
{
	struct netsat_world w;
	uint64_t gbit3 = 3 * 1000000000ull / 8; /* 1 Gb/s for 3 s */

	(void)state;
	world(&w, "sw-fair");
	assert_int_equal(sw_sched_net_sample(w.s, 0, 0, 0, 10), 0);
	/* 2 Gb/s out, 9 Gb/s in on a 10 Gb/s uplink: 0.9 > 0.8. */
	assert_int_equal(sw_sched_net_sample(w.s, 0, 2 * gbit3, 9 * gbit3, 13), 1);
	assert_float_equal(utilisation(&w, 0), 0.9, 1e-9);
	assert_int_equal(sw_sched_net_sample(w.s, 0, 9 * gbit3, 16 * gbit3, 16), 0);
	assert_float_equal(utilisation(&w, 0), 0.7, 1e-9);
	/* The other rack saw nothing. */
	assert_true(utilisation(&w, 1) == 0);
	sw_sched_destroy(w.s);
}

static void saturated_only_above_threshold(void **state)
{
	struct netsat_world w;

	(void)state;
	world(&w, "sw-fair");
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.8), 0);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.81), 1);
	sw_sched_destroy(w.s);
	world(&w, "sw-fair");
	w.cfg.nw_saturation_threshold = 0.95;
	sw_sched_destroy(w.s);
	w.s = swx_sched(&w.c, &w.cfg);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.9), 0);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.96), 1);
	sw_sched_destroy(w.s);
}

static void saturated_rack_clears_only_below_threshold_minus_hysteresis(void **state)
{
	struct netsat_world w;

	(void)state;
	world(&w, "sw-fair");
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.9), 1);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.78), 1);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.76), 1);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.74), 0);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.79), 0);
	sw_sched_destroy(w.s);
}

static void samples_inside_a_window_do_not_close_it(void **state)
{
	struct netsat_world w;
	uint64_t full1 = 10 * 1000000000ull / 8; /* 10 Gb/s for 1 s */

	(void)state;
	world(&w, "sw-fair");
	assert_int_equal(sw_sched_net_sample(w.s, 0, 0, 0, 0), 0);
	/* A 1 s burst at line rate would read as 100% over one second; the window is 3 s. */
	assert_int_equal(sw_sched_net_sample(w.s, 0, full1, 0, 1), 0);
	assert_true(utilisation(&w, 0) == 0);
	assert_int_equal(sw_sched_net_sample(w.s, 0, full1, 0, 3), 0);
	assert_float_equal(utilisation(&w, 0), 1.0 / 3, 1e-9);
	sw_sched_destroy(w.s);
}

static void smoothing_averages_windows_exponentially(void **state)
{
	struct netsat_world w;

	(void)state;
	world(&w, "sw-fair");
	w.cfg.netsat_smoothing = 0.5;
	sw_sched_destroy(w.s);
	w.s = swx_sched(&w.c, &w.cfg);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 1.0), 1);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.0), 0); /* 0.5 < 0.75 */
	assert_float_equal(utilisation(&w, 0), 0.5, 1e-9);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 1.0), 0); /* 0.75 is not above 0.8 */
	assert_float_equal(utilisation(&w, 0), 0.75, 1e-9);
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 1.0), 1); /* 0.875 */
	sw_sched_destroy(w.s);
}

static void counters_that_go_backwards_restart_the_baseline(void **state)
{
	struct netsat_world w;

	(void)state;
	world(&w, "sw-fair");
	assert_int_equal(swx_util(w.s, &w.c, &w.net, 0, 0.9), 1);
	/* The agent restarted: its counters start again near zero. */
	assert_int_equal(sw_sched_net_sample(w.s, 0, 5, 0, 9), 1);
	assert_int_equal(sw_sched_net_sample(w.s, 0, 5, 0, 12), 0);
	assert_true(utilisation(&w, 0) == 0);
	sw_sched_destroy(w.s);
}

static void rack_without_uplink_capacity_is_never_saturated(void **state)
{
	struct netsat_world w;

	(void)state;
	fx_cluster_init(&w.c, 2, 2);
	w.c.racks[1].uplink_bps = 0;
	swx_config(&w.cfg, "sw-fair", 1);
	w.s = swx_sched(&w.c, &w.cfg);
	w.net = (struct swx_net){0};
	assert_int_equal(sw_sched_net_sample(w.s, 1, 0, 0, 0), 0);
	assert_int_equal(sw_sched_net_sample(w.s, 1, 1ull << 40, 0, 3), 0);
	sw_sched_destroy(w.s);
}

static void net_sample_rejects_bad_arguments(void **state)
{
	struct netsat_world w;
	struct sw_net_status st;

	(void)state;
	world(&w, "fair"); /* accepted under every policy */
	assert_int_equal(sw_sched_net_sample(NULL, 0, 0, 0, 0), -EINVAL);
	assert_int_equal(sw_sched_net_sample(w.s, 2, 0, 0, 0), -EINVAL);
	assert_int_equal(sw_sched_net_sample(w.s, 0, 0, 0, NAN), -EINVAL);
	assert_int_equal(sw_sched_net_sample(w.s, 0, 0, 0, 5), 0);
	assert_int_equal(sw_sched_net_sample(w.s, 0, 0, 0, 4), -EINVAL);
	assert_int_equal(sw_sched_net_status(w.s, 2, &st), -EINVAL);
	assert_int_equal(sw_sched_net_status(w.s, 0, NULL), -EINVAL);
	sw_sched_destroy(w.s);
}

static void create_rejects_bad_shufflewatcher_settings(void **state)
{
	struct fx_cluster c;
	struct sw_sched_config cfg;

	(void)state;
	fx_cluster_init(&c, 1, 2);
#define REJECTS(field, value)                                \
	do {                                                 \
		swx_config(&cfg, "sw-fair", 1);              \
		cfg.field = value;                           \
		errno = 0;                                   \
		assert_null(sw_sched_create(&c.spec, &cfg)); \
		assert_int_equal(errno, EINVAL);             \
	} while (0)
	REJECTS(nw_saturation_threshold, 0);
	REJECTS(nw_saturation_threshold, NAN);
	REJECTS(netsat_window, 0);
	REJECTS(netsat_smoothing, 0);
	REJECTS(netsat_smoothing, 1.5);
	REJECTS(netsat_hysteresis, 0.8);
	REJECTS(netsat_hysteresis, -0.1);
	REJECTS(map_completion_threshold, 1.1);
	REJECTS(starvation_window, -1);
	REJECTS(relaxed_wait, INFINITY);
	REJECTS(sw_mechanisms, SW_MECH_ALL + 1);
#undef REJECTS
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(first_sample_only_sets_a_baseline),
	        cmocka_unit_test(utilisation_is_larger_direction_rate_over_uplink_capacity),
	        cmocka_unit_test(saturated_only_above_threshold),
	        cmocka_unit_test(saturated_rack_clears_only_below_threshold_minus_hysteresis),
	        cmocka_unit_test(samples_inside_a_window_do_not_close_it),
	        cmocka_unit_test(smoothing_averages_windows_exponentially),
	        cmocka_unit_test(counters_that_go_backwards_restart_the_baseline),
	        cmocka_unit_test(rack_without_uplink_capacity_is_never_saturated),
	        cmocka_unit_test(net_sample_rejects_bad_arguments),
	        cmocka_unit_test(create_rejects_bad_shufflewatcher_settings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
