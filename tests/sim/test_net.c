/* SPDX-License-Identifier: MIT */
/*
 * The flow-level network against hand-computed max-min allocations, and the incremental
 * recomputation against a from-scratch one and an independent reference on random flow sets.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sim_heap.h"
#include "sim_net.h"

#define GBIT      1e9
#define MBIT      1e6
#define NIC_BS    (GBIT / 8) /* a 1 Gbit/s NIC in bytes per second */
#define MAX_FLOWS 400

struct fixture {
	struct sw_rack_spec racks[8];
	struct sw_node_spec nodes[64];
	struct sw_cluster_spec c;
	struct sim_net *net;
};

static struct sim_net *make(struct fixture *fx, uint32_t n_racks, uint32_t per_rack,
                            double uplink_bps)
{
	uint32_t i;

	memset(fx, 0, sizeof(*fx));
	for (i = 0; i < n_racks; i++)
		fx->racks[i].uplink_bps = uplink_bps;
	for (i = 0; i < n_racks * per_rack; i++) {
		fx->nodes[i].rack = i / per_rack;
		fx->nodes[i].nic_bps = GBIT;
	}
	fx->c.n_racks = n_racks;
	fx->c.n_nodes = n_racks * per_rack;
	fx->c.racks = fx->racks;
	fx->c.nodes = fx->nodes;
	fx->net = sw_sim_net_create(&fx->c);
	assert_non_null(fx->net);
	return fx->net;
}

static uint32_t start(struct sim_net *n, uint32_t src, uint32_t dst, uint64_t bytes, double now)
{
	uint32_t id = SIM_FLOW_NONE;

	assert_int_equal(sw_sim_net_flow_start(n, src, dst, bytes, now, NULL, &id), 0);
	return id;
}

static uint32_t start_rack(struct sim_net *n, uint32_t src_rack, uint32_t dst, uint64_t bytes,
                           double now)
{
	uint32_t id = SIM_FLOW_NONE;

	assert_int_equal(sw_sim_net_flow_start_rack(n, src_rack, dst, bytes, now, NULL, &id), 0);
	return id;
}

static void assert_within(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fmax(1, fabs(want)))
		fail_msg("got %.17g, want %.17g", got, want);
}

static void assert_near(double got, double want)
{
	assert_within(got, want, 1e-9);
}

static void single_flow_gets_its_slowest_link(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 2, 4, 200 * MBIT);
	uint32_t intra = start(n, 0, 1, 1000, 0), cross;

	(void)state;
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_flow_rate(n, intra), NIC_BS);
	sw_sim_net_flow_end(n, intra, 0);
	cross = start(n, 0, 5, 1000, 0);
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_flow_rate(n, cross), 200 * MBIT / 8);
	sw_sim_net_destroy(n);
}

static void two_flows_on_one_link_share_it_equally(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 1, 4, GBIT);
	uint32_t a = start(n, 0, 1, 1000, 0), b = start(n, 0, 2, 1000, 0);

	(void)state;
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_flow_rate(n, a), NIC_BS / 2);
	assert_near(sw_sim_net_flow_rate(n, b), NIC_BS / 2);
	assert_near(sw_sim_net_link_load(n, sw_sim_net_link(n, SIM_LINK_NIC_TX, 0)), NIC_BS);
	sw_sim_net_destroy(n);
}

/* Node 0 sends to node 5 across a 200 Mbit/s uplink and to node 1 in its rack: the cross-rack
 * flow is held to 25 MB/s by the uplink, and the other takes the rest of the NIC, 100 MB/s. */
static void flow_bottlenecked_elsewhere_leaves_the_rest_to_the_other(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 2, 4, 200 * MBIT);
	uint32_t cross = start(n, 0, 5, 1000, 0), local = start(n, 0, 1, 1000, 0);

	(void)state;
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_flow_rate(n, cross), 25e6);
	assert_near(sw_sim_net_flow_rate(n, local), NIC_BS - 25e6);
	sw_sim_net_destroy(n);
}

