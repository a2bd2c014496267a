/* SPDX-License-Identifier: MIT */
/* A replay's results.csv read back, per scheduler and job class. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results_csv.h"

#define MAX_COLS 32

const char *const results_col_names[RESULTS_COLS] = {
        "jobs_per_hour",          "turnaround_mean_s",      "xrack_shuffle_bytes",
        "xrack_map_input_bytes",  "xrack_output_bytes",     "xrack_total_bytes",
        "throughput_vs_baseline", "turnaround_vs_baseline", "xrack_vs_baseline",
        "work_task_h_per_hour",   "xrack_paper_bytes",      "work_throughput_vs_baseline",
        "xrack_paper_vs_baseline"};

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

int results_csv_load(const char *prefix, const char *dir, struct results_table *t)
{
	char path[4096], line[4096], *field[MAX_COLS];
	int col[RESULTS_COLS], sched = -1, cls = -1;
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	FILE *f = fopen(path, "re");
	if (f == NULL || !fgets(line, sizeof(line), f)) {
		fprintf(stderr, "%s: %s: %m (a replay's output directory?)\n", prefix, path);
		if (f)
			fclose(f);
		return -1;
	}
	int n = split(line, field);
	for (int m = 0; m < RESULTS_COLS; m++) {
		col[m] = -1;
		for (int i = 0; i < n; i++)
			if (!strcmp(field[i], results_col_names[m]))
				col[m] = i;
	}
	for (int i = 0; i < n; i++) {
		sched = strcmp(field[i], "scheduler") ? sched : i;
		cls = strcmp(field[i], "class") ? cls : i;
	}
	for (int m = 0; m < RESULTS_REQUIRED && sched >= 0 && cls >= 0; m++)
		if (col[m] < 0)
			sched = -1;
	t->n = 0;
	while (sched >= 0 && t->n < RESULTS_MAX_ROWS && fgets(line, sizeof(line), f)) {
		if (split(line, field) != n)
			continue;
		snprintf(t->key[t->n], sizeof(t->key[0]), "%s %s", field[sched], field[cls]);
		for (int m = 0; m < RESULTS_COLS; m++)
			t->v[t->n][m] = col[m] < 0 ? NAN : strtod(field[col[m]], NULL);
		t->n++;
	}
	fclose(f);
	if (sched < 0 || cls < 0) {
		fprintf(stderr, "%s: %s: not a replay's results.csv\n", prefix, path);
		return -1;
	}
	return 0;
}
