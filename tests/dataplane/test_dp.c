/* SPDX-License-Identifier: MIT */
/*
 * The transport contract, run against one backend named on the command line
 * (test_dp BACKEND [UCX_TLS] or test_dp dpdk [DROP DUP REORDER]): every test talks to a
 * real peer process over 127.0.0.1, or for dpdk over a memif link between the two
 * processes (the peer is exec'd afresh: the EAL does not survive a fork).
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "sw_dp.h"

/* Tags the peer process treats specially; every other message is echoed back. They sit
 * far above the small sequence numbers tests use as ordinary tags. */
#define TAG_HOLD (1ull << 60) /* keep the message (and its credit) until TAG_GO */
#define TAG_GO   (2ull << 60) /* release every held message, then echo */
#define TAG_RKEY (3ull << 60) /* answer with the region's address and packed key */
#define TAG_ECHO 0

/* Generous bound for any single wait: a hang fails the test instead of the CI job. */
#define WAIT_MS 20000

static const char *backend;
static const char *ucx_tls;
static int trust_peers; /* third argument "trusted": sw_dp_config.ucx_trust_peers */
static const char *self_exe;

/* dpdk: a peer process and this one share a new memif link: the peer is its server, this
 * process's next context its client. Other contexts of this process share one net_ring port,
 * whose ring loops every frame back (the contexts sort them by UDP port, as on a host's NIC):
 * so two contexts of one process talk to each other too. */
static int dp_links;          /* links made so far */
static bool dp_peer_mode;     /* this process is a peer: its context serves the memif link */
static bool dp_peer_link;     /* peer_start() made a memif link: the next context is its client */
static char dp_port[160];     /* devargs of the last port handed out */
static uint32_t dp_fault[3];  /* drop, duplicate, reorder every Nth frame received */
static long dp_session;       /* the test process's pid: names its memif sockets */
static uint32_t dp_max_conns; /* sw_dp_config.dpdk_max_conns of the next contexts (peer too) */
static uint32_t dp_idle_ms;   /* sw_dp_config.dpdk_idle_ms likewise */
static uint32_t dp_spin_us;   /* sw_dp_config.spin_us of the next contexts (not the peer's) */
/* SW_TEST_HUGEPAGE_EAL (with-hugepages.sh): this process's EAL arguments, its memory on
 * hugepages and its memif clients in zero-copy mode; the peers keep the default (--no-huge),
 * as memif's server side copies whatever its memory */
static const char *dp_hugepage_eal;

static struct sw_dp_config config(uint32_t credits)
{
	struct sw_dp_config c;

	sw_dp_config_init(&c);
	c.backend = backend;
	c.ucx_tls = ucx_tls;
	c.ucx_trust_peers = trust_peers;
	c.one_sided = 1; /* the contract covers gets; see the test of a context without them */
	c.credits = credits;
	c.spin_us = dp_spin_us;
	if (strcmp(backend, "dpdk") == 0) {
		bool client = dp_peer_link && !dp_peer_mode;
		if (client || dp_peer_mode)
			snprintf(dp_port, sizeof(dp_port),
			         "net_memif_%s%d,role=%s,socket=/swdp-test-%ld-%d%s",
			         client ? "c" : "s", dp_links, client ? "client" : "server",
			         dp_session, dp_links,
			         client && dp_hugepage_eal ? ",zero-copy=yes" : "");
		else
			snprintf(dp_port, sizeof(dp_port), "net_ring_t%ld", dp_session);
		dp_peer_link = false;
		c.dpdk_port = dp_port;
		c.dpdk_eal = dp_peer_mode ? NULL : dp_hugepage_eal;
		c.dpdk_drop_every = dp_fault[0];
		c.dpdk_dup_every = dp_fault[1];
		c.dpdk_reorder_every = dp_fault[2];
		c.dpdk_max_conns = dp_max_conns;
		c.dpdk_idle_ms = dp_idle_ms;
	}
	return c;
}

static void fill(unsigned char *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 131 + seed);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the peer process ---- */

#define PEER_REGION (1u << 20)

struct peer_state {
	struct sw_dp_event held[256]; /* TAG_HOLD messages: their credits stay with us */
	int nheld;
	unsigned char reply[512]; /* TAG_RKEY answer: region address, then packed key */
	size_t reply_len;
	int echoing; /* echoes sent whose completion has not arrived */
	bool go;     /* TAG_GO seen: holds are over */
};

/* Echoes each message from its receive buffer and releases it once the echo is sent. */
static void peer_on_recv(struct sw_dp_ctx *ctx, struct sw_dp_event *ev, struct peer_state *ps)
{
	struct sw_dp_event *keep;
	struct iovec iov = {ev->data, ev->len};
	int rc;

	/* TAG_GO comes over a second connection and may overtake holds still in flight on a
	 * loaded machine: holds arriving after it are not kept, or their credits never return */
	if (ev->tag == TAG_HOLD && !ps->go && ps->nheld < 256) {
		ps->held[ps->nheld++] = *ev;
		return;
	}
	if (ev->tag == TAG_GO) {
		ps->go = true;
		for (int i = 0; i < ps->nheld; i++)
			sw_dp_release(ctx, &ps->held[i]);
		ps->nheld = 0;
	}
	if (ev->tag == TAG_RKEY)
		iov = (struct iovec){ps->reply, ps->reply_len};
	keep = malloc(sizeof(*keep));
	*keep = *ev;
	while ((rc = sw_dp_send(ev->ep, ev->tag, &iov, 1, keep)) == -EAGAIN)
		if (sw_dp_wait(ctx, WAIT_MS) == -ETIMEDOUT || sw_dp_poll(ctx, NULL, 0) < 0)
			_exit(3);
	if (rc == 0) {
		ps->echoing++;
	} else { /* the connection is gone: nothing to echo to */
		sw_dp_release(ctx, keep);
		free(keep);
	}
}

static void peer_key(struct peer_state *ps, struct sw_dp_mr *mr)
{
	uint64_t addr = (uint64_t)(uintptr_t)sw_dp_mr_addr(mr);
	size_t klen;
	const void *key = sw_dp_mr_rkey(mr, &klen);

	if (klen + sizeof(addr) > sizeof(ps->reply))
		_exit(2);
	memcpy(ps->reply, &addr, sizeof(addr));
	if (klen) /* tcp has no keys */
		memcpy(ps->reply + sizeof(addr), key, klen);
	ps->reply_len = sizeof(addr) + klen;
}

/* Serves until its last connection closes, then says so on wfd (after the address). Exit
 * status 0 when nothing went wrong. */
static void peer_main(int wfd, int gofd)
{
	struct sw_dp_config c = config(0);
	struct sw_dp_ctx *ctx;
	struct sw_dp_mr *mr;
	static struct peer_state ps;
	char addr[SW_DP_ADDRSTRLEN] = "";
	unsigned char *region;
	int live = 0, served = 0;

	if (sw_dp_open(&c, &ctx) || sw_dp_listen(ctx, "127.0.0.1:0") ||
	    sw_dp_listen_addr(ctx, addr, sizeof(addr)))
		_exit(2);
	region = sw_dp_alloc(ctx, PEER_REGION);
	fill(region, PEER_REGION, 7);
	if (sw_dp_mem_reg(ctx, region, PEER_REGION, &mr))
		_exit(2);
	peer_key(&ps, mr);
	if (write(wfd, addr, sizeof(addr)) != sizeof(addr))
		_exit(2);
	/* Until every connection closed and every echo completed (a close fails them). */
	while (!served || live || ps.echoing) {
		struct sw_dp_event ev[16];
		int n = sw_dp_poll(ctx, ev, 16);
		if (n < 0)
			_exit(4);
		if (n == 0 && sw_dp_wait(ctx, 60000) == -ETIMEDOUT)
			_exit(5);
		for (int i = 0; i < n; i++) {
			switch (ev[i].type) {
			case SW_DP_EV_ACCEPT:
				live++;
				served = 1;
				break;
			case SW_DP_EV_RECV:
				peer_on_recv(ctx, &ev[i], &ps);
				break;
			case SW_DP_EV_SEND:
				sw_dp_release(ctx, ev[i].user);
				free(ev[i].user);
				ps.echoing--;
				break;
			case SW_DP_EV_CLOSED:
				live--;
				sw_dp_ep_close(ev[i].ep);
				break;
			default:
				break;
			}
		}
	}
	if (write(wfd, "d", 1) != 1)
		_exit(2);
	close(wfd);
	for (int i = 0; i < ps.nheld; i++)
		sw_dp_release(ctx, &ps.held[i]);
	sw_dp_mem_dereg(ctx, mr);
	sw_dp_mem_evict(ctx, region, PEER_REGION);
	sw_dp_free(ctx, region, PEER_REGION);
	/* dpdk: the test closes its port first (EOF on gofd), which takes the link down, and this
	 * port is left to the process's exit: DPDK 22.11's memif frees a link's control channel
	 * twice when the port closes while its control thread handles the other end's disconnect
	 * (a SEGV in the EAL's free in that thread, CI under ASan; README, "Backend dpdk"). */
	if (gofd >= 0) {
		char b;
		while (read(gofd, &b, 1) > 0)
			;
		_exit(0);
	}
	sw_dp_close(ctx);
	_exit(0);
}

struct peer {
	pid_t pid;
	int go;   /* dpdk: closed once this process closed its port: the peer may close its own */
	int done; /* readable once the peer served its last connection */
	char addr[SW_DP_ADDRSTRLEN];
};

static void peer_start(struct peer *p)
{
	int fds[2], go[2] = {-1, -1};

	assert_int_equal(pipe(fds), 0);
	if (strcmp(backend, "dpdk") == 0)
		assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	if (strcmp(backend, "dpdk") == 0) { /* the peer opens the server side of a new link */
		dp_links++;
		dp_peer_link = true;
	}
	p->pid = fork();
	assert_true(p->pid >= 0);
	if (p->pid == 0) {
		close(fds[0]);
		if (strcmp(backend, "dpdk") == 0) {
			char fd[16], session[32], link[16], f[3][16], gofd[16], cap[16], idle[16];
			snprintf(fd, sizeof(fd), "%d", fds[1]);
			snprintf(gofd, sizeof(gofd), "%d", go[0]);
			fcntl(go[0], F_SETFD, 0); /* kept across the exec, unlike go[1] */
			snprintf(session, sizeof(session), "%ld", dp_session);
			snprintf(link, sizeof(link), "%d", dp_links);
			for (int i = 0; i < 3; i++)
				snprintf(f[i], sizeof(f[i]), "%u", dp_fault[i]);
			snprintf(cap, sizeof(cap), "%u", dp_max_conns);
			snprintf(idle, sizeof(idle), "%u", dp_idle_ms);
			execl(self_exe, self_exe, "--peer", fd, session, link, f[0], f[1], f[2],
			      gofd, cap, idle, (char *)NULL);
			_exit(6);
		}
		peer_main(fds[1], -1);
	}
	if (go[0] >= 0)
		close(go[0]);
	p->go = go[1];
	close(fds[1]);
	assert_int_equal(read(fds[0], p->addr, sizeof(p->addr)), sizeof(p->addr));
	p->done = fds[0];
}

