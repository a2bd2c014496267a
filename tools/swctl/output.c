/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <jansson.h>
#include <string.h>

#include "gnuplot.h"
#include "output.h"
#include "runner.h"
#include "timeline.h"

static const char *const traffic_names[SW_TRAFFICS] = {"shuffle", "map_input", "output"};

static json_t *traffic_json(const uint64_t v[SW_TRAFFICS])
{
	json_t *o = json_object();
	uint64_t total = 0;

	for (int k = 0; k < SW_TRAFFICS; k++) {
		json_object_set_new(o, traffic_names[k], json_integer((json_int_t)v[k]));
		total += v[k];
	}
	json_object_set_new(o, "total", json_integer((json_int_t)total));
	return o;
}

static json_t *group_json(const struct metrics_group *g, const struct metrics_group *base)
{
	return json_pack(
	        "{s:i, s:i, s:i, s:f, s:f, s:{s:f, s:f, s:f, s:f}, s:o, s:o, s:I, "
	        "s:{s:f, s:f, s:f, s:f, s:f}, s:{s:i, s:i, s:i, s:f, s:f, s:f}, "
	        "s:{s:i, s:f, s:f, s:i, s:i}}",
	        "jobs", (json_int_t)g->jobs, "completed", (json_int_t)g->completed, "failed",
	        (json_int_t)g->failed, "jobs_per_hour", g->jobs_per_hour, "work_task_h_per_hour",
	        g->work_per_hour, "turnaround_s", "mean", g->turnaround_mean, "p50",
	        g->turnaround_p50, "p90", g->turnaround_p90, "p99", g->turnaround_p99, "bytes",
	        traffic_json(g->bytes), "xrack_bytes", traffic_json(g->xrack), "xrack_paper_bytes",
	        (json_int_t)g->xrack_paper, "vs_baseline", "throughput",
	        report_ratio(g->jobs_per_hour, base->jobs_per_hour), "work_throughput",
	        report_ratio(g->work_per_hour, base->work_per_hour), "turnaround",
	        report_ratio(g->turnaround_mean, base->turnaround_mean), "xrack",
	        report_ratio((double)g->xrack_total, (double)base->xrack_total), "xrack_paper",
	        report_ratio((double)g->xrack_paper, (double)base->xrack_paper), "deadlines",
	        "jobs", (json_int_t)g->deadline_jobs, "missed", (json_int_t)g->missed, "refused",
	        (json_int_t)g->refused, "slo_exceeded_percent", g->slo_exceeded,
	        "late_mean_percent", g->late_mean, "utility_min_percent", g->utility_min,
	        "prediction", "jobs", (json_int_t)g->predicted, "error_p50_percent",
	        g->pred_err_p50, "error_p90_percent", g->pred_err_p90, "within_10_percent",
	        (json_int_t)g->pred_within10, "within_bounds", (json_int_t)g->pred_in_bounds);
}

/* Figure 3's lines, as the scheduler counts them (SW_LINE_*). */
static const char *const nass_line_names[SW_NASS_LINES] = {
        "preferred_map", "local_map",    "any_map",   "light_reduce",
        "sarp_reduce",   "heavy_reduce", "any_reduce"};

static json_t *nass_json(const struct sw_sim_result *r)
{
	json_t *o;

	if (!r->has_nass)
		return json_null();
	o = json_object();
	for (int sat = 0; sat < 2; sat++) {
		json_t *lines = json_object();

		for (int l = 0; l < SW_NASS_LINES; l++)
			json_object_set_new(lines, nass_line_names[l],
			                    json_integer((json_int_t)r->nass.launched[sat][l]));
		json_object_set_new(o, sat ? "saturated" : "not_saturated", lines);
	}
	return o;
}

static json_t *jobs_vs_json(const struct report *rep, int i)
{
	struct metrics_jobs_vs v;

	metrics_compare_jobs(&rep->runs[i].result, &rep->runs[rep->baseline].result,
	                     rep->m[i].window_start, rep->m[i].window_end, &v);
	return json_pack("{s:i, s:i, s:i, s:f, s:i}", "jobs", (json_int_t)v.jobs, "faster",
	                 (json_int_t)v.faster, "slower_by_5pct", (json_int_t)v.slower,
	                 "worst_slowdown", v.worst_slowdown, "worst_job", (json_int_t)v.worst_job);
}

