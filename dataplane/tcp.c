/* SPDX-License-Identifier: MIT */
/*
 * Backend "tcp": non-blocking kernel sockets on one level-triggered epoll set.
 * Wire format: every frame is a 16-byte header {u32 len, u32 type, u64 tag} (little
 * endian) followed by len payload bytes. type 1 carries a message, type 2 returns `tag`
 * credits and has no payload.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dp_impl.h"
#include "spin.h"

enum { FRAME_MSG = 1, FRAME_CREDIT = 2 };

struct frame {
	uint32_t len;
	uint32_t type;
	uint64_t tag;
};

/* Bytes a connection reads into its staging buffer at once; frames larger than what is
 * staged are read straight into their own buffer, so big messages are copied once. */
#define STAGE_SIZE (256u << 10)
/* How many iovecs one sendmsg() gathers across queued frames. */
#define TX_GATHER 64
/* Per connection and progress call, so one busy peer cannot starve the others. */
#define RX_BUDGET (8u << 20)

struct tcp_tx {
	struct tcp_tx *next;
	struct frame credit; /* credits owed to the peer, sent ahead of hdr (iov[0]) */
	struct frame hdr;
	struct iovec iov[2 + SW_DP_MAX_IOV];
	int iovcnt, cur; /* iov[cur..iovcnt) still to send; iov[cur] may be partly sent */
	size_t payload;
	void *user;
	bool ctrl; /* credit grant: no completion event */
};

struct tcp_ep {
	struct sw_dp_ep base;
	int fd;
	bool connecting, want_out;
	struct tcp_tx *txq, *txq_tail;
	char *stage;
	size_t staged, parsed; /* stage[parsed..staged) not yet parsed */
	struct frame rxh;      /* header of the frame being read into body */
	char *body;            /* non-NULL while a large frame is read in place */
	size_t body_got;
	/* The last message was read in place: the next read between frames asks for a header
	 * (and head) alone, since a large frame likely follows and staged bytes of it would be
	 * copied again. */
	bool large;
	/* Non-NULL while a placed frame is read: its bytes from place_head on go here, body holds
	 * the ones before (sw_dp_ep_set_place). */
	char *place;
	size_t place_head;
	/* The peer shut its write side (EOF between frames): nothing more is read, and the
	 * endpoint reports SW_DP_EV_CLOSED only once the application had EOF_TURNS polls with
	 * nothing to send, so a half-closed client still gets its answer. */
	bool rd_eof;
	unsigned eof_idle;
	struct tcp_ep *eof_next;
};

struct tcp_ctx {
	struct sw_dp_ctx base;
	int epfd;
	int lfd;
	int spare;           /* kept open for EMFILE: closed to accept and drop one connection */
	struct tcp_ep *eofs; /* endpoints whose peer shut its write side */
	/* What the last tcp_wait() woke for, handled by the next progress instead of asking
	 * epoll again (one epoll_wait per wakeup, not two); entries of an endpoint released in
	 * between are cleared (data.ptr NULL), since its memory may go before that progress. */
	struct epoll_event woke[64];
	int nwoke;
	bool skipped;        /* the last progress left the kernel unasked (tcp_progress) */
	struct dp_spin spin; /* whether tcp_wait polls a while before it sleeps */
	unsigned bodies;     /* endpoints reading a large frame in place (tcp_wait) */
};

/* Polls an endpoint whose peer half-closed stays open with nothing to send before it closes:
 * the application gets a turn after the last send completed to queue more. */
#define EOF_TURNS 2

static struct tcp_ctx *tctx(struct sw_dp_ctx *c)
{
	return (struct tcp_ctx *)c;
}

static struct tcp_ep *tep(struct sw_dp_ep *e)
{
	return (struct tcp_ep *)e;
}

