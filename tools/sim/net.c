/* SPDX-License-Identifier: MIT */
/*
 * Max-min fair flow network.
 *
 * A recomputation solves only a set F of flows (with L, the links they cross) and keeps every
 * other flow at its rate, so F's flows share what the others leave on each link. F starts as
 * the flows that started; L always holds the links whose flows changed. The result is then
 * checked against the definition of max-min fairness (Bertsekas and Gallager): an allocation
 * within capacity is the max-min fair one, which is unique, if and only if every flow crosses
 * a saturated link on which no flow is faster (its bottleneck). Only flows on a link of L can
 * have lost their bottleneck: no other flow saw its rate, or any load or rate on its links,
 * change. A flow that fails the check joins F (with the faster flows that took its share) and
 * F is solved again. So F grows only as far as rates really change, usually a few links after
 * one flow starts or ends, whereas the connected component of the flow/link graph is the whole
 * cluster once flows cross the rack uplinks. When F grows past a bound, the update falls back
 * to solving the whole connected component, exact by construction (components share no link).
 * tests/sim/test_net.c checks both paths against a from-scratch recomputation and against a
 * plain reference on random flow sets.
 *
 * The component solve works on bottleneck groups: every flow belongs to the group of the link
 * that froze it last, and sim_net.cells counts each group's flows on each link. Progressive
 * filling then freezes a group with one pass over its column (the links its flows cross, with
 * counts) instead of a pass over its flows and their links, finds the component through the
 * cells instead of through every flow, and gives new rates only to groups whose level moved;
 * only the few flows that change group are handled one by one. A component of some 4,000
 * flows on the uplinks is a few dozen groups. It repeats the flow-level solve's subtractions,
 * one per flow, so its result is that solve's bit for bit (sw_sim_net_update_all() keeps the
 * flow-level one, the reference the tests compare it with).
 *
 * With a quantum (sw_sim_net_set_quantum), an approximation: the flows that start, and the
 * flows of every changed link that carries few (up to QUANTUM_MAX_FLOWS in all: NICs, usually),
 * share what the other flows leave (progressive filling over those flows alone, from each
 * link's load, which costs what they cross, not what shares their links); the changed links
 * wait in a pending set, and the connected components touching them are solved exactly at
 * the next multiple of the quantum. While a giant job's thousands of flows fill the uplinks,
 * every start or end changes all their rates, and both the local rounds and the component
 * solve cost those thousands; the quantum bounds that to one solve per component per
 * quantum. A new flow whose crowded link is saturated thus waits for the next multiple, and
 * capacity a flow frees on a crowded link is left to new flows until then; on a NIC the
 * flows share at once. tests/sim/test_net.c checks capacity between multiples and exactness
 * at them; tests/sim/test_sim.c bounds the effect on a whole replay.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cells.h"
#include "sim_heap.h"
#include "sim_net.h"

/* Relative tolerance of the bottleneck check: far above rounding error, far below a byte. */
#define TOL 1e-9
/* F past this many flows, or this many rounds: solving the whole component is cheaper. */
#define LOCAL_MAX_FLOWS  64
#define LOCAL_MAX_ROUNDS 16
/* With a quantum, the flows of a changed link join F between multiples while F stays within
 * this: enough for a NIC's flows, few enough that the filling costs no more than the flows
 * that started (16 against 64: 2.9 s and 4.6 s of CPU on FB-2009 jobs 1704-1719 at 1 s). */
#define QUANTUM_MAX_FLOWS 16

struct link {
	double cap;     /* bytes/s */
	double load;    /* sum of the rates of its flows */
	double maxrate; /* the fastest of its flows */
	double bytes;   /* carried up to time t */
	double t;
	uint32_t *flows;
	uint32_t n_flows, flows_cap;
	/* recomputation scratch */
	double left;   /* capacity not yet given to flows */
	double key;    /* fair share when last queued: a lower bound, shares only grow */
	uint32_t open; /* flows of F not yet frozen */
	uint32_t mark; /* epoch of the recomputation whose L holds it */
	uint8_t dirty;
	uint8_t pending; /* in sim_net.pending: its component's solve is deferred */
	/* its bottleneck group: the flows it froze when they were last solved */
	uint32_t *members;
	uint32_t n_members;
	uint8_t mixed; /* a member's rate may differ from level */
	double level;  /* the share the group solve last gave every member */
	uint32_t seen; /* epoch of the group solve that reached the group */
	uint32_t done; /* round of the group solve that froze the group */
};

