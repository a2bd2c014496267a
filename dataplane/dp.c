/* SPDX-License-Identifier: MIT */
/* The backend registry and everything backends share: events, credits, counters. */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dp_impl.h"

#ifdef SW_DP_JEMALLOC
/* jemalloc (meson.build) serves an allocation of 8 MiB or more from an arena of its own that
 * gives it back to the kernel at free, so each 16 MiB answer a reduce fetched into faulted in
 * 4,096 fresh pages. Without that arena big buffers are reused as smaller ones are, and freed
 * pages go back after jemalloc's decay (10 s). jemalloc reads this at its first allocation;
 * MALLOC_CONF in the environment still overrides it. dataplane/README.md, Memory. */
const char *malloc_conf = "oversize_threshold:0";
#endif

/* The one list of backends. A new one (dpdk) adds its ops here and nowhere else. */
static const struct dp_ops *const backends[] = {
        &sw_dp_tcp_ops,
#ifdef SW_DP_HAVE_UCX
        &sw_dp_ucx_ops,
#endif
#ifdef SW_DP_HAVE_DPDK
        &sw_dp_dpdk_ops,
#endif
};

void sw_dp_config_init(struct sw_dp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->numa_node = -1;
}

static const struct dp_ops *find_backend(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

/* Without an explicit backend, prefer RDMA when a device exists and UCX is built in. */
static const char *auto_backend(void)
{
	struct sw_dp_device dev;
	int n = sw_dp_devices(&dev, 1);

	if (n > 0 && find_backend("ucx"))
		return "ucx";
	if (n < 0)
		fprintf(stderr, "sw_dp: %s; using the tcp backend\n", sw_dp_strerror(n));
	return "tcp";
}

/* Runs ops->init once per process, whichever thread opens the backend first; every later
 * open gets the same result (rte_eal_init, for one, cannot run twice). */
static int backend_init(const struct dp_ops *ops, const struct sw_dp_config *cfg)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static struct {
		const struct dp_ops *ops;
		int rc;
	} done[sizeof(backends) / sizeof(backends[0])];
	int rc = 0;
	size_t i;

	if (!ops->init)
		return 0;
	pthread_mutex_lock(&lock);
	for (i = 0; done[i].ops && done[i].ops != ops; i++)
		;
	if (done[i].ops) {
		rc = done[i].rc;
	} else {
		rc = ops->init(cfg);
		done[i].ops = ops;
		done[i].rc = rc;
	}
	pthread_mutex_unlock(&lock);
	return rc;
}

