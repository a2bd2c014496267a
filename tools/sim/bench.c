/* SPDX-License-Identifier: MIT */
/*
 * The benchmark table of the ShuffleWatcher paper (Table 1). The paper gives only names,
 * classes and shares; the ratios, rates and demands are ours, chosen from the PUMA
 * characterisation of these benchmarks. Each number and its reason: README.md, "Workloads".
 */
#include <string.h>

#include "sw_workload.h"

#define MB 1e6

/* clang-format off */
static const struct sw_bench benches[] = {
	/* name                    class            shuffle output  map/s    reduce/s  % */
	{ "terasort",              SW_CLASS_HEAVY,  1.02,   0.98,   20 * MB, 15 * MB,  5,
	  { 1, 1.5, 0 }, { 1, 2, 0 }, { 0, 0, 0 } },
	{ "ranked-inverted-index", SW_CLASS_HEAVY,  1.2,    0.8,    10 * MB, 10 * MB, 10,
	  { 1, 1.5, 0 }, { 1, 2.5, 0 }, { 0, 0, 0 } },
	{ "selfjoin",              SW_CLASS_HEAVY,  1.6,    0.6,    12 * MB,  8 * MB, 10,
	  { 1, 1.5, 0 }, { 1, 4, 0 }, { 0, 0, 0 } },
	{ "word-sequence-count",   SW_CLASS_HEAVY,  2.5,    0.3,     5 * MB, 10 * MB, 10,
	  { 1, 2, 0 },   { 1, 2, 0 }, { 0, 0, 0 } },
	{ "adjacency-list",        SW_CLASS_HEAVY,  1.3,    1.0,    10 * MB, 10 * MB,  5,
	  { 1, 1.5, 0 }, { 1, 3, 0 }, { 0, 0, 0 } },
	{ "inverted-index",        SW_CLASS_MEDIUM, 0.5,    0.5,     6 * MB, 10 * MB, 10,
	  { 1, 1.5, 0 }, { 1, 2, 0 }, { 0, 0, 0 } },
	{ "term-vector",           SW_CLASS_MEDIUM, 0.35,   0.3,     5 * MB, 10 * MB, 10,
	  { 1, 2, 0 },   { 1, 2, 0 }, { 0, 0, 0 } },
	{ "grep",                  SW_CLASS_LIGHT,  0.001,  1.0,    30 * MB, 30 * MB, 15,
	  { 1, 1, 0 },   { 1, 1, 0 }, { 0, 0, 0 } },
	{ "wordcount",             SW_CLASS_LIGHT,  0.05,   0.5,     5 * MB, 15 * MB, 10,
	  { 1, 1.5, 0 }, { 1, 1.5, 0 }, { 0, 0, 0 } },
	{ "classification",        SW_CLASS_LIGHT,  0.01,   1.0,     3 * MB, 15 * MB,  5,
	  { 2, 2, 0 },   { 1, 1, 0 }, { 0, 0, 0 } },
	{ "histogram-movies",      SW_CLASS_LIGHT,  0.0001, 1.0,    15 * MB, 30 * MB,  5,
	  { 1, 1, 0 },   { 1, 1, 0 }, { 0, 0, 0 } },
	{ "histogram-ratings",     SW_CLASS_LIGHT,  0.0001, 1.0,    15 * MB, 30 * MB,  5,
	  { 1, 1, 0 },   { 1, 1, 0 }, { 0, 0, 0 } },
	/* Polo's GridMix jobs (thesis chapter 4, Table 4.2), for JSON mixes only: share 0, so
	 * no paper mix draws them and no SWIM job borrows them. Demands on his nodes of 2
	 * cores, 2 GB and one disk (io 1): map, reduce, and a reduce's while it copies (no
	 * CPU, the reduce's memory, I/O per map placed times parallelCopies, 5). */
	{ "gridmix-sort",          SW_CLASS_HEAVY,  1.0,    1.0,   2.7 * MB, 2.7 * MB,  0,
	  { 0.6, 0.5, 0.45 }, { 0.4, 1.2, 0.5 }, { 0, 1.2, 0.0075 } },
	{ "gridmix-combine",       SW_CLASS_LIGHT,  0.01,   1.0,  0.45 * MB, 0.45 * MB, 0,
	  { 0.5, 0.2, 0.1 },  { 0.2, 0.5, 0.1 }, { 0, 0.5, 0.00075 } },
	{ "gridmix-select",        SW_CLASS_LIGHT,  0.01,   1.0,   1.8 * MB, 1.8 * MB,  0,
	  { 0.3, 0.2, 0.2 },  { 0.2, 0.5, 0.1 }, { 0, 0.5, 0.00075 } },
};
/* clang-format on */

_Static_assert(sizeof(benches) / sizeof(benches[0]) <= SW_SIM_MAX_BENCH,
               "a workload's per-benchmark options must cover the table");

const struct sw_bench *sw_sim_bench_table(unsigned *count)
{
	if (count)
		*count = sizeof(benches) / sizeof(benches[0]);
	return benches;
}

double sw_sim_workload_compute_scale(const struct sw_workload *w)
{
	return w->compute_scale > 0 ? w->compute_scale : 1;
}

double sw_sim_job_work(const struct sw_workload *w, const struct sw_job_desc *j)
{
	const struct sw_bench *b = &benches[j->bench];

	return ((double)j->input_bytes / b->map_rate + (double)j->shuffle_bytes / b->reduce_rate) *
	       sw_sim_workload_compute_scale(w);
}

int sw_sim_bench_find(const char *name)
{
	for (unsigned i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		if (!strcmp(benches[i].name, name))
			return (int)i;
	return -1;
}
