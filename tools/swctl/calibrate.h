/* SPDX-License-Identifier: MIT */
/*
 * The load at which the baseline scheduler uses the cluster maximally, as the ShuffleWatcher
 * paper set its arrival rate: swctl calibrate, and swctl experiment's per-point calibration.
 */
#ifndef SWCTL_CALIBRATE_H
#define SWCTL_CALIBRATE_H

#include "options.h"

/*
 * Finds, for the replay options @p argv (argv[0] a command name; the baseline is the one they
 * give), the shortest --interarrival (paper mixes) or --time-scale (SWIM traces) at which the
 * baseline finishes 95% of the work arriving in the steady-state window, starting from the
 * options' own value (default 40 s, or 1) and bisecting to within 5%. Prints each probe on
 * stdout. Sets *@p opt to the option's name ("interarrival" or "time-scale") and *@p value
 * to the limit as printed (4 significant digits). Returns 0; 1 after printing --help; -EINVAL
 * for bad options or a JSON Lines mix; -ERANGE when no probe brackets the limit; -ECANCELED
 * when interrupted; -EIO when a probe fails (a mix that does not load, a simulation error).
 * Every error is printed after ctx->prefix.
 */
int calibrate_find(int argc, char **argv, const struct options_ctx *ctx, const char **opt,
                   double *value);

#endif