int sw_dp_open(const struct sw_dp_config *cfg, struct sw_dp_ctx **out)
{
	struct sw_dp_config c;
	const struct dp_ops *ops;
	struct sw_dp_ctx *ctx;
	int rc;

	if (!out)
		return -EINVAL;
	if (cfg)
		c = *cfg;
	else
		sw_dp_config_init(&c);
	if (!c.backend)
		c.backend = auto_backend();
	ops = find_backend(c.backend);
	if (!ops)
		return -ENOENT;
	if (!c.credits)
		c.credits = SW_DP_DEFAULT_CREDITS;
	if (!c.max_msg)
		c.max_msg = SW_DP_DEFAULT_MAX_MSG;
	if (c.max_msg > UINT32_MAX)
		return -EINVAL; /* frames carry a 32-bit length */
	if (!c.max_recv || c.max_recv > c.max_msg)
		c.max_recv = c.max_msg;
	rc = backend_init(ops, &c);
	if (rc < 0)
		return rc;
	ctx = calloc(1, ops->ctx_size);
	if (!ctx)
		return -ENOMEM;
	ctx->ops = ops;
	ctx->cfg = c;
	ctx->cfg.backend = ops->name; /* the caller's string may not outlive the context */
	/* consumed by the backend's open() */
	ctx->cfg.ucx_tls = ctx->cfg.dpdk_eal = ctx->cfg.dpdk_port = NULL;
	ctx->cfg.dpdk_ip = ctx->cfg.dpdk_neigh = NULL;
	ctx->numa_node = c.numa_node >= 0 ? c.numa_node : sw_dp_nic_numa_node();
	rc = sw_dp_pool_init(&ctx->pool, ctx->numa_node);
	if (rc == 0)
		rc = ops->open(ctx, &c);
	if (rc < 0) {
		sw_dp_pool_fini(&ctx->pool);
		free(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

/* Takes ep off the list that starts at *head (ctx->eps or ctx->held). */
static void ep_unlink(struct sw_dp_ep **head, struct sw_dp_ep *ep)
{
	if (ep->prev)
		ep->prev->next = ep->next;
	else
		*head = ep->next;
	if (ep->next)
		ep->next->prev = ep->prev;
	ep->prev = ep->next = NULL;
}

static void ep_free_if_unused(struct sw_dp_ep *ep)
{
	if (ep->closed && ep->rx_held == 0) {
		ep_unlink(&ep->ctx->held, ep);
		free(ep);
	}
}

/* Frees the endpoints closed since the last poll (sw_dp_ctx.closing). */
static void free_closing(struct sw_dp_ctx *ctx)
{
	while (ctx->closing) {
		struct sw_dp_ep *ep = ctx->closing;
		ctx->closing = ep->next;
		free(ep);
	}
}

/* Gives a RECV event's buffer back to the pool: a placed message's holds only its head, a
 * small buffer (length 0 says so). */
static void rx_free(struct sw_dp_ctx *ctx, const struct sw_dp_event *ev)
{
	sw_dp_rxbuf_free(ctx, ev->data, ev->placed ? 0 : ev->len);
}

void sw_dp_close(struct sw_dp_ctx *ctx)
{
	if (!ctx)
		return;
	while (ctx->eps)
		sw_dp_ep_close(ctx->eps);
	free_closing(ctx);
	/* Endpoints whose messages the caller never released; their buffers go with the pool. */
	while (ctx->held) {
		struct sw_dp_ep *ep = ctx->held;
		ctx->held = ep->next;
		free(ep);
	}
	/* Drop events nobody will poll; RECV buffers go back with them. */
	for (size_t i = 0; i < ctx->evq.n; i++) {
		struct sw_dp_event *ev = &ctx->evq.ev[(ctx->evq.head + i) % ctx->evq.cap];
		if (ev->type == SW_DP_EV_RECV)
			rx_free(ctx, ev);
	}
	sw_dp_regcache_fini(ctx);
	ctx->ops->close(ctx);
	sw_dp_pool_fini(&ctx->pool);
	free(ctx->evq.ev);
	free(ctx);
}

const char *sw_dp_backend(const struct sw_dp_ctx *ctx)
{
	return ctx->ops->name;
}

unsigned sw_dp_caps(const struct sw_dp_ctx *ctx)
{
	return ctx->ops->caps & (ctx->cfg.one_sided ? ~0u : ~SW_DP_CAP_GET);
}

int sw_dp_addr_parse(const char *s, struct sw_dp_addr *out)
{
	char host[INET_ADDRSTRLEN];
	const char *colon;
	struct in_addr in;
	char *end;
	unsigned long port;

	if (!s || !out)
		return -EINVAL;
	colon = strrchr(s, ':');
	if (!colon || (size_t)(colon - s) >= sizeof(host) || colon == s)
		return -EINVAL;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || end == colon + 1 || port > 65535)
		return -EINVAL;
	if (inet_pton(AF_INET, host, &in) != 1)
		return -EINVAL;
	out->ip = in.s_addr;
	out->port = (uint16_t)port;
	return 0;
}

void sw_dp_addr_format(const struct sw_dp_addr *a, char *buf, size_t len)
{
	char host[INET_ADDRSTRLEN];
	struct in_addr in = {.s_addr = a->ip};

	inet_ntop(AF_INET, &in, host, sizeof(host));
	snprintf(buf, len, "%s:%u", host, a->port);
}

struct sockaddr_in sw_dp_addr_sin(const struct sw_dp_addr *a)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(a->port)};

	sa.sin_addr.s_addr = a->ip;
	return sa;
}

struct sw_dp_addr sw_dp_sin_addr(const struct sockaddr_in *sa)
{
	return (struct sw_dp_addr){.ip = sa->sin_addr.s_addr, .port = ntohs(sa->sin_port)};
}

uint64_t sw_dp_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int sw_dp_listen(struct sw_dp_ctx *ctx, const char *addr)
{
	struct sw_dp_addr a;
	int rc = sw_dp_addr_parse(addr, &a);

	if (rc < 0 || ctx->listening)
		return -EINVAL;
	ctx->laddr = a;
	rc = ctx->ops->listen(ctx); /* fills in the bound port */
	if (rc == 0)
		ctx->listening = true;
	return rc;
}

