/* SPDX-License-Identifier: MIT */
/*
 * sw_wire: the protocol between swagent and swcontroller.
 *
 * Messages are the protobuf-c structs generated from shufflewatch.proto (SwWire__Hello, ...),
 * one per dataplane message over the tcp backend: sw_dp_send() with the sw_wire_type as the
 * tag. A receiver hands the tag and the bytes to sw_wire_decode(), which refuses anything
 * larger than SW_WIRE_MAX_MSG before decoding, any unknown type, malformed protobuf and any
 * message a consumer could not use safely (a missing TaskRef, a nonce of the wrong length,
 * an enum value out of range), with a message saying what and where.
 *
 * Handshake (the agent proves the cluster key before the controller accepts anything else,
 * and the controller proves it too, so an agent never takes tasks or job secrets from an
 * impostor):
 *   agent       sw_wire_hello_init()                      -> Hello
 *   controller  sw_wire_challenge_make()                  -> Challenge
 *   agent       sw_wire_challenge_answer() (checks)       -> Auth
 *   controller  sw_wire_auth_check()  -> Welcome, or Refused and close
 * Both proofs are HMAC-SHA256 with the cluster key over a role label, both nonces and the
 * node id, so neither can be replayed on another connection, reflected to the other side or
 * moved to another node id.
 *
 * The cluster key is SW_WIRE_KEY_LEN random bytes kept as hex in a file only its owner may
 * read (sw_wire_key_generate(), `swctl keygen FILE`).
 *
 * Return codes: 0 (or a count) on success, otherwise a negative errno value:
 *   -EINVAL          bad argument (NULL, type and message that do not match)
 *   -EMSGSIZE        message larger than SW_WIRE_MAX_MSG (either way)
 *   -EPROTO          unknown message type, malformed or invalid message
 *   -EPROTONOSUPPORT Hello of another protocol version
 *   -EACCES          a proof that does not verify: the peer does not know the cluster key
 *   -EPERM           key file readable by others than its owner
 *   -ENOENT, -EEXIST and other open(2) codes for key files
 *   -ENOMEM, -EIO    allocation or OpenSSL failure
 * Functions that take `err` write a one-line description there (SW_WIRE_ERRLEN suffices).
 */
#ifndef SW_WIRE_H
#define SW_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "shufflewatch.pb-c.h"
#include "sw_dp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SW_WIRE_VERSION     1
#define SW_WIRE_MAX_MSG     (1u << 20) /* bytes of one encoded message */
#define SW_WIRE_MAX_HELD    32768u     /* Auth.held entries: 25 B each at most, < MAX_MSG */
#define SW_WIRE_KEY_LEN     32
#define SW_WIRE_NONCE_LEN   32
#define SW_WIRE_MAC_LEN     32 /* HMAC-SHA256 */
#define SW_WIRE_NODE_ID_MAX 63 /* characters of a node id: [A-Za-z0-9._-] */
#define SW_WIRE_ERRLEN      256

/* 1 when id is a valid node id (1..SW_WIRE_NODE_ID_MAX characters of [A-Za-z0-9._-]). */
int sw_wire_node_id_valid(const char *id);

/* Message types: the dataplane tag of each message. Values never change meaning. */
enum sw_wire_type {
	SW_WIRE_HELLO = 1,   /* agent -> controller */
	SW_WIRE_CHALLENGE,   /* controller -> agent */
	SW_WIRE_AUTH,        /* agent -> controller */
	SW_WIRE_WELCOME,     /* controller -> agent */
	SW_WIRE_REFUSED,     /* controller -> agent */
	SW_WIRE_HEARTBEAT,   /* agent -> controller */
	SW_WIRE_ASSIGN,      /* controller -> agent */
	SW_WIRE_MAP_OUTPUTS, /* controller -> agent */
	SW_WIRE_KILL_TASK,   /* controller -> agent */
	SW_WIRE_JOB_DONE,    /* controller -> agent */
	SW_WIRE_PACE,        /* controller -> agent */
	SW_WIRE_TYPES,       /* one past the last */
};

/* The message's name as in shufflewatch.proto ("Heartbeat"), "unknown" for other values. */
const char *sw_wire_type_name(uint64_t type);

/* A decoded message. Free with sw_wire_msg_free(). */
struct sw_wire_msg {
	enum sw_wire_type type;
	union {
		ProtobufCMessage *base;
		SwWire__Hello *hello;
		SwWire__Challenge *challenge;
		SwWire__Auth *auth;
		SwWire__Welcome *welcome;
		SwWire__Refused *refused;
		SwWire__Heartbeat *heartbeat;
		SwWire__Assign *assign;
		SwWire__MapOutputs *map_outputs;
		SwWire__KillTask *kill_task;
		SwWire__JobDone *job_done;
		SwWire__Pace *pace;
	};
};

