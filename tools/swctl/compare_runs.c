/* SPDX-License-Identifier: MIT */
/*
 * swctl compare SIM_DIR LIVE_DIR: two replays of one mix (the simulator's and `replay --live`'s)
 * side by side from their results.csv, per scheduler and job class: throughput, turnaround,
 * cross-rack bytes by kind, the paper's measures (work-weighted throughput, cross-rack bytes of
 * shuffle and remote map input), and each scheduler's ratios to the baseline under both. This
 * is the simulator's calibration against the live system; gaps over 15% are marked.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

#define MAX_ROWS 256
#define MAX_COLS 32
#define GAP      0.15

static const char *const metrics[] = {
        "jobs_per_hour", "turnaround_mean_s", "xrack_shuffle_bytes", "xrack_map_input_bytes",
        "xrack_output_bytes", "xrack_total_bytes", "throughput_vs_baseline",
        "turnaround_vs_baseline", "xrack_vs_baseline",
        /* the paper's measures, which results written before 2026-11-24 lack: "-" there */
        "work_task_h_per_hour", "xrack_paper_bytes", "work_throughput_vs_baseline",
        "xrack_paper_vs_baseline"};
#define N_METRICS  (sizeof(metrics) / sizeof(metrics[0]))
#define N_REQUIRED 9

struct table {
	int n;
	char key[MAX_ROWS][96]; /* "scheduler class" */
	double v[MAX_ROWS][N_METRICS];
};

/* Splits a CSV line without quoting (results.csv has none) in place. */
static int split(char *line, char **field)
{
	int n = 0;
	line[strcspn(line, "\r\n")] = '\0';
	for (char *s = line; n < MAX_COLS; s++) {
		field[n++] = s;
		if ((s = strchr(s, ',')) == NULL)
			break;
		*s = '\0';
	}
	return n;
}

/* DIR/results.csv into @p t; 0, or -1 after a message naming the file. */
static int load(const char *dir, struct table *t)
{
	char path[4096], line[4096], *field[MAX_COLS];
	int col[N_METRICS], sched = -1, cls = -1;
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	FILE *f = fopen(path, "re");
	if (f == NULL || !fgets(line, sizeof(line), f)) {
		fprintf(stderr, "swctl compare: %s: %m (a replay's output directory?)\n", path);
		if (f)
			fclose(f);
		return -1;
	}
	int n = split(line, field);
	for (size_t m = 0; m < N_METRICS; m++) {
		col[m] = -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(field[i], metrics[m]))
				col[m] = i;
	}
	for (int i = 0; i < n; i++) {
		sched = strcmp(field[i], "scheduler") ? sched : i;
		cls = strcmp(field[i], "class") ? cls : i;
	}
	for (size_t m = 0; m < N_REQUIRED && sched >= 0 && cls >= 0; m++)
		if (col[m] < 0)
			sched = -1;
	t->n = 0;
	while (sched >= 0 && t->n < MAX_ROWS && fgets(line, sizeof(line), f)) {
		if (split(line, field) != n)
			continue;
		snprintf(t->key[t->n], sizeof(t->key[0]), "%s %s", field[sched], field[cls]);
		for (size_t m = 0; m < N_METRICS; m++)
			t->v[t->n][m] = col[m] < 0 ? NAN : strtod(field[col[m]], NULL);
		t->n++;
	}
	fclose(f);
	if (sched < 0 || cls < 0) {
		fprintf(stderr, "swctl compare: %s: not a replay's results.csv\n", path);
		return -1;
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static struct table sim, live;
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: swctl compare SIM_DIR LIVE_DIR\n\n"
		       "Compares two replays of one mix, the simulator's (swctl replay --topology\n"
		       "CLUSTER_DIR/topology.json) and the live one (swctl replay --live\n"
		       "CLUSTER_DIR), from their results.csv: per scheduler and job class, "
		       "jobs/h,\n"
		       "mean turnaround, cross-rack bytes by kind, the paper's work-weighted\n"
		       "throughput (task-hours per hour) and cross-rack bytes (shuffle plus "
		       "remote\n"
		       "map input), and the ratios to the baseline, simulated against live, and\n"
		       "live/sim; '<<' marks a gap over 15%%.\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: swctl compare SIM_DIR LIVE_DIR\n");
		return 2;
	}
	if (load(argv[1], &sim) || load(argv[2], &live))
		return 1;
	printf("%-22s %-27s %14s %14s %9s\n", "scheduler class", "metric", "simulated", "live",
	       "live/sim");
	int rows = 0;
	for (int i = 0; i < live.n; i++) {
		int k = 0;
		while (k < sim.n && strcmp(sim.key[k], live.key[i]))
			k++;
		int empty = 1;
		for (size_t m = 0; k < sim.n && m < N_METRICS; m++)
			empty &= !(sim.v[k][m] != 0 && !isnan(sim.v[k][m])) &&
			         !(live.v[i][m] != 0 && !isnan(live.v[i][m]));
		if (k == sim.n || empty) /* a class neither run had jobs of */
			continue;
		rows++;
		for (size_t m = 0; m < N_METRICS; m++) {
			double s = sim.v[k][m], l = live.v[i][m], r = s != 0 ? l / s : NAN;
			if (isnan(s) && isnan(l)) /* neither run has the column */
				continue;
			printf("%-22s %-27s %14.4g %14.4g ", m ? "" : live.key[i], metrics[m], s,
			       l);
			if (isfinite(r))
				printf("%9.2f%s\n", r, fabs(r - 1) > GAP ? " <<" : "");
			else
				printf("%9s\n", "-");
		}
	}
	if (rows == 0) {
		fprintf(stderr, "swctl compare: %s and %s share no scheduler and class\n", argv[1],
		        argv[2]);
		return 1;
	}
	return 0;
}
