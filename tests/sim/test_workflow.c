/* SPDX-License-Identifier: MIT */
/*
 * Workflows in the simulator: a job is submitted when the jobs it reads have ended, without
 * holding back the jobs behind it; a workflow has one deadline (D = 2T without one); held to
 * its refined pair, its user runs no more tasks of a kind than the pair; fifo cannot hold.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "sw_sched_aria.h"
#include "sw_sim.h"

#define MB (1ULL << 20)

/* Workflow 1 (user 0): A and B at 0, C after A, D after B, E after C and D; job X (user 1,
 * no workflow) at 1 s, behind them in workload order. 2 racks of 4 nodes, 2 + 2 slots. */
enum { A, B, C, D, E, X, N_JOBS };

struct wf_mix {
	struct sw_workload w;
	struct sw_job_desc jobs[N_JOBS];
};

static void make_wf_mix(struct wf_mix *m)
{
	static const char *const bench[N_JOBS] = {"selfjoin", "wordcount", "selfjoin",
	                                          "grep",     "terasort",  "grep"};
	static const uint32_t blocks[N_JOBS] = {48, 96, 32, 24, 16, 8};

	memset(m, 0, sizeof(*m));
	sw_sim_topology_default(&m->w.topo);
	m->w.topo.n_racks = 2;
	m->w.topo.nodes_per_rack = 4;
	strcpy(m->w.name, "workflow-mix");
	m->w.n_users = 2;
	m->w.n_queues = 1;
	m->w.block_bytes = 64 * MB;
	m->w.seed = 5;
	m->w.n_jobs = N_JOBS;
	m->w.n_workflows = 1;
	m->w.jobs = m->jobs;
	for (int i = 0; i < N_JOBS; i++) {
		struct sw_job_desc *j = &m->jobs[i];
		const struct sw_bench *b;

		j->id = (uint64_t)i;
		j->bench = (uint16_t)sw_sim_bench_find(bench[i]);
		b = &sw_sim_bench_table(NULL)[j->bench];
		j->input_bytes = blocks[i] * 64 * MB;
		j->shuffle_bytes = (uint64_t)(b->shuffle_ratio * (double)j->input_bytes);
		j->output_bytes = j->shuffle_bytes / 2;
		j->n_reduces = 4;
		j->workflow = i == X ? 0 : 1;
		j->user = i == X ? 1 : 0;
		j->arrival = i == X ? 1 : 0;
	}
	m->jobs[C].n_after = m->jobs[D].n_after = 1;
	m->jobs[C].after[0] = A;
	m->jobs[D].after[0] = B;
	m->jobs[E].n_after = 2;
	m->jobs[E].after[0] = C;
	m->jobs[E].after[1] = D;
}

static int run_wf(const struct wf_mix *m, const char *policy, enum sw_sim_wf_slots slots,
                  struct sw_sim_result *r, struct sw_input_error *err)
{
	struct sw_sim_config c;

	sw_sim_config_default(&c);
	c.sched.policy = policy;
	c.workflow_slots = slots;
	return sw_sim_run(&m->w, &c, r, err);
}

static void a_workflow_job_starts_when_its_inputs_end_and_blocks_no_other_job(void **state)
{
	struct wf_mix m;
	struct sw_sim_result r;
	struct sw_input_error err;
	const struct sw_job_record *j;

	(void)state;
	make_wf_mix(&m);
	if (run_wf(&m, "fair", SW_SIM_WF_FREE, &r, &err))
		fail_msg("%s", err.msg);
	j = r.jobs;
	assert_float_equal(j[A].submitted, 0, 0);
	assert_float_equal(j[B].submitted, 0, 0);
	assert_float_equal(j[C].submitted, j[A].finish, 0);
	assert_float_equal(j[D].submitted, j[B].finish, 0);
	assert_float_equal(j[E].submitted, fmax(j[C].finish, j[D].finish), 0);
	assert_true(j[C].submitted > 1);
	assert_float_equal(j[X].submitted, 1, 0); /* not behind C, which was waiting */
	for (int i = A; i <= E; i++) {
		assert_int_equal(j[i].workflow, 1);
		assert_float_equal(j[i].deadline, j[A].deadline, 0);
	}
	assert_int_equal(j[X].workflow, 0);
	assert_float_equal(j[X].deadline, 0, 0);
	sw_sim_result_free(&r);
}

/* D = 2 x TW_avg on every slot of the cluster, from the first submission; the pairs are
 * Algorithm 2's for that deadline. */
