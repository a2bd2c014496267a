/* SPDX-License-Identifier: MIT */
/*
 * Output replicas: a reduce puts a copy of its output on other agents, as HDFS writes a block's
 * replicas. A put is a run of PUT messages (header + up to SW_AGENT_PUT_CHUNK bytes) over the
 * agent's own dp context to the target's replica_listen address, each authenticated with
 * HMAC-SHA256 under the cluster key (every agent holds it; job secrets are only given to the
 * agents running the job). The target writes each chunk at its offset into
 * data_dir/replicas/job-J.reduce-T.attempt-A.part, and on the last one fsyncs it and renames it
 * to job-J.reduce-T; it answers every chunk with an ACK (its status), so the sender sees
 * progress and gives up on a target silent for put_idle_ms. The target keeps no state per put
 * in memory: all of it is in the file. Byte layout in
 * agent/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "agent_int.h"
#include "replica.h"

/* ---------------------------------------------------------------------------------------- */
/* Target side */

/* An ACK in flight; frees itself when its send completes. */
struct ack {
	struct sw_agent_peer peer;
	uint8_t b[SW_AGENT_ACK_LEN];
};

static void ack_sent(struct sw_agent *ag, struct sw_agent_peer *p, struct sw_dp_event *ev)
{
	(void)ag;
	(void)ev;
	free(container_of(p, struct ack, peer));
}

static void send_ack(struct sw_agent *ag, struct sw_dp_ep *ep, const struct sw_agent_put_hdr *h,
                     int status)
{
	struct ack *a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->peer.on_event = ack_sent;
	sw_agent_ack_encode(h, status, a->b);
	struct iovec iov = {a->b, sizeof(a->b)};
	int rc = sw_dp_send(ep, SW_AGENT_TAG_ACK, &iov, 1, &a->peer);
	if (rc) {
		sw_agent_log(ag, "replica ack: %s", sw_dp_strerror(rc));
		free(a);
	}
}

/* An accepted replica connection, on the agent's list. It outlives its endpoint while chunks
 * it received are still being written (each holds its message, and with it a credit). */
struct sw_agent_replica_conn {
	struct sw_agent_peer peer;
	struct sw_agent_replica_conn *next;
	struct sw_dp_ep *ep; /* NULL once closed */
	uint32_t writing;    /* chunks on the writer thread */
	char addr[SW_DP_ADDRSTRLEN];
};

/* A received chunk on its way to the disk. */
struct chunk {
	struct sw_agent_disk_op op;
	struct sw_agent *ag;
	struct sw_agent_replica_conn *c;
	struct sw_dp_event ev; /* the message, released once written */
	struct sw_agent_put_hdr h;
};

/* Frees c once it is closed and no chunk of it is on the writer thread. */
static void conn_free_if_done(struct sw_agent *ag, struct sw_agent_replica_conn *c)
{
	if (c->ep || c->writing)
		return;
	struct sw_agent_replica_conn **pp = &ag->replica_conn_list;
	while (*pp != c)
		pp = &(*pp)->next;
	*pp = c->next;
	free(c);
}

static void conn_close(struct sw_agent *ag, struct sw_agent_replica_conn *c)
{
	sw_dp_ep_close(c->ep);
	c->ep = NULL;
	ag->replica_conns--;
	conn_free_if_done(ag, c);
}

void sw_agent_replica_conns_close(struct sw_agent *ag)
{
	/* the writer thread has stopped: every chunk it held is released, so all are open */
	while (ag->replica_conn_list)
		conn_close(ag, ag->replica_conn_list);
}

