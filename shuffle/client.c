/* SPDX-License-Identifier: MIT */
/*
 * Fetch client. A fetch is one request answered by a stream of chunks (or by a lease to read
 * with one-sided gets). Chunks whose CRC32C does not match, or that do not decompress, are
 * remembered and fetched again one by one afterwards with a fresh request, up to `retries`
 * times each: the stream keeps flowing and only the damaged bytes cross the wire twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sw_dp.h>

#include "proto.h"
#include "shuffle_int.h"

#define REQ_SLOTS 4

struct bad {
	uint64_t off;
	uint32_t len;
};

struct badlist {
	struct bad *v;
	size_t n, cap;
};

struct sw_shuffle_client {
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	bool broken;
	int gone; /* the ep's CLOSED status once seen */
	struct sw_shuffle_client_conf conf;
	char server[SW_DP_ADDRSTRLEN];
	struct proto_zctx *z;
	struct proto_gmac *g;
	bool greeted;                           /* the server's hello arrived */
	uint8_t challenge[PROTO_CHALLENGE_LEN]; /* from the hello: every MAC is bound to it */
	uint8_t akey[PROTO_KEY_LEN];            /* the current fetch's answer key */
	uint64_t nonce;
	uint8_t req[REQ_SLOTS][PROTO_REQ_LEN];
	bool req_busy[REQ_SLOTS];
	unsigned gets_pending;
	uint64_t deadline; /* CLOCK_MONOTONIC ms at which the current fetch fails */
	struct sw_shuffle_counters cnt;
};

static int fail(struct sw_shuffle_client *cl, int err, const struct sw_shuffle_fetch *f,
                const char *what)
{
	cl->cnt.fetch_errors++;
	if (err == -ECONNRESET || err == -ETIMEDOUT || err == -EBADMSG || err == -ENOTCONN)
		cl->broken = true;
	if (err == -ECONNRESET)
		cl->cnt.peers_lost++;
	if (err == -EBADMSG)
		cl->cnt.bad_frames++;
	sw_logf(&cl->conf.log, "client: fetch job %llu map %u part %u from %s: %s (%s)",
	        (unsigned long long)f->job, f->map, f->part, cl->server, sw_shuffle_strerror(err),
	        what);
	return err;
}

/* Polls once. Send completions and the endpoint closing are handled here; any other event
 * is stored in ev for the caller (returns 1). Returns 0 when there was none. */
static int pump(struct sw_shuffle_client *cl, struct sw_dp_event *ev)
{
	int n = sw_dp_poll(cl->ctx, ev, 1);
	if (n < 0) {
		cl->gone = n;
		return 0;
	}
	if (n == 0)
		return 0;
	switch (ev->type) {
	case SW_DP_EV_SEND:
		cl->req_busy[((uint8_t *)ev->user - &cl->req[0][0]) / PROTO_REQ_LEN] = false;
		if (ev->status < 0)
			cl->gone = ev->status;
		return 0;
	case SW_DP_EV_CLOSED:
		cl->gone = ev->status < 0 ? ev->status : -ECONNRESET;
		return 0;
	case SW_DP_EV_GET:
		cl->gets_pending--;
		return 1;
	default:
		return 1;
	}
}

/* Next event concerning our endpoint. 0, -ETIMEDOUT (no progress for timeout_ms, or past
 * the fetch's deadline: a server trickling bytes must not hold a reducer for ever),
 * -ECONNRESET (peer gone). */
static int next_event(struct sw_shuffle_client *cl, struct sw_dp_event *ev)
{
	for (;;) {
		if (pump(cl, ev))
			return 0;
		if (cl->gone)
			return -ECONNRESET;
		uint64_t now = sw_mono_ms();
		if (now >= cl->deadline)
			return -ETIMEDOUT;
		int wait = cl->deadline - now < (uint64_t)cl->conf.timeout_ms
		                   ? (int)(cl->deadline - now)
		                   : cl->conf.timeout_ms;
		if (sw_dp_wait(cl->ctx, wait) == -ETIMEDOUT) {
			if (pump(cl, ev))
				return 0;
			return cl->gone ? -ECONNRESET : -ETIMEDOUT;
		}
	}
}

