/* SPDX-License-Identifier: MIT */
/*
 * sw_dp: shufflewatch's data plane. One transport interface, several backends behind an
 * ops table (dataplane/dp.c holds the only list): "tcp" (kernel sockets + epoll, works
 * everywhere), "ucx" (UCP: shared memory/tcp here, RDMA verbs + rdma_cm on RDMA NICs) and
 * "dpdk" (a reliable transport of its own over UDP on a DPDK port; poll mode, no fd).
 *
 * Model
 *  - A context (struct sw_dp_ctx) is one backend instance: its socket set or UCP worker,
 *    its buffer pool and registration cache, its counters. It is single-threaded: every
 *    call on a context and its endpoints must come from one thread at a time. Use one
 *    context per thread.
 *  - An endpoint (struct sw_dp_ep) is one connection to a peer, made by sw_dp_connect() or
 *    reported by sw_dp_poll() as an SW_DP_EV_ACCEPT event after sw_dp_listen().
 *  - Messages are framed: one sw_dp_send() arrives as one SW_DP_EV_RECV event carrying the
 *    same bytes and the same 64-bit tag, in send order per endpoint.
 *  - Everything completes through sw_dp_poll(): it never blocks. To sleep, use
 *    sw_dp_wait() (blocking progress with a timeout) or put sw_dp_fd() in your own epoll.
 *
 * Flow control (credits)
 *  Each endpoint starts with `credits` send credits (struct sw_dp_config). A send takes
 *  one; the receiver gives it back when the application calls sw_dp_release() on the
 *  SW_DP_EV_RECV event. With no credit left sw_dp_send() returns -EAGAIN and queues
 *  nothing: retry after sw_dp_poll(). Credits come back inside sw_dp_poll() without an
 *  event of their own; sw_dp_wait() never sleeps once credits have come back to an
 *  endpoint whose send was refused, so the loop "send until -EAGAIN; poll; wait if poll
 *  returned 0" cannot miss them. So a slow reader bounds the memory a fast writer can pin
 *  at the reader to credits x message size, on every backend. A peer granting more credits
 *  than this side spent loses its endpoint (-EPROTO). One-sided gets use no
 *  credits (the target's CPU is not involved on RDMA).
 *
 * Counters
 *  Byte counters count payload bytes (message bodies and one-sided get data; not frame
 *  headers or credit grants), so they equal the bytes the application moved. Per endpoint:
 *  sw_dp_ep_counters(); per backend context, including endpoints already closed:
 *  sw_dp_counters(). sw_dp_foreach_peer() walks the live endpoints for a NetSat sampler.
 *  Counters are plain uint64_t updated by the context's thread; read them from that thread.
 *
 * Errors
 *  Every call that can fail returns 0 (or a count) on success and a negative errno-style
 *  code on failure; sw_dp_strerror() describes any of them. Codes used:
 *   -EINVAL        bad argument (NULL, malformed address string, unknown event)
 *   -ENOENT        unknown backend name
 *   -ENOTSUP       the backend lacks the operation (see sw_dp_caps())
 *   -ENOMEM        out of memory or out of registrable memory
 *   -EAGAIN        no send credit left on this endpoint: poll and retry
 *   -EMSGSIZE      message larger than the context's max_msg
 *   -ENOTCONN      endpoint not (yet, or any more) connected
 *   -ECONNREFUSED  nobody listens at the address
 *   -EHOSTUNREACH  dpdk: nobody answered ARP for the address (in events' status)
 *   -ECONNRESET    the peer vanished or the connection broke (in events' status)
 *   -ETIMEDOUT     sw_dp_wait() timed out
 *   -EADDRINUSE    listen address taken
 *   -EBUSY         region still referenced (sw_dp_mem_evict())
 *   -EPROTO        malformed frame from the peer (connection is then closed)
 *   -ENODEV        no RDMA device (sw_dp_devices())
 *   -EIO           any other backend failure (its own message goes to stderr)
 */
#ifndef SW_DP_H
#define SW_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sw_dp_ctx;
struct sw_dp_ep;
struct sw_dp_mr;

/* Capabilities, from sw_dp_caps(). */
#define SW_DP_CAP_GET (1u << 0) /* sw_dp_get(): one-sided read of a remote region */
/* sw_dp_fd() gives a pollable fd (dpdk: on af_packet and memif ports, else -ENOTSUP) */
#define SW_DP_CAP_FD   (1u << 1)
#define SW_DP_CAP_RDMA (1u << 2) /* can bypass the kernel (RDMA NIC, shared memory) */

