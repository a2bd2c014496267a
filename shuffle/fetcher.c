/* SPDX-License-Identifier: MIT */
/*
 * Fetcher: many fetches from many servers on one sw_dp context, driven by events, never
 * blocking. One connection per server, and at most `parallel` connections have fetches
 * running, as Hadoop's reducer copies from `parallelcopies` hosts at once. A connection keeps
 * up to AHEAD requests unanswered (pipelining): the server answers a connection's requests in
 * order, so the next answer streams right behind the current one instead of after a round trip
 * to the reducer, and each frame belongs to the oldest request still unanswered.
 *
 * A fetch is one request answered by a stream of chunks (or by a lease to read with one-sided
 * gets). Chunks whose CRC32C does not match, or that do not decompress, are remembered and
 * fetched again one by one afterwards with a fresh request, up to `retries` times each: the
 * stream keeps flowing and only the damaged bytes cross the wire twice. A finished fetch is
 * reported through its done callback, called only at the end of sw_shuffle_fetcher_event()
 * or _progress(), when the fetcher's state is whole again (the callback may add and cancel).
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
/* Requests a connection keeps unanswered. Two would hide the round trip between answers; four
 * also cover a re-fetch or a fetch of a few bytes queued among them. */
#define AHEAD 4
/* Chunks that arrived ahead of their turn (a transport may let a small message overtake a
 * large one), kept unreleased until their turn; bounded by the server's chunks in flight. */
#define MAX_HELD 32

enum op_state {
	OP_QUEUED,  /* waits for its connection, a connection slot or room in the pipeline */
	OP_REQUEST, /* its current request waits for a request slot or a credit */
	OP_ANSWER,  /* its request is sent: waits for (or reads) the answer's frames */
	OP_GETS,    /* one-sided gets of a lease are in flight */
	OP_RELEASE, /* the lease's RELEASE waits for a slot or a credit */
	OP_DONE,    /* on the done list */
};

struct bad {
	uint64_t off;
	uint32_t len;
};

struct fconn;

struct sw_shuffle_fetch_op {
	struct sw_shuffle_fetcher *fc;
	struct fconn *c;
	struct sw_shuffle_fetch f;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX];
	char server[SW_DP_ADDRSTRLEN];
	sw_shuffle_fetch_done_fn done;
	void *arg;
	enum op_state st;
	uint8_t *buf; /* the answer: the caller's (cap bytes) or allocated here (own) */
	uint64_t cap;
	bool own;
	uint8_t akey[PROTO_KEY_LEN];
	uint64_t deadline; /* sw_shuffle_mono_ms() at which it fails */
	bool retried;      /* sent again on a new connection after a stale one broke */
	/* the current request: the whole range, or (sub) one bad chunk fetched again */
	bool sub;
	uint8_t type;
	uint64_t off, len, nonce, got, atotal; /* atotal: bytes of this answer */
	uint64_t total;                        /* bytes of the whole fetch */
	uint32_t seq, tries;
	int drain; /* no room for the answer, or its first chunk untrustworthy: read to its end */
	bool sub_bad;
	struct bad *bad;
	size_t nbad, capbad, bad_i;
	/* a lease: the descriptor (k points into lease) and the chunk being read again */
	uint8_t *lease;
	struct proto_rkey k;
	uint32_t lease_i;
	int get_err;
	int status;
	struct sw_shuffle_fetch_op *next;
};

struct slot {
	struct fconn *c;
	bool busy;
	uint8_t buf[PROTO_REQ_LEN];
};

struct fconn {
	struct sw_shuffle_fetcher *fc;
	struct sw_dp_ep *ep; /* NULL once closed (kept until its sends and gets complete) */
	char server[SW_DP_ADDRSTRLEN];
	bool greeted, used;
	uint8_t challenge[PROTO_CHALLENGE_LEN];
	struct proto_keycache keys;
	uint64_t nonce;
	struct slot slots[REQ_SLOTS];
	unsigned gets;
	uint8_t *orphan;  /* a dropped fetch's buffer that gets in flight may still write */
	uint64_t last_ms; /* the last sign of life: no progress for timeout_ms fails the fetch */
	struct sw_shuffle_fetch_op *head, *tail; /* in the order they were added */
	/* fetches whose requests are unanswered, oldest first: the next frame is the first's */
	struct sw_shuffle_fetch_op *await[AHEAD];
	unsigned nawait;
	struct sw_dp_event held[MAX_HELD];
	struct proto_chunk held_h[MAX_HELD];
	unsigned nheld;
	/* Placement (place()): the transport reads frames ahead of their events, so the answers
	 * are followed here as it reads them: the next frame belongs to await[pk] (pk answers
	 * ended ahead of the events), with seq pseq at byte pgot of that answer. plost: a frame
	 * broke the order a server sends in, nothing more is placed on this connection. */
	unsigned pk;
	uint32_t pseq;
	uint64_t pgot;
	bool plost;
	struct fconn *next;
};

struct sw_shuffle_fetcher {
	struct sw_dp_ctx *ctx;
	struct sw_shuffle_fetcher_conf conf;
	struct proto_zctx *z;
	struct proto_tag *g;
	struct fconn *conns, *closed;
	struct sw_shuffle_fetch_op *wait_head, *wait_tail; /* for a connection slot */
	struct sw_shuffle_fetch_op *done_head, *done_tail;
	uint64_t now;
	struct sw_shuffle_counters cnt;
};

