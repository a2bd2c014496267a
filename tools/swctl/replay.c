/* SPDX-License-Identifier: MIT */
/*
 * swctl replay: one job mix on the simulated cluster under several schedulers, compared in a
 * table normalised to a baseline scheduler, with JSON/CSV results and an uplink plot.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "grid.h"
#include "output.h"
#include "replay_live.h"

static const char replay_usage[] =
        "usage: swctl replay [options]\n"
        "Replays a job mix on a simulated multi-rack cluster under several schedulers and\n"
        "compares throughput, turnaround and cross-rack traffic against a baseline.\n"
        "Writes DIR/results.json, results.csv (per scheduler and job class), jobs.csv (per\n"
        "job), uplink-SCHEDULER.csv (uplink utilisation over time), uplink.gp, uplink.png,\n"
        "xrack.gp and xrack.png (cross-rack traffic over time), and with --timeline on\n"
        "tasks.csv (every task), running-SCHEDULER.csv, tasks.gp and tasks.png (running\n"
        "tasks per job over time), and plans.csv under a planning policy (every control\n"
        "cycle); DIR is --out, by default results/replay-MIX.\n"
        "With --live CLUSTER_DIR (first, before the other options), the mix runs on the\n"
        "emulated racks of `swctl cluster up --dir CLUSTER_DIR` instead, once per scheduler\n"
        "(the controller restarted under each), every job submitted at its arrival time:\n"
        "shrink a mix to minutes with --duration, --interarrival and --size-scale\n"
        "(--time-scale for SWIM). The mix gets the cluster's shape (CLUSTER_DIR/\n"
        "topology.json; a --topology FILE overrides it: give the simulated replay the same\n"
        "file to compare the two). The cross-rack bytes the ToR uplinks and the agents\n"
        "(NetSat) counted follow the table and go to DIR/live.csv; DIR defaults to\n"
        "results/live-MIX. --fail-node kills the node's swagent (SIGKILL) and starts it\n"
        "again after +DOWN seconds. Needs root.\n"
        "  --kill-controller @SEC[+PAUSE]\n"
        "                      --live only: kills swcontroller (SIGKILL) SEC seconds into\n"
        "                      each run and starts it again PAUSE seconds later (default\n"
        "                      5) on its state; jobs arriving meanwhile are submitted when\n"
        "                      it is back (their turnaround counts from then)\n"
        "\n";

static void default_out_dir(const struct replay_opts *o, int live, char *buf, size_t len)
{
	const char *base = strrchr(o->load.mix, '/');
	const char *dot;

	base = base ? base + 1 : o->load.mix;
	dot = strrchr(base, '.');
	snprintf(buf, len, "results/%s-%.*s", live ? "live" : "replay",
	         dot ? (int)(dot - base) : (int)strlen(base), base);
}

/* live.csv: the cross-rack bytes each run's counters measured. */
static int write_live_csv(const char *dir, const struct replay_live *l,
                          const struct runner_job *runs)
{
	char path[600];
	snprintf(path, sizeof(path), "%s/live.csv", dir);
	FILE *f = fopen(path, "w");
	if (f == NULL) {
		perror(path);
		return -errno;
	}
	fprintf(f, "scheduler,uplink_out_bytes,uplink_in_bytes,netsat_bytes,placement_bytes\n");
	for (int i = 0; i < l->n; i++)
		fprintf(f, "%s,%llu,%llu,%llu,%llu\n", runs[i].cfg.sched.policy,
		        (unsigned long long)l->bytes[i].uplink_out,
		        (unsigned long long)l->bytes[i].uplink_in,
		        (unsigned long long)l->bytes[i].netsat,
		        (unsigned long long)l->bytes[i].placed);
	return fclose(f) == 0 ? 0 : -EIO;
}

/* Takes --kill-controller @SEC[+PAUSE] (or --kill-controller=...) out of argv into @p k.
 * Returns argc without it, or -1 after a message. */
