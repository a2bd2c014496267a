/* SPDX-License-Identifier: MIT */
/*
 * Polo's accelerated pools (adaptive-hw; notes-polo-adaptive-ras.md 5): calibration, Eq. 3
 * on the notes' worked example, the analytic model of ICPP Fig. 2, and the deferral of a
 * regular job on an accelerated node.
 * Cluster: one rack of 30 nodes of one map slot, the last 10 accelerated (A = 10, N = 30).
 */
#include "fixture.h"
#include "policy.h"

#define N_NODES 30
#define ACC0    20 /* nodes ACC0.. form the accelerated pool */
#define BIG     15002

struct world {
	struct fx_cluster c;
	struct sw_sched *s;
	struct sw_map_spec *maps;
	double now;
};

static void world_init(struct world *w, double threshold)
{
	struct sw_sched_config cfg;

	fx_cluster_init(&w->c, 1, N_NODES);
	for (uint32_t n = 0; n < N_NODES; n++) {
		w->c.nodes[n].map_slots = 1;
		w->c.nodes[n].pool = n >= ACC0;
	}
	sw_sched_config_default(&cfg);
	cfg.policy = "adaptive-hw";
	cfg.n_users = cfg.n_queues = 2;
	cfg.affinity_max_delays = 0; /* pools alone, no data affinity */
	cfg.accel_threshold = threshold;
	w->s = sw_sched_create(&w->c.spec, &cfg);
	assert_non_null(w->s);
	w->maps = calloc(BIG, sizeof(*w->maps));
	assert_non_null(w->maps);
	for (uint32_t m = 0; m < BIG; m++)
		w->maps[m] = (struct sw_map_spec){
		        .input_bytes = 1 << 20, .n_replicas = 1, .replicas = {m % N_NODES}};
	w->now = 0;
}

static void world_fini(struct world *w)
{
	sw_sched_destroy(w->s);
	free(w->maps);
}

static int offer(struct world *w, uint32_t node, struct sw_assignment *a)
{
	return fx_offer(w->s, node, SW_MAP, 1, w->now, a);
}

/*
 * Adds job @p id of @p n_maps maps without reduces at w->now and runs its calibration: one
 * map on accelerated node @p acc of @p mu_acc s and one on regular node @p reg of @p mu_reg
 * s. While a pool's calibration map runs, the job takes no other slot of that pool.
 * @p deadline is given as the time after calibration, w->now on return.
 */
static void add_calibrated(struct world *w, uint64_t id, uint32_t n_maps, double mu_acc,
                           double mu_reg, double deadline_after, uint32_t acc, uint32_t reg)
{
	struct sw_job_spec spec = {
	        .id = id,
	        .user = 0,
	        .arrival = w->now,
	        .n_maps = n_maps,
	        .maps = w->maps,
	        .map_demand = {1, 1},
	        .reduce_demand = {1, 1},
	};
	struct sw_assignment a_acc, a_reg, other;
	double t0 = w->now, t1 = t0 + (mu_acc > mu_reg ? mu_acc : mu_reg);

	spec.deadline = t1 + deadline_after;
	assert_int_equal(sw_sched_job_add(w->s, &spec, t0), 0);
	assert_int_equal(offer(w, acc, &a_acc), 1);
	assert_int_equal(a_acc.job, id);
	assert_int_equal(offer(w, acc + 1, &other) == 1 && other.job == id, 0);
	assert_int_equal(offer(w, reg, &a_reg), 1);
	assert_int_equal(a_reg.job, id);
	assert_int_equal(offer(w, reg + 1, &other) == 1 && other.job == id, 0);
	assert_int_equal(sw_sched_task_finished(w->s, id, SW_MAP, a_acc.task, t0 + mu_acc), 0);
	assert_int_equal(sw_sched_task_finished(w->s, id, SW_MAP, a_reg.task, t0 + mu_reg), 0);
	w->now = t1;
}

