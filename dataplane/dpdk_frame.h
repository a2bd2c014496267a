/* SPDX-License-Identifier: MIT */
/*
 * Internal to dataplane/: the dpdk backend's frames, Ethernet + IPv4 + UDP + a 48-byte
 * transport header, encoded and decoded on plain bytes with DPDK's header-only helpers
 * (rte_ip.h checksums), no EAL and no mbuf, so the decoder is fuzzed on its own.
 * Multi-byte fields are big-endian on the wire. Layout in dataplane/README.md.
 */
#ifndef SW_DP_DPDK_FRAME_H
#define SW_DP_DPDK_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DPDK_ETH_LEN   14
#define DPDK_IP_LEN    20
#define DPDK_UDP_LEN   8
#define DPDK_HDR_LEN   48
#define DPDK_HEADROOM  (DPDK_ETH_LEN + DPDK_IP_LEN + DPDK_UDP_LEN + DPDK_HDR_LEN)
#define DPDK_MAGIC     0x5357 /* "SW" */
#define DPDK_VERSION   1
#define DPDK_SACK_BITS 64

/* The smallest segment payload a SYN or SYNACK may offer: what an MTU of 576 carries. */
#define DPDK_MSS_MIN (576 - DPDK_IP_LEN - DPDK_UDP_LEN - DPDK_HDR_LEN)

enum dpdk_type {
	DPDK_SYN = 1, /* open: src_conn is the opener's id, msg_len the largest segment payload
	               * its port takes; answered by SYNACK or RST */
	DPDK_SYNACK,  /* accepted: src_conn is the listener's id, msg_len the segment payload of
	               * the connection (the smaller of both ends' largest) */
	DPDK_SEG,     /* one segment of the reliable stream (seq), also carries an ack */
	DPDK_ACK,     /* ack and sack only */
	DPDK_RST,     /* no such connection, or it was refused: the receiver's ep goes down */
};

/* What a stream segment carries (DPDK_SEG). */
enum dpdk_seg_kind {
	DPDK_SEG_MSG = 1, /* bytes [off, off+len) of a message of msg_len bytes with a tag, and
	                   * credit credits given back */
	DPDK_SEG_CREDIT,  /* msg_len credits given back */
	DPDK_SEG_FIN,     /* the sender closed: nothing follows */
};

/* What an ACK carries (its kind). */
enum dpdk_ack_kind {
	DPDK_ACK_PLAIN = 0,
	DPDK_ACK_PROBE, /* the sender heard nothing for a while: answer with an ACK (keepalive) */
};

struct dpdk_frame {
	uint8_t dst_mac[6], src_mac[6];
	uint32_t src_ip, dst_ip; /* network byte order, as in struct sw_dp_addr */
	uint16_t src_port, dst_port;
	uint8_t type;
	uint8_t kind;
	uint32_t dst_conn, src_conn;
	uint32_t seq;  /* SEG: this segment's sequence number */
	uint32_t ack;  /* next sequence number expected from the peer (cumulative) */
	uint64_t sack; /* bit i: ack + 1 + i arrived out of order */
	uint32_t msg_len, off;
	uint64_t tag;
	uint16_t credit; /* SEG of kind MSG: credits given back with it (0 in every other frame) */
	const uint8_t *data; /* payload after the header (decode only) */
	uint32_t len;
};

/* ARP for IPv4 over Ethernet (RFC 826): a request asks who holds tpa, the reply says sha. */
#define DPDK_ARP_LEN 60 /* Ethernet header and ARP message, padded to Ethernet's minimum */
enum dpdk_arp_op {
	DPDK_ARP_REQUEST = 1,
	DPDK_ARP_REPLY = 2,
};

struct dpdk_arp {
	uint16_t op;
	uint8_t dst_mac[6];     /* the frame's: broadcast for a request */
	uint8_t sha[6], tha[6]; /* sender's and target's MAC (the frame's source is sha) */
	uint32_t spa, tpa;      /* sender's and target's IPv4 address, network byte order */
};

/* Writes a's frame into buf (DPDK_ARP_LEN bytes). Returns DPDK_ARP_LEN. */
size_t sw_dp_dpdk_arp_encode(uint8_t *buf, const struct dpdk_arp *a);

/* Decodes an ARP request or reply for IPv4 over Ethernet of len bytes. Returns 0, or -EPROTO
 * for anything else (another ethertype, hardware or protocol, a short frame). */
int sw_dp_dpdk_arp_decode(const uint8_t *buf, size_t len, struct dpdk_arp *a);

/* Which checksums the encoder computes. */
enum dpdk_csum {
	DPDK_CSUM_NONE, /* the port fills both in (offload) */
	DPDK_CSUM_IP,   /* the IPv4 header's; UDP's stays 0, "none computed" (RFC 768): for links
	                 * in memory (memif, ring), where nothing can corrupt a frame in flight */
	DPDK_CSUM_ALL,  /* IPv4 and UDP */
};

/* Writes headers for f (payload of f->len bytes already at buf + DPDK_HEADROOM) into buf,
 * with the checksums csum says. Returns the frame length. */
size_t sw_dp_dpdk_encode(uint8_t *buf, const struct dpdk_frame *f, enum dpdk_csum csum);

/* Decodes a frame of len bytes (trailing Ethernet padding allowed). csum: verify the IPv4
 * and UDP checksums (false when the port checked them). Returns 0, or a negative code naming what
 * is wrong: -EPROTO for anything that is not a well-formed frame of this transport (wrong
 * ethertype, IP version/length/fragment/protocol, bad checksum, bad magic/version/type, lengths
 * that disagree). f->data points into buf. */
int sw_dp_dpdk_decode(const uint8_t *buf, size_t len, struct dpdk_frame *f, bool csum);

/* Decodes an ICMP port unreachable (checksums checked) that quotes one of our frames: what a
 * kernel sends back when a frame reached a host where nothing holds its UDP port any more (the
 * peer's process ended). Fills in the quoted frame's addresses, ports, type and connection ids
 * (the rest zero). Returns 0 or -EPROTO. */
int sw_dp_dpdk_decode_unreach(const uint8_t *buf, size_t len, struct dpdk_frame *f);

#endif
