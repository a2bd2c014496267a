/* SPDX-License-Identifier: MIT */
/*
 * Task phases of the simulated cluster: a map reads its split (a flow when the replica is on
 * another node), computes and registers its output; a reduce fetches its partition of every
 * map output (at most parallel_copies flows at once, one per source node, each carrying all
 * that node's pending partitions; under the rack network model one per other rack instead of
 * per node there), computes, and writes its output to three replicas. The maps of a map-only
 * job (no reducer) write the output themselves.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"

static const char *const kind_name[SW_KINDS] = {"map", "reduce"};

static uint64_t job_id(const struct sim_task *t)
{
	return t->job->desc->id;
}

static int sched_fail(struct sim *s, int rc, const char *call, const struct sim_task *t)
{
	return sw_sim_fail(s, rc, "job %llu: %s for %s %u at t=%.3f s failed: %s",
	                   (unsigned long long)job_id(t), call, kind_name[t->kind], t->idx, s->now,
	                   strerror(-rc));
}

static uint32_t rack_of(const struct sim *s, uint32_t node)
{
	return s->nodes[node].rack;
}

/* Counts @p bytes of traffic @p kind moved from @p src to @p dst for the job's record. */
static void account(struct sim *s, struct sim_job *j, enum sw_traffic kind, uint32_t src,
                    uint32_t dst, uint64_t bytes)
{
	j->rec->bytes[kind] += bytes;
	if (rack_of(s, src) != rack_of(s, dst))
		j->rec->xrack[kind] += bytes;
}

/* Starts transfer @p x of @p bytes from @p src to @p dst; with @p from_rack, from @p src's whole
 * rack (a flow from its uplink: the rack network model's fetches). */
static int xfer_start(struct sim *s, struct sim_xfer *x, uint32_t src, uint32_t dst, uint64_t bytes,
                      int from_rack)
{
	int rc = from_rack ? sw_sim_net_flow_start_rack(s->net, rack_of(s, src), dst, bytes, s->now,
	                                                x, &x->flow)
	                   : sw_sim_net_flow_start(s->net, src, dst, bytes, s->now, x, &x->flow);

	if (rc)
		return sw_sim_fail(s, rc, "job %llu: cannot start a flow of %llu bytes at t=%.3f s",
		                   (unsigned long long)job_id(x->task), (unsigned long long)bytes,
		                   s->now);
	x->src = src;
	x->dst = dst;
	return 0;
}

/* Share @p r of @p total split over @p n parts; the first total % n parts get one byte more,
 * so the parts sum to total exactly. */
static uint64_t share(uint64_t total, uint32_t r, uint32_t n)
{
	return total / n + (r < total % n);
}

/* ---- jobs ---- */

static void shuffle_free(struct sim_task *t)
{
	if (!t->shf)
		return;
	free(t->shf->queue);
	free(t->shf);
	t->shf = NULL;
}

void sw_sim_job_free(struct sim_job *j)
{
	uint32_t i;

	if (!j)
		return;
	for (i = 0; i < j->n_reduces; i++)
		shuffle_free(&j->tasks[j->n_maps + i]);
	free(j->maps);
	free(j->tasks);
	free(j->outputs);
	free(j->running);
	free(j->fetch);
	free(j->map_rack);
	free(j);
}

/* Keeps SAMP's rack choice, if the policy made one, to count where the maps really ran. */
static int note_map_racks(struct sim *s, struct sim_job *j)
{
	uint32_t nr = s->cluster.n_racks;
	struct sw_job_shuffle st;
	int rc;

	j->map_rack = malloc(nr);
	if (!j->map_rack)
		return -ENOMEM;
	rc = sw_sched_job_shuffle(s->sched, j->idx, &st, j->map_rack, NULL, nr);
	if (rc == -EOPNOTSUPP || (rc == 0 && !st.n_map_racks)) {
		free(j->map_rack);
		j->map_rack = NULL;
		return 0;
	}
	j->rec->map_racks = st.n_map_racks;
	return rc;
}

/*
 * History of ShuffleInputRatio per program, one store entry per benchmark under user 0: the
 * simulated users all run the same programs (Table 1) on their own inputs, and a program's
 * ratio is a property of its map function. A run that failed or never ran tells nothing; a
 * job without input (a generator) has no ratio.
 */
