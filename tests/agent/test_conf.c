/* SPDX-License-Identifier: MIT */
/* swagent's config file: what a good file gives, and the message every kind of bad line gets. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf.h"

static char path[] = "/tmp/sw-agent-conf-XXXXXX";
static char err[512];

static const char *good = "# node r0n1\n"
                          "node_id = r0n1\n"
                          "rack=0\n"
                          "  controller = 127.0.0.1:7000  # the controller\n"
                          "shuffle_listen = 127.0.0.2:0\n"
                          "replica_listen = 127.0.0.2:7002\n"
                          "key_file = /etc/shufflewatch/cluster.key\n"
                          "store_dir = /var/lib/swagent/spill\n"
                          "data_dir = /var/lib/swagent\n"
                          "\n";

/* Writes good plus extra into the file and loads it. */
static int load(const char *extra, struct sw_agent_conf *c)
{
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%s%s", good, extra);
	fclose(fp);
	return sw_agent_conf_load(path, c, err, sizeof(err));
}

/* Loads good + extra and checks the error is "path:LINE: rest". */
static void expect_error(const char *extra, unsigned line, const char *rest)
{
	struct sw_agent_conf c;
	assert_int_equal(load(extra, &c), -EINVAL);
	char want[512];
	snprintf(want, sizeof(want), "%s:%u: %s", path, line, rest);
	assert_string_equal(err, want);
}

static void test_good_file_gives_its_values_and_the_defaults(void **state)
{
	(void)state;
	struct sw_agent_conf c;
	assert_int_equal(load("", &c), 0);
	assert_string_equal(c.node_id, "r0n1");
	assert_int_equal(c.rack, 0);
	assert_string_equal(c.controller, "127.0.0.1:7000");
	assert_string_equal(c.shuffle_listen, "127.0.0.2:0");
	assert_string_equal(c.replica_listen, "127.0.0.2:7002");
	assert_string_equal(c.metrics_listen, "");
	assert_string_equal(c.key_file, "/etc/shufflewatch/cluster.key");
	assert_string_equal(c.transport, "tcp");
	assert_int_equal(c.map_slots, 2);
	assert_int_equal(c.reduce_slots, 2);
	assert_int_equal(c.store_mem, 64u << 20);
	assert_int_equal(c.heartbeat_ms, 3000);
}

static void test_sizes_take_binary_suffixes(void **state)
{
	(void)state;
	struct sw_agent_conf c;
	assert_int_equal(load("store_mem = 3G\nmap_slots = 8\ntransport = ucx\n", &c), 0);
	assert_int_equal(c.store_mem, 3ull << 30);
	assert_int_equal(c.map_slots, 8);
	assert_string_equal(c.transport, "ucx");
}

static void test_every_bad_line_names_file_line_and_field(void **state)
{
	(void)state;
	expect_error("colour = blue\n", 11, "colour: unknown field");
	expect_error("rack 3\n", 11, "expected 'key = value'");
	expect_error("rack = 1\n", 11, "rack: set twice (first on line 3)");
	expect_error("map_slots = many\n", 11, "map_slots: not a number: 'many'");
	expect_error("map_slots = 4x\n", 11,
	             "map_slots: trailing characters after the number: '4x'");
	expect_error("map_slots = 5000\n", 11, "map_slots: out of range (0..1024): '5000'");
	expect_error("map_slots = 99999999999999999999999\n", 11,
	             "map_slots: number too large: '99999999999999999999999'");
	expect_error("store_mem = 12Q\n", 11,
	             "store_mem: unknown size suffix (use K, M, G or T): '12Q'");
	expect_error("store_mem = 1K\n", 11,
	             "store_mem: out of range (1048576..1099511627776): '1K'");
	expect_error("metrics_listen = localhost:9100\n", 11,
	             "metrics_listen: bad IPv4 address: 'localhost:9100'");
	expect_error("metrics_listen = 127.0.0.1:70000\n", 11,
	             "metrics_listen: bad port (0..65535): '127.0.0.1:70000'");
	expect_error("metrics_listen = 127.0.0.1\n", 11,
	             "metrics_listen: expected IPv4:port: '127.0.0.1'");
	expect_error("transport = carrier-pigeon\n", 11,
	             "transport: unknown transport (tcp, ucx or dpdk): 'carrier-pigeon'");
	expect_error("heartbeat_ms = 0\n", 11, "heartbeat_ms: out of range (100..600000): '0'");
	expect_error("\n\nkey_file =\n", 13, "key_file: set twice (first on line 7)");
}

static void test_a_bad_node_name_and_an_empty_path_are_refused(void **state)
{
	(void)state;
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "node_id = rack 0/node 1\n");
	fclose(fp);
	struct sw_agent_conf c;
	assert_int_equal(sw_agent_conf_load(path, &c, err, sizeof(err)), -EINVAL);
	char want[512];
	snprintf(want, sizeof(want),
	         "%s:1: node_id: not a node name (letters, digits, '.', '_', '-'): 'rack 0/node 1'",
	         path);
	assert_string_equal(err, want);

	fp = fopen(path, "w");
	fprintf(fp, "data_dir = \n");
	fclose(fp);
	assert_int_equal(sw_agent_conf_load(path, &c, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:1: data_dir: empty path: ''", path);
	assert_string_equal(err, want);
}

static void test_a_missing_required_field_is_named(void **state)
{
	(void)state;
	FILE *fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%s", strstr(good, "rack"));
	fclose(fp);
	struct sw_agent_conf c;
	assert_int_equal(sw_agent_conf_load(path, &c, err, sizeof(err)), -EINVAL);
	char want[512];
	snprintf(want, sizeof(want), "%s: node_id: missing (required)", path);
	assert_string_equal(err, want);
}

static void test_an_overlong_line_is_refused_not_split(void **state)
{
	(void)state;
	char *extra = malloc(8192);
	memset(extra, 'x', 8190);
	memcpy(extra, "data_dir = /", 12);
	extra[8190] = '\n';
	extra[8191] = 0;
	struct sw_agent_conf c;
	assert_int_equal(load(extra, &c), -EINVAL);
	free(extra);
	assert_non_null(strstr(err, ":11: line too long"));
}

static void test_an_unreadable_file_gives_its_errno(void **state)
{
	(void)state;
	struct sw_agent_conf c;
	assert_int_equal(sw_agent_conf_load("/nonexistent/swagent.conf", &c, err, sizeof(err)),
	                 -ENOENT);
	assert_string_equal(err, "/nonexistent/swagent.conf: No such file or directory");
}

int main(void)
{
	int fd = mkstemp(path);
	if (fd < 0)
		return 1;
	close(fd);
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_good_file_gives_its_values_and_the_defaults),
	        cmocka_unit_test(test_sizes_take_binary_suffixes),
	        cmocka_unit_test(test_every_bad_line_names_file_line_and_field),
	        cmocka_unit_test(test_a_bad_node_name_and_an_empty_path_are_refused),
	        cmocka_unit_test(test_a_missing_required_field_is_named),
	        cmocka_unit_test(test_an_overlong_line_is_refused_not_split),
	        cmocka_unit_test(test_an_unreadable_file_gives_its_errno),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	return rc;
}
