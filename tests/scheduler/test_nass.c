/* SPDX-License-Identifier: MIT */
/*
 * NASS (ShuffleWatcher Figure 3): each preference line, on a rack that is saturated and on
 * one that is not, the starvation window, relaxed fairness and the shuffle-input ratio.
 * Cluster: rack 0 = nodes 0, 1; rack 1 = nodes 2, 3. Jobs are shuffle-heavy (ratio 2) or
 * light (0.5) by profile unless a test says otherwise.
 */
#include "sw_fixture.h"

#define HEAVY 2.0
#define LIGHT 0.5

struct nworld {
	struct fx_cluster c;
	struct sw_sched_config cfg;
	struct sw_sched *s;
	struct fx_job j[4];
	struct sw_job_profile p[4];
	struct swx_net net;
};

static void setup(struct nworld *w, const char *policy, uint32_t n_users)
{
	fx_cluster_init(&w->c, 2, 2);
	swx_config(&w->cfg, policy, n_users);
	w->s = swx_sched(&w->c, &w->cfg);
	w->net = (struct swx_net){0};
}

/* Job i (id i + 1) with one map per entry of @p nodes, its only replica there. */
static void add(struct nworld *w, int i, uint32_t user, double arrival, double ratio,
                uint32_t n_reduces, uint32_t n_maps, const uint32_t *nodes)
{
	fx_job_init(&w->j[i], (uint64_t)i + 1, user, arrival, n_maps, n_reduces, 4);
	for (uint32_t m = 0; m < n_maps; m++)
		fx_map_on(&w->j[i], m, 1, nodes[m]);
	if (ratio > 0)
		swx_ratio(&w->j[i], &w->p[i], ratio);
	assert_int_equal(sw_sched_job_add(w->s, &w->j[i].spec, arrival), 0);
}

static void saturate(struct nworld *w, uint32_t rack)
{
	assert_int_equal(swx_util(w->s, &w->c, &w->net, rack, 1.0), 1);
}

/* --- map slots: lines 4-6 (and 16-18, the same order) --- */

static void map_of_job_preferring_the_rack_beats_earlier_jobs_local_map(void **state)
{
	static const uint32_t a[] = {2, 2, 2, 0}, b[] = {1, 1};
	struct nworld w;
	struct sw_assignment x;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 4, a); /* SAMP: rack 1 */
	add(&w, 1, 0, 1, HEAVY, 1, 2, b); /* SAMP: rack 0 */
	x = fx_one(w.s, 0, SW_MAP, 2);
	assert_int_equal(x.job, 2); /* line 4, although job 1 has a node-local map here */
	assert_int_equal(x.locality, SW_LOCALITY_RACK);
	assert_int_equal(x.src_node, 1);
	sw_sched_destroy(w.s);

	setup(&w, "fair", 1); /* Fair's locality pick: the earliest job's best map */
	add(&w, 0, 0, 0, HEAVY, 1, 4, a);
	add(&w, 1, 0, 1, HEAVY, 1, 2, b);
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 2).job, 1);
	sw_sched_destroy(w.s);
}

static void local_map_of_any_job_beats_remote_map_of_earlier_job(void **state)
{
	static const uint32_t a[] = {2, 2}, b[] = {3, 3, 3, 0};
	struct nworld w;
	struct sw_assignment x;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a); /* rack 1 only */
	add(&w, 1, 0, 1, HEAVY, 1, 4, b); /* SAMP: rack 1; map 3 is node-local to node 0 */
	x = fx_one(w.s, 0, SW_MAP, 2);
	assert_int_equal(x.job, 2); /* line 5 */
	assert_int_equal(x.task, 3);
	assert_int_equal(x.locality, SW_LOCALITY_NODE);
	sw_sched_destroy(w.s);
}

static void remote_map_goes_to_earliest_job_when_nothing_is_local(void **state)
{
	static const uint32_t a[] = {2, 3}, b[] = {3, 2};
	struct nworld w;
	struct sw_assignment x;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a);
	add(&w, 1, 0, 1, LIGHT, 1, 2, b);
	x = fx_one(w.s, 0, SW_MAP, 2); /* line 6 */
	assert_int_equal(x.job, 1);
	assert_int_equal(x.locality, SW_LOCALITY_REMOTE);
	sw_sched_destroy(w.s);
}

