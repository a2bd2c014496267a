/* SPDX-License-Identifier: MIT */
/*
 * swagent's core, private to agent/: one event loop (epoll) that owns the tasks, the map-output
 * store, and three sw_dp contexts: the shuffle server's, the shuffle fetcher's and its own
 * (replica puts; the controller link). Every call returns 0 or a negative errno, from the
 * loop's thread; a writer thread (disk.c) does the disk writes and hands results to the loop.
 */
#ifndef SW_AGENT_H
#define SW_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sw_dp.h>
#include <sw_shuffle.h>

#include "conf.h"

#define SW_AGENT_KEY_MAX 64

struct sw_agent;
struct sw_agent_task;

/* ---------------------------------------------------------------------------------------- */
/* Event loop (loop.c): fds in one epoll set, each with its handler. */

struct sw_agent_watch {
	int fd;
	void (*fn)(struct sw_agent_watch *w, uint32_t events);
};

int sw_agent_watch_add(struct sw_agent *ag, struct sw_agent_watch *w);
/* Takes w out of the epoll set; its fd stays open. */
void sw_agent_watch_del(struct sw_agent *ag, struct sw_agent_watch *w);
/* Takes w out of the epoll set and closes its fd (no-op when fd is -1). */
void sw_agent_watch_close(struct sw_agent *ag, struct sw_agent_watch *w);
/* A dp context in the loop: w->fn runs when its fd is ready and after every round, since a
 * context can hold events its fd does not show (send completions, returned credits); w->fn
 * may take one batch of events, as the next round comes at once while the context holds
 * more (sw_dp_wait(dp, 0)). A context without an fd (dpdk on memif) runs every round, and
 * rounds come every millisecond at least while one is watched. At most SW_AGENT_DP_MAX. */
#define SW_AGENT_DP_MAX 4
int sw_agent_dp_watch(struct sw_agent *ag, struct sw_agent_watch *w, struct sw_dp_ctx *dp);
void sw_agent_dp_unwatch(struct sw_agent *ag, struct sw_agent_watch *w);
/* A one-shot CLOCK_MONOTONIC timerfd in the loop, firing after ms (0: at once). */
int sw_agent_timer_start(struct sw_agent *ag, struct sw_agent_watch *w, uint64_t ms);
/* Waits up to timeout_ms (-1: forever) and runs the handlers of ready fds. 0 or -errno. */
int sw_agent_run_once(struct sw_agent *ag, int timeout_ms);
/* Runs until sw_agent_stop() or SIGTERM/SIGINT, taken through a signalfd: block both before
 * sw_agent_create() (sw_agent_block_signals()), or threads that libraries start would take them. */
int sw_agent_block_signals(void);
int sw_agent_run(struct sw_agent *ag);
void sw_agent_stop(struct sw_agent *ag);

/* ---------------------------------------------------------------------------------------- */
/* Tasks */

enum sw_agent_kind { SW_AGENT_MAP = 0, SW_AGENT_REDUCE = 1 };

/* Where a reduce fetches the output of one map. */
struct sw_agent_source {
	uint32_t map;
	uint32_t attempt; /* of the map that wrote it (0: not known) */
	uint32_t rack;    /* the serving node's rack, for NetSat */
	char addr[SW_DP_ADDRSTRLEN];
	bool has_sum; /* bytes and crc are what the map reported: checked too */
	uint64_t bytes;
	uint32_t crc; /* CRC32C of the partition */
};

struct sw_agent_task_spec {
	uint64_t job;
	uint32_t task;
	enum sw_agent_kind kind;
	uint32_t attempt;
	const char *runner;    /* "synthetic" or "exec" */
	const uint8_t *secret; /* the job's shuffle secret, SW_SHUFFLE_SECRET_MIN..MAX bytes */
	size_t secret_len;
	/* synthetic */
	uint64_t input_bytes;  /* a map's input, computed before its output is written */
	double rate;           /* compute speed, bytes per second; 0: no compute time */
	uint32_t partitions;   /* map: reduces of the job, one output partition each */
	uint64_t output_bytes; /* map: over all partitions; reduce: its output */
	uint32_t maps;         /* reduce: maps of the job, each fetched once */
	const struct sw_agent_source *sources; /* reduce: known so far; more may follow */
	uint32_t n_sources;
	const char *const *replicas; /* reduce: replica_listen addresses for output copies */
	uint32_t n_replicas;
	/* exec */
	const char *const *argv; /* the program (looked up in PATH) and its arguments */
	uint32_t argc;
};

enum sw_agent_task_state { SW_AGENT_RUNNING, SW_AGENT_SUCCEEDED, SW_AGENT_FAILED, SW_AGENT_KILLED };

