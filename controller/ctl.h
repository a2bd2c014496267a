/* SPDX-License-Identifier: MIT */
/*
 * swcontroller's state, private to controller/. One thread owns all of it: the epoll loop in
 * main.c calls into agents.c (connections, handshake, lost nodes), dispatch.c (wire messages
 * to scheduler calls), jobs.c (job table, tasks handed to agents), http.c, metrics.c and
 * store.c (SQLite). See controller/README.md.
 */
#ifndef SW_CTL_H
#define SW_CTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sw_ctl_trace.h"
#include "sw_netsat.h"
#include "sw_sched.h"
#include "sw_wire.h"

#define CTL_MAX_RACKS     1024
#define CTL_MAX_LIVE_JOBS 1024    /* submissions beyond this are refused (503) */
#define CTL_MAX_MAPS      100000  /* per job */
#define CTL_MAX_DEADLINE  1e9     /* seconds: a job's deadline_s, 31.7 years */
#define CTL_MAX_REDUCES   10000   /* per job */
#define CTL_MAX_PARTS     4000000 /* maps x reduces per job: 16 B of checksums each */
#define CTL_MAX_ARGV      64      /* words of an exec command */
#define CTL_MAX_ATTEMPTS  4       /* failed attempts of one task before its job fails */
#define CTL_SECRET_LEN    32      /* a job's shuffle secret */
/* Reports of failed fetches of one map attempt (from any reduces) after which the map runs
 * again; the node that served it then gets no maps for CTL_FETCH_BENCH_S (controller/README.md,
 * "Fetch failures"). */
#define CTL_FETCH_FAILURES 3
#define CTL_FETCH_BENCH_S  60

struct ctl_conf_node {
	char name[SW_WIRE_NODE_ID_MAX + 1];
	uint32_t rack;
	uint16_t map_slots, reduce_slots;
};

struct ctl_conf {
	char listen[SW_DP_ADDRSTRLEN];      /* agents connect here */
	char http_listen[SW_DP_ADDRSTRLEN]; /* submit, status, jobs, metrics */
	char key_file[PATH_MAX];
	char state_db[PATH_MAX];
	char trace_file[PATH_MAX]; /* "" = no JSONL copy of the trace */
	char policy[32];
	char state_sync[8]; /* SQLite's synchronous: "normal" or "off" */
	uint32_t users, heartbeat_ms, lost_after_ms;
	double uplink_bps, nic_bps;
	double saturation_threshold; /* NetSat's flag (the scheduler's nw_saturation_threshold) */
	double pace_uplink;          /* a saturated rack's cap, of its uplink; 0: no pacing */
	uint16_t map_slots, reduce_slots; /* for node lines that give none */
	uint32_t n_racks, n_nodes;
	struct ctl_conf_node *nodes;
};

int sw_ctl_conf_load(const char *path, struct ctl_conf *c, char *err, size_t errlen);
void sw_ctl_conf_free(struct ctl_conf *c);

enum ctl_conn_state { CONN_HELLO, CONN_AUTH, CONN_UP };

/* One agent connection. */
struct ctl_conn {
	struct sw_dp_ep *ep;
	enum ctl_conn_state state;
	struct sw_wire_handshake hs;
	bool closing;  /* refused: closes once the Refused is sent */
	bool broken;   /* a send failed: closed after this turn */
	bool fresh;    /* registered, no heartbeat yet */
	double since;  /* accepted at */
	uint32_t node; /* from Hello on */
	uint64_t boot_epoch;
	char peer[SW_DP_ADDRSTRLEN];
	char shuffle_addr[SW_DP_ADDRSTRLEN];
	char replica_addr[SW_DP_ADDRSTRLEN];
	/* the last Pace sent (pace.c): its rate, and rack_gen of the node's rack then */
	bool pace_sent;
	uint64_t pace_bps;
	uint32_t pace_gen;
	struct ctl_conn *prev, *next;
};

enum ctl_node_state { NODE_NEW, NODE_UP, NODE_LOST };

struct ctl_node {
	struct ctl_conn *conn; /* the authenticated connection, NULL when none */
	enum ctl_node_state state;
	double last_seen;    /* last heartbeat (or registration) */
	uint64_t boot_epoch; /* of the agent that registered last */
	char shuffle_addr[SW_DP_ADDRSTRLEN];
	char replica_addr[SW_DP_ADDRSTRLEN];
	uint64_t heartbeats;
	uint32_t running;     /* tasks the controller has running there */
	double no_maps_until; /* its map output could not be fetched: no maps before then */
};

enum ctl_task_state { TASK_PENDING, TASK_RUNNING, TASK_DONE };

struct ctl_task {
	uint32_t attempt; /* of the latest launch; 0 before the first */
	uint32_t node;
	uint8_t state;
	uint8_t failures;
	uint8_t fetch_failures; /* reports of this (finished map) attempt's output unfetchable */
};

struct ctl_part {
	uint64_t bytes;
	uint32_t crc32c;
};

