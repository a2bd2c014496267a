/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "output.h"
#include "sweep.h"

static const char sweep_usage[] =
        "usage: swctl sweep --param NAME=V1,V2,... [--param NAME2=W1,W2,...] [options]\n"
        "Replays a job mix at every point of a grid over one or two replay options (NAME is\n"
        "an option below that takes a value, e.g. saturation-threshold, oversub, mix,\n"
        "jobs-per-user), under every scheduler, and compares the schedulers at each point.\n"
        "All simulations share one pool of --jobs threads.\n"
        "Writes DIR/sweep.csv (per point, scheduler and job class, with ratios to the\n"
        "baseline at the same point), sweep-throughput.png and sweep-xrack.png (with their\n"
        ".gp scripts) and one directory per point (e.g. DIR/oversub=5) with that point's\n"
        "replay results; DIR is --out, by default results/sweep-NAME[-NAME2].\n"
        "\n"
        "  --param NAME=LIST   a swept option and its comma-separated values\n"
        "  --list              run nothing: write DIR/points.txt, one swctl replay command\n"
        "                      per point (its --out that point's directory), for GNU\n"
        "                      parallel or a Slurm array to run on many machines\n"
        "  --collect           run nothing: read every point's results.csv back from DIR\n"
        "                      and write sweep.csv and the plots as a local sweep does\n"
        "                      (give the same options as to --list)\n";

/* Options that make no sense per point: the run's output, its threads, who is compared. */
static const char *const not_sweepable[] = {"out", "jobs", "schedulers", "baseline", NULL};

