/* SPDX-License-Identifier: MIT */
/* Frame codec: round trips, every malformed-frame case, HMAC, CRC32C and per-chunk packing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <isa-l/crc.h>
#include <nettle/umac.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "proto.h"
#include "umac.h"

static const uint8_t key[] = "job-secret-0123456789";
static const uint8_t challenge[PROTO_CHALLENGE_LEN] = "challenge-of-cn";

static struct proto_req sample_req(void)
{
	return (struct proto_req){.version = SW_SHUFFLE_VERSION,
	                          .type = PROTO_FETCH,
	                          .flags = PROTO_WANT_LZ4 | PROTO_ONE_SIDED,
	                          .job = 0x1122334455667788ull,
	                          .map = 7,
	                          .part = 0xfffffffe,
	                          .offset = 1ull << 40,
	                          .length = SW_SHUFFLE_TO_END,
	                          .chunk = 65536,
	                          .nonce = 99,
	                          .ts_ns = 123456789};
}

static void maced(uint8_t buf[PROTO_REQ_LEN])
{
	struct proto_req r = sample_req();
	sw_shuffle_proto_req_encode(&r, buf);
	assert_int_equal(
	        sw_shuffle_proto_mac(key, sizeof(key), challenge, buf, buf + PROTO_REQ_MACED), 0);
}

static void request_round_trips_every_field(void **state)
{
	(void)state;
	struct proto_req r = sample_req(), d;
	uint8_t buf[PROTO_REQ_LEN];
	memset(r.mac, 0xab, sizeof(r.mac));
	sw_shuffle_proto_req_encode(&r, buf);
	assert_int_equal(sw_shuffle_proto_req_decode(buf, sizeof(buf), &d), 0);
	assert_int_equal(d.type, r.type);
	assert_int_equal(d.flags, r.flags);
	assert_true(d.job == r.job && d.map == r.map && d.part == r.part);
	assert_true(d.offset == r.offset && d.length == r.length && d.chunk == r.chunk);
	assert_true(d.nonce == r.nonce && d.ts_ns == r.ts_ns);
	assert_memory_equal(d.mac, r.mac, PROTO_MAC_LEN);
}

static void request_layout_is_little_endian_at_documented_offsets(void **state)
{
	(void)state;
	struct proto_req r = sample_req();
	uint8_t buf[PROTO_REQ_LEN];
	sw_shuffle_proto_req_encode(&r, buf);
	assert_memory_equal(buf, "SWFQ", 4);
	assert_int_equal(buf[4], SW_SHUFFLE_VERSION);
	assert_int_equal(buf[8], 0x88);
	assert_int_equal(buf[15], 0x11);
	assert_int_equal(buf[16], 7);
	assert_int_equal(buf[40 + 2], 1); /* chunk 65536 */
}

static void request_decoder_rejects_every_malformed_frame(void **state)
{
	(void)state;
	struct proto_req r = sample_req(), d;
	uint8_t buf[PROTO_REQ_LEN + 1], bad[PROTO_REQ_LEN + 1];
	sw_shuffle_proto_req_encode(&r, buf);
	for (size_t n = 0; n < PROTO_REQ_LEN; n++) /* every truncation */
		assert_true(sw_shuffle_proto_req_decode(buf, n, &d) < 0);
	assert_int_equal(sw_shuffle_proto_req_decode(buf, PROTO_REQ_LEN + 1, &d), -EBADMSG);
	static const struct {
		size_t at;
		uint8_t v;
		int err;
	} cases[] = {
	        {0, 'X', -EBADMSG},                            /* magic */
	        {4, 1, -EPROTONOSUPPORT},                      /* version */
	        {4, 0, -EPROTONOSUPPORT}, {5, 0, -EBADMSG},    /* type */
	        {5, 3, -EBADMSG},         {6, 0x08, -EBADMSG}, /* unknown flag */
	        {7, 1, -EBADMSG},                              /* reserved byte */
	        {44, 1, -EBADMSG},                             /* reserved word */
	        {43, 0x02, -EBADMSG}, /* chunk above SW_SHUFFLE_CHUNK_MAX */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(bad, buf, PROTO_REQ_LEN);
		bad[cases[i].at] = cases[i].v;
		assert_int_equal(sw_shuffle_proto_req_decode(bad, PROTO_REQ_LEN, &d), cases[i].err);
	}
}

