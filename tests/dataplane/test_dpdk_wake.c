/* SPDX-License-Identifier: MIT */
/*
 * The dpdk backend's pollable fd (dataplane/README.md, "Waiting"): on a port on a kernel
 * interface (af_packet on the loopback of a network namespace this test makes) and on memif,
 * sw_dp_fd() gives a descriptor that a caller's own poll() sleeps on, and it turns readable
 * for each way work reaches a context: a frame from another process (af_packet: the kernel
 * sees it too; memif: the peer writes the link's interrupt eventfd), a frame from a sibling
 * context of the process on the same port (never on the wire: handed over), and a send of
 * its own (which goes out at the next progress). Every loop here polls the
 * context only after its fd said so or sw_dp_wait(ctx, 0) found work, so a wake-up that
 * never comes fails the test at the bounded wait instead of being covered by spinning.
 * Needs root for the namespace; skipped otherwise. Each test runs in a child of a process
 * that never opens a context, since EAL does not survive a fork.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "dpdk_lo.h"
#include "sw_dp.h"

/* A wake-up that does not come within this long is missing (a frame is microseconds away;
 * a loaded machine can hold a process back for seconds, never for this long). */
#define WAKE_BOUND_MS 20000
#define TAG           7

/* Its port: @p port's devargs, or SW_DP_DPDK_PORT's (af_packet on lo) for NULL. */
static struct sw_dp_ctx *ctx_open(const char *port)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx = NULL;

	sw_dp_config_init(&cfg);
	cfg.backend = "dpdk";
	cfg.dpdk_port = port;
	assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
	assert_true(sw_dp_fd(ctx) >= 0);
	return ctx;
}

/* Contexts armed (sw_dp_wait(ctx, 0) said -ETIMEDOUT) and not woken since: a context is
 * touched again only once its own fd is readable, as in an epoll loop that serves each
 * context when its fd says so, so that another context's wake-up never covers for it. */
static unsigned armed;

/* Sleeps on the fds of ctxs[0..n) and @p extra (-1: none) until one is readable, after
 * arming each context not armed yet (sw_dp_wait(ctx, 0) says 0 instead when it has work).
 * Returns a bit per context that has work: only those may be polled. */
static unsigned sleep_on_fds(struct sw_dp_ctx **ctxs, int n, int extra)
{
	struct pollfd pfd[3];
	unsigned ready = 0;

	for (int i = 0; i < n; i++) {
		if (!(armed & (1u << i))) {
			int rc = sw_dp_wait(ctxs[i], 0);
			if (rc == 0)
				ready |= 1u << i;
			else
				assert_int_equal(rc, -ETIMEDOUT);
		}
		pfd[i] = (struct pollfd){.fd = sw_dp_fd(ctxs[i]), .events = POLLIN};
	}
	if (ready)
		return ready;
	armed = (1u << n) - 1;
	pfd[n] = (struct pollfd){.fd = extra, .events = POLLIN};
	assert_int_equal(poll(pfd, (nfds_t)n + (extra >= 0), WAKE_BOUND_MS) > 0, true);
	for (int i = 0; i < n; i++)
		if (pfd[i].revents & POLLIN)
			ready |= 1u << i;
	armed &= ~ready;
	return ready;
}

/* Sleeps and polls ctxs[0..n) until ctxs[0] receives one message; checks its tag and bytes,
 * releases it. Returns its endpoint. */
static struct sw_dp_ep *recv_one(struct sw_dp_ctx **ctxs, int n, const char *want)
{
	for (;;) {
		struct sw_dp_event ev[8];
		unsigned ready = sleep_on_fds(ctxs, n, -1);
		for (int i = 1; i < n; i++)
			if (ready & (1u << i))
				assert_true(sw_dp_poll(ctxs[i], ev, 8) >= 0);
		if (!(ready & 1))
			continue;
		int got = sw_dp_poll(ctxs[0], ev, 8);
		assert_true(got >= 0);
		for (int i = 0; i < got; i++) {
			if (ev[i].type != SW_DP_EV_RECV)
				continue;
			assert_int_equal(ev[i].tag, TAG);
			assert_int_equal(ev[i].len, strlen(want));
			assert_memory_equal(ev[i].data, want, strlen(want));
			struct sw_dp_ep *ep = ev[i].ep;
			sw_dp_release(ctxs[0], &ev[i]);
			return ep;
		}
	}
}

static void send_str(struct sw_dp_ep *ep, const char *s)
{
	struct iovec iov = {(void *)s, strlen(s)};
	assert_int_equal(sw_dp_send(ep, TAG, &iov, 1, NULL), 0);
}

/* This process listens on @p port and sleeps until a message comes from a peer process on
 * @p peer_port, then echoes it. */
