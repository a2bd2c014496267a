/* SPDX-License-Identifier: MIT */
/*
 * The dpdk backend on a veth pair (dataplane/README.md, "Ports on a kernel interface"): two
 * network namespaces this test makes (dpdk-vethPID-a and -b) joined by a veth pair, one
 * process on a port of the driver named by argv[1] at each end, no static neighbours.
 *   af_xdp     the port's XDP program hands every frame to it, so the kernel sees none (ARP
 *              included) and the two find each other by the backend's own ARP; MTU 1500
 *   af_packet  veths of MTU 9000, no dpdk_mtu: the interface's MTU is the default, so the
 *              client's veth must have sent fewer frames than the echoed bytes take at 1500
 *              (it is checked), and a dpdk_mtu above an interface's MTU is refused
 * Messages of 0 bytes to 4 MiB go to the peer and back, every byte compared. Needs root
 * (namespaces, XDP): skipped otherwise. The namespaces, and the veth pair with them, are
 * deleted at the end, pass or fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sw_dp.h"

#define SERVER_IP   "10.254.0.2"
#define CLIENT_IP   "10.254.0.1"
#define SERVER_ADDR SERVER_IP ":7000"
#define WAIT_MS     20000
#define SERVE_MS    60000 /* the server's own bound, if the client never comes or leaves */

static char ns[2][32]; /* client's, server's */
static char veth[2][16];
static const char *driver; /* af_xdp or af_packet */

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Moves this process into namespace i and points SW_DP_DPDK_* at a port of the driver on
 * its veth end, with no neighbour table. */
static int enter(int i, const char *ip)
{
	char path[64], port[64];
	int fd, rc;

	snprintf(path, sizeof(path), "/run/netns/%s", ns[i]);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = setns(fd, CLONE_NEWNET) < 0 ? -errno : 0;
	close(fd);
	snprintf(port, sizeof(port), "net_%s0,iface=%s", driver, veth[i]);
	setenv("SW_DP_DPDK_PORT", port, 1);
	setenv("SW_DP_DPDK_IP", ip, 1);
	unsetenv("SW_DP_DPDK_NEIGH");
	return rc;
}

static struct sw_dp_ctx *ctx_open(void)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx = NULL;

	sw_dp_config_init(&cfg);
	cfg.backend = "dpdk";
	return sw_dp_open(&cfg, &ctx) == 0 ? ctx : NULL;
}

/* The server: echoes every message until its peer closes, then exits 0 (1 on any failure).
 * Says it listens by writing a byte to ready. */
static int serve(int ready)
{
	struct sw_dp_ctx *ctx;
	struct sw_dp_event ev[16];
	int64_t end = now_ms() + SERVE_MS;
	bool closed = false;

	if (enter(1, SERVER_IP) < 0 || !(ctx = ctx_open()) || sw_dp_listen(ctx, SERVER_ADDR) < 0 ||
	    write(ready, "L", 1) != 1)
		return 1;
	while (!closed && now_ms() < end) {
		int n = sw_dp_poll(ctx, ev, 16);
		if (n < 0)
			return 1;
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV) {
				void *copy = malloc(ev[i].len ? ev[i].len : 1);
				struct iovec iov = {copy, ev[i].len};
				int rc;
				if (ev[i].len) /* an empty message has no data */
					memcpy(copy, ev[i].data, ev[i].len);
				sw_dp_release(ctx, &ev[i]);
				while ((rc = sw_dp_send(ev[i].ep, ev[i].tag, &iov, 1, copy)) ==
				       -EAGAIN)
					sw_dp_wait(ctx, 10);
				if (rc < 0)
					return 1;
			} else if (ev[i].type == SW_DP_EV_SEND) {
				free(ev[i].user);
			} else if (ev[i].type == SW_DP_EV_CLOSED) {
				sw_dp_ep_close(ev[i].ep);
				closed = true;
			}
		}
		if (n == 0)
			sw_dp_wait(ctx, 10);
	}
	sw_dp_close(ctx);
	return closed ? 0 : 1;
}

/* The next event of type on ctx, SEND completions skipped. */
static void next_event(struct sw_dp_ctx *ctx, enum sw_dp_ev_type type, struct sw_dp_event *out)
{
	int64_t end = now_ms() + WAIT_MS;

	for (;;) {
		int n = sw_dp_poll(ctx, out, 1);
		assert_true(n >= 0);
		if (n == 1 && out->type == SW_DP_EV_SEND) {
			assert_int_equal(out->status, 0);
			continue;
		}
		if (n == 1) {
			assert_int_equal(out->type, type);
			return;
		}
		assert_true(now_ms() < end);
		sw_dp_wait(ctx, 100);
	}
}

/* Frames the interface has sent, from /proc/net/dev of this process's namespace. */
static uint64_t tx_frames(const char *ifname)
{
	char line[512], name[32];
	unsigned long long v[10] = {0};
	FILE *f = fopen("/proc/net/dev", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %31[^:]: %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
		           name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
		           &v[9]) == 11 &&
		    strcmp(name, ifname) == 0)
			break;
		v[9] = 0;
	}
	fclose(f);
	return v[9];
}

