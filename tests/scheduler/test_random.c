/* SPDX-License-Identifier: MIT */
/*
 * Randomized consistency: many jobs and heartbeats under every policy, checking after each
 * assignment that no node runs more tasks than it has slots or more than its resources,
 * that no task is handed out twice, that reduces respect slow-start, that the source replica
 * matches the reported locality, and that every job completes. A reference model, recomputed
 * from scratch for every slot, also says which job must get it (the earliest fitting job of
 * the pool with the lowest key; under Delay, the first one in that order whose best map is
 * within its allowed locality, the others before it being skipped) and at which locality.
 * The sw-* policies get the consistency checks and the locality check (a job's map is still
 * its best placed one for the node) but no reference choice: test_nass.c specifies NASS.
 * Their racks turn saturated and clear at random, and some jobs are shuffle-heavy. MinEDF,
 * Adaptive and RAS get the same checks (test_edf.c, test_adaptive.c, test_accel.c and
 * test_ras.c specify their order); half the jobs carry a deadline and an ARIA profile, some
 * too tight to be met once the job waits. A quarter of the nodes form the accelerated
 * hardware pool, which only adaptive-hw reads.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define N_JOBS    40
#define N_USERS   12
#define MAX_TASKS 40
#define STEPS     4000

struct rjob {
	struct fx_job fx;
	uint8_t launched[SW_KINDS][MAX_TASKS];
	uint32_t n_launched[SW_KINDS];
	uint32_t maps_done;
	/* Delay scheduling, as the scheduler should see it. */
	enum sw_locality level;
	double waited;
	bool skipped;
};

/* A user's pool under fair, drf and capacity (queue = user here). */
struct upool {
	uint32_t running[SW_KINDS];
	struct sw_resources used;
};

struct running {
	uint32_t job, node, task;
	enum sw_task_kind kind;
};

struct world {
	struct fx_cluster c;
	struct sw_sched *s;
	struct rjob jobs[N_JOBS];
	struct running run[FX_MAX_NODES * 4];
	uint32_t n_run, n_added;
	uint16_t node_tasks[FX_MAX_NODES][SW_KINDS];
	struct sw_resources node_used[FX_MAX_NODES];
	struct upool users[N_USERS];
	struct sw_resources total;
	double total_slots[SW_KINDS];
	const char *policy;
	bool delay;
	bool model;            /* the reference model says who gets each slot */
	double last_heartbeat; /* Delay: time of the previous heartbeat, -1 before the first */
	uint64_t rng;
	double now;
	uint64_t xrack[3]; /* cumulative cross-rack bytes per rack, for NetSat */
};

static uint32_t rnd(struct world *w, uint32_t n)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return (uint32_t)(w->rng % n);
}

/* Short tasks for the jobs with a deadline: the minimum is a few slots. */
static const struct sw_job_profile short_tasks = {.map_avg = 2,
                                                  .map_max = 4,
                                                  .shuffle_avg = 1,
                                                  .shuffle_max = 2,
                                                  .reduce_avg = 3,
                                                  .reduce_max = 5};

static void make_job(struct world *w, uint32_t i)
{
	struct fx_job *j = &w->jobs[i].fx;
	uint32_t n_maps = 1 + rnd(w, MAX_TASKS), n_nodes = w->c.spec.n_nodes;

	fx_job_init(j, 1000 + i, rnd(w, N_USERS), w->now, n_maps, rnd(w, 6), n_nodes);
	j->spec.map_demand =
	        (struct sw_resources){.cpu = 0.5 + rnd(w, 6), .mem_gb = 1 + rnd(w, 12)};
	j->spec.reduce_demand = (struct sw_resources){.cpu = 1, .mem_gb = 0.5 * (1 + rnd(w, 4))};
	if (rnd(w, 2)) {
		j->spec.deadline = w->now + 20 + rnd(w, 200);
		j->spec.profile = &short_tasks;
	}
	for (uint32_t m = 0; m < n_maps; m++) {
		uint32_t a = rnd(w, n_nodes), b = (a + 1 + rnd(w, n_nodes - 1)) % n_nodes;

		if (rnd(w, 2))
			fx_map_on(j, m, 2, a, b);
		else
			fx_map_on(j, m, 1, a);
	}
}

static const struct sw_resources *demand(const struct rjob *rj, enum sw_task_kind kind)
{
	return kind == SW_MAP ? &rj->fx.spec.map_demand : &rj->fx.spec.reduce_demand;
}