static void message_from_another_process(const char *port, const char *peer_port)
{
	int to_peer[2], from_peer[2];
	char addr[SW_DP_ADDRSTRLEN] = {0}, c;
	assert_int_equal(pipe(to_peer), 0);
	assert_int_equal(pipe(from_peer), 0);
	pid_t pid = fork(); /* before this process opens a context: EAL does not survive one */
	assert_true(pid >= 0);
	if (pid == 0) { /* the peer: connects, sends, answers the echo, leaves when told */
		close(to_peer[1]);
		close(from_peer[0]);
		if (read(to_peer[0], addr, sizeof(addr) - 1) <= 0)
			_exit(2);
		struct sw_dp_ctx *p = ctx_open(peer_port);
		struct sw_dp_ep *ep;
		if (sw_dp_connect(p, addr, &ep))
			_exit(3);
		send_str(ep, "hello from a process");
		recv_one(&p, 1, "echo");
		if (write(from_peer[1], "k", 1) != 1 || read(to_peer[0], &c, 1) < 0)
			_exit(4);
		sw_dp_close(p);
		_exit(0);
	}
	close(to_peer[0]);
	close(from_peer[1]);
	struct sw_dp_ctx *ctx = ctx_open(port);
	assert_int_equal(sw_dp_listen(ctx, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(ctx, addr, sizeof(addr)), 0);
	assert_int_equal(write(to_peer[1], addr, strlen(addr)), (ssize_t)strlen(addr));
	struct sw_dp_ep *ep = recv_one(&ctx, 1, "hello from a process");
	send_str(ep, "echo");
	/* the echo goes out only at a progress: its own fd must say so */
	for (;;) {
		struct sw_dp_event ev[8];
		struct pollfd pfd = {.fd = from_peer[0], .events = POLLIN};
		if (poll(&pfd, 1, 0) == 1)
			break;
		if (sleep_on_fds(&ctx, 1, from_peer[0]))
			assert_true(sw_dp_poll(ctx, ev, 8) >= 0);
	}
	sw_dp_close(ctx); /* closes its port before the peer closes its own (README, memif) */
	close(to_peer[1]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_fd_turns_readable_for_a_message_from_another_process(void **state)
{
	(void)state;
	message_from_another_process(NULL, NULL);
}

/* memif has no kernel to see its frames: the fd is readable because the peer's transmit
 * wrote the link's interrupt eventfd. This listener has no connection, so no deadline arms
 * its timer: without that wake-up, the peer's first frame (its SYN) would never be seen. */
static void test_memif_fd_turns_readable_for_a_message_from_its_peer(void **state)
{
	(void)state;
	char port[128], peer_port[128];
	snprintf(port, sizeof(port), "net_memif0,role=server,socket=/swdp-wake-%d", (int)getpid());
	snprintf(peer_port, sizeof(peer_port), "net_memif0,role=client,socket=/swdp-wake-%d",
	         (int)getpid());
	/* a link of two stations: the listener's address is the one it listens on, the peer's
	 * MAC is found by ARP (lo's, which the environment names, is not on this link) */
	assert_int_equal(unsetenv("SW_DP_DPDK_IP"), 0);
	assert_int_equal(unsetenv("SW_DP_DPDK_NEIGH"), 0);
	message_from_another_process(port, peer_port);
}

static void test_fd_turns_readable_for_a_frame_from_a_sibling_context(void **state)
{
	(void)state;
	char addr[SW_DP_ADDRSTRLEN];
	struct sw_dp_ctx *ctxs[2];
	struct sw_dp_ep *ep;
	ctxs[0] = ctx_open(NULL); /* the listener; the sibling on the same port connects to it */
	ctxs[1] = ctx_open(NULL);
	assert_int_equal(sw_dp_listen(ctxs[0], "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(ctxs[0], addr, sizeof(addr)), 0);
	assert_int_equal(sw_dp_connect(ctxs[1], addr, &ep), 0);
	send_str(ep, "hello from a sibling");
	recv_one(ctxs, 2, "hello from a sibling");
	sw_dp_close(ctxs[1]);
	sw_dp_close(ctxs[0]);
}

/* Each test in a child: the process that forks never opens a context. */
static int run_each_in_a_child(const struct CMUnitTest *tests, size_t n)
{
	int failed = 0;
	for (size_t i = 0; i < n; i++) {
		int status;
		pid_t pid = fork();
		if (pid == 0)
			_exit(_cmocka_run_group_tests(tests[i].name, &tests[i], 1, NULL, NULL) ? 1
			                                                                       : 0);
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0)
			failed++;
	}
	printf("%zu passed, %d failed\n", n - (size_t)failed, failed);
	return failed ? 1 : 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fd_turns_readable_for_a_message_from_another_process),
	        cmocka_unit_test(test_memif_fd_turns_readable_for_a_message_from_its_peer),
	        cmocka_unit_test(test_fd_turns_readable_for_a_frame_from_a_sibling_context),
	};
	if (!sw_test_dpdk_lo()) {
		printf("needs root for a network namespace: skipped\n");
		return 77;
	}
	return run_each_in_a_child(tests, sizeof(tests) / sizeof(tests[0]));
}