static void history_put(struct sim *s, const struct sim_job *j)
{
	struct sw_job_profile p = {0};

	if (!s->history || j->rec->failed || j->rec->refused || !j->desc->input_bytes)
		return;
	p.shuffle_input_ratio = (double)j->desc->shuffle_bytes / (double)j->desc->input_bytes;
	/* At most one entry per benchmark, and the store holds that many: it cannot fail. */
	sw_sched_profile_db_put(s->history, 0, j->bench->name, &p);
}

static void history_get(const struct sim *s, const struct sim_job *j, struct sw_job_profile *p)
{
	struct sw_job_profile h;

	if (s->history && sw_sched_profile_db_get(s->history, 0, j->bench->name, &h) == 0)
		p->shuffle_input_ratio = h.shuffle_input_ratio;
}

int sw_sim_job_end(struct sim *s, struct sim_job *j)
{
	int rc = 0;

	history_put(s, j);
	sw_sim_gate_ended(s, j);
	j->rec->finish = s->now;
	sw_sim_predict_job_end(s, j);
	/* On failure the job stays live: the run ends and its teardown frees it. */
	if (s->c->timeline && !j->rec->failed && !j->rec->refused && sw_sim_timeline_add(s, j) < 0)
		return sw_sim_fail(s, -ENOMEM, "job %llu: out of memory for the task timeline",
		                   (unsigned long long)j->desc->id);
	s->live[j->idx] = NULL;
	if (j->desc->workflow)
		rc = sw_sim_workflow_job_end(s, j->desc);
	s->jobs_done++;
	sw_sim_job_free(j);
	return rc ? sw_sim_fail(s, rc, "out of memory submitting a workflow's jobs") : 0;
}

int sw_sim_job_arrive(struct sim *s, size_t idx)
{
	const struct sw_job_desc *d = &s->w->jobs[idx];
	struct sw_job_profile profile;
	struct sw_job_spec spec;
	struct sim_job *j = calloc(1, sizeof(*j));
	unsigned n_bench;
	uint32_t i;
	int rc;

	if (!j)
		return sw_sim_fail(s, -ENOMEM, "job %llu: out of memory at arrival",
		                   (unsigned long long)d->id);
	j->idx = (uint32_t)idx;
	j->desc = d;
	j->bench = &sw_sim_bench_table(&n_bench)[d->bench];
	j->rec = &s->r->jobs[idx];
	j->n_maps = sw_sim_workload_n_maps(s->w, d);
	j->n_reduces = d->n_reduces;
	j->maps = calloc(j->n_maps, sizeof(*j->maps));
	j->tasks = calloc((size_t)j->n_maps + j->n_reduces, sizeof(*j->tasks));
	j->outputs = calloc(j->n_maps, sizeof(*j->outputs));
	j->running = calloc(j->n_reduces ? j->n_reduces : 1, sizeof(*j->running));
	if (!j->maps || !j->tasks || !j->outputs || !j->running) {
		sw_sim_job_free(j);
		return sw_sim_fail(s, -ENOMEM, "job %llu: out of memory at arrival",
		                   (unsigned long long)d->id);
	}
	for (i = 0; i < j->n_maps + j->n_reduces; i++) {
		struct sim_task *t = &j->tasks[i];

		t->job = j;
		t->kind = i < j->n_maps ? SW_MAP : SW_REDUCE;
		t->idx = i < j->n_maps ? i : i - j->n_maps;
		t->io[0] = t->io[1] = (struct sim_xfer){.task = t, .flow = SIM_FLOW_NONE};
		t->ev = SIM_HEAP_NONE;
	}
	sw_sim_workload_expand(s->w, d, j->maps, &spec);
	spec.shuffle_demand = sw_sim_shuffle_demand(s, j->bench);
	if (s->c->slots_only)
		spec.map_demand = spec.reduce_demand = spec.shuffle_demand =
		        (struct sw_resources){0};
	/* the live controller's placement; its job ids count from 1 */
	for (i = 0; s->c->map_input_live && i < j->n_maps; i++)
		sw_sched_place_input(&s->cluster, (uint64_t)idx + 1, i, &j->maps[i]);
	sw_sim_workload_profile(s->w, d, &profile);
	history_get(s, j, &profile);
	spec.id = idx;
	spec.profile = &profile;
	/* Submitted now, later than its arrival under a load threshold: the deadline follows. */
	spec.arrival = s->now;
	if (d->deadline > 0)
		spec.deadline = d->deadline + (s->now - d->arrival);
	*j->rec = (struct sw_job_record){
	        .id = d->id,
	        .user = d->user,
	        .cls = j->bench->cls,
	        .bench = d->bench,
	        .arrival = d->arrival,
	        .submitted = s->now,
	        .deadline = spec.deadline,
	        .n_maps = j->n_maps,
	        .n_reduces = j->n_reduces,
	};
	if (d->workflow) {
		rc = sw_sim_workflow_submit(s, d, j->rec);
		if (rc) {
			sw_sim_job_free(j);
			return rc;
		}
		spec.deadline = j->rec->deadline; /* the workflow's, which does not move */
	}
	rc = sw_sched_job_add(s->sched, &spec, s->now);
	if (rc == -ETIME) {
		/* A deadline policy refused it: the job ends at its arrival, having run nothing. */
		j->rec->refused = 1;
		return sw_sim_job_end(s, j);
	}
	if (rc < 0) {
		sw_sim_job_free(j);
		return sw_sim_fail(s, rc, "job %llu: sw_sched_job_add at t=%.3f s failed: %s",
		                   (unsigned long long)d->id, s->now, strerror(-rc));
	}
	s->live[idx] = j;
	rc = note_map_racks(s, j);
	return rc < 0 ? sw_sim_fail(s, rc, "job %llu: sw_sched_job_shuffle: %s",
	                            (unsigned long long)d->id, strerror(-rc))
	              : 0;
}

