/* SPDX-License-Identifier: MIT */
/*
 * A live run's bytes per job, from the controller's scheduler-call trace: where each map's
 * output was (map_output: node, bytes; a re-run's replaces the first), where each reduce ran
 * (its last assignment in a heartbeat), and so which partitions crossed a rack uplink. The
 * agents' counters cannot tell jobs apart; this attribution, summed over the jobs, is checked
 * against them in the run's table. The synthetic runner reads no map input over the network,
 * so live runs move no map-input bytes. The calls are also replayed into a scheduler, whose
 * count of each job's lost attempts, re-run maps and failed attempts are the run's failures
 * (the trace goes on across a controller restart).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "replay_live.h"
#include "sw_ctl_trace.h"

struct tjob {
	size_t k;               /* index of the job in the run */
	uint32_t maps, reduces; /* from job_add */
	int32_t *map_node, *reduce_node;
	uint64_t *map_bytes;
	uint8_t *map_locality;
};

static struct tjob *find(struct tjob *t, size_t n, const uint64_t *ids, uint64_t id)
{
	for (size_t k = 0; k < n; k++)
		if (ids[k] == id)
			return &t[k];
	return NULL;
}

static void add_job(struct tjob *j, json_t *line)
{
	j->maps = (uint32_t)json_array_size(json_object_get(line, "maps"));
	j->reduces = (uint32_t)json_integer_value(json_object_get(line, "n_reduces"));
	j->map_node = malloc((j->maps + 1) * sizeof(int32_t));
	j->map_bytes = calloc(j->maps + 1, sizeof(uint64_t));
	j->map_locality = calloc(j->maps + 1, 1);
	j->reduce_node = malloc((j->reduces + 1) * sizeof(int32_t));
	for (uint32_t i = 0; j->map_node && i < j->maps; i++)
		j->map_node[i] = -1;
	for (uint32_t i = 0; j->reduce_node && i < j->reduces; i++)
		j->reduce_node[i] = -1;
}

/* A heartbeat's assignments: [job, kind, task, locality, src_node] each, to its node. */
static void assigned(struct tjob *t, size_t n, const uint64_t *ids, json_t *line)
{
	int32_t node = (int32_t)json_integer_value(json_object_get(line, "node"));
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(line, "out"), i, a)
	{
		struct tjob *j =
		        find(t, n, ids, (uint64_t)json_integer_value(json_array_get(a, 0)));
		int kind = (int)json_integer_value(json_array_get(a, 1));
		uint32_t task = (uint32_t)json_integer_value(json_array_get(a, 2));
		if (j == NULL || !j->map_node || !j->reduce_node || !j->map_locality)
			continue;
		if (kind == SW_MAP && task < j->maps)
			j->map_locality[task] = (uint8_t)json_integer_value(json_array_get(a, 3));
		else if (kind == SW_REDUCE && task < j->reduces)
			j->reduce_node[task] = node;
	}
}

static void map_output(struct tjob *t, size_t n, const uint64_t *ids, json_t *line)
{
	struct tjob *j =
	        find(t, n, ids, (uint64_t)json_integer_value(json_object_get(line, "job")));
	uint32_t m = (uint32_t)json_integer_value(json_object_get(line, "map"));
	if (j && j->map_node && j->map_bytes && m < j->maps) {
		j->map_node[m] = (int32_t)json_integer_value(json_object_get(line, "node"));
		j->map_bytes[m] = (uint64_t)json_integer_value(json_object_get(line, "bytes"));
	}
}

/* Fills rec's bytes, xrack and maps_at from job @p j's placements. */
static void attribute(const struct tjob *j, const int32_t *rack, int32_t n_nodes,
                      uint64_t output_per_reduce, struct sw_job_record *rec)
{
	for (uint32_t m = 0; m < j->maps; m++) {
		if (j->map_locality[m] < 3)
			rec->maps_at[j->map_locality[m]]++;
		/* The synthetic map splits its output evenly, the first bytes % reduces get one
		 * more (agent/README.md). */
		for (uint32_t r = 0; r < j->reduces; r++) {
			uint64_t part =
			        j->map_bytes[m] / j->reduces + (r < j->map_bytes[m] % j->reduces);
			rec->bytes[SW_TRAFFIC_SHUFFLE] += part;
			if (j->map_node[m] >= 0 && j->reduce_node[r] >= 0 &&
			    rack[j->map_node[m]] != rack[j->reduce_node[r]])
				rec->xrack[SW_TRAFFIC_SHUFFLE] += part;
		}
	}
	/* One output replica, on the next node in the controller's config order. */
	for (uint32_t r = 0; r < j->reduces; r++) {
		int32_t node = j->reduce_node[r];
		rec->bytes[SW_TRAFFIC_OUTPUT] += output_per_reduce;
		if (node >= 0 && rack[node] != rack[(node + 1) % n_nodes])
			rec->xrack[SW_TRAFFIC_OUTPUT] += output_per_reduce;
	}
}