/* Waits for the transport to move, swallowing events (used only between fetches). */
static int wait_progress(struct sw_shuffle_client *cl)
{
	struct sw_dp_event ev;
	int err = sw_dp_wait(cl->ctx, cl->conf.timeout_ms);
	while (pump(cl, &ev))
		sw_dp_release(cl->ctx, &ev);
	if (cl->gone)
		return -ECONNRESET;
	return err == -ETIMEDOUT ? -ETIMEDOUT : 0;
}

/* Waits for the server's hello (its first message) and keeps its challenge. */
static int greet(struct sw_shuffle_client *cl)
{
	struct sw_dp_event ev;
	int err;
	bool got = false;
	while (!got) {
		if ((err = next_event(cl, &ev)) < 0)
			return err;
		if ((got = ev.type == SW_DP_EV_RECV))
			err = proto_hello_decode(ev.data, ev.len, cl->challenge);
		sw_dp_release(cl->ctx, &ev); /* clears ev */
	}
	if (err < 0) { /* nothing on this connection can be trusted */
		cl->broken = true;
		return err == -EPROTONOSUPPORT ? err : -EBADMSG;
	}
	cl->greeted = true;
	return 0;
}

static int send_req(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f, uint8_t type,
                    uint8_t flags, uint64_t off, uint64_t len)
{
	struct proto_req r = {.version = SW_SHUFFLE_VERSION,
	                      .type = type,
	                      .flags = flags,
	                      .job = f->job,
	                      .map = f->map,
	                      .part = f->part,
	                      .offset = off,
	                      .length = len,
	                      .chunk = cl->conf.chunk,
	                      .nonce = ++cl->nonce};
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r.ts_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	int slot;
	/* a slot is free again once its send completed; between fetches nothing else comes */
	for (;;) {
		for (slot = 0; slot < REQ_SLOTS && cl->req_busy[slot]; slot++)
			;
		int err = slot < REQ_SLOTS ? 0 : wait_progress(cl);
		if (err < 0)
			return err;
		if (slot == REQ_SLOTS)
			continue;
		uint8_t *b = cl->req[slot];
		proto_req_encode(&r, b);
		if (proto_mac(f->secret, f->secret_len, cl->challenge, b, b + PROTO_REQ_MACED) < 0)
			return -EIO;
		struct iovec iov = {b, PROTO_REQ_LEN};
		err = sw_dp_send(cl->ep, 0, &iov, 1, b);
		if (err == 0) {
			cl->req_busy[slot] = true;
			return 0;
		}
		if (err != -EAGAIN)
			return err == -ENOTCONN ? -ECONNRESET : err;
		if ((err = wait_progress(cl)) < 0) /* no credit yet */
			return err;
	}
}

static int bad_add(struct badlist *b, uint64_t off, uint32_t len)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 8;
		struct bad *v = realloc(b->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		b->v = v;
		b->cap = cap;
	}
	b->v[b->n++] = (struct bad){off, len};
	return 0;
}

/* Reads chunks [first, last] of a lease with one-sided gets, all in flight at once. */
static int get_chunks(struct sw_shuffle_client *cl, const struct proto_rkey *k, uint8_t *dst,
                      uint64_t total, uint32_t first, uint32_t last)
{
	int err = 0;
	for (uint32_t i = first; i <= last && err == 0; i++) {
		uint64_t o = (uint64_t)i * k->chunk;
		size_t n = total - o < k->chunk ? total - o : k->chunk;
		err = sw_dp_get(cl->ep, dst + o, n, k->addr + o, k->rkey, k->rkey_len, NULL);
		if (err == 0)
			cl->gets_pending++;
	}
	while (cl->gets_pending > 0) { /* even after an error: dst must not be written later */
		struct sw_dp_event ev;
		int e = next_event(cl, &ev);
		if (e < 0)
			return e;
		if (ev.type == SW_DP_EV_GET && ev.status < 0 && err == 0)
			err = ev.status;
		sw_dp_release(cl->ctx, &ev);
	}
	return err == -ENOTCONN ? -ECONNRESET : err;
}

