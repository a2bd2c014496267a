/* SPDX-License-Identifier: MIT */
/*
 * Per-node reports to cumulative bytes per rack uplink.
 *
 * A node's counters are folded as deltas: the tracker keeps, per node, the counters of its
 * current epoch as last reported, and adds what each report adds to them to the uplinks. So
 * a restart (a new epoch, counters from zero) only resets the node's row; what it reported
 * before is already in the sums, which therefore never go backwards. What a node received
 * after its last report and before it restarted is lost: no one can report it.
 * A report is checked whole before anything is folded, so a refused one changes nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sw_netsat.h"

struct node {
	uint32_t rack;
	bool seen;      /* has reported at least once */
	uint64_t epoch; /* of its last accepted report */
};

/* A rack uplink counted by the operator's own counters (a ToR port, a shaped veth). */
struct meter {
	bool seen;
	uint64_t epoch;
	uint64_t last_out, last_in; /* as last reported in the epoch */
	uint64_t out, in;           /* the rack's sums from the first measured report on */
};

struct sw_netsat {
	uint32_t n_nodes, n_racks;
	struct node *nodes;
	uint64_t *rx;         /* n_nodes x n_racks: each node's counters in its current epoch */
	uint64_t *out;        /* per rack, from the nodes' reports */
	uint64_t *in;         /* per rack, from the nodes' reports */
	struct meter *meters; /* per rack */
	/* scratch of one report: what each counter adds (by position), the report that listed
	 * each rack (by rack) */
	uint64_t *add;
	uint32_t *listed, stamp;
};

struct sw_netsat *sw_netsat_create(uint32_t n_nodes, uint32_t n_racks, const uint32_t *rack_of)
{
	struct sw_netsat *ns;
	uint32_t i;

	if (!n_nodes || !n_racks || !rack_of) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < n_nodes; i++) {
		if (rack_of[i] >= n_racks) {
			errno = EINVAL;
			return NULL;
		}
	}
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return NULL;
	ns->n_nodes = n_nodes;
	ns->n_racks = n_racks;
	ns->nodes = calloc(n_nodes, sizeof(*ns->nodes));
	ns->rx = calloc((size_t)n_nodes * n_racks, sizeof(*ns->rx));
	ns->out = calloc(n_racks, sizeof(*ns->out));
	ns->in = calloc(n_racks, sizeof(*ns->in));
	ns->meters = calloc(n_racks, sizeof(*ns->meters));
	ns->add = calloc(n_racks, sizeof(*ns->add));
	ns->listed = calloc(n_racks, sizeof(*ns->listed));
	if (!ns->nodes || !ns->rx || !ns->out || !ns->in || !ns->meters || !ns->add ||
	    !ns->listed) {
		sw_netsat_destroy(ns);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n_nodes; i++)
		ns->nodes[i].rack = rack_of[i];
	return ns;
}

void sw_netsat_destroy(struct sw_netsat *ns)
{
	if (!ns)
		return;
	free(ns->nodes);
	free(ns->rx);
	free(ns->out);
	free(ns->in);
	free(ns->meters);
	free(ns->add);
	free(ns->listed);
	free(ns);
}

/* Fills ns->add with what each counter adds, or says why the report is refused. */
static int check(struct sw_netsat *ns, uint32_t node, bool new_epoch,
                 const struct sw_netsat_count *counts, size_t n)
{
	const uint64_t *row = &ns->rx[(size_t)node * ns->n_racks];
	uint32_t home = ns->nodes[node].rack;
	uint64_t in_add = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (counts[i].rack >= ns->n_racks)
			return -ERANGE;
	}
	if (n > ns->n_racks)
		return -EINVAL; /* some rack is listed twice */
	if (++ns->stamp == 0) { /* the stamps wrapped: clear the old ones */
		memset(ns->listed, 0, ns->n_racks * sizeof(*ns->listed));
		ns->stamp = 1;
	}
	for (i = 0; i < n; i++) {
		uint32_t k = counts[i].rack;
		uint64_t base = new_epoch ? 0 : row[k], add;

		if (ns->listed[k] == ns->stamp)
			return -EINVAL;
		ns->listed[k] = ns->stamp;
		if (counts[i].bytes < base)
			return -EILSEQ;
		add = ns->add[i] = counts[i].bytes - base;
		if (k == home)
			continue;
		if (add > UINT64_MAX - ns->out[k] || add > UINT64_MAX - ns->in[home] - in_add)
			return -EOVERFLOW;
		in_add += add;
	}
	return 0;
}

