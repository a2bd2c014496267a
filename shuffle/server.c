/* SPDX-License-Identifier: MIT */
/*
 * Fetch server on one sw_dp context: its own (sw_shuffle_server_create, driven by
 * sw_shuffle_server_run) or the caller's (sw_shuffle_server_attach, driven by the caller's loop
 * through sw_shuffle_server_event and sw_shuffle_server_progress).
 *
 * Each connection handles its requests in order. A fetch becomes a stream that pins its
 * partition and queues chunks while it has credits and its connection fewer than `inflight`
 * chunks unsent: that bounds the server's memory per connection to inflight x chunk, also
 * when a client pipelines its requests (the next stream starts once the current one queued
 * its last chunk, and its chunks count against the same bound). Raw chunks of in-memory
 * partitions go out straight from the registered arena (no copy); spilled, compressed or
 * test-corrupted chunks go through a buffer freed when the send completes. With one-sided
 * reads, the answer is the arena's rkey plus per-chunk CRCs, and the partition stays pinned
 * (a lease) until the client sends RELEASE or goes away.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <sw_dp.h>

#include "proto.h"
#include "shuffle_int.h"

#define MIN_CHUNK     4096
#define MAX_QUEUED    256   /* requests a peer may queue before it is cut off */
#define MAX_LEASES    64    /* pinned one-sided ranges per connection */
#define MAX_RKEY_CRCS 65536 /* larger ranges are streamed instead of leased */
#define WAIT_MS       50    /* how often run() looks at the stop flag */
#define MAX_CONNS     1024  /* default max_conns */
#define IDLE_MS       60000 /* default idle_ms */
#define LOG_PER_SEC   10    /* lines about peers per second; the rest are only counted */
#define RETRY_LATER   0xff  /* handle_req(): no credit to answer now, keep the request */

struct conn;

struct stream {
	struct sw_shuffle_view v;
	uint64_t next, end, start;
	uint32_t seq, chunk;
	uint8_t codec;
	bool queued_all;
	unsigned inflight;
	struct stream *next_s; /* conn's streams (the active one and those draining) */
};

struct sendbuf {
	struct conn *c;
	struct stream *s; /* NULL for error and lease answers */
	uint8_t hdr[PROTO_CHUNK_LEN];
	uint8_t *payload; /* owned copy, or NULL when sending from the arena */
	struct sendbuf *prev, *next;
};

struct req {
	size_t len;
	uint8_t buf[PROTO_REQ_LEN];
	struct req *next;
};

struct lease {
	struct sw_shuffle_view v;
	uint64_t job;
	uint32_t map, part;
	struct lease *next;
};

struct conn {
	struct sw_shuffle_server *srv;
	struct sw_dp_ep *ep; /* NULL once closed */
	char peer[SW_DP_ADDRSTRLEN];
	uint8_t challenge[PROTO_CHALLENGE_LEN]; /* sent in the hello; every MAC is bound to it */
	uint64_t last_nonce;                    /* highest nonce of a request handled */
	/* the answer being sent: tagged under akey with the request's nonce once a key is proved */
	bool atag;
	uint8_t akey[PROTO_KEY_LEN];
	struct proto_keycache keys;
	uint64_t anonce;
	struct stream *active;
	struct stream *streams;
	struct req *qhead, *qtail;
	unsigned nqueued, nleases;
	struct lease *leases;
	struct sendbuf *sends; /* sends not completed yet */
	unsigned inflight;     /* of them, chunks of streams */
	bool dead;             /* to close once the current batch of events is handled */
	bool lost;             /* counted in peers_lost */
	uint64_t last_ms;      /* when a message last went either way */
	struct conn *next;
};

struct sw_shuffle_server {
	struct sw_shuffle_store *st;
	struct sw_dp_ctx *ctx;
	bool own_ctx; /* opened by create(), closed by destroy() */
	struct sw_dp_mr *mr;
	const void *rkey;
	size_t rkey_len;
	bool can_get;
	uint8_t decoy[SW_SHUFFLE_SECRET_LEN]; /* checks requests for unknown jobs, see handle_req */
	uint32_t chunk, inflight;
	uint32_t max_conns, nconns;
	int idle_ms;
	uint64_t now_ms;  /* monotonic, read once per event and per round of progress */
	uint64_t log_sec; /* the second the peer log lines below were counted in */
	unsigned log_lines, log_dropped;
	struct conn *conns;
	struct proto_zctx *z;
	struct proto_tag *g;
	int stop;
	int corrupt_next;
	struct sw_shuffle_counters cnt;
	struct sw_shuffle_log log;
};

