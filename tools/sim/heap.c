/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_heap.h"

void sw_sim_heap_init(struct sim_heap *h)
{
	memset(h, 0, sizeof(*h));
}

void sw_sim_heap_fini(struct sim_heap *h)
{
	free(h->e);
	free(h->pos);
	memset(h, 0, sizeof(*h));
}

static int before(const struct sim_heap_ent *a, const struct sim_heap_ent *b)
{
	if (a->key != b->key)
		return a->key < b->key;
	return a->tie < b->tie;
}

static void place(struct sim_heap *h, uint32_t i, const struct sim_heap_ent *ent)
{
	h->e[i] = *ent;
	h->pos[ent->id] = i;
}

static void sift_up(struct sim_heap *h, uint32_t i)
{
	struct sim_heap_ent ent = h->e[i];

	while (i > 0) {
		uint32_t parent = (i - 1) / 2;

		if (!before(&ent, &h->e[parent]))
			break;
		place(h, i, &h->e[parent]);
		i = parent;
	}
	place(h, i, &ent);
}

static void sift_down(struct sim_heap *h, uint32_t i)
{
	struct sim_heap_ent ent = h->e[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(&h->e[c + 1], &h->e[c]))
			c++;
		if (!before(&h->e[c], &ent))
			break;
		place(h, i, &h->e[c]);
		i = c;
	}
	place(h, i, &ent);
}

/* Sift-down for an entry taken from the bottom (a removal): it usually belongs near the bottom
 * again, so the hole goes down the smaller children to a leaf with one comparison per level and
 * the entry climbs back from there (Floyd), about half the comparisons of sift_down. */
static void sift_down_from_bottom(struct sim_heap *h, uint32_t i)
{
	struct sim_heap_ent ent = h->e[i];
	uint32_t c;

	while ((c = 2 * i + 1) < h->n) {
		if (c + 1 < h->n && before(&h->e[c + 1], &h->e[c]))
			c++;
		place(h, i, &h->e[c]);
		i = c;
	}
	h->e[i] = ent;
	sift_up(h, i);
}

static int grow(void **a, uint32_t *cap, uint32_t need, size_t size, int fill_none)
{
	uint32_t ncap = *cap ? *cap : 64;
	char *na;

	while (ncap < need)
		ncap *= 2;
	na = realloc(*a, (size_t)ncap * size);
	if (!na)
		return -ENOMEM;
	if (fill_none)
		memset(na + (size_t)*cap * size, 0xff, (size_t)(ncap - *cap) * size);
	*a = na;
	*cap = ncap;
	return 0;
}

int sw_sim_heap_reserve(struct sim_heap *h, uint32_t n_ids)
{
	if (n_ids > h->pos_cap && grow((void **)&h->pos, &h->pos_cap, n_ids, sizeof(*h->pos), 1))
		return -ENOMEM;
	if (n_ids > h->e_cap && grow((void **)&h->e, &h->e_cap, n_ids, sizeof(*h->e), 0))
		return -ENOMEM;
	return 0;
}

int sw_sim_heap_push(struct sim_heap *h, uint32_t id, double key, uint64_t tie)
{
	if (sw_sim_heap_reserve(h, id + 1) ||
	    (h->n == h->e_cap && sw_sim_heap_reserve(h, h->n + 1)))
		return -ENOMEM;
	h->e[h->n] = (struct sim_heap_ent){.key = key, .tie = tie, .id = id};
	h->n++;
	sift_up(h, h->n - 1);
	return 0;
}

void sw_sim_heap_append(struct sim_heap *h, uint32_t id, double key, uint64_t tie)
{
	place(h, h->n++, &(struct sim_heap_ent){.key = key, .tie = tie, .id = id});
}

void sw_sim_heap_heapify(struct sim_heap *h)
{
	uint32_t i;

	for (i = h->n / 2; i-- > 0;)
		sift_down(h, i);
}

void sw_sim_heap_clear(struct sim_heap *h)
{
	while (h->n)
		h->pos[h->e[--h->n].id] = SIM_HEAP_NONE;
}

void sw_sim_heap_update(struct sim_heap *h, uint32_t id, double key, uint64_t tie)
{
	uint32_t i = h->pos[id];
	struct sim_heap_ent ent = {.key = key, .tie = tie, .id = id};
	int up = before(&ent, &h->e[i]);

	h->e[i] = ent;
	if (up)
		sift_up(h, i);
	else
		sift_down(h, i);
}

void sw_sim_heap_remove(struct sim_heap *h, uint32_t id)
{
	uint32_t i;
	int up;

	if (!sim_heap_contains(h, id))
		return;
	i = h->pos[id];
	h->pos[id] = SIM_HEAP_NONE;
	if (i == --h->n)
		return;
	up = before(&h->e[h->n], &h->e[i]);
	h->e[i] = h->e[h->n];
	if (up)
		sift_up(h, i);
	else
		sift_down_from_bottom(h, i);
}