/* The scheduler's count of job @p id's failures into @p rec (nothing if it is not live). */
static void failures(const struct sw_sched *s, uint64_t id, struct sw_job_record *rec)
{
	struct sw_job_status st;
	if (s == NULL || sw_sched_job_status(s, id, &st))
		return;
	rec->lost_attempts = st.lost[SW_MAP] + st.lost[SW_REDUCE];
	rec->maps_rerun = st.lost_outputs;
	rec->failed_attempts = st.failed[SW_MAP] + st.failed[SW_REDUCE];
}

/* Replays @p line into @p cr, then takes the failures of the job it names (of every job after
 * a node_lost): a job's last count stays once the scheduler forgets it. Says once why a line
 * does not replay, then replays no more (the failures stay as they were). */
static void replay(struct sw_ctl_rec *cr, int *broken, const char *path, const char *line,
                   size_t len, json_t *o, const uint64_t *ids, size_t n, struct sw_job_record *rec)
{
	char err[256];
	if (*broken)
		return;
	if (sw_ctl_rec_replay(cr, line, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "swctl replay: %s: %s; failures not counted from there on\n", path,
		        err);
		*broken = 1;
		return;
	}
	const char *call = json_string_value(json_object_get(o, "call"));
	json_t *job = json_object_get(o, "job");
	int all = call && !strcmp(call, "node_lost");
	for (size_t k = 0; k < n; k++)
		if (all || (job && ids[k] == (uint64_t)json_integer_value(job)))
			failures(cr->sched, ids[k], &rec[k]);
}

int replay_live_trace(const char *path, const uint64_t *ids, size_t n, const uint64_t *out_bytes,
                      struct sw_job_record *rec)
{
	FILE *f = fopen(path, "re");
	if (f == NULL) {
		fprintf(stderr, "swctl replay: %s: %m\n", path);
		return -1;
	}
	struct tjob *t = calloc(n ? n : 1, sizeof(*t));
	int32_t *rack = NULL, n_nodes = 0;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	struct sw_ctl_rec cr = {0};
	int broken = 0;
	while (t && (len = getline(&line, &cap, f)) > 0) {
		json_t *o = json_loads(line, 0, NULL), *v;
		replay(&cr, &broken, path, line, (size_t)len, o, ids, n, rec);
		const char *call = json_string_value(json_object_get(o, "call"));
		size_t i;
		if (call == NULL) {
		} else if (!strcmp(call, "create")) {
			json_t *nodes = json_object_get(o, "nodes");
			n_nodes = (int32_t)json_array_size(nodes);
			free(rack);
			rack = calloc(n_nodes ? n_nodes : 1, sizeof(int32_t));
			json_array_foreach(nodes, i, v) if (rack) rack[i] =
			        (int32_t)json_integer_value(json_array_get(v, 0));
		} else if (!strcmp(call, "job_add")) {
			uint64_t id = (uint64_t)json_integer_value(json_object_get(o, "id"));
			struct tjob *j = find(t, n, ids, id);
			if (j && j->maps == 0)
				add_job(j, o);
		} else if (!strcmp(call, "heartbeat")) {
			assigned(t, n, ids, o);
		} else if (!strcmp(call, "map_output")) {
			map_output(t, n, ids, o);
		}
		json_decref(o);
	}
	free(line);
	fclose(f);
	sw_ctl_rec_fini(&cr);
	for (size_t k = 0; t && rack && k < n; k++) {
		if (t[k].map_node && t[k].map_bytes && t[k].reduce_node && t[k].map_locality)
			attribute(&t[k], rack, n_nodes, out_bytes[k], &rec[k]);
		free(t[k].map_node);
		free(t[k].map_bytes);
		free(t[k].map_locality);
		free(t[k].reduce_node);
	}
	int rc = t && rack ? 0 : -1;
	if (rc)
		fprintf(stderr, "swctl replay: %s: no cluster in the trace, or out of memory\n",
		        path);
	free(t);
	free(rack);
	return rc;
}
