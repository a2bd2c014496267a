/* SPDX-License-Identifier: MIT */
/*
 * SARP, shuffle-aware reduce placement (ShuffleWatcher Figure 6). When a job's reduces are
 * enabled, each rack's preferred number of reduces is the job's reduce count times the
 * fraction of its intermediate data the rack holds; before map_completion_threshold of the
 * maps are done, SAMP's TentativeReducePerRack stands in. NASS then launches reduces of a
 * shuffle-heavy job on a rack only while fewer than that number have run there (Figure 3,
 * lines 8 and 13). A reduce on rack r fetches the share of the data outside r, so placing
 * reduces in proportion to the data leaves S * (1 - sum f_r^2) crossing racks instead of
 * S * (1 - 1/racks) for an even spread.
 */
#include <math.h>
#include <stdlib.h>

#include "nass.h"

int sw_sched_nass_rank_cmp(const void *a, const void *b)
{
	const struct nass_rank *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	if (x->tie != y->tie)
		return x->tie < y->tie ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

void sw_sched_sarp_split(struct nass_sched *ns, uint32_t n, const double *weight, uint32_t n_racks,
                         uint32_t *out)
{
	double sum = 0;
	uint32_t given = 0, n_rank = 0;

	for (uint32_t r = 0; r < n_racks; r++)
		sum += weight[r];
	for (uint32_t r = 0; r < n_racks; r++) {
		double share = sum > 0 ? n * weight[r] / sum : 0;

		out[r] = (uint32_t)floor(share);
		given += out[r];
		if (weight[r] > 0)
			ns->rank[n_rank++] = (struct nass_rank){share - out[r], 0, r};
	}
	/* Rounding leaves fewer than n_rank tasks: one more for the largest remainders. */
	qsort(ns->rank, n_rank, sizeof(*ns->rank), sw_sched_nass_rank_cmp);
	for (uint32_t i = 0; given < n && i < n_rank; i++, given++)
		out[ns->rank[i].id]++;
}

bool sw_sched_sarp_outputs_ready(const struct sw_sched *s, const struct sched_job *j)
{
	double mct = ceil(s->cfg.map_completion_threshold * j->n_tasks[SW_MAP]);

	return j->done[SW_MAP] >= mct && j->output_bytes > 0;
}

void sw_sched_sarp_run(struct sw_sched *s, struct sched_job *j)
{
	struct nass_sched *ns = s->pick_priv;
	struct nass_job *nj = j->nass;

	nj->sarp_outputs = sw_sched_sarp_outputs_ready(s, j);
	if (!nj->sarp_outputs) {
		for (uint32_t r = 0; r < s->n_racks; r++)
			nj->preferred[r] = nj->tentative[r];
		return;
	}
	for (uint32_t r = 0; r < s->n_racks; r++)
		ns->weight[r] = (double)nj->rack_out[r];
	sw_sched_sarp_split(ns, j->n_tasks[SW_REDUCE], ns->weight, s->n_racks, nj->preferred);
}
