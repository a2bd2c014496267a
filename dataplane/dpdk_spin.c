/* SPDX-License-Identifier: MIT */
/* When a dpdk context spins before it sleeps: dpdk_spin.h. */
#include <stdlib.h>

#include "dpdk_spin.h"

#define DEF_SPIN_US 50
/* A miss makes the next 2^misses waits sleep at once, up to 2^this. Small, since both ends of
 * a fetch back off together once one sleeps (the other's spin then runs out waiting for its
 * wake-up), and only a spin that finds its answer brings them back: with up to 1024, 3 of 6
 * idle runs stayed at the sleepers' 50-69 us (dataplane/README.md). */
#define BACKOFF_MAX 3

void sw_dp_dpdk_spin_init(struct dpdk_spin *s, uint64_t hz)
{
	const char *us = getenv("SW_DP_DPDK_SPIN_US");

	*s = (struct dpdk_spin){.tsc = hz / 1000000 * (us ? strtoull(us, NULL, 10) : DEF_SPIN_US)};
}

bool sw_dp_dpdk_spin_now(struct dpdk_spin *s)
{
	return s->tsc && (s->skip == 0 || --s->skip == 0);
}

void sw_dp_dpdk_spin_hit(struct dpdk_spin *s)
{
	s->miss = 0;
}

void sw_dp_dpdk_spin_missed(struct dpdk_spin *s)
{
	s->skip = 1u << s->miss;
	if (s->miss < BACKOFF_MAX)
		s->miss++;
}