/* The task has finished at s->now: tell the scheduler, free its slot. */
static int task_end(struct sim *s, struct sim_task *t)
{
	int rc = sw_sched_task_finished(s->sched, t->job->idx, t->kind, t->idx, s->now);

	if (rc < 0)
		return sched_fail(s, rc, "sw_sched_task_finished", t);
	t->phase = SIM_DONE;
	t->end = s->now;
	s->running--;
	s->running_kind[t->kind]--;
	s->last_progress = s->now;
	sw_sim_slot_freed(s, t->node, t->kind);
	return 0;
}

/* A failing attempt fails halfway through its compute: where a uniform failure time falls
 * on average. A straggler computes straggler_slowdown times longer, on top of its task's own
 * length (the workload's spread); an accelerable job's map computes its speedup times faster
 * on an accelerated node. */
static int compute(struct sim *s, struct sim_task *t, uint64_t bytes, double rate)
{
	double d = (double)bytes / rate * sw_sim_workload_compute_scale(s->w) *
	           sw_sim_task_factor(s->w, t->job->desc, t->kind, t->idx) *
	           sw_sim_attempt_slowdown(s, t);

	if (t->kind == SW_MAP && s->cluster.nodes[t->node].pool && t->job->desc->speedup > 1)
		d /= t->job->desc->speedup;

	t->phase = SIM_COMPUTE;
	t->failing = (uint8_t)sw_sim_attempt_fails(s, t);
	return sw_sim_compute_start(s, t, t->failing ? d / 2 : d);
}

/* ---- reduce: shuffle ---- */

/* Reducer @p t's row of source @p node in its job's fetch matrix (sim.fetch_rows): the
 * node's under the flow model; under the rack model another rack's (what it fetches from
 * there in one flow), or for a node of its own rack, its place there after the racks. */
static uint32_t src_row(const struct sim *s, const struct sim_task *t, uint32_t node)
{
	if (s->c->net_model != SW_SIM_NET_RACK)
		return node;
	if (rack_of(s, node) != rack_of(s, t->node))
		return rack_of(s, node);
	return s->cluster.n_racks + s->rack_pos[node];
}

/* What reducer @p t still has to fetch from source @p node (see fetch_source). */
static struct sim_src *src_of(const struct sim *s, const struct sim_task *t, uint32_t node)
{
	return &t->job->fetch[(size_t)src_row(s, t, node) * t->job->n_reduces + t->idx];
}

/* Whether reducer @p t fetches from source @p node's whole rack in one flow: under the rack
 * network model, for every rack but its own. */
static int fetch_by_rack(const struct sim *s, const struct sim_task *t, uint32_t node)
{
	return s->c->net_model == SW_SIM_NET_RACK && rack_of(s, node) != rack_of(s, t->node);
}

/* The source reducer @p t fetches node @p node's partitions from: the node itself, or when it
 * fetches by rack, the rack's first node, which then stands for the whole rack in the fetch
 * matrix and the queue. */
static uint32_t fetch_source(const struct sim *s, const struct sim_task *t, uint32_t node)
{
	return fetch_by_rack(s, t, node) ? s->rack_nodes[s->rack_first[rack_of(s, node)]] : node;
}

