/* SPDX-License-Identifier: MIT */
/*
 * Private: a scheduling policy is an ORDER (who gets the slot) and a PICK (which task of
 * that pool), registered by name in policy.c. A new policy is a new order_*.c or pick_*.c
 * file plus one line in the registry.
 *
 * The core owns all shared state (jobs, pools, heaps, nodes) and calls the ops at fixed
 * points; ops read that state through sched_int.h and change only what they own: ORDER the
 * pools' keys and weights and its jobs' policy area (`ras`), PICK its private state and the jobs'
 * `delay` (Delay) or `nass` (ShuffleWatcher) fields.
 */
#ifndef SW_POLICY_H
#define SW_POLICY_H

#include "sched_int.h"

struct sched_order_ops {
	/* The pool a new job joins. Pool ids are small: the core keeps an array of them. */
	uint32_t (*pool_of)(const struct sw_sched *s, const struct sched_job *j);
	/* Refuses a job at add (NULL: every job is admitted). @return 0, -ETIME or -EINVAL. */
	int (*admit)(const struct sw_sched *s, const struct sched_job *j, double now);
	/* Sets the weights of a pool the core just created (NULL: weight 1). */
	void (*pool_init)(const struct sw_sched *s, struct sched_pool *p);
	/*
	 * Recomputes p->key[] after the pool gained a job, or one of its tasks launched or
	 * finished; the core then restores the heaps.
	 */
	void (*update_keys)(const struct sw_sched *s, struct sched_pool *p, double now);
	/* PLAN (NULL: none), for policies that look at all live jobs at once: called at the
	 * first heartbeat at or after the next control instant (cfg.plan_period apart) and
	 * after a job add or a node change; writes each job's plan into its policy area, then
	 * the core re-ranks every pool. @return 0 or -ENOMEM (the previous plan holds). */
	int (*plan)(struct sw_sched *s, double now);
	/* A job was created (NULL: nothing to do): allocates its policy area (j->ras), which
	 * sw_sched_job_free frees. @return 0 or -ENOMEM (add fails). */
	int (*job_added)(struct sw_sched *s, struct sched_job *j, double now);
};

struct sched_pick_ops {
	/* Allocates s->pick_priv (NULL: none). @return 0 or -ENOMEM. */
	int (*init)(struct sw_sched *s);
	void (*fini)(struct sw_sched *s);
	/* Called once per heartbeat before any decision (NULL: nothing to do). */
	void (*heartbeat_begin)(struct sw_sched *s, double now);
	/* A job joined its pool (NULL: nothing to do). @return 0 or -ENOMEM (add fails). */
	int (*job_added)(struct sw_sched *s, struct sched_job *j, double now);
	/* Called before the core frees a job (NULL: nothing to do). */
	void (*job_removed)(struct sw_sched *s, struct sched_job *j);
	/* A task finished; the core has done its accounting (NULL: nothing to do). */
	void (*task_finished)(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
	                      uint32_t task, double now);
	/* Map @p map's output was registered in j->maps[map] (NULL: nothing to do). */
	void (*map_output)(struct sw_sched *s, struct sched_job *j, uint32_t map, double now);
	/* Map @p map's output, still in j->maps[map] but no longer in the job's totals, is
	 * about to be forgotten: its attempt failed or its node was lost (NULL: nothing to do). */
	void (*map_output_dropped)(struct sw_sched *s, struct sched_job *j, uint32_t map);
	/* A task that was running or done is pending again; its node field still names where
	 * it ran. The core has done its accounting (NULL: nothing to do). */
	void (*task_requeued)(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
	                      uint32_t task);
	/* Node @p node went down or came back (s->nodes[node].down) (NULL: nothing to do). */
	void (*node_changed)(struct sw_sched *s, uint32_t node);
	/*
	 * Chooses a runnable task of @p kind from @p pool that fits @p node, or returns false
	 * to let the next pool in ORDER try. Must not launch: the core does, always, after a
	 * true return.
	 */
	bool (*pick)(struct sw_sched *s, struct sched_pool *pool, uint32_t node,
	             enum sw_task_kind kind, double now, struct sched_choice *c);
	/* Regular and accelerated nodes get a ready heap each (enum sched_hw). */
	bool hw_classes;
};

