/* SPDX-License-Identifier: MIT */
/*
 * Failures: a task attempt that fails, a node lost and back, a job killed. Each case first
 * alone, then all of them at random under every policy against a model of every task's
 * state, checking the scheduler's counters, its slots and that every job completes.
 */
#include <math.h>
#include <string.h>

#include "sw_fixture.h"

#define GB (1ull << 30)

static struct sw_job_status status(struct sw_sched *s, uint64_t job)
{
	struct sw_job_status st;

	assert_int_equal(sw_sched_job_status(s, job, &st), 0);
	return st;
}

static void a_failed_map_runs_again_and_its_failures_are_counted(void **state)
{
	struct fx_world w;
	struct sw_assignment a, b;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 1, 0);
	for (int attempt = 1; attempt <= SW_SCHED_MAX_ATTEMPTS; attempt++) {
		a = fx_one(w.s, 1, SW_MAP, attempt);
		assert_int_equal(a.task, 0);
		assert_int_equal(sw_sched_task_started(w.s, 1, SW_MAP, 0, attempt), 0);
		assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 0, attempt + 0.5), attempt);
		assert_int_equal(status(w.s, 1).pending[SW_MAP], 1);
		assert_int_equal(status(w.s, 1).running[SW_MAP], 0);
	}
	assert_int_equal(status(w.s, 1).failed[SW_MAP], SW_SCHED_MAX_ATTEMPTS);
	/* Both of node 1's slots are free again: only one task is pending. */
	assert_int_equal(fx_offer(w.s, 1, SW_MAP, 2, 9, &b), 1);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 10), 0);
	assert_int_equal(sw_sched_jobs_live(w.s), 0);
	sw_sched_destroy(w.s);
}

static void a_failed_map_goes_back_to_its_node_local_slot(void **state)
{
	struct fx_world w;
	struct sw_assignment a;

	(void)state;
	fx_world_init(&w, 1, 2, "fifo", 4, 0); /* map i on node i % 2 */
	a = fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(a.task, 0);
	a = fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(a.task, 2);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 0, 1), 1);
	a = fx_one(w.s, 0, SW_MAP, 2);
	assert_int_equal(a.task, 0); /* the node index's cursor had passed it */
	assert_int_equal(a.locality, SW_LOCALITY_NODE);
	sw_sched_destroy(w.s);
}

static void a_failed_attempt_drops_the_output_it_registered(void **state)
{
	struct fx_world w;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 2, 1);
	fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_map_output(w.s, 1, 0, 0, 5 * GB, 1), 0);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 0, 2), 1);
	assert_int_equal(status(w.s, 1).outputs, 0);
	assert_int_equal(status(w.s, 1).output_bytes, 0);
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 3).task, 0);
	assert_int_equal(sw_sched_map_output(w.s, 1, 0, 0, 3 * GB, 4), 0);
	assert_int_equal(status(w.s, 1).output_bytes, 3 * GB);
	sw_sched_destroy(w.s);
}

static void a_failed_reduce_runs_again(void **state)
{
	struct fx_world w;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 1, 2);
	fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 1), 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).task, 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 2).task, 1);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_REDUCE, 0, 3), 1);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_REDUCE, 0, 3), -EALREADY);
	assert_int_equal(fx_one(w.s, 1, SW_REDUCE, 4).task, 0);
	assert_int_equal(status(w.s, 1).failed[SW_REDUCE], 1);
	sw_sched_destroy(w.s);
}

