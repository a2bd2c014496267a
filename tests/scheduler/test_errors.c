/* SPDX-License-Identifier: MIT */
/* Bad input gets a negative errno and changes nothing. */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "fixture.h"

static void create_rejects_unknown_policy_name(void **state)
{
	struct sw_sched_config cfg;
	struct fx_cluster c;

	(void)state;
	fx_cluster_init(&c, 1, 2);
	sw_sched_config_default(&cfg);
	cfg.policy = "lottery";
	errno = 0;
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_int_equal(errno, EINVAL);
	cfg.policy = NULL;
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_int_equal(errno, EINVAL);
}

static void create_rejects_inconsistent_cluster_and_settings(void **state)
{
	static const double not_one[] = {0.5, 0.4};
	struct sw_sched_config cfg;
	struct fx_cluster c;

	(void)state;
	fx_cluster_init(&c, 2, 2);
	sw_sched_config_default(&cfg);
	c.nodes[3].rack = 2; /* only racks 0 and 1 exist */
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_int_equal(errno, EINVAL);
	c.nodes[3].rack = 1;
	c.nodes[1].capacity.cpu = NAN;
	assert_null(sw_sched_create(&c.spec, &cfg));
	c.nodes[1].capacity.cpu = 8;
	cfg.n_queues = 2;
	cfg.queue_capacity = not_one;
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_int_equal(errno, EINVAL);
	cfg.queue_capacity = NULL;
	cfg.slowstart = 1.5;
	assert_null(sw_sched_create(&c.spec, &cfg));
	cfg.slowstart = 0.05;
	cfg.n_users = 0;
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_null(sw_sched_create(NULL, &cfg));
}

/* Pools live in a table indexed by user: the bound keeps it small, and the largest user id the
 * bound allows gets its pool (a 32-bit table size doubling past 2^31 used to loop forever). */
static void users_and_queues_beyond_their_bounds_are_refused(void **state)
{
	struct sw_sched_config cfg;
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 2);
	sw_sched_config_default(&cfg);
	cfg.n_users = SW_SCHED_MAX_USERS + 1;
	errno = 0;
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_int_equal(errno, EINVAL);
	cfg.n_users = UINT32_MAX;
	assert_null(sw_sched_create(&c.spec, &cfg));
	cfg.n_users = 1;
	cfg.n_queues = SW_SCHED_MAX_QUEUES + 1;
	assert_null(sw_sched_create(&c.spec, &cfg));
	assert_int_equal(errno, EINVAL);
	cfg.n_queues = 1;
	cfg.n_users = SW_SCHED_MAX_USERS;
	s = sw_sched_create(&c.spec, &cfg);
	assert_non_null(s);
	fx_job_init(&j, 1, SW_SCHED_MAX_USERS - 1, 0, 2, 1, 2);
	j.spec.queue = 0;
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	assert_int_equal(fx_one(s, 0, SW_MAP, 0).job, 1);
	sw_sched_destroy(s);
}

static void policy_names_list_every_registered_policy(void **state)
{
	static const char *const want[] = {
	        "fifo",        "fair",      "drf",        "capacity",        "delay",
	        "sw-fair",     "sw-drf",    "sw-relaxed", "sw-nass",         "sw-nass-sarp",
	        "minedf",      "sw-minedf", "aria",       "adaptive",        "adaptive-hw",
	        "sw-adaptive", "ras",       "sw-ras",     "reverse-adaptive"};
	const char *const *names = sw_sched_policy_names();
	struct fx_cluster c;
	size_t n = 0;

	(void)state;
	fx_cluster_init(&c, 1, 2);
	for (; names[n]; n++) {
		struct sw_sched *s = fx_sched(&c, names[n], 1);

		assert_string_equal(names[n], want[n]);
		assert_string_equal(sw_sched_policy(s), want[n]);
		sw_sched_destroy(s);
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
}

static void job_add_rejects_bad_replicas(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 4);
	s = fx_sched(&c, "fair", 1);
	fx_job_init(&j, 1, 0, 0, 4, 1, 4);
	fx_map_on(&j, 2, 2, 1, 4); /* node 4 does not exist */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	fx_map_on(&j, 2, 2, 1, 1); /* the same node twice */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	fx_map_on(&j, 2, 0); /* no replica at all */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	j.maps[2].n_replicas = SW_MAX_REPLICAS + 1;
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	assert_int_equal(sw_sched_jobs_live(s), 0);
	sw_sched_destroy(s);
}

