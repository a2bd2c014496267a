/* SPDX-License-Identifier: MIT */
/*
 * Task lengths that vary within a job (README.md, "Task lengths"): ARIA's synthetic workloads
 * draw every task's duration (maps N(100, 20) s, reduces N(300, 30) s), where a job's tasks
 * otherwise all compute their bytes at one rate. The draw depends only on the workload's
 * seed, the job's id and the task, so every policy, every attempt and the profile see the
 * same length.
 */
#include "rng.h"
#include "sw_workload.h"

/* Keeps the draws apart from the workload's placement and deadline streams of one seed. */
#define SPREAD_SALT 0x7370726561647363ULL

double sw_sim_task_factor(const struct sw_workload *w, const struct sw_job_desc *j, int kind,
                          uint32_t idx)
{
	const struct sw_task_spread *sp = &w->spread[j->bench];
	double cv = kind == SW_MAP ? sp->map_cv : sp->reduce_cv, f;
	uint64_t task = (j->id << 33) ^ ((uint64_t)kind << 32) ^ idx;
	struct rng r;

	if (!(cv > 0))
		return 1.0;
	rng_init(&r, w->seed ^ SPREAD_SALT, rng_splitmix64(&task));
	/* Truncated by drawing again: at ARIA's 0.2 a draw at or below 0 is 5 deviations out. */
	do
		f = 1.0 + cv * rng_normal(&r);
	while (!(f > 0));
	return f;
}
