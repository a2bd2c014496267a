/* SPDX-License-Identifier: MIT */
/*
 * SAMP, shuffle-aware map placement (ShuffleWatcher Figure 4), once per job at submission.
 * Racks are sorted by how much of the job's input they hold (a map counts for every rack
 * with one of its replicas); ties go to the rack fewer live jobs already prefer, which is
 * how Figure 5's two jobs with data on both racks end up on different racks. The rack set
 * grows in that order while the estimated cross-rack traffic falls:
 *
 *   traffic(R) = remote map input (maps with no replica in R)
 *              + S * (1 - sum over R of f_r^2)
 *
 * where S = ShuffleInputRatio * input is the expected shuffle and f_r the share of the maps
 * rack r runs. Nodes free up at about the same rate everywhere (the paper's Figure 5
 * argument), so f_r is r's share of R's map slots; the shuffle term is what crosses racks
 * when SARP then places reduces in proportion to the map output. Replicas are used first:
 * a map is remote only if none of its replicas is in R, and adding a rack stops as soon as
 * the shuffle it spreads outweighs the remote reads it saves.
 */
#include <stdlib.h>
#include <string.h>

#include "nass.h"

double sw_sched_samp_input_per_rack(const struct sw_sched *s, const struct sched_job *j)
{
	struct nass_sched *ns = s->pick_priv;
	double total = 0;

	memset(ns->rack_in, 0, s->n_racks * sizeof(*ns->rack_in));
	for (uint32_t m = 0; m < j->n_tasks[SW_MAP]; m++) {
		const struct sched_map *map = &j->maps[m];

		total += (double)map->input_bytes;
		for (int r = 0; r < map->n_replicas; r++) {
			uint32_t rack = s->nodes[map->replicas[r]].rack;
			bool seen = false;

			for (int q = 0; q < r; q++)
				seen |= s->nodes[map->replicas[q]].rack == rack;
			if (!seen)
				ns->rack_in[rack] += (double)map->input_bytes;
		}
	}
	return total;
}

/* Marks the maps with a replica on @p rack covered; @return the input they bring. */
static double cover_rack(struct sched_job *j, struct nass_sched *ns, uint32_t rack)
{
	/* SAMP runs before any map launches, so every group's cursor is still at its start. */
	const struct loc_bucket *b = sw_sched_loc_index_find(&j->by_rack, rack);
	double gained = 0;

	for (uint32_t i = b ? b->cur : 0; b && i < b->end; i++) {
		uint32_t m = j->by_rack.maps[i];

		if (!ns->covered[m]) {
			ns->covered[m] = 1;
			gained += (double)j->maps[m].input_bytes;
		}
	}
	return gained;
}

uint32_t sw_sched_samp_choose(struct sw_sched *s, struct sched_job *j, double ratio)
{
	struct nass_sched *ns = s->pick_priv;
	double input = sw_sched_samp_input_per_rack(s, j), shuffle = ratio * input, remote = input;
	double best = 0, slots = 0, slots_sq = 0;
	uint32_t n_rank = 0, chosen = 0;

	memset(ns->map_rack, 0, s->n_racks);
	memset(ns->weight, 0, s->n_racks * sizeof(*ns->weight));
	memset(ns->covered, 0, j->n_tasks[SW_MAP]);
	for (uint32_t r = 0; r < s->n_racks; r++)
		if (ns->map_slots[r] > 0) /* a rack without map slots cannot run the maps */
			ns->rank[n_rank++] =
			        (struct nass_rank){ns->rack_in[r], ns->rack_jobs[r], r};
	qsort(ns->rank, n_rank, sizeof(*ns->rank), sw_sched_nass_rank_cmp);
	for (uint32_t k = 0; k < n_rank && j->n_tasks[SW_MAP] > 0; k++) {
		uint32_t r = ns->rank[k].id;
		double traffic;

		remote -= cover_rack(j, ns, r);
		slots += ns->map_slots[r];
		slots_sq += (double)ns->map_slots[r] * ns->map_slots[r];
		traffic = remote + shuffle * (1 - slots_sq / (slots * slots));
		if (k > 0 && traffic >= best)
			break;
		best = traffic;
		ns->map_rack[r] = 1;
		chosen++;
	}
	slots = 0;
	for (uint32_t r = 0; r < s->n_racks; r++)
		slots += ns->map_rack[r] ? ns->map_slots[r] : 0;
	for (uint32_t r = 0; r < s->n_racks; r++)
		ns->weight[r] = ns->map_rack[r] ? ns->map_slots[r] / slots : 0;
	return chosen;
}