/* Defaults used when a config field is 0. */
#define SW_DP_DEFAULT_CREDITS 64
#define SW_DP_DEFAULT_MAX_MSG (64u << 20)

/* Largest address string sw_dp_listen_addr()/sw_dp_ep_peer() produce, with the NUL. */
#define SW_DP_ADDRSTRLEN 64

/*
 * A transport address, the same for every backend: an IPv4 address and a port (the TCP
 * port for tcp and ucx, the UDP port for dpdk, which carries its own transport over UDP).
 * Every call taking an address string parses it with sw_dp_addr_parse(), so "IP:port"
 * means the same thing whichever backend a context runs.
 */
struct sw_dp_addr {
	uint32_t ip;   /* network byte order */
	uint16_t port; /* host byte order */
};

/* Parses "a.b.c.d:port" (port 0..65535). Returns 0 or -EINVAL (NULL or malformed). */
int sw_dp_addr_parse(const char *s, struct sw_dp_addr *out);

/* Writes "a.b.c.d:port" into buf (SW_DP_ADDRSTRLEN bytes suffice), truncated to len. */
void sw_dp_addr_format(const struct sw_dp_addr *a, char *buf, size_t len);

struct sw_dp_config {
	/* "tcp", "ucx", or NULL for automatic: "ucx" when sw_dp_devices() finds an RDMA
	 * device, otherwise "tcp" (printing why to stderr once). */
	const char *backend;
	/* ucx only: value for UCX_TLS, e.g. "tcp", "sm", "posix,cma", "rc,ud". NULL keeps
	 * UCX's own choice (the UCX_TLS environment variable, or all transports). */
	const char *ucx_tls;
	uint32_t credits; /* send credits per endpoint; 0: SW_DP_DEFAULT_CREDITS */
	uint64_t max_msg; /* largest message accepted either way; 0: SW_DP_DEFAULT_MAX_MSG */
	/* Largest message taken from a peer; 0: max_msg. A peer announcing a longer one loses
	 * its endpoint (-EMSGSIZE) before anything is allocated: a server whose requests are
	 * small sets it small, so no peer makes it allocate more before authenticating. */
	uint64_t max_recv;
	int numa_node; /* node for the buffer pool; -1: the NIC's node (or local if unknown) */
	/* tcp: how long, in microseconds, sw_dp_wait() with a timeout polls the sockets before it
	 * sleeps, so that what comes within it is taken without a wake-up; spins that find
	 * nothing or lose their core make the next waits sleep at once (dataplane/README.md,
	 * "Spinning before sleeping"). 0: it sleeps at once. The shuffle fetcher's contexts take
	 * 50 (sw_shuffle_fetcher_dp_config). dpdk spins by SW_DP_DPDK_SPIN_US instead. */
	uint32_t spin_us;
	/* ucx only: skip peer-failure detection (UCP_ERR_HANDLING_MODE_NONE). UCX 1.13 then
	 * uses single-copy cma for large transfers over shared memory (35 against 2 Gbit/s
	 * measured for 1 MiB, dataplane/README.md), but a peer that dies can leave this side's
	 * operations hanging. Only for peers whose failure takes this process down too. */
	int ucx_trust_peers;
	/* Non-zero: this context takes part in one-sided reads (SW_DP_CAP_GET in sw_dp_caps(),
	 * sw_dp_get(), keys of sw_dp_mem_reg() that peers can use). 0 (the default): no peer
	 * can read or write this process's memory, and sw_dp_get() is -ENOTSUP. On ucx it is
	 * UCP_FEATURE_RMA, which over transports that emulate RMA in software (UCX 1.13's tcp,
	 * and shared memory with peer-failure handling: every transport on a machine without an
	 * RDMA NIC) lets any connected peer read and write ANY address of the process, whatever
	 * key it presents and after the region is unregistered (dataplane/README.md, "One-sided
	 * access"): turn it on only among peers that trust each other, or on RDMA NICs. */
	int one_sided;
	/* dpdk only (dataplane/README.md, "Backend dpdk"). EAL arguments of the process's one
	 * rte_eal_init(), which the first dpdk context runs; NULL takes the environment's
	 * SW_DP_DPDK_EAL, and where that is unset or empty: "--no-pci --no-huge -m 256
	 * --no-shconf --no-telemetry --file-prefix swdp-PID" (no hugepages, no PCI device taken,
	 * nothing left in /var/run/dpdk). A memif client's zero-copy=yes needs hugepages and
	 * memory fixed at init: "--no-pci --in-memory --single-file-segments --socket-mem 256
	 * --socket-limit 256 --no-telemetry" (dataplane/README.md, "Zero-copy memif"). */
	const char *dpdk_eal;
	/* dpdk: the context's port as EAL devargs, e.g. "net_memif0,role=client,socket=/sw.sock"
	 * or "net_af_packet0,iface=veth0"; the contexts of a process naming the same devargs
	 * share the port (probed by the first, removed with the last), each on its own UDP port.
	 * Required: NULL takes the environment's SW_DP_DPDK_PORT, as the dpdk_ip, dpdk_neigh and
	 * dpdk_mtu below take SW_DP_DPDK_IP, _NEIGH and _MTU. */
	const char *dpdk_port;
	/* dpdk: this context's IPv4 address; NULL: the listen address's (0.0.0.0 takes frames
	 * for any address). */
	const char *dpdk_ip;
	/* dpdk: static neighbours "IP=MAC,..."; others are asked for by ARP (a connect to an
	 * address nobody answers for ends -EHOSTUNREACH after about 5 s). */
	const char *dpdk_neigh;
	uint32_t dpdk_mtu; /* dpdk: IP MTU of the port, 576..9000; 0: 9000 on memif and net_ring,
	                    * 1500 elsewhere (dataplane/README.md) */
	/* dpdk: connections peers may hold in this context at once (each costs about 80 KiB);
	 * a SYN beyond gets RST (the peer sees -ECONNREFUSED) and counts in accepts_dropped;
	 * 0: 512. */
	uint32_t dpdk_max_conns;
	/* dpdk: a connection that heard nothing from its peer for this long ends with
	 * -ETIMEDOUT; after a quarter of it a probe asks the peer for an answer, so a live peer
	 * keeps a quiet connection up; 0: 30000. */
	uint32_t dpdk_idle_ms;
	/* dpdk, tests only: in the receive path drop, process twice, or hold back behind the
	 * next frame every Nth frame (netem is not available here); 0: off. */
	uint32_t dpdk_drop_every, dpdk_dup_every, dpdk_reorder_every;
};

