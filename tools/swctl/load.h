/* SPDX-License-Identifier: MIT */
/* Turning a --mix argument and its options into a workload. */
#ifndef SWCTL_LOAD_H
#define SWCTL_LOAD_H

#include "sw_workload.h"

struct load_opts {
	const char *mix;               /* mix1|mix2|mix3, a SWIM .tsv trace or a .jsonl job mix */
	double duration;               /* paper mixes: hours of arrivals */
	uint64_t seed;                 /* 0: keep the source's default */
	uint32_t users;                /* 0: keep the source's default */
	double oversub;                /* 0: keep the topology's */
	double time_scale, size_scale; /* SWIM traces */
};

void load_opts_default(struct load_opts *o);

/* Loads the mix named by o->mix; returns 0 or a negative errno with err filled. */
int load_workload(const struct load_opts *o, struct sw_workload *w, struct sw_input_error *err);

#endif
