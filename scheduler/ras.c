/* SPDX-License-Identifier: MIT */
/*
 * RAS (Polo's thesis chapter 4): every control cycle a PLAN places job slots on the nodes so
 * that the lowest job utility is as high as it can be (ras.h), and each job's placed slots
 * become its target. Between plans the ORDER ranks jobs per slot kind, lower first:
 *   0  a job running fewer tasks of the kind than its target, by utility, the lowest first
 *      (RAS's Task Scheduler: "candidates sorted by lowest utility first");
 *   1  a job at or above its target, by utility: slots the plan did not foresee (a job
 *      that finished, a task shorter than planned) are not left idle.
 * Per node, the plan's targets are kept (keep.c): a node keeps the room of the tasks the plan
 * put there until they start, and any other task starts only where its demand fits beside
 * that room (the Task Scheduler's "placed count on that node not yet reached").
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "policy.h"
#include "ras.h"
#include "sw_sched_aria.h"

/* Tiers of keys; a utility lies in [RAS_UTIL_NONE - 1, 1] (u^M + u^R). */
#define RAS_TIER      1e10
#define RAS_KEY_FLOOR (RAS_UTIL_NONE - 1)
#define RAS_FIT_EPS   1e-9

struct ras_job {
	uint32_t target[SW_KINDS]; /* slots the last plan placed */
	bool reverse;              /* Reverse-Adaptive: utility by Eq. 14 around s_fit */
	uint32_t s_fit;            /* maps that must run in the next cycle, by the last plan */
};

double sw_sched_ras_utility_map(double s_alloc, double s_req, uint32_t s_pend)
{
	if (s_alloc >= s_pend)
		return 1; /* every map left has a slot: the cap */
	if (s_alloc >= s_req)
		return s_pend > s_req ? (s_alloc - s_req) / (s_pend - s_req) : 1;
	if (s_alloc < 1)
		return RAS_UTIL_NONE;
	return log(s_alloc) / log(s_req) - 1; /* 1 <= s_alloc < s_req, so log(s_req) > 0 */
}

double sw_sched_ras_utility_reduce(uint32_t r_alloc, uint32_t r_pend)
{
	if (r_alloc >= r_pend)
		return 0;
	if (r_alloc == 0)
		return -1;
	return log(r_alloc) / log(r_pend) - 1; /* 1 <= r_alloc < r_pend */
}

double sw_sched_ras_utility(const struct ras_need *need, double maps, uint32_t reduces)
{
	double um = need->reverse
	                    ? sw_sched_ras_utility_fit(maps, need->s_fit, need->s_req, need->s_pend)
	                    : sw_sched_ras_utility_map(maps, need->s_req, need->s_pend);

	return um + sw_sched_ras_utility_reduce(reduces, need->r_pend);
}

/* ---- Placement ------------------------------------------------------------------------ */

struct node_use {
	struct sw_resources used;
	uint16_t tasks[SW_KINDS];
};

struct place_state {
	const struct ras_node_in *nodes;
	const struct ras_job_in *jobs;
	uint32_t n_nodes, n_jobs;
	uint32_t (*alloc)[SW_KINDS];
	struct ras_put *puts;
	uint32_t n_puts;
	struct node_use *use;
	double *util;     /* per job: u^M + u^R of what it has */
	uint32_t *cursor; /* per job: no node before it has room for one of its maps */
	uint32_t *heap;   /* jobs by (util, index), a binary min-heap */
	uint32_t heap_n;
};

size_t sw_sched_ras_place_scratch(uint32_t n_jobs, uint32_t n_nodes)
{
	return n_nodes * sizeof(struct node_use) + n_jobs * (sizeof(double) + 2 * sizeof(uint32_t));
}

