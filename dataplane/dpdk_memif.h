/* SPDX-License-Identifier: MIT */
/*
 * Internal to dataplane/: a memif port's receive interrupt, so that a dpdk context on memif
 * can sleep until a frame comes (dataplane/README.md, "Waiting").
 *
 * The memif protocol has one: after each transmit burst a sender writes an eventfd of the
 * ring (passed over the memif socket when the link comes up) unless the receiver set
 * MEMIF_RING_FLAG_MASK_INT in the ring's flags, in the shared memory. DPDK 22.11's memif
 * driver does the sender's part and masks its own receive rings (poll mode), but offers the
 * receiver's part through no API: no rx_queue_intr_enable (rte_eth_dev_rx_intr_enable is
 * -ENOTSUP) and no queue fd (rte_eth_dev_rx_intr_ctl_q_get_fd). So this reaches them through
 * the driver's queue (the queue data of rte_eth_fp_ops, public) and its process-private
 * regions, laid out as DPDK 22.11 has them, and checks what it finds (the port and mbuf pool
 * the queue names, the ring's cookie, the fd) before it touches anything: another layout
 * gives -ENOTSUP, and the context polls as before.
 */
#ifndef SW_DP_DPDK_MEMIF_H
#define SW_DP_DPDK_MEMIF_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mempool;

/* Unmasks (@p on) or masks the receive interrupt of queue 0 of memif port @p port (a port
 * probed from net_memif devargs), whose
 * receive mbufs come from @p pool. Unmasking is a full barrier: a poll after it sees every
 * frame whose sender read the flag as masked. Call only while the link is up (the driver
 * unmaps the ring when it goes down). Returns the eventfd that the peer writes after each
 * burst while unmasked (nonblocking; the driver's, never to be closed), -ENOTSUP if the
 * port is not DPDK 22.11's memif as this module knows it, -ENOTCONN if its ring is not
 * mapped. */
int sw_dp_dpdk_memif_intr(uint16_t port, const struct rte_mempool *pool, bool on);

#endif