static void chunk_header_round_trips_and_detects_any_flipped_bit(void **state)
{
	(void)state;
	struct proto_chunk c = {.version = SW_SHUFFLE_VERSION,
	                        .status = PROTO_OK,
	                        .codec = PROTO_ZSTD,
	                        .flags = PROTO_LAST,
	                        .seq = 3,
	                        .len = 1000,
	                        .raw_len = 4096,
	                        .data_crc = 0xdeadbeef,
	                        .offset = 1ull << 33,
	                        .total = 1ull << 34},
	                   d;
	uint8_t buf[PROTO_CHUNK_LEN];
	sw_shuffle_proto_chunk_encode(&c, buf);
	assert_int_equal(sw_shuffle_proto_chunk_decode(buf, sizeof(buf), &d), 0);
	assert_true(d.seq == 3 && d.len == 1000 && d.raw_len == 4096 && d.codec == PROTO_ZSTD);
	assert_true(d.offset == c.offset && d.total == c.total && d.data_crc == c.data_crc);
	for (size_t bit = 0; bit < 8 * PROTO_CHUNK_LEN; bit++) {
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_true(sw_shuffle_proto_chunk_decode(buf, sizeof(buf), &d) < 0);
		buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	for (size_t n = 0; n < PROTO_CHUNK_LEN; n++)
		assert_true(sw_shuffle_proto_chunk_decode(buf, n, &d) < 0);
}

static void chunk_decoder_rejects_inconsistent_fields(void **state)
{
	(void)state;
	static const struct proto_chunk bad[] = {
	        {.version = 1, .flags = PROTO_LAST}, /* version */
	        {.version = SW_SHUFFLE_VERSION,
	         .status = PROTO_E_MAX + 1,
	         .flags = PROTO_LAST},                                     /* status */
	        {.version = SW_SHUFFLE_VERSION, .codec = 3},               /* codec */
	        {.version = SW_SHUFFLE_VERSION, .flags = 0x4},             /* flags */
	        {.version = SW_SHUFFLE_VERSION, .len = 10, .raw_len = 11}, /* raw, len != raw */
	        {.version = SW_SHUFFLE_VERSION,
	         .raw_len = SW_SHUFFLE_CHUNK_MAX + 1,
	         .len = 5,
	         .codec = 1},
	        {.version = SW_SHUFFLE_VERSION,
	         .len = UINT32_MAX,
	         .raw_len = 1,
	         .codec = 1}, /* len too big */
	        {.version = SW_SHUFFLE_VERSION,
	         .status = PROTO_E_JOB,
	         .flags = 0}, /* error, not last */
	        {.version = SW_SHUFFLE_VERSION,
	         .status = PROTO_E_JOB,
	         .flags = PROTO_LAST,
	         .len = 1,
	         .raw_len = 1},
	};
	uint8_t buf[PROTO_CHUNK_LEN];
	struct proto_chunk d;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sw_shuffle_proto_chunk_encode(&bad[i], buf);
		int err = sw_shuffle_proto_chunk_decode(buf, sizeof(buf), &d);
		assert_int_equal(err, i == 0 ? -EPROTONOSUPPORT : -EBADMSG);
	}
}

static void rkey_descriptor_round_trips_and_rejects_bad_lengths(void **state)
{
	(void)state;
	uint32_t crcs[3] = {1, 2, 0xffffffff};
	uint8_t rkey[5] = {9, 8, 7, 6, 5}, buf[64];
	size_t n = sw_shuffle_proto_rkey_size(3, 5);
	struct proto_rkey k;
	sw_shuffle_proto_rkey_encode(0x7f0000001000ull, 4096, crcs, 3, rkey, 5, buf);
	assert_int_equal(sw_shuffle_proto_rkey_decode(buf, n, &k), 0);
	assert_true(k.addr == 0x7f0000001000ull && k.chunk == 4096 && k.nchunks == 3);
	assert_int_equal(sw_shuffle_proto_rkey_crc(&k, 2), 0xffffffff);
	assert_memory_equal(k.rkey, rkey, 5);
	for (size_t m = 0; m < n + 4; m++)
		if (m != n)
			assert_int_equal(sw_shuffle_proto_rkey_decode(buf, m, &k), -EBADMSG);
	buf[12] = 0xff; /* nchunks far beyond the buffer */
	assert_int_equal(sw_shuffle_proto_rkey_decode(buf, n, &k), -EBADMSG);
}

