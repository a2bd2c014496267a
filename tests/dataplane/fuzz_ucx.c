/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the ucx backend's receive side: its active-message handlers (messages
 * with the tag and inlined leading bytes in the AM header, eager and rendezvous payloads,
 * credit grants) and one-sided reads with a remote key. A real sw_dp ucx context listens on
 * loopback like a shuffle server (max_recv 4 KiB); the harness is a raw UCP peer, not an sw_dp
 * context, so that it can send what sw_dp never would: any AM id, header length, flags and
 * credit count. Built and run by tests/shuffle/fuzz.sh.
 *
 * Input: operations of [op u8][hlen u8][len u16 LE][len bytes]. op bits 0-1 choose the AM id
 * (0: a get, below; 1 message, 2 credit grant, 3 the id in the next two bytes, one sw_dp does
 * not use or its own three; with fewer than two bytes, 3 itself: the peer's goodbye, AM_BYE),
 * bit 2 asks for a reply
 * endpoint (without it sw_dp cannot tell the sender and drops the message), bits 3-4 force
 * eager or rendezvous, bits 5-7 append (op >> 5) x 1 KiB of zeros to the payload so that
 * messages cross max_recv. The first hlen bytes are the AM header, the rest the payload. A get
 * reads len bytes at offset hlen x 64 of a region the peer registered, with the peer's remote
 * key whose bytes at the payload's first two bytes (mod its length) are XORed with the third:
 * the key comes from the shuffle server's authenticated lease descriptor, so only small damage
 * is tried (a key made up whole is not something UCX claims to survive).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <ucp/api/ucp.h>

#include "sw_dp.h"

#define REGION (64 << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sw_dp_ctx *ctx;
static struct sockaddr_in sa = {.sin_family = AF_INET};
static ucp_context_h uc;
static ucp_worker_h w;
static void *region, *rkey;
static size_t rkey_len;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_ucx: %s failed\n", what);
	abort();
}

/* The peer takes sw_dp's credit grants and anything else without looking at them. */
static ucs_status_t ignore(void *arg, const void *header, size_t hlen, void *d, size_t len,
                           const ucp_am_recv_param_t *param)
{
	(void)arg, (void)header, (void)hlen, (void)d, (void)len, (void)param;
	return UCS_OK;
}

static void setup(void)
{
	struct sw_dp_config cfg;
	char addr[SW_DP_ADDRSTRLEN];
	setenv("UCX_NET_DEVICES", "lo", 0);
	sw_dp_config_init(&cfg);
	cfg.backend = "ucx";
	cfg.ucx_tls = "tcp";
	cfg.max_recv = 4096; /* as a shuffle server's */
	cfg.one_sided = 1;   /* as one handing out leases: gets with damaged keys are fuzzed */
	if (sw_dp_open(&cfg, &ctx) < 0 || sw_dp_listen(ctx, "127.0.0.1:0") < 0 ||
	    sw_dp_listen_addr(ctx, addr, sizeof(addr)) < 0)
		die("sw_dp ucx context");
	sa.sin_port = htons((uint16_t)atoi(strchr(addr, ':') + 1));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

	ucp_params_t up = {.field_mask = UCP_PARAM_FIELD_FEATURES,
	                   .features = UCP_FEATURE_AM | UCP_FEATURE_RMA};
	ucp_worker_params_t wp = {.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
	                          .thread_mode = UCS_THREAD_MODE_SINGLE};
	ucp_config_t *conf;
	if (ucp_config_read(NULL, NULL, &conf) != UCS_OK ||
	    ucp_config_modify(conf, "TLS", "tcp") != UCS_OK ||
	    ucp_config_modify(conf, "PUT_ENABLE", "n") != UCS_OK ||
	    ucp_init(&up, conf, &uc) != UCS_OK || ucp_worker_create(uc, &wp, &w) != UCS_OK)
		die("ucp peer");
	ucp_config_release(conf);
	for (unsigned id = 1; id <= 3; id++) {
		ucp_am_handler_param_t hp = {.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
		                                           UCP_AM_HANDLER_PARAM_FIELD_CB,
		                             .id = id,
		                             .cb = ignore};
		if (ucp_worker_set_am_recv_handler(w, &hp) != UCS_OK)
			die("am handler");
	}
	region = calloc(1, REGION);
	ucp_mem_map_params_t mp = {.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS |
	                                         UCP_MEM_MAP_PARAM_FIELD_LENGTH,
	                           .address = region,
	                           .length = REGION};
	ucp_mem_h mh;
	if (region == NULL || ucp_mem_map(uc, &mp, &mh) != UCS_OK ||
	    ucp_rkey_pack(uc, mh, &rkey, &rkey_len) != UCS_OK)
		die("registration");
}

struct side {
	struct sw_dp_ep *ep; /* sw_dp's endpoint of the peer's connection */
	bool closed;
	unsigned gets;
};