static bool fits(const struct place_state *st, uint32_t n, uint32_t j, enum sw_task_kind k)
{
	const struct ras_node_in *node = &st->nodes[n];
	const struct node_use *u = &st->use[n];
	const struct sw_resources *d = &st->jobs[j].demand[k];

	return u->tasks[k] < node->slots[k] &&
	       u->used.cpu + d->cpu <= node->capacity.cpu + RAS_FIT_EPS &&
	       u->used.mem_gb + d->mem_gb <= node->capacity.mem_gb + RAS_FIT_EPS &&
	       u->used.io + d->io <= node->capacity.io + RAS_FIT_EPS;
}

static void put(struct place_state *st, uint32_t n, uint32_t j, enum sw_task_kind k)
{
	struct node_use *u = &st->use[n];
	const struct sw_resources *d = &st->jobs[j].demand[k];

	u->tasks[k]++;
	sw_sched_resources_add(&u->used, d, 1);
	st->alloc[j][k]++;
	if (st->puts)
		st->puts[st->n_puts++] = (struct ras_put){j, n, k};
}

static double job_util(const struct place_state *st, uint32_t j)
{
	return sw_sched_ras_utility(&st->jobs[j].need, st->alloc[j][SW_MAP],
	                            st->alloc[j][SW_REDUCE]);
}

/* The next node from @p *next on with room for one of @p j's reduces and at most @p level
 * reduces; n_nodes when none. */
static uint32_t reduce_node(const struct place_state *st, uint32_t j, uint32_t level, uint32_t next)
{
	for (uint32_t tried = 0; tried < st->n_nodes; tried++) {
		uint32_t n = (next + tried) % st->n_nodes;

		if (st->use[n].tasks[SW_REDUCE] <= level && fits(st, n, j, SW_REDUCE))
			return n;
	}
	return st->n_nodes;
}

/*
 * Reduces first (Algorithm 1, lines 1-5), spread: each goes to the next node after the last
 * one used that has room and the fewest reduces (pinned ones counted), so every node gets
 * one before any gets two, whatever the job (the thesis sorts nodes by reduces placed).
 */
static void place_reduces(struct place_state *st)
{
	uint32_t next = 0, most = 0;

	for (uint32_t n = 0; n < st->n_nodes; n++)
		most = st->nodes[n].slots[SW_REDUCE] > most ? st->nodes[n].slots[SW_REDUCE] : most;
	for (uint32_t j = 0; j < st->n_jobs; j++) {
		uint32_t level = 0;

		while (st->alloc[j][SW_REDUCE] < st->jobs[j].need.r_pend && level < most) {
			uint32_t n = reduce_node(st, j, level, next);

			if (n == st->n_nodes) {
				level++; /* no node with so few reduces has room: allow one more */
				continue;
			}
			put(st, n, j, SW_REDUCE);
			next = (n + 1) % st->n_nodes;
		}
	}
}

static bool heap_less(const struct place_state *st, uint32_t a, uint32_t b)
{
	return st->util[a] < st->util[b] || (st->util[a] == st->util[b] && a < b);
}

static void heap_push(struct place_state *st, uint32_t j)
{
	uint32_t i = st->heap_n++;

	while (i > 0 && heap_less(st, j, st->heap[(i - 1) / 2])) {
		st->heap[i] = st->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	st->heap[i] = j;
}

static uint32_t heap_pop(struct place_state *st)
{
	uint32_t top = st->heap[0], last = st->heap[--st->heap_n], i = 0;

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= st->heap_n)
			break;
		if (c + 1 < st->heap_n && heap_less(st, st->heap[c + 1], st->heap[c]))
			c++;
		if (!heap_less(st, st->heap[c], last))
			break;
		st->heap[i] = st->heap[c];
		i = c;
	}
	if (st->heap_n > 0)
		st->heap[i] = last;
	return top;
}

/*
 * Maps by max-min water-filling (Algorithm 1's rounds, lines 9-23, taken to their fixed
 * point): the job of lowest utility gets one more map slot, on the first node with room
 * for it (first fit, which also fills nodes: Eq. 9's least leftover). A job with no room
 * anywhere leaves the heap: the lowest utility is then final, as no slot given to a job
 * while it was lowest could go to another without bringing it back below.
 */