/* dpdk: keeps ctx answering until the peer served its last connection, so that it no longer
 * sends when ctx closes its port: DPDK 22.11's memif crashes a process sending on a link whose
 * other end closes (peer_main() in rte_eth_tx_burst, once under ASan). A connection this side
 * already dropped (timed out) ends at the peer's next frame, which gets a RST. */
static void peer_drain(struct peer *p, struct sw_dp_ctx *ctx)
{
	int64_t end = now_ms() + WAIT_MS;
	struct pollfd done = {.fd = p->done, .events = POLLIN};
	struct sw_dp_event ev[16];

	if (strcmp(backend, "dpdk") != 0)
		return; /* kernel sockets and UCX let a peer go on sending into a closed port */
	while (poll(&done, 1, 0) == 0) {
		assert_true(now_ms() < end);
		assert_true(sw_dp_poll(ctx, ev, 16) >= 0);
		sw_dp_wait(ctx, 10);
	}
}

/* Waits (bounded) for the peer to exit and returns its exit status, or -signal. */
static int peer_join(struct peer *p)
{
	int64_t end = now_ms() + WAIT_MS;
	pid_t r;
	int st;

	if (p->go >= 0)
		close(p->go);
	p->go = -1;

	while ((r = waitpid(p->pid, &st, WNOHANG)) == 0 && now_ms() <= end)
		usleep(1000);
	if (r == 0) {
		kill(p->pid, SIGKILL);
		waitpid(p->pid, &st, 0);
	}
	close(p->done); /* after its last write */
	return r == 0 ? -1000 : WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
}

/* ---- helpers for the test side ---- */

/* Polls until an event of `type` for ep arrives (or any type when type is 0). Other
 * events go to the caller's handler-less bin: SEND completions are counted. */
static void next_event(struct sw_dp_ctx *ctx, enum sw_dp_ev_type type, struct sw_dp_event *out,
                       int *sends_done)
{
	int64_t end = now_ms() + WAIT_MS;

	for (;;) {
		struct sw_dp_event ev;
		int n = sw_dp_poll(ctx, &ev, 1);
		assert_true(n >= 0);
		if (n == 1) {
			if (ev.type == SW_DP_EV_SEND && type != SW_DP_EV_SEND) {
				assert_int_equal(ev.status, 0);
				if (sends_done)
					(*sends_done)++;
				continue;
			}
			if (!type || ev.type == type) {
				*out = ev;
				return;
			}
			fail_msg("unexpected event %d (status %d)", ev.type, ev.status);
		}
		assert_true(now_ms() < end);
		sw_dp_wait(ctx, 100);
	}
}

static void send_retrying(struct sw_dp_ctx *ctx, struct sw_dp_ep *ep, uint64_t tag,
                          const struct iovec *iov, int n, void *user)
{
	int64_t end = now_ms() + WAIT_MS;
	int rc;

	while ((rc = sw_dp_send(ep, tag, iov, n, user)) == -EAGAIN) {
		assert_true(now_ms() < end);
		sw_dp_wait(ctx, 100);
		assert_true(sw_dp_poll(ctx, NULL, 0) >= 0);
	}
	assert_int_equal(rc, 0);
}

struct conn {
	struct peer peer;
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;
};

static void conn_open(struct conn *c, uint32_t credits)
{
	struct sw_dp_config cfg;

	peer_start(&c->peer);
	cfg = config(credits); /* after the peer's: dpdk hands out the link's client side */
	assert_int_equal(sw_dp_open(&cfg, &c->ctx), 0);
	assert_int_equal(sw_dp_connect(c->ctx, c->peer.addr, &c->ep), 0);
}

static void conn_close(struct conn *c)
{
	sw_dp_ep_close(c->ep);
	peer_drain(&c->peer, c->ctx);
	sw_dp_close(c->ctx);
	assert_int_equal(peer_join(&c->peer), 0);
}

/* Sends msg and checks the echo: same tag, same bytes. */
static void round_trip(struct conn *c, uint64_t tag, unsigned char *msg, size_t len)
{
	/* Two pieces, like a protocol header and its payload. */
	size_t head = len < 24 ? len : 24;
	struct iovec iov[2] = {{msg, head}, {msg + head, len - head}};
	struct sw_dp_event ev;
	int sent = 0;

	send_retrying(c->ctx, c->ep, tag, iov, 2, msg);
	next_event(c->ctx, SW_DP_EV_RECV, &ev, &sent);
	assert_int_equal(ev.tag, tag);
	assert_int_equal(ev.len, len);
	assert_true(len == 0 || memcmp(ev.data, msg, len) == 0);
	sw_dp_release(c->ctx, &ev);
}

/* ---- tests ---- */

/* Round trips of 0 bytes to 64 MiB on c's endpoint, each checked, then its counters. */
static void round_trip_every_size(struct conn *c)
{
	static const size_t sizes[] = {0,     1,     15,     16,       17,        4095,
	                               65536, 65537, 262161, 1u << 20, 16u << 20, 64u << 20};
	/* Under loss injection 64 MiB takes minutes on a loaded machine (README): 16 MiB. */
	size_t n = sizeof(sizes) / sizeof(sizes[0]) - (dp_fault[0] != 0);
	struct sw_dp_counters cnt;
	unsigned char *buf = malloc(64u << 20);
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++) {
		fill(buf, sizes[i], (unsigned)i);
		round_trip(c, 1000 + i, buf, sizes[i]);
		total += sizes[i];
	}
	/* Every send completed before its echo came back, so the counters are final. */
	sw_dp_ep_counters(c->ep, &cnt);
	assert_int_equal(cnt.tx_bytes, total);
	assert_int_equal(cnt.rx_bytes, total);
	assert_int_equal(cnt.rx_msgs, n);
	free(buf);
}

static void round_trip_keeps_every_byte_from_0_bytes_to_64_MiB(void **state)
{
	struct conn c;

	(void)state;
	conn_open(&c, 0);
	round_trip_every_size(&c);
	conn_close(&c);
}

/* Times this thread slept while the echo of a @p len-byte message came back, on a context
 * whose sw_dp_config.spin_us is @p spin_us. */
static long sleeps_receiving_an_echo(uint32_t spin_us, size_t len)
{
	unsigned char *msg = malloc(len);
	struct iovec iov = {msg, len};
	struct sw_dp_event ev;
	struct rusage before, after;
	struct conn c;

	assert_non_null(msg);
	fill(msg, len, 7);
	dp_spin_us = spin_us;
	conn_open(&c, 0);
	dp_spin_us = 0;
	round_trip(&c, 1, msg, 16); /* connected, and the peer awake */
	send_retrying(c.ctx, c.ep, 2, &iov, 1, msg);
	next_event(c.ctx, SW_DP_EV_SEND, &ev, NULL);
	assert_int_equal(getrusage(RUSAGE_THREAD, &before), 0);
	next_event(c.ctx, SW_DP_EV_RECV, &ev, NULL);
	assert_int_equal(getrusage(RUSAGE_THREAD, &after), 0);
	assert_int_equal(ev.len, len);
	assert_memory_equal(ev.data, msg, len);
	sw_dp_release(c.ctx, &ev);
	conn_close(&c);
	free(msg);
	return after.ru_nvcsw - before.ru_nvcsw;
}

/* tcp: a context that spins (sw_dp_config.spin_us) polls, rather than sleeps, while a large
 * frame's bytes come in (dataplane/README.md, "Spinning before sleeping"): receiving a 64 MiB
 * echo it sleeps a few times at most (before the frame starts, or after a lost core), where
 * one that does not spin sleeps each time the socket runs dry. */
static void
a_wait_in_the_middle_of_a_large_frame_takes_its_next_bytes_without_sleeping(void **state)
{
	enum { LEN = 64 << 20 };

	(void)state;
	if (strcmp(backend, "tcp") != 0)
		skip(); /* dpdk spins by SW_DP_DPDK_SPIN_US (the dpdk spin's suites); ucx does not
		         */
	long asleep = sleeps_receiving_an_echo(0, LEN);
	long spinning = sleeps_receiving_an_echo(1000000, LEN);
	print_message("sleeps receiving 64 MiB: %ld without the spin, %ld with it\n", asleep,
	              spinning);
	assert_true(asleep >= 16); /* else the comparison cannot tell */
	assert_true(spinning * 4 < asleep);
}

/* dpdk on hugepages (with-hugepages.sh): the memif client in zero-copy mode, its peer's
 * server copying into and out of this process's own buffers, moves every byte; and it is the
 * process's only one (dataplane/README.md, "Zero-copy memif"). */
static void a_zero_copy_memif_client_keeps_every_byte_and_is_its_process_only_one(void **state)
{
	struct sw_dp_config cfg = config(0);
	struct sw_dp_ctx *second = NULL;
	struct conn c;

	(void)state;
	if (!dp_hugepage_eal)
		skip();
	conn_open(&c, 0);
	assert_non_null(strstr(dp_port, ",zero-copy=yes"));
	round_trip_every_size(&c);
	snprintf(dp_port, sizeof(dp_port),
	         "net_memif_z,role=client,socket=/swdp-test-%ld-z,zero-copy=yes", dp_session);
	cfg.dpdk_port = dp_port;
	assert_int_equal(sw_dp_open(&cfg, &second), -ENOTSUP);
	assert_null(second);
	conn_close(&c);
}

/* Placement (sw_dp_ep_set_place): the callback's record of what it was shown. */
#define PLACE_HEAD 64
#define PLACE_MSGS 16
struct placing {
	unsigned char *dst; /* where accepted payloads go, one after the other */
	size_t used;
	int calls;
	uint64_t tags[PLACE_MSGS];
	bool heads_ok;
};

/* Places the payloads of even-tagged messages one after the other in dst, declines the rest. */
static void *place_even(struct sw_dp_ep *ep, uint64_t tag, const void *head, size_t len)
{
	struct placing *pl = sw_dp_ep_user(ep);
	unsigned char want[PLACE_HEAD];
	void *at = pl->dst + pl->used;

	fill(want, PLACE_HEAD, (unsigned)tag);
	pl->heads_ok &= memcmp(head, want, PLACE_HEAD) == 0;
	pl->tags[pl->calls++] = tag;
	if (tag % 2)
		return NULL;
	pl->used += len - PLACE_HEAD;
	return at;
}

