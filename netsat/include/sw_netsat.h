/* SPDX-License-Identifier: MIT */
/**
 * @file
 * NetSat's measuring side: what nodes report becomes cumulative bytes per rack uplink, the
 * input of the scheduler's sw_sched_net_sample(); and counter sources that read real links.
 *
 * The uplink tracker (struct sw_netsat) keeps no clock and does no I/O. Each node reports,
 * under its boot epoch, the cumulative transport bytes it has received, broken down by the
 * rack of the peer that sent them. Each byte is counted once, where it lands: bytes a node of
 * rack R received from rack S != R crossed S's uplink out and R's uplink in; bytes from its
 * own rack crossed no uplink. A node that restarts reports a new, larger boot epoch and
 * counters from zero; what it reported before stays counted, so a rack's sums never go
 * backwards. Where the operator counts a rack's uplink itself (a ToR port), those counters
 * may replace the nodes' sums for that rack. Memory is fixed at creation: n_nodes x n_racks
 * counters.
 *
 * Counter sources (struct sw_netsat_source) read one interface, qdisc or RDMA port, behind one
 * ops table (netsat/source.c): "link" (netlink RTM_GETLINK stats64), "qdisc" (netlink
 * RTM_GETQDISC, the root qdisc's stats) and "rdma" (sysfs port counters).
 *
 * Return codes: 0 on success or a negative errno value, as documented per call.
 * Not thread-safe: one caller at a time per tracker or source.
 */
#ifndef SW_NETSAT_H
#define SW_NETSAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sw_netsat;

/** Bytes one node received from peers of one rack since its boot epoch began. */
struct sw_netsat_count {
	uint32_t rack;  /**< the rack of the peers that sent them */
	uint64_t bytes; /**< cumulative, transport bytes (what the link carried) */
};

/**
 * Creates a tracker for @p n_nodes nodes (ids 0 .. n_nodes - 1) in @p n_racks racks;
 * node i is in rack @p rack_of[i] (copied).
 * @return the tracker, or NULL with errno EINVAL (no node, no rack, NULL @p rack_of, a rack
 *         out of range) or ENOMEM.
 */
struct sw_netsat *sw_netsat_create(uint32_t n_nodes, uint32_t n_racks, const uint32_t *rack_of);
void sw_netsat_destroy(struct sw_netsat *ns);

/**
 * Folds one report of node @p node: @p n counters, at most one per source rack. A rack not
 * listed keeps its value in this epoch (zero in a new epoch). @p boot_epoch identifies the
 * node's incarnation and must grow when it restarts (the agent's start time, for instance):
 * a larger epoch starts its counters from zero, a smaller one is a late report of an earlier
 * incarnation. A refused report changes nothing.
 * @return 0;
 *         -EINVAL: NULL @p ns, NULL @p counts with @p n > 0, or a rack listed twice;
 *         -ENODEV: @p node is not a node of the cluster;
 *         -ERANGE: a counter names a rack outside the cluster;
 *         -ESTALE: @p boot_epoch is older than the node's current one;
 *         -EILSEQ: a counter went backwards within the epoch;
 *         -EOVERFLOW: a rack's sum would pass 2^64 - 1.
 */
int sw_netsat_report(struct sw_netsat *ns, uint32_t node, uint64_t boot_epoch,
                     const struct sw_netsat_count *counts, size_t n);

/**
 * Takes node @p node's counters as they are without adding anything to the uplinks: its
 * later reports add only what they grew by. For a node whose counters began before this
 * tracker did (a controller that restarted while its agents ran on): its first report holds
 * bytes received at unknown times, which folded at once would read as a burst in one sample
 * (NetSat then saw racks saturated for seconds after every restart). Same checks and codes as
 * sw_netsat_report(); a later report in a larger epoch counts from zero as usual.
 */
int sw_netsat_baseline(struct sw_netsat *ns, uint32_t node, uint64_t boot_epoch,
                       const struct sw_netsat_count *counts, size_t n);

/**
 * Whether a report or a baseline of node @p node has been taken, so a driver that may have
 * started after its nodes (a restarted controller) knows whether the next report is a
 * baseline.
 * @return true once taken; false before, and for a NULL @p ns or a node out of range.
 */
bool sw_netsat_node_known(const struct sw_netsat *ns, uint32_t node);

