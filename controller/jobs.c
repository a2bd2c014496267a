/* SPDX-License-Identifier: MIT */
/*
 * The job table: submissions (their spec is job_spec.c's), tasks' attempts and nodes, map
 * outputs' partition checksums; the Task messages agents get for a job, and the messages that
 * follow its maps and its end.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/rand.h>

#include "ctl.h"

void sw_ctl_task_state(struct ctl *c, struct ctl_task *t, enum ctl_task_state st)
{
	if (t->state == TASK_RUNNING)
		c->nodes[t->node].running--;
	if (st == TASK_RUNNING)
		c->nodes[t->node].running++;
	t->state = (uint8_t)st;
}

struct ctl_job *sw_ctl_job(struct ctl *c, uint64_t id)
{
	return id >= 1 && id <= c->n_jobs ? c->jobs[id - 1] : NULL;
}

/* The job's class by its shuffle volume over its input (ShuffleWatcher Table 1). */
static enum sw_job_class job_class(const struct ctl_job *j)
{
	double ratio = j->input_bytes ? (double)j->map_output_bytes / (double)j->input_bytes : 1;
	return ratio >= 1.0 ? SW_CLASS_HEAVY : ratio >= 0.2 ? SW_CLASS_MEDIUM : SW_CLASS_LIGHT;
}

int sw_ctl_job_submit(struct ctl *c, const char *json, size_t len, uint64_t *id, char *err,
                      size_t errlen)
{
	size_t live = sw_sched_jobs_live(c->rec.sched);
	if (live >= CTL_MAX_LIVE_JOBS) {
		snprintf(err, errlen, "%zu jobs are running, the most this controller takes", live);
		return -EBUSY;
	}
	char *spec = strndup(json, len);
	if (spec == NULL)
		return -ENOMEM;
	struct ctl_job *j;
	int rc = sw_ctl_job_from_json(c->conf.users, spec, &j, err, errlen);
	free(spec);
	if (rc < 0)
		return rc;
	if (c->n_jobs == c->cap_jobs) {
		size_t cap = c->cap_jobs ? 2 * c->cap_jobs : 64;
		struct ctl_job **t = realloc(c->jobs, cap * sizeof(*t));
		if (t == NULL) {
			sw_ctl_job_free(j);
			return -ENOMEM;
		}
		c->jobs = t;
		c->cap_jobs = cap;
	}
	j->id = c->n_jobs + 1;
	j->submitted = c->now;
	if (RAND_bytes(j->secret, sizeof(j->secret)) != 1) {
		sw_ctl_job_free(j);
		return -EIO;
	}
	struct sw_map_spec *maps = calloc(j->n_maps, sizeof(*maps));
	if (maps == NULL) {
		sw_ctl_job_free(j);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < j->n_maps; i++) {
		maps[i].input_bytes = j->input_bytes;
		maps[i].output_bytes = j->map_output_bytes;
		/* no HDFS here: the rule the simulator's --map-input live shares */
		sw_sched_place_input(&c->cluster, j->id, i, &maps[i]);
	}
	struct sw_job_spec s = {.id = j->id,
	                        .user = j->user,
	                        .cls = job_class(j),
	                        .arrival = c->now,
	                        .n_maps = j->n_maps,
	                        .maps = maps,
	                        .n_reduces = j->n_reduces,
	                        .deadline = j->deadline_s > 0 ? c->now + j->deadline_s : 0};
	rc = sw_ctl_rec_job_add(&c->rec, &s, c->now);
	free(maps);
	if (rc == -ETIME)
		snprintf(err, errlen,
		         "deadline_s: %g s cannot be met even with every slot of the cluster "
		         "(policy %s)",
		         j->deadline_s, c->conf.policy);
	else if (rc < 0)
		snprintf(err, errlen, "the scheduler refused the job (%s)", strerror(-rc));
	if (rc < 0) {
		sw_ctl_job_free(j);
		return rc;
	}
	c->jobs[c->n_jobs++] = j;
	c->jobs_submitted++;
	sw_ctl_store_job(c, j);
	*id = j->id;
	sw_ctl_log(c, "job %llu (%s) submitted: %u maps, %u reduces, user %u",
	           (unsigned long long)j->id, j->name, j->n_maps, j->n_reduces, j->user);
	return 0;
}

/* A reduce's view of map m's output: its server and this reduce's partition. */
static SwWire__MapLocation *location(struct ctl *c, const struct ctl_job *j, uint32_t m,
                                     uint32_t reduce)
{
	SwWire__MapLocation *l = malloc(sizeof(*l));
	if (l == NULL)
		return NULL;
	sw_wire__map_location__init(l);
	const struct ctl_task *t = &j->tasks[SW_MAP][m];
	const struct ctl_part *p = &j->parts[(size_t)m * j->n_reduces + reduce];
	l->map = m;
	l->attempt = t->attempt;
	l->server = c->nodes[t->node].shuffle_addr;
	l->bytes = p->bytes;
	l->crc32c = p->crc32c;
	l->rack = c->conf.nodes[t->node].rack;
	return l;
}

