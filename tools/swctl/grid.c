/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grid.h"

int grid_alloc(struct grid *g, int n_points)
{
	memset(g, 0, sizeof(*g));
	g->points = calloc(n_points, sizeof(*g->points));
	if (!g->points)
		return -ENOMEM;
	g->n_points = n_points;
	return 0;
}

/* Parses the point's argv (@p argc arguments), its label before errors. */
static int parse_point(struct grid_point *p, int argc, const struct options_ctx *ctx)
{
	if (p->label[0]) {
		struct options_ctx point_ctx = *ctx;
		char prefix[512];

		snprintf(prefix, sizeof(prefix), "%s: %s", ctx->prefix, p->label);
		point_ctx.prefix = prefix;
		return options_parse(argc, p->argv, &p->opts, &point_ctx);
	}
	return options_parse(argc, p->argv, &p->opts, ctx);
}

int grid_parse_point(struct grid *g, int i, int argc, char **argv, const struct options_ctx *ctx)
{
	struct grid_point *p = &g->points[i];
	size_t used = 0;
	int n = argc;

	p->argv = calloc(argc + GRID_MAX_PARAMS + 1, sizeof(char *));
	if (!p->argv)
		return -ENOMEM;
	memcpy(p->argv, argv, argc * sizeof(char *));
	for (int k = 0; k < g->n_params; k++) {
		if (asprintf(&p->own[k], "--%s=%s", g->param[k], p->value[k]) < 0) {
			p->own[k] = NULL;
			return -ENOMEM;
		}
		p->argv[n++] = p->own[k];
		used += snprintf(p->label + used, sizeof(p->label) - used, "%s%s=%s", k ? "," : "",
		                 g->param[k], p->value[k]);
		if (used >= sizeof(p->label))
			used = sizeof(p->label) - 1;
	}
	return parse_point(p, n, ctx);
}

int grid_set_option(struct grid *g, int i, const char *arg, const struct options_ctx *ctx)
{
	struct grid_point *p = &g->points[i];
	char *copy = strdup(arg), **argv;
	int n = 0;

	if (!copy)
		return -ENOMEM;
	while (p->argv[n])
		n++;
	if (p->set) {
		free(p->set);
		p->argv[n - 1] = copy;
	} else {
		argv = realloc(p->argv, (n + 2) * sizeof(*argv));
		if (!argv) {
			free(copy);
			return -ENOMEM;
		}
		p->argv = argv;
		p->argv[n++] = copy;
		p->argv[n] = NULL;
	}
	p->set = copy;
	return parse_point(p, n, ctx);
}

/* The steady-state window: after the warm-up, up to the last arrival. A mix where no job
 * arrives in it (a single job, or all arriving at once) is measured whole: see summarise. */
static void steady_window(struct grid_point *p)
{
	const struct sw_workload *w = p->w;

	p->window_end = w->n_jobs ? w->jobs[w->n_jobs - 1].arrival : 0;
	p->window_start = options_warmup_s(&p->opts, p->window_end);
	p->all_jobs = 1;
	for (size_t i = 0; i < w->n_jobs && p->all_jobs; i++)
		p->all_jobs = !(w->jobs[i].arrival >= p->window_start &&
		                w->jobs[i].arrival < p->window_end);
}

/* Points whose load options match share one workload: a threshold sweep loads the mix once. */
static int load_point(struct grid *g, int i, const char *prefix)
{
	struct grid_point *p = &g->points[i];
	struct sw_input_error err;
	int rc;

	for (int k = 0; k < i; k++) {
		if (load_opts_equal(&g->points[k].opts.load, &p->opts.load)) {
			p->w = g->points[k].w;
			return 0;
		}
	}
	p->w = calloc(1, sizeof(*p->w));
	if (!p->w)
		return -ENOMEM;
	p->own_w = 1;
	rc = load_workload(&p->opts.load, p->w, &err);
	if (rc < 0) {
		fprintf(stderr, "%s%s%s: %s\n", prefix, p->label[0] ? ": " : "", p->label, err.msg);
		free(p->w);
		p->w = NULL;
		p->own_w = 0;
	}
	return rc;
}

static int setup_runs(struct grid *g)
{
	int next = 0;

	for (int i = 0; i < g->n_points; i++)
		g->n_runs += g->points[i].opts.n_schedulers;
	g->runs = calloc(g->n_runs, sizeof(*g->runs));
	g->m = calloc(g->n_runs, sizeof(*g->m));
	if (!g->runs || !g->m)
		return -ENOMEM;
	for (int i = 0; i < g->n_points; i++) {
		struct grid_point *p = &g->points[i];

		p->runs = &g->runs[next];
		p->m = &g->m[next];
		for (int s = 0; s < p->opts.n_schedulers; s++) {
			p->runs[s].w = p->w;
			p->runs[s].label = p->label[0] ? p->label : NULL;
			p->runs[s].cfg = p->opts.sim;
			p->runs[s].cfg.sched.policy = p->opts.names[s];
		}
		next += p->opts.n_schedulers;
	}
	return 0;
}