static void a_lost_node_gives_back_its_running_tasks_and_gets_nothing(void **state)
{
	struct fx_world w;
	struct sw_assignment a[4];
	struct sw_job_status st;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 4, 1);
	assert_int_equal(fx_offer(w.s, 0, SW_MAP, 2, 0, a), 2);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, a[0].task, 1), 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 1).task, 0);
	/* Map 0 is done, but its output on node 0 is lost with it: 3 tasks go back. */
	assert_int_equal(sw_sched_node_lost(w.s, 0, 2), 3);
	st = status(w.s, 1);
	assert_int_equal(st.pending[SW_MAP], 4);
	assert_int_equal(st.pending[SW_REDUCE], 1);
	assert_int_equal(st.running[SW_MAP] + st.running[SW_REDUCE], 0);
	assert_int_equal(st.lost[SW_MAP], 1);
	assert_int_equal(st.lost[SW_REDUCE], 1);
	assert_int_equal(st.lost_outputs, 1);
	assert_int_equal(st.done[SW_MAP], 0);
	assert_float_equal(st.duration_sum[SW_MAP], 0, 0);
	assert_int_equal(st.failed[SW_MAP], 0);
	assert_int_equal(sw_sched_heartbeat(w.s, &(struct sw_heartbeat){0, {2, 2}}, 3, a, 4), 0);
	/* Node 1 gets everything, the reduce included (slow-start is not undone). */
	assert_int_equal(sw_sched_heartbeat(w.s, &(struct sw_heartbeat){1, {2, 2}}, 3, a, 4), 3);
	assert_int_equal(sw_sched_map_output(w.s, 1, a[0].task, 0, GB, 4), -EHOSTDOWN);
	sw_sched_destroy(w.s);
}

static void a_restarted_node_gives_back_its_running_tasks_and_keeps_its_map_outputs(void **state)
{
	struct fx_world w;
	struct sw_assignment a[4];
	struct sw_job_status st;
	uint32_t done;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 4, 1);
	assert_int_equal(fx_offer(w.s, 0, SW_MAP, 2, 0, a), 2);
	done = a[0].task;
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, done, 1), 0);
	assert_int_equal(fx_one(w.s, 0, SW_REDUCE, 1).task, 0);
	/* The running map and reduce go back; the finished map's output stays on node 0. */
	assert_int_equal(sw_sched_node_restarted(w.s, 0, 2), 2);
	st = status(w.s, 1);
	assert_int_equal(st.pending[SW_MAP], 3);
	assert_int_equal(st.pending[SW_REDUCE], 1);
	assert_int_equal(st.running[SW_MAP] + st.running[SW_REDUCE], 0);
	assert_int_equal(st.lost[SW_MAP], 1);
	assert_int_equal(st.lost[SW_REDUCE], 1);
	assert_int_equal(st.lost_outputs, 0);
	assert_int_equal(st.done[SW_MAP], 1);
	assert_int_equal(st.failed[SW_MAP], 0);
	/* The node stays up and gets work at once, its slots free again. */
	assert_int_equal(sw_sched_heartbeat(w.s, &(struct sw_heartbeat){0, {2, 2}}, 3, a, 4), 3);
	/* An output the agent no longer has is the driver's to report. */
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, done, 4), 0);
	assert_int_equal(status(w.s, 1).lost_outputs, 1);
	assert_int_equal(sw_sched_node_restarted(w.s, 2, 4), -EINVAL);
	assert_int_equal(sw_sched_node_restarted(w.s, 0, NAN), -EINVAL);
	assert_int_equal(sw_sched_node_lost(w.s, 0, 5), 3);
	assert_int_equal(sw_sched_node_restarted(w.s, 0, 6), -EHOSTDOWN);
	sw_sched_destroy(w.s);
}

static void finished_maps_stay_done_once_no_reduce_needs_them(void **state)
{
	struct fx_world w;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 2, 1);
	fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_map_output(w.s, 1, 0, 0, GB, 1), 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 1), 0);
	fx_one(w.s, 1, SW_REDUCE, 2);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_REDUCE, 0, 3), 0);
	assert_int_equal(sw_sched_node_lost(w.s, 0, 4), 0);
	assert_int_equal(status(w.s, 1).done[SW_MAP], 1);
	assert_int_equal(status(w.s, 1).outputs, 1);
	sw_sched_destroy(w.s);
}

