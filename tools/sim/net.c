/* SPDX-License-Identifier: MIT */
/*
 * Max-min fair flow network. The allocation of one connected component of the flow/link graph
 * depends only on that component, so after a change we recompute the union of the components
 * that touch the changed links and nothing else; the result is bit-identical to a recomputation
 * of the whole network because progressive filling visits the links of one component in the
 * same order either way (links pop by (fair share, link id), and shares of one component never
 * depend on another).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_heap.h"
#include "sim_net.h"

struct link {
	double cap;   /* bytes/s */
	double load;  /* sum of the rates of its flows */
	double bytes; /* carried up to time t */
	double t;
	uint32_t *flows;
	uint32_t n_flows, flows_cap;
	/* progressive-filling scratch */
	double left;   /* capacity not yet given to frozen flows */
	uint32_t open; /* flows not yet frozen */
	uint32_t mark; /* epoch of the last component search that reached it */
	uint8_t dirty;
};

struct flow {
	uint32_t links[SIM_NET_MAX_HOPS];
	uint32_t pos[SIM_NET_MAX_HOPS]; /* index in each link's flow list */
	uint8_t n_links, live;
	uint32_t mark, frozen;
	uint64_t seq; /* start order: the tie-break between equal completion times */
	double rate;
	double rem; /* bytes left at time t */
	double t;
	double finish;
	void *owner;
};

struct sim_net {
	uint32_t n_nodes, n_racks, n_links;
	uint32_t *rack_of;
	struct link *links;
	struct flow *flows;
	uint32_t flows_cap, free_head; /* free flow ids are chained through flows[].pos[0] */
	uint64_t seq;
	uint32_t epoch;
	struct sim_heap done;  /* flows by completion time */
	struct sim_heap share; /* links by fair share, during one recomputation */
	/* scratch of one recomputation */
	uint32_t *dirty, n_dirty;
	uint32_t *comp_links;
};

static int flow_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct sim_net *n = ctx;
	const struct flow *fa = &n->flows[a], *fb = &n->flows[b];

	if (fa->finish != fb->finish)
		return fa->finish < fb->finish;
	return fa->seq < fb->seq;
}

static double link_share(const struct link *l)
{
	return l->left / l->open;
}

static int link_before(const void *ctx, uint32_t a, uint32_t b)
{
	const struct sim_net *n = ctx;
	double sa = link_share(&n->links[a]), sb = link_share(&n->links[b]);

	if (sa != sb)
		return sa < sb;
	return a < b;
}

struct sim_net *sim_net_create(const struct sw_cluster_spec *c)
{
	struct sim_net *n;
	uint32_t i;

	if (!c || !c->n_nodes || !c->n_racks || !c->nodes || !c->racks) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < c->n_nodes; i++) {
		if (c->nodes[i].rack >= c->n_racks || !(c->nodes[i].nic_bps > 0)) {
			errno = EINVAL;
			return NULL;
		}
	}
	for (i = 0; i < c->n_racks; i++) {
		if (!(c->racks[i].uplink_bps > 0)) {
			errno = EINVAL;
			return NULL;
		}
	}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->n_nodes = c->n_nodes;
	n->n_racks = c->n_racks;
	n->n_links = 2 * (c->n_nodes + c->n_racks);
	n->free_head = SIM_FLOW_NONE;
	n->rack_of = calloc(c->n_nodes, sizeof(*n->rack_of));
	n->links = calloc(n->n_links, sizeof(*n->links));
	n->dirty = calloc(n->n_links, sizeof(*n->dirty));
	n->comp_links = calloc(n->n_links, sizeof(*n->comp_links));
	if (!n->rack_of || !n->links || !n->dirty || !n->comp_links) {
		sim_net_destroy(n);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < c->n_nodes; i++) {
		n->rack_of[i] = c->nodes[i].rack;
		n->links[sim_net_link(n, SIM_LINK_NIC_TX, i)].cap = c->nodes[i].nic_bps / 8;
		n->links[sim_net_link(n, SIM_LINK_NIC_RX, i)].cap = c->nodes[i].nic_bps / 8;
	}
	for (i = 0; i < c->n_racks; i++) {
		n->links[sim_net_link(n, SIM_LINK_UP_OUT, i)].cap = c->racks[i].uplink_bps / 8;
		n->links[sim_net_link(n, SIM_LINK_UP_IN, i)].cap = c->racks[i].uplink_bps / 8;
	}
	sim_heap_init(&n->done, flow_before, n);
	sim_heap_init(&n->share, link_before, n);
	if (sim_heap_reserve(&n->share, n->n_links)) {
		sim_net_destroy(n);
		errno = ENOMEM;
		return NULL;
	}
	return n;
}