/* Reads a leased range and checks each chunk's CRC, re-reading bad ones. */
static int read_lease(struct sw_shuffle_client *cl, const struct proto_rkey *k, uint8_t *dst,
                      uint64_t total)
{
	int err = k->nchunks ? get_chunks(cl, k, dst, total, 0, k->nchunks - 1) : 0;
	for (uint32_t i = 0; i < k->nchunks && err == 0; i++) {
		uint64_t o = (uint64_t)i * k->chunk;
		size_t n = total - o < k->chunk ? total - o : k->chunk;
		for (uint32_t attempt = 0; proto_crc32c(dst + o, n) != proto_rkey_crc(k, i);
		     attempt++) {
			cl->cnt.crc_failures++;
			if (attempt == cl->conf.retries)
				return -EILSEQ;
			cl->cnt.refetches++;
			if ((err = get_chunks(cl, k, dst, total, i, i)) < 0)
				return err;
		}
	}
	return err;
}

/* Chunks that arrived ahead of their turn (a transport may let a small message overtake a
 * large one), kept unreleased until their turn; bounded by the server's chunks in flight. */
#define MAX_HELD 32

struct held {
	struct sw_dp_event ev[MAX_HELD];
	struct proto_chunk h[MAX_HELD];
	unsigned n;
};

static void held_release(struct sw_shuffle_client *cl, struct held *hd)
{
	while (hd->n > 0)
		sw_dp_release(cl->ctx, &hd->ev[--hd->n]);
}

/*
 * The next frame of the answer in sequence order: a chunk with seq, or an error status (which
 * ends the answer wherever it comes). Returns 0 with *ev to release, or an error.
 */
static int next_chunk(struct sw_shuffle_client *cl, struct held *hd, uint32_t seq,
                      struct sw_dp_event *ev, struct proto_chunk *h)
{
	for (unsigned i = 0; i < hd->n; i++)
		if (hd->h[i].seq == seq) {
			*ev = hd->ev[i];
			*h = hd->h[i];
			hd->ev[i] = hd->ev[--hd->n];
			hd->h[i] = hd->h[hd->n];
			return 0;
		}
	for (;;) {
		int err = next_event(cl, ev);
		if (err < 0)
			return err;
		if (ev->type != SW_DP_EV_RECV) {
			sw_dp_release(cl->ctx, ev);
			continue;
		}
		err = ev->len < PROTO_CHUNK_LEN ? -EBADMSG
		                                : proto_chunk_decode(ev->data, PROTO_CHUNK_LEN, h);
		if (err == 0 && ev->len != PROTO_CHUNK_LEN + (size_t)h->len)
			err = -EBADMSG;
		if (err < 0) {
			sw_dp_release(cl->ctx, ev);
			return err;
		}
		if (h->seq == seq || h->status != PROTO_OK)
			return 0;
		if (h->seq < seq || hd->n == MAX_HELD) {
			sw_dp_release(cl->ctx, ev);
			return -EBADMSG;
		}
		hd->ev[hd->n] = *ev;
		hd->h[hd->n++] = *h;
	}
}

/* Whether a chunk's payload decodes into out as raw_len bytes with the header's CRC32C. */
static bool chunk_intact(struct sw_shuffle_client *cl, const struct proto_chunk *h,
                         const uint8_t *payload, uint8_t *out)
{
	return h->raw_len == 0 ||
	       (proto_unpack(cl->z, h->codec, payload, h->len, out, h->raw_len) == 0 &&
	        proto_crc32c(out, h->raw_len) == h->data_crc);
}

/* Logs a chunk that failed its check (CRC32C, decompression or tag) and counts it. */
static void chunk_failed(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                         const struct proto_chunk *h)
{
	cl->cnt.crc_failures++;
	sw_logf(&cl->conf.log,
	        "client: chunk %u of job %llu map %u part %u at %llu failed its CRC32C or tag",
	        h->seq, (unsigned long long)f->job, f->map, f->part, (unsigned long long)h->offset);
}

/*
 * Runs one request and collects its answer into *dst (allocated here when NULL, else cap
 * bytes long: a longer answer is drained and gives -ENOBUFS). Bad chunks are added to bad;
 * a first chunk that fails its tag makes the whole answer untrustworthy (its total could be
 * forged): it is drained and gives -EILSEQ, to be asked for again. Returns 0 or an error.
 */
