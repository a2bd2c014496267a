/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "policy.h"

/* The registry: name, ORDER, PICK. sw_sched_policy_names() lists them in this order. */
#define SCHED_POLICIES(X)                            \
	X("fifo", order_fifo, pick_locality)         \
	X("fair", order_fair, pick_locality)         \
	X("drf", order_drf, pick_locality)           \
	X("capacity", order_capacity, pick_locality) \
	X("delay", order_fair, pick_delay)

#define AS_POLICY(name, order, pick) {name, &order, &pick},
#define AS_NAME(name, order, pick)   name,

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
