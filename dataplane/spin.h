/* SPDX-License-Identifier: MIT */
/*
 * Internal to dataplane/: whether a context's sw_dp_wait polls a while before it sleeps (dpdk
 * on ports with a wake set, tcp where sw_dp_config.spin_us asks for it). An answer that comes
 * within the spin is taken without a wake-up, which on an idle machine costs more than a small
 * fetch (dataplane/README.md, "Spinning before sleeping"); a spin on a core that another
 * thread wants takes the time that thread, maybe the peer, needs to answer. So a spin that ran
 * out, or lost its core, makes the next waits sleep at once, twice as many after each such
 * spin in a row, up to 8.
 */
#ifndef SW_DP_SPIN_H
#define SW_DP_SPIN_H

#include <stdbool.h>
#include <stdint.h>

/* A spin that went this long between two polls was off its core. */
#define SW_DP_SPIN_PREEMPTED_US 20

struct dp_spin {
	uint64_t ticks; /* how long a spin lasts, in the caller's clock; 0: never spin */
	uint32_t skip;  /* waits left that sleep at once */
	uint32_t miss;  /* spins in a row that found nothing, or lost their core */
};

/* Spins of @p us microseconds (0: off) on a clock of @p ticks_per_us. */
void sw_dp_spin_init(struct dp_spin *s, uint64_t ticks_per_us, uint64_t us);
/* The environment's @p name in microseconds, or @p def where it is unset. */
uint64_t sw_dp_spin_env_us(const char *name, uint64_t def);
/* Whether this wait spins first (called once per wait that may sleep). */
bool sw_dp_spin_now(struct dp_spin *s);
/* The spin found work in its time. */
void sw_dp_spin_hit(struct dp_spin *s);
/* The spin ran out, or went off its core between two polls. */
void sw_dp_spin_missed(struct dp_spin *s);

#endif