#define CNT_ADD(srv, f, n) __atomic_fetch_add(&(srv)->cnt.f, (n), __ATOMIC_RELAXED)

/* A log line about a peer. At most LOG_PER_SEC a second, so that a flood of bad requests
 * cannot flood the log too; what was left out is summed up in the next second's first line.
 * Counters count everything. */
static void peer_log(struct sw_shuffle_server *srv, const char *fmt, ...) SW_PRINTF(2, 3);
static void peer_log(struct sw_shuffle_server *srv, const char *fmt, ...)
{
	uint64_t sec = srv->now_ms / 1000;
	if (sec != srv->log_sec) {
		if (srv->log_dropped > 0)
			sw_shuffle_logf(&srv->log,
			                "server: %u more lines about peers left out in a second",
			                srv->log_dropped);
		srv->log_sec = sec;
		srv->log_lines = srv->log_dropped = 0;
	}
	if (srv->log_lines == LOG_PER_SEC) {
		srv->log_dropped++;
		return;
	}
	srv->log_lines++;
	va_list ap;
	va_start(ap, fmt);
	sw_shuffle_vlogf(&srv->log, fmt, ap);
	va_end(ap);
}

static void stream_free(struct conn *c, struct stream *s)
{
	struct stream **pp = &c->streams;
	while (*pp != s)
		pp = &(*pp)->next_s;
	*pp = s->next_s;
	if (s->v.p != NULL)
		sw_shuffle_store_unpin(c->srv->st, &s->v);
	free(s);
}

static void lease_free_all(struct conn *c)
{
	while (c->leases != NULL) {
		struct lease *l = c->leases;
		c->leases = l->next;
		sw_shuffle_store_unpin(c->srv->st, &l->v);
		free(l);
	}
	c->nleases = 0;
}

static void conn_free(struct sw_shuffle_server *srv, struct conn *c)
{
	struct conn **pp = &srv->conns;
	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	srv->nconns--;
	while (c->sends != NULL) { /* only at destroy: sw_dp_close() reports no completions */
		struct sendbuf *b = c->sends;
		c->sends = b->next;
		free(b->payload);
		free(b);
	}
	while (c->streams != NULL)
		stream_free(c, c->streams);
	while (c->qhead != NULL) {
		struct req *r = c->qhead;
		c->qhead = r->next;
		free(r);
	}
	lease_free_all(c);
	explicit_bzero(&c->keys, sizeof(c->keys));
	free(c);
}

/* Drops what the peer asked for; the conn lives on until its sends complete. */
static void conn_close(struct sw_shuffle_server *srv, struct conn *c)
{
	if (c->ep != NULL) {
		sw_dp_ep_close(c->ep);
		c->ep = NULL;
	}
	while (c->qhead != NULL) {
		struct req *r = c->qhead;
		c->qhead = r->next;
		free(r);
	}
	c->qtail = NULL;
	c->nqueued = 0;
	lease_free_all(c);
	if (c->active != NULL) {
		c->active->queued_all = true;
		if (c->active->inflight == 0)
			stream_free(c, c->active);
		c->active = NULL;
	}
	if (c->sends == NULL)
		conn_free(srv, c);
}

/* Sends b->hdr (hlen bytes) and len bytes of data; b is freed when the send completes (on
 * an error at once, but not b->payload: the caller still owns it). 0, -EAGAIN, other. */
static int queue_send(struct conn *c, struct stream *s, struct sendbuf *b, size_t hlen,
                      const void *data, size_t len)
{
	b->c = c;
	b->s = s;
	struct iovec iov[2] = {{b->hdr, hlen}, {(void *)data, len}};
	int err = sw_dp_send(c->ep, 0, iov, len > 0 ? 2 : 1, b);
	if (err < 0) {
		free(b);
		return err;
	}
	b->prev = NULL;
	b->next = c->sends;
	if (c->sends != NULL)
		c->sends->prev = b;
	c->sends = b;
	if (s != NULL) {
		s->inflight++;
		c->inflight++;
	}
	return 0;
}

/* Queues one answer frame, tagged when the peer proved a key: from the payload's digests
 * when put time left them (ndig of them at dig), else from its bytes. corrupt (TEST ONLY, see
 * sw_shuffle_server_corrupt_next_chunk) flips a byte of the owned payload after the seal, as
 * a bad link would. 0, -EAGAIN, other. */
