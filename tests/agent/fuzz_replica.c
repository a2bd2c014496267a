/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the replica frames an agent decodes from the network: PUT messages (at
 * the target) and ACKs (at the sender). A decoded PUT must re-encode to the same header bytes
 * and its MAC check must run; nothing may crash or read past the message. With -DFUZZ_SEEDS
 * it is instead a program writing valid frames into the corpus directory given as argv[1].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replica.h"

static const uint8_t key[32] = "fuzzing-key-fuzzing-key-fuzzing";

#ifndef FUZZ_SEEDS
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sw_agent_put_hdr h;
	const char *why;
	if (sw_agent_put_decode(data, size, &h, &why) == 0) {
		uint8_t again[SW_AGENT_PUT_HDR_LEN], mac[SW_AGENT_PUT_MAC_LEN];
		sw_agent_put_encode(&h, again);
		if (memcmp(again, data, SW_AGENT_PUT_MACED))
			abort();
		if (sw_agent_put_mac(key, sizeof(key), data, data + SW_AGENT_PUT_HDR_LEN, h.len,
		                     mac))
			abort();
	} else if (!why) {
		abort(); /* every refusal says why */
	}
	int status;
	struct sw_agent_put_hdr want = {.job = 7, .task = 1, .attempt = 0};
	if (sw_agent_ack_decode(data, size, &want, &status) == 0 && status > 0)
		abort();
	return 0;
}
#else
static void seed(const char *dir, const char *name, const uint8_t *b, size_t len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	if (!fp || fwrite(b, 1, len, fp) != len)
		exit(1);
	fclose(fp);
}

int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	uint8_t msg[SW_AGENT_PUT_HDR_LEN + 100];
	memset(msg, 0x5a, sizeof(msg));
	struct sw_agent_put_hdr h = {
	        .job = 7, .task = 1, .total = 300, .offset = 200, .len = 100, .rack = 2, .last = 1};
	sw_agent_put_encode(&h, msg);
	sw_agent_put_mac(key, sizeof(key), msg, msg + SW_AGENT_PUT_HDR_LEN, 100,
	                 msg + SW_AGENT_PUT_MACED);
	seed(argv[1], "put-last", msg, sizeof(msg));
	h.offset = 0, h.last = 0;
	sw_agent_put_encode(&h, msg);
	seed(argv[1], "put-first", msg, sizeof(msg));
	uint8_t ack[SW_AGENT_ACK_LEN];
	sw_agent_ack_encode(&h, -28, ack);
	seed(argv[1], "ack-enospc", ack, sizeof(ack));
	return 0;
}
#endif
