/* SPDX-License-Identifier: MIT */
/* Machine-readable replay results: results.json, results.csv, jobs.csv, uplink-*.csv and,
 * with a timeline, tasks.csv. */
#ifndef SWCTL_OUTPUT_H
#define SWCTL_OUTPUT_H

#include "outdir.h"
#include "report.h"

/* Writes every result file into @p o (not yet committed). Returns 0 or -errno. */
int output_write(struct outdir *o, const struct report *rep);

/* results.csv's header line and one row (run @p run, metrics group @p group). */
void output_csv_header(FILE *f);
void output_csv_row(FILE *f, const struct report *rep, int run, int group);

/* Renders a replay's uplink.png and xrack.png in @p dir, and tasks.png with a timeline; says
 * why not after @p prefix. */
int output_plot(const char *dir, const struct report *rep, const char *prefix);

/* outdir_check on --out @p dir before anything runs; says why not after @p prefix. Returns 0
 * or -errno. */
int output_check(const char *dir, const char *prefix);

/*
 * A replay's results into @p dir, all or nothing, then its plots if @p plot; says where on
 * stdout, or why not on stderr after @p prefix. Returns 0 or -errno.
 */
int output_replay(const char *dir, const struct report *rep, int plot, const char *prefix);

#endif