/* Moves both sides once; returns whether anything happened. */
static bool turn(struct side *s)
{
	struct sw_dp_event ev[16];
	int n = sw_dp_poll(ctx, ev, 16);
	bool any = ucp_worker_progress(w) != 0 || n > 0;
	for (int i = 0; i < n; i++) {
		switch (ev[i].type) {
		case SW_DP_EV_ACCEPT:
			s->ep = ev[i].ep;
			break;
		case SW_DP_EV_RECV:
			sw_dp_release(ctx, &ev[i]);
			break;
		case SW_DP_EV_GET:
			s->gets--;
			break;
		case SW_DP_EV_CLOSED:
			s->closed = true;
			break;
		default:
			break;
		}
	}
	return any;
}

static void settle(struct side *s)
{
	for (int idle = 0; idle < 20;)
		idle = turn(s) ? 0 : idle + 1;
}

static void wait_req(ucs_status_ptr_t r, struct side *s)
{
	if (!UCS_PTR_IS_PTR(r))
		return;
	while (ucp_request_check_status(r) == UCS_INPROGRESS)
		turn(s);
	ucp_request_free(r);
}

static void get(struct side *s, uint8_t *local, unsigned hlen, const uint8_t *m, size_t len)
{
	uint8_t key[4096];
	size_t off = (size_t)hlen * 64;
	if (s->ep == NULL || s->closed || rkey_len > sizeof(key))
		return;
	memcpy(key, rkey, rkey_len);
	if (len >= 3)
		key[((size_t)m[0] | (size_t)m[1] << 8) % rkey_len] ^= m[2];
	len = len < REGION - off ? len : REGION - off;
	if (sw_dp_get(s->ep, local, len, (uint64_t)(uintptr_t)region + off, key, rkey_len, NULL) ==
	    0)
		s->gets++;
}

/* The peer's connection, kept from one input to the next until sw_dp closes it (a connection
 * takes longer to set up than most inputs to run). */
static ucp_ep_h uep;
static struct side s;

static void peer_connect(void)
{
	ucp_ep_params_t p = {
	        .field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR |
	                      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE,
	        .flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER,
	        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
	        .sockaddr = {.addr = (const struct sockaddr *)&sa, .addrlen = sizeof(sa)}};
	ucp_request_param_t fp = {0};
	s = (struct side){0};
	if (ucp_ep_create(w, &p, &uep) != UCS_OK)
		die("ucp_ep_create");
	wait_req(ucp_ep_flush_nbx(uep, &fp), &s); /* connected */
	while (s.ep == NULL && !s.closed)
		turn(&s);
}

static void peer_close(void)
{
	ucp_request_param_t cp = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
	                          .flags = UCP_EP_CLOSE_FLAG_FORCE};
	wait_req(ucp_ep_close_nbx(uep, &cp), &s);
	settle(&s);
	if (s.ep != NULL)
		sw_dp_ep_close(s.ep);
	uep = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[4096 + 7 * 1024], local[REGION];

	if (ctx == NULL)
		setup();
	if (uep == NULL)
		peer_connect();
	while (size >= 4 && !s.closed) {
		uint8_t op = data[0];
		size_t hlen = data[1], len = (size_t)data[2] | (size_t)data[3] << 8;
		len = len < size - 4 ? len : size - 4;
		len = len < 4096 ? len : 4096;
		const uint8_t *m = data + 4;
		data += 4 + len;
		size -= 4 + len;
		if ((op & 3) == 0) {
			get(&s, local, (unsigned)hlen, m, len);
			settle(&s);
			continue;
		}
		unsigned id = op & 3;
		if (id == 3 && len >= 2) {
			id = (unsigned)m[0] | (unsigned)m[1] << 8;
			m += 2;
			len -= 2;
		}
		hlen = hlen < len ? hlen : len;
		size_t plen = len - hlen + (size_t)(op >> 5) * 1024;
		memset(buf, 0, plen);
		memcpy(buf, m + hlen, len - hlen);
		ucp_request_param_t p = {.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
		                         .flags = (op & 4 ? UCP_AM_SEND_FLAG_REPLY : 0) |
		                                  (op & 8 ? UCP_AM_SEND_FLAG_EAGER : 0) |
		                                  (op & 16 ? UCP_AM_SEND_FLAG_RNDV : 0)};
		if ((op & 24) == 24)
			p.flags &= ~(uint32_t)UCP_AM_SEND_FLAG_RNDV; /* UCX refuses both at once */
		wait_req(ucp_am_send_nbx(uep, id, m, hlen, buf, plen, &p), &s);
		settle(&s);
	}
	while (s.gets > 0 && !s.closed) /* a get's buffer is ours until it completes */
		turn(&s);
	if (s.closed)
		peer_close();
	return 0;
}