static void echoes_of_every_size_come_back_whole_found_by_arp(void **state)
{
	static const size_t sizes[] = {0, 1, 1500, 65536, 1u << 20, 4u << 20};
	unsigned char *msg = malloc(4u << 20);
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	struct sw_dp_event ev;
	uint64_t frames, bytes = 0;

	(void)state;
	for (size_t i = 0; i < 4u << 20; i++)
		msg[i] = (unsigned char)(i * 131 + 7);
	assert_int_equal(enter(0, CLIENT_IP), 0);
	ctx = ctx_open();
	assert_non_null(ctx);
	frames = tx_frames(veth[0]);
	assert_int_equal(sw_dp_connect(ctx, SERVER_ADDR, &ep), 0);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct iovec iov = {msg, sizes[s]};
		int rc;
		while ((rc = sw_dp_send(ep, s, &iov, 1, NULL)) == -EAGAIN)
			sw_dp_wait(ctx, 10);
		assert_int_equal(rc, 0);
		next_event(ctx, SW_DP_EV_RECV, &ev);
		assert_int_equal(ev.tag, s);
		assert_int_equal(ev.len, sizes[s]);
		if (sizes[s])
			assert_memory_equal(ev.data, msg, sizes[s]);
		sw_dp_release(ctx, &ev);
		bytes += sizes[s];
		printf("# %zu bytes: echoed whole\n", sizes[s]);
	}
	frames = tx_frames(veth[0]) - frames;
	printf("# %s: %llu frames sent for %llu bytes\n", veth[0], (unsigned long long)frames,
	       (unsigned long long)bytes);
	/* At MTU 1500 a segment carries 1424 bytes: the data alone would take more frames. */
	if (strcmp(driver, "af_packet") == 0)
		assert_true(frames < bytes / 1424);
	sw_dp_ep_close(ep);
	sw_dp_close(ctx);
	free(msg);
}

/* A dpdk_mtu above the interface's MTU is refused at open (the kernel would drop every frame
 * larger than its MTU): here lo of the client's namespace, set to 1500. */
static void an_mtu_above_the_interfaces_is_refused(void **state)
{
	struct sw_dp_ctx *ctx = NULL;
	struct sw_dp_config cfg;

	(void)state;
	assert_int_equal(enter(0, CLIENT_IP), 0);
	sw_dp_config_init(&cfg);
	cfg.backend = "dpdk";
	cfg.dpdk_port = "net_af_packet9,iface=lo";
	cfg.dpdk_mtu = 9000;
	assert_int_equal(sw_dp_open(&cfg, &ctx), -EINVAL);
	assert_null(ctx);
	cfg.dpdk_mtu = 1500;
	assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
	sw_dp_close(ctx);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(echoes_of_every_size_come_back_whole_found_by_arp),
	        cmocka_unit_test(an_mtu_above_the_interfaces_is_refused),
	};
	char cmd[1024], group[32];
	int ready[2], failed = 1, st;
	pid_t server, client;
	const char *mtu;
	char b;

	driver = argc > 1 ? argv[1] : "af_xdp";
	if (strcmp(driver, "af_xdp") != 0 && strcmp(driver, "af_packet") != 0) {
		fprintf(stderr, "usage: test_dpdk_veth af_xdp|af_packet\n");
		return 2;
	}
	mtu = strcmp(driver, "af_packet") == 0 ? "9000" : "1500";
	if (geteuid() != 0) {
		printf("needs root for network namespaces and XDP: skipped\n");
		return 77;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(ns[i], sizeof(ns[i]), "dpdk-veth%ld-%c", (long)getpid(), "ab"[i]);
		snprintf(veth[i], sizeof(veth[i]), "dpdkv%ld%c", (long)getpid() % 100000, "ab"[i]);
	}
	snprintf(cmd, sizeof(cmd),
	         "ip netns add %s && ip netns add %s && "
	         "ip link add %s netns %s mtu %s type veth peer name %s netns %s mtu %s && "
	         "ip -n %s addr add %s/24 dev %s && ip -n %s addr add %s/24 dev %s && "
	         "ip -n %s link set %s up && ip -n %s link set %s up && ip -n %s link set lo mtu "
	         "1500",
	         ns[0], ns[1], veth[0], ns[0], mtu, veth[1], ns[1], mtu, ns[0], CLIENT_IP, veth[0],
	         ns[1], SERVER_IP, veth[1], ns[0], veth[0], ns[1], veth[1], ns[0]);
	if (system(cmd) != 0 || pipe(ready) != 0) {
		fprintf(stderr, "test_dpdk_veth: cannot make the namespaces and their veth pair\n");
		goto out;
	}
	/* Each side in a child: this process never opens a context (EAL does not survive a
	 * fork, and it runs ip below). */
	server = fork();
	if (server == 0)
		_exit(serve(ready[1]));
	close(ready[1]);
	if (server < 0 || read(ready[0], &b, 1) != 1) {
		fprintf(stderr, "test_dpdk_veth: the server did not start\n");
		goto out;
	}
	client = fork();
	snprintf(group, sizeof(group), "dpdk %s", driver);
	/* af_xdp runs the echo alone: lo is not an af_xdp port's to refuse */
	if (client == 0)
		_exit(_cmocka_run_group_tests(group, tests,
		                              strcmp(driver, "af_packet") == 0 ? 2 : 1, NULL, NULL)
		              ? 1
		              : 0);
	failed = client < 0 || waitpid(client, &st, 0) != client || !WIFEXITED(st) ||
	         WEXITSTATUS(st) != 0;
	if (failed)
		kill(server, SIGTERM); /* it would wait for its peer's close until SERVE_MS */
	if (waitpid(server, &st, 0) != server || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "test_dpdk_veth: the server failed\n");
		failed = 1;
	}
out:
	snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null",
	         ns[0], ns[1]);
	if (system(cmd) != 0)
		fprintf(stderr, "test_dpdk_veth: cannot delete %s and %s\n", ns[0], ns[1]);
	printf("%d passed, %d failed\n", !failed, failed);
	return failed;
}
