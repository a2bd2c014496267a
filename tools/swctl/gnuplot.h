/* SPDX-License-Identifier: MIT */
/* Rendering a plot script with gnuplot, for every command that draws one. */
#ifndef SWCTL_GNUPLOT_H
#define SWCTL_GNUPLOT_H

/*
 * Renders NAME.png from NAME.gp with gnuplot inside @p dir. Returns 0, or -ENOENT (gnuplot is
 * not installed) or -EIO (it failed) after saying so on stderr after @p prefix.
 */
int gnuplot_render(const char *prefix, const char *dir, const char *name);

#endif
