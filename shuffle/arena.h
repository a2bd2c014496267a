/* SPDX-License-Identifier: MIT */
/* First-fit extent allocator over one contiguous arena (private to shuffle/). */
#ifndef SW_SHUFFLE_ARENA_H
#define SW_SHUFFLE_ARENA_H

#include <stddef.h>

#define ARENA_GRAIN 64 /* every extent starts on a cache line */

struct arena_ext {
	size_t off;
	size_t len;
};

/* Free extents sorted by offset, neighbours always coalesced. */
struct arena {
	struct arena_ext *free;
	size_t nfree;
	size_t cap;
};

int sw_shuffle_arena_init(struct arena *a, size_t size);
void sw_shuffle_arena_fini(struct arena *a);
/* Offset of a free extent of len bytes (a multiple of ARENA_GRAIN), or (size_t)-1. */
size_t sw_shuffle_arena_alloc(struct arena *a, size_t len);
/* 0, or -ENOMEM when the free list cannot grow (the extent is then lost to the arena). */
int sw_shuffle_arena_free(struct arena *a, size_t off, size_t len);

static inline size_t arena_round(size_t len)
{
	return (len + ARENA_GRAIN - 1) & ~(size_t)(ARENA_GRAIN - 1);
}

#endif
