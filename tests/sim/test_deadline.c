/* SPDX-License-Identifier: MIT */
/*
 * Deadlines in the simulator: the paper mixes get ARIA's U[1, 3] x T rule, a job whose
 * deadline the cluster cannot meet is refused and recorded as such, and MinEDF lets a small
 * job with a deadline through a large one that FIFO makes it wait behind; ShuffleWatcher
 * combined with a deadline policy holds a heavy job's reduces back only while its maps wait;
 * a transactional load's f(t) (read from a file) takes its share of every node's slots.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sw_sched_aria.h"
#include "sw_sim.h"

#define MB (1ULL << 20)

struct mix {
	struct sw_workload w;
	struct sw_job_desc jobs[2];
};

/* ARIA's @p bound of @p j on every slot of the mix's cluster. */
static double t_bound(const struct sw_workload *w, const struct sw_job_desc *j,
                      enum sw_aria_bound bound)
{
	uint32_t nodes = w->topo.n_racks * w->topo.nodes_per_rack;
	struct sw_job_profile p;
	struct sw_aria_model m;

	sw_sim_workload_profile(w, j, &p);
	assert_int_equal(
	        sw_sched_aria_model(&p, sw_sim_workload_n_maps(w, j), j->n_reduces, bound, &m), 0);
	return sw_sched_aria_time(&m, nodes * w->topo.map_slots, nodes * w->topo.reduce_slots);
}

static double t_whole_cluster(const struct sw_workload *w, const struct sw_job_desc *j)
{
	return t_bound(w, j, SW_ARIA_AVG);
}

/* Two racks of four nodes; job 0 is large (300 maps), job 1 small (8 maps) arrives 20 s
 * later. Grep: light shuffle, so the maps dominate. */
static void make_mix(struct mix *m)
{
	memset(m, 0, sizeof(*m));
	sw_sim_topology_default(&m->w.topo);
	m->w.topo.n_racks = 2;
	m->w.topo.nodes_per_rack = 4;
	strcpy(m->w.name, "deadline-mix");
	m->w.n_users = 2;
	m->w.n_queues = 1;
	m->w.block_bytes = 64 * MB;
	m->w.seed = 3;
	m->w.n_jobs = 2;
	m->w.jobs = m->jobs;
	for (int i = 0; i < 2; i++) {
		struct sw_job_desc *j = &m->jobs[i];

		j->id = (uint64_t)i;
		j->user = (uint32_t)i;
		j->bench = (uint16_t)sw_sim_bench_find("grep");
		j->arrival = 20.0 * i;
		j->input_bytes = (i ? 8 : 300) * 64 * MB;
		j->shuffle_bytes = j->input_bytes / 100;
		j->output_bytes = j->shuffle_bytes / 10;
		j->n_reduces = 1;
	}
	m->jobs[0].deadline = m->jobs[0].arrival + 10 * t_whole_cluster(&m->w, &m->jobs[0]);
	m->jobs[1].deadline = m->jobs[1].arrival + 3 * t_whole_cluster(&m->w, &m->jobs[1]);
}

static void run(const struct mix *m, const char *policy, struct sw_sim_result *r)
{
	struct sw_sim_config c;
	struct sw_input_error err;
	int rc;

	sw_sim_config_default(&c);
	c.sched.policy = policy;
	c.sched.n_users = 2;
	rc = sw_sim_run(&m->w, &c, r, &err);
	if (rc)
		fail_msg("policy %s: sw_sim_run: %d: %s", policy, rc, err.msg);
}

static void minedf_meets_the_small_jobs_deadline_that_fifo_misses(void **state)
{
	struct mix m;
	struct sw_sim_result fifo, edf;

	(void)state;
	make_mix(&m);
	run(&m, "fifo", &fifo);
	run(&m, "minedf", &edf);
	assert_true(fifo.jobs[1].finish > m.jobs[1].deadline);
	assert_true(edf.jobs[1].finish <= m.jobs[1].deadline);
	assert_true(edf.jobs[0].finish <= m.jobs[0].deadline);
	assert_float_equal(edf.jobs[1].deadline, m.jobs[1].deadline, 0);
	sw_sim_result_free(&fifo);
	sw_sim_result_free(&edf);
}

