/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sched_int.h"

#define TABLE_MIN 64

/* Caller ids may be sequential or sparse: mix all 64 bits (splitmix64 finaliser). */
static uint32_t bucket_of(uint64_t id, uint32_t mask)
{
	id ^= id >> 30;
	id *= 0xbf58476d1ce4e5b9ull;
	id ^= id >> 27;
	id *= 0x94d049bb133111ebull;
	id ^= id >> 31;
	return (uint32_t)id & mask;
}

int sw_sched_job_table_init(struct job_table *t)
{
	*t = (struct job_table){.mask = TABLE_MIN - 1};
	t->buckets = calloc(TABLE_MIN, sizeof(*t->buckets));
	return t->buckets ? 0 : -ENOMEM;
}

void sw_sched_job_table_fini(struct job_table *t)
{
	free(t->buckets);
	*t = (struct job_table){0};
}

struct sched_job *sw_sched_job_table_find(const struct job_table *t, uint64_t id)
{
	struct sched_job *j = t->buckets[bucket_of(id, t->mask)];

	while (j && j->id != id)
		j = j->hash_next;
	return j;
}

static int grow(struct job_table *t)
{
	uint32_t mask = 2 * t->mask + 1;
	struct sched_job **b = calloc((size_t)mask + 1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	for (uint32_t i = 0; i <= t->mask; i++) {
		while (t->buckets[i]) {
			struct sched_job *j = t->buckets[i];
			uint32_t k = bucket_of(j->id, mask);

			t->buckets[i] = j->hash_next;
			j->hash_next = b[k];
			b[k] = j;
		}
	}
	free(t->buckets);
	t->buckets = b;
	t->mask = mask;
	return 0;
}

int sw_sched_job_table_insert(struct job_table *t, struct sched_job *j)
{
	uint32_t k;

	if (t->count > t->mask && grow(t) < 0)
		return -ENOMEM;
	k = bucket_of(j->id, t->mask);
	j->hash_next = t->buckets[k];
	t->buckets[k] = j;
	t->count++;
	return 0;
}

void sw_sched_job_table_remove(struct job_table *t, struct sched_job *j)
{
	struct sched_job **p = &t->buckets[bucket_of(j->id, t->mask)];

	while (*p != j)
		p = &(*p)->hash_next;
	*p = j->hash_next;
	t->count--;
}
