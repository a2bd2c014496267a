/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "policy.h"

/*
 * The registry: name, ORDER, PICK, ShuffleWatcher mechanisms. sw_sched_policy_names() lists
 * them in this order. sw-fair is NASS + SARP + SAMP; sw-nass and sw-nass-sarp are the
 * paper's additive breakdown (Figures 12, 13): SARP needs NASS, SAMP needs both.
 */
#define SW_FULL (SW_MECH_SAMP | SW_MECH_SARP)
#define SCHED_POLICIES(X)                                                                   \
	X("fifo", sw_sched_order_fifo, sw_sched_pick_locality, 0)                           \
	X("fair", sw_sched_order_fair, sw_sched_pick_locality, 0)                           \
	X("drf", sw_sched_order_drf, sw_sched_pick_locality, 0)                             \
	X("capacity", sw_sched_order_capacity, sw_sched_pick_locality, 0)                   \
	X("delay", sw_sched_order_fair, sw_sched_pick_delay, 0)                             \
	X("sw-fair", sw_sched_order_fair, sw_sched_pick_nass, SW_FULL)                      \
	X("sw-drf", sw_sched_order_drf, sw_sched_pick_nass, SW_FULL)                        \
	X("sw-relaxed", sw_sched_order_fair, sw_sched_pick_nass, SW_FULL | SW_MECH_RELAXED) \
	X("sw-nass", sw_sched_order_fair, sw_sched_pick_nass, 0)                            \
	X("sw-nass-sarp", sw_sched_order_fair, sw_sched_pick_nass, SW_MECH_SARP)            \
	X("minedf", sw_sched_order_edf, sw_sched_pick_locality, 0)                          \
	X("sw-minedf", sw_sched_order_edf, sw_sched_pick_nass, SW_FULL)                     \
	X("aria", sw_sched_order_edf, sw_sched_pick_quota, 0)                               \
	X("adaptive", sw_sched_order_adaptive, sw_sched_pick_affinity, 0)                   \
	X("adaptive-hw", sw_sched_order_adaptive, sw_sched_pick_accel, 0)                   \
	X("sw-adaptive", sw_sched_order_adaptive, sw_sched_pick_nass, SW_FULL)              \
	X("ras", sw_sched_order_ras, sw_sched_pick_locality, 0)                             \
	X("sw-ras", sw_sched_order_ras, sw_sched_pick_nass, SW_FULL)                        \
	X("reverse-adaptive", sw_sched_order_reverse, sw_sched_pick_locality, 0)

#define AS_POLICY(name, order, pick, mech) {name, &order, &pick, mech},
#define AS_NAME(name, order, pick, mech)   name,

static const struct sched_policy policies[] = {SCHED_POLICIES(AS_POLICY)};
static const char *const names[] = {SCHED_POLICIES(AS_NAME) NULL};

const char *const *sw_sched_policy_names(void)
{
	return names;
}

const struct sched_policy *sw_sched_policy_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (strcmp(policies[i].name, name) == 0)
			return &policies[i];
	return NULL;
}