/* One map slot offered on each of nodes [from, to): how many of @p id's maps launched. */
static uint32_t take(struct world *w, uint64_t id, uint32_t from, uint32_t to)
{
	uint32_t got = 0;

	for (uint32_t n = from; n < to; n++) {
		struct sw_assignment a;

		if (offer(w, n, &a) == 1 && a.job == id)
			got++;
	}
	return got;
}

/* The notes' worked example: A = 10, maps of 50 s accelerated and 100 s regular. */
static void equation_3_on_the_worked_example(void **state)
{
	(void)state;
	/* A need of 15 accelerated slots: 10 there and (100 / 50) x (15 - 10) = 10 regular,
	 * the same once it holds the 10 (Eq. 2's need is then 5) or some regular ones. */
	assert_float_equal(sw_sched_accel_extra(2, 15, 0, 0, 10), 10, 1e-12);
	assert_float_equal(sw_sched_accel_extra(2, 5, 10, 0, 10), 10, 1e-12);
	assert_float_equal(sw_sched_accel_extra(2, 5, 10, 4, 10), 6, 1e-12);
	/* A need of 10 or less: accelerators only. */
	assert_float_equal(sw_sched_accel_extra(2, 10, 0, 0, 10), 0, 1e-12);
	assert_true(sw_sched_accel_extra(2, 7, 0, 0, 10) < 0);
}

/* The same in the scheduler: maps offered on every regular node, then every accelerated one
 * (and the other way round) go 10 + 10 for a need of 15, 0 + 10 for 10 or 7. */
static void a_need_beyond_the_pool_overflows_to_regular_slots(void **state)
{
	static const double needs[] = {15, 10, 7};
	static const uint32_t regular[] = {10, 0, 0};

	(void)state;
	for (int i = 0; i < 3; i++) {
		for (int acc_first = 0; acc_first < 2; acc_first++) {
			struct world w;
			uint32_t n_reg, n_acc;

			world_init(&w, 1.5);
			/* Eq. 2 right after calibration: U x 50 / (goal - now) = need. */
			add_calibrated(&w, 1, BIG, 50, 100, (BIG - 2) * 50 / needs[i], ACC0, 0);
			if (acc_first) {
				n_acc = take(&w, 1, ACC0, N_NODES);
				n_reg = take(&w, 1, 0, ACC0);
			} else {
				n_reg = take(&w, 1, 0, ACC0);
				n_acc = take(&w, 1, ACC0, N_NODES);
			}
			/* calibration left slots 0 and ACC0 free again */
			assert_int_equal(n_acc, 10);
			assert_int_equal(n_reg, regular[i]);
			world_fini(&w);
		}
	}
}

/* ICPP Fig. 2: one accelerable job of per-task speedup S holds min(N, A + S x max(0,
 * s_req,acc - A)) slots, A = 10, N = 30, S = 2-5 (at S = 1 no threshold of at least 1 calls
 * the job accelerable: it is a regular job and Adaptive's). */
static void allocation_follows_the_analytic_model(void **state)
{
	(void)state;
	for (int S = 2; S <= 5; S++) {
		for (double need = 6; need <= 16; need += 2) {
			struct world w;
			double model = 10 + S * (need > 10 ? need - 10 : 0);
			uint32_t got;

			world_init(&w, 1.5);
			add_calibrated(&w, 1, BIG, 100.0 / S, 100, (BIG - 2) * (100.0 / S) / need,
			               ACC0, 0);
			got = take(&w, 1, ACC0, N_NODES) + take(&w, 1, 0, ACC0);
			assert_int_equal(got, model < N_NODES ? model : N_NODES);
			world_fini(&w);
		}
	}
}

/* A job whose calibration maps differ by no more than the threshold is regular: it runs on
 * both pools as Adaptive runs it; above the threshold it keeps to the accelerated pool. */
