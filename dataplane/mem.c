/* SPDX-License-Identifier: MIT */
/*
 * Memory: NUMA placement, the receive-buffer pool and the registration cache.
 * General allocations use malloc, which the build binds to jemalloc (see meson.build).
 */
#include <errno.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_impl.h"

/* Unreferenced registrations kept for reuse; beyond this the least recently used goes.
 * Registration pins pages and costs a syscall (verbs: ibv_reg_mr), so a shuffle that
 * serves the same store over and over should pay it once per region, not per fetch. */
#define DP_REGCACHE_IDLE_MAX 64

static bool numa_placed(int node)
{
	return node >= 0 && numa_available() >= 0;
}

void *sw_dp_numa_alloc(int node, size_t len)
{
	if (numa_placed(node))
		return numa_alloc_onnode(len, node);
	return malloc(len);
}

void sw_dp_numa_free(int node, void *p, size_t len)
{
	if (!p)
		return;
	if (numa_placed(node))
		numa_free(p, len);
	else
		free(p);
}

int sw_dp_pool_init(struct dp_pool *p, int numa_node)
{
	memset(p, 0, sizeof(*p));
	p->numa_node = numa_node;
	return 0;
}

static void big_trim(struct dp_pool *p)
{
	for (size_t i = 0; i < p->nbig; i++)
		sw_dp_numa_free(p->numa_node, p->big[i].p, sizeof(struct dp_big) + p->big[i].cls);
	p->nbig = 0;
	p->big_bytes = 0;
}

/* Only once every small buffer is back: the free list then holds exactly the slabs' buffers. */
static void slabs_trim(struct dp_pool *p)
{
	for (size_t i = 0; i < p->nslabs; i++)
		sw_dp_numa_free(p->numa_node, p->slabs[i], DP_POOL_SLAB);
	free(p->slabs);
	free(p->free);
	p->slabs = NULL;
	p->free = NULL;
	p->nslabs = p->nfree = p->cap = 0;
}

void sw_dp_pool_fini(struct dp_pool *p)
{
	big_trim(p);
	slabs_trim(p);
	while (p->out) { /* held by a caller that closed the context without releasing them */
		struct dp_big *h = p->out;
		p->out = h->next;
		sw_dp_numa_free(p->numa_node, h, sizeof(*h) + h->cls);
	}
}

void sw_dp_pool_idle(struct dp_pool *p)
{
	struct timespec ts;
	uint64_t now;

	if (p->nslabs == 0 && p->nbig == 0)
		return;
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	if (p->taken || p->busy_ms == 0) {
		p->taken = false;
		p->busy_ms = now;
		return;
	}
	if (now - p->busy_ms < DP_POOL_IDLE_MS)
		return;
	big_trim(p);
	if (p->in_use == 0)
		slabs_trim(p);
}

size_t sw_dp_pool_bytes(const struct dp_pool *p)
{
	return p->nslabs * (size_t)DP_POOL_SLAB + p->big_bytes;
}

/* Adds one slab's worth of buffers to the free list. */
static int pool_grow(struct dp_pool *p)
{
	size_t per = DP_POOL_SLAB / DP_POOL_BUF;
	void **slabs = realloc(p->slabs, (p->nslabs + 1) * sizeof(*slabs));
	void **fl;
	char *slab;

	if (!slabs)
		return -ENOMEM;
	p->slabs = slabs;
	fl = realloc(p->free, (p->cap + per) * sizeof(*fl));
	if (!fl)
		return -ENOMEM;
	p->free = fl;
	p->cap += per;
	slab = sw_dp_numa_alloc(p->numa_node, DP_POOL_SLAB);
	if (!slab)
		return -ENOMEM;
	p->slabs[p->nslabs++] = slab;
	for (size_t i = 0; i < per; i++)
		p->free[p->nfree++] = slab + i * DP_POOL_BUF;
	return 0;
}

static size_t big_class(size_t len)
{
	return (len + DP_BIG_ALIGN - 1) & ~(size_t)(DP_BIG_ALIGN - 1);
}

/* Large messages reuse buffers: a fresh 16 MiB buffer costs 4096 page faults (jemalloc
 * hands allocations above 8 MiB straight back to the kernel), which measured at a third
 * of the tcp backend's throughput for 16 MiB messages. */
static void *big_get(struct dp_pool *p, size_t len)
{
	size_t cls = big_class(len);
	struct dp_big *h = NULL;

	for (size_t i = p->nbig; i-- > 0;) {
		if (p->big[i].cls == cls) {
			h = p->big[i].p;
			p->big_bytes -= cls;
			p->big[i] = p->big[--p->nbig];
			break;
		}
	}
	if (!h && !(h = sw_dp_numa_alloc(p->numa_node, sizeof(*h) + cls)))
		return NULL;
	*h = (struct dp_big){.next = p->out, .cls = cls};
	if (p->out)
		p->out->prev = h;
	p->out = h;
	return h + 1;
}