static void a_map_output_registered_elsewhere_follows_its_node(void **state)
{
	struct fx_world w;

	(void)state;
	fx_world_init(&w, 1, 3, "fair", 2, 1);
	fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_map_output(w.s, 1, 0, 2, GB, 1), 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 1), 0);
	assert_int_equal(sw_sched_node_lost(w.s, 0, 2), 0);
	assert_int_equal(sw_sched_node_lost(w.s, 2, 2), 1);
	assert_int_equal(status(w.s, 1).lost_outputs, 1);
	sw_sched_destroy(w.s);
}

static void a_map_whose_output_is_lost_runs_again_while_a_reduce_needs_it(void **state)
{
	struct fx_world w;
	struct sw_job_status st;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 2, 1);
	fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_map_output(w.s, 1, 0, 0, GB, 1), 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 2), 0);
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, 1, 3), -EALREADY); /* not done */
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, 2, 3), -ENOENT);
	assert_int_equal(sw_sched_map_output_lost(w.s, 2, 0, 3), -ENOENT);
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, 0, NAN), -EINVAL);
	assert_int_equal(sw_sched_map_output_lost(NULL, 1, 0, 3), -EINVAL);
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, 0, 3), 0);
	st = status(w.s, 1);
	assert_int_equal(st.pending[SW_MAP], 2);
	assert_int_equal(st.done[SW_MAP], 0);
	assert_int_equal(st.outputs, 0);
	assert_int_equal(st.lost_outputs, 1);
	assert_int_equal(st.failed[SW_MAP], 0);
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, 0, 3), -EALREADY);
	/* node 0 is still up and gets the map again: the driver decides where not to send it */
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 4).task, 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 5), 0);
	fx_one(w.s, 1, SW_MAP, 5);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 1, 6), 0);
	fx_one(w.s, 1, SW_REDUCE, 6);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_REDUCE, 0, 7), 0);
	assert_int_equal(sw_sched_jobs_live(w.s), 0);
	sw_sched_destroy(w.s);
}

static void a_node_back_up_gets_work_again(void **state)
{
	struct fx_world w;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 2, 0);
	assert_int_equal(sw_sched_node_up(w.s, 0, 0), -EALREADY);
	assert_int_equal(sw_sched_node_lost(w.s, 0, 0), 0);
	assert_int_equal(sw_sched_node_lost(w.s, 0, 1), -EALREADY);
	assert_int_equal(sw_sched_node_lost(w.s, 2, 1), -EINVAL);
	assert_int_equal(sw_sched_node_lost(NULL, 0, 1), -EINVAL);
	assert_int_equal(sw_sched_node_up(w.s, 0, NAN), -EINVAL);
	assert_int_equal(sw_sched_node_up(w.s, 0, 2), 0);
	assert_int_equal(fx_one(w.s, 0, SW_MAP, 3).locality, SW_LOCALITY_NODE);
	sw_sched_destroy(w.s);
}

static void a_killed_job_frees_its_slots_and_its_late_events_get_enoent(void **state)
{
	struct fx_world w;
	struct fx_job other;
	struct sw_assignment a[2];

	(void)state;
	fx_world_init(&w, 1, 1, "fair", 4, 1);
	fx_job_init(&other, 2, 1, 1, 2, 0, 1);
	assert_int_equal(fx_offer(w.s, 0, SW_MAP, 2, 0, a), 2);
	assert_int_equal(sw_sched_job_add(w.s, &other.spec, 1), 0);
	assert_int_equal(fx_offer(w.s, 0, SW_MAP, 2, 1, a), 0); /* node 0 is full */
	assert_int_equal(sw_sched_job_remove(w.s, 1, 2), 0);
	assert_int_equal(sw_sched_job_remove(w.s, 1, 2), -ENOENT);
	assert_int_equal(sw_sched_job_remove(w.s, 2, NAN), -EINVAL);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, a[0].task, 3), -ENOENT);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, a[1].task, 3), -ENOENT);
	assert_int_equal(sw_sched_map_output(w.s, 1, a[1].task, 0, GB, 3), -ENOENT);
	assert_int_equal(sw_sched_jobs_live(w.s), 1);
	assert_int_equal(fx_offer(w.s, 0, SW_MAP, 2, 3, a), 2);
	assert_int_equal(a[0].job, 2);
	assert_int_equal(a[1].job, 2);
	sw_sched_destroy(w.s);
}