static bool runnable(const struct rjob *rj, enum sw_task_kind kind)
{
	const struct sw_job_spec *spec = &rj->fx.spec;
	uint32_t n = kind == SW_MAP ? spec->n_maps : spec->n_reduces;

	return rj->n_launched[kind] < n &&
	       (kind == SW_MAP || rj->maps_done >= (uint32_t)ceil(0.05 * spec->n_maps));
}

static bool fits(const struct world *w, uint32_t node, const struct sw_resources *d)
{
	const struct sw_resources *cap = &w->c.nodes[node].capacity;

	return w->node_used[node].cpu + d->cpu <= cap->cpu + 1e-9 &&
	       w->node_used[node].mem_gb + d->mem_gb <= cap->mem_gb + 1e-9;
}

static double pool_key(const struct world *w, uint32_t user, enum sw_task_kind kind)
{
	const struct upool *p = &w->users[user];

	if (strcmp(w->policy, "fair") == 0 || w->delay)
		return p->running[kind];
	if (strcmp(w->policy, "capacity") == 0)
		return p->running[kind] / (1.0 / N_USERS * w->total_slots[kind]);
	if (strcmp(w->policy, "drf") == 0)
		return fmax(p->used.cpu / w->total.cpu, p->used.mem_gb / w->total.mem_gb);
	return 0;
}

/* The best locality of a pending map of @p rj for @p node, by brute force. */
static enum sw_locality best_level(const struct world *w, const struct rjob *rj, uint32_t node)
{
	enum sw_locality best = SW_LOCALITY_NONE;

	for (uint32_t m = 0; m < rj->fx.spec.n_maps; m++) {
		const struct sw_map_spec *map = &rj->fx.maps[m];

		if (rj->launched[SW_MAP][m])
			continue;
		for (int r = 0; r < map->n_replicas; r++) {
			enum sw_locality l = SW_LOCALITY_REMOTE;

			if (map->replicas[r] == node)
				l = SW_LOCALITY_NODE;
			else if (w->c.nodes[map->replicas[r]].rack == w->c.nodes[node].rack)
				l = SW_LOCALITY_RACK;
			if (l < best)
				best = l;
		}
	}
	return best;
}

/* The paper's allowed level with default waits of 5 s + 5 s. */
static enum sw_locality allowed_level(const struct rjob *rj)
{
	if (rj->level == SW_LOCALITY_NODE)
		return rj->waited >= 10  ? SW_LOCALITY_REMOTE
		       : rj->waited >= 5 ? SW_LOCALITY_RACK
		                         : SW_LOCALITY_NODE;
	if (rj->level == SW_LOCALITY_RACK)
		return rj->waited >= 5 ? SW_LOCALITY_REMOTE : SW_LOCALITY_RACK;
	return SW_LOCALITY_REMOTE;
}

struct candidate {
	double key;
	uint32_t pool, job;
};

static int candidate_cmp(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->pool != y->pool)
		return x->pool < y->pool ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* The job that must get a @p kind slot on @p node, -1 for none; marks Delay's skips. */
static int reference_choice(struct world *w, uint32_t node, enum sw_task_kind kind)
{
	bool one_pool = strcmp(w->policy, "fifo") == 0;
	struct candidate c[N_JOBS];
	uint32_t n = 0;

	for (uint32_t i = 0; i < w->n_added; i++) {
		uint32_t pool = one_pool ? 0 : w->jobs[i].fx.spec.user;

		/* Jobs are added in arrival order, so the index orders jobs within a pool. */
		if (runnable(&w->jobs[i], kind))
			c[n++] = (struct candidate){pool_key(w, pool, kind), pool, i};
	}
	qsort(c, n, sizeof(c[0]), candidate_cmp);
	for (uint32_t i = 0; i < n; i++) {
		struct rjob *rj = &w->jobs[c[i].job];

		if (!fits(w, node, demand(rj, kind)))
			continue;
		if (!w->delay || kind == SW_REDUCE || best_level(w, rj, node) <= allowed_level(rj))
			return (int)c[i].job;
		rj->skipped = true;
	}
	return -1;
}

/* Delay: every job skipped during the previous heartbeat waited until this one. */
static void credit_waits(struct world *w)
{
	double dt = w->last_heartbeat >= 0 && w->now > w->last_heartbeat
	                    ? w->now - w->last_heartbeat
	                    : 0;

	for (uint32_t i = 0; i < w->n_added; i++) {
		if (w->jobs[i].skipped)
			w->jobs[i].waited += dt;
		w->jobs[i].skipped = false;
	}
	w->last_heartbeat = w->now;
}