/* Ten nodes of rack 0 each send to a node of rack 1 over a 500 Mbit/s uplink: 50 Mbit/s each.
 * Intra-rack flows in rack 2 meanwhile run at NIC speed, and an intra-rack flow sharing a NIC
 * with one of the cross-rack flows gets the NIC minus 50 Mbit/s. */
static void cross_rack_flows_share_the_uplink_while_intra_rack_flows_run_at_nic_speed(void **st)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 3, 10, 500 * MBIT);
	uint32_t cross[10], intra[5], beside, i;

	(void)st;
	for (i = 0; i < 10; i++)
		cross[i] = start(n, i, 10 + i, 1000, 0);
	for (i = 0; i < 5; i++)
		intra[i] = start(n, 20 + 2 * i, 21 + 2 * i, 1000, 0);
	beside = start(n, 3, 4, 1000, 0);
	sw_sim_net_update(n, 0);
	for (i = 0; i < 10; i++)
		assert_near(sw_sim_net_flow_rate(n, cross[i]), 50 * MBIT / 8);
	for (i = 0; i < 5; i++)
		assert_near(sw_sim_net_flow_rate(n, intra[i]), NIC_BS);
	assert_near(sw_sim_net_flow_rate(n, beside), NIC_BS - 50 * MBIT / 8);
	assert_near(sw_sim_net_link_load(n, sw_sim_net_link(n, SIM_LINK_UP_OUT, 0)),
	            500 * MBIT / 8);
	sw_sim_net_destroy(n);
}

/* 62.5 MB and 125 MB leave node 0 together at 62.5 MB/s each: the first is done at 1 s, then
 * the second has 62.5 MB left at the full 125 MB/s and is done at 1.5 s. */
static void flow_ending_speeds_up_the_flows_it_shared_links_with(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 1, 3, GBIT);
	uint32_t a = start(n, 0, 1, 62500000, 0), b = start(n, 0, 2, 125000000, 0), id;
	double t;

	(void)state;
	sw_sim_net_update(n, 0);
	t = sw_sim_net_next(n, &id);
	assert_int_equal(id, a);
	assert_near(t, 1.0);
	sw_sim_net_flow_end(n, a, t);
	sw_sim_net_update(n, t);
	assert_near(sw_sim_net_flow_rate(n, b), NIC_BS);
	t = sw_sim_net_next(n, &id);
	assert_int_equal(id, b);
	assert_near(t, 1.5);
	assert_near(sw_sim_net_link_bytes(n, sw_sim_net_link(n, SIM_LINK_NIC_TX, 0), t), 187500000);
	sw_sim_net_flow_end(n, b, t);
	assert_true(isinf(sw_sim_net_next(n, &id)));
	sw_sim_net_destroy(n);
}

static void growing_a_flow_delays_its_completion_by_the_added_bytes(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 1, 2, GBIT);
	uint32_t a = start(n, 0, 1, 125000000, 0), id;

	(void)state;
	sw_sim_net_update(n, 0);
	sw_sim_net_flow_grow(n, a, 62500000, 0.5);
	assert_near(sw_sim_net_next(n, &id), 1.5);
	assert_int_equal(id, a);
	sw_sim_net_destroy(n);
}

static void uplink_bytes_integrate_the_rate_over_time(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 2, 2, 200 * MBIT);
	uint32_t out = sw_sim_net_link(n, SIM_LINK_UP_OUT, 0),
	         in = sw_sim_net_link(n, SIM_LINK_UP_IN, 1);
	uint32_t a = start(n, 0, 2, 1000000000, 0);

	(void)state;
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_link_bytes(n, out, 2), 50e6);
	assert_near(sw_sim_net_link_bytes(n, in, 2), 50e6);
	sw_sim_net_flow_end(n, a, 2);
	sw_sim_net_update(n, 2);
	assert_near(sw_sim_net_link_bytes(n, out, 10), 50e6);
	sw_sim_net_destroy(n);
}

