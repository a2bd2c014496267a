/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "load.h"

void load_opts_default(struct load_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mix = "mix2";
	o->duration = 5;
	o->time_scale = 1;
	o->size_scale = 1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int load_paper(const struct load_opts *o, struct sw_workload *w, struct sw_input_error *err)
{
	struct sw_paper_opts po;

	sw_sim_paper_opts_default(&po);
	po.mix = (enum sw_paper_mix)(o->mix[3] - '0');
	po.duration = o->duration * 3600.0;
	if (o->seed)
		po.seed = o->seed;
	if (o->users)
		po.n_users = o->users;
	if (o->interarrival > 0)
		po.mean_interarrival = o->interarrival;
	po.input_scale *= o->size_scale;
	if (!(po.duration > 0 && po.duration <= SW_WORKLOAD_MAX_TIME)) {
		snprintf(err->msg, sizeof(err->msg),
		         "--duration must be above 0 and at most %.0f h",
		         SW_WORKLOAD_MAX_TIME / 3600);
		return -EINVAL;
	}
	if (SW_PAPER_MAX_INPUT * po.input_scale / po.block_bytes > SW_WORKLOAD_MAX_MAPS) {
		snprintf(err->msg, sizeof(err->msg),
		         "--size-scale %g: the largest job (2 TB x %g) would have %.0f maps, more "
		         "than "
		         "%u",
		         o->size_scale, po.input_scale,
		         ceil(SW_PAPER_MAX_INPUT * po.input_scale / po.block_bytes),
		         SW_WORKLOAD_MAX_MAPS);
		return -EINVAL;
	}
	if (po.duration / po.mean_interarrival > SW_PAPER_MAX_JOBS) {
		snprintf(err->msg, sizeof(err->msg),
		         "--duration %g h at one job per %g s is %.0f jobs, more than %u (raise "
		         "--interarrival or shorten --duration)",
		         o->duration, po.mean_interarrival, po.duration / po.mean_interarrival,
		         SW_PAPER_MAX_JOBS);
		return -EINVAL;
	}
	return sw_sim_workload_paper(w, &po);
}

int load_opts_equal(const struct load_opts *a, const struct load_opts *b)
{
	return !strcmp(a->mix, b->mix) && a->duration == b->duration && a->seed == b->seed &&
	       a->users == b->users && a->oversub == b->oversub &&
	       a->interarrival == b->interarrival && a->time_scale == b->time_scale &&
	       a->size_scale == b->size_scale && a->reduces == b->reduces &&
	       a->placement == b->placement && a->compute_scale == b->compute_scale &&
	       a->deadline_lo == b->deadline_lo && a->deadline_hi == b->deadline_hi &&
	       !strcmp(a->topology ? a->topology : "", b->topology ? b->topology : "") &&
	       !strcmp(a->transactional ? a->transactional : "",
	               b->transactional ? b->transactional : "");
}

int load_is_paper_mix(const char *mix)
{
	return !strcmp(mix, "mix1") || !strcmp(mix, "mix2") || !strcmp(mix, "mix3");
}

uint32_t load_users_for_jobs_per_user(const struct load_opts *o, double window_hours,
                                      double jobs_per_user)
{
	struct sw_paper_opts po;
	double mean, users;

	sw_sim_paper_opts_default(&po);
	mean = o->interarrival > 0 ? o->interarrival : po.mean_interarrival;
	users = window_hours * 3600 / mean / jobs_per_user;
	return users < 1 ? 1 : (uint32_t)(users + 0.5);
}

static int load_swim(const struct load_opts *o, struct sw_workload *w, struct sw_input_error *err)
{
	struct sw_swim_opts so;

	sw_sim_swim_opts_default(&so);
	so.time_scale = o->time_scale;
	so.size_scale = o->size_scale;
	if (o->seed)
		so.seed = o->seed;
	if (o->users)
		so.n_users = o->users;
	return sw_sim_workload_swim(w, o->mix, &so, err);
}

int load_mix_kind(const char *mix, char *msg, size_t len)
{
	if (load_is_paper_mix(mix))
		return LOAD_PAPER;
	if (ends_with(mix, ".tsv"))
		return LOAD_SWIM;
	if (ends_with(mix, ".jsonl"))
		return LOAD_JSONL;
	snprintf(msg, len, "--mix %s: not mix1, mix2, mix3, a .tsv SWIM trace or a .jsonl job mix",
	         mix);
	return -EINVAL;
}

/* A JSON mix at --time-scale: arrivals scaled, each deadline as far from its arrival (SWIM
 * traces scale at load; paper mixes have --interarrival). Order and workflows are kept. */
static void scale_arrivals(struct sw_workload *w, double x)
{
	for (size_t i = 0; i < w->n_jobs; i++) {
		struct sw_job_desc *j = &w->jobs[i];

		if (j->deadline > 0)
			j->deadline += j->arrival * (x - 1);
		j->arrival *= x;
	}
}

/* The model options that apply to every kind of mix, once it is loaded. */
static void shape(const struct load_opts *o, int kind, struct sw_workload *w)
{
	if (kind == LOAD_JSONL && o->time_scale != 1)
		scale_arrivals(w, o->time_scale);
	w->placement = o->placement;
	if (o->compute_scale > 0)
		w->compute_scale = o->compute_scale;
	if (o->reduces)
		sw_sim_workload_set_reduces(w, o->reduces);
	/* Deadlines drawn at load follow the job's reducers and compute; a JSON mix's are the
	 * file's. */
	if (o->deadline_lo > 0)
		sw_sim_workload_draw_deadlines(w, o->deadline_lo, o->deadline_hi);
	else if (kind != LOAD_JSONL && (o->reduces || o->compute_scale > 0))
		sw_sim_workload_redraw_deadlines(w);
}

int load_workload(const struct load_opts *o, struct sw_workload *w, struct sw_input_error *err)
{
	int kind = load_mix_kind(o->mix, err->msg, sizeof(err->msg));
	int rc;

	err->msg[0] = '\0';
	switch (kind) {
	case LOAD_PAPER:
		rc = load_paper(o, w, err);
		break;
	case LOAD_SWIM:
		rc = load_swim(o, w, err);
		break;
	case LOAD_JSONL:
		rc = sw_sim_workload_json(w, o->mix, err);
		break;
	default:
		return -EINVAL;
	}
	if (rc < 0) {
		if (!err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "%s: %s", o->mix, strerror(-rc));
		return rc;
	}
	if (o->topology) {
		struct sw_topology t;

		rc = sw_sim_topology_json(o->topology, &t, err);
		if (rc < 0) {
			sw_sim_workload_free(w);
			return rc;
		}
		w->topo = t;
	}
	if (o->oversub > 0) {
		const char *field;
		char why[128];

		w->topo.oversub = o->oversub;
		w->topo.uplink_bps = 0;
		if (sw_sim_topology_check(&w->topo, &field, why, sizeof(why)) < 0) {
			snprintf(err->msg, sizeof(err->msg), "--oversub %g: %s", o->oversub, why);
			sw_sim_workload_free(w);
			return -EINVAL;
		}
	}
	shape(o, kind, w);
	if (o->transactional) {
		rc = sw_sim_workload_transactional(w, o->transactional, err);
		if (rc < 0) {
			sw_sim_workload_free(w);
			return rc;
		}
	}
	return 0;
}