static void account(struct world *w, struct rjob *rj, uint32_t node, enum sw_task_kind kind,
                    double sign)
{
	struct upool *p = &w->users[rj->fx.spec.user];
	const struct sw_resources *d = demand(rj, kind);

	w->node_tasks[node][kind] += sign > 0 ? 1 : -1;
	w->node_used[node].cpu += sign * d->cpu;
	w->node_used[node].mem_gb += sign * d->mem_gb;
	p->running[kind] += sign > 0 ? 1 : -1;
	p->used.cpu += sign * d->cpu;
	p->used.mem_gb += sign * d->mem_gb;
	/* Mirrors the scheduler, which zeroes an idle pool's use against rounding drift. */
	if (p->running[SW_MAP] + p->running[SW_REDUCE] == 0)
		p->used = (struct sw_resources){0};
}

static void check_assignment(struct world *w, uint32_t node, const struct sw_assignment *a)
{
	uint32_t ji = (uint32_t)(a->job - 1000);
	struct rjob *rj;
	const struct sw_job_spec *spec;

	assert_true(ji < w->n_added);
	rj = &w->jobs[ji];
	spec = &rj->fx.spec;
	assert_true(a->task < (a->kind == SW_MAP ? spec->n_maps : spec->n_reduces));
	if (a->kind == SW_MAP) {
		/* The job's best placed map; Delay then restarts the job's wait at that level. */
		rj->level = best_level(w, rj, node);
		assert_int_equal(a->locality, rj->level);
		rj->waited = 0;
	}
	assert_int_equal(rj->launched[a->kind][a->task]++, 0);
	rj->n_launched[a->kind]++;
	if (a->kind == SW_MAP) {
		const struct sw_map_spec *m = &spec->maps[a->task];
		uint32_t src_rack = w->c.nodes[a->src_node].rack;
		bool is_replica = false;

		for (int r = 0; r < m->n_replicas; r++)
			is_replica |= m->replicas[r] == a->src_node;
		assert_true(is_replica);
		if (a->locality == SW_LOCALITY_NODE)
			assert_int_equal(a->src_node, node);
		else if (a->locality == SW_LOCALITY_RACK)
			assert_int_equal(src_rack, w->c.nodes[node].rack);
		else
			assert_int_not_equal(src_rack, w->c.nodes[node].rack);
	} else {
		assert_true(rj->maps_done >= (uint32_t)ceil(0.05 * spec->n_maps));
		assert_int_equal(a->src_node, SW_NO_NODE);
	}
	account(w, rj, node, a->kind, 1);
	assert_true(w->node_tasks[node][SW_MAP] <= w->c.nodes[node].map_slots);
	assert_true(w->node_tasks[node][SW_REDUCE] <= w->c.nodes[node].reduce_slots);
	assert_true(w->node_used[node].cpu <= w->c.nodes[node].capacity.cpu + 1e-9);
	assert_true(w->node_used[node].mem_gb <= w->c.nodes[node].capacity.mem_gb + 1e-9);
	w->run[w->n_run++] = (struct running){ji, node, a->task, a->kind};
	if (rnd(w, 2))
		assert_int_equal(sw_sched_task_started(w->s, a->job, a->kind, a->task, w->now), 0);
}

static void heartbeat(struct world *w, uint32_t node, bool all_free)
{
	struct sw_heartbeat hb = {.node = node};
	struct sw_assignment out[8];
	int n, i = 0;

	for (int k = 0; k < SW_KINDS; k++)
		hb.free_slots[k] = all_free ? 4 : (uint16_t)rnd(w, 4);
	n = sw_sched_heartbeat(w->s, &hb, w->now, out, 8);
	assert_true(n >= 0);
	if (w->delay)
		credit_waits(w);
	for (int k = 0; k < SW_KINDS; k++) {
		uint16_t slots =
		        k == SW_MAP ? w->c.nodes[node].map_slots : w->c.nodes[node].reduce_slots;
		int free = slots - w->node_tasks[node][k];

		if (hb.free_slots[k] < free)
			free = hb.free_slots[k];
		for (int f = 0; f < free; f++) {
			bool got = i < n && out[i].kind == (enum sw_task_kind)k;

			if (w->model)
				assert_int_equal(got ? (int)(out[i].job - 1000) : -1,
				                 reference_choice(w, node, k));
			if (!got)
				break;
			check_assignment(w, node, &out[i++]);
		}
	}
	assert_int_equal(i, n);
}

