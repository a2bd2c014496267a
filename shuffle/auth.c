/* SPDX-License-Identifier: MIT */
/*
 * Authentication as in Hadoop's shuffle, bound to the connection. A request's MAC covers every
 * request field (ids, range, nonce) and the server's per-connection challenge, so a reducer of
 * one job cannot read another job's output, a request cannot be altered in flight, and one
 * recorded on a connection is refused on any other (and on its own: nonces only grow).
 * Answers carry an AES-GMAC tag under a key derived from the job's secret and the challenge:
 * GMAC, not HMAC, because it runs at several GB/s (GHASH on carry-less multiply) where SHA-256
 * would halve a fetch's speed.
 */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "proto.h"

struct proto_gmac {
	EVP_CIPHER_CTX *x;
};

int sw_shuffle_proto_mac(const uint8_t *key, size_t key_len,
                         const uint8_t challenge[PROTO_CHALLENGE_LEN],
                         const uint8_t req[PROTO_REQ_LEN], uint8_t mac[PROTO_MAC_LEN])
{
	uint8_t msg[PROTO_CHALLENGE_LEN + PROTO_REQ_MACED];
	unsigned int n = 0;
	memcpy(msg, challenge, PROTO_CHALLENGE_LEN);
	memcpy(msg + PROTO_CHALLENGE_LEN, req, PROTO_REQ_MACED);
	if (HMAC(EVP_sha256(), key, (int)key_len, msg, sizeof(msg), mac, &n) == NULL ||
	    n != PROTO_MAC_LEN)
		return -EIO;
	return 0;
}

int sw_shuffle_proto_mac_verify(const uint8_t *key, size_t key_len,
                                const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                const uint8_t req[PROTO_REQ_LEN])
{
	uint8_t mac[PROTO_MAC_LEN];
	if (sw_shuffle_proto_mac(key, key_len, challenge, req, mac) < 0)
		return -EACCES;
	return CRYPTO_memcmp(mac, req + PROTO_REQ_MACED, PROTO_MAC_LEN) == 0 ? 0 : -EACCES;
}

int sw_shuffle_proto_answer_key(const uint8_t *secret, size_t secret_len,
                                const uint8_t challenge[PROTO_CHALLENGE_LEN],
                                uint8_t key[PROTO_KEY_LEN])
{
	/* a label keeps this HMAC input apart from any request's */
	uint8_t msg[8 + PROTO_CHALLENGE_LEN] = "SWFA key";
	uint8_t out[EVP_MAX_MD_SIZE];
	unsigned int n = 0;
	memcpy(msg + 8, challenge, PROTO_CHALLENGE_LEN);
	if (HMAC(EVP_sha256(), secret, (int)secret_len, msg, sizeof(msg), out, &n) == NULL ||
	    n < PROTO_KEY_LEN)
		return -EIO;
	memcpy(key, out, PROTO_KEY_LEN);
	OPENSSL_cleanse(out, sizeof(out));
	return 0;
}

struct proto_gmac *sw_shuffle_proto_gmac_new(void)
{
	struct proto_gmac *g = OPENSSL_zalloc(sizeof(*g));
	if (g == NULL)
		return NULL;
	if ((g->x = EVP_CIPHER_CTX_new()) == NULL ||
	    EVP_EncryptInit_ex(g->x, EVP_aes_128_gcm(), NULL, NULL, NULL) != 1) {
		sw_shuffle_proto_gmac_free(g);
		return NULL;
	}
	return g;
}

void sw_shuffle_proto_gmac_free(struct proto_gmac *g)
{
	if (g == NULL)
		return;
	EVP_CIPHER_CTX_free(g->x);
	OPENSSL_free(g);
}

/* The tag of the encoded header's bytes [0, PROTO_CHUNK_TAGGED) and the payload; IV is the
 * request's nonce and the chunk's seq. */
static int gmac(struct proto_gmac *g, const uint8_t key[PROTO_KEY_LEN], uint64_t nonce,
                const struct proto_chunk *c, const uint8_t *payload, size_t len,
                uint8_t tag[PROTO_TAG_LEN])
{
	uint8_t hdr[PROTO_CHUNK_LEN], iv[12];
	int n;
	sw_shuffle_proto_chunk_encode(c, hdr);
	for (int i = 0; i < 8; i++)
		iv[i] = (uint8_t)(nonce >> (8 * i));
	memcpy(iv + 8, hdr + 8, 4); /* seq as on the wire */
	if (EVP_EncryptInit_ex(g->x, NULL, NULL, key, iv) != 1 ||
	    EVP_EncryptUpdate(g->x, NULL, &n, hdr, PROTO_CHUNK_TAGGED) != 1)
		return -EIO;
	while (len > 0) { /* EVP takes int lengths */
		int piece = len > (1u << 30) ? (1 << 30) : (int)len;
		if (EVP_EncryptUpdate(g->x, NULL, &n, payload, piece) != 1)
			return -EIO;
		payload += piece;
		len -= (size_t)piece;
	}
	if (EVP_EncryptFinal_ex(g->x, NULL, &n) != 1 ||
	    EVP_CIPHER_CTX_ctrl(g->x, EVP_CTRL_GCM_GET_TAG, PROTO_TAG_LEN, tag) != 1)
		return -EIO;
	return 0;
}

int sw_shuffle_proto_chunk_seal(struct proto_gmac *g, const uint8_t key[PROTO_KEY_LEN],
                                uint64_t nonce, struct proto_chunk *c, const void *payload,
                                size_t len)
{
	return gmac(g, key, nonce, c, payload, len, c->tag);
}

int sw_shuffle_proto_chunk_check(struct proto_gmac *g, const uint8_t key[PROTO_KEY_LEN],
                                 uint64_t nonce, const struct proto_chunk *c, const void *payload,
                                 size_t len)
{
	uint8_t tag[PROTO_TAG_LEN];
	if (gmac(g, key, nonce, c, payload, len, tag) < 0)
		return -EBADMSG;
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
