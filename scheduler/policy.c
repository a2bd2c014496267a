/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "policy.h"

/*
 * The registry: name, ORDER, PICK, ShuffleWatcher mechanisms. sw_sched_policy_names() lists
 * them in this order. sw-fair is NASS + SARP + SAMP; sw-nass and sw-nass-sarp are the
 * paper's additive breakdown (Figures 12, 13): SARP needs NASS, SAMP needs both.
 */
#define SW_FULL (SW_MECH_SAMP | SW_MECH_SARP)
#define SCHED_POLICIES(X)                                                 \
	X("fifo", order_fifo, pick_locality, 0)                           \
	X("fair", order_fair, pick_locality, 0)                           \
	X("drf", order_drf, pick_locality, 0)                             \
	X("capacity", order_capacity, pick_locality, 0)                   \
	X("delay", order_fair, pick_delay, 0)                             \
	X("sw-fair", order_fair, pick_nass, SW_FULL)                      \
	X("sw-drf", order_drf, pick_nass, SW_FULL)                        \
	X("sw-relaxed", order_fair, pick_nass, SW_FULL | SW_MECH_RELAXED) \
	X("sw-nass", order_fair, pick_nass, 0)                            \
	X("sw-nass-sarp", order_fair, pick_nass, SW_MECH_SARP)            \
	X("minedf", order_edf, pick_locality, 0)                          \
	X("sw-minedf", order_edf, pick_nass, SW_FULL)                     \
	X("adaptive", order_adaptive, pick_locality, 0)                   \
	X("sw-adaptive", order_adaptive, pick_nass, SW_FULL)

#define AS_POLICY(name, order, pick, mech) {name, &order, &pick, mech},
#define AS_NAME(name, order, pick, mech)   name,

static const struct sched_policy policies[] = {SCHED_POLICIES(AS_POLICY)};
static const char *const names[] = {SCHED_POLICIES(AS_NAME) NULL};

const char *const *sw_sched_policy_names(void)
{
	return names;
}

const struct sched_policy *sched_policy_find(const char *name)
{
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		if (strcmp(policies[i].name, name) == 0)
			return &policies[i];
	return NULL;
}
