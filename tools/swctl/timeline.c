/* SPDX-License-Identifier: MIT */
/*
 * The task timeline (sw_sim_config.timeline) as files: tasks.csv lists each task's last
 * attempt; plans.csv each control cycle of a planning policy; running-SCHEDULER.csv turns them into
 * each job's running tasks over time, which tasks.gp plots one line per job, maps and reduces side
 * by side, a row per scheduler (the layout of Polo's figures of running tasks per job).
 */
#include <errno.h>
#include <stdlib.h>

#include "gnuplot.h"
#include "timeline.h"

/* A plot key with more jobs than this would hide the plot: it is left out. */
#define KEY_MAX_JOBS 24

static const char *const kind_names[SW_KINDS] = {"map", "reduce"};

/* A task's start (+1) or end (-1) in its kind's running count. */
struct change {
	double t;
	int kind;
	int delta;
};

static int by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	return (x->t > y->t) - (x->t < y->t);
}

/*
 * A job's tasks in sw_sim_result.tasks, [first, first + n), and its place in the workload (its
 * record's index), which fixes its line's colour and dash in every panel, whichever jobs each
 * scheduler completed.
 */
struct job_span {
	uint64_t job;
	size_t first, n, place;
};

/* One run's jobs, by id, so that a job keeps its place in every scheduler's plot. */
struct run_spans {
	struct job_span *jobs;
	size_t n;
};

static int by_job(const void *a, const void *b)
{
	const struct job_span *x = a, *y = b;

	return (x->job > y->job) - (x->job < y->job);
}

/* Sets each span's place from @p r's records, looked up by id; 0 for a job without one. */
static int set_places(const struct sw_sim_result *r, struct run_spans *s)
{
	struct job_span *rec = malloc((r->n_jobs ? r->n_jobs : 1) * sizeof(*rec));

	if (!rec)
		return -ENOMEM;
	for (size_t k = 0; k < r->n_jobs; k++)
		rec[k] = (struct job_span){.job = r->jobs[k].id, .place = k};
	qsort(rec, r->n_jobs, sizeof(*rec), by_job);
	for (size_t j = 0; j < s->n; j++) {
		const struct job_span *hit =
		        bsearch(&s->jobs[j], rec, r->n_jobs, sizeof(*rec), by_job);

		s->jobs[j].place = hit ? hit->place : 0;
	}
	free(rec);
	return 0;
}

/* Each job's tasks in @p r, by job id (the result has them by completion). Returns 0 or
 * -ENOMEM. */
static int job_spans(const struct sw_sim_result *r, struct run_spans *s)
{
	size_t k = 0;

	s->jobs = malloc((r->n_tasks ? r->n_tasks : 1) * sizeof(*s->jobs));
	if (!s->jobs)
		return -ENOMEM;
	for (size_t i = 0; i < r->n_tasks; i++) {
		if (i == 0 || r->tasks[i].job != r->tasks[i - 1].job)
			s->jobs[k++] = (struct job_span){r->tasks[i].job, i, 0, 0};
		s->jobs[k - 1].n++;
	}
	qsort(s->jobs, k, sizeof(*s->jobs), by_job);
	s->n = k;
	return set_places(r, s);
}

static int write_tasks_csv(struct outdir *o, const struct report *rep)
{
	FILE *f = outdir_open(o, "tasks.csv");

	if (!f)
		return -errno;
	fprintf(f, "scheduler,job,kind,task,node,pool,start_s,end_s\n");
	for (int i = 0; i < rep->n; i++) {
		const struct sw_sim_result *r = &rep->runs[i].result;

		for (size_t k = 0; k < r->n_tasks; k++) {
			const struct sw_task_run *t = &r->tasks[k];

			fprintf(f, "%s,%llu,%s,%u,%u,%u,%.3f,%.3f\n", rep->runs[i].cfg.sched.policy,
			        (unsigned long long)t->job, kind_names[t->kind], t->task, t->node,
			        t->pool, t->start, t->end);
		}
	}
	return fclose(f) == 0 ? 0 : -EIO;
}

/* plans.csv: each planning policy's control cycles, a row per live job; none without one. */
static int write_plans_csv(struct outdir *o, const struct report *rep)
{
	FILE *f;
	int i;

	for (i = 0; i < rep->n && !rep->runs[i].result.n_plans; i++)
		;
	if (i == rep->n)
		return 0;
	f = outdir_open(o, "plans.csv");
	if (!f)
		return -errno;
	fprintf(f, "scheduler,time_s,job,s_pend,s_req,s_fit,target_maps,target_reduces,"
	           "running_maps,running_reduces,utility\n");
	for (i = 0; i < rep->n; i++) {
		const struct sw_sim_result *r = &rep->runs[i].result;

		for (size_t k = 0; k < r->n_plans; k++) {
			const struct sw_plan_row *p = &r->plans[k];

			fprintf(f, "%s,%.3f,%llu,%u,%.4f,%u,%u,%u,%u,%u,%.6g\n",
			        rep->runs[i].cfg.sched.policy, p->now, (unsigned long long)p->job,
			        p->s_pend, p->s_req, p->s_fit, p->target[SW_MAP],
			        p->target[SW_REDUCE], p->running[SW_MAP], p->running[SW_REDUCE],
			        p->utility);
		}
	}
	return fclose(f) == 0 ? 0 : -EIO;
}

/* One job's block: its running maps and reduces after every change, from 0 before its first
 * task. @p c holds room for its tasks' changes. */
