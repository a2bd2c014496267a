/* SPDX-License-Identifier: MIT */
/* The agent's state and the helpers its files share (agent.h is what swagent and tests call). */
#ifndef SW_AGENT_INT_H
#define SW_AGENT_INT_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>

#include "agent.h"
#include "replica.h"

#define container_of(p, type, member) ((type *)((char *)(p)-offsetof(type, member)))

/* The agent context's message limit (a replica chunk and its header) and credits: a peer can
 * make the agent hold at most credits x max_msg bytes per connection. */
#define SW_AGENT_MAX_MSG (SW_AGENT_PUT_CHUNK + 4096)
#define SW_AGENT_CREDITS 8
/* Events a dp context's handler takes per turn of the loop. */
#define SW_AGENT_DP_BATCH 32
/* With a poll-mode context (dpdk on a port without an fd: memif) the loop goes round at least this
 * often, to progress it: 1000 wakeups a second, against a core spent spinning (agent/README.md). */
#define SW_AGENT_POLL_MS 1
/* Replica chunks a put has unacknowledged at once (below the credits: see put_pump). */
#define SW_AGENT_PUT_WINDOW 4
/* A fetch whose server shows no sign of life for this long fails and the reduce waits for a
 * new location: far above any LAN stall. (The loop never waits on a fetch.) */
#define SW_AGENT_FETCH_TIMEOUT_MS 5000
/* A reduce tries a source whose fetch failed again after this long (each failure is reported
 * to the controller, which re-runs the map after a few: controller/README.md). */
#define SW_AGENT_FETCH_RETRY_MS 1000
/* A replica put whose target acknowledges nothing for this long fails. */
#define SW_AGENT_PUT_IDLE_MS 30000

/* Whatever owns an endpoint of the agent's dp context gets its events through this; it is the
 * endpoint's user pointer (sw_dp_ep_set_user). */
struct sw_agent_peer {
	void (*on_event)(struct sw_agent *ag, struct sw_agent_peer *p, struct sw_dp_event *ev);
};

/* An operation for the writer thread (disk.c): run() on the thread, then done() in the loop
 * with run's result, or with -ECANCELED when the agent stops before run() started. The owner
 * keeps op, and everything run() reads, alive until done(). */
struct sw_agent_disk_op {
	struct sw_agent_disk_op *next;
	int (*run)(struct sw_agent_disk_op *op); /* 0 or -errno */
	void (*done)(struct sw_agent *ag, struct sw_agent_disk_op *op, int rc);
	int rc;
};

struct sw_agent_disk {
	pthread_t thread;
	bool running, stop;
	pthread_mutex_t lock; /* the two lists and stop */
	pthread_cond_t cond;  /* an operation was queued, or stop */
	struct sw_agent_disk_op *queued, **queued_tail, *done, **done_tail;
	struct sw_agent_watch watch; /* an eventfd: done has operations */
};

struct sw_agent {
	struct sw_agent_conf conf;
	uint8_t key[SW_AGENT_KEY_MAX];
	size_t key_len;
	struct sw_agent_hooks hooks;
	int epfd;
	bool stop;
	struct sw_agent_watch dp_watch, srv_watch, fetch_watch, fetch_timer, sig_watch;
	struct {
		struct sw_agent_watch *w;
		struct sw_dp_ctx *dp;
		int sleep_ms;   /* the longest the loop may sleep without polling it; -1: any */
	} dps[SW_AGENT_DP_MAX]; /* dp contexts in the loop */
	int n_dps;
	struct sw_dp_ctx *dp; /* replica puts both ways; the controller link */
	struct sw_shuffle_store *store;
	struct sw_dp_ctx *srv_dp; /* the shuffle server's alone (its max_recv, its listener) */
	struct sw_shuffle_server *srv;
	struct sw_dp_ctx
	        *fetch_dp; /* reduces' fetches, the fetcher's alone (answer-sized max_recv) */
	struct sw_shuffle_fetcher *fetcher;
	char shuffle_addr[SW_DP_ADDRSTRLEN];
	char replica_addr[SW_DP_ADDRSTRLEN];
	struct sw_agent_disk disk;
	struct sw_agent_task *tasks;
	struct sw_agent_put *puts; /* outgoing replica puts */
	int replica_conns;         /* accepted replica connections open */
	/* replica.c's connections, open or with chunks on the writer thread */
	struct sw_agent_replica_conn *replica_conn_list;
	uint64_t put_idle_ms; /* a put with no ACK for this long fails (tests shorten it) */
	struct sw_agent_counters cnt;
	/* NetSat: bytes received by source rack, of replica puts and of fetch connections that
	 * closed; sw_agent_rx_bytes() adds the open fetch connections' */
	uint64_t *rx_by_rack;
	uint32_t n_racks;
	struct sw_agent_server_rack *server_racks; /* each shuffle server fetched from: its rack */
	uint32_t n_server_racks, cap_server_racks;
	/* cross-rack pacing (pace.c): the controller's cap for this agent's sends to other racks
	 * (0: none), its rack's hosts (IPv4, network order), connections paced now */
	uint64_t pace_bps;
	uint32_t *pace_hosts;
	size_t n_pace_hosts;
	uint32_t paced_conns;
	bool pace_unsupported; /* logged that the transport cannot pace */
};

