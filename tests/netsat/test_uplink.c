/* SPDX-License-Identifier: MIT */
/* The uplink tracker: per-node reports by source rack to cumulative bytes per rack uplink. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "sw_netsat.h"

/* 3 racks of 2 nodes: node i is in rack i / 2. */
static const uint32_t rack_of[6] = {0, 0, 1, 1, 2, 2};

static struct sw_netsat *tracker(void)
{
	struct sw_netsat *ns = sw_netsat_create(6, 3, rack_of);

	assert_non_null(ns);
	return ns;
}

static void assert_uplink(const struct sw_netsat *ns, uint32_t rack, uint64_t out, uint64_t in)
{
	uint64_t o = 1, i = 1;

	assert_int_equal(sw_netsat_uplink(ns, rack, &o, &i), 0);
	assert_int_equal(o, out);
	assert_int_equal(i, in);
}

static void bytes_from_another_rack_cross_the_senders_uplink_out_and_the_receivers_in(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count c[] = {{.rack = 2, .bytes = 1000}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 1, 1, c, 1), 0); /* node 1 (rack 0) from rack 2 */
	assert_uplink(ns, 0, 0, 1000);
	assert_uplink(ns, 1, 0, 0);
	assert_uplink(ns, 2, 1000, 0);
	sw_netsat_destroy(ns);
}

static void bytes_from_the_nodes_own_rack_cross_no_uplink(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count c[] = {{.rack = 1, .bytes = 5000}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 3, 1, c, 1), 0);
	for (uint32_t r = 0; r < 3; r++)
		assert_uplink(ns, r, 0, 0);
	sw_netsat_destroy(ns);
}

static void counters_are_cumulative_so_only_their_growth_is_added(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count a[] = {{.rack = 0, .bytes = 100}, {.rack = 1, .bytes = 40}};
	struct sw_netsat_count b[] = {{.rack = 0, .bytes = 150}, {.rack = 1, .bytes = 40}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 4, 7, a, 2), 0);
	assert_int_equal(sw_netsat_report(ns, 4, 7, b, 2), 0);
	assert_uplink(ns, 2, 0, 190);
	assert_uplink(ns, 0, 150, 0);
	assert_uplink(ns, 1, 40, 0);
	sw_netsat_destroy(ns);
}

/* A restarted controller's tracker meets agents with counters from before it: the first
 * report is a baseline, the next adds only its growth, and a restart of the node (a larger
 * epoch) counts from zero as usual. The node is known from its first accepted report on. */
static void a_baseline_adds_nothing_and_later_reports_add_their_growth(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count a[] = {{.rack = 0, .bytes = 90000000}, {.rack = 1, .bytes = 40}};
	struct sw_netsat_count b[] = {{.rack = 0, .bytes = 90000100}, {.rack = 1, .bytes = 40}};
	struct sw_netsat_count c[] = {{.rack = 0, .bytes = 7}};

	(void)st;
	assert_false(sw_netsat_node_known(ns, 4));
	assert_int_equal(sw_netsat_baseline(ns, 4, 7, a, 2), 0);
	assert_true(sw_netsat_node_known(ns, 4));
	assert_false(sw_netsat_node_known(ns, 3));
	assert_false(sw_netsat_node_known(ns, 1000));
	assert_false(sw_netsat_node_known(NULL, 4));
	for (uint32_t r = 0; r < 3; r++)
		assert_uplink(ns, r, 0, 0);
	assert_int_equal(sw_netsat_report(ns, 4, 7, b, 2), 0);
	assert_uplink(ns, 0, 100, 0);
	assert_uplink(ns, 2, 0, 100);
	assert_int_equal(sw_netsat_report(ns, 4, 8, c, 1), 0);
	assert_uplink(ns, 0, 107, 0);
	assert_int_equal(sw_netsat_baseline(ns, 4, 7, a, 2), -ESTALE);
	sw_netsat_destroy(ns);
}

