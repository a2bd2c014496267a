/* SPDX-License-Identifier: MIT */
/* Internal to dataplane/: the backend ops table and the state every backend shares. */
#ifndef SW_DP_IMPL_H
#define SW_DP_IMPL_H

#include <netinet/in.h>
#include <stdbool.h>

#include "sw_dp.h"

/* Backend contexts and endpoints embed these as their first member; dp.c allocates
 * ops->ctx_size / ops->ep_size bytes so a backend casts without a second allocation. */
struct dp_ops {
	const char *name;
	unsigned caps;
	size_t ctx_size;
	size_t ep_size;
	bool grant_with_send; /* send() carries owed credits: no control message of their own */
	size_t place_max;     /* largest head sw_dp_ep_set_place() takes; 0: no placement */
	/* Once per process, before the first open() of this backend (NULL: nothing to do), e.g.
	 * rte_eal_init(), which a process may call only once. Its result is kept: a failed
	 * init fails every later open() the same way. */
	int (*init)(const struct sw_dp_config *cfg);
	int (*open)(struct sw_dp_ctx *ctx, const struct sw_dp_config *cfg);
	void (*close)(struct sw_dp_ctx *ctx);
	/* Binds ctx->laddr and fills in the bound port. */
	int (*listen)(struct sw_dp_ctx *ctx);
	int (*connect)(struct sw_dp_ep *ep, const struct sw_dp_addr *to);
	/* Releases the backend's resources of ep; dp.c frees the memory later. */
	void (*ep_close)(struct sw_dp_ep *ep);
	/* grant: credits owed to the peer, to go in the same write as the message; always 0
	 * unless the backend sets grant_with_send. */
	int (*send)(struct sw_dp_ep *ep, uint64_t tag, const struct iovec *iov, int iovcnt,
	            void *user, uint32_t grant);
	/* Hands n credits back to the peer. */
	int (*grant)(struct sw_dp_ep *ep, uint32_t n);
	/* The context's pacing rate (0: unpaced) and whether ep draws on it; both NULL: the
	 * backend does not pace. */
	int (*set_rate)(struct sw_dp_ctx *ctx, uint64_t bytes_per_s);
	int (*set_paced)(struct sw_dp_ep *ep, bool paced);
	int (*mem_reg)(struct sw_dp_ctx *ctx, struct sw_dp_mr *mr);
	void (*mem_dereg)(struct sw_dp_ctx *ctx, struct sw_dp_mr *mr);
	int (*get)(struct sw_dp_ep *ep, void *local, size_t len, uint64_t raddr, const void *rkey,
	           size_t rkey_len, void *user);
	/* Non-blocking: moves data and pushes events with sw_dp_push(). */
	int (*progress)(struct sw_dp_ctx *ctx);
	int (*wait)(struct sw_dp_ctx *ctx, int timeout_ms);
	int (*fd)(struct sw_dp_ctx *ctx);
	/* Longest a caller may sleep on fd() alone, in ms, because the fd can stay quiet though
	 * work arrived (sw_dp_fd_sleep_ms); 0: no bound, the fd reports all work. */
	int fd_sleep_ms;
	void (*describe)(const struct sw_dp_ep *ep, FILE *out);
};

extern const struct dp_ops sw_dp_tcp_ops;
#ifdef SW_DP_HAVE_UCX
extern const struct dp_ops sw_dp_ucx_ops;
#endif
#ifdef SW_DP_HAVE_DPDK
extern const struct dp_ops sw_dp_dpdk_ops;
#endif

/* Receive buffers on the context's NUMA node: small ones carved from slabs, large ones
 * (rounded up to DP_BIG_ALIGN) kept after use for the next message of the same class. */
#define DP_POOL_BUF  (64u << 10)
#define DP_POOL_SLAB (4u << 20)
#define DP_BIG_ALIGN (64u << 10)
#define DP_BIG_KEEP  16
#define DP_BIG_BYTES (256u << 20)
/* A pool nothing was taken from for this long gives its memory back (sw_dp_pool_idle). */
#define DP_POOL_IDLE_MS 1000
struct dp_pool {
	int numa_node;
	struct dp_big *out; /* large buffers handed out: closing frees those still held */
	void **free;
	size_t nfree, cap;
	size_t in_use; /* small buffers handed out and not freed */
	bool taken;    /* a buffer was handed out since the last sw_dp_pool_idle() */
	uint64_t busy_ms;
	void **slabs;
	size_t nslabs;
	struct {
		void *p;
		size_t cls;
	} big[DP_BIG_KEEP];
	size_t nbig, big_bytes;
};

/* What precedes every large buffer: its place on the pool's list of those handed out. */
struct dp_big {
	struct dp_big *prev, *next;
	size_t cls;
	unsigned char pad[64 - 2 * sizeof(void *) - sizeof(size_t)]; /* keeps data 64-aligned */
};

/* A registration: also the public struct sw_dp_mr, owned by the registration cache. */
struct sw_dp_mr {
	void *addr;
	size_t len;
	unsigned refs;
	uint64_t last_use;
	void *be;   /* backend handle (ucp_mem_h) */
	void *rkey; /* packed remote key */
	size_t rkey_len;
};

struct dp_regcache {
	struct sw_dp_mr **mr;
	size_t n, cap;
	uint64_t tick;
};

