/* SPDX-License-Identifier: MIT */
/* swctl experiment: the command line, checking every run before any runs, running them. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibrate.h"
#include "commands.h"
#include "experiment.h"
#include "output.h"

static const char experiment_usage[] =
        "usage: swctl experiment FILE [--out DIR] [--jobs N] [--only NAME[,NAME]] [--no-plot]\n"
        "                        [--net-quantum SEC] [--net-model flow|rack]\n"
        "                        [--rack-fetch-min BYTES] [--quiet] [--collect]\n"
        "Runs the replays and sweeps of an experiment file (JSON; tools/README.md describes\n"
        "it) and compares the results with the paper's figures the file lists.\n"
        "Every run's options are checked before the first one starts.\n"
        "\n"
        "  --out DIR           where results go (default results/experiment-FILE, FILE\n"
        "                      without .json): DIR/RUN/ per run, DIR/comparison.csv and .md\n"
        "  --jobs N            simulations run at once (default: number of cores)\n"
        "  --only LIST         run only these runs (comma-separated names); the others\n"
        "                      keep the comparison rows DIR already holds for them\n"
        "  --no-plot           skip rendering the plots with gnuplot\n"
        "  --net-quantum SEC   every run with this network quantum (swctl replay\n"
        "                      --net-quantum), over the file's; refused if a run sweeps it\n"
        "  --net-model flow|rack\n"
        "                      every run with this network model (swctl replay\n"
        "                      --net-model), over the file's; refused if a run sweeps it\n"
        "  --rack-fetch-min BYTES\n"
        "                      every run with these rack fetches (swctl replay\n"
        "                      --rack-fetch-min), over the file's; refused if a run\n"
        "                      sweeps it\n"
        "  --quiet             no progress line\n"
        "  --collect           run nothing: compare the results DIR already holds for\n"
        "                      the runs (made one at a time, elsewhere, or before the\n"
        "                      file's paper entries changed)\n"
        "  -h, --help          this text\n"
        "\n"
        "Exit status: 0 done, 1 a run failed, 2 bad arguments or a bad experiment file.\n";

/* The grid a run's points are in (exp_run_grid, writable). */
static struct grid *run_grid(struct exp_run *r)
{
	return r->is_sweep ? &r->sweep.g : &r->replay;
}

/* A calibrated run's load is calibrate's to set: not swept, and not a JSON Lines mix, whose
 * arrival times are given. */
static int check_calibrate(const struct exp_run *r)
{
	const struct grid *g = exp_run_grid(r);

	for (int k = 0; k < g->n_params; k++)
		if (!strcmp(g->param[k], "interarrival") || !strcmp(g->param[k], "time-scale")) {
			fprintf(stderr,
			        "%s: calibrate: the run sweeps --%s, which calibration sets\n",
			        r->prefix, g->param[k]);
			return -EINVAL;
		}
	for (int i = 0; i < g->n_points; i++)
		if (load_mix_kind(g->points[i].opts.load.mix, NULL, 0) == LOAD_JSONL) {
			fprintf(stderr,
			        "%s: calibrate: --mix %s: a JSON Lines mix has its arrival times; "
			        "calibrate a paper mix or a SWIM trace\n",
			        r->prefix, g->points[i].opts.load.mix);
			return -EINVAL;
		}
	return 0;
}

/* Parses the run's arguments exactly as its command would, and checks its paper entries. */
static int parse_run(struct experiment *e, struct exp_run *r)
{
	const struct options_ctx ctx = {.prefix = r->prefix};
	int rc;

	if (r->is_sweep)
		rc = sweep_prepare(&r->sweep, r->argc, r->argv, r->prefix);
	else if ((rc = grid_alloc(&r->replay, 1)) == 0)
		rc = grid_parse_point(&r->replay, 0, r->argc, r->argv, &ctx);
	if (rc == 0 && r->calibrate)
		rc = check_calibrate(r);
	if (rc == 0)
		rc = exp_check_entries(e, r);
	return rc < 0 ? rc : 0;
}