static void hmac_verifies_and_rejects_any_changed_field_or_key(void **state)
{
	(void)state;
	uint8_t buf[PROTO_REQ_LEN];
	maced(buf);
	assert_int_equal(sw_shuffle_proto_mac_verify(key, sizeof(key), challenge, buf), 0);
	assert_int_equal(sw_shuffle_proto_mac_verify((const uint8_t *)"other", 5, challenge, buf),
	                 -EACCES);
	for (size_t i = 0; i < PROTO_REQ_LEN; i++) {
		buf[i] ^= 1;
		assert_int_equal(sw_shuffle_proto_mac_verify(key, sizeof(key), challenge, buf),
		                 -EACCES);
		buf[i] ^= 1;
	}
	uint8_t other[PROTO_CHALLENGE_LEN]; /* the same request on another connection */
	memcpy(other, challenge, sizeof(other));
	other[3] ^= 1;
	assert_int_equal(sw_shuffle_proto_mac_verify(key, sizeof(key), other, buf), -EACCES);
}

static void hello_round_trips_and_rejects_other_versions_and_lengths(void **state)
{
	(void)state;
	uint8_t buf[PROTO_HELLO_LEN + 1], got[PROTO_CHALLENGE_LEN];
	sw_shuffle_proto_hello_encode(challenge, buf);
	assert_int_equal(sw_shuffle_proto_hello_decode(buf, PROTO_HELLO_LEN, got), 0);
	assert_memory_equal(got, challenge, sizeof(got));
	for (size_t n = 0; n < sizeof(buf); n++)
		if (n != PROTO_HELLO_LEN)
			assert_int_equal(sw_shuffle_proto_hello_decode(buf, n, got), -EBADMSG);
	buf[5] = 1; /* reserved */
	assert_int_equal(sw_shuffle_proto_hello_decode(buf, PROTO_HELLO_LEN, got), -EBADMSG);
	buf[5] = 0;
	buf[4] = 1;
	assert_int_equal(sw_shuffle_proto_hello_decode(buf, PROTO_HELLO_LEN, got),
	                 -EPROTONOSUPPORT);
}

/* A map side tags a chunk from the digests of its 64 KiB pieces taken at put time; a reducer
 * takes them from the bytes it got. Both give one tag, which fails when any piece changes,
 * when pieces trade places, or under another job's piece key. */