static json_t *failures_json(const struct sw_sim_result *r)
{
	return json_pack("{s:i, s:i, s:i, s:i, s:i}", "nodes_lost", (json_int_t)r->nodes_lost,
	                 "attempts_lost", (json_int_t)r->lost_attempts, "maps_rerun",
	                 (json_int_t)r->maps_rerun, "attempts_failed",
	                 (json_int_t)r->failed_attempts, "jobs_failed", (json_int_t)r->jobs_failed);
}

static json_t *results_json(const struct report *rep)
{
	const struct sw_topology *t = &rep->w->topo;
	json_t *root, *runs = json_array();

	for (int i = 0; i < rep->n; i++) {
		const struct runner_job *r = &rep->runs[i];
		json_t *groups = json_object();

		for (int g = 0; g < METRICS_GROUPS; g++)
			json_object_set_new(
			        groups, metrics_group_name(g),
			        group_json(&rep->m[i].group[g], &rep->m[rep->baseline].group[g]));
		json_array_append_new(
		        runs,
		        json_pack("{s:s, s:f, s:i, s:f, s:o, s:o, s:o, s:o}", "scheduler",
		                  r->cfg.sched.policy, "simulated_s", r->result.end, "events",
		                  (json_int_t)r->result.events, "wall_s", r->wall, "classes",
		                  groups, "jobs_vs_baseline", jobs_vs_json(rep, i), "nass_launches",
		                  nass_json(&r->result), "failures", failures_json(&r->result)));
	}
	root = json_pack("{s:s, s:i, s:i, s:{s:i, s:i, s:f, s:f, s:f}, s:s, s:[f, f], s:b, s:o}",
	                 "mix", rep->mix, "jobs", (json_int_t)rep->w->n_jobs, "users",
	                 (json_int_t)rep->w->n_users, "topology", "racks", (json_int_t)t->n_racks,
	                 "nodes_per_rack", (json_int_t)t->nodes_per_rack, "nic_bps", t->nic_bps,
	                 "oversub", t->oversub, "uplink_bps", t->uplink_bps, "baseline",
	                 rep->runs[rep->baseline].cfg.sched.policy, "window_s",
	                 rep->m[0].window_start, rep->m[0].window_end, "window_all_jobs",
	                 rep->all_jobs, "schedulers", runs);
	return root;
}

static int write_json(struct outdir *o, const struct report *rep)
{
	json_t *root = results_json(rep);
	FILE *f = root ? outdir_open(o, "results.json") : NULL;
	int rc = 0;

	if (!root)
		return -ENOMEM;
	if (!f || json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) < 0)
		rc = -EIO;
	json_decref(root);
	if (f && fclose(f) != 0)
		rc = -EIO;
	return rc;
}

void output_csv_header(FILE *f)
{
	fprintf(f, "scheduler,class,jobs,completed,jobs_per_hour,turnaround_mean_s,"
	           "turnaround_p50_s,turnaround_p90_s,turnaround_p99_s,xrack_shuffle_bytes,"
	           "xrack_map_input_bytes,xrack_output_bytes,xrack_total_bytes,"
	           "work_task_h_per_hour,xrack_paper_bytes,throughput_vs_baseline,"
	           "turnaround_vs_baseline,xrack_vs_baseline,work_throughput_vs_baseline,"
	           "xrack_paper_vs_baseline\n");
}