static void big_put(struct dp_pool *p, void *b, size_t len)
{
	struct dp_big *h = (struct dp_big *)b - 1;
	size_t cls = big_class(len);

	if (h->prev)
		h->prev->next = h->next;
	else
		p->out = h->next;
	if (h->next)
		h->next->prev = h->prev;
	if (p->nbig == DP_BIG_KEEP || p->big_bytes + cls > DP_BIG_BYTES) {
		sw_dp_numa_free(p->numa_node, h, sizeof(*h) + cls);
		return;
	}
	p->big[p->nbig].p = h;
	p->big[p->nbig++].cls = cls;
	p->big_bytes += cls;
}

void *sw_dp_rxbuf_alloc(struct sw_dp_ctx *ctx, size_t len)
{
	struct dp_pool *p = &ctx->pool;

	if (len == 0)
		return NULL;
	p->taken = true;
	if (len > DP_POOL_BUF)
		return big_get(p, len);
	if (!p->nfree && pool_grow(p) < 0)
		return NULL;
	p->in_use++;
	return p->free[--p->nfree];
}

void sw_dp_rxbuf_free(struct sw_dp_ctx *ctx, void *buf, size_t len)
{
	struct dp_pool *p = &ctx->pool;

	if (!buf)
		return;
	if (len > DP_POOL_BUF) {
		big_put(p, buf, len);
	} else {
		p->free[p->nfree++] = buf; /* cap covers every buffer ever carved */
		p->in_use--;
	}
}

static void mr_destroy(struct sw_dp_ctx *ctx, size_t i)
{
	struct dp_regcache *rc = &ctx->rc;
	struct sw_dp_mr *mr = rc->mr[i];

	ctx->ops->mem_dereg(ctx, mr);
	free(mr);
	rc->mr[i] = rc->mr[--rc->n];
}

static void regcache_trim(struct sw_dp_ctx *ctx)
{
	struct dp_regcache *rc = &ctx->rc;

	for (;;) {
		size_t idle = 0, lru = 0;
		uint64_t oldest = UINT64_MAX;
		for (size_t i = 0; i < rc->n; i++) {
			if (rc->mr[i]->refs)
				continue;
			idle++;
			if (rc->mr[i]->last_use < oldest) {
				oldest = rc->mr[i]->last_use;
				lru = i;
			}
		}
		if (idle <= DP_REGCACHE_IDLE_MAX)
			return;
		mr_destroy(ctx, lru);
	}
}

int sw_dp_regcache_get(struct sw_dp_ctx *ctx, void *addr, size_t len, struct sw_dp_mr **out)
{
	struct dp_regcache *rc = &ctx->rc;
	uintptr_t a = (uintptr_t)addr;
	struct sw_dp_mr *mr;
	int err;

	for (size_t i = 0; i < rc->n; i++) {
		uintptr_t b = (uintptr_t)rc->mr[i]->addr;
		if (b <= a && a + len <= b + rc->mr[i]->len) {
			mr = rc->mr[i];
			goto found;
		}
	}
	if (rc->n == rc->cap) {
		size_t cap = rc->cap ? rc->cap * 2 : 16;
		struct sw_dp_mr **n = realloc(rc->mr, cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		rc->mr = n;
		rc->cap = cap;
	}
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	mr->addr = addr;
	mr->len = len;
	err = ctx->ops->mem_reg(ctx, mr);
	if (err < 0) {
		free(mr);
		return err;
	}
	rc->mr[rc->n++] = mr;
found:
	mr->refs++;
	mr->last_use = ++rc->tick;
	*out = mr;
	return 0;
}

void sw_dp_regcache_put(struct sw_dp_ctx *ctx, struct sw_dp_mr *mr)
{
	if (mr->refs)
		mr->refs--;
	mr->last_use = ++ctx->rc.tick;
	regcache_trim(ctx);
}

static bool overlaps(const struct sw_dp_mr *mr, uintptr_t a, size_t len)
{
	uintptr_t b = (uintptr_t)mr->addr;

	return a < b + mr->len && b < a + len;
}

int sw_dp_regcache_evict(struct sw_dp_ctx *ctx, void *addr, size_t len)
{
	struct dp_regcache *rc = &ctx->rc;
	uintptr_t a = (uintptr_t)addr;
	int n = 0;

	for (size_t i = 0; i < rc->n; i++)
		if (overlaps(rc->mr[i], a, len) && rc->mr[i]->refs)
			return -EBUSY;
	for (size_t i = 0; i < rc->n;) {
		if (overlaps(rc->mr[i], a, len)) {
			mr_destroy(ctx, i);
			n++;
		} else {
			i++;
		}
	}
	return n;
}

void sw_dp_regcache_fini(struct sw_dp_ctx *ctx)
{
	while (ctx->rc.n)
		mr_destroy(ctx, ctx->rc.n - 1);
	free(ctx->rc.mr);
	memset(&ctx->rc, 0, sizeof(ctx->rc));
}