static void the_threshold_decides_who_is_accelerable(void **state)
{
	(void)state;
	for (int above = 0; above < 2; above++) {
		struct world w;

		world_init(&w, 2.5);
		/* need 5, below A: accelerable jobs take no regular slot */
		add_calibrated(&w, 1, BIG, 40, above ? 101 : 100, (BIG - 2) * 40 / 5.0, ACC0, 0);
		assert_int_equal(take(&w, 1, 0, ACC0), above ? 0 : ACC0);
		world_fini(&w);
	}
}

/*
 * On an accelerated node a regular job passes the slot to an accelerable job with a positive
 * need, even when it needs more itself, as long as the regular pool could hold its whole need
 * (s_req and its running maps); beyond the pool, or with no accelerable job in need, it takes
 * the slot.
 */
static void a_regular_job_leaves_accelerated_slots_to_an_accelerable_need(void **state)
{
	/* Regular job 2 needs 8 or 25 of the 20 regular slots (it runs none); accelerable
	 * job 1 needs about 2 (3 less the map it takes during job 2's calibration) or none. */
	static const double reg_need[] = {8, 25, 8}, acc_need[] = {3, 3, 0.5};
	static const uint64_t winner[] = {1, 2, 2};

	(void)state;
	for (int c = 0; c < 3; c++) {
		struct world w;
		struct sw_assignment a;

		world_init(&w, 1.5);
		/* Job 1 is calibrated by t = 100 and keyed then; job 2 by t = 200 (on nodes
		 * ACC0 + 2 and 2, while job 1 takes node ACC0 + 3), its need counted at 200. */
		add_calibrated(&w, 1, BIG, 50, 100, 100 + (BIG - 2) * 50 / acc_need[c], ACC0, 0);
		add_calibrated(&w, 2, BIG, 100, 100, (BIG - 2) * 100 / reg_need[c], ACC0 + 2, 2);
		assert_int_equal(offer(&w, ACC0 + 4, &a), 1);
		assert_int_equal(a.job, winner[c]);
		world_fini(&w);
	}
}

/* A calibration map that fails, or is lost with its node, no longer holds its pool: the job's
 * next map there is its calibration map again. */
static void a_failed_or_lost_calibration_map_frees_its_pool(void **state)
{
	struct world w;
	struct sw_job_spec spec = {.id = 1, .n_maps = 10, .map_demand = {1, 1}};
	struct sw_assignment acc, reg, a;

	(void)state;
	world_init(&w, 1.5);
	spec.maps = w.maps;
	spec.deadline = 1e4;
	assert_int_equal(sw_sched_job_add(w.s, &spec, 0), 0);
	assert_int_equal(offer(&w, ACC0, &acc), 1);
	assert_int_equal(offer(&w, 0, &reg), 1);
	assert_int_equal(offer(&w, ACC0 + 1, &a), 0);
	assert_int_equal(offer(&w, 1, &a), 0);
	assert_true(sw_sched_task_failed(w.s, 1, SW_MAP, acc.task, 1) > 0);
	assert_int_equal(sw_sched_node_lost(w.s, 0, 1), 1);
	w.now = 2;
	assert_int_equal(offer(&w, ACC0 + 1, &a), 1);
	assert_int_equal(offer(&w, 1, &a), 1);
	assert_int_equal(offer(&w, ACC0 + 2, &a), 0);
	assert_int_equal(offer(&w, 2, &a), 0);
	world_fini(&w);
}

/* A finished map whose output is lost runs again, but it was not running: the job's running
 * maps per pool, which Eq. 2 and 3 read, stay as they were. */