static void answer_tag_from_put_time_digests_is_the_tag_over_the_bytes(void **state)
{
	(void)state;
	enum { LEN = 3 * PROTO_PIECE + 5, N = 4 };
	struct proto_tag *g = sw_shuffle_proto_tag_new();
	uint8_t k[PROTO_KEY_LEN], k2[PROTO_KEY_LEN], other[PROTO_CHALLENGE_LEN];
	uint8_t dig[N * PROTO_DIGEST_LEN], *payload = malloc(LEN);
	struct proto_chunk c = {.version = SW_SHUFFLE_VERSION, .len = LEN, .raw_len = LEN}, d = c,
	                   e = c;
	assert_non_null(g);
	assert_non_null(payload);
	for (size_t i = 0; i < LEN; i++)
		payload[i] = (uint8_t)(i * 13 + (i >> 16));
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key), challenge, k), 0);
	memcpy(other, challenge, sizeof(other));
	other[3] ^= 4;
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key), other, k2), 0);
	/* the tag key is the connection's, the piece key the job's */
	assert_memory_not_equal(k, k2, PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN);
	assert_memory_equal(k + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN,
	                    k2 + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN, PROTO_PIECE_KEY_LEN);
	uint8_t pkey[PROTO_PIECE_KEY_LEN];
	assert_int_equal(sw_shuffle_proto_piece_key(key, sizeof(key), pkey), 0);
	assert_memory_equal(pkey, k + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN, sizeof(pkey));
	sw_shuffle_proto_digests(g, pkey, payload, LEN, dig);
	assert_int_equal(sw_shuffle_proto_chunk_seal(g, k, 9, &c, payload, LEN), 0);
	assert_int_equal(sw_shuffle_proto_chunk_seal_digests(g, k, 9, &d, dig, N), 0);
	assert_memory_equal(c.tag, d.tag, PROTO_TAG_LEN);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 9, &d, payload, LEN), 0);
	/* g keeps its keys between calls: another connection's key is not the one it holds */
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k2, 9, &d, payload, LEN), -EBADMSG);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 9, &d, payload, LEN), 0);
	payload[2 * PROTO_PIECE + 1] ^= 0x10; /* a byte of the third piece */
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 9, &d, payload, LEN), -EBADMSG);
	payload[2 * PROTO_PIECE + 1] ^= 0x10;
	uint8_t swapped[N * PROTO_DIGEST_LEN];
	memcpy(swapped, dig, sizeof(dig));
	memcpy(swapped, dig + PROTO_DIGEST_LEN, PROTO_DIGEST_LEN);
	memcpy(swapped + PROTO_DIGEST_LEN, dig, PROTO_DIGEST_LEN);
	assert_int_equal(sw_shuffle_proto_chunk_seal_digests(g, k, 9, &e, swapped, N), 0);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 9, &e, payload, LEN), -EBADMSG);
	static const uint8_t other_job[] = "the secret of another job";
	assert_int_equal(sw_shuffle_proto_piece_key(other_job, sizeof(other_job), pkey), 0);
	sw_shuffle_proto_digests(g, pkey, payload, LEN, dig);
	assert_int_equal(sw_shuffle_proto_chunk_seal_digests(g, k, 9, &e, dig, N), 0);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 9, &e, payload, LEN), -EBADMSG);
	/* no payload: the tag of the header alone, either way */
	c.len = c.raw_len = d.len = d.raw_len = 0;
	assert_int_equal(sw_shuffle_proto_chunk_seal(g, k, 9, &c, NULL, 0), 0);
	assert_int_equal(sw_shuffle_proto_chunk_seal_digests(g, k, 9, &d, NULL, 0), 0);
	assert_memory_equal(c.tag, d.tag, PROTO_TAG_LEN);
	free(payload);
	sw_shuffle_proto_tag_free(g);
}

/* The request's MAC and the answer keys are HMAC-SHA256 as OpenSSL computes it (auth.c takes
 * nettle's), for secrets of the shortest, a middling and the longest length. */
static void macs_and_keys_are_openssls_hmac_sha256(void **state)
{
	(void)state;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX], req[PROTO_REQ_LEN], in[PROTO_CHALLENGE_LEN + 64];
	uint8_t want[32], got[PROTO_MAC_LEN], k[PROTO_KEY_LEN];
	for (size_t i = 0; i < sizeof(secret); i++)
		secret[i] = (uint8_t)(i * 29 + 1);
	for (size_t i = 0; i < sizeof(req); i++)
		req[i] = (uint8_t)(i * 7);
	static const size_t lens[] = {SW_SHUFFLE_SECRET_MIN, 21, SW_SHUFFLE_SECRET_MAX};
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		unsigned n = 0;
		memcpy(in, challenge, PROTO_CHALLENGE_LEN);
		memcpy(in + PROTO_CHALLENGE_LEN, req, PROTO_REQ_MACED);
		assert_non_null(HMAC(EVP_sha256(), secret, (int)lens[l], in,
		                     PROTO_CHALLENGE_LEN + PROTO_REQ_MACED, want, &n));
		assert_int_equal(sw_shuffle_proto_mac(secret, lens[l], challenge, req, got), 0);
		assert_memory_equal(got, want, PROTO_MAC_LEN);
		assert_int_equal(sw_shuffle_proto_answer_key(secret, lens[l], challenge, k), 0);
		memcpy(in, "SWFA key", 8);
		memcpy(in + 8, challenge, PROTO_CHALLENGE_LEN);
		HMAC(EVP_sha256(), secret, (int)lens[l], in, 8 + PROTO_CHALLENGE_LEN, want, &n);
		assert_memory_equal(k, want, PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN);
		HMAC(EVP_sha256(), secret, (int)lens[l], (const uint8_t *)"SWFB key", 8, want, &n);
		assert_memory_equal(k + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN, want,
		                    PROTO_PIECE_KEY_LEN);
	}
}