static void task_failed_rejects_what_is_not_running(void **state)
{
	struct fx_world w;

	(void)state;
	fx_world_init(&w, 1, 2, "fair", 2, 1);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 0, 0), -EALREADY);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 2, 0), -ENOENT);
	assert_int_equal(sw_sched_task_failed(w.s, 9, SW_MAP, 0, 0), -ENOENT);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_KINDS, 0, 0), -EINVAL);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 0, INFINITY), -EINVAL);
	assert_int_equal(sw_sched_task_failed(NULL, 1, SW_MAP, 0, 0), -EINVAL);
	fx_one(w.s, 0, SW_MAP, 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, 0, 1), 0);
	assert_int_equal(sw_sched_task_failed(w.s, 1, SW_MAP, 0, 2), -EALREADY);
	sw_sched_destroy(w.s);
}

/*
 * SARP counts the reduces running on each rack: a failed one frees its rack's place, so on a
 * saturated rack the job's reduce runs there again through line 8.
 */
static void a_failed_reduce_gives_back_its_sarp_place_on_the_rack(void **state)
{
	struct fx_cluster c;
	struct sw_sched_config cfg;
	struct sw_job_profile prof;
	struct swx_net net = {0};
	struct fx_job j;
	struct sw_assignment a, b;
	struct sw_nass_stats st;
	struct sw_sched *s;
	uint32_t red[2];
	uint64_t sarp;

	(void)state;
	fx_cluster_init(&c, 2, 2);
	swx_config(&cfg, "sw-fair", 1);
	s = swx_sched(&c, &cfg);
	fx_job_init(&j, 1, 0, 0, 20, 4, 4);
	swx_ratio(&j, &prof, 2);
	assert_int_equal(sw_sched_job_add(s, &j.spec, 0), 0);
	for (uint32_t m = 0; m < 4; m++)
		swx_run_map(s, 1, m % 2 ? 2 : 0, GB, 1 + m);
	assert_int_equal(fx_one(s, 3, SW_REDUCE, 6).task, 0); /* rack 1 idle: line 13 */
	swx_view(s, 1, 2, NULL, red);
	assert_memory_equal(red, ((uint32_t[]){2, 2}), sizeof(red));
	a = fx_one(s, 0, SW_REDUCE, 7); /* line 13 on rack 0, still idle */
	b = fx_one(s, 1, SW_REDUCE, 7);
	assert_int_equal(a.task, 1);
	assert_int_equal(b.task, 2);
	/* Rack 0 has its two and saturates; the last reduce waits while maps are pending. */
	assert_int_equal(swx_util(s, &c, &net, 0, 1.0), 1);
	assert_int_equal(fx_offer(s, 0, SW_REDUCE, 1, 8, &a), 0);
	assert_int_equal(sw_sched_task_failed(s, 1, SW_REDUCE, 1, 9), 1);
	/* Idle again: rack 0 wants one more, so the re-run is SARP's (line 13), not line 14. */
	assert_int_equal(swx_util(s, &c, &net, 0, 0.0), 0);
	assert_int_equal(sw_sched_nass_stats(s, &st), 0);
	sarp = st.launched[0][SW_LINE_SARP_REDUCE];
	a = fx_one(s, 1, SW_REDUCE, 20);
	assert_int_equal(a.task, 1);
	assert_int_equal(sw_sched_nass_stats(s, &st), 0);
	assert_int_equal(st.launched[0][SW_LINE_SARP_REDUCE], sarp + 1);
	sw_sched_destroy(s);
}

/* ---- every policy, at random ---- */

#define R_JOBS  24
#define R_MAPS  24
#define R_STEPS 60000

struct rtask {
	uint8_t state; /* 0 pending, 1 running, 2 done */
	uint32_t node, out_node;
	int failures;
};

struct rjob {
	struct fx_job fx;
	struct rtask t[SW_KINDS][R_MAPS];
	uint32_t n[SW_KINDS];
	bool added, gone, killed;
};