static void a_lost_output_leaves_the_running_counts(void **state)
{
	struct world w;
	struct sw_job_spec spec = {.id = 1,
	                           .n_maps = BIG,
	                           .n_reduces = 1,
	                           .map_demand = {1, 1},
	                           .reduce_demand = {1, 1}};
	struct sw_assignment acc, reg;

	(void)state;
	world_init(&w, 1.5);
	spec.maps = w.maps;
	spec.deadline =
	        100 + (BIG - 2) * 50 / 7.0; /* need 7 after calibration: accelerators only */
	assert_int_equal(sw_sched_job_add(w.s, &spec, 0), 0);
	assert_int_equal(offer(&w, ACC0, &acc), 1);
	assert_int_equal(offer(&w, 0, &reg), 1);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, acc.task, 50), 0);
	assert_int_equal(sw_sched_task_finished(w.s, 1, SW_MAP, reg.task, 100), 0);
	assert_int_equal(sw_sched_map_output_lost(w.s, 1, acc.task, 100), 0);
	w.now = 100;
	assert_int_equal(take(&w, 1, 0, ACC0), 0);
	assert_int_equal(take(&w, 1, ACC0, N_NODES), 10);
	world_fini(&w);
}

/*
 * The core's ready heaps per class of node: a job is in the regular nodes' heap of maps only
 * while its calibration map does not run there and, once accelerable, while its Eq. 3 need
 * is positive, so a decision on a regular node never walks past it; it moves back when the
 * need turns positive again (here: an accelerated node is lost with one of its maps).
 */
static void a_job_is_in_the_regular_heap_only_while_it_needs_regular_slots(void **state)
{
	struct world w;
	struct sw_job_spec spec = {.id = 1, .n_maps = 10, .map_demand = {1, 1}};
	const struct pool_heap *reg, *acc;
	struct sw_assignment a;

	(void)state;
	world_init(&w, 1.5);
	reg = &w.s->ready[SW_MAP][SCHED_HW_REGULAR];
	acc = &w.s->ready[SW_MAP][SCHED_HW_ACCEL];
	spec.maps = w.maps;
	spec.deadline = 1e4;
	assert_int_equal(sw_sched_job_add(w.s, &spec, 0), 0);
	assert_int_equal(reg->n + acc->n, 2);
	assert_int_equal(offer(&w, ACC0, &a), 1); /* calibrating on both pools: in neither heap */
	assert_int_equal(acc->n, 0);
	assert_int_equal(offer(&w, 0, &a), 1);
	assert_int_equal(reg->n, 0);
	world_fini(&w);

	/* The worked example, a need of 15: 10 accelerated and 10 regular slots, then none. */
	world_init(&w, 1.5);
	reg = &w.s->ready[SW_MAP][SCHED_HW_REGULAR];
	acc = &w.s->ready[SW_MAP][SCHED_HW_ACCEL];
	add_calibrated(&w, 1, BIG, 50, 100, (BIG - 2) * 50 / 15.0, ACC0, 0);
	assert_int_equal(reg->n + acc->n, 2);
	assert_int_equal(take(&w, 1, ACC0, N_NODES), 10);
	assert_int_equal(take(&w, 1, 0, ACC0), 10);
	assert_int_equal(reg->n, 0);
	assert_int_equal(acc->n, 1);
	/* A = 9 and one map more to run: (100 / 50) x 1 more regular slots */
	assert_int_equal(sw_sched_node_lost(w.s, N_NODES - 1, w.now), 1);
	assert_int_equal(reg->n, 1);
	assert_int_equal(take(&w, 1, 0, ACC0), 2);
	assert_int_equal(reg->n, 0);
	world_fini(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(equation_3_on_the_worked_example),
	        cmocka_unit_test(a_need_beyond_the_pool_overflows_to_regular_slots),
	        cmocka_unit_test(allocation_follows_the_analytic_model),
	        cmocka_unit_test(the_threshold_decides_who_is_accelerable),
	        cmocka_unit_test(a_regular_job_leaves_accelerated_slots_to_an_accelerable_need),
	        cmocka_unit_test(a_failed_or_lost_calibration_map_frees_its_pool),
	        cmocka_unit_test(a_lost_output_leaves_the_running_counts),
	        cmocka_unit_test(a_job_is_in_the_regular_heap_only_while_it_needs_regular_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
