/* SPDX-License-Identifier: MIT */
/*
 * Internal to dataplane/: whether a dpdk context polls a while before it sleeps on its wake
 * set (dpdk_wake.h). An answer that comes within the spin is taken without a wake-up, which
 * on an idle machine costs more than a small fetch (dataplane/README.md, "Spinning before
 * sleeping"); a spin on a core that another thread wants takes the time that thread, maybe
 * the peer, needs to answer. So a spin that ran out, or lost its core, makes the next waits
 * sleep at once, twice as many after each such spin in a row, up to 8.
 */
#ifndef SW_DP_DPDK_SPIN_H
#define SW_DP_DPDK_SPIN_H

#include <stdbool.h>
#include <stdint.h>

struct dpdk_spin {
	uint64_t tsc;  /* how long a spin lasts, in TSC ticks; 0: never spin */
	uint32_t skip; /* waits left that sleep at once */
	uint32_t miss; /* spins in a row that found nothing, or lost their core */
};

/* Spins of SW_DP_DPDK_SPIN_US microseconds (default 50, 0: off) at @p hz ticks a second. */
void sw_dp_dpdk_spin_init(struct dpdk_spin *s, uint64_t hz);
/* Whether this wait spins first (called once per wait that may sleep). */
bool sw_dp_dpdk_spin_now(struct dpdk_spin *s);
/* The spin found work in its time. */
void sw_dp_dpdk_spin_hit(struct dpdk_spin *s);
/* The spin ran out, or went off its core between two polls. */
void sw_dp_dpdk_spin_missed(struct dpdk_spin *s);

#endif
