/* SPDX-License-Identifier: MIT */
/*
 * swctl replay: one job mix on the simulated cluster under several schedulers, compared in a
 * table normalised to a baseline scheduler, with JSON/CSV results and an uplink plot.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "load.h"
#include "output.h"

#define MAX_SCHEDULERS 16

static const char replay_usage[] =
        "usage: swctl replay [options]\n"
        "Replays a job mix on a simulated multi-rack cluster under several schedulers and\n"
        "compares throughput, turnaround and cross-rack traffic against a baseline.\n"
        "\n"
        "  --mix NAME|FILE     mix1, mix2 or mix3 (the ShuffleWatcher paper's mixes; default\n"
        "                      mix2), a SWIM trace (*.tsv) or a JSON Lines job mix (*.jsonl)\n"
        "  --schedulers LIST   comma-separated policies (default fifo,fair,drf,delay,capacity)\n"
        "  --baseline NAME     scheduler the ratios are relative to (default fair)\n"
        "  --duration HOURS    paper mixes: hours of job arrivals (default 5)\n"
        "  --warmup HOURS      ramp-up left out of the steady-state window\n"
        "                      (default: 1, or a fifth of the arrival span if shorter)\n"
        "  --users N           number of users (default: 30 for paper mixes, 200 for SWIM)\n"
        "  --jobs-per-user N   paper mixes: set --users so that each user submits N jobs on\n"
        "                      average in the steady-state window (the paper's default is 12)\n"
        "  --interarrival SEC  paper mixes: mean seconds between job arrivals (default 40)\n"
        "  --seed N            random seed for synthesised jobs and placement\n"
        "  --oversub RATIO     rack uplink oversubscription, overriding the mix's topology\n"
        "  --time-scale X      SWIM: multiply submit times by X (default 1)\n"
        "  --size-scale X      multiply byte counts by X (default 1; paper mixes start\n"
        "                      from a tenth of Table 2's sizes, see tools/sim/README.md)\n"
        "  --heartbeat SEC     node heartbeat interval (default 3)\n"
        "  --saturation-threshold X\n"
        "                      sw-*: NetSat's NWSaturationThreshold, a fraction of the\n"
        "                      rack uplink (default 0.8)\n"
        "  --map-completion-threshold X\n"
        "                      sw-*: SARP's MapCompletionThreshold, a fraction of a job's\n"
        "                      maps (default 0.15)\n"
        "  --starvation-window SEC\n"
        "                      sw-*: a user's jobs of an earlier window of this many\n"
        "                      seconds go first (default 600; 0 turns it off)\n"
        "  --out DIR           where results go (default results/replay-MIX)\n"
        "  --jobs N            simulations run at once (default: number of cores)\n"
        "  --no-plot           skip rendering uplink.png with gnuplot\n"
        "  --quiet             no progress line\n"
        "  -h, --help          this text\n"
        "\n"
        "Writes DIR/results.json, results.csv (per scheduler and job class), jobs.csv (per\n"
        "job), uplink-SCHEDULER.csv (uplink utilisation over time), uplink.gp and uplink.png.\n";

struct replay_opts {
	struct load_opts load;
	struct sw_sim_config sim; /* every run's settings but the policy */
	char schedulers[256];
	const char *baseline;
	double warmup;        /* hours, < 0 for the default */
	double jobs_per_user; /* 0: --users or the mix's default decides */
	const char *out;
	int workers;
	int plot;
	int progress;
};

