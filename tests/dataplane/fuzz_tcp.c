/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the tcp backend's receive side: frame headers, reassembly of frames
 * split across reads, credit grants. Each input is written by a plain socket to a real
 * listening sw_dp context on loopback, in pieces of a size the first byte picks, with the
 * context polled between pieces, so frames straddle reads the way a slow peer makes them.
 * Messages are released as they come (returning credits). The connection must end cleanly
 * or with an error event; a crash, a sanitizer report or a leak fails. Built by fuzz.sh.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sw_dp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct sw_dp_ctx *ctx;
static struct sockaddr_in sa = {.sin_family = AF_INET};

/* Handles what arrived; true once the fuzzer's connection is closed. */
static bool drain(void)
{
	struct sw_dp_event ev[16];
	bool closed = false;
	int n;
	while ((n = sw_dp_poll(ctx, ev, 16)) > 0)
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV)
				sw_dp_release(ctx, &ev[i]);
			else if (ev[i].type == SW_DP_EV_CLOSED) {
				sw_dp_ep_close(ev[i].ep);
				closed = true;
			}
		}
	return closed;
}

static void setup(void)
{
	struct sw_dp_config cfg;
	char addr[SW_DP_ADDRSTRLEN];
	sw_dp_config_init(&cfg);
	cfg.backend = "tcp";
	cfg.max_recv = 1 << 20; /* the fuzzer may announce up to this much */
	if (sw_dp_open(&cfg, &ctx) < 0 || sw_dp_listen(ctx, "127.0.0.1:0") < 0 ||
	    sw_dp_listen_addr(ctx, addr, sizeof(addr)) < 0)
		abort();
	sa.sin_port = htons((uint16_t)atoi(strchr(addr, ':') + 1));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (ctx == NULL)
		setup();
	if (size == 0)
		return 0;
	size_t piece = data[0] % 32 + 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		abort();
	bool closed = false;
	for (size_t at = 1; at < size && !closed; at += piece) {
		size_t n = size - at < piece ? size - at : piece;
		if (write(fd, data + at, n) != (ssize_t)n)
			break;    /* the context cut us off */
		closed = drain(); /* loopback: what was written is readable already */
	}
	close(fd);
	while (!closed) { /* our close arrives as CLOSED (clean or an error) */
		sw_dp_wait(ctx, 100);
		closed = drain();
	}
	return 0;
}
