/* SPDX-License-Identifier: MIT */
/*
 * Frame codec. Fixed-size headers at fixed offsets, little-endian, so that decoding is a bounds
 * check plus loads and a fuzzer can reach every branch. A reserved field must be zero: a later
 * version can give it a meaning without old peers silently misreading it.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <isa-l/crc.h>

#include "proto.h"

/* Little-endian fields at any alignment: <endian.h> for the order, memcpy for the access. */
static void put_le32(uint8_t *p, uint32_t v)
{
	v = htole32(v);
	memcpy(p, &v, sizeof(v));
}

static void put_le64(uint8_t *p, uint64_t v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

static uint32_t get_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

uint32_t sw_shuffle_proto_crc32c(const void *buf, size_t len)
{
	/* ISA-L takes an int length: feed it in pieces; the state carries across pieces. */
	const uint8_t *p = buf;
	unsigned int crc = 0xffffffffu;
	while (len > 0) {
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		crc = crc32_iscsi((unsigned char *)p, (int)n, crc);
		p += n;
		len -= n;
	}
	return ~crc;
}

/* CRC arithmetic on polynomials over GF(2) modulo the Castagnoli polynomial, bit-reflected as
 * the CRC is (x^0 is bit 31), after Mark Adler's crc32_combine in zlib 1.2.12. */
#define CRC32C_POLY 0x82f63b78u

/* a x b modulo the polynomial. */
static uint32_t multmodp(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;
	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = b & 1 ? (b >> 1) ^ CRC32C_POLY : b >> 1;
	}
	return p;
}

/* x^(2^k) modulo the polynomial, k = 0..30: x^(2^31) is x again for this polynomial, so the
 * powers repeat every 31 (zlib's own table has 32 entries, for a polynomial of period 32). */
static const uint32_t x2n_table[31] = {
        0x40000000, 0x20000000, 0x08000000, 0x00800000, 0x00008000, 0x82f63b78, 0x6ea2d55c,
        0x18b8ea18, 0x510ac59a, 0xb82be955, 0xb8fdb1e7, 0x88e56f72, 0x74c360a4, 0xe4172b16,
        0x0d65762a, 0x35d73a62, 0x28461564, 0xbf455269, 0xe2ea32dc, 0xfe7740e6, 0xf946610b,
        0x3c204f8f, 0x538586e3, 0x59726915, 0x734d5309, 0xbc1ac763, 0x7d0722cc, 0xd289cabe,
        0xe94ca9bc, 0x05b74f3f, 0xa51e1f42};

uint32_t sw_shuffle_proto_crc32c_combine(uint32_t crc_a, uint32_t crc_b, uint64_t len_b)
{
	uint32_t op = 1u << 31; /* x^(8 len_b): shifts A's CRC past B's bytes */
	for (unsigned k = 3; len_b != 0; len_b >>= 1, k++)
		if (len_b & 1)
			op = multmodp(x2n_table[k % 31], op);
	return multmodp(op, crc_a) ^ crc_b;
}

void sw_shuffle_proto_req_encode(const struct proto_req *r, uint8_t out[PROTO_REQ_LEN])
{
	memset(out, 0, PROTO_REQ_LEN);
	put_le32(out + 0, PROTO_REQ_MAGIC);
	out[4] = r->version;
	out[5] = r->type;
	out[6] = r->flags;
	put_le64(out + 8, r->job);
	put_le32(out + 16, r->map);
	put_le32(out + 20, r->part);
	put_le64(out + 24, r->offset);
	put_le64(out + 32, r->length);
	put_le32(out + 40, r->chunk);
	put_le64(out + 48, r->nonce);
	put_le64(out + 56, r->ts_ns);
	memcpy(out + 64, r->mac, PROTO_MAC_LEN);
}