static int tcp_open(struct sw_dp_ctx *c, const struct sw_dp_config *cfg)
{
	struct tcp_ctx *t = tctx(c);

	t->lfd = -1;
	sw_dp_spin_init(&t->spin, 1000, cfg->spin_us); /* a clock of nanoseconds */
	t->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	return t->epfd < 0 ? -errno : 0;
}

static void tcp_close(struct sw_dp_ctx *c)
{
	struct tcp_ctx *t = tctx(c);

	if (t->lfd >= 0)
		close(t->lfd);
	if (t->spare >= 0)
		close(t->spare);
	close(t->epfd);
}

static int tcp_listen(struct sw_dp_ctx *c)
{
	struct tcp_ctx *t = tctx(c);
	struct sockaddr_in sin = sw_dp_addr_sin(&c->laddr), bound;
	socklen_t blen = sizeof(bound);
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = t};
	int one = 1, fd, err;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)&sin, sizeof(sin)) < 0 || listen(fd, 128) < 0 ||
	    getsockname(fd, (struct sockaddr *)&bound, &blen) < 0 ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	c->laddr = sw_dp_sin_addr(&bound);
	t->lfd = fd;
	return 0;
}

/* Latency matters for shuffle requests and credit grants: no Nagle. Socket buffers are
 * left to the kernel's autotuning (tcp_rmem/tcp_wmem up to 6/4 MiB): a fixed SO_RCVBUF
 * is capped by net.core.rmem_max (208 KiB by default) and switches autotuning off. */
static void tune(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int ep_watch(struct tcp_ep *e, int op, bool out)
{
	struct epoll_event ev = {.events = (e->rd_eof ? 0 : EPOLLIN) | (out ? EPOLLOUT : 0),
	                         .data.ptr = e};

	e->want_out = out;
	return epoll_ctl(tctx(e->base.ctx)->epfd, op, e->fd, &ev) < 0 ? -errno : 0;
}

static int ep_setup(struct tcp_ep *e, int fd)
{
	e->fd = fd;
	e->stage = malloc(STAGE_SIZE);
	if (!e->stage)
		return -ENOMEM;
	tune(fd);
	return ep_watch(e, EPOLL_CTL_ADD, e->connecting);
}

static int tcp_connect(struct sw_dp_ep *ep, const struct sw_dp_addr *to)
{
	struct sockaddr_in sin = sw_dp_addr_sin(to);
	struct tcp_ep *e = tep(ep);
	int fd, rc;

	e->fd = -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (const struct sockaddr *)&sin, sizeof(sin)) < 0 && errno != EINPROGRESS) {
		rc = -errno;
		close(fd);
		return rc;
	}
	e->connecting = true;
	rc = ep_setup(e, fd);
	if (rc < 0) {
		free(e->stage);
		close(fd);
	}
	return rc;
}

/* Fails every queued frame: their buffers are the caller's again. */
static void fail_txq(struct tcp_ep *e, int status)
{
	while (e->txq) {
		struct tcp_tx *tx = e->txq;
		e->txq = tx->next;
		if (!tx->ctrl)
			sw_dp_send_done(&e->base, tx->payload, tx->user, status);
		free(tx);
	}
	e->txq_tail = NULL;
}

static void ep_release(struct tcp_ep *e, int status)
{
	if (e->rd_eof) {
		struct tcp_ep **pp = &tctx(e->base.ctx)->eofs;
		while (*pp != e)
			pp = &(*pp)->eof_next;
		*pp = e->eof_next;
		e->rd_eof = false;
	}
	if (e->fd >= 0) {
		close(e->fd); /* also leaves the epoll set */
		e->fd = -1;
	}
	struct tcp_ctx *t = tctx(e->base.ctx);
	for (int i = 0; i < t->nwoke; i++)
		if (t->woke[i].data.ptr == e)
			t->woke[i].data.ptr = NULL;
	fail_txq(e, status);
	free(e->stage);
	e->stage = NULL;
	if (e->body) {
		sw_dp_rxbuf_free(e->base.ctx, e->body, e->place ? 0 : e->rxh.len);
		e->body = NULL;
		t->bodies--;
	}
}

