/* SPDX-License-Identifier: MIT */
/*
 * Summaries of one replay: throughput over the steady-state window, turnaround percentiles and
 * cross-rack traffic, for all jobs and per job class.
 */
#ifndef SWCTL_METRICS_H
#define SWCTL_METRICS_H

#include "sw_sim.h"

/* Index SW_CLASSES holds all jobs together. */
#define METRICS_GROUPS (SW_CLASSES + 1)

struct metrics_group {
	uint32_t jobs;        /* arrived within the window, and did not fail */
	uint32_t failed;      /* arrived within the window and failed: counted nowhere else */
	uint32_t completed;   /* finished within the window */
	double jobs_per_hour; /* completed / window hours */
	/* Work-weighted throughput: the compute work (sw_sim_job_work) of the jobs completed in
	 * the window, in task-hours per hour (the slots the finished work kept busy on average):
	 * a scheduler that finishes more large jobs scores higher even at equal jobs/h. */
	double work_per_hour;
	/* The work of the jobs that arrived in the window, per window hour: what the cluster is
	 * offered (swctl calibrate compares the two). */
	double offered_work_per_hour;
	double turnaround_mean, turnaround_p50, turnaround_p90, turnaround_p99;
	uint64_t bytes[SW_TRAFFICS]; /* all bytes moved, by source */
	uint64_t xrack[SW_TRAFFICS]; /* cross-rack bytes, by source */
	uint64_t xrack_total;
	/* As the paper measures cross-rack traffic (Figure 13, Table 3): shuffle plus remote map
	 * input; reduce output replica writes, which no scheduler changes, left out. */
	uint64_t xrack_paper;
	/* Of the window's jobs with a deadline: how many, how many finished after it, how many
	 * the scheduler refused at submission (they count in neither turnaround nor traffic),
	 * and ARIA's SLO-exceeded utility, sum over the late ones of (T - D) / D in %, T and D
	 * measured from arrival. */
	uint32_t deadline_jobs, missed, refused;
	double slo_exceeded;
	/* The mean lateness of the late jobs, (T - D) / D in %: the sum above over missed. */
	double late_mean;
	/* The lowest utility of a window job that ran with a deadline, (D - T) / D in % (the
	 * share of its deadline left when it finished: negative for a late job, ARIA's
	 * SLO-exceeded term with its sign turned): the job a scheduler served worst. 0 when no
	 * such job ran. */
	double utility_min;
	/* ARIA's prediction of the window's jobs that have one (sw_job_record.predicted): how
	 * many, the median and 90th percentile of |average bound - execution time| / execution
	 * time in %, how many the average bound predicted within 10%, and how many ran between
	 * the low and the up bound. */
	uint32_t predicted, pred_within10, pred_in_bounds;
	double pred_err_p50, pred_err_p90;
};

struct metrics {
	double window_start, window_end; /* seconds */
	struct metrics_group group[METRICS_GROUPS];
};

/*
 * Jobs count towards throughput when they finish inside [start, end), and towards turnaround
 * and traffic when they arrive inside it: ramp-up and ramp-down are left out, as the
 * ShuffleWatcher paper does. @p r replays @p w (records pair with its jobs by index).
 * Returns 0 or -ENOMEM.
 */
int metrics_compute(const struct sw_workload *w, const struct sw_sim_result *r, double start,
                    double end, struct metrics *m);

/* Each window job's turnaround under one scheduler against the same job under a baseline. */
struct metrics_jobs_vs {
	uint32_t jobs;         /* arrived within the window */
	uint32_t faster;       /* finished sooner than under the baseline */
	uint32_t slower;       /* took more than 5% longer */
	double worst_slowdown; /* largest turnaround ratio to the baseline's */
	uint64_t worst_job;    /* the job that had it */
};

/*
 * Compares @p r with @p base job by job (both replays of one workload, so records pair up by
 * index). The 5% margin keeps a few seconds of heartbeat jitter on short jobs from counting
 * as a slowdown; the worst ratio is exact.
 */
void metrics_compare_jobs(const struct sw_sim_result *r, const struct sw_sim_result *base,
                          double start, double end, struct metrics_jobs_vs *out);

/* Name of a metrics group: "light", "medium", "heavy" or "all". */
const char *metrics_group_name(int group);

#endif
