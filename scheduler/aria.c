/* SPDX-License-Identifier: MIT */
/*
 * ARIA's completion-time model and the Lagrange minimum (Verma et al. ICAC'11, Eqs. 1-15),
 * with task counts folded into the numerators: T = a / m + b / r + c. The low and up rows
 * are the paper's Eqs. 5 and 6 expanded; avg is their mean (Eq. 7, whose printed
 * T_M^up is a typo for T_J^up).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>

#include "sw_sched_aria.h"

static bool value_ok(double v)
{
	return isfinite(v) && v >= 0;
}

static bool profile_ok(const struct sw_job_profile *p)
{
	const double v[] = {p->map_min,           p->map_avg,           p->map_max,
	                    p->shuffle_first_avg, p->shuffle_first_max, p->shuffle_avg,
	                    p->shuffle_max,       p->reduce_avg,        p->reduce_max};

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!value_ok(v[i]))
			return false;
	return true;
}

int sw_sched_aria_model(const struct sw_job_profile *p, uint32_t n_maps, uint32_t n_reduces,
                        enum sw_aria_bound bound, struct sw_aria_model *m)
{
	double per_reduce, nm = n_maps, nr = n_reduces;
	struct sw_aria_model low, up;

	if (!p || !m || (unsigned)bound > SW_ARIA_UP || !profile_ok(p))
		return -EINVAL;
	per_reduce = p->shuffle_avg + p->reduce_avg;
	low = (struct sw_aria_model){
	        .a = nm * p->map_avg,
	        .b = nr * per_reduce,
	        .c = (n_reduces ? p->shuffle_first_avg - p->shuffle_avg : 0),
	};
	/* (N - 1) would go negative for a kind with no task left: that kind costs nothing. */
	up = (struct sw_aria_model){
	        .a = n_maps ? (nm - 1) * p->map_avg : 0,
	        .b = n_reduces ? (nr - 1) * per_reduce : 0,
	        .c = (n_maps ? p->map_max : 0) + (n_reduces
	                                                  ? p->shuffle_first_max + p->shuffle_max -
	                                                            p->shuffle_avg + p->reduce_max
	                                                  : 0),
	};
	if (bound == SW_ARIA_LOW)
		*m = low;
	else if (bound == SW_ARIA_UP)
		*m = up;
	else
		*m = (struct sw_aria_model){
		        .a = (low.a + up.a) / 2, .b = (low.b + up.b) / 2, .c = (low.c + up.c) / 2};
	m->n_maps = n_maps;
	m->n_reduces = n_reduces;
	return 0;
}

/* a / slots for a kind with @p n tasks; a kind without tasks costs nothing. */
static double stage(double a, uint32_t n, uint32_t slots)
{
	if (n == 0)
		return 0;
	if (slots == 0)
		return INFINITY;
	return a / (slots < n ? slots : n);
}

double sw_sched_aria_time(const struct sw_aria_model *m, uint32_t map_slots, uint32_t reduce_slots)
{
	return stage(m->a, m->n_maps, map_slots) + stage(m->b, m->n_reduces, reduce_slots) + m->c;
}

/*
 * Slots of one kind that bring a / slots within @p budget, at least 1, at most @p n. The
 * caller has checked that n slots meet the time, so the cap only absorbs rounding.
 */
static uint32_t fewest(double a, uint32_t n, double budget)
{
	double x = budget > 0 ? ceil(a / budget) : n;

	return x < 1 ? 1 : x > n ? n : (uint32_t)x;
}

int sw_sched_aria_min_slots(const struct sw_aria_model *m, double time_left,
                            uint32_t slots[SW_KINDS])
{
	double d, sa, sb, mm, rr;
	uint32_t nm, nr;

	if (!m || !slots || !isfinite(time_left))
		return -EINVAL;
	nm = m->n_maps;
	nr = m->n_reduces;
	slots[SW_MAP] = nm;
	slots[SW_REDUCE] = nr;
	d = time_left - m->c;
	if (d <= 0 || sw_sched_aria_time(m, nm, nr) > time_left)
		return -ETIME;
	if (nm == 0 || m->a <= 0) {
		slots[SW_MAP] = nm ? 1 : 0;
		slots[SW_REDUCE] = nr ? fewest(m->b, nr, d - stage(m->a, nm, 1)) : 0;
		return 0;
	}
	if (nr == 0 || m->b <= 0) {
		slots[SW_REDUCE] = nr ? 1 : 0;
		slots[SW_MAP] = fewest(m->a, nm, d - stage(m->b, nr, 1));
		return 0;
	}
	/* Eq. 15: minimise m + r subject to a / m + b / r = d. */
	sa = sqrt(m->a);
	sb = sqrt(m->b);
	mm = ceil(sa * (sa + sb) / d);
	rr = ceil(sb * (sa + sb) / d);
	/* A kind capped at its task count leaves less time to the other: solve for that one. */
	if (mm >= nm) {
		slots[SW_REDUCE] = fewest(m->b, nr, d - m->a / nm);
	} else if (rr >= nr) {
		slots[SW_MAP] = fewest(m->a, nm, d - m->b / nr);
	} else {
		slots[SW_MAP] = (uint32_t)mm;
		slots[SW_REDUCE] = (uint32_t)rr;
	}
	return 0;
}
