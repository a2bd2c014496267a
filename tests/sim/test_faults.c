/* SPDX-License-Identifier: MIT */
/*
 * Failures injected into whole simulated runs: a lost node's work runs again and every job
 * completes; task attempts fail deterministically for a seed; a task that keeps failing fails
 * its job; a fault outside the topology is an error naming it.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "mix.h"

static void lose_node(struct sw_sim_config *c, uint32_t rack, uint32_t node, double at,
                      double down_for)
{
	c->faults[c->n_faults++] = (struct sw_sim_fault){rack, node, at, down_for};
}

/* The run's failure counters must be the sums of its jobs' records. */
static void assert_totals_are_the_records(const struct sw_sim_result *r)
{
	uint64_t rerun = 0, lost = 0, failed = 0;

	for (size_t i = 0; i < r->n_jobs; i++) {
		rerun += r->jobs[i].maps_rerun;
		lost += r->jobs[i].lost_attempts;
		failed += r->jobs[i].failed_attempts;
	}
	assert_int_equal(rerun, r->maps_rerun);
	assert_int_equal(lost, r->lost_attempts);
	assert_int_equal(failed, r->failed_attempts);
}

/* Every job completed, none failed, and a job untouched by failures kept every byte. */
static void assert_all_complete(const struct mix *m, const struct sw_sim_result *r)
{
	for (size_t i = 0; i < N_JOBS; i++) {
		const struct sw_job_record *j = &r->jobs[i];

		assert_false(j->failed);
		assert_true(j->finish > j->arrival);
		assert_true(j->map_output_bytes >= m->jobs[i].shuffle_bytes);
		if (j->maps_rerun + j->lost_attempts + j->failed_attempts == 0) {
			assert_int_equal(j->map_output_bytes, m->jobs[i].shuffle_bytes);
			assert_int_equal(j->bytes[SW_TRAFFIC_SHUFFLE], j->map_output_bytes);
		}
	}
	assert_int_equal(r->jobs_failed, 0);
}

static void a_lost_node_s_maps_run_again_and_every_job_completes(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result r;
	uint64_t rerun_bytes = 0;

	(void)state;
	make_mix_config(&m, &c);
	/* At 40 s node 1.2 runs tasks and holds map outputs that reduces still need. */
	lose_node(&c, 1, 2, 40, 0);
	run_with(&m, &c, "fair", &r);
	assert_all_complete(&m, &r);
	assert_totals_are_the_records(&r);
	assert_int_equal(r.nodes_lost, 1);
	assert_true(r.maps_rerun > 0);
	assert_true(r.lost_attempts > 0);
	assert_int_equal(r.failed_attempts, 0);
	/* A re-run map registers its output again: the jobs produced more than their shuffle. */
	for (size_t i = 0; i < N_JOBS; i++)
		rerun_bytes += r.jobs[i].map_output_bytes - m.jobs[i].shuffle_bytes;
	assert_true(rerun_bytes > 0);
	sw_sim_result_free(&r);
}

static void a_rack_down_for_a_while_and_back_loses_no_job(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result r;

	(void)state;
	make_mix_config(&m, &c);
	/* HDFS keeps a split's other replicas on one other rack: no input is lost. */
	for (uint32_t n = 0; n < 4; n++)
		lose_node(&c, 0, n, 40 + n, 120);
	lose_node(&c, 0, 1, 45, 0); /* down already: ignored */
	run_with(&m, &c, "fair", &r);
	assert_all_complete(&m, &r);
	assert_int_equal(r.nodes_lost, 4);
	assert_true(r.maps_rerun > 0);
	sw_sim_result_free(&r);
}

/* Under the rack network model a reducer's flow from another rack carries its lost node's
 * partitions with the rest and goes on: a node lost for good, and a whole rack down for two
 * minutes, still complete every job; the maps run again and the reducers fetch their new
 * outputs. */
static void lost_nodes_under_the_rack_model_lose_no_job(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result r;

	(void)state;
	for (int rack_down = 0; rack_down < 2; rack_down++) {
		make_mix_config(&m, &c);
		c.net_model = SW_SIM_NET_RACK;
		for (uint32_t n = 0; n < (rack_down ? 4 : 1); n++)
			lose_node(&c, rack_down ? 0 : 1, rack_down ? n : 2, 40 + n,
			          rack_down ? 120 : 0);
		run_with(&m, &c, "fair", &r);
		assert_all_complete(&m, &r);
		assert_totals_are_the_records(&r);
		assert_int_equal(r.nodes_lost, rack_down ? 4 : 1);
		assert_true(r.maps_rerun > 0);
		sw_sim_result_free(&r);
	}
}

/* Runs @p m under @p c twice with fair into @p a: the draws repeat, so the records do. */
static void run_twice_alike(const struct mix *m, const struct sw_sim_config *c,
                            struct sw_sim_result *a)
{
	struct sw_sim_result b;

	run_with(m, c, "fair", a);
	run_with(m, c, "fair", &b);
	assert_all_complete(m, a);
	assert_int_equal(a->events, b.events);
	assert_memory_equal(a->jobs, b.jobs, a->n_jobs * sizeof(*a->jobs));
	sw_sim_result_free(&b);
}

static void task_failures_are_the_same_for_a_seed_and_differ_across_seeds(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result a, b;

	(void)state;
	make_mix_config(&m, &c);
	c.task_failure_rate = 0.05;
	lose_node(&c, 2, 0, 90, 60);
	run_twice_alike(&m, &c, &a);
	assert_totals_are_the_records(&a);
	assert_true(a.failed_attempts > 0);
	m.w.seed = 8;
	run_with(&m, &c, "fair", &b);
	assert_true(a.failed_attempts != b.failed_attempts ||
	            memcmp(a.jobs, b.jobs, a.n_jobs * sizeof(*a.jobs)) != 0);
	sw_sim_result_free(&a);
	sw_sim_result_free(&b);
}