static void ep_fail(struct tcp_ep *e, int status)
{
	ep_release(e, -ECONNRESET);
	sw_dp_ep_down(&e->base, status);
}

static void tcp_ep_close(struct sw_dp_ep *ep)
{
	ep_release(tep(ep), -ECONNRESET);
}

/* Writes as much of the queue as the socket takes. */
static int flush(struct tcp_ep *e)
{
	while (e->txq) {
		struct iovec iov[TX_GATHER];
		struct msghdr mh = {.msg_iov = iov};
		ssize_t n;

		for (struct tcp_tx *tx = e->txq; tx && mh.msg_iovlen < TX_GATHER; tx = tx->next)
			for (int i = tx->cur; i < tx->iovcnt && mh.msg_iovlen < TX_GATHER; i++)
				iov[mh.msg_iovlen++] = tx->iov[i];
		n = sendmsg(e->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				break;
			return -errno;
		}
		while (n > 0 || (e->txq && e->txq->cur == e->txq->iovcnt)) {
			struct tcp_tx *tx = e->txq;
			struct iovec *v = &tx->iov[tx->cur];
			if (tx->cur < tx->iovcnt) {
				size_t take = (size_t)n < v->iov_len ? (size_t)n : v->iov_len;
				v->iov_base = (char *)v->iov_base + take;
				v->iov_len -= take;
				n -= take;
				if (v->iov_len == 0)
					tx->cur++;
				continue;
			}
			e->txq = tx->next;
			if (!e->txq)
				e->txq_tail = NULL;
			if (!tx->ctrl)
				sw_dp_send_done(&e->base, tx->payload, tx->user, 0);
			free(tx);
			e->eof_idle = 0;
		}
	}
	if (!!e->txq != e->want_out)
		return ep_watch(e, EPOLL_CTL_MOD, !!e->txq);
	return 0;
}

static void ep_readable(struct tcp_ep *e);

/* A send failed: the peer is gone. What it sent before it went (often a last message saying
 * why) is still in the socket: deliver that first, then the failure. */
static void ep_send_failed(struct tcp_ep *e)
{
	ep_readable(e);
	if (e->fd >= 0)
		ep_fail(e, -ECONNRESET);
}

static int queue(struct tcp_ep *e, struct tcp_tx *tx)
{
	int rc;

	if (e->txq_tail)
		e->txq_tail->next = tx;
	else
		e->txq = tx;
	e->txq_tail = tx;
	if (e->connecting)
		return 0;
	rc = flush(e);
	if (rc < 0)
		ep_send_failed(e);
	return 0; /* the failure reaches the caller as events */
}

static void frame_set(struct frame *f, uint32_t type, uint64_t tag, uint32_t len)
{
	f->len = htole32(len);
	f->type = htole32(type);
	f->tag = htole64(tag);
}

/* A frame to send; with `grant` credits, a credit frame goes ahead of it in the same write. */
static struct tcp_tx *tx_new(uint32_t type, uint64_t tag, uint32_t len, uint32_t grant)
{
	struct tcp_tx *tx = calloc(1, sizeof(*tx));

	if (!tx)
		return NULL;
	if (grant) {
		frame_set(&tx->credit, FRAME_CREDIT, grant, 0);
		tx->iov[tx->iovcnt++] = (struct iovec){&tx->credit, sizeof(tx->credit)};
	}
	frame_set(&tx->hdr, type, tag, len);
	tx->iov[tx->iovcnt++] = (struct iovec){&tx->hdr, sizeof(tx->hdr)};
	tx->payload = len;
	return tx;
}