static int parse_double(const char *opt, const char *arg, double min, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || v < min) {
		fprintf(stderr, "swctl replay: %s %s: expected a number >= %g\n", opt, arg, min);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct replay_opts *o)
{
	static const struct option longopts[] = {
	        {"mix", required_argument, NULL, 'm'},
	        {"schedulers", required_argument, NULL, 's'},
	        {"baseline", required_argument, NULL, 'b'},
	        {"duration", required_argument, NULL, 'd'},
	        {"warmup", required_argument, NULL, 'w'},
	        {"users", required_argument, NULL, 'u'},
	        {"seed", required_argument, NULL, 'S'},
	        {"oversub", required_argument, NULL, 'O'},
	        {"time-scale", required_argument, NULL, 'T'},
	        {"size-scale", required_argument, NULL, 'Z'},
	        {"heartbeat", required_argument, NULL, 'H'},
	        {"jobs-per-user", required_argument, NULL, 'J'},
	        {"interarrival", required_argument, NULL, 'I'},
	        {"saturation-threshold", required_argument, NULL, 't'},
	        {"map-completion-threshold", required_argument, NULL, 'M'},
	        {"starvation-window", required_argument, NULL, 'W'},
	        {"out", required_argument, NULL, 'o'},
	        {"jobs", required_argument, NULL, 'j'},
	        {"no-plot", no_argument, NULL, 'P'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"help", no_argument, NULL, 'h'},
	        {NULL, 0, NULL, 0},
	};
	double v;
	int c, rc = 0;

	load_opts_default(&o->load);
	snprintf(o->schedulers, sizeof(o->schedulers), "fifo,fair,drf,delay,capacity");
	o->baseline = "fair";
	sw_sim_config_default(&o->sim);
	o->warmup = -1;
	o->jobs_per_user = 0;
	o->workers = (int)sysconf(_SC_NPROCESSORS_ONLN);
	o->plot = 1;
	o->progress = 1;
	optind = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			o->load.mix = optarg;
			break;
		case 's':
			if (strlen(optarg) >= sizeof(o->schedulers)) {
				fprintf(stderr, "swctl replay: --schedulers: list too long\n");
				return -EINVAL;
			}
			strcpy(o->schedulers, optarg);
			break;
		case 'b':
			o->baseline = optarg;
			break;
		case 'd':
			rc = parse_double("--duration", optarg, 0.01, &o->load.duration);
			break;
		case 'w':
			rc = parse_double("--warmup", optarg, 0, &o->warmup);
			break;
		case 'u':
			rc = parse_double("--users", optarg, 1, &v);
			o->load.users = (uint32_t)v;
			break;
		case 'S':
			rc = parse_double("--seed", optarg, 1, &v);
			o->load.seed = (uint64_t)v;
			break;
		case 'O':
			rc = parse_double("--oversub", optarg, 1, &o->load.oversub);
			break;
		case 'T':
			rc = parse_double("--time-scale", optarg, 1e-6, &o->load.time_scale);
			break;
		case 'Z':
			rc = parse_double("--size-scale", optarg, 1e-6, &o->load.size_scale);
			break;
		case 'H':
			rc = parse_double("--heartbeat", optarg, 0.01, &o->sim.heartbeat);
			break;
		case 'J':
			rc = parse_double("--jobs-per-user", optarg, 0.01, &o->jobs_per_user);
			break;
		case 'I':
			rc = parse_double("--interarrival", optarg, 0.01, &o->load.interarrival);
			break;
		case 't':
			rc = parse_double("--saturation-threshold", optarg, 0,
			                  &o->sim.sched.nw_saturation_threshold);
			break;
		case 'M':
			rc = parse_double("--map-completion-threshold", optarg, 0,
			                  &o->sim.sched.map_completion_threshold);
			break;
		case 'W':
			rc = parse_double("--starvation-window", optarg, 0,
			                  &o->sim.sched.starvation_window);
			break;
		case 'o':
			o->out = optarg;
			break;
		case 'j':
			rc = parse_double("--jobs", optarg, 1, &v);
			o->workers = (int)v;
			break;
		case 'P':
			o->plot = 0;
			break;
		case 'q':
			o->progress = 0;
			break;
		case 'h':
			fputs(replay_usage, stdout);
			return 1;
		default:
			fputs(replay_usage, stderr);
			return -EINVAL;
		}
	}
	if (rc == 0 && (o->sim.sched.nw_saturation_threshold <= 0 ||
	                o->sim.sched.nw_saturation_threshold > 1 ||
	                o->sim.sched.map_completion_threshold > 1)) {
		fprintf(stderr, "swctl replay: --saturation-threshold must be in (0, 1] and "
		                "--map-completion-threshold in [0, 1]\n");
		rc = -EINVAL;
	}
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "swctl replay: unexpected argument '%s'\n", argv[optind]);
		rc = -EINVAL;
	}
	return rc;
}

/* --jobs-per-user becomes a number of users once the steady-state window is known. */
static int resolve_jobs_per_user(struct replay_opts *o)
{
	double warmup;

	if (!o->jobs_per_user)
		return 0;
	if (!load_is_paper_mix(o->load.mix) || o->load.users) {
		fprintf(stderr, "swctl replay: --jobs-per-user applies to mix1, mix2 and mix3, "
		                "and replaces --users\n");
		return -EINVAL;
	}
	warmup = o->warmup >= 0 ? o->warmup : fmin(1, o->load.duration / 5);
	if (warmup >= o->load.duration) {
		fprintf(stderr,
		        "swctl replay: --warmup %.2f h leaves no steady-state window in "
		        "--duration %.2f h\n",
		        warmup, o->load.duration);
		return -EINVAL;
	}
	o->load.users =
	        load_users_for_jobs_per_user(&o->load, o->load.duration - warmup, o->jobs_per_user);
	return 0;
}

static int is_policy(const char *name)
{
	for (const char *const *p = sw_sched_policy_names(); *p; p++)
		if (!strcmp(*p, name))
			return 1;
	return 0;
}

/* Splits the scheduler list in place; returns how many, or -EINVAL naming the bad one. */
static int split_schedulers(char *list, const char *names[MAX_SCHEDULERS])
{
	int n = 0;

	for (char *save, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!is_policy(tok)) {
			fprintf(stderr,
			        "swctl replay: --schedulers: unknown scheduler '%s' (known:", tok);
			for (const char *const *p = sw_sched_policy_names(); *p; p++)
				fprintf(stderr, " %s", *p);
			fprintf(stderr, ")\n");
			return -EINVAL;
		}
		if (n == MAX_SCHEDULERS) {
			fprintf(stderr, "swctl replay: --schedulers: at most %d\n", MAX_SCHEDULERS);
			return -EINVAL;
		}
		names[n++] = tok;
	}
	if (n == 0) {
		fprintf(stderr, "swctl replay: --schedulers: empty list\n");
		return -EINVAL;
	}
	return n;
}