/* Fills *cfg with the defaults (backend NULL, numa_node -1, the rest 0). */
void sw_dp_config_init(struct sw_dp_config *cfg);

/*
 * Opens a context. cfg may be NULL (defaults). On success *out is set and 0 returned.
 * Returns -ENOENT for an unknown backend, -EINVAL for a bad field, -ENOMEM, -EIO, and for
 * dpdk -ENOTSUP for a memif port in zero-copy mode that the process cannot take (dpdk_eal).
 */
int sw_dp_open(const struct sw_dp_config *cfg, struct sw_dp_ctx **out);

/* Closes every endpoint (without events), the listener, all registrations; frees ctx.
 * Outstanding receives that were not released are freed too. NULL is a no-op. */
void sw_dp_close(struct sw_dp_ctx *ctx);

/* Name of the backend ("tcp", "ucx"). */
const char *sw_dp_backend(const struct sw_dp_ctx *ctx);

/* SW_DP_CAP_* bits of this context's backend. */
unsigned sw_dp_caps(const struct sw_dp_ctx *ctx);

/*
 * Listens on addr, "IPv4:port" (e.g. "127.0.0.1:0"; port 0 picks a free port, read it
 * back with sw_dp_listen_addr()). One listener per context. Incoming connections appear
 * as SW_DP_EV_ACCEPT events. Returns 0, -EINVAL (bad address or already listening),
 * -EADDRINUSE, -EIO.
 */
int sw_dp_listen(struct sw_dp_ctx *ctx, const char *addr);

/* Writes the bound listen address "IP:port" into buf (SW_DP_ADDRSTRLEN bytes suffice).
 * Returns 0, -ENOTCONN when not listening, -EINVAL when len is too small. */
int sw_dp_listen_addr(const struct sw_dp_ctx *ctx, char *buf, size_t len);

/*
 * Starts a connection to addr ("IP:port"). *out is usable at once: sends made before the
 * connection is up are queued and go out when it is. A refused or failed connection is
 * reported as SW_DP_EV_CLOSED with the cause in status (-ECONNREFUSED, -ECONNRESET).
 * Returns 0, -EINVAL, -ENOMEM, -EIO.
 */
int sw_dp_connect(struct sw_dp_ctx *ctx, const char *addr, struct sw_dp_ep **out);

