/* SPDX-License-Identifier: MIT */
/*
 * swctl replay: one job mix on the simulated cluster under several schedulers, compared in a
 * table normalised to a baseline scheduler, with JSON/CSV results and an uplink plot.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "grid.h"
#include "output.h"

static const char replay_usage[] =
        "usage: swctl replay [options]\n"
        "Replays a job mix on a simulated multi-rack cluster under several schedulers and\n"
        "compares throughput, turnaround and cross-rack traffic against a baseline.\n"
        "Writes DIR/results.json, results.csv (per scheduler and job class), jobs.csv (per\n"
        "job), uplink-SCHEDULER.csv (uplink utilisation over time), uplink.gp, uplink.png,\n"
        "xrack.gp and xrack.png (cross-rack traffic over time); DIR is --out, by default\n"
        "results/replay-MIX.\n"
        "\n";

static void default_out_dir(const struct replay_opts *o, char *buf, size_t len)
{
	const char *base = strrchr(o->load.mix, '/');
	const char *dot;

	base = base ? base + 1 : o->load.mix;
	dot = strrchr(base, '.');
	snprintf(buf, len, "results/replay-%.*s", dot ? (int)(dot - base) : (int)strlen(base),
	         base);
}

int cmd_replay(int argc, char **argv)
{
	const struct options_ctx ctx = {.prefix = "swctl replay", .usage = replay_usage};
	struct grid g;
	int rc;

	if (grid_alloc(&g, 1) < 0)
		return 1;
	const struct replay_opts *o = &g.points[0].opts;
	char dir[512];

	rc = grid_parse_point(&g, 0, argc, argv, &ctx);
	if (rc == 0) {
		if (o->out)
			snprintf(dir, sizeof(dir), "%s", o->out);
		else
			default_out_dir(o, dir, sizeof(dir));
		rc = output_check(dir, ctx.prefix);
	}
	if (rc) {
		grid_free(&g);
		return rc > 0 ? 0 : 2;
	}
	rc = grid_run(&g, o->workers, o->progress, ctx.prefix);
	if (rc == 0) {
		report_print(stdout, &g.points[0].rep);
		rc = output_replay(dir, &g.points[0].rep, o->plot, ctx.prefix);
	}
	grid_free(&g);
	return rc == -ECANCELED ? 130 : rc < 0 ? 1 : 0;
}