static void place_maps(struct place_state *st)
{
	uint32_t open = 0; /* no node before it has a free map slot */

	for (uint32_t j = 0; j < st->n_jobs; j++) {
		st->util[j] = job_util(st, j);
		if (st->jobs[j].need.s_pend > 0)
			heap_push(st, j);
	}
	while (st->heap_n > 0) {
		uint32_t j = heap_pop(st), n = st->cursor[j] > open ? st->cursor[j] : open;

		while (n < st->n_nodes && !fits(st, n, j, SW_MAP))
			n++;
		st->cursor[j] = n;
		if (n == st->n_nodes)
			continue; /* no room left for this job */
		put(st, n, j, SW_MAP);
		while (open < st->n_nodes &&
		       st->use[open].tasks[SW_MAP] >= st->nodes[open].slots[SW_MAP])
			open++;
		st->util[j] = job_util(st, j);
		if (st->alloc[j][SW_MAP] < st->jobs[j].need.s_pend)
			heap_push(st, j);
	}
}

double sw_sched_ras_place(const struct ras_node_in *nodes, uint32_t n_nodes,
                          const struct ras_job_in *jobs, uint32_t n_jobs,
                          uint32_t (*alloc)[SW_KINDS], struct ras_put *puts, uint32_t *n_puts,
                          void *scratch)
{
	struct place_state st = {
	        .nodes = nodes,
	        .jobs = jobs,
	        .n_nodes = n_nodes,
	        .n_jobs = n_jobs,
	        .alloc = alloc,
	        .puts = puts,
	        .use = scratch,
	};
	double lowest = 1;

	st.util = (double *)(st.use + n_nodes);
	st.cursor = (uint32_t *)(st.util + n_jobs);
	st.heap = st.cursor + n_jobs;
	for (uint32_t n = 0; n < n_nodes; n++)
		st.use[n] = (struct node_use){
		        nodes[n].used, {nodes[n].pinned[SW_MAP], nodes[n].pinned[SW_REDUCE]}};
	for (uint32_t j = 0; j < n_jobs; j++) {
		alloc[j][SW_MAP] = jobs[j].pinned[SW_MAP];
		alloc[j][SW_REDUCE] = jobs[j].pinned[SW_REDUCE];
		st.cursor[j] = 0;
	}
	if (n_nodes > 0) {
		place_reduces(&st);
		place_maps(&st);
	}
	for (uint32_t j = 0; j < n_jobs; j++)
		lowest = fmin(lowest, job_util(&st, j));
	if (n_puts)
		*n_puts = st.n_puts;
	return lowest;
}

/* ---- Reverse-Adaptive: s_fit and its utility --------------------------------------- */

/*
 * Reverse-Adaptive (Polo's thesis 5.3, CCGrid 2014; notes-polo-adaptive-ras.md 4.2): nodes
 * shared with a transactional load whose share of the slots over time, f(t), is known in
 * advance. A job's minimum for the next control cycle, s_fit, is what of its pending maps
 * cannot run later: the future is cut into periods at the jobs' deadlines and, from the last
 * deadline backwards, each period's slot-seconds are handed to the jobs that may still use
 * them, later deadlines first (Algorithm 2, reverse fitting); whatever is left must run now.
 * Eq. 14 then puts s_fit at utility 0 and s_req (the slots the goal needs at the average
 * capacity) at 1/2. Pure functions, as the RAS placement (ras.h).
 */

/* The jobs' order: deadline, the latest first, ties by index. */
static int by_deadline_desc(const void *pa, const void *pb)
{
	const struct ras_rfit_order *a = pa, *b = pb;

	if (a->deadline != b->deadline)
		return a->deadline < b->deadline ? 1 : -1;
	return (a->job > b->job) - (a->job < b->job);
}