/* Every attempt a straggler twice as slow is the same cluster as every compute time doubled:
 * the same finishes, to the bit. */
static void stragglers_at_rate_one_are_the_compute_time_scaled_by_the_slowdown(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result slow, scaled;

	(void)state;
	make_mix_config(&m, &c);
	c.straggler_rate = 1;
	c.straggler_slowdown = 2;
	run_with(&m, &c, "fair", &slow);
	c.straggler_rate = 0;
	m.w.compute_scale = 2;
	run_with(&m, &c, "fair", &scaled);
	for (size_t i = 0; i < N_JOBS; i++)
		assert_true(slow.jobs[i].finish == scaled.jobs[i].finish);
	sw_sim_result_free(&slow);
	sw_sim_result_free(&scaled);
}

/* Stragglers drawn at 10%: the same for a seed, slower jobs than none (only compute grows, and
 * only in the attempts drawn), and a slowdown beyond its bound is refused. */
static void stragglers_are_drawn_per_attempt_and_slow_the_mix_down(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result none, a;
	struct sw_input_error err;
	double sum_none = 0, sum_a = 0;

	(void)state;
	make_mix_config(&m, &c);
	run_with(&m, &c, "fair", &none);
	c.straggler_rate = 0.1;
	c.straggler_slowdown = 5;
	run_twice_alike(&m, &c, &a);
	for (size_t i = 0; i < N_JOBS; i++) {
		sum_none += none.jobs[i].finish - none.jobs[i].arrival;
		sum_a += a.jobs[i].finish - a.jobs[i].arrival;
	}
	assert_true(sum_a > sum_none);
	sw_sim_result_free(&none);
	sw_sim_result_free(&a);
	c.straggler_slowdown = SW_SIM_MAX_SLOWDOWN + 1;
	assert_int_equal(sw_sim_run(&m.w, &c, &a, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "straggler_slowdown"));
}

static void a_task_failing_max_attempts_times_fails_its_job(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result r;

	(void)state;
	make_mix_config(&m, &c);
	c.task_failure_rate = 1;
	c.max_attempts = 2;
	run_with(&m, &c, "fair", &r);
	assert_int_equal(r.jobs_failed, N_JOBS);
	for (size_t i = 0; i < N_JOBS; i++) {
		assert_true(r.jobs[i].failed);
		assert_true(r.jobs[i].failed_attempts >= 2);
		assert_true(r.jobs[i].finish >= r.jobs[i].arrival);
	}
	sw_sim_result_free(&r);
}

static void every_policy_completes_the_mix_through_failures(void **state)
{
	const char *const *names = sw_sched_policy_names();
	struct mix m;
	struct sw_sim_config c;

	(void)state;
	make_mix_config(&m, &c);
	c.task_failure_rate = 0.02;
	lose_node(&c, 1, 2, 60, 300);
	lose_node(&c, 0, 3, 100, 0);
	for (size_t k = 0; names[k]; k++) {
		struct sw_sim_result r;

		run_with(&m, &c, names[k], &r);
		assert_all_complete(&m, &r);
		assert_totals_are_the_records(&r);
		assert_int_equal(r.nodes_lost, 2);
		sw_sim_result_free(&r);
	}
}

static void a_fault_outside_the_topology_is_an_error_naming_it(void **state)
{
	struct mix m;
	struct sw_sim_config c;
	struct sw_sim_result r;
	struct sw_input_error err;

	(void)state;
	make_mix_config(&m, &c);
	lose_node(&c, 3, 0, 10, 0);
	assert_int_equal(sw_sim_run(&m.w, &c, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "fault 1 (node 3.0"));
	assert_non_null(strstr(err.msg, "racks 0-2"));
	assert_null(r.jobs);
	sw_sim_config_default(&c);
	lose_node(&c, 0, 0, 10, 0);
	lose_node(&c, 1, 4, 10, 0);
	assert_int_equal(sw_sim_run(&m.w, &c, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "fault 2 (node 1.4"));
	assert_non_null(strstr(err.msg, "rack 1 has nodes 0-3"));
	sw_sim_config_default(&c);
	lose_node(&c, 0, 0, NAN, 0);
	assert_int_equal(sw_sim_run(&m.w, &c, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "fault 1"));
	sw_sim_config_default(&c);
	c.task_failure_rate = 1.5;
	assert_int_equal(sw_sim_run(&m.w, &c, &r, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "task_failure_rate"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(a_lost_node_s_maps_run_again_and_every_job_completes),
	        cmocka_unit_test(a_rack_down_for_a_while_and_back_loses_no_job),
	        cmocka_unit_test(lost_nodes_under_the_rack_model_lose_no_job),
	        cmocka_unit_test(task_failures_are_the_same_for_a_seed_and_differ_across_seeds),
	        cmocka_unit_test(a_task_failing_max_attempts_times_fails_its_job),
	        cmocka_unit_test(
	                stragglers_at_rate_one_are_the_compute_time_scaled_by_the_slowdown),
	        cmocka_unit_test(stragglers_are_drawn_per_attempt_and_slow_the_mix_down),
	        cmocka_unit_test(every_policy_completes_the_mix_through_failures),
	        cmocka_unit_test(a_fault_outside_the_topology_is_an_error_naming_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