static void op_append(struct sw_shuffle_fetch_op **head, struct sw_shuffle_fetch_op **tail,
                      struct sw_shuffle_fetch_op *op)
{
	op->next = NULL;
	if (*tail != NULL)
		(*tail)->next = op;
	else
		*head = op;
	*tail = op;
}

static bool op_unlink(struct sw_shuffle_fetch_op **head, struct sw_shuffle_fetch_op **tail,
                      struct sw_shuffle_fetch_op *op)
{
	struct sw_shuffle_fetch_op *prev = NULL;
	for (struct sw_shuffle_fetch_op *o = *head; o != NULL; prev = o, o = o->next)
		if (o == op) {
			if (prev != NULL)
				prev->next = op->next;
			else
				*head = op->next;
			if (*tail == op)
				*tail = prev;
			op->next = NULL;
			return true;
		}
	return false;
}

static void held_release(struct fconn *c)
{
	while (c->nheld > 0)
		sw_dp_release(c->fc->ctx, &c->held[--c->nheld]);
}

static bool conn_busy(const struct fconn *c)
{
	for (int i = 0; i < REQ_SLOTS; i++)
		if (c->slots[i].busy)
			return true;
	return c->gets > 0;
}

/* Closes c's endpoint; c is freed (conn_reap) once no send or get of it is outstanding, and
 * never while an event handler may still look at it. */
static void conn_close(struct fconn *c)
{
	struct sw_shuffle_fetcher *fc = c->fc;
	held_release(c);
	c->nawait = 0;
	if (c->ep != NULL) {
		if (fc->conf.conn_closed != NULL) {
			struct sw_dp_counters k;
			sw_dp_ep_counters(c->ep, &k);
			fc->conf.conn_closed(fc->conf.arg, c->server, &k);
		}
		sw_dp_ep_set_user(c->ep, NULL);
		sw_dp_ep_close(c->ep);
		c->ep = NULL;
	}
	struct fconn **pp = &fc->conns;
	while (*pp != NULL && *pp != c)
		pp = &(*pp)->next;
	if (*pp == c)
		*pp = c->next;
	c->next = fc->closed;
	fc->closed = c;
}

static void conn_free(struct fconn *c)
{
	free(c->orphan);
	explicit_bzero(&c->keys, sizeof(c->keys));
	free(c);
}

/* Drops op's own buffer, or hands it to c when gets in flight may still write it. */
static void op_drop_buf(struct sw_shuffle_fetch_op *op, struct fconn *c)
{
	if (op->own && c != NULL && c->gets > 0 && c->orphan == NULL)
		c->orphan = op->buf;
	else if (op->own)
		free(op->buf);
	op->buf = NULL;
}

static void conn_reap(struct sw_shuffle_fetcher *fc)
{
	for (struct fconn **pp = &fc->closed; *pp != NULL;) {
		struct fconn *c = *pp;
		if (conn_busy(c)) {
			pp = &c->next;
		} else {
			*pp = c->next;
			conn_free(c);
		}
	}
}

static void op_reset_request(struct sw_shuffle_fetch_op *op)
{
	op->st = OP_REQUEST;
	op->seq = 0;
	op->got = 0;
	op->drain = 0;
	op->sub_bad = false;
	free(op->lease);
	op->lease = NULL;
	op->get_err = 0;
}

/* Ends op with status err (0 or a negative code) and puts it on the done list. */
static void op_finish(struct sw_shuffle_fetch_op *op, int err)
{
	struct sw_shuffle_fetcher *fc = op->fc;
	struct fconn *c = op->c;
	if (c != NULL)
		op_unlink(&c->head, &c->tail, op);
	op->c = NULL;
	free(op->lease);
	op->lease = NULL;
	free(op->bad);
	op->bad = NULL;
	if (err < 0) {
		fc->cnt.fetch_errors++;
		if (err == -ECONNRESET)
			fc->cnt.peers_lost++;
		if (err == -EBADMSG)
			fc->cnt.bad_frames++;
		sw_shuffle_logf(&fc->conf.log, "client: fetch job %llu map %u part %u from %s: %s",
		                (unsigned long long)op->f.job, op->f.map, op->f.part, op->server,
		                sw_shuffle_strerror(err));
		op_drop_buf(op, c);
		op->total = 0;
	} else {
		fc->cnt.bytes_fetched += op->total;
	}
	op->status = err;
	op->st = OP_DONE;
	op_append(&fc->done_head, &fc->done_tail, op);
}

/* Whether an error leaves the connection unusable (nothing on it can be trusted any more). */
static bool conn_fatal(int err)
{
	return err == -ECONNRESET || err == -ETIMEDOUT || err == -EBADMSG || err == -ENOTCONN ||
	       err == -EPROTONOSUPPORT;
}

/* Closes c and puts the fetches queued on it back on the wait list, in order, to start on a
 * new connection. */
static void conn_requeue(struct fconn *c)
{
	struct sw_shuffle_fetcher *fc = c->fc;
	struct sw_shuffle_fetch_op *rest = c->head;
	c->head = c->tail = NULL;
	conn_close(c);
	while (rest != NULL) {
		struct sw_shuffle_fetch_op *o = rest;
		rest = o->next;
		o->c = NULL;
		o->st = OP_QUEUED;
		op_append(&fc->wait_head, &fc->wait_tail, o);
	}
}