int sw_dp_listen_addr(const struct sw_dp_ctx *ctx, char *buf, size_t len)
{
	char s[SW_DP_ADDRSTRLEN];

	if (!ctx->listening)
		return -ENOTCONN;
	sw_dp_addr_format(&ctx->laddr, s, sizeof(s));
	if (strlen(s) >= len)
		return -EINVAL;
	strcpy(buf, s);
	return 0;
}

struct sw_dp_ep *sw_dp_ep_new(struct sw_dp_ctx *ctx)
{
	struct sw_dp_ep *ep = calloc(1, ctx->ops->ep_size);

	if (!ep)
		return NULL;
	ep->ctx = ctx;
	ep->credits = ctx->cfg.credits;
	ep->next = ctx->eps;
	if (ctx->eps)
		ctx->eps->prev = ep;
	ctx->eps = ep;
	return ep;
}

/* Takes ep off the owing list and forgets its pending grant (sent, or nobody to send it to).
 * A no-op when it owes nothing, so a grant whose send ended the connection is cleared once. */
static void owe_clear(struct sw_dp_ep *ep)
{
	if (!ep->grant_pending)
		return;
	if (ep->owe_prev)
		ep->owe_prev->owe_next = ep->owe_next;
	else
		ep->ctx->owing = ep->owe_next;
	if (ep->owe_next)
		ep->owe_next->owe_prev = ep->owe_prev;
	ep->owe_prev = ep->owe_next = NULL;
	ep->grant_pending = 0;
}

int sw_dp_connect(struct sw_dp_ctx *ctx, const char *addr, struct sw_dp_ep **out)
{
	struct sw_dp_addr a;
	struct sw_dp_ep *ep;
	int rc = sw_dp_addr_parse(addr, &a);

	if (rc < 0 || !out)
		return -EINVAL;
	ep = sw_dp_ep_new(ctx);
	if (!ep)
		return -ENOMEM;
	sw_dp_addr_format(&a, ep->peer, sizeof(ep->peer));
	rc = ctx->ops->connect(ep, &a);
	if (rc < 0) {
		ep_unlink(&ctx->eps, ep);
		free(ep);
		return rc;
	}
	*out = ep;
	return 0;
}

static void counters_add(struct sw_dp_counters *a, const struct sw_dp_counters *b)
{
	a->tx_bytes += b->tx_bytes;
	a->rx_bytes += b->rx_bytes;
	a->tx_msgs += b->tx_msgs;
	a->rx_msgs += b->rx_msgs;
	a->get_bytes += b->get_bytes;
	a->credit_stalls += b->credit_stalls;
	a->retransmits += b->retransmits;
	a->rx_dup_segs += b->rx_dup_segs;
}

/* After ep_close no queued event may name ep: completions lose it, the rest go. */
static void evq_forget_ep(struct sw_dp_ctx *ctx, struct sw_dp_ep *ep)
{
	for (size_t i = 0; i < ctx->evq.n; i++) {
		struct sw_dp_event *ev = &ctx->evq.ev[(ctx->evq.head + i) % ctx->evq.cap];
		if (ev->ep != ep)
			continue;
		if (ev->type == SW_DP_EV_SEND || ev->type == SW_DP_EV_GET) {
			ev->ep = NULL;
			continue;
		}
		if (ev->type == SW_DP_EV_RECV) {
			rx_free(ctx, ev);
			ep->rx_held--;
		}
		ev->type = 0; /* skipped by sw_dp_poll() */
	}
}

void sw_dp_ep_close(struct sw_dp_ep *ep)
{
	struct sw_dp_ctx *ctx;

	if (!ep || ep->closed)
		return;
	ctx = ep->ctx;
	ep->closed = true;
	ctx->ops->ep_close(ep);
	evq_forget_ep(ctx, ep);
	counters_add(&ctx->closed, &ep->c);
	owe_clear(ep);
	ep_unlink(&ctx->eps, ep);
	if (ep->rx_held == 0) {
		/* A SEND that failed can come just before its endpoint's CLOSED in one batch
		 * (tcp, dpdk): a caller closing the endpoint at the first would meet freed
		 * memory at the second (ASan, the shuffle fetcher over dpdk). */
		ep->next = ctx->closing;
		ctx->closing = ep;
		return;
	}
	ep->next = ctx->held; /* until the caller releases what it holds */
	if (ctx->held)
		ctx->held->prev = ep;
	ctx->held = ep;
}

