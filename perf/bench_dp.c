/* SPDX-License-Identifier: MIT */
/*
 * Raw transport throughput over loopback: one sender streams messages of SIZE bytes to a
 * receiver process that releases each at once; prints one line "GBITS CORES RETX DUPS":
 * Gbit/s of payload, the CPU both processes spent in the timed window over its length (cores
 * busy; GBITS / CORES is Gbit/s per core; memcpy prints 1 core), and for dpdk the segments
 * the sender sent again and those the receiver got twice (sw_dp_counters; 0 elsewhere).
 *   bench_dp BACKEND SIZE [MIB_TOTAL]   sw_dp backend: "tcp", "ucx", or "ucx-trusted" (ucx
 *                                       with ucx_trust_peers); UCX_TLS from the env
 *   bench_dp memcpy SIZE [MIB_TOTAL]    the reference: memcpy of the same sizes, one thread
 *   bench_dp dpdk SIZE [MIB_TOTAL]      the dpdk backend over memif between the two processes
 *   bench_dp memif-raw MTU [MIB_TOTAL [BUF_BYTES]]  the packet-I/O limit of the same memif
 *                                       link: a minimal DPDK sender and receiver of frames of
 *                                       that IP MTU (the dpdk backend's is 9000 there), payload
 *                                       copied out of a source buffer and into a sink of
 *                                       BUF_BYTES each (1 MiB by default; a message's size
 *                                       for a reference that, like the backend, streams out
 *                                       of and into buffers that size), no reliability
 * perf/bench-dp.sh runs it against iperf3 and memcpy and prints the ratios.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sw_dp.h"

#if __has_include(<rte_ethdev.h>) /* sw_dp_dep carries DPDK when the dataplane has it */
#define BENCH_DPDK 1
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#endif

#define TAG_DATA 1
#define TAG_END  2

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds of the whole process, every thread (memif's and UCX's helpers included). */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, int rc)
{
	fprintf(stderr, "bench_dp: %s: %s\n", what, sw_dp_strerror(rc));
	exit(1);
}

static long session; /* the sender's pid: names the memif socket both processes use */

