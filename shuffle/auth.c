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
#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/rand.h>

#include "proto.h"

struct proto_gmac {
	EVP_CIPHER_CTX *x;
};

/* OpenSSL 3.0's one-shot HMAC() looks the algorithms up in the provider tables, under locks,
 * on every call: 4-10 us here, against 1.3 us to re-key a context kept from one call to the
 * next, and a fetch makes four (the request's MAC and the answer key, on each end). So every
 * thread keeps one HMAC-SHA256 context (freed when the thread ends). */
static pthread_once_t hmac_once = PTHREAD_ONCE_INIT;
static pthread_key_t hmac_slot;
static EVP_MAC *hmac_alg;

static void hmac_ctx_free(void *c)
{
	EVP_MAC_CTX_free(c);
}

static void hmac_setup(void)
{
	hmac_alg = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (pthread_key_create(&hmac_slot, hmac_ctx_free) != 0) {
		EVP_MAC_free(hmac_alg);
		hmac_alg = NULL;
	}
}

/* HMAC-SHA256 under key of a followed by b: 0 or -EIO. */
static int hmac_sha256(const uint8_t *key, size_t key_len, const uint8_t *a, size_t a_len,
                       const uint8_t *b, size_t b_len, uint8_t out[PROTO_MAC_LEN])
{
	pthread_once(&hmac_once, hmac_setup);
	if (hmac_alg == NULL)
		return -EIO;
	EVP_MAC_CTX *c = pthread_getspecific(hmac_slot);
	if (c == NULL) {
		OSSL_PARAM p[] = {
		        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
		        OSSL_PARAM_construct_end()};
		if ((c = EVP_MAC_CTX_new(hmac_alg)) == NULL)
			return -EIO;
		if (EVP_MAC_CTX_set_params(c, p) != 1 || pthread_setspecific(hmac_slot, c) != 0) {
			EVP_MAC_CTX_free(c);
			return -EIO;
		}
	}
	size_t n = 0;
	if (EVP_MAC_init(c, key, key_len, NULL) != 1 || EVP_MAC_update(c, a, a_len) != 1 ||
	    EVP_MAC_update(c, b, b_len) != 1 || EVP_MAC_final(c, out, &n, PROTO_MAC_LEN) != 1 ||
	    n != PROTO_MAC_LEN)
		return -EIO;
	return 0;
}

int sw_shuffle_proto_mac(const uint8_t *key, size_t key_len,
                         const uint8_t challenge[PROTO_CHALLENGE_LEN],
                         const uint8_t req[PROTO_REQ_LEN], uint8_t mac[PROTO_MAC_LEN])
{
	return hmac_sha256(key, key_len, challenge, PROTO_CHALLENGE_LEN, req, PROTO_REQ_MACED, mac);
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
	static const uint8_t label[8] = "SWFA key";
	uint8_t out[PROTO_MAC_LEN];
	if (hmac_sha256(secret, secret_len, label, sizeof(label), challenge, PROTO_CHALLENGE_LEN,
	                out) < 0)
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