static void map_lines_are_the_same_on_a_saturated_rack(void **state)
{
	static const uint32_t a[] = {2, 2, 2, 0}, b[] = {1, 1};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 4, a);
	add(&w, 1, 0, 1, HEAVY, 1, 2, b);
	saturate(&w, 0);
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 2).job, 2); /* line 4 */
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 2).job, 2);
	assert_int_equal(fx_one(w.s, 1, SW_MAP, 2).job, 1); /* line 5: job 1's map on node 0 */
	sw_sched_destroy(w.s);
}

static void planned_remote_map_on_preferred_rack_beats_other_jobs_local_map(void **state)
{
	static const uint32_t b[] = {0, 0, 0, 3}, a[] = {2, 2, 0};
	struct nworld w;
	struct sw_assignment x;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 1, 0, 0, HEAVY, 1, 4, b); /* job 2, SAMP: rack 0; its map 3 is on node 3 */
	add(&w, 0, 0, 1, HEAVY, 1, 3, a); /* job 1, SAMP: rack 1; its map 2 planned remote */
	assert_int_equal(fx_one(w.s, 2, SW_MAP, 2).job, 1);
	assert_int_equal(fx_one(w.s, 2, SW_MAP, 2).job, 1);
	x = fx_one(w.s, 3, SW_MAP, 2);
	assert_int_equal(x.job, 1); /* line 4, before job 2's node-local map (line 5) */
	assert_int_equal(x.task, 2);
	assert_int_equal(x.locality, SW_LOCALITY_REMOTE);
	assert_int_equal(x.src_node, 0);
	sw_sched_destroy(w.s);
}

/* --- reduce slots, rack not saturated: lines 13-15 --- */

static void unsaturated_heavy_reduce_preferred_by_sarp_goes_first(void **state)
{
	static const uint32_t a[] = {2, 2}, b[] = {0, 0};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 2, 2, a);                      /* reduces tentatively on rack 1 */
	add(&w, 1, 0, 1, HEAVY, 2, 2, b);                      /* reduces tentatively on rack 0 */
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).job, 2); /* line 13 */
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).job, 2);
	/* Job 2's two reduces are placed; job 1 is heavy: line 14. */
	assert_int_equal(fx_one(w.s, 1, SW_REDUCE, 2).job, 1);
	sw_sched_destroy(w.s);
}

static void unsaturated_any_heavy_reduce_beats_earlier_light_one(void **state)
{
	static const uint32_t a[] = {0, 0}, b[] = {2, 2};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, LIGHT, 2, 2, a);
	add(&w, 1, 0, 1, HEAVY, 2, 2, b);                      /* prefers rack 1 */
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).job, 2); /* line 14 */
	sw_sched_destroy(w.s);
}

static void unsaturated_light_reduces_go_by_arrival(void **state)
{
	static const uint32_t a[] = {2, 2}, b[] = {0, 0};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, LIGHT, 1, 2, a);
	add(&w, 1, 0, 1, LIGHT, 1, 2, b);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).job, 1); /* line 15 */
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).job, 2);
	sw_sched_destroy(w.s);
}

/* --- reduce slots, rack saturated: lines 7-9 --- */

static void saturated_light_reduce_goes_before_heavy_preferred_one(void **state)
{
	static const uint32_t a[] = {0}, b[] = {2};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 2, 1, a);
	swx_run_map(w.s, 1, 0, 1ull << 30, 1); /* map phase done: enabled, SARP: rack 0 */
	add(&w, 1, 0, 2, LIGHT, 1, 1, b);
	swx_run_map(w.s, 2, 2, 1ull << 20, 3); /* no map left to run */
	saturate(&w, 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 5).job, 2); /* line 7 */
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 5).job, 1); /* line 8 */
	sw_sched_destroy(w.s);
}

static void saturated_heavy_reduce_goes_where_sarp_wants_more(void **state)
{
	static const uint32_t a[] = {2}, b[] = {0};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 1, a);
	swx_run_map(w.s, 1, 2, 1ull << 30, 1); /* output on rack 1 */
	add(&w, 1, 0, 2, HEAVY, 1, 1, b);
	swx_run_map(w.s, 2, 0, 1ull << 30, 3); /* output on rack 0 */
	saturate(&w, 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 5).job, 2); /* line 8 */
	/* Job 1's single reduce belongs on rack 1, and the user has no map left: line 9. */
	assert_int_equal(fx_one(w.s, 1, SW_REDUCE, 5).job, 1);
	sw_sched_destroy(w.s);
}