/* The rack model's fetches: a flow from rack 0 to node 4 of rack 1 crosses rack 0's uplink
 * out, rack 1's uplink in and node 4's NIC, and no sender NIC. Beside it node 0 sends to node
 * 5 across the racks and to node 1 within rack 0: those two share node 0's NIC (62.5 MB/s
 * each), which the rack flow does not cross, so it takes the rest of the 2 Gbit/s uplink up
 * to its receiver's NIC. Node 4 counts what it received under rack 0. */
static void rack_flow_crosses_both_uplinks_and_the_receiver_nic_but_no_sender_nic(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 3, 4, 2 * GBIT);
	uint32_t rack = start_rack(n, 0, 4, 125000000, 0), cross = start(n, 0, 5, 1000000000, 0);
	uint32_t local = start(n, 0, 1, 1000000000, 0), path[SIM_NET_MAX_HOPS], id;

	(void)state;
	assert_int_equal(sw_sim_net_flow_path(n, rack, path), 3);
	assert_int_equal(path[0], sw_sim_net_link(n, SIM_LINK_UP_OUT, 0));
	assert_int_equal(path[1], sw_sim_net_link(n, SIM_LINK_UP_IN, 1));
	assert_int_equal(path[2], sw_sim_net_link(n, SIM_LINK_NIC_RX, 4));
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_flow_rate(n, rack), NIC_BS);
	assert_near(sw_sim_net_flow_rate(n, cross), NIC_BS / 2);
	assert_near(sw_sim_net_flow_rate(n, local), NIC_BS / 2);
	assert_near(sw_sim_net_link_load(n, sw_sim_net_link(n, SIM_LINK_NIC_TX, 0)), NIC_BS);
	assert_near(sw_sim_net_link_load(n, sw_sim_net_link(n, SIM_LINK_UP_OUT, 0)), NIC_BS * 1.5);
	assert_near(sw_sim_net_next(n, &id), 1.0);
	assert_int_equal(id, rack);
	sw_sim_net_flow_end(n, rack, 1.0);
	assert_int_equal(sw_sim_net_rx_bytes(n, 4, 0), 125000000);
	assert_int_equal(sw_sim_net_rx_bytes(n, 4, 1), 0);
	sw_sim_net_destroy(n);
}

static void bad_flows_are_rejected(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 1, 2, GBIT);
	uint32_t id;

	(void)state;
	assert_int_equal(sw_sim_net_flow_start(n, 0, 0, 10, 0, NULL, &id), -EINVAL);
	assert_int_equal(sw_sim_net_flow_start(n, 0, 2, 10, 0, NULL, &id), -EINVAL);
	assert_int_equal(sw_sim_net_flow_start(n, 0, 1, 0, 0, NULL, &id), -EINVAL);
	/* a rack flow to a node of its own rack, from no rack, to no node, of no bytes */
	assert_int_equal(sw_sim_net_flow_start_rack(n, 0, 1, 10, 0, NULL, &id), -EINVAL);
	assert_int_equal(sw_sim_net_flow_start_rack(n, 1, 1, 10, 0, NULL, &id), -EINVAL);
	sw_sim_net_destroy(n);
	n = make(&fx, 2, 2, GBIT);
	assert_int_equal(sw_sim_net_flow_start_rack(n, 0, 4, 10, 0, NULL, &id), -EINVAL);
	assert_int_equal(sw_sim_net_flow_start_rack(n, 0, 2, 0, 0, NULL, &id), -EINVAL);
	assert_int_equal(sw_sim_net_flow_start_rack(n, 0, 2, 10, 0, NULL, &id), 0);
	sw_sim_net_destroy(n);
	fx.racks[0].uplink_bps = 0;
	assert_null(sw_sim_net_create(&fx.c));
}

