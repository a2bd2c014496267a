/* SPDX-License-Identifier: MIT */
/*
 * Private: an indexed binary min-heap of pools ordered by (key[kind], id), and a best-first
 * walk over it. The walk visits pools in heap order without popping them: a small auxiliary
 * heap holds the frontier (heap positions whose parents were visited), so visiting the k-th
 * pool costs O(log k) and a decision that stops at the first pool costs O(1).
 */
#ifndef SW_POOL_HEAP_H
#define SW_POOL_HEAP_H

#include <stdbool.h>
#include <stdint.h>

#include "sw_sched.h"

struct sched_pool;

struct pool_heap {
	struct sched_pool **v;
	uint32_t *frontier; /* the walk's auxiliary heap of positions in v */
	uint32_t n, cap;
	enum sw_task_kind kind;
	uint32_t hw; /* the class of nodes whose slots it offers (sched_int.h, enum sched_hw) */
};

void sw_sched_pool_heap_init(struct pool_heap *h, enum sw_task_kind kind, uint32_t hw);
void sw_sched_pool_heap_fini(struct pool_heap *h);

/* Makes room for @p cap pools so that push never allocates. @return 0 or -ENOMEM. */
int sw_sched_pool_heap_reserve(struct pool_heap *h, uint32_t cap);

void sw_sched_pool_heap_push(struct pool_heap *h, struct sched_pool *p);
void sw_sched_pool_heap_remove(struct pool_heap *h, struct sched_pool *p);

/* Restores the order after p->key[h->kind] changed. */
void sw_sched_pool_heap_fix(struct pool_heap *h, struct sched_pool *p);

/* Calls @p visit on pools best first until it returns true. @return whether one did. */
bool sw_sched_pool_heap_walk(struct pool_heap *h, bool (*visit)(struct sched_pool *p, void *arg),
                             void *arg);

#endif /* SW_POOL_HEAP_H */
