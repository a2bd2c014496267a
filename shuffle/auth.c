/* SPDX-License-Identifier: MIT */
/*
 * Authentication as in Hadoop's shuffle, bound to the connection. A request's MAC covers every
 * request field (ids, range, nonce) and the server's per-connection challenge, so a reducer of
 * one job cannot read another job's output, a request cannot be altered in flight, and one
 * recorded on a connection is refused on any other (and on its own: nonces only grow).
 * Answers carry an AES-GMAC tag under a key derived from the job's secret and the challenge:
 * GMAC, not HMAC, because it runs at several GB/s (GHASH on carry-less multiply) where SHA-256
 * would halve a fetch's speed. The tag covers the payload through digests of its 64 KiB pieces
 * (a keyed universal hash: UMAC-64 under a per-job key with a fixed nonce, never sent), so that
 * a map side can take them once at put time instead of passing over every byte it serves, and
 * a reducer passes over the bytes with NH, 1.4-1.6 times as fast here as GHASH (README.md,
 * "UMAC-64 for the pieces"). HMAC and GCM are nettle's, whose calls cost a fraction of OpenSSL
 * 3.0's on the few bytes they take here (README.md, "HMAC and GMAC from nettle").
 */
#include <errno.h>
#include <string.h>

#include <nettle/gcm.h>
#include <nettle/hmac.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include "proto.h"
#include "umac.h"

/* Each part keeps the key it was last given: keying GCM (AES's schedule, GHASH's table) and UMAC
 * (its NH key stream, 72 AES blocks) costs more than a 64 KiB answer's tag itself, and a
 * connection's answers, a job's pieces, come under one key. */
struct proto_tag {
	struct gcm_aes128_ctx x; /* the tag */
	uint8_t xkey[PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN];
	bool xkeyed;
	struct umac64_key p; /* the pieces' digests */
	uint8_t pkey[PROTO_PIECE_KEY_LEN];
	bool pkeyed;
};

/* HMAC-SHA256 under key of a followed by b. nettle's, on a context of the stack: 0.7 us a call here
 * against 1.1 for OpenSSL 3.0's EVP_MAC on a context kept per thread, and a fetch makes two in its
 * latency path (the request's MAC on each end). */
static void hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *a, size_t a_len,
                        const uint8_t *b, size_t b_len, uint8_t out[PROTO_MAC_LEN])
{
	struct hmac_sha256_ctx c;
	hmac_sha256_set_key(&c, key_len, key);
	hmac_sha256_update(&c, a_len, a);
	hmac_sha256_update(&c, b_len, b);
	hmac_sha256_digest(&c, PROTO_MAC_LEN, out);
	OPENSSL_cleanse(&c, sizeof(c)); /* the keyed state */
}

int sw_shuffle_proto_mac(const uint8_t *key, size_t key_len,
                         const uint8_t challenge[PROTO_CHALLENGE_LEN],
                         const uint8_t req[PROTO_REQ_LEN], uint8_t mac[PROTO_MAC_LEN])
{
	hmac_sha256(key, key_len, challenge, PROTO_CHALLENGE_LEN, req, PROTO_REQ_MACED, mac);
	return 0;
}

int sw_shuffle_proto_mac_verify(const uint8_t *key, size_t key_len,
                                const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                const uint8_t req[PROTO_REQ_LEN])
{
	uint8_t mac[PROTO_MAC_LEN];
	sw_shuffle_proto_mac(key, key_len, challenge, req, mac);
	return CRYPTO_memcmp(mac, req + PROTO_REQ_MACED, PROTO_MAC_LEN) == 0 ? 0 : -EACCES;
}

/* HMAC-SHA256(secret, label || data) cut to len bytes: a key for one purpose (the labels keep
 * these HMAC inputs apart from each other's and from any request's). */