/* Progressive filling written as plainly as possible: the oracle for the randomized test. */
static void reference_rates(const struct sim_net *n, const uint32_t *ids, unsigned nf, double *rate)
{
	uint32_t paths[MAX_FLOWS][SIM_NET_MAX_HOPS], nl = sw_sim_net_n_links(n), l;
	unsigned hops[MAX_FLOWS], f, k, frozen = 0;
	double left[1024];
	int done[MAX_FLOWS] = {0};

	assert_true(nl <= 1024);
	for (l = 0; l < nl; l++)
		left[l] = sw_sim_net_link_capacity(n, l);
	for (f = 0; f < nf; f++)
		hops[f] = sw_sim_net_flow_path(n, ids[f], paths[f]);
	while (frozen < nf) {
		double best = INFINITY;
		uint32_t best_link = 0;

		for (l = 0; l < nl; l++) {
			unsigned open = 0;

			for (f = 0; f < nf; f++)
				for (k = 0; k < hops[f]; k++)
					open += !done[f] && paths[f][k] == l;
			if (open && left[l] / open < best) {
				best = left[l] / open;
				best_link = l;
			}
		}
		for (f = 0; f < nf; f++) {
			int on = 0;

			for (k = 0; k < hops[f]; k++)
				on |= paths[f][k] == best_link;
			if (done[f] || !on)
				continue;
			done[f] = 1;
			frozen++;
			rate[f] = best;
			for (k = 0; k < hops[f]; k++)
				left[paths[f][k]] -= best;
		}
	}
}

/* Every link within capacity; every flow crosses a saturated link on which no flow is faster
 * (the definition of a max-min fair allocation). */
static void assert_max_min(const struct sim_net *n, const uint32_t *ids, unsigned nf)
{
	unsigned f, k;
	uint32_t l;

	for (l = 0; l < sw_sim_net_n_links(n); l++)
		assert_true(sw_sim_net_link_load(n, l) <=
		            sw_sim_net_link_capacity(n, l) * (1 + 1e-12));
	for (f = 0; f < nf; f++) {
		uint32_t path[SIM_NET_MAX_HOPS];
		unsigned hops = sw_sim_net_flow_path(n, ids[f], path), g;
		int bottleneck = 0;

		for (k = 0; k < hops; k++) {
			int fastest = 1;

			if (sw_sim_net_link_load(n, path[k]) <
			    sw_sim_net_link_capacity(n, path[k]) * (1 - 1e-9))
				continue;
			for (g = 0; g < nf; g++) {
				uint32_t other[SIM_NET_MAX_HOPS];
				unsigned oh = sw_sim_net_flow_path(n, ids[g], other), j;

				for (j = 0; j < oh; j++)
					if (other[j] == path[k] &&
					    sw_sim_net_flow_rate(n, ids[g]) >
					            sw_sim_net_flow_rate(n, ids[f]) * (1 + 1e-9))
						fastest = 0;
			}
			bottleneck |= fastest;
		}
		assert_true(bottleneck);
	}
}

/* Starts or ends 1 to @p max_changes random flows of @p ids (*@p nf of them, at most
 * @p max_flows) on the nodes of @p fx at @p now; a quarter of the flows that start across
 * racks come from the sender's whole rack (the rack model's fetches). */
static void churn(struct sim_net *n, const struct fixture *fx, uint32_t *ids, unsigned *nf,
                  unsigned max_flows, unsigned max_changes, double now)
{
	unsigned changes = 1 + (unsigned)rand() % max_changes, c;

	for (c = 0; c < changes; c++) {
		if (*nf && (*nf == max_flows || rand() % 3 == 0)) {
			unsigned victim = (unsigned)rand() % *nf;

			sw_sim_net_flow_end(n, ids[victim], now);
			ids[victim] = ids[--*nf];
		} else {
			uint32_t src = (uint32_t)rand() % fx->c.n_nodes;
			uint32_t dst =
			        (src + 1 + (uint32_t)rand() % (fx->c.n_nodes - 1)) % fx->c.n_nodes;

			uint32_t src_rack = fx->c.nodes[src].rack;

			if (src_rack != fx->c.nodes[dst].rack && rand() % 4 == 0)
				ids[(*nf)++] =
				        start_rack(n, src_rack, dst, 1 + (uint64_t)rand(), now);
			else
				ids[(*nf)++] = start(n, src, dst, 1 + (uint64_t)rand(), now);
		}
	}
}

/* Random flows start and end, a few at a time, on a cluster of random NIC and uplink speeds;
 * after each update the rates must match a from-scratch recomputation and the reference. */
