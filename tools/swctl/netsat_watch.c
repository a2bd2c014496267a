/* SPDX-License-Identifier: MIT */
/*
 * swctl netsat-watch: an interface's rates and its root qdisc's backlog, one line per
 * interval, read through netsat/'s link and qdisc sources (e.g. a shaped rack uplink of the
 * emulated racks, while a live replay runs).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "runner.h"
#include "sw_netsat.h"

static const char watch_usage[] =
        "usage: swctl netsat-watch --dev IF [--netns NS] [--interval SECONDS] [--count N]\n"
        "Prints, every interval (1 s), interface IF's receive and transmit rates (netlink\n"
        "link stats64) and its root qdisc's backlog now, overlimits per second and drops\n"
        "in the interval (tc statistics),\n"
        "read inside network namespace NS (a name under /run/netns or a path; default: this\n"
        "one; entering it needs CAP_SYS_ADMIN). Rates are over the time really elapsed.\n"
        "Without a root qdisc with statistics the qdisc columns show '-'. Stops after N lines\n"
        "(default: never), or at SIGINT or SIGTERM with status 0. Exit status 1 if IF, NS or\n"
        "the counters cannot be read.\n";

struct watch {
	struct sw_netsat_source *link, *qdisc; /* qdisc: NULL when IF has none */
	struct sw_netsat_counters l, q;
	double t;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads both sources into @p w; prints why and returns -1 when one fails. */
static int sample(struct watch *w, const char *dev)
{
	int rc = sw_netsat_source_read(w->link, &w->l);

	if (rc) {
		fprintf(stderr, "swctl netsat-watch: %s\n", sw_netsat_source_error(w->link));
		return -1;
	}
	if (w->qdisc && (rc = sw_netsat_source_read(w->qdisc, &w->q))) {
		fprintf(stderr, "swctl netsat-watch: %s: %s\n", dev,
		        sw_netsat_source_error(w->qdisc));
		return -1;
	}
	w->t = now_s();
	return 0;
}

static void print_line(const struct watch *a, const struct watch *b, double t0)
{
	double dt = b->t - a->t;

	printf("%8.2f %12.2f %12.2f", b->t - t0,
	       8e-6 * (double)(b->l.rx_bytes - a->l.rx_bytes) / dt,
	       8e-6 * (double)(b->l.tx_bytes - a->l.tx_bytes) / dt);
	if (b->qdisc)
		printf(" %12llu %8llu %12.1f %8llu\n", (unsigned long long)b->q.backlog_bytes,
		       (unsigned long long)b->q.backlog_packets,
		       (double)(b->q.overlimits - a->q.overlimits) / dt,
		       (unsigned long long)(b->q.drops - a->q.drops));
	else
		printf(" %12s %8s %12s %8s\n", "-", "-", "-", "-");
}

static int open_source(const char *kind, const char *dev, const char *netns,
                       struct sw_netsat_source **src)
{
	struct sw_netsat_source_spec spec = {.kind = kind, .dev = dev, .netns = netns};
	char err[256];
	int rc = sw_netsat_source_open(&spec, src, err, sizeof(err));

	if (rc && !(rc == -ENOENT && !strcmp(kind, "qdisc")))
		fprintf(stderr, "swctl netsat-watch: %s\n", err);
	return rc;
}

int cmd_netsat_watch(int argc, char **argv)
{
	static const struct option opts[] = {
	        {"dev", required_argument, NULL, 'd'},      {"netns", required_argument, NULL, 'n'},
	        {"interval", required_argument, NULL, 'i'}, {"count", required_argument, NULL, 'c'},
	        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0},
	};
	const char *dev = NULL, *netns = NULL;
	double interval = 1, first;
	long count = -1;
	struct watch a = {0};
	char *end;
	int c, rc, failed;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			netns = optarg;
			break;
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval >= 0.01) || !isfinite(interval)) {
				fprintf(stderr,
				        "swctl netsat-watch: --interval %s: want seconds >= "
				        "0.01\n",
				        optarg);
				return 2;
			}
			break;
		case 'c':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1) {
				fprintf(stderr,
				        "swctl netsat-watch: --count %s: want an integer >= 1\n",
				        optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(watch_usage, stdout);
			return 0;
		default:
			fputs(watch_usage, stderr);
			return 2;
		}
	}
	if (!dev || optind < argc) {
		fprintf(stderr, "swctl netsat-watch: %s\n%s",
		        dev ? "unexpected argument" : "--dev is required", watch_usage);
		return 2;
	}
	if (open_source("link", dev, netns, &a.link))
		return 1;
	rc = open_source("qdisc", dev, netns, &a.qdisc);
	if (rc && rc != -ENOENT) {
		sw_netsat_source_close(a.link);
		return 1;
	}
	failed = sample(&a, dev) != 0;
	if (!failed) {
		printf("%8s %12s %12s %12s %8s %12s %8s\n", "time_s", "rx_Mbit/s", "tx_Mbit/s",
		       "backlog_B", "backlog_p", "overlimits/s", "drops");
		fflush(stdout);
	}
	first = a.t;
	/* swctl catches SIGINT and SIGTERM (runner.c): they end the watch, after a line */
	for (long n = 0; !failed && !runner_interrupted && (count < 0 || n < count); n++) {
		struct timespec d = {(time_t)interval, (long)((interval - floor(interval)) * 1e9)};
		struct watch b = a;

		nanosleep(&d, NULL);
		failed = sample(&b, dev) != 0;
		if (!failed) {
			print_line(&a, &b, first);
			fflush(stdout);
			a = b;
		}
	}
	sw_netsat_source_close(a.link);
	sw_netsat_source_close(a.qdisc);
	return failed;
}
