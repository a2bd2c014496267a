/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the server's request dispatch as a whole: a real server on a real tcp
 * context, over a real store holding two jobs (in-memory, empty and spilled partitions), is
 * sent the input as requests by a client played by this harness. So request decoding, the
 * MAC and replay checks, the unknown-job decoy, pinning, ranges, chunk sizes, codecs, RELEASE,
 * queueing behind a peer that stops returning credits and a peer leaving mid-answer all see
 * hostile bytes. Built and run by fuzz.sh.
 *
 * Input: messages of [ctl u8][len u16 LE][len bytes]. ctl bit 3 sends the bytes as they are;
 * otherwise the first 40 bytes (zero-padded) choose a request's fields (below), which is then
 * encoded with bit 0 giving it the right MAC for its job's secret and bit 1 a nonce above the
 * last one sent (else the input's nonce): without them the fuzzer would rarely get past the
 * checks it is meant to go beyond. Bit 4 keeps the client from returning credits for what it
 * received, bit 5 closes the connection after the message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sw_dp.h>

#include "proto.h"
#include "sw_shuffle.h"

static const char *const secrets[2] = {"fuzz-secret-of-the-job-1", "another-secret-of-job-2"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "fuzz_server: %s: %s\n", what, sw_shuffle_strerror(err));
	abort();
}

static void quiet(void *arg, const char *line)
{
	(void)arg;
	(void)line;
}

/* The store, made once: two jobs, partitions in memory, empty, and spilled to a file. */
static struct sw_shuffle_store *store(void)
{
	static struct sw_shuffle_store *st;
	static char dir[] = "/tmp/sw-fuzz-server-XXXXXX";
	static uint8_t buf[200 << 10];
	if (st != NULL)
		return st;
	struct sw_shuffle_store_conf sc = {
	        .mem_budget = 256 << 10, .spill_dir = dir, .log = {quiet, NULL}};
	int err;
	if (mkdtemp(dir) == NULL)
		die("mkdtemp", -errno);
	if ((err = sw_shuffle_store_create(&sc, &st)) < 0)
		die("store", err);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 7 / 13);
	static const size_t lens[3] = {3000, 0, sizeof(buf)};
	for (uint64_t job = 1; job <= 2; job++) {
		if ((err = sw_shuffle_job_add(st, job, secrets[job - 1],
		                              strlen(secrets[job - 1]))) < 0)
			die("job", err);
		for (uint32_t map = 0; map < 3; map++)
			for (uint32_t part = 0; part < 2; part++)
				if ((err = sw_shuffle_put(st, job, map, part, buf, lens[map])) < 0)
					die("put", err);
	}
	rmdir(dir); /* the spill files are unnamed and open: nothing is left behind */
	return st;
}

struct client {
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	uint8_t challenge[PROTO_CHALLENGE_LEN];
	bool greeted, hold, closed;
	/* messages held unreleased (their credits not returned); the server may send at most
	 * its credits' worth, SW_DP_DEFAULT_CREDITS */
	struct sw_dp_event held[SW_DP_DEFAULT_CREDITS];
	unsigned nheld;
};

static void release_held(struct client *c)
{
	while (c->nheld > 0)
		sw_dp_release(c->ctx, &c->held[--c->nheld]);
}

/* Polls both sides once; returns how many events there were. */
static int turn(struct sw_dp_ctx *sctx, struct sw_shuffle_server *srv, struct client *c)
{
	struct sw_dp_event ev[16];
	int n = sw_dp_poll(sctx, ev, 16), total = n > 0 ? n : 0;
	for (int i = 0; i < n; i++)
		sw_shuffle_server_event(srv, &ev[i]);
	sw_shuffle_server_progress(srv);
	n = sw_dp_poll(c->ctx, ev, 16);
	for (int i = 0; i < n; i++) {
		if (ev[i].type == SW_DP_EV_RECV && !c->greeted &&
		    sw_shuffle_proto_hello_decode(ev[i].data, ev[i].len, c->challenge) == 0)
			c->greeted = true;
		else if (ev[i].type == SW_DP_EV_CLOSED)
			c->closed = true;
		if (ev[i].type == SW_DP_EV_RECV && c->hold && c->nheld < SW_DP_DEFAULT_CREDITS)
			c->held[c->nheld++] = ev[i];
		else
			sw_dp_release(c->ctx, &ev[i]);
	}
	return total + (n > 0 ? n : 0);
}