static void finish_one(struct world *w)
{
	uint32_t i = rnd(w, w->n_run);
	struct running r = w->run[i];
	struct rjob *rj = &w->jobs[r.job];

	w->run[i] = w->run[--w->n_run];
	if (r.kind == SW_MAP) {
		uint64_t out = rnd(w, 3) ? 100 : 300ull << 20; /* a third shuffle-heavy */

		assert_int_equal(
		        sw_sched_map_output(w->s, rj->fx.spec.id, r.task, r.node, out, w->now), 0);
		rj->maps_done++;
	}
	assert_int_equal(sw_sched_task_finished(w->s, rj->fx.spec.id, r.kind, r.task, w->now), 0);
	account(w, rj, r.node, r.kind, -1);
}

static void run_policy(const char *policy, uint64_t seed)
{
	struct world *w = calloc(1, sizeof(*w));
	uint32_t n_nodes;

	assert_non_null(w);
	w->rng = seed;
	w->policy = policy;
	w->delay = strcmp(policy, "delay") == 0;
	w->model = strncmp(policy, "sw-", 3) != 0 && strcmp(policy, "minedf") != 0 &&
	           strcmp(policy, "aria") != 0 && strncmp(policy, "adaptive", 8) != 0 &&
	           strcmp(policy, "ras") != 0 && strcmp(policy, "reverse-adaptive") != 0;
	w->last_heartbeat = -1;
	fx_cluster_init(&w->c, 3, 4);
	n_nodes = w->c.spec.n_nodes;
	for (uint32_t i = 0; i < n_nodes; i += 3)
		w->c.nodes[i].capacity = (struct sw_resources){.cpu = 6, .mem_gb = 12};
	for (uint32_t i = 3; i < n_nodes; i += 4)
		w->c.nodes[i].pool = 1;
	for (uint32_t i = 0; i < n_nodes; i++) {
		w->total.cpu += w->c.nodes[i].capacity.cpu;
		w->total.mem_gb += w->c.nodes[i].capacity.mem_gb;
		w->total_slots[SW_MAP] += w->c.nodes[i].map_slots;
		w->total_slots[SW_REDUCE] += w->c.nodes[i].reduce_slots;
	}
	w->s = fx_sched(&w->c, policy, N_USERS);
	for (int step = 0;
	     step < STEPS || w->n_added < N_JOBS || w->n_run > 0 || sw_sched_jobs_live(w->s) > 0;
	     step++) {
		bool draining = step >= STEPS;

		assert_true(step < 20 * STEPS);
		w->now += 0.25;
		if (w->n_added < N_JOBS && (draining || rnd(w, 50) == 0)) {
			make_job(w, w->n_added);
			assert_int_equal(
			        sw_sched_job_add(w->s, &w->jobs[w->n_added].fx.spec, w->now), 0);
			w->n_added++;
		}
		if (!w->model && rnd(w, 20) == 0) {
			uint32_t rack = rnd(w, 3);
			uint64_t bytes = rnd(w, 2) ? 0 : 1ull << 40; /* idle or far past 10 Gb/s */

			w->xrack[rack] += bytes;
			assert_true(sw_sched_net_sample(w->s, rack, w->xrack[rack], 0, w->now) >=
			            0);
		}
		heartbeat(w, rnd(w, n_nodes), draining);
		if (w->n_run > 0 && (draining || rnd(w, 3) == 0))
			finish_one(w);
	}
	for (uint32_t j = 0; j < N_JOBS; j++) {
		const struct sw_job_spec *spec = &w->jobs[j].fx.spec;

		for (uint32_t t = 0; t < spec->n_maps; t++)
			assert_int_equal(w->jobs[j].launched[SW_MAP][t], 1);
		for (uint32_t t = 0; t < spec->n_reduces; t++)
			assert_int_equal(w->jobs[j].launched[SW_REDUCE][t], 1);
	}
	sw_sched_destroy(w->s);
	free(w);
}

static void every_policy_keeps_slots_resources_and_tasks_consistent(void **state)
{
	(void)state;
	for (const char *const *p = sw_sched_policy_names(); *p; p++)
		for (uint64_t seed = 1; seed <= 3; seed++)
			run_policy(*p, seed * 0x9e3779b97f4a7c15ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_policy_keeps_slots_resources_and_tasks_consistent),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