static void saturated_heavy_reduce_waits_while_user_has_maps_to_run(void **state)
{
	static const uint32_t a[] = {2}, c[] = {3, 3};
	struct nworld w;
	struct sw_assignment x[2];

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 1, a);
	swx_run_map(w.s, 1, 2, 1ull << 30, 1); /* SARP: rack 1 */
	add(&w, 1, 0, 2, LIGHT, 0, 2, c);      /* maps only */
	saturate(&w, 0);
	assert_int_equal(fx_offer(w.s, 0, SW_REDUCE, 2, 5, x), 0);
	assert_int_equal(fx_offer(w.s, 3, SW_MAP, 2, 5, x), 2);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 6).job, 1); /* nothing else can run: line 9 */
	sw_sched_destroy(w.s);
}

static void light_reduce_waits_on_saturated_rack_while_user_has_maps(void **state)
{
	static const uint32_t a[] = {2, 2};
	struct nworld w;
	struct sw_assignment x[2];

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, LIGHT, 1, 2, a);
	saturate(&w, 0);
	/* Lines 4-6 come before line 7: a map is pending, so the shuffle waits. */
	assert_int_equal(fx_offer(w.s, 0, SW_REDUCE, 1, 5, x), 0);
	assert_int_equal(fx_offer(w.s, 2, SW_MAP, 2, 5, x), 2);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 6).job, 1); /* line 7 */
	sw_sched_destroy(w.s);
}

static void later_window_maps_do_not_hold_earlier_window_reduces(void **state)
{
	static const uint32_t a[] = {2}, b[] = {3, 3};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1); /* window 600 s */
	add(&w, 0, 0, 0, HEAVY, 1, 1, a);
	swx_run_map(w.s, 1, 2, 1ull << 30, 1);
	add(&w, 1, 0, 700, HEAVY, 1, 2, b); /* the next window: its maps come after job 1 */
	saturate(&w, 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 701).job, 1);
	sw_sched_destroy(w.s);
}

static void heavy_shuffle_does_not_begin_on_saturated_rack(void **state)
{
	static const uint32_t a[] = {0, 0, 0};
	struct nworld w;
	struct sw_assignment x[2];

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 2, 3, a); /* tentatively prefers rack 0, maps pending */
	saturate(&w, 0);
	assert_int_equal(fx_offer(w.s, 0, SW_REDUCE, 1, 5, x), 0);
	assert_int_equal(swx_view(w.s, 1, 2, NULL, NULL).reduces_enabled, 0);
	assert_int_equal(fx_one(w.s, 2, SW_REDUCE, 5).job, 1); /* rack 1 is not saturated */
	assert_int_equal(swx_view(w.s, 1, 2, NULL, NULL).reduces_enabled, 1);
	/* Enabled by the idle rack, still held on the saturated one while maps are pending. */
	assert_int_equal(fx_offer(w.s, 0, SW_REDUCE, 1, 6, x), 0);
	assert_int_equal(fx_offer(w.s, 0, SW_MAP, 2, 6, x), 2);
	assert_int_equal(fx_offer(w.s, 1, SW_MAP, 1, 6, x), 1);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 7).job, 1);
	sw_sched_destroy(w.s);
}

static void refused_reduce_slot_goes_to_next_user_in_fair_order(void **state)
{
	static const uint32_t a[] = {2, 2}, b[] = {2};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 2);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a); /* user 0: heavy, maps pending, prefers rack 1 */
	add(&w, 1, 1, 1, LIGHT, 1, 0, b); /* user 1: light, no map to run */
	saturate(&w, 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 5).job, 2);
	sw_sched_destroy(w.s);

	setup(&w, "fair", 2); /* Fair: user 0 first (tie on running reduces, lower id) */
	add(&w, 0, 0, 0, HEAVY, 1, 2, a);
	add(&w, 1, 1, 1, LIGHT, 1, 1, b);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 5).job, 1);
	sw_sched_destroy(w.s);
}