static void a_rack_left_out_of_a_report_keeps_its_count(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count a[] = {{.rack = 0, .bytes = 100}, {.rack = 1, .bytes = 40}};
	struct sw_netsat_count b[] = {{.rack = 1, .bytes = 60}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 4, 7, a, 2), 0);
	assert_int_equal(sw_netsat_report(ns, 4, 7, b, 1), 0);
	assert_int_equal(sw_netsat_report(ns, 4, 7, NULL, 0), 0);
	assert_uplink(ns, 0, 100, 0);
	assert_uplink(ns, 1, 60, 0);
	assert_uplink(ns, 2, 0, 160);
	/* Going back to 100 for rack 0 is no growth, not a second 100. */
	assert_int_equal(sw_netsat_report(ns, 4, 7, a, 1), 0);
	assert_uplink(ns, 0, 100, 0);
	sw_netsat_destroy(ns);
}

static void a_restart_with_a_newer_epoch_counts_from_zero_and_never_goes_backwards(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count before[] = {{.rack = 1, .bytes = 900}};
	struct sw_netsat_count after[] = {{.rack = 1, .bytes = 30}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 100, before, 1), 0);
	assert_int_equal(sw_netsat_report(ns, 0, 200, after, 1), 0);
	assert_uplink(ns, 0, 0, 930);
	assert_uplink(ns, 1, 930, 0);
	/* The new incarnation grows from its own zero. */
	after[0].bytes = 50;
	assert_int_equal(sw_netsat_report(ns, 0, 200, after, 1), 0);
	assert_uplink(ns, 0, 0, 950);
	sw_netsat_destroy(ns);
}

static void a_late_report_of_an_earlier_epoch_is_refused_and_changes_nothing(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count c[] = {{.rack = 1, .bytes = 10}};
	struct sw_netsat_count late[] = {{.rack = 1, .bytes = 5000}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 200, c, 1), 0);
	assert_int_equal(sw_netsat_report(ns, 0, 100, late, 1), -ESTALE);
	assert_uplink(ns, 0, 0, 10);
	/* The current epoch goes on from where it was. */
	c[0].bytes = 11;
	assert_int_equal(sw_netsat_report(ns, 0, 200, c, 1), 0);
	assert_uplink(ns, 0, 0, 11);
	sw_netsat_destroy(ns);
}

static void a_counter_going_backwards_within_an_epoch_is_refused_and_changes_nothing(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count a[] = {{.rack = 1, .bytes = 100}, {.rack = 2, .bytes = 100}};
	/* Rack 1 grows, rack 2 shrinks: the whole report is refused, rack 1's growth too. */
	struct sw_netsat_count b[] = {{.rack = 1, .bytes = 500}, {.rack = 2, .bytes = 99}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 1, a, 2), 0);
	assert_int_equal(sw_netsat_report(ns, 0, 1, b, 2), -EILSEQ);
	assert_uplink(ns, 0, 0, 200);
	assert_uplink(ns, 1, 100, 0);
	assert_uplink(ns, 2, 100, 0);
	sw_netsat_destroy(ns);
}

static void a_node_outside_the_cluster_is_refused(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count c[] = {{.rack = 1, .bytes = 1}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 6, 1, c, 1), -ENODEV);
	assert_int_equal(sw_netsat_report(ns, UINT32_MAX, 1, c, 1), -ENODEV);
	assert_uplink(ns, 1, 0, 0);
	sw_netsat_destroy(ns);
}

static void a_rack_outside_the_cluster_is_refused_and_changes_nothing(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count c[] = {{.rack = 1, .bytes = 1}, {.rack = 3, .bytes = 1}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 1, c, 2), -ERANGE);
	assert_uplink(ns, 1, 0, 0);
	assert_uplink(ns, 0, 0, 0);
	sw_netsat_destroy(ns);
}

static void a_rack_listed_twice_is_refused(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count twice[] = {{.rack = 1, .bytes = 1}, {.rack = 1, .bytes = 2}};
	struct sw_netsat_count four[] = {{.rack = 0, .bytes = 1},
	                                 {.rack = 1, .bytes = 1},
	                                 {.rack = 2, .bytes = 1},
	                                 {.rack = 2, .bytes = 1}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 1, twice, 2), -EINVAL);
	assert_int_equal(sw_netsat_report(ns, 0, 1, four, 4), -EINVAL);
	assert_int_equal(sw_netsat_report(ns, 0, 1, NULL, 1), -EINVAL);
	assert_int_equal(sw_netsat_report(NULL, 0, 1, twice, 1), -EINVAL);
	assert_uplink(ns, 0, 0, 0);
	assert_uplink(ns, 1, 0, 0);
	/* The refused reports did not claim the node's epoch: it still starts at epoch 1. */
	assert_int_equal(sw_netsat_report(ns, 0, 1, twice, 1), 0);
	assert_uplink(ns, 1, 1, 0);
	sw_netsat_destroy(ns);
}

