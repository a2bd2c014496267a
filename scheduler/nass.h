/* SPDX-License-Identifier: MIT */
/*
 * Private: ShuffleWatcher's state (Ahmad et al., USENIX ATC'14), shared by its PICK (nass.c),
 * map placement (samp.c) and reduce placement (sarp.c).
 */
#ifndef SW_NASS_H
#define SW_NASS_H

#include "policy.h"

/* A job is shuffle-heavy when its ShuffleInputRatio exceeds this (Section 3.1). */
#define NASS_HEAVY_RATIO 1.0

/* Per job, one allocation: the struct, then the per-rack arrays, then planned[]. */
struct nass_job {
	double ratio;     /* ShuffleInputRatio */
	bool ratio_known; /* from the job's profile: never updated */
	bool enabled;     /* reduces enabled: the shuffle may begin, SARP has run */
	bool sarp_outputs;
	double window;        /* starvation window of the job's arrival */
	uint64_t out_input;   /* input bytes of the maps whose output is registered */
	uint64_t *rack_out;   /* registered map output bytes per rack */
	uint32_t *preferred;  /* PreferredReducesPerRack (TentativeReducePerRack until enabled) */
	uint32_t *tentative;  /* TentativeReducePerRack */
	uint32_t *reduces_on; /* reduces launched per rack */
	uint8_t *map_rack;    /* PreferredMapRacks membership */
	uint32_t *planned;    /* maps with no replica in PreferredMapRacks: they read remotely */
	uint32_t n_planned, planned_cur, n_map_racks;
};

/* Sort record for racks and remainders. */
struct nass_rank {
	double key;
	uint32_t tie, id;
};

/* NASS's view of one pool (a user under Fair and DRF). */
struct nass_pool {
	double skip_since[SW_KINDS]; /* sw-relaxed: since when it is passed over, NAN if not */
};

struct nass_sched {
	unsigned mech;       /* SW_MECH_* in use */
	uint32_t *map_slots; /* per rack */
	uint32_t *rack_jobs; /* live jobs whose PreferredMapRacks hold the rack: SAMP's tie-break */
	struct nass_pool *pools; /* by pool id */
	uint32_t n_pools;
	/* Scratch reused by every job add and SARP run. */
	double *rack_in, *weight;
	struct nass_rank *rank;
	uint8_t *map_rack, *covered;
	uint32_t covered_cap;
	struct sw_nass_stats stats;
};

/* samp.c: input bytes of @p j held by each rack (a map counts for every rack with one of its
 * replicas) into ns->rack_in; @return the job's input. */
double sw_sched_samp_input_per_rack(const struct sw_sched *s, const struct sched_job *j);

/* samp.c: PreferredMapRacks into ns->map_rack and the expected share of the job's map output
 * per rack into ns->weight; @return the number of racks chosen. */
uint32_t sw_sched_samp_choose(struct sw_sched *s, struct sched_job *j, double ratio);

/* sarp.c: splits @p n tasks over racks in proportion to @p weight (largest remainder, ties
 * to the lower rack), all to nothing when every weight is zero. */
void sw_sched_sarp_split(struct nass_sched *ns, uint32_t n, const double *weight, uint32_t n_racks,
                         uint32_t *out);

/* sarp.c: PreferredReducesPerRack of @p j, from its registered map outputs once
 * map_completion_threshold of its maps are done, else SAMP's tentative split. */
void sw_sched_sarp_run(struct sw_sched *s, struct sched_job *j);

/* sarp.c: are map_completion_threshold of @p j's maps done, with some output registered? */
bool sw_sched_sarp_outputs_ready(const struct sw_sched *s, const struct sched_job *j);

int sw_sched_nass_rank_cmp(const void *a, const void *b);

#endif /* SW_NASS_H */
