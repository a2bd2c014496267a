/* SPDX-License-Identifier: MIT */
/*
 * Shuffle fetch benchmark over loopback: a forked map side (store + server) holds one
 * partition of SIZE bytes per stream; this process fetches them with one thread per stream,
 * each through its own connection, again and again. Throughput runs a fetcher with DEPTH
 * fetches queued on the connection at once, as a reducer asks one host for the outputs of
 * many maps; latency times one fetch at a time through the blocking client.
 *   bench_shuffle tput BACKEND SIZE STREAMS MIB [get|own] -> "Gbit/s GB-per-CPU-second"
 *   bench_shuffle lat BACKEND SIZE COUNT [get]         -> "median-us p99-us"
 *   bench_shuffle memcpy SIZE MIB                      -> "Gbit/s" of one thread's memcpy
 *   bench_shuffle rr SIZE COUNT                        -> "median-us p99-us" of a plain TCP
 *     request/response (96 bytes asked, SIZE answered) on loopback: the floor for "lat"
 *   bench_shuffle stream SIZE MIB                      -> "Gbit/s GB-per-CPU-second" of a plain
 *     TCP stream from a SIZE-byte buffer into DEPTH SIZE-byte buffers in turn: the floor for "tput"
 * "get" asks for one-sided reads (ucx); "own" fetches into answers the fetcher allocates, which
 * the benchmark frees, as swagent's reduces do, instead of into the warm buffers of the stream.
 * UCX_TLS comes from the environment. CPU is user +
 * system time of both processes (getrusage) while fetching, so bytes per CPU-second covers
 * both ends; the map side's making and putting of its partitions is left out.
 * perf/bench-shuffle.sh runs these against iperf3 and memcpy and prints the ratios.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sw_dp.h"
#include "sw_shuffle.h"

#define JOB    1
#define SECRET "bench-secret-of-job-1"
#define DEPTH  4 /* fetches a throughput stream keeps queued, each into a buffer of its own */

struct stream {
	const char *addr;
	const char *backend;
	uint64_t size, bytes;
	bool get;
	bool own; /* throughput mode: answers in buffers the fetcher allocates */
	uint32_t part;
	size_t count; /* latency mode: fetches to time */
	double *lat_us;
	uint8_t *buf[DEPTH]; /* destinations, warm and reused, as a reducer's merge buffers are */
	/* throughput mode */
	struct sw_shuffle_fetcher *fc;
	uint64_t asked, done;
	unsigned running;
};

struct slot {
	struct stream *s;
	uint8_t *buf;
};

static struct sw_shuffle_server *srv;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void die(const char *what, int err)
{
	fprintf(stderr, "bench_shuffle: %s: %s\n", what, sw_shuffle_strerror(err));
	exit(1);
}

static void on_term(int sig)
{
	(void)sig;
	sw_shuffle_server_stop(srv);
}

static double cpu_s(int who)
{
	struct rusage ru;
	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* In the map side: perf/bench-dpdk-wait.sh serves from the other end of a link, which
 * SW_BENCH_MAP_NETNS (a network namespace to enter), SW_BENCH_MAP_IP (the address to listen on
 * and the dpdk port's) and SW_BENCH_MAP_DPDK_PORT (memif's server end, or the other end of a
 * veth) name; unset, it serves as the fetching side would, on 127.0.0.1. Returns the IP. */
static const char *map_side_link(void)
{
	const char *ns = getenv("SW_BENCH_MAP_NETNS"), *ip = getenv("SW_BENCH_MAP_IP");
	const char *port = getenv("SW_BENCH_MAP_DPDK_PORT");
	if (ns) {
		char path[300];
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, CLONE_NEWNET) < 0)
			die(path, -errno);
		close(fd);
	}
	if (port)
		setenv("SW_DP_DPDK_PORT", port, 1);
	if (ip)
		setenv("SW_DP_DPDK_IP", ip, 1);
	return ip ? ip : "127.0.0.1";
}

