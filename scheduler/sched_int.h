/* SPDX-License-Identifier: MIT */
/*
 * Private to scheduler/: the state behind struct sw_sched, shared by the core and the
 * ORDER/PICK policy parts. Nothing outside scheduler/ includes this.
 */
#ifndef SW_SCHED_INT_H
#define SW_SCHED_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "sw_sched.h"
#include "locindex.h"
#include "pool_heap.h"

#define SCHED_NONE UINT32_MAX

enum task_state {
	TASK_PENDING = 0,
	TASK_RUNNING = 1,
	TASK_DONE = 2,
};

/* One task of either kind: what the core needs to account for it. */
struct sched_task {
	union {
		double started;  /* running: task_started time; the launching heartbeat's until then
		                  */
		double duration; /* done: start to finish, taken back if a lost output re-runs it */
	};
	uint32_t node; /* where it runs or ran, to give back its slot and find lost outputs */
	uint8_t state;
	bool started_seen;
	uint16_t failures; /* failed attempts (task_failed), saturating */
};

/* What only maps carry: where the input is and where the output went. */
struct sched_map {
	uint64_t input_bytes;
	uint64_t output_bytes; /* registered size, 0 until map_output */
	uint32_t output_node;  /* SW_NO_NODE until map_output */
	uint32_t replicas[SW_MAX_REPLICAS];
	uint8_t n_replicas;
};

struct sched_job;

/* Intrusive doubly linked list of jobs in (arrival, seq) order. */
struct job_link {
	struct sched_job *prev, *next;
};

struct job_list {
	struct sched_job *head, *tail;
};

/* Delay scheduling state of one job (Zaharia et al. EuroSys'10, HFS JobInfo). */
struct delay_job {
	enum sw_locality level; /* locality of the last map launched */
	double waited;          /* seconds skipped since then, credited per heartbeat */
	uint32_t skip_idx;      /* index in the skipped-this-heartbeat list, SCHED_NONE */
};

struct nass_job;  /* ShuffleWatcher's per-job state, nass.c */
struct ras_job;   /* RAS's per-job plan, ras.c */
struct accel_job; /* Polo's per-pool map statistics, accel.c */

struct sched_job {
	uint64_t id;
	uint64_t seq; /* add order, breaks arrival ties */
	uint32_t user, queue, pool;
	enum sw_job_class cls;
	double arrival, deadline;
	bool has_profile;
	struct sw_job_profile profile;

	uint32_t n_tasks[SW_KINDS];
	uint32_t pending[SW_KINDS], running[SW_KINDS], done[SW_KINDS];
	struct sw_resources demand[SW_KINDS];
	struct sw_resources shuffle_demand; /* a reduce's while maps are left (the spec's, or its
	                                     * reduce_demand when the spec gives none) */
	struct sched_task *tasks[SW_KINDS];
	double duration_sum[SW_KINDS]; /* of the done[] tasks: ARIA's and Polo's averages */
	struct sched_map *maps;

	/* Pending maps by replica node and by replica rack; maps below any_cursor are taken. */
	struct loc_index by_node, by_rack;
	uint32_t any_cursor;
	uint32_t next_reduce;    /* reduces launch in index order */
	uint32_t slowstart_maps; /* finished maps needed before reduces may run */
	bool reduces_ready;

	uint64_t output_bytes; /* sum of registered map outputs */
	uint32_t outputs;      /* maps whose output is registered */
	uint32_t failed[SW_KINDS], lost[SW_KINDS], lost_outputs; /* sw_job_status */

	/* Membership in the pool's per-kind list of jobs with runnable tasks. */
	struct job_link link[SW_KINDS];

	struct delay_job delay;
	uint32_t deferred;     /* Polo's data affinity: maps deferred in a row (pick_affinity.c) */
	struct nass_job *nass; /* one allocation, owned by the sw-* PICK; NULL otherwise */
	struct ras_job *ras;   /* one allocation, owned by the ras ORDER; NULL otherwise */
	struct accel_job *accel; /* one allocation, owned by the adaptive-hw PICK; NULL otherwise */
	struct sched_job *hash_next;
};

/*
 * Classes of nodes by hardware: the regular (hardware pool 0) and the accelerated (any other).
 * A policy that tells them apart (sched_pick_ops.hw_classes: Polo's accelerated pools) has a
 * ready heap per class and kind, and bars a pool from a class whose slots it would pass, so a
 * node walks only the pools that may take its slot; any other has the regular class's alone.
 */
enum sched_hw { SCHED_HW_REGULAR, SCHED_HW_ACCEL, SCHED_HW_CLASSES };

/* A set of jobs that ORDER ranks as one (a user, a queue, everything). */
struct sched_pool {
	uint32_t id;
	double weight[SW_KINDS]; /* share of slots the pool is entitled to (Fair, Capacity) */
	double key[SW_KINDS];    /* ORDER's rank per kind: lower is served first */
	/* ORDER's too: the pool takes no slot of the kind on nodes of the class */
	bool barred[SW_KINDS][SCHED_HW_CLASSES];
	uint32_t heap_pos[SW_KINDS][SCHED_HW_CLASSES];
	uint32_t running[SW_KINDS];
	uint32_t jobs; /* live jobs in the pool */
	struct sw_resources used;
	struct job_list runnable[SW_KINDS];
};