/*
 * ARIA's prediction: a program's first completed run is its profile; its second, alone on the
 * idle cluster with 12 map waves, is predicted on the slots it was given (every map slot, its
 * one reducer), runs between the low and the up bound and within 10% of the average.
 */
static void second_run_alone_is_predicted_from_the_first_within_its_bounds(void **state)
{
	struct mix m;
	struct sw_sim_result r;
	const struct sw_job_record *first, *second;
	double t;

	(void)state;
	make_mix(&m);
	for (int i = 0; i < 2; i++) {
		m.jobs[i].deadline = 0;
		m.jobs[i].input_bytes = (i ? 200 : 8) * 64 * MB;
		m.jobs[i].shuffle_bytes = m.jobs[i].input_bytes / 100;
		m.jobs[i].output_bytes = m.jobs[i].shuffle_bytes / 10;
	}
	m.jobs[1].arrival = 10000; /* long after the first has finished */
	run(&m, "fifo", &r);
	first = &r.jobs[0];
	second = &r.jobs[1];
	assert_true(first->finish < second->arrival);
	for (int b = 0; b < 3; b++)
		assert_float_equal(first->predicted[b], 0, 0);
	assert_float_equal(second->slots_held[SW_MAP], 16, 0); /* 8 nodes x 2 map slots */
	assert_float_equal(second->slots_held[SW_REDUCE], 1, 0);
	t = second->finish - second->started;
	assert_true(second->started >= second->arrival);
	assert_true(second->predicted[SW_ARIA_LOW] > 0);
	assert_true(second->predicted[SW_ARIA_LOW] <= t);
	assert_true(t <= second->predicted[SW_ARIA_UP]);
	assert_float_equal(second->predicted[SW_ARIA_AVG],
	                   (second->predicted[SW_ARIA_LOW] + second->predicted[SW_ARIA_UP]) / 2,
	                   1e-9);
	assert_true(fabs(second->predicted[SW_ARIA_AVG] - t) <= 0.10 * t); /* the paper's claim */
	sw_sim_result_free(&r);
}

/* Replays @p m under fifo with load threshold @p threshold weighing @p measure. */
static void run_gated(const struct mix *m, double threshold, enum sw_sim_load_measure measure,
                      struct sw_sim_result *r)
{
	struct sw_sim_config c;
	struct sw_input_error err;
	int rc;

	sw_sim_config_default(&c);
	c.sched.policy = "fifo";
	c.sched.n_users = 2;
	c.load_threshold = threshold;
	c.load_measure = measure;
	rc = sw_sim_run(&m->w, &c, r, &err);
	if (rc)
		fail_msg("threshold %g: sw_sim_run: %d: %s", threshold, rc, err.msg);
}

/*
 * ARIA's load-threshold arrivals: with half the cluster's 32 slots as the threshold, the small
 * job that arrives while the large one runs 16 maps waits at the gate until the large job's
 * tasks drain, and its deadline moves with its submission; without a threshold it goes in at
 * its arrival.
 */