/* The map side: stores the partitions, reports its address, serves until SIGTERM, then
 * reports the CPU seconds it spent serving on *cpu_fd (the parent's end of a pipe). */
static pid_t map_side(const char *backend, uint64_t size, uint32_t parts, char *addr,
                      size_t addr_len, int *cpu_fd)
{
	int fds[2];
	if (pipe(fds) < 0)
		die("pipe", -errno);
	pid_t parent = getpid(), pid = fork();
	if (pid != 0) {
		close(fds[1]);
		if (pid < 0 || read(fds[0], addr, addr_len) != (ssize_t)addr_len)
			die("map side start", -EIO);
		*cpu_fd = fds[0];
		return pid;
	}
	prctl(PR_SET_PDEATHSIG, SIGTERM); /* a client that died of an error takes it along */
	if (getppid() != parent)
		exit(1);
	char spill[] = "/tmp/sw-bench-XXXXXX";
	struct sw_shuffle_store_conf sc = {.mem_budget = 2 * size * parts + (64u << 20),
	                                   .spill_dir = mkdtemp(spill)};
	struct sw_shuffle_store *st;
	int err;
	if ((err = sw_shuffle_store_create(&sc, &st)) < 0 ||
	    (err = sw_shuffle_job_add(st, JOB, SECRET, strlen(SECRET))) < 0)
		die("store", err);
	uint8_t *b = malloc(size);
	for (uint64_t i = 0; i < size; i++)
		b[i] = (uint8_t)(i * 131 + (i >> 12)); /* barely compressible; sent raw anyway */
	for (uint32_t p = 0; p < parts; p++)
		if ((err = sw_shuffle_put(st, JOB, 0, p, b, size)) < 0)
			die("put", err);
	free(b);
	char listen[64];
	snprintf(listen, sizeof(listen), "%s:0", map_side_link());
	struct sw_shuffle_server_conf vc = {
	        .backend = backend, .listen_addr = listen, .one_sided = true};
	if ((err = sw_shuffle_server_create(st, &vc, &srv)) < 0)
		die("server", err);
	signal(SIGTERM, on_term);
	char a[SW_DP_ADDRSTRLEN] = {0};
	sw_shuffle_server_addr(srv, a, sizeof(a));
	/* Counted from here: making and putting the partitions is not the fetches' cost. */
	double c0 = cpu_s(RUSAGE_SELF);
	if (write(fds[1], a, sizeof(a)) != (ssize_t)sizeof(a))
		exit(1);
	err = sw_shuffle_server_run(srv);
	double served = cpu_s(RUSAGE_SELF) - c0;
	if (write(fds[1], &served, sizeof(served)) != (ssize_t)sizeof(served))
		exit(1);
	sw_shuffle_server_destroy(srv);
	sw_shuffle_store_destroy(st);
	rmdir(spill);
	exit(err < 0);
}

static struct sw_shuffle_fetch bench_fetch(uint32_t part)
{
	return (struct sw_shuffle_fetch){.job = JOB,
	                                 .secret = SECRET,
	                                 .secret_len = strlen(SECRET),
	                                 .part = part,
	                                 .length = SW_SHUFFLE_TO_END};
}

static void tput_done(void *arg, struct sw_shuffle_fetch_op *op, int status, uint8_t *data,
                      uint64_t len);

/* Queues the next fetch of t's stream into t's buffer, while bytes remain to be asked for. */
static void tput_add(struct slot *t)
{
	struct stream *s = t->s;
	if (s->asked >= s->bytes)
		return;
	struct sw_shuffle_fetch f = bench_fetch(s->part);
	int err = sw_shuffle_fetcher_add(s->fc, s->addr, &f, s->own ? NULL : t->buf,
	                                 s->own ? 0 : s->size, tput_done, t, NULL);
	if (err < 0)
		die("fetch", err);
	s->asked += s->size;
	s->running++;
}