/* Closes an endpoint and frees it. Sends still pending complete with -ECONNRESET as
 * SW_DP_EV_SEND events in later polls; received messages not yet released stay valid
 * until released. After this call no event names ep (except those completions, whose ep
 * field is then NULL). NULL is a no-op. */
void sw_dp_ep_close(struct sw_dp_ep *ep);

/* The peer's address "IP:port" as this side sees it (writes "" when unknown). */
void sw_dp_ep_peer(const struct sw_dp_ep *ep, char *buf, size_t len);

/* Prints what carries this endpoint's traffic, for logs and tests: tcp prints its socket
 * pair; ucx prints ucp_ep_print_info() (the transports and devices UCX chose per lane,
 * e.g. "posix/memory" or "rc_mlx5/mlx5_0:1"). Meaningful once a message went through. */
void sw_dp_ep_describe(const struct sw_dp_ep *ep, FILE *out);

/* An opaque pointer for the application, NULL until set. */
void sw_dp_ep_set_user(struct sw_dp_ep *ep, void *user);
void *sw_dp_ep_user(const struct sw_dp_ep *ep);

/*
 * Pacing, for cross-rack senders. A context has one token bucket over frame bytes, with bursts
 * of a millisecond at its rate; the endpoints marked paced draw on it together, in turn, a
 * segment at a time: a busy endpoint takes what idle ones leave, busy ones get equal shares.
 * sw_dp_set_rate sets the context's rate from now on, 0 lifting the cap (the marks stay);
 * sw_dp_ep_set_paced marks or unmarks an endpoint (endpoints start unmarked).
 * Return 0, -EINVAL (NULL), -ENOTSUP on backends that do not pace (tcp, ucx), -ENOTCONN
 * (sw_dp_ep_set_paced on an endpoint that is down).
 */
int sw_dp_set_rate(struct sw_dp_ctx *ctx, uint64_t bytes_per_s);
int sw_dp_ep_set_paced(struct sw_dp_ep *ep, bool paced);

/*
 * Placement: receiving a message's payload straight into the application's memory instead of a
 * library buffer, to save the copy out of it (the shuffle fetcher puts a raw chunk's bytes where
 * the reducer wants them). Once the first `head` bytes of a message of at least `head` bytes have
 * arrived on the endpoint, fn runs inside sw_dp_poll() (over ucx, inside any call that makes the
 * transport progress: also sw_dp_wait() and sw_dp_ep_close() of another endpoint), before the
 * rest is read, with those bytes and the message's whole length; it returns where bytes
 * [head, len) go (len - head bytes of the caller's, untouched by it until the message's event is
 * released, and valid until then or until the endpoint is closed: nothing is written there after
 * sw_dp_ep_close()), or NULL for a library buffer as usual. fn runs for every such message in
 * arrival order, also for messages the caller has not seen the events of before (a poll reads
 * what the socket holds before it returns). The message then arrives as SW_DP_EV_RECV with data a
 * library buffer of its first head bytes, len its whole length, and placed what fn returned;
 * release it as any other. fn NULL turns placement off. Returns 0, -EINVAL (head 0, above 64 KiB,
 * over ucx above 256 bytes: a message's first 256 bytes travel in its active message's header,
 * over dpdk above 500: the smallest segment payload, so that a first segment holds the head).
 */
typedef void *(*sw_dp_place_fn)(struct sw_dp_ep *ep, uint64_t tag, const void *head, size_t len);
int sw_dp_ep_set_place(struct sw_dp_ep *ep, size_t head, sw_dp_place_fn fn);

/* Send credits this endpoint has now (0 means sw_dp_send() returns -EAGAIN). */
uint32_t sw_dp_ep_credits(const struct sw_dp_ep *ep);

/*
 * Sends one message made of iov[0..iovcnt) (total may be 0 bytes) with a tag the
 * receiver sees. The buffers must stay untouched until the SW_DP_EV_SEND event with the
 * same `user` arrives (status 0, or a negative code when the connection broke). Takes one
 * credit. Returns 0 (queued), -EAGAIN (no credit; nothing queued), -EMSGSIZE, -EINVAL
 * (iovcnt outside 0..SW_DP_MAX_IOV), -ENOTCONN (endpoint closed or broken), -ENOMEM.
 */
#define SW_DP_MAX_IOV 16
int sw_dp_send(struct sw_dp_ep *ep, uint64_t tag, const struct iovec *iov, int iovcnt, void *user);

