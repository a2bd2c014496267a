/* SPDX-License-Identifier: MIT */
#include <string.h>
#include <sys/resource.h>

#include "report.h"

#define GB 1e9

double report_ratio(double value, double base)
{
	return base != 0 ? value / base : 0;
}

/* Peak resident set of this process so far (Linux reports ru_maxrss in KiB). */
static double peak_rss_mib(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss / 1024.0 : 0;
}

/* The scheduler column: 12 wide, or the longest name compared, so rows stay in columns. */
static int name_width(const struct report *rep)
{
	int w = 12;

	for (int i = 0; i < rep->n; i++)
		if ((int)strlen(rep->runs[i].cfg.sched.policy) > w)
			w = (int)strlen(rep->runs[i].cfg.sched.policy);
	return w;
}

static void print_group(FILE *f, const struct report *rep, int group)
{
	const struct metrics_group *base = &rep->m[rep->baseline].group[group];
	const int w = name_width(rep);

	fprintf(f, "\n%s jobs: %u arrived in the window\n", metrics_group_name(group), base->jobs);
	fprintf(f, "%-*s %7s %5s %8s %5s | %8s %5s %7s %7s %7s | %8s %5s %8s %5s %7s %7s %7s\n", w,
	        "scheduler", "jobs/h", "vs", "task-h/h", "vs", "turn. s", "vs", "p50", "p90", "p99",
	        "xrack GB", "vs", "shuf+in", "vs", "shuffle", "map-in", "output");
	for (int i = 0; i < rep->n; i++) {
		const struct metrics_group *g = &rep->m[i].group[group];

		fprintf(f,
		        "%-*s %7.1f %5.2f %8.1f %5.2f | %8.1f %5.2f %7.1f %7.1f %7.1f | %8.1f "
		        "%5.2f "
		        "%8.1f %5.2f %7.1f %7.1f %7.1f\n",
		        w, rep->runs[i].cfg.sched.policy, g->jobs_per_hour,
		        report_ratio(g->jobs_per_hour, base->jobs_per_hour), g->work_per_hour,
		        report_ratio(g->work_per_hour, base->work_per_hour), g->turnaround_mean,
		        report_ratio(g->turnaround_mean, base->turnaround_mean), g->turnaround_p50,
		        g->turnaround_p90, g->turnaround_p99, g->xrack_total / GB,
		        report_ratio((double)g->xrack_total, (double)base->xrack_total),
		        g->xrack_paper / GB,
		        report_ratio((double)g->xrack_paper, (double)base->xrack_paper),
		        g->xrack[SW_TRAFFIC_SHUFFLE] / GB, g->xrack[SW_TRAFFIC_MAP_INPUT] / GB,
		        g->xrack[SW_TRAFFIC_OUTPUT] / GB);
	}
}

/* The paper's claim that no job is slowed down, checked job by job against the baseline. */
static void print_jobs_vs(FILE *f, const struct report *rep)
{
	const struct runner_job *base = &rep->runs[rep->baseline];
	const int w = name_width(rep);

	fprintf(f, "\neach window job against the same job under %s\n", base->cfg.sched.policy);
	fprintf(f, "%-*s %8s %11s %15s\n", w, "scheduler", "faster", ">5% slower",
	        "worst slowdown");
	for (int i = 0; i < rep->n; i++) {
		struct metrics_jobs_vs v;

		if (i == rep->baseline)
			continue;
		metrics_compare_jobs(&rep->runs[i].result, &base->result, rep->m[i].window_start,
		                     rep->m[i].window_end, &v);
		fprintf(f, "%-*s %7.1f%% %10.1f%% %7.2fx (job %llu)\n", w,
		        rep->runs[i].cfg.sched.policy, v.jobs ? 100.0 * v.faster / v.jobs : 0,
		        v.jobs ? 100.0 * v.slower / v.jobs : 0, v.worst_slowdown,
		        (unsigned long long)v.worst_job);
	}
}

/* Deadlines met, missed and refused, when the window's jobs carry deadlines. */
static void print_deadlines(FILE *f, const struct report *rep)
{
	const int w = name_width(rep);

	if (rep->m[rep->baseline].group[SW_CLASSES].deadline_jobs == 0)
		return;
	fprintf(f, "\ndeadlines of the window's jobs (SLO-exceeded: ARIA's sum of (T - D) / D "
	           "over the late jobs; late mean: that sum over the late jobs; lowest utility: "
	           "the least (D - T) / D of a job)\n");
	fprintf(f, "%-*s %8s %8s %8s %8s %13s %10s %15s\n", w, "scheduler", "jobs", "met", "missed",
	        "refused", "SLO-exceeded", "late mean", "lowest utility");
	for (int i = 0; i < rep->n; i++) {
		const struct metrics_group *g = &rep->m[i].group[SW_CLASSES];

		fprintf(f, "%-*s %8u %8u %8u %8u %12.1f%% %9.1f%% %14.1f%%\n", w,
		        rep->runs[i].cfg.sched.policy, g->deadline_jobs,
		        g->deadline_jobs - g->missed - g->refused, g->missed, g->refused,
		        g->slo_exceeded, g->late_mean, g->utility_min);
	}
}

