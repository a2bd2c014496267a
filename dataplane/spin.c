/* SPDX-License-Identifier: MIT */
/* When a context spins before it sleeps: spin.h. */
#include <stdlib.h>

#include "spin.h"

/* A miss makes the next 2^misses waits sleep at once, up to 2^this. Small, since both ends of
 * a fetch back off together once one sleeps (the other's spin then runs out waiting for its
 * wake-up), and only a spin that finds its answer brings them back: with up to 1024, 3 of 6
 * idle runs stayed at the sleepers' 50-69 us (dataplane/README.md). */
#define BACKOFF_MAX 3

void sw_dp_spin_init(struct dp_spin *s, uint64_t ticks_per_us, uint64_t us)
{
	*s = (struct dp_spin){.ticks = ticks_per_us * us};
}

uint64_t sw_dp_spin_env_us(const char *name, uint64_t def)
{
	const char *us = getenv(name);

	return us ? strtoull(us, NULL, 10) : def;
}

bool sw_dp_spin_now(struct dp_spin *s)
{
	return s->ticks && (s->skip == 0 || --s->skip == 0);
}

void sw_dp_spin_hit(struct dp_spin *s)
{
	s->miss = 0;
}

void sw_dp_spin_missed(struct dp_spin *s)
{
	s->skip = 1u << s->miss;
	if (s->miss < BACKOFF_MAX)
		s->miss++;
}
