/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Binary min-heap of small integer ids with handles (private to tools/sim).
 *
 * The owner keeps the keys; the heap keeps each id's position so that a key change (a flow
 * whose rate changed, a node heartbeat brought forward) is an O(log n) fix instead of a stale
 * entry. Ordering comes from the owner's comparator, which must be a strict total order for
 * the simulation to be deterministic.
 */
#ifndef SIM_HEAP_H
#define SIM_HEAP_H

#include <stdint.h>

#define SIM_HEAP_NONE UINT32_MAX

/** Returns nonzero when id @p a must come out before id @p b. */
typedef int (*sim_heap_before_fn)(const void *ctx, uint32_t a, uint32_t b);

struct sim_heap {
	uint32_t *ids; /**< heap order */
	uint32_t *pos; /**< pos[id]: index in ids, or SIM_HEAP_NONE */
	uint32_t n, ids_cap, pos_cap;
	sim_heap_before_fn before;
	const void *ctx;
};

void sim_heap_init(struct sim_heap *h, sim_heap_before_fn before, const void *ctx);
void sim_heap_fini(struct sim_heap *h);
/** Makes room for ids 0..@p n_ids-1 so that pushing them cannot fail. @return 0 or -ENOMEM. */
int sim_heap_reserve(struct sim_heap *h, uint32_t n_ids);
/** Inserts @p id (not already in the heap). @return 0 or -ENOMEM. */
int sim_heap_push(struct sim_heap *h, uint32_t id);
/** Restores the order after the key of @p id (in the heap) changed. */
void sim_heap_fix(struct sim_heap *h, uint32_t id);
/** Removes @p id if it is in the heap. */
void sim_heap_remove(struct sim_heap *h, uint32_t id);

static inline int sim_heap_contains(const struct sim_heap *h, uint32_t id)
{
	return id < h->pos_cap && h->pos[id] != SIM_HEAP_NONE;
}

/** The first id, or SIM_HEAP_NONE when empty. */
static inline uint32_t sim_heap_top(const struct sim_heap *h)
{
	return h->n ? h->ids[0] : SIM_HEAP_NONE;
}

#endif /* SIM_HEAP_H */