static int take_kill_controller(int argc, char **argv, struct replay_live_kill *k)
{
	const char *opt = "--kill-controller";
	size_t len = strlen(opt);
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], opt, len) || (argv[i][len] && argv[i][len] != '='))
			continue;
		const char *arg = argv[i][len]   ? argv[i] + len + 1
		                  : i + 1 < argc ? argv[i + 1]
		                                 : "";
		int n = argv[i][len] ? 1 : 2;
		char *end = (char *)arg;
		k->pause = 5;
		k->at = arg[0] == '@' ? strtod(arg + 1, &end) : -1;
		if (end != arg + 1 && *end == '+')
			k->pause = strtod(end + 1, &end);
		if (arg[0] != '@' || end == arg + 1 || *end || !isfinite(k->at) || k->at < 0 ||
		    !isfinite(k->pause) || k->pause < 0) {
			fprintf(stderr,
			        "swctl replay: %s %s: expected @SECONDS or @SECONDS+PAUSE_SECONDS "
			        "(times >= 0 and finite, e.g. @20+5)\n",
			        opt, arg);
			return -1;
		}
		k->on = 1;
		memmove(argv + i, argv + i + n, (size_t)(argc - i - n + 1) * sizeof(*argv));
		return argc - n;
	}
	return argc;
}

/* The first option asked for that only the simulated cluster models, or NULL. */
static const char *sim_only(const struct replay_opts *o)
{
	return o->sim.task_failure_rate > 0 ? "task-failure-rate"
	       : o->sim.straggler_rate > 0  ? "straggler-rate"
	       : o->sim.contention          ? "contention"
	       : o->sim.slots_only          ? "slots-only"
	       : o->sim.copy_memory         ? "copy-memory"
	       : o->sim.timeline            ? "timeline"
	                                    : NULL;
}

int cmd_replay(int argc, char **argv)
{
	const struct options_ctx ctx = {.prefix = "swctl replay", .usage = replay_usage};
	static struct replay_live live;
	const char *live_dir = NULL;
	struct grid g;
	int rc;

	/* --live DIR: the cluster's shape unless --topology says otherwise (given later, it
	 * overrides this one). */
	char topology[600];
	if (argc >= 3 && !strcmp(argv[1], "--live")) {
		live_dir = argv[2];
		snprintf(topology, sizeof(topology), "--topology=%s/topology.json", live_dir);
		argv[1] = argv[0];
		argv[2] = topology;
		argc -= 1;
		argv += 1;
	}
	struct replay_live_kill kill_ctl = {0};
	argc = take_kill_controller(argc, argv, &kill_ctl);
	if (argc < 0)
		return 2;
	if (kill_ctl.on && !live_dir) {
		fprintf(stderr, "swctl replay: --kill-controller needs --live\n");
		return 2;
	}
	if (grid_alloc(&g, 1) < 0)
		return 1;
	const struct replay_opts *o = &g.points[0].opts;
	char dir[512];

	rc = grid_parse_point(&g, 0, argc, argv, &ctx);
	if (rc == 0) {
		if (o->out)
			snprintf(dir, sizeof(dir), "%s", o->out);
		else
			default_out_dir(o, live_dir != NULL, dir, sizeof(dir));
		rc = output_check(dir, ctx.prefix);
	}
	if (rc == 0 && live_dir && sim_only(o)) {
		fprintf(stderr, "swctl replay: --%s is not supported with --live\n", sim_only(o));
		rc = -EINVAL;
	} else if (rc == 0 && live_dir) {
		if (replay_live_open(&live, live_dir))
			rc = -EIO;
		live.kill_ctl = kill_ctl;
		g.run = replay_live_run;
		g.run_arg = &live;
	}
	if (rc) {
		grid_free(&g);
		return rc > 0 ? 0 : rc == -EIO ? 1 : 2;
	}
	rc = grid_run(&g, o->workers, o->progress, ctx.prefix);
	g.points[0].rep.controller_killed = kill_ctl.on;
	if (rc == 0) {
		report_print(stdout, &g.points[0].rep);
		if (live_dir)
			replay_live_print(stdout, &live, g.points[0].runs);
		rc = output_replay(dir, &g.points[0].rep, o->plot, ctx.prefix);
		if (rc == 0 && live_dir)
			rc = write_live_csv(dir, &live, g.points[0].runs);
	}
	if (live_dir)
		replay_live_close(&live);
	grid_free(&g);
	return rc == -ECANCELED ? 130 : rc < 0 ? 1 : 0;
}
