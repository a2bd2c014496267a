/* SPDX-License-Identifier: MIT */
/* Rendering a plot script with gnuplot, for every command that draws one. */
#ifndef SWCTL_GNUPLOT_H
#define SWCTL_GNUPLOT_H

/*
 * Runs "gnuplot SCRIPT" inside @p dir and waits for it. Returns 0, -ENOENT when gnuplot is not
 * installed, or -EIO when it failed.
 */
int gnuplot_run(const char *dir, const char *script);

/* Says on stderr why @p what in @p dir could not be rendered (rc from gnuplot_run). */
void gnuplot_report(const char *prefix, const char *dir, const char *what, int rc);

#endif