static void write_job_block(FILE *f, const struct sw_task_run *t, size_t n, struct change *c)
{
	int running[SW_KINDS] = {0, 0};

	for (size_t i = 0; i < n; i++) {
		c[2 * i] = (struct change){t[i].start, t[i].kind, 1};
		c[2 * i + 1] = (struct change){t[i].end, t[i].kind, -1};
	}
	qsort(c, 2 * n, sizeof(*c), by_time);
	fprintf(f, "%llu,%.3f,0,0\n", (unsigned long long)t[0].job, c[0].t);
	for (size_t i = 0; i < 2 * n; i++) {
		running[c[i].kind] += c[i].delta;
		/* changes at one instant print once, after the last of them */
		if (i + 1 < 2 * n && c[i + 1].t == c[i].t)
			continue;
		fprintf(f, "%llu,%.3f,%d,%d\n", (unsigned long long)t[0].job, c[i].t,
		        running[SW_MAP], running[SW_REDUCE]);
	}
	fprintf(f, "\n\n");
}

static int write_running_csv(struct outdir *o, const struct runner_job *run,
                             const struct run_spans *s)
{
	const struct sw_sim_result *r = &run->result;
	struct change *c = malloc((2 * r->n_tasks + 1) * sizeof(*c));
	char name[128];
	FILE *f;

	if (!c)
		return -ENOMEM;
	snprintf(name, sizeof(name), "running-%s.csv", run->cfg.sched.policy);
	f = outdir_open(o, name);
	if (!f) {
		free(c);
		return -errno;
	}
	/* gnuplot reads each job's block by index; the header is a comment to it */
	fprintf(f, "# job,time_s,running_maps,running_reduces\n");
	for (size_t k = 0; k < s->n; k++)
		write_job_block(f, &r->tasks[s->jobs[k].first], s->jobs[k].n, c);
	free(c);
	return fclose(f) == 0 ? 0 : -EIO;
}

/* The last task end of every run: one time axis for all panels. */
static double last_end(const struct report *rep)
{
	double end = 0;

	for (int i = 0; i < rep->n; i++)
		for (size_t k = 0; k < rep->runs[i].result.n_tasks; k++)
			if (rep->runs[i].result.tasks[k].end > end)
				end = rep->runs[i].result.tasks[k].end;
	return end;
}

/* One panel: a step line per job, running tasks of @p kind; 8 colours, then dashes. */
static void write_panel(FILE *f, const struct runner_job *run, const struct run_spans *s, int kind)
{
	const char *policy = run->cfg.sched.policy;

	fprintf(f, "set title '%s: %ss'\nset ylabel 'running %ss'\n", policy, kind_names[kind],
	        kind_names[kind]);
	if (!s->n)
		fprintf(f, "plot 0 notitle\n");
	for (size_t j = 0; j < s->n; j++) {
		size_t place = s->jobs[j].place;

		fprintf(f,
		        "%s 'running-%s.csv' index %zu using 2:%d with steps lc %zu dt %zu title "
		        "'job %llu'%s\n",
		        j ? "    " : "plot", policy, j, 3 + kind, place % 8 + 1, place / 8 % 5 + 1,
		        (unsigned long long)s->jobs[j].job, j + 1 < s->n ? ", \\" : "");
	}
}

/* Two panels per scheduler, maps and reduces, one step line per job. */
static int write_plot_script(struct outdir *o, const struct report *rep, const struct run_spans *s)
{
	FILE *f = outdir_open(o, "tasks.gp");

	if (!f)
		return -errno;
	fprintf(f,
	        "# Renders tasks.png from running-*.csv: gnuplot tasks.gp\n"
	        "set terminal pngcairo size 1400,%d font ',10'\n"
	        "set output 'tasks.png'\n"
	        "set datafile separator ','\n"
	        "set multiplot layout %d,2 title 'Running tasks per job, %s'\n"
	        "set xlabel 'time (s)'\nset xrange [0:%.0f]\nset yrange [0:*]\n"
	        "set offsets 0, 0, graph 0.05, 0\n",
	        160 + 260 * rep->n, rep->n, rep->mix, last_end(rep) * 1.02 + 1);
	for (int i = 0; i < rep->n; i++) {
		fprintf(f, "%s\n",
		        s[i].n > KEY_MAX_JOBS ? "unset key" : "set key outside right top");
		for (int k = 0; k < SW_KINDS; k++)
			write_panel(f, &rep->runs[i], &s[i], k);
	}
	fprintf(f, "unset multiplot\n");
	return fclose(f) == 0 ? 0 : -EIO;
}

int timeline_write(struct outdir *o, const struct report *rep)
{
	struct run_spans *s;
	int rc;

	if (!rep->n || !rep->runs[0].cfg.timeline)
		return 0;
	s = calloc((size_t)rep->n, sizeof(*s));
	rc = s ? write_tasks_csv(o, rep) : -ENOMEM;
	if (!rc)
		rc = write_plans_csv(o, rep);
	for (int i = 0; i < rep->n && !rc; i++) {
		rc = job_spans(&rep->runs[i].result, &s[i]);
		if (!rc)
			rc = write_running_csv(o, &rep->runs[i], &s[i]);
	}
	if (!rc)
		rc = write_plot_script(o, rep, s);
	for (int i = 0; s && i < rep->n; i++)
		free(s[i].jobs);
	free(s);
	return rc;
}

int timeline_plot(const char *dir, const struct report *rep, const char *prefix)
{
	if (!rep->n || !rep->runs[0].cfg.timeline)
		return 0;
	return gnuplot_render(prefix, dir, "tasks");
}
