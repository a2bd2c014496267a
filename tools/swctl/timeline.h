/* SPDX-License-Identifier: MIT */
/* The task timeline of a replay run with --timeline on: tasks.csv and its plot. */
#ifndef SWCTL_TIMELINE_H
#define SWCTL_TIMELINE_H

#include "outdir.h"
#include "report.h"

/*
 * Writes tasks.csv (every task of every completed job, per scheduler), plans.csv (a planning
 * policy's every control cycle, a row per live job; none without one), running-SCHEDULER.csv
 * (each job's running maps and reduces at every change, one gnuplot block per job) and
 * tasks.gp into @p o; nothing when the replay ran without a timeline. Returns 0 or -errno.
 */
int timeline_write(struct outdir *o, const struct report *rep);

/* Renders tasks.png in @p dir when the replay has a timeline; says why not after @p prefix.
 * Returns 0 or -errno. */
int timeline_plot(const char *dir, const struct report *rep, const char *prefix);

#endif
