/* SPDX-License-Identifier: MIT */
/*
 * ShuffleWatcher end to end in the simulator: when a user has many jobs to choose from (the
 * paper's premise), SAMP keeps each job's maps on its preferred rack and SARP then keeps most
 * of the shuffle inside the rack; without SAMP the maps spread over every rack and SARP has
 * nothing to localise. Whole runs, through the scheduler's public API only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sw_sim.h"

#define GIB    (1ULL << 30)
#define N_JOBS 16

struct mix {
	struct sw_workload w;
	struct sw_job_desc jobs[N_JOBS];
};

static uint16_t bench_id(const char *name)
{
	unsigned n;
	const struct sw_bench *t = sw_sim_bench_table(&n);

	for (unsigned i = 0; i < n; i++)
		if (!strcmp(t[i].name, name))
			return (uint16_t)i;
	fail_msg("no benchmark %s", name);
	return 0;
}

/* One user submits 16 shuffle-heavy jobs at once on 4 racks of 4 nodes, 5:1 uplinks: the
 * Figure 5 situation, many times over. */
static void make_mix(struct mix *m)
{
	memset(m, 0, sizeof(*m));
	sw_sim_topology_default(&m->w.topo);
	m->w.topo.n_racks = 4;
	m->w.topo.nodes_per_rack = 4;
	strcpy(m->w.name, "one-user-many-jobs");
	m->w.n_users = 1;
	m->w.n_queues = 1;
	m->w.block_bytes = 64ULL << 20;
	m->w.seed = 3;
	m->w.n_jobs = N_JOBS;
	m->w.jobs = m->jobs;
	for (int i = 0; i < N_JOBS; i++) {
		struct sw_job_desc *j = &m->jobs[i];
		const struct sw_bench *b;

		j->id = i;
		j->arrival = i;
		j->bench = bench_id("selfjoin");
		b = &sw_sim_bench_table(NULL)[j->bench];
		j->input_bytes = 2 * GIB;
		j->shuffle_bytes = (uint64_t)(j->input_bytes * b->shuffle_ratio);
		j->output_bytes = (uint64_t)(j->shuffle_bytes * b->output_ratio);
		j->n_reduces = 4;
	}
}

struct totals {
	double xrack_shuffle, shuffle; /* bytes */
	double maps, maps_in_map_racks;
};

static struct totals run(const struct mix *m, const char *policy)
{
	struct sw_sim_config c;
	struct sw_sim_result r;
	struct sw_input_error err;
	struct totals t = {0};
	int rc;

	sw_sim_config_default(&c);
	c.sched.policy = policy;
	rc = sw_sim_run(&m->w, &c, &r, &err);
	if (rc)
		fail_msg("policy %s: sw_sim_run: %d: %s", policy, rc, err.msg);
	for (size_t i = 0; i < r.n_jobs; i++) {
		t.xrack_shuffle += (double)r.jobs[i].xrack[SW_TRAFFIC_SHUFFLE];
		t.shuffle += (double)r.jobs[i].bytes[SW_TRAFFIC_SHUFFLE];
		t.maps += r.jobs[i].n_maps;
		t.maps_in_map_racks += r.jobs[i].maps_in_map_racks;
	}
	sw_sim_result_free(&r);
	return t;
}

static void sw_fair_keeps_maps_on_samp_racks_when_a_user_has_many_jobs(void **state)
{
	struct mix m;
	struct totals t;

	(void)state;
	make_mix(&m);
	t = run(&m, "sw-fair");
	/* One preferred rack of four: a quarter of the maps would land there by chance. */
	assert_true(t.maps_in_map_racks > 0.5 * t.maps);
}

static void sw_fair_moves_less_shuffle_across_racks_than_fair(void **state)
{
	struct mix m;
	struct totals fair, sw;

	(void)state;
	make_mix(&m);
	fair = run(&m, "fair");
	sw = run(&m, "sw-fair");
	assert_true(sw.shuffle == fair.shuffle);
	/* Spread evenly, 3/4 of a shuffle crosses racks; Fair is close to that. */
	assert_true(fair.xrack_shuffle > 0.6 * fair.shuffle);
	assert_true(sw.xrack_shuffle < 0.8 * fair.xrack_shuffle);
}

static void without_samp_maps_spread_and_sarp_has_little_to_localise(void **state)
{
	struct mix m;
	struct totals fair, sarp;

	(void)state;
	make_mix(&m);
	fair = run(&m, "fair");
	sarp = run(&m, "sw-nass-sarp");
	assert_true(sarp.maps_in_map_racks == 0); /* no SAMP, no preferred map racks */
	assert_true(sarp.xrack_shuffle > 0.9 * fair.xrack_shuffle);
}

/* map_racks of each job of a replay of @p m under sw-fair, ratio history on or off. */
static void samp_racks(const struct mix *m, int history, uint32_t *racks)
{
	struct sw_sim_config c;
	struct sw_sim_result r;
	struct sw_input_error err;

	sw_sim_config_default(&c);
	c.sched.policy = "sw-fair";
	c.ratio_history = history;
	assert_int_equal(sw_sim_run(&m->w, &c, &r, &err), 0);
	for (size_t i = 0; i < r.n_jobs; i++)
		racks[i] = r.jobs[i].map_racks;
	sw_sim_result_free(&r);
}

static void a_program_run_before_is_submitted_with_the_ratio_it_measured(void **state)
{
	struct mix m;
	uint32_t on[2], off[2];

	(void)state;
	make_mix(&m);
	m.w.n_jobs = 2;
	for (int i = 0; i < 2; i++) {
		m.jobs[i].bench = bench_id("grep");
		m.jobs[i].shuffle_bytes = m.jobs[i].input_bytes / 1000;
		m.jobs[i].output_bytes = m.jobs[i].shuffle_bytes;
		m.jobs[i].arrival = i * 3600.0; /* the first has long finished */
	}
	samp_racks(&m, 1, on);
	samp_racks(&m, 0, off);
	/* At 1.0, the paper's initial ratio, SAMP keeps a 2 GiB job on one rack: the shuffle it
	 * would spread weighs as much as the input. grep's measured 0.001 makes the shuffle
	 * negligible, so SAMP takes racks until the remote reads stop falling. */
	assert_int_equal(on[0], 1);
	assert_int_equal(off[0], 1);
	assert_int_equal(off[1], 1);
	assert_true(on[1] > 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sw_fair_keeps_maps_on_samp_racks_when_a_user_has_many_jobs),
	        cmocka_unit_test(sw_fair_moves_less_shuffle_across_racks_than_fair),
	        cmocka_unit_test(without_samp_maps_spread_and_sarp_has_little_to_localise),
	        cmocka_unit_test(a_program_run_before_is_submitted_with_the_ratio_it_measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