/* A plan's target on a node for one job and kind (keep.c): the node keeps the room of
 * placed - running of the job's tasks, its job slots there that none of its tasks fills. */
struct sched_keep {
	uint64_t job;
	struct sw_resources demand; /* one task's, as the plan counted it */
	uint16_t placed;            /* the plan's count; 0 once the job has no task left to start */
	uint16_t running;           /* the job's tasks of the kind running here */
	uint8_t kind;
};

struct sched_node {
	uint32_t rack;
	uint32_t hw_pool;
	uint16_t slots[SW_KINDS];
	uint16_t running[SW_KINDS];
	struct sw_resources capacity, used;
	double nic_bps;
	bool down; /* node_lost until node_up: no task, no heartbeat answered */
	/* What the last plan keeps here (keep.c): room for n_keep targets, at most the node's
	 * slots of both kinds (keep points into sw_sched.keeps), their demands and counts. */
	struct sched_keep *keep;
	uint16_t n_keep;
	uint16_t kept_tasks[SW_KINDS];
	struct sw_resources kept;
};

/* NetSat's state of one rack uplink (netsat.c). */
struct netsat_rack {
	uint64_t base_out, base_in; /* counters at the start of the open window */
	double base_time;
	double util; /* smoothed utilisation */
	bool has_base, has_util, saturated;
};

/* Live jobs by caller id: chained hash, doubled when the load passes 1. */
struct job_table {
	struct sched_job **buckets;
	uint32_t mask;
	uint32_t count;
};

/* What a PICK chose; the core launches it. */
struct sched_choice {
	struct sched_job *job;
	uint32_t task;
	enum sw_locality locality;
	uint32_t src_node;
};

/* A user's slot hold (hold.c, sw_sched_user_slots): its running tasks of each kind, and the
 * most it may run (UINT32_MAX: no limit for the kind). */
struct sched_hold {
	uint32_t user;
	uint32_t limit[SW_KINDS];
	uint32_t running[SW_KINDS];
};

struct sched_policy;

struct sw_sched {
	const struct sched_policy *policy;
	struct sw_sched_config cfg;
	double *queue_capacity; /* n_queues fractions, owned */

	uint32_t n_nodes, n_racks;
	struct sched_node *nodes;
	struct sched_keep *keeps; /* every node's keep, one allocation */
	double *rack_uplink_bps;
	struct netsat_rack *netsat;
	struct sw_resources total;   /* capacity of the nodes up, DRF's denominator */
	struct sw_resources largest; /* per dimension, for rejecting tasks that fit nowhere */
	double total_slots[SW_KINDS];

	struct sched_pool **pools;
	uint32_t n_pools;
	/* Pools with runnable tasks of the kind, not barred from the class (n_hw classes). */
	struct pool_heap ready[SW_KINDS][SCHED_HW_CLASSES];
	uint32_t n_hw;

	struct job_table jobs;
	uint64_t next_seq;
	void *pick_priv;
	struct sched_hold *holds; /* by user, ascending */
	uint32_t n_holds;

	/* PLAN (a planning ORDER only): place at the first heartbeat at or after plan_next,
	 * or after a job add or a node change (plan_due). */
	double plan_next;
	bool plan_due;

	/* The transactional load's forecast (transactional.c, sw_sched_transactional): f(t),
	 * tx_n breakpoints, owned. */
	struct sw_sched_tx_point *tx;
	uint32_t tx_n;
};

/* The class of node @p node: regular unless the policy tells the accelerated apart. */
static inline enum sched_hw sw_sched_node_hw(const struct sw_sched *s, uint32_t node)
{
	return s->n_hw > 1 && s->nodes[node].hw_pool ? SCHED_HW_ACCEL : SCHED_HW_REGULAR;
}

/* job.c: building jobs and finding their runnable tasks. */
int sw_sched_job_create(const struct sw_sched *s, const struct sw_job_spec *spec,
                        struct sched_job **out);
void sw_sched_job_free(struct sched_job *j);
bool sw_sched_job_map_at(const struct sw_sched *s, struct sched_job *j, uint32_t node,
                         enum sw_locality max_level, struct sched_choice *c);
bool sw_sched_job_reduce_next(struct sched_job *j, struct sched_choice *c);
/* Adds @p times one task's demand @p d to @p r (negative: takes it off). */
static inline void sw_sched_resources_add(struct sw_resources *r, const struct sw_resources *d,
                                          double times)
{
	r->cpu += times * d->cpu;
	r->mem_gb += times * d->mem_gb;
	r->io += times * d->io;
}

/* What a running task of @p kind holds now: a reduce its shuffle demand while the job has
 * maps to finish (it only copies), its reduce demand once they are all done. */
const struct sw_resources *sw_sched_task_demand(const struct sched_job *j, enum sw_task_kind kind);
/* Whether a task of @p kind of @p j fits node @p n's free resources: any free room for a job
 * with a target of the kind there, else beside the room the plan keeps there (keep.c). */