/* ARIA's prediction against the simulated execution time, when jobs have one. */
static void print_predictions(FILE *f, const struct report *rep)
{
	const int w = name_width(rep);

	if (rep->m[rep->baseline].group[SW_CLASSES].predicted == 0)
		return;
	fprintf(f, "\nARIA's prediction of the window's jobs, from the profile of their program's "
	           "first run (error: |average bound - execution time| / execution time)\n");
	fprintf(f, "%-*s %9s %11s %11s %12s %15s\n", w, "scheduler", "predicted", "error p50",
	        "error p90", "within 10%", "in [low, up]");
	for (int i = 0; i < rep->n; i++) {
		const struct metrics_group *g = &rep->m[i].group[SW_CLASSES];

		fprintf(f, "%-*s %9u %10.1f%% %10.1f%% %11.1f%% %14.1f%%\n", w,
		        rep->runs[i].cfg.sched.policy, g->predicted, g->pred_err_p50,
		        g->pred_err_p90, g->predicted ? 100.0 * g->pred_within10 / g->predicted : 0,
		        g->predicted ? 100.0 * g->pred_in_bounds / g->predicted : 0);
	}
}

/* What injected failures cost each scheduler (only when the runs had any). */
static void print_failures(FILE *f, const struct report *rep)
{
	const struct sw_sim_config *c = &rep->runs[0].cfg;
	const int w = name_width(rep);

	if (!c->n_faults && !(c->task_failure_rate > 0) && !rep->controller_killed)
		return;
	fprintf(f, "\nfailures: %u node failures injected%s, task failure rate %g\n", c->n_faults,
	        rep->controller_killed ? ", the controller killed and restarted" : "",
	        c->task_failure_rate);
	fprintf(f, "%-*s %10s %13s %11s %15s %11s\n", w, "scheduler", "nodes lost", "attempts lost",
	        "maps re-run", "attempts failed", "jobs failed");
	for (int i = 0; i < rep->n; i++) {
		const struct sw_sim_result *r = &rep->runs[i].result;

		fprintf(f, "%-*s %10u %13llu %11llu %15llu %11u\n", w,
		        rep->runs[i].cfg.sched.policy, r->nodes_lost,
		        (unsigned long long)r->lost_attempts, (unsigned long long)r->maps_rerun,
		        (unsigned long long)r->failed_attempts, r->jobs_failed);
	}
}

void report_print(FILE *f, const struct report *rep)
{
	const struct sw_topology *t = &rep->w->topo;
	const struct metrics *m0 = &rep->m[0];

	fprintf(f, "replay of %s: %zu jobs, %u users; %u racks x %u nodes, %.0f Mbit/s NICs, ",
	        rep->mix, rep->w->n_jobs, rep->w->n_users, t->n_racks, t->nodes_per_rack,
	        t->nic_bps / 1e6);
	if (t->uplink_bps > 0)
		fprintf(f, "%.0f Mbit/s uplinks\n", t->uplink_bps / 1e6);
	else
		fprintf(f, "%.0f:1 oversubscribed uplinks\n", t->oversub);
	if (rep->all_jobs)
		fprintf(f,
		        "no job arrived in the steady-state window (warm-up %.2f h to the last "
		        "arrival at %.2f h): all jobs "
		        "count, from the first arrival to each scheduler's last finish; \"vs\" "
		        "columns are ratios to %s\n",
		        rep->warmup / 3600, rep->w->jobs[rep->w->n_jobs - 1].arrival / 3600,
		        rep->runs[rep->baseline].cfg.sched.policy);
	else
		fprintf(f,
		        "steady-state window %.2f h to %.2f h; \"vs\" columns are ratios to %s\n",
		        m0->window_start / 3600, m0->window_end / 3600,
		        rep->runs[rep->baseline].cfg.sched.policy);
	print_group(f, rep, SW_CLASSES);
	for (int g = SW_CLASSES - 1; g >= 0; g--)
		print_group(f, rep, g);
	print_jobs_vs(f, rep);
	print_deadlines(f, rep);
	print_predictions(f, rep);
	print_failures(f, rep);
	if (rep->n && rep->runs[0].cfg.straggler_rate > 0)
		fprintf(f, "\nstragglers: %g of task attempts compute %g times longer\n",
		        rep->runs[0].cfg.straggler_rate, rep->runs[0].cfg.straggler_slowdown);
	fprintf(f, "\n");
	for (int i = 0; i < rep->n; i++) {
		const struct runner_job *r = &rep->runs[i];

		if (r->result.events == 0) { /* a live run (swctl replay --live) */
			fprintf(f, "%-*s ran live for %.1f s, the last job ending at %.1f s\n",
			        name_width(rep), r->cfg.sched.policy, r->wall, r->result.end);
			continue;
		}
		fprintf(f, "%-*s simulated %.1f h: %llu events in %.2f s (%.2fM events/s)\n",
		        name_width(rep), r->cfg.sched.policy, r->result.end / 3600,
		        (unsigned long long)r->result.events, r->wall,
		        r->wall > 0 ? r->result.events / r->wall / 1e6 : 0);
	}
	fprintf(f, "peak resident memory %.1f MiB\n", peak_rss_mib());
}