static void tput_done(void *arg, struct sw_shuffle_fetch_op *op, int status, uint8_t *data,
                      uint64_t len)
{
	(void)op;
	struct slot *t = arg;
	if (status < 0)
		die("fetch", status);
	if (t->s->own)
		free(data);
	t->s->done += len;
	t->s->running--;
	tput_add(t);
}

static void *tput_main(void *arg)
{
	struct stream *s = arg;
	struct sw_dp_config dc;
	sw_dp_config_init(&dc);
	dc.backend = s->backend;
	dc.one_sided = s->get;
	sw_shuffle_fetcher_dp_config(&dc);
	struct sw_shuffle_fetcher_conf fconf = {.one_sided = s->get};
	struct sw_dp_ctx *ctx;
	int err = sw_dp_open(&dc, &ctx);
	if (err < 0 || (err = sw_shuffle_fetcher_attach(ctx, &fconf, &s->fc)) < 0)
		die("fetcher", err);
	struct slot t[DEPTH];
	for (int i = 0; i < DEPTH; i++) {
		t[i] = (struct slot){.s = s, .buf = s->buf[i]};
		tput_add(&t[i]);
	}
	struct sw_dp_event ev[32];
	while (s->running > 0) {
		int n = sw_dp_poll(ctx, ev, 32);
		for (int i = 0; i < n; i++)
			sw_shuffle_fetcher_event(s->fc, &ev[i]);
		int wait = sw_shuffle_fetcher_progress(s->fc);
		if (n == 0 && s->running > 0)
			sw_dp_wait(ctx, wait);
	}
	sw_shuffle_fetcher_destroy(s->fc);
	sw_dp_close(ctx);
	return NULL;
}

static void *lat_main(void *arg)
{
	struct stream *s = arg;
	struct sw_shuffle_client_conf cc = {
	        .backend = s->backend, .server_addr = s->addr, .one_sided = s->get};
	struct sw_shuffle_client *cl;
	struct sw_shuffle_fetch f = bench_fetch(s->part);
	int err = sw_shuffle_client_create(&cc, &cl);
	if (err < 0)
		die("client", err);
	for (size_t i = 0; i < s->count; i++) {
		uint64_t n;
		double t0 = now_s();
		if ((err = sw_shuffle_client_fetch_into(cl, &f, s->buf[0], s->size, &n)) < 0)
			die("fetch", err);
		s->lat_us[i] = (now_s() - t0) * 1e6;
	}
	sw_shuffle_client_destroy(cl);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void stop(pid_t pid)
{
	int status;
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		die("map side exit", -EIO);
}

static int run(const char *backend, uint64_t size, uint32_t streams, uint64_t bytes, size_t count,
               bool get, bool own)
{
	char addr[SW_DP_ADDRSTRLEN];
	int cpu_fd;
	pid_t pid = map_side(backend, size, streams, addr, sizeof(addr), &cpu_fd);
	struct stream s[8];
	pthread_t t[8];
	double *lat = calloc(count ? count : 1, sizeof(double));
	for (uint32_t i = 0; i < streams; i++) {
		s[i] = (struct stream){.addr = addr,
		                       .backend = backend,
		                       .size = size,
		                       .bytes = bytes / streams,
		                       .get = get,
		                       .own = own,
		                       .part = i,
		                       .count = count,
		                       .lat_us = lat};
		/* Touched before the clock starts: a reducer's merge buffers are in use long
		 * before its fetches, and first-touch page faults are not the fetch's cost. Not
		 * with zeros: the compiler turns malloc and a zeroing memset into calloc, which
		 * leaves fresh pages untouched. */
		for (int b = 0; b < DEPTH && !own; b++) {
			if ((s[i].buf[b] = malloc(size)) == NULL)
				die("buffer", -ENOMEM);
			memset(s[i].buf[b], 0xa5, size);
		}
	}
	double c0 = cpu_s(RUSAGE_SELF), t0 = now_s();
	for (uint32_t i = 0; i < streams; i++)
		pthread_create(&t[i], NULL, count > 0 ? lat_main : tput_main, &s[i]);
	for (uint32_t i = 0; i < streams; i++)
		pthread_join(t[i], NULL);
	double wall = now_s() - t0, cpu = cpu_s(RUSAGE_SELF) - c0;
	stop(pid);
	for (uint32_t i = 0; i < streams; i++)
		for (int b = 0; b < DEPTH; b++)
			free(s[i].buf[b]);
	double served;
	if (read(cpu_fd, &served, sizeof(served)) != (ssize_t)sizeof(served))
		die("map side cpu", -EIO);
	close(cpu_fd);
	cpu += served;
	if (count > 0) {
		qsort(lat, count, sizeof(double), cmp_double);
		printf("%.1f %.1f\n", lat[count / 2], lat[(count * 99) / 100]);
	} else {
		printf("%.2f %.2f\n", (double)bytes * 8 / wall / 1e9, (double)bytes / cpu / 1e9);
	}
	free(lat);
	return 0;
}

/* Moves exactly len bytes (read when rd, else write); exits on failure. */
static void xfer(int fd, void *buf, size_t len, bool rd)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = rd ? read(fd, (char *)buf + done, len - done)
		               : write(fd, (char *)buf + done, len - done);
		if (n <= 0)
			die("plain tcp", n < 0 ? -errno : -ECONNRESET);
		done += (size_t)n;
	}
}

