/* SPDX-License-Identifier: MIT */
/* The ready-pool heap: its best-first walk visits pools in (key, id) order. */
#include "fixture.h"
#include "sched_int.h"

#define N_POOLS 300

struct walk {
	struct sched_pool *seen[N_POOLS];
	uint32_t n, stop_after;
};

static bool record(struct sched_pool *p, void *arg)
{
	struct walk *w = arg;

	w->seen[w->n++] = p;
	return w->n == w->stop_after;
}

static void assert_walk_sorted(struct pool_heap *h, uint32_t expect)
{
	struct walk w = {.stop_after = 0};

	assert_false(sw_sched_pool_heap_walk(h, record, &w));
	assert_int_equal(w.n, expect);
	for (uint32_t i = 1; i < w.n; i++) {
		const struct sched_pool *a = w.seen[i - 1], *b = w.seen[i];

		assert_true(a->key[SW_MAP] < b->key[SW_MAP] ||
		            (a->key[SW_MAP] == b->key[SW_MAP] && a->id < b->id));
	}
}

static void walk_visits_pools_in_key_then_id_order(void **state)
{
	static struct sched_pool pools[N_POOLS];
	struct pool_heap h;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	uint32_t live = N_POOLS;

	(void)state;
	sw_sched_pool_heap_init(&h, SW_MAP, SCHED_HW_REGULAR);
	assert_int_equal(sw_sched_pool_heap_reserve(&h, N_POOLS), 0);
	for (uint32_t i = 0; i < N_POOLS; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		pools[i] = (struct sched_pool){
		        .id = i, .heap_pos = {{SCHED_NONE, SCHED_NONE}, {SCHED_NONE, SCHED_NONE}}};
		pools[i].key[SW_MAP] = (double)(rng >> 60); /* 16 values: many ties */
		sw_sched_pool_heap_push(&h, &pools[i]);
	}
	assert_walk_sorted(&h, live);
	/* Re-key every third pool, remove every seventh: the order must hold throughout. */
	for (uint32_t i = 0; i < N_POOLS; i++) {
		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		if (i % 7 == 0) {
			sw_sched_pool_heap_remove(&h, &pools[i]);
			assert_int_equal(pools[i].heap_pos[SW_MAP][SCHED_HW_REGULAR], SCHED_NONE);
			live--;
		} else if (i % 3 == 0) {
			pools[i].key[SW_MAP] = (double)(rng >> 60);
			sw_sched_pool_heap_fix(&h, &pools[i]);
		}
	}
	assert_walk_sorted(&h, live);
	sw_sched_pool_heap_fini(&h);
}

static void walk_stops_at_the_first_pool_that_accepts(void **state)
{
	static struct sched_pool pools[8];
	struct pool_heap h;
	struct walk w = {.stop_after = 3};

	(void)state;
	sw_sched_pool_heap_init(&h, SW_REDUCE, SCHED_HW_REGULAR);
	assert_int_equal(sw_sched_pool_heap_reserve(&h, 8), 0);
	for (uint32_t i = 0; i < 8; i++) {
		pools[i] = (struct sched_pool){
		        .id = i, .heap_pos = {{SCHED_NONE, SCHED_NONE}, {SCHED_NONE, SCHED_NONE}}};
		pools[i].key[SW_REDUCE] = 8 - i;
		sw_sched_pool_heap_push(&h, &pools[i]);
	}
	assert_true(sw_sched_pool_heap_walk(&h, record, &w));
	assert_int_equal(w.n, 3);
	assert_int_equal(w.seen[0]->id, 7);
	assert_int_equal(w.seen[2]->id, 5);
	sw_sched_pool_heap_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(walk_visits_pools_in_key_then_id_order),
	        cmocka_unit_test(walk_stops_at_the_first_pool_that_accepts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
