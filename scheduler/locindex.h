/* SPDX-License-Identifier: MIT */
/*
 * Private: a job's map indexes grouped by a location key (node id or rack id), built once
 * when the job arrives. Lookup of a key is one open-addressing probe sequence; each group
 * keeps a cursor that moves forward past maps already taken, so finding the next pending map
 * of a key costs O(1) amortised over the job's life; a map that becomes pending again (a
 * failure) moves the cursor back to it.
 */
#ifndef SW_LOCINDEX_H
#define SW_LOCINDEX_H

#include <stdint.h>

struct loc_pair {
	uint32_t key;
	uint32_t map;
};

/* Maps of one key are maps[cur..end); those before cur were taken. */
struct loc_bucket {
	uint32_t key;
	uint32_t cur, end;
};

struct loc_index {
	struct loc_bucket *buckets;
	uint32_t *table; /* bucket index + 1, 0 = empty slot */
	uint32_t mask;
	uint32_t *maps;
};

/* Sorts @p pairs (by key, then map) and builds @p ix from them. @return 0 or -ENOMEM. */
int sw_sched_loc_index_build(struct loc_index *ix, struct loc_pair *pairs, uint32_t n);

/* The group of @p key, NULL when no map has that key. */
struct loc_bucket *sw_sched_loc_index_find(const struct loc_index *ix, uint32_t key);

/* Map @p map of group @p key is pending again: the cursor goes back to it if it had passed
 * it (a binary search: a group's maps are sorted). */
void sw_sched_loc_index_rewind(const struct loc_index *ix, uint32_t key, uint32_t map);

void sw_sched_loc_index_free(struct loc_index *ix);

/* The first position in ascending v[lo..hi) holding @p x or more; hi when none does. */
uint32_t sw_sched_loc_lower_bound(const uint32_t *v, uint32_t lo, uint32_t hi, uint32_t x);

#endif /* SW_LOCINDEX_H */
