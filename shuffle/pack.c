/* SPDX-License-Identifier: MIT */
/*
 * Per-chunk compression. Each chunk is compressed on its own so that a corrupt chunk can be
 * re-fetched alone and the reducer can start decoding before the range ends. A chunk that does
 * not shrink is sent raw: incompressible data then costs one failed attempt, not expansion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <lz4.h>
#include <zstd.h>

#include "proto.h"

/* zstd level 1: the fastest level still gains most of the ratio for shuffle data */
#define ZSTD_LEVEL 1

struct proto_zctx {
	ZSTD_CCtx *c;
	ZSTD_DCtx *d;
};

struct proto_zctx *sw_shuffle_proto_zctx_new(void)
{
	struct proto_zctx *z = calloc(1, sizeof(*z));
	if (z == NULL)
		return NULL;
	z->c = ZSTD_createCCtx();
	z->d = ZSTD_createDCtx();
	if (z->c == NULL || z->d == NULL) {
		sw_shuffle_proto_zctx_free(z);
		return NULL;
	}
	return z;
}

void sw_shuffle_proto_zctx_free(struct proto_zctx *z)
{
	if (z == NULL)
		return;
	ZSTD_freeCCtx(z->c);
	ZSTD_freeDCtx(z->d);
	free(z);
}

size_t sw_shuffle_proto_pack_bound(size_t raw_len)
{
	size_t a = (size_t)LZ4_compressBound((int)raw_len), b = ZSTD_compressBound(raw_len);
	a = a > b ? a : b;
	return a > raw_len ? a : raw_len;
}

int sw_shuffle_proto_pack(struct proto_zctx *z, enum proto_codec want, const void *raw,
                          size_t raw_len, void *out, size_t *wire_len)
{
	size_t n = 0;
	if (want == PROTO_LZ4 && raw_len > 0) {
		int r = LZ4_compress_default(raw, out, (int)raw_len, (int)raw_len - 1);
		n = r > 0 ? (size_t)r : 0;
	} else if (want == PROTO_ZSTD && raw_len > 0) {
		n = ZSTD_compressCCtx(z->c, out, raw_len - 1, raw, raw_len, ZSTD_LEVEL);
		if (ZSTD_isError(n))
			n = 0;
	}
	if (n > 0 && n < raw_len) {
		*wire_len = n;
		return want;
	}
	memcpy(out, raw, raw_len);
	*wire_len = raw_len;
	return PROTO_RAW;
}

int sw_shuffle_proto_unpack(struct proto_zctx *z, uint8_t codec, const void *wire, size_t wire_len,
                            void *raw, size_t raw_len)
{
	if (codec == PROTO_RAW) {
		if (wire_len != raw_len)
			return -EBADMSG;
		memcpy(raw, wire, raw_len);
		return 0;
	}
	if (codec == PROTO_LZ4) {
		int r = LZ4_decompress_safe(wire, raw, (int)wire_len, (int)raw_len);
		return r >= 0 && (size_t)r == raw_len ? 0 : -EBADMSG;
	}
	if (codec == PROTO_ZSTD) {
		size_t r = ZSTD_decompressDCtx(z->d, raw, raw_len, wire, wire_len);
		return !ZSTD_isError(r) && r == raw_len ? 0 : -EBADMSG;
	}
	return -EBADMSG;
}