static void job_waits_at_the_load_threshold_and_keeps_its_relative_deadline(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result open, gated;
	struct sw_input_error err;
	double rel;

	(void)state;
	make_mix(&m);
	rel = m.jobs[1].deadline - m.jobs[1].arrival;
	run(&m, "fifo", &open);
	assert_float_equal(open.jobs[1].submitted, m.jobs[1].arrival, 0);
	run_gated(&m, 0.5, SW_SIM_LOAD_KINDS, &gated);
	assert_float_equal(gated.jobs[0].submitted, 0, 0); /* nothing ran: it goes in */
	assert_true(gated.jobs[1].submitted > m.jobs[1].arrival + 10);
	assert_true(gated.jobs[1].submitted < gated.jobs[0].finish);
	assert_float_equal(gated.jobs[1].arrival, m.jobs[1].arrival, 0);
	assert_float_equal(gated.jobs[1].deadline - gated.jobs[1].submitted, rel, 1e-9);
	sw_sim_result_free(&gated);
	sw_sim_config_default(&c);
	c.load_threshold = 2.5;
	assert_int_equal(sw_sim_run(&m.w, &c, &gated, &err), -EINVAL);
	sw_sim_config_default(&c);
	c.load_threshold = 0.5;
	c.load_measure = (enum sw_sim_load_measure)2;
	assert_int_equal(sw_sim_run(&m.w, &c, &gated, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "load_measure"));
	sw_sim_result_free(&open);
}

/* Both jobs of make_mix() at 0 without deadlines, with @p maps maps and @p reduces reduces
 * each, replayed under fifo at load threshold @p threshold weighing @p measure: whether the
 * second went in at 0 with the first (else it went in after the first had started). */
static bool pair_goes_in_together(uint32_t maps, uint32_t reduces, double threshold,
                                  enum sw_sim_load_measure measure)
{
	struct mix m;
	struct sw_sim_result r;
	bool together;

	make_mix(&m);
	for (int i = 0; i < 2; i++) {
		m.jobs[i].arrival = 0;
		m.jobs[i].deadline = 0;
		m.jobs[i].input_bytes = maps * 64 * MB;
		m.jobs[i].n_reduces = reduces;
	}
	run_gated(&m, threshold, measure, &r);
	assert_float_equal(r.jobs[0].submitted, 0, 0);
	together = r.jobs[1].submitted == 0;
	if (!together)
		assert_true(r.jobs[1].submitted > r.jobs[0].started);
	sw_sim_result_free(&r);
	return together;
}

/*
 * Jobs that reach the gate at one instant pass it one at a time: the first one's 4 maps have
 * not launched yet, but the gate counts them, so at a threshold of half the 16 map slots the
 * second (4 + 4 = 8, not below 8) waits; at 0.6 (9.6 slots) both fit and go in at once.
 */
static void jobs_arriving_together_pass_the_gate_one_at_a_time(void **state)
{
	(void)state;
	assert_false(pair_goes_in_together(4, 1, 0.5, SW_SIM_LOAD_KINDS));
	assert_true(pair_goes_in_together(4, 1, 0.6, SW_SIM_LOAD_KINDS));
}

/*
 * The gate weighs each kind of slot on its own: with 1 map and 6 reduces each, the second job
 * waits at 0.7 (6 + 6 = 12 of the 16 reduce slots, over 11.2) though both jobs' 14 tasks are
 * under 0.7 of all 32 slots; at 0.8 (12.8 reduce slots) both go in at once.
 */
static void job_waits_at_the_gate_when_its_reduces_do_not_fit_though_its_maps_do(void **state)
{
	(void)state;
	assert_false(pair_goes_in_together(1, 6, 0.7, SW_SIM_LOAD_KINDS));
	assert_true(pair_goes_in_together(1, 6, 0.8, SW_SIM_LOAD_KINDS));
}

/*
 * ARIA's load read as its words say (SW_SIM_LOAD_SUM, the default): each kind's share of its 16
 * slots, summed. Two jobs of 1 map and 6 reduces weigh 2 / 16 + 12 / 16 = 0.875: the second waits
 * at 0.8, where each kind on its own lets it in, and goes in at 0.9; two of 4 maps and 1
 * reduce weigh 8 / 16 + 2 / 16 = 0.625: it waits at 0.6, where its maps alone fit.
 */