static void
a_placed_payload_lands_where_the_callback_said_and_declined_ones_arrive_whole(void **state)
{
	/* below the head (no call), the head alone (a call, nothing to place), then payloads that
	 * arrive whole in one read, span reads, and come in one frame after another */
	static const size_t sizes[PLACE_MSGS / 2] = {
	        PLACE_HEAD - 1,          PLACE_HEAD, PLACE_HEAD + 1, 100, 65536 + PLACE_HEAD,
	        (1u << 20) + PLACE_HEAD, 3u << 20,   65536};
	unsigned char *msg[PLACE_MSGS];
	size_t len[PLACE_MSGS], placed_at[PLACE_MSGS], placed_total = 0;
	struct placing pl = {.heads_ok = true};
	int sent = 0, called = 0;
	struct conn c;

	(void)state;
	unsigned char hello[8] = "hello";
	conn_open(&c, 0);
	round_trip(&c, 999, hello, sizeof(hello)); /* the peer takes its connection */
	int rc = sw_dp_ep_set_place(c.ep, PLACE_HEAD, place_even);
	if (rc == -ENOTSUP) { /* dpdk hands data over in buffers of its own */
		assert_string_not_equal(backend, "tcp");
		conn_close(&c);
		skip();
	}
	assert_int_equal(rc, 0);
	assert_int_equal(sw_dp_ep_set_place(c.ep, 0, place_even), -EINVAL);
	assert_int_equal(sw_dp_ep_set_place(c.ep, (64u << 10) + 1, place_even), -EINVAL);
	sw_dp_ep_set_user(c.ep, &pl);
	for (int i = 0; i < PLACE_MSGS; i++) {
		len[i] = sizes[i / 2];
		msg[i] = malloc(len[i]);
		fill(msg[i], len[i], (unsigned)i);
		placed_at[i] = placed_total;
		if (i % 2 == 0 && len[i] > PLACE_HEAD)
			placed_total += len[i] - PLACE_HEAD;
		called += len[i] >= PLACE_HEAD;
	}
	pl.dst = malloc(placed_total);
	/* all sent before any echo is polled: the backend reads frames ahead of their events */
	for (int i = 0; i < PLACE_MSGS; i++) {
		struct iovec iov = {msg[i], len[i]};
		send_retrying(c.ctx, c.ep, (uint64_t)i, &iov, 1, msg[i]);
	}
	for (int i = 0; i < PLACE_MSGS; i++) {
		struct sw_dp_event ev;
		next_event(c.ctx, SW_DP_EV_RECV, &ev, &sent);
		assert_int_equal(ev.tag, i);
		assert_int_equal(ev.len, len[i]);
		if (i % 2 == 0 && len[i] > PLACE_HEAD) {
			assert_ptr_equal(ev.placed, pl.dst + placed_at[i]);
			assert_memory_equal(ev.data, msg[i], PLACE_HEAD);
			assert_memory_equal(ev.placed, msg[i] + PLACE_HEAD, len[i] - PLACE_HEAD);
		} else {
			assert_null(ev.placed);
			assert_memory_equal(ev.data, msg[i], len[i]);
		}
		sw_dp_release(c.ctx, &ev);
	}
	assert_int_equal(pl.calls, called);
	assert_true(pl.heads_ok);
	for (int i = 0, k = 0; i < PLACE_MSGS; i++)
		if (len[i] >= PLACE_HEAD)
			assert_int_equal(pl.tags[k++], i);
	assert_int_equal(pl.used, placed_total);
	conn_close(&c);
	for (int i = 0; i < PLACE_MSGS; i++)
		free(msg[i]);
	free(pl.dst);
}

/* Places every payload at the start of dst. */
static void *place_first(struct sw_dp_ep *ep, uint64_t tag, const void *head, size_t len)
{
	struct placing *pl = sw_dp_ep_user(ep);

	(void)tag, (void)head, (void)len;
	pl->calls++;
	return pl->dst;
}

/* A caller takes its memory back as soon as it closed the endpoint that was placing a message
 * there: the backend writes nothing to that place after sw_dp_ep_close (over ucx, a rendezvous
 * UCX was still pulling into it). */
static void a_close_during_a_placed_message_ends_its_writes(void **state)
{
	const size_t len = 16u << 20;
	unsigned char *msg = malloc(len);
	struct placing pl = {.dst = malloc(len)};
	unsigned char hello[8] = "hello";
	struct iovec iov = {msg, len};
	struct sw_dp_event ev[16];
	struct conn c;
	int64_t end = now_ms() + WAIT_MS;

	(void)state;
	conn_open(&c, 0);
	round_trip(&c, 999, hello, sizeof(hello));
	if (sw_dp_ep_set_place(c.ep, PLACE_HEAD, place_first) == -ENOTSUP) {
		conn_close(&c);
		free(msg);
		free(pl.dst);
		skip();
	}
	sw_dp_ep_set_user(c.ep, &pl);
	fill(msg, len, 3);
	send_retrying(c.ctx, c.ep, 1, &iov, 1, NULL);
	while (pl.calls == 0) { /* the echo's head is in: its payload is on its way */
		assert_true(now_ms() < end);
		assert_true(sw_dp_poll(c.ctx, NULL, 0) >= 0);
	}
	sw_dp_ep_close(c.ep);
	memset(pl.dst, 0xa5, len);
	end = now_ms() + 300;
	while (now_ms() < end) {
		int n = sw_dp_poll(c.ctx, ev, 16);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			assert_int_not_equal(ev[i].type, SW_DP_EV_RECV);
	}
	for (size_t i = 0; i < len; i++)
		if (pl.dst[i] != 0xa5)
			fail_msg("byte %zu of the place written after the close", i);
	peer_drain(&c.peer, c.ctx);
	sw_dp_close(c.ctx);
	assert_int_equal(peer_join(&c.peer), 0);
	free(msg);
	free(pl.dst);
}

/* Checks and releases the echoes that arrived; returns how many. */
static int drain_in_order(struct sw_dp_ctx *ctx, const uint32_t *vals, int *next_rx)
{
	struct sw_dp_event ev[32];
	int n = sw_dp_poll(ctx, ev, 32), got = 0;

	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (ev[i].type == SW_DP_EV_SEND) {
			assert_int_equal(ev[i].status, 0);
			continue;
		}
		assert_int_equal(ev[i].type, SW_DP_EV_RECV);
		assert_int_equal(ev[i].tag, *next_rx);
		assert_int_equal(ev[i].len, 1 + *next_rx % 4);
		assert_memory_equal(ev[i].data, &vals[*next_rx], ev[i].len);
		(*next_rx)++;
		got++;
		sw_dp_release(ctx, &ev[i]);
	}
	return got;
}

static void many_small_messages_arrive_in_order_with_their_tags(void **state)
{
	enum { N = 20000 };
	struct sw_dp_counters cnt;
	uint32_t *vals = malloc(N * sizeof(*vals));
	int next_tx = 0, next_rx = 0;
	int64_t end = now_ms() + WAIT_MS;
	struct conn c;

	(void)state;
	conn_open(&c, 0);
	/* Both sides hold messages until they are echoed, so the sender must keep reading:
	 * releasing echoes is what gives the peer the credits it needs to echo. */
	while (next_rx < N) {
		int rc = 0;
		while (next_tx < N && rc == 0) {
			struct iovec iov = {&vals[next_tx], 1 + next_tx % 4};
			vals[next_tx] = (uint32_t)next_tx * 2654435761u;
			rc = sw_dp_send(c.ep, next_tx, &iov, 1, NULL);
			if (rc == 0)
				next_tx++;
		}
		assert_true(rc == 0 || rc == -EAGAIN);
		if (drain_in_order(c.ctx, vals, &next_rx) == 0) {
			assert_true(now_ms() < end);
			sw_dp_wait(c.ctx, 100);
		}
	}
	sw_dp_ep_counters(c.ep, &cnt);
	assert_int_equal(cnt.rx_msgs, N);
	assert_int_equal(cnt.tx_bytes, cnt.rx_bytes);
	printf("# %d messages, %llu sends refused for want of credit\n", N,
	       (unsigned long long)cnt.credit_stalls);
	free(vals);
	conn_close(&c);
}

static void small_messages_sent_behind_a_large_one_arrive_after_it(void **state)
{
	enum { N = 12 };
	size_t big = 4u << 20;
	unsigned char *buf = malloc(big);
	struct conn c;

	(void)state;
	fill(buf, big, 5);
	conn_open(&c, 0);
	/* Large messages may travel by rendezvous and small ones eagerly (ucx): the order
	 * seen by the receiver must still be the send order, both ways. */
	for (int i = 0; i < N; i++) {
		struct iovec iov = {buf, i % 6 == 0 ? big : 8};
		assert_int_equal(sw_dp_send(c.ep, i, &iov, 1, NULL), 0);
	}
	for (int i = 0; i < N; i++) {
		struct sw_dp_event ev;
		next_event(c.ctx, SW_DP_EV_RECV, &ev, NULL);
		assert_int_equal(ev.tag, i);
		assert_int_equal(ev.len, i % 6 == 0 ? big : 8);
		assert_memory_equal(ev.data, buf, ev.len);
		sw_dp_release(c.ctx, &ev);
	}
	free(buf);
	conn_close(&c);
}

/* Sends vals[i] on ep[i] for i = first, first + step, ... below n, and checks that each echo
 * comes back on its own endpoint. */
static void echo_each(struct sw_dp_ctx *ctx, struct sw_dp_ep **ep, const uint64_t *vals, int n,
                      int first, int step)
{
	int64_t end = now_ms() + WAIT_MS;
	int want = 0, got = 0;

	for (int i = first; i < n; i += step, want++) {
		struct iovec iov = {(void *)&vals[i], sizeof(vals[i])};
		send_retrying(ctx, ep[i], (uint64_t)i, &iov, 1, NULL);
	}
	while (got < want) {
		struct sw_dp_event ev[16];
		int k = sw_dp_poll(ctx, ev, 16);

		assert_true(k >= 0);
		for (int e = 0; e < k; e++) {
			if (ev[e].type == SW_DP_EV_SEND) {
				assert_int_equal(ev[e].status, 0);
				continue;
			}
			assert_int_equal(ev[e].type, SW_DP_EV_RECV);
			assert_true(ev[e].tag < (uint64_t)n);
			assert_ptr_equal(ev[e].ep, ep[ev[e].tag]);
			assert_int_equal(ev[e].len, sizeof(vals[0]));
			assert_memory_equal(ev[e].data, &vals[ev[e].tag], sizeof(vals[0]));
			sw_dp_release(ctx, &ev[e]);
			got++;
		}
		if (k == 0) {
			assert_true(now_ms() < end);
			sw_dp_wait(ctx, 100);
		}
	}
}

/* Each endpoint's messages reach that endpoint (the ucx backend finds it from UCX's handle
 * in a table that grows and loses entries), with a hundred to one peer, before and after
 * every other one closed. */
