/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

enum job_state { WAITING, RUNNING, DONE };

/* Per job, under the runner's lock, for the progress line. */
struct job_progress {
	enum job_state state;
	double sim_now;
	uint64_t done, total;
};

struct runner {
	struct runner_job *jobs;
	int n;
	int next; /* next job to start, under lock */
	int finished;
	int show_progress;
	pthread_mutex_t lock;
	double last_print;
	struct job_progress *p;
};

static double wall_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct progress_slot {
	struct runner *r;
	int index;
};

/* Redraws one status line for the runs in progress, at most five times a second. */
static void on_progress(void *arg, double now, uint64_t jobs_done, uint64_t jobs_total)
{
	struct progress_slot *slot = arg;
	struct runner *r = slot->r;
	double t = wall_clock();

	pthread_mutex_lock(&r->lock);
	r->p[slot->index].sim_now = now;
	r->p[slot->index].done = jobs_done;
	r->p[slot->index].total = jobs_total;
	if (t - r->last_print >= 0.2) {
		r->last_print = t;
		fputs("\r\033[K", stderr);
		if (r->n > 1)
			fprintf(stderr, "%d/%d done  ", r->finished, r->n);
		for (int i = 0; i < r->n; i++) {
			const struct job_progress *p = &r->p[i];

			if (p->state != RUNNING || p->sim_now <= 0)
				continue;
			if (r->jobs[i].label)
				fprintf(stderr, "%s ", r->jobs[i].label);
			fprintf(stderr, "%s %.1fh %llu/%llu  ", r->jobs[i].cfg.sched.policy,
			        p->sim_now / 3600.0, (unsigned long long)p->done,
			        (unsigned long long)p->total);
		}
		fflush(stderr);
	}
	pthread_mutex_unlock(&r->lock);
}

static void *worker(void *arg)
{
	struct runner *r = arg;

	for (;;) {
		struct progress_slot slot = {.r = r};
		struct runner_job *job;
		double start;

		pthread_mutex_lock(&r->lock);
		slot.index = r->next++;
		if (slot.index < r->n)
			r->p[slot.index].state = RUNNING;
		pthread_mutex_unlock(&r->lock);
		if (slot.index >= r->n)
			return NULL;
		job = &r->jobs[slot.index];
		if (r->show_progress) {
			job->cfg.progress = on_progress;
			job->cfg.progress_arg = &slot;
		}
		start = wall_clock();
		job->rc = sw_sim_run(job->w, &job->cfg, &job->result, &job->err);
		job->wall = wall_clock() - start;
		job->cfg.progress = NULL;
		pthread_mutex_lock(&r->lock);
		r->p[slot.index].state = DONE;
		r->finished++;
		pthread_mutex_unlock(&r->lock);
	}
}

int runner_run(struct runner_job *jobs, int n, int workers, int progress)
{
	struct runner r = {.jobs = jobs, .n = n};
	pthread_t *tid = calloc(workers, sizeof(*tid));
	int started = 0;

	r.p = calloc(n ? n : 1, sizeof(*r.p));
	if (!tid || !r.p) {
		free(tid);
		free(r.p);
		return -ENOMEM;
	}
	r.show_progress = progress && isatty(STDERR_FILENO);
	pthread_mutex_init(&r.lock, NULL);
	for (int i = 0; i < workers && i < n; i++)
		if (pthread_create(&tid[i], NULL, worker, &r) == 0)
			started++;
	if (started == 0)
		worker(&r);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&r.lock);
	if (r.show_progress)
		fputs("\r\033[K", stderr);
	free(tid);
	free(r.p);
	for (int i = 0; i < n; i++)
		if (jobs[i].rc < 0)
			return jobs[i].rc;
	return 0;
}