void output_csv_row(FILE *f, const struct report *rep, int run, int group)
{
	const struct metrics_group *g = &rep->m[run].group[group];
	const struct metrics_group *b = &rep->m[rep->baseline].group[group];

	fprintf(f,
	        "%s,%s,%u,%u,%.3f,%.1f,%.1f,%.1f,%.1f,%llu,%llu,%llu,%llu,%.3f,%llu,%.4f,%.4f,%.4f,"
	        "%.4f,%.4f\n",
	        rep->runs[run].cfg.sched.policy, metrics_group_name(group), g->jobs, g->completed,
	        g->jobs_per_hour, g->turnaround_mean, g->turnaround_p50, g->turnaround_p90,
	        g->turnaround_p99, (unsigned long long)g->xrack[0], (unsigned long long)g->xrack[1],
	        (unsigned long long)g->xrack[2], (unsigned long long)g->xrack_total,
	        g->work_per_hour, (unsigned long long)g->xrack_paper,
	        report_ratio(g->jobs_per_hour, b->jobs_per_hour),
	        report_ratio(g->turnaround_mean, b->turnaround_mean),
	        report_ratio((double)g->xrack_total, (double)b->xrack_total),
	        report_ratio(g->work_per_hour, b->work_per_hour),
	        report_ratio((double)g->xrack_paper, (double)b->xrack_paper));
}

static int write_summary_csv(struct outdir *o, const struct report *rep)
{
	FILE *f = outdir_open(o, "results.csv");

	if (!f)
		return -errno;
	output_csv_header(f);
	for (int i = 0; i < rep->n; i++)
		for (int g = 0; g < METRICS_GROUPS; g++)
			output_csv_row(f, rep, i, g);
	return fclose(f) == 0 ? 0 : -EIO;
}

static int write_jobs_csv(struct outdir *o, const struct report *rep)
{
	unsigned n_bench;
	const struct sw_bench *bench = sw_sim_bench_table(&n_bench);
	FILE *f = outdir_open(o, "jobs.csv");

	if (!f)
		return -errno;
	fprintf(f, "scheduler,job,user,class,bench,arrival_s,finish_s,turnaround_s,maps,reduces,"
	           "maps_node_local,maps_rack_local,maps_remote,map_output_bytes,shuffle_bytes,"
	           "xrack_shuffle_bytes,xrack_map_input_bytes,xrack_output_bytes,map_racks,"
	           "maps_in_map_racks,failed,attempts_failed,attempts_lost,maps_rerun,submitted_s,"
	           "deadline_s,"
	           "started_s,map_slots_held,reduce_slots_held,predicted_low_s,predicted_avg_s,"
	           "predicted_up_s,workflow,wf_basic_map_slots,wf_basic_reduce_slots,"
	           "wf_refined_map_slots,wf_refined_reduce_slots\n");
	for (int i = 0; i < rep->n; i++) {
		const struct sw_sim_result *r = &rep->runs[i].result;

		for (size_t k = 0; k < r->n_jobs; k++) {
			const struct sw_job_record *j = &r->jobs[k];

			fprintf(f,
			        "%s,%llu,%u,%s,%s,%.3f,%.3f,%.3f,%u,%u,%u,%u,%u,%llu,%llu,%llu,"
			        "%llu,%llu,%u,%u,%d,%u,%u,%u,%.3f,%.3f,%.3f,%.0f,%.0f,%.3f,%.3f,%."
			        "3f,%d,%u,%u,%u,%u\n",
			        rep->runs[i].cfg.sched.policy, (unsigned long long)j->id, j->user,
			        metrics_group_name(j->cls),
			        j->bench < n_bench ? bench[j->bench].name : "?", j->arrival,
			        j->finish, j->finish - j->arrival, j->n_maps, j->n_reduces,
			        j->maps_at[0], j->maps_at[1], j->maps_at[2],
			        (unsigned long long)j->map_output_bytes,
			        (unsigned long long)j->bytes[SW_TRAFFIC_SHUFFLE],
			        (unsigned long long)j->xrack[SW_TRAFFIC_SHUFFLE],
			        (unsigned long long)j->xrack[SW_TRAFFIC_MAP_INPUT],
			        (unsigned long long)j->xrack[SW_TRAFFIC_OUTPUT], j->map_racks,
			        j->maps_in_map_racks, j->failed, j->failed_attempts,
			        j->lost_attempts, j->maps_rerun, j->submitted, j->deadline,
			        j->started, j->slots_held[SW_MAP], j->slots_held[SW_REDUCE],
			        j->predicted[0], j->predicted[1], j->predicted[2],
			        (int)j->workflow - 1, j->wf_basic[SW_MAP], j->wf_basic[SW_REDUCE],
			        j->wf_refined[SW_MAP], j->wf_refined[SW_REDUCE]);
		}
	}
	return fclose(f) == 0 ? 0 : -EIO;
}

