/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "sw_sched_aria.h"

const char *metrics_group_name(int group)
{
	static const char *const names[METRICS_GROUPS] = {"light", "medium", "heavy", "all"};

	return names[group];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *sorted, uint32_t n, double p)
{
	uint32_t rank;

	if (n == 0)
		return 0;
	rank = (uint32_t)(p * n + 0.999999);
	if (rank < 1)
		rank = 1;
	return sorted[(rank > n ? n : rank) - 1];
}

static void summarise_turnaround(struct metrics_group *g, double *t)
{
	double sum = 0;

	for (uint32_t i = 0; i < g->jobs; i++)
		sum += t[i];
	qsort(t, g->jobs, sizeof(*t), cmp_double);
	g->turnaround_mean = g->jobs ? sum / g->jobs : 0;
	g->turnaround_p50 = percentile(t, g->jobs, 0.50);
	g->turnaround_p90 = percentile(t, g->jobs, 0.90);
	g->turnaround_p99 = percentile(t, g->jobs, 0.99);
}

/* Deadline accounting of one window job; @return whether it ran (was not refused). */
static bool add_deadline(struct metrics_group *g, const struct sw_job_record *j)
{
	double d = j->deadline - j->submitted, utility;

	if (j->deadline <= 0)
		return true;
	g->deadline_jobs++;
	if (j->refused) {
		g->refused++;
		return false;
	}
	utility = 100 * (j->deadline - j->finish) / d;
	if (g->deadline_jobs - g->refused == 1 || utility < g->utility_min)
		g->utility_min = utility;
	if (utility < 0) {
		g->missed++;
		g->slo_exceeded -= utility;
	}
	return true;
}

/* ARIA's prediction of one window job, its relative error into @p err[g->predicted]. */
static void add_prediction(struct metrics_group *g, const struct sw_job_record *j, double *err)
{
	double t = j->finish - j->started;

	if (!(j->predicted[SW_ARIA_AVG] > 0) || !(t > 0))
		return;
	err[g->predicted] = 100 * fabs(j->predicted[SW_ARIA_AVG] - t) / t;
	g->pred_within10 += err[g->predicted] <= 10;
	g->pred_in_bounds += j->predicted[SW_ARIA_LOW] <= t && t <= j->predicted[SW_ARIA_UP];
	g->predicted++;
}

static void add_job(struct metrics_group *g, const struct sw_job_record *j)
{
	for (int k = 0; k < SW_TRAFFICS; k++) {
		g->bytes[k] += j->bytes[k];
		g->xrack[k] += j->xrack[k];
		g->xrack_total += j->xrack[k];
	}
	g->xrack_paper += j->xrack[SW_TRAFFIC_SHUFFLE] + j->xrack[SW_TRAFFIC_MAP_INPUT];
}

int metrics_compute(const struct sw_workload *w, const struct sw_sim_result *r, double start,
                    double end, struct metrics *m)
{
	double work[METRICS_GROUPS] = {0}, offered[METRICS_GROUPS] = {0};
	double *turnaround[METRICS_GROUPS], *err[METRICS_GROUPS];
	double hours = (end - start) / 3600.0;

	memset(m, 0, sizeof(*m));
	m->window_start = start;
	m->window_end = end;
	for (int g = 0; g < METRICS_GROUPS; g++) {
		turnaround[g] = calloc(r->n_jobs ? r->n_jobs : 1, sizeof(double));
		err[g] = calloc(r->n_jobs ? r->n_jobs : 1, sizeof(double));
	}
	for (int g = 0; g < METRICS_GROUPS; g++) {
		if (!turnaround[g] || !err[g]) {
			for (int i = 0; i < METRICS_GROUPS; i++) {
				free(turnaround[i]);
				free(err[i]);
			}
			return -ENOMEM;
		}
	}

	for (size_t i = 0; i < r->n_jobs; i++) {
		const struct sw_job_record *j = &r->jobs[i];
		int groups[2] = {j->cls, SW_CLASSES};

		for (int k = 0; k < 2; k++) {
			struct metrics_group *g = &m->group[groups[k]];

			if (j->failed) {
				g->failed += j->arrival >= start && j->arrival < end;
				continue;
			}
			if (j->finish >= start && j->finish < end && !j->refused) {
				g->completed++;
				work[groups[k]] += sw_sim_job_work(w, &w->jobs[i]);
			}
			if (j->arrival < start || j->arrival >= end || !add_deadline(g, j))
				continue;
			turnaround[groups[k]][g->jobs++] = j->finish - j->arrival;
			add_prediction(g, j, err[groups[k]]);
			offered[groups[k]] += sw_sim_job_work(w, &w->jobs[i]);
			add_job(g, j);
		}
	}
	for (int g = 0; g < METRICS_GROUPS; g++) {
		m->group[g].jobs_per_hour = hours > 0 ? m->group[g].completed / hours : 0;
		m->group[g].work_per_hour = hours > 0 ? work[g] / 3600.0 / hours : 0;
		m->group[g].offered_work_per_hour = hours > 0 ? offered[g] / 3600.0 / hours : 0;
		summarise_turnaround(&m->group[g], turnaround[g]);
		free(turnaround[g]);
		qsort(err[g], m->group[g].predicted, sizeof(double), cmp_double);
		m->group[g].pred_err_p50 = percentile(err[g], m->group[g].predicted, 0.50);
		m->group[g].pred_err_p90 = percentile(err[g], m->group[g].predicted, 0.90);
		free(err[g]);
		if (m->group[g].missed)
			m->group[g].late_mean = m->group[g].slo_exceeded / m->group[g].missed;
	}
	return 0;
}

void metrics_compare_jobs(const struct sw_sim_result *r, const struct sw_sim_result *base,
                          double start, double end, struct metrics_jobs_vs *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < r->n_jobs && i < base->n_jobs; i++) {
		const struct sw_job_record *j = &r->jobs[i], *b = &base->jobs[i];
		double t = j->finish - j->arrival, tb = b->finish - b->arrival;
		double ratio = tb > 0 ? t / tb : 1;

		if (j->arrival < start || j->arrival >= end)
			continue;
		out->jobs++;
		out->faster += t < tb;
		out->slower += ratio > 1.05;
		if (ratio > out->worst_slowdown) {
			out->worst_slowdown = ratio;
			out->worst_job = j->id;
		}
	}
}
