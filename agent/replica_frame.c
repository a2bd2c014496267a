/* SPDX-License-Identifier: MIT */
/* Replica put and ACK frames: encoding, checked decoding and the MAC (layout in README.md).
 * No I/O here, so the fuzz target links exactly this file. */
#include <errno.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>

#include "replica.h"

static void put_le(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

int sw_agent_put_mac(const uint8_t *key, size_t key_len, const uint8_t *hdr, const void *data,
                     size_t len, uint8_t mac[SW_AGENT_PUT_MAC_LEN])
{
	EVP_MAC *m = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *c = m ? EVP_MAC_CTX_new(m) : NULL;
	OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA256", 0),
	                       OSSL_PARAM_construct_end()};
	size_t n = 0;
	int ok = c && EVP_MAC_init(c, key, key_len, params) &&
	         EVP_MAC_update(c, hdr, SW_AGENT_PUT_MACED) && EVP_MAC_update(c, data, len) &&
	         EVP_MAC_final(c, mac, &n, SW_AGENT_PUT_MAC_LEN) && n == SW_AGENT_PUT_MAC_LEN;
	EVP_MAC_CTX_free(c);
	EVP_MAC_free(m);
	return ok ? 0 : -EIO;
}

void sw_agent_put_encode(const struct sw_agent_put_hdr *h, uint8_t out[SW_AGENT_PUT_HDR_LEN])
{
	memset(out, 0, SW_AGENT_PUT_HDR_LEN);
	memcpy(out, "SWRP", 4);
	out[4] = SW_AGENT_PUT_VERSION;
	out[5] = h->last ? 1 : 0;
	put_le(out + 8, h->job, 8);
	put_le(out + 16, h->task, 4);
	put_le(out + 20, h->attempt, 4);
	put_le(out + 24, h->offset, 8);
	put_le(out + 32, h->total, 8);
	put_le(out + 40, h->len, 4);
	put_le(out + 44, h->rack, 4);
}

void sw_agent_ack_encode(const struct sw_agent_put_hdr *h, int status,
                         uint8_t out[SW_AGENT_ACK_LEN])
{
	memset(out, 0, SW_AGENT_ACK_LEN);
	memcpy(out, "SWRA", 4);
	out[4] = SW_AGENT_PUT_VERSION;
	put_le(out + 8, h->job, 8);
	put_le(out + 16, h->task, 4);
	put_le(out + 20, h->attempt, 4);
	put_le(out + 24, (uint32_t)status, 4);
}

int sw_agent_ack_decode(const void *msg, size_t len, const struct sw_agent_put_hdr *h, int *status)
{
	const uint8_t *p = msg;
	if (len != SW_AGENT_ACK_LEN || memcmp(p, "SWRA", 4) || p[4] != SW_AGENT_PUT_VERSION ||
	    p[5] || p[6] || p[7] || get_le(p + 28, 4) || get_le(p + 8, 8) != h->job ||
	    get_le(p + 16, 4) != h->task || get_le(p + 20, 4) != h->attempt)
		return -EBADMSG;
	int32_t st = (int32_t)get_le(p + 24, 4);
	if (st > 0 || st < -4095) /* a negative errno or 0 */
		return -EBADMSG;
	*status = st;
	return 0;
}

int sw_agent_put_decode(const void *msg, size_t len, struct sw_agent_put_hdr *h, const char **why)
{
	const uint8_t *p = msg;
	*why = NULL;
	if (len < SW_AGENT_PUT_HDR_LEN)
		*why = "shorter than a header";
	else if (memcmp(p, "SWRP", 4))
		*why = "bad magic";
	else if (p[4] != SW_AGENT_PUT_VERSION)
		*why = "unknown version";
	else if ((p[5] & ~1u) || p[6] || p[7] || get_le(p + 48, 8))
		*why = "reserved bits set";
	if (*why)
		return -EBADMSG;
	h->last = p[5] & 1;
	h->job = get_le(p + 8, 8);
	h->task = (uint32_t)get_le(p + 16, 4);
	h->attempt = (uint32_t)get_le(p + 20, 4);
	h->offset = get_le(p + 24, 8);
	h->total = get_le(p + 32, 8);
	h->len = (uint32_t)get_le(p + 40, 4);
	h->rack = (uint32_t)get_le(p + 44, 4);
	if (h->len != len - SW_AGENT_PUT_HDR_LEN)
		*why = "length field does not match the message";
	else if (h->len > SW_AGENT_PUT_CHUNK)
		*why = "chunk larger than the limit";
	else if (h->total > SW_AGENT_PUT_MAX)
		*why = "replica larger than the limit";
	else if (h->offset > h->total || h->len > h->total - h->offset)
		*why = "chunk past the end of the replica";
	else if (h->last && h->offset + h->len != h->total)
		*why = "last chunk does not end the replica";
	return *why ? -EBADMSG : 0;
}