/* A plain TCP connection on loopback with TCP_NODELAY to a forked process: returns the child's
 * pid in the parent and 0 in the child, each with its end in *fd. */
static pid_t plain_fork(int *fd)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int one = 1, lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 1) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &sl) < 0)
		die("plain tcp listen", -errno);
	pid_t pid = fork();
	if (pid < 0)
		die("fork", -errno);
	*fd = pid == 0 ? accept(lfd, NULL, NULL) : socket(AF_INET, SOCK_STREAM, 0);
	if (*fd < 0 || (pid != 0 && connect(*fd, (struct sockaddr *)&sa, sizeof(sa)) < 0))
		die("plain tcp connect", -errno);
	setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(lfd);
	return pid;
}

/* A plain TCP request/response, as lean as it gets: one connection, a 96-byte request (a fetch
 * request's size) answered by SIZE bytes from a forked process. */
static int plain_rr(uint64_t size, size_t count)
{
	uint8_t req[96] = {0}, *buf = calloc(1, size);
	int fd;
	pid_t pid = plain_fork(&fd);
	if (pid == 0) {
		for (size_t i = 0; i < count; i++) {
			xfer(fd, req, sizeof(req), true);
			xfer(fd, buf, size, false);
		}
		_exit(0);
	}
	double *lat = calloc(count, sizeof(double));
	for (size_t i = 0; i < count; i++) {
		double t0 = now_s();
		xfer(fd, req, sizeof(req), false);
		xfer(fd, buf, size, true);
		lat[i] = (now_s() - t0) * 1e6;
	}
	waitpid(pid, NULL, 0);
	qsort(lat, count, sizeof(double), cmp_double);
	printf("%.1f %.1f\n", lat[count / 2], lat[(count * 99) / 100]);
	close(fd);
	free(lat);
	free(buf);
	return 0;
}

/* A plain TCP stream with a shuffle's memory: a forked process writes one SIZE-byte buffer (a
 * partition) again and again, this one reads into DEPTH SIZE-byte buffers in turn (a reducer's),
 * both warm. What iperf3 does, but through buffers as large as tput's, which at 16 MiB do not
 * stay in cache: the floor for "tput" without the tag, the protocol and the fetcher. */