/* Moves as many whole tasks of job @p j as the slot-seconds @p cap hold out of s_fit. */
static void fit(const struct ras_rfit_job *j, uint32_t *s_fit, double *cap)
{
	double n;

	if (!*s_fit || !(j->mu > 0))
		return;
	n = fmin(*s_fit, floor(*cap / j->mu));
	*s_fit -= (uint32_t)n;
	*cap -= n * j->mu;
}

void sw_sched_ras_reverse_fit(const struct ras_rfit_job *jobs, uint32_t n_jobs,
                              const struct ras_avail *f, double slots, double now, double cycle,
                              struct ras_rfit_order *order, uint32_t *s_fit)
{
	double next = now + cycle; /* what cannot start by then must start now */

	for (uint32_t j = 0; j < n_jobs; j++) {
		order[j] = (struct ras_rfit_order){jobs[j].deadline, j};
		s_fit[j] = jobs[j].s_pend;
	}
	qsort(order, n_jobs, sizeof(*order), by_deadline_desc);
	for (uint32_t k = 0; k < n_jobs; k++) {
		double b = order[k].deadline;
		double a = k + 1 < n_jobs ? fmax(order[k + 1].deadline, next) : next;
		double cap = sw_sched_ras_avail(f, slots, a, b);

		/* the later deadlines, already processed, have the first claim on [a, b] */
		for (uint32_t p = 0; p <= k && cap > 0; p++)
			fit(&jobs[order[p].job], &s_fit[order[p].job], &cap);
	}
}

double sw_sched_ras_utility_fit(double s_alloc, double s_fit, double s_req, uint32_t s_pend)
{
	if (s_alloc >= s_pend)
		return 1;
	if (s_alloc < s_fit) {
		if (s_alloc < 1)
			return RAS_UTIL_NONE;
		/* 1 <= s_alloc < s_fit: log(s_fit) > 0 */
		return log(s_alloc) / log(s_fit) - 1;
	}
	if (s_req <= s_fit)
		return (s_alloc - s_fit) / (s_pend - s_fit);
	if (s_alloc <= s_req)
		return (s_alloc - s_fit) / (2 * (s_req - s_fit));
	return (s_alloc - s_req) / (2 * (s_pend - s_req)) + 0.5;
}

/* ---- The ras and reverse-adaptive ORDERs --------------------------------------------- */

/*
 * A job's mean map length: its finished maps' mean, as Polo estimates online; Reverse-Adaptive
 * (@p profile) falls back on the profile's mean before the first map finishes, as the
 * thesis's simulator knows each job's task length (Gamma_j) from the start. 0: unknown.
 */
static double map_mu(const struct sched_job *j, bool profile)
{
	if (j->done[SW_MAP])
		return j->duration_sum[SW_MAP] / j->done[SW_MAP];
	return profile && j->has_profile && j->profile.map_avg > 0 ? j->profile.map_avg : 0;
}

/*
 * What job @p j needs now. s_req is Eq. 1 without its "- |R|": the placement counts the
 * slots of running tasks too (the notes' 3.3), running tasks taken as half done as in
 * order_adaptive.c. A job without a deadline, past its map goal, or with no map length known
 * yet (no mean to estimate from) needs every map left: the thesis never says how RAS seeds
 * s_req before the first completion, and its J7 shows a new job at a very low utility.
 * Reverse-Adaptive keeps the last plan's s_fit (capped at the maps left); a job without a
 * deadline has none (0): it takes what the jobs with goals leave.
 */
static struct ras_need need_of(const struct sched_job *j, double now)
{
	struct ras_need n = {
	        .s_pend = j->n_tasks[SW_MAP] - j->done[SW_MAP],
	        .r_pend = j->n_tasks[SW_REDUCE] - j->done[SW_REDUCE],
	        .reverse = j->ras->reverse,
	};
	double goal, mu = map_mu(j, n.reverse);