/* What a finished task reports (valid during the on_task_end callback only). */
struct sw_agent_task_result {
	uint64_t job;
	uint32_t task, attempt;
	enum sw_agent_kind kind;
	enum sw_agent_task_state state;
	const char *reason;         /* failure: what went wrong, for the log and the controller */
	uint32_t partitions;        /* synthetic map: output partitions */
	const uint64_t *part_bytes; /* ... their sizes */
	const uint32_t *part_crc;   /* ... their CRC32C */
	uint64_t fetched_bytes;     /* reduce: verified shuffle bytes */
	uint64_t output_bytes;      /* reduce: output written (each replica as many) */
};

/* A runner: how tasks run (runner.c holds the one list). */
struct sw_agent_runner {
	const char *name;
	/* Starts t; it ends later through sw_agent_task_end(). 0 or -errno (nothing started). */
	int (*start)(struct sw_agent_task *t);
	/* Stops t at once; the core then ends it as KILLED. */
	void (*kill)(struct sw_agent_task *t);
	/* Reduce: more sources were added to t (NULL: the runner does not fetch). */
	void (*sources)(struct sw_agent_task *t);
	/* Frees the runner's state of t. */
	void (*release)(struct sw_agent_task *t);
};

const struct sw_agent_runner *sw_agent_runner_find(const char *name);
extern const struct sw_agent_runner sw_agent_runner_synthetic;
extern const struct sw_agent_runner sw_agent_runner_exec;

struct sw_agent_task {
	struct sw_agent *ag;
	struct sw_agent_task *next;
	const struct sw_agent_runner *runner;
	/* the spec, owned copies */
	struct sw_agent_task_spec spec;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX];
	struct sw_agent_source *sources;
	uint32_t n_sources, cap_sources;
	char **replicas;
	char **argv; /* NULL-terminated */
	void *priv;  /* the runner's */
};

/* Ends t (runners call it once): reports it through on_task_end and frees it. */
void sw_agent_task_end(struct sw_agent_task *t, enum sw_agent_task_state state,
                       const struct sw_agent_task_result *res, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

/* ---------------------------------------------------------------------------------------- */
/* The agent */

/* A reduce could not fetch a map's output from a source (valid during the callback only). */
struct sw_agent_fetch_failure {
	uint64_t job;
	uint32_t reduce, attempt; /* the reduce attempt */
	uint32_t map, map_attempt;
	const char *server; /* the source's address */
	const char *error;
};

struct sw_agent_hooks {
	void (*on_task_end)(struct sw_agent *ag, const struct sw_agent_task_result *res, void *arg);
	void *arg;
	/* Every failed fetch (the reduce tries that source again a second later, unless a new
	 * location of the map came meanwhile); NULL: not reported. */
	void (*on_fetch_failed)(struct sw_agent *ag, const struct sw_agent_fetch_failure *f,
	                        void *arg);
};

struct sw_agent_counters {
	uint64_t tasks_started, tasks_succeeded, tasks_failed, tasks_killed;
	uint64_t map_output_bytes;  /* written into the store */
	uint64_t fetched_bytes;     /* verified by reduces */
	uint64_t fetch_failures;    /* fetches that failed (server gone, refused) */
	uint64_t checksum_failures; /* fetched data that did not match */
	uint64_t replica_bytes_out; /* acknowledged by other agents */
	uint64_t replica_bytes_in;  /* stored for other agents */
	uint64_t replica_refused;   /* puts refused (bad frame, bad MAC, disk) */
};

/* Opens the store, starts the shuffle server on conf->shuffle_listen and listens for
 * replica puts on conf->replica_listen; key authenticates those puts. */
int sw_agent_create(const struct sw_agent_conf *conf, const uint8_t *key, size_t key_len,
                    const struct sw_agent_hooks *hooks, struct sw_agent **out);
void sw_agent_destroy(struct sw_agent *ag);

/* -EEXIST (same job/task/attempt running), -ENOENT (unknown runner), -EINVAL (bad spec). */
int sw_agent_task_start(struct sw_agent *ag, const struct sw_agent_task_spec *spec);
/* -ESRCH when no such task runs. */
int sw_agent_task_kill(struct sw_agent *ag, uint64_t job, uint32_t task, enum sw_agent_kind kind,
                       uint32_t attempt);
/* Tells a running reduce where more map outputs are (a later location of a map replaces an
 * earlier one). -ESRCH when no such reduce runs here, -EINVAL for a map outside the job. */
int sw_agent_task_sources(struct sw_agent *ag, uint64_t job, uint32_t task, uint32_t attempt,
                          const struct sw_agent_source *src, uint32_t n);
/* The job ended: drops its map output. -ESRCH when the store has nothing of it. */
int sw_agent_job_done(struct sw_agent *ag, uint64_t job);

uint32_t sw_agent_running(const struct sw_agent *ag, enum sw_agent_kind kind);
const struct sw_agent_conf *sw_agent_conf(const struct sw_agent *ag);
const struct sw_agent_counters *sw_agent_counters(const struct sw_agent *ag);
/* Bound addresses (useful when the config asked for port 0). */
const char *sw_agent_shuffle_addr(const struct sw_agent *ag);
const char *sw_agent_replica_addr(const struct sw_agent *ag);

#endif
