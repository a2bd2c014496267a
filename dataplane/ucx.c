/* SPDX-License-Identifier: MIT */
/*
 * Backend "ucx": UCP active messages for framed messages, ucp_get_nbx on ucp_mem_map'ed
 * regions for one-sided reads. One ucp context + worker per sw_dp context, connections
 * through ucp_listener/ucp_ep on socket addresses (UCX's sockcm here, rdma_cm on RDMA
 * NICs). UCX picks the data transports (UCX_TLS): shared memory or tcp on this machine,
 * verbs (rc/ud/dc) on RDMA NICs, without changes to this file.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucp/api/ucp.h>

#include "dp_impl.h"

/* AM_BYE: the sender is closing its endpoint on purpose. UCX reports a peer's close as a
 * reset (or not at all, before its keepalive notices), so without it a peer that left cleanly
 * could not be told from one that broke. */
enum { AM_MSG = 1, AM_CREDIT = 2, AM_BYE = 3 };

/* A message's first bytes ride in the AM header, behind its 8-byte tag: a protocol header
 * then arrives with the active message itself, where a receiver placing the payload
 * (sw_dp_ep_set_place) reads it before the rest, even when the rest comes by rendezvous. */
#define AM_INLINE   256
#define AM_HEAD_MAX (8 + AM_INLINE)

/* Progress calls sw_dp_wait() makes before it sleeps on the worker's event fd. */
#define UCX_SPIN 200
/* The longest a wait sleeps on the worker's event fd before it progresses the worker again.
 * UCX 1.13 over shared memory (sm,tcp) sometimes leaves the fd quiet though a message
 * arrived: a reducer waiting on it for its fetch's whole timeout got nothing for 20 s while
 * its server answered (2 of 9 runs of the shuffle kill test under ASan at load 13, none of 12
 * with sleeps bounded so; the server never showed it, as its loop wakes every 50 ms anyway).
 * A caller sleeping on the fd in its own epoll learns it from sw_dp_fd_sleep_ms(). */
#define UCX_WAKE_MS 100

enum req_kind { REQ_SEND, REQ_CTRL, REQ_RECV, REQ_GET, REQ_FLUSH };

/* One operation UCX still owns. Lives on its endpoint's list so closing the endpoint
 * can detach it: the completion then reports ep NULL instead of touching freed memory. */
struct ucx_req {
	struct ucx_req *prev, *next;
	struct ucx_req *pnext; /* on the endpoint's queue of sends made before it was up */
	enum req_kind kind;
	unsigned am_id, am_flags;
	size_t count;
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	uint64_t hdr; /* receives: the tag */
	/* Sends: the AM header, which must live until completion: the tag (or credit count),
	 * then the message's small leading iovecs, so the payload is one contiguous buffer. */
	unsigned char head[AM_HEAD_MAX];
	size_t head_len;
	struct ucp_dt_iov iov[SW_DP_MAX_IOV];
	void *user;
	void *buf;
	size_t len;
	void *placed; /* receives: where bytes [place_head, len) go; buf holds those before */
	/* Placed rendezvous receives: UCX pulls the payload (blen bytes) into bounce, and it is
	 * copied to dst when it completes on an open endpoint (below, am_msg). */
	void *bounce, *dst;
	size_t blen;
	bool done, failed; /* receives: data in place (or lost), waiting for its turn */
	bool bye;          /* receives: the peer's AM_BYE, behind the messages it sent before */
};

struct ucx_rkey {
	struct ucx_rkey *next;
	ucp_rkey_h rkey;
	size_t len;
	unsigned char blob[];
};

struct ucx_ep {
	struct sw_dp_ep base;
	ucp_ep_h uep;
	struct ucx_req *reqs;
	/* Sends wait here until wireup is done: UCX 1.13 replays sends it queued during
	 * wireup on the final lanes and aborts (proto_am.inl "max_iov > 1") when such a lane
	 * cannot take our AM header as an iov, as sysv/posix cannot. */
	bool up;
	struct ucx_req *pend, *pend_tail;
	/* Messages in arrival order. A rendezvous payload lands after eager messages that
	 * arrived behind it, so receives wait here until all before them are in. */
	struct ucx_req *rxq, *rxq_tail;
	struct ucx_rkey *rkeys; /* remote keys unpacked for this peer, reused per get */
};

/* Our endpoint of each ucp_ep_h: an active message names its sender by the ucp_ep_h only.
 * Open addressing with linear probing, at most half full, so a message costs O(1) however
 * many endpoints the context has. */
struct ucx_epmap {
	struct ucx_epslot {
		ucp_ep_h h; /* NULL: free */
		struct sw_dp_ep *ep;
	} * slot;
	size_t mask, n;
};

struct ucx_ctx {
	struct sw_dp_ctx base;
	ucp_context_h uc;
	ucp_worker_h w;
	ucp_listener_h l;
	int efd;
	bool trust_peers; /* sw_dp_config.ucx_trust_peers */
	struct ucx_epmap eps;
	/* Requests UCX still owns whose endpoint was closed. Without peer-failure handling
	 * (ucx_trust_peers) a force close may leave them pending for good: freed at close. */
	struct ucx_req *orphans;
};