static void a_sum_past_two_to_the_64_is_refused(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count big[] = {{.rack = 2, .bytes = UINT64_MAX - 10}};
	struct sw_netsat_count more[] = {{.rack = 2, .bytes = 11}};
	struct sw_netsat_count fits[] = {{.rack = 2, .bytes = 10}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 1, big, 1), 0);
	/* Another node of rack 0 pushes rack 0's in (and rack 2's out) past the top. */
	assert_int_equal(sw_netsat_report(ns, 1, 1, more, 1), -EOVERFLOW);
	assert_uplink(ns, 0, 0, UINT64_MAX - 10);
	assert_int_equal(sw_netsat_report(ns, 1, 1, fits, 1), 0);
	assert_uplink(ns, 0, 0, UINT64_MAX);
	assert_uplink(ns, 2, UINT64_MAX, 0);
	sw_netsat_destroy(ns);
}

static void a_cluster_with_a_node_in_no_rack_is_refused(void **st)
{
	const uint32_t bad[2] = {0, 3};
	struct sw_netsat *ns;
	uint64_t o, i;

	(void)st;
	assert_null(sw_netsat_create(2, 3, bad));
	assert_int_equal(errno, EINVAL);
	assert_null(sw_netsat_create(0, 3, bad));
	assert_null(sw_netsat_create(2, 0, bad));
	assert_null(sw_netsat_create(2, 3, NULL));
	ns = tracker();
	assert_int_equal(sw_netsat_uplink(ns, 3, &o, &i), -EINVAL);
	assert_int_equal(sw_netsat_uplink(ns, 0, NULL, &i), -EINVAL);
	sw_netsat_destroy(ns);
}

static void a_measured_uplink_takes_over_where_the_nodes_sums_stand(void **st)
{
	struct sw_netsat *ns = tracker();
	struct sw_netsat_count c[] = {{.rack = 1, .bytes = 700}};

	(void)st;
	assert_int_equal(sw_netsat_report(ns, 0, 1, c, 1), 0); /* rack 0 in 700, rack 1 out 700 */
	/* The ToR's counters are large, counted since long before: only a baseline. */
	assert_int_equal(sw_netsat_uplink_measured(ns, 0, 5, 1000000, 2000000), 0);
	assert_uplink(ns, 0, 0, 700);
	/* From now on rack 0 follows its own counters, which see all the link carried. */
	assert_int_equal(sw_netsat_uplink_measured(ns, 0, 5, 1000040, 2000100), 0);
	assert_uplink(ns, 0, 40, 800);
	c[0].bytes = 10000;
	assert_int_equal(sw_netsat_report(ns, 0, 1, c, 1), 0);
	assert_uplink(ns, 0, 40, 800);
	/* The other racks still add up the nodes' reports. */
	assert_uplink(ns, 1, 10000, 0);
	sw_netsat_destroy(ns);
}

static void a_measured_uplink_restarting_counts_from_zero_and_refuses_going_backwards(void **st)
{
	struct sw_netsat *ns = tracker();

	(void)st;
	assert_int_equal(sw_netsat_uplink_measured(ns, 2, 1, 500, 500), 0);
	assert_int_equal(sw_netsat_uplink_measured(ns, 2, 1, 600, 550), 0);
	assert_uplink(ns, 2, 100, 50);
	assert_int_equal(sw_netsat_uplink_measured(ns, 2, 1, 599, 560), -EILSEQ);
	assert_uplink(ns, 2, 100, 50);
	/* The interface was re-created: its counters start again from zero. */
	assert_int_equal(sw_netsat_uplink_measured(ns, 2, 2, 30, 20), 0);
	assert_uplink(ns, 2, 130, 70);
	assert_int_equal(sw_netsat_uplink_measured(ns, 2, 1, 9000, 9000), -ESTALE);
	assert_int_equal(sw_netsat_uplink_measured(ns, 3, 1, 1, 1), -ERANGE);
	assert_int_equal(sw_netsat_uplink_measured(NULL, 0, 1, 1, 1), -EINVAL);
	assert_int_equal(sw_netsat_uplink_measured(ns, 2, 2, UINT64_MAX, 20), -EOVERFLOW);
	assert_uplink(ns, 2, 130, 70);
	sw_netsat_destroy(ns);
}