static void job_add_rejects_bad_fields_and_duplicate_ids(void **state)
{
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;

	(void)state;
	fx_cluster_init(&c, 1, 2);
	s = fx_sched(&c, "capacity", 2);
	fx_job_init(&j, 1, 2, 0, 2, 1, 2); /* user 2 of 2 */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	j.spec.user = 1;
	j.spec.queue = 5;
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	j.spec.queue = 1;
	j.spec.map_demand.cpu = 9; /* larger than any node */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	j.spec.map_demand.cpu = -1;
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	j.spec.map_demand.cpu = 1;
	j.spec.maps = NULL;
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	j.spec.maps = j.maps;
	assert_int_equal(sw_sched_job_add(s, &j.spec, NAN), -EINVAL);
	assert_int_equal(sw_sched_job_add(s, NULL, 0), -EINVAL);
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EEXIST);
	fx_job_init(&j, 2, 0, 0, 0, 0, 2); /* no task at all */
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), -EINVAL);
	assert_int_equal(sw_sched_jobs_live(s), 1);
	sw_sched_destroy(s);
}

static void task_events_contradicting_task_state_return_ealready(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_assignment a;

	(void)state;
	fx_world_init(&w, 1, 2, "fifo", 3, 1);
	s = w.s;
	a = fx_one(s, 0, SW_MAP, 0);
	/* Never launched. */
	assert_int_equal(sw_sched_task_started(s, 1, SW_MAP, a.task + 1, 1), -EALREADY);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task + 1, 1), -EALREADY);
	assert_int_equal(sw_sched_map_output(s, 1, a.task + 1, 0, 10, 1), -EALREADY);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_REDUCE, 0, 1), -EALREADY);
	/* Twice. */
	assert_int_equal(sw_sched_task_started(s, 1, SW_MAP, a.task, 1), 0);
	assert_int_equal(sw_sched_task_started(s, 1, SW_MAP, a.task, 1), -EALREADY);
	assert_int_equal(sw_sched_map_output(s, 1, a.task, 0, 10, 1), 0);
	assert_int_equal(sw_sched_map_output(s, 1, a.task, 0, 10, 1), -EALREADY);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 2), 0);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 2), -EALREADY);
	assert_int_equal(sw_sched_task_started(s, 1, SW_MAP, a.task, 2), -EALREADY);
	sw_sched_destroy(s);
}

static void events_for_unknown_jobs_or_tasks_return_enoent(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_job_status st;

	(void)state;
	fx_world_init(&w, 1, 2, "drf", 3, 1);
	s = w.s;
	assert_int_equal(sw_sched_task_finished(s, 99, SW_MAP, 0, 1), -ENOENT);
	assert_int_equal(sw_sched_task_started(s, 99, SW_MAP, 0, 1), -ENOENT);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, 3, 1), -ENOENT);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_REDUCE, 1, 1), -ENOENT);
	assert_int_equal(sw_sched_map_output(s, 1, 3, 0, 1, 1), -ENOENT);
	assert_int_equal(sw_sched_job_status(s, 99, &st), -ENOENT);
	sw_sched_destroy(s);
}

static void calls_with_bad_arguments_return_einval(void **state)
{
	struct fx_world w;
	struct sw_sched *s;
	struct sw_assignment a;
	struct sw_heartbeat hb = {.node = 2, .free_slots = {1, 1}};

	(void)state;
	fx_world_init(&w, 1, 2, "delay", 3, 1);
	s = w.s;
	assert_int_equal(sw_sched_heartbeat(s, &hb, 0, &a, 1), -EINVAL); /* node 2 of 2 */
	hb.node = 0;
	assert_int_equal(sw_sched_heartbeat(s, &hb, 0, NULL, 1), -EINVAL);
	assert_int_equal(sw_sched_heartbeat(s, &hb, 0, &a, -1), -EINVAL);
	assert_int_equal(sw_sched_heartbeat(s, &hb, INFINITY, &a, 1), -EINVAL);
	assert_int_equal(sw_sched_heartbeat(s, NULL, 0, &a, 1), -EINVAL);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_KINDS, 0, 1), -EINVAL);
	a = fx_one(s, 0, SW_MAP, 1);
	assert_int_equal(sw_sched_map_output(s, 1, a.task, 2, 10, 1), -EINVAL);
	assert_int_equal(sw_sched_job_status(s, 1, NULL), -EINVAL);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(create_rejects_unknown_policy_name),
	        cmocka_unit_test(create_rejects_inconsistent_cluster_and_settings),
	        cmocka_unit_test(users_and_queues_beyond_their_bounds_are_refused),
	        cmocka_unit_test(policy_names_list_every_registered_policy),
	        cmocka_unit_test(job_add_rejects_bad_replicas),
	        cmocka_unit_test(job_add_rejects_bad_fields_and_duplicate_ids),
	        cmocka_unit_test(task_events_contradicting_task_state_return_ealready),
	        cmocka_unit_test(events_for_unknown_jobs_or_tasks_return_enoent),
	        cmocka_unit_test(calls_with_bad_arguments_return_einval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