void sim_net_destroy(struct sim_net *n)
{
	uint32_t i;

	if (!n)
		return;
	for (i = 0; n->links && i < n->n_links; i++)
		free(n->links[i].flows);
	sim_heap_fini(&n->done);
	sim_heap_fini(&n->share);
	free(n->rack_of);
	free(n->links);
	free(n->flows);
	free(n->dirty);
	free(n->comp_links);
	free(n);
}

uint32_t sim_net_link(const struct sim_net *n, enum sim_link_kind kind, uint32_t idx)
{
	if (kind == SIM_LINK_NIC_TX || kind == SIM_LINK_NIC_RX)
		return 2 * idx + (uint32_t)kind;
	return 2 * (n->n_nodes + idx) + (uint32_t)(kind - SIM_LINK_UP_OUT);
}

uint32_t sim_net_n_links(const struct sim_net *n)
{
	return n->n_links;
}

double sim_net_link_capacity(const struct sim_net *n, uint32_t link)
{
	return n->links[link].cap;
}

double sim_net_link_load(const struct sim_net *n, uint32_t link)
{
	return n->links[link].load;
}

double sim_net_link_bytes(const struct sim_net *n, uint32_t link, double now)
{
	const struct link *l = &n->links[link];

	return l->bytes + l->load * (now - l->t);
}

/* Brings the link's byte count to @p now so that its load may change. */
static void link_settle(struct link *l, double now)
{
	l->bytes += l->load * (now - l->t);
	l->t = now;
}

static void mark_dirty(struct sim_net *n, uint32_t link)
{
	if (!n->links[link].dirty) {
		n->links[link].dirty = 1;
		n->dirty[n->n_dirty++] = link;
	}
}

static int flows_reserve(struct sim_net *n)
{
	uint32_t ncap, i;
	struct flow *nf;

	if (n->free_head != SIM_FLOW_NONE)
		return 0;
	ncap = n->flows_cap ? 2 * n->flows_cap : 256;
	nf = realloc(n->flows, (size_t)ncap * sizeof(*nf));
	if (!nf)
		return -ENOMEM;
	n->flows = nf;
	/* The completion heap never has to grow later, so rate changes cannot fail. */
	if (sim_heap_reserve(&n->done, ncap))
		return -ENOMEM;
	memset(nf + n->flows_cap, 0, (size_t)(ncap - n->flows_cap) * sizeof(*nf));
	for (i = ncap; i-- > n->flows_cap;) {
		nf[i].pos[0] = n->free_head;
		n->free_head = i;
	}
	n->flows_cap = ncap;
	return 0;
}

