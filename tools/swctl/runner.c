/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"

volatile sig_atomic_t runner_interrupted;

static void on_signal(int sig)
{
	(void)sig;
	runner_interrupted = 1;
}

void runner_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void mask_signals(int how)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(how, &set, NULL);
}

void runner_hold_signals(void)
{
	mask_signals(SIG_BLOCK);
}

void runner_release_signals(void)
{
	mask_signals(SIG_UNBLOCK);
}

enum job_state { WAITING, RUNNING, DONE };

/* Per job, under the runner's lock, for the progress line. */
struct job_progress {
	enum job_state state;
	double sim_now, start, events_per_s;
	uint64_t done, total;
};

struct runner {
	struct runner_job *jobs;
	int n;
	int next; /* next job to start, under lock */
	int finished;
	int show_progress;
	int tty;      /* redraw one line, else print whole lines */
	double every; /* wall seconds between progress prints */
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

static void print_progress(const struct runner *r)
{
	fputs(r->tty ? "\r\033[K" : "progress: ", stderr);
	if (r->n > 1)
		fprintf(stderr, "%d/%d done  ", r->finished, r->n);
	for (int i = 0; i < r->n; i++) {
		const struct job_progress *p = &r->p[i];

		if (p->state != RUNNING || p->sim_now <= 0)
			continue;
		if (r->jobs[i].label)
			fprintf(stderr, "%s ", r->jobs[i].label);
		fprintf(stderr, "%s %.1fh %llu/%llu jobs %.2fM ev/s  ", r->jobs[i].cfg.sched.policy,
		        p->sim_now / 3600.0, (unsigned long long)p->done,
		        (unsigned long long)p->total, p->events_per_s / 1e6);
	}
	fputs(r->tty ? "" : "\n", stderr);
	fflush(stderr);
}

/* Called by each simulation now and then (on its own thread); prints at a bounded rate. */
static void on_progress(void *arg, double now, uint64_t jobs_done, uint64_t jobs_total)
{
	struct progress_slot *slot = arg;
	struct runner *r = slot->r;
	struct job_progress *p = &r->p[slot->index];
	double t = wall_clock();
	/* this thread's own run: no other thread writes its result */
	uint64_t events = r->jobs[slot->index].result.events;

	pthread_mutex_lock(&r->lock);
	p->sim_now = now;
	p->done = jobs_done;
	p->total = jobs_total;
	p->events_per_s = t > p->start ? events / (t - p->start) : 0;
	if (t - r->last_print >= r->every) {
		r->last_print = t;
		print_progress(r);
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
		if (slot.index < r->n) {
			r->p[slot.index].state = RUNNING;
			r->p[slot.index].start = wall_clock();
		}
		pthread_mutex_unlock(&r->lock);
		if (slot.index >= r->n)
			return NULL;
		job = &r->jobs[slot.index];
		job->cfg.stop = &runner_interrupted;
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

int runner_run(struct runner_job *jobs, int n, int workers, double progress)
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
	r.show_progress = progress > 0;
	r.tty = isatty(STDERR_FILENO);
	r.every = r.tty ? 0.2 : progress;
	r.last_print = wall_clock();
	pthread_mutex_init(&r.lock, NULL);
	for (int i = 0; i < workers && i < n; i++)
		if (pthread_create(&tid[i], NULL, worker, &r) == 0)
			started++;
	if (started == 0)
		worker(&r);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&r.lock);
	if (r.show_progress && r.tty)
		fputs("\r\033[K", stderr);
	free(tid);
	free(r.p);
	for (int i = 0; i < n; i++)
		if (jobs[i].rc < 0)
			return jobs[i].rc;
	return 0;
}