static int send_frame(struct conn *c, struct stream *s, struct proto_chunk *h, uint8_t *payload,
                      const void *data, const uint8_t *dig, size_t ndig, bool corrupt)
{
	struct sendbuf *b = malloc(sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	int err = 0;
	if (c->atag && dig != NULL)
		err = sw_shuffle_proto_chunk_seal_digests(c->srv->g, c->akey, c->anonce, h, dig,
		                                          ndig);
	else if (c->atag)
		err = sw_shuffle_proto_chunk_seal(c->srv->g, c->akey, c->anonce, h, data, h->len);
	if (err < 0) {
		free(b);
		return err;
	}
	if (corrupt)
		payload[h->len / 2] ^= 0x5a;
	sw_shuffle_proto_chunk_encode(h, b->hdr);
	b->payload = payload;
	return queue_send(c, s, b, PROTO_CHUNK_LEN, data, h->len);
}

/* The connection's first message: its challenge. 0 or an error. */
static int send_hello(struct conn *c)
{
	struct sendbuf *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	int err = sw_shuffle_proto_challenge_new(c->challenge);
	if (err < 0) {
		free(b);
		return err;
	}
	sw_shuffle_proto_hello_encode(c->challenge, b->hdr);
	return queue_send(c, NULL, b, PROTO_HELLO_LEN, NULL, 0);
}

static int send_status(struct conn *c, uint8_t status)
{
	struct proto_chunk h = {
	        .version = SW_SHUFFLE_VERSION, .status = status, .flags = PROTO_LAST};
	return send_frame(c, NULL, &h, NULL, NULL, NULL, 0, false);
}

static void send_done(struct sw_shuffle_server *srv, struct sendbuf *b, int status)
{
	struct conn *c = b->c;
	struct stream *s = b->s;
	c->last_ms = srv->now_ms;
	if (b->prev != NULL)
		b->prev->next = b->next;
	else
		c->sends = b->next;
	if (b->next != NULL)
		b->next->prev = b->prev;
	if (status < 0 && c->ep != NULL)
		peer_log(srv, "server: send to %s failed: %s", c->peer, sw_dp_strerror(status));
	free(b->payload);
	free(b);
	if (s != NULL)
		c->inflight--;
	if (s != NULL && --s->inflight == 0 && s->queued_all)
		stream_free(c, s);
	if (c->ep == NULL && c->sends == NULL)
		conn_free(srv, c);
}

/* The CRC32C of a chunk: from put time when it covers whole blocks of the store's (no pass
 * over the bytes, and a reducer checks them from put time on), else from the bytes. */
static uint32_t chunk_crc(const struct sw_shuffle_view *v, uint64_t off, uint64_t len,
                          const uint8_t *data)
{
	uint32_t crc;
	return sw_shuffle_store_view_crc(v, off, len, &crc) == 0
	               ? crc
	               : sw_shuffle_proto_crc32c(data, len);
}

/* Builds and queues the next chunk of s. 0, -EAGAIN (no credit) or another error. */
static int stream_chunk(struct sw_shuffle_server *srv, struct conn *c, struct stream *s)
{
	uint32_t n = (uint32_t)(s->end - s->next < s->chunk ? s->end - s->next : s->chunk);
	const uint8_t *data = s->v.addr != NULL ? s->v.addr + s->next : NULL;
	uint8_t *raw = NULL, *wire = NULL;
	bool corrupt = __atomic_load_n(&srv->corrupt_next, __ATOMIC_RELAXED) && n > 0;
	struct proto_chunk h = {.version = SW_SHUFFLE_VERSION,
	                        .seq = s->seq,
	                        .offset = s->next,
	                        .total = s->end - s->start,
	                        .raw_len = n,
	                        .len = n};
	int err;

	if (data == NULL || s->codec != PROTO_RAW || corrupt) {
		raw = malloc(n ? n : 1);
		if (raw == NULL)
			return -ENOMEM;
		if ((err = sw_shuffle_store_view_read(srv->st, &s->v, s->next, raw, n)) < 0) {
			free(raw);
			return err;
		}
		data = raw;
	}
	h.data_crc = chunk_crc(&s->v, s->next, n, data);
	if (s->codec != PROTO_RAW && n > 0) {
		size_t wl;
		wire = malloc(sw_shuffle_proto_pack_bound(n));
		if (wire == NULL) {
			free(raw);
			return -ENOMEM;
		}
		h.codec = (uint8_t)sw_shuffle_proto_pack(srv->z, s->codec, raw, n, wire, &wl);
		h.len = (uint32_t)wl;
		free(raw);
		raw = wire;
		data = wire;
	}
	if (s->next + n == s->end)
		h.flags = PROTO_LAST;
	/* the raw bytes of the range as put: their digests from put time, no pass over them */
	const uint8_t *dig = NULL;
	size_t ndig = 0;
	if (h.codec == PROTO_RAW &&
	    sw_shuffle_store_view_digests(&s->v, s->next, n, &dig, &ndig) < 0)
		dig = NULL;
	err = send_frame(c, s, &h, raw, data, dig, ndig, corrupt);
	if (err < 0) {
		free(raw);
		return err;
	}
	if (corrupt)
		__atomic_store_n(&srv->corrupt_next, 0, __ATOMIC_RELAXED);
	CNT_ADD(srv, chunks_sent, 1);
	CNT_ADD(srv, bytes_served, n);
	s->next += n;
	s->seq++;
	if (h.flags & PROTO_LAST)
		s->queued_all = true;
	return 0;
}

/* Answers with the arena's rkey and the range's per-chunk CRCs; keeps the range pinned. */
static int send_lease(struct sw_shuffle_server *srv, struct conn *c, const struct proto_req *r,
                      struct sw_shuffle_view *v, uint64_t start, uint64_t len, uint32_t chunk)
{
	uint32_t nchunks = (uint32_t)((len + chunk - 1) / chunk);
	size_t size = sw_shuffle_proto_rkey_size(nchunks, (uint32_t)srv->rkey_len);
	uint32_t *crcs = malloc(sizeof(*crcs) * nchunks);
	uint8_t *payload = malloc(size);
	struct lease *l = malloc(sizeof(*l));
	int err = -ENOMEM;
	if (crcs == NULL || payload == NULL || l == NULL)
		goto fail;
	for (uint32_t i = 0; i < nchunks; i++) {
		uint64_t o = (uint64_t)i * chunk;
		crcs[i] = chunk_crc(v, start + o, len - o < chunk ? len - o : chunk,
		                    v->addr + start + o);
	}
	sw_shuffle_proto_rkey_encode((uint64_t)(uintptr_t)(v->addr + start), chunk, crcs, nchunks,
	                             srv->rkey, (uint32_t)srv->rkey_len, payload);
	struct proto_chunk h = {.version = SW_SHUFFLE_VERSION,
	                        .flags = PROTO_LAST | PROTO_RKEY,
	                        .offset = start,
	                        .total = len,
	                        .len = (uint32_t)size,
	                        .raw_len = (uint32_t)size,
	                        .data_crc = sw_shuffle_proto_crc32c(payload, size)};
	if ((err = send_frame(c, NULL, &h, payload, payload, NULL, 0, false)) < 0)
		goto fail;
	*l = (struct lease){
	        .v = *v, .job = r->job, .map = r->map, .part = r->part, .next = c->leases};
	c->leases = l;
	c->nleases++;
	free(crcs);
	CNT_ADD(srv, leases, 1);
	CNT_ADD(srv, bytes_served, len);
	return 0;
fail:
	free(crcs);
	free(payload);
	free(l);
	return err;
}

static void release_lease(struct conn *c, const struct proto_req *r)
{
	for (struct lease **pp = &c->leases; *pp != NULL; pp = &(*pp)->next) {
		struct lease *l = *pp;
		if (l->job == r->job && l->map == r->map && l->part == r->part) {
			*pp = l->next;
			sw_shuffle_store_unpin(c->srv->st, &l->v);
			free(l);
			c->nleases--;
			return;
		}
	}
}

static uint8_t refuse(struct sw_shuffle_server *srv, struct conn *c, uint8_t status,
                      const char *what, const struct proto_req *r)
{
	switch (status) {
	case PROTO_E_VERSION:
		CNT_ADD(srv, bad_version, 1);
		break;
	case PROTO_E_FRAME:
		CNT_ADD(srv, bad_frames, 1);
		break;
	case PROTO_E_HMAC:
		CNT_ADD(srv, refused_hmac, 1);
		break;
	case PROTO_E_JOB:
		CNT_ADD(srv, unknown_job, 1);
		break;
	case PROTO_E_PART:
		CNT_ADD(srv, unknown_part, 1);
		break;
	case PROTO_E_RANGE:
		CNT_ADD(srv, bad_range, 1);
		break;
	default:
		CNT_ADD(srv, io_errors, 1);
	}
	if (r != NULL)
		peer_log(srv, "server: refused %s job %llu map %u part %u [%llu,+%llu): %s",
		         c->peer, (unsigned long long)r->job, r->map, r->part,
		         (unsigned long long)r->offset, (unsigned long long)r->length, what);
	else
		peer_log(srv, "server: refused a request from %s: %s", c->peer, what);
	return status;
}

/* Handles one request. Returns a status to send back (PROTO_OK: nothing to send). */
static uint8_t handle_req(struct sw_shuffle_server *srv, struct conn *c, const struct req *q)
{
	struct proto_req r;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX];
	c->atag = false;
	int err = sw_shuffle_proto_req_decode(q->buf, q->len, &r);
	if (err == -EPROTONOSUPPORT)
		return refuse(srv, c, PROTO_E_VERSION, "unsupported protocol version", NULL);
	if (err < 0)
		return refuse(srv, c, PROTO_E_FRAME, "malformed request frame", NULL);
	/* An unknown job is answered like a wrong key, after the same HMAC work (with a random
	 * key of the server's), so that a peer without a key learns nothing of which jobs exist. */
	int slen = sw_shuffle_store_job_secret(srv->st, r.job, secret);
	bool known = slen >= 0;
	if (!known) {
		memcpy(secret, srv->decoy, sizeof(srv->decoy));
		slen = sizeof(srv->decoy);
	}
	if (sw_shuffle_proto_mac_verify(secret, (size_t)slen, c->challenge, q->buf) < 0 || !known) {
		if (!known) { /* counted and logged as what it is, answered as E_HMAC */
			refuse(srv, c, PROTO_E_JOB, "unknown job", &r);
			return PROTO_E_HMAC;
		}
		return refuse(srv, c, PROTO_E_HMAC, "bad HMAC", &r);
	}
	if (r.nonce <= c->last_nonce) { /* a copy of an earlier request: answered untagged, since
		                         * a tag under a used nonce would reuse a GMAC IV */
		CNT_ADD(srv, replays, 1);
		return refuse(srv, c, PROTO_E_HMAC, "replayed request (nonce not above the last)",
		              &r);
	}
	if (sw_shuffle_proto_answer_key_cached(&c->keys, secret, (size_t)slen, c->challenge,
	                                       c->akey) < 0)
		return refuse(srv, c, PROTO_E_NOMEM, "cannot derive the answer key", &r);
	c->atag = true;
	c->anonce = r.nonce;
	if (r.type == PROTO_RELEASE) {
		release_lease(c, &r);
		return PROTO_OK;
	}
	CNT_ADD(srv, requests, 1);
	struct sw_shuffle_view v;
	if ((err = sw_shuffle_store_pin(srv->st, r.job, r.map, r.part, &v)) < 0)
		return refuse(srv, c, err == -ESRCH ? PROTO_E_JOB : PROTO_E_PART,
		              sw_shuffle_strerror(err), &r);
	uint64_t end = r.length == SW_SHUFFLE_TO_END ? v.len : r.offset + r.length;
	if (r.offset > v.len || end > v.len || end < r.offset) {
		sw_shuffle_store_unpin(srv->st, &v);
		return refuse(srv, c, PROTO_E_RANGE, "range past the end", &r);
	}
	uint32_t chunk = r.chunk ? r.chunk : srv->chunk;
	chunk = chunk < MIN_CHUNK ? MIN_CHUNK : chunk;
	uint64_t len = end - r.offset;
	if ((r.flags & PROTO_ONE_SIDED) && srv->can_get && v.addr != NULL && len > 0 &&
	    c->nleases < MAX_LEASES && (len + chunk - 1) / chunk <= MAX_RKEY_CRCS) {
		if ((err = send_lease(srv, c, &r, &v, r.offset, len, chunk)) == 0)
			return PROTO_OK;
		sw_shuffle_store_unpin(srv->st, &v);
		return err == -EAGAIN ? RETRY_LATER
		                      : refuse(srv, c, PROTO_E_NOMEM, "out of memory", &r);
	}
	struct stream *s = calloc(1, sizeof(*s));
	if (s == NULL) {
		sw_shuffle_store_unpin(srv->st, &v);
		return refuse(srv, c, PROTO_E_NOMEM, "out of memory", &r);
	}
	*s = (struct stream){.v = v,
	                     .next = r.offset,
	                     .start = r.offset,
	                     .end = end,
	                     .chunk = chunk,
	                     .next_s = c->streams};
	s->codec = (r.flags & PROTO_WANT_ZSTD)  ? PROTO_ZSTD
	           : (r.flags & PROTO_WANT_LZ4) ? PROTO_LZ4
	                                        : PROTO_RAW;
	c->streams = s;
	c->active = s;
	return PROTO_OK;
}

