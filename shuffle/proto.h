/* SPDX-License-Identifier: MIT */
/*
 * Fetch protocol frames (private to shuffle/ and its tests; the byte layout is in README.md).
 * All integers little-endian. Decoders validate everything a peer controls and return 0,
 * -EBADMSG (truncated, bad magic, bad CRC, out-of-range field) or -EPROTONOSUPPORT (version).
 */
#ifndef SW_SHUFFLE_PROTO_H
#define SW_SHUFFLE_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw_shuffle.h"

#define PROTO_REQ_MAGIC    0x51465753u /* "SWFQ" */
#define PROTO_CHUNK_MAGIC  0x43465753u /* "SWFC" */
#define PROTO_HELLO_MAGIC  0x48465753u /* "SWFH" */
#define PROTO_REQ_LEN      96
#define PROTO_REQ_MACED    64 /* the HMAC covers the challenge and bytes [0, 64) */
#define PROTO_MAC_LEN      32
#define PROTO_CHUNK_LEN    64
#define PROTO_CHUNK_TAGGED 40 /* the answer tag covers header bytes [0, 40) and the payload */
#define PROTO_TAG_LEN      16
/* A connection's answer keys for one job: the AES-128 key of the tags (from the challenge),
 * then the job's UMAC piece key (the same on every connection, see auth.c) */
#define PROTO_KEY_LEN       32
#define PROTO_PIECE_KEY_LEN 16
#define PROTO_PIECE         (64u << 10) /* the tag covers the payload as digests of 64 KiB pieces */
#define PROTO_DIGEST_LEN    8           /* UMAC-64 */
#define PROTO_HELLO_LEN     24
#define PROTO_CHALLENGE_LEN 16
#define PROTO_RKEY_MAX      4096 /* largest rkey blob accepted */

enum proto_type {
	PROTO_FETCH = 1,   /* stream (or lease, if allowed) a range */
	PROTO_RELEASE = 2, /* end a one-sided lease on the same (job, map, partition) */
};

enum proto_req_flags {
	PROTO_WANT_LZ4 = 1u << 0,
	PROTO_WANT_ZSTD = 1u << 1,
	PROTO_ONE_SIDED = 1u << 2, /* the client can read remote memory itself */
	PROTO_REQ_FLAGS = 0x7,
};

enum proto_codec {
	PROTO_RAW = 0,
	PROTO_LZ4 = 1,
	PROTO_ZSTD = 2,
};

enum proto_chunk_flags {
	PROTO_LAST = 1u << 0,
	PROTO_RKEY = 1u << 1, /* payload is an rkey descriptor, not data */
	PROTO_CHUNK_FLAGS = 0x3,
};

/* Answer status codes on the wire. */
enum proto_status {
	PROTO_OK = 0,
	PROTO_E_VERSION = 1,
	PROTO_E_FRAME = 2,
	PROTO_E_HMAC = 3,
	PROTO_E_JOB = 4,
	PROTO_E_PART = 5,
	PROTO_E_RANGE = 6,
	PROTO_E_IO = 7,
	PROTO_E_NOMEM = 8,
	PROTO_E_MAX = PROTO_E_NOMEM,
};

struct proto_req {
	uint8_t version, type, flags;
	uint64_t job;
	uint32_t map, part;
	uint64_t offset, length;
	uint32_t chunk; /* 0 = server default */
	uint64_t nonce, ts_ns;
	uint8_t mac[PROTO_MAC_LEN];
};

struct proto_chunk {
	uint8_t version, status, codec, flags;
	uint32_t seq, len, raw_len, data_crc;
	uint64_t offset, total;
	uint8_t tag[PROTO_TAG_LEN]; /* GMAC of the answer, zero where no key was proved */
};

struct proto_rkey {
	uint64_t addr;  /* remote address of the range's first byte */
	uint32_t chunk; /* bytes covered by each CRC */
	uint32_t nchunks;
	uint32_t rkey_len;
	const uint8_t *crcs; /* nchunks little-endian u32, inside the decoded buffer */
	const uint8_t *rkey;
};

void sw_shuffle_proto_req_encode(const struct proto_req *r, uint8_t out[PROTO_REQ_LEN]);
int sw_shuffle_proto_req_decode(const uint8_t *buf, size_t len, struct proto_req *r);
void sw_shuffle_proto_chunk_encode(const struct proto_chunk *c, uint8_t out[PROTO_CHUNK_LEN]);
int sw_shuffle_proto_chunk_decode(const uint8_t *buf, size_t len, struct proto_chunk *c);
/* Bytes an rkey descriptor takes; encode writes it (crcs given as host u32). */
size_t sw_shuffle_proto_rkey_size(uint32_t nchunks, uint32_t rkey_len);
void sw_shuffle_proto_rkey_encode(uint64_t addr, uint32_t chunk, const uint32_t *crcs,
                                  uint32_t nchunks, const void *rkey, uint32_t rkey_len,
                                  uint8_t *out);
int sw_shuffle_proto_rkey_decode(const uint8_t *buf, size_t len, struct proto_rkey *k);
uint32_t sw_shuffle_proto_rkey_crc(const struct proto_rkey *k, uint32_t i);

/* Status <-> negative errno. */
int sw_shuffle_proto_status_err(uint8_t status);
uint8_t sw_shuffle_proto_err_status(int err);

