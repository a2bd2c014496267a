/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sched_int.h"

static bool before(const struct pool_heap *h, const struct sched_pool *a,
                   const struct sched_pool *b)
{
	if (a->key[h->kind] != b->key[h->kind])
		return a->key[h->kind] < b->key[h->kind];
	return a->id < b->id;
}

static void place(struct pool_heap *h, uint32_t i, struct sched_pool *p)
{
	h->v[i] = p;
	p->heap_pos[h->kind][h->hw] = i;
}

static void sift_up(struct pool_heap *h, uint32_t i)
{
	struct sched_pool *p = h->v[i];

	while (i > 0 && before(h, p, h->v[(i - 1) / 2])) {
		place(h, i, h->v[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	place(h, i, p);
}

static void sift_down(struct pool_heap *h, uint32_t i)
{
	struct sched_pool *p = h->v[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h, h->v[c + 1], h->v[c]))
			c++;
		if (!before(h, h->v[c], p))
			break;
		place(h, i, h->v[c]);
		i = c;
	}
	place(h, i, p);
}

void sw_sched_pool_heap_init(struct pool_heap *h, enum sw_task_kind kind, uint32_t hw)
{
	*h = (struct pool_heap){.kind = kind, .hw = hw};
}

void sw_sched_pool_heap_fini(struct pool_heap *h)
{
	free(h->v);
	free(h->frontier);
	*h = (struct pool_heap){0};
}

int sw_sched_pool_heap_reserve(struct pool_heap *h, uint32_t cap)
{
	struct sched_pool **v;
	uint32_t *f;

	if (cap <= h->cap)
		return 0;
	v = realloc(h->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	h->v = v;
	f = realloc(h->frontier, cap * sizeof(*f));
	if (!f)
		return -ENOMEM;
	h->frontier = f;
	h->cap = cap;
	return 0;
}

void sw_sched_pool_heap_push(struct pool_heap *h, struct sched_pool *p)
{
	place(h, h->n++, p);
	sift_up(h, h->n - 1);
}

void sw_sched_pool_heap_remove(struct pool_heap *h, struct sched_pool *p)
{
	uint32_t i = p->heap_pos[h->kind][h->hw];
	struct sched_pool *last = h->v[--h->n];

	p->heap_pos[h->kind][h->hw] = SCHED_NONE;
	if (i == h->n)
		return;
	place(h, i, last);
	sw_sched_pool_heap_fix(h, last);
}

void sw_sched_pool_heap_fix(struct pool_heap *h, struct sched_pool *p)
{
	uint32_t i = p->heap_pos[h->kind][h->hw];

	if (i > 0 && before(h, p, h->v[(i - 1) / 2]))
		sift_up(h, i);
	else
		sift_down(h, i);
}

/* The frontier is a binary heap of positions, ordered like the pools they hold. */
static void frontier_push(struct pool_heap *h, uint32_t *n, uint32_t pos)
{
	uint32_t i = (*n)++;

	while (i > 0 && before(h, h->v[pos], h->v[h->frontier[(i - 1) / 2]])) {
		h->frontier[i] = h->frontier[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->frontier[i] = pos;
}

static uint32_t frontier_pop(struct pool_heap *h, uint32_t *n)
{
	uint32_t top = h->frontier[0], pos = h->frontier[--*n], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && before(h, h->v[h->frontier[c + 1]], h->v[h->frontier[c]]))
			c++;
		if (!before(h, h->v[h->frontier[c]], h->v[pos]))
			break;
		h->frontier[i] = h->frontier[c];
		i = c;
	}
	h->frontier[i] = pos;
	return top;
}

bool sw_sched_pool_heap_walk(struct pool_heap *h, bool (*visit)(struct sched_pool *p, void *arg),
                             void *arg)
{
	uint32_t n = 0;

	if (h->n == 0)
		return false;
	frontier_push(h, &n, 0);
	while (n > 0) {
		uint32_t pos = frontier_pop(h, &n);

		if (visit(h->v[pos], arg))
			return true;
		for (uint32_t c = 2 * pos + 1; c <= 2 * pos + 2 && c < h->n; c++)
			frontier_push(h, &n, c);
	}
	return false;
}
