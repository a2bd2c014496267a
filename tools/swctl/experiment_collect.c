/* SPDX-License-Identifier: MIT */
/*
 * swctl experiment --collect: a run's results read back from its directory under --out (each
 * sweep point's, or the replay's) instead of simulated, for the comparison alone: runs made
 * earlier, one at a time or elsewhere, compared again after the file's "paper" entries
 * change. results.csv rounds (jobs/h to 0.001, turnaround to 0.1 s), so a ratio can differ
 * from the simulated run's in its fourth digit.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "results_csv.h"

/* A byte count read as a double; a column the file lacks (NAN) counts as none. */
static uint64_t bytes(double v)
{
	return isnan(v) ? 0 : (uint64_t)v;
}

/* Point @p p's metrics, every scheduler and class, from the results.csv in @p dir. */
static int load_point(const char *prefix, const char *dir, struct grid_point *p)
{
	static struct results_table t;

	if (results_csv_load(prefix, dir, &t) < 0)
		return -EINVAL;
	for (int s = 0; s < p->opts.n_schedulers; s++)
		for (int g = 0; g < METRICS_GROUPS; g++) {
			struct metrics_group *m = &p->m[s].group[g];
			char key[96];
			int i = 0;

			snprintf(key, sizeof(key), "%s %s", p->opts.names[s],
			         metrics_group_name(g));
			while (i < t.n && strcmp(t.key[i], key))
				i++;
			if (i == t.n) {
				fprintf(stderr,
				        "%s: %s/results.csv: no row '%s' (not the results of this "
				        "run's schedulers?)\n",
				        prefix, dir, key);
				return -EINVAL;
			}
			m->jobs_per_hour = t.v[i][RESULTS_JOBS_PER_HOUR];
			m->turnaround_mean = t.v[i][RESULTS_TURNAROUND_MEAN];
			m->work_per_hour = t.v[i][RESULTS_WORK_PER_HOUR];
			m->xrack[SW_TRAFFIC_SHUFFLE] = bytes(t.v[i][RESULTS_XRACK_SHUFFLE]);
			m->xrack[SW_TRAFFIC_MAP_INPUT] = bytes(t.v[i][RESULTS_XRACK_MAP_INPUT]);
			m->xrack[SW_TRAFFIC_OUTPUT] = bytes(t.v[i][RESULTS_XRACK_OUTPUT]);
			m->xrack_total = bytes(t.v[i][RESULTS_XRACK_TOTAL]);
			m->xrack_paper = bytes(t.v[i][RESULTS_XRACK_PAPER]);
		}
	return 0;
}

int exp_collect_run(const struct experiment *e, struct exp_run *r)
{
	struct grid *g = r->is_sweep ? &r->sweep.g : &r->replay;
	char dir[1024];
	int n = 0, rc = 0;

	for (int i = 0; i < g->n_points; i++)
		n += g->points[i].opts.n_schedulers;
	g->m = calloc((size_t)n, sizeof(*g->m));
	if (!g->m)
		return -ENOMEM;
	n = 0;
	for (int i = 0; rc == 0 && i < g->n_points; i++) {
		struct grid_point *p = &g->points[i];

		p->m = &g->m[n];
		n += p->opts.n_schedulers;
		if (r->is_sweep)
			sweep_point_dir(&r->sweep, p, dir, sizeof(dir));
		else
			snprintf(dir, sizeof(dir), "%s/%s", e->out, r->name);
		rc = load_point(r->prefix, dir, p);
	}
	if (rc == 0)
		printf("== %s: %d point%s read from %s/%s\n", r->name, g->n_points,
		       g->n_points == 1 ? "" : "s", e->out, r->name);
	return rc;
}
