/* SPDX-License-Identifier: MIT */
/*
 * Counter sources that need no privilege: the registry and its argument checks, and the
 * RDMA port counters. There is no RDMA device here, so the rdma source reads a sysfs-like
 * tree the test writes (ROOT/DEVICE/ports/PORT/counters/...), which is the kernel's layout.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/rtnetlink.h>

#include "nl.h" /* the source's socket, to leave a reply unread */

static char root[64];

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ROOT/mlx5_0/ports/1/counters with the given data words and packets. */
static void write_port(const char *rcv_words, const char *xmit_words)
{
	char dir[256];

	snprintf(dir, sizeof(dir), "%s/mlx5_0", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1", root);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/mlx5_0/ports/1/counters", root);
	mkdir(dir, 0755);
	write_file(dir, "port_rcv_data", rcv_words);
	write_file(dir, "port_xmit_data", xmit_words);
	write_file(dir, "port_rcv_packets", "7\n");
	write_file(dir, "port_xmit_packets", "9\n");
}

static int make_root(void **st)
{
	(void)st;
	snprintf(root, sizeof(root), "/tmp/sw-netsat-rdma-XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int remove_root(void **st)
{
	char cmd[128];

	(void)st;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct sw_netsat_source *open_rdma(const char *dev)
{
	struct sw_netsat_source_spec spec = {.kind = "rdma", .dev = dev, .sysfs_root = root};
	struct sw_netsat_source *src = NULL;
	char err[256];

	assert_int_equal(sw_netsat_source_open(&spec, &src, err, sizeof(err)), 0);
	assert_string_equal(err, "");
	return src;
}

static void rdma_data_counters_count_four_byte_words(void **st)
{
	struct sw_netsat_counters c;
	struct sw_netsat_source *src;

	(void)st;
	write_port("1000\n", "250");
	src = open_rdma("mlx5_0/1");
	assert_int_equal(sw_netsat_source_read(src, &c), 0);
	assert_int_equal(c.rx_bytes, 4000);
	assert_int_equal(c.tx_bytes, 1000);
	assert_int_equal(c.rx_packets, 7);
	assert_int_equal(c.tx_packets, 9);
	assert_int_equal(c.backlog_bytes, 0);
	/* Counters are read afresh each time. */
	write_port("4611686018427387903\n", "0\n"); /* (2^64 - 4) / 4: the largest that fits */
	assert_int_equal(sw_netsat_source_read(src, &c), 0);
	assert_true(c.rx_bytes == UINT64_MAX - 3);
	assert_int_equal(c.tx_bytes, 0);
	sw_netsat_source_close(src);
}

static void rdma_counter_that_is_not_a_number_is_refused_naming_the_file(void **st)
{
	static const char *const bad[] = {"",
	                                  "\n",
	                                  "12a\n",
	                                  "-5\n",
	                                  " 5\n",
	                                  "1 2\n",
	                                  "4611686018427387904\n",
	                                  "99999999999999999999\n"};
	struct sw_netsat_counters c;
	struct sw_netsat_source *src;

	(void)st;
	write_port("1\n", "1\n");
	src = open_rdma("mlx5_0/1");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_port(bad[i], "1\n");
		assert_int_equal(sw_netsat_source_read(src, &c), -EBADMSG);
		assert_non_null(strstr(sw_netsat_source_error(src),
		                       "mlx5_0/ports/1/counters/port_rcv_data"));
	}
	write_port("2\n", "1\n");
	assert_int_equal(sw_netsat_source_read(src, &c), 0);
	assert_string_equal(sw_netsat_source_error(src), "");
	assert_int_equal(c.rx_bytes, 8);
	sw_netsat_source_close(src);
}

static void rdma_port_that_vanished_reads_as_enoent(void **st)
{
	char path[256];
	struct sw_netsat_counters c;
	struct sw_netsat_source *src;

	(void)st;
	write_port("1\n", "1\n");
	src = open_rdma("mlx5_0/1");
	snprintf(path, sizeof(path), "%s/mlx5_0/ports/1/counters/port_xmit_data", root);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sw_netsat_source_read(src, &c), -ENOENT);
	assert_non_null(strstr(sw_netsat_source_error(src), "port_xmit_data"));
	sw_netsat_source_close(src);
}

static void open_refuses_what_it_cannot_read_with_a_message(void **st)
{
	static const struct {
		struct sw_netsat_source_spec spec;
		int rc;
		const char *says;
	} cases[] = {
	        {{.kind = "snmp", .dev = "eth0"}, -EINVAL, "unknown counter source kind 'snmp'"},
	        {{.kind = NULL, .dev = "eth0"}, -EINVAL, "unknown counter source kind"},
	        {{.kind = "link"}, -EINVAL, "link source: no device"},
	        {{.kind = "rdma", .dev = "mlx5_0"}, -EINVAL, "not DEVICE/PORT"},
	        {{.kind = "rdma", .dev = "mlx5_0/x"}, -EINVAL, "not DEVICE/PORT"},
	        {{.kind = "rdma", .dev = "../1"}, -EINVAL, "not DEVICE/PORT"},
	        {{.kind = "rdma", .dev = "mlx5_0/2"}, -ENOENT, "no port counters at"},
	        {{.kind = "rdma", .dev = "mlx5_0/1", .netns = "x"},
	         -EINVAL,
	         "no network namespace"},
	        {{.kind = "link", .dev = "lo", .sysfs_root = "/sys"}, -EINVAL, "no sysfs root"},
	        {{.kind = "link", .dev = "lo", .netns = "../x"}, -EINVAL, "bad network namespace"},
	        {{.kind = "qdisc", .dev = "lo", .netns = "sw-netsat-no-such-ns"},
	         -ENOENT,
	         "/run/netns/sw-netsat-no-such-ns"},
	        {{.kind = "link", .dev = "sw-no-such-if"}, -ENOENT, "no interface sw-no-such-if"},
	};
	struct sw_netsat_source *src = (void *)1;
	char err[256];

	(void)st;
	write_port("1\n", "1\n");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sw_netsat_source_spec spec = cases[i].spec;

		if (!strcmp(spec.kind ? spec.kind : "", "rdma"))
			spec.sysfs_root = root;
		assert_int_equal(sw_netsat_source_open(&spec, &src, err, sizeof(err)), cases[i].rc);
		assert_null(src);
		if (!strstr(err, cases[i].says))
			fail_msg("case %zu: '%s' does not say '%s'", i, err, cases[i].says);
	}
	assert_int_equal(sw_netsat_source_open(NULL, &src, err, sizeof(err)), -EINVAL);
}