static void summed_load_weighs_both_kinds_shares_against_one_threshold(void **state)
{
	struct sw_sim_config c;

	(void)state;
	sw_sim_config_default(&c);
	assert_int_equal(c.load_measure, SW_SIM_LOAD_SUM); /* the paper's reading, the default */
	assert_false(pair_goes_in_together(1, 6, 0.8, SW_SIM_LOAD_SUM));
	assert_true(pair_goes_in_together(1, 6, 0.9, SW_SIM_LOAD_SUM));
	assert_false(pair_goes_in_together(4, 1, 0.6, SW_SIM_LOAD_SUM));
	assert_true(pair_goes_in_together(4, 1, 0.7, SW_SIM_LOAD_SUM));
}

static void job_the_cluster_cannot_finish_in_time_is_refused_and_recorded(void **state)
{
	static const char *const policies[] = {"minedf", "sw-minedf", "fair"};
	struct mix m;

	(void)state;
	make_mix(&m);
	/* 0.9 of the lower bound on every slot: no allocation meets it. */
	m.jobs[1].deadline = m.jobs[1].arrival + 0.9 * t_bound(&m.w, &m.jobs[1], SW_ARIA_LOW);
	for (int p = 0; p < 3; p++) {
		struct sw_sim_result r;
		bool deadline_policy = p < 2;

		run(&m, policies[p], &r);
		assert_int_equal(r.jobs[1].refused, deadline_policy);
		if (deadline_policy)
			assert_float_equal(r.jobs[1].finish, r.jobs[1].arrival, 0);
		else
			assert_true(r.jobs[1].finish > r.jobs[1].arrival);
		assert_int_equal(r.jobs[0].refused, 0);
		assert_true(r.jobs[0].finish > r.jobs[0].arrival);
		sw_sim_result_free(&r);
	}
}

static void paper_mix_deadlines_follow_arias_rule(void **state)
{
	struct sw_paper_opts o;
	struct sw_workload w;
	double lo = INFINITY, hi = 0;

	(void)state;
	sw_sim_paper_opts_default(&o);
	o.duration = 3600;
	assert_int_equal(sw_sim_workload_paper(&w, &o), 0);
	assert_true(w.n_jobs > 50);
	for (size_t i = 0; i < w.n_jobs; i++) {
		const struct sw_job_desc *j = &w.jobs[i];
		double f = (j->deadline - j->arrival) / t_whole_cluster(&w, j);

		lo = fmin(lo, f);
		hi = fmax(hi, f);
	}
	/* Factors drawn from U[1, 3]: all inside, and spread over most of the range. */
	assert_true(lo >= 1 && lo < 1.2);
	assert_true(hi <= 3 && hi > 2.8);
	sw_sim_workload_free(&w);
}

static void profile_is_the_job_run_alone(void **state)
{
	struct mix m;
	struct sw_job_profile p;
	const struct sw_bench *b;

	(void)state;
	make_mix(&m);
	b = &sw_sim_bench_table(NULL)[m.jobs[1].bench];
	m.jobs[1].input_bytes = 2 * 64 * MB + 16 * MB; /* two full blocks and a short one */
	sw_sim_workload_profile(&m.w, &m.jobs[1], &p);
	assert_float_equal(p.map_max, 64 * MB / b->map_rate, 1e-9);
	assert_float_equal(p.map_min, 16 * MB / b->map_rate, 1e-9);
	assert_float_equal(p.map_avg, (144 * MB / 3.0) / b->map_rate, 1e-9);
	assert_float_equal(p.reduce_avg, m.jobs[1].shuffle_bytes / b->reduce_rate, 1e-9);
	assert_float_equal(p.shuffle_avg, m.jobs[1].shuffle_bytes / (m.w.topo.nic_bps / 8), 1e-9);
	assert_float_equal(p.shuffle_input_ratio, 0, 0); /* left to ShuffleWatcher to learn */
}

/* A map-only job (no reducer) and a generator (no input, maps that read nothing) get a finite
 * profile and time: no 0/0 per reducer, no wrapped-around last split. */
