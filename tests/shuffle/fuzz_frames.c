/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for everything a peer's bytes reach before they are trusted: request,
 * hello and chunk-header decoding, the answer tag check, the rkey descriptor, and
 * decompression of a chunk payload into the raw length its header claims. Built and run by
 * fuzz.sh.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct proto_zctx *z; /* made once: a context per input would dominate the run */
	struct proto_req r;
	struct proto_chunk h;
	static struct proto_tag *g;
	static const uint8_t key[PROTO_KEY_LEN] = "fuzz-answer-key";
	uint8_t challenge[PROTO_CHALLENGE_LEN];
	struct proto_rkey k;

	if (z == NULL &&
	    ((z = sw_shuffle_proto_zctx_new()) == NULL || (g = sw_shuffle_proto_tag_new()) == NULL))
		abort();
	sw_shuffle_proto_req_decode(data, size, &r);
	sw_shuffle_proto_hello_decode(data, size, challenge);
	if (sw_shuffle_proto_rkey_decode(data, size, &k) == 0)
		for (uint32_t i = 0; i < k.nchunks; i++)
			(void)sw_shuffle_proto_rkey_crc(&k, i);
	if (size < PROTO_CHUNK_LEN || sw_shuffle_proto_chunk_decode(data, PROTO_CHUNK_LEN, &h) < 0)
		return 0;
	const uint8_t *payload = data + PROTO_CHUNK_LEN;
	size_t len = size - PROTO_CHUNK_LEN;
	if (len != h.len)
		return 0;
	(void)sw_shuffle_proto_chunk_check(g, key, 1, &h, payload, len);
	if (h.flags & PROTO_RKEY) {
		sw_shuffle_proto_rkey_decode(payload, len, &k);
		return 0;
	}
	uint8_t *raw = malloc(h.raw_len ? h.raw_len : 1);
	if (raw == NULL)
		abort();
	if (sw_shuffle_proto_unpack(z, h.codec, payload, len, raw, h.raw_len) == 0)
		(void)sw_shuffle_proto_crc32c(raw, h.raw_len);
	free(raw);
	return 0;
}
