/* SPDX-License-Identifier: MIT */
/*
 * The task timeline (sw_sim_config.timeline): every task of every completed job once, on a
 * node of the cluster with that node's pool, within its job's submission and finish; through
 * failures and lost nodes too (a task's last attempt); a planning policy's control cycles; and
 * asking for it changes no result.
 */
#include <stdlib.h>
#include <string.h>

#include "mix.h"

#define ACCELERATED 4

/* The mix with some nodes accelerated, task failures and a node lost and back. */
static void make_eventful(struct mix *m, struct sw_sim_config *c)
{
	make_mix_config(m, c);
	m->w.topo.accelerated = ACCELERATED;
	c->task_failure_rate = 0.05;
	c->faults[c->n_faults++] = (struct sw_sim_fault){1, 2, 60, 300};
}

/* Job @p j's tasks in @p r: each (kind, index) once, inside the job's run, on a real node. */
static size_t assert_job_tasks(const struct sw_sim_result *r, const struct sw_job_record *j,
                               uint32_t n_nodes)
{
	uint8_t *seen = calloc((size_t)j->n_maps + j->n_reduces, 1);
	size_t n = 0;

	assert_non_null(seen);
	for (size_t k = 0; k < r->n_tasks; k++) {
		const struct sw_task_run *t = &r->tasks[k];

		if (t->job != j->id)
			continue;
		n++;
		assert_true(t->kind == SW_MAP || t->kind == SW_REDUCE);
		assert_true(t->task < (t->kind == SW_MAP ? j->n_maps : j->n_reduces));
		assert_int_equal(seen[(t->kind == SW_MAP ? 0 : j->n_maps) + t->task]++, 0);
		assert_true(t->node < n_nodes);
		assert_int_equal(t->pool, t->node >= n_nodes - ACCELERATED);
		assert_true(t->start >= j->submitted);
		assert_true(t->start <= t->end);
		assert_true(t->end <= j->finish);
	}
	free(seen);
	return n;
}

static void every_completed_job_has_each_task_once_inside_its_run(void **state)
{
	const char *const policies[] = {"fair", "sw-fair", "minedf"};
	struct sw_sim_config c;
	struct mix m;

	(void)state;
	make_eventful(&m, &c);
	c.timeline = 1;
	for (size_t p = 0; p < sizeof(policies) / sizeof(policies[0]); p++) {
		uint32_t n_nodes = m.w.topo.n_racks * m.w.topo.nodes_per_rack;
		struct sw_sim_result r;
		size_t total = 0;

		run_with(&m, &c, policies[p], &r);
		assert_true(r.failed_attempts + r.lost_attempts > 0);
		for (size_t i = 0; i < r.n_jobs; i++) {
			const struct sw_job_record *j = &r.jobs[i];
			size_t n = assert_job_tasks(&r, j, n_nodes);

			/* a failed job's tasks are not in it */
			assert_int_equal(n, j->failed ? 0 : j->n_maps + j->n_reduces);
			total += n;
		}
		assert_int_equal(total, r.n_tasks);
		sw_sim_result_free(&r);
	}
}

static void the_timeline_changes_no_result(void **state)
{
	struct sw_sim_result with, without;
	struct sw_sim_config c;
	struct mix m;

	(void)state;
	make_eventful(&m, &c);
	run_with(&m, &c, "fair", &without);
	assert_null(without.tasks);
	assert_int_equal(without.n_tasks, 0);
	c.timeline = 1;
	run_with(&m, &c, "fair", &with);
	assert_true(with.n_tasks > 0);
	assert_int_equal(with.events, without.events);
	assert_int_equal(with.n_jobs, without.n_jobs);
	for (size_t i = 0; i < with.n_jobs; i++) {
		assert_true(with.jobs[i].finish == without.jobs[i].finish);
		assert_true(with.jobs[i].started == without.jobs[i].started);
		assert_int_equal(with.jobs[i].failed_attempts, without.jobs[i].failed_attempts);
		assert_memory_equal(with.jobs[i].bytes, without.jobs[i].bytes,
		                    sizeof(with.jobs[i].bytes));
	}
	sw_sim_result_free(&with);
	sw_sim_result_free(&without);
}

/* Job @p id's record in @p r. */
static const struct sw_job_record *record(const struct sw_sim_result *r, uint64_t id)
{
	for (size_t i = 0; i < r->n_jobs; i++)
		if (r->jobs[i].id == id)
			return &r->jobs[i];
	fail_msg("plan row of job %llu, not in the run", (unsigned long long)id);
	return NULL;
}

/*
 * Under a planning policy the timeline holds its control cycles: in time order, a job once per
 * cycle and only while it is live, its targets within what it has left and its utility at
 * most 1; the cycles change no result; a policy that does not plan leaves none.
 */
static void the_plans_are_each_control_cycle_of_the_live_jobs(void **state)
{
	struct sw_sim_result with, without;
	struct sw_sim_config c;
	struct mix m;

	(void)state;
	make_mix_config(&m, &c);
	c.timeline = 1;
	run_with(&m, &c, "fair", &with);
	assert_null(with.plans);
	assert_int_equal(with.n_plans, 0);
	sw_sim_result_free(&with);
	run_with(&m, &c, "ras", &with);
	assert_true(with.n_plans > with.n_jobs);
	for (size_t k = 0; k < with.n_plans; k++) {
		const struct sw_plan_row *p = &with.plans[k];
		const struct sw_job_record *j = record(&with, p->job);

		if (k > 0) {
			const struct sw_plan_row *q = &with.plans[k - 1];

			assert_true(q->now <= p->now);
			assert_true(q->now < p->now || q->job != p->job);
		}
		assert_true(p->now >= j->submitted && p->now <= j->finish);
		assert_true(p->s_pend <= j->n_maps);
		assert_true(p->target[SW_MAP] <= p->s_pend);
		assert_true(p->target[SW_REDUCE] <= j->n_reduces);
		assert_true(p->s_req <= p->s_pend);
		assert_true(p->utility <= 1);
	}
	c.timeline = 0;
	run_with(&m, &c, "ras", &without);
	assert_int_equal(with.n_jobs, without.n_jobs);
	for (size_t i = 0; i < with.n_jobs; i++)
		assert_true(with.jobs[i].finish == without.jobs[i].finish);
	sw_sim_result_free(&with);
	sw_sim_result_free(&without);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_completed_job_has_each_task_once_inside_its_run),
	        cmocka_unit_test(the_timeline_changes_no_result),
	        cmocka_unit_test(the_plans_are_each_control_cycle_of_the_live_jobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