/*
 * "calibrate": each point (each seed of a seed sweep: the paper's load is a property of the
 * draw) runs at the load swctl calibrate finds for its own options under Delay, the paper's
 * base case, from the run's --interarrival (or --time-scale) on. The window is left out of
 * the probes: Delay does not use it, and measuring it would run every probe twice.
 */
static int calibrate_points(struct exp_run *r)
{
	struct grid *g = run_grid(r);
	struct options_ctx ctx = {.prefix = r->prefix, .param = sweep_skip_param};
	char *delay[] = {"--schedulers=delay", "--baseline=delay", "--starvation-window=0"};
	const int n_delay = sizeof(delay) / sizeof(*delay);
	int rc = 0;

	for (int i = 0; rc == 0 && i < g->n_points; i++) {
		struct grid_point *p = &g->points[i];
		const char *opt;
		char arg[64];
		double value;
		int n = 0;

		while (p->argv[n])
			n++;
		char *args[n + n_delay];

		memcpy(args, p->argv, n * sizeof(*args));
		memcpy(args + n, delay, sizeof(delay));
		printf("%s%s%s: ", r->name, p->label[0] ? ": " : "", p->label);
		rc = calibrate_find(n + n_delay, args, &ctx, &opt, &value);
		if (rc == 0) {
			snprintf(arg, sizeof(arg), "--%s=%.15g", opt, value);
			rc = grid_set_option(g, i, arg, &ctx);
		}
	}
	fflush(stdout);
	return rc;
}

/* --only: marks the named runs, or all of them. */
static int select_runs(struct experiment *e, char *only)
{
	char *save;

	for (int i = 0; i < e->n_runs; i++)
		e->runs[i].selected = !only;
	for (char *tok = only ? strtok_r(only, ",", &save) : NULL; tok;
	     tok = strtok_r(NULL, ",", &save)) {
		int i = 0;

		while (i < e->n_runs && strcmp(e->runs[i].name, tok))
			i++;
		if (i == e->n_runs)
			return exp_fail(e, "--only: no run named '%s'", tok);
		e->runs[i].selected = 1;
	}
	return 0;
}

const struct grid *exp_run_grid(const struct exp_run *r)
{
	return r->is_sweep ? &r->sweep.g : &r->replay;
}

static int execute_run(struct experiment *e, struct exp_run *r)
{
	struct grid_point *p = &r->replay.points[0];
	char dir[1024];
	int rc;

	printf("== %s\n", r->name);
	fflush(stdout);
	if (r->calibrate && (rc = calibrate_points(r)) < 0)
		return rc;
	if (r->is_sweep)
		return sweep_execute(&r->sweep);
	rc = grid_run(&r->replay, e->workers, e->progress, r->prefix);
	if (rc < 0)
		return rc;
	report_print(stdout, &p->rep);
	snprintf(dir, sizeof(dir), "%s/%s", e->out, r->name);
	return output_replay(dir, &p->rep, e->plot, r->prefix);
}

static void free_experiment(struct experiment *e)
{
	for (int i = 0; i < e->n_runs; i++) {
		struct exp_run *r = &e->runs[i];

		if (r->is_sweep)
			sweep_free(&r->sweep);
		else
			grid_free(&r->replay);
		for (int k = 0; k < r->argc; k++)
			free(r->argv[k]);
		free(r->argv);
		free(r->entries);
	}
	free(e->runs);
	json_decref(e->root);
}

const char *const exp_net_names[EXP_NET_OPTS] = {"net-quantum", "net-model", "rack-fetch-min"};

/* Checks the network options given for every run with swctl replay's own parser, so they are
 * refused in the same words. */
static int check_net_options(const struct experiment *e)
{
	const struct options_ctx ctx = {.prefix = "swctl experiment"};
	char cmd[] = "experiment", names[EXP_NET_OPTS][32];
	char *argv[1 + 2 * EXP_NET_OPTS] = {cmd};
	int argc = 1;
	struct replay_opts o;

	for (int i = 0; i < EXP_NET_OPTS; i++) {
		if (!e->net[i])
			continue;
		snprintf(names[i], sizeof(names[i]), "--%s", exp_net_names[i]);
		argv[argc++] = names[i];
		argv[argc++] = e->net[i];
	}
	return argc > 1 ? options_parse(argc, argv, &o, &ctx) : 0;
}