/**
 * Folds the operator's own cumulative counters of rack @p rack's uplink (a ToR port read with
 * a counter source, say): bytes that left the rack (@p out_bytes) and entered it
 * (@p in_bytes), all traffic the link carried. From the first such report on, the rack's
 * sums follow these counters instead of the nodes' reports, continuing from where the nodes'
 * sums stood (that first report only sets the baseline). @p epoch must grow when the counters
 * restart from zero (the interface was re-created, the switch rebooted); a larger epoch counts
 * from zero. A refused report changes nothing.
 * @return 0; -EINVAL (NULL @p ns), -ERANGE (rack outside the cluster), -ESTALE (an older
 *         epoch), -EILSEQ (a counter went backwards within the epoch), -EOVERFLOW (a sum
 *         would pass 2^64 - 1).
 */
int sw_netsat_uplink_measured(struct sw_netsat *ns, uint32_t rack, uint64_t epoch,
                              uint64_t out_bytes, uint64_t in_bytes);

/**
 * Cumulative bytes that crossed rack @p rack's uplink out and in: from the nodes' reports
 * (sent by its nodes and landed in other racks; landed on its nodes from other racks), or,
 * once the rack's uplink is measured, from sw_netsat_uplink_measured().
 * @return 0, -EINVAL (NULL argument, rack out of range).
 */
int sw_netsat_uplink(const struct sw_netsat *ns, uint32_t rack, uint64_t *out_bytes,
                     uint64_t *in_bytes);

/* ---- counter sources ---- */

struct sw_netsat_source;

/** Where a source reads. Unused fields are NULL. */
struct sw_netsat_source_spec {
	/** "link", "qdisc" or "rdma" (sw_netsat_source_kinds()). */
	const char *kind;
	/** link, qdisc: interface name. rdma: "DEVICE/PORT", e.g. "mlx5_0/1". */
	const char *dev;
	/** link, qdisc: network namespace, a name under /run/netns or an absolute path such as
	 *  /proc/PID/ns/net or /proc/self/fd/FD; NULL: the caller's namespace. */
	const char *netns;
	/** rdma: the directory of devices; NULL: /sys/class/infiniband. */
	const char *sysfs_root;
};

/** Cumulative counters; a source fills the fields it has and leaves the others 0. */
struct sw_netsat_counters {
	uint64_t rx_bytes, tx_bytes;     /**< link, rdma; qdisc: tx, bytes it sent */
	uint64_t rx_packets, tx_packets; /**< link, rdma; qdisc: tx, packets it sent */
	uint64_t drops;                  /**< link: rx + tx dropped; qdisc: dropped */
	uint64_t overlimits;             /**< qdisc: times a packet had to wait for its rate */
	uint64_t backlog_bytes;          /**< qdisc: queued now (not cumulative) */
	uint64_t backlog_packets;        /**< qdisc: queued now (not cumulative) */
};

/**
 * Opens a source as @p spec says; the namespace, if any, is entered only while the socket
 * is opened (needs CAP_SYS_ADMIN). On failure *@p src is NULL and, when @p err is not NULL,
 * @p err (of @p err_len bytes) says what failed and where.
 * @return 0; -EINVAL (NULL or unknown kind, missing dev, a field the kind does not take),
 *         -ENOENT (no such namespace, interface, device or port), -ENOMEM, or the
 *         negative errno of the system call that failed.
 */
int sw_netsat_source_open(const struct sw_netsat_source_spec *spec, struct sw_netsat_source **src,
                          char *err, size_t err_len);

/**
 * Reads the source's counters into @p c.
 * @return 0; -ENOENT (the interface, qdisc or port is gone), -EBADMSG (a reply or file the
 *         parser does not accept), or the negative errno of the system call that failed;
 *         sw_netsat_source_error() then says what and where.
 */
int sw_netsat_source_read(struct sw_netsat_source *src, struct sw_netsat_counters *c);

/** What the last failed read of @p src was about ("" after a successful one). */
const char *sw_netsat_source_error(const struct sw_netsat_source *src);

void sw_netsat_source_close(struct sw_netsat_source *src);

/** NULL-terminated list of the source kinds, in registration order. */
const char *const *sw_netsat_source_kinds(void);

#ifdef __cplusplus
}
#endif

#endif /* SW_NETSAT_H */