	n.s_req = n.s_pend;
	if (n.reverse)
		n.s_fit =
		        j->deadline > 0 ? (j->ras->s_fit < n.s_pend ? j->ras->s_fit : n.s_pend) : 0;
	if (j->deadline <= 0 || !(mu > 0))
		return n;
	goal = sw_sched_adaptive_phase_goal(j, SW_MAP);
	if (now >= goal)
		return n;
	n.s_req = fmin(n.s_pend, sw_sched_adaptive_slots(mu, j->running[SW_MAP] * mu / 2, 0,
	                                                 j->pending[SW_MAP], goal - now));
	return n;
}

static int by_seq(const void *a, const void *b)
{
	const struct sched_job *x = *(struct sched_job *const *)a,
	                       *y = *(struct sched_job *const *)b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/*
 * Reverse-Adaptive's s_fit of every live job with a deadline and a known map length
 * (Algorithm 2 over the map slots of the nodes up, the forecast's f(t) taken off them): what
 * of its maps no period before its map goal can hold must run in the next cycle. A job with a
 * deadline whose map length is unknown keeps s_fit = s_pend: everything is needed now.
 */
static int reverse_fit(struct sw_sched *s, struct sched_job **live, struct ras_job_in *in,
                       uint32_t n_jobs, double now)
{
	struct ras_rfit_job *jobs = malloc(n_jobs * sizeof(*jobs) + 1);
	struct ras_rfit_order *order = malloc(n_jobs * sizeof(*order) + 1);
	uint32_t *s_fit = malloc(n_jobs * sizeof(*s_fit) + 1),
	         *idx = malloc(n_jobs * sizeof(*idx) + 1);
	struct ras_avail f = {s->tx, s->tx_n};
	uint32_t n = 0;
	double slots = 0;
	int rc = -ENOMEM;

	if (!jobs || !order || !s_fit || !idx)
		goto out;
	for (uint32_t i = 0; i < s->n_nodes; i++)
		slots += s->nodes[i].down ? 0 : s->nodes[i].slots[SW_MAP];
	for (uint32_t i = 0; i < n_jobs; i++) {
		double mu = map_mu(live[i], true);

		live[i]->ras->s_fit = in[i].need.s_pend;
		if (live[i]->deadline > 0 && mu > 0) {
			jobs[n] =
			        (struct ras_rfit_job){sw_sched_adaptive_phase_goal(live[i], SW_MAP),
			                              mu, in[i].need.s_pend};
			idx[n++] = i;
		}
	}
	sw_sched_ras_reverse_fit(jobs, n, &f, slots, now, s->cfg.plan_period, order, s_fit);
	for (uint32_t k = 0; k < n; k++)
		live[idx[k]]->ras->s_fit = s_fit[k];
	for (uint32_t i = 0; i < n_jobs; i++)
		in[i].need = need_of(live[i], now);
	rc = 0;
out:
	free(jobs);
	free(order);
	free(s_fit);
	free(idx);
	return rc;
}

/*
 * The slots job slots may use on the nodes up: all of them for RAS; for Reverse-Adaptive,
 * those the transactional load leaves at the plan's instant, spread over the nodes as the
 * driver takes them (sw_sched_transactional_held).
 */
static void plan_nodes(const struct sw_sched *s, bool reverse, double now,
                       struct ras_node_in *nodes)
{
	double share = reverse ? sw_sched_transactional_share(s, now) : 0;

	for (uint32_t n = 0; n < s->n_nodes; n++) {
		const struct sched_node *sn = &s->nodes[n];

		nodes[n] = (struct ras_node_in){.capacity = sn->capacity};
		for (int k = 0; k < SW_KINDS; k++) {
			uint32_t held =
			        sw_sched_transactional_held(share, n, s->n_nodes, sn->slots[k]);

			nodes[n].slots[k] = sn->down ? 0 : (uint16_t)(sn->slots[k] - held);
		}
	}
}

/*
 * Pins job @p in's running reduces where they run: a reduce holds its node for most of its
 * job's life and is never preempted, so the plan places the others beside it. Maps are not
 * pinned: they end within a cycle or two, and a node running more of a job's maps than the
 * plan put there starts no more of them (the thesis's steal, Algorithm 1 lines 13-19).
 */
static void pin_reduces(const struct sched_job *j, struct ras_job_in *in, struct ras_node_in *nodes)
{
	const struct sw_resources *d = sw_sched_task_demand(j, SW_REDUCE);

	for (uint32_t r = 0; r < j->n_tasks[SW_REDUCE]; r++) {
		struct ras_node_in *n = &nodes[j->tasks[SW_REDUCE][r].node];

		if (j->tasks[SW_REDUCE][r].state != TASK_RUNNING)
			continue;
		n->pinned[SW_REDUCE]++;
		sw_sched_resources_add(&n->used, d, 1);
		in->pinned[SW_REDUCE]++;
	}
}

/* Whether job @p j has a task of @p kind that could start now. */
static bool startable(const struct sched_job *j, enum sw_task_kind kind)
{
	return j->pending[kind] > 0 && (kind == SW_MAP || j->reduces_ready);
}

/*
 * The plan's per-node targets become the job slots each node keeps room for (keep.c), those of
 * jobs with tasks of the kind to start: maps, and reduces once slow-start lets them run. A job's
 * tasks already running on a node fill its slots there: its running maps the plan's (it places
 * maps from scratch), its running reduces their own (pinned, beside the ones it put).
 */
static void keep_targets(struct sw_sched *s, struct sched_job **live, const struct ras_put *puts,
                         uint32_t n_puts)
{
	sw_sched_keep_clear(s);
	for (uint32_t i = 0; i < n_puts; i++) {
		const struct sched_job *j = live[puts[i].job];

		if (startable(j, puts[i].kind))
			sw_sched_keep_add(&s->nodes[puts[i].node], j, puts[i].kind);
	}
	for (uint32_t i = 0; i < s->jobs.count; i++) {
		const struct sched_job *j = live[i];

		for (int k = 0; k < SW_KINDS; k++) {
			if (!startable(j, k))
				continue;
			for (uint32_t t = 0, seen = 0; seen < j->running[k] && t < j->n_tasks[k];
			     t++) {
				struct sched_node *n = &s->nodes[j->tasks[k][t].node];

				if (j->tasks[k][t].state != TASK_RUNNING)
					continue;
				if (k == SW_REDUCE)
					sw_sched_keep_add(n, j, k);
				sw_sched_keep_take(n, j, k);
				seen++;
			}
		}
	}
}

/* Hands job @p j's part of the plan just made to the driver's tracer. */
static void trace(const struct sw_sched *s, const struct sched_job *j, const struct ras_need *need,
                  double now)
{
	const uint32_t *target = j->ras->target;
	struct sw_plan_row row = {
	        .now = now,
	        .job = j->id,
	        .s_pend = need->s_pend,
	        .s_req = need->s_req,
	        .s_fit = need->reverse ? need->s_fit : 0,
	        .target = {target[SW_MAP], target[SW_REDUCE]},
	        .running = {j->running[SW_MAP], j->running[SW_REDUCE]},
	        .utility = sw_sched_ras_utility(need, target[SW_MAP], target[SW_REDUCE]),
	};

	s->cfg.on_plan(s->cfg.on_plan_arg, &row);
}

static int plan(struct sw_sched *s, double now, bool reverse)
{
	uint32_t n_jobs = s->jobs.count, i = 0, n_puts, slots = 0;
	struct sched_job **live = malloc(n_jobs * sizeof(*live) + 1);
	struct ras_job_in *in = malloc(n_jobs * sizeof(*in) + 1);
	uint32_t(*alloc)[SW_KINDS] = malloc(n_jobs * sizeof(*alloc) + 1);
	struct ras_node_in *nodes = malloc(s->n_nodes * sizeof(*nodes));
	void *scratch = malloc(sw_sched_ras_place_scratch(n_jobs, s->n_nodes));
	struct ras_put *puts;
	int rc = -ENOMEM;

	for (i = 0; i < s->n_nodes; i++)
		slots += s->nodes[i].slots[SW_MAP] + s->nodes[i].slots[SW_REDUCE];
	puts = malloc(slots * sizeof(*puts) + 1); /* a put takes a slot */
	if (!live || !in || !alloc || !nodes || !scratch || !puts)
		goto out;
	i = 0;
	for (uint32_t b = 0; b <= s->jobs.mask; b++)
		for (struct sched_job *j = s->jobs.buckets[b]; j; j = j->hash_next)
			live[i++] = j;
	/* Jobs in add order: among equal utilities the older job is served first. */
	qsort(live, n_jobs, sizeof(*live), by_seq);
	plan_nodes(s, reverse, now, nodes);
	for (i = 0; i < n_jobs; i++) {
		in[i] = (struct ras_job_in){
		        .need = need_of(live[i], now),
		        .demand = {live[i]->demand[SW_MAP],
		                   *sw_sched_task_demand(live[i], SW_REDUCE)},
		};
		pin_reduces(live[i], &in[i], nodes);
	}
	if (reverse && (rc = reverse_fit(s, live, in, n_jobs, now)) < 0)
		goto out;
	sw_sched_ras_place(nodes, s->n_nodes, in, n_jobs, alloc, puts, &n_puts, scratch);
	for (i = 0; i < n_jobs; i++)
		for (int k = 0; k < SW_KINDS; k++)
			live[i]->ras->target[k] = alloc[i][k];
	keep_targets(s, live, puts, n_puts);
	for (i = 0; s->cfg.on_plan && i < n_jobs; i++)
		trace(s, live[i], &in[i].need, now);
	rc = 0;
out:
	free(puts);
	free(live);
	free(in);
	free(alloc);
	free(nodes);
	free(scratch);
	return rc;
}

static int ras_plan(struct sw_sched *s, double now)
{
	return plan(s, now, false);
}

static int reverse_plan(struct sw_sched *s, double now)
{
	return plan(s, now, true);
}

static void ras_update_keys(const struct sw_sched *s, struct sched_pool *p, double now)
{
	const struct sched_job *j =
	        p->runnable[SW_MAP].head ? p->runnable[SW_MAP].head : p->runnable[SW_REDUCE].head;
	struct ras_need need;
	double u;

	(void)s;
	if (!j)
		return; /* nothing runnable: the pool is in no heap */
	need = need_of(j, now);
	u = sw_sched_ras_utility(&need, j->running[SW_MAP], j->running[SW_REDUCE]);
	for (int k = 0; k < SW_KINDS; k++)
		p->key[k] = (j->running[k] < j->ras->target[k] ? 0 : RAS_TIER) + u - RAS_KEY_FLOOR;
}

static int job_added(struct sched_job *j, bool reverse)
{
	j->ras = calloc(1, sizeof(*j->ras));
	if (!j->ras)
		return -ENOMEM;
	/* Until the next plan fits it, a newcomer with a deadline needs every map now. */
	j->ras->reverse = reverse;
	j->ras->s_fit = j->n_tasks[SW_MAP];
	return 0;
}

static int ras_job_added(struct sw_sched *s, struct sched_job *j, double now)
{
	(void)s;
	(void)now;
	return job_added(j, false);
}

static int reverse_job_added(struct sw_sched *s, struct sched_job *j, double now)
{
	(void)s;
	(void)now;
	return job_added(j, true);
}

const struct sched_order_ops sw_sched_order_ras = {
        .pool_of = sw_sched_order_pool_per_job,
        .admit = sw_sched_order_admit_soft,
        .update_keys = ras_update_keys,
        .plan = ras_plan,
        .job_added = ras_job_added,
};

/* Reverse-Adaptive (thesis 5.3): RAS's placement with s_fit and Eq. 14, on the slots the
 * transactional load leaves. */
const struct sched_order_ops sw_sched_order_reverse = {
        .pool_of = sw_sched_order_pool_per_job,
        .admit = sw_sched_order_admit_soft,
        .update_keys = ras_update_keys,
        .plan = reverse_plan,
        .job_added = reverse_job_added,
};