static void derive(const uint8_t *secret, size_t secret_len, const char label[8],
                   const uint8_t *data, size_t data_len, uint8_t *key, size_t len)
{
	uint8_t out[PROTO_MAC_LEN];
	hmac_sha256(secret, secret_len, (const uint8_t *)label, 8, data, data_len, out);
	memcpy(key, out, len);
	OPENSSL_cleanse(out, sizeof(out));
}

int sw_shuffle_proto_piece_key(const uint8_t *secret, size_t secret_len,
                               uint8_t key[PROTO_PIECE_KEY_LEN])
{
	derive(secret, secret_len, "SWFB key", NULL, 0, key, PROTO_PIECE_KEY_LEN);
	return 0;
}

int sw_shuffle_proto_answer_key(const uint8_t *secret, size_t secret_len,
                                const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                uint8_t key[PROTO_KEY_LEN])
{
	derive(secret, secret_len, "SWFA key", challenge, PROTO_CHALLENGE_LEN, key,
	       PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN);
	return sw_shuffle_proto_piece_key(secret, secret_len,
	                                  key + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN);
}

int sw_shuffle_proto_answer_key_cached(struct proto_keycache *kc, const uint8_t *secret,
                                       size_t secret_len,
                                       const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                       uint8_t key[PROTO_KEY_LEN])
{
	if (kc->secret_len != secret_len || secret_len > sizeof(kc->secret) ||
	    CRYPTO_memcmp(kc->secret, secret, secret_len) != 0) {
		kc->secret_len = 0;
		if (secret_len > sizeof(kc->secret) ||
		    sw_shuffle_proto_answer_key(secret, secret_len, challenge, kc->key) < 0)
			return -EIO;
		memcpy(kc->secret, secret, secret_len);
		kc->secret_len = secret_len;
	}
	memcpy(key, kc->key, PROTO_KEY_LEN);
	return 0;
}

struct proto_tag *sw_shuffle_proto_tag_new(void)
{
	return OPENSSL_zalloc(sizeof(struct proto_tag));
}

void sw_shuffle_proto_tag_free(struct proto_tag *g)
{
	/* the keys, the GHASH tables, the NH key stream */
	if (g != NULL)
		OPENSSL_clear_free(g, sizeof(*g));
}

/* The tag's additional data, gathered: nettle's GCM takes it in whole 16-byte blocks until its
 * last piece, and a header is 40 bytes, a digest 8. */
struct aad {
	uint8_t b[256];
	size_t n;
};

static void aad_add(struct proto_tag *g, struct aad *a, const uint8_t *p, size_t len)
{
	while (len > 0) {
		size_t k = len < sizeof(a->b) - a->n ? len : sizeof(a->b) - a->n;
		memcpy(a->b + a->n, p, k);
		a->n += k;
		p += k;
		len -= k;
		if (a->n == sizeof(a->b)) {
			gcm_aes128_update(&g->x, a->n, a->b);
			a->n = 0;
		}
	}
}

/* Keys g's digests with key unless they hold it already. */
static void piece_key(struct proto_tag *g, const uint8_t key[PROTO_PIECE_KEY_LEN])
{
	if (g->pkeyed && CRYPTO_memcmp(g->pkey, key, PROTO_PIECE_KEY_LEN) == 0)
		return;
	sw_shuffle_umac64_key(&g->p, key);
	memcpy(g->pkey, key, PROTO_PIECE_KEY_LEN);
	g->pkeyed = true;
}

static size_t pieces(size_t len)
{
	return (len + PROTO_PIECE - 1) / PROTO_PIECE;
}

/* The UMAC-64 digest of piece @p i of the @p len bytes at @p data, under the piece key g->p
 * holds. A fixed nonce is safe here only because digests never leave the process: they are
 * the tag's input, and the tag's own fresh IV masks them (README.md, "Answer tag"). */
static void digest(struct proto_tag *g, const uint8_t *data, size_t len, size_t i,
                   uint8_t out[PROTO_DIGEST_LEN])
{
	size_t off = i * PROTO_PIECE;
	sw_shuffle_umac64(&g->p, data + off, len - off < PROTO_PIECE ? len - off : PROTO_PIECE,
	                  out);
}

