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

/** Which of ARIA's completion-time estimates (Eqs. 5-7). */
enum sw_aria_bound {
	SW_ARIA_LOW = 0,
	SW_ARIA_AVG = 1, /**< the mean of the two: what the deadline policies allocate for */
	SW_ARIA_UP = 2,
};

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
 * Polo's required slots (Adaptive Scheduler, ICPP'10 Eq. 1): the slots beyond its @p running
 * tasks a job needs to finish within @p time_left seconds, with @p pending tasks not started
 * and @p running_left seconds of work left in the running ones, tasks lasting @p mu seconds:
 * (running_left + pending x mu) / time_left - running. Negative when the job is ahead.
 * The caller handles time_left <= 0 (the goal is missed) and mu unknown.
 */
double sw_sched_adaptive_slots(double mu, double running_left, uint32_t running, uint32_t pending,
                               double time_left);

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
