/* SPDX-License-Identifier: MIT */
/*
 * Workflows in a JSON Lines mix (README.md, "Workflows"): a job's "workflow" number and the
 * ids of the jobs it reads ("after"), kept aside while the lines are read and resolved to
 * workload indexes once the jobs are sorted, so that a link names a job that runs before.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "workload_priv.h"

/* (key, index) pairs, sorted by key then index. */
static int by_key(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	if (a[0] != b[0])
		return (a[0] > b[0]) - (a[0] < b[0]);
	return (a[1] > b[1]) - (a[1] < b[1]);
}

static size_t find(uint64_t (*pairs)[2], size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pairs[mid][0] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && pairs[lo][0] == key ? lo : n;
}

static int link_jobs(struct sw_workload *w, const struct wl_links *links, const char *path,
                     uint64_t (*pairs)[2], struct sw_input_error *err)
{
	for (size_t i = 0; i < w->n_jobs; i++) {
		pairs[i][0] = w->jobs[i].id;
		pairs[i][1] = i;
	}
	qsort(pairs, w->n_jobs, sizeof(*pairs), by_key);
	for (size_t l = 0; l < links->n; l++) {
		const struct wl_link *k = &links->v[l];
		struct sw_job_desc *j = &w->jobs[pairs[find(pairs, w->n_jobs, k->job)][1]];
		size_t self = (size_t)(j - w->jobs);

		for (uint32_t a = 0; a < k->n; a++) {
			size_t at = find(pairs, w->n_jobs, k->after[a]);

			if (at == w->n_jobs || pairs[at][1] >= self ||
			    w->jobs[pairs[at][1]].workflow != j->workflow) {
				sw_sim_wl_error(
				        err, path, k->line, "after",
				        "job %llu: must name a job of workflow %u that arrives "
				        "before it (an earlier arrival, or the same and a "
				        "smaller id)",
				        (unsigned long long)k->after[a], j->workflow - 1);
				return -EINVAL;
			}
			j->after[a] = (uint32_t)pairs[at][1];
		}
		j->n_after = k->n;
	}
	return 0;
}

/* Mix numbers to indexes 1..n_workflows; one user and one deadline (or none) each. */
static int number_workflows(struct sw_workload *w, const char *path, uint64_t (*pairs)[2],
                            struct sw_input_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < w->n_jobs; i++)
		if (w->jobs[i].workflow) {
			pairs[n][0] = w->jobs[i].workflow;
			pairs[n++][1] = i;
		}
	qsort(pairs, n, sizeof(*pairs), by_key);
	for (size_t i = 0; i < n; i++) {
		struct sw_job_desc *j = &w->jobs[pairs[i][1]];

		if (i && pairs[i][0] == pairs[i - 1][0]) {
			const struct sw_job_desc *first = &w->jobs[pairs[i - 1][1]];

			if (j->user != first->user || j->deadline != first->deadline) {
				sw_sim_wl_error(err, path, 0, "workflow",
				                "job %llu: workflow %llu runs as one user with one "
				                "deadline, and job %llu has another",
				                (unsigned long long)j->id,
				                (unsigned long long)pairs[i][0] - 1,
				                (unsigned long long)first->id);
				return -EINVAL;
			}
		} else {
			w->n_workflows++;
		}
		j->workflow =
		        w->n_workflows; /* the groups compare by pairs[][0], the mix's number */
	}
	return 0;
}

int sw_sim_wl_workflows(struct sw_workload *w, const struct wl_links *links, const char *path,
                        struct sw_input_error *err)
{
	uint64_t(*pairs)[2];
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < w->n_jobs; i++)
		n += w->jobs[i].workflow != 0;
	if (!n)
		return 0;
	pairs = malloc((w->n_jobs ? w->n_jobs : 1) * sizeof(*pairs));
	if (!pairs)
		return -ENOMEM;
	rc = link_jobs(w, links, path, pairs, err);
	if (!rc)
		rc = number_workflows(w, path, pairs, err);
	free(pairs);
	return rc;
}