/* Writes one authenticated chunk, on the writer thread; 0 or -errno. */
static int store_chunk(struct sw_agent_disk_op *op)
{
	struct chunk *ch = container_of(op, struct chunk, op);
	const struct sw_agent_put_hdr *h = &ch->h;
	const uint8_t *data = (const uint8_t *)ch->ev.data + SW_AGENT_PUT_HDR_LEN;
	char name[PATH_MAX + 128], part[PATH_MAX + 160];
	snprintf(name, sizeof(name), "%s/replicas/job-%llu.reduce-%u", ch->ag->conf.data_dir,
	         (unsigned long long)h->job, h->task);
	snprintf(part, sizeof(part), "%s.attempt-%u.part", name, h->attempt);
	int fd = open(part, O_WRONLY | O_CLOEXEC | (h->offset == 0 ? O_CREAT | O_TRUNC : 0), 0600);
	if (fd < 0)
		return -errno;
	int rc = 0;
	for (size_t off = 0; !rc && off < h->len;) {
		ssize_t n = pwrite(fd, data + off, h->len - off, (off_t)(h->offset + off));
		if (n < 0 && errno != EINTR)
			rc = -errno;
		else if (n > 0)
			off += (size_t)n;
	}
	/* writeback starts now, so the last chunk's fsync does not wait for the whole file */
	if (!rc)
		sync_file_range(fd, (off_t)h->offset, (off_t)h->len, SYNC_FILE_RANGE_WRITE);
	struct stat st;
	if (!rc && h->last) {
		if (fstat(fd, &st))
			rc = -errno;
		else if ((uint64_t)st.st_size != h->total)
			rc = -EPROTO; /* a chunk is missing */
		else if (fsync(fd))
			rc = -errno;
	}
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && h->last && rename(part, name))
		rc = -errno;
	if (rc && (h->last || h->offset == 0))
		unlink(part);
	return rc;
}

/* A chunk was written (or the agent stops): counted, acknowledged, its message released. */
static void chunk_stored(struct sw_agent *ag, struct sw_agent_disk_op *op, int rc)
{
	struct chunk *ch = container_of(op, struct chunk, op);
	struct sw_agent_replica_conn *c = ch->c;
	const struct sw_agent_put_hdr *h = &ch->h;
	if (rc && rc != -ECANCELED) {
		ag->cnt.replica_refused++;
		sw_agent_log(ag, "replica put from %s: job %llu reduce %u bytes %llu+%u: %s",
		             c->addr, (unsigned long long)h->job, h->task,
		             (unsigned long long)h->offset, h->len, strerror(-rc));
	} else if (!rc) {
		ag->cnt.replica_bytes_in += h->len;
		sw_agent_rx_add(ag, h->rack, h->len);
	}
	if (c->ep)
		send_ack(ag, c->ep, h, rc);
	sw_dp_release(ag->dp, &ch->ev);
	free(ch);
	c->writing--;
	conn_free_if_done(ag, c);
}

static void serve_put(struct sw_agent *ag, struct sw_agent_replica_conn *c, struct sw_dp_event *ev)
{
	struct sw_agent_put_hdr h = {0};
	const char *why = NULL;
	int rc = ev->tag == SW_AGENT_TAG_PUT ? sw_agent_put_decode(ev->data, ev->len, &h, &why)
	                                     : (why = "not a replica put", -EBADMSG);
	const uint8_t *data = (const uint8_t *)ev->data + SW_AGENT_PUT_HDR_LEN;
	if (!rc) {
		uint8_t mac[SW_AGENT_PUT_MAC_LEN];
		rc = sw_agent_put_mac(ag->key, ag->key_len, ev->data, data, h.len, mac);
		if (!rc && CRYPTO_memcmp(mac, (const uint8_t *)ev->data + SW_AGENT_PUT_MACED,
		                         SW_AGENT_PUT_MAC_LEN))
			rc = -EACCES, why = "wrong HMAC (not the cluster key)";
	}
	struct chunk *ch = rc ? NULL : calloc(1, sizeof(*ch));
	if (!ch) {
		ag->cnt.replica_refused++;
		sw_agent_log(ag, "replica put from %s refused: %s; closing the connection", c->addr,
		             why ? why : "out of memory");
		sw_dp_release(ag->dp, ev);
		conn_close(ag, c); /* an unauthenticated peer gets nothing more */
		return;
	}
	*ch = (struct chunk){.op = {.run = store_chunk, .done = chunk_stored},
	                     .ag = ag,
	                     .c = c,
	                     .ev = *ev,
	                     .h = h};
	c->writing++;
	sw_agent_disk_queue(ag, &ch->op);
}