/* Whether reducer @p t fetches what source @p src holds for it now: always from a node; from
 * another rack once that is at least rack_fetch_min bytes, or once its job's maps are all
 * done. Otherwise a million-map job's reducers open a flow of a kilobyte at every output a
 * rack registers while they wait (README, "Network model"). */
static int fetch_ready(const struct sim *s, const struct sim_task *t, uint32_t src,
                       const struct sim_src *sp)
{
	return sp->pending >= s->c->rack_fetch_min || t->job->maps_done == t->job->n_maps ||
	       !fetch_by_rack(s, t, src);
}

static int shuffle_create(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;
	uint32_t n = s->cluster.n_nodes;
	uint32_t nx = s->c->parallel_copies, i;
	struct sim_shuffle *shf = calloc(1, sizeof(*shf) + nx * sizeof(shf->xfers[0]));

	if (!shf)
		return -ENOMEM;
	shf->queue = calloc(n, sizeof(*shf->queue));
	shf->n_xfers = nx;
	t->shf = shf;
	if (!shf->queue)
		return -ENOMEM; /* freed with the job */
	if (!j->fetch) {
		j->fetch = calloc((size_t)s->fetch_rows * j->n_reduces, sizeof(*j->fetch));
		if (!j->fetch)
			return -ENOMEM;
	}
	/* An earlier attempt's state: the matrix starts zeroed, and clearing a reducer's column
	 * costs a cache miss per row, at every launch of a job's thousands of reducers. */
	for (i = 0; t->attempts > 1 && i < s->fetch_rows; i++)
		j->fetch[(size_t)i * j->n_reduces + t->idx] = (struct sim_src){0};
	for (i = 0; i < nx; i++) {
		shf->xfers[i].task = t;
		shf->xfers[i].flow = SIM_FLOW_NONE;
	}
	return 0;
}

/* Starts fetches from queued sources while fewer than parallel_copies are running. */
static int shuffle_pump(struct sim *s, struct sim_task *t)
{
	struct sim_shuffle *shf = t->shf;
	uint32_t n = s->cluster.n_nodes, k;

	while (shf->q_len && shf->active < s->c->parallel_copies) {
		uint32_t src = shf->queue[shf->q_head];
		struct sim_src *sp = src_of(s, t, src);
		int rc;

		shf->q_head = (shf->q_head + 1) % n;
		shf->q_len--;
		sp->queued = 0;
		for (k = 0; shf->xfers[k].flow != SIM_FLOW_NONE; k++)
			;
		rc = xfer_start(s, &shf->xfers[k], src, t->node, sp->pending,
		                fetch_by_rack(s, t, src));
		if (rc)
			return rc;
		sp->slot = k + 1;
		sp->pending = 0;
		shf->active++;
	}
	return 0;
}

/* Queues source @p src of a reducer's shuffle @p shf behind the others. */
static void queue_source(struct sim *s, struct sim_shuffle *shf, struct sim_src *sp, uint32_t src)
{
	sp->queued = 1;
	shf->queue[(shf->q_head + shf->q_len) % s->cluster.n_nodes] = src;
	shf->q_len++;
}

/* Gives reducer @p t its partition, @p bytes, of a map output on node @p src. @return 1 when
 * that queued a source to fetch from, else 0. */
static int shuffle_take(struct sim *s, struct sim_task *t, uint32_t src, uint64_t bytes)
{
	struct sim_job *j = t->job;
	struct sim_shuffle *shf = t->shf;
	struct sim_src *sp;

	if (!bytes)
		return 0;
	t->shuffled += bytes;
	account(s, j, SW_TRAFFIC_SHUFFLE, src, t->node, bytes);
	if (src == t->node)
		return 0; /* on the local disk: nothing crosses the network */
	src = fetch_source(s, t, src);
	sp = src_of(s, t, src);
	if (sp->slot && !fetch_by_rack(s, t, src)) {
		sw_sim_net_flow_grow(s->net, shf->xfers[sp->slot - 1].flow, bytes, s->now);
		return 0;
	}
	sp->pending += bytes;
	if (sp->queued || sp->slot || !fetch_ready(s, t, src, sp))
		return 0;
	queue_source(s, shf, sp, src);
	return 1;
}

/* Queues the other racks reducer @p t held back below rack_fetch_min, once its job's maps are
 * all done. */
