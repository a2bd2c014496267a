/* SPDX-License-Identifier: MIT */
/*
 * Workflows of MapReduce jobs with one deadline (the thesis excerpt, section 4.1, seed 004):
 * the basic model (every job's ARIA row summed), the refined model (concurrent jobs of a
 * stage pipelined in Johnson's order) and Algorithm 2, which walks from the basic model's
 * Lagrange minimum down to the fewest slots the refined model says still meet the deadline.
 * Choices where the excerpt is silent: scheduler/README.md, "Workflows".
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sw_sched_aria.h"

/* One job's map stage and reduce stage, per bound, and its place in a stage's order. */
struct wf_stage_model {
	struct sw_aria_model map[3], reduce[3];
};

struct wf_slot {
	uint32_t stage, job;
	int group; /* Johnson: 0 map stage no longer than reduce stage, 1 the others */
	double key;
};

struct wf_ctx {
	const struct sw_workflow *w;
	struct wf_stage_model *m;
	struct wf_slot *order;
	uint32_t r_floor; /* 1 when a job has reduces: each needs a slot */
};

static void ctx_fini(struct wf_ctx *c)
{
	free(c->m);
	free(c->order);
}

static int ctx_init(struct wf_ctx *c, const struct sw_workflow *w)
{
	*c = (struct wf_ctx){.w = w};
	if (!w || !w->jobs || !w->n_jobs)
		return -EINVAL;
	c->m = calloc(w->n_jobs, sizeof(*c->m));
	c->order = calloc(w->n_jobs, sizeof(*c->order));
	if (!c->m || !c->order) {
		ctx_fini(c);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		const struct sw_wf_job *j = &w->jobs[i];

		if (!j->n_maps) {
			ctx_fini(c);
			return -EINVAL;
		}
		c->r_floor |= j->n_reduces > 0;
		for (int b = SW_ARIA_LOW; b <= SW_ARIA_UP; b++) {
			if (sw_sched_aria_model(&j->profile, j->n_maps, 0, b, &c->m[i].map[b]) <
			            0 ||
			    sw_sched_aria_model(&j->profile, 0, j->n_reduces, b,
			                        &c->m[i].reduce[b]) < 0) {
				ctx_fini(c);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int cmp_slot(const void *a, const void *b)
{
	const struct wf_slot *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->group != y->group)
		return x->group - y->group;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* Orders the jobs by stage, and within a stage by Johnson's rule on the average times. */
static void johnson(struct wf_ctx *c, uint32_t ms, uint32_t rs)
{
	for (uint32_t i = 0; i < c->w->n_jobs; i++) {
		double tm = sw_sched_aria_time(&c->m[i].map[SW_ARIA_AVG], ms, 0);
		double tr = sw_sched_aria_time(&c->m[i].reduce[SW_ARIA_AVG], 0, rs);

		c->order[i] = (struct wf_slot){
		        .stage = c->w->jobs[i].stage,
		        .job = i,
		        .group = tm > tr,
		        .key = tm <= tr ? tm : -tr,
		};
	}
	qsort(c->order, c->w->n_jobs, sizeof(*c->order), cmp_slot);
}

/* The pipelined time of the ordered jobs on one bound (LOW or UP). */
static double pipeline(const struct wf_ctx *c, int bound, uint32_t ms, uint32_t rs)
{
	double map_end = 0, reduce_end = 0;

	for (uint32_t k = 0; k < c->w->n_jobs; k++) {
		const struct wf_stage_model *m = &c->m[c->order[k].job];

		if (k && c->order[k].stage != c->order[k - 1].stage)
			map_end = reduce_end; /* a stage waits for the one before */
		map_end += sw_sched_aria_time(&m->map[bound], ms, 0);
		reduce_end =
		        fmax(map_end, reduce_end) + sw_sched_aria_time(&m->reduce[bound], 0, rs);
	}
	return reduce_end;
}

static double ctx_time(struct wf_ctx *c, int bound, uint32_t ms, uint32_t rs)
{
	johnson(c, ms, rs);
	if (bound == SW_ARIA_AVG)
		return (pipeline(c, SW_ARIA_LOW, ms, rs) + pipeline(c, SW_ARIA_UP, ms, rs)) / 2;
	return pipeline(c, bound, ms, rs);
}

int sw_sched_workflow_time(const struct sw_workflow *w, enum sw_aria_bound bound,
                           uint32_t map_slots, uint32_t reduce_slots, double *t)
{
	struct wf_ctx c;
	int rc;

	if (!t || (unsigned)bound > SW_ARIA_UP)
		return -EINVAL;
	rc = ctx_init(&c, w);
	if (rc)
		return rc;
	*t = ctx_time(&c, bound, map_slots, reduce_slots);
	ctx_fini(&c);
	return 0;
}

int sw_sched_workflow_basic(const struct sw_workflow *w, enum sw_aria_bound bound,
                            struct sw_aria_model *m)
{
	if (!w || !w->jobs || !w->n_jobs || !m)
		return -EINVAL;
	*m = (struct sw_aria_model){0};
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		const struct sw_wf_job *j = &w->jobs[i];
		struct sw_aria_model one;

		if (!j->n_maps ||
		    sw_sched_aria_model(&j->profile, j->n_maps, j->n_reduces, bound, &one) < 0)
			return -EINVAL;
		m->a += one.a;
		m->b += one.b;
		m->c += one.c;
		m->n_maps = one.n_maps > m->n_maps ? one.n_maps : m->n_maps;
		m->n_reduces = one.n_reduces > m->n_reduces ? one.n_reduces : m->n_reduces;
	}
	return 0;
}

static bool feasible(struct wf_ctx *c, double time_left, uint32_t ms, uint32_t rs)
{
	return ms >= 1 && rs >= c->r_floor && ctx_time(c, SW_ARIA_AVG, ms, rs) <= time_left;
}

/* Algorithm 2 (the notes' 6.3): from the feasible (ms, rs), the fewest ms + rs that stay
 * feasible. The fewest reduce slots for a map count does not grow with it, so one walk of
 * the map counts with a falling reduce count visits O(ms + rs) points. */
static void refine(struct wf_ctx *c, double time_left, uint32_t ms, uint32_t rs,
                   uint32_t out[SW_KINDS])
{
	uint32_t mp = ms, rp = rs, r = rs, best_m = ms, best_r = rs;

	while (mp > 1 && feasible(c, time_left, mp - 1, rs))
		mp--; /* B = (mp, rs) */
	while (rp > c->r_floor && feasible(c, time_left, ms, rp - 1))
		rp--; /* C = (ms, rp) */
	if (ms + rp < best_m + best_r) {
		best_m = ms;
		best_r = rp;
	}
	if (mp + rs < best_m + best_r) {
		best_m = mp;
		best_r = rs;
	}
	for (uint32_t m = mp; m <= ms; m++) {
		while (r > rp && feasible(c, time_left, m, r - 1))
			r--;
		if (m + r < best_m + best_r) {
			best_m = m;
			best_r = r;
		}
	}
	out[SW_MAP] = best_m;
	out[SW_REDUCE] = best_r;
}

int sw_sched_workflow_slots(const struct sw_workflow *w, double time_left, uint32_t basic[SW_KINDS],
                            uint32_t refined[SW_KINDS])
{
	struct sw_aria_model m;
	struct wf_ctx c;
	int rc;

	if (!basic || !refined || !isfinite(time_left))
		return -EINVAL;
	rc = sw_sched_workflow_basic(w, SW_ARIA_AVG, &m);
	if (rc)
		return rc;
	rc = sw_sched_aria_min_slots(&m, time_left, basic);
	refined[SW_MAP] = basic[SW_MAP];
	refined[SW_REDUCE] = basic[SW_REDUCE];
	if (rc)
		return rc;
	rc = ctx_init(&c, w);
	if (rc)
		return rc;
	/* The basic model overestimates, so its pair meets the time under the refined one too;
	 * should rounding or the stage caps say otherwise, the basic pair stands. */
	if (feasible(&c, time_left, basic[SW_MAP], basic[SW_REDUCE]))
		refine(&c, time_left, basic[SW_MAP], basic[SW_REDUCE], refined);
	ctx_fini(&c);
	return 0;
}
