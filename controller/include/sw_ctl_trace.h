/* SPDX-License-Identifier: MIT */
/*
 * The controller's scheduler calls, recorded. Every sw_sched_* call that changes the
 * scheduler goes through one sw_ctl_rec_* function, which makes the call and hands one JSON
 * line describing it (arguments, return code, assignments) to a sink. Replaying those lines
 * on a fresh scheduler (sw_ctl_rec_replay) makes the same calls and checks that each returns
 * the same code and every heartbeat the same assignments: the proof that the live
 * controller and the simulator drive one brain, and how a restarted controller rebuilds its
 * scheduler. Line format: controller/README.md ("Scheduler-call trace").
 *
 * Return codes: those of the sw_sched_* call made, or -ENOMEM when a line cannot be made;
 * sw_ctl_rec_replay: 0, -EPROTO (not a trace line: err says what), -EILSEQ (the scheduler
 * answered differently than recorded: err says where and how).
 */
#ifndef SW_CTL_TRACE_H
#define SW_CTL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sw_sched.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Receives one recorded call: a JSON object of len bytes, no newline. */
typedef void (*sw_ctl_sink_fn)(void *arg, const char *line, size_t len);

struct sw_ctl_rec {
	struct sw_sched *sched; /* NULL until sw_ctl_rec_create or a replayed "create" line */
	sw_ctl_sink_fn sink;    /* NULL: calls are made, not recorded */
	void *sink_arg;
	double last_now;   /* time of the latest call */
	uint64_t calls;    /* calls made (or replayed) */
	uint64_t assigned; /* tasks handed out by heartbeats */
};

/* Creates the scheduler (sw_sched_create) into r->sched and records cluster and config.
 * Returns 0, -EINVAL (sw_sched_create refused: errno's reason), -ENOMEM. */
int sw_ctl_rec_create(struct sw_ctl_rec *r, const struct sw_cluster_spec *cluster,
                      const struct sw_sched_config *cfg);

int sw_ctl_rec_job_add(struct sw_ctl_rec *r, const struct sw_job_spec *job, double now);
int sw_ctl_rec_heartbeat(struct sw_ctl_rec *r, const struct sw_heartbeat *hb, double now,
                         struct sw_assignment *out, int max);
int sw_ctl_rec_task_started(struct sw_ctl_rec *r, uint64_t job, enum sw_task_kind kind,
                            uint32_t task, double now);
int sw_ctl_rec_task_finished(struct sw_ctl_rec *r, uint64_t job, enum sw_task_kind kind,
                             uint32_t task, double now);
int sw_ctl_rec_task_failed(struct sw_ctl_rec *r, uint64_t job, enum sw_task_kind kind,
                           uint32_t task, double now);
int sw_ctl_rec_map_output_lost(struct sw_ctl_rec *r, uint64_t job, uint32_t map, double now);
int sw_ctl_rec_node_lost(struct sw_ctl_rec *r, uint32_t node, double now);
int sw_ctl_rec_node_restarted(struct sw_ctl_rec *r, uint32_t node, double now);
int sw_ctl_rec_node_up(struct sw_ctl_rec *r, uint32_t node, double now);
int sw_ctl_rec_job_remove(struct sw_ctl_rec *r, uint64_t job, double now);
int sw_ctl_rec_map_output(struct sw_ctl_rec *r, uint64_t job, uint32_t map, uint32_t node,
                          uint64_t bytes, double now);
int sw_ctl_rec_net_sample(struct sw_ctl_rec *r, uint32_t rack, uint64_t out_bytes,
                          uint64_t in_bytes, double now);

/* Makes the call one recorded line describes on r->sched (the first line must be "create")
 * and checks its outcome against the record. Nothing is passed to the sink. */
int sw_ctl_rec_replay(struct sw_ctl_rec *r, const char *line, size_t len, char *err, size_t errlen);

/* Destroys r->sched (NULL is fine). */
void sw_ctl_rec_fini(struct sw_ctl_rec *r);

#ifdef __cplusplus
}
#endif

#endif