static int add_param(void *arg, const char *spec)
{
	struct sweep *s = arg;
	const char *eq = strchr(spec, '=');
	struct sweep_param *p = &s->param[s->n_params];
	char *save;

	if (s->n_params == GRID_MAX_PARAMS) {
		fprintf(stderr, "%s: at most %d --param\n", s->prefix, GRID_MAX_PARAMS);
		return -EINVAL;
	}
	if (!eq || eq == spec || (size_t)(eq - spec) >= sizeof(p->name)) {
		fprintf(stderr, "%s: --param %s: expected NAME=V1,V2,...\n", s->prefix, spec);
		return -EINVAL;
	}
	snprintf(p->name, sizeof(p->name), "%.*s", (int)(eq - spec), spec);
	for (const char *const *n = not_sweepable; *n; n++) {
		if (!strcmp(*n, p->name)) {
			fprintf(stderr, "%s: --param %s: --%s cannot be swept\n", s->prefix, spec,
			        p->name);
			return -EINVAL;
		}
	}
	if (options_lookup(p->name) != 1) {
		fprintf(stderr, "%s: --param %s: '%s' is not a replay option that takes a value\n",
		        s->prefix, spec, p->name);
		return -EINVAL;
	}
	for (int k = 0; k < s->n_params; k++) {
		if (!strcmp(s->param[k].name, p->name)) {
			fprintf(stderr, "%s: --param %s: swept twice\n", s->prefix, p->name);
			return -EINVAL;
		}
	}
	p->buf = strdup(eq + 1);
	if (!p->buf)
		return -ENOMEM;
	s->n_params++;
	for (char *tok = strtok_r(p->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (p->n == SWEEP_MAX_VALUES) {
			fprintf(stderr, "%s: --param %s: at most %d values\n", s->prefix, p->name,
			        SWEEP_MAX_VALUES);
			return -EINVAL;
		}
		for (int k = 0; k < p->n; k++) {
			if (!strcmp(p->value[k], tok)) {
				/* Both points would write the directory NAME=VALUE. */
				fprintf(stderr, "%s: --param %s: value '%s' is listed twice\n",
				        s->prefix, p->name, tok);
				return -EINVAL;
			}
		}
		p->value[p->n++] = tok;
	}
	if (p->n == 0) {
		fprintf(stderr, "%s: --param %s: no values\n", s->prefix, spec);
		return -EINVAL;
	}
	return 0;
}

int sweep_skip_param(void *arg, const char *spec)
{
	(void)arg;
	(void)spec;
	return 0;
}

/* A swept option given as a fixed one too would be silently overridden at every point. */
static int check_not_fixed(const struct sweep *s, int argc, char **argv)
{
	for (int k = 0; k < s->n_params; k++) {
		size_t len = strlen(s->param[k].name);

		for (int i = 1; i < argc; i++) {
			if (!strncmp(argv[i], "--", 2) &&
			    !strncmp(argv[i] + 2, s->param[k].name, len) &&
			    (argv[i][2 + len] == '\0' || argv[i][2 + len] == '=')) {
				fprintf(stderr, "%s: --%s is swept by --param; leave out %s\n",
				        s->prefix, s->param[k].name, argv[i]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static void default_out(struct sweep *s)
{
	if (s->fixed.out) {
		snprintf(s->out, sizeof(s->out), "%s", s->fixed.out);
		return;
	}
	snprintf(s->out, sizeof(s->out), "results/sweep-%s%s%s", s->param[0].name,
	         s->n_params > 1 ? "-" : "", s->n_params > 1 ? s->param[1].name : "");
}

static int prepare_points(struct sweep *s, int argc, char **argv)
{
	const struct options_ctx ctx = {.prefix = s->prefix, .param = sweep_skip_param};
	int n2 = s->n_params > 1 ? s->param[1].n : 1;
	int rc = grid_alloc(&s->g, s->param[0].n * n2);

	if (rc < 0)
		return rc;
	s->g.n_params = s->n_params;
	for (int k = 0; k < s->n_params; k++)
		s->g.param[k] = s->param[k].name;
	for (int i = 0; rc == 0 && i < s->g.n_points; i++) {
		s->g.points[i].value[0] = s->param[0].value[i / n2];
		if (s->n_params > 1)
			s->g.points[i].value[1] = s->param[1].value[i % n2];
		rc = grid_parse_point(&s->g, i, argc, argv, &ctx);
	}
	return rc;
}

int sweep_prepare(struct sweep *s, int argc, char **argv, const char *prefix)
{
	const struct options_ctx ctx = {
	        .prefix = prefix, .usage = sweep_usage, .param = add_param, .param_arg = s};
	int rc;

	memset(s, 0, sizeof(*s));
	s->prefix = prefix;
	rc = options_parse(argc, argv, &s->fixed, &ctx);
	if (rc)
		return rc;
	if (s->n_params == 0) {
		fprintf(stderr, "%s: --param NAME=V1,V2,... is required\n", prefix);
		return -EINVAL;
	}
	rc = check_not_fixed(s, argc, argv);
	if (rc == 0)
		rc = prepare_points(s, argc, argv);
	default_out(s);
	if (rc == 0)
		rc = output_check(s->out, prefix);
	return rc < 0 ? rc : 0;
}

static void print_table(const struct sweep *s)
{
	const int all = SW_CLASSES;
	int w = 5, wn = 12; /* the point and scheduler columns fit the longest label and name */

	for (int i = 0; i < s->g.n_points; i++) {
		if ((int)strlen(s->g.points[i].label) > w)
			w = (int)strlen(s->g.points[i].label);
		for (int k = 0; k < s->g.points[i].opts.n_schedulers; k++)
			if ((int)strlen(s->g.points[i].opts.names[k]) > wn)
				wn = (int)strlen(s->g.points[i].opts.names[k]);
	}
	printf("sweep over %s%s%s: %d points; \"vs\" columns are ratios to %s at the same "
	       "point, all jobs\n",
	       s->param[0].name, s->n_params > 1 ? " x " : "",
	       s->n_params > 1 ? s->param[1].name : "", s->g.n_points, s->fixed.baseline);
	printf("%-*s %-*s %8s %7s %8s %8s\n", w, "point", wn, "scheduler", "jobs/h", "vs",
	       "turn. vs", "xrack vs");
	for (int i = 0; i < s->g.n_points; i++) {
		const struct grid_point *p = &s->g.points[i];
		const struct metrics_group *b = &p->m[p->opts.baseline_index].group[all];

		for (int k = 0; k < p->opts.n_schedulers; k++) {
			const struct metrics_group *m = &p->m[k].group[all];

			printf("%-*s %-*s %8.1f %7.2f %8.2f %8.2f\n", w, k ? "" : p->label, wn,
			       p->opts.names[k], m->jobs_per_hour,
			       report_ratio(m->jobs_per_hour, b->jobs_per_hour),
			       report_ratio(m->turnaround_mean, b->turnaround_mean),
			       report_ratio((double)m->xrack_total, (double)b->xrack_total));
		}
	}
}

int sweep_execute(struct sweep *s)
{
	int rc = grid_run(&s->g, s->fixed.workers, s->fixed.progress, s->prefix);

	if (rc < 0)
		return rc;
	print_table(s);
	runner_hold_signals(); /* every point's directory, or none: see output_replay */
	rc = sweep_write(s);
	runner_release_signals();
	if (rc < 0) {
		fprintf(stderr, "%s: writing results to %s: %s\n", s->prefix, s->out,
		        strerror(-rc));
		return rc;
	}
	printf("results in %s/ (sweep.csv, sweep-*.gp, one directory per point", s->out);
	if (s->fixed.plot) {
		rc = sweep_plot(s);
		printf("%s", rc == 0 ? ", sweep-throughput.png, sweep-xrack.png" : "");
	}
	printf(")\n");
	return rc;
}

void sweep_free(struct sweep *s)
{
	grid_free(&s->g);
	for (int k = 0; k < s->n_params; k++)
		free(s->param[k].buf);
}

enum sweep_mode { SWEEP_RUN, SWEEP_LIST, SWEEP_COLLECT };

/* Takes --list and --collect out of @p argv (the replay options know neither). */
static int take_mode(int *argc, char **argv, enum sweep_mode *mode)
{
	int n = 0;

	*mode = SWEEP_RUN;
	for (int i = 0; i < *argc; i++) {
		enum sweep_mode m = !strcmp(argv[i], "--list")      ? SWEEP_LIST
		                    : !strcmp(argv[i], "--collect") ? SWEEP_COLLECT
		                                                    : SWEEP_RUN;

		if (m == SWEEP_RUN) {
			argv[n++] = argv[i];
			continue;
		}
		if (*mode != SWEEP_RUN && *mode != m) {
			fprintf(stderr, "swctl sweep: --list and --collect exclude each other\n");
			return -EINVAL;
		}
		*mode = m;
	}
	*argc = n;
	argv[n] = NULL;
	return 0;
}

int cmd_sweep(int argc, char **argv)
{
	struct sweep s;
	enum sweep_mode mode;
	int rc = take_mode(&argc, argv, &mode);

	if (rc < 0)
		return 2;
	rc = sweep_prepare(&s, argc, argv, "swctl sweep");
	if (rc == 0) {
		rc = mode == SWEEP_LIST      ? sweep_list(&s, argc, argv)
		     : mode == SWEEP_COLLECT ? sweep_collect(&s)
		                             : sweep_execute(&s);
		rc = rc == -ECANCELED ? 130 : rc < 0 ? 1 : 0;
	} else {
		rc = rc > 0 ? 0 : 2;
	}
	sweep_free(&s);
	return rc;
}