static void config(struct sw_dp_config *cfg, const char *backend, int server)
{
	static char port[128];

	sw_dp_config_init(cfg);
	cfg->backend = backend;
	if (strcmp(backend, "ucx-trusted") == 0) {
		cfg->backend = "ucx";
		cfg->ucx_trust_peers = 1;
	}
	if (strcmp(backend, "dpdk") == 0) {
		snprintf(port, sizeof(port), "net_memif_%s,role=%s,socket=/swdp-bench-%ld",
		         server ? "s" : "c", server ? "server" : "client", session);
		cfg->dpdk_port = port;
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

/* The two processes of one run. The receiver tells the sender when it is ready (its address,
 * over `ready`), and leaves only at the end of file on `hold`, once the sender has closed its
 * own side: DPDK 22.11's memif crashes a process whose peer unmaps the rings while it is
 * still moving frames (dataplane/README.md), and a receiver that left right after its last
 * frame took the sender down with it, or left its answer unread. */
struct pipes {
	int ready[2], hold[2];
};

static void pipes_open(struct pipes *p)
{
	if (pipe(p->ready) || pipe(p->hold))
		exit(1);
}

/* In the receiver: says it is ready with msg, then keeps only the hold pipe's read end. */
static void pipes_ready(struct pipes *p, const void *msg, size_t len)
{
	close(p->ready[0]);
	close(p->hold[1]);
	if (write(p->ready[1], msg, len) != (ssize_t)len)
		exit(1);
	close(p->ready[1]);
}

static void pipes_hold(struct pipes *p)
{
	char c;

	while (read(p->hold[0], &c, 1) > 0)
		;
}

/* In the sender: waits until the receiver is ready. */
static void pipes_wait(struct pipes *p, void *msg, size_t len)
{
	close(p->ready[1]);
	close(p->hold[0]);
	if (read(p->ready[0], msg, len) != (ssize_t)len)
		die("receiver did not start", -EIO);
	close(p->ready[0]);
}

/* What the receiver answers each TAG_END with. */
struct rx_report {
	double cpu;  /* CPU seconds since its previous answer */
	double dups; /* segments it received twice, in all */
};

/* The sender's figures, printed before anything is torn down. */
static void report(double bytes, double t0, double t1, double cpu, double retx, double dups)
{
	printf("%.2f %.2f %.0f %.0f\n", bytes * 8 / (t1 - t0) / 1e9, cpu / (t1 - t0), retx, dups);
	fflush(stdout);
}

/* The receiving process: counts and releases; answers each TAG_END with its report (the
 * first answers the connection's set-up). */
static void receiver(const char *backend, struct pipes *p)
{
	static struct rx_report r;
	struct iovec iov = {&r, sizeof(r)};
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx;
	char addr[SW_DP_ADDRSTRLEN];
	double mark = cpu_s();
	int rc;

	config(&cfg, backend, 1);
	rc = sw_dp_open(&cfg, &ctx);
	if (!rc)
		rc = sw_dp_listen(ctx, "127.0.0.1:0");
	if (!rc)
		rc = sw_dp_listen_addr(ctx, addr, sizeof(addr));
	if (rc)
		die("receiver", rc);
	pipes_ready(p, addr, sizeof(addr));
	for (;;) {
		struct sw_dp_event ev[64];
		int n = pump(ctx, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_CLOSED) {
				sw_dp_ep_close(ev[i].ep);
				pipes_hold(p);
				sw_dp_close(ctx);
				exit(0);
			}
			if (ev[i].type == SW_DP_EV_RECV && ev[i].tag == TAG_END) {
				struct sw_dp_counters k;
				double c = cpu_s();
				sw_dp_counters(ctx, &k);
				r.cpu = c - mark;
				r.dups = (double)k.rx_dup_segs;
				mark = c;
				sw_dp_send(ev[i].ep, TAG_END, &iov, 1, NULL);
			}
			sw_dp_release(ctx, &ev[i]);
		}
	}
}

/* Sends TAG_END and waits for the receiver's report. */
static struct rx_report round_trip(struct sw_dp_ctx *ctx, struct sw_dp_ep *ep)
{
	struct rx_report r = {-1, 0};

	while (sw_dp_send(ep, TAG_END, NULL, 0, NULL) == -EAGAIN)
		pump(ctx, NULL, 0);
	while (r.cpu < 0) {
		struct sw_dp_event ev[64];
		int n = pump(ctx, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV && ev[i].tag == TAG_END &&
			    ev[i].len == sizeof(r))
				memcpy(&r, ev[i].data, sizeof(r));
			else if (ev[i].type == SW_DP_EV_CLOSED)
				die("connection", ev[i].status);
			else if (ev[i].type == SW_DP_EV_SEND && ev[i].status)
				die("send", ev[i].status);
			sw_dp_release(ctx, &ev[i]);
		}
	}
	return r;
}

static void run_transport(const char *backend, size_t size, size_t total)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
	struct pipes p;
	char addr[SW_DP_ADDRSTRLEN];
	char *buf = malloc(size);
	struct iovec iov = {buf, size};
	size_t count = total / size, sent = 0;
	int st, rc;
	struct sw_dp_counters k;
	struct rx_report r;
	double t0, t1, c0;
	pid_t pid;

	memset(buf, 0x5a, size);
	pipes_open(&p);
	pid = fork();
	if (pid == 0)
		receiver(backend, &p);
	pipes_wait(&p, addr, sizeof(addr));
	config(&cfg, backend, 0);
	rc = sw_dp_open(&cfg, &ctx);
	if (!rc)
		rc = sw_dp_connect(ctx, addr, &ep);
	if (rc)
		die("sender", rc);
	/* The first round trip sets the connection up: time from its answer onwards. */
	round_trip(ctx, ep);
	t0 = now_s();
	c0 = cpu_s();
	while (sent < count) {
		struct sw_dp_event ev[64];
		int n;
		while (sent < count && sw_dp_send(ep, TAG_DATA, &iov, 1, NULL) == 0)
			sent++;
		n = pump(ctx, ev, 64);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_CLOSED)
				die("connection", ev[i].status);
			else if (ev[i].type == SW_DP_EV_SEND && ev[i].status)
				die("send", ev[i].status);
			sw_dp_release(ctx, &ev[i]);
		}
	}
	r = round_trip(ctx, ep); /* in order behind the data: every byte has arrived */
	t1 = now_s();
	sw_dp_counters(ctx, &k);
	report((double)count * size, t0, t1, cpu_s() - c0 + r.cpu, (double)k.retransmits, r.dups);
	sw_dp_ep_close(ep);
	sw_dp_close(ctx);
	close(p.hold[1]);
	waitpid(pid, &st, 0);
	free(buf);
}