int sw_shuffle_proto_req_decode(const uint8_t *buf, size_t len, struct proto_req *r)
{
	/* version first: a peer speaking another version may also use another length */
	if (len < 8 || get_le32(buf) != PROTO_REQ_MAGIC)
		return -EBADMSG;
	if (buf[4] != SW_SHUFFLE_VERSION)
		return -EPROTONOSUPPORT;
	if (len != PROTO_REQ_LEN || buf[7] != 0 || get_le32(buf + 44) != 0)
		return -EBADMSG;
	r->version = buf[4];
	r->type = buf[5];
	r->flags = buf[6];
	if ((r->type != PROTO_FETCH && r->type != PROTO_RELEASE) || (r->flags & ~PROTO_REQ_FLAGS))
		return -EBADMSG;
	r->job = get_le64(buf + 8);
	r->map = get_le32(buf + 16);
	r->part = get_le32(buf + 20);
	r->offset = get_le64(buf + 24);
	r->length = get_le64(buf + 32);
	r->chunk = get_le32(buf + 40);
	if (r->chunk > SW_SHUFFLE_CHUNK_MAX)
		return -EBADMSG;
	r->nonce = get_le64(buf + 48);
	r->ts_ns = get_le64(buf + 56);
	memcpy(r->mac, buf + 64, PROTO_MAC_LEN);
	return 0;
}

void sw_shuffle_proto_chunk_encode(const struct proto_chunk *c, uint8_t out[PROTO_CHUNK_LEN])
{
	memset(out, 0, PROTO_CHUNK_LEN);
	put_le32(out + 0, PROTO_CHUNK_MAGIC);
	out[4] = c->version;
	out[5] = c->status;
	out[6] = c->codec;
	out[7] = c->flags;
	put_le32(out + 8, c->seq);
	put_le32(out + 12, c->len);
	put_le64(out + 16, c->offset);
	put_le64(out + 24, c->total);
	put_le32(out + 32, c->raw_len);
	put_le32(out + 36, c->data_crc);
	memcpy(out + 40, c->tag, PROTO_TAG_LEN);
	put_le32(out + 60, sw_shuffle_proto_crc32c(out, 60));
}

int sw_shuffle_proto_chunk_decode(const uint8_t *buf, size_t len, struct proto_chunk *c)
{
	if (len < 8 || get_le32(buf) != PROTO_CHUNK_MAGIC)
		return -EBADMSG;
	if (buf[4] != SW_SHUFFLE_VERSION)
		return -EPROTONOSUPPORT;
	if (len != PROTO_CHUNK_LEN || get_le32(buf + 60) != sw_shuffle_proto_crc32c(buf, 60) ||
	    get_le32(buf + 56) != 0)
		return -EBADMSG;
	c->version = buf[4];
	c->status = buf[5];
	c->codec = buf[6];
	c->flags = buf[7];
	c->seq = get_le32(buf + 8);
	c->len = get_le32(buf + 12);
	c->offset = get_le64(buf + 16);
	c->total = get_le64(buf + 24);
	c->raw_len = get_le32(buf + 32);
	c->data_crc = get_le32(buf + 36);
	memcpy(c->tag, buf + 40, PROTO_TAG_LEN);
	if (c->status > PROTO_E_MAX || c->codec > PROTO_ZSTD || (c->flags & ~PROTO_CHUNK_FLAGS))
		return -EBADMSG;
	if (c->raw_len > SW_SHUFFLE_CHUNK_MAX && !(c->flags & PROTO_RKEY))
		return -EBADMSG;
	if (c->len > sw_shuffle_proto_pack_bound(SW_SHUFFLE_CHUNK_MAX))
		return -EBADMSG;
	if (c->codec == PROTO_RAW && c->len != c->raw_len)
		return -EBADMSG;
	if (c->status != PROTO_OK && (c->len != 0 || !(c->flags & PROTO_LAST)))
		return -EBADMSG;
	return 0;
}

