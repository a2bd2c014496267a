/* SPDX-License-Identifier: MIT */
/* Replica put frames (replica.c; layout in agent/README.md), shared with the fuzz target. */
#ifndef SW_AGENT_REPLICA_H
#define SW_AGENT_REPLICA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_AGENT_PUT_VERSION 1
#define SW_AGENT_PUT_HDR_LEN 88 /* fields, then the MAC */
#define SW_AGENT_PUT_MACED   56 /* header bytes covered by the MAC (with the payload) */
#define SW_AGENT_PUT_MAC_LEN 32
#define SW_AGENT_ACK_LEN     32
#define SW_AGENT_PUT_MAX     (1ull << 40) /* largest replica accepted */
/* dp tags of the agent's own messages; the wire protocol's tags are small numbers */
#define SW_AGENT_TAG_PUT 0x53575250u /* "SWRP" */
#define SW_AGENT_TAG_ACK 0x53575241u /* "SWRA" */
/* replica connections a target accepts at once (each holds at most credits x chunk bytes) */
#define SW_AGENT_REPLICA_CONNS 32
/* largest payload of one PUT message */
#define SW_AGENT_PUT_CHUNK (1u << 20)

struct sw_agent_put_hdr {
	uint64_t job;
	uint32_t task, attempt;
	uint64_t offset, total;
	uint32_t len;
	uint32_t rack; /* the sender's, for NetSat */
	bool last;
};

/* Fills the first SW_AGENT_PUT_MACED bytes of a header (the MAC goes after them). */
void sw_agent_put_encode(const struct sw_agent_put_hdr *h, uint8_t out[SW_AGENT_PUT_HDR_LEN]);
/* Checks a received PUT message (header + payload) and fills *h. 0, or -EBADMSG with *why
 * saying what is wrong. Does not check the MAC. */
int sw_agent_put_decode(const void *msg, size_t len, struct sw_agent_put_hdr *h, const char **why);
/* The answer to the last chunk of a put, or to a refused one: status 0 or a negative errno. */
void sw_agent_ack_encode(const struct sw_agent_put_hdr *h, int status,
                         uint8_t out[SW_AGENT_ACK_LEN]);
/* Checks an ACK answers the put h and takes its status. 0 or -EBADMSG. */
int sw_agent_ack_decode(const void *msg, size_t len, const struct sw_agent_put_hdr *h, int *status);
/* HMAC-SHA256 under key of hdr's first SW_AGENT_PUT_MACED bytes and the payload. 0 or -EIO. */
int sw_agent_put_mac(const uint8_t *key, size_t key_len, const uint8_t *hdr, const void *data,
                     size_t len, uint8_t mac[SW_AGENT_PUT_MAC_LEN]);

#endif