enum ctl_job_state { JOB_RUNNING, JOB_DONE, JOB_FAILED };

struct ctl_job {
	uint64_t id;
	char name[64];
	uint32_t user;
	uint32_t n_maps, n_reduces;
	uint64_t input_bytes, map_output_bytes, reduce_output_bytes;
	double compute_bps, reduce_compute_bps; /* synthetic maps' and reduces' */
	uint32_t output_replicas;
	double deadline_s;     /* seconds after submission the job should end by, 0 for none */
	char **argv[SW_KINDS]; /* exec runner's command per kind, NULL-terminated; NULL: synthetic
	                        */
	uint8_t secret[CTL_SECRET_LEN];
	enum ctl_job_state state;
	char error[160]; /* why it failed */
	double submitted, finished;
	struct ctl_task *tasks[SW_KINDS];
	struct ctl_part *parts; /* [map * n_reduces + reduce], of finished maps */
	uint32_t done[SW_KINDS];
};

struct ctl_out; /* messages waiting for the next commit (main.c) */

struct ctl {
	struct ctl_conf conf;
	struct sw_wire_key key;
	struct sw_ctl_rec rec;
	struct sw_cluster_spec cluster; /* the scheduler's, from the config: input placement */
	struct sw_netsat *netsat;       /* agents' receive counters to rack uplink bytes */
	double last_net_sample;
	uint32_t rack_gen[CTL_MAX_RACKS]; /* bumped when a node of the rack registers (pace.c) */
	struct sw_dp_ctx *dp;
	struct MHD_Daemon *http;
	struct sqlite3 *db;
	int trace_fd;
	char *trace_buf; /* this turn's trace lines, written once committed */
	size_t trace_len, trace_cap;
	double now, clock_offset;
	struct ctl_node *nodes;
	struct ctl_conn *conns;
	size_t n_pending;      /* conns not yet authenticated (at most CTL_MAX_PENDING) */
	struct ctl_job **jobs; /* every job since the state was made, by id - 1 */
	size_t n_jobs, cap_jobs;
	struct ctl_out *out;
	size_t n_out, cap_out;
	/* endpoints closed while a batch of events is handled (main.c poll_agents) */
	struct sw_dp_ep *closed[64];
	size_t n_closed;
	bool any_broken; /* some conn is broken: the commit walks the connections */
	bool stop;
	int exit_code;
	bool store_failed; /* a write of this turn failed: the commit fails */
	/* for /metrics */
	uint64_t msgs_in, bad_msgs, refused, lost_events, jobs_submitted;
	uint64_t fetch_reports, fetch_reruns; /* fetch failures reported, maps re-run for them */
	uint64_t restarts, outputs_kept;      /* agents restarted on an up node, map outputs kept */
};

/* errf.c: writes a message into err and returns code */
__attribute__((format(printf, 4, 5))) int sw_ctl_errf(char *err, size_t errlen, int code,
                                                      const char *fmt, ...);

/* main.c */
__attribute__((format(printf, 2, 3))) void sw_ctl_log(struct ctl *c, const char *fmt, ...);
/* Queues msg for conn, sent once the state it depends on is committed. */
void sw_ctl_send(struct ctl *c, struct ctl_conn *conn, enum sw_wire_type type,
                 const ProtobufCMessage *msg);
/* Commits the state and sends what was queued. */
void sw_ctl_commit(struct ctl *c);
/* Drops what was queued for conn (it is closing). */
void sw_ctl_forget(struct ctl *c, struct ctl_conn *conn);

/* agents.c */
void sw_ctl_agent_event(struct ctl *c, struct sw_dp_event *ev);
void sw_ctl_agents_tick(struct ctl *c);
void sw_ctl_agent_drop(struct ctl *c, struct ctl_conn *conn, const char *why);
/* Declares the node lost (sw_sched_node_lost) and closes its connection. */
void sw_ctl_node_lost(struct ctl *c, uint32_t node, const char *why);
void sw_ctl_node_up(struct ctl *c, uint32_t node);
/* The node's agent restarted (new boot epoch) while the node was up: its tasks are gone, the
 * map outputs its Auth lists are kept (sw_sched_node_restarted). */
void sw_ctl_node_restarted(struct ctl *c, uint32_t node, const SwWire__Auth *a);

/* dispatch.c: an authenticated agent's message */
void sw_ctl_dispatch(struct ctl *c, struct ctl_conn *conn, const struct sw_wire_msg *m);
/* Every heartbeat interval: each rack's uplink bytes to the scheduler (NetSat). */
void sw_ctl_net_samples(struct ctl *c);

/* pace.c: a saturated rack's cross-rack cap in bytes/s, 0 when it is not paced. */
uint64_t sw_ctl_rack_pace(struct ctl *c, uint32_t rack);
/* Tells each agent whose pacing changed (its rack's flag, agents or hosts) what it is now. */
void sw_ctl_pace(struct ctl *c);
/* jobs.c */
int sw_ctl_job_submit(struct ctl *c, const char *json, size_t len, uint64_t *id, char *err,
                      size_t errlen);
