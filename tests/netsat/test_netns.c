/* SPDX-License-Identifier: MIT */
/*
 * The link and qdisc sources on real namespaces (needs root; exit 77, skipped, otherwise).
 * Two namespaces joined by a veth pair with a tbf qdisc on one end; the test sends a known
 * number of UDP frames and checks the counters both sources read from inside the
 * namespaces. IPv6 is off and the neighbours are static, so nothing else crosses the veth:
 * every byte counted is one the test sent. The namespaces are deleted at the end, also when
 * a check fails.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "sw_netsat.h"

#define PAYLOAD 1000
/* What one datagram of PAYLOAD bytes is on the veth: Ethernet, IPv4 and UDP headers. */
#define FRAME (PAYLOAD + 14 + 20 + 8)
#define PORT  9000

static char ns_a[32], ns_b[32];

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static void delete_namespaces(void)
{
	sh("ip netns del %s 2>/dev/null", ns_a);
	sh("ip netns del %s 2>/dev/null", ns_b);
}

/* A: 192.0.2.1 on va, tbf root qdisc; B: 192.0.2.2 on vb. */
static int make_namespaces(void **st)
{
	(void)st;
	snprintf(ns_a, sizeof(ns_a), "sw-netsat-a-%d", (int)getpid());
	snprintf(ns_b, sizeof(ns_b), "sw-netsat-b-%d", (int)getpid());
	atexit(delete_namespaces);
	if (sh("ip netns add %s && ip netns add %s", ns_a, ns_b))
		return -1;
	for (int i = 0; i < 2; i++) {
		const char *ns = i ? ns_b : ns_a;

		if (sh("ip netns exec %s sysctl -qw net.ipv6.conf.all.disable_ipv6=1 "
		       "net.ipv6.conf.default.disable_ipv6=1",
		       ns))
			return -1;
	}
	return sh("ip -n %s link add va address 02:00:00:00:00:01 type veth peer name vb "
	          "address 02:00:00:00:00:02 netns %s",
	          ns_a, ns_b) ||
	       sh("ip -n %s addr add 192.0.2.1/24 dev va && ip -n %s link set va up && "
	          "ip -n %s neigh add 192.0.2.2 lladdr 02:00:00:00:00:02 dev va nud permanent",
	          ns_a, ns_a, ns_a) ||
	       sh("ip -n %s addr add 192.0.2.2/24 dev vb && ip -n %s link set vb up && "
	          "ip -n %s neigh add 192.0.2.1 lladdr 02:00:00:00:00:01 dev vb nud permanent",
	          ns_b, ns_b, ns_b) ||
	       sh("tc -n %s qdisc add dev va root tbf rate 1gbit burst 1mbit latency 100ms", ns_a);
}

static int remove_namespaces(void **st)
{
	(void)st;
	delete_namespaces();
	return 0;
}

/* A UDP socket created inside namespace @p ns, bound to @p addr:PORT or connected to it. */
static int udp_in(const char *ns, const char *addr, int bind_it)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(PORT)};
	char path[64];
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), target, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	target = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(self >= 0 && target >= 0);
	assert_int_equal(setns(target, CLONE_NEWNET), 0);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(setns(self, CLONE_NEWNET), 0);
	close(self);
	close(target);
	assert_true(fd >= 0);
	assert_int_equal(inet_pton(AF_INET, addr, &sa.sin_addr), 1);
	if (bind_it)
		assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	else
		assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static struct sw_netsat_source *source(const char *kind, const char *ns, const char *dev)
{
	struct sw_netsat_source_spec spec = {.kind = kind, .dev = dev, .netns = ns};
	struct sw_netsat_source *src = NULL;
	char err[256];
	int rc = sw_netsat_source_open(&spec, &src, err, sizeof(err));

	if (rc)
		fail_msg("%s source on %s in %s: %s", kind, dev, ns, err);
	return src;
}

static void read_ok(struct sw_netsat_source *src, struct sw_netsat_counters *c)
{
	int rc = sw_netsat_source_read(src, c);

	if (rc)
		fail_msg("read: %s (%d)", sw_netsat_source_error(src), rc);
}

