/* SPDX-License-Identifier: MIT */
/*
 * ShuffleWatcher within the fairness policy: a randomized run of heartbeats, task finishes
 * and NetSat samples on 3 racks of 4 nodes with 6 users who all keep a backlog, once under
 * fair and once under sw-fair (and drf / sw-drf). Each user's share of the slot-seconds
 * used until T, per slot kind, must stay within a bound of its share under the baseline.
 *
 * Bounds: NASS never refuses a map slot to the user ORDER chose (line 6 takes any map), so
 * map shares differ only because different tasks with different durations run: within 0.02
 * (an equal share is 1/6 = 0.167; the largest difference seen over the 3 seeds is 0.004). A
 * reduce slot on a saturated rack is refused to a user whose only reduces are heavy ones while
 * it still has maps (line 9's gate) and goes to the next user, so reduce shares move further:
 * within 0.06 (largest seen 0.033).
 */
#include <math.h>
#include <stdlib.h>

#include "sw_fixture.h"

#define USERS     6
#define JOBS      72
#define MAPS      24
#define REDUCES   4
#define T_END     400.0
#define STEP      0.5
#define MAP_BOUND 0.02
#define RED_BOUND 0.06

struct ftask {
	uint64_t job;
	uint32_t task, node;
	enum sw_task_kind kind;
	double end;
};

struct frun {
	struct fx_cluster c;
	struct sw_sched *s;
	struct fx_job jobs[JOBS];
	struct sw_job_profile prof[JOBS];
	struct ftask run[FX_MAX_NODES * 4];
	uint32_t n_run;
	double used[USERS][SW_KINDS]; /* slot-seconds until T_END */
	uint64_t rng, xrack[3];
};

static uint32_t rnd(uint64_t *x, uint32_t n)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return (uint32_t)(*x % n);
}

/* The same job set and task durations for both policies: drawn from a fixed seed. */
static void make_jobs(struct frun *f, uint64_t seed)
{
	uint64_t x = seed;

	for (uint32_t i = 0; i < JOBS; i++) {
		struct fx_job *j = &f->jobs[i];

		fx_job_init(j, i + 1, i % USERS, i * 2.0, MAPS, REDUCES, 12);
		for (uint32_t m = 0; m < MAPS; m++) {
			uint32_t a = rnd(&x, 12), b = (a + 4 + rnd(&x, 8)) % 12;

			fx_map_on(j, m, 2, a, b);
		}
		swx_ratio(j, &f->prof[i], rnd(&x, 2) ? 2.0 : 0.3);
	}
}

static double duration(const struct ftask *t)
{
	uint64_t x = t->job * 1000003u + t->task * 7919u + t->kind * 104729u + 1;

	return 4 + rnd(&x, 17); /* 4-20 s, a function of the task alone */
}

static void finish_due(struct frun *f, double now)
{
	for (uint32_t i = 0; i < f->n_run;) {
		struct ftask t = f->run[i];

		if (t.end > now) {
			i++;
			continue;
		}
		f->run[i] = f->run[--f->n_run];
		if (t.kind == SW_MAP) {
			uint64_t bytes =
			        (uint64_t)(f->prof[t.job - 1].shuffle_input_ratio * (128 << 20));

			assert_int_equal(
			        sw_sched_map_output(f->s, t.job, t.task, t.node, bytes, now), 0);
		}
		assert_int_equal(sw_sched_task_finished(f->s, t.job, t.kind, t.task, now), 0);
	}
}

static void heartbeat(struct frun *f, uint32_t node, double now)
{
	struct sw_heartbeat hb = {.node = node, .free_slots = {2, 2}};
	struct sw_assignment out[4];
	int n = sw_sched_heartbeat(f->s, &hb, now, out, 4);

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		struct ftask t = {out[i].job, out[i].task, node, out[i].kind, 0};
		uint32_t user = f->jobs[t.job - 1].spec.user;

		t.end = now + duration(&t);
		f->run[f->n_run++] = t;
		f->used[user][t.kind] += fmin(t.end, T_END) - now;
	}
}

/* Racks saturate in turn: rack r is loaded for 30 s of every 90 s, shifted by 30 s * r. */
static void netsat(struct frun *f, double now)
{
	for (uint32_t r = 0; r < 3; r++) {
		bool busy = fmod(now + 30.0 * r, 90.0) < 30.0;

		f->xrack[r] += busy ? (uint64_t)(10e9 * STEP / 8) : 0;
		assert_true(sw_sched_net_sample(f->s, r, f->xrack[r], 0, now) >= 0);
	}
}

static void run(struct frun *f, const char *policy, uint64_t seed)
{
	struct sw_sched_config cfg;
	uint32_t added = 0;

	*f = (struct frun){.rng = seed};
	fx_cluster_init(&f->c, 3, 4);
	sw_sched_config_default(&cfg);
	cfg.policy = policy;
	cfg.n_users = cfg.n_queues = USERS;
	f->s = swx_sched(&f->c, &cfg);
	make_jobs(f, seed);
	for (double now = 0; now < T_END; now += STEP) {
		while (added < JOBS && f->jobs[added].spec.arrival <= now)
			assert_int_equal(sw_sched_job_add(f->s, &f->jobs[added++].spec, now), 0);
		netsat(f, now);
		finish_due(f, now);
		for (uint32_t k = 0; k < 12; k++)
			heartbeat(f, (k * 5 + (uint32_t)(now / STEP)) % 12, now);
	}
	sw_sched_destroy(f->s);
}

static void compare(const char *base, const char *sw)
{
	static struct frun a, b;

	for (uint64_t seed = 1; seed <= 3; seed++) {
		run(&a, base, seed * 0x9e3779b97f4a7c15ull);
		run(&b, sw, seed * 0x9e3779b97f4a7c15ull);
		for (int k = 0; k < SW_KINDS; k++) {
			double ta = 0, tb = 0;

			for (int u = 0; u < USERS; u++) {
				ta += a.used[u][k];
				tb += b.used[u][k];
			}
			assert_true(ta > 0 && tb > 0);
			for (int u = 0; u < USERS; u++) {
				double d = fabs(a.used[u][k] / ta - b.used[u][k] / tb);

				if (d > (k == SW_MAP ? MAP_BOUND : RED_BOUND))
					fail_msg("%s vs %s, seed %llu, user %d, %s: share %.3f vs "
					         "%.3f",
					         sw, base, (unsigned long long)seed, u,
					         k == SW_MAP ? "maps" : "reduces",
					         b.used[u][k] / tb, a.used[u][k] / ta);
			}
		}
	}
}

static void sw_fair_keeps_each_users_share_close_to_fair(void **state)
{
	(void)state;
	compare("fair", "sw-fair");
}

static void sw_drf_keeps_each_users_share_close_to_drf(void **state)
{
	(void)state;
	compare("drf", "sw-drf");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(sw_fair_keeps_each_users_share_close_to_fair),
	        cmocka_unit_test(sw_drf_keeps_each_users_share_close_to_drf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
