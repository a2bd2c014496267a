/* SPDX-License-Identifier: MIT */
/*
 * Request authentication as in Hadoop's shuffle: the MAC binds every request field (ids, range,
 * nonce, timestamp) to the job's secret, so a reducer of one job cannot read another job's
 * output and a request cannot be altered in flight.
 */
#include <errno.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "proto.h"

int proto_mac(const uint8_t *key, size_t key_len, const uint8_t req[PROTO_REQ_LEN],
              uint8_t mac[PROTO_MAC_LEN])
{
	unsigned int n = 0;
	if (HMAC(EVP_sha256(), key, (int)key_len, req, PROTO_REQ_MACED, mac, &n) == NULL ||
	    n != PROTO_MAC_LEN)
		return -EIO;
	return 0;
}

int proto_mac_verify(const uint8_t *key, size_t key_len, const uint8_t req[PROTO_REQ_LEN])
{
	uint8_t mac[PROTO_MAC_LEN];
	if (proto_mac(key, key_len, req, mac) < 0)
		return -EACCES;
	return CRYPTO_memcmp(mac, req + PROTO_REQ_MACED, PROTO_MAC_LEN) == 0 ? 0 : -EACCES;
}

int sw_shuffle_secret_new(uint8_t secret[SW_SHUFFLE_SECRET_LEN])
{
	return RAND_bytes(secret, SW_SHUFFLE_SECRET_LEN) == 1 ? 0 : -EIO;
}
