/* SPDX-License-Identifier: MIT */
/* Writes valid frames (request, chunk with raw/lz4/zstd payloads, rkey answer) into the
 * directory argv[1] as the fuzzer's starting corpus. */
#include <stdio.h>
#include <string.h>

#include "proto.h"

static int put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (f == NULL || fwrite(p, 1, n, f) != n || fclose(f) != 0)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t raw[1024], buf[4096];
	static const uint8_t key[PROTO_KEY_LEN] = "fuzz-answer-key"; /* fuzz_frames.c's */
	struct proto_req r = {.version = SW_SHUFFLE_VERSION,
	                      .type = PROTO_FETCH,
	                      .job = 1,
	                      .length = SW_SHUFFLE_TO_END};
	struct proto_zctx *z = sw_shuffle_proto_zctx_new();
	struct proto_tag *g = sw_shuffle_proto_tag_new();
	int err = argc != 2 || z == NULL || g == NULL;

	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(i / 16);
	sw_shuffle_proto_req_encode(&r, buf);
	err |= sw_shuffle_proto_mac((const uint8_t *)"k", 1, (const uint8_t *)"challenge-of-cn",
	                            buf, buf + PROTO_REQ_MACED);
	err |= put(argv[1], "req", buf, PROTO_REQ_LEN);
	for (int codec = PROTO_RAW; !err && codec <= PROTO_ZSTD; codec++) {
		size_t wl;
		struct proto_chunk h = {.version = SW_SHUFFLE_VERSION,
		                        .flags = PROTO_LAST,
		                        .raw_len = sizeof(raw),
		                        .total = sizeof(raw),
		                        .data_crc = sw_shuffle_proto_crc32c(raw, sizeof(raw))};
		h.codec = (uint8_t)sw_shuffle_proto_pack(z, codec, raw, sizeof(raw),
		                                         buf + PROTO_CHUNK_LEN, &wl);
		h.len = (uint32_t)wl;
		/* tagged as fuzz_frames checks, so that the fuzzer starts from a valid tag */
		err |= sw_shuffle_proto_chunk_seal(g, key, 1, &h, buf + PROTO_CHUNK_LEN, wl);
		sw_shuffle_proto_chunk_encode(&h, buf);
		char name[16];
		snprintf(name, sizeof(name), "chunk%d", codec);
		err |= put(argv[1], name, buf, PROTO_CHUNK_LEN + wl);
	}
	uint32_t crcs[2] = {1, 2};
	size_t n = sw_shuffle_proto_rkey_size(2, 8);
	struct proto_chunk h = {.version = SW_SHUFFLE_VERSION,
	                        .flags = PROTO_LAST | PROTO_RKEY,
	                        .len = (uint32_t)n,
	                        .raw_len = (uint32_t)n,
	                        .total = 2000};
	sw_shuffle_proto_rkey_encode(0x1000, 1024, crcs, 2, "rkeyblob", 8, buf + PROTO_CHUNK_LEN);
	h.data_crc = sw_shuffle_proto_crc32c(buf + PROTO_CHUNK_LEN, n);
	sw_shuffle_proto_chunk_encode(&h, buf);
	err |= put(argv[1], "rkey", buf, PROTO_CHUNK_LEN + n);
	sw_shuffle_proto_hello_encode((const uint8_t *)"challenge-of-cn", buf);
	err |= put(argv[1], "hello", buf, PROTO_HELLO_LEN);
	sw_shuffle_proto_zctx_free(z);
	sw_shuffle_proto_tag_free(g);
	return err ? 1 : 0;
}