static void link_and_qdisc_count_every_byte_sent_over_the_veth(void **st)
{
	enum { N = 100 };
	struct sw_netsat_source *tx = source("link", ns_a, "va"), *rx = source("link", ns_b, "vb");
	struct sw_netsat_source *q = source("qdisc", ns_a, "va");
	struct sw_netsat_counters tx0, rx0, q0, tx1, rx1, q1;
	int a = udp_in(ns_a, "192.0.2.2", 0), b = udp_in(ns_b, "192.0.2.2", 1);
	char buf[PAYLOAD] = {0};

	(void)st;
	read_ok(tx, &tx0);
	read_ok(rx, &rx0);
	read_ok(q, &q0);
	/* One at a time, each received before the next: none waits in a queue or is dropped. */
	for (int i = 0; i < N; i++) {
		assert_int_equal(send(a, buf, sizeof(buf), 0), PAYLOAD);
		assert_int_equal(recv(b, buf, sizeof(buf), 0), PAYLOAD);
	}
	read_ok(tx, &tx1);
	read_ok(rx, &rx1);
	read_ok(q, &q1);
	assert_int_equal(tx1.tx_bytes - tx0.tx_bytes, N * FRAME);
	assert_int_equal(tx1.tx_packets - tx0.tx_packets, N);
	assert_int_equal(tx1.rx_bytes - tx0.rx_bytes, 0);
	assert_int_equal(rx1.rx_bytes - rx0.rx_bytes, N * FRAME);
	assert_int_equal(rx1.rx_packets - rx0.rx_packets, N);
	assert_int_equal(rx1.tx_bytes - rx0.tx_bytes, 0);
	assert_int_equal(q1.tx_bytes - q0.tx_bytes, N * FRAME);
	assert_int_equal(q1.tx_packets - q0.tx_packets, N);
	assert_int_equal(q1.drops, 0);
	assert_int_equal(q1.backlog_bytes, 0);
	close(a);
	close(b);
	sw_netsat_source_close(tx);
	sw_netsat_source_close(rx);
	sw_netsat_source_close(q);
}

/* At 8 kbit/s with a 2 KiB burst, 40 frames sent at once take about 40 s to drain: what the
 * qdisc has not sent yet is its backlog, and sent plus backlog is every byte offered. */
static void a_shaped_qdisc_shows_its_backlog_and_overlimits(void **st)
{
	enum { N = 40 };
	struct sw_netsat_source *q = source("qdisc", ns_a, "va");
	struct sw_netsat_counters q0, q1;
	int a = udp_in(ns_a, "192.0.2.2", 0), b = udp_in(ns_b, "192.0.2.2", 1);
	char buf[PAYLOAD] = {0};

	(void)st;
	assert_int_equal(
	        sh("tc -n %s qdisc change dev va root tbf rate 8kbit burst 2kb latency 60s", ns_a),
	        0);
	read_ok(q, &q0);
	for (int i = 0; i < N; i++)
		assert_int_equal(send(a, buf, sizeof(buf), 0), PAYLOAD);
	read_ok(q, &q1);
	assert_int_equal(q1.drops, 0);
	assert_true(q1.backlog_bytes > 0);
	assert_int_equal(q1.tx_bytes - q0.tx_bytes + q1.backlog_bytes, N * FRAME);
	assert_int_equal(q1.tx_packets - q0.tx_packets + q1.backlog_packets, N);
	assert_true(q1.overlimits > q0.overlimits);
	close(a);
	close(b);
	sw_netsat_source_close(q);
}

static void an_interface_that_vanished_reads_as_enoent(void **st)
{
	struct sw_netsat_source *tx = source("link", ns_a, "va"), *q = source("qdisc", ns_a, "va");
	struct sw_netsat_counters c;

	(void)st;
	assert_int_equal(sh("ip -n %s link del va", ns_a), 0);
	assert_int_equal(sw_netsat_source_read(tx, &c), -ENOENT);
	assert_non_null(strstr(sw_netsat_source_error(tx), "va"));
	assert_int_equal(sw_netsat_source_read(q, &c), -ENOENT);
	assert_non_null(strstr(sw_netsat_source_error(q), "va"));
	sw_netsat_source_close(tx);
	sw_netsat_source_close(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(link_and_qdisc_count_every_byte_sent_over_the_veth),
	        cmocka_unit_test(a_shaped_qdisc_shows_its_backlog_and_overlimits),
	        cmocka_unit_test(an_interface_that_vanished_reads_as_enoent),
	};

	if (geteuid() != 0) {
		printf("netsat netns: needs root to create network namespaces: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, make_namespaces, remove_namespaces);
}
