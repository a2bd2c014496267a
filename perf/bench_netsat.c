/* SPDX-License-Identifier: MIT */
/*
 * netsat/ costs, as the controller and a sampler pay them, each next to a reference measured
 * in the same run (median of 5 repetitions):
 * - one agent report folded by the uplink tracker, on the scheduler benchmark's cluster
 *   (10,000 nodes in 250 racks), every rack listed and 10 listed: against the bare fold (a loop
 * adding the same deltas into the sums, no checks), and as the share of one core that 10,000 agents
 *   reporting every 3 s would take;
 * - one read of the link and of the qdisc source on loopback: against reading /proc/net/dev,
 *   what a sampler without netlink reads (and which cannot see other namespaces).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sw_netsat.h"

#define NODES 10000
#define RACKS 250
#define REPS  5

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v)
{
	qsort(v, REPS, sizeof(*v), cmp);
	return v[REPS / 2];
}

static struct sw_netsat_count counts[RACKS];
static uint64_t bare_rx[NODES][RACKS], bare_out[RACKS], bare_in[RACKS];

/* ns per report: every node reports once per round, the counters of @p listed racks (from
 * a node-dependent first one) grown a little. */
static void fill(uint32_t n, uint32_t listed, uint64_t round)
{
	for (uint32_t i = 0; i < listed; i++) {
		uint32_t r = (n + i) % RACKS;

		counts[i] = (struct sw_netsat_count){r, (round + 1) * (n + r + 1)};
	}
}

static double tracker(struct sw_netsat *ns, uint32_t listed, uint64_t *round)
{
	const int rounds = 20;
	double t0 = now_ns();

	for (int k = 0; k < rounds; k++, (*round)++) {
		for (uint32_t n = 0; n < NODES; n++) {
			fill(n, listed, *round);
			if (sw_netsat_report(ns, n, 1, counts, listed)) {
				fprintf(stderr, "bench_netsat: report refused\n");
				exit(1);
			}
		}
	}
	return (now_ns() - t0) / rounds / NODES;
}

/* The same reports folded with no validation, baseline or overflow check. */
static double bare(uint32_t listed, uint64_t *round)
{
	const int rounds = 20;
	double t0 = now_ns();

	for (int k = 0; k < rounds; k++, (*round)++) {
		for (uint32_t n = 0; n < NODES; n++) {
			uint32_t home = n / (NODES / RACKS);

			fill(n, listed, *round);
			for (uint32_t i = 0; i < listed; i++) {
				uint32_t r = counts[i].rack;
				uint64_t add = counts[i].bytes - bare_rx[n][r];

				bare_rx[n][r] = counts[i].bytes;
				if (r != home) {
					bare_out[r] += add;
					bare_in[home] += add;
				}
			}
		}
	}
	return (now_ns() - t0) / rounds / NODES;
}

/* ns per read of @p src, or of /proc/net/dev when @p src is NULL. */
static double reads(struct sw_netsat_source *src)
{
	const int n = 2000;
	struct sw_netsat_counters c;
	char buf[16384];
	double t0 = now_ns();

	for (int i = 0; i < n; i++) {
		if (src) {
			if (sw_netsat_source_read(src, &c)) {
				fprintf(stderr, "bench_netsat: %s\n", sw_netsat_source_error(src));
				exit(1);
			}
		} else {
			int fd = open("/proc/net/dev", O_RDONLY);

			if (fd < 0 || read(fd, buf, sizeof(buf)) <= 0) {
				perror("bench_netsat: /proc/net/dev");
				exit(1);
			}
			close(fd);
		}
	}
	return (now_ns() - t0) / n;
}

static struct sw_netsat_source *open_lo(const char *kind)
{
	struct sw_netsat_source_spec spec = {.kind = kind, .dev = "lo"};
	struct sw_netsat_source *src;
	char err[256];

	if (sw_netsat_source_open(&spec, &src, err, sizeof(err))) {
		fprintf(stderr, "bench_netsat: %s\n", err);
		exit(1);
	}
	return src;
}

int main(void)
{
	static uint32_t rack_of[NODES];
	double t[REPS], b[REPS], t10[REPS], b10[REPS], l[REPS], q[REPS], p[REPS];
	struct sw_netsat_source *link = open_lo("link"), *qdisc = open_lo("qdisc");
	struct sw_netsat *ns;
	uint64_t round_t = 0, round_b = 0, round_t10 = 0, round_b10 = 0;
	struct sw_netsat *ns10;

	for (uint32_t n = 0; n < NODES; n++)
		rack_of[n] = n / (NODES / RACKS);
	ns = sw_netsat_create(NODES, RACKS, rack_of);
	ns10 = sw_netsat_create(NODES, RACKS, rack_of);
	if (!ns || !ns10)
		return 1;
	for (int i = 0; i < REPS; i++) {
		t[i] = tracker(ns, RACKS, &round_t);
		b[i] = bare(RACKS, &round_b);
		t10[i] = tracker(ns10, 10, &round_t10);
		b10[i] = bare(10, &round_b10);
		l[i] = reads(link);
		q[i] = reads(qdisc);
		p[i] = reads(NULL);
	}
	double mt = median(t), mb = median(b), mt10 = median(t10), mb10 = median(b10),
	       ml = median(l), mq = median(q), mp = median(p);

	printf("%-34s %10s %10s\n", "benchmark (median of 5)", "time", "vs ref");
	printf("%-34s %7.2f us %10.2f   (ref: bare fold %.2f us)\n", "report, 250 racks listed",
	       mt / 1e3, mt / mb, mb / 1e3);
	printf("%-34s %9.4f %%\n", "  one core, 10,000 agents every 3 s", 100 * mt * NODES / 3e9);
	printf("%-34s %7.2f us %10.2f   (ref: bare fold %.2f us)\n", "report, 10 racks listed",
	       mt10 / 1e3, mt10 / mb10, mb10 / 1e3);
	printf("%-34s %7.2f us %10.2f   (ref: read /proc/net/dev %.2f us)\n",
	       "link source read, lo", ml / 1e3, ml / mp, mp / 1e3);
	printf("%-34s %7.2f us %10.2f\n", "qdisc source read, lo", mq / 1e3, mq / mp);
	sw_netsat_source_close(link);
	sw_netsat_source_close(qdisc);
	sw_netsat_destroy(ns);
	sw_netsat_destroy(ns10);
	return 0;
}