static void shuffle_release(struct sim *s, struct sim_task *t)
{
	for (uint32_t rack = 0; rack < s->cluster.n_racks; rack++) {
		uint32_t src = s->rack_nodes[s->rack_first[rack]];
		struct sim_src *sp = src_of(s, t, src);

		if (sp->pending && !sp->queued && !sp->slot && fetch_by_rack(s, t, src))
			queue_source(s, t->shf, sp, src);
	}
}

static void running_remove(struct sim_job *j, struct sim_task *t)
{
	struct sim_task *last = &j->tasks[j->n_maps + j->running[--j->n_running]];

	j->running[t->run_pos] = last->idx;
	last->run_pos = t->run_pos;
}

/* Moves reducer @p t to its compute phase once every map is done and every byte fetched. */
static int shuffle_check(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;

	if (j->maps_done < j->n_maps || t->shf->active || t->shf->q_len)
		return 0;
	running_remove(j, t);
	t->shuffle_end = s->now;
	sw_sim_copy_stop(s, t);
	return compute(s, t, t->shuffled, j->bench->reduce_rate);
}

/* Starts reducer @p t's fetches from the sources it queued, or its compute when all is in. */
static int shuffle_advance(struct sim *s, struct sim_task *t)
{
	int rc = shuffle_pump(s, t);

	return rc ? rc : shuffle_check(s, t);
}

/* Feeds the outputs registered since @p from to reducer @p t and starts fetches. */
static int shuffle_feed(struct sim *s, struct sim_task *t, uint32_t from)
{
	const struct sim_job *j = t->job;
	uint32_t i;

	for (i = from; i < j->n_outputs; i++) {
		const struct sim_output *o = &j->outputs[i];

		shuffle_take(s, t, o->node, share(o->bytes, t->idx, j->n_reduces));
	}
	return shuffle_advance(s, t);
}

/* ---- output ---- */

static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * HDFS's placement for a writer inside the cluster: the first replica on the writer's node,
 * the second on a node A of another rack, the third on another node B of A's rack. The choice
 * hashes (seed, job, writer task) so it does not depend on event order (a job's writers are
 * its reduces, or its maps when it has none). With one rack, A and B are other nodes of the
 * writer's rack. @return how many of A and B exist (0..2).
 */
static unsigned pipeline(const struct sim *s, const struct sim_task *t, uint32_t *a, uint32_t *b)
{
	uint32_t w = t->node, wr = rack_of(s, w), n_racks = s->cluster.n_racks, rack, first, cnt;
	uint64_t h = mix64(s->w->seed ^ mix64(((uint64_t)t->job->idx << 32) | t->idx));
	uint32_t ia, ib;

	rack = n_racks > 1 ? (wr + 1 + (uint32_t)(h % (n_racks - 1))) % n_racks : wr;
	first = s->rack_first[rack];
	cnt = s->rack_first[rack + 1] - first;
	h = mix64(h);
	/* Candidates are the rack's nodes other than the writer (it is in the rack only when
	 * there is one rack). */
	if (rack == wr)
		cnt--;
	if (!cnt)
		return 0;
	ia = (uint32_t)(h % cnt);
	*a = s->rack_nodes[first + ia];
	if (rack == wr && *a >= w)
		*a = s->rack_nodes[first + ia + 1];
	if (cnt < 2)
		return 1;
	ib = (ia + 1 + (uint32_t)(mix64(h) % (cnt - 1))) % cnt;
	*b = s->rack_nodes[first + ib];
	if (rack == wr && *b >= w)
		*b = s->rack_nodes[first + ib + 1];
	return 2;
}

static int reduce_done(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;
	int rc = task_end(s, t);

	if (rc)
		return rc;
	shuffle_free(t);
	if (++j->reduces_done == j->n_reduces && j->maps_done == j->n_maps)
		return sw_sim_job_end(s, j);
	return 0;
}

static int map_done(struct sim *s, struct sim_task *t);

/* The task's output is written: a reduce is done, so is a map of a map-only job. */
static int written(struct sim *s, struct sim_task *t)
{
	return t->kind == SW_MAP ? map_done(s, t) : reduce_done(s, t);
}

/* The live controller's placement (sw_sim_config.output_next): the next nodes up after the
 * writer in node order, at most two. @return how many there are. */
static unsigned next_nodes(const struct sim *s, const struct sim_task *t, uint32_t *a, uint32_t *b)
{
	uint32_t n_nodes = s->cluster.n_nodes, *out[2] = {a, b};
	unsigned n = 0;

	for (uint32_t k = 1; k < n_nodes && n < s->c->output_next && n < 2; k++) {
		uint32_t node = (t->node + k) % n_nodes;

		if (!s->nodes[node].down)
			*out[n++] = node;
	}
	return n;
}

