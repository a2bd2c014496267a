/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_heap.h"

void sim_heap_init(struct sim_heap *h, sim_heap_before_fn before, const void *ctx)
{
	memset(h, 0, sizeof(*h));
	h->before = before;
	h->ctx = ctx;
}

void sim_heap_fini(struct sim_heap *h)
{
	free(h->ids);
	free(h->pos);
	memset(h, 0, sizeof(*h));
}

static void place(struct sim_heap *h, uint32_t i, uint32_t id)
{
	h->ids[i] = id;
	h->pos[id] = i;
}

static void sift_up(struct sim_heap *h, uint32_t i)
{
	uint32_t id = h->ids[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!h->before(h->ctx, id, h->ids[parent]))
			break;
		place(h, i, h->ids[parent]);
		i = parent;
	}
	place(h, i, id);
}

static void sift_down(struct sim_heap *h, uint32_t i)
{
	uint32_t id = h->ids[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->before(h->ctx, h->ids[c + 1], h->ids[c]))
			c++;
		if (!h->before(h->ctx, h->ids[c], id))
			break;
		place(h, i, h->ids[c]);
		i = c;
	}
	place(h, i, id);
}

static int grow(uint32_t **a, uint32_t *cap, uint32_t need, int fill_none)
{
	uint32_t ncap = *cap ? *cap : 64;
	uint32_t *na;

	while (ncap < need)
		ncap *= 2;
	na = realloc(*a, (size_t)ncap * sizeof(*na));
	if (!na)
		return -ENOMEM;
	if (fill_none)
		memset(na + *cap, 0xff, (size_t)(ncap - *cap) * sizeof(*na));
	*a = na;
	*cap = ncap;
	return 0;
}

int sim_heap_reserve(struct sim_heap *h, uint32_t n_ids)
{
	if (n_ids > h->pos_cap && grow(&h->pos, &h->pos_cap, n_ids, 1))
		return -ENOMEM;
	if (n_ids > h->ids_cap && grow(&h->ids, &h->ids_cap, n_ids, 0))
		return -ENOMEM;
	return 0;
}

int sim_heap_push(struct sim_heap *h, uint32_t id)
{
	if (id >= h->pos_cap && grow(&h->pos, &h->pos_cap, id + 1, 1))
		return -ENOMEM;
	if (h->n == h->ids_cap && grow(&h->ids, &h->ids_cap, h->n + 1, 0))
		return -ENOMEM;
	h->n++;
	h->ids[h->n - 1] = id;
	sift_up(h, h->n - 1);
	return 0;
}

void sim_heap_fix(struct sim_heap *h, uint32_t id)
{
	uint32_t i = h->pos[id];

	sift_up(h, i);
	sift_down(h, h->pos[id]);
}

void sim_heap_remove(struct sim_heap *h, uint32_t id)
{
	uint32_t i, last;

	if (!sim_heap_contains(h, id))
		return;
	i = h->pos[id];
	h->pos[id] = SIM_HEAP_NONE;
	last = h->ids[--h->n];
	if (i == h->n)
		return;
	h->ids[i] = last;
	h->pos[last] = i;
	sim_heap_fix(h, last);
}