static void
a_hundred_endpoints_to_one_peer_get_their_own_echoes_before_and_after_half_close(void **state)
{
	enum { EPS = 100 };
	static uint64_t vals[EPS];
	struct sw_dp_ep *ep[EPS];
	struct conn c;

	(void)state;
	conn_open(&c, 0);
	for (int i = 0; i < EPS; i++) {
		vals[i] = (uint64_t)i * 7919;
		assert_int_equal(sw_dp_connect(c.ctx, c.peer.addr, &ep[i]), 0);
	}
	echo_each(c.ctx, ep, vals, EPS, 0, 1);
	for (int i = 0; i < EPS; i += 2)
		sw_dp_ep_close(ep[i]);
	echo_each(c.ctx, ep, vals, EPS, 1, 2);
	for (int i = 1; i < EPS; i += 2)
		sw_dp_ep_close(ep[i]);
	conn_close(&c);
}

/* A hundred connections opened while their peer gets no CPU for 300 ms (a loaded machine)
 * open once it runs again. dpdk: the SYNs resent meanwhile fill the link's ring; a SYN that
 * did not fit is no try (the tries ran out at poll speed, and a connection was refused, once
 * in the ASan build of a loaded machine). */
static void a_hundred_connections_to_a_peer_stalled_for_300_ms_open_when_it_runs_again(void **state)
{
	enum { EPS = 100 };
	static uint64_t vals[EPS];
	struct sw_dp_ep *ep[EPS];
	unsigned char msg[8] = "link up";
	struct conn c;
	int64_t end;

	(void)state;
	conn_open(&c, 0);
	round_trip(&c, 1, msg, sizeof(msg)); /* the link is up: the stall is the peer's alone */
	assert_int_equal(kill(c.peer.pid, SIGSTOP), 0);
	for (int i = 0; i < EPS; i++) {
		vals[i] = (uint64_t)i * 104729;
		assert_int_equal(sw_dp_connect(c.ctx, c.peer.addr, &ep[i]), 0);
	}
	for (end = now_ms() + 300; now_ms() < end;) {
		struct sw_dp_event ev;
		assert_int_equal(sw_dp_poll(c.ctx, &ev, 1), 0);
		sw_dp_wait(c.ctx, 1);
	}
	assert_int_equal(kill(c.peer.pid, SIGCONT), 0);
	echo_each(c.ctx, ep, vals, EPS, 0, 1);
	for (int i = 0; i < EPS; i++)
		sw_dp_ep_close(ep[i]);
	conn_close(&c);
}

static void sender_gets_EAGAIN_when_credits_run_out_and_resumes_after_release(void **state)
{
	enum { CREDITS = 4 };
	unsigned char msg[32];
	struct iovec iov = {msg, sizeof(msg)};
	struct sw_dp_counters cnt;
	struct sw_dp_ep *ctl;
	struct sw_dp_event ev;
	struct conn c;
	int64_t end;
	int rc;

	(void)state;
	fill(msg, sizeof(msg), 3);
	conn_open(&c, CREDITS);
	assert_int_equal(sw_dp_connect(c.ctx, c.peer.addr, &ctl), 0);
	for (int i = 0; i < CREDITS; i++)
		assert_int_equal(sw_dp_send(c.ep, TAG_HOLD, &iov, 1, NULL), 0);
	assert_int_equal(sw_dp_ep_credits(c.ep), 0);
	assert_int_equal(sw_dp_send(c.ep, TAG_HOLD, &iov, 1, NULL), -EAGAIN);
	/* The peer holds all four, so no credit can come back however long we progress. */
	for (int i = 0; i < 50; i++) {
		sw_dp_poll(c.ctx, NULL, 0);
		sw_dp_wait(c.ctx, 10);
	}
	assert_int_equal(sw_dp_send(c.ep, TAG_HOLD, &iov, 1, NULL), -EAGAIN);
	sw_dp_ep_counters(c.ep, &cnt);
	assert_int_equal(cnt.credit_stalls, 2);
	/* Releasing them on the peer (told over a second connection) gives credits back. */
	assert_int_equal(sw_dp_send(ctl, TAG_GO, &iov, 1, NULL), 0);
	end = now_ms() + WAIT_MS;
	while ((rc = sw_dp_send(c.ep, TAG_ECHO, &iov, 1, NULL)) == -EAGAIN) {
		struct sw_dp_event drop[8];
		int n = sw_dp_poll(c.ctx, drop, 8);
		for (int i = 0; i < n; i++)
			sw_dp_release(c.ctx, &drop[i]);
		assert_true(now_ms() < end);
		sw_dp_wait(c.ctx, 100);
	}
	assert_int_equal(rc, 0);
	next_event(c.ctx, SW_DP_EV_RECV, &ev, NULL);
	sw_dp_release(c.ctx, &ev);
	sw_dp_ep_close(ctl);
	conn_close(&c);
}

static void wait_does_not_sleep_once_credits_come_back_to_a_refused_sender(void **state)
{
	enum { N = 300 };
	unsigned char msg[100];
	struct iovec iov = {msg, sizeof(msg)};
	int sent = 0, echoed = 0;
	struct conn c;

	(void)state;
	fill(msg, sizeof(msg), 4);
	conn_open(&c, 2);
	/* The plain loop a sender writes: send until refused, poll, sleep if poll had
	 * nothing. Credits arrive inside poll without an event; the wait must not sleep
	 * through them (it would, for the whole WAIT_MS, and fail here). */
	while (echoed < N) {
		struct sw_dp_event ev[8];
		int n;
		while (sent < N && sw_dp_send(c.ep, sent, &iov, 1, NULL) == 0)
			sent++;
		n = sw_dp_poll(c.ctx, ev, 8);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV)
				echoed++;
			sw_dp_release(c.ctx, &ev[i]);
		}
		if (n == 0)
			assert_int_equal(sw_dp_wait(c.ctx, WAIT_MS), 0);
	}
	conn_close(&c);
}