/* The answer tag is AES-128-GCM as OpenSSL computes it with no plaintext (GMAC): IV the nonce
 * and seq, additional data the header's first 40 bytes and the pieces' digests. Payloads of no
 * piece, one, four, 27 (additional data of exactly 256 bytes, the size auth.c gathers it in)
 * and 40 pieces. */
static void answer_tag_is_openssls_aes_gcm_over_header_and_digests(void **state)
{
	(void)state;
	static const size_t lens[] = {0, 5, 3 * PROTO_PIECE + 5, 27 * PROTO_PIECE,
	                              40 * PROTO_PIECE};
	enum { MAX = 40 * PROTO_PIECE, N = MAX / PROTO_PIECE };
	uint8_t *payload = malloc(MAX), k[PROTO_KEY_LEN], aad[PROTO_CHUNK_LEN + N * 8];
	struct proto_tag *g = sw_shuffle_proto_tag_new();
	assert_non_null(payload);
	assert_non_null(g);
	for (size_t i = 0; i < MAX; i++)
		payload[i] = (uint8_t)(i * 31 + (i >> 13));
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key), challenge, k), 0);
	for (size_t l = 0; l < sizeof(lens) / sizeof(lens[0]); l++) {
		size_t len = lens[l], n = (len + PROTO_PIECE - 1) / PROTO_PIECE;
		struct proto_chunk c = {.version = SW_SHUFFLE_VERSION,
		                        .seq = (uint32_t)l + 0x01020304,
		                        .len = (uint32_t)len,
		                        .raw_len = (uint32_t)len,
		                        .total = len};
		uint64_t nonce = 0x1122334455667788ull + l;
		assert_int_equal(sw_shuffle_proto_chunk_seal(g, k, nonce, &c, payload, len), 0);
		sw_shuffle_proto_chunk_encode(&c, aad);
		sw_shuffle_proto_digests(g, k + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN, payload, len,
		                         aad + PROTO_CHUNK_TAGGED);
		uint8_t iv[12], want[PROTO_TAG_LEN];
		for (int i = 0; i < 8; i++)
			iv[i] = (uint8_t)(nonce >> (8 * i));
		for (int i = 0; i < 4; i++)
			iv[8 + i] = (uint8_t)(c.seq >> (8 * i));
		EVP_CIPHER_CTX *x = EVP_CIPHER_CTX_new();
		int m;
		assert_int_equal(EVP_EncryptInit_ex(x, EVP_aes_128_gcm(), NULL, k, iv), 1);
		assert_int_equal(
		        EVP_EncryptUpdate(x, NULL, &m, aad,
		                          (int)(PROTO_CHUNK_TAGGED + n * PROTO_DIGEST_LEN)),
		        1);
		assert_int_equal(EVP_EncryptFinal_ex(x, NULL, &m), 1);
		assert_int_equal(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_GCM_GET_TAG, sizeof(want), want),
		                 1);
		EVP_CIPHER_CTX_free(x);
		assert_memory_equal(c.tag, want, PROTO_TAG_LEN);
	}
	sw_shuffle_proto_tag_free(g);
	free(payload);
}

/* Our UMAC-64 of len bytes of d under k (expanded in ours) is nettle's with the zero nonce, with
 * the AVX2 NH (where the CPU has it) and the portable one. */
static void umac64_matches_nettle(const uint8_t k[UMAC_KEY_LEN], const struct umac64_key *ours,
                                  const uint8_t *d, size_t len)
{
	static const uint8_t zero[16];
	uint8_t want[UMAC_TAG_LEN], got[UMAC_TAG_LEN];
	struct umac64_ctx ref;
	umac64_set_key(&ref, k);
	umac64_set_nonce(&ref, sizeof(zero), zero);
	umac64_update(&ref, len, d);
	umac64_digest(&ref, sizeof(want), want);
	for (int simd = 0; simd < 2; simd++) {
		sw_shuffle_umac_simd(simd);
		sw_shuffle_umac64(ours, d, len, got);
		assert_memory_equal(got, want, sizeof(want));
	}
	sw_shuffle_umac_simd(true);
}