/* Whether c's fetches may all go again on a new connection: the first has asked, and none
 * got a frame of an answer yet or was sent again before. */
static bool conn_fresh(const struct fconn *c)
{
	if (c->head == NULL || (c->head->st != OP_REQUEST && c->head->st != OP_ANSWER))
		return false;
	for (const struct sw_shuffle_fetch_op *o = c->head; o != NULL; o = o->next)
		if (o->st != OP_QUEUED && (o->retried || o->seq > 0 || o->sub ||
		                           (o->st != OP_REQUEST && o->st != OP_ANSWER)))
			return false;
	return true;
}

/* The connection broke (err): its running fetches fail, unless the connection had served
 * before and none of them got anything yet (a server closing an idle connection just as it was
 * reused): they and those queued behind them go to a new connection. Otherwise every fetch
 * queued on it fails too: their server is the one that went away. */
static void conn_fail(struct fconn *c, int err)
{
	if (c->used && err == -ECONNRESET && conn_fresh(c)) {
		for (struct sw_shuffle_fetch_op *o = c->head; o != NULL; o = o->next)
			if (o->st != OP_QUEUED)
				o->retried = true;
		conn_requeue(c);
		return;
	}
	struct sw_shuffle_fetch_op *rest = c->head;
	c->head = c->tail = NULL;
	conn_close(c);
	while (rest != NULL) {
		struct sw_shuffle_fetch_op *o = rest;
		rest = o->next;
		op_finish(o, err); /* o->c is still c: the buffer outlives gets in flight */
	}
}

static int send_req(struct fconn *c, struct sw_shuffle_fetch_op *op, uint8_t type, uint8_t flags)
{
	int i = 0;
	while (i < REQ_SLOTS && c->slots[i].busy)
		i++;
	if (i == REQ_SLOTS || (type == PROTO_FETCH && c->nawait == AHEAD))
		return -EAGAIN; /* a slot frees with its send's completion, the pipeline with an
		                 * answer's end */
	struct proto_req r = {.version = SW_SHUFFLE_VERSION,
	                      .type = type,
	                      .flags = flags,
	                      .job = op->f.job,
	                      .map = op->f.map,
	                      .part = op->f.part,
	                      .offset = op->off,
	                      .length = op->len,
	                      .chunk = c->fc->conf.chunk,
	                      .nonce = c->nonce + 1};
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	r.ts_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	struct slot *s = &c->slots[i];
	sw_shuffle_proto_req_encode(&r, s->buf);
	if (sw_shuffle_proto_mac(op->f.secret, op->f.secret_len, c->challenge, s->buf,
	                         s->buf + PROTO_REQ_MACED) < 0)
		return -EIO;
	struct iovec iov = {s->buf, PROTO_REQ_LEN};
	int err = sw_dp_send(c->ep, 0, &iov, 1, s);
	if (err < 0)
		return err == -ENOTCONN ? -ECONNRESET : err;
	s->busy = true;
	c->nonce++;
	op->nonce = c->nonce;
	if (type == PROTO_FETCH)
		c->await[c->nawait++] = op;
	return 0;
}

static void lease_check(struct fconn *c, struct sw_shuffle_fetch_op *op);

/* The current request's answer is complete (err 0) or failed. */
static void answer_done(struct fconn *c, struct sw_shuffle_fetch_op *op, int err)
{
	struct sw_shuffle_fetcher *fc = c->fc;
	held_release(c);
	c->used = true;
	if (err == -EILSEQ && op->tries < fc->conf.retries) { /* untrustworthy first chunk */
		op->tries++;
		fc->cnt.refetches++;
		op_reset_request(op);
		return;
	}
	if (err < 0) {
		op_finish(op, err);
		return;
	}
	if (op->sub && op->sub_bad) { /* the bad chunk is bad again */
		if (++op->tries >= fc->conf.retries) {
			op_finish(op, -EILSEQ);
			return;
		}
		fc->cnt.refetches++;
		op_reset_request(op);
		return;
	}
	if (op->sub)
		op->bad_i++;
	if (op->bad_i == op->nbad) {
		op_finish(op, 0);
		return;
	}
	/* fetch the next bad chunk again, streamed */
	struct bad b = op->bad[op->bad_i];
	op->sub = true;
	op->off = b.off;
	op->len = b.len;
	op->tries = 0;
	fc->cnt.refetches++;
	op_reset_request(op);
}

