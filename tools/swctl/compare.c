/* SPDX-License-Identifier: MIT */
/* swctl experiment's comparison with the paper: comparison.csv, comparison.md, a table. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "outdir.h"
#include "readfile.h"

/* Differences beyond this many percentage points are flagged. */
#define FLAG_POINTS 10.0

#define CSV_HEADER \
	"run,point,scheduler,class,metric,baseline,ours,paper,difference_pp,over_10_points,note"

const char *const exp_metric_names[EXP_METRICS] = {
        "throughput",      "turnaround",      "xrack",      "xrack_shuffle",
        "xrack_map_input", "work_throughput", "xrack_paper"};

static int scheduler_index(const struct replay_opts *o, const char *name)
{
	for (int i = 0; i < o->n_schedulers; i++)
		if (!strcmp(o->names[i], name))
			return i;
	return -1;
}

/* The first sweep point whose swept values, but the one at index @p skip, are the entry's "at". */
static int find_point(const struct grid *g, json_t *at, int skip)
{
	char val[512];

	for (int i = 0; i < g->n_points; i++) {
		int k = 0;

		while (k < g->n_params &&
		       (k == skip ||
		        (exp_scalar(json_object_get(at, g->param[k]), val, sizeof(val)) == 0 &&
		         !strcmp(val, g->points[i].value[k]))))
			k++;
		if (k == g->n_params)
			return i;
	}
	return -1;
}

/* The index of a swept "seed" that "at" leaves out, or -1. */
static int free_seed(const struct grid *g, json_t *at)
{
	for (int k = 0; k < g->n_params; k++)
		if (!strcmp(g->param[k], "seed") && !json_object_get(at, "seed"))
			return k;
	return -1;
}

static int entry_fail(const struct experiment *e, const struct exp_entry *en, const char *what,
                      const char *value)
{
	return exp_fail(e, "%s.%s: '%s' %s", en->where, what, value,
	                !strcmp(what, "at")      ? "is not a point of this run's sweep"
	                : !strcmp(what, "class") ? "is not a job class (all, heavy, medium, light)"
	                                         : "is not among the run's --schedulers");
}

static int resolve_point(const struct experiment *e, const struct exp_run *r, struct exp_entry *en)
{
	const struct grid *g = exp_run_grid(r);
	const char *key;
	char *text;
	json_t *v;
	int rc;

	en->seed = -1;
	if (!r->is_sweep) {
		if (en->at)
			return exp_fail(e, "%s.at: only sweeps have points", en->where);
		en->point = 0;
		return 0;
	}
	en->seed = free_seed(g, en->at);
	if (!en->at && (en->seed < 0 || g->n_params > 1))
		return exp_fail(e, "%s: missing \"at\" (the sweep point)", en->where);
	json_object_foreach(en->at, key, v)
	{
		int k = 0;

		while (k < g->n_params && strcmp(g->param[k], key))
			k++;
		if (k == g->n_params)
			return exp_fail(e, "%s.at.%s: not swept in this run", en->where, key);
	}
	en->point = find_point(g, en->at, en->seed);
	if (en->point >= 0)
		return 0;
	text = json_dumps(en->at, JSON_COMPACT);
	rc = entry_fail(e, en, "at", text ? text : "?");
	free(text);
	return rc;
}

int exp_check_entries(const struct experiment *e, struct exp_run *r)
{
	const struct replay_opts *o = &exp_run_grid(r)->points[0].opts;

	for (int i = 0; i < r->n_entries; i++) {
		struct exp_entry *en = &r->entries[i];
		int rc = resolve_point(e, r, en);

		if (rc < 0)
			return rc;
		en->sched = scheduler_index(o, en->scheduler);
		if (en->sched < 0)
			return entry_fail(e, en, "scheduler", en->scheduler);
		en->base = en->baseline ? scheduler_index(o, en->baseline) : o->baseline_index;
		if (en->base < 0)
			return entry_fail(e, en, "baseline", en->baseline);
		for (en->group = 0; en->group < METRICS_GROUPS; en->group++)
			if (!strcmp(metrics_group_name(en->group), en->cls))
				break;
		if (en->group == METRICS_GROUPS)
			return entry_fail(e, en, "class", en->cls);
	}
	return 0;
}