void sw_dp_ep_peer(const struct sw_dp_ep *ep, char *buf, size_t len)
{
	snprintf(buf, len, "%s", ep->peer);
}

void sw_dp_ep_describe(const struct sw_dp_ep *ep, FILE *out)
{
	if (ep->closed || ep->down)
		fprintf(out, "%s endpoint to %s: closed\n", ep->ctx->ops->name, ep->peer);
	else
		ep->ctx->ops->describe(ep, out);
}

void sw_dp_ep_set_user(struct sw_dp_ep *ep, void *user)
{
	ep->user = user;
}

void *sw_dp_ep_user(const struct sw_dp_ep *ep)
{
	return ep->user;
}

int sw_dp_set_rate(struct sw_dp_ctx *ctx, uint64_t bytes_per_s)
{
	if (!ctx)
		return -EINVAL;
	if (!ctx->ops->set_rate)
		return -ENOTSUP;
	return ctx->ops->set_rate(ctx, bytes_per_s);
}

int sw_dp_ep_set_paced(struct sw_dp_ep *ep, bool paced)
{
	if (!ep)
		return -EINVAL;
	if (!ep->ctx->ops->set_paced)
		return -ENOTSUP;
	if (ep->closed || ep->down)
		return -ENOTCONN;
	return ep->ctx->ops->set_paced(ep, paced);
}

uint32_t sw_dp_ep_credits(const struct sw_dp_ep *ep)
{
	return ep->credits;
}

int sw_dp_send(struct sw_dp_ep *ep, uint64_t tag, const struct iovec *iov, int iovcnt, void *user)
{
	uint64_t total = 0;
	uint32_t grant;
	int rc;

	if (!ep || iovcnt < 0 || iovcnt > SW_DP_MAX_IOV || (iovcnt && !iov))
		return -EINVAL;
	if (ep->closed || ep->down)
		return -ENOTCONN;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > ep->ctx->cfg.max_msg)
		return -EMSGSIZE;
	if (ep->credits == 0) {
		ep->c.credit_stalls++;
		ep->stalled = true;
		return -EAGAIN;
	}
	/* Credits owed to the peer ride along when the backend can carry them: one write for
	 * both, instead of a grant of their own at the next poll. */
	grant = ep->ctx->ops->grant_with_send ? ep->grant_pending : 0;
	rc = ep->ctx->ops->send(ep, tag, iov, iovcnt, user, grant);
	if (rc == 0) {
		ep->credits--;
		if (grant)
			owe_clear(ep);
	}
	return rc;
}

int sw_dp_credit_arrived(struct sw_dp_ep *ep, uint32_t n)
{
	if (n > ep->ctx->cfg.credits - ep->credits)
		return -EPROTO; /* more than we spent: a peer must not mint credits */
	ep->credits += n;
	if (ep->stalled && n) {
		ep->stalled = false;
		ep->ctx->credit_woke = true;
	}
	return 0;
}

void sw_dp_send_done(struct sw_dp_ep *ep, size_t bytes, void *user, int status)
{
	struct sw_dp_event ev = {.type = SW_DP_EV_SEND, .status = status, .user = user};

	if (status == 0) {
		ep->c.tx_bytes += bytes;
		ep->c.tx_msgs++;
	}
	ev.ep = ep->closed ? NULL : ep;
	sw_dp_push(ep->ctx, &ev);
}

bool sw_dp_rx_full(const struct sw_dp_ep *ep, unsigned pending)
{
	uint32_t limit = ep->ctx->cfg.credits > SW_DP_DEFAULT_CREDITS ? ep->ctx->cfg.credits
	                                                              : SW_DP_DEFAULT_CREDITS;
	return ep->rx_held + ep->grant_pending + pending >= limit;
}

int sw_dp_push_recv(struct sw_dp_ep *ep, uint64_t tag, void *data, size_t len)
{
	return sw_dp_push_placed(ep, tag, data, len, NULL);
}

