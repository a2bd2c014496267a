/* SPDX-License-Identifier: MIT */
/* What every workload loader shares: the job array, the reducer rule, errors. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload_priv.h"

void *sw_sim_wl_push(void *v, size_t *n, size_t *cap, size_t size)
{
	unsigned char *a;

	memcpy(&a, v, sizeof(a)); /* v points at the array's typed pointer */
	if (*n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 16;

		a = realloc(a, ncap * size);
		if (!a)
			return NULL;
		memcpy(v, &a, sizeof(a));
		*cap = ncap;
	}
	memset(a + *n * size, 0, size);
	return a + (*n)++ * size;
}

static int by_arrival(const void *pa, const void *pb)
{
	const struct sw_job_desc *a = pa, *b = pb;

	if (a->arrival != b->arrival)
		return a->arrival < b->arrival ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

void sw_sim_wl_jobs_give(struct wl_jobs *a, struct sw_workload *w)
{
	qsort(a->v, a->n, sizeof(a->v[0]), by_arrival);
	w->jobs = a->v;
	w->n_jobs = a->n;
	memset(a, 0, sizeof(*a));
}

/* @p n reducers within the bounds on @p t, at least one. */
static uint32_t bound_reduces(const struct sw_topology *t, uint64_t n)
{
	uint64_t nodes = (uint64_t)t->n_racks * t->nodes_per_rack;

	if (n > SW_WORKLOAD_MAX_REDUCES)
		n = SW_WORKLOAD_MAX_REDUCES;
	if (nodes && n > SW_WORKLOAD_MAX_REDUCE_NODES / nodes)
		n = SW_WORKLOAD_MAX_REDUCE_NODES / nodes;
	return n ? (uint32_t)n : 1;
}

uint32_t sw_sim_wl_default_reduces(const struct sw_topology *t, uint64_t shuffle_bytes)
{
	uint64_t nodes = (uint64_t)t->n_racks * t->nodes_per_rack;
	uint64_t n = shuffle_bytes / WL_SHUFFLE_PER_REDUCE +
	             (shuffle_bytes % WL_SHUFFLE_PER_REDUCE != 0);
	uint64_t most = nodes * t->reduce_slots; /* one wave */

	/* Nothing to shuffle: a map-only job, whose maps write the output (Hadoop's zero
	 * reducers), rather than one reducer writing it all through one node's links. */
	if (!shuffle_bytes)
		return 0;
	return bound_reduces(t, n < most ? n : most);
}

void sw_sim_workload_set_reduces(struct sw_workload *w, uint32_t n)
{
	for (size_t i = 0; i < w->n_jobs; i++)
		if (w->jobs[i].shuffle_bytes)
			w->jobs[i].n_reduces = bound_reduces(&w->topo, n);
}

uint64_t sw_sim_wl_n_maps(const struct sw_job_desc *j, uint64_t block_bytes)
{
	uint64_t bytes = j->input_bytes     ? j->input_bytes
	                 : j->shuffle_bytes ? j->shuffle_bytes
	                                    : j->output_bytes;
	uint64_t n = bytes / block_bytes + (bytes % block_bytes != 0);

	return n ? n : 1;
}

void sw_sim_wl_error(struct sw_input_error *err, const char *path, unsigned line, const char *field,
                     const char *fmt, ...)
{
	size_t len = sizeof(err->msg);
	int n = line ? snprintf(err->msg, len, "%s:%u: ", path, line)
	             : snprintf(err->msg, len, "%s: ", path);
	va_list ap;

	if (field && n >= 0 && (size_t)n < len)
		n += snprintf(err->msg + n, len - n, "field '%s': ", field);
	if (n < 0 || (size_t)n >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, len - n, fmt, ap);
	va_end(ap);
}

int sw_sim_wl_line_complete(const char *buf, size_t len, const char *path, unsigned line,
                            struct sw_input_error *err)
{
	if (len && buf[len - 1] == '\n')
		return 0;
	sw_sim_wl_error(err, path, line, NULL, "truncated line (no newline at the end)");
	return -EINVAL;
}

const char *sw_sim_wl_basename(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

void sw_sim_workload_free(struct sw_workload *w)
{
	free(w->jobs);
	free(w->tx);
	w->jobs = NULL;
	w->tx = NULL;
	w->n_jobs = 0;
	w->tx_n = 0;
}