static int plain_stream(uint64_t size, uint64_t bytes)
{
	uint8_t *src = malloc(size), *dst[DEPTH];
	if (!src)
		die("buffer", -ENOMEM);
	memset(src, 0x5a, size); /* before the fork: the child's CPU is then its sending alone */
	for (int b = 0; b < DEPTH; b++) {
		if ((dst[b] = malloc(size)) == NULL)
			die("buffer", -ENOMEM);
		memset(dst[b], 0xa5, size);
	}
	int fd;
	pid_t pid = plain_fork(&fd);
	if (pid == 0) {
		for (uint64_t done = 0; done < bytes; done += size)
			xfer(fd, src, size, false);
		_exit(0);
	}
	double c0 = cpu_s(RUSAGE_SELF), t0 = now_s();
	for (uint64_t done = 0, i = 0; done < bytes; done += size, i++)
		xfer(fd, dst[i % DEPTH], size, true);
	double wall = now_s() - t0, cpu = cpu_s(RUSAGE_SELF) - c0;
	waitpid(pid, NULL, 0);
	cpu += cpu_s(RUSAGE_CHILDREN);
	printf("%.2f %.2f\n", (double)bytes * 8 / wall / 1e9, (double)bytes / cpu / 1e9);
	close(fd);
	free(src);
	for (int b = 0; b < DEPTH; b++)
		free(dst[b]);
	return 0;
}

/* One thread's memcpy in SIZE pieces across 256 MiB buffers, so that the copies go through
 * memory like fetched data does rather than staying in cache. */
static int memcpy_ref(uint64_t size, uint64_t bytes)
{
	uint64_t span = size > (256u << 20) ? size : (256u << 20);
	uint8_t *a = malloc(span), *b = malloc(span);
	memset(a, 1, span);
	memset(b, 2, span); /* fault the pages in before timing */
	double t0 = now_s();
	uint64_t at = 0;
	for (uint64_t done = 0; done < bytes; done += size) {
		if (at + size > span)
			at = 0;
		memcpy(b + at, a + at, size);
		__asm__ volatile("" : : "r"(b) : "memory"); /* keep every copy */
		at += size;
	}
	printf("%.2f\n", (double)bytes * 8 / (now_s() - t0) / 1e9);
	free(a);
	free(b);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "memcpy") == 0)
		return memcpy_ref(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0) << 20);
	if (argc >= 6 && strcmp(argv[1], "tput") == 0) {
		uint32_t streams = (uint32_t)atoi(argv[4]);
		if (streams < 1 || streams > 8)
			die("streams must be 1..8", -EINVAL);
		const char *mode = argc > 6 ? argv[6] : "";
		if (*mode && strcmp(mode, "get") != 0 && strcmp(mode, "own") != 0)
			die("the last argument of tput is get or own", -EINVAL);
		return run(argv[2], strtoull(argv[3], NULL, 0), streams,
		           strtoull(argv[5], NULL, 0) << 20, 0, strcmp(mode, "get") == 0,
		           strcmp(mode, "own") == 0);
	}
	if (argc >= 4 && strcmp(argv[1], "rr") == 0)
		return plain_rr(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0));
	if (argc >= 4 && strcmp(argv[1], "stream") == 0)
		return plain_stream(strtoull(argv[2], NULL, 0), strtoull(argv[3], NULL, 0) << 20);
	if (argc >= 5 && strcmp(argv[1], "lat") == 0)
		return run(argv[2], strtoull(argv[3], NULL, 0), 1, 0, strtoull(argv[4], NULL, 0),
		           argc > 5, false);
	fprintf(stderr, "usage: bench_shuffle tput BACKEND SIZE STREAMS MIB [get|own]\n"
	                "       bench_shuffle lat BACKEND SIZE COUNT [get]\n"
	                "       bench_shuffle memcpy SIZE MIB\n"
	                "       bench_shuffle rr SIZE COUNT\n"
	                "       bench_shuffle stream SIZE MIB\n");
	return 2;
}
