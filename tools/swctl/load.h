/* SPDX-License-Identifier: MIT */
/* Turning a --mix argument and its options into a workload. */
#ifndef SWCTL_LOAD_H
#define SWCTL_LOAD_H

#include "sw_workload.h"

struct load_opts {
	const char *mix;      /* mix1|mix2|mix3, a SWIM .tsv trace or a .jsonl job mix */
	double duration;      /* paper mixes: hours of arrivals */
	uint64_t seed;        /* 0: keep the source's default */
	uint32_t users;       /* 0: keep the source's default */
	double oversub;       /* 0: keep the topology's */
	double interarrival;  /* paper mixes: mean seconds between jobs, 0: default */
	double time_scale;    /* SWIM traces and JSON mixes: multiplies arrival times */
	double size_scale;    /* SWIM traces and paper mixes: multiplies byte counts */
	const char *topology; /* a topology JSON file replacing the mix's cluster, or NULL */
	uint32_t reduces;     /* every shuffling job's reducers, 0: the mix's or the rule's */
	enum sw_placement placement; /* of every job's input blocks */
	double compute_scale;        /* multiplies compute times, 0: 1 */
	/* --deadline-factor: deadlines drawn again, U[lo, hi] x the time alone; 0: the mix's */
	double deadline_lo, deadline_hi;
	const char *transactional; /* a transactional load's f(t) file, or NULL */
};

void load_opts_default(struct load_opts *o);

enum load_kind { LOAD_PAPER, LOAD_SWIM, LOAD_JSONL };

/* What @p mix names, by its name alone; -EINVAL with a reason in @p msg if nothing known. */
int load_mix_kind(const char *mix, char *msg, size_t len);

/* Whether @p a and @p b load the same workload. */
int load_opts_equal(const struct load_opts *a, const struct load_opts *b);

int load_is_paper_mix(const char *mix);

/*
 * Paper mixes: the number of users that gives each user @p jobs_per_user jobs on average
 * within a steady-state window of @p window_hours at the mix's arrival rate (the paper's
 * 12 jobs per user are 360 jobs of a 4-hour window over 30 users).
 */
uint32_t load_users_for_jobs_per_user(const struct load_opts *o, double window_hours,
                                      double jobs_per_user);

/* Loads the mix named by o->mix; returns 0 or a negative errno with err filled. */
int load_workload(const struct load_opts *o, struct sw_workload *w, struct sw_input_error *err);

#endif