/* --- starvation window, relaxed fairness, ratio --- */

static void earlier_window_job_overrides_preference_lines(void **state)
{
	static const uint32_t a[] = {2, 3}, b[] = {0, 1};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a);   /* window 0, remote for rack 0 */
	add(&w, 1, 0, 700, HEAVY, 1, 2, b); /* window 1, prefers rack 0 */
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 700).job, 1);
	sw_sched_destroy(w.s);

	fx_cluster_init(&w.c, 2, 2);
	swx_config(&w.cfg, "sw-fair", 1);
	w.cfg.starvation_window = 0; /* off: line 4 wins */
	w.s = swx_sched(&w.c, &w.cfg);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a);
	add(&w, 1, 0, 700, HEAVY, 1, 2, b);
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 700).job, 2);
	sw_sched_destroy(w.s);
}

static void jobs_in_one_window_still_follow_the_lines(void **state)
{
	static const uint32_t a[] = {2, 3}, b[] = {0, 1};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a);
	add(&w, 1, 0, 599, HEAVY, 1, 2, b); /* same 600 s window */
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 599).job, 2);
	sw_sched_destroy(w.s);
}

static void relaxed_user_is_passed_over_for_remote_map_until_wait_ends(void **state)
{
	static const uint32_t a[] = {2, 3}, b[] = {0, 1, 0, 1};
	struct nworld w;
	struct sw_assignment x;

	(void)state;
	setup(&w, "sw-relaxed", 2);
	add(&w, 0, 0, 0, HEAVY, 1, 2, a); /* user 0: only remote maps for rack 0 */
	add(&w, 1, 1, 0, LIGHT, 1, 4, b); /* user 1: local maps on rack 0 */
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 0).job, 2);
	assert_int_equal(fx_one(w.s, 1, SW_MAP, 4).job, 2);
	x = fx_one(w.s, 1, SW_MAP, 5); /* user 0 has been passed over for 5 s */
	assert_int_equal(x.job, 1);
	assert_int_equal(x.locality, SW_LOCALITY_REMOTE);
	sw_sched_destroy(w.s);

	setup(&w, "sw-fair", 2); /* strict fairness: user 0 takes the remote map at once */
	add(&w, 0, 0, 0, HEAVY, 1, 2, a);
	add(&w, 1, 1, 0, LIGHT, 1, 4, b);
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 0).job, 1);
	sw_sched_destroy(w.s);
}

static void shuffle_input_ratio_starts_at_one_and_follows_outputs(void **state)
{
	static const uint32_t a[] = {0, 0, 0, 0};
	struct nworld w;
	struct sw_job_shuffle st;
	uint64_t in = 128 << 20;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, 0, 1, 4, a); /* no profile */
	st = swx_view(w.s, 1, 2, NULL, NULL);
	assert_float_equal(st.shuffle_input_ratio, 1.0, 0);
	assert_false(st.heavy); /* heavy means above 1.0 */
	swx_run_map(w.s, 1, 0, in / 2, 1);
	assert_float_equal(swx_view(w.s, 1, 2, NULL, NULL).shuffle_input_ratio, 0.5, 1e-12);
	swx_run_map(w.s, 1, 0, 7 * in / 2, 2);
	st = swx_view(w.s, 1, 2, NULL, NULL);
	assert_float_equal(st.shuffle_input_ratio, 2.0, 1e-12);
	assert_true(st.heavy);
	sw_sched_destroy(w.s);
}

static void profile_ratio_is_kept_whatever_the_outputs(void **state)
{
	static const uint32_t a[] = {0, 0};
	struct nworld w;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, 3.0, 1, 2, a);
	swx_run_map(w.s, 1, 0, 1, 1);
	assert_float_equal(swx_view(w.s, 1, 2, NULL, NULL).shuffle_input_ratio, 3.0, 0);
	sw_sched_destroy(w.s);
}