static int tcp_send(struct sw_dp_ep *ep, uint64_t tag, const struct iovec *iov, int iovcnt,
                    void *user, uint32_t grant)
{
	struct tcp_ep *e = tep(ep);
	size_t len = 0;
	struct tcp_tx *tx;

	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	tx = tx_new(FRAME_MSG, tag, (uint32_t)len, grant);
	if (!tx)
		return -ENOMEM;
	for (int i = 0; i < iovcnt; i++)
		if (iov[i].iov_len)
			tx->iov[tx->iovcnt++] = iov[i];
	tx->user = user;
	return queue(e, tx);
}

static int tcp_grant(struct sw_dp_ep *ep, uint32_t n)
{
	struct tcp_tx *tx = tx_new(FRAME_CREDIT, n, 0, 0);

	if (!tx)
		return -ENOMEM;
	tx->ctrl = true;
	return queue(tep(ep), tx);
}

static int tcp_mem_reg(struct sw_dp_ctx *c, struct sw_dp_mr *mr)
{
	(void)c;
	(void)mr; /* nothing to pin: the tcp backend has no one-sided access */
	return 0;
}

static void tcp_mem_dereg(struct sw_dp_ctx *c, struct sw_dp_mr *mr)
{
	(void)c;
	(void)mr;
}

/* A whole frame has arrived: data (len bytes) is a receive buffer, or NULL when len 0; or, when
 * placed, data holds the first place_head bytes and placed the rest. On failure the buffer is
 * freed. */
static int deliver(struct tcp_ep *e, const struct frame *h, void *data, void *placed)
{
	int rc;

	if (h->type == FRAME_CREDIT)
		rc = h->tag > UINT32_MAX ? -EPROTO
		                         : sw_dp_credit_arrived(&e->base, (uint32_t)h->tag);
	else
		rc = sw_dp_push_placed(&e->base, h->tag, data, h->len, placed);
	if (rc < 0)
		sw_dp_rxbuf_free(e->base.ctx, data, placed ? 0 : h->len);
	return rc;
}

/* Bytes a frame's header must have behind it in the stage before it is parsed: with placement,
 * the head the application decides by. */
static size_t head_want(const struct tcp_ep *e, const struct frame *h)
{
	return h->type == FRAME_MSG && e->base.place && h->len >= e->base.place_head
	               ? e->base.place_head
	               : 0;
}

/* Where the frame being read takes its byte `off`. */
static char *body_at(const struct tcp_ep *e, size_t off)
{
	return e->place ? e->place + (off - e->place_head) : e->body + off;
}

/* Parses staged bytes into frames. Returns 0, or -EPROTO / -EMSGSIZE / -ENOMEM. */
static int parse(struct tcp_ep *e)
{
	struct sw_dp_ctx *c = e->base.ctx;

	while (e->staged - e->parsed >= sizeof(struct frame)) {
		struct frame h;
		size_t avail, head;
		void *buf, *placed = NULL;
		const char *src;

		memcpy(&h, e->stage + e->parsed, sizeof(h));
		h.len = le32toh(h.len);
		h.type = le32toh(h.type);
		h.tag = le64toh(h.tag);
		if ((h.type != FRAME_MSG && h.type != FRAME_CREDIT) ||
		    (h.type == FRAME_CREDIT && h.len))
			return -EPROTO;
		if (h.len > c->cfg.max_recv)
			return -EMSGSIZE; /* refused before any allocation */
		if (h.type == FRAME_MSG && sw_dp_rx_full(&e->base, 0))
			return -EPROTO;
		avail = e->staged - e->parsed - sizeof(h);
		head = head_want(e, &h);
		if (avail < head)
			break; /* the application decides where it goes by its head */
		src = e->stage + e->parsed + sizeof(h);
		if (head) /* told of every message that has a head, to follow their order */
			placed = e->base.place(&e->base, h.tag, src, h.len);
		if (h.len == head)
			placed = NULL; /* nothing to place */
		buf = sw_dp_rxbuf_alloc(c, placed ? head : h.len);
		if (h.len && !buf)
			return -ENOMEM;
		e->parsed += sizeof(h);
		if (placed) {
			memcpy(buf, src, head);
			e->parsed += head;
			src += head;
			avail -= head;
			e->place = placed;
			e->place_head = head;
		} else {
			head = 0;
		}
		bool rest = avail < h.len - head;
		if (h.type == FRAME_MSG)
			e->large = rest;
		if (rest) {
			/* The rest is read straight into buf, or where it is placed. */
			e->rxh = h;
			e->body = buf;
			tctx(c)->bodies++;
			e->body_got = head + avail;
			memcpy(body_at(e, head), src, avail);
			e->parsed = e->staged = 0;
			return 0;
		}
		e->place = NULL;
		if (h.len > head)
			memcpy(placed ? placed : (char *)buf, src, h.len - head);
		e->parsed += h.len - head;
		int rc = deliver(e, &h, buf, placed);
		if (rc < 0)
			return rc;
	}
	/* Keep a partial header at the front. */
	memmove(e->stage, e->stage + e->parsed, e->staged - e->parsed);
	e->staged -= e->parsed;
	e->parsed = 0;
	return 0;
}

