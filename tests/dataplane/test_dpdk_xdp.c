/* SPDX-License-Identifier: MIT */
/*
 * The dpdk backend on net_af_xdp (dataplane/README.md, "Ports on a kernel interface"): two
 * network namespaces this test makes (dpdk-xdpPID-a and -b) joined by a veth pair, one
 * process on an af_xdp port at each end, no static neighbours. An af_xdp port's XDP program
 * hands every frame to the port, so the kernel sees none (ARP included) and the two find
 * each other by the backend's own ARP. Messages of 0 bytes to 4 MiB go to the peer and
 * back, every byte compared. Needs root (namespaces, XDP): skipped otherwise. The
 * namespaces, and the veth pair with them, are deleted at the end, pass or fail.
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

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Moves this process into namespace i and points SW_DP_DPDK_* at an af_xdp port on its veth
 * end, with no neighbour table. */
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
	snprintf(port, sizeof(port), "net_af_xdp0,iface=%s", veth[i]);
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

static void echoes_of_every_size_come_back_whole_over_af_xdp_found_by_arp(void **state)
{
	static const size_t sizes[] = {0, 1, 1500, 65536, 1u << 20, 4u << 20};
	unsigned char *msg = malloc(4u << 20);
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	struct sw_dp_event ev;

	(void)state;
	for (size_t i = 0; i < 4u << 20; i++)
		msg[i] = (unsigned char)(i * 131 + 7);
	assert_int_equal(enter(0, CLIENT_IP), 0);
	ctx = ctx_open();
	assert_non_null(ctx);
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
		printf("# %zu bytes: echoed whole\n", sizes[s]);
	}
	sw_dp_ep_close(ep);
	sw_dp_close(ctx);
	free(msg);
}

int main(void)
{
	const struct CMUnitTest test =
	        cmocka_unit_test(echoes_of_every_size_come_back_whole_over_af_xdp_found_by_arp);
	char cmd[1024];
	int ready[2], failed = 1, st;
	pid_t server, client;
	char b;

	if (geteuid() != 0) {
		printf("needs root for network namespaces and XDP: skipped\n");
		return 77;
	}
	for (int i = 0; i < 2; i++) {
		snprintf(ns[i], sizeof(ns[i]), "dpdk-xdp%ld-%c", (long)getpid(), "ab"[i]);
		snprintf(veth[i], sizeof(veth[i]), "dpdkx%ld%c", (long)getpid() % 100000, "ab"[i]);
	}
	snprintf(cmd, sizeof(cmd),
	         "ip netns add %s && ip netns add %s && "
	         "ip link add %s netns %s type veth peer name %s netns %s && "
	         "ip -n %s addr add %s/24 dev %s && ip -n %s addr add %s/24 dev %s && "
	         "ip -n %s link set %s up && ip -n %s link set %s up",
	         ns[0], ns[1], veth[0], ns[0], veth[1], ns[1], ns[0], CLIENT_IP, veth[0], ns[1],
	         SERVER_IP, veth[1], ns[0], veth[0], ns[1], veth[1]);
	if (system(cmd) != 0 || pipe(ready) != 0) {
		fprintf(stderr, "test_dpdk_xdp: cannot make the namespaces and their veth pair\n");
		goto out;
	}
	/* Each side in a child: this process never opens a context (EAL does not survive a
	 * fork, and it runs ip below). */
	server = fork();
	if (server == 0)
		_exit(serve(ready[1]));
	close(ready[1]);
	if (server < 0 || read(ready[0], &b, 1) != 1) {
		fprintf(stderr, "test_dpdk_xdp: the server did not start\n");
		goto out;
	}
	client = fork();
	if (client == 0)
		_exit(_cmocka_run_group_tests("dpdk af_xdp", &test, 1, NULL, NULL) ? 1 : 0);
	failed = client < 0 || waitpid(client, &st, 0) != client || !WIFEXITED(st) ||
	         WEXITSTATUS(st) != 0;
	if (failed)
		kill(server, SIGTERM); /* it would wait for its peer's close until SERVE_MS */
	if (waitpid(server, &st, 0) != server || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "test_dpdk_xdp: the server failed\n");
		failed = 1;
	}
out:
	snprintf(cmd, sizeof(cmd), "ip netns del %s 2>/dev/null; ip netns del %s 2>/dev/null",
	         ns[0], ns[1]);
	if (system(cmd) != 0)
		fprintf(stderr, "test_dpdk_xdp: cannot delete %s and %s\n", ns[0], ns[1]);
	printf("%d passed, %d failed\n", !failed, failed);
	return failed;
}