int sw_ctl_task_msg(struct ctl *c, struct ctl_job *j, enum sw_task_kind kind, uint32_t task,
                    SwWire__Task *t)
{
	const struct ctl_task *ct = &j->tasks[kind][task];
	SwWire__TaskRef *ref = malloc(sizeof(*ref));
	sw_wire__task__init(t);
	if (ref == NULL)
		return -ENOMEM;
	sw_wire__task_ref__init(ref);
	ref->job = j->id;
	ref->kind = kind == SW_MAP ? SW_WIRE__TASK_KIND__MAP : SW_WIRE__TASK_KIND__REDUCE;
	ref->task = task;
	ref->attempt = ct->attempt;
	t->ref = ref;
	t->shuffle_secret.data = j->secret;
	t->shuffle_secret.len = sizeof(j->secret);
	t->job_maps = j->n_maps;
	t->job_reduces = j->n_reduces;
	if (j->argv[kind] != NULL) {
		SwWire__Exec *e = malloc(sizeof(*e));
		if (e == NULL)
			return -ENOMEM;
		sw_wire__exec__init(e);
		for (char **p = j->argv[kind]; *p; p++)
			e->n_argv++;
		e->argv = j->argv[kind];
		t->runner_case = SW_WIRE__TASK__RUNNER_EXEC;
		t->exec = e;
	} else {
		SwWire__Synthetic *s = malloc(sizeof(*s));
		if (s == NULL)
			return -ENOMEM;
		sw_wire__synthetic__init(s);
		t->runner_case = SW_WIRE__TASK__RUNNER_SYNTHETIC;
		t->synthetic = s;
		s->compute_bytes_per_s = kind == SW_MAP ? j->compute_bps : j->reduce_compute_bps;
		s->input_bytes = kind == SW_MAP ? j->input_bytes : 0;
		s->output_bytes = kind == SW_MAP ? j->map_output_bytes : j->reduce_output_bytes;
		if (kind == SW_REDUCE && j->output_replicas > 0) {
			/* The next nodes up after this one, in config order. */
			s->replica_addrs = calloc(j->output_replicas, sizeof(char *));
			if (s->replica_addrs == NULL)
				return -ENOMEM;
			for (uint32_t k = 1;
			     k < c->conf.n_nodes && s->n_replica_addrs < j->output_replicas; k++) {
				const struct ctl_node *n =
				        &c->nodes[(ct->node + k) % c->conf.n_nodes];
				if (n->state == NODE_UP && n->conn != NULL)
					s->replica_addrs[s->n_replica_addrs++] =
					        (char *)n->replica_addr;
			}
		}
	}
	if (kind == SW_REDUCE) {
		t->maps = calloc(j->n_maps, sizeof(*t->maps));
		if (t->maps == NULL)
			return -ENOMEM;
		for (uint32_t m = 0; m < j->n_maps; m++)
			if (j->tasks[SW_MAP][m].state == TASK_DONE) {
				if ((t->maps[t->n_maps] = location(c, j, m, task)) == NULL)
					return -ENOMEM;
				t->n_maps++;
			}
	}
	return 0;
}

void sw_ctl_task_msg_free(SwWire__Task *t)
{
	free(t->ref);
	if (t->runner_case == SW_WIRE__TASK__RUNNER_EXEC)
		free(t->exec);
	if (t->runner_case == SW_WIRE__TASK__RUNNER_SYNTHETIC && t->synthetic) {
		free(t->synthetic->replica_addrs);
		free(t->synthetic);
	}
	for (size_t i = 0; i < t->n_maps; i++)
		free(t->maps[i]);
	free(t->maps);
}

void sw_ctl_job_outputs(struct ctl *c, struct ctl_job *j, uint32_t reduce, int64_t map)
{
	const struct ctl_task *t = &j->tasks[SW_REDUCE][reduce];
	struct ctl_node *n = &c->nodes[t->node];
	if (t->state != TASK_RUNNING || n->conn == NULL)
		return;
	SwWire__MapOutputs mo = SW_WIRE__MAP_OUTPUTS__INIT;
	SwWire__TaskRef ref = SW_WIRE__TASK_REF__INIT;
	SwWire__MapLocation **locs = calloc(j->n_maps, sizeof(*locs));
	for (uint32_t m = 0; locs && m < j->n_maps; m++) {
		if ((map >= 0 && m != (uint64_t)map) || j->tasks[SW_MAP][m].state != TASK_DONE)
			continue;
		if ((locs[mo.n_maps] = location(c, j, m, reduce)) != NULL)
			mo.n_maps++;
	}
	ref.job = j->id;
	ref.kind = SW_WIRE__TASK_KIND__REDUCE;
	ref.task = reduce;
	ref.attempt = t->attempt;
	mo.reduce = &ref;
	mo.maps = locs;
	if (mo.n_maps > 0)
		sw_ctl_send(c, n->conn, SW_WIRE_MAP_OUTPUTS, &mo.base);
	for (size_t i = 0; i < mo.n_maps; i++)
		free(locs[i]);
	free(locs);
}

