/* SPDX-License-Identifier: MIT */
/*
 * A replay's results.csv read back (swctl compare, swctl experiment --collect): per scheduler
 * and job class, the columns that compare results between runs.
 */
#ifndef SWCTL_RESULTS_CSV_H
#define SWCTL_RESULTS_CSV_H

#define RESULTS_MAX_ROWS 256

/* The columns read, in results_col_names' order; the first RESULTS_REQUIRED must be there,
 * the rest (the paper's measures, which results written before 2026-11-24 lack) are NAN
 * when missing. */
enum results_col {
	RESULTS_JOBS_PER_HOUR,
	RESULTS_TURNAROUND_MEAN,
	RESULTS_XRACK_SHUFFLE,
	RESULTS_XRACK_MAP_INPUT,
	RESULTS_XRACK_OUTPUT,
	RESULTS_XRACK_TOTAL,
	RESULTS_THROUGHPUT_VS,
	RESULTS_TURNAROUND_VS,
	RESULTS_XRACK_VS,
	RESULTS_WORK_PER_HOUR,
	RESULTS_XRACK_PAPER,
	RESULTS_WORK_VS,
	RESULTS_XRACK_PAPER_VS,
	RESULTS_COLS,
};
#define RESULTS_REQUIRED (RESULTS_XRACK_VS + 1)

extern const char *const results_col_names[RESULTS_COLS];

struct results_table {
	int n;
	char key[RESULTS_MAX_ROWS][96]; /* "scheduler class" */
	double v[RESULTS_MAX_ROWS][RESULTS_COLS];
};

/*
 * Reads DIR/results.csv into @p t (its first RESULTS_MAX_ROWS rows). Returns 0, or -1 after a
 * message starting with @p prefix that names the file: missing, unreadable, or without a
 * required column.
 */
int results_csv_load(const char *prefix, const char *dir, struct results_table *t);

#endif
