/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the fetcher's answer handling as a whole: a real fetcher on a real tcp
 * context fetches from a peer played by this harness, which greets it and then sends the
 * input as answer frames. So frame order, held out-of-order chunks, error statuses, lengths
 * and totals that disagree, drained answers, CRC and tag failures and the re-fetches they
 * cause all see hostile bytes. Built and run by fuzz.sh.
 *
 * Input: messages of [ctl u8][len u16 LE][len bytes]. ctl bit 3 sends the bytes as they are;
 * otherwise the first 24 bytes choose a chunk header's fields (below), the rest is its
 * payload, the header is encoded (so its own CRC is right) and ctl bit 0 tags it with the
 * right key and the last request's nonce, bit 1 gives it the payload's CRC32C and bit 2 a
 * raw_len equal to the payload's length: without them the fuzzer would rarely get past the
 * checks it is meant to go beyond.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sw_dp.h>

#include "proto.h"
#include "sw_shuffle.h"

#define SECRET "fuzz-secret-of-the-job-1"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

struct peer {
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	struct proto_req last; /* the last request received */
	bool asked;
};

static void quiet(void *arg, const char *line)
{
	(void)arg;
	(void)line;
}

static void on_done(void *arg, struct sw_shuffle_fetch_op *op, int status, uint8_t *d, uint64_t len)
{
	(void)op;
	(void)status;
	(void)len;
	*(bool *)arg = true;
	free(d);
}

/* Polls both sides once; returns how many events there were. */
static int turn(struct sw_dp_ctx *fctx, struct sw_shuffle_fetcher *fc, struct peer *p)
{
	struct sw_dp_event ev[16];
	int n = sw_dp_poll(fctx, ev, 16), total = n > 0 ? n : 0;
	for (int i = 0; i < n; i++)
		sw_shuffle_fetcher_event(fc, &ev[i]);
	sw_shuffle_fetcher_progress(fc);
	n = sw_dp_poll(p->ctx, ev, 16);
	for (int i = 0; i < n; i++) {
		if (ev[i].type == SW_DP_EV_ACCEPT && p->ep == NULL) {
			p->ep = ev[i].ep;
		} else if (ev[i].type == SW_DP_EV_RECV) {
			struct proto_req r;
			if (sw_shuffle_proto_req_decode(ev[i].data, ev[i].len, &r) == 0) {
				p->last = r;
				p->asked = true;
			}
		}
		sw_dp_release(p->ctx, &ev[i]);
	}
	return total + (n > 0 ? n : 0);
}

/* Polls until nothing moves any more (or the fetch ended). */
static void settle(struct sw_dp_ctx *fctx, struct sw_shuffle_fetcher *fc, struct peer *p,
                   const bool *done)
{
	for (int quiet = 0; quiet < 3 && !*done;)
		quiet = turn(fctx, fc, p) ? 0 : quiet + 1;
}

static void send_msg(struct peer *p, struct proto_tag *g, const uint8_t akey[PROTO_KEY_LEN],
                     uint8_t ctl, const uint8_t *m, size_t len)
{
	static uint8_t buf[PROTO_CHUNK_LEN + 65536];
	size_t out = len;
	if (ctl & 8 || len < 24) {
		memcpy(buf, m, len);
	} else {
		const uint8_t *payload = m + 24;
		size_t plen = len - 24;
		struct proto_chunk h = {.version = SW_SHUFFLE_VERSION,
		                        .status = m[0] % (PROTO_E_MAX + 2),
		                        .codec = m[1] % 4,
		                        .flags = m[2] & 3,
		                        .seq = m[3],
		                        .offset = le32(m + 4),
		                        .total = le32(m + 8),
		                        .raw_len = ctl & 4 ? (uint32_t)plen : le32(m + 12),
		                        .data_crc = ctl & 2 ? sw_shuffle_proto_crc32c(payload, plen)
		                                            : le32(m + 16),
		                        .len = (uint32_t)plen};
		if (ctl & 1)
			sw_shuffle_proto_chunk_seal(g, akey, p->last.nonce, &h, payload, plen);
		sw_shuffle_proto_chunk_encode(&h, buf);
		memcpy(buf + PROTO_CHUNK_LEN, payload, plen);
		out = PROTO_CHUNK_LEN + plen;
	}
	struct iovec iov = {buf, out};
	sw_dp_send(p->ep, 0, &iov, 1, NULL); /* no credit: the message is dropped */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proto_tag *g;
	struct sw_dp_config dc;
	struct sw_dp_ctx *fctx;
	struct sw_shuffle_fetcher *fc;
	struct peer p = {0};
	char addr[SW_DP_ADDRSTRLEN];
	uint8_t challenge[PROTO_CHALLENGE_LEN] = {1, 2, 3}, hello[PROTO_HELLO_LEN];
	uint8_t akey[PROTO_KEY_LEN];
	bool done = false;

	if (g == NULL && (g = sw_shuffle_proto_tag_new()) == NULL)
		abort();
	sw_dp_config_init(&dc);
	dc.backend = "tcp";
	if (sw_dp_open(&dc, &p.ctx) < 0 || sw_dp_listen(p.ctx, "127.0.0.1:0") < 0 ||
	    sw_dp_listen_addr(p.ctx, addr, sizeof(addr)) < 0)
		abort();
	sw_shuffle_fetcher_dp_config(&dc);
	struct sw_shuffle_fetcher_conf conf = {.timeout_ms = 200, .log = {quiet, NULL}};
	if (sw_dp_open(&dc, &fctx) < 0 || sw_shuffle_fetcher_attach(fctx, &conf, &fc) < 0)
		abort();
	struct sw_shuffle_fetch f = {.job = 1,
	                             .secret = SECRET,
	                             .secret_len = sizeof(SECRET) - 1,
	                             .length = SW_SHUFFLE_TO_END};
	if (sw_shuffle_fetcher_add(fc, addr, &f, NULL, 0, on_done, &done, NULL) < 0)
		abort();
	while (p.ep == NULL)
		turn(fctx, fc, &p);
	sw_shuffle_proto_hello_encode(challenge, hello);
	struct iovec iov = {hello, sizeof(hello)};
	sw_dp_send(p.ep, 0, &iov, 1, NULL);
	sw_shuffle_proto_answer_key((const uint8_t *)SECRET, sizeof(SECRET) - 1, challenge, akey);
	settle(fctx, fc, &p, &done);
	while (size >= 3 && !done && p.asked) {
		size_t len = (size_t)data[1] | (size_t)data[2] << 8;
		len = len < size - 3 ? len : size - 3;
		send_msg(&p, g, akey, data[0], data + 3, len);
		data += 3 + len;
		size -= 3 + len;
		settle(fctx, fc, &p, &done);
	}
	sw_shuffle_fetcher_destroy(fc);
	sw_dp_close(fctx);
	sw_dp_close(p.ctx);
	return 0;
}
