/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Flow-level network of the simulated cluster (private to tools/sim).
 *
 * Every node has a NIC with a transmit and a receive link, every rack an uplink with an
 * outbound and an inbound link. A transfer between two nodes is a flow over the sender's NIC
 * transmit link, the two racks' uplinks when it crosses racks, and the receiver's NIC receive
 * link. Flows share link bandwidth max-min fairly (progressive filling). Rates are recomputed
 * only when flows start or end, and only for the flows whose rate those changes affect (see
 * net.c); sw_sim_net_update() does it, once for all changes made at one instant.
 *
 * Capacities and rates are in bytes per second, sizes in bytes, times in seconds.
 * Return codes: 0 on success, -EINVAL for a bad argument, -ENOMEM when allocation fails.
 */
#ifndef SIM_NET_H
#define SIM_NET_H

#include <stdint.h>

#include "sw_sched.h"
#include "sw_sim.h"

#define SIM_NET_MAX_HOPS 4
#define SIM_FLOW_NONE    UINT32_MAX

enum sim_link_kind {
	SIM_LINK_NIC_TX = 0,
	SIM_LINK_NIC_RX = 1,
	SIM_LINK_UP_OUT = 2,
	SIM_LINK_UP_IN = 3,
};

struct sim_net;

/** Builds the links of @p c; NULL with errno set (EINVAL: a capacity <= 0 or a bad rack). */
struct sim_net *sw_sim_net_create(const struct sw_cluster_spec *c);
void sw_sim_net_destroy(struct sim_net *n);

/** Link id of node @p idx's NIC (SIM_LINK_NIC_*) or rack @p idx's uplink (SIM_LINK_UP_*). */
uint32_t sw_sim_net_link(const struct sim_net *n, enum sim_link_kind kind, uint32_t idx);
uint32_t sw_sim_net_n_links(const struct sim_net *n);
double sw_sim_net_link_capacity(const struct sim_net *n, uint32_t link);
/** Sum of the rates of the flows on @p link (valid after sw_sim_net_update). */
double sw_sim_net_link_load(const struct sim_net *n, uint32_t link);
/** Bytes @p link has carried from time 0 to @p now (the integral of its load). */
double sw_sim_net_link_bytes(const struct sim_net *n, uint32_t link, double now);

/**
 * Bytes node @p node received from nodes of rack @p src_rack (its own included), as its
 * NIC would count them: whole bytes, each flow's added when it ends (all of it when it
 * completed). What NetSat's per-node counters are made of.
 */
uint64_t sw_sim_net_rx_bytes(const struct sim_net *n, uint32_t node, uint32_t src_rack);

/**
 * Starts a flow of @p bytes (> 0) from node @p src to node @p dst (!= src) at @p now.
 * The flow has rate 0 until the next sw_sim_net_update(). @p owner is returned by
 * sw_sim_net_flow_owner(). @return 0 with *@p id set, -EINVAL, -ENOMEM.
 */
int sw_sim_net_flow_start(struct sim_net *n, uint32_t src, uint32_t dst, uint64_t bytes, double now,
                          void *owner, uint32_t *id);
/**
 * Starts a flow of @p bytes (> 0) from rack @p src_rack to node @p dst of another rack at
 * @p now: the aggregate of transfers from several of the rack's nodes (the rack network
 * model's fetches), over the rack's uplink out, @p dst's rack's uplink in and @p dst's NIC,
 * without any sender NIC. Counted in sw_sim_net_rx_bytes() under @p src_rack.
 * @return 0 with *@p id set, -EINVAL (a bad rack or node, @p dst in @p src_rack, no bytes),
 * -ENOMEM.
 */
int sw_sim_net_flow_start_rack(struct sim_net *n, uint32_t src_rack, uint32_t dst, uint64_t bytes,
                               double now, void *owner, uint32_t *id);
/** Adds @p bytes to running flow @p id at @p now; its rate is unchanged. */
void sw_sim_net_flow_grow(struct sim_net *n, uint32_t id, uint64_t bytes, double now);
/** Removes flow @p id (completed or abandoned) at @p now; its id may be reused. */
void sw_sim_net_flow_end(struct sim_net *n, uint32_t id, double now);

void *sw_sim_net_flow_owner(const struct sim_net *n, uint32_t id);
double sw_sim_net_flow_rate(const struct sim_net *n, uint32_t id);
/** Writes the links of flow @p id to @p links; @return how many (2 or 4; 3 from a rack). */
unsigned sw_sim_net_flow_path(const struct sim_net *n, uint32_t id,
                              uint32_t links[SIM_NET_MAX_HOPS]);

/** True when flows started or ended since the last sw_sim_net_update(). */
int sw_sim_net_dirty(const struct sim_net *n);
/**
 * Recomputes the max-min rates of the flows connected to every flow started or ended since
 * the last call. Call it at the time of those changes, before simulated time advances.
 */
void sw_sim_net_update(struct sim_net *n, double now);
/**
 * Defers the component solves of sw_sim_net_update() to multiples of @p quantum seconds (0, the
 * default: none, every update is exact). Between multiples an update gives the flows that
 * started, and the flows of each changed link that carries few, what the other flows leave,
 * which stays within every link's capacity but may leave some flows below their max-min
 * rate; the components of the changed links are solved exactly at the next multiple of
 * @p quantum (sw_sim_net_due()). @return 0, or -EINVAL unless
 * 0 <= @p quantum <= SW_SIM_MAX_NET_QUANTUM.
 */
int sw_sim_net_set_quantum(struct sim_net *n, double quantum);
/** When the deferred component solve is due (call sw_sim_net_update() then), or INFINITY. */
double sw_sim_net_due(const struct sim_net *n);
/** Recomputes every flow from scratch: the reference sw_sim_net_update() must equal (relative
 *  tolerance 1e-9). */
void sw_sim_net_update_all(struct sim_net *n, double now);

/**
 * The flow that completes first, ties broken by start order: @return its completion time,
 * with *@p id set, or INFINITY when no flow has a rate.
 */
double sw_sim_net_next(const struct sim_net *n, uint32_t *id);

#endif /* SIM_NET_H */