struct flow {
	uint32_t links[SIM_NET_MAX_HOPS];
	uint32_t pos[SIM_NET_MAX_HOPS]; /* index in each link's flow list */
	uint8_t n_links, live;
	uint32_t mark;                   /* epoch of the recomputation whose F holds it */
	uint32_t frozen;                 /* solve round that froze it */
	uint32_t checked;                /* check round that looked at it */
	uint32_t group;                  /* the link of its bottleneck group, one of links[] */
	uint32_t gpos;                   /* index in the group's members */
	uint32_t cell[SIM_NET_MAX_HOPS]; /* its count in (links[k], group) of sim_net.cells */
	uint64_t seq; /* start order: the tie-break between equal completion times */
	double rate;
	double nrate;  /* rate being computed, while in F; its rate outside updates */
	double rem;    /* bytes left at time t */
	uint64_t size; /* bytes it was given, growths included */
	double t;
	double finish;
	void *owner;
};

struct sim_net {
	uint32_t n_nodes, n_racks, n_links;
	uint32_t *rack_of;
	uint64_t *rx; /* n_nodes x n_racks: bytes each node received, by the sender's rack */
	struct link *links;
	struct flow *flows;
	uint32_t flows_cap, free_head; /* free flow ids are chained through flows[].pos[0] */
	uint64_t seq;
	uint32_t epoch, round;
	struct sim_heap done;  /* flows by completion time */
	struct sim_heap share; /* links by fair share, during one solve */
	/* links of L kept off the share heap while their key is above `limit` (see next_share) */
	uint32_t *held, n_held;
	double limit;
	struct sim_cells cells; /* flows per (link, bottleneck group) */
	uint32_t *dirty, n_dirty;
	/* links whose component solve waits for `due`, a multiple of `quantum` (0: none) */
	uint32_t *pending, n_pending;
	double quantum, due;
	uint32_t *fresh, n_fresh; /* flows started since the last update */
	/* the sets F and L of one recomputation */
	uint32_t *set_flows, n_set_flows;
	uint32_t *set_links, n_set_links;
};

struct sim_net *sw_sim_net_create(const struct sw_cluster_spec *c)
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
	n->due = INFINITY;
	n->rack_of = calloc(c->n_nodes, sizeof(*n->rack_of));
	n->rx = calloc((size_t)c->n_nodes * c->n_racks, sizeof(*n->rx));
	n->links = calloc(n->n_links, sizeof(*n->links));
	n->dirty = calloc(n->n_links, sizeof(*n->dirty));
	n->pending = calloc(n->n_links, sizeof(*n->pending));
	n->set_links = calloc(n->n_links, sizeof(*n->set_links));
	n->held = calloc(n->n_links, sizeof(*n->held));
	if (!n->rack_of || !n->rx || !n->links || !n->dirty || !n->pending || !n->set_links ||
	    !n->held || sw_sim_cells_init(&n->cells, n->n_links)) {
		sw_sim_net_destroy(n);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < c->n_nodes; i++) {
		n->rack_of[i] = c->nodes[i].rack;
		n->links[sw_sim_net_link(n, SIM_LINK_NIC_TX, i)].cap = c->nodes[i].nic_bps / 8;
		n->links[sw_sim_net_link(n, SIM_LINK_NIC_RX, i)].cap = c->nodes[i].nic_bps / 8;
	}
	for (i = 0; i < c->n_racks; i++) {
		n->links[sw_sim_net_link(n, SIM_LINK_UP_OUT, i)].cap = c->racks[i].uplink_bps / 8;
		n->links[sw_sim_net_link(n, SIM_LINK_UP_IN, i)].cap = c->racks[i].uplink_bps / 8;
	}
	sw_sim_heap_init(&n->done);
	sw_sim_heap_init(&n->share);
	if (sw_sim_heap_reserve(&n->share, n->n_links)) {
		sw_sim_net_destroy(n);
		errno = ENOMEM;
		return NULL;
	}
	return n;
}

void sw_sim_net_destroy(struct sim_net *n)
{
	uint32_t i;

	if (!n)
		return;
	for (i = 0; n->links && i < n->n_links; i++) {
		free(n->links[i].flows);
		free(n->links[i].members);
	}
	sw_sim_cells_fini(&n->cells);
	sw_sim_heap_fini(&n->done);
	sw_sim_heap_fini(&n->share);
	free(n->rack_of);
	free(n->rx);
	free(n->links);
	free(n->flows);
	free(n->dirty);
	free(n->pending);
	free(n->set_links);
	free(n->held);
	free(n->set_flows);
	free(n->fresh);
	free(n);
}

uint32_t sw_sim_net_link(const struct sim_net *n, enum sim_link_kind kind, uint32_t idx)
{
	if (kind == SIM_LINK_NIC_TX || kind == SIM_LINK_NIC_RX)
		return 2 * idx + (uint32_t)kind;
	return 2 * (n->n_nodes + idx) + (uint32_t)(kind - SIM_LINK_UP_OUT);
}

uint32_t sw_sim_net_n_links(const struct sim_net *n)
{
	return n->n_links;
}

double sw_sim_net_link_capacity(const struct sim_net *n, uint32_t link)
{
	return n->links[link].cap;
}

