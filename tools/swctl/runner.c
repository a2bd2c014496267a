/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

struct runner {
	const struct sw_workload *w;
	struct runner_job *jobs;
	int n;
	int next; /* next job to start, under lock */
	int show_progress;
	pthread_mutex_t lock;
	double last_print;
	double *sim_now; /* per job, for the progress line */
	uint64_t *done;
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

/* Redraws one status line for all runs, at most five times a second. */
static void on_progress(void *arg, double now, uint64_t jobs_done, uint64_t jobs_total)
{
	struct progress_slot *slot = arg;
	struct runner *r = slot->r;
	double t = wall_clock();

	pthread_mutex_lock(&r->lock);
	r->sim_now[slot->index] = now;
	r->done[slot->index] = jobs_done;
	if (t - r->last_print >= 0.2) {
		r->last_print = t;
		fputs("\r\033[K", stderr);
		for (int i = 0; i < r->n; i++) {
			if (r->sim_now[i] > 0)
				fprintf(stderr, "%s %.1fh %llu/%llu  ", r->jobs[i].cfg.sched.policy,
				        r->sim_now[i] / 3600.0, (unsigned long long)r->done[i],
				        (unsigned long long)jobs_total);
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
		pthread_mutex_unlock(&r->lock);
		if (slot.index >= r->n)
			return NULL;
		job = &r->jobs[slot.index];
		if (r->show_progress) {
			job->cfg.progress = on_progress;
			job->cfg.progress_arg = &slot;
		}
		start = wall_clock();
		job->rc = sw_sim_run(r->w, &job->cfg, &job->result, &job->err);
		job->wall = wall_clock() - start;
		job->cfg.progress = NULL;
	}
}

int runner_run(const struct sw_workload *w, struct runner_job *jobs, int n, int workers,
               int progress)
{
	double sim_now[n];
	uint64_t done[n];
	struct runner r = {.w = w, .jobs = jobs, .n = n, .sim_now = sim_now, .done = done};
	pthread_t tid[workers];
	int started = 0;

	memset(sim_now, 0, sizeof(sim_now));
	memset(done, 0, sizeof(done));
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
	for (int i = 0; i < n; i++)
		if (jobs[i].rc < 0)
			return jobs[i].rc;
	return 0;
}