static int bad_add(struct sw_shuffle_fetch_op *op, uint64_t off, uint32_t len)
{
	if (op->sub) {
		op->sub_bad = true;
		return 0;
	}
	if (op->nbad == op->capbad) {
		size_t cap = op->capbad ? 2 * op->capbad : 8;
		struct bad *v = realloc(op->bad, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		op->bad = v;
		op->capbad = cap;
	}
	op->bad[op->nbad++] = (struct bad){off, len};
	return 0;
}

/* Logs a chunk that failed its check (CRC32C, decompression or tag) and counts it. */
static void chunk_failed(struct sw_shuffle_fetch_op *op, const struct proto_chunk *h)
{
	op->fc->cnt.crc_failures++;
	sw_shuffle_logf(
	        &op->fc->conf.log,
	        "client: chunk %u of job %llu map %u part %u at %llu from %s failed its CRC32C or "
	        "tag",
	        h->seq, (unsigned long long)op->f.job, op->f.map, op->f.part,
	        (unsigned long long)h->offset, op->server);
}

/* Where the current request's bytes go. */
static uint8_t *req_dst(struct sw_shuffle_fetch_op *op)
{
	return op->buf + (op->off - op->f.offset);
}

/* Starts gets of lease chunks [first, last]. */
static void lease_get(struct fconn *c, struct sw_shuffle_fetch_op *op, uint32_t first,
                      uint32_t last)
{
	const struct proto_rkey *k = &op->k;
	uint8_t *dst = req_dst(op);
	op->st = OP_GETS;
	for (uint32_t i = first; i <= last && op->get_err == 0; i++) {
		uint64_t o = (uint64_t)i * k->chunk;
		size_t n = op->atotal - o < k->chunk ? op->atotal - o : k->chunk;
		int err = sw_dp_get(c->ep, dst + o, n, k->addr + o, k->rkey, k->rkey_len, c);
		if (err == 0)
			c->gets++;
		else
			op->get_err = err == -ENOTCONN ? -ECONNRESET : err;
	}
	if (c->gets == 0) /* none started: nothing will complete */
		lease_check(c, op);
}

/* Every get of the lease completed: checks each chunk's CRC, reads a bad one again. */
static void lease_check(struct fconn *c, struct sw_shuffle_fetch_op *op)
{
	const struct proto_rkey *k = &op->k;
	const uint8_t *dst = req_dst(op);
	if (op->get_err != 0) {
		op->drain = op->get_err;
		op->st = OP_RELEASE;
		return;
	}
	for (; op->lease_i < k->nchunks; op->lease_i++, op->tries = 0) {
		uint32_t i = op->lease_i;
		uint64_t o = (uint64_t)i * k->chunk;
		size_t n = op->atotal - o < k->chunk ? op->atotal - o : k->chunk;
		if (sw_shuffle_proto_crc32c(dst + o, n) == sw_shuffle_proto_rkey_crc(k, i))
			continue;
		op->fc->cnt.crc_failures++;
		if (op->tries++ == op->fc->conf.retries) {
			op->drain = -EILSEQ;
			break;
		}
		op->fc->cnt.refetches++;
		lease_get(c, op, i, i);
		return;
	}
	op->st = OP_RELEASE;
}

/* The oldest unanswered request got its whole answer. */
static void await_pop(struct fconn *c)
{
	memmove(c->await, c->await + 1, --c->nawait * sizeof(c->await[0]));
	if (c->pk > 0)
		c->pk--;
	else
		c->plost = true; /* the transport showed place() no end of it */
}

/* Bytes op's buffer holds from req_dst(op) on; 0 while it has none. */
static uint64_t req_room(const struct sw_shuffle_fetch_op *op)
{
	if (op->buf == NULL)
		return 0;
	if (op->sub)
		return op->len;
	return op->own ? op->total : op->cap;
}

/* sw_dp_ep_set_place()'s callback: the transport has read a frame's 64-byte header and asks
 * where its payload goes. A raw chunk that is the next one of its answer and fits goes straight
 * to its place in the fetch's buffer, sparing the copy out of a receive buffer (a quarter of a
 * 16 MiB fetch's CPU); anything else to a receive buffer. Every frame, placed or not, moves the
 * cursor on; on_frame() checks a placed chunk like any other, in place. */
static void *place(struct sw_dp_ep *ep, uint64_t tag, const void *head, size_t len)
{
	(void)tag;
	struct fconn *c = sw_dp_ep_user(ep);
	struct proto_chunk h;
	if (c == NULL || c->plost)
		return NULL;
	if (sw_shuffle_proto_chunk_decode(head, PROTO_CHUNK_LEN, &h) < 0 || c->pk >= c->nawait ||
	    h.seq != c->pseq) {
		c->plost = true; /* on_recv() fails the connection, or holds the frame */
		return NULL;
	}
	struct sw_shuffle_fetch_op *op = c->await[c->pk];
	uint64_t at = c->pgot;
	c->pseq++;
	if (h.status == PROTO_OK)
		c->pgot += h.raw_len;
	if (h.flags & PROTO_LAST) {
		c->pk++;
		c->pseq = 0;
		c->pgot = 0;
	}
	uint64_t room = req_room(op);
	if (h.status != PROTO_OK || (h.flags & PROTO_RKEY) || h.codec != PROTO_RAW ||
	    h.len != h.raw_len || h.len == 0 || len != PROTO_CHUNK_LEN + (size_t)h.len ||
	    op->st != OP_ANSWER || op->drain != 0 || h.offset != op->off + at || at > room ||
	    h.len > room - at)
		return NULL;
	return req_dst(op) + at;
}

/* op's answer frame h failed (err). At the answer's end that is op's result; before it, the
 * rest of the answer would be taken for the next one's, so the connection goes: the fetches
 * behind op fail with it when the server broke the protocol, else go to a new connection. */
static void frame_failed(struct fconn *c, struct sw_shuffle_fetch_op *op,
                         const struct proto_chunk *h, int err)
{
	if (h->flags & PROTO_LAST) {
		await_pop(c);
		answer_done(c, op, err);
	} else if (conn_fatal(err)) {
		conn_fail(c, err);
	} else {
		op_finish(op, err);
		conn_requeue(c);
	}
}

/* Puts a chunk's bytes where they go, unless the transport placed them there already, and
 * checks a compressed chunk's against its CRC32C. A raw chunk's bytes are the ones its
 * tag covers, which on_frame() checked already and the server took from put time (digests,
 * or bytes it read and checked against put-time CRCs): a CRC pass would check them twice.
 * The tag of a compressed chunk covers what the server compressed at send time, so only the
 * CRC links its bytes to put time. */
static bool chunk_good(struct sw_shuffle_fetch_op *op, const struct proto_chunk *h,
                       const uint8_t *payload)
{
	uint8_t *dst = req_dst(op) + op->got;
	if (payload != dst &&
	    sw_shuffle_proto_unpack(op->fc->z, h->codec, payload, h->len, dst, h->raw_len) < 0)
		return false;
	return h->codec == PROTO_RAW || sw_shuffle_proto_crc32c(dst, h->raw_len) == h->data_crc;
}

/* Handles one frame of the current answer (h decoded, in seq order or an error status). */
static void on_frame(struct fconn *c, struct sw_shuffle_fetch_op *op, struct sw_dp_event *ev,
                     const struct proto_chunk *h)
{
	struct sw_shuffle_fetcher *fc = c->fc;
	const uint8_t *payload =
	        ev->placed != NULL ? ev->placed : (const uint8_t *)ev->data + PROTO_CHUNK_LEN;
	bool authentic =
	        sw_shuffle_proto_chunk_check(fc->g, op->akey, op->nonce, h, payload, h->len) == 0;
	int err = 0;
	if (h->status != PROTO_OK)
		err = authentic || sw_shuffle_proto_status_untagged(h->status)
		              ? sw_shuffle_proto_status_err(h->status)
		              : -EBADMSG;
	else if ((op->seq > 0 && h->total != op->atotal) ||
	         (op->len != SW_SHUFFLE_TO_END && h->total != op->len) ||
	         h->offset != op->off + op->got)
		err = -EBADMSG;
	if (err == 0 && op->seq == 0) {
		op->atotal = h->total;
		if (!op->sub)
			op->total = h->total;
		if (!authentic && !op->sub) { /* a re-fetch's length is known: a bad chunk */
			chunk_failed(op, h);
			op->drain = -EILSEQ;
		} else if (op->sub || !op->own) {
			uint64_t room = op->sub ? op->len : op->cap;
			if (h->total > room)
				op->drain = -ENOBUFS;
		} else if (h->total > fc->conf.max_fetch) {
			op->drain = -EFBIG;
		} else if (h->total > 0 && (op->buf = malloc(h->total)) == NULL) {
			op->drain = -ENOMEM;
		}
	}
	if (err == 0 && (h->flags & PROTO_RKEY)) {
		if (!authentic || !(h->flags & PROTO_LAST) ||
		    sw_shuffle_proto_crc32c(payload, h->len) != h->data_crc ||
		    (op->lease = malloc(h->len ? h->len : 1)) == NULL) {
			err = -EBADMSG;
		} else {
			memcpy(op->lease, payload, h->len);
			if (sw_shuffle_proto_rkey_decode(op->lease, h->len, &op->k) < 0 ||
			    op->k.nchunks != (h->total + op->k.chunk - 1) / op->k.chunk)
				err = -EBADMSG;
		}
		sw_dp_release(fc->ctx, ev);
		if (err < 0) {
			frame_failed(c, op, h, err);
			return;
		}
		await_pop(c);
		op->lease_i = 0;
		op->tries = 0;
		if (op->drain == 0 && op->k.nchunks > 0)
			lease_get(c, op, 0, op->k.nchunks - 1);
		else
			op->st = OP_RELEASE;
		return;
	}
	if (err == 0 && h->raw_len > op->atotal - op->got)
		err = -EBADMSG;
	/* placed: place() put it where this chunk goes, which follows from the same header */
	if (err == 0 && ev->placed != NULL &&
	    (op->drain != 0 || h->codec != PROTO_RAW || op->buf == NULL ||
	     ev->placed != req_dst(op) + op->got))
		err = -EBADMSG;
	/* raw_len > 0 here means the answer has bytes, so its buffer exists */
	if (err == 0 && op->drain == 0 &&
	    (!authentic || (h->raw_len > 0 && !chunk_good(op, h, payload)))) {
		chunk_failed(op, h);
		err = bad_add(op, h->offset, h->raw_len);
	}
	sw_dp_release(fc->ctx, ev);
	if (err < 0) {
		frame_failed(c, op, h, err);
		return;
	}
	op->got += h->raw_len;
	op->seq++;
	if (h->flags & PROTO_LAST) {
		await_pop(c);
		answer_done(c, op, op->got == op->atotal ? op->drain : -EBADMSG);
	}
}

/* Decodes a received frame; delivers it when it is the next of the answer, else holds it. */
static void on_recv(struct fconn *c, struct sw_dp_event *ev)
{
	struct sw_shuffle_fetcher *fc = c->fc;
	if (!c->greeted) { /* the server's hello: its challenge */
		int err = sw_shuffle_proto_hello_decode(ev->data, ev->len, c->challenge);
		sw_dp_release(fc->ctx, ev);
		if (err < 0) {
			conn_fail(c, err == -EPROTONOSUPPORT ? err : -EBADMSG);
			return;
		}
		c->greeted = true;
		return;
	}
	struct sw_shuffle_fetch_op *op = c->nawait > 0 ? c->await[0] : NULL;
	struct proto_chunk h;
	int err = ev->len < PROTO_CHUNK_LEN
	                  ? -EBADMSG
	                  : sw_shuffle_proto_chunk_decode(ev->data, PROTO_CHUNK_LEN, &h);
	if (err == 0 && ev->len != PROTO_CHUNK_LEN + (size_t)h.len)
		err = -EBADMSG;
	if (err == 0 && (op == NULL || op->st != OP_ANSWER || h.seq < op->seq ||
	                 (h.seq > op->seq && h.status == PROTO_OK && c->nheld == MAX_HELD)))
		err = -EBADMSG; /* nothing asked for it, or a sequence no server sends */
	if (err < 0) {
		sw_dp_release(fc->ctx, ev);
		conn_fail(c, -EBADMSG);
		return;
	}
	if (h.seq != op->seq && h.status == PROTO_OK) {
		c->held[c->nheld] = *ev;
		c->held_h[c->nheld++] = h;
		return;
	}
	on_frame(c, op, ev, &h);
	/* frames held for the next turns */
	for (unsigned i = 0;
	     i < c->nheld && c->nawait > 0 && c->await[0] == op && op->st == OP_ANSWER;)
		if (c->held_h[i].seq == op->seq) {
			struct sw_dp_event e = c->held[i];
			struct proto_chunk hh = c->held_h[i];
			c->held[i] = c->held[--c->nheld];
			c->held_h[i] = c->held_h[c->nheld];
			on_frame(c, op, &e, &hh);
			i = 0;
		} else {
			i++;
		}
}

/* Moves c's fetches forward, in order, as far as they go without waiting for the peer: starts
 * them while the pipeline has room and sends what waits to be sent. A fetcher that reads leases
 * runs one fetch at a time (its gets and RELEASE are the connection's only running fetch's). */
static void op_step(struct fconn *c)
{
	struct sw_shuffle_fetcher *fc = c->fc;
	struct sw_shuffle_fetch_op *op = c->head;
	while (c->ep != NULL && c->greeted && op != NULL) {
		struct sw_shuffle_fetch_op *next = op->next;
		int err = 0;
		switch (op->st) {
		case OP_QUEUED:
			if (c->nawait == AHEAD || (fc->conf.one_sided && op != c->head))
				return;
			op->deadline = fc->now + (uint64_t)fc->conf.deadline_ms;
			c->last_ms = fc->now;
			if (sw_shuffle_proto_answer_key_cached(&c->keys, op->f.secret,
			                                       op->f.secret_len, c->challenge,
			                                       op->akey) < 0) {
				op_finish(op, -EIO);
				op = next;
				continue;
			}
			op->off = op->f.offset;
			op->len = op->f.length;
			op_reset_request(op);
			continue;
		case OP_REQUEST: {
			uint8_t flags =
			        (uint8_t)(fc->conf.codec == SW_SHUFFLE_LZ4    ? PROTO_WANT_LZ4
			                  : fc->conf.codec == SW_SHUFFLE_ZSTD ? PROTO_WANT_ZSTD
			                                                      : 0);
			if (fc->conf.one_sided && !op->sub)
				flags |= PROTO_ONE_SIDED;
			err = send_req(c, op, PROTO_FETCH, flags);
			if (err == -EAGAIN)
				return;
			if (err < 0)
				break;
			op->st = OP_ANSWER;
			op = next;
			continue;
		}
		case OP_RELEASE:
			err = send_req(c, op, PROTO_RELEASE, 0);
			if (err == -EAGAIN)
				return;
			if (err < 0)
				break;
			answer_done(c, op, op->drain);
			if (op->st == OP_DONE)
				op = next;
			continue;
		case OP_ANSWER:
		case OP_GETS:
		case OP_DONE:
			op = next;
			continue;
		}
		if (conn_fatal(err)) {
			conn_fail(c, err);
			return;
		}
		op_finish(op, err);
		op = next;
	}
}

static struct fconn *conn_find(struct sw_shuffle_fetcher *fc, const char *server)
{
	for (struct fconn *c = fc->conns; c != NULL; c = c->next)
		if (strcmp(c->server, server) == 0)
			return c;
	return NULL;
}

/* Puts op on its server's connection, opening one when fewer than `parallel` are busy (an idle
 * one is closed to make room), or on the wait list. */
static void conn_start(struct sw_shuffle_fetcher *fc, struct sw_shuffle_fetch_op *op)
{
	struct fconn *c = conn_find(fc, op->server);
	if (c == NULL) {
		unsigned open = 0, busy = 0;
		struct fconn *idle = NULL;
		for (struct fconn *o = fc->conns; o != NULL; o = o->next) {
			open++;
			if (o->head != NULL)
				busy++;
			else
				idle = o;
		}
		if (busy >= fc->conf.parallel) {
			op_append(&fc->wait_head, &fc->wait_tail, op);
			return;
		}
		if (open >= fc->conf.parallel && idle != NULL)
			conn_close(idle);
		if ((c = calloc(1, sizeof(*c))) == NULL) {
			op_finish(op, -ENOMEM);
			return;
		}
		c->fc = fc;
		snprintf(c->server, sizeof(c->server), "%s", op->server);
		for (int i = 0; i < REQ_SLOTS; i++)
			c->slots[i].c = c;
		c->last_ms = fc->now;
		int err = sw_dp_connect(fc->ctx, c->server, &c->ep);
		if (err < 0) {
			free(c);
			op_finish(op, err == -EINVAL ? -EINVAL : -ECONNRESET);
			return;
		}
		sw_dp_ep_set_user(c->ep, c);
		/* raw chunks straight into the fetch's buffer (tcp, ucx, dpdk) */
		sw_dp_ep_set_place(c->ep, PROTO_CHUNK_LEN, place);
		c->next = fc->conns;
		fc->conns = c;
	}
	op->c = c;
	op_append(&c->head, &c->tail, op);
	op_step(c);
}

/* Starts waiting fetches while connection slots are free. */
static void start_waiting(struct sw_shuffle_fetcher *fc)
{
	struct sw_shuffle_fetch_op *w = fc->wait_head;
	fc->wait_head = fc->wait_tail = NULL;
	while (w != NULL) {
		struct sw_shuffle_fetch_op *o = w;
		w = o->next;
		o->next = NULL;
		conn_start(fc, o);
	}
}

/* Calls the done callbacks of finished fetches. */
static void flush_done(struct sw_shuffle_fetcher *fc)
{
	start_waiting(fc);
	while (fc->done_head != NULL) {
		struct sw_shuffle_fetch_op *op = fc->done_head;
		fc->done_head = op->next;
		if (fc->done_head == NULL)
			fc->done_tail = NULL;
		op->done(op->arg, op, op->status, op->buf, op->status == 0 ? op->total : 0);
		free(op);
		start_waiting(fc);
	}
	conn_reap(fc);
}

void sw_shuffle_fetcher_event(struct sw_shuffle_fetcher *fc, struct sw_dp_event *ev)
{
	fc->now = sw_shuffle_mono_ms();
	struct fconn *c;
	switch (ev->type) {
	case SW_DP_EV_SEND: {
		struct slot *s = ev->user;
		s->busy = false;
		c = s->c;
		if (c->ep == NULL)
			break;
		c->last_ms = fc->now;
		if (ev->status < 0)
			conn_fail(c, -ECONNRESET);
		else
			op_step(c); /* a slot is free again */
		break;
	}
	case SW_DP_EV_GET:
		c = ev->user;
		c->gets--;
		if (c->ep == NULL)
			break;
		c->last_ms = fc->now;
		if (c->head != NULL && c->head->st == OP_GETS) {
			if (ev->status < 0 && c->head->get_err == 0)
				c->head->get_err = ev->status;
			if (c->gets == 0) {
				lease_check(c, c->head);
				op_step(c);
			}
		}
		break;
	case SW_DP_EV_RECV:
		c = ev->ep != NULL ? sw_dp_ep_user(ev->ep) : NULL;
		if (c == NULL) {
			sw_dp_release(fc->ctx, ev);
			break;
		}
		c->last_ms = fc->now;
		on_recv(c, ev); /* releases ev (now or once its turn comes) */
		op_step(c);
		break;
	case SW_DP_EV_CLOSED:
		c = ev->ep != NULL ? sw_dp_ep_user(ev->ep) : NULL;
		if (c != NULL)
			conn_fail(c, -ECONNRESET);
		break;
	case SW_DP_EV_ACCEPT: /* the context does not listen */
		sw_dp_ep_close(ev->ep);
		break;
	}
	flush_done(fc);
}

/* When c's running fetches time out: no sign of life for timeout_ms, or the first deadline. */
static uint64_t conn_due(const struct fconn *c)
{
	uint64_t due = c->last_ms + (uint64_t)c->fc->conf.timeout_ms;
	for (const struct sw_shuffle_fetch_op *o = c->head; o != NULL; o = o->next)
		if (o->st != OP_QUEUED && o->deadline < due)
			due = o->deadline;
	return due;
}

int sw_shuffle_fetcher_progress(struct sw_shuffle_fetcher *fc)
{
	fc->now = sw_shuffle_mono_ms();
	for (struct fconn *c = fc->conns, *n; c != NULL; c = n) {
		n = c->next;
		op_step(c); /* credits may have come back in the last poll */
		if (c->head != NULL && fc->now >= conn_due(c))
			conn_fail(c, -ETIMEDOUT);
	}
	flush_done(fc);
	uint64_t next = UINT64_MAX;
	for (struct fconn *c = fc->conns; c != NULL; c = c->next)
		if (c->head != NULL && conn_due(c) < next)
			next = conn_due(c);
	if (next == UINT64_MAX)
		return -1;
	return next <= fc->now ? 0 : (int)(next - fc->now);
}

int sw_shuffle_fetcher_add(struct sw_shuffle_fetcher *fc, const char *server,
                           const struct sw_shuffle_fetch *f, void *buf, size_t cap,
                           sw_shuffle_fetch_done_fn done, void *arg,
                           struct sw_shuffle_fetch_op **out)
{
	if (server == NULL || f == NULL || done == NULL || strlen(server) >= SW_DP_ADDRSTRLEN ||
	    f->secret == NULL)
		return -EINVAL;
	if (f->secret_len < SW_SHUFFLE_SECRET_MIN || f->secret_len > SW_SHUFFLE_SECRET_MAX) {
		sw_shuffle_logf(&fc->conf.log,
		                "client: fetch job %llu map %u part %u from %s: bad secret length",
		                (unsigned long long)f->job, f->map, f->part, server);
		return -EINVAL;
	}
	struct sw_shuffle_fetch_op *op = calloc(1, sizeof(*op));
	if (op == NULL)
		return -ENOMEM;
	op->fc = fc;
	op->f = *f;
	memcpy(op->secret, f->secret, f->secret_len);
	op->f.secret = op->secret;
	snprintf(op->server, sizeof(op->server), "%s", server);
	op->done = done;
	op->arg = arg;
	op->buf = buf;
	op->cap = cap;
	op->own = buf == NULL;
	op->st = OP_QUEUED;
	fc->now = sw_shuffle_mono_ms();
	if (out != NULL)
		*out = op;
	conn_start(fc, op);
	return 0;
}

static void op_free(struct sw_shuffle_fetch_op *op)
{
	free(op->lease);
	free(op->bad);
	if (op->own)
		free(op->buf);
	free(op);
}

void sw_shuffle_fetch_cancel(struct sw_shuffle_fetch_op *op)
{
	if (op == NULL)
		return;
	struct sw_shuffle_fetcher *fc = op->fc;
	struct fconn *c = op->c;
	if (op->st == OP_DONE) {
		op_unlink(&fc->done_head, &fc->done_tail, op);
	} else if (c == NULL) {
		op_unlink(&fc->wait_head, &fc->wait_tail, op);
	} else {
		bool running = op->st != OP_QUEUED;
		op_unlink(&c->head, &c->tail, op);
		if (running) { /* the rest of its answer would arrive: the others go anew */
			op_drop_buf(op, c);
			conn_requeue(c);
		}
	}
	op_free(op);
}

void sw_shuffle_fetcher_dp_config(struct sw_dp_config *dc)
{
	/* the largest answer frame: a compressed chunk of the largest size */
	dc->max_recv = PROTO_CHUNK_LEN + sw_shuffle_proto_pack_bound(SW_SHUFFLE_CHUNK_MAX);
	/* A reducer in the middle of an answer polls for its next bytes before it sleeps: on
	 * tcp the wake-ups cost a fifth of a 1 MiB fetch's rate (dataplane/README.md, "Spinning
	 * before sleeping"). */
	dc->spin_us = 50;
}

int sw_shuffle_fetcher_attach(struct sw_dp_ctx *ctx, const struct sw_shuffle_fetcher_conf *conf,
                              struct sw_shuffle_fetcher **out)
{
	if (ctx == NULL || conf == NULL || conf->chunk > SW_SHUFFLE_CHUNK_MAX ||
	    conf->codec > SW_SHUFFLE_ZSTD)
		return -EINVAL;
	struct sw_shuffle_fetcher *fc = calloc(1, sizeof(*fc));
	if (fc == NULL)
		return -ENOMEM;
	fc->ctx = ctx;
	fc->conf = *conf;
	fc->conf.parallel = conf->parallel ? conf->parallel : SW_SHUFFLE_PARALLEL_DEFAULT;
	fc->conf.retries = conf->retries ? conf->retries : 3;
	fc->conf.timeout_ms = conf->timeout_ms > 0 ? conf->timeout_ms : 10000;
	fc->conf.deadline_ms = conf->deadline_ms > 0 ? conf->deadline_ms : 600000;
	fc->conf.max_fetch = conf->max_fetch ? conf->max_fetch : 1ull << 30;
	/* a lease is of no use to a context that cannot read one-sided */
	fc->conf.one_sided = conf->one_sided && (sw_dp_caps(ctx) & SW_DP_CAP_GET);
	if ((fc->z = sw_shuffle_proto_zctx_new()) == NULL ||
	    (fc->g = sw_shuffle_proto_tag_new()) == NULL) {
		sw_shuffle_fetcher_destroy(fc);
		return -ENOMEM;
	}
	*out = fc;
	return 0;
}

static void ops_free(struct sw_shuffle_fetch_op *op)
{
	while (op != NULL) {
		struct sw_shuffle_fetch_op *n = op->next;
		op_free(op);
		op = n;
	}
}

void sw_shuffle_fetcher_destroy(struct sw_shuffle_fetcher *fc)
{
	if (fc == NULL)
		return;
	while (fc->conns != NULL) {
		struct fconn *c = fc->conns;
		ops_free(c->head);
		c->head = c->tail = NULL;
		for (int i = 0; i < REQ_SLOTS; i++)
			c->slots[i].busy = false; /* the context goes next: no completion comes */
		c->gets = 0;
		conn_close(c);
	}
	while (fc->closed != NULL) {
		struct fconn *c = fc->closed;
		fc->closed = c->next;
		conn_free(c);
	}
	ops_free(fc->wait_head);
	ops_free(fc->done_head);
	sw_shuffle_proto_zctx_free(fc->z);
	sw_shuffle_proto_tag_free(fc->g);
	free(fc);
}

void sw_shuffle_fetcher_counters(const struct sw_shuffle_fetcher *fc,
                                 struct sw_shuffle_counters *out)
{
	*out = fc->cnt;
}
