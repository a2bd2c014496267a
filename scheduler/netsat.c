/* SPDX-License-Identifier: MIT */
/*
 * NetSat (ShuffleWatcher Section 3.1): per rack uplink, cumulative cross-rack byte counters
 * become a utilisation, and the utilisation a NetworkSaturated flag.
 *
 * Samples may come at any rate. A window opens at a sample and closes at the first sample at
 * least netsat_window seconds later; its rate is the counters' growth over the window's
 * length, so irregular sampling does not bias it. The utilisation is the larger of the out and
 * in rates over the uplink capacity (either direction saturated slows the rack's transfers),
 * smoothed with an exponential average, and the flag is set above nw_saturation_threshold and
 * cleared only below threshold - netsat_hysteresis, so a rack near the threshold does not
 * flip the NASS order on every window.
 */
#include <errno.h>
#include <math.h>

#include "sched_int.h"

static void close_window(const struct sw_sched *s, struct netsat_rack *r, uint32_t rack,
                         uint64_t out, uint64_t in, double now)
{
	double dt = now - r->base_time, cap = s->rack_uplink_bps[rack];
	double bits = 8.0 * (double)(out - r->base_out > in - r->base_in ? out - r->base_out
	                                                                 : in - r->base_in);
	/* No capacity known: the rack cannot be compared, so it never counts as saturated. */
	double u = cap > 0 ? bits / dt / cap : 0;
	double a = s->cfg.netsat_smoothing;

	r->util = r->has_util ? a * u + (1 - a) * r->util : u;
	r->has_util = true;
	if (r->util > s->cfg.nw_saturation_threshold)
		r->saturated = true;
	else if (r->util < s->cfg.nw_saturation_threshold - s->cfg.netsat_hysteresis)
		r->saturated = false;
}

int sw_sched_net_sample(struct sw_sched *s, uint32_t rack, uint64_t out_bytes, uint64_t in_bytes,
                        double now)
{
	struct netsat_rack *r;

	if (!s || rack >= s->n_racks || !isfinite(now))
		return -EINVAL;
	r = &s->netsat[rack];
	if (r->has_base && now < r->base_time)
		return -EINVAL;
	if (r->has_base && (out_bytes < r->base_out || in_bytes < r->base_in)) {
		r->has_base = false; /* counters restarted: start over from this sample */
	} else if (r->has_base) {
		if (now - r->base_time < s->cfg.netsat_window)
			return r->saturated;
		close_window(s, r, rack, out_bytes, in_bytes, now);
	}
	r->base_out = out_bytes;
	r->base_in = in_bytes;
	r->base_time = now;
	r->has_base = true;
	return r->saturated;
}

int sw_sched_net_status(const struct sw_sched *s, uint32_t rack, struct sw_net_status *st)
{
	if (!s || !st || rack >= s->n_racks)
		return -EINVAL;
	st->utilisation = s->netsat[rack].util;
	st->saturated = s->netsat[rack].saturated;
	return 0;
}

bool sw_sched_rack_saturated(const struct sw_sched *s, uint32_t rack)
{
	return s->netsat[rack].saturated;
}
