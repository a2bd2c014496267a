/* SPDX-License-Identifier: MIT */
/*
 * What the deadline policies need from a mix: each job's ARIA profile, as the job would run
 * alone on the idle cluster (what ARIA's profiler records on an earlier run), and deadlines
 * for the mixes that carry none (ARIA's rule: U[1, 3] x the job's time on the whole cluster).
 */
#include "rng.h"
#include "sw_sched_aria.h"
#include "workload_priv.h"

/* Stream of the deadline draws, apart from every job's placement stream (ids < 2^63). */
#define WL_STREAM_DEADLINE (UINT64_MAX - 1)

/* The min, mean and max compute time of @p j's @p n tasks of kind @p kind, each @p full
 * seconds but the last, @p last, stretched by its own factor (spread.c). */
static void spread(const struct sw_workload *w, const struct sw_job_desc *j, int kind, uint32_t n,
                   double full, double last, double *min, double *avg, double *max)
{
	double sum = 0;

	for (uint32_t i = 0; i < n; i++) {
		double d = (i + 1 < n ? full : last) * sw_sim_task_factor(w, j, kind, i);

		*min = i == 0 || d < *min ? d : *min;
		*max = i == 0 || d > *max ? d : *max;
		sum += d;
	}
	*avg = sum / n;
}

void sw_sim_workload_profile(const struct sw_workload *w, const struct sw_job_desc *j,
                             struct sw_job_profile *p)
{
	const struct sw_bench *b = &sw_sim_bench_table(NULL)[j->bench];
	const struct sw_task_spread *sp = &w->spread[j->bench];
	double map_rate = b->map_rate / sw_sim_workload_compute_scale(w);
	double reduce_rate = b->reduce_rate / sw_sim_workload_compute_scale(w);
	uint32_t n = sw_sim_workload_n_maps(w, j);
	uint64_t first = j->input_bytes < w->block_bytes ? j->input_bytes : w->block_bytes;
	/* a generator's maps (no input) read nothing; a map-only job has no reducer */
	uint64_t last = j->input_bytes ? j->input_bytes - (uint64_t)(n - 1) * w->block_bytes : 0;
	double per_reduce = j->n_reduces ? (double)j->shuffle_bytes / j->n_reduces : 0;
	double slots = (double)w->topo.n_racks * w->topo.nodes_per_rack * w->topo.map_slots;
	double shuffle = per_reduce / (w->topo.nic_bps / 8);
	double reduce_min;

	*p = (struct sw_job_profile){
	        .map_min = (double)last / map_rate,
	        .map_avg = (double)j->input_bytes / n / map_rate,
	        .map_max = (double)first / map_rate,
	        /* Reducers fetch while maps run: after the last map wave only that wave's
	         * share of the partition is left to fetch. */
	        .shuffle_first_avg = shuffle * (n > slots ? slots / n : 1),
	        .shuffle_first_max = shuffle * (n > slots ? slots / n : 1),
	        .shuffle_avg = shuffle,
	        .shuffle_max = shuffle,
	        .reduce_avg = per_reduce / reduce_rate,
	        .reduce_max = per_reduce / reduce_rate,
	        .map_input_avg = (double)j->input_bytes / n,
	};
	/* With a spread the profiler sees every task's own length. */
	if (sp->map_cv > 0)
		spread(w, j, SW_MAP, n, (double)first / map_rate, (double)last / map_rate,
		       &p->map_min, &p->map_avg, &p->map_max);
	if (sp->reduce_cv > 0 && j->n_reduces)
		spread(w, j, SW_REDUCE, j->n_reduces, p->reduce_avg, p->reduce_avg, &reduce_min,
		       &p->reduce_avg, &p->reduce_max);
}

void sw_sim_workload_redraw_deadlines(struct sw_workload *w)
{
	sw_sim_wl_deadlines(w, WL_DEADLINE_LO, WL_DEADLINE_HI);
}

void sw_sim_workload_draw_deadlines(struct sw_workload *w, double lo, double hi)
{
	sw_sim_wl_deadlines(w, lo, hi);
}

void sw_sim_wl_deadlines(struct sw_workload *w, double lo, double hi)
{
	const struct sw_topology *t = &w->topo;
	uint32_t nodes = t->n_racks * t->nodes_per_rack;
	struct rng r;

	rng_init(&r, w->seed, WL_STREAM_DEADLINE);
	for (size_t i = 0; i < w->n_jobs; i++) {
		struct sw_job_desc *j = &w->jobs[i];
		struct sw_job_profile p;
		struct sw_aria_model m;
		double factor = lo + (hi - lo) * rng_uniform(&r);

		sw_sim_workload_profile(w, j, &p);
		sw_sched_aria_model(&p, sw_sim_workload_n_maps(w, j), j->n_reduces, SW_ARIA_AVG,
		                    &m);
		j->deadline = j->arrival + factor * sw_sched_aria_time(&m, nodes * t->map_slots,
		                                                       nodes * t->reduce_slots);
	}
}