/* CRC32C (Castagnoli) through ISA-L. */
uint32_t sw_shuffle_proto_crc32c(const void *buf, size_t len);
/* The CRC32C of A followed by B from crc_a, crc_b and B's length, without the bytes (zlib's
 * crc32_combine for the Castagnoli polynomial): a server serves a chunk's CRC from the
 * store's per-block CRCs of put time instead of reading its bytes once more. */
uint32_t sw_shuffle_proto_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b);

/* The server's first message on a connection: a random challenge that every request's MAC
 * and every answer's key are bound to, so nothing recorded on one connection works on another. */
void sw_shuffle_proto_hello_encode(const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                   uint8_t out[PROTO_HELLO_LEN]);
int sw_shuffle_proto_hello_decode(const uint8_t *buf, size_t len,
                                  uint8_t challenge[PROTO_CHALLENGE_LEN]);
/* A fresh random challenge (RAND_bytes): 0 or -EIO. */
int sw_shuffle_proto_challenge_new(uint8_t challenge[PROTO_CHALLENGE_LEN]);

/* HMAC-SHA256 of the connection's challenge and an encoded request's first PROTO_REQ_MACED
 * bytes. 0 (nettle's HMAC cannot fail; the int keeps the contract of a MAC that can). */
int sw_shuffle_proto_mac(const uint8_t *key, size_t key_len,
                         const uint8_t challenge[PROTO_CHALLENGE_LEN],
                         const uint8_t req[PROTO_REQ_LEN], uint8_t mac[PROTO_MAC_LEN]);
/* 0 if the request's MAC matches (constant-time compare), -EACCES otherwise. */
int sw_shuffle_proto_mac_verify(const uint8_t *key, size_t key_len,
                                const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                const uint8_t req[PROTO_REQ_LEN]);

/*
 * Answer authentication (README.md, "Answer tag"): AES-128-GMAC with a key derived from the
 * job's secret and the connection's challenge, the request's nonce and the chunk's seq as IV
 * (unique: the server accepts each nonce once per connection), over the encoded header's
 * bytes [0, PROTO_CHUNK_TAGGED) and the digest of every PROTO_PIECE of the payload: UMAC-64
 * under the job's piece key with a fixed nonce, a keyed universal hash that a map side takes
 * once at put time. seal sets c->tag (0: nettle's GMAC cannot fail), from the payload or
 * from its digests (n of them, as sw_shuffle_proto_digests gives); check compares it in
 * constant time (0 or -EBADMSG). answer_key derives both keys (0, as seal), piece_key the
 * second alone. A
 * proto_tag holds the keyed contexts of one thread (NULL from new: out of memory).
 */
struct proto_tag;
struct proto_tag *sw_shuffle_proto_tag_new(void);
void sw_shuffle_proto_tag_free(struct proto_tag *g);
int sw_shuffle_proto_answer_key(const uint8_t *secret, size_t secret_len,
                                const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                uint8_t key[PROTO_KEY_LEN]);
int sw_shuffle_proto_piece_key(const uint8_t *secret, size_t secret_len,
                               uint8_t key[PROTO_PIECE_KEY_LEN]);
/* A connection's answer keys for the last secret it used (zeroed with the connection): a
 * connection's fetches of one job derive them once, not two HMACs per request. */
struct proto_keycache {
	uint8_t secret[SW_SHUFFLE_SECRET_MAX];
	size_t secret_len; /* 0: empty */
	uint8_t key[PROTO_KEY_LEN];
};
int sw_shuffle_proto_answer_key_cached(struct proto_keycache *kc, const uint8_t *secret,
                                       size_t secret_len,
                                       const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                       uint8_t key[PROTO_KEY_LEN]);
/* The digests of data's pieces into out (PROTO_DIGEST_LEN bytes each, the last piece may be
 * short); never sent. */
void sw_shuffle_proto_digests(struct proto_tag *g, const uint8_t key[PROTO_PIECE_KEY_LEN],
                              const void *data, size_t len, uint8_t *out);
int sw_shuffle_proto_chunk_seal(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN],
                                uint64_t nonce, struct proto_chunk *c, const void *payload,
                                size_t len);
int sw_shuffle_proto_chunk_seal_digests(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN],
                                        uint64_t nonce, struct proto_chunk *c,
                                        const uint8_t *digests, size_t n);
int sw_shuffle_proto_chunk_check(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN],
                                 uint64_t nonce, const struct proto_chunk *c, const void *payload,
                                 size_t len);
/* Statuses sent before the peer proved a key, so without a tag. */
bool sw_shuffle_proto_status_untagged(uint8_t status);

/*
 * Chunk payloads. pack compresses raw with the codec when that makes it smaller (else sends it
 * raw): returns the codec used and sets *wire_len; out must hold
 * sw_shuffle_proto_pack_bound(raw_len). unpack fills exactly raw_len bytes or returns -EBADMSG.
 */
size_t sw_shuffle_proto_pack_bound(size_t raw_len);
struct proto_zctx;
struct proto_zctx *sw_shuffle_proto_zctx_new(void);
void sw_shuffle_proto_zctx_free(struct proto_zctx *z);
int sw_shuffle_proto_pack(struct proto_zctx *z, enum proto_codec want, const void *raw,
                          size_t raw_len, void *out, size_t *wire_len);
int sw_shuffle_proto_unpack(struct proto_zctx *z, uint8_t codec, const void *wire, size_t wire_len,
                            void *raw, size_t raw_len);

#endif
