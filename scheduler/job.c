/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sched_int.h"

/* Slack for sums of fractional demands such as 0.1 + 0.2. */
#define FIT_EPS 1e-9

static int check_map(const struct sw_sched *s, const struct sw_map_spec *m)
{
	if (m->n_replicas < 1 || m->n_replicas > SW_MAX_REPLICAS)
		return -EINVAL;
	for (int r = 0; r < m->n_replicas; r++) {
		if (m->replicas[r] >= s->n_nodes)
			return -EINVAL;
		for (int q = 0; q < r; q++)
			if (m->replicas[q] == m->replicas[r])
				return -EINVAL;
	}
	return 0;
}

/* Groups map indexes by replica node and by replica rack (a map once per rack). */
static int build_indexes(const struct sw_sched *s, struct sched_job *j)
{
	uint32_t n = j->n_tasks[SW_MAP], n_node = 0, n_rack = 0;
	struct loc_pair *nodes = malloc((size_t)(n ? n : 1) * SW_MAX_REPLICAS * sizeof(*nodes));
	struct loc_pair *racks = malloc((size_t)(n ? n : 1) * SW_MAX_REPLICAS * sizeof(*racks));
	int rc = -ENOMEM;

	if (!nodes || !racks)
		goto out;
	for (uint32_t i = 0; i < n; i++) {
		const struct sched_map *m = &j->maps[i];

		for (int r = 0; r < m->n_replicas; r++) {
			uint32_t rack = s->nodes[m->replicas[r]].rack;
			bool seen = false;

			nodes[n_node++] = (struct loc_pair){m->replicas[r], i};
			for (int q = 0; q < r; q++)
				seen |= s->nodes[m->replicas[q]].rack == rack;
			if (!seen)
				racks[n_rack++] = (struct loc_pair){rack, i};
		}
	}
	rc = sw_sched_loc_index_build(&j->by_node, nodes, n_node);
	if (rc == 0)
		rc = sw_sched_loc_index_build(&j->by_rack, racks, n_rack);
out:
	free(nodes);
	free(racks);
	return rc;
}

int sw_sched_job_create(const struct sw_sched *s, const struct sw_job_spec *spec,
                        struct sched_job **out)
{
	struct sched_job *j;
	int rc;

	/* The locality indexes count replica entries in 32 bits. */
	if ((spec->n_maps > 0 && !spec->maps) || spec->n_maps > UINT32_MAX / SW_MAX_REPLICAS)
		return -EINVAL;
	for (uint32_t i = 0; i < spec->n_maps; i++) {
		rc = check_map(s, &spec->maps[i]);
		if (rc < 0)
			return rc;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	j->id = spec->id;
	j->user = spec->user;
	j->queue = spec->queue;
	j->cls = spec->cls;
	j->arrival = spec->arrival;
	j->deadline = spec->deadline;
	j->has_profile = spec->profile != NULL;
	if (spec->profile)
		j->profile = *spec->profile;
	j->n_tasks[SW_MAP] = j->pending[SW_MAP] = spec->n_maps;
	j->n_tasks[SW_REDUCE] = j->pending[SW_REDUCE] = spec->n_reduces;
	j->demand[SW_MAP] = spec->map_demand;
	j->demand[SW_REDUCE] = spec->reduce_demand;
	j->shuffle_demand = spec->shuffle_demand;
	if (!j->shuffle_demand.cpu && !j->shuffle_demand.mem_gb && !j->shuffle_demand.io)
		j->shuffle_demand = spec->reduce_demand;
	/* Hadoop: ceil(slowstart * maps) finished maps (mapred.reduce.slowstart.completed.maps). */
	j->slowstart_maps = (uint32_t)ceil(s->cfg.slowstart * spec->n_maps);
	j->reduces_ready = j->slowstart_maps == 0;
	j->delay = (struct delay_job){.level = SW_LOCALITY_NODE, .skip_idx = SCHED_NONE};
	for (int k = 0; k < SW_KINDS; k++) {
		j->tasks[k] = calloc(j->n_tasks[k] ? j->n_tasks[k] : 1, sizeof(*j->tasks[k]));
		if (!j->tasks[k])
			goto nomem;
	}
	j->maps = calloc(spec->n_maps ? spec->n_maps : 1, sizeof(*j->maps));
	if (!j->maps)
		goto nomem;
	for (uint32_t i = 0; i < spec->n_maps; i++) {
		struct sched_map *m = &j->maps[i];

		m->input_bytes = spec->maps[i].input_bytes;
		m->output_node = SW_NO_NODE;
		m->n_replicas = spec->maps[i].n_replicas;
		memcpy(m->replicas, spec->maps[i].replicas, sizeof(m->replicas));
	}
	if (build_indexes(s, j) < 0)
		goto nomem;
	*out = j;
	return 0;
nomem:
	sw_sched_job_free(j);
	return -ENOMEM;
}

void sw_sched_job_free(struct sched_job *j)
{
	if (!j)
		return;
	sw_sched_loc_index_free(&j->by_node);
	sw_sched_loc_index_free(&j->by_rack);
	free(j->tasks[SW_MAP]);
	free(j->tasks[SW_REDUCE]);
	free(j->maps);
	free(j->nass);
	free(j->ras);
	free(j->accel);
	free(j);
}

static bool map_pending(const struct sched_job *j, uint32_t m)
{
	return j->tasks[SW_MAP][m].state == TASK_PENDING;
}

/* The first pending map of @p key in @p ix, moving the group's cursor past taken ones. */
static uint32_t next_pending(const struct sched_job *j, const struct loc_index *ix, uint32_t key)
{
	struct loc_bucket *b = sw_sched_loc_index_find(ix, key);

	if (!b)
		return SCHED_NONE;
	while (b->cur < b->end && !map_pending(j, ix->maps[b->cur]))
		b->cur++;
	return b->cur < b->end ? ix->maps[b->cur] : SCHED_NONE;
}

bool sw_sched_job_map_at(const struct sw_sched *s, struct sched_job *j, uint32_t node,
                         enum sw_locality max_level, struct sched_choice *c)
{
	uint32_t rack = s->nodes[node].rack, m;