static struct ucx_ctx *uctx(struct sw_dp_ctx *c)
{
	return (struct ucx_ctx *)c;
}

static struct ucx_ep *uep(struct sw_dp_ep *e)
{
	return (struct ucx_ep *)e;
}

static int err_of(ucs_status_t s)
{
	switch (s) {
	case UCS_OK:
		return 0;
	case UCS_ERR_NO_MEMORY:
		return -ENOMEM;
	case UCS_ERR_INVALID_PARAM:
		return -EINVAL;
	case UCS_ERR_UNREACHABLE:
	case UCS_ERR_REJECTED:
	case UCS_ERR_NOT_CONNECTED: /* the connection never came up */
		return -ECONNREFUSED;
	case UCS_ERR_BUSY:
		return -EADDRINUSE;
	case UCS_ERR_UNSUPPORTED:
		return -ENOTSUP;
	case UCS_ERR_CONNECTION_RESET:
	case UCS_ERR_ENDPOINT_TIMEOUT:
	case UCS_ERR_CANCELED:
		return -ECONNRESET;
	default:
		fprintf(stderr, "sw_dp ucx: %s\n", ucs_status_string(s));
		return -EIO;
	}
}

static struct ucx_req *req_new(struct sw_dp_ep *ep, enum req_kind kind)
{
	struct ucx_req *r = calloc(1, sizeof(*r));
	struct ucx_ep *e = uep(ep);

	if (!r)
		return NULL;
	r->kind = kind;
	r->ctx = ep->ctx;
	r->ep = ep;
	r->next = e->reqs;
	if (e->reqs)
		e->reqs->prev = r;
	e->reqs = r;
	return r;
}

static void ep_up(struct sw_dp_ep *ep);

/* Gives a received message's buffer back: the whole message's (len bytes), or, when its
 * payload went to placed, only the head it kept. */
static void rx_free(struct sw_dp_ctx *c, void *buf, size_t len, const void *placed)
{
	sw_dp_rxbuf_free(c, buf, placed ? 0 : len);
}

/* Delivers the receives at the head of ep's queue that are complete. */
static void rx_drain(struct sw_dp_ep *ep)
{
	struct ucx_ep *e = uep(ep);

	while (e->rxq && e->rxq->done) {
		struct ucx_req *r = e->rxq;
		e->rxq = r->pnext;
		if (r->bye)
			sw_dp_ep_down(ep, 0);
		else if (r->failed || sw_dp_push_placed(ep, r->hdr, r->buf, r->len, r->placed) < 0)
			rx_free(r->ctx, r->buf, r->len, r->placed);
		free(r);
	}
	if (!e->rxq)
		e->rxq_tail = NULL;
}

static void rx_queue(struct sw_dp_ep *ep, struct ucx_req *r)
{
	struct ucx_ep *e = uep(ep);

	if (e->rxq_tail)
		e->rxq_tail->pnext = r;
	else
		e->rxq = r;
	e->rxq_tail = r;
}

/* Reports r's outcome and frees it. */
static void req_done(struct ucx_req *r, ucs_status_t s)
{
	struct sw_dp_event ev = {.status = err_of(s), .user = r->user};
	struct sw_dp_ep *ep = r->ep;
	struct ucx_req **head = ep ? &uep(ep)->reqs : &uctx(r->ctx)->orphans;

	if (r->prev)
		r->prev->next = r->next;
	else
		*head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	switch (r->kind) {
	case REQ_SEND:
		if (ep) {
			sw_dp_send_done(ep, r->len, r->user, ev.status);
			break;
		}
		ev.type = SW_DP_EV_SEND;
		sw_dp_push(r->ctx, &ev);
		break;
	case REQ_GET:
		ev.type = SW_DP_EV_GET;
		if (ep && !ev.status) {
			ep->c.rx_bytes += r->len;
			ep->c.get_bytes += r->len;
		}
		ev.ep = ep && !ep->closed ? ep : NULL;
		sw_dp_push(r->ctx, &ev);
		break;
	case REQ_RECV:
		if (r->bounce) {
			if (ep && s == UCS_OK)
				memcpy(r->dst, r->bounce, r->blen);
			sw_dp_rxbuf_free(r->ctx, r->bounce, r->blen);
		}
		if (!ep) {
			rx_free(r->ctx, r->buf, r->len, r->placed);
			break;
		}
		r->done = true;
		r->failed = s != UCS_OK;
		rx_drain(ep); /* frees r once delivered */
		return;
	case REQ_FLUSH:
		/* Even a failed flush ends the wait: queued sends then fail in UCX and
		 * complete with its error rather than sit here forever. */
		if (ep)
			ep_up(ep);
		break;
	case REQ_CTRL:
		break;
	}
	free(r);
}

static void send_cb(void *request, ucs_status_t s, void *arg)
{
	req_done(arg, s);
	ucp_request_free(request);
}

static void recv_cb(void *request, ucs_status_t s, size_t len, void *arg)
{
	(void)len;
	req_done(arg, s);
	ucp_request_free(request);
}

/* Finishes r according to what a *_nbx call returned. A failure is returned to the
 * caller, or, when the caller is gone (deferred sends), reported as r's event. */