struct rworld {
	struct fx_cluster c;
	struct sw_sched *s;
	struct rjob jobs[R_JOBS];
	uint16_t running[FX_MAX_NODES][SW_KINDS];
	bool down[FX_MAX_NODES];
	struct swx_net net;
	uint64_t rng;
	double now;
	uint32_t requeued, lost_nodes, failed, killed;
};

static uint32_t rnd(struct rworld *w, uint32_t n)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (uint32_t)(w->rng % n);
}

static uint32_t count(const struct rjob *j, int k, uint8_t state)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < j->n[k]; i++)
		n += j->t[k][i].state == state;
	return n;
}

/* The scheduler's view of every live job is the model's. */
static void check_jobs(struct rworld *w)
{
	uint32_t live = 0;

	for (uint32_t i = 0; i < R_JOBS; i++) {
		struct rjob *j = &w->jobs[i];
		struct sw_job_status st;

		if (!j->added || j->gone) {
			if (j->added)
				assert_int_equal(sw_sched_job_status(w->s, j->fx.spec.id, &st),
				                 -ENOENT);
			continue;
		}
		live++;
		st = status(w->s, j->fx.spec.id);
		for (int k = 0; k < SW_KINDS; k++) {
			assert_int_equal(st.pending[k], count(j, k, 0));
			assert_int_equal(st.running[k], count(j, k, 1));
			assert_int_equal(st.done[k], count(j, k, 2));
		}
	}
	assert_int_equal(sw_sched_jobs_live(w->s), live);
}

static void job_gone(struct rworld *w, struct rjob *j)
{
	for (int k = 0; k < SW_KINDS; k++)
		for (uint32_t i = 0; i < j->n[k]; i++)
			if (j->t[k][i].state == 1)
				w->running[j->t[k][i].node][k]--;
	j->gone = true;
}

static void heartbeat(struct rworld *w, uint32_t node)
{
	struct sw_heartbeat hb = {.node = node};
	struct sw_assignment a[4];
	int got;

	/* Now and then a stale report offers every slot: the scheduler's own count must hold. */
	for (int k = 0; k < SW_KINDS; k++)
		hb.free_slots[k] = (uint16_t)(rnd(w, 2) ? 2 : 2 - w->running[node][k]);
	got = sw_sched_heartbeat(w->s, &hb, w->now, a, 4);
	assert_true(got >= 0);
	if (w->down[node])
		assert_int_equal(got, 0);
	for (int i = 0; i < got; i++) {
		struct rjob *j = &w->jobs[a[i].job - 1];
		struct rtask *t = &j->t[a[i].kind][a[i].task];

		assert_false(j->gone);
		assert_int_equal(t->state, 0);
		t->state = 1;
		t->node = node;
		assert_true(++w->running[node][a[i].kind] <= 2);
		assert_int_equal(
		        sw_sched_task_started(w->s, a[i].job, a[i].kind, a[i].task, w->now), 0);
	}
}