void sw_ctl_job_map_done(struct ctl *c, struct ctl_job *j, uint32_t map)
{
	for (uint32_t r = 0; r < j->n_reduces; r++)
		sw_ctl_job_outputs(c, j, r, map);
}

/* Whether the sorted (wire.c checks it) Auth.held lists all of map's partitions. */
static bool output_held(const SwWire__Auth *a, const struct ctl_job *j, uint32_t map)
{
	size_t lo = 0, hi = a->n_held;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const SwWire__HeldOutput *h = a->held[mid];
		if (h->job == j->id && h->map == map)
			return h->partitions == j->n_reduces;
		if (h->job < j->id || (h->job == j->id && h->map < map))
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

struct ctl_outputs sw_ctl_jobs_node_lost(struct ctl *c, uint32_t node,
                                         const SwWire__Auth *restarted)
{
	struct ctl_outputs o = {0, 0};
	for (size_t i = 0; i < c->n_jobs; i++) {
		struct ctl_job *j = c->jobs[i];
		if (j->state != JOB_RUNNING)
			continue;
		for (int k = 0; k < SW_KINDS; k++) {
			uint32_t n = k == SW_MAP ? j->n_maps : j->n_reduces;
			for (uint32_t t = 0; t < n; t++) {
				struct ctl_task *ct = &j->tasks[k][t];
				bool output_lost = k == SW_MAP && ct->state == TASK_DONE &&
				                   j->done[SW_REDUCE] < j->n_reduces;
				if (ct->node != node || !(ct->state == TASK_RUNNING || output_lost))
					continue;
				if (ct->state == TASK_DONE) {
					if (restarted && output_held(restarted, j, t)) {
						o.kept++;
						continue;
					}
					if (restarted)
						sw_ctl_rec_map_output_lost(&c->rec, j->id, t,
						                           c->now);
					j->done[k]--;
					o.lost++;
				}
				sw_ctl_task_state(c, ct, TASK_PENDING);
				sw_ctl_store_task(c, j, (enum sw_task_kind)k, t);
			}
		}
	}
	return o;
}

void sw_ctl_job_kill_tasks(struct ctl *c, struct ctl_job *j, const char *why)
{
	for (int k = 0; k < SW_KINDS; k++) {
		uint32_t n = k == SW_MAP ? j->n_maps : j->n_reduces;
		for (uint32_t t = 0; t < n; t++) {
			struct ctl_task *ct = &j->tasks[k][t];
			struct ctl_conn *conn = c->nodes[ct->node].conn;
			if (ct->state != TASK_RUNNING)
				continue;
			sw_ctl_task_state(c, ct, TASK_PENDING);
			sw_ctl_store_task(c, j, (enum sw_task_kind)k, t);
			if (conn == NULL)
				continue;
			SwWire__TaskRef ref = SW_WIRE__TASK_REF__INIT;
			SwWire__KillTask kill = SW_WIRE__KILL_TASK__INIT;
			ref.job = j->id;
			ref.kind =
			        k == SW_MAP ? SW_WIRE__TASK_KIND__MAP : SW_WIRE__TASK_KIND__REDUCE;
			ref.task = t;
			ref.attempt = ct->attempt;
			kill.task = &ref;
			kill.reason = (char *)why;
			sw_ctl_send(c, conn, SW_WIRE_KILL_TASK, &kill.base);
		}
	}
}

void sw_ctl_job_end(struct ctl *c, struct ctl_job *j, enum ctl_job_state st, const char *why)
{
	j->state = st;
	j->finished = c->now;
	snprintf(j->error, sizeof(j->error), "%s", why ? why : "");
	sw_ctl_store_job(c, j);
	SwWire__JobDone done = SW_WIRE__JOB_DONE__INIT;
	done.job = j->id;
	for (uint32_t i = 0; i < c->conf.n_nodes; i++)
		if (c->nodes[i].conn != NULL && c->nodes[i].conn->state == CONN_UP)
			sw_ctl_send(c, c->nodes[i].conn, SW_WIRE_JOB_DONE, &done.base);
	sw_ctl_log(c, "job %llu (%s) %s%s%s after %.1f s", (unsigned long long)j->id, j->name,
	           st == JOB_DONE ? "done" : "failed", why ? ": " : "", why ? why : "",
	           j->finished - j->submitted);
}
