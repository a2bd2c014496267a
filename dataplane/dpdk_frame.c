/* SPDX-License-Identifier: MIT */
/* The dpdk backend's frames: headers written and checked on plain bytes. */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "dpdk_frame.h"

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

size_t sw_dp_dpdk_encode(uint8_t *buf, const struct dpdk_frame *f, enum dpdk_csum csum)
{
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)buf;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(buf + DPDK_ETH_LEN);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint8_t *h = (uint8_t *)(udp + 1);
	size_t udp_len = DPDK_UDP_LEN + DPDK_HDR_LEN + f->len;

	memcpy(eth->dst_addr.addr_bytes, f->dst_mac, 6);
	memcpy(eth->src_addr.addr_bytes, f->src_mac, 6);
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(DPDK_IP_LEN + udp_len));
	ip->fragment_offset = rte_cpu_to_be_16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = f->src_ip;
	ip->dst_addr = f->dst_ip;
	udp->src_port = rte_cpu_to_be_16(f->src_port);
	udp->dst_port = rte_cpu_to_be_16(f->dst_port);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)udp_len);
	udp->dgram_cksum = 0;
	put16(h, DPDK_MAGIC);
	h[2] = DPDK_VERSION;
	h[3] = f->type;
	h[4] = f->kind;
	h[5] = 0;
	put16(h + 6, f->credit);
	put32(h + 8, f->dst_conn);
	put32(h + 12, f->src_conn);
	put32(h + 16, f->seq);
	put32(h + 20, f->ack);
	put64(h + 24, f->sack);
	put32(h + 32, f->msg_len);
	put32(h + 36, f->off);
	put64(h + 40, f->tag);
	if (csum != DPDK_CSUM_NONE)
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (csum == DPDK_CSUM_ALL)
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return DPDK_ETH_LEN + DPDK_IP_LEN + udp_len;
}

/* A datagram whose checksum, summed with its own checksum field, folds to all ones. */
static bool udp_csum_ok(const struct rte_ipv4_hdr *ip, const struct rte_udp_hdr *udp, size_t len)
{
	uint32_t sum;

	if (udp->dgram_cksum == 0) /* RFC 768: the sender computed none */
		return true;
	sum = rte_raw_cksum(udp, len) + rte_ipv4_phdr_cksum(ip, 0);
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return sum == 0xffff;
}