	*c = (struct sched_choice){.job = j, .locality = SW_LOCALITY_NODE, .src_node = node};
	c->task = next_pending(j, &j->by_node, node);
	if (c->task != SCHED_NONE)
		return true;
	if (max_level < SW_LOCALITY_RACK)
		return false;
	m = next_pending(j, &j->by_rack, rack);
	if (m != SCHED_NONE) {
		const struct sched_map *map = &j->maps[m];
		int r = 0;

		while (s->nodes[map->replicas[r]].rack != rack)
			r++;
		*c = (struct sched_choice){j, m, SW_LOCALITY_RACK, map->replicas[r]};
		return true;
	}
	if (max_level < SW_LOCALITY_REMOTE)
		return false;
	/* No pending map has a replica in this rack, so whichever is next reads remotely. */
	while (j->any_cursor < j->n_tasks[SW_MAP] && !map_pending(j, j->any_cursor))
		j->any_cursor++;
	if (j->any_cursor == j->n_tasks[SW_MAP])
		return false;
	m = j->any_cursor;
	*c = (struct sched_choice){j, m, SW_LOCALITY_REMOTE, j->maps[m].replicas[0]};
	return true;
}

bool sw_sched_job_reduce_next(struct sched_job *j, struct sched_choice *c)
{
	while (j->next_reduce < j->n_tasks[SW_REDUCE] &&
	       j->tasks[SW_REDUCE][j->next_reduce].state != TASK_PENDING)
		j->next_reduce++;
	if (j->next_reduce == j->n_tasks[SW_REDUCE])
		return false;
	*c = (struct sched_choice){j, j->next_reduce, SW_LOCALITY_NONE, SW_NO_NODE};
	return true;
}

const struct sw_resources *sw_sched_task_demand(const struct sched_job *j, enum sw_task_kind kind)
{
	if (kind == SW_REDUCE && j->done[SW_MAP] < j->n_tasks[SW_MAP])
		return &j->shuffle_demand;
	return &j->demand[kind];
}

bool sw_sched_job_fits(const struct sched_job *j, enum sw_task_kind kind,
                       const struct sched_node *n)
{
	const struct sw_resources *d = sw_sched_task_demand(j, kind);
	struct sw_resources held = n->used;

	/* A job the plan put here (keep.c) may take any free room; any other job only the room
	 * and slots no target of the plan keeps. */
	if (n->kept_tasks[SW_MAP] + n->kept_tasks[SW_REDUCE] > 0 &&
	    !sw_sched_keep_own(n, j, kind)) {
		if (n->running[kind] + n->kept_tasks[kind] >= n->slots[kind])
			return false;
		sw_sched_resources_add(&held, &n->kept, 1);
	}
	return held.cpu + d->cpu <= n->capacity.cpu + FIT_EPS &&
	       held.mem_gb + d->mem_gb <= n->capacity.mem_gb + FIT_EPS &&
	       held.io + d->io <= n->capacity.io + FIT_EPS;
}

void sw_sched_job_rewind(const struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                         uint32_t task)
{
	const struct sched_map *m = &j->maps[task];

	if (kind == SW_REDUCE) {
		if (task < j->next_reduce)
			j->next_reduce = task;
		return;
	}
	for (int r = 0; r < m->n_replicas; r++) {
		sw_sched_loc_index_rewind(&j->by_node, m->replicas[r], task);
		sw_sched_loc_index_rewind(&j->by_rack, s->nodes[m->replicas[r]].rack, task);
	}
	if (task < j->any_cursor)
		j->any_cursor = task;
}
