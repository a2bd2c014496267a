/* SPDX-License-Identifier: MIT */
/**
 * @file
 * ARIA (Verma, Cherkasova, Campbell, ICAC'11): job profiles built from the task records of an
 * earlier run, a store of them keyed by (user, job name), the completion-time bounds of a job
 * on a given number of map and reduce slots, and the fewest slots that meet a deadline (the
 * Lagrange minimum). Pure functions and an in-memory table: no I/O, no clock.
 *
 * Formulas and the choices where the paper is silent: scheduler/README.md, "ARIA".
 * Return codes: 0 or a negative errno value, as in sw_sched.h.
 */
#ifndef SW_SCHED_ARIA_H
#define SW_SCHED_ARIA_H

#include <stddef.h>
#include <stdint.h>

#include "sw_sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/** One finished task of an earlier run, as a job log or the task events give it. */
struct sw_task_record {
	enum sw_task_kind kind;
	double start, end; /**< seconds */
	/** Reduces: when shuffle and sort ended and the reduce function began. Maps: unused. */
	double shuffle_end;
	uint64_t bytes_in, bytes_out;
};

/**
 * Builds the ARIA profile of one run from its @p n task records (at least one map).
 * @return 0, -EINVAL (NULL argument, no map, a kind out of range, a non-finite time,
 *         end before start, a reduce whose shuffle_end is outside [start, end]).
 */
int sw_sched_profile_build(const struct sw_task_record *recs, size_t n, struct sw_job_profile *out);

/** A job's completion time on m map and r reduce slots: a / m + b / r + c. */
struct sw_aria_model {
	double a, b, c;
	uint32_t n_maps, n_reduces; /**< tasks left: more slots than tasks do not help */
};

/**
 * The model of a job with @p n_maps maps and @p n_reduces reduces left to run, from its
 * profile @p p. @return 0, -EINVAL (NULL argument, bound out of range, a negative or
 *         non-finite profile value).
 */
int sw_sched_aria_model(const struct sw_job_profile *p, uint32_t n_maps, uint32_t n_reduces,
                        enum sw_aria_bound bound, struct sw_aria_model *m);

/**
 * Completion time (seconds) on @p map_slots and @p reduce_slots, each capped at the tasks
 * of its kind. INFINITY when a kind with tasks gets no slot.
 */
double sw_sched_aria_time(const struct sw_aria_model *m, uint32_t map_slots, uint32_t reduce_slots);

/**
 * The fewest slots (@p slots[SW_MAP] + @p slots[SW_REDUCE]) that finish within @p time_left
 * seconds: the Lagrange optimum rounded up, at most the tasks of each kind.
 * @return 0, -EINVAL (NULL argument, non-finite time), -ETIME (no allocation meets the time:
 *         @p slots is then every task of each kind, ARIA's "give it everything").
 */
int sw_sched_aria_min_slots(const struct sw_aria_model *m, double time_left,
                            uint32_t slots[SW_KINDS]);

/**
 * A workflow (a Pig program compiled to a DAG of MapReduce jobs, the thesis' section 4.1):
 * its jobs run in stages, a stage starting once the one before has finished; the jobs of one
 * stage run at once and share the workflow's map and reduce slots.
 */
struct sw_wf_job {
	struct sw_job_profile profile;
	uint32_t n_maps, n_reduces; /**< n_maps >= 1 */
	uint32_t stage;             /**< 0, 1, ...: after every job of a lower stage */
};

struct sw_workflow {
	const struct sw_wf_job *jobs;
	uint32_t n_jobs;
};

/**
 * The basic model (thesis Eq. 4.4): the jobs' A / M + B / R + C rows summed, as if every job
 * ran after the other (it overestimates concurrent stages). Slots beyond the largest job's
 * tasks of a kind do not help. @return 0, -EINVAL (NULL argument, no job, a job without
 * map, a bad profile or bound).
 */
int sw_sched_workflow_basic(const struct sw_workflow *w, enum sw_aria_bound bound,
                            struct sw_aria_model *m);

/**
 * The refined model: within a stage, maps of one job after another on all @p map_slots in
 * Johnson's order (jobs whose map stage is no longer than their reduce stage first, by map
 * stage; then the others by reduce stage, longest first), each job's reduce stage starting
 * once its maps and the reduce stage before it are done; stages one after another. AVG is
 * the mean of the LOW and UP times (TW_avg), all in the order the average times give.
 * INFINITY when a kind with tasks gets no slot.
 * @return 0, -EINVAL (as sw_sched_workflow_basic), -ENOMEM.
 */
int sw_sched_workflow_time(const struct sw_workflow *w, enum sw_aria_bound bound,
                           uint32_t map_slots, uint32_t reduce_slots, double *t);