static void map_only_and_generator_jobs_have_finite_profiles(void **state)
{
	struct mix m;
	struct sw_job_profile p;

	(void)state;
	make_mix(&m);
	m.jobs[1].shuffle_bytes = 0;
	m.jobs[1].n_reduces = 0;
	sw_sim_workload_profile(&m.w, &m.jobs[1], &p);
	assert_float_equal(p.reduce_avg, 0, 0);
	assert_float_equal(p.shuffle_avg, 0, 0);
	assert_true(isfinite(t_whole_cluster(&m.w, &m.jobs[1])));
	m.jobs[1].input_bytes = 0;
	m.jobs[1].shuffle_bytes = 5 * 64 * MB;
	m.jobs[1].n_reduces = 2;
	sw_sim_workload_profile(&m.w, &m.jobs[1], &p);
	assert_float_equal(p.map_min, 0, 0);
	assert_float_equal(p.map_max, 0, 0);
	assert_true(isfinite(t_whole_cluster(&m.w, &m.jobs[1])));
}

/*
 * The combined policies against their deadline policy alone (scheduler/README.md, "Why
 * sw-minedf and sw-adaptive replayed as minedf and adaptive"). Two selfjoins (heavy shuffle)
 * without deadlines, so EDF ranks them by arrival, on two racks of two nodes behind 20:1 uplinks:
 * job 0 (8 maps) shuffles 4 GB across the uplinks, which saturates them, and job 1 arrives at 120 s
 * into that with @p maps maps (64: perf/mixes/shuffle-gate.jsonl).
 */
static void make_shuffle_mix(struct mix *m, uint32_t maps)
{
	make_mix(m);
	m->w.topo.n_racks = 2;
	m->w.topo.nodes_per_rack = 2;
	m->w.topo.oversub = 20;
	for (int i = 0; i < 2; i++) {
		struct sw_job_desc *j = &m->jobs[i];

		j->bench = (uint16_t)sw_sim_bench_find("selfjoin");
		j->arrival = 120.0 * i;
		j->deadline = 0;
		j->n_reduces = 4;
		j->output_bytes = 256 * MB;
	}
	m->jobs[0].input_bytes = 8 * 64 * MB;
	m->jobs[0].shuffle_bytes = 4096 * MB;
	m->jobs[1].input_bytes = maps * 64 * MB;
	m->jobs[1].shuffle_bytes = 2 * m->jobs[1].input_bytes;
}

/* Replays @p m under each deadline policy and its ShuffleWatcher combination, and hands both
 * results to @p check. */
static void compare_pairs(const struct mix *m, void (*check)(const struct sw_sim_result *alone,
                                                             const struct sw_sim_result *sw))
{
	static const char *const pairs[][2] = {{"minedf", "sw-minedf"},
	                                       {"adaptive", "sw-adaptive"}};

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		struct sw_sim_result alone, sw;

		run(m, pairs[i][0], &alone);
		run(m, pairs[i][1], &sw);
		check(&alone, &sw);
		sw_sim_result_free(&alone);
		sw_sim_result_free(&sw);
	}
}

static void reduces_held_back(const struct sw_sim_result *alone, const struct sw_sim_result *sw)
{
	assert_true(sw->has_nass);
	assert_true(sw->jobs[1].finish > alone->jobs[1].finish);
	assert_int_not_equal(sw->events, alone->events);
}

static void same_decisions(const struct sw_sim_result *alone, const struct sw_sim_result *sw)
{
	assert_int_equal(sw->events, alone->events);
	for (int k = 0; k < 2; k++) {
		assert_float_equal(sw->jobs[k].finish, alone->jobs[k].finish, 0);
		assert_int_equal(sw->jobs[k].map_racks, 1);
	}
}

/* Job 1 (64 maps, 8 map slots) reaches slow start with maps still pending while the uplinks
 * are saturated: NASS's line 9 holds its reduces back, so it finishes later than under the
 * deadline policy alone, which starts them at once. */
static void combined_policy_holds_back_a_heavy_jobs_reduces_while_its_maps_wait(void **state)
{
	struct mix m;

	(void)state;
	make_shuffle_mix(&m, 64);
	compare_pairs(&m, reduces_held_back);
}