static void a_workflow_without_deadline_gets_twice_its_time_on_the_whole_cluster(void **state)
{
	struct wf_mix m;
	struct sw_sim_result r;
	struct sw_input_error err;
	struct sw_wf_job jobs[E + 1];
	struct sw_workflow w = {jobs, E + 1};
	uint32_t stage[E + 1] = {0, 0, 1, 1, 2}, basic[SW_KINDS], refined[SW_KINDS];
	double t;

	(void)state;
	make_wf_mix(&m);
	for (int i = A; i <= E; i++) {
		sw_sim_workload_profile(&m.w, &m.jobs[i], &jobs[i].profile);
		jobs[i].n_maps = sw_sim_workload_n_maps(&m.w, &m.jobs[i]);
		jobs[i].n_reduces = m.jobs[i].n_reduces;
		jobs[i].stage = stage[i];
	}
	assert_int_equal(sw_sched_workflow_time(&w, SW_ARIA_AVG, 16, 16, &t), 0);
	assert_int_equal(sw_sched_workflow_slots(&w, 2 * t, basic, refined), 0);
	if (run_wf(&m, "fair", SW_SIM_WF_FREE, &r, &err))
		fail_msg("%s", err.msg);
	assert_float_equal(r.jobs[A].deadline, 2 * t, 1e-9);
	assert_memory_equal(r.jobs[E].wf_basic, basic, sizeof(basic));
	assert_memory_equal(r.jobs[E].wf_refined, refined, sizeof(refined));
	assert_true(refined[SW_MAP] + refined[SW_REDUCE] < 16);
	sw_sim_result_free(&r);
}

/* Held to its refined pair, the workflow's jobs run no more tasks of a kind, on average, than
 * the pair (free, they take every map slot), and the workflow ends later than free. The
 * simulator records the slots a job held for its program's second run onwards: C (after A's
 * selfjoin) and D (after X's grep). */
static void a_held_workflow_runs_within_its_pair(void **state)
{
	struct wf_mix m;
	struct sw_sim_result free_run, held;
	struct sw_input_error err;
	const uint32_t *pair;

	(void)state;
	make_wf_mix(&m);
	if (run_wf(&m, "fair", SW_SIM_WF_FREE, &free_run, &err) ||
	    run_wf(&m, "fair", SW_SIM_WF_REFINED, &held, &err))
		fail_msg("%s", err.msg);
	pair = held.jobs[A].wf_refined;
	assert_true(free_run.jobs[C].slots_held[SW_MAP] > pair[SW_MAP]);
	for (int i = C; i <= D; i++)
		for (int k = 0; k < SW_KINDS; k++) {
			assert_true(held.jobs[i].slots_held[k] > 0);
			assert_true(held.jobs[i].slots_held[k] <= pair[k] + 1e-9);
		}
	assert_true(held.jobs[E].finish > free_run.jobs[E].finish);
	sw_sim_result_free(&free_run);
	sw_sim_result_free(&held);
}

static void fifo_cannot_hold_a_workflow_and_says_so(void **state)
{
	struct wf_mix m;
	struct sw_sim_result r;
	struct sw_input_error err;

	(void)state;
	make_wf_mix(&m);
	assert_int_equal(run_wf(&m, "fifo", SW_SIM_WF_BASIC, &r, &err), -EOPNOTSUPP);
	assert_non_null(strstr(err.msg, "workflow 0 (user 0) under 'fifo': cannot size or hold"));
	if (run_wf(&m, "fifo", SW_SIM_WF_FREE, &r, &err))
		fail_msg("%s", err.msg);
	sw_sim_result_free(&r);
	m.jobs[C].after[0] = D; /* reads a later job */
	assert_int_equal(run_wf(&m, "fair", SW_SIM_WF_FREE, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "job 2: reads job 3, not an earlier job"));
	m.w.n_workflows = 0; /* links, and no workflow counted */
	assert_int_equal(run_wf(&m, "fair", SW_SIM_WF_FREE, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "job 0: workflow 1 of 0"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(a_workflow_job_starts_when_its_inputs_end_and_blocks_no_other_job),
	        cmocka_unit_test(
	                a_workflow_without_deadline_gets_twice_its_time_on_the_whole_cluster),
	        cmocka_unit_test(a_held_workflow_runs_within_its_pair),
	        cmocka_unit_test(fifo_cannot_hold_a_workflow_and_says_so),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