/* Bytes to read between frames when a large one likely comes next: its header and the head it
 * is placed by, and room for a credit frame riding ahead of it (tx_new). */
static size_t next_want(const struct tcp_ep *e)
{
	return 2 * sizeof(struct frame) + (e->base.place ? e->base.place_head : 0);
}

/* Reads until the socket is empty or the budget is spent. */
static void ep_readable(struct tcp_ep *e)
{
	size_t budget = RX_BUDGET;

	if (e->rd_eof)
		return; /* nothing more comes */
	while (budget && e->fd >= 0) {
		size_t asked;
		ssize_t n;
		int rc = 0;

		if (e->body) {
			/* The rest of a large frame plus the next header (and the head it is
			 * placed by), no more: if the next frame is large too, it goes straight
			 * into its own buffer or its place. */
			size_t next = next_want(e);
			struct iovec v[2] = {
			        {body_at(e, e->body_got), e->rxh.len - e->body_got},
			        {e->stage + e->staged, next > e->staged ? next - e->staged : 0},
			};
			asked = v[0].iov_len + v[1].iov_len;
			n = readv(e->fd, v, 2);
		} else {
			size_t next = next_want(e);
			asked = e->large && e->staged < next ? next - e->staged
			                                     : STAGE_SIZE - e->staged;
			n = recv(e->fd, e->stage + e->staged, asked, 0);
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n == 0 && !e->body && e->staged == 0) {
			/* EOF between frames: the peer shut its write side, and may still
			 * read what this side answers (eof_turns()). */
			e->rd_eof = true;
			e->eof_idle = 0;
			e->eof_next = tctx(e->base.ctx)->eofs;
			tctx(e->base.ctx)->eofs = e;
			if (ep_watch(e, EPOLL_CTL_MOD, !!e->txq) < 0)
				ep_fail(e, -ECONNRESET);
			return;
		}
		if (n < 0 && errno == ECONNRESET && !e->body && e->staged == 0 && !e->txq) {
			/* A reset between frames with nothing to send: the peer left, as a peer
			 * that closes with unread bytes (a credit grant still on its way) does;
			 * nothing was lost, so it ends like an EOF, not as a failure. */
			ep_fail(e, 0);
			return;
		}
		if (n <= 0) { /* EOF mid-frame or an error: the peer broke off */
			ep_fail(e, -ECONNRESET);
			return;
		}
		budget -= (size_t)n < budget ? (size_t)n : budget;
		if (e->body) {
			size_t want = e->rxh.len - e->body_got;
			size_t take = (size_t)n < want ? (size_t)n : want;
			e->body_got += take;
			e->staged += n - take;
			if (e->body_got == e->rxh.len) {
				void *b = e->body;
				void *placed = e->place;
				e->body = e->place = NULL;
				tctx(e->base.ctx)->bodies--;
				rc = deliver(e, &e->rxh, b, placed);
				if (rc == 0)
					rc = parse(e);
			}
		} else {
			e->staged += n;
			rc = parse(e);
		}
		if (rc < 0) {
			ep_fail(e, rc);
			return;
		}
		/* Less than asked for: the socket is empty (a recv more would only say EAGAIN,
		 * a syscall per message), and level-triggered epoll reports what comes next. */
		if ((size_t)n < asked)
			return;
	}
}

