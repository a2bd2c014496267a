/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the dpdk backend's frame decoder (dataplane/dpdk_frame.c): every
 * byte a port receives goes through it before any connection state is touched. Each input
 * is decoded with and without checksum checks, as an ICMP port unreachable and as ARP; a frame
 * or ARP message that decodes is encoded again from the decoded fields and must decode to the
 * same fields (the codec agrees with itself), and a message segment must lie inside its message. A
 * crash or sanitizer report fails. Built by fuzz.sh (no EAL needed: the codec works on plain
 * bytes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dpdk_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(const struct dpdk_frame *a, const struct dpdk_frame *b)
{
	if (a->type != b->type || a->kind != b->kind || a->credit != b->credit ||
	    a->dst_conn != b->dst_conn || a->src_conn != b->src_conn || a->seq != b->seq ||
	    a->ack != b->ack || a->sack != b->sack || a->msg_len != b->msg_len ||
	    a->off != b->off || a->tag != b->tag || a->len != b->len || a->src_ip != b->src_ip ||
	    a->dst_ip != b->dst_ip || a->src_port != b->src_port || a->dst_port != b->dst_port ||
	    memcmp(a->data, b->data, a->len) != 0)
		abort();
}

static void same_arp(const uint8_t *copy, size_t size)
{
	struct dpdk_arp a, b;
	uint8_t out[DPDK_ARP_LEN];

	if (sw_dp_dpdk_arp_decode(copy, size, &a) != 0)
		return;
	if (sw_dp_dpdk_arp_decode(out, sw_dp_dpdk_arp_encode(out, &a), &b) != 0 || a.op != b.op ||
	    a.spa != b.spa || a.tpa != b.tpa || memcmp(a.dst_mac, b.dst_mac, 6) != 0 ||
	    memcmp(a.sha, b.sha, 6) != 0 || memcmp(a.tha, b.tha, 6) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dpdk_frame f, g;
	uint8_t *copy, *out;

	/* An exact-size copy, so ASan sees any read past the frame. */
	copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	sw_dp_dpdk_decode(copy, size, &f, true);
	sw_dp_dpdk_decode_unreach(copy, size, &f);
	same_arp(copy, size);
	if (sw_dp_dpdk_decode(copy, size, &f, false) == 0) {
		if (f.type == DPDK_SEG && f.kind == DPDK_SEG_MSG &&
		    ((uint64_t)f.off + f.len > f.msg_len))
			abort();
		out = malloc(DPDK_HEADROOM + f.len);
		memcpy(out + DPDK_HEADROOM, f.data, f.len);
		if (sw_dp_dpdk_decode(out, sw_dp_dpdk_encode(out, &f, DPDK_CSUM_ALL), &g, true) !=
		    0)
			abort();
		same(&f, &g);
		/* Without a UDP checksum (links in memory) it still decodes, checks on. */
		if (sw_dp_dpdk_decode(out, sw_dp_dpdk_encode(out, &f, DPDK_CSUM_IP), &g, true) != 0)
			abort();
		same(&f, &g);
		free(out);
	}
	free(copy);
	return 0;
}