static int summarise(struct grid *g)
{
	for (int i = 0; i < g->n_points; i++) {
		struct grid_point *p = &g->points[i];
		int rc = 0;

		for (int s = 0; rc == 0 && s < p->opts.n_schedulers; s++) {
			const struct sw_sim_result *r = &p->runs[s].result;
			double start = p->window_start, end = p->window_end;

			/* Every job: from the first arrival to this run's last finish, included. */
			if (p->all_jobs) {
				start = p->w->jobs[0].arrival;
				end = nextafter(fmax(r->end, start), INFINITY);
			}
			rc = metrics_compute(p->w, r, start, end, &p->m[s]);
		}
		if (rc < 0)
			return rc;
		p->rep = (struct report){.w = p->w,
		                         .mix = p->opts.load.mix,
		                         .n = p->opts.n_schedulers,
		                         .runs = p->runs,
		                         .m = p->m,
		                         .baseline = p->opts.baseline_index,
		                         .all_jobs = p->all_jobs,
		                         .warmup = options_warmup_s(&p->opts, p->window_end)};
	}
	return 0;
}

/*
 * --starvation-window Kx: the baseline of each such point runs first with no window, and the
 * window becomes K times the mean completion time of the point's window jobs under it.
 */
static int measure_windows(struct grid *g, int workers, double progress, const char *prefix)
{
	for (int i = 0; i < g->n_points; i++) {
		struct grid_point *p = &g->points[i];
		struct runner_job job = {.w = p->w, .label = "(window)", .cfg = p->opts.sim};
		struct metrics m;
		int rc;

		if (p->opts.starvation_multiple <= 0)
			continue;
		job.cfg.sched.policy = p->opts.names[p->opts.baseline_index];
		job.cfg.sched.starvation_window = 0;
		rc = g->run ? g->run(&job, 1, g->run_arg) : runner_run(&job, 1, workers, progress);
		if (rc == 0)
			rc = metrics_compute(p->w, &job.result,
			                     p->all_jobs ? -INFINITY : p->window_start,
			                     p->all_jobs ? INFINITY : p->window_end, &m);
		sw_sim_result_free(&job.result);
		if (rc < 0) {
			fprintf(stderr, "%s: %s measuring the mean completion time: %s\n", prefix,
			        job.cfg.sched.policy, job.err.msg[0] ? job.err.msg : strerror(-rc));
			return rc;
		}
		p->opts.sim.sched.starvation_window =
		        p->opts.starvation_multiple * m.group[SW_CLASSES].turnaround_mean;
		fprintf(stderr,
		        "%s%s%s: starvation window %g x %.0f s (mean completion under %s) = %.0f "
		        "s\n",
		        prefix, p->label[0] ? ": " : "", p->label, p->opts.starvation_multiple,
		        m.group[SW_CLASSES].turnaround_mean, job.cfg.sched.policy,
		        p->opts.sim.sched.starvation_window);
	}
	return 0;
}

int grid_run(struct grid *g, int workers, double progress, const char *prefix)
{
	int rc = 0;

	for (int i = 0; rc == 0 && i < g->n_points; i++)
		rc = load_point(g, i, prefix);
	for (int i = 0; rc == 0 && i < g->n_points; i++)
		steady_window(&g->points[i]);
	if (rc == 0)
		rc = measure_windows(g, workers, progress, prefix);
	if (rc == 0)
		rc = setup_runs(g);
	if (rc == 0) {
		rc = runner_interrupted ? -ECANCELED
		     : g->run           ? g->run(g->runs, g->n_runs, g->run_arg)
		                        : runner_run(g->runs, g->n_runs, workers, progress);
		if (rc == -ENOMEM)
			fprintf(stderr, "%s: out of memory starting %d threads\n", prefix, workers);
		if (runner_interrupted) {
			fprintf(stderr, "%s: interrupted; nothing written\n", prefix);
			return -ECANCELED;
		}
		for (int i = 0; i < g->n_runs; i++)
			if (g->runs[i].rc < 0)
				fprintf(stderr, "%s: %s%s%s: %s\n", prefix,
				        g->runs[i].label ? g->runs[i].label : "",
				        g->runs[i].label ? " " : "", g->runs[i].cfg.sched.policy,
				        g->runs[i].err.msg);
	}
	if (rc == 0)
		rc = summarise(g);
	return rc;
}

void grid_free(struct grid *g)
{
	for (int i = 0; i < g->n_runs && g->runs; i++)
		sw_sim_result_free(&g->runs[i].result);
	for (int i = 0; i < g->n_points; i++) {
		struct grid_point *p = &g->points[i];

		if (p->own_w) {
			sw_sim_workload_free(p->w);
			free(p->w);
		}
		for (int k = 0; k < GRID_MAX_PARAMS; k++)
			free(p->own[k]);
		free(p->set);
		free(p->argv);
	}
	free(g->points);
	free(g->runs);
	free(g->m);
	memset(g, 0, sizeof(*g));
}
