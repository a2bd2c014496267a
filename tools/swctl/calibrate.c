/* SPDX-License-Identifier: MIT */
/*
 * swctl calibrate: the load at which the baseline scheduler uses the cluster maximally, as
 * the ShuffleWatcher paper set its arrival rate ("to utilize the cluster maximally for the
 * base case (Delay Scheduler)"): the shortest mean inter-arrival (paper mixes) or time scale
 * (SWIM traces) at which the baseline still finishes the work that arrives.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate.h"
#include "commands.h"
#include "grid.h"

/* Finished work over arrived work in the steady-state window that counts as keeping up: the
 * 5% allow for jobs that straddle the window's end; a backlog that grows falls far below. */
#define KEEP_UP 0.95
#define PROBES  16

static const char calibrate_usage[] =
        "usage: swctl calibrate [options]\n"
        "Finds the load at which the baseline scheduler (default delay) uses the cluster\n"
        "maximally: the shortest --interarrival (paper mixes) or --time-scale (SWIM\n"
        "traces) at which it still finishes, in the steady-state window, 95% of the work\n"
        "(task-hours of compute) that arrives there. Doubles or halves from the given\n"
        "value (default 40 s, or 1), then bisects geometrically to within 5%. Prints each\n"
        "probe and, last, the option to give replays. Give one scheduler (--schedulers\n"
        "and --baseline the same); --duration 2 makes each probe quicker.\n"
        "\n";

struct probe {
	double value, delivered; /* finished / arrived work */
	double jobs_h, work_h;
};

/* One replay of the baseline at @p value of @p opt; 0 or a negative errno. */
static int run_probe(int argc, char **argv, const char *opt, struct probe *p,
                     const struct options_ctx *ctx)
{
	char arg[64], *args[argc + 1];
	struct grid g;
	int rc;

	memcpy(args, argv, argc * sizeof(*args));
	snprintf(arg, sizeof(arg), "--%s=%.6g", opt, p->value);
	args[argc] = arg;
	if (grid_alloc(&g, 1) < 0)
		return -ENOMEM;
	rc = grid_parse_point(&g, 0, argc + 1, args, ctx);
	if (rc == 0)
		rc = grid_run(&g, 1, g.points[0].opts.progress, ctx->prefix);
	if (rc == 0) {
		const struct grid_point *pt = &g.points[0];
		const struct metrics_group *m = &pt->m[pt->opts.baseline_index].group[SW_CLASSES];

		p->delivered = m->offered_work_per_hour > 0
		                       ? m->work_per_hour / m->offered_work_per_hour
		                       : 0;
		p->jobs_h = m->jobs_per_hour;
		p->work_h = m->work_per_hour;
		printf("  --%s %-10.4g finished %5.1f%% of the arriving work (%.1f jobs/h, %.1f "
		       "task-h/h)%s\n",
		       opt, p->value, 100 * p->delivered, p->jobs_h, p->work_h,
		       p->delivered >= KEEP_UP ? "" : "  falls behind");
		fflush(stdout);
	}
	grid_free(&g);
	return rc;
}

int calibrate_find(int argc, char **argv, const struct options_ctx *ctx, const char **opt,
                   double *value)
{
	struct replay_opts *o;
	struct probe lo = {0}, hi = {0}, p;
	char num[32];
	struct grid g;
	int rc;

	if (grid_alloc(&g, 1) < 0)
		return -ENOMEM;
	rc = grid_parse_point(&g, 0, argc, argv, ctx);
	o = &g.points[0].opts;
	*opt = load_is_paper_mix(o->load.mix) ? "interarrival" : "time-scale";
	if (rc == 0 && load_mix_kind(o->load.mix, NULL, 0) == LOAD_JSONL) {
		fprintf(stderr,
		        "%s: --mix %s: a JSON Lines mix has its arrival times; "
		        "calibrate a paper mix or a SWIM trace\n",
		        ctx->prefix, o->load.mix);
		rc = -EINVAL;
	}
	p.value = !strcmp(*opt, "interarrival")
	                  ? (o->load.interarrival > 0 ? o->load.interarrival : 40)
	                  : o->load.time_scale;
	grid_free(&g);
	if (rc)
		return rc;
	printf("calibrating --%s under %s\n", *opt, "the baseline");
	/* Bracket: lo falls behind, hi keeps up. */
	for (int k = 0; k < PROBES && (!lo.value || !hi.value); k++) {
		rc = run_probe(argc, argv, *opt, &p, ctx);
		if (rc)
			return rc == -ECANCELED ? rc : -EIO;
		if (p.delivered >= KEEP_UP) {
			hi = p;
			p.value /= 2;
		} else {
			lo = p;
			p.value *= 2;
		}
	}
	if (!lo.value || !hi.value) {
		fprintf(stderr, "%s: no load found where the baseline %s\n", ctx->prefix,
		        lo.value ? "keeps up" : "falls behind");
		return -ERANGE;
	}
	while (hi.value / lo.value > 1.05) {
		p.value = sqrt(lo.value * hi.value);
		rc = run_probe(argc, argv, *opt, &p, ctx);
		if (rc)
			return rc == -ECANCELED ? rc : -EIO;
		if (p.delivered >= KEEP_UP)
			hi = p;
		else
			lo = p;
	}
	/* the value as printed, so that a replay given the printed option is the same run */
	snprintf(num, sizeof(num), "%.4g", hi.value);
	printf("the cluster is used maximally at --%s %s (%.1f jobs/h, %.1f task-h/h)\n", *opt, num,
	       hi.jobs_h, hi.work_h);
	*value = strtod(num, NULL);
	return 0;
}

int cmd_calibrate(int argc, char **argv)
{
	const struct options_ctx ctx = {.prefix = "swctl calibrate", .usage = calibrate_usage};
	char *args[argc + 3];
	const char *opt;
	double value;
	int rc;

	/* delay unless the command line says otherwise: later options override earlier ones */
	args[0] = argv[0];
	args[1] = "--schedulers=delay";
	args[2] = "--baseline=delay";
	memcpy(args + 3, argv + 1, (argc - 1) * sizeof(*args));
	rc = calibrate_find(argc + 2, args, &ctx, &opt, &value);
	return rc >= 0 ? 0 : rc == -EINVAL ? 2 : rc == -ECANCELED ? 130 : 1;
}