/* A running task ends: it finishes (a map registers its output first) or fails. */
static void task_end(struct rworld *w, struct rjob *j, int k, uint32_t i)
{
	struct rtask *t = &j->t[k][i];
	uint64_t id = j->fx.spec.id;

	/* A reduce finishes only once every map is done, as it needs all their outputs. */
	if (k == SW_REDUCE && count(j, SW_MAP, 2) < j->n[SW_MAP] && rnd(w, 4))
		return;
	if (rnd(w, 10) == 0) {
		int rc = sw_sched_task_failed(w->s, id, k, i, w->now);

		assert_int_equal(rc, ++t->failures);
		t->state = 0;
		w->running[t->node][k]--;
		w->failed++;
		if (rc == SW_SCHED_MAX_ATTEMPTS) {
			assert_int_equal(sw_sched_job_remove(w->s, id, w->now), 0);
			job_gone(w, j);
			j->killed = true;
			w->killed++;
		}
		return;
	}
	if (k == SW_MAP) {
		/* Now and then the output lands on another node (a spill elsewhere). */
		t->out_node = rnd(w, 4) ? t->node : rnd(w, w->c.spec.n_nodes);
		int rc = sw_sched_map_output(w->s, id, i, t->out_node, GB, w->now);

		if (w->down[t->out_node]) {
			assert_int_equal(rc, -EHOSTDOWN);
			t->out_node = t->node;
			rc = sw_sched_map_output(w->s, id, i, t->out_node, GB, w->now);
		}
		assert_int_equal(rc, 0);
	}
	assert_int_equal(sw_sched_task_finished(w->s, id, k, i, w->now), 0);
	t->state = 2;
	w->running[t->node][k]--;
	if (count(j, SW_MAP, 2) + count(j, SW_REDUCE, 2) == j->n[SW_MAP] + j->n[SW_REDUCE])
		j->gone = true;
	/* The job is gone: its late events are refused. */
	if (j->gone)
		assert_int_equal(sw_sched_task_failed(w->s, id, k, i, w->now), -ENOENT);
}

static void node_lost(struct rworld *w, uint32_t node)
{
	uint32_t expect = 0;

	for (uint32_t i = 0; i < R_JOBS; i++) {
		struct rjob *j = &w->jobs[i];
		bool need = count(j, SW_REDUCE, 2) < j->n[SW_REDUCE];

		if (!j->added || j->gone)
			continue;
		for (int k = 0; k < SW_KINDS; k++) {
			for (uint32_t x = 0; x < j->n[k]; x++) {
				struct rtask *t = &j->t[k][x];

				if ((t->state == 1 && t->node == node) ||
				    (k == SW_MAP && t->state == 2 && need && t->out_node == node)) {
					t->state = 0;
					expect++;
				}
			}
		}
	}
	assert_int_equal(sw_sched_node_lost(w->s, node, w->now), (int)expect);
	w->running[node][SW_MAP] = w->running[node][SW_REDUCE] = 0;
	w->down[node] = true;
	w->requeued += expect;
	w->lost_nodes++;
}

/* Ends one running task of a job picked at random. */
static void end_one(struct rworld *w)
{
	uint32_t first = rnd(w, R_JOBS);

	for (uint32_t x = 0; x < R_JOBS; x++) {
		struct rjob *j = &w->jobs[(first + x) % R_JOBS];
		uint32_t n = count(j, SW_MAP, 1) + count(j, SW_REDUCE, 1), pick;

		if (!j->added || j->gone || !n)
			continue;
		pick = rnd(w, n);
		for (int k = 0; k < SW_KINDS; k++)
			for (uint32_t i = 0; i < j->n[k]; i++)
				if (j->t[k][i].state == 1 && pick-- == 0)
					return task_end(w, j, k, i);
	}
}

static void random_step(struct rworld *w, uint32_t *added)
{
	uint32_t n_nodes = w->c.spec.n_nodes, r = rnd(w, 1000);

	w->now += 0.25;
	if (*added < R_JOBS && r < 20) {
		struct rjob *j = &w->jobs[*added];

		assert_int_equal(sw_sched_job_add(w->s, &j->fx.spec, w->now), 0);
		j->added = true;
		(*added)++;
	} else if (r < 40) {
		uint32_t node = rnd(w, n_nodes);

		if (w->down[node]) {
			assert_int_equal(sw_sched_node_up(w->s, node, w->now), 0);
			w->down[node] = false;
		} else {
			node_lost(w, node);
		}
	} else if (r < 55) {
		struct rjob *j = &w->jobs[rnd(w, R_JOBS)];

		if (j->added && !j->gone && w->killed < R_JOBS / 8) {
			assert_int_equal(sw_sched_job_remove(w->s, j->fx.spec.id, w->now), 0);
			job_gone(w, j);
			j->killed = true;
			w->killed++;
		}
	} else if (r < 75) {
		swx_util(w->s, &w->c, &w->net, rnd(w, w->c.spec.n_racks), rnd(w, 2) ? 1.0 : 0.1);
	} else if (r < 600) {
		heartbeat(w, rnd(w, n_nodes));
	} else {
		end_one(w);
	}
}