int sw_dp_push_placed(struct sw_dp_ep *ep, uint64_t tag, void *data, size_t len, void *placed)
{
	struct sw_dp_event ev = {.type = SW_DP_EV_RECV,
	                         .ep = ep,
	                         .tag = tag,
	                         .data = data,
	                         .len = len,
	                         .placed = placed};
	int rc = sw_dp_push(ep->ctx, &ev);

	if (rc < 0)
		return rc;
	ep->rx_held++;
	ep->c.rx_bytes += len;
	ep->c.rx_msgs++;
	return 0;
}

void sw_dp_ep_down(struct sw_dp_ep *ep, int status)
{
	struct sw_dp_event ev = {.type = SW_DP_EV_CLOSED, .status = status, .ep = ep};

	if (ep->down || ep->closed)
		return;
	ep->down = true;
	owe_clear(ep);
	sw_dp_push(ep->ctx, &ev);
}

int sw_dp_push(struct sw_dp_ctx *ctx, const struct sw_dp_event *ev)
{
	struct dp_evq *q = &ctx->evq;

	if (q->n == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		struct sw_dp_event *n = malloc(cap * sizeof(*n));
		if (!n)
			return -ENOMEM;
		for (size_t i = 0; i < q->n; i++)
			n[i] = q->ev[(q->head + i) % q->cap];
		free(q->ev);
		q->ev = n;
		q->cap = cap;
		q->head = 0;
	}
	q->ev[(q->head + q->n) % q->cap] = *ev;
	q->n++;
	return 0;
}

/* Credits released since the last poll go back in one grant per endpoint, so a burst of
 * small messages costs one control frame, not one each. Only endpoints that owe a grant are
 * visited: a context with 10,000 quiet connections polls as fast as one with a single one. */
static void flush_grants(struct sw_dp_ctx *ctx)
{
	struct sw_dp_ep *next;

	for (struct sw_dp_ep *ep = ctx->owing; ep; ep = next) {
		next = ep->owe_next; /* a failed grant may end ep's connection */
		if (ctx->ops->grant(ep, ep->grant_pending) == 0)
			owe_clear(ep);
	}
}

int sw_dp_poll(struct sw_dp_ctx *ctx, struct sw_dp_event *ev, int max)
{
	struct dp_evq *q;
	int n = 0;

	if (!ctx || max < 0 || (max && !ev))
		return -EINVAL;
	q = &ctx->evq;
	free_closing(ctx); /* the caller is done with the last batch */
	flush_grants(ctx);
	sw_dp_pool_idle(&ctx->pool);
	if (q->n < (size_t)max || max == 0) {
		int rc = ctx->ops->progress(ctx);
		if (rc < 0)
			return rc;
	}
	while (n < max && q->n) {
		struct sw_dp_event *e = &q->ev[q->head];
		q->head = (q->head + 1) % q->cap;
		q->n--;
		if (e->type)
			ev[n++] = *e;
	}
	return n;
}

int sw_dp_wait(struct sw_dp_ctx *ctx, int timeout_ms)
{
	if (ctx->evq.n || ctx->credit_woke) {
		ctx->credit_woke = false;
		return 0;
	}
	flush_grants(ctx);
	return ctx->ops->wait(ctx, timeout_ms);
}

int sw_dp_fd(struct sw_dp_ctx *ctx)
{
	if (!(ctx->ops->caps & SW_DP_CAP_FD))
		return -ENOTSUP;
	return ctx->ops->fd(ctx);
}

int sw_dp_ep_set_place(struct sw_dp_ep *ep, size_t head, sw_dp_place_fn fn)
{
	if (!ep || (fn && (head == 0 || head > DP_POOL_BUF)))
		return -EINVAL;
	if (!ep->ctx->ops->place_max)
		return -ENOTSUP;
	if (fn && head > ep->ctx->ops->place_max)
		return -EINVAL;
	ep->place = fn;
	ep->place_head = head;
	return 0;
}

int sw_dp_fd_sleep_ms(const struct sw_dp_ctx *ctx)
{
	if (!(ctx->ops->caps & SW_DP_CAP_FD))
		return -ENOTSUP;
	return ctx->ops->fd_sleep_ms ? ctx->ops->fd_sleep_ms : -1;
}