/* Counts and logs a peer gone mid-transfer once; the connection is closed after this batch. */
static void peer_lost(struct sw_shuffle_server *srv, struct conn *c, int status)
{
	c->dead = true;
	if (c->lost)
		return;
	c->lost = true;
	CNT_ADD(srv, peers_lost, 1);
	peer_log(srv, "server: %s went away mid-transfer (%s)", c->peer,
	         status ? sw_dp_strerror(status) : "closed by the peer");
}

/* Moves a connection's work forward as far as credits allow. */
static void conn_progress(struct sw_shuffle_server *srv, struct conn *c)
{
	while (c->ep != NULL) {
		struct stream *s = c->active;
		if (s != NULL) {
			while (!s->queued_all && c->inflight < srv->inflight) {
				int err = stream_chunk(srv, c, s);
				if (err == -EAGAIN)
					return;
				if (err == -ENOTCONN || err == -ECONNRESET) {
					peer_lost(srv, c, err);
					return;
				}
				if (err < 0) {
					uint8_t st =
					        refuse(srv, c, sw_shuffle_proto_err_status(err),
					               sw_shuffle_strerror(err), NULL);
					if (send_status(c, st) == -EAGAIN)
						return;
					s->queued_all = true;
				}
			}
			if (!s->queued_all)
				return;
			c->active = NULL;
			if (s->inflight == 0)
				stream_free(c, s);
			continue;
		}
		struct req *q = c->qhead;
		if (q == NULL)
			return;
		uint8_t status = handle_req(srv, c, q);
		if (status == RETRY_LATER ||
		    (status != PROTO_OK && send_status(c, status) == -EAGAIN))
			return; /* no credit: the same request is handled again later */
		if (c->atag)    /* done with: its nonce is used up */
			c->last_nonce = c->anonce;
		c->qhead = q->next;
		if (c->qhead == NULL)
			c->qtail = NULL;
		c->nqueued--;
		free(q);
	}
}