static void run_random(const char *policy, uint64_t seed)
{
	struct rworld *w = calloc(1, sizeof(*w));
	struct sw_sched_config cfg;
	uint32_t added = 0, step, left;

	assert_non_null(w);
	w->rng = seed;
	fx_cluster_init(&w->c, 3, 3);
	for (uint32_t n = 2; n < 9; n += 3)
		w->c.nodes[n].pool = 1; /* adaptive-hw calibrates on both hardware pools */
	swx_config(&cfg, policy, 4);
	cfg.slowstart = 0.05;
	w->s = swx_sched(&w->c, &cfg);
	for (uint32_t i = 0; i < R_JOBS; i++) {
		struct rjob *j = &w->jobs[i];

		j->n[SW_MAP] = rnd(w, R_MAPS + 1);
		j->n[SW_REDUCE] = rnd(w, 4) + (j->n[SW_MAP] == 0);
		fx_job_init(&j->fx, i + 1, rnd(w, 4), 0, j->n[SW_MAP], j->n[SW_REDUCE], 9);
		for (uint32_t m = 0; m < j->n[SW_MAP]; m++)
			fx_map_on(&j->fx, m, 2, rnd(w, 9), (rnd(w, 8) + 1 + m) % 9);
		for (uint32_t m = 0; m < j->n[SW_MAP]; m++)
			if (j->fx.maps[m].replicas[0] == j->fx.maps[m].replicas[1])
				j->fx.maps[m].n_replicas = 1;
	}
	for (step = 0; step < R_STEPS; step++) {
		random_step(w, &added);
		if (step % 64 == 0)
			check_jobs(w);
		for (left = 0; left < R_JOBS && (!w->jobs[left].added || w->jobs[left].gone);
		     left++)
			;
		if (added == R_JOBS && left == R_JOBS)
			break;
	}
	check_jobs(w);
	/* Every job completed or was killed, and the faults really happened. */

	assert_true(step < R_STEPS);
	assert_int_equal(sw_sched_jobs_live(w->s), 0);
	assert_true(w->lost_nodes > 0 && w->requeued > 0 && w->failed > 0 && w->killed > 0);
	assert_true(w->killed <= R_JOBS / 4);
	sw_sched_destroy(w->s);
	free(w);
}

static void every_policy_completes_every_job_through_failures_losses_and_kills(void **state)
{
	(void)state;
	for (const char *const *p = sw_sched_policy_names(); *p; p++)
		for (uint64_t seed = 1; seed <= 3; seed++)
			run_random(*p, seed * 0x9e3779b97f4a7c15ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(a_failed_map_runs_again_and_its_failures_are_counted),
	        cmocka_unit_test(a_failed_map_goes_back_to_its_node_local_slot),
	        cmocka_unit_test(a_failed_attempt_drops_the_output_it_registered),
	        cmocka_unit_test(a_failed_reduce_runs_again),
	        cmocka_unit_test(a_lost_node_gives_back_its_running_tasks_and_gets_nothing),
	        cmocka_unit_test(
	                a_restarted_node_gives_back_its_running_tasks_and_keeps_its_map_outputs),
	        cmocka_unit_test(finished_maps_stay_done_once_no_reduce_needs_them),
	        cmocka_unit_test(a_map_output_registered_elsewhere_follows_its_node),
	        cmocka_unit_test(a_map_whose_output_is_lost_runs_again_while_a_reduce_needs_it),
	        cmocka_unit_test(a_node_back_up_gets_work_again),
	        cmocka_unit_test(a_killed_job_frees_its_slots_and_its_late_events_get_enoent),
	        cmocka_unit_test(task_failed_rejects_what_is_not_running),
	        cmocka_unit_test(a_failed_reduce_gives_back_its_sarp_place_on_the_rack),
	        cmocka_unit_test(
	                every_policy_completes_every_job_through_failures_losses_and_kills),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