struct sched_policy {
	const char *name;
	const struct sched_order_ops *order;
	const struct sched_pick_ops *pick;
	unsigned sw_mechanisms; /* SW_MECH_* the policy uses (NASS picks only) */
};

extern const struct sched_order_ops sw_sched_order_fifo, sw_sched_order_fair, sw_sched_order_drf,
        sw_sched_order_capacity, sw_sched_order_edf, sw_sched_order_adaptive, sw_sched_order_ras,
        sw_sched_order_reverse;

/*
 * The deadline orders (sw_sched_order_edf.c, sw_sched_order_adaptive.c) give each job a pool of its
 * own (sw_sched_order_pool_per_job) and rank jobs in tiers whose keys lie in [tier * ORDER_TIER,
 * (tier + 1) * ORDER_TIER): deadlines and arrivals must stay below ORDER_TIER seconds.
 */
#define ORDER_TIER 1e12
uint32_t sw_sched_order_pool_per_job(const struct sw_sched *s, const struct sched_job *j);
/* Soft deadlines (adaptive, ras): every job is admitted, a deadline of ORDER_TIER or more is
 * -EINVAL (out of the keys). */
int sw_sched_order_admit_soft(const struct sw_sched *s, const struct sched_job *j, double now);
/* Polo's goal of a phase (order_adaptive.c): maps get the share of the job's timeframe their
 * work takes, reduces the deadline. */
double sw_sched_adaptive_phase_goal(const struct sched_job *j, enum sw_task_kind kind);
/* Adaptive ranks pool @p p's job as having the map slots its goal needs (s_req <= 0). */
bool sw_sched_adaptive_ahead(const struct sched_pool *p);
extern const struct sched_pick_ops sw_sched_pick_locality, sw_sched_pick_delay, sw_sched_pick_nass,
        sw_sched_pick_affinity, sw_sched_pick_quota, sw_sched_pick_accel;

/* Polo's accelerated pools (accel.c), for a job with a policy area (j->accel): whether @p j
 * is accelerable, and if so its accelerated maps' mean length and running count. */
bool sw_sched_accel_pool(const struct sched_job *j, double *mu, uint32_t *running);
/* Adaptive ranked @p j's maps on @p need: s_req or s_req,acc, INFINITY when its goal is
 * missed, NAN when it has no measure (no goal, or no finished map). */
void sw_sched_accel_keyed(const struct sw_sched *s, const struct sched_job *j, double need);
/* Whether @p j's maps pass every slot of nodes of class @p hw, by what Adaptive keyed last:
 * an accelerable job with no regular need (Eq. 3) on regular nodes, a job running its
 * calibration map on the class's pool. */
bool sw_sched_accel_barred(const struct sw_sched *s, const struct sched_job *j, enum sched_hw hw);
/* Eq. 3 counted in running slots: the regular map slots an accelerable job of speedup
 * @p speedup (mu_reg / mu_acc) needs beyond the @p r_reg it holds, when it needs @p need more
 * accelerated slots than its @p r_acc and the pool has @p acc_slots. */
double sw_sched_accel_extra(double speedup, double need, uint32_t r_acc, uint32_t r_reg,
                            double acc_slots);

/* The registered policy called @p name, NULL when there is none. */
const struct sched_policy *sw_sched_policy_find(const char *name);

/* Reduces have no locality: the first job of the pool with a reduce that fits. */
bool sw_sched_pick_first_reduce(struct sched_pool *pool, const struct sched_node *n,
                                struct sched_choice *c);

#endif /* SW_POLICY_H */