/* Our UMAC-64 (umac.c) against nettle's, which checks itself against RFC 4418's vectors: random
 * keys and bytes, lengths around the 32-byte NH groups and 1,024-byte blocks, a piece, 1 MiB. */
static void umac64_is_nettles_for_every_length_and_both_nh_codes(void **state)
{
	(void)state;
	static const size_t lens[] = {0,         1,     3,     31,    32,     33,   63,
	                              64,        1023,  1024,  1025,  2047,   2048, 2049,
	                              4096 + 17, 65535, 65536, 65537, 1 << 20};
	enum { MAX = 1 << 20, NLENS = sizeof(lens) / sizeof(lens[0]) };
	uint8_t *d = malloc(MAX);
	assert_non_null(d);
	srand(7);
	for (int rep = 0; rep < 20; rep++) {
		uint8_t k[UMAC_KEY_LEN];
		for (size_t i = 0; i < sizeof(k); i++)
			k[i] = (uint8_t)rand();
		for (size_t i = 0; i < MAX; i++)
			d[i] = rep % 4 == 3 ? 0xff : (uint8_t)rand();
		struct umac64_key ours;
		sw_shuffle_umac64_key(&ours, k);
		for (size_t li = 0; li < NLENS + 10; li++)
			umac64_matches_nettle(k, &ours, d,
			                      li < NLENS ? lens[li] : (size_t)rand() % 70000);
	}
	free(d);
}

/* POLY-64 takes a block's value from 2^64 - 2^32 on as two words (RFC 4418, 5.3). Random bytes
 * make one with odds of 2^-32, so a block is made to: the first iteration's NH of it is
 * (2^32 - 1)^2 + 2 * 2^31 = 2^64 - 2^32 + 1, and its length in bits comes on top. */
static void umac64_takes_large_block_values_as_poly64_does(void **state)
{
	(void)state;
	uint8_t k[UMAC_KEY_LEN] = "large-nh-values", d[2 * 1024];
	struct umac64_key ours;
	sw_shuffle_umac64_key(&ours, k);
	uint32_t t[256] = {0xffffffff, 2, 0, 0, 0xffffffff, 0x80000000}; /* word + key */
	for (int i = 0; i < 256; i++)
		for (int j = 0; j < 4; j++) /* little-endian, as NH reads words */
			d[4 * i + j] = (uint8_t)((t[i] - ours.l1[i]) >> (8 * j));
	for (size_t i = 1024; i < sizeof(d); i++)
		d[i] = (uint8_t)(i * 7);
	umac64_matches_nettle(k, &ours, d, sizeof(d));
}

/* A connection derives a job's answer keys once; another secret gets its own keys. */
static void cached_answer_keys_are_those_of_the_secret_asked_for(void **state)
{
	(void)state;
	static const uint8_t other_job[] = "the secret of another job";
	struct proto_keycache kc = {0};
	uint8_t k[PROTO_KEY_LEN], want[PROTO_KEY_LEN], want2[PROTO_KEY_LEN];
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key), challenge, want), 0);
	assert_int_equal(
	        sw_shuffle_proto_answer_key(other_job, sizeof(other_job), challenge, want2), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(
		        sw_shuffle_proto_answer_key_cached(&kc, key, sizeof(key), challenge, k), 0);
		assert_memory_equal(k, want, sizeof(k));
		assert_int_equal(sw_shuffle_proto_answer_key_cached(
		                         &kc, other_job, sizeof(other_job), challenge, k),
		                 0);
		assert_memory_equal(k, want2, sizeof(k));
	}
	/* the same bytes, one shorter: another secret */
	assert_int_equal(
	        sw_shuffle_proto_answer_key_cached(&kc, key, sizeof(key) - 1, challenge, k), 0);
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key) - 1, challenge, want), 0);
	assert_memory_equal(k, want, sizeof(k));
}