static void get_reads_a_registered_remote_region_or_reports_ENOTSUP(void **state)
{
	unsigned char *local = malloc(PEER_REGION), *expect = malloc(PEER_REGION);
	struct sw_dp_counters cnt;
	struct sw_dp_event ev;
	uint64_t raddr;
	struct conn c;
	int rc;

	(void)state;
	conn_open(&c, 0);
	round_trip(&c, 5, NULL, 0); /* the connection is fully up */
	assert_int_equal(sw_dp_send(c.ep, TAG_RKEY, NULL, 0, NULL), 0);
	next_event(c.ctx, SW_DP_EV_RECV, &ev, NULL);
	assert_true(ev.len >= sizeof(raddr));
	memcpy(&raddr, ev.data, sizeof(raddr));
	fill(expect, PEER_REGION, 7);
	rc = sw_dp_get(c.ep, local, 4096, raddr + 100, (char *)ev.data + 8, ev.len - 8, local);
	if (!(sw_dp_caps(c.ctx) & SW_DP_CAP_GET)) {
		assert_int_equal(rc, -ENOTSUP);
		assert_int_equal(ev.len, sizeof(raddr)); /* tcp keys are empty */
		sw_dp_release(c.ctx, &ev);
		goto out;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(sw_dp_get(c.ep, local + 4096, PEER_REGION - 4096, raddr + 4096,
	                           (char *)ev.data + 8, ev.len - 8, expect),
	                 0);
	sw_dp_release(c.ctx, &ev);
	for (int done = 0; done < 2; done++) {
		struct sw_dp_event g;
		next_event(c.ctx, SW_DP_EV_GET, &g, NULL);
		assert_int_equal(g.status, 0);
		assert_true(g.user == local || g.user == expect);
	}
	assert_memory_equal(local, expect + 100, 4096);
	assert_memory_equal(local + 4096, expect + 4096, PEER_REGION - 4096);
	sw_dp_ep_counters(c.ep, &cnt);
	assert_int_equal(cnt.get_bytes, PEER_REGION);
out:
	free(local);
	free(expect);
	conn_close(&c);
}

static void killed_peer_ends_transfers_with_ECONNRESET_not_a_hang(void **state)
{
	size_t len = 16u << 20;
	unsigned char *buf = malloc(len);
	struct iovec iov = {buf, len};
	struct sw_dp_event ev;
	int64_t end = now_ms() + WAIT_MS;
	int closed = 0, failed_sends = 0;
	struct conn c;

	(void)state;
	if (trust_peers) {
		free(buf);
		skip(); /* without peer-failure handling a dead peer may hang: not promised */
	}
	if (strcmp(backend, "dpdk") == 0) {
		/* DPDK 22.11's memif unmaps a dead peer's rings in its control thread while this
		 * one may be inside rte_eth_tx_burst: the survivor can crash (seen 1 run in 3
		 * under loss injection). dataplane/README.md, "Backend dpdk". */
		free(buf);
		printf("# killed memif peer: not safe in DPDK 22.11's memif\n");
		skip();
	}
	fill(buf, len, 9);
	conn_open(&c, 0);
	round_trip(&c, 1, buf, 1024);
	for (int i = 0; i < 8; i++)
		assert_int_equal(sw_dp_send(c.ep, TAG_HOLD, &iov, 1, NULL), 0);
	kill(c.peer.pid, SIGKILL);
	while (!closed) {
		int n = sw_dp_poll(c.ctx, &ev, 1);
		assert_true(n >= 0);
		assert_true(now_ms() < end);
		if (n == 0) {
			sw_dp_wait(c.ctx, 100);
			continue;
		}
		if (ev.type == SW_DP_EV_SEND && ev.status)
			failed_sends++;
		if (ev.type == SW_DP_EV_CLOSED) {
			assert_true(ev.status == -ECONNRESET);
			closed = 1;
		}
	}
	assert_int_equal(sw_dp_send(c.ep, 1, &iov, 1, NULL), -ENOTCONN);
	printf("# peer killed: %d of 8 in-flight 16 MiB sends failed, closed with %s\n",
	       failed_sends, sw_dp_strerror(-ECONNRESET));
	sw_dp_ep_close(c.ep);
	sw_dp_close(c.ctx);
	assert_int_equal(peer_join(&c.peer), -SIGKILL);
	free(buf);
}

static int sum_peers(struct sw_dp_ep *ep, const char *peer, const struct sw_dp_counters *c,
                     void *arg)
{
	uint64_t *sum = arg;

	(void)ep;
	assert_true(strncmp(peer, "127.0.0.1:", 10) == 0);
	sum[0] += c->tx_bytes;
	sum[1] += c->rx_bytes;
	return 0;
}

static void counters_split_by_peer_add_up_to_the_context_total(void **state)
{
	unsigned char msg[3000];
	struct sw_dp_counters total;
	struct sw_dp_ep *second;
	uint64_t sum[2] = {0, 0};
	struct conn c;
	char name[SW_DP_ADDRSTRLEN];

	(void)state;
	fill(msg, sizeof(msg), 1);
	conn_open(&c, 0);
	round_trip(&c, 1, msg, 1000);
	assert_int_equal(sw_dp_connect(c.ctx, c.peer.addr, &second), 0);
	{
		struct conn c2 = c;
		c2.ep = second;
		round_trip(&c2, 2, msg, 3000);
	}
	sw_dp_foreach_peer(c.ctx, sum_peers, sum);
	sw_dp_counters(c.ctx, &total);
	assert_int_equal(sum[0], 4000);
	assert_int_equal(sum[1], 4000);
	assert_int_equal(total.tx_bytes, 4000);
	/* A closed endpoint's bytes stay in the context total. */
	sw_dp_ep_peer(second, name, sizeof(name));
	assert_string_equal(name, c.peer.addr);
	sw_dp_ep_describe(second, stdout);
	sw_dp_ep_close(second);
	sw_dp_counters(c.ctx, &total);
	assert_int_equal(total.rx_bytes, 4000);
	conn_close(&c);
}

/* A listening receiver and a sender connected to it, both in this process. */
struct pair {
	struct sw_dp_ctx *rx, *tx;
	struct sw_dp_ep *ep; /* the sender's */
};

static void pair_open(struct pair *p, uint64_t rx_max_recv, uint32_t tx_credits)
{
	struct sw_dp_config rc = config(0), tc = config(tx_credits);
	char addr[SW_DP_ADDRSTRLEN];

	rc.max_recv = rx_max_recv;
	assert_int_equal(sw_dp_open(&rc, &p->rx), 0);
	assert_int_equal(sw_dp_listen(p->rx, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(p->rx, addr, sizeof(addr)), 0);
	assert_int_equal(sw_dp_open(&tc, &p->tx), 0);
	assert_int_equal(sw_dp_connect(p->tx, addr, &p->ep), 0);
}

/* Moves both sides until the receiver's connection closes; counts (and holds) what it got
 * before. Returns the CLOSED status. */
static int pair_until_closed(struct pair *p, unsigned *received)
{
	struct sw_dp_event held[256], ev, tev;
	int64_t end = now_ms() + WAIT_MS;
	int status = 1;

	*received = 0;
	while (status == 1) {
		assert_true(now_ms() < end);
		while (sw_dp_poll(p->tx, &tev, 1) == 1)
			sw_dp_release(p->tx, &tev);
		if (sw_dp_poll(p->rx, &ev, 1) != 1) {
			sw_dp_wait(p->rx, 10);
			continue;
		}
		if (ev.type == SW_DP_EV_RECV) {
			assert_true(*received < 256);
			held[(*received)++] =
			        ev; /* never released: the sender's credits stay spent */
		} else if (ev.type == SW_DP_EV_CLOSED)
			status = ev.status;
	}
	for (unsigned i = 0; i < *received; i++)
		sw_dp_release(p->rx, &held[i]);
	return status;
}

static void pair_close(struct pair *p)
{
	sw_dp_close(p->tx);
	sw_dp_close(p->rx);
}

/* A peer that sent a burst and left: the receiver's buffers (a slab of small ones, a kept
 * large one) go back to the system once the context has had nothing for a second. */
static void receive_buffers_go_back_when_the_context_idles_after_a_peer_left(void **state)
{
	enum { SMALL = 60 };
	struct pair p;
	struct sw_dp_event held[SMALL + 1], ev;
	struct sw_dp_counters c;
	static unsigned char big[1 << 20];
	unsigned char small[1000] = {0};
	unsigned n = 0;
	int64_t end = now_ms() + WAIT_MS;

	struct iovec s = {small, sizeof(small)}, b = {big, sizeof(big)};

	(void)state;
	pair_open(&p, 0, 0);
	for (int i = 0; i < SMALL; i++)
		send_retrying(p.tx, p.ep, 1, &s, 1, NULL);
	send_retrying(p.tx, p.ep, 2, &b, 1, NULL);
	while (n < SMALL + 1) {
		assert_true(now_ms() < end);
		while (sw_dp_poll(p.tx, &ev, 1) == 1)
			;
		if (sw_dp_poll(p.rx, &ev, 1) == 1 && ev.type == SW_DP_EV_RECV)
			held[n++] = ev; /* all held at once: the pool grows to fit them */
		else
			sw_dp_wait(p.rx, 10);
	}
	sw_dp_counters(p.rx, &c);
	assert_true(c.rx_pool_bytes >= SMALL * 1000);
	sw_dp_close(p.tx); /* the peer leaves */
	for (unsigned i = 0; i < n; i++)
		sw_dp_release(p.rx, &held[i]);
	do {
		assert_true(now_ms() < end);
		sw_dp_poll(p.rx, &ev, 1);
		sw_dp_wait(p.rx, 100);
		sw_dp_counters(p.rx, &c);
	} while (c.rx_pool_bytes > 0);
	sw_dp_close(p.rx);
}

/* A caller that closes the context while it still holds received messages, small and large:
 * sw_dp_close frees them and their endpoint (it leaked the endpoint and every large buffer;
 * LSan in build-asan sees it). */
static void messages_still_held_are_freed_with_the_context(void **state)
{
	static unsigned char big[1 << 20];
	struct iovec s = {big, 100}, b = {big, sizeof(big)};
	struct sw_dp_event ev;
	struct pair p;
	int n = 0;
	int64_t end = now_ms() + WAIT_MS;

	(void)state;
	pair_open(&p, 0, 0);
	send_retrying(p.tx, p.ep, 1, &s, 1, NULL);
	send_retrying(p.tx, p.ep, 2, &b, 1, NULL);
	while (n < 2) {
		assert_true(now_ms() < end);
		while (sw_dp_poll(p.tx, &ev, 1) == 1)
			;
		if (sw_dp_poll(p.rx, &ev, 1) == 1 && ev.type == SW_DP_EV_RECV)
			n++; /* held, never released */
		else
			sw_dp_wait(p.rx, 10);
	}
	sw_dp_close(p.tx);
	sw_dp_close(p.rx);
}

/* Moves both contexts until `want` arrives at ctx (other events released or dropped). */
static void pump_until(struct sw_dp_ctx *ctx, struct sw_dp_ctx *other, enum sw_dp_ev_type want,
                       struct sw_dp_event *out)
{
	int64_t end = now_ms() + WAIT_MS;
	struct sw_dp_event ev;

	for (;;) {
		assert_true(now_ms() < end);
		while (sw_dp_poll(other, &ev, 1) == 1)
			if (ev.type == SW_DP_EV_RECV)
				sw_dp_release(other, &ev);
		if (sw_dp_poll(ctx, &ev, 1) != 1)
			continue;
		if (ev.type == want) {
			*out = ev;
			return;
		}
		assert_int_not_equal(ev.type, SW_DP_EV_CLOSED);
		if (ev.type == SW_DP_EV_RECV)
			sw_dp_release(ctx, &ev);
	}
}

/* A context opened without one_sided (every server not handing out leases) lets no peer read
 * its memory: a peer that may read one-sided itself aims a get, with a key of its own, at
 * bytes of the other context's process, then twenty round trips pass; the get brought
 * nothing. Over UCX 1.13 it read the bytes before (its software RMA checks no key). */
static void a_context_without_one_sided_access_lets_no_peer_read_its_memory(void **state)
{
	static unsigned char secret[4096], bait[4096];
	unsigned char got[64] = {0};
	struct sw_dp_config tc = config(0), ac = config(0);
	struct sw_dp_ctx *target, *reader;
	struct sw_dp_ep *ep, *back = NULL;
	struct sw_dp_event ev;
	struct sw_dp_mr *mr;
	char addr[SW_DP_ADDRSTRLEN];
	struct iovec ping = {bait, 8};
	const void *key;
	size_t key_len;

	(void)state;
	memset(secret, 'S', sizeof(secret));
	tc.one_sided = 0;
	assert_int_equal(sw_dp_open(&tc, &target), 0);
	assert_false(sw_dp_caps(target) & SW_DP_CAP_GET);
	assert_int_equal(sw_dp_listen(target, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(target, addr, sizeof(addr)), 0);
	assert_int_equal(sw_dp_open(&ac, &reader), 0);
	assert_int_equal(sw_dp_connect(reader, addr, &ep), 0);
	assert_int_equal(sw_dp_mem_reg(reader, bait, sizeof(bait), &mr), 0);
	key = sw_dp_mr_rkey(mr, &key_len);
	if (!(sw_dp_caps(reader) & SW_DP_CAP_GET)) { /* tcp, dpdk: no gets at all */
		assert_int_equal(sw_dp_get(ep, got, 8, (uintptr_t)secret, bait, 8, NULL), -ENOTSUP);
		goto out;
	}
	for (int i = 0; i < 21; i++) { /* the get goes first; its answer would come first too */
		if (i == 1)            /* after one round trip: the connection is up */
			assert_int_equal(sw_dp_get(ep, got, sizeof(got), (uintptr_t)secret, key,
			                           key_len, NULL),
			                 0);
		send_retrying(reader, ep, 1, &ping, 1, NULL);
		pump_until(target, reader, SW_DP_EV_RECV, &ev);
		back = ev.ep;
		sw_dp_release(target, &ev);
		send_retrying(target, back, 2, &ping, 1, NULL);
		pump_until(reader, target, SW_DP_EV_RECV, &ev);
		sw_dp_release(reader, &ev);
	}
	assert_memory_not_equal(got, secret, sizeof(got));
out:
	sw_dp_mem_dereg(reader, mr);
	sw_dp_close(reader);
	sw_dp_close(target);
}

/* Grants go out only from endpoints that owe one (a list, not a walk over every connection):
 * three senders spend all their credits, the receiver releases everything, then closes the
 * endpoint that sits in the middle of that list before it polls; the other two get every
 * credit back and nothing touches the closed one (ASan would see it). */
static void credits_return_to_every_sender_when_the_receiver_closes_one_owing_a_grant(void **state)
{
	enum { SENDERS = 3, CREDITS = 4 };
	struct sw_dp_config rc = config(CREDITS), tc = config(CREDITS);
	struct sw_dp_ctx *rx, *tx;
	struct sw_dp_ep *snd[SENDERS], *owing[SENDERS], *gone = NULL;
	struct sw_dp_event held[SENDERS * CREDITS], ev;
	char addr[SW_DP_ADDRSTRLEN];
	unsigned char msg[16] = {0};
	struct iovec iov = {msg, sizeof(msg)};
	int64_t end = now_ms() + WAIT_MS;
	int nheld = 0, nowing = 0, back = 0;

	(void)state;
	assert_int_equal(sw_dp_open(&rc, &rx), 0);
	assert_int_equal(sw_dp_listen(rx, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(rx, addr, sizeof(addr)), 0);
	assert_int_equal(sw_dp_open(&tc, &tx), 0);
	for (int i = 0; i < SENDERS; i++) {
		assert_int_equal(sw_dp_connect(tx, addr, &snd[i]), 0);
		for (int k = 0; k < CREDITS; k++)
			assert_int_equal(sw_dp_send(snd[i], (uint64_t)k, &iov, 1, NULL), 0);
		assert_int_equal(sw_dp_send(snd[i], CREDITS, &iov, 1, NULL), -EAGAIN);
	}
	while (nheld < SENDERS * CREDITS) {
		struct sw_dp_event tev;
		assert_true(now_ms() < end);
		while (sw_dp_poll(tx, &tev, 1) == 1)
			assert_int_equal(tev.type, SW_DP_EV_SEND);
		if (sw_dp_poll(rx, &ev, 1) != 1)
			sw_dp_wait(rx, 10);
		else if (ev.type == SW_DP_EV_RECV)
			held[nheld++] = ev;
	}
	for (int i = 0; i < nheld; i++) {
		bool seen = false;
		for (int k = 0; k < nowing; k++)
			seen |= owing[k] == held[i].ep;
		if (!seen)
			owing[nowing++] = held[i].ep;
		sw_dp_release(rx, &held[i]);
	}
	assert_int_equal(nowing, SENDERS);
	sw_dp_ep_close(owing[1]);
	while (back < SENDERS - 1) {
		struct sw_dp_event tev;
		assert_true(now_ms() < end);
		assert_true(sw_dp_poll(rx, NULL, 0) >= 0);
		while (sw_dp_poll(tx, &tev, 1) == 1)
			if (tev.type == SW_DP_EV_CLOSED)
				gone = tev.ep; /* the closed one's sender may hear of it */
		back = 0;
		for (int i = 0; i < SENDERS; i++)
			back += sw_dp_ep_credits(snd[i]) == CREDITS;
		if (back < SENDERS - 1)
			sw_dp_wait(tx, 10);
	}
	for (int i = 0; i < SENDERS; i++)
		if (snd[i] == gone)
			assert_int_not_equal(sw_dp_ep_credits(snd[i]), CREDITS);
	sw_dp_close(tx);
	sw_dp_close(rx);
}

static void a_peer_over_max_recv_or_its_credits_loses_the_endpoint_unallocated(void **state)
{
	static unsigned char msg[8192];
	struct iovec iov = {msg, sizeof(msg)};
	struct pair p;
	unsigned got;

	(void)state;
	pair_open(&p, 4096, 0); /* a message above max_recv: refused, never delivered */
	assert_int_equal(sw_dp_send(p.ep, 1, &iov, 1, NULL), 0);
	assert_int_equal(pair_until_closed(&p, &got), -EMSGSIZE);
	assert_int_equal(got, 0);
	pair_close(&p);
	pair_open(&p, 0, 200); /* a sender that gave itself 200 credits */
	iov.iov_len = 16;
	for (int i = 0; i < 100; i++)
		assert_int_equal(sw_dp_send(p.ep, (uint64_t)i, &iov, 1, NULL), 0);
	assert_int_equal(pair_until_closed(&p, &got), -EPROTO);
	assert_int_equal(got, SW_DP_DEFAULT_CREDITS);
	pair_close(&p);
	printf("# %s\n", sw_dp_strerror(-EPROTO));
}

static void a_peer_granting_credits_it_never_received_loses_the_endpoint(void **state)
{
	/* {len 0, type 2 (credit grant), tag 5}: five credits for sends never made */
	static const unsigned char grant[16] = {0, 0, 0, 0, 2, 0, 0, 0, 5};
	struct sw_dp_config cfg = config(0);
	struct sw_dp_ctx *ctx;
	struct sw_dp_event ev;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char addr[SW_DP_ADDRSTRLEN];
	int64_t end = now_ms() + WAIT_MS;
	int fd, status = 1;

	(void)state;
	if (strcmp(backend, "tcp") != 0) { /* the frames are the tcp backend's */
		printf("# raw credit frames: tcp only\n");
		return;
	}
	assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
	assert_int_equal(sw_dp_listen(ctx, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(ctx, addr, sizeof(addr)), 0);
	sa.sin_port = htons((uint16_t)atoi(strchr(addr, ':') + 1));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(write(fd, grant, sizeof(grant)), sizeof(grant));
	while (status == 1) {
		assert_true(now_ms() < end);
		if (sw_dp_poll(ctx, &ev, 1) == 1 && ev.type == SW_DP_EV_CLOSED)
			status = ev.status;
		else
			sw_dp_wait(ctx, 10);
	}
	assert_int_equal(status, -EPROTO);
	close(fd);
	sw_dp_close(ctx);
}

/* A client that got its answer and closed, with the server's credit grant for its request
 * still unread, left cleanly: the server's end closes with status 0, not as a broken peer
 * (a shuffle server logged every such reducer as "cut off: connection reset"). */
static void a_peer_leaving_between_messages_with_a_grant_unread_closes_with_status_0(void **state)
{
	unsigned char msg[64] = {0};
	struct iovec iov = {msg, sizeof(msg)};
	struct sw_dp_event ev, tev;
	struct pair p;
	int64_t end = now_ms() + WAIT_MS;
	int status = 1;

	(void)state;
	/* dpdk sees a closed peer as reset; trusted ucx peers say no goodbye (dataplane/ucx.c) */
	if (strcmp(backend, "dpdk") == 0 || trust_peers) {
		printf("# a peer that left between messages: status 0 on tcp and untrusted ucx "
		       "only\n");
		return;
	}
	pair_open(&p, 0, 0);
	assert_int_equal(sw_dp_send(p.ep, 1, &iov, 1, NULL), 0);
	do {
		assert_true(now_ms() < end);
		while (sw_dp_poll(p.tx, &tev, 1) == 1)
			assert_int_equal(tev.type, SW_DP_EV_SEND);
		if (sw_dp_poll(p.rx, &ev, 1) != 1)
			sw_dp_wait(p.rx, 10);
	} while (ev.type != SW_DP_EV_RECV);
	sw_dp_release(p.rx, &ev);
	assert_true(sw_dp_poll(p.rx, NULL, 0) >= 0); /* the grant goes out */
	usleep(50 * 1000);                           /* and reaches the client, unread */
	sw_dp_ep_close(p.ep);
	while (status == 1) {
		assert_true(now_ms() < end);
		if (sw_dp_poll(p.rx, &ev, 1) == 1 && ev.type == SW_DP_EV_CLOSED)
			status = ev.status;
		else
			sw_dp_wait(p.rx, 10);
	}
	assert_int_equal(status, 0);
	pair_close(&p);
}

/* A listener in a child that has used up its descriptors; returns 0 once it dropped one. */
static void emfile_child(int wfd)
{
	struct sw_dp_config cfg = config(0);
	struct sw_dp_ctx *ctx;
	struct sw_dp_counters cnt = {0};
	char addr[SW_DP_ADDRSTRLEN] = {0};
	int64_t end = now_ms() + WAIT_MS;

	if (sw_dp_open(&cfg, &ctx) < 0 || sw_dp_listen(ctx, "127.0.0.1:0") < 0 ||
	    sw_dp_listen_addr(ctx, addr, sizeof(addr)) < 0)
		_exit(10);
	while (dup(0) >= 0) /* every descriptor taken */
		;
	if (write(wfd, addr, sizeof(addr)) != (ssize_t)sizeof(addr))
		_exit(11);
	while (cnt.accepts_dropped == 0 && now_ms() < end) {
		sw_dp_poll(ctx, NULL, 0);
		sw_dp_wait(ctx, 100);
		sw_dp_counters(ctx, &cnt);
	}
	_exit(cnt.accepts_dropped == 1 ? 0 : 12);
}

static void out_of_descriptors_a_listener_drops_the_connection_instead_of_spinning(void **state)
{
	char addr[SW_DP_ADDRSTRLEN];
	struct sockaddr_in sa = {.sin_family = AF_INET};
	struct timeval tv = {.tv_sec = WAIT_MS / 1000};
	int fds[2], fd, st;
	char b;

	(void)state;
	if (strcmp(backend, "tcp") != 0) { /* UCX's listener is UCX's */
		printf("# EMFILE: tcp only\n");
		return;
	}
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		emfile_child(fds[1]);
	assert_int_equal(read(fds[0], addr, sizeof(addr)), sizeof(addr));
	sa.sin_port = htons((uint16_t)atoi(strchr(addr, ':') + 1));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	ssize_t n = read(fd, &b, 1); /* closed by the listener, not left pending */
	assert_true(n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK));
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(fd);
	close(fds[0]);
	close(fds[1]);
}

static void connecting_to_a_closed_port_reports_ECONNREFUSED(void **state)
{
	struct sw_dp_config cfg = config(0);
	struct sw_dp_ctx *ctx, *tmp;
	struct sw_dp_ep *ep;
	struct sw_dp_event ev;
	char addr[SW_DP_ADDRSTRLEN];

	(void)state;
	/* A port that was just free: listen on it, then close the listener. */
	assert_int_equal(sw_dp_open(&cfg, &tmp), 0);
	assert_int_equal(sw_dp_listen(tmp, "127.0.0.1:0"), 0);
	assert_int_equal(sw_dp_listen_addr(tmp, addr, sizeof(addr)), 0);
	sw_dp_close(tmp);
	assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
	assert_int_equal(sw_dp_connect(ctx, addr, &ep), 0);
	next_event(ctx, SW_DP_EV_CLOSED, &ev, NULL);
	assert_true(ev.ep == ep);
	assert_true(ev.status == -ECONNREFUSED || ev.status == -ECONNRESET);
	printf("# connect to closed port: %s\n", sw_dp_strerror(ev.status));
	sw_dp_ep_close(ep);
	sw_dp_close(ctx);
}

/* dpdk: no static neighbour on the memif link between the two processes: the connecting side
 * asks for the peer's MAC by ARP, and the peer answers for its own address. An address that
 * nobody on the link holds gets no answer, and its connect fails with -EHOSTUNREACH (before
 * ARP, its SYNs went to the broadcast address, unanswered, and it failed -ECONNREFUSED). */
static void a_dpdk_peer_is_found_by_arp_and_an_address_nobody_holds_is_unreachable(void **state)
{
	unsigned char msg[100];
	char addr[SW_DP_ADDRSTRLEN];
	struct sw_dp_ep *ep;
	struct sw_dp_event ev;
	struct conn c;

	(void)state;
	if (strcmp(backend, "dpdk") != 0)
		skip();
	fill(msg, sizeof(msg), 5);
	conn_open(&c, 0);
	round_trip(&c, 1, msg, sizeof(msg));
	assert_non_null(strchr(c.peer.addr, ':'));
	snprintf(addr, sizeof(addr), "127.0.0.9%s", strchr(c.peer.addr, ':'));
	assert_int_equal(sw_dp_connect(c.ctx, addr, &ep), 0);
	next_event(c.ctx, SW_DP_EV_CLOSED, &ev, NULL);
	assert_true(ev.ep == ep);
	assert_int_equal(ev.status, -EHOSTUNREACH);
	printf("# connect to an address nobody holds: %s\n", sw_dp_strerror(ev.status));
	sw_dp_ep_close(ep);
	round_trip(&c, 2, msg, sizeof(msg));
	conn_close(&c);
}

static void bad_arguments_get_clear_error_codes(void **state)
{
	struct sw_dp_config cfg = config(0);
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep;

	(void)state;
	cfg.backend = "carrier-pigeon";
	assert_int_equal(sw_dp_open(&cfg, &ctx), -ENOENT);
	cfg = config(0);
	assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
	assert_int_equal(sw_dp_connect(ctx, "127.0.0.1", &ep), -EINVAL);
	assert_int_equal(sw_dp_connect(ctx, "localhost:80", &ep), -EINVAL);
	assert_int_equal(sw_dp_connect(ctx, "127.0.0.1:99999", &ep), -EINVAL);
	assert_int_equal(sw_dp_listen(ctx, "1.2.3:0"), -EINVAL);
	assert_string_equal(sw_dp_strerror(-EAGAIN), "no send credit left: poll and retry");
	sw_dp_close(ctx);
}

/* Pacing is dpdk's (a token bucket per context); the others say so. A paced endpoint still
 * moves every byte, and lifting the cap works too. */
static void a_paced_endpoint_keeps_every_byte_or_the_backend_reports_ENOTSUP(void **state)
{
	size_t len = 1u << 20;
	unsigned char *buf = malloc(len);
	struct conn c;
	int rc;

	(void)state;
	fill(buf, len, 3);
	conn_open(&c, 0);
	rc = sw_dp_set_rate(c.ctx, 50u << 20);
	if (strcmp(backend, "dpdk") != 0) {
		assert_int_equal(rc, -ENOTSUP);
		assert_int_equal(sw_dp_ep_set_paced(c.ep, true), -ENOTSUP);
	} else {
		assert_int_equal(rc, 0);
		assert_int_equal(sw_dp_ep_set_paced(c.ep, true), 0);
		round_trip(&c, 1, buf, len);
		assert_int_equal(sw_dp_set_rate(c.ctx, 0), 0);
	}
	round_trip(&c, 2, buf, len);
	free(buf);
	conn_close(&c);
}

#define PACE_RATE (16u << 20) /* bytes/s: well below what memif moves, even under ASan */
#define PACE_MSGS 64          /* of 64 KiB, 4 MiB per endpoint: 0.27 s at PACE_RATE */

/* Sends PACE_MSGS messages of len bytes on each of the first `busy` endpoints of ep (all
 * queued at once, in turn) and polls until all went through, releasing the echoes. Returns
 * the ms that took; *behind gets how many messages the slower endpoint still had to send
 * when the faster one was done (busy 2). */
static int64_t paced_stream(struct conn *c, struct sw_dp_ep *ep[2], int busy, unsigned char *msg,
                            size_t len, int *behind)
{
	struct iovec iov = {msg, len};
	int64_t t0 = now_ms(), t = 0, end = t0 + WAIT_MS;
	int sent[2] = {0, 0}, echoes = 0;

	for (int i = 0; i < PACE_MSGS; i++)
		for (int e = 0; e < busy; e++)
			send_retrying(c->ctx, ep[e], (uint64_t)e, &iov, 1, NULL);
	while (sent[0] + sent[1] < busy * PACE_MSGS || echoes < busy * PACE_MSGS) {
		struct sw_dp_event ev[16];
		int n = sw_dp_poll(c->ctx, ev, 16);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++) {
			if (ev[i].type == SW_DP_EV_RECV) {
				echoes++;
				sw_dp_release(c->ctx, &ev[i]);
				continue;
			}
			assert_int_equal(ev[i].type, SW_DP_EV_SEND);
			assert_int_equal(ev[i].status, 0);
			int e = ev[i].ep == ep[1];
			if (++sent[e] == PACE_MSGS && sent[!e] < PACE_MSGS)
				*behind = PACE_MSGS - sent[!e];
			if (sent[0] + sent[1] == busy * PACE_MSGS)
				t = now_ms();
		}
		assert_true(now_ms() < end);
		if (n == 0)
			sw_dp_wait(c->ctx, 100);
	}
	return t - t0;
}

/* One token bucket per context, shared by its paced endpoints: one busy endpoint beside an
 * idle one sends at the whole rate (split evenly, it would take as long as two busy ones);
 * two busy ones get halves (round robin: the second is a message or two behind when the first
 * is done); and the rate is a cap (two busy ones take at least their frame bytes over it).
 * Time ratios within the test, not absolute speeds: the machine is shared. */
static void paced_endpoints_share_one_bucket_an_idle_ones_share_goes_to_the_busy_one(void **state)
{
	size_t len = 64u << 10;
	unsigned char *msg;
	struct sw_dp_ep *ep[2];
	struct conn c;
	int64_t alone, both;
	int behind = 0, unused = 0;
	/* frame bytes of 8 MiB: 1,410-byte segments (MTU 1500) with 90 bytes of headers each */
	double both_min_ms = 2.0 * PACE_MSGS * len * 1500 / 1410 / PACE_RATE * 1000;

	(void)state;
	if (strcmp(backend, "dpdk") != 0 || dp_fault[0])
		skip(); /* pacing is dpdk's; with loss injected the window, not the rate, limits */
	msg = malloc(len);
	fill(msg, len, 5);
	conn_open(&c, 0);
	ep[0] = c.ep;
	assert_int_equal(sw_dp_connect(c.ctx, c.peer.addr, &ep[1]), 0);
	for (int e = 0; e < 2; e++) {
		struct conn ce = c;
		ce.ep = ep[e];
		round_trip(&ce, 9, msg, 100); /* both up before the clock starts */
		assert_int_equal(sw_dp_ep_set_paced(ep[e], true), 0);
	}
	assert_int_equal(sw_dp_set_rate(c.ctx, PACE_RATE), 0);
	alone = paced_stream(&c, ep, 1, msg, len, &unused);
	both = paced_stream(&c, ep, 2, msg, len, &behind);
	printf("# 4 MiB beside an idle endpoint: %lld ms; 4 MiB on each of two: %lld ms (cap: at "
	       "least %.0f ms), the second %d messages behind at the first's end\n",
	       (long long)alone, (long long)both, both_min_ms, behind);
	assert_true(alone < 0.75 * (double)both);
	assert_true((double)both >= 0.95 * both_min_ms - 1); /* a burst of 1 ms may go ahead */
	assert_true(behind <= PACE_MSGS / 8);
	sw_dp_ep_close(ep[1]);
	free(msg);
	conn_close(&c);
}

static void every_backend_parses_the_same_IPv4_port_address_form(void **state)
{
	struct sw_dp_addr a;
	char s[SW_DP_ADDRSTRLEN];

	(void)state;
	assert_int_equal(sw_dp_addr_parse("10.1.2.3:4791", &a), 0);
	assert_int_equal(a.ip, htonl(0x0a010203));
	assert_int_equal(a.port, 4791);
	sw_dp_addr_format(&a, s, sizeof(s));
	assert_string_equal(s, "10.1.2.3:4791");
	assert_int_equal(sw_dp_addr_parse("0.0.0.0:0", &a), 0);
	assert_int_equal(sw_dp_addr_parse("10.1.2.3:65536", &a), -EINVAL);
	assert_int_equal(sw_dp_addr_parse("10.1.2.3:", &a), -EINVAL);
	assert_int_equal(sw_dp_addr_parse(":80", &a), -EINVAL);
	assert_int_equal(sw_dp_addr_parse("fe80::1:80", &a), -EINVAL);
	assert_int_equal(sw_dp_addr_parse(NULL, &a), -EINVAL);
}

static void device_discovery_answers_no_rdma_devices_without_an_rdma_nic(void **state)
{
	struct sw_dp_device d[8];
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx;
	int n = sw_dp_devices(d, 8);

	(void)state;
	if (access("/sys/class/infiniband", F_OK) != 0) {
		assert_int_equal(n, -ENODEV);
		printf("# devices: %s\n", sw_dp_strerror(n));
		/* No backend named: the context falls back to tcp. */
		sw_dp_config_init(&cfg);
		assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
		assert_string_equal(sw_dp_backend(ctx), "tcp");
		sw_dp_close(ctx);
		return;
	}
	assert_true(n > 0);
	for (int i = 0; i < n && i < 8; i++)
		printf("# %s port %u: %llu Mbit/s %s\n", d[i].name, d[i].port,
		       (unsigned long long)d[i].speed_mbps, d[i].active ? "active" : "down");
}

/* The dpdk backend's bound on what peers can make it hold (each connection ~30 KiB): past
 * dpdk_max_conns a SYN is refused, and a freed slot takes the next peer. tcp's bound is the
 * descriptor limit (tested above), ucx's UCX's own. */
#define CAP_CONNS 4

/* Polls until each of n endpoints, each with a message sent, got its echo (outcome 1) or
 * was refused (-1); fails on anything else. */
static void echo_or_refused(struct sw_dp_ctx *ctx, struct sw_dp_ep **ep, int n, int *outcome)
{
	int64_t end = now_ms() + WAIT_MS;
	int left = n;

	memset(outcome, 0, n * sizeof(*outcome));
	while (left) {
		struct sw_dp_event ev;
		int got = sw_dp_poll(ctx, &ev, 1), i = 0;
		assert_true(got >= 0 && now_ms() < end);
		if (got == 0) {
			sw_dp_wait(ctx, 100);
			continue;
		}
		while (i < n && ep[i] != ev.ep)
			i++;
		if (i < n && ev.type == SW_DP_EV_RECV) {
			outcome[i] = 1;
			left--;
		} else if (i < n && ev.type == SW_DP_EV_CLOSED) {
			assert_int_equal(ev.status, -ECONNREFUSED);
			outcome[i] = -1;
			left--;
		}
		sw_dp_release(ctx, &ev);
	}
}

static void a_dpdk_listener_refuses_peers_beyond_its_connection_cap_until_one_leaves(void **state)
{
	struct sw_dp_config cfg;
	struct sw_dp_ctx *ctx;
	struct sw_dp_ep *ep[CAP_CONNS + 2], *late;
	int outcome[CAP_CONNS + 2], nup = 0, left = -1, late_up = 0;
	unsigned char msg[32];
	struct iovec iov = {msg, sizeof(msg)};
	int64_t end = now_ms() + WAIT_MS;
	struct peer p;

	(void)state;
	if (strcmp(backend, "dpdk") != 0)
		skip();
	fill(msg, sizeof(msg), 9);
	dp_max_conns = CAP_CONNS;
	peer_start(&p);
	dp_max_conns = 0;
	cfg = config(0);
	assert_int_equal(sw_dp_open(&cfg, &ctx), 0);
	for (int i = 0; i < CAP_CONNS + 2; i++) {
		assert_int_equal(sw_dp_connect(ctx, p.addr, &ep[i]), 0);
		assert_int_equal(sw_dp_send(ep[i], 1, &iov, 1, NULL), 0);
	}
	/* Which ones are refused is the order their SYNs arrive in. */
	echo_or_refused(ctx, ep, CAP_CONNS + 2, outcome);
	for (int i = 0; i < CAP_CONNS + 2; i++) {
		nup += outcome[i] == 1;
		if (outcome[i] == -1)
			sw_dp_ep_close(ep[i]);
		else if (left < 0)
			left = i;
	}
	assert_int_equal(nup, CAP_CONNS);
	/* One leaves: its slot goes to the next peer, once its FIN got through. */
	sw_dp_ep_close(ep[left]);
	while (!late_up) {
		assert_true(now_ms() < end);
		assert_int_equal(sw_dp_connect(ctx, p.addr, &late), 0);
		assert_int_equal(sw_dp_send(late, 2, &iov, 1, NULL), 0);
		echo_or_refused(ctx, &late, 1, &late_up);
		late_up = late_up == 1;
		sw_dp_ep_close(late);
	}
	for (int i = 0; i < CAP_CONNS + 2; i++)
		if (outcome[i] == 1 && i != left)
			sw_dp_ep_close(ep[i]);
	peer_drain(&p, ctx);
	sw_dp_close(ctx);
	assert_int_equal(peer_join(&p), 0);
}

/* dpdk has no kernel to notice a vanished peer: a connection with nothing in flight learns
 * it from its idle timeout, and probes keep one whose peer is merely quiet. */
#define IDLE_MS 1000
static void
a_dpdk_connection_stays_up_while_quiet_and_times_out_once_its_peer_is_silent(void **state)
{
	unsigned char msg[100];
	struct sw_dp_event ev;
	struct conn c;
	int64_t quiet_end;

	(void)state;
	if (strcmp(backend, "dpdk") != 0)
		skip();
	fill(msg, sizeof(msg), 4);
	dp_idle_ms = IDLE_MS;
	conn_open(&c, 0);
	dp_idle_ms = 0;
	round_trip(&c, 1, msg, sizeof(msg));
	/* Three idle timeouts of quiet: probes and their answers keep it up. */
	quiet_end = now_ms() + 3 * IDLE_MS;
	while (now_ms() < quiet_end) {
		int n = sw_dp_poll(c.ctx, &ev, 1);
		assert_int_equal(n, 0);
		sw_dp_wait(c.ctx, 50);
	}
	round_trip(&c, 2, msg, sizeof(msg));
	/* A peer that stops answering (stopped, not gone: its port stays up). */
	assert_int_equal(kill(c.peer.pid, SIGSTOP), 0);
	next_event(c.ctx, SW_DP_EV_CLOSED, &ev, NULL);
	assert_true(ev.ep == c.ep);
	assert_int_equal(ev.status, -ETIMEDOUT);
	printf("# silent peer: %s\n", sw_dp_strerror(ev.status));
	assert_int_equal(kill(c.peer.pid, SIGCONT), 0);
	conn_close(&c);
}

/* dpdk: the two ends of a link may take frames of different sizes (each port's MTU: memif's
 * default is 9000, SW_DP_DPDK_MTU sets another). The handshake settles on the smaller, or
 * the larger end's frames would not fit the other's buffers and never arrive. */
static void ends_with_different_MTUs_agree_on_the_smaller_frames(void **state)
{
	size_t len = 1u << 20;
	unsigned char *msg;
	struct sw_dp_config cfg;
	struct conn c;

	(void)state;
	if (strcmp(backend, "dpdk") != 0)
		skip();
	msg = malloc(len);
	assert_non_null(msg);
	fill(msg, len, 5);
	assert_int_equal(setenv("SW_DP_DPDK_MTU", "1500", 1), 0); /* the peer's, not ours */
	peer_start(&c.peer);
	assert_int_equal(unsetenv("SW_DP_DPDK_MTU"), 0);
	cfg = config(0);
	assert_int_equal(sw_dp_open(&cfg, &c.ctx), 0);
	assert_int_equal(sw_dp_connect(c.ctx, c.peer.addr, &c.ep), 0);
	round_trip(&c, 1, msg, len);
	round_trip(&c, 2, msg, 9000);
	conn_close(&c);
	free(msg);
}

/* dpdk: a context that holds the process's ring port for the whole run. A ring port made
 * again would attach to the ring the last one left, frames of an earlier test included. */
static struct sw_dp_ctx *ring_keeper;

static int ring_keep(void **state)
{
	struct sw_dp_config c = config(0);

	(void)state;
	return strcmp(backend, "dpdk") == 0 ? sw_dp_open(&c, &ring_keeper) : 0;
}

static int ring_release(void **state)
{
	(void)state;
	sw_dp_close(ring_keeper);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(round_trip_keeps_every_byte_from_0_bytes_to_64_MiB),
	        cmocka_unit_test(
	                a_wait_in_the_middle_of_a_large_frame_takes_its_next_bytes_without_sleeping),
	        cmocka_unit_test(
	                a_zero_copy_memif_client_keeps_every_byte_and_is_its_process_only_one),
	        cmocka_unit_test(many_small_messages_arrive_in_order_with_their_tags),
	        cmocka_unit_test(
	                a_placed_payload_lands_where_the_callback_said_and_declined_ones_arrive_whole),
	        cmocka_unit_test(a_close_during_a_placed_message_ends_its_writes),
	        cmocka_unit_test(small_messages_sent_behind_a_large_one_arrive_after_it),
	        cmocka_unit_test(
	                a_hundred_endpoints_to_one_peer_get_their_own_echoes_before_and_after_half_close),
	        cmocka_unit_test(
	                a_hundred_connections_to_a_peer_stalled_for_300_ms_open_when_it_runs_again),
	        cmocka_unit_test(sender_gets_EAGAIN_when_credits_run_out_and_resumes_after_release),
	        cmocka_unit_test(wait_does_not_sleep_once_credits_come_back_to_a_refused_sender),
	        cmocka_unit_test(get_reads_a_registered_remote_region_or_reports_ENOTSUP),
	        cmocka_unit_test(killed_peer_ends_transfers_with_ECONNRESET_not_a_hang),
	        cmocka_unit_test(counters_split_by_peer_add_up_to_the_context_total),
	        cmocka_unit_test(
	                credits_return_to_every_sender_when_the_receiver_closes_one_owing_a_grant),
	        cmocka_unit_test(
	                a_peer_over_max_recv_or_its_credits_loses_the_endpoint_unallocated),
	        cmocka_unit_test(a_peer_granting_credits_it_never_received_loses_the_endpoint),
	        cmocka_unit_test(
	                a_peer_leaving_between_messages_with_a_grant_unread_closes_with_status_0),
	        cmocka_unit_test(receive_buffers_go_back_when_the_context_idles_after_a_peer_left),
	        cmocka_unit_test(messages_still_held_are_freed_with_the_context),
	        cmocka_unit_test(a_context_without_one_sided_access_lets_no_peer_read_its_memory),
	        cmocka_unit_test(
	                out_of_descriptors_a_listener_drops_the_connection_instead_of_spinning),
	        cmocka_unit_test(connecting_to_a_closed_port_reports_ECONNREFUSED),
	        cmocka_unit_test(
	                a_dpdk_peer_is_found_by_arp_and_an_address_nobody_holds_is_unreachable),
	        cmocka_unit_test(bad_arguments_get_clear_error_codes),
	        cmocka_unit_test(every_backend_parses_the_same_IPv4_port_address_form),
	        cmocka_unit_test(a_paced_endpoint_keeps_every_byte_or_the_backend_reports_ENOTSUP),
	        cmocka_unit_test(
	                paced_endpoints_share_one_bucket_an_idle_ones_share_goes_to_the_busy_one),
	        cmocka_unit_test(device_discovery_answers_no_rdma_devices_without_an_rdma_nic),
	        cmocka_unit_test(
	                a_dpdk_listener_refuses_peers_beyond_its_connection_cap_until_one_leaves),
	        cmocka_unit_test(
	                a_dpdk_connection_stays_up_while_quiet_and_times_out_once_its_peer_is_silent),
	        cmocka_unit_test(ends_with_different_MTUs_agree_on_the_smaller_frames),
	};
	char name[128];
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 2;
	exe[n] = '\0';
	self_exe = exe;
	if (argc == 11 && strcmp(argv[1], "--peer") == 0) { /* a dpdk peer: see peer_start() */
		backend = "dpdk";
		dp_session = atol(argv[3]);
		dp_links = atoi(argv[4]);
		dp_peer_mode = true;
		for (int i = 0; i < 3; i++)
			dp_fault[i] = (uint32_t)atoi(argv[5 + i]);
		dp_max_conns = (uint32_t)atoi(argv[9]);
		dp_idle_ms = (uint32_t)atoi(argv[10]);
		peer_main(atoi(argv[2]), atoi(argv[8]));
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s BACKEND [UCX_TLS [trusted]] | dpdk [DROP DUP REORDER]\n",
		        argv[0]);
		return 2;
	}
	dp_session = getpid();
	backend = argv[1];
	if (getenv("TEST_DP_FILTER")) /* e.g. "round_trip*": run only the tests matching */
		cmocka_set_test_filter(getenv("TEST_DP_FILTER"));
	if (strcmp(backend, "dpdk") == 0) {
		for (int i = 0; i < 3 && i + 2 < argc; i++)
			dp_fault[i] = (uint32_t)atoi(argv[i + 2]);
		dp_hugepage_eal = getenv("SW_TEST_HUGEPAGE_EAL");
	} else {
		ucx_tls = argc > 2 ? argv[2] : NULL;
		trust_peers = argc > 3 && strcmp(argv[3], "trusted") == 0;
	}
	signal(SIGPIPE, SIG_IGN);
	if (dp_fault[0] || dp_fault[1] || dp_fault[2])
		snprintf(name, sizeof(name), "dataplane[%s drop 1/%u dup 1/%u reorder 1/%u]",
		         backend, dp_fault[0], dp_fault[1], dp_fault[2]);
	else
		snprintf(name, sizeof(name), "dataplane[%s%s%s%s%s]", backend,
		         ucx_tls ? " UCX_TLS=" : "", ucx_tls ? ucx_tls : "",
		         trust_peers ? " trusted" : "", dp_hugepage_eal ? " zero-copy" : "");
	return cmocka_run_group_tests_name(name, tests, ring_keep, ring_release);
}
