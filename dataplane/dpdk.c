/* SPDX-License-Identifier: MIT */
/*
 * Backend "dpdk": a reliable message transport of its own over Ethernet/IPv4/UDP on a DPDK
 * port, as eRPC and Machnet do (no userspace TCP stack ships with Debian). One port per
 * context, one queue pair, poll mode. Design, frame format and what is left out:
 * dataplane/README.md, "Backend dpdk".
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dp_impl.h"
#include "dpdk_frame.h"
#include "dpdk_memif.h"
#include "spin.h"
#include "dpdk_wake.h"

#define WIN   2048u /* segments in flight per connection; also the receiver's reorder window */
#define BURST 32
/* Congestion window in segments (TCP NewReno's rules, cwnd_loss): a connection starts at
 * CWND_INIT and never goes below CWND_MIN (about 11 KiB). */
#define CWND_INIT 64u
#define CWND_MIN  8u
#define RING_SIZE 1024
/* mbufs an EAL thread keeps in a cache of its own: without one every alloc and free went to
 * the pool's shared ring (13% of a memif transfer's CPU, perf/README.md) */
#define MBUF_CACHE     256
#define RTO_MIN_US     5000
#define RTO_MAX_US     200000
#define DEAD_US        10000000 /* no progress on unacked data for 10 s: the peer is gone */
#define SYN_RTO_US     10000
#define SYN_TRIES      30 /* 10 ms doubling to 200 ms: about 5 s */
#define MAX_CONNS      (1u << 20)
#define DEF_PEER_CONNS 512 /* sw_dp_config.dpdk_max_conns 0 */
#define DEF_IDLE_MS    30000
#define LINGER_MS      2000
/* A connection that heard nothing for this long asks its peer for an answer: on a kernel
 * interface a peer whose process ended answers through its kernel (port unreachable). */
#define PROBE_MS 1000
/* On a port with no wake set (net_ring, af_xdp) sw_dp_wait polls this often at first, then
 * naps 50 us between polls (dataplane/README.md, "Waiting"); the others sleep at once. */
#define WAIT_SPIN_US 200
/* How long a wait on a port with a wake set polls before it sleeps (spin.h), unless
 * SW_DP_DPDK_SPIN_US says otherwise. */
#define DEF_SPIN_US 50
/* The longest a pure ack waits for a frame to ride on (ack_held): well below RTO_MIN_US. */
#define ACK_HOLD_US 500
/* neighbours a port learns by ARP (the oldest replaced first when full) */
#define ARP_MAX 256
/* memif's rings: 2^8 slots of a frame each (its default 2^10 of 9 KiB frames is 9.4 MiB a
 * ring, past the caches, so that every frame's two copies through the ring missed them:
 * dataplane/README.md, "Frame size") */
#define MEMIF_RSIZE "8"
/* the default MTU of a link in memory (in_memory), and the largest of any port */
#define MTU_MEM 9000

enum dconn_state { DC_SYN_SENT, DC_OPEN, DC_PEER_FIN, DC_FIN_WAIT, DC_DEAD };

struct dmsg {
	struct dmsg *next;
	uint64_t tag;
	struct iovec iov[SW_DP_MAX_IOV];
	int iovcnt;
	uint32_t len;
	uint32_t assigned; /* bytes put into segments so far */
	void *user;
	/* frames that carry a payload of it in place (tx_lend) hold a count here, above the 1
	 * that keeps the driver from ever freeing the sender's buffer */
	struct rte_mbuf_ext_shared_info lent;
};

struct dseg {
	struct dmsg *msg; /* MSG segments */
	uint32_t off, len;
	uint32_t credit; /* credits given back: a CREDIT segment's, or riding on a MSG one */
	uint8_t kind;
	bool sacked, retx;
	uint64_t sent; /* tsc of the last transmission, 0: never sent */
};

/* A connection. Outlives its sw_dp_ep while its FIN waits for an ack (ep NULL then). */
struct dconn {
	struct sw_dp_ep *ep;
	uint32_t id, peer_id;
	enum dconn_state state;
	uint8_t peer_mac[6];
	uint32_t peer_ip;
	uint16_t peer_port;
	/* sender */
	struct dmsg *msgs, *msgs_tail; /* sends not yet acked, oldest first */
	struct dmsg *asg;              /* first message not wholly in segments */
	uint32_t credit_owed;          /* credits to give back in the next CREDIT segment */
	bool fin_wanted;
	uint32_t snd_una, snd_nxt, snd_end; /* acked < una <= sent < nxt <= assigned < end */
	struct dseg seg[WIN];
	uint64_t rto_tsc; /* current timeout, backed off */
	uint64_t srtt_tsc;
	uint64_t progress_tsc;   /* last ack that advanced snd_una (or the first send) */
	uint32_t cwnd, ssthresh; /* congestion window and slow-start threshold, segments */
	uint32_t cwnd_acc;       /* segments acked towards the next +1 above ssthresh */
	uint32_t recover;        /* snd_nxt at the last cut: no other cut until it is acked */
	uint32_t mss;            /* payload bytes per segment: the smaller of both ends' (SYN) */
	unsigned syn_tries;
	bool resolving;     /* peer_mac unknown: ARP requests go on the SYN's schedule */
	bool accepted;      /* opened by the peer: counts against dpdk_max_conns */
	uint64_t rx_tsc;    /* last frame heard from the peer */
	uint64_t probe_tsc; /* last probe sent while the peer was quiet */
	bool paced;         /* draws on the context's token bucket (paced_tx) */
	/* receiver */
	uint32_t rcv_nxt;
	bool ack_due;
	bool ack_hold;             /* the ack may wait for a frame to ride on (ack_held) */
	uint64_t ack_prog;         /* ... until the caller took the events of this progress */
	uint64_t ack_tsc;          /* ... and at most ACK_HOLD_US from then */
	struct rte_mbuf *ooo[WIN]; /* segments that arrived ahead of rcv_nxt (checksums checked) */
	uint8_t *rx_buf;           /* bytes [0, rx_head) of the message in reception */
	uint8_t *rx_place; /* bytes [rx_head, rx_len) when placed (sw_dp_ep_set_place), or NULL */
	uint32_t rx_len, rx_off, rx_head;
	uint64_t rx_tag;
	bool rx_busy;
};

struct dpdk_ep {
	struct sw_dp_ep base;
	struct dconn *c;
};

struct neigh {
	uint32_t ip;
	uint8_t mac[6];
};

/* A DPDK port, shared by the contexts of this process that name the same devargs, as a
 * host's sockets share its NIC: af_packet puts every socket one process opens on an interface
 * into one fanout group, which deals each frame to one of them by hash, so two ports there
 * would each miss frames of the other's connections. A context that polls the port hands
 * frames for another context's UDP port over through that context's ring. */
struct dport {
	struct dport *next;
	char *devargs;
	char name[RTE_DEV_NAME_MAX_LEN];
	uint16_t id;
	unsigned refs;
	bool probed, started;
	bool kernel_if; /* af_packet, af_xdp, tap: a kernel interface, its UDP ports the host's */
	bool kernel_rx; /* af_packet, tap: the kernel gets our frames too (af_xdp's XDP program
	                 * takes them all), so it answers for its own ports and addresses */
	bool loopback;  /* net_ring: every frame comes back to this port, the link's only one */
	bool memif;     /* its receive interrupt wakes contexts asleep (dpdk_memif.h) */
	bool lend;      /* its transmit burst copies every frame: payloads go out in place */
	unsigned sleepers; /* memif: contexts asleep on it (under lock), unmasked while any */
	bool tx_offload, rx_offload;
	enum dpdk_csum csum; /* what the encoder computes: what the port does not */
	uint32_t mtu;
	uint8_t mac[6];
	struct rte_mempool *pool;
	pthread_mutex_t lock;      /* a queue serves one thread at a time; guards ctxs and arp */
	struct dpdk_ctx *ctxs;     /* the contexts on the port, via port_next */
	atomic_uint nctxs;         /* how many */
	struct neigh arp[ARP_MAX]; /* learned by ARP (on_arp), like a host's cache per NIC */
	unsigned narp, arp_old;    /* entries, and the next to replace when full */
};

struct dpdk_ctx {
	struct sw_dp_ctx base;
	struct dport *p;
	struct dpdk_ctx *port_next;
	struct rte_ring *rxq; /* frames for this context that another one polled */
	uint32_t ip;
	uint16_t udp_port;
	/* Ports on a kernel interface: a kernel UDP socket holds our UDP port, so that no other
	 * context or program of the host takes it, and takes what the kernel receives of our
	 * frames too (else it answers each with ICMP port unreachable), into a buffer of a few
	 * frames that only serves to wake the context (wake). */
	int hold_fd;
	struct dpdk_wake wake; /* sw_dp_fd, on a kernel interface (epfd -1 elsewhere) */
	uint64_t next_tsc;     /* the earliest deadline of a connection (tsc), for wake's timer */
	bool rx_more;          /* the last progress left frames on the port or the ring */
	bool kicked;           /* kicked its own wake set since it last armed it */
	bool fd_out;           /* sw_dp_fd was asked: the caller may sleep on the set itself */
	bool asleep;           /* counted in its memif port's sleepers */
	uint64_t progresses;   /* progress calls so far */
	uint64_t taken;        /* the last progress that began with every event taken */
	bool ip_set;
	uint32_t mss; /* the largest segment payload the port takes (its MTU's) */
	bool link_up;
	bool closing; /* in close(): no new connections */
	uint64_t hz;
	uint64_t idle_tsc;   /* dpdk_idle_ms */
	struct dp_spin spin; /* whether sw_dp_wait polls a while before it sleeps */
	uint64_t probe_tsc;  /* a quarter of it, at most PROBE_MS */
	struct dconn **conns;
	uint32_t nconns, cap;
	uint32_t accepted, max_accepted; /* connections of peers held, and the cap on them */
	uint16_t gen;
	struct neigh *neigh;
	size_t nneigh;
	/* test-only receive faults (sw_dp_config.dpdk_*_every) */
	uint32_t drop_every, dup_every, reorder_every;
	uint64_t rnd;
	struct rte_mbuf *held; /* a frame held back to arrive after the next one */
	struct rte_mbuf *tx[BURST];
	unsigned ntx;
	/* pacing (sw_dp_set_rate): one token bucket in frame bytes that the paced connections
	 * share, rate 0 = unpaced; double, so that no fraction of a byte is lost between polls */
	uint64_t rate;
	double tokens, burst;
	uint64_t tok_tsc;
	uint32_t pace_next; /* the slot of the paced connection whose turn is next */
};

static struct dpdk_ctx *dctx(struct sw_dp_ctx *c)
{
	return (struct dpdk_ctx *)c;
}

static struct dconn *dconn_of(struct sw_dp_ep *ep)
{
	return ((struct dpdk_ep *)ep)->c;
}