static int fetch_once(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f, uint64_t off,
                      uint64_t len, bool one_sided, uint8_t **dst, uint64_t cap, uint64_t *total,
                      struct badlist *bad)
{
	uint8_t flags = (uint8_t)(cl->conf.codec == SW_SHUFFLE_LZ4    ? PROTO_WANT_LZ4
	                          : cl->conf.codec == SW_SHUFFLE_ZSTD ? PROTO_WANT_ZSTD
	                                                              : 0);
	if (one_sided)
		flags |= PROTO_ONE_SIDED;
	int err = send_req(cl, f, PROTO_FETCH, flags, off, len);
	if (err < 0)
		return err;
	uint64_t nonce = cl->nonce; /* the answer's tags are bound to it */
	struct held hd = {.n = 0};
	uint64_t got = 0;
	int drain = 0; /* no room for the answer: read it to its end (the stream stays usable) */
	for (uint32_t seq = 0;; seq++) {
		struct sw_dp_event ev;
		struct proto_chunk h;
		if ((err = next_chunk(cl, &hd, seq, &ev, &h)) < 0)
			break;
		const uint8_t *payload = (const uint8_t *)ev.data + PROTO_CHUNK_LEN;
		bool authentic = proto_chunk_check(cl->g, cl->akey, nonce, &h, payload, h.len) == 0;
		if (h.status != PROTO_OK)
			err = authentic || proto_status_untagged(h.status)
			              ? proto_status_err(h.status)
			              : -EBADMSG;
		else if ((seq > 0 && h.total != *total) ||
		         (len != SW_SHUFFLE_TO_END && h.total != len) || h.offset != off + got)
			err = -EBADMSG;
		if (err == 0 && seq == 0) {
			*total = h.total;
			if (!authentic) {
				chunk_failed(cl, f, &h);
				drain = -EILSEQ;
			} else if (*dst != NULL && h.total > cap)
				drain = -ENOBUFS;
			else if (*dst == NULL && h.total > cl->conf.max_fetch)
				drain = -EFBIG;
			else if (*dst == NULL && h.total > 0 && (*dst = malloc(h.total)) == NULL)
				drain = -ENOMEM;
		}
		if (err == 0 && (h.flags & PROTO_RKEY)) {
			struct proto_rkey k;
			if (!authentic || proto_crc32c(payload, h.len) != h.data_crc ||
			    proto_rkey_decode(payload, h.len, &k) < 0 ||
			    k.nchunks != (h.total + k.chunk - 1) / k.chunk)
				err = -EBADMSG;
			else if (drain == 0)
				err = read_lease(cl, &k, *dst, h.total);
			sw_dp_release(cl->ctx, &ev);
			int rerr = send_req(cl, f, PROTO_RELEASE, 0, off, len);
			err = err < 0 ? err : rerr;
			break;
		}
		if (err == 0 && h.raw_len > h.total - got)
			err = -EBADMSG;
		uint8_t *out = err == 0 && drain == 0 ? *dst + got : NULL;
		if (out != NULL && (!authentic || !chunk_intact(cl, &h, payload, out))) {
			chunk_failed(cl, f, &h);
			err = bad_add(bad, h.offset, h.raw_len);
		}
		sw_dp_release(cl->ctx, &ev);
		if (err < 0)
			break;
		got += h.raw_len;
		if (h.flags & PROTO_LAST) {
			err = got == *total ? 0 : -EBADMSG;
			break;
		}
	}
	held_release(cl, &hd);
	return err < 0 ? err : drain;
}

/* fetch_once, asked again while the answer's first chunk fails its tag (-EILSEQ). */
static int fetch_checked(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                         uint64_t off, uint64_t len, bool one_sided, uint8_t **dst, uint64_t cap,
                         uint64_t *total, struct badlist *bad)
{
	for (uint32_t attempt = 0;; attempt++) {
		int err = fetch_once(cl, f, off, len, one_sided, dst, cap, total, bad);
		if (err != -EILSEQ || attempt == cl->conf.retries)
			return err;
		cl->cnt.refetches++;
	}
}