static void random_churn(uint32_t n_racks, uint32_t per_rack, unsigned max_flows, unsigned rounds,
                         unsigned steps, unsigned seed)
{
	struct fixture fx;
	uint32_t ids[MAX_FLOWS], round;
	double before[MAX_FLOWS], ref[MAX_FLOWS], now = 0;
	unsigned nf, f;

	srand(seed);
	for (round = 0; round < rounds; round++) {
		struct sim_net *n = make(&fx, n_racks, per_rack, (50 + rand() % 500) * MBIT);
		unsigned step;

		for (f = 0; f < fx.c.n_nodes; f++)
			fx.nodes[f].nic_bps = (100 + rand() % 900) * MBIT;
		sw_sim_net_destroy(n);
		n = sw_sim_net_create(&fx.c);
		assert_non_null(n);
		nf = 0;
		for (step = 0; step < steps; step++) {
			churn(n, &fx, ids, &nf, max_flows, 4, now);
			sw_sim_net_update(n, now);
			for (f = 0; f < nf; f++)
				before[f] = sw_sim_net_flow_rate(n, ids[f]);
			assert_max_min(n, ids, nf);
			sw_sim_net_update_all(n, now);
			for (f = 0; f < nf; f++)
				assert_within(before[f], sw_sim_net_flow_rate(n, ids[f]), 1e-7);
			reference_rates(n, ids, nf, ref);
			for (f = 0; f < nf; f++)
				assert_within(before[f], ref[f], 1e-7);
			now += 0.25;
		}
		sw_sim_net_destroy(n);
	}
}

static void incremental_recomputation_equals_recomputation_from_scratch(void **state)
{
	(void)state;
	random_churn(3, 4, 64, 40, 60, 12345);
}

/* Enough flows for the local recomputation to give up and solve whole components. */
static void large_flow_sets_take_the_component_path_and_stay_exact(void **state)
{
	(void)state;
	random_churn(6, 8, MAX_FLOWS, 2, 250, 777);
}

/* With a quantum, an update between multiples keeps every link within capacity and gives new
 * flows only what the others leave; the update at a multiple is exact max-min again. */
static void quantum_stays_within_capacity_and_is_exact_at_each_multiple(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 4, 6, 400 * MBIT);
	uint32_t ids[MAX_FLOWS];
	double ref[MAX_FLOWS], now = 0;
	unsigned nf = 0, f, step, deferred = 0;

	(void)state;
	assert_int_equal(sw_sim_net_set_quantum(n, 1), 0);
	srand(4242);
	for (step = 0; step < 400; step++) {
		churn(n, &fx, ids, &nf, 200, 4, now);
		sw_sim_net_update(n, now);
		for (uint32_t l = 0; l < sw_sim_net_n_links(n); l++)
			assert_true(sw_sim_net_link_load(n, l) <=
			            sw_sim_net_link_capacity(n, l) * (1 + 1e-12));
		if (sw_sim_net_due(n) > now) {
			/* the solve waits for the next multiple of the quantum, never longer */
			assert_true(sw_sim_net_due(n) == floor(now) + 1);
			deferred++;
		} else {
			assert_max_min(n, ids, nf);
			reference_rates(n, ids, nf, ref);
			for (f = 0; f < nf; f++)
				assert_within(sw_sim_net_flow_rate(n, ids[f]), ref[f], 1e-7);
		}
		now += 0.25;
		if (sw_sim_net_due(n) <= now) /* what the simulator's loop does at a multiple */
			sw_sim_net_update(n, now);
	}
	assert_true(deferred > 200); /* three of every four steps fall between multiples */
	assert_int_equal(sw_sim_net_set_quantum(n, -1), -EINVAL);
	assert_int_equal(sw_sim_net_set_quantum(n, NAN), -EINVAL);
	assert_int_equal(sw_sim_net_set_quantum(n, SW_SIM_MAX_NET_QUANTUM * 2), -EINVAL);
	sw_sim_net_destroy(n);
}