/* Job 1 with 8 maps gets every one of them in its first wave (a pool per job, first in the
 * deadline order), so it has no map pending when its reduces become runnable: NASS has nothing
 * to hold back, SAMP chose one rack, and the combined policy decides exactly as the deadline
 * policy alone, as in the mix2 replays. */
static void combined_policy_decides_as_deadline_policy_when_no_map_waits_at_slow_start(void **state)
{
	struct mix m;

	(void)state;
	make_shuffle_mix(&m, 8);
	compare_pairs(&m, same_decisions);
}

/* One map-only job of @p maps grep maps (64 MiB, 2.2 s each) at 0 on the 8 nodes x 2 map
 * slots of make_mix, reading nothing over the network; @p t, @p share: its f(t). */
static void run_with_load(struct mix *m, uint32_t maps, const struct sw_sched_tx_point *f,
                          uint32_t n, const char *policy, struct sw_sim_result *r)
{
	struct sw_sim_config c;
	struct sw_input_error err;
	int rc;

	make_mix(m);
	m->w.n_jobs = 1;
	m->jobs[0].input_bytes = maps * 64 * MB;
	m->jobs[0].shuffle_bytes = m->jobs[0].output_bytes = 0;
	m->jobs[0].n_reduces = 0;
	m->jobs[0].deadline = 0;
	m->w.tx = (struct sw_sched_tx_point *)f;
	m->w.tx_n = n;
	sw_sim_config_default(&c);
	c.sched.policy = policy;
	c.map_input_live = 1;
	rc = sw_sim_run(&m->w, &c, r, &err);
	if (rc)
		fail_msg("policy %s: sw_sim_run: %d: %s", policy, rc, err.msg);
}

/*
 * A transactional load holding half of every node's slots leaves 8 of the 16: 64 maps take 8
 * waves instead of 4, under any policy (the nodes report only the slots it leaves).
 */
static void transactional_load_takes_its_share_of_every_nodes_slots(void **state)
{
	static const struct sw_sched_tx_point half[] = {{0, 0.5}};
	static const char *const policies[] = {"fifo", "adaptive", "reverse-adaptive"};
	double map = 64.0 * MB / 30e6;

	(void)state;
	for (int p = 0; p < 3; p++) {
		struct mix m;
		struct sw_sim_result none, tx;
		double t_none, t_tx;

		run_with_load(&m, 64, NULL, 0, policies[p], &none);
		run_with_load(&m, 64, half, 1, policies[p], &tx);
		t_none = none.jobs[0].finish - none.jobs[0].started;
		t_tx = tx.jobs[0].finish - tx.jobs[0].started;
		/* the nodes' first heartbeats are spread over one 3 s interval */
		assert_true(t_none >= 4 * map && t_none < 4 * map + 3);
		assert_true(t_tx >= 8 * map && t_tx < 8 * map + 3);
		sw_sim_result_free(&none);
		sw_sim_result_free(&tx);
	}
}

/* Every slot held for the first 100 s: nothing starts before, and the nodes, which had nothing
 * to offer, are woken when the load gives the slots back. */
static void nodes_get_work_again_when_the_load_gives_slots_back(void **state)
{
	static const struct sw_sched_tx_point f[] = {{0, 1}, {100, 0}};
	struct mix m;
	struct sw_sim_result r;

	(void)state;
	run_with_load(&m, 16, f, 2, "fifo", &r);
	/* the first heartbeat of a node's grid at or after 100 s */
	assert_true(r.jobs[0].started >= 100 && r.jobs[0].started < 103);
	assert_true(r.jobs[0].finish < 103 + 64.0 * MB / 30e6); /* one wave on the 16 slots */
	sw_sim_result_free(&r);
}