static int link_attach(struct link *l, uint32_t id, uint32_t *pos)
{
	if (l->n_flows == l->flows_cap) {
		uint32_t ncap = l->flows_cap ? 2 * l->flows_cap : 4;
		uint32_t *nf = realloc(l->flows, (size_t)ncap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		l->flows = nf;
		l->flows_cap = ncap;
	}
	*pos = l->n_flows;
	l->flows[l->n_flows++] = id;
	return 0;
}

static void link_detach(struct sim_net *n, struct link *l, uint32_t pos)
{
	uint32_t moved = l->flows[--l->n_flows];
	struct flow *m;
	unsigned k;

	if (pos == l->n_flows)
		return;
	l->flows[pos] = moved;
	m = &n->flows[moved];
	for (k = 0; k < m->n_links; k++) {
		if (&n->links[m->links[k]] == l) {
			m->pos[k] = pos;
			return;
		}
	}
}

static unsigned route(const struct sim_net *n, uint32_t src, uint32_t dst,
                      uint32_t links[SIM_NET_MAX_HOPS])
{
	unsigned k = 0;

	links[k++] = sim_net_link(n, SIM_LINK_NIC_TX, src);
	if (n->rack_of[src] != n->rack_of[dst]) {
		links[k++] = sim_net_link(n, SIM_LINK_UP_OUT, n->rack_of[src]);
		links[k++] = sim_net_link(n, SIM_LINK_UP_IN, n->rack_of[dst]);
	}
	links[k++] = sim_net_link(n, SIM_LINK_NIC_RX, dst);
	return k;
}

int sim_net_flow_start(struct sim_net *n, uint32_t src, uint32_t dst, uint64_t bytes, double now,
                       void *owner, uint32_t *id)
{
	struct flow *f;
	uint32_t fid;
	unsigned k;

	if (src >= n->n_nodes || dst >= n->n_nodes || src == dst || !bytes)
		return -EINVAL;
	if (flows_reserve(n))
		return -ENOMEM;
	fid = n->free_head;
	f = &n->flows[fid];
	n->free_head = f->pos[0];
	memset(f, 0, sizeof(*f));
	f->n_links = (uint8_t)route(n, src, dst, f->links);
	for (k = 0; k < f->n_links; k++) {
		if (link_attach(&n->links[f->links[k]], fid, &f->pos[k])) {
			while (k--)
				link_detach(n, &n->links[f->links[k]], f->pos[k]);
			f->pos[0] = n->free_head;
			n->free_head = fid;
			return -ENOMEM;
		}
	}
	for (k = 0; k < f->n_links; k++)
		mark_dirty(n, f->links[k]);
	f->live = 1;
	f->seq = n->seq++;
	f->rem = (double)bytes;
	f->t = now;
	f->finish = INFINITY;
	f->owner = owner;
	*id = fid;
	return 0;
}

/* Brings the flow's remaining bytes to @p now. */
static void flow_settle(struct flow *f, double now)
{
	f->rem -= f->rate * (now - f->t);
	if (f->rem < 0)
		f->rem = 0;
	f->t = now;
}

void sim_net_flow_grow(struct sim_net *n, uint32_t id, uint64_t bytes, double now)
{
	struct flow *f = &n->flows[id];

	flow_settle(f, now);
	f->rem += (double)bytes;
	if (f->rate > 0) {
		f->finish = now + f->rem / f->rate;
		sim_heap_fix(&n->done, id);
	}
}

void sim_net_flow_end(struct sim_net *n, uint32_t id, double now)
{
	struct flow *f = &n->flows[id];
	unsigned k;

	sim_heap_remove(&n->done, id);
	for (k = 0; k < f->n_links; k++) {
		struct link *l = &n->links[f->links[k]];

		link_settle(l, now);
		l->load -= f->rate;
		link_detach(n, l, f->pos[k]);
		mark_dirty(n, f->links[k]);
	}
	f->live = 0;
	f->pos[0] = n->free_head;
	n->free_head = id;
}

void *sim_net_flow_owner(const struct sim_net *n, uint32_t id)
{
	return n->flows[id].owner;
}

double sim_net_flow_rate(const struct sim_net *n, uint32_t id)
{
	return n->flows[id].rate;
}

unsigned sim_net_flow_path(const struct sim_net *n, uint32_t id, uint32_t links[SIM_NET_MAX_HOPS])
{
	const struct flow *f = &n->flows[id];

	memcpy(links, f->links, sizeof(f->links));
	return f->n_links;
}

int sim_net_dirty(const struct sim_net *n)
{
	return n->n_dirty != 0;
}

double sim_net_next(const struct sim_net *n, uint32_t *id)
{
	uint32_t top = sim_heap_top(&n->done);

	if (top == SIM_HEAP_NONE)
		return INFINITY;
	*id = top;
	return n->flows[top].finish;
}

static void flow_set_rate(struct sim_net *n, uint32_t id, double rate, double now)
{
	struct flow *f = &n->flows[id];

	if (f->rate == rate)
		return;
	flow_settle(f, now);
	f->rate = rate;
	f->finish = now + f->rem / rate;
	if (sim_heap_contains(&n->done, id))
		sim_heap_fix(&n->done, id);
	else
		sim_heap_push(&n->done, id); /* cannot fail: reserved with the flow pool */
}

/* Progressive filling over links[0..nl) and the flows on them (a union of components). */
static void fill(struct sim_net *n, const uint32_t *links, uint32_t nl, double now)
{
	uint32_t i, j, k, top;

	n->epoch++;
	for (i = 0; i < nl; i++) {
		struct link *l = &n->links[links[i]];

		link_settle(l, now);
		l->left = l->cap;
		l->open = l->n_flows;
		if (l->open)
			sim_heap_push(&n->share, links[i]);
	}
	while ((top = sim_heap_top(&n->share)) != SIM_HEAP_NONE) {
		struct link *l = &n->links[top];
		double s = link_share(l);

		sim_heap_remove(&n->share, top);
		for (j = 0; j < l->n_flows; j++) {
			uint32_t fid = l->flows[j];
			struct flow *f = &n->flows[fid];

			if (f->frozen == n->epoch)
				continue;
			f->frozen = n->epoch;
			for (k = 0; k < f->n_links; k++) {
				struct link *m = &n->links[f->links[k]];

				if (m == l)
					continue;
				m->left = m->left > s ? m->left - s : 0;
				if (--m->open)
					sim_heap_fix(&n->share, f->links[k]);
				else
					sim_heap_remove(&n->share, f->links[k]);
			}
			flow_set_rate(n, fid, s, now);
		}
	}
	for (i = 0; i < nl; i++) {
		struct link *l = &n->links[links[i]];

		l->load = 0;
		for (j = 0; j < l->n_flows; j++)
			l->load += n->flows[l->flows[j]].rate;
	}
}

void sim_net_update(struct sim_net *n, double now)
{
	uint32_t head = 0, nl = 0, i, j, k;

	if (!n->n_dirty)
		return;
	/* Breadth-first search from the changed links over link -> flow -> link. */
	n->epoch++;
	for (i = 0; i < n->n_dirty; i++) {
		struct link *l = &n->links[n->dirty[i]];

		l->dirty = 0;
		l->mark = n->epoch;
		n->comp_links[nl++] = n->dirty[i];
	}
	n->n_dirty = 0;
	while (head < nl) {
		struct link *l = &n->links[n->comp_links[head++]];

		for (j = 0; j < l->n_flows; j++) {
			struct flow *f = &n->flows[l->flows[j]];

			if (f->mark == n->epoch)
				continue;
			f->mark = n->epoch;
			for (k = 0; k < f->n_links; k++) {
				struct link *m = &n->links[f->links[k]];

				if (m->mark != n->epoch) {
					m->mark = n->epoch;
					n->comp_links[nl++] = f->links[k];
				}
			}
		}
	}
	fill(n, n->comp_links, nl, now);
}

void sim_net_update_all(struct sim_net *n, double now)
{
	uint32_t i;

	for (i = 0; i < n->n_links; i++) {
		n->links[i].dirty = 0;
		n->comp_links[i] = i;
	}
	n->n_dirty = 0;
	fill(n, n->comp_links, n->n_links, now);
}