static void conn_event(struct sw_agent *ag, struct sw_agent_peer *p, struct sw_dp_event *ev)
{
	struct sw_agent_replica_conn *c = container_of(p, struct sw_agent_replica_conn, peer);
	switch (ev->type) {
	case SW_DP_EV_RECV:
		serve_put(ag, c, ev);
		break;
	case SW_DP_EV_CLOSED:
		if (ev->status) { /* a frame too large or malformed, or a peer gone mid-frame */
			ag->cnt.replica_refused += ev->status != -ECONNRESET;
			sw_agent_log(ag, "replica connection from %s closed: %s", c->addr,
			             sw_dp_strerror(ev->status));
		}
		conn_close(ag, c);
		break;
	default:
		break;
	}
}

/* The listener's peer: each accepted connection gets a struct sw_agent_replica_conn. */
static void replica_server_event(struct sw_agent *ag, struct sw_agent_peer *p,
                                 struct sw_dp_event *ev)
{
	(void)p;
	if (ev->type != SW_DP_EV_ACCEPT)
		return;
	struct sw_agent_replica_conn *c = NULL;
	if (ag->replica_conns >= SW_AGENT_REPLICA_CONNS)
		sw_agent_log(ag, "replica listener: more than %d connections, refusing one",
		             SW_AGENT_REPLICA_CONNS);
	else if (!(c = calloc(1, sizeof(*c))))
		sw_agent_log(ag, "replica listener: out of memory, refusing a connection");
	if (!c) {
		sw_dp_ep_close(ev->ep);
		return;
	}
	ag->replica_conns++;
	c->next = ag->replica_conn_list;
	ag->replica_conn_list = c;
	c->peer.on_event = conn_event;
	c->ep = ev->ep;
	sw_dp_ep_peer(ev->ep, c->addr, sizeof(c->addr));
	sw_dp_ep_set_user(ev->ep, &c->peer);
}

struct sw_agent_peer sw_agent_replica_server = {replica_server_event};

/* ---------------------------------------------------------------------------------------- */
/* Sender side */

struct sw_agent_put {
	struct sw_agent_peer peer;
	struct sw_agent *ag;
	struct sw_agent_put *next;
	struct sw_dp_ep *ep;
	struct sw_agent_put_hdr h; /* of the next chunk */
	const uint8_t *data;
	uint8_t (*hdrs)[SW_AGENT_PUT_HDR_LEN]; /* one per chunk, kept until sent */
	uint64_t nchunks, next_chunk, acked;
	struct sw_agent_watch idle; /* fails the put when no ACK comes for put_idle_ms */
	sw_agent_put_done_fn done;
	void *arg;
	char addr[SW_DP_ADDRSTRLEN];
};

/* Takes put off the agent's list and closes its connection. */
static void put_unlink(struct sw_agent_put *put)
{
	struct sw_agent_put **pp = &put->ag->puts;
	while (*pp != put)
		pp = &(*pp)->next;
	*pp = put->next;
	sw_dp_ep_close(put->ep); /* drops unsent chunks: their buffers are not touched again */
	sw_agent_watch_close(put->ag, &put->idle);
}

static void put_free(struct sw_agent_put *put)
{
	free(put->hdrs);
	free(put);
}

static void put_finish(struct sw_agent_put *put, int status)
{
	sw_agent_put_done_fn done = put->done;
	void *arg = put->arg;
	if (status)
		sw_agent_log(put->ag, "replica put of job %llu reduce %u to %s: %s",
		             (unsigned long long)put->h.job, put->h.task, put->addr,
		             sw_dp_strerror(status));
	put_unlink(put);
	done(arg, put, status);
	put_free(put);
}

static void put_event(struct sw_agent *ag, struct sw_agent_peer *p, struct sw_dp_event *ev)
{
	struct sw_agent_put *put = container_of(p, struct sw_agent_put, peer);
	int status;
	switch (ev->type) {
	case SW_DP_EV_RECV:
		if (ev->tag != SW_AGENT_TAG_ACK ||
		    sw_agent_ack_decode(ev->data, ev->len, &put->h, &status))
			status = -EPROTO;
		sw_dp_release(ag->dp, ev);
		if (status == 0 && ++put->acked > put->next_chunk)
			status = -EPROTO; /* acknowledges a chunk not sent */
		if (status || put->acked == put->nchunks)
			put_finish(put, status);
		else
			sw_agent_timer_start(ag, &put->idle, ag->put_idle_ms);
		break;
	case SW_DP_EV_CLOSED:
		put_finish(put, ev->status ? ev->status : -ECONNRESET);
		break;
	default:
		break;
	}
}