static double last_arrival(const struct sw_workload *w)
{
	return w->n_jobs ? w->jobs[w->n_jobs - 1].arrival : 0;
}

/* The steady-state window: after the warm-up, up to the last arrival. */
static int steady_window(const struct replay_opts *o, const struct sw_workload *w, double *start,
                         double *end)
{
	*end = last_arrival(w);
	*start = o->warmup >= 0 ? o->warmup * 3600 : (*end / 5 < 3600 ? *end / 5 : 3600);
	if (*start >= *end) {
		fprintf(stderr,
		        "swctl replay: the steady-state window is empty: warm-up %.2f h, last "
		        "arrival at %.2f h (lower --warmup)\n",
		        *start / 3600, *end / 3600);
		return -EINVAL;
	}
	return 0;
}

static void default_out_dir(const struct replay_opts *o, char *buf, size_t len)
{
	const char *base = strrchr(o->load.mix, '/');
	const char *dot;

	base = base ? base + 1 : o->load.mix;
	dot = strrchr(base, '.');
	snprintf(buf, len, "results/replay-%.*s", dot ? (int)(dot - base) : (int)strlen(base),
	         base);
}

static int write_results(const struct replay_opts *o, const struct report *rep)
{
	char dir[512];
	struct outdir od;
	int rc;

	if (o->out)
		snprintf(dir, sizeof(dir), "%s", o->out);
	else
		default_out_dir(o, dir, sizeof(dir));
	rc = outdir_init(&od, dir);
	if (rc == 0)
		rc = output_write(&od, rep);
	if (rc == 0)
		rc = outdir_commit(&od);
	else
		outdir_abort(&od);
	if (rc < 0) {
		fprintf(stderr, "swctl replay: writing results to %s: %s\n", dir, strerror(-rc));
		return rc;
	}
	printf("results in %s/ (results.json, results.csv, jobs.csv, uplink-*.csv", dir);
	if (o->plot) {
		rc = output_plot(&od);
		if (rc < 0) {
			printf(")\n");
			fprintf(stderr,
			        "swctl replay: gnuplot could not render %s/uplink.png: %s\n", dir,
			        rc == -ENOENT ? "gnuplot is not installed" : strerror(-rc));
			return rc;
		}
		printf(", uplink.png");
	}
	printf(")\n");
	return 0;
}

static int run_and_report(const struct replay_opts *o, const struct sw_workload *w,
                          const char *names[], int n)
{
	struct runner_job *runs = calloc(n, sizeof(*runs));
	struct metrics *m = calloc(n, sizeof(*m));
	struct report rep = {.w = w, .mix = o->load.mix, .n = n, .runs = runs, .m = m};
	double start, end;
	int rc = steady_window(o, w, &start, &end);

	if (!runs || !m)
		rc = -ENOMEM;
	for (int i = 0; rc == 0 && i < n; i++) {
		runs[i].cfg = o->sim;
		runs[i].cfg.sched.policy = names[i];
		if (!strcmp(names[i], o->baseline))
			rep.baseline = i;
	}
	if (rc == 0) {
		rc = runner_run(w, runs, n, o->workers, o->progress);
		for (int i = 0; i < n; i++)
			if (runs[i].rc < 0)
				fprintf(stderr, "swctl replay: %s: %s\n", names[i],
				        runs[i].err.msg);
	}
	for (int i = 0; rc == 0 && i < n; i++)
		rc = metrics_compute(&runs[i].result, start, end, &m[i]);
	if (rc == 0) {
		report_print(stdout, &rep);
		rc = write_results(o, &rep);
	}
	for (int i = 0; runs && i < n; i++)
		sw_sim_result_free(&runs[i].result);
	free(runs);
	free(m);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o;
	const char *names[MAX_SCHEDULERS];
	struct sw_workload w;
	struct sw_input_error err;
	int n, rc, base_found = 0;

	rc = parse_args(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 2;
	if (resolve_jobs_per_user(&o) < 0)
		return 2;
	n = split_schedulers(o.schedulers, names);
	if (n < 0)
		return 2;
	for (int i = 0; i < n; i++)
		base_found |= !strcmp(names[i], o.baseline);
	if (!base_found) {
		fprintf(stderr, "swctl replay: --baseline %s is not among --schedulers\n",
		        o.baseline);
		return 2;
	}
	rc = load_workload(&o.load, &w, &err);
	if (rc < 0) {
		fprintf(stderr, "swctl replay: %s\n", err.msg);
		return 1;
	}
	rc = run_and_report(&o, &w, names, n);
	sw_workload_free(&w);
	return rc < 0 ? 1 : 0;
}
