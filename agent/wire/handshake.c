/* SPDX-License-Identifier: MIT */
/*
 * The challenge handshake. Each side proves the cluster key with
 *   HMAC-SHA256(key, label || agent_nonce || controller_nonce || node_id)
 * where the label names the prover's role: the two proofs of one connection differ, so the
 * controller's proof cannot be reflected back as the agent's, both nonces make a proof good
 * for one connection only, and the node id binds it to the identity the agent claimed.
 */
#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "sw_wire.h"

enum role { AGENT, CONTROLLER };

/* Labels include their NUL so that neither is a prefix of the other. */
static const char *const label[] = {"shufflewatch wire 1 agent", "shufflewatch wire 1 controller"};

static int proof(const struct sw_wire_handshake *hs, const struct sw_wire_key *key, enum role who,
                 uint8_t mac[SW_WIRE_MAC_LEN])
{
	uint8_t msg[64 + 2 * SW_WIRE_NONCE_LEN + SW_WIRE_NODE_ID_MAX];
	size_t ll = strlen(label[who]) + 1, nl = strlen(hs->node_id), n = 0;
	memcpy(msg, label[who], ll);
	n += ll;
	memcpy(msg + n, hs->agent_nonce, SW_WIRE_NONCE_LEN);
	n += SW_WIRE_NONCE_LEN;
	memcpy(msg + n, hs->controller_nonce, SW_WIRE_NONCE_LEN);
	n += SW_WIRE_NONCE_LEN;
	memcpy(msg + n, hs->node_id, nl);
	n += nl;
	unsigned int len = 0;
	if (HMAC(EVP_sha256(), key->bytes, SW_WIRE_KEY_LEN, msg, n, mac, &len) == NULL ||
	    len != SW_WIRE_MAC_LEN)
		return -EIO;
	return 0;
}

/* 0 when mac is who's proof for this handshake, else -EACCES (or -EIO). */
static int check(const struct sw_wire_handshake *hs, const struct sw_wire_key *key, enum role who,
                 const ProtobufCBinaryData *mac)
{
	uint8_t want[SW_WIRE_MAC_LEN];
	int rc = proof(hs, key, who, want);
	if (rc < 0)
		return rc;
	if (mac->len != SW_WIRE_MAC_LEN || CRYPTO_memcmp(want, mac->data, SW_WIRE_MAC_LEN) != 0)
		return -EACCES;
	return 0;
}

int sw_wire_hello_init(struct sw_wire_handshake *hs, const char *node_id, SwWire__Hello *hello)
{
	if (node_id == NULL || !sw_wire_node_id_valid(node_id))
		return -EINVAL;
	memset(hs, 0, sizeof(*hs));
	strcpy(hs->node_id, node_id);
	if (RAND_bytes(hs->agent_nonce, SW_WIRE_NONCE_LEN) != 1)
		return -EIO;
	hello->version = SW_WIRE_VERSION;
	hello->node_id = hs->node_id;
	hello->agent_nonce.data = hs->agent_nonce;
	hello->agent_nonce.len = SW_WIRE_NONCE_LEN;
	return 0;
}

int sw_wire_challenge_make(struct sw_wire_handshake *hs, const struct sw_wire_key *key,
                           const SwWire__Hello *hello, SwWire__Challenge *ch)
{
	if (hello->version != SW_WIRE_VERSION)
		return -EPROTONOSUPPORT;
	/* A decoded Hello has a valid node id and a nonce of the right length. */
	if (!sw_wire_node_id_valid(hello->node_id) || hello->agent_nonce.len != SW_WIRE_NONCE_LEN)
		return -EINVAL;
	memset(hs, 0, sizeof(*hs));
	strcpy(hs->node_id, hello->node_id);
	memcpy(hs->agent_nonce, hello->agent_nonce.data, SW_WIRE_NONCE_LEN);
	if (RAND_bytes(hs->controller_nonce, SW_WIRE_NONCE_LEN) != 1)
		return -EIO;
	int rc = proof(hs, key, CONTROLLER, hs->mac);
	if (rc < 0)
		return rc;
	ch->controller_nonce.data = hs->controller_nonce;
	ch->controller_nonce.len = SW_WIRE_NONCE_LEN;
	ch->mac.data = hs->mac;
	ch->mac.len = SW_WIRE_MAC_LEN;
	return 0;
}

int sw_wire_challenge_answer(struct sw_wire_handshake *hs, const struct sw_wire_key *key,
                             const SwWire__Challenge *ch, SwWire__Auth *auth)
{
	if (ch->controller_nonce.len != SW_WIRE_NONCE_LEN)
		return -EACCES;
	memcpy(hs->controller_nonce, ch->controller_nonce.data, SW_WIRE_NONCE_LEN);
	int rc = check(hs, key, CONTROLLER, &ch->mac);
	if (rc < 0)
		return rc;
	rc = proof(hs, key, AGENT, hs->mac);
	if (rc < 0)
		return rc;
	auth->mac.data = hs->mac;
	auth->mac.len = SW_WIRE_MAC_LEN;
	return 0;
}

int sw_wire_auth_check(const struct sw_wire_handshake *hs, const struct sw_wire_key *key,
                       const SwWire__Auth *auth)
{
	return check(hs, key, AGENT, &auth->mac);
}