void sw_dp_release(struct sw_dp_ctx *ctx, struct sw_dp_event *ev)
{
	struct sw_dp_ep *ep;

	if (!ev || ev->type != SW_DP_EV_RECV)
		return;
	ep = ev->ep;
	rx_free(ctx, ev);
	ev->type = 0;
	ev->data = NULL;
	ev->placed = NULL;
	ep->rx_held--;
	if (!ep->closed && !ep->down && ep->grant_pending++ == 0) {
		ep->owe_next = ctx->owing;
		if (ctx->owing)
			ctx->owing->owe_prev = ep;
		ctx->owing = ep;
	}
	ep_free_if_unused(ep);
}

int sw_dp_mem_reg(struct sw_dp_ctx *ctx, void *addr, size_t len, struct sw_dp_mr **out)
{
	if (!ctx || !addr || !len || !out)
		return -EINVAL;
	return sw_dp_regcache_get(ctx, addr, len, out);
}

void sw_dp_mem_dereg(struct sw_dp_ctx *ctx, struct sw_dp_mr *mr)
{
	if (mr)
		sw_dp_regcache_put(ctx, mr);
}

int sw_dp_mem_evict(struct sw_dp_ctx *ctx, void *addr, size_t len)
{
	return sw_dp_regcache_evict(ctx, addr, len);
}

const void *sw_dp_mr_rkey(const struct sw_dp_mr *mr, size_t *len)
{
	*len = mr->rkey_len;
	return mr->rkey;
}

void *sw_dp_mr_addr(const struct sw_dp_mr *mr)
{
	return mr->addr;
}

size_t sw_dp_mr_len(const struct sw_dp_mr *mr)
{
	return mr->len;
}

int sw_dp_get(struct sw_dp_ep *ep, void *local, size_t len, uint64_t raddr, const void *rkey,
              size_t rkey_len, void *user)
{
	if (!ep || (len && !local))
		return -EINVAL;
	if (!(sw_dp_caps(ep->ctx) & SW_DP_CAP_GET))
		return -ENOTSUP;
	if (!rkey || !rkey_len)
		return -EINVAL;
	if (ep->closed || ep->down)
		return -ENOTCONN;
	return ep->ctx->ops->get(ep, local, len, raddr, rkey, rkey_len, user);
}

void sw_dp_ep_counters(const struct sw_dp_ep *ep, struct sw_dp_counters *out)
{
	*out = ep->c;
}

void sw_dp_counters(const struct sw_dp_ctx *ctx, struct sw_dp_counters *out)
{
	*out = ctx->closed;
	for (const struct sw_dp_ep *ep = ctx->eps; ep; ep = ep->next)
		counters_add(out, &ep->c);
	out->rx_pool_bytes = sw_dp_pool_bytes(&ctx->pool);
}

int sw_dp_foreach_peer(struct sw_dp_ctx *ctx, sw_dp_peer_fn fn, void *arg)
{
	struct sw_dp_ep *next;

	for (struct sw_dp_ep *ep = ctx->eps; ep; ep = next) {
		int rc;
		next = ep->next; /* fn may close ep */
		rc = fn(ep, ep->peer, &ep->c, arg);
		if (rc)
			return rc;
	}
	return 0;
}

void *sw_dp_alloc(struct sw_dp_ctx *ctx, size_t len)
{
	return sw_dp_numa_alloc(ctx->numa_node, len);
}

void sw_dp_free(struct sw_dp_ctx *ctx, void *p, size_t len)
{
	sw_dp_numa_free(ctx->numa_node, p, len);
}

int sw_dp_numa_node(const struct sw_dp_ctx *ctx)
{
	return ctx->numa_node;
}

const char *sw_dp_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
	case EAGAIN:
		return "no send credit left: poll and retry";
	case ENOENT:
		return "unknown backend";
	case ENOTSUP:
		return "operation not supported by this backend";
	case ENODEV:
		return "no RDMA devices (no device or no kernel RDMA support)";
	case ECONNRESET:
		return "connection reset: the peer vanished";
	case ECONNREFUSED:
		return "connection refused: nobody listens at that address";
	case ENOTCONN:
		return "endpoint not connected";
	case ETIMEDOUT:
		return "timed out";
	case EPROTO:
		return "malformed frame from the peer";
	case EMSGSIZE:
		return "message larger than max_msg (or, from a peer, max_recv)";
	case EBUSY:
		return "registered region still referenced";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
