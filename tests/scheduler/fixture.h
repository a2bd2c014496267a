/* SPDX-License-Identifier: MIT */
/* Hand-built clusters and jobs for the scheduler tests. */
#ifndef SW_SCHED_FIXTURE_H
#define SW_SCHED_FIXTURE_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sw_sched.h"

#define FX_MAX_NODES 64
#define FX_MAX_MAPS  256

/* Racks of equal size: node i is in rack i / per_rack; 2+2 slots, 8 cores, 16 GiB each. */
struct fx_cluster {
	struct sw_rack_spec racks[FX_MAX_NODES];
	struct sw_node_spec nodes[FX_MAX_NODES];
	struct sw_cluster_spec spec;
};

struct fx_job {
	struct sw_job_spec spec;
	struct sw_map_spec maps[FX_MAX_MAPS];
};

void fx_cluster_init(struct fx_cluster *c, uint32_t n_racks, uint32_t per_rack);

/* A scheduler running @p policy with default settings for @p n_users users and queues. */
struct sw_sched *fx_sched(const struct fx_cluster *c, const char *policy, uint32_t n_users);

/* A job of 1 core / 1 GiB tasks whose map i has its single replica on node i % n_nodes. */
void fx_job_init(struct fx_job *j, uint64_t id, uint32_t user, double arrival, uint32_t n_maps,
                 uint32_t n_reduces, uint32_t n_nodes);

/* Sets map @p m's replicas to the @p n node ids that follow. */
void fx_map_on(struct fx_job *j, uint32_t m, int n, ...);

/* A cluster, a scheduler for 2 users and one job of 1-core / 1-GiB tasks (id 1, user 0)
 * added at time 0, whose map i keeps its input on node i % nodes. */
struct fx_world {
	struct fx_cluster c;
	struct fx_job j;
	struct sw_sched *s;
};

void fx_world_init(struct fx_world *w, uint32_t n_racks, uint32_t per_rack, const char *policy,
                   uint32_t n_maps, uint32_t n_reduces);

/* Asserts that a heartbeat offering one slot of @p kind on @p node hands out one task. */
struct sw_assignment fx_one(struct sw_sched *s, uint32_t node, enum sw_task_kind kind, double now);

/* The job of the task a one-map-slot heartbeat of the first of nodes 0..n_nodes-1 with a free
 * slot hands out; fails the test when none has one. */
uint64_t fx_next_map(struct sw_sched *s, uint32_t n_nodes, double now);

/* Heartbeat offering @p free slots of @p kind; returns how many tasks came back. */
int fx_offer(struct sw_sched *s, uint32_t node, enum sw_task_kind kind, uint16_t free, double now,
             struct sw_assignment *out);

#endif /* SW_SCHED_FIXTURE_H */
