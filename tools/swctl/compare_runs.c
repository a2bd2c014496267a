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
#include "results_csv.h"

#define GAP 0.15

int cmd_compare(int argc, char **argv)
{
	static struct results_table sim, live;
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
	if (results_csv_load("swctl compare", argv[1], &sim) ||
	    results_csv_load("swctl compare", argv[2], &live))
		return 1;
	printf("%-22s %-27s %14s %14s %9s\n", "scheduler class", "metric", "simulated", "live",
	       "live/sim");
	int rows = 0;
	for (int i = 0; i < live.n; i++) {
		int k = 0;
		while (k < sim.n && strcmp(sim.key[k], live.key[i]))
			k++;
		int empty = 1;
		for (int m = 0; k < sim.n && m < RESULTS_COLS; m++)
			empty &= !(sim.v[k][m] != 0 && !isnan(sim.v[k][m])) &&
			         !(live.v[i][m] != 0 && !isnan(live.v[i][m]));
		if (k == sim.n || empty) /* a class neither run had jobs of */
			continue;
		rows++;
		for (int m = 0; m < RESULTS_COLS; m++) {
			double s = sim.v[k][m], l = live.v[i][m], r = s != 0 ? l / s : NAN;
			if (isnan(s) && isnan(l)) /* neither run has the column */
				continue;
			printf("%-22s %-27s %14.4g %14.4g ", m ? "" : live.key[i],
			       results_col_names[m], s, l);
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