/* Writes @p bytes of job output from the task's node: the local replica, and either a
 * pipeline of two flows to the other two replicas (see pipeline) or, with output_next, a flow
 * from the writer to each of the next nodes. */
static int write_output(struct sim *s, struct sim_task *t, uint64_t bytes)
{
	struct sim_job *j = t->job;
	uint32_t a = 0, b = 0;
	unsigned n = !bytes              ? 0
	             : s->c->output_next ? next_nodes(s, t, &a, &b)
	                                 : pipeline(s, t, &a, &b);
	uint32_t b_from = s->c->output_next ? t->node : a;
	int rc;

	t->phase = SIM_WRITE;
	if (!bytes)
		return written(s, t);
	j->rec->bytes[SW_TRAFFIC_OUTPUT] += bytes; /* the local replica */
	if (!n)
		return written(s, t);
	account(s, j, SW_TRAFFIC_OUTPUT, t->node, a, bytes);
	rc = xfer_start(s, &t->io[0], t->node, a, bytes, 0);
	if (rc)
		return rc;
	t->waits = 1;
	if (n == 2) {
		account(s, j, SW_TRAFFIC_OUTPUT, b_from, b, bytes);
		rc = xfer_start(s, &t->io[1], b_from, b, bytes, 0);
		if (rc)
			return rc;
		t->waits = 2;
	}
	return 0;
}

/* ---- maps ---- */

static int map_done(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;
	uint64_t out = j->maps[t->idx].output_bytes, part, extra;
	uint32_t i;
	int rc;

	j->rec->map_output_bytes += out;
	rc = sw_sched_map_output(s->sched, j->idx, t->idx, t->node, out, s->now);
	if (rc < 0)
		return sched_fail(s, rc, "sw_sched_map_output", t);
	rc = task_end(s, t);
	if (rc)
		return rc;
	j->maps_done++;
	j->outputs[j->n_outputs++] =
	        (struct sim_output){.map = t->idx, .node = t->node, .bytes = out};
	/* Every running reducer takes its partition: share() with the one division hoisted out
	 * of a loop a million-map job runs for each of its thousands of reducers. Backwards: a
	 * reducer that finishes its shuffle leaves the list by swap-remove. A map-only job has
	 * none running, and no reducer count to divide by. */
	part = j->n_running ? out / j->n_reduces : 0;
	extra = j->n_running ? out % j->n_reduces : 0;
	for (i = j->n_running; i-- > 0;) {
		struct sim_task *r = &j->tasks[j->n_maps + j->running[i]];

		/* A reducer starts fetches only when one queues, since its copy slots are full
		 * whenever its queue is not: skipping the others saves a cache miss in its shuffle
		 * state per map and reducer, 2.2 billion times for the synthetic day's giants. */
		if (!shuffle_take(s, r, t->node, part + (r->idx < extra)) &&
		    j->maps_done < j->n_maps)
			continue;
		if (j->maps_done == j->n_maps && s->c->rack_fetch_min)
			shuffle_release(s, r);
		rc = shuffle_advance(s, r);
		if (rc)
			return rc;
	}
	if (j->maps_done == j->n_maps && j->reduces_done == j->n_reduces)
		return sw_sim_job_end(s, j);
	return 0;
}

/* ---- events ---- */

int sw_sim_task_compute_done(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;

	t->ev = SIM_HEAP_NONE;
	if (t->failing)
		return sw_sim_attempt_failed(s, t); /* its abort stops the compute */
	sw_sim_compute_stop(s, t);
	if (t->kind == SW_REDUCE)
		return write_output(s, t, share(j->desc->output_bytes, t->idx, j->n_reduces));
	if (!j->n_reduces)
		return write_output(s, t, share(j->desc->output_bytes, t->idx, j->n_maps));
	return map_done(s, t);
}

