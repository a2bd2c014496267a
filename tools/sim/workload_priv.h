/* SPDX-License-Identifier: MIT */
/* Helpers shared by the workload loaders; not part of the public API. */
#ifndef SW_WORKLOAD_PRIV_H
#define SW_WORKLOAD_PRIV_H

#include "sw_workload.h"

/* Shuffle bytes one reducer is sized for: Hadoop's rule of thumb of about 1 GB per reducer. */
#define WL_SHUFFLE_PER_REDUCE (1ULL << 30)

/* The generator stream of the loaders that draw at random; never a job id's stream (job ids
 * are below 2^63), so a job's placement is independent of how jobs were drawn. */
#define WL_STREAM_DRAW UINT64_MAX

/* A growing job array, so loaders can add jobs without knowing their count. */
struct wl_jobs {
	struct sw_job_desc *v;
	size_t n, cap;
};

/* Appends a zeroed element of @p size bytes to the array *@p v (a typed pointer's address) of
 * *@p n elements, room for *@p cap, and returns it; NULL when memory runs out. WL_PUSH(&a) for
 * a struct with members v, n and cap (struct wl_jobs, struct wl_links). */
void *sw_sim_wl_push(void *v, size_t *n, size_t *cap, size_t size);
#define WL_PUSH(a) sw_sim_wl_push(&(a)->v, &(a)->n, &(a)->cap, sizeof(*(a)->v))

/* Hands the jobs to @p w, sorted by arrival (ties by id) as sw_workload promises. */
void sw_sim_wl_jobs_give(struct wl_jobs *a, struct sw_workload *w);

/* A workflow job's links as the mix gives them (workload_workflow.c): the job's id, the ids
 * of the jobs it reads, and its line for errors. */
struct wl_link {
	uint64_t job;
	uint64_t after[SW_WORKLOAD_MAX_AFTER];
	uint32_t n;
	unsigned line;
};

struct wl_links {
	struct wl_link *v;
	size_t n, cap;
};

/* Once @p w's jobs are sorted: each link's ids to indexes into w->jobs, every one a job of the
 * same workflow sorted before the job; the mix's workflow numbers (1 + number in
 * sw_job_desc.workflow while loading) to 1..n_workflows, each workflow of one user and one
 * deadline. Returns 0, -ENOMEM, or -EINVAL with "path:line: field 'after': ..." in @p err. */
int sw_sim_wl_workflows(struct sw_workload *w, const struct wl_links *links, const char *path,
                        struct sw_input_error *err);

/* Default reducer count: one per WL_SHUFFLE_PER_REDUCE, at most one wave and within the
 * bounds (SW_WORKLOAD_MAX_REDUCES, _MAX_REDUCE_NODES), at least one; 0 (a map-only job) when
 * nothing is shuffled. */
uint32_t sw_sim_wl_default_reduces(const struct sw_topology *t, uint64_t shuffle_bytes);

/* Maps of job @p j (sizes set): one per block of input; a job without input is a generator,
 * one map per block of what it emits (its shuffle, or its output when it shuffles nothing);
 * at least one. */
uint64_t sw_sim_wl_n_maps(const struct sw_job_desc *j, uint64_t block_bytes);

/* Fills @p err with "path:line: field 'field': reason"; line 0 and NULL field are left out. */
void sw_sim_wl_error(struct sw_input_error *err, const char *path, unsigned line, const char *field,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* ARIA's deadlines for its synthetic workloads: U[1, 3] x the time on the whole cluster. */
#define WL_DEADLINE_LO 1.0
#define WL_DEADLINE_HI 3.0

/* Gives every job a deadline: arrival + U[lo, hi] x its ARIA average time on every slot of
 * the cluster (deadline.c), drawn from a stream of its own. */
void sw_sim_wl_deadlines(struct sw_workload *w, double lo, double hi);

/* A line read by getline must end in a newline: a last line without one is taken as a file
 * cut short, in every format (a cut inside a number would otherwise load silently). Returns 0
 * or -EINVAL with "path:line: truncated line (no newline at the end)". */
int sw_sim_wl_line_complete(const char *buf, size_t len, const char *path, unsigned line,
                            struct sw_input_error *err);

/* The final component of @p path, for workload names. */
const char *sw_sim_wl_basename(const char *path);

#endif /* SW_WORKLOAD_PRIV_H */