void sw_shuffle_proto_hello_encode(const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                   uint8_t out[PROTO_HELLO_LEN])
{
	memset(out, 0, PROTO_HELLO_LEN);
	put_le32(out, PROTO_HELLO_MAGIC);
	out[4] = SW_SHUFFLE_VERSION;
	memcpy(out + 8, challenge, PROTO_CHALLENGE_LEN);
}

int sw_shuffle_proto_hello_decode(const uint8_t *buf, size_t len,
                                  uint8_t challenge[PROTO_CHALLENGE_LEN])
{
	if (len < 8 || get_le32(buf) != PROTO_HELLO_MAGIC)
		return -EBADMSG;
	if (buf[4] != SW_SHUFFLE_VERSION)
		return -EPROTONOSUPPORT;
	if (len != PROTO_HELLO_LEN || buf[5] != 0 || buf[6] != 0 || buf[7] != 0)
		return -EBADMSG;
	memcpy(challenge, buf + 8, PROTO_CHALLENGE_LEN);
	return 0;
}

bool sw_shuffle_proto_status_untagged(uint8_t status)
{
	return status == PROTO_E_VERSION || status == PROTO_E_FRAME || status == PROTO_E_HMAC;
}

size_t sw_shuffle_proto_rkey_size(uint32_t nchunks, uint32_t rkey_len)
{
	return 24 + 4 * (size_t)nchunks + rkey_len;
}

void sw_shuffle_proto_rkey_encode(uint64_t addr, uint32_t chunk, const uint32_t *crcs,
                                  uint32_t nchunks, const void *rkey, uint32_t rkey_len,
                                  uint8_t *out)
{
	put_le64(out, addr);
	put_le32(out + 8, chunk);
	put_le32(out + 12, nchunks);
	put_le32(out + 16, rkey_len);
	put_le32(out + 20, 0);
	for (uint32_t i = 0; i < nchunks; i++)
		put_le32(out + 24 + 4 * (size_t)i, crcs[i]);
	memcpy(out + 24 + 4 * (size_t)nchunks, rkey, rkey_len);
}

int sw_shuffle_proto_rkey_decode(const uint8_t *buf, size_t len, struct proto_rkey *k)
{
	if (len < 24 || get_le32(buf + 20) != 0)
		return -EBADMSG;
	k->addr = get_le64(buf);
	k->chunk = get_le32(buf + 8);
	k->nchunks = get_le32(buf + 12);
	k->rkey_len = get_le32(buf + 16);
	if (k->chunk == 0 || k->chunk > SW_SHUFFLE_CHUNK_MAX || k->rkey_len == 0 ||
	    k->rkey_len > PROTO_RKEY_MAX || k->nchunks > (len - 24) / 4 ||
	    len != sw_shuffle_proto_rkey_size(k->nchunks, k->rkey_len))
		return -EBADMSG;
	k->crcs = buf + 24;
	k->rkey = buf + 24 + 4 * (size_t)k->nchunks;
	return 0;
}

uint32_t sw_shuffle_proto_rkey_crc(const struct proto_rkey *k, uint32_t i)
{
	return get_le32(k->crcs + 4 * (size_t)i);
}

static const int status_err[] = {
        [PROTO_OK] = 0,
        [PROTO_E_VERSION] = -EPROTONOSUPPORT,
        [PROTO_E_FRAME] = -EBADMSG,
        [PROTO_E_HMAC] = -EACCES,
        [PROTO_E_JOB] = -ESRCH,
        [PROTO_E_PART] = -ENOENT,
        [PROTO_E_RANGE] = -ERANGE,
        [PROTO_E_IO] = -EIO,
        [PROTO_E_NOMEM] = -ENOMEM,
};

int sw_shuffle_proto_status_err(uint8_t status)
{
	return status <= PROTO_E_MAX ? status_err[status] : -EBADMSG;
}

uint8_t sw_shuffle_proto_err_status(int err)
{
	for (uint8_t s = 0; s <= PROTO_E_MAX; s++)
		if (status_err[s] == err)
			return s;
	return PROTO_E_IO;
}