int sw_sim_flow_done(struct sim *s, struct sim_xfer *x)
{
	struct sim_task *t = x->task;
	struct sim_shuffle *shf = t->shf;
	struct sim_src *sp;

	sw_sim_net_flow_end(s->net, x->flow, s->now);
	x->flow = SIM_FLOW_NONE;
	if (t->phase == SIM_INPUT)
		return compute(s, t, t->job->maps[t->idx].input_bytes, t->job->bench->map_rate);
	if (t->phase == SIM_WRITE)
		return --t->waits ? 0 : written(s, t);
	sp = src_of(s, t, x->src);
	sp->slot = 0;
	shf->active--;
	/* a rack's outputs that registered while it was fetched */
	if (sp->pending && fetch_ready(s, t, x->src, sp))
		queue_source(s, shf, sp, x->src);
	return shuffle_advance(s, t);
}

static enum sw_locality locality(const struct sim *s, uint32_t node, const struct sw_assignment *a)
{
	if (a->src_node == SW_NO_NODE)
		return a->locality < SW_LOCALITY_NONE ? a->locality : SW_LOCALITY_REMOTE;
	if (a->src_node == node)
		return SW_LOCALITY_NODE;
	return rack_of(s, a->src_node) == rack_of(s, node) ? SW_LOCALITY_RACK : SW_LOCALITY_REMOTE;
}

/* The replica of map @p m's split to read, @p want if it is up: a node up, or SW_NO_NODE. */
static uint32_t input_source(const struct sim *s, const struct sim_job *j, uint32_t m,
                             uint32_t want)
{
	const struct sw_map_spec *map = &j->maps[m];

	if (want == SW_NO_NODE || !s->nodes[want].down)
		return want;
	/* An HDFS client skips a dead datanode for the split's next replica. */
	for (int r = 0; r < map->n_replicas; r++)
		if (!s->nodes[map->replicas[r]].down)
			return map->replicas[r];
	return SW_NO_NODE;
}

/* Reads map @p t's split from @p src (SW_NO_NODE or its own node: locally), then computes. */
static int map_read(struct sim *s, struct sim_task *t, uint32_t src)
{
	struct sim_job *j = t->job;
	uint64_t in = j->maps[t->idx].input_bytes;

	if (src == SW_NO_NODE || src == t->node || !in || s->c->map_input_live) {
		j->rec->bytes[SW_TRAFFIC_MAP_INPUT] += in;
		return compute(s, t, in, j->bench->map_rate);
	}
	account(s, j, SW_TRAFFIC_MAP_INPUT, src, t->node, in);
	t->phase = SIM_INPUT;
	return xfer_start(s, &t->io[0], src, t->node, in, 0);
}

static int map_launch(struct sim *s, struct sim_task *t, const struct sw_assignment *a)
{
	struct sim_job *j = t->job;
	struct sw_assignment at = *a;

	at.src_node = input_source(s, j, t->idx, a->src_node);
	if (a->src_node != SW_NO_NODE && at.src_node == SW_NO_NODE) {
		/* Every replica of the split is on a lost node: the read fails at once. */
		t->phase = SIM_INPUT;
		return sw_sim_attempt_failed(s, t);
	}
	j->rec->maps_at[locality(s, t->node, &at)]++;
	if (j->map_rack && j->map_rack[rack_of(s, t->node)])
		j->rec->maps_in_map_racks++;
	return map_read(s, t, at.src_node);
}

static int reduce_launch(struct sim *s, struct sim_task *t)
{
	struct sim_job *j = t->job;

	if (shuffle_create(s, t))
		return sw_sim_fail(s, -ENOMEM, "job %llu: out of memory starting reduce %u",
		                   (unsigned long long)j->desc->id, t->idx);
	t->phase = SIM_SHUFFLE;
	t->run_pos = j->n_running;
	j->running[j->n_running++] = t->idx;
	sw_sim_copy_start(s, t);
	return shuffle_feed(s, t, 0);
}

