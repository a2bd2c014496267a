/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for netsat/'s decoders of bytes it does not control. The first byte picks:
 *   0: reports to the uplink tracker, as a hostile or broken agent could send them through
 *      the controller (every field arbitrary): no crash, and a rack's sums never go
 *      backwards, nor change when a report is refused;
 *   1, 2: a netlink reply to the link (RTM_GETLINK) or qdisc (RTM_GETQDISC) source.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Takes @p n bytes from the input, little-endian; 0 past its end. */
static uint64_t take(const uint8_t **p, const uint8_t *end, unsigned n)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < n && *p < end; i++, (*p)++)
		v |= (uint64_t) * *p << (8 * i);
	return v;
}

/* n_racks, n_nodes, then reports: node, epoch (1 byte: small, so epochs repeat and go
 * back), count, then count x (rack, 8 bytes). Nodes and racks may be out of range. A node
 * byte of n_nodes + 2 makes the report a measured uplink's: epoch, rack, out, in. */
static void fuzz_reports(const uint8_t *p, const uint8_t *end)
{
	uint32_t n_racks = 1 + (uint32_t)take(&p, end, 1) % 8,
	         n_nodes = 1 + (uint32_t)take(&p, end, 1) % 16;
	uint32_t rack_of[16];
	uint64_t out[8] = {0}, in[8] = {0};
	struct sw_netsat *ns;

	for (uint32_t i = 0; i < n_nodes; i++)
		rack_of[i] = i % n_racks;
	ns = sw_netsat_create(n_nodes, n_racks, rack_of);
	if (!ns)
		abort();
	while (p < end) {
		struct sw_netsat_count c[16];
		uint32_t node = (uint32_t)take(&p, end, 1) % (n_nodes + 3);
		uint64_t epoch = take(&p, end, 1);
		size_t n = take(&p, end, 1) % 17;
		int rc;

		if (node == n_nodes + 2) {
			uint32_t rack = (uint32_t)n % (n_racks + 2);
			uint64_t o = take(&p, end, 8), i = take(&p, end, 8);

			rc = sw_netsat_uplink_measured(ns, rack, epoch, o, i);
		} else {
			for (size_t i = 0; i < n; i++) {
				c[i].rack = (uint32_t)take(&p, end, 1) % (n_racks + 2);
				c[i].bytes = take(&p, end, 8);
			}
			rc = sw_netsat_report(ns, node, epoch, c, n);
		}
		for (uint32_t k = 0; k < n_racks; k++) {
			uint64_t o, i;

			if (sw_netsat_uplink(ns, k, &o, &i) || o < out[k] || i < in[k] ||
			    (rc && (o != out[k] || i != in[k])))
				abort();
			out[k] = o;
			in[k] = i;
		}
	}
	sw_netsat_destroy(ns);
}

static void fuzz_reply(int (*cb)(const struct nlmsghdr *, void *), const uint8_t *p, size_t len)
{
	struct netsat_nl nl = {.ifindex = 1, .dev = "fuzz0"};
	struct sw_netsat_counters c = {0};
	struct netsat_nl_reply r = {.nl = &nl, .c = &c};
	/* Netlink buffers are aligned; the fuzzer's need not be. */
	uint64_t *buf = malloc(len ? len : 1);

	if (!buf)
		abort();
	memcpy(buf, p, len);
	sw_netsat_nl_run(buf, len, 0, 0, cb, &r);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	switch (data[0] % 3) {
	case 0:
		fuzz_reports(data + 1, data + size);
		break;
	case 1:
		fuzz_reply(sw_netsat_link_msg, data + 1, size - 1);
		break;
	default:
		fuzz_reply(sw_netsat_qdisc_msg, data + 1, size - 1);
		break;
	}
	return 0;
}