int sw_dp_dpdk_decode(const uint8_t *buf, size_t len, struct dpdk_frame *f, bool csum)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)buf;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(buf + DPDK_ETH_LEN);
	const struct rte_udp_hdr *udp = (const struct rte_udp_hdr *)(ip + 1);
	const uint8_t *h = (const uint8_t *)(udp + 1);
	size_t ip_len, udp_len;

	if (len < DPDK_HEADROOM || eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -EPROTO;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	/* Options, fragments and other protocols are not ours (we send none of them). */
	if (ip->version_ihl != RTE_IPV4_VHL_DEF || ip->next_proto_id != IPPROTO_UDP ||
	    (rte_be_to_cpu_16(ip->fragment_offset) &
	     (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) ||
	    ip_len < DPDK_IP_LEN + DPDK_UDP_LEN + DPDK_HDR_LEN || ip_len > len - DPDK_ETH_LEN)
		return -EPROTO;
	udp_len = rte_be_to_cpu_16(udp->dgram_len);
	if (udp_len != ip_len - DPDK_IP_LEN)
		return -EPROTO;
	if (csum && rte_ipv4_cksum(ip) != 0) /* a valid header sums to all ones */
		return -EPROTO;
	if (csum && !udp_csum_ok(ip, udp, udp_len))
		return -EPROTO;
	if (get16(h) != DPDK_MAGIC || h[2] != DPDK_VERSION || h[3] < DPDK_SYN || h[3] > DPDK_RST)
		return -EPROTO;
	memcpy(f->dst_mac, eth->dst_addr.addr_bytes, 6);
	memcpy(f->src_mac, eth->src_addr.addr_bytes, 6);
	f->src_ip = ip->src_addr;
	f->dst_ip = ip->dst_addr;
	f->src_port = rte_be_to_cpu_16(udp->src_port);
	f->dst_port = rte_be_to_cpu_16(udp->dst_port);
	f->type = h[3];
	f->kind = h[4];
	f->credit = get16(h + 6);
	f->dst_conn = get32(h + 8);
	f->src_conn = get32(h + 12);
	f->seq = get32(h + 16);
	f->ack = get32(h + 20);
	f->sack = get64(h + 24);
	f->msg_len = get32(h + 32);
	f->off = get32(h + 36);
	f->tag = get64(h + 40);
	f->data = h + DPDK_HDR_LEN;
	f->len = (uint32_t)(udp_len - DPDK_UDP_LEN - DPDK_HDR_LEN);
	if ((f->type == DPDK_SYN || f->type == DPDK_SYNACK) && f->msg_len < DPDK_MSS_MIN)
		return -EPROTO; /* no segment size: nothing could be sent */
	if (f->credit && (f->type != DPDK_SEG || f->kind != DPDK_SEG_MSG))
		return -EPROTO; /* credits ride on message segments only */
	if (f->type == DPDK_SEG) {
		if (f->kind < DPDK_SEG_MSG || f->kind > DPDK_SEG_FIN)
			return -EPROTO;
		/* A message segment lies inside its message; others carry no bytes. */
		if (f->kind == DPDK_SEG_MSG ? (f->off > f->msg_len || f->len > f->msg_len - f->off)
		                            : f->len != 0)
			return -EPROTO;
	}
	return 0;
}

int sw_dp_dpdk_decode_unreach(const uint8_t *buf, size_t len, struct dpdk_frame *f)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)buf;
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(buf + DPDK_ETH_LEN);
	const struct rte_ipv4_hdr *qip;
	const struct rte_udp_hdr *qudp;
	const uint8_t *icmp, *h;
	size_t ihl, ip_len;

	if (len < DPDK_ETH_LEN + DPDK_IP_LEN ||
	    eth->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4))
		return -EPROTO;
	ihl = (size_t)(ip->version_ihl & 0xf) * 4;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	/* An unfragmented ICMP datagram holding the type, code, checksum, 4 unused bytes, then the
	 * quoted IPv4 header (ours have no options), UDP header and our header up to src_conn. */
	if (ip->version_ihl >> 4 != 4 || ihl < DPDK_IP_LEN || ip->next_proto_id != IPPROTO_ICMP ||
	    (rte_be_to_cpu_16(ip->fragment_offset) &
	     (RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK)) ||
	    ip_len > len - DPDK_ETH_LEN || ip_len < ihl + 8 + DPDK_IP_LEN + DPDK_UDP_LEN + 16 ||
	    rte_raw_cksum(ip, ihl) != 0xffff)
		return -EPROTO;
	icmp = (const uint8_t *)ip + ihl;
	if (icmp[0] != 3 || icmp[1] != 3 || rte_raw_cksum(icmp, ip_len - ihl) != 0xffff)
		return -EPROTO; /* not "destination unreachable: port unreachable" (RFC 792) */
	qip = (const struct rte_ipv4_hdr *)(icmp + 8);
	qudp = (const struct rte_udp_hdr *)(qip + 1);
	h = (const uint8_t *)(qudp + 1);
	if (qip->version_ihl != RTE_IPV4_VHL_DEF || qip->next_proto_id != IPPROTO_UDP ||
	    get16(h) != DPDK_MAGIC || h[2] != DPDK_VERSION || h[3] < DPDK_SYN || h[3] > DPDK_RST)
		return -EPROTO;
	memset(f, 0, sizeof(*f));
	f->src_ip = qip->src_addr;
	f->dst_ip = qip->dst_addr;
	f->src_port = rte_be_to_cpu_16(qudp->src_port);
	f->dst_port = rte_be_to_cpu_16(qudp->dst_port);
	f->type = h[3];
	f->dst_conn = get32(h + 8);
	f->src_conn = get32(h + 12);
	return 0;
}

/* ARP's fixed fields for IPv4 over Ethernet: hardware type 1, protocol 0x0800, address
 * lengths 6 and 4 (RFC 826). */
static const uint8_t arp_ipv4[6] = {0, 1, 0x08, 0x00, 6, 4};

size_t sw_dp_dpdk_arp_encode(uint8_t *buf, const struct dpdk_arp *a)
{
	uint8_t *m = buf + DPDK_ETH_LEN;

	memset(buf, 0, DPDK_ARP_LEN);
	memcpy(buf, a->dst_mac, 6);
	memcpy(buf + 6, a->sha, 6);
	put16(buf + 12, RTE_ETHER_TYPE_ARP);
	memcpy(m, arp_ipv4, sizeof(arp_ipv4));
	put16(m + 6, a->op);
	memcpy(m + 8, a->sha, 6);
	memcpy(m + 14, &a->spa, 4);
	memcpy(m + 18, a->tha, 6);
	memcpy(m + 24, &a->tpa, 4);
	return DPDK_ARP_LEN;
}

int sw_dp_dpdk_arp_decode(const uint8_t *buf, size_t len, struct dpdk_arp *a)
{
	const uint8_t *m = buf + DPDK_ETH_LEN;

	if (len < DPDK_ETH_LEN + 28 || get16(buf + 12) != RTE_ETHER_TYPE_ARP ||
	    memcmp(m, arp_ipv4, sizeof(arp_ipv4)) != 0 ||
	    (get16(m + 6) != DPDK_ARP_REQUEST && get16(m + 6) != DPDK_ARP_REPLY))
		return -EPROTO;
	a->op = get16(m + 6);
	memcpy(a->dst_mac, buf, 6);
	memcpy(a->sha, m + 8, 6);
	memcpy(&a->spa, m + 14, 4);
	memcpy(a->tha, m + 18, 6);
	memcpy(&a->tpa, m + 24, 4);
	return 0;
}