int sw_sim_task_launch(struct sim *s, uint32_t node, const struct sw_assignment *a)
{
	struct sim_job *j = a->job < s->w->n_jobs ? s->live[a->job] : NULL;
	uint32_t n = a->kind == SW_MAP ? (j ? j->n_maps : 0) : (j ? j->n_reduces : 0);
	struct sim_task *t;
	int rc;

	if (!j || (a->kind != SW_MAP && a->kind != SW_REDUCE) || a->task >= n ||
	    (a->kind == SW_MAP && a->src_node != SW_NO_NODE && a->src_node >= s->cluster.n_nodes))
		return sw_sim_fail(s, -EPROTO,
		                   "heartbeat of node %u at t=%.3f s: the scheduler assigned an "
		                   "unknown task (job %llu, kind %d, task %u)",
		                   node, s->now, (unsigned long long)a->job, (int)a->kind, a->task);
	t = &j->tasks[a->kind == SW_MAP ? a->task : j->n_maps + a->task];
	if (t->phase != SIM_PENDING || !s->nodes[node].free[a->kind])
		return sw_sim_fail(
		        s, -EPROTO,
		        "job %llu: heartbeat of node %u at t=%.3f s: the scheduler assigned "
		        "%s %u, which %s",
		        (unsigned long long)j->desc->id, node, s->now, kind_name[a->kind], a->task,
		        t->phase != SIM_PENDING ? "was already launched"
		                                : "does not fit a free slot");
	s->nodes[node].free[a->kind]--;
	t->node = node;
	t->start = s->now;
	t->attempts++;
	s->running++;
	s->running_kind[t->kind]++;
	sw_sim_gate_launched(s, t);
	s->last_progress = s->now;
	rc = sw_sched_task_started(s->sched, j->idx, t->kind, t->idx, s->now);
	if (rc < 0)
		return sched_fail(s, rc, "sw_sched_task_started", t);
	return t->kind == SW_MAP ? map_launch(s, t, a) : reduce_launch(s, t);
}

/* ---- failures (fault.c decides, these undo a task's phases) ---- */

static void xfer_end(struct sim *s, struct sim_xfer *x)
{
	if (x->flow == SIM_FLOW_NONE)
		return;
	sw_sim_net_flow_end(s->net, x->flow, s->now);
	x->flow = SIM_FLOW_NONE;
}

void sw_sim_task_abort(struct sim *s, struct sim_task *t)
{
	if (t->phase == SIM_COMPUTE)
		sw_sim_compute_stop(s, t);
	xfer_end(s, &t->io[0]);
	xfer_end(s, &t->io[1]);
	if (t->shf) {
		for (uint32_t i = 0; i < t->shf->n_xfers; i++)
			xfer_end(s, &t->shf->xfers[i]);
		if (t->phase == SIM_SHUFFLE) {
			running_remove(t->job, t);
			sw_sim_copy_stop(s, t);
		}
		shuffle_free(t);
	}
	t->phase = SIM_PENDING;
	t->failing = 0;
	t->waits = 0;
	t->shuffled = 0;
	s->running--;
	s->running_kind[t->kind]--;
}

/* Takes node @p src out of reducer @p t's queue of sources to fetch from. */
static void queue_drop(struct sim *s, struct sim_shuffle *shf, uint32_t src)
{
	uint32_t n = s->cluster.n_nodes, kept = 0;

	for (uint32_t i = 0; i < shf->q_len; i++) {
		uint32_t node = shf->queue[(shf->q_head + i) % n];

		if (node != src)
			shf->queue[(shf->q_head + kept++) % n] = node;
	}
	shf->q_len = kept;
}

int sw_sim_shuffle_forget(struct sim *s, struct sim_task *t, uint32_t src)
{
	struct sim_job *j = t->job;
	struct sim_shuffle *shf = t->shf;
	struct sim_src *sp = src_of(s, t, src);

	for (uint32_t i = 0; i < j->n_outputs; i++) {
		const struct sim_output *o = &j->outputs[i];

		if (j->tasks[o->map].phase == SIM_PENDING)
			t->shuffled -= share(o->bytes, t->idx, j->n_reduces);
	}
	/* A rack's flow carries its other nodes' partitions too: it goes on, and what it had
	 * of the lost node's is moved all the same (README, "Network model"). */
	if (fetch_by_rack(s, t, src))
		return 0;
	if (sp->slot) {
		xfer_end(s, &shf->xfers[sp->slot - 1]);
		shf->active--;
		sp->slot = 0;
	}
	if (sp->queued) {
		queue_drop(s, shf, src);
		sp->queued = 0;
	}
	sp->pending = 0;
	return shuffle_pump(s, t);
}

int sw_sim_write_flow_lost(struct sim *s, struct sim_xfer *x)
{
	struct sim_task *t = x->task;

	xfer_end(s, x);
	/* HDFS's pipeline recovery goes on with the replicas left. */
	return --t->waits ? 0 : written(s, t);
}

int sw_sim_map_source_lost(struct sim *s, struct sim_task *t)
{
	uint32_t src = input_source(s, t->job, t->idx, t->io[0].src);

	xfer_end(s, &t->io[0]);
	/* The read starts over from the next replica; with none left the attempt fails. */
	return src == SW_NO_NODE ? sw_sim_attempt_failed(s, t) : map_read(s, t, src);
}