static void stats_count_launches_per_line_and_rack_state(void **state)
{
	static const uint32_t a[] = {2, 2, 2, 0}, b[] = {1, 1};
	struct nworld w;
	struct sw_nass_stats st;

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, HEAVY, 1, 4, a);
	add(&w, 1, 0, 1, HEAVY, 1, 2, b);
	fx_one(w.s, 0, SW_MAP, 2); /* line 4, idle rack */
	saturate(&w, 0);
	fx_one(w.s, 0, SW_MAP, 5); /* line 4, saturated */
	fx_one(w.s, 1, SW_MAP, 5); /* line 5, saturated */
	assert_int_equal(sw_sched_nass_stats(w.s, &st), 0);
	assert_int_equal(st.launched[0][SW_LINE_PREFERRED_MAP], 1);
	assert_int_equal(st.launched[1][SW_LINE_PREFERRED_MAP], 1);
	assert_int_equal(st.launched[1][SW_LINE_LOCAL_MAP], 1);
	assert_int_equal(st.launched[0][SW_LINE_LOCAL_MAP] + st.launched[1][SW_LINE_ANY_MAP], 0);
	assert_int_equal(sw_sched_nass_stats(w.s, NULL), -EINVAL);
	sw_sched_destroy(w.s);
	setup(&w, "fair", 1);
	assert_int_equal(sw_sched_nass_stats(w.s, &st), -EOPNOTSUPP);
	sw_sched_destroy(w.s);
}

static void job_shuffle_view_rejects_bad_calls(void **state)
{
	static const uint32_t a[] = {0};
	struct nworld w;
	struct sw_job_shuffle st;
	uint8_t racks[2];

	(void)state;
	setup(&w, "sw-fair", 1);
	add(&w, 0, 0, 0, 0, 1, 1, a);
	assert_int_equal(sw_sched_job_shuffle(w.s, 9, &st, NULL, NULL, 0), -ENOENT);
	assert_int_equal(sw_sched_job_shuffle(w.s, 1, NULL, NULL, NULL, 0), -EINVAL);
	assert_int_equal(sw_sched_job_shuffle(w.s, 1, &st, racks, NULL, 3), -EINVAL);
	sw_sched_destroy(w.s);
	setup(&w, "fair", 1);
	add(&w, 0, 0, 0, 0, 1, 1, a);
	assert_int_equal(sw_sched_job_shuffle(w.s, 1, &st, NULL, NULL, 0), -EOPNOTSUPP);
	sw_sched_destroy(w.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(map_of_job_preferring_the_rack_beats_earlier_jobs_local_map),
	        cmocka_unit_test(local_map_of_any_job_beats_remote_map_of_earlier_job),
	        cmocka_unit_test(remote_map_goes_to_earliest_job_when_nothing_is_local),
	        cmocka_unit_test(map_lines_are_the_same_on_a_saturated_rack),
	        cmocka_unit_test(planned_remote_map_on_preferred_rack_beats_other_jobs_local_map),
	        cmocka_unit_test(unsaturated_heavy_reduce_preferred_by_sarp_goes_first),
	        cmocka_unit_test(unsaturated_any_heavy_reduce_beats_earlier_light_one),
	        cmocka_unit_test(unsaturated_light_reduces_go_by_arrival),
	        cmocka_unit_test(saturated_light_reduce_goes_before_heavy_preferred_one),
	        cmocka_unit_test(saturated_heavy_reduce_goes_where_sarp_wants_more),
	        cmocka_unit_test(saturated_heavy_reduce_waits_while_user_has_maps_to_run),
	        cmocka_unit_test(light_reduce_waits_on_saturated_rack_while_user_has_maps),
	        cmocka_unit_test(later_window_maps_do_not_hold_earlier_window_reduces),
	        cmocka_unit_test(heavy_shuffle_does_not_begin_on_saturated_rack),
	        cmocka_unit_test(refused_reduce_slot_goes_to_next_user_in_fair_order),
	        cmocka_unit_test(earlier_window_job_overrides_preference_lines),
	        cmocka_unit_test(jobs_in_one_window_still_follow_the_lines),
	        cmocka_unit_test(relaxed_user_is_passed_over_for_remote_map_until_wait_ends),
	        cmocka_unit_test(shuffle_input_ratio_starts_at_one_and_follows_outputs),
	        cmocka_unit_test(profile_ratio_is_kept_whatever_the_outputs),
	        cmocka_unit_test(stats_count_launches_per_line_and_rack_state),
	        cmocka_unit_test(job_shuffle_view_rejects_bad_calls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