/* A fetch into *buf (allocated when NULL, else cap bytes), re-fetching bad chunks. */
static int fetch_range(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                       uint8_t **buf, uint64_t cap, uint64_t *len)
{
	struct badlist bad = {0};
	uint64_t total = 0;
	int err;
	if (cl->broken)
		return fail(cl, -ENOTCONN, f, "connection already failed");
	if (f->secret_len < SW_SHUFFLE_SECRET_MIN || f->secret_len > SW_SHUFFLE_SECRET_MAX)
		return fail(cl, -EINVAL, f, "bad secret length");
	cl->deadline = sw_mono_ms() + (uint64_t)cl->conf.deadline_ms;
	if (!cl->greeted && (err = greet(cl)) < 0)
		return fail(cl, err, f, "no valid hello from the server");
	if (proto_answer_key(f->secret, f->secret_len, cl->challenge, cl->akey) < 0)
		return fail(cl, -EIO, f, "cannot derive the answer key");
	err = fetch_checked(cl, f, f->offset, f->length, cl->conf.one_sided, buf, cap, &total,
	                    &bad);
	for (size_t i = 0; err == 0 && i < bad.n; i++) {
		struct bad b = bad.v[i];
		for (uint32_t attempt = 0;; attempt++) {
			if (attempt == cl->conf.retries) {
				err = -EILSEQ;
				break;
			}
			struct badlist again = {0};
			uint8_t *dst = *buf + (b.off - f->offset);
			uint64_t t;
			cl->cnt.refetches++;
			err = fetch_checked(cl, f, b.off, b.len, false, &dst, b.len, &t, &again);
			size_t still = again.n;
			free(again.v);
			if (err < 0 || still == 0)
				break;
		}
	}
	free(bad.v);
	if (err < 0)
		return fail(cl, err, f, cl->gone ? sw_dp_strerror(cl->gone) : "fetch failed");
	cl->cnt.bytes_fetched += total;
	*len = total;
	return 0;
}

int sw_shuffle_client_fetch(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                            uint8_t **data, uint64_t *len)
{
	uint8_t *buf = NULL;
	*data = NULL;
	*len = 0;
	int err = fetch_range(cl, f, &buf, 0, len);
	if (err < 0)
		free(buf);
	else
		*data = buf;
	return err;
}

int sw_shuffle_client_fetch_into(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                                 void *buf, size_t cap, uint64_t *len)
{
	uint8_t *b = buf;
	*len = 0;
	if (buf == NULL)
		return fail(cl, -EINVAL, f, "no buffer");
	return fetch_range(cl, f, &b, cap, len);
}

void sw_shuffle_client_counters(struct sw_shuffle_client *cl, struct sw_shuffle_counters *out)
{
	*out = cl->cnt;
}

int sw_shuffle_client_create(const struct sw_shuffle_client_conf *conf,
                             struct sw_shuffle_client **out)
{
	if (conf == NULL || conf->server_addr == NULL || conf->chunk > SW_SHUFFLE_CHUNK_MAX ||
	    conf->codec > SW_SHUFFLE_ZSTD)
		return -EINVAL;
	struct sw_shuffle_client *cl = calloc(1, sizeof(*cl));
	if (cl == NULL)
		return -ENOMEM;
	cl->conf = *conf;
	cl->conf.retries = conf->retries ? conf->retries : 3;
	cl->conf.timeout_ms = conf->timeout_ms ? conf->timeout_ms : 10000;
	cl->conf.deadline_ms = conf->deadline_ms ? conf->deadline_ms : 600000;
	cl->conf.max_fetch = conf->max_fetch ? conf->max_fetch : 1ull << 30;
	snprintf(cl->server, sizeof(cl->server), "%s", conf->server_addr);
	cl->conf.server_addr = cl->server;
	struct sw_dp_config dc;
	sw_dp_config_init(&dc);
	dc.backend = conf->backend;
	dc.ucx_tls = conf->ucx_tls;
	/* the largest answer frame: a compressed chunk of the largest size */
	dc.max_recv = PROTO_CHUNK_LEN + proto_pack_bound(SW_SHUFFLE_CHUNK_MAX);
	int err = -ENOMEM;
	if ((cl->z = proto_zctx_new()) == NULL || (cl->g = proto_gmac_new()) == NULL)
		goto fail;
	if ((err = sw_dp_open(&dc, &cl->ctx)) < 0)
		goto fail;
	if ((err = sw_dp_connect(cl->ctx, cl->server, &cl->ep)) < 0)
		goto fail;
	*out = cl;
	return 0;
fail:
	sw_logf(&conf->log, "client: cannot connect to %s: %s", conf->server_addr,
	        sw_dp_strerror(err));
	sw_shuffle_client_destroy(cl);
	return err;
}

void sw_shuffle_client_destroy(struct sw_shuffle_client *cl)
{
	if (cl == NULL)
		return;
	sw_dp_close(cl->ctx); /* closes the endpoint too */
	proto_zctx_free(cl->z);
	proto_gmac_free(cl->g);
	free(cl);
}
