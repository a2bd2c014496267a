/* SPDX-License-Identifier: MIT */
/* A memif port's receive interrupt: dpdk_memif.h, dataplane/README.md "Waiting". */
#define ALLOW_EXPERIMENTAL_API /* rte_intr_fd_get: struct rte_intr_handle is opaque */
#include <errno.h>
#include <stddef.h>

#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_version.h>

#include "dpdk_memif.h"

/* The memif protocol's ring header (memif.h, version 2): shared with the peer, the same in
 * every memif implementation. */
#define MEMIF_COOKIE             0x3E31F20u
#define MEMIF_RING_FLAG_MASK_INT 1u
struct memif_ring_head {
	uint32_t cookie;
	uint16_t flags;
};

/* What this module reads of DPDK 22.11's own structures (drivers/net/memif/rte_eth_memif.h,
 * lib/ethdev/ethdev_driver.h), as far as it needs them; the offsets were checked against
 * how librte_net_memif.so.23.0 itself reads them (objdump of its receive burst). */
struct memif_queue_2211 {
	struct rte_mempool *mempool;
	void *pmd;
	int type;
	uint16_t region;
	uint16_t in_port;
	uint32_t ring_offset;
	uint16_t last_head, last_tail;
	void *buffers;
	uint64_t n_pkts, n_bytes;
	struct rte_intr_handle *intr_handle;
};
struct memif_region_2211 {
	void *addr;
};
struct eth_dev_2211 {
	eth_rx_burst_t rx_pkt_burst;
	void *other_burst_fns[5];
	void *data;
	struct memif_region_2211 **process_private; /* struct pmd_process_private: regions[] */
	char rest[0x4080 - 8 * 8];                  /* sizeof(struct rte_eth_dev) */
};
_Static_assert(offsetof(struct memif_queue_2211, intr_handle) == 0x38, "memif_queue");
_Static_assert(offsetof(struct eth_dev_2211, process_private) == 0x38, "rte_eth_dev");

/* Exported by librte_ethdev for its drivers (version INTERNAL), declared only in the
 * drivers' header, which Debian does not install. */
extern struct eth_dev_2211 rte_eth_devices[];

int sw_dp_dpdk_memif_intr(uint16_t port, const struct rte_mempool *pool, bool on)
{
#if RTE_VERSION >= RTE_VERSION_NUM(22, 11, 0, 0) && RTE_VERSION < RTE_VERSION_NUM(22, 12, 0, 0)
	const struct memif_queue_2211 *q;
	const struct eth_dev_2211 *dev = &rte_eth_devices[port];
	struct memif_region_2211 *r;
	struct memif_ring_head *ring;
	int fd;

	if (!rte_eth_fp_ops[port].rxq.data || !(q = rte_eth_fp_ops[port].rxq.data[0]) ||
	    q->in_port != port || q->mempool != pool ||
	    dev->rx_pkt_burst != rte_eth_fp_ops[port].rx_pkt_burst)
		return -ENOTSUP;
	if (!dev->process_private || !(r = dev->process_private[q->region]) || !r->addr)
		return -ENOTCONN;
	ring = (struct memif_ring_head *)((char *)r->addr + q->ring_offset);
	if (ring->cookie != MEMIF_COOKIE)
		return -ENOTSUP;
	if ((fd = rte_intr_fd_get(q->intr_handle)) < 0)
		return -ENOTCONN;
	/* A locked read-modify-write: also the barrier between this store and the next poll's
	 * load of the ring's head (else a sender could read the flag as masked while our poll
	 * missed its frame). */
	if (on)
		__atomic_and_fetch(&ring->flags, (uint16_t)~MEMIF_RING_FLAG_MASK_INT,
		                   __ATOMIC_SEQ_CST);
	else
		__atomic_or_fetch(&ring->flags, (uint16_t)MEMIF_RING_FLAG_MASK_INT,
		                  __ATOMIC_SEQ_CST);
	return fd;
#else
	(void)port;
	(void)pool;
	(void)on;
	return -ENOTSUP;
#endif
}