/* Our ratio for the entry at point @p i: the scheduler's value over the baseline's there. */
static double ratio_at(const struct exp_run *r, const struct exp_entry *en, int i)
{
	const struct grid_point *p = &exp_run_grid(r)->points[i];
	const struct metrics_group *m = &p->m[en->sched].group[en->group];
	const struct metrics_group *b = &p->m[en->base].group[en->group];

	switch (en->metric) {
	case EXP_THROUGHPUT:
		return report_ratio(m->jobs_per_hour, b->jobs_per_hour);
	case EXP_TURNAROUND:
		return report_ratio(m->turnaround_mean, b->turnaround_mean);
	case EXP_XRACK:
		return report_ratio((double)m->xrack_total, (double)b->xrack_total);
	case EXP_WORK_THROUGHPUT:
		return report_ratio(m->work_per_hour, b->work_per_hour);
	case EXP_XRACK_PAPER:
		return report_ratio((double)m->xrack_paper, (double)b->xrack_paper);
	case EXP_XRACK_SHUFFLE:
		return report_ratio((double)m->xrack[SW_TRAFFIC_SHUFFLE],
		                    (double)b->xrack[SW_TRAFFIC_SHUFFLE]);
	default:
		return report_ratio((double)m->xrack[SW_TRAFFIC_MAP_INPUT],
		                    (double)b->xrack[SW_TRAFFIC_MAP_INPUT]);
	}
}

struct row {
	const struct exp_run *r;
	const struct exp_entry *en;
	const char *baseline;
	char point[256];
	double ours, diff;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * An entry over the seeds: ours is the median of its ratio at every point that differs from
 * en->point only in the seed (the mean of the middle two for an even count), and the point
 * says so with the range: "oversub=4 median of 5 seeds (0.951 to 1.043)". No comma, since
 * comparison.csv quotes only the note.
 */
static void median_over_seeds(const struct exp_run *r, struct row *w)
{
	const struct grid *g = exp_run_grid(r);
	const struct grid_point *p = &g->points[w->en->point];
	double v[SWEEP_MAX_VALUES];
	int n = 0, len = 0;

	for (int i = 0; i < g->n_points && n < SWEEP_MAX_VALUES; i++) {
		int k = 0;

		while (k < g->n_params &&
		       (k == w->en->seed || !strcmp(g->points[i].value[k], p->value[k])))
			k++;
		if (k == g->n_params)
			v[n++] = ratio_at(r, w->en, i);
	}
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	w->ours = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (int k = 0; k < g->n_params && len < (int)sizeof(w->point); k++)
		if (k != w->en->seed)
			len += snprintf(w->point + len, sizeof(w->point) - (size_t)len, "%s=%s ",
			                g->param[k], p->value[k]);
	if (len < (int)sizeof(w->point))
		snprintf(w->point + len, sizeof(w->point) - (size_t)len,
		         "median of %d seeds (%.3f to %.3f)", n, v[0], v[n - 1]);
}

static struct row make_row(const struct exp_run *r, const struct exp_entry *en)
{
	const struct grid_point *p = &exp_run_grid(r)->points[en->point];
	struct row row = {.r = r, .en = en, .baseline = p->opts.names[en->base]};

	if (en->seed >= 0) {
		median_over_seeds(r, &row);
	} else {
		row.ours = ratio_at(r, en, en->point);
		snprintf(row.point, sizeof(row.point), "%s", p->label);
	}
	row.diff = (row.ours - en->paper) * 100;
	return row;
}

static void csv_row(FILE *f, const struct row *w)
{
	fprintf(f, "%s,%s,%s,%s,%s,%s,%.4f,%.4f,%.1f,%s,\"", w->r->name, w->point, w->en->scheduler,
	        w->en->cls, exp_metric_names[w->en->metric], w->baseline, w->ours, w->en->paper,
	        w->diff, fabs(w->diff) > FLAG_POINTS ? "yes" : "no");
	for (const char *c = w->en->note; *c; c++)
		fprintf(f, *c == '"' ? "\"\"" : "%c", *c);
	fprintf(f, "\"\n");
}

static void md_row(FILE *f, const struct row *w)
{
	fprintf(f, "| %s | %s | %s | %s | %s | %s | %.2f | %.2f | %+.1f | %s | %s |\n", w->r->name,
	        w->point, w->en->scheduler, w->en->cls, exp_metric_names[w->en->metric],
	        w->baseline, w->ours, w->en->paper, w->diff,
	        fabs(w->diff) > FLAG_POINTS ? "**yes**" : "no", w->en->note);
}

static void md_header(FILE *f, const struct experiment *e)
{
	fprintf(f, "# %s against the paper\n\n%s\n\n", e->file, e->description);
	if (e->net[EXP_NET_QUANTUM])
		fprintf(f,
		        "Every run with the network quantum of %s s (swctl experiment "
		        "--net-quantum), not the exact network.\n\n",
		        e->net[EXP_NET_QUANTUM]);
	if (e->net[EXP_NET_MODEL])
		fprintf(f,
		        "Every run with the %s network model (swctl experiment --net-model).\n\n",
		        e->net[EXP_NET_MODEL]);
	if (e->net[EXP_RACK_FETCH_MIN])
		fprintf(f,
		        "Every run with rack fetches of at least %s bytes while maps run (swctl "
		        "experiment --rack-fetch-min).\n\n",
		        e->net[EXP_RACK_FETCH_MIN]);
	fprintf(f,
	        "Every value is a ratio to the baseline scheduler at the same sweep point, for "
	        "jobs of the given class: throughput (jobs finished per hour in the steady-state "
	        "window), work_throughput (task-hours of compute finished per hour in the window: "
	        "each job's input at its map rate plus its shuffle at its reduce rate), turnaround "
	        "(mean), xrack (all cross-rack bytes, reduce output replicas included), "
	        "xrack_paper "
	        "(shuffle plus remote map input, the cross-rack traffic the paper reports), "
	        "xrack_shuffle and xrack_map_input (that source's cross-rack bytes over the "
	        "baseline's bytes of the same source). The difference is (ours - paper) x 100 "
	        "percentage points; more "
	        "than %.0f is flagged.\n\n"
	        "| run | point | scheduler | class | metric | baseline | ours | paper | "
	        "difference (pp) | over %.0f points | note |\n"
	        "|---|---|---|---|---|---|---|---|---|---|---|\n",
	        FLAG_POINTS, FLAG_POINTS);
}

/* The whole of DIR/@p name as a string, or NULL when it cannot be read. */
static char *read_earlier(const struct outdir *od, const char *name)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", od->dir, name);
	return read_text(path, 0, READ_QUIET);
}