/* Mean and maximum over racks of one sample row. */
static void row_stats(const float *row, uint32_t n, double *mean, double *max)
{
	double sum = 0, m = 0;

	for (uint32_t i = 0; i < n; i++) {
		sum += row[i];
		if (row[i] > m)
			m = row[i];
	}
	*mean = n ? sum / n : 0;
	*max = m;
}

static int write_uplink_csv(struct outdir *o, const struct runner_job *run)
{
	const struct sw_sim_result *r = &run->result;
	char name[128];
	FILE *f;

	snprintf(name, sizeof(name), "uplink-%s.csv", run->cfg.sched.policy);
	f = outdir_open(o, name);
	if (!f)
		return -errno;
	fprintf(f, "time_s,mean_out,max_out,mean_in,max_in");
	for (uint32_t k = 0; k < r->n_racks; k++)
		fprintf(f, ",rack%u_out,rack%u_in", k, k);
	fputc('\n', f);
	for (uint32_t s = 0; s < r->n_samples; s++) {
		const float *out = &r->uplink_out[(size_t)s * r->n_racks];
		const float *in = &r->uplink_in[(size_t)s * r->n_racks];
		double mo, xo, mi, xi;

		row_stats(out, r->n_racks, &mo, &xo);
		row_stats(in, r->n_racks, &mi, &xi);
		fprintf(f, "%.0f,%.4f,%.4f,%.4f,%.4f", (s + 1) * r->sample_interval, mo, xo, mi,
		        xi);
		for (uint32_t k = 0; k < r->n_racks; k++)
			fprintf(f, ",%.4f,%.4f", out[k], in[k]);
		fputc('\n', f);
	}
	return fclose(f) == 0 ? 0 : -EIO;
}

/*
 * One panel per scheduler, stacked on a shared time axis: cross-rack utilisation averaged over
 * the racks' uplinks, and the busiest uplink, like the ShuffleWatcher paper's Figure 1.
 */
/*
 * Opens NAME.gp and writes the lines every time plot shares: a stack of @p panels panels on
 * a time axis in hours, rendering NAME.png, under @p title.
 */
static FILE *open_time_plot(struct outdir *o, const char *name, int panels, const char *title,
                            const char *ylabel, double ymax)
{
	char file[64];
	FILE *f;

	snprintf(file, sizeof(file), "%s.gp", name);
	f = outdir_open(o, file);
	if (!f)
		return NULL;
	fprintf(f,
	        "# Renders %s.png from uplink-*.csv: gnuplot %s.gp\n"
	        "set terminal pngcairo size 1200,%d font ',10'\n"
	        "set output '%s.png'\n"
	        "set datafile separator ','\n"
	        "set multiplot layout %d,1 title '%s'\n"
	        "set yrange [0:%.2f]\nset ylabel '%s'\nset key outside right top\n"
	        "set xlabel 'time (h)'\n",
	        name, name, 160 + 180 * panels, name, panels, title, ymax, ylabel);
	return f;
}

/*
 * One panel per scheduler, stacked on a shared time axis: cross-rack utilisation averaged over
 * the racks' uplinks, and the busiest uplink, like the ShuffleWatcher paper's Figure 1.
 */
static int write_plot_script(struct outdir *o, const struct report *rep)
{
	char title[256];
	FILE *f;

	snprintf(title, sizeof(title), "Cross-rack uplink utilisation (outbound), %s", rep->mix);
	f = open_time_plot(o, "uplink", rep->n, title, "%", 105);
	if (!f)
		return -errno;
	for (int i = 0; i < rep->n; i++) {
		const char *p = rep->runs[i].cfg.sched.policy;

		fprintf(f,
		        "set title '%s'\n"
		        "plot 'uplink-%s.csv' using ($1/3600):($3*100) every ::1 with lines lc "
		        "rgb '#c0c0e0' title 'busiest rack', \\\n"
		        "     '' using ($1/3600):($2*100) every ::1 with lines lc rgb '#0030a0' lw "
		        "1.5 "
		        "title 'mean over racks'\n",
		        p, p);
	}
	fprintf(f, "unset multiplot\n");
	return fclose(f) == 0 ? 0 : -EIO;
}