static void the_kinds_are_link_qdisc_and_rdma(void **st)
{
	const char *const *k = sw_netsat_source_kinds();

	(void)st;
	assert_string_equal(k[0], "link");
	assert_string_equal(k[1], "qdisc");
	assert_string_equal(k[2], "rdma");
	assert_null(k[3]);
}

static void link_source_reads_loopback_in_the_callers_namespace(void **st)
{
	struct sw_netsat_source_spec spec = {.kind = "link", .dev = "lo"};
	struct sw_netsat_counters a, b;
	struct sw_netsat_source *src;

	(void)st;
	assert_int_equal(sw_netsat_source_open(&spec, &src, NULL, 0), 0);
	assert_int_equal(sw_netsat_source_read(src, &a), 0);
	assert_int_equal(sw_netsat_source_read(src, &b), 0);
	assert_true(b.rx_bytes >= a.rx_bytes);
	sw_netsat_source_close(src);
}

/* A reply left unread (a read that gave up halfway through a dump) must not break the next
 * read: the source skips what carries another sequence number. */
static void a_read_skips_the_rest_of_an_abandoned_reply(void **st)
{
	struct sw_netsat_source_spec spec = {.kind = "link", .dev = "lo"};
	struct sw_netsat_counters c;
	struct sw_netsat_source *src;
	struct netsat_nl *nl;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;

	(void)st;
	assert_int_equal(sw_netsat_source_open(&spec, &src, NULL, 0), 0);
	nl = (struct netsat_nl *)src;
	req->nlmsg_type = RTM_GETLINK;
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = 4242;
	ifi = mnl_nlmsg_put_extra_header(req, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	assert_true(mnl_socket_sendto(nl->sock, req, req->nlmsg_len) > 0);
	assert_int_equal(sw_netsat_source_read(src, &c), 0);
	assert_int_equal(sw_netsat_source_read(src, &c), 0);
	sw_netsat_source_close(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(rdma_data_counters_count_four_byte_words),
	        cmocka_unit_test(rdma_counter_that_is_not_a_number_is_refused_naming_the_file),
	        cmocka_unit_test(rdma_port_that_vanished_reads_as_enoent),
	        cmocka_unit_test(open_refuses_what_it_cannot_read_with_a_message),
	        cmocka_unit_test(the_kinds_are_link_qdisc_and_rdma),
	        cmocka_unit_test(link_source_reads_loopback_in_the_callers_namespace),
	        cmocka_unit_test(a_read_skips_the_rest_of_an_abandoned_reply),
	};

	return cmocka_run_group_tests(tests, make_root, remove_root);
}