/* Writes @p text to a new file named in @p path (a mkstemp template). */
static void write_file(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void transactional_file_is_read_and_its_errors_name_the_line(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
	        {"0,0.5\n10,1.5\n", ":2: field 'share': must be in [0, 1]"},
	        {"10,0.5\n5,0.2\n", ":2: field 'seconds': must be after the previous line's 10"},
	        {"-1,0.5\n", ":1: field 'seconds': must be in [0, 1e+09]"},
	        {"# f\n0;0.5\n", ":2: expected 'seconds,share'"},
	        {"0,0.5x\n", ":1: expected 'seconds,share'"},
	        {"0,0.5", ":1: truncated line (no newline at the end)"},
	        {"# nothing\n\n", ": no 'seconds,share' line"},
	};
	struct sw_workload w = {0};
	struct sw_input_error err;
	char path[] = "/tmp/sw-tx-XXXXXX";

	(void)state;
	write_file(path, "# seconds,share\n0,0.25\n\n3600,0\r\n");
	assert_int_equal(sw_sim_workload_transactional(&w, path, &err), 0);
	assert_int_equal(w.tx_n, 2);
	assert_float_equal(w.tx[1].t, 3600, 0);
	assert_float_equal(w.tx[0].share, 0.25, 0);
	unlink(path);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char p[] = "/tmp/sw-tx-XXXXXX";

		write_file(p, bad[i].text);
		assert_int_equal(sw_sim_workload_transactional(&w, p, &err), -EINVAL);
		if (!strstr(err.msg, bad[i].msg) || strncmp(err.msg, p, strlen(p)))
			fail_msg("'%s': got '%s', want '%s%s'", bad[i].text, err.msg, p,
			         bad[i].msg);
		unlink(p);
	}
	assert_int_equal(w.tx_n, 2); /* a bad file keeps the load read before */
	assert_int_equal(sw_sim_workload_transactional(&w, "/nonexistent/tx.csv", &err), -ENOENT);
	sw_sim_workload_free(&w);
}

/* --deadline-factor's draw: arrival + U[lo, hi] x the job's time alone on the cluster. */
static void deadlines_drawn_again_lie_in_the_factor_range(void **state)
{
	struct mix m;

	(void)state;
	make_mix(&m);
	sw_sim_workload_draw_deadlines(&m.w, 1.5, 4);
	for (int i = 0; i < 2; i++) {
		double t = t_whole_cluster(&m.w, &m.jobs[i]);

		assert_true(m.jobs[i].deadline >= m.jobs[i].arrival + 1.5 * t);
		assert_true(m.jobs[i].deadline <= m.jobs[i].arrival + 4 * t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(minedf_meets_the_small_jobs_deadline_that_fifo_misses),
	        cmocka_unit_test(job_the_cluster_cannot_finish_in_time_is_refused_and_recorded),
	        cmocka_unit_test(job_waits_at_the_load_threshold_and_keeps_its_relative_deadline),
	        cmocka_unit_test(jobs_arriving_together_pass_the_gate_one_at_a_time),
	        cmocka_unit_test(
	                job_waits_at_the_gate_when_its_reduces_do_not_fit_though_its_maps_do),
	        cmocka_unit_test(summed_load_weighs_both_kinds_shares_against_one_threshold),
	        cmocka_unit_test(second_run_alone_is_predicted_from_the_first_within_its_bounds),
	        cmocka_unit_test(paper_mix_deadlines_follow_arias_rule),
	        cmocka_unit_test(profile_is_the_job_run_alone),
	        cmocka_unit_test(map_only_and_generator_jobs_have_finite_profiles),
	        cmocka_unit_test(
	                combined_policy_holds_back_a_heavy_jobs_reduces_while_its_maps_wait),
	        cmocka_unit_test(
	                combined_policy_decides_as_deadline_policy_when_no_map_waits_at_slow_start),
	        cmocka_unit_test(transactional_load_takes_its_share_of_every_nodes_slots),
	        cmocka_unit_test(nodes_get_work_again_when_the_load_gives_slots_back),
	        cmocka_unit_test(transactional_file_is_read_and_its_errors_name_the_line),
	        cmocka_unit_test(deadlines_drawn_again_lie_in_the_factor_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