/*
 * Cross-rack traffic over time, summed over the racks' outbound uplinks, each scheduler
 * against the baseline on one panel: the paper's Figures 1 (Fair) and 10 (ShuffleWatcher)
 * side by side.
 */
static int write_xrack_script(struct outdir *o, const struct report *rep)
{
	const char *base = rep->runs[rep->baseline].cfg.sched.policy;
	/* uplink-*.csv hold the mean fraction over racks: times racks x capacity = Gbit/s */
	double gbps = rep->w->topo.n_racks * sw_sim_topology_uplink_bps(&rep->w->topo) / 1e9;
	int panels = rep->n > 1 ? rep->n - 1 : 1;
	char title[256];
	FILE *f;

	snprintf(title, sizeof(title), "Cross-rack traffic, all uplinks, %s (capacity %.1f Gbit/s)",
	         rep->mix, gbps);
	f = open_time_plot(o, "xrack", panels, title, "Gbit/s", gbps * 1.05);
	if (!f)
		return -errno;
	for (int i = 0; i < rep->n; i++) {
		const char *p = rep->runs[i].cfg.sched.policy;

		if (i == rep->baseline && rep->n > 1)
			continue;
		fprintf(f,
		        "set title '%s against %s'\n"
		        "plot 'uplink-%s.csv' using ($1/3600):($2*%.4f) every ::1 with lines lc "
		        "rgb '#a0a0a0' title '%s', \\\n"
		        "     'uplink-%s.csv' using ($1/3600):($2*%.4f) every ::1 with lines lc "
		        "rgb "
		        "'#c03000' title '%s'\n",
		        p, base, base, gbps, base, p, gbps, p);
	}
	fprintf(f, "unset multiplot\n");
	return fclose(f) == 0 ? 0 : -EIO;
}

int output_write(struct outdir *o, const struct report *rep)
{
	int rc = write_json(o, rep);

	if (!rc)
		rc = write_summary_csv(o, rep);
	if (!rc)
		rc = write_jobs_csv(o, rep);
	for (int i = 0; i < rep->n && !rc; i++)
		rc = write_uplink_csv(o, &rep->runs[i]);
	if (!rc)
		rc = write_plot_script(o, rep);
	if (!rc)
		rc = write_xrack_script(o, rep);
	return rc ? rc : timeline_write(o, rep);
}

static int write_all(struct outdir *o, const void *rep)
{
	return output_write(o, rep);
}

int output_plot(const char *dir, const struct report *rep, const char *prefix)
{
	int rc = gnuplot_render(prefix, dir, "uplink");

	if (!rc)
		rc = gnuplot_render(prefix, dir, "xrack");
	return rc ? rc : timeline_plot(dir, rep, prefix);
}

int output_check(const char *dir, const char *prefix)
{
	char why[640];
	int rc = outdir_check(dir, why, sizeof(why));

	if (rc < 0)
		fprintf(stderr, "%s: --out %s: %s (checked before running)\n", prefix, dir, why);
	return rc;
}

int output_replay(const char *dir, const struct report *rep, int plot, const char *prefix)
{
	int rc;

	/* A Ctrl-C now waits for the files: they appear whole or not at all. */
	runner_hold_signals();
	rc = outdir_write(dir, write_all, rep);
	runner_release_signals();

	if (rc < 0) {
		fprintf(stderr, "%s: writing results to %s: %s\n", prefix, dir, strerror(-rc));
		return rc;
	}
	printf("results in %s/ (results.json, results.csv, jobs.csv, uplink-*.csv%s", dir,
	       rep->runs[0].cfg.timeline ? ", tasks.csv, running-*.csv" : "");
	if (plot) {
		fflush(stdout);
		rc = output_plot(dir, rep, prefix);
		printf("%s%s", rc == 0 ? ", uplink.png, xrack.png" : "",
		       rc == 0 && rep->runs[0].cfg.timeline ? ", tasks.png" : "");
	}
	printf(")\n");
	return rc;
}