static void ep_writable(struct tcp_ep *e)
{
	if (e->connecting) {
		int err = 0;
		socklen_t l = sizeof(err);
		getsockopt(e->fd, SOL_SOCKET, SO_ERROR, &err, &l);
		if (err) {
			ep_fail(e, -err);
			return;
		}
		e->connecting = false;
	}
	if (flush(e) < 0)
		ep_send_failed(e);
}

static void accept_all(struct tcp_ctx *t)
{
	for (;;) {
		struct sockaddr_in sa;
		struct sw_dp_addr peer;
		socklen_t l = sizeof(sa);
		struct sw_dp_event ev = {.type = SW_DP_EV_ACCEPT};
		struct sw_dp_ep *ep;
		int fd = accept4(t->lfd, (struct sockaddr *)&sa, &l, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && t->spare >= 0) {
			/* Out of descriptors: left pending, the connection would keep the
			 * level-triggered listener readable and every wait returning at once. Take
			 * it with the spare descriptor and drop it (libuv's way); established
			 * connections go on being served. */
			close(t->spare);
			fd = accept4(t->lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				close(fd);
				t->base.closed.accepts_dropped++;
			}
			t->spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
			if (fd >= 0)
				continue;
		}
		if (fd < 0)
			return;
		ep = sw_dp_ep_new(&t->base);
		if (!ep) {
			close(fd);
			continue;
		}
		if (ep_setup(tep(ep), fd) < 0) {
			sw_dp_ep_close(ep); /* never reported, so dropped quietly; closes fd */
			continue;
		}
		peer = sw_dp_sin_addr(&sa);
		sw_dp_addr_format(&peer, ep->peer, sizeof(ep->peer));
		ev.ep = ep;
		sw_dp_push(&t->base, &ev);
	}
}

/* Closes half-closed endpoints that had EOF_TURNS polls with nothing to send. */
static void eof_turns(struct tcp_ctx *t)
{
	for (struct tcp_ep *e = t->eofs, *next; e; e = next) {
		next = e->eof_next;
		if (e->txq)
			e->eof_idle = 0;
		else if (++e->eof_idle >= EOF_TURNS)
			ep_fail(e, 0); /* unlinks it */
	}
}