static void on_recv(struct sw_shuffle_server *srv, struct conn *c, const struct sw_dp_event *ev)
{
	if (c->nqueued >= MAX_QUEUED) {
		peer_log(srv, "server: %s queued over %d requests; closing it", c->peer,
		         MAX_QUEUED);
		CNT_ADD(srv, bad_frames, 1);
		c->dead = true;
		return;
	}
	struct req *q = malloc(sizeof(*q));
	if (q == NULL) {
		peer_log(srv, "server: out of memory queueing a request from %s", c->peer);
		return;
	}
	/* a longer frame cannot be valid: keep its length so that decode rejects it */
	q->len = ev->len;
	if (ev->len > 0)
		memcpy(q->buf, ev->data, ev->len < PROTO_REQ_LEN ? ev->len : PROTO_REQ_LEN);
	q->next = NULL;
	if (c->qtail != NULL)
		c->qtail->next = q;
	else
		c->qhead = q;
	c->qtail = q;
	c->nqueued++;
}

/* Whether a fetch waits in the queue (a RELEASE left behind by a closing peer does not count). */
static bool fetch_queued(const struct conn *c)
{
	for (const struct req *q = c->qhead; q != NULL; q = q->next)
		if (q->len < 6 || q->buf[5] != PROTO_RELEASE)
			return true;
	return false;
}

