/* SPDX-License-Identifier: MIT */
/*
 * Workflows in a replay (README.md, "Workflows"): a job is submitted once the jobs it reads
 * have ended, as Pig launches a job once its inputs exist; a workflow has one deadline (the
 * mix's, or workflow_deadline x its time on the whole cluster, the thesis' D = 2T), and with
 * workflow_slots its user is held (sw_sched_user_slots) to the basic pair or to Algorithm 2's
 * from its first submission to the end of its last job.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"

struct sim_workflow {
	double deadline;   /* absolute, set at its first submission */
	uint32_t first, n; /* its jobs: s->wf_jobs[first .. first + n), in workload order */
	uint32_t left;     /* jobs not ended */
	uint32_t basic[SW_KINDS], refined[SW_KINDS];
	int started;
};

/* Each job's stage (one after the latest it reads) and the workflows' job lists. */
int sw_sim_workflows_setup(struct sim *s)
{
	const struct sw_workload *w = s->w;
	uint32_t nw = w->n_workflows, *fill;

	if (!nw) {
		/* a workload built in code may name links without counting its workflows */
		for (size_t i = 0; i < w->n_jobs; i++)
			if (w->jobs[i].workflow || w->jobs[i].n_after)
				return sw_sim_fail(s, -EINVAL,
				                   "workload %s: job %llu: workflow %u of 0",
				                   w->name, (unsigned long long)w->jobs[i].id,
				                   w->jobs[i].workflow);
		return 0;
	}
	s->workflows = calloc(nw, sizeof(*s->workflows));
	s->wf_jobs = calloc(w->n_jobs, sizeof(*s->wf_jobs));
	s->wf_stage = calloc(w->n_jobs, sizeof(*s->wf_stage));
	s->wf_waiting = calloc(w->n_jobs, sizeof(*s->wf_waiting));
	fill = calloc(nw, sizeof(*fill));
	if (!s->workflows || !s->wf_jobs || !s->wf_stage || !s->wf_waiting || !fill) {
		free(fill);
		return sw_sim_fail(s, -ENOMEM, "out of memory for %u workflows", nw);
	}
	for (size_t i = 0; i < w->n_jobs; i++) {
		const struct sw_job_desc *d = &w->jobs[i];

		if (d->workflow > nw || d->n_after > SW_WORKLOAD_MAX_AFTER ||
		    (d->n_after && !d->workflow)) {
			free(fill);
			return sw_sim_fail(s, -EINVAL, "workload %s: job %llu: workflow %u of %u",
			                   w->name, (unsigned long long)d->id, d->workflow, nw);
		}
		for (uint32_t a = 0; a < d->n_after; a++) {
			const struct sw_job_desc *in = &w->jobs[d->after[a]];

			if (d->after[a] >= i || in->workflow != d->workflow) {
				free(fill);
				return sw_sim_fail(s, -EINVAL,
				                   "workload %s: job %llu: reads job %u, not an "
				                   "earlier job of its workflow",
				                   w->name, (unsigned long long)d->id, d->after[a]);
			}
			if (s->wf_stage[d->after[a]] + 1 > s->wf_stage[i])
				s->wf_stage[i] = s->wf_stage[d->after[a]] + 1;
		}
		if (d->workflow)
			s->workflows[d->workflow - 1].n++;
	}
	for (uint32_t k = 1; k < nw; k++)
		s->workflows[k].first = s->workflows[k - 1].first + s->workflows[k - 1].n;
	for (size_t i = 0; i < w->n_jobs; i++) {
		uint32_t k = w->jobs[i].workflow;

		if (k) {
			s->wf_jobs[s->workflows[k - 1].first + fill[k - 1]++] = (uint32_t)i;
			s->workflows[k - 1].left++;
		}
	}
	free(fill);
	return 0;
}

void sw_sim_workflows_free(struct sim *s)
{
	free(s->workflows);
	free(s->wf_jobs);
	free(s->wf_stage);
	free(s->wf_waiting);
}

/* s->wf_waiting[] of a job that arrived before the jobs it reads ended, until submitted. */
enum { WF_WAITING = 1, WF_POSTED = 2 };

/* Jobs it reads are all submitted before it: one not live and not waiting has ended. */
static bool inputs_ended(const struct sim *s, const struct sw_job_desc *d)
{
	for (uint32_t a = 0; a < d->n_after; a++)
		if (s->live[d->after[a]] || s->wf_waiting[d->after[a]])
			return false;
	return true;
}