static int req_started(struct ucx_req *r, ucs_status_ptr_t p, bool report)
{
	if (UCS_PTR_IS_ERR(p) && report) {
		req_done(r, UCS_PTR_STATUS(p));
		return 0;
	}
	if (UCS_PTR_IS_ERR(p)) {
		int rc = err_of(UCS_PTR_STATUS(p));
		r->kind = REQ_CTRL; /* no event: the caller returns the failure */
		req_done(r, UCS_OK);
		return rc;
	}
	if (p == NULL)
		req_done(r, UCS_OK);
	return 0;
}

static size_t epmap_home(const struct ucx_epmap *m, ucp_ep_h h)
{
	return (size_t)(((uintptr_t)h * 0x9e3779b97f4a7c15ull) >> 32) & m->mask;
}

static struct sw_dp_ep *ep_of(struct ucx_ctx *u, ucp_ep_h h)
{
	const struct ucx_epmap *m = &u->eps;

	for (size_t i = m->slot ? epmap_home(m, h) : 0; m->slot && m->slot[i].h;
	     i = (i + 1) & m->mask)
		if (m->slot[i].h == h)
			return m->slot[i].ep;
	return NULL;
}

static void epmap_place(struct ucx_epmap *m, ucp_ep_h h, struct sw_dp_ep *ep)
{
	size_t i = epmap_home(m, h);

	while (m->slot[i].h)
		i = (i + 1) & m->mask;
	m->slot[i] = (struct ucx_epslot){h, ep};
}

static int epmap_put(struct ucx_epmap *m, ucp_ep_h h, struct sw_dp_ep *ep)
{
	if (2 * (m->n + 1) > m->mask + 1) {
		struct ucx_epmap big = {.mask = m->slot ? 2 * m->mask + 1 : 63, .n = m->n};

		big.slot = calloc(big.mask + 1, sizeof(*big.slot));
		if (!big.slot)
			return -ENOMEM;
		for (size_t i = 0; m->slot && i <= m->mask; i++)
			if (m->slot[i].h)
				epmap_place(&big, m->slot[i].h, m->slot[i].ep);
		free(m->slot);
		*m = big;
	}
	epmap_place(m, h, ep);
	m->n++;
	return 0;
}

/* Removes h if present; later entries of its probe run move up, so lookups need no
 * tombstones. */
static void epmap_del(struct ucx_epmap *m, ucp_ep_h h)
{
	size_t i = m->slot ? epmap_home(m, h) : 0;

	while (m->slot && m->slot[i].h && m->slot[i].h != h)
		i = (i + 1) & m->mask;
	if (!m->slot || !m->slot[i].h)
		return;
	for (size_t j = (i + 1) & m->mask; m->slot[j].h; j = (j + 1) & m->mask) {
		size_t home = epmap_home(m, m->slot[j].h);
		/* j's entry may fill the hole at i unless its home lies in (i, j]. */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i].h = NULL;
	m->n--;
}

/* Where a message's bytes after its head go, when the endpoint places them (NULL: a library
 * buffer holds the whole message). The head arrived inline (ucx_send puts a message's first
 * AM_INLINE bytes there); a peer that sent it otherwise broke the framing. -EPROTO then. */
static int am_place(struct sw_dp_ep *ep, uint64_t tag, const void *inl, size_t extra, size_t len,
                    void **placed)
{
	*placed = NULL;
	if (!ep->place || len < ep->place_head)
		return 0;
	if (extra < ep->place_head)
		return -EPROTO;
	*placed = ep->place(ep, tag, inl, len);
	if (len == ep->place_head)
		*placed = NULL; /* nothing to place */
	return 0;
}