/* Whether @p line begins with @p lead, @p name and @p tail. */
static int starts_with(const char *line, const char *lead, const char *name, const char *tail)
{
	size_t nl = strlen(lead), nn = strlen(name);

	return !strncmp(line, lead, nl) && !strncmp(line + nl, name, nn) &&
	       !strncmp(line + nl + nn, tail, strlen(tail));
}

/*
 * Copies to @p to the rows of an earlier comparison @p text (NULL: none) that begin with
 * @p lead, run @p name and @p tail, from the line after the one beginning with @p header to
 * the end of that table (the first line not beginning with @p lead): a run left out by --only
 * keeps the rows its last run wrote, so runs made one at a time add up to one table.
 */
static void carry_rows(FILE *to, const char *text, const char *header, const char *lead,
                       const char *name, const char *tail)
{
	const char *line = text, *end;

	while (line && strncmp(line, header, strlen(header)))
		line = (end = strchr(line, '\n')) ? end + 1 : NULL;
	while (line && (line = strchr(line, '\n')) && *++line) {
		end = strchr(line, '\n');
		if (strncmp(line, lead, strlen(lead)))
			break; /* the table ended: what follows is not the comparison's */
		if (starts_with(line, lead, name, tail))
			fwrite(line, 1, end ? (size_t)(end - line + 1) : strlen(line), to);
	}
}

static int write_files(struct outdir *od, const void *arg)
{
	const struct experiment *e = arg;
	char *old_csv = read_earlier(od, "comparison.csv");
	char *old_md = read_earlier(od, "comparison.md");
	FILE *csv = outdir_open(od, "comparison.csv");
	FILE *md = csv ? outdir_open(od, "comparison.md") : NULL;
	int rc = 0;

	if (!csv || !md) {
		rc = -errno;
		if (csv)
			fclose(csv);
		free(old_csv);
		free(old_md);
		return rc;
	}
	fprintf(csv, "%s\n", CSV_HEADER);
	md_header(md, e);
	printf("\n%-20s %-22s %-12s %-6s %-15s %7s %7s %7s\n", "run", "point", "scheduler", "class",
	       "metric", "ours", "paper", "diff pp");
	for (int i = 0; i < e->n_runs; i++) {
		const struct exp_run *r = &e->runs[i];

		if (!r->selected) {
			carry_rows(csv, old_csv, CSV_HEADER, "", r->name, ",");
			carry_rows(md, old_md, "|---|", "| ", r->name, " | ");
		}
		for (int k = 0; r->selected && k < r->n_entries; k++) {
			struct row w = make_row(r, &r->entries[k]);

			csv_row(csv, &w);
			md_row(md, &w);
			printf("%-20s %-22s %-12s %-6s %-15s %7.2f %7.2f %+7.1f%s\n", r->name,
			       w.point, w.en->scheduler, w.en->cls, exp_metric_names[w.en->metric],
			       w.ours, w.en->paper, w.diff,
			       fabs(w.diff) > FLAG_POINTS ? "  !" : "");
		}
	}
	free(old_csv);
	free(old_md);
	if (fclose(csv) != 0)
		rc = -EIO;
	if (fclose(md) != 0)
		rc = -EIO;
	return rc;
}

int exp_compare(const struct experiment *e)
{
	int rc = outdir_write(e->out, write_files, e);

	if (rc < 0)
		fprintf(stderr, "%s: writing the comparison to %s: %s\n", e->file, e->out,
		        strerror(-rc));
	else
		printf("comparison in %s/ (comparison.csv, comparison.md)\n", e->out);
	return rc;
}
