/* SPDX-License-Identifier: MIT */
/* Node contention (sw_sim_config.contention): tasks computing on one node share its CPU,
 * disk and memory; memory asked beyond the node's slows CPU and disk. */
#include <string.h>

#include "mix.h"

/* One node of @p map_slots map slots and the given capacity; one map-only grep job (no
 * output) of @p blocks blocks arriving at 0. */
static void one_node(struct mix *m, uint16_t map_slots, struct sw_resources cap, double blocks)
{
	struct sw_job_desc *j = &m->jobs[0];

	make_mix(m);
	m->w.topo.n_racks = 1;
	m->w.topo.nodes_per_rack = 1;
	m->w.topo.map_slots = map_slots;
	m->w.topo.node_capacity = cap;
	m->w.n_jobs = 1;
	memset(j, 0, sizeof(*j));
	j->id = 1;
	j->bench = (uint16_t)sw_sim_bench_find("grep"); /* maps of 1 core, 1 GiB */
	j->input_bytes = (uint64_t)(blocks * (double)m->w.block_bytes);
}

/* The job's finish under contention off and on, a copying reducer holding @p copy. */
static void finishes_holding(const struct mix *m, enum sw_sim_copy_memory copy, double *off,
                             double *on)
{
	struct sw_sim_config c;
	struct sw_sim_result r;

	sw_sim_config_default(&c);
	c.slots_only = 1; /* or the scheduler would not overcommit the node */
	c.copy_memory = copy;
	run_with(m, &c, "fifo", &r);
	*off = r.jobs[0].finish;
	sw_sim_result_free(&r);
	c.contention = 1;
	run_with(m, &c, "fifo", &r);
	*on = r.jobs[0].finish;
	sw_sim_result_free(&r);
}

static void finishes(const struct mix *m, double *off, double *on)
{
	finishes_holding(m, SW_SIM_COPY_REDUCE, off, on);
}

static double block_time(const struct mix *m)
{
	return (double)m->w.block_bytes / sw_sim_bench_table(NULL)[m->jobs[0].bench].map_rate;
}

/* A task alone on its node computes its benchmark's time. */
static void a_task_alone_takes_its_benchmark_time(void **state)
{
	struct mix m;
	double off, on;

	(void)state;
	one_node(&m, 1, (struct sw_resources){.cpu = 1, .mem_gb = 1}, 1);
	finishes(&m, &off, &on);
	assert_true(on == off);
}

/* Two maps of 1 core on a node of 1/1.2 cores each run at 1/1.2 of full speed; when the
 * half-block one ends (1.2 x its time) the full one runs at full speed for what it has left:
 * the job ends 0.2 x the short map's time later than without contention. */
static void two_tasks_over_the_cpu_share_it_and_the_first_to_end_speeds_the_other(void **state)
{
	struct mix m;
	double off, on;

	(void)state;
	one_node(&m, 2, (struct sw_resources){.cpu = 2 / 1.2, .mem_gb = 100}, 1.5);
	finishes(&m, &off, &on);
	assert_float_equal(on - off, 0.2 * block_time(&m) / 2, 1e-6);
}

/* Memory asked twice over (two maps of 1 GiB on 1 GiB) halves the CPU the node has: both maps
 * run at half speed, though their CPU alone fits. */
static void memory_at_twice_the_capacity_halves_progress(void **state)
{
	struct mix m;
	double off, on;

	(void)state;
	one_node(&m, 2, (struct sw_resources){.cpu = 4, .mem_gb = 1}, 2);
	finishes(&m, &off, &on);
	assert_float_equal(on - off, block_time(&m), 1e-6);
}

/*
 * A reduce copying its input holds memory (Polo: it "only consumes memory"): one node of two
 * map slots and a reduce slot, a GridMix Sort job of 4 maps (0.5 GB each) and one reducer
 * (1.2 GB while it copies), FIFO blind to demands. On 2.25 GB the two maps and the copying
 * reducer fit and nothing slows; on 2 GB they ask 2.2 GB and the maps beside the reducer
 * slow, though the maps alone fit.
 */
static void sort_on_one_node(struct mix *m, double mem_gb)
{
	one_node(m, 2, (struct sw_resources){.cpu = 10, .mem_gb = mem_gb, .io = 10}, 4);
	m->w.topo.reduce_slots = 1;
	m->jobs[0].bench = (uint16_t)sw_sim_bench_find("gridmix-sort");
	m->jobs[0].shuffle_bytes = m->jobs[0].input_bytes;
	m->jobs[0].n_reduces = 1;
}