/* Polls until nothing moves any more. */
static void settle(struct sw_dp_ctx *sctx, struct sw_shuffle_server *srv, struct client *c)
{
	for (int idle = 0; idle < 3;)
		idle = turn(sctx, srv, c) ? 0 : idle + 1;
}

static void send_msg(struct client *c, uint64_t *nonce, uint8_t ctl, const uint8_t *m, size_t len)
{
	static uint8_t buf[65536];
	uint8_t f[40] = {0};
	size_t out = len;
	if (ctl & 8) {
		memcpy(buf, m, len);
	} else {
		memcpy(f, m, len < sizeof(f) ? len : sizeof(f));
		struct proto_req r = {.version = f[0] & 0x80 ? f[0] & 0x7f : SW_SHUFFLE_VERSION,
		                      .type = f[1] & 3,
		                      .flags = f[2],
		                      .job = f[3] & 0x80 ? le(f + 24, 8) : 1 + (f[3] & 1),
		                      .map = f[4] & 0x80 ? (uint32_t)le(f + 20, 4) : f[4] % 4,
		                      .part = f[5] % 3,
		                      .offset = f[6] & 0x80 ? le(f + 8, 8) : le(f + 8, 3),
		                      .length = f[6] & 1   ? SW_SHUFFLE_TO_END
		                                : f[6] & 2 ? le(f + 16, 8)
		                                           : le(f + 16, 3),
		                      .chunk = (uint32_t)le(f + 32, 4),
		                      .nonce = ctl & 2 ? ++*nonce : le(f + 24, 8)};
		sw_shuffle_proto_req_encode(&r, buf);
		const char *s = secrets[(r.job - 1) & 1];
		if (ctl & 1)
			sw_shuffle_proto_mac((const uint8_t *)s, strlen(s), c->challenge, buf,
			                     buf + PROTO_REQ_MACED);
		out = PROTO_REQ_LEN;
	}
	struct iovec iov = {buf, out};
	sw_dp_send(c->ep, 0, &iov, 1, NULL); /* no credit: the message is dropped */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_dp_config dc;
	struct sw_dp_ctx *sctx;
	struct sw_shuffle_server *srv;
	struct client c = {0};
	char addr[SW_DP_ADDRSTRLEN];
	uint64_t nonce = 0;
	struct sw_shuffle_server_conf conf = {.backend = "tcp",
	                                      .listen_addr = "127.0.0.1:0",
	                                      .chunk = 4096,
	                                      .inflight = 2,
	                                      .log = {quiet, NULL}};

	sw_shuffle_server_dp_config(&conf, &dc);
	if (sw_dp_open(&dc, &sctx) < 0 ||
	    sw_shuffle_server_attach(store(), sctx, &conf, &srv) < 0 ||
	    sw_shuffle_server_addr(srv, addr, sizeof(addr)) < 0)
		abort();
	sw_dp_config_init(&dc);
	dc.backend = "tcp";
	if (sw_dp_open(&dc, &c.ctx) < 0 || sw_dp_connect(c.ctx, addr, &c.ep) < 0)
		abort();
	while (!c.greeted && !c.closed)
		turn(sctx, srv, &c);
	while (size >= 3 && !c.closed) {
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		len = len < size - 3 ? len : size - 3;
		c.hold = data[0] & 16;
		if (!c.hold)
			release_held(&c);
		send_msg(&c, &nonce, data[0], data + 3, len);
		if (data[0] & 32) {
			sw_dp_ep_close(c.ep);
			c.closed = true;
		}
		data += 3 + len;
		size -= 3 + len;
		settle(sctx, srv, &c);
	}
	release_held(&c); /* a context does not free an endpoint whose messages are held */
	sw_shuffle_server_destroy(srv);
	sw_dp_close(sctx);
	sw_dp_close(c.ctx);
	return 0;
}
