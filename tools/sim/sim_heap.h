/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Binary min-heap of small integer ids with handles (private to tools/sim).
 *
 * Entries are ordered by (key, tie): a time or fair share, then a sequence number or id that
 * makes the order strict, so the simulation is deterministic. The keys live in the heap, next
 * to the ids, so a comparison touches no other memory. The heap keeps each id's position, so a
 * key change (a flow whose rate changed, a heartbeat brought forward) is an O(log n) update in
 * place instead of a stale entry.
 */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <math.h>
#include <stdint.h>

#define SIM_HEAP_NONE UINT32_MAX

struct sim_heap_ent {
	double key;
	uint64_t tie;
	uint32_t id;
};

struct sim_heap {
	struct sim_heap_ent *e; /**< heap order */
	uint32_t *pos;          /**< pos[id]: index in e, or SIM_HEAP_NONE */
	uint32_t n, e_cap, pos_cap;
};

void sw_sim_heap_init(struct sim_heap *h);
void sw_sim_heap_fini(struct sim_heap *h);
/** Makes room for ids 0..@p n_ids-1 so that pushing them cannot fail. @return 0 or -ENOMEM. */
int sw_sim_heap_reserve(struct sim_heap *h, uint32_t n_ids);
/** Inserts @p id (not already in the heap). @return 0 or -ENOMEM. */
int sw_sim_heap_push(struct sim_heap *h, uint32_t id, double key, uint64_t tie);
/**
 * Adds @p id (not already in the heap) without restoring heap order, for building a heap in
 * O(n): call sw_sim_heap_heapify() after the last append and before any other call. Room for
 * @p id must have been made with sw_sim_heap_reserve(), so it cannot fail.
 */
void sw_sim_heap_append(struct sim_heap *h, uint32_t id, double key, uint64_t tie);
/** Restores heap order after sw_sim_heap_append() calls, in O(n). */
void sw_sim_heap_heapify(struct sim_heap *h);
/** Removes every entry, in O(n). */
void sw_sim_heap_clear(struct sim_heap *h);
/** Gives @p id (in the heap) a new key. */
void sw_sim_heap_update(struct sim_heap *h, uint32_t id, double key, uint64_t tie);
/** Removes @p id if it is in the heap. */
void sw_sim_heap_remove(struct sim_heap *h, uint32_t id);

static inline int sim_heap_contains(const struct sim_heap *h, uint32_t id)
{
	return id < h->pos_cap && h->pos[id] != SIM_HEAP_NONE;
}

/** The first id, or SIM_HEAP_NONE when empty. */
static inline uint32_t sim_heap_top(const struct sim_heap *h)
{
	return h->n ? h->e[0].id : SIM_HEAP_NONE;
}

/** The first key, or INFINITY when empty. */
static inline double sim_heap_top_key(const struct sim_heap *h)
{
	return h->n ? h->e[0].key : INFINITY;
}

#endif /* SIM_HEAP_H */
