/* SPDX-License-Identifier: MIT */
/*
 * The map outputs the agent's store holds, listed in the Auth of every registration. After a
 * restart the durable store has reopened what the last run put (shuffle/README.md, "Durable
 * stores"), and the controller keeps each finished map whose partitions are all listed
 * instead of running it again: losing a node's map output would re-run every map it held.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent_int.h"
#include "link.h"

struct part_ref {
	uint64_t job;
	uint32_t map;
};

struct parts {
	struct part_ref *v;
	size_t n, cap;
};

static int part_add(void *arg, uint64_t job, uint32_t map, uint32_t part)
{
	struct parts *ps = arg;
	(void)part;
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 256;
		struct part_ref *v = realloc(ps->v, cap * sizeof(*v));
		if (v == NULL)
			return -ENOMEM;
		ps->v = v;
		ps->cap = cap;
	}
	ps->v[ps->n++] = (struct part_ref){job, map};
	return 0;
}

static int by_job_then_map(const void *a, const void *b)
{
	const struct part_ref *x = a, *y = b;
	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	return (x->map > y->map) - (x->map < y->map);
}

/* One output per run of (job, map) in the sorted ps, into h; @return outputs left out. */
static size_t outputs_count(const struct parts *ps, struct sw_agent_held *h)
{
	size_t left_out = 0;
	for (size_t i = 0, end; i < ps->n; i = end) {
		const struct part_ref *r = &ps->v[i];
		for (end = i + 1; end < ps->n && !by_job_then_map(&ps->v[end], r); end++)
			;
		if (h->n == SW_WIRE_MAX_HELD) {
			left_out++;
			continue;
		}
		SwWire__HeldOutput *o = &h->outputs[h->n];
		sw_wire__held_output__init(o);
		o->job = r->job;
		o->map = r->map;
		o->partitions = (uint32_t)(end - i);
		h->ptrs[h->n++] = o;
	}
	return left_out;
}

int sw_agent_held_list(struct sw_agent *ag, struct sw_agent_held *h, SwWire__Auth *auth)
{
	struct parts ps = {0};
	size_t cap;
	*h = (struct sw_agent_held){0};
	int rc = sw_shuffle_store_each_part(ag->store, part_add, &ps);
	if (!rc && ps.n) {
		qsort(ps.v, ps.n, sizeof(*ps.v), by_job_then_map);
		cap = ps.n < SW_WIRE_MAX_HELD ? ps.n : SW_WIRE_MAX_HELD;
		h->outputs = calloc(cap, sizeof(*h->outputs));
		h->ptrs = calloc(cap, sizeof(*h->ptrs));
		if (h->outputs == NULL || h->ptrs == NULL)
			rc = -ENOMEM;
	}
	if (!rc && ps.n) {
		size_t left_out = outputs_count(&ps, h);
		if (left_out)
			sw_agent_log(ag,
			             "the store holds %zu map outputs; the controller hears of the "
			             "first %u (the others run again where needed)",
			             h->n + left_out, SW_WIRE_MAX_HELD);
	}
	free(ps.v);
	if (rc) {
		sw_agent_held_free(h);
		sw_agent_log(ag, "listing the store's map outputs: %s (none reported)",
		             strerror(-rc));
	}
	auth->n_held = h->n;
	auth->held = h->ptrs;
	return rc;
}

void sw_agent_held_free(struct sw_agent_held *h)
{
	free(h->outputs);
	free(h->ptrs);
	*h = (struct sw_agent_held){0};
}
