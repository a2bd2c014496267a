/* SPDX-License-Identifier: MIT */
/* The ShuffleWatcher paper's synthetic mixes (its section 4, Tables 1 and 2). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "workload_priv.h"

/* Table 2: input size buckets and their shares of jobs. The paper gives no lower bound for
 * the first bucket nor an upper one for the last: we take 1 MB and 2 TB. */
static const struct {
	double lo, hi, percent;
} sizes[] = {
        {1e6, 100e6, 20},   {100e6, 1e9, 19},  {1e9, 20e9, 21},    {20e9, 100e9, 10},
        {100e9, 200e9, 10}, {200e9, 500e9, 7}, {500e9, 1000e9, 8}, {1000e9, SW_PAPER_MAX_INPUT, 5},
};

/* Shares of light, medium and heavy jobs in mix1..mix3 (paper section 5.5). */
static const double class_percent[3][SW_CLASSES] = {
        {20, 20, 60},
        {40, 20, 40},
        {60, 20, 20},
};

void sw_sim_paper_opts_default(struct sw_paper_opts *o)
{
	*o = (struct sw_paper_opts){
	        .mix = SW_MIX2,
	        .n_users = 30,
	        .n_queues = 3,
	        .mean_interarrival = 40,
	        .duration = 4 * 3600,
	        .input_scale = 0.1,
	        .block_bytes = SW_BLOCK_BYTES_DEFAULT,
	        .seed = 1,
	};
	sw_sim_topology_default(&o->topo);
}

/* Draws an index with probability proportional to weight(i); the weights need not sum to 1. */
static unsigned pick(struct rng *r, unsigned n, double (*weight)(unsigned, const void *),
                     const void *arg)
{
	double total = 0, x;
	unsigned i;

	for (i = 0; i < n; i++)
		total += weight(i, arg);
	x = rng_uniform(r) * total;
	for (i = 0; i + 1 < n; i++) {
		x -= weight(i, arg);
		if (x < 0)
			break;
	}
	/* Skip zero weights that rounding could otherwise land on at the end. */
	while (weight(i, arg) <= 0)
		i--;
	return i;
}

static double class_weight(unsigned i, const void *mix)
{
	return ((const double *)mix)[i];
}

static double bench_weight(unsigned i, const void *cls)
{
	const struct sw_bench *b = &sw_sim_bench_table(NULL)[i];

	return b->cls == *(const enum sw_job_class *)cls ? b->mix_percent : 0;
}

static double size_weight(unsigned i, const void *unused)
{
	(void)unused;
	return sizes[i].percent;
}

/* Log-uniform within a bucket: Table 2's buckets span decades, and sizes in real traces are
 * spread evenly on a log scale, not a linear one. */
static double input_size(struct rng *r)
{
	unsigned i = pick(r, sizeof(sizes) / sizeof(sizes[0]), size_weight, NULL);

	return sizes[i].lo * exp(rng_uniform(r) * log(sizes[i].hi / sizes[i].lo));
}

static int opts_valid(const struct sw_paper_opts *o)
{
	return o->mix >= SW_MIX1 && o->mix <= SW_MIX3 && o->n_users &&
	       o->n_users <= SW_SCHED_MAX_USERS && o->n_queues &&
	       o->n_queues <= SW_SCHED_MAX_QUEUES && o->mean_interarrival > 0 && o->duration >= 0 &&
	       isfinite(o->duration) && o->input_scale > 0 && o->input_scale <= 1e3 &&
	       o->block_bytes &&
	       SW_PAPER_MAX_INPUT * o->input_scale / o->block_bytes <= SW_WORKLOAD_MAX_MAPS &&
	       o->topo.n_racks && o->topo.nodes_per_rack;
}

int sw_sim_workload_paper(struct sw_workload *w, const struct sw_paper_opts *o)
{
	struct wl_jobs jobs = {0};
	unsigned n_bench;
	const struct sw_bench *table = sw_sim_bench_table(&n_bench);
	struct rng r;

	memset(w, 0, sizeof(*w));
	if (!opts_valid(o))
		return -EINVAL;
	rng_init(&r, o->seed, WL_STREAM_DRAW);
	for (double t = rng_exponential(&r, o->mean_interarrival); t < o->duration;
	     t += rng_exponential(&r, o->mean_interarrival)) {
		struct sw_job_desc *j = WL_PUSH(&jobs);
		enum sw_job_class cls;

		if (!j) {
			free(jobs.v);
			return -ENOMEM;
		}
		cls = pick(&r, SW_CLASSES, class_weight, class_percent[o->mix - 1]);
		j->id = jobs.n - 1;
		j->arrival = t;
		j->bench = pick(&r, n_bench, bench_weight, &cls);
		j->user = rng_below(&r, o->n_users);
		j->queue = j->user % o->n_queues;
		j->input_bytes = llround(input_size(&r) * o->input_scale);
		j->shuffle_bytes = llround(j->input_bytes * table[j->bench].shuffle_ratio);
		j->output_bytes = llround(j->shuffle_bytes * table[j->bench].output_ratio);
		j->n_reduces = sw_sim_wl_default_reduces(&o->topo, j->shuffle_bytes);
	}
	snprintf(w->name, sizeof(w->name), "paper-mix%d", (int)o->mix);
	w->topo = o->topo;
	w->n_users = o->n_users;
	w->n_queues = o->n_queues;
	w->block_bytes = o->block_bytes;
	w->seed = o->seed;
	sw_sim_wl_jobs_give(&jobs, w);
	sw_sim_wl_deadlines(w, WL_DEADLINE_LO, WL_DEADLINE_HI);
	return 0;
}
