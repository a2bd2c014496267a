/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "locindex.h"

static int pair_cmp(const void *a, const void *b)
{
	const struct loc_pair *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->map < y->map ? -1 : x->map > y->map;
}

/* Fibonacci hashing: node and rack ids are dense small integers, spread them out. */
static uint32_t slot_of(uint32_t key, uint32_t mask)
{
	return (key * 2654435769u >> 7) & mask;
}

int sw_sched_loc_index_build(struct loc_index *ix, struct loc_pair *pairs, uint32_t n)
{
	uint32_t n_keys = 0, size = 4, b = 0;

	*ix = (struct loc_index){0};
	qsort(pairs, n, sizeof(*pairs), pair_cmp);
	for (uint32_t i = 0; i < n; i++)
		n_keys += i == 0 || pairs[i].key != pairs[i - 1].key;
	/* Load factor at most one half keeps probe sequences short. */
	while (size < 2 * n_keys)
		size *= 2;
	ix->buckets = malloc((n_keys ? n_keys : 1) * sizeof(*ix->buckets));
	ix->table = calloc(size, sizeof(*ix->table));
	ix->maps = malloc((n ? n : 1) * sizeof(*ix->maps));
	if (!ix->buckets || !ix->table || !ix->maps) {
		sw_sched_loc_index_free(ix);
		return -ENOMEM;
	}
	ix->mask = size - 1;
	for (uint32_t i = 0; i < n; i++) {
		ix->maps[i] = pairs[i].map;
		if (i > 0 && pairs[i].key == pairs[i - 1].key) {
			ix->buckets[b - 1].end++;
			continue;
		}
		ix->buckets[b] = (struct loc_bucket){.key = pairs[i].key, .cur = i, .end = i + 1};
		uint32_t slot = slot_of(pairs[i].key, ix->mask);
		while (ix->table[slot])
			slot = (slot + 1) & ix->mask;
		ix->table[slot] = ++b;
	}
	return 0;
}

struct loc_bucket *sw_sched_loc_index_find(const struct loc_index *ix, uint32_t key)
{
	for (uint32_t slot = slot_of(key, ix->mask); ix->table[slot];
	     slot = (slot + 1) & ix->mask) {
		struct loc_bucket *b = &ix->buckets[ix->table[slot] - 1];

		if (b->key == key)
			return b;
	}
	return NULL;
}

void sw_sched_loc_index_rewind(const struct loc_index *ix, uint32_t key, uint32_t map)
{
	struct loc_bucket *b = sw_sched_loc_index_find(ix, key);
	uint32_t lo;

	if (!b)
		return;
	/* Groups are stored in key order, each starting where the previous one ends. */
	lo = b == ix->buckets ? 0 : b[-1].end;
	b->cur = sw_sched_loc_lower_bound(ix->maps, lo, b->cur, map);
}

uint32_t sw_sched_loc_lower_bound(const uint32_t *v, uint32_t lo, uint32_t hi, uint32_t x)
{
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (v[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void sw_sched_loc_index_free(struct loc_index *ix)
{
	free(ix->buckets);
	free(ix->table);
	free(ix->maps);
	*ix = (struct loc_index){0};
}