/* Random reports, restarts and refused reports against a plain sum of every delta. */
static void random_reports_and_restarts_sum_to_every_byte_reported(void **st)
{
	enum { NODES = 6, RACKS = 3 };
	struct sw_netsat *ns = tracker();
	uint64_t rx[NODES][RACKS] = {{0}}, epoch[NODES] = {0}, out[RACKS] = {0}, in[RACKS] = {0};
	unsigned seed = 12345;

	(void)st;
	for (int step = 0; step < 20000; step++) {
		uint32_t node = (uint32_t)rand_r(&seed) % NODES, home = rack_of[node];
		struct sw_netsat_count c[RACKS];
		size_t n = 0;
		int restart = rand_r(&seed) % 50 == 0, backwards = rand_r(&seed) % 40 == 0;

		if (restart) {
			epoch[node] += 1 + (uint64_t)(rand_r(&seed) % 3);
			for (uint32_t r = 0; r < RACKS; r++)
				rx[node][r] = 0;
		}
		for (uint32_t r = 0; r < RACKS; r++) {
			if (rand_r(&seed) % 4 == 0)
				continue;
			c[n].rack = r;
			c[n].bytes = rx[node][r] + (uint64_t)(rand_r(&seed) % 100000);
			n++;
		}
		if (backwards && n && rx[node][c[0].rack]) {
			c[0].bytes = rx[node][c[0].rack] - 1;
			assert_int_equal(sw_netsat_report(ns, node, epoch[node], c, n), -EILSEQ);
			continue;
		}
		assert_int_equal(sw_netsat_report(ns, node, epoch[node], c, n), 0);
		for (size_t i = 0; i < n; i++) {
			uint64_t add = c[i].bytes - rx[node][c[i].rack];

			rx[node][c[i].rack] = c[i].bytes;
			if (c[i].rack != home) {
				out[c[i].rack] += add;
				in[home] += add;
			}
		}
	}
	for (uint32_t r = 0; r < RACKS; r++)
		assert_uplink(ns, r, out[r], in[r]);
	sw_netsat_destroy(ns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(
	                bytes_from_another_rack_cross_the_senders_uplink_out_and_the_receivers_in),
	        cmocka_unit_test(bytes_from_the_nodes_own_rack_cross_no_uplink),
	        cmocka_unit_test(counters_are_cumulative_so_only_their_growth_is_added),
	        cmocka_unit_test(a_baseline_adds_nothing_and_later_reports_add_their_growth),
	        cmocka_unit_test(a_rack_left_out_of_a_report_keeps_its_count),
	        cmocka_unit_test(
	                a_restart_with_a_newer_epoch_counts_from_zero_and_never_goes_backwards),
	        cmocka_unit_test(a_late_report_of_an_earlier_epoch_is_refused_and_changes_nothing),
	        cmocka_unit_test(
	                a_counter_going_backwards_within_an_epoch_is_refused_and_changes_nothing),
	        cmocka_unit_test(a_node_outside_the_cluster_is_refused),
	        cmocka_unit_test(a_rack_outside_the_cluster_is_refused_and_changes_nothing),
	        cmocka_unit_test(a_rack_listed_twice_is_refused),
	        cmocka_unit_test(a_sum_past_two_to_the_64_is_refused),
	        cmocka_unit_test(a_cluster_with_a_node_in_no_rack_is_refused),
	        cmocka_unit_test(a_measured_uplink_takes_over_where_the_nodes_sums_stand),
	        cmocka_unit_test(
	                a_measured_uplink_restarting_counts_from_zero_and_refuses_going_backwards),
	        cmocka_unit_test(random_reports_and_restarts_sum_to_every_byte_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