static int tcp_progress(struct sw_dp_ctx *c)
{
	struct tcp_ctx *t = tctx(c);
	struct epoll_event evs[64];
	int n = t->nwoke;

	if (n > 0) {
		/* The wait asked the kernel for these: the next poll may skip it again. */
		memcpy(evs, t->woke, (size_t)n * sizeof(evs[0]));
		t->skipped = false;
	} else if (c->evq.n > 0 && !t->skipped) {
		/* Events wait already (a send that completed in the call that made it): they go
		 * first, and the kernel is asked at the next poll, since a peer's answer to what
		 * was just sent is not there yet. Never twice in a row, so a caller whose every
		 * batch queues more events still reads its sockets. */
		t->skipped = true;
	} else {
		t->skipped = false;
		n = epoll_wait(t->epfd, evs, 64, 0);
	}
	t->nwoke = 0;
	if (n < 0)
		return errno == EINTR ? 0 : -EIO;
	for (int i = 0; i < n; i++) {
		struct tcp_ep *e = evs[i].data.ptr;
		if (evs[i].data.ptr == t) {
			accept_all(t);
			continue;
		}
		/* An earlier event of this batch, or the application since the wait, may have
		 * failed or closed the endpoint. */
		if (e == NULL || e->fd < 0)
			continue;
		if (evs[i].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
			ep_writable(e);
		if (e->fd >= 0 && e->rd_eof && (evs[i].events & (EPOLLERR | EPOLLHUP)))
			ep_fail(e, e->txq ? -ECONNRESET : 0); /* gone both ways now */
		else if (e->fd >= 0 && (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
			ep_readable(e);
	}
	eof_turns(t);
	return 0;
}

/* Asks epoll again and again for the spin's time (spin.h). Returns what it reported (events
 * in t->woke, or an error), or 0 when the spin ran out or lost its core. */
static int tcp_spin(struct tcp_ctx *t)
{
	uint64_t start = sw_dp_now_ns(), last = start;

	for (;;) {
		int n = epoll_wait(t->epfd, t->woke, 64, 0);
		if (n > 0)
			sw_dp_spin_hit(&t->spin);
		if (n != 0)
			return n;
		uint64_t now = sw_dp_now_ns();
		if (now - last > 1000u * SW_DP_SPIN_PREEMPTED_US || now - start > t->spin.ticks) {
			sw_dp_spin_missed(&t->spin);
			return 0;
		}
		last = now;
	}
}

static int tcp_wait(struct sw_dp_ctx *c, int timeout_ms)
{
	struct tcp_ctx *t = tctx(c);
	int n = 0;

	/* a half-closed endpoint with nothing to send closes within EOF_TURNS polls */
	for (struct tcp_ep *e = t->eofs; e; e = e->eof_next)
		if (!e->txq)
			return 0;
	if (t->nwoke > 0)
		return 0;
	/* Only in the middle of a large frame, whose sender is writing its next bytes: waiting
	 * for an answer, the spin ran out while the peer woke and worked, and its backoff then
	 * left both ends asleep (64 KiB fetches: 58-63 us against 18-23 without a spin, when the
	 * cores are awake). And not when it only looks (timeout 0). */
	if (timeout_ms != 0 && t->bodies > 0 && sw_dp_spin_now(&t->spin))
		n = tcp_spin(t);
	if (n == 0)
		n = epoll_wait(t->epfd, t->woke, 64, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -EIO;
	t->nwoke = n;
	return n ? 0 : -ETIMEDOUT;
}

static int tcp_fd(struct sw_dp_ctx *c)
{
	return tctx(c)->epfd;
}

static void tcp_describe(const struct sw_dp_ep *ep, FILE *out)
{
	const struct tcp_ep *e = (const struct tcp_ep *)ep;
	struct sockaddr_in sa;
	socklen_t l = sizeof(sa);
	char local[SW_DP_ADDRSTRLEN] = "?";

	if (getsockname(e->fd, (struct sockaddr *)&sa, &l) == 0) {
		struct sw_dp_addr a = sw_dp_sin_addr(&sa);
		sw_dp_addr_format(&a, local, sizeof(local));
	}
	fprintf(out, "tcp endpoint %s -> %s (kernel socket %d)\n", local, ep->peer, e->fd);
}

const struct dp_ops sw_dp_tcp_ops = {
        .name = "tcp",
        .caps = SW_DP_CAP_FD,
        .ctx_size = sizeof(struct tcp_ctx),
        .ep_size = sizeof(struct tcp_ep),
        .grant_with_send = true,
        .place_max = DP_POOL_BUF,
        .open = tcp_open,
        .close = tcp_close,
        .listen = tcp_listen,
        .connect = tcp_connect,
        .ep_close = tcp_ep_close,
        .send = tcp_send,
        .grant = tcp_grant,
        .mem_reg = tcp_mem_reg,
        .mem_dereg = tcp_mem_dereg,
        .get = NULL,
        .progress = tcp_progress,
        .wait = tcp_wait,
        .fd = tcp_fd,
        .describe = tcp_describe,
};