/* A report, folded into the uplinks (add) or only taken as the node's counters (a baseline). */
static int fold(struct sw_netsat *ns, uint32_t node, uint64_t boot_epoch,
                const struct sw_netsat_count *counts, size_t n, bool add)
{
	struct node *nd;
	uint64_t *row;
	bool new_epoch;
	size_t i;
	int rc;

	if (!ns || (!counts && n))
		return -EINVAL;
	if (node >= ns->n_nodes)
		return -ENODEV;
	nd = &ns->nodes[node];
	if (nd->seen && boot_epoch < nd->epoch)
		return -ESTALE;
	new_epoch = !nd->seen || boot_epoch > nd->epoch;
	rc = check(ns, node, new_epoch, counts, n);
	if (rc)
		return rc;
	row = &ns->rx[(size_t)node * ns->n_racks];
	if (new_epoch) /* the new incarnation counts from zero, also for racks it did not list */
		memset(row, 0, ns->n_racks * sizeof(*row));
	for (i = 0; i < n; i++) {
		uint32_t k = counts[i].rack;

		row[k] = counts[i].bytes;
		if (add && k != nd->rack) {
			ns->out[k] += ns->add[i];
			ns->in[nd->rack] += ns->add[i];
		}
	}
	nd->seen = true;
	nd->epoch = boot_epoch;
	return 0;
}

int sw_netsat_report(struct sw_netsat *ns, uint32_t node, uint64_t boot_epoch,
                     const struct sw_netsat_count *counts, size_t n)
{
	return fold(ns, node, boot_epoch, counts, n, true);
}

int sw_netsat_baseline(struct sw_netsat *ns, uint32_t node, uint64_t boot_epoch,
                       const struct sw_netsat_count *counts, size_t n)
{
	return fold(ns, node, boot_epoch, counts, n, false);
}

bool sw_netsat_node_known(const struct sw_netsat *ns, uint32_t node)
{
	return ns && node < ns->n_nodes && ns->nodes[node].seen;
}

/*
 * A measured uplink takes over from the nodes' sums where they stand, so the rack's sums never
 * jump back or forward at the switch; only what the meter counts from then on is added. A new
 * epoch (the counters restarted: the interface was re-created, the switch rebooted) counts
 * from zero, as a restarted agent does.
 */
int sw_netsat_uplink_measured(struct sw_netsat *ns, uint32_t rack, uint64_t epoch,
                              uint64_t out_bytes, uint64_t in_bytes)
{
	struct meter *m;
	uint64_t base_out, base_in;

	if (!ns)
		return -EINVAL;
	if (rack >= ns->n_racks)
		return -ERANGE;
	m = &ns->meters[rack];
	if (!m->seen) {
		m->out = ns->out[rack];
		m->in = ns->in[rack];
		base_out = out_bytes;
		base_in = in_bytes;
	} else if (epoch < m->epoch) {
		return -ESTALE;
	} else if (epoch > m->epoch) {
		base_out = base_in = 0;
	} else {
		base_out = m->last_out;
		base_in = m->last_in;
	}
	if (out_bytes < base_out || in_bytes < base_in)
		return -EILSEQ;
	if (out_bytes - base_out > UINT64_MAX - m->out || in_bytes - base_in > UINT64_MAX - m->in)
		return -EOVERFLOW;
	m->out += out_bytes - base_out;
	m->in += in_bytes - base_in;
	m->last_out = out_bytes;
	m->last_in = in_bytes;
	m->epoch = epoch;
	m->seen = true;
	return 0;
}

int sw_netsat_uplink(const struct sw_netsat *ns, uint32_t rack, uint64_t *out_bytes,
                     uint64_t *in_bytes)
{
	if (!ns || !out_bytes || !in_bytes || rack >= ns->n_racks)
		return -EINVAL;
	*out_bytes = ns->meters[rack].seen ? ns->meters[rack].out : ns->out[rack];
	*in_bytes = ns->meters[rack].seen ? ns->meters[rack].in : ns->in[rack];
	return 0;
}