static int parse_args(int argc, char **argv, struct experiment *e, char **only)
{
	static const struct option longopts[] = {
	        {"out", required_argument, NULL, 'o'},
	        {"jobs", required_argument, NULL, 'j'},
	        {"only", required_argument, NULL, 'O'},
	        {"no-plot", no_argument, NULL, 'P'},
	        {"net-quantum", required_argument, NULL, 'N'},
	        {"net-model", required_argument, NULL, 'M'},
	        {"rack-fetch-min", required_argument, NULL, 'R'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"collect", no_argument, NULL, 'C'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *base, *dot;
	char *end;
	int c;

	e->workers = (int)sysconf(_SC_NPROCESSORS_ONLN);
	e->plot = 1;
	e->progress = RUNNER_PROGRESS_EVERY;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'j':
			e->workers = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || e->workers < 1 ||
			    e->workers > RUNNER_MAX_WORKERS) {
				fprintf(stderr,
				        "swctl experiment: --jobs %s: expected a whole number from "
				        "1 "
				        "to %d\n",
				        optarg, RUNNER_MAX_WORKERS);
				return -EINVAL;
			}
			break;
		case 'O':
			*only = optarg;
			break;
		case 'P':
			e->plot = 0;
			break;
		case 'N':
			e->net[EXP_NET_QUANTUM] = optarg;
			break;
		case 'M':
			e->net[EXP_NET_MODEL] = optarg;
			break;
		case 'R':
			e->net[EXP_RACK_FETCH_MIN] = optarg;
			break;
		case 'q':
			e->progress = 0;
			break;
		case 'C':
			e->collect = 1;
			break;
		case 'h':
			fputs(experiment_usage, stdout);
			return 1;
		default:
			fprintf(stderr, "swctl experiment: %s '%s' (--help lists the options)\n",
			        c == ':' ? "missing value for" : "unknown option",
			        argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr,
		        "swctl experiment: expected one experiment FILE (--help for usage)\n");
		return -EINVAL;
	}
	e->file = argv[optind];
	base = strrchr(e->file, '/');
	base = base ? base + 1 : e->file;
	dot = strrchr(base, '.');
	if (out)
		snprintf(e->out, sizeof(e->out), "%s", out);
	else
		snprintf(e->out, sizeof(e->out), "results/experiment-%.*s",
		         dot && !strcmp(dot, ".json") ? (int)(dot - base) : (int)strlen(base),
		         base);
	/* last: the check parses with getopt again */
	return check_net_options(e);
}

int cmd_experiment(int argc, char **argv)
{
	struct experiment e = {0};
	char *only = NULL;
	int rc = parse_args(argc, argv, &e, &only);

	if (rc)
		return rc > 0 ? 0 : 2;
	rc = exp_read_file(&e);
	if (rc == 0)
		rc = select_runs(&e, only);
	if (rc == 0)
		rc = output_check(e.out, "swctl experiment");
	/* Every run is checked, selected or not, so a typo anywhere shows at once. */
	for (int i = 0; rc == 0 && i < e.n_runs; i++)
		rc = parse_run(&e, &e.runs[i]);
	if (rc < 0) {
		free_experiment(&e);
		return 2;
	}
	for (int i = 0; rc == 0 && i < e.n_runs; i++)
		if (e.runs[i].selected)
			rc = e.collect ? exp_collect_run(&e, &e.runs[i])
			               : execute_run(&e, &e.runs[i]);
	if (rc == 0) {
		runner_hold_signals();
		rc = exp_compare(&e);
		runner_release_signals();
	}
	free_experiment(&e);
	return rc == -ECANCELED ? 130 : rc < 0 ? 1 : 0;
}