/**
 * Slots for workflow @p w to finish within @p time_left seconds on the average bound: @p basic
 * gets the basic model's Lagrange minimum, @p refined the thesis' Algorithm 2 from there (the
 * fewest map + reduce slots, at most the basic pair of each, whose refined TW_avg still meets
 * the time; the notes' 6.3 with the printed loops' off-by-one fixed).
 * @return 0, -EINVAL, -ENOMEM, -ETIME (the basic model meets the time with no allocation:
 *         both pairs are then the largest job's tasks of each kind).
 */
int sw_sched_workflow_slots(const struct sw_workflow *w, double time_left, uint32_t basic[SW_KINDS],
                            uint32_t refined[SW_KINDS]);

/**
 * Holds user @p user's running tasks to at most @p slots[k] of each kind k (0: no limit for
 * the kind; both 0 lifts the hold), whatever the policy ranks: the thesis' workflow pool, a
 * workflow run as one user on the pair sw_sched_workflow_slots gives. A pool whose user is
 * at its hold is passed over and the slot goes to the next pool. Tasks already running count
 * against it; a hold lowered below them preempts none, it admits no new one until they
 * finish. Decisions cost one compare more while no hold is set, and a bisection among the
 * holds otherwise.
 * @return 0, -EINVAL (NULL argument, user >= n_users), -EOPNOTSUPP (fifo and capacity,
 *         whose pools mix users' jobs: a held user's job first in its pool would block every
 *         other user's), -ENOMEM.
 */
int sw_sched_user_slots(struct sw_sched *s, uint32_t user, const uint32_t slots[SW_KINDS]);

/**
 * Polo's required slots (Adaptive Scheduler, ICPP'10 Eq. 1): the slots beyond its @p running
 * tasks a job needs to finish within @p time_left seconds, with @p pending tasks not started
 * and @p running_left seconds of work left in the running ones, tasks lasting @p mu seconds:
 * (running_left + pending x mu) / time_left - running. Negative when the job is ahead.
 * The caller handles time_left <= 0 (the goal is missed) and mu unknown.
 */
double sw_sched_adaptive_slots(double mu, double running_left, uint32_t running, uint32_t pending,
                               double time_left);

/** A breakpoint of a transactional load's f(t): @p share of every node's slots from @p t on. */
struct sw_sched_tx_point {
	double t, share;
};

/**
 * The forecast of a transactional load that shares the nodes (Polo's Reverse-Adaptive, thesis
 * 5.3): the share of every node's slots it holds over time, f(t), piecewise constant:
 * @p f[i].share from f[i].t to f[i + 1].t, f[n - 1].share from f[n - 1].t on, nothing before
 * f[0].t. Copied; n = 0 clears it. The reverse-adaptive policy plans with it (every other policy
 * ignores it); what the load holds now reaches every policy as fewer free slots in the driver's
 * heartbeats (sw_sched_transactional_held).
 * @return 0, -EINVAL (NULL s, NULL f with n > 0, times not finite or not ascending, a
 *         share outside [0, 1]), -ENOMEM (the previous forecast holds).
 */
int sw_sched_transactional(struct sw_sched *s, const struct sw_sched_tx_point *f, uint32_t n);

/** f(@p now) of the forecast sw_sched_transactional gave: 0 without one or before f[0].t. */
double sw_sched_transactional_share(const struct sw_sched *s, double now);

/**
 * Slots of one kind the transactional load holds on node @p node of @p n_nodes nodes of
 * @p slots slots of the kind when it holds @p share of them: the cluster's
 * floor(share x n_nodes x slots) dealt one per node in node order, round after round (every
 * node's first slot, then every node's second, ...). A node holds floor or ceil of
 * share x slots, and what a node holds only grows with the share: no slot moves from one node
 * to another when the share changes, so a drop frees slots and a rise takes free ones.
 */
uint32_t sw_sched_transactional_held(double share, uint32_t node, uint32_t n_nodes, uint32_t slots);

/** Longest job name the profile store keeps, without the NUL. */
#define SW_PROFILE_NAME_MAX 255

struct sw_sched_profile_db;

/** An empty store of at most @p max_entries profiles. NULL with errno ENOMEM or EINVAL (0). */
struct sw_sched_profile_db *sw_sched_profile_db_create(uint32_t max_entries);

void sw_sched_profile_db_destroy(struct sw_sched_profile_db *db);

/**
 * Stores @p p as the profile of (@p user, @p name), replacing an earlier one.
 * @return 0, -EINVAL (NULL argument, empty name or one longer than SW_PROFILE_NAME_MAX),
 *         -ENOSPC (a new key and the store is full), -ENOMEM.
 */
int sw_sched_profile_db_put(struct sw_sched_profile_db *db, uint32_t user, const char *name,
                            const struct sw_job_profile *p);

/** Copies the profile of (@p user, @p name) into @p out. @return 0, -EINVAL, -ENOENT. */
int sw_sched_profile_db_get(const struct sw_sched_profile_db *db, uint32_t user, const char *name,
                            struct sw_job_profile *out);

#ifdef __cplusplus
}
#endif

#endif /* SW_SCHED_ARIA_H */