/* With a quantum, between multiples, the flows on a changed link that carries few share it
 * at once: a flow that starts on a busy NIC gets its half there, and when it ends the other
 * flow takes the whole NIC back, without waiting for the multiple. A link that carries many
 * (here an uplink behind 40 flows) keeps its flows' rates until the multiple, and a flow that
 * starts on it gets only what they leave, nothing while they fill it. */
static void quantum_reshares_a_changed_link_of_few_flows_at_once(void **state)
{
	struct fixture fx;
	struct sim_net *n = make(&fx, 2, 32, 400 * MBIT);
	uint32_t a, b, c, many[40];
	unsigned i;

	(void)state;
	assert_int_equal(sw_sim_net_set_quantum(n, 1), 0);
	a = start(n, 0, 1, 1000000000, 0);
	sw_sim_net_update(n, 0);
	assert_near(sw_sim_net_flow_rate(n, a), NIC_BS);
	b = start(n, 0, 2, 1000000000, 0.25);
	sw_sim_net_update(n, 0.25);
	assert_true(sw_sim_net_due(n) == 1);
	assert_near(sw_sim_net_flow_rate(n, a), NIC_BS / 2);
	assert_near(sw_sim_net_flow_rate(n, b), NIC_BS / 2);
	sw_sim_net_flow_end(n, b, 0.5);
	sw_sim_net_update(n, 0.5);
	assert_near(sw_sim_net_flow_rate(n, a), NIC_BS);
	sw_sim_net_update(n, 1);
	/* 40 cross-rack flows from rack 0 to nodes 32..47 fill rack 0's 50 MB/s uplink */
	for (i = 0; i < 40; i++)
		many[i] = start(n, 3 + i % 29, 32 + i % 16, 1000000000, 1);
	sw_sim_net_update(n, 1);
	sw_sim_net_update(n, 1);
	for (i = 0; i < 40; i++)
		assert_near(sw_sim_net_flow_rate(n, many[i]), 400 * MBIT / 8 / 40);
	c = start(n, 1, 50, 1000000000, 1.5);
	sw_sim_net_update(n, 1.5);
	assert_near(sw_sim_net_flow_rate(n, c), 0);
	assert_near(sw_sim_net_flow_rate(n, many[0]), 400 * MBIT / 8 / 40);
	sw_sim_net_update(n, 2);
	assert_near(sw_sim_net_flow_rate(n, c), 400 * MBIT / 8 / 41);
	sw_sim_net_destroy(n);
}

/* The component solve works on bottleneck groups (flows counted per link and group) rather
 * than on flows; the flow-level solve of sw_sim_net_update_all() is its reference, which it
 * must equal bit for bit, rates and link loads. With a quantum every changed component waits
 * for the next multiple and is then solved whole, so churn between multiples moves many flows
 * between groups and each multiple exercises the group solve on every changed component. */
static void group_solve_equals_the_flow_level_solve_bit_for_bit(void **state)
{
	struct fixture fx;
	uint32_t ids[MAX_FLOWS], l, round;
	double rate[MAX_FLOWS], load[1024], now = 0;
	unsigned nf, f, step, checked = 0;

	(void)state;
	srand(9090);
	for (round = 0; round < 6; round++) {
		struct sim_net *n = make(&fx, 2 + round, 8, GBIT);

		for (l = 0; l < fx.c.n_racks; l++)
			fx.racks[l].uplink_bps = (50 + rand() % 2000) * MBIT;
		for (l = 0; l < fx.c.n_nodes; l++)
			fx.nodes[l].nic_bps = (100 + rand() % 900) * MBIT;
		sw_sim_net_destroy(n);
		n = sw_sim_net_create(&fx.c);
		assert_non_null(n);
		assert_true(sw_sim_net_n_links(n) <= 1024);
		assert_int_equal(sw_sim_net_set_quantum(n, 1), 0);
		nf = 0;
		for (step = 0; step < 300; step++) {
			churn(n, &fx, ids, &nf, MAX_FLOWS, 12, now);
			sw_sim_net_update(n, now);
			now += 0.25;
			if (sw_sim_net_due(n) > now)
				continue;
			sw_sim_net_update(n, now);
			for (f = 0; f < nf; f++)
				rate[f] = sw_sim_net_flow_rate(n, ids[f]);
			for (l = 0; l < sw_sim_net_n_links(n); l++)
				load[l] = sw_sim_net_link_load(n, l);
			sw_sim_net_update_all(n, now);
			for (f = 0; f < nf; f++)
				assert_true(rate[f] == sw_sim_net_flow_rate(n, ids[f]));
			for (l = 0; l < sw_sim_net_n_links(n); l++)
				assert_true(load[l] == sw_sim_net_link_load(n, l));
			checked++;
		}
		sw_sim_net_destroy(n);
	}
	assert_true(checked > 400);
}

