/* SPDX-License-Identifier: MIT */
/* swctl: the shufflewatch command-line front end. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "runner.h"

static const struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} commands[] = {
        {"replay", cmd_replay, "replay a job mix on a simulated cluster and compare schedulers"},
        {"sweep", cmd_sweep, "replay over a grid of one or two options (e.g. thresholds)"},
        {"experiment", cmd_experiment, "run a study from a JSON file and compare with the paper"},
        {"calibrate", cmd_calibrate,
         "the arrival rate at which the baseline uses the cluster fully"},
        {"netsat-watch", cmd_netsat_watch, "an interface's rates and qdisc backlog every second"},
        {"keygen", cmd_keygen, "write a new cluster key file for agents and the controller"},
        {"submit", cmd_submit, "submit a job to the live controller"},
        {"status", cmd_status, "the live controller's nodes, racks and job counts"},
        {"jobs", cmd_jobs, "the live controller's jobs and their progress"},
        {"cluster", cmd_cluster, "emulated racks of namespaces running the live service"},
        {"compare", cmd_compare, "a simulated and a live replay of one mix, side by side"},
        {"replay-trace", cmd_replay_trace,
         "replay a controller's scheduler-call trace and check it"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: swctl COMMAND [options]   (swctl COMMAND --help for its options)\n\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	runner_catch_signals();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "swctl: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