static void a_copying_reduce_holds_memory(void **state)
{
	struct mix m;
	double off, on;

	(void)state;
	sort_on_one_node(&m, 2.25);
	finishes(&m, &off, &on);
	assert_true(on == off);
	m.w.topo.node_capacity.mem_gb = 2;
	finishes(&m, &off, &on);
	assert_true(on > off);
}

/* --copy-memory none: the same reducer on 2 GB holds nothing while it copies, so nothing
 * slows. */
static void a_copying_reduce_holds_no_memory_when_told_so(void **state)
{
	struct mix m;
	double off, on;

	(void)state;
	sort_on_one_node(&m, 2);
	finishes_holding(&m, SW_SIM_COPY_NONE, &off, &on);
	assert_true(on == off);
}

/* The scheduler is told the same: fitting demands on 2 GB, a copying Sort reducer at its
 * reduce memory (1.2 GB) does not fit beside two 0.5 GB maps and starts once the maps are
 * done; at none it starts when the first maps end. */
static double reduce_start(const struct mix *m, enum sw_sim_copy_memory copy)
{
	struct sw_sim_config c;
	struct sw_sim_result r;
	double start;

	sw_sim_config_default(&c);
	c.copy_memory = copy;
	c.timeline = 1;
	run_with(m, &c, "fifo", &r);
	assert_int_equal(r.n_tasks, 5);
	assert_int_equal(r.tasks[4].kind, SW_REDUCE);
	start = r.tasks[4].start;
	sw_sim_result_free(&r);
	return start;
}

static void the_scheduler_fits_what_a_copying_reduce_holds(void **state)
{
	struct mix m;
	double map_time;

	(void)state;
	sort_on_one_node(&m, 2);
	map_time = block_time(&m);
	assert_float_equal(reduce_start(&m, SW_SIM_COPY_REDUCE), 2 * map_time, 1e-6);
	assert_float_equal(reduce_start(&m, SW_SIM_COPY_NONE), map_time, 1e-6);
}

/* Demands within every node's capacity change nothing: the whole mix ends bit for bit as
 * without contention. */
static void demands_under_capacity_change_nothing(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result off, on;

	(void)state;
	make_mix_config(&m, &c);
	m.w.topo.node_capacity = (struct sw_resources){.cpu = 100, .mem_gb = 1000, .io = 100};
	run_with(&m, &c, "fair", &off);
	c.contention = 1;
	run_with(&m, &c, "fair", &on);
	for (size_t i = 0; i < N_JOBS; i++)
		assert_true(on.jobs[i].finish == off.jobs[i].finish);
	sw_sim_result_free(&off);
	sw_sim_result_free(&on);
}

/* Contended nodes through a lost node and failing attempts: every job still completes, and
 * later than on uncontended nodes. */
static void contended_tasks_fail_and_are_lost_like_others(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result r, free_nodes;
	double sum = 0, sum_free = 0;

	(void)state;
	make_mix_config(&m, &c);
	m.w.topo.node_capacity = (struct sw_resources){.cpu = 1, .mem_gb = 2};
	c.slots_only = 1;
	c.task_failure_rate = 0.05;
	c.faults[0] = (struct sw_sim_fault){.rack = 1, .node = 2, .at = 40, .down_for = 120};
	c.n_faults = 1;
	run_with(&m, &c, "fair", &free_nodes);
	c.contention = 1;
	run_with(&m, &c, "fair", &r);
	for (size_t i = 0; i < N_JOBS; i++) {
		assert_false(r.jobs[i].failed);
		assert_true(r.jobs[i].finish > r.jobs[i].arrival);
		sum += r.jobs[i].finish - r.jobs[i].arrival;
		sum_free += free_nodes.jobs[i].finish - free_nodes.jobs[i].arrival;
	}
	assert_true(r.lost_attempts > 0 && r.failed_attempts > 0);
	assert_true(sum > sum_free);
	sw_sim_result_free(&r);
	sw_sim_result_free(&free_nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(a_task_alone_takes_its_benchmark_time),
	        cmocka_unit_test(
	                two_tasks_over_the_cpu_share_it_and_the_first_to_end_speeds_the_other),
	        cmocka_unit_test(memory_at_twice_the_capacity_halves_progress),
	        cmocka_unit_test(a_copying_reduce_holds_memory),
	        cmocka_unit_test(a_copying_reduce_holds_no_memory_when_told_so),
	        cmocka_unit_test(the_scheduler_fits_what_a_copying_reduce_holds),
	        cmocka_unit_test(demands_under_capacity_change_nothing),
	        cmocka_unit_test(contended_tasks_fail_and_are_lost_like_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