static ucs_status_t am_msg(void *arg, const void *header, size_t hlen, void *data, size_t len,
                           const ucp_am_recv_param_t *param)
{
	struct ucx_ctx *u = arg;
	struct sw_dp_ep *ep = NULL;
	struct ucx_req *r;
	ucp_request_param_t rp = {.op_attr_mask =
	                                  UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA};
	uint64_t tag;
	size_t extra, total, keep;
	void *buf, *placed, *dst;

	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		ep = ep_of(u, param->reply_ep);
	if (!ep || hlen < sizeof(tag))
		return UCS_OK; /* endpoint closed meanwhile, or not ours: dropped */
	memcpy(&tag, header, sizeof(tag));
	/* The message is the header's inlined bytes, then the payload. */
	const char *inl = (const char *)header + sizeof(tag);
	extra = hlen - sizeof(tag);
	total = extra + len;
	unsigned pending = 0;
	for (struct ucx_req *q = uep(ep)->rxq; q; q = q->pnext)
		pending++;
	if (total > u->base.cfg.max_recv || sw_dp_rx_full(ep, pending)) {
		/* as tcp: refused before any allocation */
		sw_dp_ep_down(ep, total > u->base.cfg.max_recv ? -EMSGSIZE : -EPROTO);
		return UCS_OK; /* UCS_OK without a receive drops a rendezvous payload too */
	}
	if (am_place(ep, tag, inl, extra, total, &placed) < 0) {
		sw_dp_ep_down(ep, -EPROTO);
		return UCS_OK;
	}
	/* buf keeps the whole message, or a placed one's head; the rest goes to dst */
	keep = placed ? ep->place_head : total;
	buf = sw_dp_rxbuf_alloc(&u->base, keep);
	if (keep && !buf)
		return UCS_OK;
	if (extra)
		memcpy(buf, inl, extra < keep ? extra : keep);
	if (placed && extra > keep)
		memcpy(placed, inl + keep, extra - keep);
	/* an empty message has no buffer, and NULL + 0 is undefined */
	dst = placed ? (char *)placed + (extra - keep) : total ? (char *)buf + extra : NULL;
	if (!(param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
		if (len)
			memcpy(dst, data, len);
		if (!uep(ep)->rxq) { /* nothing ahead of it */
			if (sw_dp_push_placed(ep, tag, buf, total, placed) < 0)
				rx_free(&u->base, buf, total, placed);
			return UCS_OK;
		}
		r = calloc(1, sizeof(*r)); /* complete already: UCX does not own it */
		if (!r) {
			rx_free(&u->base, buf, total, placed);
			return UCS_OK;
		}
		*r = (struct ucx_req){.kind = REQ_RECV,
		                      .ctx = &u->base,
		                      .ep = ep,
		                      .hdr = tag,
		                      .buf = buf,
		                      .len = total,
		                      .placed = placed,
		                      .done = true};
		rx_queue(ep, r);
		return UCS_OK;
	}
	/* Rendezvous: UCX pulls the payload straight into our buffer (RDMA READ on verbs). Not
	 * into its place: UCX 1.13 goes on writing a rendezvous payload after its endpoint was
	 * force-closed (seen over tcp and sm,tcp), when the caller may have the place back. */
	r = req_new(ep, REQ_RECV);
	if (!r) {
		rx_free(&u->base, buf, total, placed);
		return UCS_OK;
	}
	rx_queue(ep, r);
	r->hdr = tag;
	r->len = total;
	r->buf = buf;
	r->placed = placed;
	if (placed) {
		r->dst = dst;
		r->blen = len;
		if (!(r->bounce = dst = sw_dp_rxbuf_alloc(&u->base, len))) {
			req_done(r, UCS_ERR_NO_MEMORY);
			return UCS_OK;
		}
	}
	rp.cb.recv_am = recv_cb;
	rp.user_data = r;
	req_started(r, ucp_am_recv_data_nbx(u->w, data, dst, len, &rp), true);
	return UCS_OK;
}

static ucs_status_t am_credit(void *arg, const void *header, size_t hlen, void *data, size_t len,
                              const ucp_am_recv_param_t *param)
{
	struct sw_dp_ep *ep = NULL;
	uint64_t n;

	(void)data;
	(void)len;
	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		ep = ep_of(arg, param->reply_ep);
	if (ep && hlen == sizeof(n)) {
		memcpy(&n, header, sizeof(n));
		if (n > UINT32_MAX || sw_dp_credit_arrived(ep, (uint32_t)n) < 0)
			sw_dp_ep_down(ep, -EPROTO);
	}
	return UCS_OK;
}

/* The peer closed its endpoint on purpose: once the messages it sent before are delivered, the
 * endpoint ends with status 0, as a tcp peer's end of stream does. */
static ucs_status_t am_bye(void *arg, const void *header, size_t hlen, void *data, size_t len,
                           const ucp_am_recv_param_t *param)
{
	struct sw_dp_ep *ep = NULL;
	struct ucx_req *r;

	(void)header, (void)hlen, (void)data, (void)len;
	if (param->recv_attr & UCP_AM_RECV_ATTR_FIELD_REPLY_EP)
		ep = ep_of(arg, param->reply_ep);
	if (!ep)
		return UCS_OK;
	if (!uep(ep)->rxq) {
		sw_dp_ep_down(ep, 0);
		return UCS_OK;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return UCS_OK; /* the peer's leaving is then reported as a reset */
	*r = (struct ucx_req){
	        .kind = REQ_RECV, .ctx = ep->ctx, .ep = ep, .done = true, .bye = true};
	rx_queue(ep, r);
	return UCS_OK;
}

/* Takes an active message of an id this backend does not use, and drops it. */
static ucs_status_t am_drop(void *arg, const void *header, size_t hlen, void *data, size_t len,
                            const ucp_am_recv_param_t *param)
{
	(void)arg, (void)header, (void)hlen, (void)data, (void)len, (void)param;
	return UCS_OK;
}

static int set_am(struct ucx_ctx *u, unsigned id, ucp_am_recv_callback_t cb)
{
	ucp_am_handler_param_t p = {
	        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
	                      UCP_AM_HANDLER_PARAM_FIELD_ARG,
	        .id = id,
	        .cb = cb,
	        .arg = u,
	};
	return err_of(ucp_worker_set_am_recv_handler(u->w, &p));
}

static int ucx_open(struct sw_dp_ctx *c, const struct sw_dp_config *cfg)
{
	struct ucx_ctx *u = uctx(c);
	/* RMA only when asked: UCX 1.13 serves a peer's software-emulated get or put at any
	 * address it names, checking no key (sw_dp.h, one_sided). Without the feature such
	 * requests find no handler and are dropped (UCX logs a warning for each). */
	ucp_params_t up = {
	        .field_mask = UCP_PARAM_FIELD_FEATURES,
	        .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP |
	                    (cfg->one_sided ? UCP_FEATURE_RMA : 0),
	};
	ucp_worker_params_t wp = {
	        .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE | UCP_WORKER_PARAM_FIELD_EVENTS,
	        .thread_mode = UCS_THREAD_MODE_SINGLE, /* a context is single-threaded */
	        .events = UCP_WAKEUP_RMA | UCP_WAKEUP_TX | UCP_WAKEUP_RX,
	};
	ucp_config_t *conf;
	ucs_status_t s;
	int rc;

	s = ucp_config_read(NULL, NULL, &conf);
	if (s != UCS_OK)
		return err_of(s);
	if (cfg->ucx_tls)
		s = ucp_config_modify(conf, "TLS", cfg->ucx_tls);
	/* UCX 1.13 leaves its shared-memory transports (mm: sysv, posix) out of endpoints that
	 * ask for peer-failure handling, and this backend leaves them out (UCX_MM_ERROR_HANDLING
	 * keeps its default, n): every sender writes into the receiver's one FIFO, taking a slot
	 * and then marking it written, and the receiver reads the slots in order. A peer killed
	 * between the two leaves a slot that is never marked, and the receiver takes nothing from
	 * anyone after it: a reducer SIGKILLed there (gdb) left its shuffle server deaf to every
	 * new reducer, which timed out. So shared memory carries messages only among trusted peers
	 * (ucx_trust_peers), whose failure takes the survivor down anyway. */
	u->trust_peers = cfg->ucx_trust_peers != 0;
	/* UCX 1.13's tcp PUT-zcopy protocol aborts the whole process (an assertion in
	 * tcp_ep.c, PUT_TX_WAITING_ACK) when the peer vanishes in the middle of a PUT: a reducer
	 * killed mid-fetch took its server down in about one run in fifteen. Rendezvous over tcp
	 * then goes through active messages instead, which fail the one endpoint cleanly. The
	 * name is the tcp transport's own (UCX_TCP_PUT_ENABLE in the environment): UCX hands
	 * keys it does not know to the transports. */
	if (s == UCS_OK)
		s = ucp_config_modify(conf, "PUT_ENABLE", "n");
	/* Its zero-copy sends fail the same way: when a peer vanishes with one in flight, UCP
	 * releases the request and tcp later completes it (Assertion `comp->count > 0' in
	 * uct_invoke_completion), which killed a server in 4 of 45 runs of the kill test in
	 * tests/shuffle under load, 0 of 50 with copies. Copies into 64 KiB segments (8 KiB by
	 * default) cost no measurable throughput on loopback (shuffle/README.md). */
	if (s == UCS_OK)
		s = ucp_config_modify(conf, "ZCOPY_THRESH", "inf");
	if (s == UCS_OK)
		s = ucp_config_modify(conf, "TX_SEG_SIZE", "64K");
	if (s == UCS_OK)
		s = ucp_init(&up, conf, &u->uc);
	ucp_config_release(conf);
	if (s != UCS_OK)
		return err_of(s);
	s = ucp_worker_create(u->uc, &wp, &u->w);
	if (s == UCS_OK)
		s = ucp_worker_get_efd(u->w, &u->efd);
	rc = err_of(s);
	if (!rc)
		rc = set_am(u, AM_MSG, am_msg);
	if (!rc)
		rc = set_am(u, AM_CREDIT, am_credit);
	if (!rc)
		rc = set_am(u, AM_BYE, am_bye);
	/* UCX 1.13 crashes in ucp_am_handler_reply on a message whose id has no handler (ids 0,
	 * 3, 32767, 65535 seen, tests/dataplane/fuzz_ucx.c): any peer could take a server down
	 * before proving anything. Every other id of the 16-bit space drops what it gets; the
	 * table costs 1.5 MiB per context. Highest id first: the table is allocated once. */
	for (unsigned id = UINT16_MAX + 1; !rc && id-- > 0;)
		if (id != AM_MSG && id != AM_CREDIT && id != AM_BYE)
			rc = set_am(u, id, am_drop);
	if (rc) {
		if (u->w)
			ucp_worker_destroy(u->w);
		ucp_cleanup(u->uc);
	}
	return rc;
}

static void ucx_close(struct sw_dp_ctx *c)
{
	struct ucx_ctx *u = uctx(c);

	if (u->l)
		ucp_listener_destroy(u->l);
	ucp_worker_destroy(u->w); /* calls no completion: what is still pending goes here */
	while (u->orphans) {
		struct ucx_req *r = u->orphans;
		u->orphans = r->next;
		if (r->kind == REQ_RECV)
			sw_dp_rxbuf_free(c, r->buf, r->len);
		free(r);
	}
	ucp_cleanup(u->uc);
	free(u->eps.slot);
}

static void on_ep_error(void *arg, ucp_ep_h h, ucs_status_t s)
{
	(void)h;
	sw_dp_ep_down(arg, err_of(s) ? err_of(s) : -ECONNRESET);
}

/* A flush completes once wireup has: the signal that the endpoint is up. */
static int start_flush(struct sw_dp_ep *ep)
{
	ucp_request_param_t p = {
	        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
	        .cb.send = send_cb,
	};
	struct ucx_req *r = req_new(ep, REQ_FLUSH);

	if (!r)
		return -ENOMEM;
	p.user_data = r;
	return req_started(r, ucp_ep_flush_nbx(uep(ep)->uep, &p), true);
}

static int ep_create(struct sw_dp_ep *ep, ucp_ep_params_t *p)
{
	int rc;

	/* The error handler also reports connection setup failures, so it stays on either
	 * way; peer mode is what makes a dead peer fail operations instead of hanging them. */
	p->field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
	p->err_mode = uctx(ep->ctx)->trust_peers ? UCP_ERR_HANDLING_MODE_NONE
	                                         : UCP_ERR_HANDLING_MODE_PEER;
	p->err_handler.cb = on_ep_error;
	p->err_handler.arg = ep;
	rc = err_of(ucp_ep_create(uctx(ep->ctx)->w, p, &uep(ep)->uep));
	if (rc == 0)
		rc = start_flush(ep);
	return rc ? rc : epmap_put(&uctx(ep->ctx)->eps, uep(ep)->uep, ep);
}

static void on_conn(ucp_conn_request_h req, void *arg)
{
	struct ucx_ctx *u = arg;
	ucp_conn_request_attr_t a = {.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ADDR};
	ucp_ep_params_t p = {.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST, .conn_request = req};
	struct sw_dp_event ev = {.type = SW_DP_EV_ACCEPT};
	struct sw_dp_ep *ep = sw_dp_ep_new(&u->base);

	if (!ep) {
		ucp_listener_reject(u->l, req);
		return;
	}
	if (ucp_conn_request_query(req, &a) == UCS_OK && a.client_address.ss_family == AF_INET) {
		struct sw_dp_addr peer = sw_dp_sin_addr((struct sockaddr_in *)&a.client_address);
		sw_dp_addr_format(&peer, ep->peer, sizeof(ep->peer));
	}
	if (ep_create(ep, &p) < 0) {
		sw_dp_ep_close(ep); /* never reported: dropped quietly */
		return;
	}
	ev.ep = ep;
	sw_dp_push(&u->base, &ev);
}

static int ucx_listen(struct sw_dp_ctx *c)
{
	struct ucx_ctx *u = uctx(c);
	struct sockaddr_in sin = sw_dp_addr_sin(&c->laddr);
	ucp_listener_params_t p = {
	        .field_mask =
	                UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER,
	        .sockaddr = {.addr = (const struct sockaddr *)&sin, .addrlen = sizeof(sin)},
	        .conn_handler = {.cb = on_conn, .arg = u},
	};
	ucp_listener_attr_t a = {.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR};
	int rc = err_of(ucp_listener_create(u->w, &p, &u->l));

	if (rc)
		return rc;
	rc = err_of(ucp_listener_query(u->l, &a));
	if (rc) {
		ucp_listener_destroy(u->l);
		u->l = NULL;
		return rc;
	}
	c->laddr = sw_dp_sin_addr((const struct sockaddr_in *)&a.sockaddr);
	return 0;
}

static int ucx_connect(struct sw_dp_ep *ep, const struct sw_dp_addr *to)
{
	struct sockaddr_in sin = sw_dp_addr_sin(to);
	ucp_ep_params_t p = {
	        .field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR,
	        .flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
	        .sockaddr = {.addr = (const struct sockaddr *)&sin, .addrlen = sizeof(sin)},
	};

	return ep_create(ep, &p);
}

static int am_send(struct sw_dp_ep *ep, struct ucx_req *r, unsigned id, size_t count,
                   unsigned flags);

static void ucx_ep_close(struct sw_dp_ep *ep)
{
	struct ucx_ep *e = uep(ep);
	struct ucx_ctx *u = uctx(ep->ctx);
	ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
	                         .flags = UCP_EP_CLOSE_FLAG_FORCE};
	ucs_status_ptr_t cr;
	struct ucx_req *bye;

	epmap_del(&u->eps, e->uep); /* what still arrives for it is dropped */
	/* A peer still up hears that this side leaves on purpose (am_bye) before the force close
	 * below, which it sees as a reset; behind whatever was sent before. Not between trusted
	 * peers: UCX's force close needs peer-failure handling on both sides, and a peer that
	 * closed in answer made UCX call this endpoint's error handler after it was freed. */
	if (e->uep && e->up && !ep->down && !u->trust_peers &&
	    (bye = req_new(ep, REQ_CTRL)) != NULL)
		am_send(ep, bye, AM_BYE, 0, UCP_AM_SEND_FLAG_EAGER);
	while (e->rkeys) {
		struct ucx_rkey *k = e->rkeys;
		e->rkeys = k->next;
		ucp_rkey_destroy(k->rkey);
		free(k);
	}
	while (e->pend) {
		struct ucx_req *r = e->pend;
		e->pend = r->pnext;
		req_done(r, UCS_ERR_CANCELED);
	}
	e->pend_tail = NULL;
	/* Force close cancels what is in flight; progress until UCX has let go of it. No UCP
	 * endpoint when ucp_ep_create failed: a client that died before its connection request
	 * was taken (the server crashed here, in ucp_ep_close_nbx(NULL), when reducers were
	 * killed while it was busy). */
	cr = e->uep ? ucp_ep_close_nbx(e->uep, &p) : NULL;
	if (UCS_PTR_IS_PTR(cr)) {
		while (ucp_request_check_status(cr) == UCS_INPROGRESS)
			ucp_worker_progress(u->w);
		ucp_request_free(cr);
	}
	/* Receives complete but waiting behind one UCX still owns are dropped now; that one
	 * is detached below like any other request. */
	for (struct ucx_req *r = e->rxq, *next; r; r = next) {
		next = r->pnext;
		if (r->done) {
			rx_free(r->ctx, r->buf, r->len, r->placed);
			free(r);
		}
	}
	e->rxq = e->rxq_tail = NULL;
	/* Anything still pending completes later without its endpoint, or is freed with the
	 * context. */
	for (struct ucx_req *r = e->reqs, *next; r; r = next) {
		next = r->next;
		r->ep = NULL;
		r->prev = NULL;
		r->next = u->orphans;
		if (u->orphans)
			u->orphans->prev = r;
		u->orphans = r;
	}
	e->reqs = NULL;
}

static int am_post(struct ucx_req *r, bool deferred)
{
	ucp_request_param_t p = {
	        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
	                        UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_DATATYPE,
	        .cb.send = send_cb,
	        .user_data = r,
	        .flags = UCP_AM_SEND_FLAG_REPLY | r->am_flags,
	        .datatype = ucp_dt_make_iov(),
	};
	const void *buf = r->iov;
	size_t count = r->count;

	/* One buffer goes as contiguous data: UCX 1.13 has zero-copy rendezvous (cma, RDMA
	 * READ) only for contiguous buffers and falls back to copies for iov ones. */
	if (count <= 1) {
		p.datatype = ucp_dt_make_contig(1);
		buf = count ? r->iov[0].buffer : NULL;
		count = count ? r->iov[0].length : 0;
	}
	return req_started(
	        r, ucp_am_send_nbx(uep(r->ep)->uep, r->am_id, r->head, r->head_len, buf, count, &p),
	        deferred);
}

static int am_send(struct sw_dp_ep *ep, struct ucx_req *r, unsigned id, size_t count,
                   unsigned flags)
{
	struct ucx_ep *e = uep(ep);

	r->am_id = id;
	r->am_flags = flags;
	r->count = count;
	if (e->up)
		return am_post(r, false);
	if (e->pend_tail)
		e->pend_tail->pnext = r;
	else
		e->pend = r;
	e->pend_tail = r;
	return 0;
}

/* Wireup is done: send what waited, in order. */
static void ep_up(struct sw_dp_ep *ep)
{
	struct ucx_ep *e = uep(ep);

	e->up = true;
	while (e->pend) {
		struct ucx_req *r = e->pend;
		e->pend = r->pnext;
		am_post(r, true);
	}
	e->pend_tail = NULL;
}

static int ucx_send(struct sw_dp_ep *ep, uint64_t tag, const struct iovec *iov, int iovcnt,
                    void *user, uint32_t grant)
{
	struct ucx_req *r = req_new(ep, REQ_SEND);
	size_t n = 0;

	(void)grant; /* never set: credits go back in an active message of their own */
	if (!r)
		return -ENOMEM;
	memcpy(r->head, &tag, sizeof(tag));
	r->head_len = sizeof(tag);
	r->user = user;
	for (int i = 0; i < iovcnt; i++) {
		size_t in = 0;

		r->len += iov[i].iov_len;
		/* The first AM_INLINE bytes ride in the header (see am_post() for why the payload
		 * should be one buffer, and AM_INLINE for placement). */
		if (n == 0) {
			in = AM_HEAD_MAX - r->head_len;
			in = iov[i].iov_len < in ? iov[i].iov_len : in;
			if (in)
				memcpy(r->head + r->head_len, iov[i].iov_base, in);
			r->head_len += in;
		}
		if (in == iov[i].iov_len)
			continue;
		r->iov[n].buffer = (char *)iov[i].iov_base + in;
		r->iov[n++].length = iov[i].iov_len - in;
	}
	return am_send(ep, r, AM_MSG, n, 0);
}

static int ucx_grant(struct sw_dp_ep *ep, uint32_t n)
{
	struct ucx_req *r = req_new(ep, REQ_CTRL);

	if (!r)
		return -ENOMEM;
	uint64_t v = n;

	memcpy(r->head, &v, sizeof(v));
	r->head_len = sizeof(v);
	return am_send(ep, r, AM_CREDIT, 0, UCP_AM_SEND_FLAG_EAGER);
}

static int ucx_mem_reg(struct sw_dp_ctx *c, struct sw_dp_mr *mr)
{
	struct ucx_ctx *u = uctx(c);
	ucp_mem_map_params_t p = {
	        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
	        .address = mr->addr,
	        .length = mr->len,
	};
	ucp_mem_h mh;
	void *blob;
	size_t len;
	int rc = err_of(ucp_mem_map(u->uc, &p, &mh));

	if (rc)
		return rc;
	rc = err_of(ucp_rkey_pack(u->uc, mh, &blob, &len));
	if (rc) {
		ucp_mem_unmap(u->uc, mh);
		return rc;
	}
	mr->rkey = malloc(len);
	if (!mr->rkey) {
		ucp_rkey_buffer_release(blob);
		ucp_mem_unmap(u->uc, mh);
		return -ENOMEM;
	}
	memcpy(mr->rkey, blob, len);
	mr->rkey_len = len;
	mr->be = mh;
	ucp_rkey_buffer_release(blob);
	return 0;
}

static void ucx_mem_dereg(struct sw_dp_ctx *c, struct sw_dp_mr *mr)
{
	ucp_mem_unmap(uctx(c)->uc, mr->be);
	free(mr->rkey);
}

/* Unpacking a key costs an allocation and a transport lookup: do it once per peer. */
static int rkey_of(struct ucx_ep *e, const void *blob, size_t len, ucp_rkey_h *out)
{
	struct ucx_rkey *k;
	int rc;

	for (k = e->rkeys; k; k = k->next) {
		if (k->len == len && memcmp(k->blob, blob, len) == 0) {
			*out = k->rkey;
			return 0;
		}
	}
	k = malloc(sizeof(*k) + len);
	if (!k)
		return -ENOMEM;
	rc = err_of(ucp_ep_rkey_unpack(e->uep, blob, &k->rkey));
	if (rc) {
		free(k);
		return rc == -EIO ? -EINVAL : rc;
	}
	k->len = len;
	memcpy(k->blob, blob, len);
	k->next = e->rkeys;
	e->rkeys = k;
	*out = k->rkey;
	return 0;
}

static int ucx_get(struct sw_dp_ep *ep, void *local, size_t len, uint64_t raddr, const void *rkey,
                   size_t rkey_len, void *user)
{
	ucp_request_param_t p = {
	        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
	        .cb.send = send_cb,
	};
	struct ucx_req *r;
	ucp_rkey_h rk;
	int rc = rkey_of(uep(ep), rkey, rkey_len, &rk);

	if (rc)
		return rc;
	r = req_new(ep, REQ_GET);
	if (!r)
		return -ENOMEM;
	r->user = user;
	r->len = len;
	p.user_data = r;
	return req_started(r, ucp_get_nbx(uep(ep)->uep, local, len, raddr, rk, &p), false);
}

static int ucx_progress(struct sw_dp_ctx *c)
{
	struct ucx_ctx *u = uctx(c);

	/* Bounded, so a flood on one worker still returns to the caller. */
	for (int i = 0; i < 256 && ucp_worker_progress(u->w); i++)
		;
	return 0;
}

static uint64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static int ucx_wait(struct sw_dp_ctx *c, int timeout_ms)
{
	struct ucx_ctx *u = uctx(c);
	struct pollfd pfd = {.fd = u->efd, .events = POLLIN};
	uint64_t end = timeout_ms < 0 ? UINT64_MAX : mono_ms() + (uint64_t)timeout_ms;

	for (;;) {
		/* Spin a little first: over shared memory the next message is usually
		 * microseconds away, and a sleep plus wakeup through the event fd costs more. */
		for (int i = 0; i < UCX_SPIN; i++)
			if (ucp_worker_progress(u->w) || c->evq.n)
				return 0;
		ucs_status_t s = ucp_worker_arm(u->w);
		if (s == UCS_ERR_BUSY)
			return 0; /* events arrived between progress and arm */
		if (s != UCS_OK)
			return err_of(s);
		uint64_t now = mono_ms();
		if (now >= end && timeout_ms != 0)
			return -ETIMEDOUT;
		uint64_t left = end - now;
		int n = poll(&pfd, 1, left < UCX_WAKE_MS ? (int)left : UCX_WAKE_MS);
		if (n < 0)
			return errno == EINTR ? 0 : -EIO;
		if (n > 0)
			return 0;
		if (mono_ms() >= end)
			return -ETIMEDOUT;
		/* no wakeup within UCX_WAKE_MS: look again rather than trust the fd */
	}
}

static int ucx_fd(struct sw_dp_ctx *c)
{
	return uctx(c)->efd;
}

static void ucx_describe(const struct sw_dp_ep *ep, FILE *out)
{
	fprintf(out, "ucx endpoint to %s\n", ep->peer);
	ucp_ep_print_info(((const struct ucx_ep *)ep)->uep, out);
}

const struct dp_ops sw_dp_ucx_ops = {
        .name = "ucx",
        .caps = SW_DP_CAP_GET | SW_DP_CAP_FD | SW_DP_CAP_RDMA,
        .place_max = AM_INLINE,
        .ctx_size = sizeof(struct ucx_ctx),
        .ep_size = sizeof(struct ucx_ep),
        .open = ucx_open,
        .close = ucx_close,
        .listen = ucx_listen,
        .connect = ucx_connect,
        .ep_close = ucx_ep_close,
        .send = ucx_send,
        .grant = ucx_grant,
        .mem_reg = ucx_mem_reg,
        .mem_dereg = ucx_mem_dereg,
        .get = ucx_get,
        .progress = ucx_progress,
        .wait = ucx_wait,
        .fd = ucx_fd,
        .fd_sleep_ms = UCX_WAKE_MS,
        .describe = ucx_describe,
};