double sw_sim_net_link_load(const struct sim_net *n, uint32_t link)
{
	return n->links[link].load;
}

double sw_sim_net_link_bytes(const struct sim_net *n, uint32_t link, double now)
{
	const struct link *l = &n->links[link];

	return l->bytes + l->load * (now - l->t);
}

uint64_t sw_sim_net_rx_bytes(const struct sim_net *n, uint32_t node, uint32_t src_rack)
{
	return n->rx[(size_t)node * n->n_racks + src_rack];
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

static int grow_ids(uint32_t **a, uint32_t cap)
{
	uint32_t *na = realloc(*a, (size_t)cap * sizeof(*na));

	if (!na)
		return -ENOMEM;
	*a = na;
	return 0;
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
	/* Nothing sized by the flow count grows later, so an update cannot fail. */
	if (grow_ids(&n->fresh, ncap) || grow_ids(&n->set_flows, ncap) ||
	    sw_sim_heap_reserve(&n->done, ncap) ||
	    sw_sim_cells_reserve(&n->cells, SIM_NET_MAX_HOPS * ncap))
		return -ENOMEM;
	memset(nf + n->flows_cap, 0, (size_t)(ncap - n->flows_cap) * sizeof(*nf));
	for (i = ncap; i-- > n->flows_cap;) {
		nf[i].pos[0] = n->free_head;
		n->free_head = i;
	}
	n->flows_cap = ncap;
	return 0;
}

/* Makes room for a flow on @p link: in its flow list, its group (only flows on it may join
 * it), its row of the cells (a group per flow at most) and its column (a flow of the group
 * crosses at most SIM_NET_MAX_HOPS links), all sized by the flow list's capacity. */
static int link_attach(struct sim_net *n, uint32_t link, uint32_t id, uint32_t *pos)
{
	struct link *l = &n->links[link];

	if (l->n_flows == l->flows_cap) {
		uint32_t ncap = l->flows_cap ? 2 * l->flows_cap : 4;
		uint32_t *nf = realloc(l->flows, (size_t)ncap * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		l->flows = nf;
		nf = realloc(l->members, (size_t)ncap * sizeof(*nf));
		if (!nf)
			return -ENOMEM;
		l->members = nf;
		if (sw_sim_cells_reserve_line(&n->cells, link, ncap, SIM_NET_MAX_HOPS * ncap))
			return -ENOMEM;
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

	links[k++] = sw_sim_net_link(n, SIM_LINK_NIC_TX, src);
	if (n->rack_of[src] != n->rack_of[dst]) {
		links[k++] = sw_sim_net_link(n, SIM_LINK_UP_OUT, n->rack_of[src]);
		links[k++] = sw_sim_net_link(n, SIM_LINK_UP_IN, n->rack_of[dst]);
	}
	links[k++] = sw_sim_net_link(n, SIM_LINK_NIC_RX, dst);
	return k;
}

static void flow_leave(struct sim_net *n, uint32_t id)
{
	struct flow *f = &n->flows[id];
	struct link *g = &n->links[f->group];
	uint32_t moved = g->members[--g->n_members];
	unsigned k;

	g->members[f->gpos] = moved;
	n->flows[moved].gpos = f->gpos;
	for (k = 0; k < f->n_links; k++)
		sw_sim_cells_dec(&n->cells, f->cell[k]);
}

static void flow_enter(struct sim_net *n, uint32_t id, uint32_t link)
{
	struct flow *f = &n->flows[id];
	struct link *g = &n->links[link];
	unsigned k;

	f->group = link;
	f->gpos = g->n_members;
	g->members[g->n_members++] = id;
	for (k = 0; k < f->n_links; k++)
		f->cell[k] = sw_sim_cells_inc(&n->cells, f->links[k], link);
}

/* Moves flow @p id to the bottleneck group of @p link, a link of its path. */
static void flow_join(struct sim_net *n, uint32_t id, uint32_t link)
{
	if (n->flows[id].group == link)
		return;
	flow_leave(n, id);
	flow_enter(n, id, link);
}

/* Opens a flow of @p bytes over the @p n_links links of @p links (its route) at @p now. */
static int flow_open(struct sim_net *n, const uint32_t *links, unsigned n_links, uint64_t bytes,
                     double now, void *owner, uint32_t *id)
{
	struct flow *f;
	uint32_t fid;
	unsigned k;

	if (flows_reserve(n))
		return -ENOMEM;
	fid = n->free_head;
	f = &n->flows[fid];
	n->free_head = f->pos[0];
	memset(f, 0, sizeof(*f));
	f->n_links = (uint8_t)n_links;
	memcpy(f->links, links, n_links * sizeof(*links));
	for (k = 0; k < f->n_links; k++) {
		if (link_attach(n, f->links[k], fid, &f->pos[k])) {
			while (k--)
				link_detach(n, &n->links[f->links[k]], f->pos[k]);
			f->pos[0] = n->free_head;
			n->free_head = fid;
			return -ENOMEM;
		}
	}
	for (k = 0; k < f->n_links; k++)
		mark_dirty(n, f->links[k]);
	/* Any link of its path will do until a solve freezes it. */
	flow_enter(n, fid, f->links[0]);
	n->links[f->links[0]].mixed = 1;
	f->live = 1;
	f->seq = n->seq++;
	f->rem = (double)bytes;
	f->size = bytes;
	f->t = now;
	f->finish = INFINITY;
	f->owner = owner;
	/* Only a hint: a started flow outside F fails the check and joins it anyway. */
	if (n->n_fresh < n->flows_cap)
		n->fresh[n->n_fresh++] = fid;
	*id = fid;
	return 0;
}

int sw_sim_net_flow_start(struct sim_net *n, uint32_t src, uint32_t dst, uint64_t bytes, double now,
                          void *owner, uint32_t *id)
{
	uint32_t links[SIM_NET_MAX_HOPS];

	if (src >= n->n_nodes || dst >= n->n_nodes || src == dst || !bytes)
		return -EINVAL;
	return flow_open(n, links, route(n, src, dst, links), bytes, now, owner, id);
}

int sw_sim_net_flow_start_rack(struct sim_net *n, uint32_t src_rack, uint32_t dst, uint64_t bytes,
                               double now, void *owner, uint32_t *id)
{
	uint32_t links[3];

	if (src_rack >= n->n_racks || dst >= n->n_nodes || src_rack == n->rack_of[dst] || !bytes)
		return -EINVAL;
	links[0] = sw_sim_net_link(n, SIM_LINK_UP_OUT, src_rack);
	links[1] = sw_sim_net_link(n, SIM_LINK_UP_IN, n->rack_of[dst]);
	links[2] = sw_sim_net_link(n, SIM_LINK_NIC_RX, dst);
	return flow_open(n, links, 3, bytes, now, owner, id);
}

/* Brings the flow's remaining bytes to @p now. */
static void flow_settle(struct flow *f, double now)
{
	f->rem -= f->rate * (now - f->t);
	if (f->rem < 0)
		f->rem = 0;
	f->t = now;
}

void sw_sim_net_flow_grow(struct sim_net *n, uint32_t id, uint64_t bytes, double now)
{
	struct flow *f = &n->flows[id];

	flow_settle(f, now);
	f->rem += (double)bytes;
	f->size += bytes;
	if (f->rate > 0) {
		f->finish = now + f->rem / f->rate;
		sw_sim_heap_update(&n->done, id, f->finish, f->seq);
	}
}

void sw_sim_net_flow_end(struct sim_net *n, uint32_t id, double now)
{
	struct flow *f = &n->flows[id];
	/* The last hop is the receiver's NIC (2 * dst + RX); the first the sender's NIC (2 * src +
	 * TX) or, for a flow from a rack, its uplink (2 * (n_nodes + rack) + OUT). */
	uint32_t first = f->links[0] / 2, dst = f->links[f->n_links - 1] / 2;
	uint32_t src_rack = first < n->n_nodes ? n->rack_of[first] : first - n->n_nodes;
	uint64_t left;
	unsigned k;

	/* The receiver counts what landed, in whole bytes: all of a completed flow. */
	flow_settle(f, now);
	left = (uint64_t)llround(f->rem);
	n->rx[(size_t)dst * n->n_racks + src_rack] += f->size - (left < f->size ? left : f->size);
	sw_sim_heap_remove(&n->done, id);
	flow_leave(n, id);
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

void *sw_sim_net_flow_owner(const struct sim_net *n, uint32_t id)
{
	return n->flows[id].owner;
}

double sw_sim_net_flow_rate(const struct sim_net *n, uint32_t id)
{
	return n->flows[id].rate;
}

unsigned sw_sim_net_flow_path(const struct sim_net *n, uint32_t id,
                              uint32_t links[SIM_NET_MAX_HOPS])
{
	const struct flow *f = &n->flows[id];

	memcpy(links, f->links, sizeof(f->links));
	return f->n_links;
}

int sw_sim_net_dirty(const struct sim_net *n)
{
	return n->n_dirty != 0;
}

int sw_sim_net_set_quantum(struct sim_net *n, double quantum)
{
	if (!(quantum >= 0 && quantum <= SW_SIM_MAX_NET_QUANTUM))
		return -EINVAL;
	n->quantum = quantum;
	return 0;
}

double sw_sim_net_due(const struct sim_net *n)
{
	return n->due;
}

double sw_sim_net_next(const struct sim_net *n, uint32_t *id)
{
	*id = sim_heap_top(&n->done);
	return sim_heap_top_key(&n->done);
}

static void flow_set_rate(struct sim_net *n, uint32_t id, double rate, double now)
{
	struct flow *f = &n->flows[id];

	if (f->rate == rate)
		return;
	flow_settle(f, now);
	f->rate = rate;
	f->finish = rate > 0 ? now + f->rem / rate : INFINITY;
	if (sim_heap_contains(&n->done, id))
		sw_sim_heap_update(&n->done, id, f->finish, f->seq);
	else
		sw_sim_heap_push(&n->done, id, f->finish, f->seq); /* cannot fail: reserved */
}

static void set_add_link(struct sim_net *n, uint32_t link, double now)
{
	struct link *l = &n->links[link];

	if (l->mark == n->epoch)
		return;
	l->mark = n->epoch;
	link_settle(l, now); /* its load may change from now on */
	n->set_links[n->n_set_links++] = link;
}

static void set_add_flow(struct sim_net *n, uint32_t id, double now)
{
	struct flow *f = &n->flows[id];
	unsigned k;

	if (f->mark == n->epoch)
		return;
	f->mark = n->epoch;
	n->set_flows[n->n_set_flows++] = id;
	for (k = 0; k < f->n_links; k++)
		set_add_link(n, f->links[k], now);
}

static double rate_now(const struct sim_net *n, const struct flow *f)
{
	return f->mark == n->epoch ? f->nrate : f->rate;
}

/* A flow frozen at share @p s by link @p l: its rate goes on every link's load, and is taken
 * from what its other links have left to share. A link whose last open flow this was leaves
 * the queue at once: it is usually a NIC far down the heap, which costs a sift of a level or
 * two there, against a whole descent from the top if it waited to surface (most of a
 * component's NICs close so, before the solve reaches their share). */
static void take_share(struct sim_net *n, const struct flow *f, double s, const struct link *l)
{
	unsigned k;

	for (k = 0; k < f->n_links; k++) {
		struct link *m = &n->links[f->links[k]];

		m->load += s;
		if (s > m->maxrate)
			m->maxrate = s;
		if (m == l)
			continue;
		m->left = m->left > s ? m->left - s : 0;
		if (!--m->open)
			sw_sim_heap_remove(&n->share, f->links[k]);
	}
}

/* Freezes flow @p id at rate @p s, bottlenecked at @p link, whose group it joins (the caller
 * closes the link). */
static void freeze(struct sim_net *n, uint32_t id, double s, uint32_t link)
{
	struct flow *f = &n->flows[id];

	f->frozen = n->round;
	f->nrate = s;
	flow_join(n, id, link);
	n->links[link].mixed = 1;
	take_share(n, f, s, &n->links[link]);
}

/* Queues the links of L that carry flows of F by fair share, from what the flows outside F
 * leave (@p whole: F holds every flow on them); those whose share is above @p limit are held
 * back until the solve gets there (next_share). */
static void queue_links(struct sim_net *n, int whole, double limit)
{
	uint32_t i, j;

	for (i = 0; i < n->n_set_links; i++) {
		struct link *l = &n->links[n->set_links[i]];

		l->left = l->cap;
		l->open = whole ? l->n_flows : 0;
		l->load = 0;
		l->maxrate = 0;
		for (j = 0; !whole && j < l->n_flows; j++) {
			const struct flow *f = &n->flows[l->flows[j]];

			if (f->mark == n->epoch) {
				l->open++;
				continue;
			}
			l->left -= f->rate;
			l->load += f->rate;
			if (f->rate > l->maxrate)
				l->maxrate = f->rate;
		}
		if (l->left < 0)
			l->left = 0;
		if (!l->open)
			continue;
		l->key = l->left / l->open;
		if (l->key <= limit)
			sw_sim_heap_append(&n->share, n->set_links[i], l->key, n->set_links[i]);
		else
			n->held[n->n_held++] = n->set_links[i];
	}
	n->limit = limit;
	sw_sim_heap_heapify(&n->share);
}

/* Queues the held links whose key is within twice the larger of the limit and the heap's
 * least key, and raises the limit to that; drops those whose flows are all frozen. */
static void release_held(struct sim_net *n)
{
	double top = sim_heap_top_key(&n->share);
	double limit = 2 * (isinf(top) || top < n->limit ? n->limit : top);
	uint32_t i, kept = 0;

	if (!(limit > 0))
		limit = INFINITY;
	for (i = 0; i < n->n_held; i++) {
		uint32_t id = n->held[i];
		const struct link *l = &n->links[id];

		if (!l->open)
			continue;
		if (l->key <= limit)
			sw_sim_heap_append(&n->share, id, l->key, id);
		else
			n->held[kept++] = id;
	}
	n->n_held = kept;
	n->limit = limit;
	sw_sim_heap_heapify(&n->share);
}

/* Takes the queued link of least fair share, with open flows, off the queue. @return it, with
 * its share in *@p share, or SIM_HEAP_NONE. Every held link's key is above the limit, so while
 * the heap's least key is within it, that entry is the least of all, held or not: the links
 * come off (and are re-keyed) in the order one heap of every link would give, and the result
 * is the same to the last bit. Holding back the links whose share is far above the levels
 * the solve reaches (most NICs) spares their sifts in and out of the heap. */
static uint32_t next_share(struct sim_net *n, double *share)
{
	uint32_t top;

	for (;;) {
		struct link *l;
		double s;

		top = sim_heap_top(&n->share);
		if (n->n_held && (top == SIM_HEAP_NONE || sim_heap_top_key(&n->share) > n->limit)) {
			release_held(n);
			continue;
		}
		if (top == SIM_HEAP_NONE)
			break;
		l = &n->links[top];
		if (!l->open) {
			sw_sim_heap_remove(&n->share, top);
			continue;
		}
		s = l->left / l->open;
		if (s > l->key) {
			l->key = s;
			sw_sim_heap_update(&n->share, top, s, top);
			continue;
		}
		sw_sim_heap_remove(&n->share, top);
		*share = s;
		return top;
	}
	return SIM_HEAP_NONE;
}

/* Progressive filling of F over L, on what the flows outside F leave of each link. Shares only
 * grow as flows freeze ((c - s) / (k - 1) >= c / k when s <= c / k), so a queued key is a lower
 * bound and a link whose share grew is simply queued again when it surfaces. It also sums each
 * link's load and fastest rate as it goes, which the check needs: a separate pass over every
 * flow of L would cost as much again. @p whole: F holds every flow on L's links (a component
 * solve), so no flow outside F takes capacity and the pass over each link's flows is skipped.
 * The queue is built in one O(|L|) heapify, and dropped once every flow is frozen: the links
 * still queued then (most NICs, usually) carry no open flow, and popping them one by one would
 * cost a log |L| sift each. */
static void solve(struct sim_net *n, int whole)
{
	uint32_t j, top, unfrozen = n->n_set_flows;
	double s;

	n->round++;
	queue_links(n, whole, INFINITY);
	while (unfrozen && (top = next_share(n, &s)) != SIM_HEAP_NONE) {
		struct link *l = &n->links[top];

		for (j = 0; j < l->n_flows; j++) {
			const struct flow *f = &n->flows[l->flows[j]];

			if (f->mark != n->epoch || f->frozen == n->round)
				continue;
			freeze(n, l->flows[j], s, top);
			unfrozen--;
		}
		l->open = 0;
	}
	sw_sim_heap_clear(&n->share);
}

static int has_bottleneck(const struct sim_net *n, const struct flow *f)
{
	double r = rate_now(n, f);
	unsigned k;

	for (k = 0; k < f->n_links; k++) {
		const struct link *m = &n->links[f->links[k]];

		if (m->load >= m->cap * (1 - TOL) && r >= m->maxrate * (1 - TOL))
			return 1;
	}
	return 0;
}

/* Adds to F the flows that fail the bottleneck check: a flow outside F itself (it must speed
 * up), for a flow of F the faster flows outside F on its links (they must slow down).
 * Stops at the first failure that finds F past LOCAL_MAX_FLOWS: the update then solves the
 * whole component, the same whichever flows joined, and checking on would cost
 * O(flows of F x flows on their links) for nothing.
 * @return how many flows failed; *@p joined: how many joined F. */
static uint32_t check(struct sim_net *n, double now, uint32_t *joined)
{
	uint32_t i, j, k, q, before = n->n_set_flows, nl = n->n_set_links, failed = 0;

	n->round++;
	for (i = 0; i < nl && !(failed && n->n_set_flows > LOCAL_MAX_FLOWS); i++) {
		struct link *l = &n->links[n->set_links[i]];

		for (j = 0; j < l->n_flows && !(failed && n->n_set_flows > LOCAL_MAX_FLOWS); j++) {
			uint32_t id = l->flows[j];
			struct flow *f = &n->flows[id];

			if (f->checked == n->round)
				continue;
			f->checked = n->round;
			if (has_bottleneck(n, f))
				continue;
			failed++;
			if (f->mark != n->epoch) {
				set_add_flow(n, id, now);
				continue;
			}
			for (k = 0; k < f->n_links; k++) {
				struct link *m = &n->links[f->links[k]];

				for (q = 0; q < m->n_flows; q++) {
					struct flow *g = &n->flows[m->flows[q]];

					if (g->mark != n->epoch && g->rate > f->nrate * (1 + TOL))
						set_add_flow(n, m->flows[q], now);
				}
			}
		}
	}
	*joined = n->n_set_flows - before;
	return failed;
}

/* F := every flow of the components that touch L, L := their links. */
static void close_component(struct sim_net *n, double now)
{
	uint32_t i, j;

	for (i = 0; i < n->n_set_links; i++) {
		struct link *l = &n->links[n->set_links[i]];

		for (j = 0; j < l->n_flows; j++)
			set_add_flow(n, l->flows[j], now);
	}
}

/* L := every link of the components that touch L, through the groups: a link's row of the
 * cells names the groups of its flows, a group's column every link its flows cross, and each
 * flow crosses its group's link. @return how many flows those components hold, with the
 * lowest level above 0 their groups had in *@p low (0: none). */
static uint32_t close_groups(struct sim_net *n, double now, double *low)
{
	uint32_t i, j, k, flows = 0;

	*low = 0;
	for (i = 0; i < n->n_set_links; i++) {
		const struct sim_line *row = &n->cells.rows[n->set_links[i]];

		for (j = 0; j < row->n; j++) {
			uint32_t g = n->cells.cell[row->cells[j]].col;
			const struct sim_line *col = &n->cells.cols[g];

			if (n->links[g].seen == n->epoch)
				continue;
			n->links[g].seen = n->epoch;
			flows += n->links[g].n_members;
			if (n->links[g].level > 0 && (!*low || n->links[g].level < *low))
				*low = n->links[g].level;
			for (k = 0; k < col->n; k++)
				set_add_link(n, n->cells.cell[col->cells[k]].row, now);
		}
	}
	return flows;
}

/* Sets a rate outside F: as apply() does, nrate keeps it, since check() reads the nrate of
 * the flows it adds to F. */
static void give_rate(struct sim_net *n, uint32_t id, double s, double now)
{
	n->flows[id].nrate = s;
	flow_set_rate(n, id, s, now);
}

/* Freezes every open flow on @p link at share @p s and gives it that rate: first its group,
 * through the group's column (per link, as many subtractions and additions of s as it has
 * flows of the group, in the same order as freezing them one by one would make, so that the
 * result is the flow-level solve's to the last bit), then the flows on it whose groups are
 * still open, which join its group. @return how many flows it froze. */
static uint32_t freeze_group(struct sim_net *n, uint32_t link, double s, double now)
{
	struct link *l = &n->links[link];
	const struct sim_line *col = &n->cells.cols[link];
	uint32_t i, j, frozen = l->open, others = l->open - l->n_members;

	for (i = 0; i < col->n; i++) {
		const struct sim_cell *c = &n->cells.cell[col->cells[i]];
		struct link *m = &n->links[c->row];

		for (j = 0; j < c->count; j++) {
			m->load += s;
			if (m != l)
				m->left = m->left > s ? m->left - s : 0;
		}
		if (s > m->maxrate)
			m->maxrate = s;
		if (m != l && !(m->open -= c->count))
			sw_sim_heap_remove(&n->share, c->row);
	}
	/* Members keep their rate while the group keeps its level: most groups, in a solve. */
	if (l->mixed || l->level != s)
		for (i = 0; i < l->n_members; i++)
			give_rate(n, l->members[i], s, now);
	l->level = s;
	l->mixed = 0;
	l->done = n->round;
	for (j = 0; others && j < l->n_flows; j++) {
		uint32_t id = l->flows[j];
		const struct flow *f = &n->flows[id];

		if (f->group == link || n->links[f->group].done == n->round)
			continue;
		others--;
		flow_join(n, id, link);
		take_share(n, f, s, l);
		give_rate(n, id, s, now);
	}
	l->open = 0;
	return frozen;
}

/* Solves the components that touch L at the level of bottleneck groups: the progressive
 * filling of solve(n, 1), whose per-flow work (collecting the flows, freezing each on each of
 * its links, applying rates that did not change) becomes per-group work, and whose results it
 * equals bit for bit. Any assignment of flows to groups gives the same result; the last
 * solve's makes flows that must change group few. Only the links whose share is within the
 * groups' lowest last level are queued at first, and the others as the solve's levels rise
 * to theirs: most links of a component (the NICs of flows the uplinks hold back) see all
 * their flows frozen before that, and never enter the heap. */
static void solve_groups(struct sim_net *n, double now)
{
	uint32_t unfrozen, top;
	double s, limit;

	unfrozen = close_groups(n, now, &limit);
	n->round++;
	queue_links(n, 1, limit);
	while (unfrozen && (top = next_share(n, &s)) != SIM_HEAP_NONE)
		unfrozen -= freeze_group(n, top, s, now);
	sw_sim_heap_clear(&n->share);
	n->n_held = 0;
}

static void apply(struct sim_net *n, double now)
{
	uint32_t i;

	for (i = 0; i < n->n_set_flows; i++)
		flow_set_rate(n, n->set_flows[i], n->flows[n->set_flows[i]].nrate, now);
}

static void begin(struct sim_net *n)
{
	uint32_t i;

	n->epoch++;
	n->n_set_flows = 0;
	n->n_set_links = 0;
	for (i = 0; i < n->n_dirty; i++)
		n->links[n->dirty[i]].dirty = 0;
}

/* Progressive filling of F over what the flows outside F leave, from each link's load less
 * F's own rates: a pass over F's links per frozen level, never over the flows that share
 * them. */
static void fill_fresh(struct sim_net *n, double now)
{
	uint32_t i, unfrozen = n->n_set_flows;
	unsigned k;

	for (i = 0; i < n->n_set_flows; i++) {
		const struct flow *f = &n->flows[n->set_flows[i]];

		for (k = 0; k < f->n_links; k++)
			n->links[f->links[k]].load -= f->rate;
	}
	for (i = 0; i < n->n_set_links; i++) {
		struct link *l = &n->links[n->set_links[i]];

		l->left = l->cap > l->load ? l->cap - l->load : 0;
		l->open = 0;
	}
	for (i = 0; i < n->n_set_flows; i++) {
		const struct flow *f = &n->flows[n->set_flows[i]];

		for (k = 0; k < f->n_links; k++)
			n->links[f->links[k]].open++;
	}
	n->round++;
	while (unfrozen) {
		double s = INFINITY;
		uint32_t best = 0;

		for (i = 0; i < n->n_set_links; i++) {
			const struct link *l = &n->links[n->set_links[i]];

			if (l->open && l->left / l->open < s) {
				s = l->left / l->open;
				best = n->set_links[i];
			}
		}
		for (i = 0; i < n->n_set_flows; i++) {
			struct flow *f = &n->flows[n->set_flows[i]];
			int crosses = 0;

			for (k = 0; k < f->n_links; k++)
				crosses |= f->links[k] == best;
			if (f->frozen == n->round || !crosses)
				continue;
			freeze(n, n->set_flows[i], s, best);
			unfrozen--;
		}
		n->links[best].open = 0;
	}
	apply(n, now);
}

/* The approximate update: the flows that started, and every flow on a changed link that
 * carries few (a NIC, usually), share at once what the others leave them; every changed link
 * waits for the component solve at the next multiple of the quantum. */
static void provisional(struct sim_net *n, double now)
{
	uint32_t i, j;

	for (i = 0; i < n->n_fresh; i++)
		if (n->flows[n->fresh[i]].live)
			set_add_flow(n, n->fresh[i], now);
	n->n_fresh = 0;
	for (i = 0; i < n->n_dirty; i++) {
		struct link *l = &n->links[n->dirty[i]];

		if (!l->pending) {
			l->pending = 1;
			n->pending[n->n_pending++] = n->dirty[i];
		}
		if (n->n_set_flows + l->n_flows > QUANTUM_MAX_FLOWS)
			continue;
		for (j = 0; j < l->n_flows; j++)
			set_add_flow(n, l->flows[j], now);
	}
	n->n_dirty = 0;
	fill_fresh(n, now);
	if (isinf(n->due))
		n->due = (floor(now / n->quantum) + 1) * n->quantum;
}

void sw_sim_net_update(struct sim_net *n, double now)
{
	uint32_t i, rounds = 0;
	int due = n->n_pending && now >= n->due;

	if (!n->n_dirty && !due)
		return;
	begin(n);
	if (n->quantum > 0 && !due) {
		provisional(n, now);
		return;
	}
	for (i = 0; i < n->n_dirty; i++)
		set_add_link(n, n->dirty[i], now);
	n->n_dirty = 0;
	for (i = 0; i < n->n_fresh; i++)
		if (n->flows[n->fresh[i]].live)
			set_add_flow(n, n->fresh[i], now);
	n->n_fresh = 0;
	if (due) {
		for (i = 0; i < n->n_pending; i++) {
			n->links[n->pending[i]].pending = 0;
			set_add_link(n, n->pending[i], now);
		}
		n->n_pending = 0;
		n->due = INFINITY;
		solve_groups(n, now);
		return;
	}
	for (;;) {
		uint32_t joined;

		solve(n, 0);
		if (!check(n, now, &joined))
			break;
		/* No flow to add means rounding defeated the check: take the exact path. */
		if (!joined || n->n_set_flows > LOCAL_MAX_FLOWS || ++rounds == LOCAL_MAX_ROUNDS) {
			solve_groups(n, now);
			return;
		}
	}
	apply(n, now);
}

void sw_sim_net_update_all(struct sim_net *n, double now)
{
	uint32_t i;

	begin(n);
	n->n_dirty = 0;
	n->n_fresh = 0;
	for (i = 0; i < n->n_pending; i++)
		n->links[n->pending[i]].pending = 0;
	n->n_pending = 0;
	n->due = INFINITY;
	for (i = 0; i < n->n_links; i++)
		set_add_link(n, i, now);
	close_component(n, now);
	solve(n, 1);
	apply(n, now);
}