void sw_shuffle_server_event(struct sw_shuffle_server *srv, struct sw_dp_event *ev)
{
	srv->now_ms = sw_shuffle_mono_ms();
	struct conn *c = ev->ep != NULL ? sw_dp_ep_user(ev->ep) : NULL;
	switch (ev->type) {
	case SW_DP_EV_ACCEPT:
		if (srv->nconns >= srv->max_conns) {
			char peer[SW_DP_ADDRSTRLEN];
			sw_dp_ep_peer(ev->ep, peer, sizeof(peer));
			sw_dp_ep_close(ev->ep);
			CNT_ADD(srv, refused_conns, 1);
			peer_log(srv, "server: refused a connection from %s: %u connections open",
			         peer, srv->nconns);
			return;
		}
		c = calloc(1, sizeof(*c));
		if (c == NULL) {
			sw_shuffle_logf(&srv->log, "server: out of memory accepting a connection");
			sw_dp_ep_close(ev->ep);
			return;
		}
		c->srv = srv;
		c->ep = ev->ep;
		c->last_ms = srv->now_ms;
		srv->nconns++;
		sw_dp_ep_peer(ev->ep, c->peer, sizeof(c->peer));
		sw_dp_ep_set_user(ev->ep, c);
		c->next = srv->conns;
		srv->conns = c;
		if (send_hello(c) < 0) {
			peer_log(srv, "server: cannot greet %s; closing it", c->peer);
			c->dead = true;
		}
		return;
	case SW_DP_EV_RECV:
		if (c != NULL && !c->dead) {
			c->last_ms = srv->now_ms;
			on_recv(srv, c, ev);
		}
		sw_dp_release(srv->ctx, ev);
		return;
	case SW_DP_EV_SEND:
		send_done(srv, ev->user, ev->status);
		return;
	case SW_DP_EV_CLOSED:
		if (c == NULL)
			return;
		if (ev->status == -EMSGSIZE || ev->status == -EPROTO)
			CNT_ADD(srv, bad_frames, 1);
		/* sends may still be completing after the peer got everything; only work not
		 * yet handed to the transport means the peer left mid-transfer */
		if (c->active != NULL || fetch_queued(c))
			peer_lost(srv, c, ev->status);
		else if (ev->status) /* a bad frame, or a peer gone mid-frame */
			peer_log(srv, "server: cut off %s: %s", c->peer,
			         sw_dp_strerror(ev->status));
		/* later events of this batch may still name the endpoint: close it after them */
		c->dead = true;
		return;
	case SW_DP_EV_GET:
		return;
	}
}