static void answer_tag_fails_on_any_changed_bit_nonce_key_or_connection(void **state)
{
	(void)state;
	struct proto_tag *g = sw_shuffle_proto_tag_new();
	uint8_t k[PROTO_KEY_LEN], k2[PROTO_KEY_LEN], payload[300], other[PROTO_CHALLENGE_LEN];
	struct proto_chunk c = {.version = SW_SHUFFLE_VERSION,
	                        .seq = 5,
	                        .len = sizeof(payload),
	                        .raw_len = sizeof(payload),
	                        .offset = 4096,
	                        .total = 1 << 20},
	                   d;
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)(i * 7);
	assert_non_null(g);
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key), challenge, k), 0);
	memcpy(other, challenge, sizeof(other));
	other[0] ^= 1;
	assert_int_equal(sw_shuffle_proto_answer_key(key, sizeof(key), other, k2), 0);
	assert_memory_not_equal(k, k2, sizeof(k));
	c.data_crc = sw_shuffle_proto_crc32c(payload, sizeof(payload));
	assert_int_equal(sw_shuffle_proto_chunk_seal(g, k, 77, &c, payload, sizeof(payload)), 0);
	uint8_t hdr[PROTO_CHUNK_LEN];
	sw_shuffle_proto_chunk_encode(&c, hdr);
	assert_int_equal(sw_shuffle_proto_chunk_decode(hdr, sizeof(hdr), &d), 0);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 77, &d, payload, sizeof(payload)), 0);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 78, &d, payload, sizeof(payload)),
	                 -EBADMSG);
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k2, 77, &d, payload, sizeof(payload)),
	                 -EBADMSG);
	for (size_t bit = 0; bit < 8 * sizeof(payload); bit++) {
		payload[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		assert_int_equal(
		        sw_shuffle_proto_chunk_check(g, k, 77, &d, payload, sizeof(payload)),
		        -EBADMSG);
		payload[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	struct proto_chunk e = d; /* a header field changed and its CRC made right again */
	e.offset++;
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 77, &e, payload, sizeof(payload)),
	                 -EBADMSG);
	e = d;
	e.seq = 6;
	assert_int_equal(sw_shuffle_proto_chunk_check(g, k, 77, &e, payload, sizeof(payload)),
	                 -EBADMSG);
	sw_shuffle_proto_tag_free(g);
}

static void crc32c_matches_the_castagnoli_check_value(void **state)
{
	(void)state;
	assert_int_equal(sw_shuffle_proto_crc32c("123456789", 9), 0xe3069283);
	assert_int_equal(sw_shuffle_proto_crc32c("", 0), 0);
}

static void crc32c_of_two_pieces_combines_into_that_of_the_whole(void **state)
{
	(void)state;
	static uint8_t buf[300000];
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 2654435761u >> 13);
	const size_t cuts[] = {0, 1, 7, 4096, 65536, 65537, 123457, sizeof(buf) - 1, sizeof(buf)};
	uint32_t whole = sw_shuffle_proto_crc32c(buf, sizeof(buf));
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t a = cuts[i], b = sizeof(buf) - a;
		assert_int_equal(
		        sw_shuffle_proto_crc32c_combine(sw_shuffle_proto_crc32c(buf, a),
		                                        sw_shuffle_proto_crc32c(buf + a, b), b),
		        whole);
	}
	/* past 2^28 bytes the powers of x repeat (every 31 doublings for this polynomial):
	 * "123456789" and 2 GiB + 5 zero bytes, combined, against one CRC pass over them all */
	static uint8_t zeros[1 << 16];
	const uint64_t nz = (1ull << 31) + 5;
	uint32_t z = 0;
	unsigned int run = crc32_iscsi((unsigned char *)"123456789", 9, 0xffffffffu);
	for (uint64_t n = 0; n < nz; n += sizeof(zeros)) {
		size_t piece = nz - n < sizeof(zeros) ? (size_t)(nz - n) : sizeof(zeros);
		z = sw_shuffle_proto_crc32c_combine(z, sw_shuffle_proto_crc32c(zeros, piece),
		                                    piece);
		run = crc32_iscsi(zeros, (int)piece, run);
	}
	assert_int_equal(
	        sw_shuffle_proto_crc32c_combine(sw_shuffle_proto_crc32c("123456789", 9), z, nz),
	        ~run);
}