/*
 * Registers [addr, addr+len) for one-sided access by peers and returns a handle. The
 * registration cache keeps regions registered after sw_dp_mem_dereg() and hands the same
 * registration back for any later request inside a cached range, so registering per
 * transfer costs a lookup, not a pin. On tcp this only records the range (no get).
 * Returns 0, -EINVAL (NULL or len 0), -ENOMEM.
 */
int sw_dp_mem_reg(struct sw_dp_ctx *ctx, void *addr, size_t len, struct sw_dp_mr **out);

/* Drops the caller's reference. The region stays cached (and readable by peers holding
 * its key) until the cache evicts it or the context closes: the map-output store must
 * keep the memory alive until then, or call sw_dp_mem_evict(). */
void sw_dp_mem_dereg(struct sw_dp_ctx *ctx, struct sw_dp_mr *mr);

/* Unregisters every cached region overlapping [addr, addr+len) that nobody references;
 * call before freeing memory you registered. Returns how many were dropped, or -EBUSY when
 * a referenced region overlaps (nothing is dropped then). */
int sw_dp_mem_evict(struct sw_dp_ctx *ctx, void *addr, size_t len);

/* The packed remote key of mr: *len bytes an application sends to a peer (in its own
 * protocol) so the peer can sw_dp_get() from the region. Length 0 on backends without
 * SW_DP_CAP_GET. Valid until the region is unregistered. */
const void *sw_dp_mr_rkey(const struct sw_dp_mr *mr, size_t *len);

/* Start address and length of the registered range (may cover more than was asked). */
void *sw_dp_mr_addr(const struct sw_dp_mr *mr);
size_t sw_dp_mr_len(const struct sw_dp_mr *mr);

/*
 * One-sided read: copies len bytes at the peer's address raddr (inside a region whose
 * packed key is rkey/rkey_len) into local. Completes as SW_DP_EV_GET with `user`.
 * Returns 0 (started), -ENOTSUP when the backend lacks SW_DP_CAP_GET (tcp: the shuffle
 * then streams the data with sw_dp_send() instead), -EINVAL (bad key), -ENOTCONN.
 */
int sw_dp_get(struct sw_dp_ep *ep, void *local, size_t len, uint64_t raddr, const void *rkey,
              size_t rkey_len, void *user);

enum sw_dp_ev_type {
	SW_DP_EV_ACCEPT = 1, /* ep: a new incoming endpoint (listen side) */
	SW_DP_EV_RECV,       /* ep, tag, data, len: a message; call sw_dp_release() */
	SW_DP_EV_SEND,       /* ep, user, status: the send's buffers are free again */
	SW_DP_EV_GET,        /* ep, user, status: sw_dp_get() finished, local is filled */
	SW_DP_EV_CLOSED,     /* ep, status: the connection ended (0: peer closed cleanly,
	                         otherwise -ECONNRESET, -ECONNREFUSED, -EPROTO, ...);
	                         the endpoint still needs sw_dp_ep_close() */
};

struct sw_dp_event {
	enum sw_dp_ev_type type;
	int status;          /* 0 or a negative errno-style code */
	struct sw_dp_ep *ep; /* NULL for a send completing after sw_dp_ep_close() */
	void *user;          /* SEND/GET: the caller's pointer */
	uint64_t tag;        /* RECV: the sender's tag */
	void *data;          /* RECV: message bytes, owned by the library until released */
	size_t len;          /* RECV: message length */
	/* RECV: where sw_dp_ep_set_place()'s callback put bytes [head, len); data then holds only
	 * the first head bytes. NULL: data holds the whole message. */
	void *placed;
	void *priv; /* library use */
};

/*
 * Makes progress without blocking and stores up to max events into ev. Returns how many
 * (0 when nothing happened), or a negative code on a context-wide failure (-EIO). With
 * max 0 it only makes progress; events stay queued for a later call.
 */
int sw_dp_poll(struct sw_dp_ctx *ctx, struct sw_dp_event *ev, int max);

/*
 * Blocks until sw_dp_poll() may have something to report or timeout_ms passes (-1: no
 * limit; 0: just check). Returns 0 (poll now), -ETIMEDOUT, or another negative code.
 * Poll-mode backends spin on their progress here.
 */
int sw_dp_wait(struct sw_dp_ctx *ctx, int timeout_ms);

/* A file descriptor that turns readable when sw_dp_poll() may have work, for the caller's
 * own epoll (edge cases: after it turns readable call sw_dp_poll() until it returns 0).
 * Call sw_dp_wait(ctx, 0) before sleeping on it: -ETIMEDOUT leaves it armed (ucx, dpdk).
 * Returns the fd, or -ENOTSUP on backends without SW_DP_CAP_FD (and dpdk on net_ring and
 * af_xdp). */
