/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "policy.h"

struct sched_pool *sw_sched_pool_get(struct sw_sched *s, uint32_t id)
{
	struct sched_pool *p;

	if (id < s->n_pools && s->pools[id])
		return s->pools[id];
	if (id >= s->n_pools) {
		/* 64 bits: doubling a 32-bit count past 2^31 would wrap to 0 and never end. Ids
		 * are users or queues, below SW_SCHED_MAX_USERS (sw_sched_job_add checks), or
		 * sw_sched_order_edf's, below the most jobs live at once. */
		uint64_t n = s->n_pools ? s->n_pools : 8;
		struct sched_pool **v;

		while (n <= id)
			n *= 2;
		/* Reserve now so that a pool becoming runnable never has to allocate. */
		for (int k = 0; k < SW_KINDS; k++)
			for (uint32_t h = 0; h < s->n_hw; h++)
				if (sw_sched_pool_heap_reserve(&s->ready[k][h], (uint32_t)n) < 0)
					return NULL;
		v = realloc(s->pools, n * sizeof(*v));
		if (!v)
			return NULL;
		for (uint32_t i = s->n_pools; i < n; i++)
			v[i] = NULL;
		s->pools = v;
		s->n_pools = (uint32_t)n;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->id = id;
	for (int k = 0; k < SW_KINDS; k++) {
		p->weight[k] = 1;
		for (uint32_t h = 0; h < SCHED_HW_CLASSES; h++)
			p->heap_pos[k][h] = SCHED_NONE;
	}
	if (s->policy->order->pool_init)
		s->policy->order->pool_init(s, p);
	s->pools[id] = p;
	return p;
}

static bool arrives_before(const struct sched_job *a, const struct sched_job *b)
{
	return a->arrival < b->arrival || (a->arrival == b->arrival && a->seq < b->seq);
}

/* Puts @p p in, or takes it out of, each class's ready heap of @p kind: a pool is in while it
 * has runnable tasks of the kind and is not barred from the class. @p rekeyed: its key moved,
 * so where it stays in, it is sifted to its new place. */
static void heaps_sync(struct sw_sched *s, struct sched_pool *p, enum sw_task_kind kind,
                       bool rekeyed)
{
	for (uint32_t h = 0; h < s->n_hw; h++) {
		struct pool_heap *heap = &s->ready[kind][h];
		bool in = p->heap_pos[kind][h] != SCHED_NONE;
		bool want = p->runnable[kind].head && !p->barred[kind][h];

		if (want && !in)
			sw_sched_pool_heap_push(heap, p);
		else if (want && rekeyed)
			sw_sched_pool_heap_fix(heap, p);
		else if (!want && in)
			sw_sched_pool_heap_remove(heap, p);
	}
}

/*
 * Jobs usually become runnable in arrival order (maps at add) or close to it (reduces after
 * slow-start), so the insertion point is found walking back from the tail.
 */
void sw_sched_pool_list_add(struct sw_sched *s, struct sched_pool *p, struct sched_job *j,
                            enum sw_task_kind kind)
{
	struct job_list *l = &p->runnable[kind];
	struct sched_job *after = l->tail;

	while (after && arrives_before(j, after))
		after = after->link[kind].prev;
	j->link[kind].prev = after;
	j->link[kind].next = after ? after->link[kind].next : l->head;
	if (j->link[kind].next)
		j->link[kind].next->link[kind].prev = j;
	else
		l->tail = j;
	if (after)
		after->link[kind].next = j;
	else
		l->head = j;
	heaps_sync(s, p, kind, false);
}

void sw_sched_pool_list_del(struct sw_sched *s, struct sched_pool *p, struct sched_job *j,
                            enum sw_task_kind kind)
{
	struct job_list *l = &p->runnable[kind];
	struct job_link *k = &j->link[kind];

	if (k->prev)
		k->prev->link[kind].next = k->next;
	else
		l->head = k->next;
	if (k->next)
		k->next->link[kind].prev = k->prev;
	else
		l->tail = k->prev;
	*k = (struct job_link){0};
	heaps_sync(s, p, kind, false);
}

/* New keys may also bar @p p from a class's heap, or lift the bar. */
void sw_sched_pool_refresh(struct sw_sched *s, struct sched_pool *p, double now)
{
	s->policy->order->update_keys(s, p, now);
	for (int k = 0; k < SW_KINDS; k++)
		heaps_sync(s, p, (enum sw_task_kind)k, true);
}

void sw_sched_pool_refresh_all(struct sw_sched *s, double now)
{
	for (uint32_t p = 0; p < s->n_pools; p++)
		if (s->pools[p])
			sw_sched_pool_refresh(s, s->pools[p], now);
}