struct dp_evq {
	struct sw_dp_event *ev;
	size_t head, n, cap;
};

struct sw_dp_ctx {
	const struct dp_ops *ops;
	struct sw_dp_config cfg;
	int numa_node;
	struct dp_evq evq;
	struct dp_pool pool;
	struct dp_regcache rc;
	struct sw_dp_ep *eps; /* live endpoints, doubly linked */
	/* Closed endpoints whose messages the caller still holds (rx_held > 0), doubly linked
	 * like eps: each goes at its last sw_dp_release(), the rest at sw_dp_close(). */
	struct sw_dp_ep *held;
	/* Endpoints closed since the last poll, via next: freed by the next sw_dp_poll(), so that
	 * events of the batch the caller is still handling may name them (user NULL once the
	 * caller cleared it) rather than freed memory. */
	struct sw_dp_ep *closing;
	struct sw_dp_ep *owing;       /* endpoints with grant_pending > 0, via owe_next */
	struct sw_dp_counters closed; /* summed counters of endpoints already closed */
	bool credit_woke; /* credits came back to a stalled endpoint: wait must not sleep */
	bool listening;
	struct sw_dp_addr laddr;
};

struct sw_dp_ep {
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *prev, *next;
	/* On ctx->owing while grant_pending > 0, so a poll visits only the endpoints that owe
	 * a grant, not every connection of the context. */
	struct sw_dp_ep *owe_prev, *owe_next;
	void *user;
	uint32_t credits;       /* sends we may still make */
	uint32_t grant_pending; /* credits released locally, not yet sent back */
	unsigned rx_held;       /* RECV events not yet released: they pin the memory */
	bool closed;            /* sw_dp_ep_close() was called */
	bool down;              /* connection ended (CLOSED event pushed) */
	bool stalled;           /* a send was refused for want of credit */
	sw_dp_place_fn place;   /* sw_dp_ep_set_place(), NULL: off */
	size_t place_head;
	struct sw_dp_counters c;
	char peer[SW_DP_ADDRSTRLEN];
};

/* dp.c: used by backends. */
int sw_dp_push(struct sw_dp_ctx *ctx, const struct sw_dp_event *ev);
struct sw_dp_ep *sw_dp_ep_new(struct sw_dp_ctx *ctx);
void sw_dp_ep_down(struct sw_dp_ep *ep, int status);
int sw_dp_push_recv(struct sw_dp_ep *ep, uint64_t tag, void *data, size_t len);
/* The same for a message whose bytes after its first place_head went to placed (data holds
 * those first bytes, in a small pool buffer). */
int sw_dp_push_placed(struct sw_dp_ep *ep, uint64_t tag, void *data, size_t len, void *placed);
/* Whether one more message (besides `pending` the backend is still receiving) would exceed
 * the credits a peer can have: then the peer ignores flow control and loses its endpoint
 * (-EPROTO) before anything is allocated. The limit is the larger of this side's credits
 * and the default, so that peers configured with fewer credits interoperate. */
bool sw_dp_rx_full(const struct sw_dp_ep *ep, unsigned pending);
/* Credits the peer gave back: 0, or -EPROTO when it gives more than were spent. */
int sw_dp_credit_arrived(struct sw_dp_ep *ep, uint32_t n);
void sw_dp_send_done(struct sw_dp_ep *ep, size_t bytes, void *user, int status);
/* Kernel-socket backends: the sockaddr of an address, and back. */
struct sockaddr_in sw_dp_addr_sin(const struct sw_dp_addr *a);
struct sw_dp_addr sw_dp_sin_addr(const struct sockaddr_in *sa);
/* CLOCK_MONOTONIC in ns: the clock of tcp's spin and of the dpdk wake set's timer. */
uint64_t sw_dp_now_ns(void);

/* mem.c */
int sw_dp_pool_init(struct dp_pool *p, int numa_node);
void sw_dp_pool_fini(struct dp_pool *p);
/* Called by every poll: frees the kept large buffers, and the slabs when no small buffer is
 * out, once nothing was taken for DP_POOL_IDLE_MS. */
void sw_dp_pool_idle(struct dp_pool *p);
/* Bytes the pool holds: slabs and kept large buffers. */
size_t sw_dp_pool_bytes(const struct dp_pool *p);
/* A receive buffer of len bytes: from the pool when it fits, else the heap. */
void *sw_dp_rxbuf_alloc(struct sw_dp_ctx *ctx, size_t len);
void sw_dp_rxbuf_free(struct sw_dp_ctx *ctx, void *p, size_t len);
int sw_dp_regcache_get(struct sw_dp_ctx *ctx, void *addr, size_t len, struct sw_dp_mr **out);
void sw_dp_regcache_put(struct sw_dp_ctx *ctx, struct sw_dp_mr *mr);
int sw_dp_regcache_evict(struct sw_dp_ctx *ctx, void *addr, size_t len);
void sw_dp_regcache_fini(struct sw_dp_ctx *ctx);
void *sw_dp_numa_alloc(int node, size_t len);
void sw_dp_numa_free(int node, void *p, size_t len);

/* devices.c: NUMA node of the first RDMA device, -1 when none or unknown. */
int sw_dp_nic_numa_node(void);

#endif
