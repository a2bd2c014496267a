/* SPDX-License-Identifier: MIT */
/*
 * Slot holds (sw_sched_user_slots): a user's running tasks of each kind kept at most a
 * number, under every policy whose pools each hold one user's jobs. The thesis' workflow
 * pool: a workflow runs as one user on S_M^W map and S_R^W reduce slots, the pair Algorithm 2
 * gives. Holds are few (one per live workflow), so a sorted array found by bisection; a
 * scheduler without holds pays one compare per decision.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "sw_sched_aria.h"

/* Index of @p user's hold, or where it would go (*found false). */
static uint32_t hold_find(const struct sw_sched *s, uint32_t user, bool *found)
{
	uint32_t lo = 0, hi = s->n_holds;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s->holds[mid].user < user)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < s->n_holds && s->holds[lo].user == user;
	return lo;
}

/* Pools of fifo and capacity mix users: a held user's job ahead in one would block it. */
static bool pools_per_user(const struct sw_sched *s)
{
	return s->policy->order != &sw_sched_order_fifo &&
	       s->policy->order != &sw_sched_order_capacity;
}

int sw_sched_user_slots(struct sw_sched *s, uint32_t user, const uint32_t slots[SW_KINDS])
{
	struct sched_hold *h;
	bool found;
	uint32_t i;

	if (!s || !slots || user >= s->cfg.n_users)
		return -EINVAL;
	if (!pools_per_user(s))
		return -EOPNOTSUPP;
	i = hold_find(s, user, &found);
	if (!slots[SW_MAP] && !slots[SW_REDUCE]) {
		if (found) {
			memmove(&s->holds[i], &s->holds[i + 1],
			        (s->n_holds - i - 1) * sizeof(*s->holds));
			s->n_holds--;
		}
		return 0;
	}
	if (!found) {
		struct sched_hold *a = realloc(s->holds, (s->n_holds + 1) * sizeof(*a));

		if (!a)
			return -ENOMEM;
		s->holds = a;
		memmove(&a[i + 1], &a[i], (s->n_holds - i) * sizeof(*a));
		s->n_holds++;
		a[i] = (struct sched_hold){.user = user};
		/* the user's tasks already running count against the hold */
		for (uint32_t b = 0; b <= s->jobs.mask; b++)
			for (const struct sched_job *j = s->jobs.buckets[b]; j; j = j->hash_next)
				for (int k = 0; j->user == user && k < SW_KINDS; k++)
					a[i].running[k] += j->running[k];
	}
	h = &s->holds[i];
	for (int k = 0; k < SW_KINDS; k++)
		h->limit[k] = slots[k] ? slots[k] : UINT32_MAX;
	return 0;
}

bool sw_sched_hold_full(const struct sw_sched *s, const struct sched_pool *p,
                        enum sw_task_kind kind)
{
	const struct sched_job *j = p->runnable[kind].head;
	bool found;
	uint32_t i;

	if (!s->n_holds || !j)
		return false;
	i = hold_find(s, j->user, &found);
	return found && s->holds[i].running[kind] >= s->holds[i].limit[kind];
}

void sw_sched_hold_count(struct sw_sched *s, const struct sched_job *j, enum sw_task_kind kind,
                         int delta)
{
	bool found;
	uint32_t i;

	if (!s->n_holds)
		return;
	i = hold_find(s, j->user, &found);
	if (found)
		s->holds[i].running[kind] += (uint32_t)delta;
}
