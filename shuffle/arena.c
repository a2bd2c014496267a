/* SPDX-License-Identifier: MIT */
/*
 * The store's memory is one arena registered once with the transport (registration is costly
 * and rkeys must stay valid), so partitions are carved out of it rather than malloc'd. First fit
 * over a sorted free list keeps the code small; partitions are freed in roughly the order they
 * were written (spill is oldest-first, jobs go away whole), which keeps the list short.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"

int sw_shuffle_arena_init(struct arena *a, size_t size)
{
	a->cap = 16;
	a->free = malloc(a->cap * sizeof(*a->free));
	if (a->free == NULL)
		return -ENOMEM;
	a->free[0] = (struct arena_ext){.off = 0, .len = size};
	a->nfree = size > 0;
	return 0;
}

void sw_shuffle_arena_fini(struct arena *a)
{
	free(a->free);
	a->free = NULL;
	a->nfree = 0;
}

size_t sw_shuffle_arena_alloc(struct arena *a, size_t len)
{
	for (size_t i = 0; i < a->nfree; i++) {
		struct arena_ext *e = &a->free[i];
		if (e->len < len)
			continue;
		size_t off = e->off;
		e->off += len;
		e->len -= len;
		if (e->len == 0) {
			memmove(e, e + 1, (a->nfree - i - 1) * sizeof(*e));
			a->nfree--;
		}
		return off;
	}
	return (size_t)-1;
}

int sw_shuffle_arena_free(struct arena *a, size_t off, size_t len)
{
	size_t lo = 0, hi = a->nfree;
	while (lo < hi) { /* first free extent after off */
		size_t mid = (lo + hi) / 2;
		if (a->free[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	int prev = lo > 0 && a->free[lo - 1].off + a->free[lo - 1].len == off;
	int next = lo < a->nfree && off + len == a->free[lo].off;
	if (prev && next) {
		a->free[lo - 1].len += len + a->free[lo].len;
		memmove(&a->free[lo], &a->free[lo + 1], (a->nfree - lo - 1) * sizeof(*a->free));
		a->nfree--;
	} else if (prev) {
		a->free[lo - 1].len += len;
	} else if (next) {
		a->free[lo].off = off;
		a->free[lo].len += len;
	} else {
		if (a->nfree == a->cap) {
			struct arena_ext *n = realloc(a->free, 2 * a->cap * sizeof(*n));
			if (n == NULL)
				return -ENOMEM;
			a->free = n;
			a->cap *= 2;
		}
		memmove(&a->free[lo + 1], &a->free[lo], (a->nfree - lo) * sizeof(*a->free));
		a->free[lo] = (struct arena_ext){.off = off, .len = len};
		a->nfree++;
	}
	return 0;
}
