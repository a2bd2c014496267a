/* SPDX-License-Identifier: MIT */
/* swctl replay --live: the replay's runs on the emulated racks of swctl cluster. */
#ifndef SWCTL_REPLAY_LIVE_H
#define SWCTL_REPLAY_LIVE_H

#include <stdint.h>
#include <stdio.h>

#include "cluster.h"
#include "options.h"
#include "runner.h"

/* A run's cross-rack bytes, summed over the racks. */
struct replay_live_bytes {
	uint64_t uplink_out, uplink_in; /* the ToR uplinks' counters */
	uint64_t netsat;                /* the agents' receive counters, from other racks */
	uint64_t placed;                /* the jobs' cross-rack bytes by placement (trace) */
};

/* --kill-controller @AT+PAUSE: SIGKILL AT seconds into each run, started again PAUSE later. */
struct replay_live_kill {
	int on;
	double at, pause;
};

struct replay_live {
	struct cluster c;
	struct sw_netsat_source *up[CLUSTER_MAX_RACKS]; /* each ToR's uplink */
	int n;                                          /* runs done */
	struct replay_live_kill kill_ctl;
	struct replay_live_bytes bytes[OPTIONS_MAX_SCHEDULERS];
};

/* Reads the cluster in @p dir and opens its uplink counters. 0, or -1 after a message. */
int replay_live_open(struct replay_live *l, const char *dir);
void replay_live_close(struct replay_live *l);

/* grid's run hook: each job on the cluster in turn (the controller restarted under its
 * policy). 0, -ECANCELED (Ctrl-C) or -EIO after a message. */
int replay_live_run(struct runner_job *jobs, int n, void *arg);

/*
 * replay_live_trace.c: the bytes of each of the @p n jobs with controller ids @p ids (one
 * replica of @p out_bytes[k] per reduce) into rec[k]'s bytes, xrack and maps_at, from the
 * controller's trace at @p path. 0, or -1 after a message.
 */
int replay_live_trace(const char *path, const uint64_t *ids, size_t n, const uint64_t *out_bytes,
                      struct sw_job_record *rec);

/* The cross-rack bytes of each run: uplinks out and in, NetSat, and their difference. */
void replay_live_print(FILE *f, const struct replay_live *l, const struct runner_job *jobs);

#endif