struct ctl_job *sw_ctl_job(struct ctl *c, uint64_t id);
/* Every change of a task's state goes through here: it keeps each node's running count. */
void sw_ctl_task_state(struct ctl *c, struct ctl_task *t, enum ctl_task_state st);
/* Fills a wire Task for an assignment; the strings point into the job; free with
 * sw_ctl_task_msg_free. Returns 0 or -ENOMEM. */
int sw_ctl_task_msg(struct ctl *c, struct ctl_job *j, enum sw_task_kind kind, uint32_t task,
                    SwWire__Task *t);
void sw_ctl_task_msg_free(SwWire__Task *t);
/* Sends the reduce's running attempt map's location, or every known one when map is -1. */
void sw_ctl_job_outputs(struct ctl *c, struct ctl_job *j, uint32_t reduce, int64_t map);
/* A map of j finished (its parts are stored): tells the agents running j's reduces. */
void sw_ctl_job_map_done(struct ctl *c, struct ctl_job *j, uint32_t map);
/* Map outputs on a node whose agent restarted: kept, or lost and to be made again. */
struct ctl_outputs {
	uint32_t kept, lost;
};
/* Mirrors sw_sched_node_lost in the job table: running tasks on node, and finished maps
 * whose output was there while their job still has reduces to feed, back to pending. With
 * @p restarted (the Auth of the node's restarted agent, after sw_sched_node_restarted), a
 * finished map whose partitions it lists keeps its output; each other one is reported lost
 * (sw_sched_map_output_lost). @return what became of the outputs on the node. */
struct ctl_outputs sw_ctl_jobs_node_lost(struct ctl *c, uint32_t node,
                                         const SwWire__Auth *restarted);
/* Tells the agents running j's tasks to stop them. */
void sw_ctl_job_kill_tasks(struct ctl *c, struct ctl_job *j, const char *why);
/* The job ended (done or failed): tells the agents to drop its data. */
void sw_ctl_job_end(struct ctl *c, struct ctl_job *j, enum ctl_job_state st, const char *why);

/* job_spec.c */
/* A job from its spec (POST /jobs, the state database), checked against @p users users:
 * 0, -EINVAL (err names the field), -ENOMEM. Tasks and parts are allocated, all pending. */
int sw_ctl_job_from_json(uint32_t users, const char *spec, struct ctl_job **out, char *err,
                         size_t errlen);
/* The spec of j, which sw_ctl_job_from_json reads back to the same job (malloc'd; NULL). */
char *sw_ctl_job_json(const struct ctl_job *j);
void sw_ctl_job_free(struct ctl_job *j);

/* store.c */
int sw_ctl_store_open(struct ctl *c, char *err, size_t errlen);
void sw_ctl_store_close(struct ctl *c);
/* WAL checkpoints in a thread of their own (checkpoint.c says why); the store starts and stops it.
 */
int sw_ctl_checkpoint_start(struct ctl *c, char *err, size_t errlen);
void sw_ctl_checkpoint_stop(void);
/* Rebuilds the scheduler (c->rec) by replaying the recorded calls and the job table and
 * nodes from the database; with an empty database creates the scheduler for cl and cfg.
 * Returns 0, -EINVAL (the database was made for another cluster or config), -EILSEQ (a
 * recorded call replays differently), -EIO; err says which. */
int sw_ctl_store_load(struct ctl *c, const struct sw_cluster_spec *cl,
                      const struct sw_sched_config *cfg, char *err, size_t errlen);
void sw_ctl_store_begin(struct ctl *c);
int sw_ctl_store_commit(struct ctl *c);
void sw_ctl_store_call(struct ctl *c, const char *line, size_t len);
void sw_ctl_store_job(struct ctl *c, const struct ctl_job *j);
void sw_ctl_store_task(struct ctl *c, const struct ctl_job *j, enum sw_task_kind kind,
                       uint32_t task);
void sw_ctl_store_parts(struct ctl *c, const struct ctl_job *j, uint32_t map);
void sw_ctl_store_node(struct ctl *c, uint32_t node);

/* http.c */
int sw_ctl_http_start(struct ctl *c, char *err, size_t errlen);
void sw_ctl_http_stop(struct ctl *c);
/* The address HTTP listens on, with the port bound (http_listen may give port 0). */
void sw_ctl_http_addr(struct ctl *c, char *buf, size_t len);
int sw_ctl_http_fd(struct ctl *c);
void sw_ctl_http_run(struct ctl *c);
int sw_ctl_http_timeout_ms(struct ctl *c);

/* metrics.c: the Prometheus text of /metrics, malloc'd */
char *sw_ctl_metrics(struct ctl *c, size_t *len);
/* status.c: GET /status and GET /jobs bodies, malloc'd JSON */
char *sw_ctl_status_json(struct ctl *c);
char *sw_ctl_jobs_json(struct ctl *c);

#endif