#ifdef BENCH_DPDK
#define RAW_HDRS 42 /* Ethernet, IPv4 and UDP headers: the payload follows */

/* One memif port of this process for frames of `frame` bytes (EAL initialised here: call
 * after fork). The receiver is memif's server: it must be listening before the sender, the
 * client, connects. Buffers and mbufs hold a whole frame, as the dpdk backend's do. */
static struct rte_mempool *raw_port(int server, size_t frame, uint16_t *port)
{
	char args[512], dev[128];
	char *argv[16];
	int argc = 0, rc;
	struct rte_eth_conf conf = {0};
	struct rte_mempool *mp;
	unsigned room = RTE_ALIGN_CEIL(frame, 1024);

	snprintf(args, sizeof(args),
	         "bench --no-pci --no-huge -m 256 --no-shconf --no-telemetry "
	         "--log-level=lib.eal:warning "
	         "--file-prefix swdpraw-%ld --lcores=0@(0-%ld)",
	         (long)getpid(), sysconf(_SC_NPROCESSORS_ONLN) - 1);
	for (char *save, *t = strtok_r(args, " ", &save); t; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	snprintf(dev, sizeof(dev), "net_memif_raw,role=%s,socket=/swdp-bench-%ld,bsize=%u",
	         server ? "server" : "client", session, room);
	rc = rte_eal_init(argc, argv);
	/* EAL made /var/run/dpdk/swdpraw-PID, failed or not, and never removes it; with
	 * --no-shconf nothing goes in it (dataplane/dpdk.c does the same). */
	rmdir(rte_eal_get_runtime_dir());
	if (rc < 0 || rte_dev_probe(dev) < 0 ||
	    rte_eth_dev_get_port_by_name("net_memif_raw", port) < 0)
		die("memif port", -EIO);
	mp = rte_pktmbuf_pool_create("raw", 8191, 256, 0, RTE_PKTMBUF_HEADROOM + room,
	                             SOCKET_ID_ANY);
	if (!mp || rte_eth_dev_configure(*port, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup(*port, 0, 1024, SOCKET_ID_ANY, NULL, mp) < 0 ||
	    rte_eth_tx_queue_setup(*port, 0, 1024, SOCKET_ID_ANY, NULL) < 0 ||
	    rte_eth_dev_start(*port) < 0)
		die("memif start", -EIO);
	return mp;
}

/* memif must not move frames before its link is up. */
static void raw_link_wait(uint16_t port)
{
	struct rte_eth_link l;

	do
		rte_eth_link_get_nowait(port, &l);
	while (l.link_status != RTE_ETH_LINK_UP);
}

/* Receives until total payload bytes are in (copying each frame's payload out, as a
 * transport delivering data must), then answers with one frame carrying the CPU seconds it
 * spent from the first frame on. */
static void raw_receiver(size_t frame, size_t total, size_t buf, struct pipes *p)
{
	uint16_t port;
	struct rte_mempool *mp = raw_port(1, frame, &port);
	char *sink = calloc(1, buf);
	size_t got = 0, off = 0;
	struct rte_mbuf *m[32];
	double c0 = 0, spent;
	char ok = 1;

	if (!sink) {
		perror("bench_dp: memif-raw sink");
		exit(1);
	}
	pipes_ready(p, &ok, 1);
	raw_link_wait(port);
	while (got < total) {
		uint16_t n = rte_eth_rx_burst(port, 0, m, 32);
		if (n == 0)
			sched_yield(); /* two cores shared with others: spin politely */
		else if (!got)
			c0 = cpu_s();
		for (uint16_t i = 0; i < n; i++) {
			size_t len = rte_pktmbuf_data_len(m[i]) - RAW_HDRS;
			if (off + len > buf)
				off = 0;
			memcpy(sink + off, rte_pktmbuf_mtod_offset(m[i], char *, RAW_HDRS), len);
			off += len;
			got += len;
			rte_pktmbuf_free(m[i]);
		}
	}
	spent = cpu_s() - c0;
	m[0] = rte_pktmbuf_alloc(mp);
	memcpy(rte_pktmbuf_append(m[0], 64), &spent, sizeof(spent));
	while (rte_eth_tx_burst(port, 0, m, 1) == 0)
		;
	pipes_hold(p);
	exit(0);
}

static void run_raw(size_t mtu, size_t total, size_t buf)
{
	size_t frame = 14 + mtu, payload = frame - RAW_HDRS;
	uint16_t port;
	struct rte_mempool *mp;
	struct pipes p;
	char *src;
	size_t sent = 0, off = 0;
	struct rte_mbuf *m[32];
	double t0, t1, c0, rx_cpu;
	char ok;
	int st;
	pid_t pid;

	total -= total % payload;
	pipes_open(&p);
	pid = fork();
	if (pid == 0)
		raw_receiver(frame, total, buf, &p);
	if (!(src = malloc(buf))) {
		perror("bench_dp: memif-raw source");
		exit(1);
	}
	memset(src, 0x5a, buf);
	pipes_wait(&p, &ok, 1);
	mp = raw_port(0, frame, &port);
	raw_link_wait(port);
	t0 = now_s();
	c0 = cpu_s();
	while (sent < total) {
		unsigned n = 0, k;
		while (n < 32 && sent + (size_t)n * payload < total) {
			char *b;
			m[n] = rte_pktmbuf_alloc(mp);
			if (!m[n])
				break;
			b = rte_pktmbuf_append(m[n], (uint16_t)frame);
			if (off + payload > buf)
				off = 0;
			memcpy(b + RAW_HDRS, src + off, payload);
			off += payload;
			n++;
		}
		k = rte_eth_tx_burst(port, 0, m, (uint16_t)n);
		if (k == 0)
			sched_yield(); /* the ring is full: let the receiver run */
		sent += (size_t)k * payload;
		for (unsigned i = k; i < n; i++)
			rte_pktmbuf_free(m[i]);
	}
	while (rte_eth_rx_burst(port, 0, m, 1) == 0) /* the receiver has it all */
		;
	t1 = now_s();
	memcpy(&rx_cpu, rte_pktmbuf_mtod(m[0], char *), sizeof(rx_cpu));
	report((double)total, t0, t1, cpu_s() - c0 + rx_cpu, 0, 0);
	rte_pktmbuf_free(m[0]);
	rte_eth_dev_stop(port); /* our side goes first (struct pipes) */
	rte_eth_dev_close(port);
	close(p.hold[1]);
	waitpid(pid, &st, 0);
	free(src);
}
#endif

/* Copies SIZE-byte blocks through 256 MiB arenas, so every copy reads and writes memory
 * rather than cache: what a transport moving fresh data is up against. */
#define ARENA (256u << 20)
static void run_memcpy(size_t size, size_t total)
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
	report((double)count * size, t0, t1, t1 - t0, 0, 0);
	free(src);
	free(dst);
}

int main(int argc, char **argv)
{
	size_t size, total, buf;

	if (argc < 3) {
		fprintf(stderr,
		        "usage: %s BACKEND|memcpy SIZE_BYTES [MIB_TOTAL] | memif-raw MTU "
		        "[MIB_TOTAL [BUF_BYTES]]\n",
		        argv[0]);
		return 2;
	}
	size = strtoull(argv[2], NULL, 0);
	total = (argc > 3 ? strtoull(argv[3], NULL, 0) : 2048) << 20;
	if (size == 0 || size > total) {
		fprintf(stderr, "bench_dp: SIZE must be 1..MIB_TOTAL MiB\n");
		return 2;
	}
	if (strcmp(argv[1], "memif-raw") == 0 && (size < 576 || size > 9000)) {
		fprintf(stderr, "bench_dp: memif-raw's MTU must be 576..9000\n");
		return 2;
	}
	buf = argc > 4 ? strtoull(argv[4], NULL, 0) : 1u << 20;
	if (strcmp(argv[1], "memif-raw") == 0 && buf < size) {
		fprintf(stderr,
		        "bench_dp: memif-raw's BUF_BYTES must hold a frame's payload (MTU)\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	session = getpid();
	if (strcmp(argv[1], "memcpy") == 0)
		run_memcpy(size, total);
#ifdef BENCH_DPDK
	else if (strcmp(argv[1], "memif-raw") == 0)
		run_raw(size, total, buf);
#endif
	else
		run_transport(argv[1], size, total);
	return 0;
}