void sw_shuffle_proto_digests(struct proto_tag *g, const uint8_t key[PROTO_PIECE_KEY_LEN],
                              const void *data, size_t len, uint8_t *out)
{
	const uint8_t *d = data;
	piece_key(g, key);
	for (size_t i = 0; i < pieces(len); i++)
		digest(g, d, len, i, out + i * PROTO_DIGEST_LEN);
}

/* The tag of the encoded header's bytes [0, PROTO_CHUNK_TAGGED) and the payload's digests:
 * those given (n of them), or else taken from the payload's len bytes. IV: the request's
 * nonce and the chunk's seq. */
static void gmac(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN], uint64_t nonce,
                 const struct proto_chunk *c, const uint8_t *payload, size_t len,
                 const uint8_t *digests, size_t n, uint8_t tag[PROTO_TAG_LEN])
{
	uint8_t hdr[PROTO_CHUNK_LEN], iv[GCM_IV_SIZE], d[PROTO_DIGEST_LEN];
	struct aad a = {.n = 0};
	sw_shuffle_proto_chunk_encode(c, hdr);
	for (int i = 0; i < 8; i++)
		iv[i] = (uint8_t)(nonce >> (8 * i));
	memcpy(iv + 8, hdr + 8, 4); /* seq as on the wire */
	if (!g->xkeyed || CRYPTO_memcmp(g->xkey, key, sizeof(g->xkey)) != 0) {
		gcm_aes128_set_key(&g->x, key);
		memcpy(g->xkey, key, sizeof(g->xkey));
		g->xkeyed = true;
	}
	gcm_aes128_set_iv(&g->x, sizeof(iv), iv);
	aad_add(g, &a, hdr, PROTO_CHUNK_TAGGED);
	if (digests != NULL) {
		aad_add(g, &a, digests, n * PROTO_DIGEST_LEN);
	} else {
		if (len > 0)
			piece_key(g, key + PROTO_KEY_LEN - PROTO_PIECE_KEY_LEN);
		for (size_t i = 0; i < pieces(len); i++) {
			digest(g, payload, len, i, d);
			aad_add(g, &a, d, PROTO_DIGEST_LEN);
		}
	}
	if (a.n > 0)
		gcm_aes128_update(&g->x, a.n, a.b);
	gcm_aes128_digest(&g->x, PROTO_TAG_LEN, tag);
}

int sw_shuffle_proto_chunk_seal(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN],
                                uint64_t nonce, struct proto_chunk *c, const void *payload,
                                size_t len)
{
	gmac(g, key, nonce, c, payload, len, NULL, 0, c->tag);
	return 0;
}

int sw_shuffle_proto_chunk_seal_digests(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN],
                                        uint64_t nonce, struct proto_chunk *c,
                                        const uint8_t *digests, size_t n)
{
	static const uint8_t none[1];
	gmac(g, key, nonce, c, NULL, 0, n > 0 ? digests : none, n, c->tag);
	return 0;
}

int sw_shuffle_proto_chunk_check(struct proto_tag *g, const uint8_t key[PROTO_KEY_LEN],
                                 uint64_t nonce, const struct proto_chunk *c, const void *payload,
                                 size_t len)
{
	uint8_t tag[PROTO_TAG_LEN];
	gmac(g, key, nonce, c, payload, len, NULL, 0, tag);
	return CRYPTO_memcmp(tag, c->tag, PROTO_TAG_LEN) == 0 ? 0 : -EBADMSG;
}

int sw_shuffle_proto_challenge_new(uint8_t challenge[PROTO_CHALLENGE_LEN])
{
	return RAND_bytes(challenge, PROTO_CHALLENGE_LEN) == 1 ? 0 : -EIO;
}

int sw_shuffle_secret_new(uint8_t secret[SW_SHUFFLE_SECRET_LEN])
{
	return RAND_bytes(secret, SW_SHUFFLE_SECRET_LEN) == 1 ? 0 : -EIO;
}
