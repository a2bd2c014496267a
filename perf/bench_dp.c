/* SPDX-License-Identifier: MIT */
/*
 * Raw transport throughput over loopback: one sender streams messages of SIZE bytes to a
 * receiver process that releases each at once; prints Gbit/s (payload) on one line.
 *   bench_dp BACKEND SIZE [MIB_TOTAL]   sw_dp backend: "tcp", "ucx", or "ucx-trusted" (ucx
 *                                       with ucx_trust_peers); UCX_TLS from the env
 *   bench_dp memcpy SIZE [MIB_TOTAL]    the reference: memcpy of the same sizes, one thread
 * perf/bench-dp.sh runs it against iperf3 and memcpy and prints the ratios.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sw_dp.h"

#define TAG_DATA 1
#define TAG_END  2

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_dp: %s: %s\n", what, sw_dp_strerror(rc));
	exit(1);
}

static void config(struct sw_dp_config *cfg, const char *backend)
{
	sw_dp_config_init(cfg);
	cfg->backend = backend;
	if (strcmp(backend, "ucx-trusted") == 0) {
		cfg->backend = "ucx";
		cfg->ucx_trust_peers = 1;
	}
}

/* Polls one batch; waits when nothing happened. */
static int pump(struct sw_dp_ctx *ctx, struct sw_dp_event *ev, int max)
{
	int n = sw_dp_poll(ctx, ev, max);

	if (n < 0)
		die("poll", n);
	if (n == 0 && sw_dp_wait(ctx, 10000) == -ETIMEDOUT)
		die("wait", -ETIMEDOUT);
	return n;
}

/* The receiving process: counts and releases; answers TAG_END once everything is in. */
static void receiver(const char *backend, int wfd)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx;
	char addr[SW_DP_ADDRSTRLEN];
	int rc;

	config(&cfg, backend);
	rc = sw_dp_open(&cfg, &ctx);
	if (!rc)
		rc = sw_dp_listen(ctx, "127.0.0.1:0");
	if (!rc)
		rc = sw_dp_listen_addr(ctx, addr, sizeof(addr));
	if (rc)
		die("receiver", rc);
	if (write(wfd, addr, sizeof(addr)) != sizeof(addr))
		exit(1);
	close(wfd);
	for (;;) {
		struct sw_dp_event ev[64];
		int n = pump(ctx, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_CLOSED) {
				sw_dp_ep_close(ev[i].ep);
				sw_dp_close(ctx);
				exit(0);
			}
			if (ev[i].type == SW_DP_EV_RECV && ev[i].tag == TAG_END)
				sw_dp_send(ev[i].ep, TAG_END, NULL, 0, NULL);
			sw_dp_release(ctx, &ev[i]);
		}
	}
}

static double run_transport(const char *backend, size_t size, size_t total)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	char addr[SW_DP_ADDRSTRLEN];
	char *buf = malloc(size);
	struct iovec iov = {buf, size};
	size_t count = total / size, sent = 0;
	int fds[2], st, done = 0, rc;
	double t0, t1;
	pid_t pid;

	memset(buf, 0x5a, size);
	if (pipe(fds))
		exit(1);
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		receiver(backend, fds[1]);
	}
	close(fds[1]);
	if (read(fds[0], addr, sizeof(addr)) != sizeof(addr))
		die("receiver did not start", -EIO);
	close(fds[0]);
	config(&cfg, backend);
	rc = sw_dp_open(&cfg, &ctx);
	if (!rc)
		rc = sw_dp_connect(ctx, addr, &ep);
	if (rc)
		die("sender", rc);
	/* The first message sets the connection up: time from its echo onwards. */
	sw_dp_send(ep, TAG_END, NULL, 0, NULL);
	while (!done) {
		struct sw_dp_event ev[64];
		int n = pump(ctx, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV)
				done = 1;
			else if (ev[i].type == SW_DP_EV_CLOSED)
				die("connection", ev[i].status);
			sw_dp_release(ctx, &ev[i]);
		}
	}
	t0 = now_s();
	done = 0;
	while (!done) {
		struct sw_dp_event ev[64];
		int n;
		while (sent < count && (rc = sw_dp_send(ep, TAG_DATA, &iov, 1, NULL)) == 0)
			sent++;
		if (sent == count && sw_dp_send(ep, TAG_END, NULL, 0, NULL) == 0)
			sent++;
		n = pump(ctx, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV && ev[i].tag == TAG_END)
				done = 1;
			else if (ev[i].type == SW_DP_EV_CLOSED)
				die("connection", ev[i].status);
			else if (ev[i].type == SW_DP_EV_SEND && ev[i].status)
				die("send", ev[i].status);
			sw_dp_release(ctx, &ev[i]);
		}
	}
	t1 = now_s();
	sw_dp_ep_close(ep);
	sw_dp_close(ctx);
	waitpid(pid, &st, 0);
	free(buf);
	return count * size * 8 / (t1 - t0) / 1e9;
}

/* Copies SIZE-byte blocks through 256 MiB arenas, so every copy reads and writes memory
 * rather than cache: what a transport moving fresh data is up against. */
#define ARENA (256u << 20)
static double run_memcpy(size_t size, size_t total)
{
	size_t slots = size < ARENA ? ARENA / size : 1, count = total / size;
	char *src = malloc(slots * size), *dst = malloc(slots * size);
	double t0, t1;

	memset(src, 0x5a, slots * size);
	memset(dst, 0, slots * size);
	t0 = now_s();
	for (size_t i = 0; i < count; i++) {
		size_t off = (i % slots) * size;
		memcpy(dst + off, src + off, size);
		__asm__ volatile("" : : "r"(dst) : "memory"); /* keep every copy */
	}
	t1 = now_s();
	free(src);
	free(dst);
	return count * size * 8 / (t1 - t0) / 1e9;
}

int main(int argc, char **argv)
{
	size_t size, total;

	if (argc < 3) {
		fprintf(stderr, "usage: %s BACKEND|memcpy SIZE_BYTES [MIB_TOTAL]\n", argv[0]);
		return 2;
	}
	size = strtoull(argv[2], NULL, 0);
	total = (argc > 3 ? strtoull(argv[3], NULL, 0) : 2048) << 20;
	if (size == 0 || size > total) {
		fprintf(stderr, "bench_dp: SIZE must be 1..MIB_TOTAL MiB\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	printf("%.2f\n", strcmp(argv[1], "memcpy") == 0 ? run_memcpy(size, total)
	                                                : run_transport(argv[1], size, total));
	return 0;
}