struct sw_agent_server_rack {
	char addr[SW_DP_ADDRSTRLEN];
	uint32_t rack;
};

void sw_agent_log(struct sw_agent *ag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sw_agent_timer_ack(struct sw_agent_watch *w);
/* CLOCK_MONOTONIC in ms, the clock of the loop's timers. */
uint64_t sw_agent_now_ms(void);

/* Synthetic data: byte i of partition (job, map, part) is a fixed function of the four, so a
 * reducer checks every byte it fetched without any copy of what was written. */
void sw_agent_synth_fill(uint8_t *buf, size_t len, uint64_t job, uint32_t map, uint32_t part);
/* The same for bytes [off, off+len) of the partition, into buf; off a multiple of 8. */
void sw_agent_synth_fill_at(uint8_t *buf, uint64_t off, size_t len, uint64_t job, uint32_t map,
                            uint32_t part);
uint32_t sw_agent_crc32c(const void *buf, size_t len);

/* Bytes received from nodes of a rack (replica puts, closed fetch connections), for NetSat. */
void sw_agent_rx_add(struct sw_agent *ag, uint32_t rack, uint64_t bytes);
/* Records the rack of the shuffle server at addr (from a map location), under which the
 * fetch context's bytes from it are counted. 0 or -ENOMEM. */
int sw_agent_server_rack(struct sw_agent *ag, const char *addr, uint32_t rack);
/* NetSat's counter of a rack: rx_by_rack plus the open fetch connections' received bytes. */
uint64_t sw_agent_rx_bytes(struct sw_agent *ag, uint32_t rack);
/* The controller's Pace: this agent's cross-rack cap in bytes/s (0: unpaced) and the IPv4
 * addresses of its rack's hosts, whose connections stay unpaced; applied at once. 0, -EINVAL (a
 * host is not an IPv4 address), -ENOMEM. */
int sw_agent_pace_set(struct sw_agent *ag, uint64_t bytes_per_s, char *const *hosts, size_t n);
/* Marks the shuffle server's cross-rack connections paced, and counts them, again (one came
 * or went). */
void sw_agent_pace_mark(struct sw_agent *ag);
/* Starts the writer thread (the agent's signals must be blocked already). 0 or -errno. */
int sw_agent_disk_start(struct sw_agent *ag);
/* Queues op for the writer thread; its done() follows in the loop. */
void sw_agent_disk_queue(struct sw_agent *ag, struct sw_agent_disk_op *op);
/* Joins the thread after the operation it runs; every queued op gets done(-ECANCELED). */
void sw_agent_disk_stop(struct sw_agent *ag);

/* data_dir/SUB/NAME written whole or not at all (a temporary file, fsync, rename), on the
 * writer thread, in pieces: each piece goes to writeback at once (sync_file_range), so the
 * final fsync finds little left to do. 0 or -errno. */
struct sw_agent_file {
	int fd;
	uint64_t off;
	char path[PATH_MAX + 256], tmp[PATH_MAX + 264];
};
int sw_agent_file_open(struct sw_agent *ag, const char *sub, const char *name,
                       struct sw_agent_file *f);
int sw_agent_file_append(struct sw_agent_file *f, const void *data, size_t len);
/* fsync and rename; on failure the temporary file is removed. Closes f either way. */
int sw_agent_file_commit(struct sw_agent_file *f);
/* Drops an unfinished file (no-op once committed or aborted). */
void sw_agent_file_abort(struct sw_agent_file *f);

/* Replica puts (replica.c). A put sends data (kept by the caller until done() is called) to
 * the agent at addr; done(arg, 0 or -errno) runs exactly once unless the put is cancelled. */
struct sw_agent_put;
typedef void (*sw_agent_put_done_fn)(void *arg, struct sw_agent_put *put, int status);
int sw_agent_put_start(struct sw_agent *ag, const char *addr, uint64_t job, uint32_t task,
                       uint32_t attempt, const uint8_t *data, uint64_t len,
                       sw_agent_put_done_fn done, void *arg, struct sw_agent_put **out);
void sw_agent_put_cancel(struct sw_agent_put *put);
void sw_agent_puts_pump(struct sw_agent *ag);
/* An accepted endpoint's peer: replica puts from other agents. */
extern struct sw_agent_peer sw_agent_replica_server;
/* Closes and frees every replica connection (once the writer thread has stopped). */
void sw_agent_replica_conns_close(struct sw_agent *ag);

#endif