/* The heap against a plain array: after every random push, key change and removal (of the top
 * or any id) the top is the entry a linear scan finds first by (key, tie). */
static void heap_top_is_the_least_key_through_pushes_updates_and_removals(void **state)
{
	enum { IDS = 300, OPS = 20000 };
	struct sim_heap h;
	double key[IDS];
	int in[IDS] = {0};
	unsigned seed = 13, op, id, best;

	(void)state;
	sw_sim_heap_init(&h);
	assert_int_equal(sw_sim_heap_reserve(&h, IDS), 0);
	for (op = 0; op < OPS; op++) {
		id = (unsigned)rand_r(&seed) % IDS;
		/* Few distinct keys, so that ties (broken by id) are common. */
		double k = (double)(rand_r(&seed) % 50);

		switch (rand_r(&seed) % 4) {
		case 0:
		case 1:
			if (in[id]) {
				sw_sim_heap_update(&h, id, k, id);
			} else {
				assert_int_equal(sw_sim_heap_push(&h, id, k, id), 0);
				in[id] = 1;
			}
			key[id] = k;
			break;
		case 2:
			sw_sim_heap_remove(&h, id);
			in[id] = 0;
			break;
		default:
			if (sim_heap_top(&h) != SIM_HEAP_NONE) {
				in[sim_heap_top(&h)] = 0;
				sw_sim_heap_remove(&h, sim_heap_top(&h));
			}
		}
		best = SIM_HEAP_NONE;
		for (id = 0; id < IDS; id++)
			if (in[id] && (best == SIM_HEAP_NONE || key[id] < key[best]))
				best = id;
		assert_int_equal(sim_heap_top(&h), best);
		if (best != SIM_HEAP_NONE)
			assert_true(sim_heap_top_key(&h) == key[best]);
		for (id = 0; id < IDS; id++)
			assert_int_equal(sim_heap_contains(&h, id), in[id]);
	}
	sw_sim_heap_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(single_flow_gets_its_slowest_link),
	        cmocka_unit_test(two_flows_on_one_link_share_it_equally),
	        cmocka_unit_test(flow_bottlenecked_elsewhere_leaves_the_rest_to_the_other),
	        cmocka_unit_test(
	                cross_rack_flows_share_the_uplink_while_intra_rack_flows_run_at_nic_speed),
	        cmocka_unit_test(flow_ending_speeds_up_the_flows_it_shared_links_with),
	        cmocka_unit_test(growing_a_flow_delays_its_completion_by_the_added_bytes),
	        cmocka_unit_test(uplink_bytes_integrate_the_rate_over_time),
	        cmocka_unit_test(bad_flows_are_rejected),
	        cmocka_unit_test(incremental_recomputation_equals_recomputation_from_scratch),
	        cmocka_unit_test(large_flow_sets_take_the_component_path_and_stay_exact),
	        cmocka_unit_test(
	                rack_flow_crosses_both_uplinks_and_the_receiver_nic_but_no_sender_nic),
	        cmocka_unit_test(quantum_stays_within_capacity_and_is_exact_at_each_multiple),
	        cmocka_unit_test(quantum_reshares_a_changed_link_of_few_flows_at_once),
	        cmocka_unit_test(group_solve_equals_the_flow_level_solve_bit_for_bit),
	        cmocka_unit_test(heap_top_is_the_least_key_through_pushes_updates_and_removals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