static bool before(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

/* ---- payloads lent to frames ---- */

/* Segments of at least LEND_MIN bytes of messages of at most LEND_MAX go out in place on a
 * port that lends (tx_lend). Below LEND_MIN a copy costs less than the second mbuf. Above
 * LEND_MAX a message streams, bound by its receiver: a sender spared the copy only waited
 * more for acks, and 1 and 16 MiB messages went 8-10% slower (dataplane/README.md). */
#define LEND_MIN 1024
#define LEND_MAX (256u << 10)

/* Where the len bytes of s's payload lie, if in one piece of its message; else NULL. */
static uint8_t *lendable(const struct dseg *s, uint32_t len)
{
	size_t off = s->off;

	for (int i = 0; i < s->msg->iovcnt; i++) {
		if (off < s->msg->iov[i].iov_len)
			return s->msg->iov[i].iov_len - off >= len
			               ? (uint8_t *)s->msg->iov[i].iov_base + off
			               : NULL;
		off -= s->msg->iov[i].iov_len;
	}
	return NULL;
}

/* Never called: a message's count of lent frames never falls below its own 1 (the payloads
 * are the sender's buffers, not the driver's to free). */
static void lent_free(void *addr, void *opaque)
{
	(void)addr;
	(void)opaque;
}

static void lent_init(struct dmsg *msg)
{
	msg->lent.free_cb = lent_free;
	rte_mbuf_ext_refcnt_set(&msg->lent, 1);
}

/* Chains len bytes at payload, in place, after the headers' mbuf h (the driver copies both
 * into its ring and frees them in its burst). The message's buffer stays the sender's until
 * the message is acked or failed, and then forget_lent takes back any such frame still
 * queued. 0 or -ENOMEM. */
static int tx_lend(struct dpdk_ctx *d, struct rte_mbuf *h, struct dmsg *msg, uint8_t *payload,
                   uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(d->p->pool);

	if (!m)
		return -ENOMEM;
	rte_mbuf_ext_refcnt_update(&msg->lent, 1);
	rte_pktmbuf_attach_extbuf(m, payload, (rte_iova_t)(uintptr_t)payload, (uint16_t)len,
	                          &msg->lent);
	m->data_len = (uint16_t)len;
	h->next = m;
	h->nb_segs = 2;
	h->pkt_len += len;
	return 0;
}

/* Drops the frames still queued that carry a payload of msg in place (tx_lend): msg is done
 * with, acked (they are copies sent again) or failed (nobody wants them). Messages often share
 * a buffer (a store's partition served twice, a benchmark's one buffer), so a frame is known by
 * its message's count, not by where its payload lies. */
static void forget_lent(struct dpdk_ctx *d, struct dmsg *msg)
{
	unsigned kept = 0;

	if (rte_mbuf_ext_refcnt_read(&msg->lent) == 1)
		return;
	for (unsigned i = 0; i < d->ntx; i++) {
		if (d->tx[i]->next && d->tx[i]->next->shinfo == &msg->lent)
			rte_pktmbuf_free(d->tx[i]);
		else
			d->tx[kept++] = d->tx[i];
	}
	d->ntx = kept;
}

/* A config field, or where it is unset the environment's SW_DP_DPDK_* variable: so that a
 * caller that only names the backend (the shuffle's server and client) can run over dpdk,
 * as UCX_TLS does for ucx. */
static const char *setting(const char *field, const char *env)
{
	return field ? field : getenv(env);
}

/* ---- once per process: the EAL ---- */

#define EAL_MAX_ARGS 64

/* The EAL's memory is allocated at init and capped there (--socket-mem with --socket-limit):
 * it never allocates or frees pages afterwards (zero_copy_allowed). */
static bool eal_memory_fixed;

static int dpdk_init(const struct sw_dp_config *cfg)
{
	static char buf[1024];
	char *argv[EAL_MAX_ARGS + 1];
	int argc = 0, rc;
	cpu_set_t cpus;
	char lcores[64] = "--lcores=0";
	int first = -1, last = -1;
	const char *eal = setting(cfg->dpdk_eal, "SW_DP_DPDK_EAL");

	/* EAL pins the main thread to lcore 0's cpus: let those be every cpu this process may
	 * use, or two processes on one machine would share one core. */
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		for (int i = 0; i < CPU_SETSIZE; i++)
			if (CPU_ISSET(i, &cpus)) {
				first = first < 0 ? i : first;
				last = i;
			}
	if (first >= 0)
		snprintf(lcores, sizeof(lcores), "--lcores=0@(%d-%d)", first, last);
	if (eal && *eal)
		snprintf(buf, sizeof(buf), "sw_dp %s %s", lcores, eal);
	else
		snprintf(buf, sizeof(buf),
		         "sw_dp %s --no-pci --no-huge -m 256 --no-shconf --no-telemetry "
		         "--log-level=lib.eal:warning "
		         "--file-prefix swdp-%ld",
		         lcores, (long)getpid());
	eal_memory_fixed = strstr(buf, "--socket-mem") && strstr(buf, "--socket-limit");
	for (char *save, *t = strtok_r(buf, " \t", &save); t && argc < EAL_MAX_ARGS;
	     t = strtok_r(NULL, " \t", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	rc = rte_eal_init(argc, argv);
	/* EAL made /var/run/dpdk/PREFIX, whether or not it then failed, and never removes it.
	 * Without a shared config (--no-shconf: no IPC, no telemetry) nothing goes in it, and one
	 * empty directory per process that ever opened a context piled up (900 in a session of
	 * tests here). rmdir takes only an empty one: a config that other processes attach to
	 * stays. */
	rmdir(rte_eal_get_runtime_dir());
	if (rc < 0) {
		fprintf(stderr, "sw_dp dpdk: rte_eal_init: %s\n", rte_strerror(rte_errno));
		return -EIO;
	}
	return 0;
}

/* ---- the port ---- */

static int parse_mac(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char end;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &end) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 255)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

/* "IP=MAC,IP=MAC": the static neighbour table. */
static int parse_neigh(struct dpdk_ctx *d, const char *spec)
{
	char *copy, *save;
	int rc = 0;

	if (!spec || !*spec)
		return 0;
	copy = strdup(spec);
	if (!copy)
		return -ENOMEM;
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(t, '=');
		struct in_addr in;
		struct neigh *n;

		if (!eq) {
			rc = -EINVAL;
			break;
		}
		*eq = '\0';
		n = realloc(d->neigh, (d->nneigh + 1) * sizeof(*n));
		if (!n) {
			rc = -ENOMEM;
			break;
		}
		d->neigh = n;
		if (inet_pton(AF_INET, t, &in) != 1 || parse_mac(eq + 1, n[d->nneigh].mac) < 0) {
			rc = -EINVAL;
			break;
		}
		n[d->nneigh++].ip = in.s_addr;
	}
	free(copy);
	if (rc)
		fprintf(stderr, "sw_dp dpdk: bad neighbour table \"%s\" (want IP=MAC,...)\n", spec);
	return rc;
}

/* Whether a context on p holds ip (any: or takes frames for any address, on a port that no
 * kernel shares). Under p's lock. */
static bool port_holds(const struct dport *p, uint32_t ip, bool any)
{
	for (const struct dpdk_ctx *o = p->ctxs; o; o = o->port_next)
		if (o->ip_set && (o->ip == ip || (any && !o->ip && !p->kernel_rx)))
			return true;
	return false;
}

/* ARP's entry for ip in p's table, NULL when it has none. Under p's lock. */
static struct neigh *arp_find(struct dport *p, uint32_t ip)
{
	for (unsigned i = 0; i < p->narp; i++)
		if (p->arp[i].ip == ip)
			return &p->arp[i];
	return NULL;
}

/* The MAC of ip: the static table's, the port's own for a context on it (its frames never
 * reach the wire, port_loop) or on a loopback port, else what ARP learned. Returns false
 * when it is unknown. */
static bool neigh_mac(struct dpdk_ctx *d, uint32_t ip, uint8_t mac[6])
{
	struct dport *p = d->p;
	const struct neigh *n;
	bool found = true;

	for (size_t i = 0; i < d->nneigh; i++)
		if (d->neigh[i].ip == ip) {
			memcpy(mac, d->neigh[i].mac, 6);
			return true;
		}
	pthread_mutex_lock(&p->lock);
	if (p->loopback || port_holds(p, ip, false))
		memcpy(mac, p->mac, 6);
	else if ((n = arp_find(p, ip)) != NULL)
		memcpy(mac, n->mac, 6);
	else
		found = false;
	pthread_mutex_unlock(&p->lock);
	return found;
}

/* Links in memory (memif, ring) cannot damage a frame in flight: there a UDP checksum over
 * every payload byte only costs CPU (a fifth of it on memif, README "Backend dpdk"). */
static enum dpdk_csum csum_needed(const struct rte_eth_dev_info *info, bool offload)
{
	if (offload)
		return DPDK_CSUM_NONE;
	if (strcmp(info->driver_name, "net_memif") == 0 ||
	    strcmp(info->driver_name, "net_ring") == 0)
		return DPDK_CSUM_IP;
	return DPDK_CSUM_ALL;
}

/* Drivers whose port is a kernel interface's: its UDP ports are the host's. */
static bool on_kernel_if(const struct rte_eth_dev_info *info)
{
	return strcmp(info->driver_name, "net_af_packet") == 0 ||
	       strcmp(info->driver_name, "net_af_xdp") == 0 ||
	       strcmp(info->driver_name, "net_tap") == 0;
}

static void port_destroy(struct dport *p)
{
	if (p->started) {
		rte_eth_dev_stop(p->id);
		rte_eth_dev_close(p->id);
	}
	if (p->probed)
		rte_eal_hotplug_remove("vdev", p->name);
	rte_mempool_free(p->pool);
	pthread_mutex_destroy(&p->lock);
	free(p->devargs);
	free(p);
}

static bool is_memif(const char *devargs)
{
	return strncmp(devargs, "net_memif", 9) == 0;
}

static bool is_af_packet(const char *devargs)
{
	return strncmp(devargs, "net_af_packet", 13) == 0;
}

/* Whether a port's devargs name a link in memory (memif, ring): nothing limits its frames
 * but the buffers, and the costs are mostly per frame (headers, acks, ring slots, the driver),
 * so it carries jumbo frames unless told otherwise (MTU_MEM). */
static bool in_memory(const char *devargs)
{
	return is_memif(devargs) || strncmp(devargs, "net_ring", 8) == 0;
}

/* A memif client in zero-copy mode (zero-copy=yes) lends its peer the EAL's own memory, and
 * DPDK 22.11's memif closes the EAL's file of that memory when the link connects
 * (memif_connect: "close memseg file"). The EAL can then no longer allocate or free pages of
 * it (fallocate on a closed descriptor), and a second such port would hand its peer whatever
 * file has taken that descriptor's number since, and close it. So: one per process, and only
 * where the EAL's memory was allocated and capped at init, so that nothing touches the file
 * after the connect. 0, or -ENOTSUP. */
static int zero_copy_allowed(const char *devargs)
{
	static atomic_bool taken;

	if (!eal_memory_fixed) {
		fprintf(stderr,
		        "sw_dp dpdk: port \"%s\": a zero-copy memif port needs the EAL's memory "
		        "fixed at init (dpdk_eal with --socket-mem and --socket-limit)\n",
		        devargs);
		return -ENOTSUP;
	}
	if (atomic_exchange(&taken, true)) {
		fprintf(stderr,
		        "sw_dp dpdk: port \"%s\": one zero-copy memif port per process (DPDK "
		        "22.11's memif closes the EAL's memory file when the first connects)\n",
		        devargs);
		return -ENOTSUP;
	}
	return 0;
}

static int port_start(struct dport *p, const char *devargs, uint32_t mtu)
{
	static atomic_uint seq;
	struct rte_eth_conf conf = {0};
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	char pool_name[RTE_MEMPOOL_NAMESIZE];
	size_t n = strcspn(devargs, ",");
	bool memif = is_memif(devargs), af_packet = is_af_packet(devargs);
	bool zero_copy = memif && strstr(devargs, ",zero-copy=yes");
	/* A frame and af_packet's 32 bytes before it, rounded up to a KiB: af_packet's frame size
	 * (framesz below), of which its mbufs must hold all but those 32 bytes. */
	uint32_t room = RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(DPDK_ETH_LEN + mtu + 32, 1024);
	uint32_t block = room - RTE_PKTMBUF_HEADROOM;
	const uint64_t csum_tx = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	const uint64_t csum_rx = RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	char *args, bsize[32] = "";
	uint16_t taken;
	int rc;

	if (n == 0 || n + 12 > sizeof(p->name))
		return -EINVAL;
	if (zero_copy && (rc = zero_copy_allowed(devargs)) < 0)
		return rc;
	memcpy(p->name, devargs, n);
	p->name[n] = '\0';
	/* The same name with other devargs (another interface) gets a name of its own: vdev
	 * names are unique in a process, and a vdev driver takes any name its own begins. */
	if (rte_eth_dev_get_port_by_name(p->name, &taken) == 0)
		snprintf(p->name + n, sizeof(p->name) - n, "_%u", atomic_fetch_add(&seq, 1));
	/* memif's buffers hold 2048 bytes unless told (bsize): a larger frame took several,
	 * which the receiving end chained into a multi-segment mbuf, and those are dropped.
	 * af_packet's frames too (framesz), and its driver takes them to lie back to back in
	 * its ring, so its blocks (whole pages) must hold whole frames: with frames of 9216 in
	 * blocks of 16384 every frame was read from the wrong place. */
	while (block % 4096)
		block += room - RTE_PKTMBUF_HEADROOM;
	if (memif && !strstr(devargs, "bsize="))
		snprintf(bsize, sizeof(bsize), ",bsize=%u", room - RTE_PKTMBUF_HEADROOM);
	if (memif)
		rc = asprintf(&args, "%s%s%s%s", p->name, devargs + n, bsize,
		              strstr(devargs, "rsize=") ? "" : ",rsize=" MEMIF_RSIZE);
	else if (af_packet && !strstr(devargs, "framesz="))
		rc = asprintf(&args, "%s%s,framesz=%u,blocksz=%u", p->name, devargs + n,
		              room - RTE_PKTMBUF_HEADROOM, block);
	else
		rc = asprintf(&args, "%s%s", p->name, devargs + n);
	if (rc < 0)
		return -ENOMEM;
	rc = rte_dev_probe(args);
	free(args);
	if (rc < 0 || rte_eth_dev_get_port_by_name(p->name, &p->id) < 0) {
		fprintf(stderr, "sw_dp dpdk: cannot probe port \"%s\"\n", devargs);
		return -EIO;
	}
	p->probed = true;
	if (rte_eth_dev_info_get(p->id, &info) < 0)
		return -EIO;
	p->kernel_if = on_kernel_if(&info);
	p->kernel_rx = p->kernel_if && strcmp(info.driver_name, "net_af_xdp") != 0;
	p->memif = memif;
	p->loopback = strcmp(info.driver_name, "net_ring") == 0;
	snprintf(pool_name, sizeof(pool_name), "swdp%u", atomic_fetch_add(&seq, 1));
	p->pool = rte_pktmbuf_pool_create(pool_name, 4 * RING_SIZE + 2 * WIN - 1, MBUF_CACHE, 0,
	                                  (uint16_t)room, SOCKET_ID_ANY);
	if (!p->pool) {
		fprintf(stderr, "sw_dp dpdk: mbuf pool: %s\n", rte_strerror(rte_errno));
		return -ENOMEM;
	}
	p->tx_offload = (info.tx_offload_capa & csum_tx) == csum_tx;
	p->rx_offload = (info.rx_offload_capa & csum_rx) == csum_rx;
	p->csum = csum_needed(&info, p->tx_offload);
	/* memif's transmit burst copies each frame into its ring and frees it (all but a
	 * zero-copy client's, which lends the peer its mbufs until they are read), so a payload
	 * chained where it lies is copied once, by the driver, instead of twice */
	p->lend = memif && !zero_copy && p->csum != DPDK_CSUM_ALL && !p->tx_offload;
	/* memif and af_packet report a largest frame of 1518 whatever their buffers hold, and
	 * ethdev refuses a larger MTU by that: their limits are bsize and framesz (above), and
	 * af_packet's interface's own MTU (dpdk_open), so they keep ethdev's default. */
	conf.rxmode.mtu = memif || af_packet ? 0 : mtu;
	conf.txmode.offloads = p->tx_offload ? csum_tx : 0;
	conf.rxmode.offloads = p->rx_offload ? csum_rx : 0;
	if (rte_eth_dev_configure(p->id, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup(p->id, 0, RING_SIZE, SOCKET_ID_ANY, NULL, p->pool) < 0 ||
	    rte_eth_tx_queue_setup(p->id, 0, RING_SIZE, SOCKET_ID_ANY, NULL) < 0 ||
	    rte_eth_dev_start(p->id) < 0) {
		fprintf(stderr, "sw_dp dpdk: cannot start port \"%s\" (MTU %u)\n", p->name, mtu);
		return -EIO;
	}
	p->started = true;
	rte_eth_macaddr_get(p->id, &mac);
	memcpy(p->mac, mac.addr_bytes, 6);
	return 0;
}

static pthread_mutex_t ports_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dport *ports; /* this process's ports */

/* Puts d on the port of devargs, started by the first context that names it. */
static int port_open(struct dpdk_ctx *d, const char *devargs, uint32_t mtu)
{
	static atomic_uint seq;
	char ring_name[RTE_RING_NAMESIZE];
	struct dport *p;
	int rc = 0;

	snprintf(ring_name, sizeof(ring_name), "swdpq%u", atomic_fetch_add(&seq, 1));
	d->rxq = rte_ring_create(ring_name, RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (!d->rxq)
		return -ENOMEM;
	pthread_mutex_lock(&ports_lock);
	for (p = ports; p && strcmp(p->devargs, devargs) != 0; p = p->next)
		;
	if (p && p->mtu != mtu) {
		fprintf(stderr, "sw_dp dpdk: port \"%s\" is open with MTU %u, not %u\n", devargs,
		        p->mtu, mtu);
		rc = -EINVAL;
	} else if (!p) {
		p = calloc(1, sizeof(*p));
		rc = !p || !(p->devargs = strdup(devargs)) ? -ENOMEM : 0;
		if (p) {
			pthread_mutex_init(&p->lock, NULL);
			p->mtu = mtu;
		}
		if (rc == 0)
			rc = port_start(p, devargs, mtu);
		if (rc < 0 && p)
			port_destroy(p);
		if (rc == 0) {
			p->next = ports;
			ports = p;
		}
	}
	if (rc == 0) {
		p->refs++;
		pthread_mutex_lock(&p->lock);
		d->port_next = p->ctxs;
		p->ctxs = d;
		atomic_fetch_add(&p->nctxs, 1);
		pthread_mutex_unlock(&p->lock);
		d->p = p;
	}
	pthread_mutex_unlock(&ports_lock);
	return rc;
}

/* Takes d off its port (and the frames handed over to it); the last one stops the port. */
static void port_close(struct dpdk_ctx *d)
{
	struct dport *p = d->p;
	bool last = false;
	void *m;

	if (d->hold_fd >= 0)
		close(d->hold_fd);
	if (p) {
		pthread_mutex_lock(&ports_lock);
		pthread_mutex_lock(&p->lock);
		for (struct dpdk_ctx **i = &p->ctxs; *i; i = &(*i)->port_next)
			if (*i == d) {
				*i = d->port_next;
				atomic_fetch_sub(&p->nctxs, 1);
				break;
			}
		pthread_mutex_unlock(&p->lock);
		last = --p->refs == 0;
		if (last) {
			for (struct dport **i = &ports; *i; i = &(*i)->next)
				if (*i == p) {
					*i = p->next;
					break;
				}
		}
		pthread_mutex_unlock(&ports_lock);
	}
	while (d->rxq && rte_ring_sc_dequeue(d->rxq, &m) == 0)
		rte_pktmbuf_free(m);
	rte_ring_free(d->rxq);
	if (last)
		port_destroy(p);
}

/* The UDP port of the context a frame is for (a port unreachable: the one that sent the
 * frame it quotes), or -1. */
static int frame_port(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	struct dpdk_frame f;

	if (sw_dp_dpdk_decode(b, rte_pktmbuf_data_len(m), &f, false) == 0)
		return f.dst_port;
	if (sw_dp_dpdk_decode_unreach(b, rte_pktmbuf_data_len(m), &f) == 0)
		return f.src_port;
	return -1;
}

/* Puts a frame on sibling o's ring (under the port's lock) and wakes it if it may sleep: its
 * own socket woke it for this frame, but it may have polled the port before we took it. */
static void hand_over(struct dpdk_ctx *o, struct rte_mbuf *m)
{
	bool was_empty = rte_ring_empty(o->rxq);

	if (rte_ring_mp_enqueue(o->rxq, m) < 0)
		rte_pktmbuf_free(m); /* it polls too rarely: lost, resent */
	else if (was_empty && o->wake.epfd >= 0)
		sw_dp_dpdk_wake_kick(&o->wake);
}

/* Polls the port into rx. Frames for another context's UDP port go to its ring; the rest are
 * this context's (those for no one's port too: it answers them). Returns how many the port
 * gave, *mine how many of them are in rx. */
static uint16_t port_rx(struct dpdk_ctx *d, struct rte_mbuf **rx, uint16_t *mine)
{
	struct dport *p = d->p;
	uint16_t n;

	pthread_mutex_lock(&p->lock);
	n = rte_eth_rx_burst(p->id, 0, rx, BURST);
	*mine = n;
	if (p->ctxs->port_next) { /* not alone on the port */
		*mine = 0;
		for (uint16_t i = 0; i < n; i++) {
			struct dpdk_ctx *o;
			int port = frame_port(rx[i]);
			for (o = p->ctxs; o && o->udp_port != port; o = o->port_next)
				;
			if (!o || o == d)
				rx[(*mine)++] = rx[i];
			else
				hand_over(o, rx[i]);
		}
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

/* Binds the kernel UDP socket that holds this context's UDP port (hold_fd) to ip:port, port 0
 * for one the kernel picks, and puts it in the wake set if there is one. Returns the port, or
 * a negative errno (-EADDRINUSE: taken). */
static int port_hold(struct dpdk_ctx *d, uint32_t ip, uint16_t port)
{
	struct sockaddr_in sa = {
	        .sin_family = AF_INET, .sin_addr.s_addr = ip, .sin_port = htons(port)};
	socklen_t len = sizeof(sa);
	int one = 1, rc;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	/* IP_FREEBIND: the context's address need not be one the kernel has. */
	if (setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	if (d->wake.epfd >= 0 && (rc = sw_dp_dpdk_wake_sock(&d->wake, fd)) < 0) {
		close(fd);
		return rc;
	}
	if (d->hold_fd >= 0)
		close(d->hold_fd);
	d->hold_fd = fd;
	return ntohs(sa.sin_port);
}

/* memif crashes the process when it moves frames while its link is down (before the
 * peer came, or after it went: its rings are unmapped then). Asked before every burst; for
 * memif that reads a field. */
static bool link_up(struct dpdk_ctx *d)
{
	struct rte_eth_link l;

	d->link_up = rte_eth_link_get_nowait(d->p->id, &l) == 0 && l.link_status == RTE_ETH_LINK_UP;
	return d->link_up;
}

static void dpdk_close(struct sw_dp_ctx *c);

/* The MTU of the kernel interface that an af_packet port's devargs name (iface=), or 0. */
static uint32_t iface_mtu(const char *devargs)
{
	const char *name = strstr(devargs, ",iface=");
	struct ifreq ifr = {0};
	size_t n;
	int fd, rc;

	if (!is_af_packet(devargs) || !name)
		return 0;
	name += 7;
	n = strcspn(name, ",");
	if (n == 0 || n >= IFNAMSIZ || (fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	memcpy(ifr.ifr_name, name, n);
	rc = ioctl(fd, SIOCGIFMTU, &ifr);
	close(fd);
	return rc < 0 ? 0 : (uint32_t)ifr.ifr_mtu;
}

static int dpdk_open(struct sw_dp_ctx *c, const struct sw_dp_config *cfg)
{
	struct dpdk_ctx *d = dctx(c);
	const char *port = setting(cfg->dpdk_port, "SW_DP_DPDK_PORT");
	const char *ip = setting(cfg->dpdk_ip, "SW_DP_DPDK_IP");
	const char *mtu_env = getenv("SW_DP_DPDK_MTU");
	/* af_packet's frames must fit its interface's MTU: it is the default there, up to 9000 */
	uint32_t if_mtu = port ? iface_mtu(port) : 0;
	uint32_t mtu = cfg->dpdk_mtu             ? cfg->dpdk_mtu
	               : mtu_env                 ? (uint32_t)atoi(mtu_env)
	               : port && in_memory(port) ? MTU_MEM
	               : if_mtu                  ? RTE_MIN(if_mtu, (uint32_t)MTU_MEM)
	                                         : 1500;
	struct in_addr in;
	int rc;

	d->hold_fd = -1;
	d->wake.epfd = d->wake.evfd = d->wake.tfd = d->wake.sock = -1;
	d->hz = rte_get_tsc_hz();
	if (!port || mtu < 576 || mtu > MTU_MEM) {
		fprintf(stderr, "sw_dp dpdk: %s\n",
		        !port ? "dpdk_port (SW_DP_DPDK_PORT: the port's devargs) is required"
		              : "dpdk_mtu (SW_DP_DPDK_MTU) must be 576..9000");
		return -EINVAL;
	}
	if (if_mtu && mtu > if_mtu) {
		fprintf(stderr,
		        "sw_dp dpdk: dpdk_mtu (SW_DP_DPDK_MTU) %u is above the MTU of %s, %u\n",
		        mtu, port, if_mtu);
		return -EINVAL;
	}
	if (ip) {
		if (inet_pton(AF_INET, ip, &in) != 1) {
			fprintf(stderr, "sw_dp dpdk: bad dpdk_ip (SW_DP_DPDK_IP) \"%s\"\n", ip);
			return -EINVAL;
		}
		d->ip = in.s_addr;
		d->ip_set = true;
	}
	d->mss = mtu - DPDK_IP_LEN - DPDK_UDP_LEN - DPDK_HDR_LEN;
	d->max_accepted = cfg->dpdk_max_conns ? cfg->dpdk_max_conns : DEF_PEER_CONNS;
	d->idle_tsc = d->hz / 1000 * (cfg->dpdk_idle_ms ? cfg->dpdk_idle_ms : DEF_IDLE_MS);
	d->probe_tsc = d->idle_tsc / 4 < d->hz / 1000 * PROBE_MS ? d->idle_tsc / 4
	                                                         : d->hz / 1000 * PROBE_MS;
	sw_dp_spin_init(&d->spin, d->hz / 1000000,
	                sw_dp_spin_env_us("SW_DP_DPDK_SPIN_US", DEF_SPIN_US));
	d->drop_every = cfg->dpdk_drop_every;
	d->dup_every = cfg->dpdk_dup_every;
	d->reorder_every = cfg->dpdk_reorder_every;
	d->rnd = 0x9e3779b97f4a7c15ull;
	d->udp_port = (uint16_t)(49152 + (rte_rdtsc() ^ (uint64_t)getpid()) % 16384);
	rc = parse_neigh(d, setting(cfg->dpdk_neigh, "SW_DP_DPDK_NEIGH"));
	if (rc == 0)
		rc = port_open(d, port, mtu);
	if (rc == 0 && (d->p->kernel_rx || d->p->memif) &&
	    (rc = sw_dp_dpdk_wake_open(&d->wake)) < 0) {
		fprintf(stderr, "sw_dp dpdk: cannot make a wake-up fd: %s\n", strerror(-rc));
		rc = -EIO;
	}
	if (rc == 0 && d->p->kernel_if) {
		rc = port_hold(d, d->ip, 0);
		if (rc < 0) {
			fprintf(stderr, "sw_dp dpdk: cannot hold a UDP port: %s\n", strerror(-rc));
			rc = -EIO;
		} else {
			pthread_mutex_lock(&d->p->lock);
			d->udp_port = (uint16_t)rc;
			pthread_mutex_unlock(&d->p->lock);
			rc = 0;
		}
	}
	if (rc < 0)
		dpdk_close(c);
	return rc;
}

static void dconn_free(struct dpdk_ctx *d, struct dconn *k);

/* Whether a FIN still waits for its ack. */
static bool fins_pending(const struct dpdk_ctx *d)
{
	for (uint32_t i = 0; i < d->nconns; i++)
		if (d->conns[i] && d->conns[i]->state == DC_FIN_WAIT)
			return true;
	return false;
}

static int dpdk_progress(struct sw_dp_ctx *c);

/* A call queued frames (a send, a grant, a SYN, a FIN): they go out at the next progress, so
 * the wake set turns readable and a caller sleeping on sw_dp_fd polls. Not for a caller that
 * only sleeps in sw_dp_wait, which progresses before it sleeps: a write and a read of the
 * eventfd per send saved. */
static void self_kick(struct dpdk_ctx *d)
{
	if (d->wake.epfd >= 0 && d->fd_out && !d->kicked) {
		sw_dp_dpdk_wake_kick(&d->wake);
		d->kicked = true;
	}
}

static void memif_wake(struct dpdk_ctx *d);

static void dpdk_close(struct sw_dp_ctx *c)
{
	struct dpdk_ctx *d = dctx(c);
	uint64_t end = rte_rdtsc() + d->hz * LINGER_MS / 1000;

	/* Like a socket's close: FINs of endpoints closed just before go out and are acked
	 * (bounded, and only while the link is up), so peers see a clean close. */
	d->closing = true;
	if (d->p)
		memif_wake(d);
	while (d->p && fins_pending(d) && link_up(d) && rte_rdtsc() < end) {
		struct timespec ts = {0, 20000};
		dpdk_progress(c);
		nanosleep(&ts, NULL);
	}
	for (uint32_t i = 0; i < d->nconns; i++)
		if (d->conns[i])
			dconn_free(d, d->conns[i]);
	free(d->conns);
	rte_pktmbuf_free(d->held);
	for (unsigned i = 0; i < d->ntx; i++)
		rte_pktmbuf_free(d->tx[i]);
	port_close(d);
	sw_dp_dpdk_wake_close(&d->wake);
	free(d->neigh);
}

static int dpdk_listen(struct sw_dp_ctx *c)
{
	struct dpdk_ctx *d = dctx(c);
	uint16_t port = c->laddr.port ? c->laddr.port : d->udp_port;

	if (!d->ip_set) {
		d->ip = c->laddr.ip;
		d->ip_set = true;
	}
	if (d->p->kernel_if) {
		int rc = port_hold(d, d->ip, c->laddr.port);
		if (rc < 0)
			return rc == -EADDRINUSE ? rc : -EIO;
		port = (uint16_t)rc;
	}
	pthread_mutex_lock(&d->p->lock); /* other contexts on the port sort frames by it */
	d->udp_port = port;
	pthread_mutex_unlock(&d->p->lock);
	c->laddr.port = d->udp_port;
	return 0;
}

/* ---- connections ---- */

static struct dconn *dconn_new(struct dpdk_ctx *d)
{
	struct dconn *k;
	uint32_t i;

	for (i = 0; i < d->nconns && d->conns[i]; i++)
		;
	if (i == d->nconns) {
		if (d->nconns == d->cap) {
			uint32_t cap = d->cap ? d->cap * 2 : 64;
			struct dconn **n;
			if (cap > MAX_CONNS)
				return NULL;
			n = realloc(d->conns, cap * sizeof(*n));
			if (!n)
				return NULL;
			d->conns = n;
			d->cap = cap;
		}
		d->nconns++;
	}
	k = calloc(1, sizeof(*k));
	if (!k)
		return NULL;
	/* The id names the slot and, in its top bits, the slot's generation: a late frame of
	 * an earlier connection in the same slot finds no match. */
	k->id = i | (uint32_t)(++d->gen & 0xfff) << 20;
	k->rto_tsc = d->hz * RTO_MIN_US / 1000000;
	k->cwnd = CWND_INIT;
	k->ssthresh = WIN;
	d->conns[i] = k;
	return k;
}

static struct dconn *dconn_find(struct dpdk_ctx *d, uint32_t id)
{
	uint32_t i = id & (MAX_CONNS - 1);

	if (i < d->nconns && d->conns[i] && d->conns[i]->id == id)
		return d->conns[i];
	return NULL;
}

/* Gives m, off k's queue, back to its owner with status; its frames still queued go. */
static void msg_done(struct dpdk_ctx *d, struct dconn *k, struct dmsg *m, int status)
{
	forget_lent(d, m);
	if (k->ep)
		sw_dp_send_done(k->ep, m->len, m->user, status);
	free(m);
}

/* Gives every send still queued back to its owner with status. */
static void fail_sends(struct dpdk_ctx *d, struct dconn *k, int status)
{
	struct dmsg *m;

	while ((m = k->msgs)) {
		k->msgs = m->next;
		msg_done(d, k, m, status);
	}
	k->msgs_tail = k->asg = NULL;
	/* What was in flight is forgotten with them: acks for it are stale from now on. */
	k->snd_una = k->snd_nxt = k->snd_end;
	k->credit_owed = 0;
}

static void rx_reset(struct dpdk_ctx *d, struct dconn *k)
{
	for (unsigned i = 0; i < WIN; i++) {
		rte_pktmbuf_free(k->ooo[i]);
		k->ooo[i] = NULL;
	}
	if (k->rx_busy)
		sw_dp_rxbuf_free(&d->base, k->rx_buf, k->rx_place ? 0 : k->rx_len);
	k->rx_busy = false;
	k->rx_buf = NULL;
}

static void dconn_free(struct dpdk_ctx *d, struct dconn *k)
{
	fail_sends(d, k, -ECONNRESET);
	rx_reset(d, k);
	if (k->ep)
		((struct dpdk_ep *)k->ep)->c = NULL;
	d->accepted -= k->accepted;
	d->conns[k->id & (MAX_CONNS - 1)] = NULL;
	free(k);
}

/* The connection ended (peer reset, refused, gone, or broke the protocol). */
static void dconn_down(struct dpdk_ctx *d, struct dconn *k, int status)
{
	fail_sends(d, k, status == 0 ? -ECONNRESET : status);
	k->state = DC_DEAD;
	if (k->ep)
		sw_dp_ep_down(k->ep, status);
}

/* ---- transmit ---- */

/* What the ring does not take stays queued for the next try: a full ring pushes back on
 * the senders (tx_frame fails) instead of dropping. */
static void tx_flush(struct dpdk_ctx *d)
{
	uint16_t sent = 0;

	if (d->ntx && link_up(d)) {
		pthread_mutex_lock(&d->p->lock);
		sent = rte_eth_tx_burst(d->p->id, 0, d->tx, (uint16_t)d->ntx);
		pthread_mutex_unlock(&d->p->lock);
	}
	memmove(d->tx, d->tx + sent, (d->ntx - sent) * sizeof(d->tx[0]));
	d->ntx -= sent;
}

static void iov_copy(uint8_t *dst, const struct iovec *iov, int cnt, size_t off, size_t len)
{
	for (int i = 0; i < cnt && len; i++) {
		size_t n;
		if (off >= iov[i].iov_len) {
			off -= iov[i].iov_len;
			continue;
		}
		n = iov[i].iov_len - off;
		if (n > len)
			n = len;
		memcpy(dst, (const uint8_t *)iov[i].iov_base + off, n);
		dst += n;
		len -= n;
		off = 0;
	}
}

static uint64_t sack_bits(const struct dconn *k)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < DPDK_SACK_BITS; i++)
		if (k->ooo[(k->rcv_nxt + 1 + i) % WIN])
			b |= 1ull << i;
	return b;
}

/* Hands a frame for a context on d's port (d included) to its ring, as a kernel loops back
 * what a host sends itself: a port never hears its own frames (af_packet does not give a
 * socket what it sent), so an agent fetching from its own server would wait for ever.
 * Returns whether the frame was for one of them. */
static bool port_loop(struct dpdk_ctx *d, const struct dpdk_frame *f, struct rte_mbuf *m)
{
	struct dport *p = d->p;
	struct dpdk_ctx *o = NULL;

	/* Only on a kernel interface are UDP ports unique on the host (held, port_hold): over
	 * memif the peer process may use the same port number as a context here. */
	if (!p->kernel_if || (atomic_load(&p->nctxs) == 1 && f->dst_port != d->udp_port))
		return false;
	pthread_mutex_lock(&p->lock);
	for (o = p->ctxs; o; o = o->port_next)
		if (o->udp_port == f->dst_port && (!o->ip || o->ip == f->dst_ip))
			break;
	if (o) {
		/* never on a wire: checked as a port that verified the checksums would */
		m->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		hand_over(o, m);
	}
	pthread_mutex_unlock(&p->lock);
	return o != NULL;
}

/* An mbuf of len bytes for the next frame out, in *m, with room made in the transmit burst.
 * Returns its data, or NULL with *err -EAGAIN (the port's ring is full) or -ENOMEM. */
static uint8_t *tx_alloc(struct dpdk_ctx *d, uint16_t len, struct rte_mbuf **m, int *err)
{
	uint8_t *p;

	if (d->ntx == BURST)
		tx_flush(d);
	*err = d->ntx == BURST ? -EAGAIN : -ENOMEM;
	*m = d->ntx == BURST ? NULL : rte_pktmbuf_alloc(d->p->pool);
	if (!*m)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(*m, len);
	if (!p) {
		rte_pktmbuf_free(*m);
		*m = NULL;
	}
	return p;
}

/* Queues one frame to k's peer; f's addresses and ack fields are filled in here. */
static int tx_frame(struct dpdk_ctx *d, struct dconn *k, struct dpdk_frame *f, const struct dseg *s)
{
	struct rte_mbuf *m;
	int err;
	uint8_t *lend = s && s->msg && f->len >= LEND_MIN && s->msg->len <= LEND_MAX && d->p->lend
	                        ? lendable(s, f->len)
	                        : NULL;
	uint8_t *p = tx_alloc(d, (uint16_t)(DPDK_HEADROOM + (lend ? 0 : f->len)), &m, &err);

	if (!p)
		return err;
	if (lend && (err = tx_lend(d, m, s->msg, lend, f->len)) < 0) {
		rte_pktmbuf_free(m);
		return err;
	}
	memcpy(f->dst_mac, k->peer_mac, 6);
	memcpy(f->src_mac, d->p->mac, 6);
	f->src_ip = d->ip;
	f->dst_ip = k->peer_ip;
	f->src_port = d->udp_port;
	f->dst_port = k->peer_port;
	f->dst_conn = k->peer_id;
	f->src_conn = k->id;
	f->ack = k->rcv_nxt;
	f->sack = sack_bits(k);
	if (s && s->msg && f->len && !lend)
		iov_copy(p + DPDK_HEADROOM, s->msg->iov, s->msg->iovcnt, s->off, f->len);
	sw_dp_dpdk_encode(p, f, d->p->csum);
	if (d->p->tx_offload) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + DPDK_ETH_LEN);
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
		m->l2_len = DPDK_ETH_LEN;
		m->l3_len = DPDK_IP_LEN;
		m->ol_flags |=
		        RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_UDP_CKSUM;
		udp->dgram_cksum = rte_ipv4_phdr_cksum(ip, m->ol_flags);
	}
	k->ack_due = false;
	k->ack_hold = false;
	if (!port_loop(d, f, m))
		d->tx[d->ntx++] = m;
	return 0;
}

/* Queues an ARP message from this port (a's sha, dst_mac and op filled in here). */
static int tx_arp(struct dpdk_ctx *d, struct dpdk_arp *a)
{
	struct rte_mbuf *m;
	int err;
	uint8_t *p = tx_alloc(d, DPDK_ARP_LEN, &m, &err);

	if (!p)
		return err;
	memcpy(a->sha, d->p->mac, 6);
	if (a->op == DPDK_ARP_REQUEST)
		memset(a->dst_mac, 0xff, 6);
	else
		memcpy(a->dst_mac, a->tha, 6);
	sw_dp_dpdk_arp_encode(p, a);
	d->tx[d->ntx++] = m;
	return 0;
}

/* Records that ip is at mac in p's table (under p's lock), and wakes the other contexts on
 * p: one of them may be waiting for it, and the reply came to whichever polled. */
static void arp_learn(struct dpdk_ctx *d, uint32_t ip, const uint8_t mac[6])
{
	struct dport *p = d->p;
	struct neigh *n = arp_find(p, ip);

	if (!n)
		n = p->narp < ARP_MAX ? &p->arp[p->narp++] : &p->arp[p->arp_old++ % ARP_MAX];
	n->ip = ip;
	memcpy(n->mac, mac, 6);
	for (struct dpdk_ctx *o = p->ctxs; o; o = o->port_next)
		if (o != d && o->wake.epfd >= 0)
			sw_dp_dpdk_wake_kick(&o->wake);
}

/* Answers a request for the address of a context on this port. Learns the sender from such
 * a request, or from a reply to this port's own (sent to its MAC), as a host learns only
 * what concerns it: others' requests cannot fill the table. */
static void on_arp(struct dpdk_ctx *d, const struct dpdk_arp *a)
{
	struct dport *p = d->p;
	bool ours, learn;

	pthread_mutex_lock(&p->lock);
	ours = port_holds(p, a->tpa, true);
	learn = a->spa && (a->op == DPDK_ARP_REQUEST ? ours : memcmp(a->tha, p->mac, 6) == 0);
	if (learn)
		arp_learn(d, a->spa, a->sha);
	pthread_mutex_unlock(&p->lock);
	if (ours && a->op == DPDK_ARP_REQUEST) {
		struct dpdk_arp r = {.op = DPDK_ARP_REPLY, .spa = a->tpa, .tpa = a->spa};
		memcpy(r.tha, a->sha, 6);
		tx_arp(d, &r);
	}
}

/* A control frame to whoever sent f (RST to an unknown connection, for one). */
static void tx_reply(struct dpdk_ctx *d, const struct dpdk_frame *in, uint8_t type)
{
	struct dconn tmp = {.peer_ip = in->src_ip,
	                    .peer_port = in->src_port,
	                    .peer_id = in->src_conn,
	                    .id = in->dst_conn};
	struct dpdk_frame f = {.type = type};

	memcpy(tmp.peer_mac, in->src_mac, 6);
	tx_frame(d, &tmp, &f, NULL);
}

static int tx_seg(struct dpdk_ctx *d, struct dconn *k, uint32_t seq, uint64_t now)
{
	struct dseg *s = &k->seg[seq % WIN];
	struct dpdk_frame f = {.type = DPDK_SEG, .kind = s->kind, .seq = seq};
	int rc;

	if (s->kind == DPDK_SEG_MSG) {
		f.credit = (uint16_t)s->credit;
		f.msg_len = s->msg->len;
		f.tag = s->msg->tag;
		f.off = s->off;
		f.len = s->len;
	} else if (s->kind == DPDK_SEG_CREDIT) {
		f.msg_len = s->credit;
	}
	rc = tx_frame(d, k, &f, s);
	if (rc == 0) {
		if (s->sent) {
			s->retx = true;
			if (k->ep)
				k->ep->c.retransmits++;
		}
		s->sent = now;
	}
	return rc;
}

/* Cuts the next segment from what k has to send: owed credits first (they unblock the
 * peer), riding on the next message segment when there is one (a frame less each way per
 * request and answer), else in a CREDIT segment of their own; then message bytes, then the
 * FIN. Returns false when there is nothing. */
static bool seg_assign(struct dconn *k)
{
	struct dseg *s = &k->seg[k->snd_end % WIN];

	memset(s, 0, sizeof(*s));
	if (k->credit_owed && (!k->asg || k->credit_owed > UINT16_MAX)) {
		s->kind = DPDK_SEG_CREDIT;
		s->credit = k->credit_owed;
		k->credit_owed = 0;
	} else if (k->asg) {
		struct dmsg *m = k->asg;
		s->credit = k->credit_owed;
		k->credit_owed = 0;
		s->kind = DPDK_SEG_MSG;
		s->msg = m;
		s->off = m->assigned;
		s->len = m->len - m->assigned < k->mss ? m->len - m->assigned : k->mss;
		m->assigned += s->len;
		if (m->assigned == m->len)
			k->asg = m->next;
	} else if (k->fin_wanted) {
		s->kind = DPDK_SEG_FIN;
		k->fin_wanted = false;
	} else {
		return false;
	}
	k->snd_end++;
	return true;
}

/* The next new segment k may send (within its window), cut now if need be, or NULL. */
static struct dseg *next_seg(struct dconn *k)
{
	if (k->snd_nxt - k->snd_una >= (k->cwnd < WIN ? k->cwnd : WIN))
		return NULL;
	if (k->snd_nxt == k->snd_end && !seg_assign(k))
		return NULL;
	return &k->seg[k->snd_nxt % WIN];
}

/* Sends the segment next_seg() returned. Returns 0, or -EAGAIN/-ENOMEM from tx_frame. */
static int send_next(struct dpdk_ctx *d, struct dconn *k, uint64_t now)
{
	int rc = tx_seg(d, k, k->snd_nxt, now);

	if (rc < 0)
		return rc;
	if (k->snd_una == k->snd_nxt)
		k->progress_tsc = now;
	k->snd_nxt++;
	return 0;
}

static bool paced(const struct dpdk_ctx *d, const struct dconn *k)
{
	return k->paced && d->rate;
}

static void bucket_fill(struct dpdk_ctx *d, uint64_t now)
{
	if (now > d->tok_tsc)
		d->tokens += (double)(now - d->tok_tsc) * (double)d->rate / (double)d->hz;
	if (d->tokens > d->burst)
		d->tokens = d->burst;
	d->tok_tsc = now;
}

/* A loss was found (three segments sacked above a hole, or a timeout). Loss is taken as
 * congestion, since a queue that overflows is what drops here (a shaped uplink's tbf; memif
 * drops nothing but frames its full ring refuses): without this a connection kept WIN
 * segments (2.9 MB) in flight into a 100 Mbit/s uplink whose queue holds 0.6 MB, and the
 * uplinks carried 1.8 times what the agents received. The window halves once per window of
 * losses (not again until what was in flight at the cut is acked); a timeout outside such a
 * recovery restarts from CWND_MIN and slow-starts back to half the old window. */
static void cwnd_loss(struct dconn *k, bool timeout)
{
	uint32_t flight = k->snd_nxt - k->snd_una;

	if (before(k->snd_una, k->recover))
		return;
	k->ssthresh = (flight < k->cwnd ? flight : k->cwnd) / 2;
	if (k->ssthresh < CWND_MIN)
		k->ssthresh = CWND_MIN;
	k->cwnd = timeout ? CWND_MIN : k->ssthresh;
	k->cwnd_acc = 0;
	k->recover = k->snd_nxt;
}

/* @p acked segments left the window: slow start below ssthresh (one more per segment
 * acked), then one more per window; not while a recovery is under way. */
static void cwnd_grow(struct dconn *k, uint32_t acked)
{
	if (before(k->snd_una, k->recover))
		return;
	if (k->cwnd < k->ssthresh) {
		k->cwnd += acked;
	} else if ((k->cwnd_acc += acked) >= k->cwnd) {
		k->cwnd_acc -= k->cwnd;
		k->cwnd++;
	}
	if (k->cwnd > WIN)
		k->cwnd = WIN;
}

/* Something of d is due at tsc t: the wake timer fires by then. */
static void due(struct dpdk_ctx *d, uint64_t t)
{
	if (t < d->next_tsc)
		d->next_tsc = t;
}

/* Whether k's ack may wait for a frame to carry it rather than go alone. A pure ack wakes a
 * peer asleep (over memif its interrupt), and a peer of a request and its answer sleeps
 * waiting for the answer, not for the ack: the server's ack of a request woke the client
 * before the answer came, the client's ack of the answer woke the server before the next
 * request. So the ack of segments that ended in a whole message or grant waits until the
 * caller took the events of the progress that received them and made one more progress,
 * in which its answer or grant carries the ack; a caller with nothing to send sleeps next,
 * and the progress before sleeping (which comes with every event taken) sends it alone. A
 * caller that polls on without taking its events sends it after ACK_HOLD_US. */
static bool ack_held(struct dpdk_ctx *d, struct dconn *k, uint64_t now)
{
	uint64_t until = k->ack_tsc + d->hz / 1000000 * ACK_HOLD_US;

	if (!k->ack_hold || d->taken > k->ack_prog || now >= until)
		return false;
	due(d, until);
	return true;
}

/* Retransmits on timeout (up to a burst of what is neither acked nor sacked, with the
 * timeout doubled), sends new segments within the window and the pacing rate. */
static void conn_tx(struct dpdk_ctx *d, struct dconn *k, uint64_t now)
{
	if (k->state == DC_SYN_SENT) {
		struct dpdk_frame f = {.type = DPDK_SYN, .msg_len = d->mss};
		struct dpdk_arp a = {.op = DPDK_ARP_REQUEST, .spa = d->ip, .tpa = k->peer_ip};
		/* Tries count only once the link is up (a memif peer may not be there yet). */
		if (!d->link_up) {
			due(d, now + d->hz / 1000);
			return;
		}
		if (k->resolving && neigh_mac(d, k->peer_ip, k->peer_mac)) {
			k->resolving = false; /* the SYN's tries start now */
			k->syn_tries = 0;
		}
		if (k->syn_tries && now - k->seg[0].sent < k->rto_tsc) {
			due(d, k->seg[0].sent + k->rto_tsc);
			return;
		}
		if (k->syn_tries == SYN_TRIES) {
			dconn_down(d, k, k->resolving ? -EHOSTUNREACH : -ECONNREFUSED);
			return;
		}
		/* A try counts once its frame is queued: a full ring (a peer slow to drain it,
		 * as a hundred SYNs at once under load met) is no answer from the peer. */
		if ((k->resolving ? tx_arp(d, &a) : tx_frame(d, k, &f, NULL)) != 0) {
			due(d, now + d->hz / 10000);
			return;
		}
		k->seg[0].sent = now;
		k->rto_tsc = k->syn_tries++ == 0 ? d->hz / 1000000 * SYN_RTO_US : k->rto_tsc * 2;
		if (k->rto_tsc > d->hz / 1000000 * RTO_MAX_US)
			k->rto_tsc = d->hz / 1000000 * RTO_MAX_US;
		due(d, k->seg[0].sent + k->rto_tsc);
		return;
	}
	if (k->state == DC_DEAD)
		return;
	/* A peer that went quiet is asked for an answer; one that stays quiet is gone, even
	 * with nothing in flight here (which the timeout below would never notice). */
	if (now - k->rx_tsc > d->idle_tsc) {
		dconn_down(d, k, -ETIMEDOUT);
		return;
	}
	if (now - k->rx_tsc > d->probe_tsc && now - k->probe_tsc > d->probe_tsc) {
		struct dpdk_frame f = {.type = DPDK_ACK, .kind = DPDK_ACK_PROBE};
		if (tx_frame(d, k, &f, NULL) == 0)
			k->probe_tsc = now;
	}
	due(d, (k->rx_tsc > k->probe_tsc ? k->rx_tsc : k->probe_tsc) + d->probe_tsc);
	due(d, k->rx_tsc + d->idle_tsc);
	if (before(k->snd_una, k->snd_nxt)) {
		struct dseg *old = &k->seg[k->snd_una % WIN];
		if (now - k->progress_tsc > d->hz / 1000000 * DEAD_US) {
			dconn_down(d, k, -ECONNRESET);
			return;
		}
		if (now - old->sent >= k->rto_tsc) {
			/* What is in flight and neither sacked nor resent within the timeout, up
			 * to a window: beyond the sack bitmap's reach, a timeout is how holes show,
			 * and each ack that fills one brings the next hole's turn at once. */
			uint32_t budget;
			cwnd_loss(k, true);
			budget = k->cwnd;
			for (uint32_t s = k->snd_una; budget && before(s, k->snd_nxt); s++) {
				struct dseg *g = &k->seg[s % WIN];
				if (g->sacked || now - g->sent < k->rto_tsc)
					continue;
				if (tx_seg(d, k, s, now) < 0)
					break;
				budget--;
			}
			if (k->rto_tsc < d->hz * RTO_MAX_US / 1000000)
				k->rto_tsc *= 2;
		}
		due(d, old->sent + k->rto_tsc);
	}
	/* paced connections send new segments in paced_tx, after every connection's turn here */
	while (!paced(d, k) && next_seg(k) && send_next(d, k, now) == 0)
		;
	if (k->ack_due && !ack_held(d, k, now)) {
		struct dpdk_frame f = {.type = DPDK_ACK};
		tx_frame(d, k, &f, NULL);
	}
}

/* New segments of the paced connections, within the context's rate: in turn, one segment
 * each per round, from the connection whose turn it was when the tokens last ran out. So a
 * busy connection takes what idle ones leave, and busy ones share alike (in segments, most
 * of them full): the bucket is work-conserving across the context's connections. */
static void paced_tx(struct dpdk_ctx *d, uint64_t now)
{
	bool sent = true;

	if (!d->rate)
		return;
	bucket_fill(d, now);
	while (sent) {
		sent = false;
		for (uint32_t n = 0; n < d->nconns; n++) {
			uint32_t i = (d->pace_next + n) % d->nconns;
			struct dconn *k = d->conns[i];
			struct dseg *s;
			double bytes;
			if (!k || !k->paced || k->state == DC_SYN_SENT || k->state == DC_DEAD ||
			    !(s = next_seg(k)))
				continue;
			bytes = s->len + DPDK_HEADROOM;
			if (d->tokens < bytes) {
				d->pace_next = i;
				due(d, now +
				               (uint64_t)((bytes - d->tokens) * (double)d->hz /
				                          (double)d->rate) +
				               1);
				return;
			}
			if (send_next(d, k, now) < 0) {
				d->pace_next = i; /* the port's ring is full: due soon (progress) */
				return;
			}
			d->tokens -= bytes;
			sent = true;
		}
	}
}

/* ---- receive ---- */

static void on_ack(struct dpdk_ctx *d, struct dconn *k, const struct dpdk_frame *f, uint64_t now)
{
	uint32_t high = 0, una = k->snd_una;
	unsigned above = 0;
	uint64_t guard = 2 * k->srtt_tsc + d->hz / 10000;

	if (before(k->snd_nxt, f->ack) || before(f->ack, k->snd_una))
		return; /* acks what was never sent, or stale */
	while (before(k->snd_una, f->ack)) {
		struct dseg *s = &k->seg[k->snd_una % WIN];
		/* Karn: only clean samples, and not segments sacked earlier (their cumulative ack
		 * waited for a hole to fill: it says nothing of the round trip) */
		if (!s->retx && !s->sacked && s->sent) {
			uint64_t rtt = now - s->sent;
			k->srtt_tsc = k->srtt_tsc ? (7 * k->srtt_tsc + rtt) / 8 : rtt;
		}
		if (s->kind == DPDK_SEG_MSG && s->off + s->len == s->msg->len) {
			struct dmsg *m = s->msg; /* the last segment: the message is through */
			k->msgs = m->next;
			if (!k->msgs)
				k->msgs_tail = NULL;
			msg_done(d, k, m, 0);
		} else if (s->kind == DPDK_SEG_FIN && k->state == DC_FIN_WAIT) {
			k->snd_una++;
			k->state = DC_DEAD; /* freed by the caller */
			return;
		}
		k->snd_una++;
		k->progress_tsc = now;
		k->rto_tsc = 3 * k->srtt_tsc;
		if (k->rto_tsc < d->hz / 1000000 * RTO_MIN_US)
			k->rto_tsc = d->hz / 1000000 * RTO_MIN_US;
		if (k->rto_tsc > d->hz / 1000000 * RTO_MAX_US)
			k->rto_tsc = d->hz / 1000000 * RTO_MAX_US;
	}
	cwnd_grow(k, k->snd_una - una);
	/* Selective acks: a hole with three or more sacked segments above it is lost; resend
	 * it now rather than at the timeout, and again if it is still a hole two round trips
	 * later (the resent copy was lost too). */
	for (unsigned i = 0; i < DPDK_SACK_BITS; i++) {
		uint32_t s = f->ack + 1 + i;
		if (!before(s, k->snd_nxt))
			break;
		if (f->sack & (1ull << i)) {
			k->seg[s % WIN].sacked = true;
			high = i + 1;
		}
	}
	for (unsigned i = 0; i + 1 < high; i++) {
		struct dseg *s = &k->seg[(f->ack + i) % WIN];
		above = 0;
		for (unsigned j = i; j < high; j++)
			above += (f->sack >> j) & 1;
		if (!s->sacked && above >= 3 && now - s->sent > guard) {
			cwnd_loss(k, false);
			tx_seg(d, k, f->ack + i, now);
		}
	}
}

/* One in-order stream segment. Returns 0, or the code that ends the connection. */
static int on_seg(struct dpdk_ctx *d, struct dconn *k, const struct dpdk_frame *f)
{
	struct sw_dp_ep *ep = k->ep;
	uint32_t n;
	int rc;

	switch (f->kind) {
	case DPDK_SEG_CREDIT:
		return ep ? sw_dp_credit_arrived(ep, f->msg_len) : 0;
	case DPDK_SEG_FIN:
		k->state = k->state == DC_FIN_WAIT ? DC_FIN_WAIT : DC_PEER_FIN;
		fail_sends(d, k, -ECONNRESET);
		if (ep)
			sw_dp_ep_down(ep, 0);
		return 0;
	default:
		break;
	}
	if (!ep)
		return 0; /* closed here: the bytes have nowhere to go */
	if (f->credit && (rc = sw_dp_credit_arrived(ep, f->credit)) < 0)
		return rc;
	if (f->off == 0 && !k->rx_busy) {
		/* A new message: checked before anything is allocated for it. */
		if (f->msg_len > d->base.cfg.max_recv)
			return -EMSGSIZE;
		if (sw_dp_rx_full(ep, 0))
			return -EPROTO;
		k->rx_place = NULL;
		k->rx_head = f->msg_len;
		if (ep->place && f->msg_len >= ep->place_head) {
			/* told of every message with a head, in order; ours carry the head in their
			 * first segment (place_max is the smallest segment payload) */
			if (f->len < ep->place_head)
				return -EPROTO;
			k->rx_place = ep->place(ep, f->tag, f->data, f->msg_len);
			if (f->msg_len == ep->place_head)
				k->rx_place = NULL; /* nothing to place */
			if (k->rx_place)
				k->rx_head = (uint32_t)ep->place_head;
		}
		k->rx_buf = sw_dp_rxbuf_alloc(&d->base, k->rx_head);
		if (!k->rx_buf && k->rx_head)
			return -ENOMEM;
		k->rx_busy = true;
		k->rx_len = f->msg_len;
		k->rx_off = 0;
		k->rx_tag = f->tag;
	} else if (!k->rx_busy || f->off != k->rx_off || f->msg_len != k->rx_len ||
	           f->tag != k->rx_tag) {
		return -EPROTO; /* a segment that does not continue the message */
	}
	/* the bytes before rx_head to rx_buf, the rest to its place (a 0-byte message has no
	 * buffer) */
	n = k->rx_off < k->rx_head ? k->rx_head - k->rx_off : 0;
	n = n < f->len ? n : f->len;
	if (n)
		memcpy(k->rx_buf + k->rx_off, f->data, n);
	if (f->len > n)
		memcpy(k->rx_place + (k->rx_off + n - k->rx_head), f->data + n, f->len - n);
	k->rx_off += f->len;
	if (k->rx_off < k->rx_len)
		return 0;
	k->rx_busy = false;
	rc = sw_dp_push_placed(ep, k->rx_tag, k->rx_buf, k->rx_len, k->rx_place);
	if (rc < 0)
		sw_dp_rxbuf_free(&d->base, k->rx_buf, k->rx_place ? 0 : k->rx_len);
	k->rx_buf = NULL;
	return rc;
}

static void conn_fail(struct dpdk_ctx *d, struct dconn *k, const struct dpdk_frame *f, int rc)
{
	tx_reply(d, f, DPDK_RST);
	rx_reset(d, k);
	dconn_down(d, k, rc);
}

static void on_data(struct dpdk_ctx *d, struct dconn *k, const struct dpdk_frame *f,
                    struct rte_mbuf *m, uint64_t now)
{
	int rc;

	k->ack_due = true;
	k->ack_hold = false; /* a duplicate, a hole, a FIN: acked at once */
	if (before(f->seq, k->rcv_nxt) || !before(f->seq, k->rcv_nxt + WIN)) {
		/* a duplicate, or beyond the window: the ack says where we are */
		if (k->ep && before(f->seq, k->rcv_nxt))
			k->ep->c.rx_dup_segs++;
		return;
	}
	if (f->seq != k->rcv_nxt) {
		struct rte_mbuf **sl = &k->ooo[f->seq % WIN];
		if (!*sl) {
			*sl = m;
			rte_mbuf_refcnt_update(m, 1);
		} else if (k->ep) {
			k->ep->c.rx_dup_segs++;
		}
		return;
	}
	rc = on_seg(d, k, f);
	k->rcv_nxt++;
	while (rc == 0 && k->state != DC_DEAD && k->ooo[k->rcv_nxt % WIN]) {
		struct rte_mbuf **sl = &k->ooo[k->rcv_nxt % WIN];
		struct dpdk_frame g;
		/* Checked when it arrived: decoded again without the checksums. */
		sw_dp_dpdk_decode(rte_pktmbuf_mtod(*sl, const uint8_t *), rte_pktmbuf_data_len(*sl),
		                  &g, false);
		rc = on_seg(d, k, &g);
		rte_pktmbuf_free(*sl);
		*sl = NULL;
		k->rcv_nxt++;
	}
	if (rc < 0) {
		conn_fail(d, k, f, rc);
		return;
	}
	if (f->kind != DPDK_SEG_FIN && !k->rx_busy && !sack_bits(k)) {
		if (!k->ack_hold)
			k->ack_tsc = now;
		k->ack_hold = true;
		k->ack_prog = d->progresses;
	}
}

static void on_syn(struct dpdk_ctx *d, const struct dpdk_frame *f, uint64_t now)
{
	struct sw_dp_event ev = {.type = SW_DP_EV_ACCEPT};
	struct dpdk_frame a = {.type = DPDK_SYNACK};
	struct sw_dp_addr peer = {.ip = f->src_ip, .port = f->src_port};
	struct dconn *k = NULL;
	struct sw_dp_ep *ep;

	/* A repeated SYN (our SYNACK was lost) finds its connection. */
	for (uint32_t i = 0; i < d->nconns && !k; i++)
		if (d->conns[i] && d->conns[i]->peer_id == f->src_conn &&
		    d->conns[i]->peer_ip == f->src_ip && d->conns[i]->peer_port == f->src_port)
			k = d->conns[i];
	if (!k && d->accepted >= d->max_accepted) {
		/* Each connection costs ~30 KiB: peers get no more than the cap (README). */
		d->base.closed.accepts_dropped++;
		tx_reply(d, f, DPDK_RST);
		return;
	}
	if (!k) {
		ep = sw_dp_ep_new(&d->base);
		if (!ep)
			return;
		k = dconn_new(d);
		if (!k) {
			sw_dp_ep_close(ep);
			return;
		}
		((struct dpdk_ep *)ep)->c = k;
		k->ep = ep;
		k->state = DC_OPEN;
		k->accepted = true;
		d->accepted++;
		k->rx_tsc = now;
		k->peer_id = f->src_conn;
		k->peer_ip = f->src_ip;
		k->peer_port = f->src_port;
		k->mss = f->msg_len < d->mss ? f->msg_len : d->mss;
		memcpy(k->peer_mac, f->src_mac, 6);
		sw_dp_addr_format(&peer, ep->peer, sizeof(ep->peer));
		ev.ep = ep;
		sw_dp_push(&d->base, &ev);
	}
	a.msg_len = k->mss;
	tx_frame(d, k, &a, NULL);
}

/* The peer reset the connection, or its host says nothing holds its port any more. */
static void conn_reset(struct dpdk_ctx *d, struct dconn *k)
{
	if (k->state == DC_FIN_WAIT)
		k->state = DC_DEAD;
	else if (k->state != DC_DEAD)
		dconn_down(d, k, k->state == DC_SYN_SENT ? -ECONNREFUSED : -ECONNRESET);
}

/* A kernel answered one of our frames with port unreachable: on a kernel interface that is how
 * a peer whose process ended shows at once, rather than after DEAD_US without acks. The quote
 * names both connection ids, so it is as hard to forge as an RST. */
static void on_unreach(struct dpdk_ctx *d, const struct dpdk_frame *q)
{
	struct dconn *k = dconn_find(d, q->src_conn);

	if (q->src_port == d->udp_port && k && k->peer_ip == q->dst_ip &&
	    k->peer_port == q->dst_port && (k->state == DC_SYN_SENT || k->peer_id == q->dst_conn))
		conn_reset(d, k);
}

static void on_frame(struct dpdk_ctx *d, struct rte_mbuf *m, uint64_t now)
{
	struct dpdk_frame f;
	struct dconn *k;
	bool hw_ok = (m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK) == RTE_MBUF_F_RX_IP_CKSUM_GOOD &&
	             (m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) == RTE_MBUF_F_RX_L4_CKSUM_GOOD;

	if (m->nb_segs != 1)
		return;
	if (sw_dp_dpdk_decode(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &f,
	                      !hw_ok) < 0) {
		struct dpdk_arp a;
		if (sw_dp_dpdk_decode_unreach(rte_pktmbuf_mtod(m, const uint8_t *),
		                              rte_pktmbuf_data_len(m), &f) == 0)
			on_unreach(d, &f);
		else if (sw_dp_dpdk_arp_decode(rte_pktmbuf_mtod(m, const uint8_t *),
		                               rte_pktmbuf_data_len(m), &a) == 0)
			on_arp(d, &a);
		return; /* not ours, or damaged: dropped like a bad checksum on any NIC */
	}
	if (d->ip_set && d->ip && f.dst_ip != d->ip)
		return; /* someone else's */
	if (f.dst_port != d->udp_port) {
		/* Nobody listens there: refused. But where the kernel gets our frames too, the
		 * address is the host's, shared with other contexts and programs on their own
		 * ports: the kernel, which knows them, answers for those (port unreachable). */
		if (f.type == DPDK_SYN && !d->p->kernel_rx)
			tx_reply(d, &f, DPDK_RST);
		return;
	}
	if (f.type == DPDK_SYN && (!d->base.listening || d->closing)) {
		tx_reply(d, &f, DPDK_RST);
		return;
	}
	if (f.type == DPDK_SYN) {
		on_syn(d, &f, now);
		return;
	}
	k = dconn_find(d, f.dst_conn);
	if (!k || (k->state != DC_SYN_SENT && k->peer_id != f.src_conn)) {
		if (f.type != DPDK_RST)
			tx_reply(d, &f, DPDK_RST);
		return;
	}
	if (f.type == DPDK_RST) {
		conn_reset(d, k);
		return;
	}
	if (k->state == DC_SYN_SENT) {
		/* Only the SYNACK opens: it names the segment size. Data that overtook it is
		 * dropped, and sent again. */
		if (f.type != DPDK_SYNACK)
			return;
		k->mss = f.msg_len < d->mss ? f.msg_len : d->mss;
		k->peer_id = f.src_conn;
		k->state = DC_OPEN;
		k->rto_tsc = d->hz / 1000000 * RTO_MIN_US;
		memcpy(k->peer_mac, f.src_mac, 6);
	}
	k->rx_tsc = now;
	if (f.type == DPDK_SYNACK || (f.type == DPDK_ACK && f.kind == DPDK_ACK_PROBE)) {
		k->ack_due = true; /* answered at once: the peer's probe asks for it */
		k->ack_hold = false;
	}
	if (k->state == DC_DEAD)
		return;
	on_ack(d, k, &f, now);
	if (f.type == DPDK_SEG && k->state != DC_DEAD)
		on_data(d, k, &f, m, now);
}

/* Whether the test-only fault with rate 1/every hits this frame: drawn from a generator
 * seeded alike in every context, so runs repeat. Not every Nth frame exactly: a timeout
 * resending the same number of frames each round would meet the same fate every round. */
static bool fault(struct dpdk_ctx *d, uint32_t every)
{
	if (!every)
		return false;
	d->rnd ^= d->rnd << 13; /* xorshift64 */
	d->rnd ^= d->rnd >> 7;
	d->rnd ^= d->rnd << 17;
	return d->rnd % every == 0;
}

/* One received frame, through the test-only faults (sw_dp_config.dpdk_*_every): on average
 * one frame in N dropped, processed twice, or held back until the next one is processed. */
static void rx_one(struct dpdk_ctx *d, struct rte_mbuf *m, uint64_t now)
{
	if (fault(d, d->drop_every)) {
		rte_pktmbuf_free(m);
		return;
	}
	if (!d->held && fault(d, d->reorder_every)) {
		d->held = m;
		return;
	}
	on_frame(d, m, now);
	if (fault(d, d->dup_every))
		on_frame(d, m, now);
	rte_pktmbuf_free(m);
	if (d->held && d->held != m) {
		m = d->held;
		d->held = NULL;
		on_frame(d, m, now);
		rte_pktmbuf_free(m);
	}
}

static int dpdk_progress(struct sw_dp_ctx *c)
{
	struct dpdk_ctx *d = dctx(c);
	struct rte_mbuf *rx[BURST];
	uint64_t now = rte_rdtsc();
	uint16_t n = 0;
	int rounds = 0;

	/* Timers run with the link down too: a peer that went away must time out. */
	d->rx_more = false;
	if (!d->base.evq.n) /* the caller took every event of the progresses before this one */
		d->taken = d->progresses + 1;
	d->progresses++;
	if (link_up(d)) {
		do { /* what other contexts on the port polled for this one */
			n = (uint16_t)rte_ring_sc_dequeue_burst(d->rxq, (void **)rx, BURST, NULL);
			for (uint16_t i = 0; i < n; i++)
				rx_one(d, rx[i], now);
		} while (n == BURST && ++rounds < 8);
		d->rx_more = n == BURST;
		rounds = 0;
		do {
			uint16_t mine;
			n = port_rx(d, rx, &mine);
			for (uint16_t i = 0; i < mine; i++)
				rx_one(d, rx[i], now);
		} while (n == BURST && ++rounds < 8);
		d->rx_more |= n == BURST;
	}
	d->next_tsc = UINT64_MAX;
	for (uint32_t i = 0; i < d->nconns; i++) {
		struct dconn *k = d->conns[i];
		if (!k)
			continue;
		if (k->state == DC_DEAD && !k->ep) {
			dconn_free(d, k);
			continue;
		}
		conn_tx(d, k, now);
		if (k->state == DC_DEAD && !k->ep) /* a FIN that was never acked */
			dconn_free(d, k);
	}
	paced_tx(d, now);
	tx_flush(d);
	if (d->ntx) /* the port's ring was full */
		due(d, now + d->hz / 10000);
	return 0;
}

/* ---- the ops ---- */

static int dpdk_connect(struct sw_dp_ep *ep, const struct sw_dp_addr *to)
{
	struct dpdk_ctx *d = dctx(ep->ctx);
	struct dconn *k = dconn_new(d);

	if (!k)
		return -ENOMEM;
	k->ep = ep;
	((struct dpdk_ep *)ep)->c = k;
	k->state = DC_SYN_SENT;
	k->peer_ip = to->ip;
	k->peer_port = to->port;
	k->resolving = !neigh_mac(d, to->ip, k->peer_mac);
	self_kick(d);
	return 0;
}

static void dpdk_ep_close(struct sw_dp_ep *ep)
{
	struct dpdk_ctx *d = dctx(ep->ctx);
	struct dconn *k = dconn_of(ep);

	if (!k)
		return;
	((struct dpdk_ep *)ep)->c = NULL;
	/* Sends not through yet: an abortive close (the peer sees -ECONNRESET), like a socket
	 * closed with SO_LINGER 0; otherwise a FIN, resent until acked. */
	if (k->state == DC_OPEN && !k->msgs) {
		rx_reset(d, k);
		k->ep = NULL;
		k->credit_owed = 0;
		k->fin_wanted = true;
		k->state = DC_FIN_WAIT;
		self_kick(d);
		return;
	}
	if (k->state == DC_OPEN) {
		struct dpdk_frame f = {.type = DPDK_RST};
		tx_frame(d, k, &f, NULL);
	}
	fail_sends(d, k, -ECONNRESET);
	k->ep = NULL;
	dconn_free(d, k);
}

static int dpdk_send(struct sw_dp_ep *ep, uint64_t tag, const struct iovec *iov, int iovcnt,
                     void *user, uint32_t grant)
{
	struct dconn *k = dconn_of(ep);
	struct dmsg *m;
	uint64_t len = 0;

	(void)grant;
	if (!k || k->state == DC_DEAD || k->state == DC_PEER_FIN)
		return -ENOTCONN;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->tag = tag;
	m->iovcnt = iovcnt;
	m->user = user;
	lent_init(m);
	for (int i = 0; i < iovcnt; i++) {
		m->iov[i] = iov[i];
		len += iov[i].iov_len;
	}
	m->len = (uint32_t)len;
	if (k->msgs_tail)
		k->msgs_tail->next = m;
	else
		k->msgs = m;
	k->msgs_tail = m;
	if (!k->asg)
		k->asg = m;
	self_kick(dctx(ep->ctx));
	return 0;
}

static int dpdk_grant(struct sw_dp_ep *ep, uint32_t n)
{
	struct dconn *k = dconn_of(ep);

	if (!k || k->state == DC_DEAD)
		return -ENOTCONN;
	k->credit_owed += n;
	self_kick(dctx(ep->ctx));
	return 0;
}

static int dpdk_set_rate(struct sw_dp_ctx *c, uint64_t bytes_per_s)
{
	struct dpdk_ctx *d = dctx(c);
	uint64_t now = rte_rdtsc(), frames = 4 * (d->mss + DPDK_HEADROOM);
	bool was_paced = d->rate != 0;

	if (was_paced)
		bucket_fill(d, now);
	d->rate = bytes_per_s;
	/* Bursts of a millisecond at the rate, at least a few full frames. A new rate keeps the
	 * tokens left (up to its burst): a controller that changes its share often must not
	 * hand out a fresh burst each time. */
	d->burst = (double)(bytes_per_s / 1000 > frames ? bytes_per_s / 1000 : frames);
	if (!was_paced || d->tokens > d->burst)
		d->tokens = d->burst;
	d->tok_tsc = now;
	self_kick(d); /* connections the old rate held back may send */
	return 0;
}

static int dpdk_set_paced(struct sw_dp_ep *ep, bool on)
{
	struct dconn *k = dconn_of(ep);

	if (!k)
		return -ENOTCONN;
	k->paced = on;
	self_kick(dctx(ep->ctx));
	return 0;
}

static int dpdk_mem_reg(struct sw_dp_ctx *c, struct sw_dp_mr *mr)
{
	(void)c;
	(void)mr; /* segments are copied into mbufs: nothing to register (README) */
	return 0;
}

static void dpdk_mem_dereg(struct sw_dp_ctx *c, struct sw_dp_mr *mr)
{
	(void)c;
	(void)mr;
}

static bool has_work(const struct dpdk_ctx *d)
{
	return d->base.evq.n || d->base.credit_woke;
}

/* memif: puts d among the sleepers of its port, whose receive interrupt is unmasked while
 * it has any (the peer then writes an eventfd after each burst and each of our polls reads
 * it: two syscalls a burst, so polling contexts keep it masked), and that eventfd in d's
 * wake set. 0, or a negative errno: the link is down (the driver unmapped the ring), or the
 * driver is not one dpdk_memif.c knows; d cannot sleep then. */
static int memif_sleep(struct dpdk_ctx *d)
{
	struct dport *p = d->p;
	int fd;

	pthread_mutex_lock(&p->lock);
	fd = link_up(d) ? sw_dp_dpdk_memif_intr(p->id, p->pool, true) : -ENOTCONN;
	if (fd >= 0) {
		p->sleepers++;
		d->asleep = true;
	}
	pthread_mutex_unlock(&p->lock);
	if (fd >= 0 && sw_dp_dpdk_wake_intr(&d->wake, fd) < 0) {
		memif_wake(d);
		return -EIO;
	}
	return fd < 0 ? fd : 0;
}

/* Takes d off its memif port's sleepers (the last one masks the interrupt again). */
static void memif_wake(struct dpdk_ctx *d)
{
	struct dport *p = d->p;

	if (!d->asleep)
		return;
	d->asleep = false;
	pthread_mutex_lock(&p->lock);
	if (--p->sleepers == 0 && link_up(d))
		sw_dp_dpdk_memif_intr(p->id, p->pool, false);
	pthread_mutex_unlock(&p->lock);
}

/* Makes d's wake set readable when d next has work, unless it has some now (returns 1 then):
 * on memif unmasks the interrupt first, empties the set, progresses once more (what arrived
 * before is on the port or the ring by then: the race between the last poll and sleeping),
 * and sets the timer to the earliest deadline. 0 armed, or a negative errno: d cannot sleep
 * now (a memif link that is down). */
static int wake_arm(struct dpdk_ctx *d)
{
	uint64_t now, at = UINT64_MAX;
	int rc;

	if (d->p->memif && !d->asleep && (rc = memif_sleep(d)) < 0)
		return rc;
	sw_dp_dpdk_wake_drain(&d->wake, d->fd_out);
	d->kicked = false;
	dpdk_progress(&d->base);
	if (has_work(d) || d->rx_more || !rte_ring_empty(d->rxq))
		return 1;
	now = rte_rdtsc();
	if (d->next_tsc <= now)
		return 1;
	if (d->next_tsc != UINT64_MAX) /* in whole microseconds, rounded up */
		at = sw_dp_now_ns() + ((d->next_tsc - now) / (d->hz / 1000000) + 1) * 1000;
	sw_dp_dpdk_wake_timer(&d->wake, at);
	return 0;
}

/* Progresses until there is an event, sleeping on the wake set as soon as a poll found
 * nothing: a frame's arrival wakes it (memif's interrupt; on a kernel interface the held
 * socket, which the kernel hands the frame after af_packet's ring has it), as a blocked socket
 * reader is woken. Ports with no wake set (net_ring, af_xdp) poll often for WAIT_SPIN_US
 * (the next frame of a transfer is usually that close), with the shortest sleep between
 * polls, then nap 50 us between polls, as does memif while its link is down. So an idle
 * context holds no core. With timeout_ms 0 and a wake set, -ETIMEDOUT leaves the set armed
 * for the caller's epoll (sw_dp_fd). Costs: dataplane/README.md. */
static int dpdk_wait(struct sw_dp_ctx *c, int timeout_ms)
{
	struct dpdk_ctx *d = dctx(c);
	uint64_t start = rte_rdtsc(), spin = d->hz / 1000000 * WAIT_SPIN_US, last = start;
	uint64_t end = timeout_ms < 0 ? UINT64_MAX : start + (uint64_t)timeout_ms * d->hz / 1000;
	/* not when it only looks (timeout 0: the agent's epoll loop) */
	bool spinning = d->wake.epfd >= 0 && timeout_ms != 0 && sw_dp_spin_now(&d->spin);
	bool spun = false;

	memif_wake(d); /* the caller slept on sw_dp_fd: it polls now */
	for (;;) {
		uint64_t now;
		int rc = dpdk_progress(c);
		if (rc < 0)
			return rc;
		if (has_work(d)) {
			if (spun && spinning) /* found by the spin: spinning pays here */
				sw_dp_spin_hit(&d->spin);
			return 0;
		}
		now = rte_rdtsc();
		if (spinning && now - last > d->hz / 1000000 * SW_DP_SPIN_PREEMPTED_US) {
			/* Off the core in the spin: another thread wants it, maybe the peer. */
			sw_dp_spin_missed(&d->spin);
			spinning = spun = false;
		}
		last = now;
		if (d->wake.epfd < 0 && now - start <= spin && now < end) {
			/* A sleep, not a plain spin: with more runnable threads than cores, a spin
			 * held the core its peer needed to answer (1 KiB fetches: 482 us). And not
			 * sched_yield: since EEVDF (Linux 6.6) a yield puts the thread behind the
			 * others on its core for a whole slice, so beside one CPU-bound task every
			 * wait cost 8-12 ms at nice 0 and 20-80 ms at nice 10 (the 20 ms fetches of
			 * perf/README.md), where a sleeper keeps its place. */
			struct timespec ts = {0, 1000};
			nanosleep(&ts, NULL);
			continue;
		}
		if (spinning && now - start <= d->spin.ticks && now < end) {
			rte_pause();
			spun = true;
			continue;
		}
		if (spinning) /* ran out */
			sw_dp_spin_missed(&d->spin);
		spinning = false;
		rc = d->wake.epfd < 0 ? -EAGAIN : wake_arm(d);
		if (rc < 0) {
			struct timespec ts = {0, 50000};
			if (now >= end) {
				if (d->wake.epfd >= 0) /* a memif link down: poll again soon */
					sw_dp_dpdk_wake_timer(&d->wake, sw_dp_now_ns() + 50000);
				return -ETIMEDOUT;
			}
			nanosleep(&ts, NULL);
			continue;
		}
		if (rc > 0) {
			memif_wake(d);
			if (has_work(d) || now >= end)
				return 0; /* work, or something due: poll now */
			continue;
		}
		now = rte_rdtsc();
		if (now >= end)
			return -ETIMEDOUT;
		rc = sw_dp_dpdk_wake_wait(
		        &d->wake, end == UINT64_MAX ? -1 : (int)((end - now) * 1000 / d->hz) + 1);
		memif_wake(d);
		if (rc < 0)
			return -EIO;
	}
}

/* sw_dp_poll: a caller that slept on sw_dp_fd polls, so memif's interrupt may be masked. */
static int dpdk_poll(struct sw_dp_ctx *c)
{
	memif_wake(dctx(c));
	return dpdk_progress(c);
}

/* The wake set on a kernel interface (but af_xdp's) and on memif; net_ring and af_xdp have
 * none. */
static int dpdk_fd(struct sw_dp_ctx *c)
{
	dctx(c)->fd_out = true;
	return dctx(c)->wake.epfd >= 0 ? dctx(c)->wake.epfd : -ENOTSUP;
}

static void dpdk_describe(const struct sw_dp_ep *ep, FILE *out)
{
	const struct dpdk_ctx *d = (const struct dpdk_ctx *)ep->ctx;
	const struct dconn *k = ((const struct dpdk_ep *)ep)->c;

	fprintf(out, "dpdk endpoint to %s on port %s (conn %u -> %u, %u unacked, %s)\n", ep->peer,
	        d->p->name, k ? k->id : 0, k ? k->peer_id : 0, k ? k->snd_nxt - k->snd_una : 0,
	        k && paced(d, k) ? "paced" : "unpaced");
}

const struct dp_ops sw_dp_dpdk_ops = {
        .name = "dpdk",
        .caps = SW_DP_CAP_RDMA | SW_DP_CAP_FD,
        .ctx_size = sizeof(struct dpdk_ctx),
        .ep_size = sizeof(struct dpdk_ep),
        .init = dpdk_init,
        .open = dpdk_open,
        .close = dpdk_close,
        .listen = dpdk_listen,
        .connect = dpdk_connect,
        .ep_close = dpdk_ep_close,
        .send = dpdk_send,
        .grant = dpdk_grant,
        .set_rate = dpdk_set_rate,
        .set_paced = dpdk_set_paced,
        .mem_reg = dpdk_mem_reg,
        .mem_dereg = dpdk_mem_dereg,
        .progress = dpdk_poll,
        .wait = dpdk_wait,
        .fd = dpdk_fd,
        .describe = dpdk_describe,
        .place_max = DPDK_MSS_MIN,
};