int sw_dp_fd(struct sw_dp_ctx *ctx);

/* The longest, in ms, a caller may sleep on sw_dp_fd() alone before it must call
 * sw_dp_wait(ctx, 0) again, a property of the backend: ucx 100, because UCX 1.13 over
 * shared memory sometimes leaves its event fd quiet though a message arrived (sw_dp_wait()
 * keeps the same bound); -1 when the fd reports all work (tcp, dpdk). Returns the bound,
 * -1, or -ENOTSUP on contexts without an fd (as sw_dp_fd()). */
int sw_dp_fd_sleep_ms(const struct sw_dp_ctx *ctx);

/* Gives an SW_DP_EV_RECV event's buffer back and returns the sender its credit. Every
 * RECV event must be released exactly once; other event types are ignored. */
void sw_dp_release(struct sw_dp_ctx *ctx, struct sw_dp_event *ev);

struct sw_dp_counters {
	uint64_t tx_bytes;      /* payload bytes sent (messages) */
	uint64_t rx_bytes;      /* payload bytes received (messages and get data) */
	uint64_t tx_msgs;       /* messages sent (completed) */
	uint64_t rx_msgs;       /* messages received */
	uint64_t get_bytes;     /* of rx_bytes, bytes read one-sided by sw_dp_get() */
	uint64_t credit_stalls; /* sends refused with -EAGAIN */
	/* dpdk (its own transport): stream segments sent again (timeout or selective ack), and
	 * segments received that had arrived already (what a spurious resend costs the peer) */
	uint64_t retransmits;
	uint64_t rx_dup_segs;
	/* context only: connections refused at once: tcp, the process had no descriptor left
	 * for them (EMFILE/ENFILE), rather than left pending to spin on; dpdk, the context held
	 * dpdk_max_conns connections of peers already */
	uint64_t accepts_dropped;
	/* context only: bytes of receive buffers it holds, handed out or kept for reuse; given
	 * back to the system after a second in which no message arrived (DP_POOL_IDLE_MS) */
	uint64_t rx_pool_bytes;
};

/* Counters of one endpoint, since it was made. */
void sw_dp_ep_counters(const struct sw_dp_ep *ep, struct sw_dp_counters *out);

/* Counters of the whole context: every endpoint it ever had, closed ones included. */
void sw_dp_counters(const struct sw_dp_ctx *ctx, struct sw_dp_counters *out);

/* Calls fn for every live endpoint with its peer address and counters; stops early and
 * returns fn's value when it is non-zero, else returns 0. */
typedef int (*sw_dp_peer_fn)(struct sw_dp_ep *ep, const char *peer, const struct sw_dp_counters *c,
                             void *arg);
int sw_dp_foreach_peer(struct sw_dp_ctx *ctx, sw_dp_peer_fn fn, void *arg);

/*
 * Memory on the context's NUMA node (the NIC's, see numa_node in the config) for large
 * long-lived buffers such as the map-output store; falls back to the general allocator
 * when libnuma reports no NUMA support. Free with sw_dp_free() and the same len.
 */
void *sw_dp_alloc(struct sw_dp_ctx *ctx, size_t len);
void sw_dp_free(struct sw_dp_ctx *ctx, void *p, size_t len);

/* NUMA node the context's memory is placed on, -1 when unknown/not NUMA. */
int sw_dp_numa_node(const struct sw_dp_ctx *ctx);

struct sw_dp_device {
	char name[64];       /* e.g. "mlx5_0" */
	uint8_t port;        /* port number, from 1 */
	int numa_node;       /* device's NUMA node, -1 when unknown */
	uint64_t speed_mbps; /* active port speed (width x lane rate) */
	int active;          /* 1 when the port state is ACTIVE */
	int link_layer_eth;  /* 1 for RoCE (Ethernet), 0 for InfiniBand */
};

/*
 * Lists RDMA device ports through libibverbs into out[0..max). Returns the number found
 * (may exceed max; only max are stored), or -ENODEV when there are none or the kernel
 * lacks RDMA support (as on machines without RDMA NICs: then use the tcp backend).
 */
int sw_dp_devices(struct sw_dp_device *out, int max);

/* Describes an error code returned by any sw_dp call (positive or negative). */
const char *sw_dp_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* SW_DP_H */