void sw_shuffle_server_progress(struct sw_shuffle_server *srv)
{
	srv->now_ms = sw_shuffle_mono_ms();
	for (struct conn *c = srv->conns, *next; c != NULL; c = next) {
		next = c->next;
		if (c->ep != NULL && !c->dead &&
		    srv->now_ms - c->last_ms >= (uint64_t)srv->idle_ms) {
			CNT_ADD(srv, idle_closed, 1);
			peer_log(srv, "server: closing %s: no traffic for %d ms", c->peer,
			         srv->idle_ms);
			c->dead = true;
		}
		if (c->dead && c->ep != NULL)
			conn_close(srv, c);
		else
			conn_progress(srv, c);
	}
}

int sw_shuffle_server_run(struct sw_shuffle_server *srv)
{
	struct sw_dp_event ev[32];
	const int batch = (int)(sizeof(ev) / sizeof(ev[0]));
	while (!__atomic_load_n(&srv->stop, __ATOMIC_RELAXED)) {
		int n = sw_dp_poll(srv->ctx, ev, batch);
		if (n < 0) {
			sw_shuffle_logf(&srv->log, "server: transport failed: %s",
			                sw_dp_strerror(n));
			return -EIO;
		}
		for (int i = 0; i < n; i++)
			sw_shuffle_server_event(srv, &ev[i]);
		sw_shuffle_server_progress(srv);
		if (n < batch) { /* took all there was: wait, at once if more came (client.c) */
			int err = sw_dp_wait(srv->ctx, WAIT_MS);
			if (err < 0 && err != -ETIMEDOUT) {
				sw_shuffle_logf(&srv->log, "server: wait failed: %s",
				                sw_dp_strerror(err));
				return -EIO;
			}
		}
	}
	__atomic_store_n(&srv->stop, 0, __ATOMIC_RELAXED);
	return 0;
}

void sw_shuffle_server_stop(struct sw_shuffle_server *srv)
{
	__atomic_store_n(&srv->stop, 1, __ATOMIC_RELAXED);
}

void sw_shuffle_server_corrupt_next_chunk(struct sw_shuffle_server *srv)
{
	__atomic_store_n(&srv->corrupt_next, 1, __ATOMIC_RELAXED);
}