static void packing_round_trips_for_each_codec_and_sends_incompressible_data_raw(void **state)
{
	(void)state;
	struct proto_zctx *z = sw_shuffle_proto_zctx_new();
	size_t n = 100000, wl;
	uint8_t *raw = malloc(n), *wire = malloc(sw_shuffle_proto_pack_bound(n)), *back = malloc(n);
	assert_non_null(z);
	for (size_t i = 0; i < n; i++)
		raw[i] = (uint8_t)(i / 100);
	for (int codec = PROTO_RAW; codec <= PROTO_ZSTD; codec++) {
		int used = sw_shuffle_proto_pack(z, codec, raw, n, wire, &wl);
		assert_int_equal(used, codec);
		assert_true(codec == PROTO_RAW ? wl == n : wl < n / 4);
		assert_int_equal(sw_shuffle_proto_unpack(z, (uint8_t)used, wire, wl, back, n), 0);
		assert_memory_equal(back, raw, n);
		if (codec != PROTO_RAW) { /* a damaged or cut frame fails cleanly */
			assert_true(sw_shuffle_proto_unpack(z, (uint8_t)used, wire, wl / 2, back,
			                                    n) < 0);
			assert_true(sw_shuffle_proto_unpack(z, (uint8_t)used, wire, wl, back,
			                                    n - 1) < 0);
		}
	}
	uint64_t x = 88172645463325252ull; /* xorshift: incompressible */
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		raw[i] = (uint8_t)x;
	}
	assert_int_equal(sw_shuffle_proto_pack(z, PROTO_LZ4, raw, n, wire, &wl), PROTO_RAW);
	assert_int_equal(sw_shuffle_proto_pack(z, PROTO_ZSTD, raw, n, wire, &wl), PROTO_RAW);
	assert_int_equal(wl, n);
	assert_int_equal(sw_shuffle_proto_unpack(z, 7, wire, wl, back, n), -EBADMSG);
	free(raw);
	free(wire);
	free(back);
	sw_shuffle_proto_zctx_free(z);
}

static void status_codes_map_to_errno_and_back(void **state)
{
	(void)state;
	for (uint8_t s = 0; s <= PROTO_E_MAX; s++)
		assert_int_equal(sw_shuffle_proto_err_status(sw_shuffle_proto_status_err(s)), s);
	assert_int_equal(sw_shuffle_proto_status_err(200), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(request_round_trips_every_field),
	        cmocka_unit_test(request_layout_is_little_endian_at_documented_offsets),
	        cmocka_unit_test(request_decoder_rejects_every_malformed_frame),
	        cmocka_unit_test(chunk_header_round_trips_and_detects_any_flipped_bit),
	        cmocka_unit_test(chunk_decoder_rejects_inconsistent_fields),
	        cmocka_unit_test(rkey_descriptor_round_trips_and_rejects_bad_lengths),
	        cmocka_unit_test(hmac_verifies_and_rejects_any_changed_field_or_key),
	        cmocka_unit_test(hello_round_trips_and_rejects_other_versions_and_lengths),
	        cmocka_unit_test(answer_tag_fails_on_any_changed_bit_nonce_key_or_connection),
	        cmocka_unit_test(cached_answer_keys_are_those_of_the_secret_asked_for),
	        cmocka_unit_test(answer_tag_from_put_time_digests_is_the_tag_over_the_bytes),
	        cmocka_unit_test(macs_and_keys_are_openssls_hmac_sha256),
	        cmocka_unit_test(answer_tag_is_openssls_aes_gcm_over_header_and_digests),
	        cmocka_unit_test(umac64_is_nettles_for_every_length_and_both_nh_codes),
	        cmocka_unit_test(umac64_takes_large_block_values_as_poly64_does),
	        cmocka_unit_test(crc32c_matches_the_castagnoli_check_value),
	        cmocka_unit_test(crc32c_of_two_pieces_combines_into_that_of_the_whole),
	        cmocka_unit_test(
	                packing_round_trips_for_each_codec_and_sends_incompressible_data_raw),
	        cmocka_unit_test(status_codes_map_to_errno_and_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