bool sw_sched_job_fits(const struct sched_job *j, enum sw_task_kind kind,
                       const struct sched_node *n);
/* Task @p task is pending again: moves the cursors that passed it back to it. */
void sw_sched_job_rewind(const struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                         uint32_t task);

/* keep.c: the room a plan keeps on each node for the tasks it put there (per-node targets).
 * Clears every node's; adds one task of @p j and @p kind to node @p n's, at its demand now;
 * the entry of @p j and @p kind on @p n with a slot no task of it fills, or NULL; a task of
 * @p j started on @p n (its entry there, if any, keeps one task less); one ended or failed
 * there (its entry keeps one more, while under the plan's count); forgets @p j's targets of
 * @p kind on every node (it has no such task left to start). */
void sw_sched_keep_clear(struct sw_sched *s);
void sw_sched_keep_add(struct sched_node *n, const struct sched_job *j, enum sw_task_kind kind);
const struct sched_keep *sw_sched_keep_own(const struct sched_node *n, const struct sched_job *j,
                                           enum sw_task_kind kind);
void sw_sched_keep_take(struct sched_node *n, const struct sched_job *j, enum sw_task_kind kind);
void sw_sched_keep_give(struct sched_node *n, const struct sched_job *j, enum sw_task_kind kind);
void sw_sched_keep_forget(struct sw_sched *s, const struct sched_job *j, enum sw_task_kind kind);
/* The Task Scheduler's first choice for a free slot of @p kind on @p node: the jobs with a
 * target there, lowest pool key first, each offered to @p try_pool (the heartbeat's pool
 * attempt). @return true when one took it. */
bool sw_sched_keep_serve(struct sw_sched *s, uint32_t node, enum sw_task_kind kind,
                         bool (*try_pool)(struct sched_pool *p, void *arg), void *arg);
/* Whether every free slot of @p kind on @p n is kept for a target: no other job fits there. */
bool sw_sched_keep_full(const struct sched_node *n, enum sw_task_kind kind);

/* pool.c: pools, their runnable-job lists and their place in the ready heaps (a pool is in
 * a class's heap of a kind while it has runnable tasks of the kind and is not barred). */
struct sched_pool *sw_sched_pool_get(struct sw_sched *s, uint32_t id);
void sw_sched_pool_list_add(struct sw_sched *s, struct sched_pool *p, struct sched_job *j,
                            enum sw_task_kind kind);
void sw_sched_pool_list_del(struct sw_sched *s, struct sched_pool *p, struct sched_job *j,
                            enum sw_task_kind kind);
void sw_sched_pool_refresh(struct sw_sched *s, struct sched_pool *p, double now);
/* Every pool's keys, after a change all of them may read (totals, a new plan). */
void sw_sched_pool_refresh_all(struct sw_sched *s, double now);

/* hold.c: whether pool @p p's user (its pools hold one user's jobs) runs as many tasks of
 * @p kind as its hold allows; a task of @p j's user launched (+1) or released (-1). */
bool sw_sched_hold_full(const struct sw_sched *s, const struct sched_pool *p,
                        enum sw_task_kind kind);
void sw_sched_hold_count(struct sw_sched *s, const struct sched_job *j, enum sw_task_kind kind,
                         int delta);

/* netsat.c: NetworkSaturated of a rack. */
bool sw_sched_rack_saturated(const struct sw_sched *s, uint32_t rack);

/* events.c: runs the ORDER's PLAN now and re-ranks every pool by it (the heartbeat does
 * this when a plan is due). @return 0, -EOPNOTSUPP (the ORDER does not plan) or -ENOMEM
 * (the previous plan holds). */
int sw_sched_plan(struct sw_sched *s, double now);

/* sched.c: frees live job @p j, whose running tasks and ready-list entries are already gone. */
void sw_sched_job_drop(struct sw_sched *s, struct sched_job *j);

/* events.c: running task @p task of live job @p job (*jp), or NULL with *rc set (-EINVAL bad
 * argument, -ENOENT no such job or task, -EALREADY the task is not running). */
struct sched_task *sw_sched_task_running(struct sw_sched *s, uint64_t job, enum sw_task_kind kind,
                                         uint32_t task, double now, struct sched_job **jp, int *rc);

/* events.c: gives back the slot and resources running task @p t of @p j holds. */
void sw_sched_task_release(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                           struct sched_task *t);
/* events.c: @p j's count of finished maps changed, and its running reduces held @p was
 * before: each now holds sw_sched_task_demand's on its node and pool instead (a reduce that
 * ends copying may overfill its node until tasks end: RAS's overload protection). */
void sw_sched_reduces_recharge(struct sw_sched *s, struct sched_job *j,
                               const struct sw_resources *was);

/* job_table.c */
int sw_sched_job_table_init(struct job_table *t);
void sw_sched_job_table_fini(struct job_table *t);
struct sched_job *sw_sched_job_table_find(const struct job_table *t, uint64_t id);
int sw_sched_job_table_insert(struct job_table *t, struct sched_job *j);
void sw_sched_job_table_remove(struct job_table *t, struct sched_job *j);

#endif /* SW_SCHED_INT_H */