bool sw_sim_workflow_waits(struct sim *s, size_t idx)
{
	const struct sw_job_desc *d = &s->w->jobs[idx];

	if (!d->n_after || inputs_ended(s, d))
		return false;
	s->wf_waiting[idx] = WF_WAITING;
	return true;
}

/* The thesis' model of workflow @p k: each job's profile on the idle cluster and stage. */
static int wf_model(struct sim *s, const struct sim_workflow *f, struct sw_workflow *out)
{
	struct sw_wf_job *jobs = calloc(f->n, sizeof(*jobs));

	if (!jobs)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t idx = s->wf_jobs[f->first + i];
		const struct sw_job_desc *d = &s->w->jobs[idx];

		sw_sim_workload_profile(s->w, d, &jobs[i].profile);
		jobs[i].n_maps = sw_sim_workload_n_maps(s->w, d);
		jobs[i].n_reduces = d->n_reduces;
		jobs[i].stage = s->wf_stage[idx];
	}
	*out = (struct sw_workflow){jobs, f->n};
	return 0;
}

/* Workflow @p f starts now: its deadline, both pairs, and the hold on its user. */
static int wf_start(struct sim *s, struct sim_workflow *f, const struct sw_job_desc *d)
{
	struct sw_workflow m;
	uint32_t all[SW_KINDS];
	double t;
	int rc;

	rc = wf_model(s, f, &m);
	if (rc)
		return sw_sim_fail(s, rc, "out of memory for workflow %u", d->workflow - 1);
	for (int k = 0; k < SW_KINDS; k++)
		all[k] = (uint32_t)(k == SW_MAP ? s->map_slots : s->total_slots - s->map_slots);
	rc = sw_sched_workflow_time(&m, SW_ARIA_AVG, all[SW_MAP], all[SW_REDUCE], &t);
	f->deadline = d->deadline > 0 ? d->deadline : s->now + s->c->workflow_deadline * t;
	if (!rc)
		rc = sw_sched_workflow_slots(&m, f->deadline - s->now, f->basic, f->refined);
	free((void *)m.jobs);
	if (rc == -ETIME)
		rc = 0; /* both pairs are every task: the workflow is late whatever it gets */
	if (!rc && s->c->workflow_slots != SW_SIM_WF_FREE)
		rc = sw_sched_user_slots(s->sched, d->user,
		                         s->c->workflow_slots == SW_SIM_WF_BASIC ? f->basic
		                                                                 : f->refined);
	if (rc)
		return sw_sim_fail(s, rc,
		                   "workflow %u (user %u) under '%s': cannot size or hold "
		                   "its slots: %s",
		                   d->workflow - 1, d->user, sw_sched_policy(s->sched),
		                   strerror(-rc));
	f->started = 1;
	return 0;
}

int sw_sim_workflow_submit(struct sim *s, const struct sw_job_desc *d, struct sw_job_record *rec)
{
	struct sim_workflow *f = &s->workflows[d->workflow - 1];
	int rc;

	if (!f->started) {
		rc = wf_start(s, f, d);
		if (rc)
			return rc;
	}
	s->wf_waiting[d - s->w->jobs] = 0;
	rec->workflow = d->workflow;
	rec->deadline = f->deadline;
	memcpy(rec->wf_basic, f->basic, sizeof(f->basic));
	memcpy(rec->wf_refined, f->refined, sizeof(f->refined));
	return 0;
}

int sw_sim_workflow_job_end(struct sim *s, const struct sw_job_desc *d)
{
	static const uint32_t none[SW_KINDS];
	struct sim_workflow *f = &s->workflows[d->workflow - 1];
	int rc = 0;

	for (uint32_t i = 0; i < f->n && !rc; i++) {
		uint32_t idx = s->wf_jobs[f->first + i];

		if (s->wf_waiting[idx] == WF_WAITING && inputs_ended(s, &s->w->jobs[idx])) {
			s->wf_waiting[idx] = WF_POSTED; /* not live yet: its readers still wait */
			rc = sw_sim_post_submit(s, idx);
		}
	}
	/* the hold was set at the start: lifting it cannot fail */
	if (--f->left == 0 && s->c->workflow_slots != SW_SIM_WF_FREE)
		(void)sw_sched_user_slots(s->sched, d->user, none);
	return rc;
}
