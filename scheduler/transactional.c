/* SPDX-License-Identifier: MIT */
/*
 * A transactional load sharing the nodes (Polo's Reverse-Adaptive, thesis 5.3): its forecast
 * f(t), the share of every node's slots it holds, piecewise constant; the slot-seconds it
 * leaves to MapReduce (what reverse fitting hands out) and how the slots it holds now are
 * spread over the nodes (what a driver reports as not free).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ras.h"
#include "sched_int.h"
#include "sw_sched_aria.h"

/* Shares are read off decimal files: 0.3 x 10 slots is 3, not 2.9999999999999996. */
#define TX_EPS 1e-9

/* Index of the last breakpoint at or before @p t, or -1 before the first. */
static int64_t piece_at(const struct ras_avail *f, double t)
{
	int64_t lo = 0, hi = (int64_t)f->n; /* first breakpoint after t */

	while (lo < hi) {
		int64_t mid = lo + (hi - lo) / 2;

		if (f->v[mid].t <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo - 1;
}

double sw_sched_ras_share(const struct ras_avail *f, double t)
{
	int64_t i = f ? piece_at(f, t) : -1;

	return i >= 0 ? f->v[i].share : 0;
}

double sw_sched_ras_avail(const struct ras_avail *f, double slots, double a, double b)
{
	double sum = 0;

	if (!(b > a))
		return 0;
	if (!f || !f->n)
		return slots * (b - a);
	for (int64_t i = piece_at(f, a); a < b; i++) {
		double end = i + 1 < (int64_t)f->n ? fmin(b, f->v[i + 1].t) : b;

		sum += (end - a) * (1 - (i >= 0 ? f->v[i].share : 0));
		a = end;
	}
	return slots * sum;
}

int sw_sched_transactional(struct sw_sched *s, const struct sw_sched_tx_point *f, uint32_t n)
{
	struct sw_sched_tx_point *copy = NULL;

	if (!s || (n && !f))
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!isfinite(f[i].t) || (i && !(f[i].t > f[i - 1].t)) || !(f[i].share >= 0) ||
		    !(f[i].share <= 1))
			return -EINVAL;
	if (n) {
		copy = malloc(n * sizeof(*copy));
		if (!copy)
			return -ENOMEM;
		memcpy(copy, f, n * sizeof(*copy));
	}
	free(s->tx);
	s->tx = copy;
	s->tx_n = n;
	s->plan_due = true; /* a planning ORDER fits the jobs to the new forecast */
	return 0;
}

double sw_sched_transactional_share(const struct sw_sched *s, double now)
{
	struct ras_avail f = {s->tx, s->tx_n};

	return sw_sched_ras_share(&f, now);
}

uint32_t sw_sched_transactional_held(double share, uint32_t node, uint32_t n_nodes, uint32_t slots)
{
	double all = (double)n_nodes * slots;
	uint64_t held = (uint64_t)fmin(all, floor(fmax(share, 0) * all + TX_EPS));

	if (node >= n_nodes)
		return 0;
	return (uint32_t)(held / n_nodes + (node < held % n_nodes));
}