/*
 * Decodes one received message: tag is the dataplane tag, buf/len its bytes. On success
 * *out holds the message; every TaskRef the message carries is present, enums are in range,
 * Hello's node id is a valid name and nonces and MACs have their lengths.
 * Returns 0, -EMSGSIZE, -EPROTO (unknown type, malformed, invalid field; err says which).
 */
int sw_wire_decode(uint64_t tag, const void *buf, size_t len, struct sw_wire_msg *out, char *err,
                   size_t errlen);

/* Frees a decoded message (and clears it). NULL or an empty message is a no-op. */
void sw_wire_msg_free(struct sw_wire_msg *m);

/*
 * Encodes msg, which must be of the struct type for `type`, into a new malloc'd buffer.
 * Returns 0, -EINVAL (type and msg do not match), -EMSGSIZE, -ENOMEM.
 */
int sw_wire_encode(enum sw_wire_type type, const ProtobufCMessage *msg, void **buf, size_t *len,
                   char *err, size_t errlen);

/*
 * Encodes msg and sends it on ep with the type as tag. The encoded buffer is the send's
 * `user` pointer: on the SW_DP_EV_SEND event of a wire endpoint call sw_wire_sent().
 * Returns 0, the codes of sw_wire_encode(), or those of sw_dp_send() (-EAGAIN: the peer holds
 * `credits` messages unreleased; -ENOTCONN).
 */
int sw_wire_send(struct sw_dp_ep *ep, enum sw_wire_type type, const ProtobufCMessage *msg,
                 char *err, size_t errlen);

/* Frees the buffer of a completed sw_wire_send() (its SW_DP_EV_SEND event). */
void sw_wire_sent(const struct sw_dp_event *ev);

/* Closes a wire context whose endpoints are closed: first takes the completions of the sends
 * they never delivered, freeing their buffers (sw_dp_close drops those events, and with them
 * the buffers), and releases received messages nobody will read. NULL is a no-op. */
void sw_wire_dp_close(struct sw_dp_ctx *dp);

/* Dataplane settings for a wire context: the tcp backend and max_msg SW_WIRE_MAX_MSG, so an
 * oversized frame is refused by the transport before it is read into memory. */
void sw_wire_dp_config(struct sw_dp_config *cfg);

/* The cluster key. */
struct sw_wire_key {
	uint8_t bytes[SW_WIRE_KEY_LEN];
};

/*
 * Loads a key file: SW_WIRE_KEY_LEN bytes as hex, optionally followed by a newline. The file
 * must be a regular file owned by this user with no permission for group or others.
 * Returns 0, -EPERM (looser permissions, another owner: err says how to fix), -EINVAL (not
 * a key), or the open(2) error (-ENOENT, -EACCES).
 */
int sw_wire_key_load(const char *path, struct sw_wire_key *key, char *err, size_t errlen);

/* Writes a new random key (OpenSSL RAND_bytes) to path, created with mode 0600; never
 * overwrites. Returns 0, -EEXIST, another open(2)/write(2) error, -EIO. */
int sw_wire_key_generate(const char *path, char *err, size_t errlen);

/* One side's handshake: the nonces, the node id and storage the built messages point into
 * (so they stay valid as long as the struct). */
struct sw_wire_handshake {
	uint8_t agent_nonce[SW_WIRE_NONCE_LEN];
	uint8_t controller_nonce[SW_WIRE_NONCE_LEN];
	uint8_t mac[SW_WIRE_MAC_LEN];
	char node_id[SW_WIRE_NODE_ID_MAX + 1];
};

/* Agent: starts a handshake for node_id, filling hello's version, node_id and agent_nonce;
 * the caller fills the other fields. Returns 0, -EINVAL (invalid node id), -EIO. */
int sw_wire_hello_init(struct sw_wire_handshake *hs, const char *node_id, SwWire__Hello *hello);

/* Controller: answers a decoded Hello with a fresh nonce and the controller's proof in *ch.
 * Returns 0, -EPROTONOSUPPORT (hello->version is not SW_WIRE_VERSION), -EIO. */
int sw_wire_challenge_make(struct sw_wire_handshake *hs, const struct sw_wire_key *key,
                           const SwWire__Hello *hello, SwWire__Challenge *ch);

/* Agent: checks the controller's proof and fills *auth with the agent's.
 * Returns 0, -EACCES (the controller does not know the cluster key), -EIO. */
int sw_wire_challenge_answer(struct sw_wire_handshake *hs, const struct sw_wire_key *key,
                             const SwWire__Challenge *ch, SwWire__Auth *auth);

/* Controller: checks the agent's proof. Returns 0, -EACCES (wrong key), -EIO. */
int sw_wire_auth_check(const struct sw_wire_handshake *hs, const struct sw_wire_key *key,
                       const SwWire__Auth *auth);

#ifdef __cplusplus
}
#endif

#endif /* SW_WIRE_H */