static void put_idle(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	put_finish(container_of(w, struct sw_agent_put, idle), -ETIMEDOUT);
}

int sw_agent_put_start(struct sw_agent *ag, const char *addr, uint64_t job, uint32_t task,
                       uint32_t attempt, const uint8_t *data, uint64_t len,
                       sw_agent_put_done_fn done, void *arg, struct sw_agent_put **out)
{
	if (len > SW_AGENT_PUT_MAX)
		return -EMSGSIZE;
	struct sw_agent_put *put = calloc(1, sizeof(*put));
	if (!put)
		return -ENOMEM;
	put->nchunks = len ? (len + SW_AGENT_PUT_CHUNK - 1) / SW_AGENT_PUT_CHUNK : 1;
	put->hdrs = calloc(put->nchunks, SW_AGENT_PUT_HDR_LEN);
	int rc = put->hdrs ? sw_dp_connect(ag->dp, addr, &put->ep) : -ENOMEM;
	if (rc) {
		free(put->hdrs);
		free(put);
		return rc;
	}
	put->peer.on_event = put_event;
	put->idle.fd = -1;
	put->idle.fn = put_idle;
	rc = sw_agent_timer_start(ag, &put->idle, ag->put_idle_ms);
	if (rc) {
		sw_dp_ep_close(put->ep);
		free(put->hdrs);
		free(put);
		return rc;
	}
	put->ag = ag;
	put->data = data;
	put->done = done;
	put->arg = arg;
	snprintf(put->addr, sizeof(put->addr), "%s", addr);
	put->h = (struct sw_agent_put_hdr){
	        .job = job, .task = task, .attempt = attempt, .total = len, .rack = ag->conf.rack};
	sw_dp_ep_set_user(put->ep, &put->peer);
	put->next = ag->puts;
	ag->puts = put;
	*out = put;
	return 0;
}

void sw_agent_put_cancel(struct sw_agent_put *put)
{
	put_unlink(put);
	put_free(put);
}

/* Sends the next chunks of put until its credits run out. */
static int put_pump(struct sw_agent_put *put)
{
	struct sw_agent *ag = put->ag;
	/* a window below the credits: the target's ACKs then always find a credit, even while
	 * this agent's loop is busy and releases them late */
	while (put->next_chunk < put->nchunks &&
	       put->next_chunk - put->acked < SW_AGENT_PUT_WINDOW) {
		struct sw_agent_put_hdr *h = &put->h;
		uint8_t *hb = put->hdrs[put->next_chunk];
		h->offset = put->next_chunk * SW_AGENT_PUT_CHUNK;
		h->len = (uint32_t)(h->total - h->offset < SW_AGENT_PUT_CHUNK ? h->total - h->offset
		                                                              : SW_AGENT_PUT_CHUNK);
		h->last = put->next_chunk + 1 == put->nchunks;
		sw_agent_put_encode(h, hb);
		int rc = sw_agent_put_mac(ag->key, ag->key_len, hb, put->data + h->offset, h->len,
		                          hb + SW_AGENT_PUT_MACED);
		struct iovec iov[2] = {{hb, SW_AGENT_PUT_HDR_LEN},
		                       {(void *)(put->data + h->offset), h->len}};
		if (!rc)
			rc = sw_dp_send(put->ep, SW_AGENT_TAG_PUT, iov, 2, NULL);
		if (rc == -EAGAIN)
			return 0;
		if (rc)
			return rc;
		put->next_chunk++;
	}
	return 0;
}

void sw_agent_puts_pump(struct sw_agent *ag)
{
	/* a finished put may end its task, which cancels that task's other puts: start over */
again:
	for (struct sw_agent_put *put = ag->puts; put; put = put->next) {
		int rc = put_pump(put);
		if (rc) {
			put_finish(put, rc);
			goto again;
		}
	}
}