void sw_shuffle_server_counters(struct sw_shuffle_server *srv, struct sw_shuffle_counters *out)
{
	const uint64_t *src = (const uint64_t *)&srv->cnt;
	uint64_t *dst = (uint64_t *)out;
	for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

int sw_shuffle_server_addr(struct sw_shuffle_server *srv, char *buf, size_t len)
{
	return sw_dp_listen_addr(srv->ctx, buf, len);
}

void sw_shuffle_server_dp_config(const struct sw_shuffle_server_conf *conf, struct sw_dp_config *dc)
{
	sw_dp_config_init(dc);
	dc->backend = conf->backend;
	dc->ucx_tls = conf->ucx_tls;
	dc->max_recv = SW_SHUFFLE_SERVER_MAX_RECV;
	dc->one_sided = conf->one_sided; /* else no peer may touch the store's memory */
}

int sw_shuffle_server_attach(struct sw_shuffle_store *st, struct sw_dp_ctx *ctx,
                             const struct sw_shuffle_server_conf *conf,
                             struct sw_shuffle_server **out)
{
	if (st == NULL || ctx == NULL || conf == NULL || conf->listen_addr == NULL ||
	    conf->chunk > SW_SHUFFLE_CHUNK_MAX)
		return -EINVAL;
	struct sw_shuffle_server *srv = calloc(1, sizeof(*srv));
	if (srv == NULL)
		return -ENOMEM;
	srv->st = st;
	srv->ctx = ctx;
	srv->log = conf->log;
	srv->chunk = conf->chunk ? conf->chunk : SW_SHUFFLE_CHUNK_DEFAULT;
	srv->chunk = srv->chunk < MIN_CHUNK ? MIN_CHUNK : srv->chunk;
	srv->inflight = conf->inflight ? conf->inflight : 8;
	srv->max_conns = conf->max_conns ? conf->max_conns : MAX_CONNS;
	srv->idle_ms = conf->idle_ms > 0 ? conf->idle_ms : IDLE_MS;
	srv->now_ms = sw_shuffle_mono_ms();
	int err = -ENOMEM;
	if ((srv->z = sw_shuffle_proto_zctx_new()) == NULL ||
	    (srv->g = sw_shuffle_proto_tag_new()) == NULL)
		goto fail;
	if ((err = sw_shuffle_secret_new(srv->decoy)) < 0)
		goto fail;
	if (conf->one_sided && (sw_dp_caps(srv->ctx) & SW_DP_CAP_GET)) {
		void *arena;
		size_t arena_len;
		sw_shuffle_store_arena(st, &arena, &arena_len);
		if ((err = sw_dp_mem_reg(srv->ctx, arena, arena_len, &srv->mr)) < 0)
			goto fail;
		srv->rkey = sw_dp_mr_rkey(srv->mr, &srv->rkey_len);
		srv->can_get = srv->rkey_len > 0 && srv->rkey_len <= PROTO_RKEY_MAX;
	}
	if ((err = sw_dp_listen(srv->ctx, conf->listen_addr)) < 0)
		goto fail;
	*out = srv;
	return 0;
fail:
	sw_shuffle_logf(&srv->log, "server: cannot start on %s: %s", conf->listen_addr,
	                sw_dp_strerror(err));
	sw_shuffle_server_destroy(srv);
	return err;
}

int sw_shuffle_server_create(struct sw_shuffle_store *st, const struct sw_shuffle_server_conf *conf,
                             struct sw_shuffle_server **out)
{
	if (conf == NULL)
		return -EINVAL;
	struct sw_dp_config dc;
	struct sw_dp_ctx *ctx;
	sw_shuffle_server_dp_config(conf, &dc);
	int err = sw_dp_open(&dc, &ctx);
	if (err < 0) {
		sw_shuffle_logf(&conf->log, "server: cannot open the %s transport: %s",
		                conf->backend ? conf->backend : "default", sw_dp_strerror(err));
		return err;
	}
	if ((err = sw_shuffle_server_attach(st, ctx, conf, out)) < 0) {
		sw_dp_close(ctx);
		return err;
	}
	(*out)->own_ctx = true;
	return 0;
}

void sw_shuffle_server_destroy(struct sw_shuffle_server *srv)
{
	if (srv == NULL)
		return;
	/* Endpoints and pending sends go with the context, which the caller closes next (it
	 * must not poll it in between: completions would name freed buffers). */
	for (struct conn *c = srv->conns; c != NULL; c = c->next)
		if (c->ep != NULL) {
			sw_dp_ep_set_user(c->ep, NULL);
			c->ep = NULL;
		}
	if (srv->mr != NULL)
		sw_dp_mem_dereg(srv->ctx, srv->mr);
	if (srv->own_ctx)
		sw_dp_close(srv->ctx);
	while (srv->conns != NULL)
		conn_free(srv, srv->conns);
	sw_shuffle_proto_zctx_free(srv->z);
	sw_shuffle_proto_tag_free(srv->g);
	free(srv);
}
