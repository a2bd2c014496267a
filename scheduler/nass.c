/* SPDX-License-Identifier: MIT */
/*
 * NASS, network-aware shuffle scheduling (ShuffleWatcher Figure 3), the PICK of the sw-*
 * policies. ORDER has chosen the user; NASS takes one of that user's tasks in the preference
 * order of the requesting node's rack, NetworkSaturated or not:
 *
 *   saturated                              not saturated
 *    4 map, rack in PreferredMapRacks       13 heavy reduce, PreferredReducesPerRack unmet
 *    5 local map (node, then rack)          14 heavy reduce
 *    6 any map                              15 any reduce
 *    7 reduce of a shuffle-light job        16-18 = 4-6
 *    8 heavy reduce, PreferredReducesPerRack unmet
 *    9 any reduce
 *
 * Within a line, jobs go by arrival. Hadoop 1.x slots are typed, so a heartbeat offers a map
 * or a reduce slot and the order is applied to the offered kind. What typed slots would lose
 * is the place of lines 7-9 behind lines 4-6: under saturation a user runs a reduce, light or
 * heavy, only when it has no map to run. So on a saturated rack no reduce line is taken while
 * the user has a pending map (of its jobs of the same or an earlier starvation window: those
 * the windowed lines would reach first); the reduce slot goes to the next user in fair order.
 * That is NASS delaying shuffles while the network is saturated. The verdict is per rack and
 * per decision: a job enabled on an idle rack is not released on a saturated one.
 *
 * A job's reduces are enabled (SARP runs, and runs again once if it had only SAMP's estimate
 * to go on) when its map phase is complete or when its user has a reduce slot the order
 * hands to it: a reduce launches, or line 13 considers the job on a rack that is not
 * saturated. Below the slow-start fraction a job has no reduce NASS can see, as under every
 * policy.
 *
 * Starvation window: jobs of a user that arrived in an earlier window (floor(arrival / W))
 * go before later ones, whatever their line: the lines are applied to the earliest window's
 * jobs first.
 *
 * sw-relaxed: when the best a user has for this node is a costly task (line 6, 18: a map read
 * across racks that SAMP did not plan; line 9 on a saturated rack), the user is passed over
 * for up to relaxed_wait seconds, as Delay Scheduling passes over a job without local data.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nass.h"

/* Figure 3's lines by what they take (sw_sched.h), plus the end of a list. */
enum nass_line {
	PREF_MAP = SW_LINE_PREFERRED_MAP,
	LOCAL_MAP = SW_LINE_LOCAL_MAP,
	ANY_MAP = SW_LINE_ANY_MAP,
	LIGHT_REDUCE = SW_LINE_LIGHT_REDUCE,
	SARP_REDUCE = SW_LINE_SARP_REDUCE,
	HEAVY_REDUCE = SW_LINE_HEAVY_REDUCE,
	ANY_REDUCE = SW_LINE_ANY_REDUCE,
	END_LINES = SW_NASS_LINES,
};

static const enum nass_line map_lines[] = {PREF_MAP, LOCAL_MAP, ANY_MAP, END_LINES};
static const enum nass_line saturated_reduce_lines[] = {LIGHT_REDUCE, SARP_REDUCE, ANY_REDUCE,
                                                        END_LINES};
static const enum nass_line reduce_lines[] = {SARP_REDUCE, HEAVY_REDUCE, ANY_REDUCE, END_LINES};

/* One decision: the requesting node, its rack's flag and the chosen task. */
struct nass_ctx {
	struct sw_sched *s;
	struct nass_sched *ns;
	const struct sched_node *n;
	uint32_t node, rack;
	bool saturated;
	struct sched_choice *c;
};

static int nass_init(struct sw_sched *s)
{
	struct nass_sched *ns = calloc(1, sizeof(*ns));
	uint32_t nr = s->n_racks;

	s->pick_priv = ns;
	if (!ns)
		return -ENOMEM;
	ns->mech = s->policy->sw_mechanisms & s->cfg.sw_mechanisms;
	ns->map_slots = calloc(nr, sizeof(*ns->map_slots));
	ns->rack_jobs = calloc(nr, sizeof(*ns->rack_jobs));
	ns->rack_in = calloc(nr, sizeof(*ns->rack_in));
	ns->weight = calloc(nr, sizeof(*ns->weight));
	ns->rank = calloc(nr, sizeof(*ns->rank));
	ns->map_rack = calloc(nr, 1);
	if (!ns->map_slots || !ns->rack_jobs || !ns->rack_in || !ns->weight || !ns->rank ||
	    !ns->map_rack)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_nodes; i++)
		ns->map_slots[s->nodes[i].rack] += s->nodes[i].slots[SW_MAP];
	return 0;
}

static void nass_fini(struct sw_sched *s)
{
	struct nass_sched *ns = s->pick_priv;

	if (ns) {
		free(ns->map_slots);
		free(ns->rack_jobs);
		free(ns->pools);
		free(ns->rack_in);
		free(ns->weight);
		free(ns->rank);
		free(ns->map_rack);
		free(ns->covered);
	}
	free(ns);
	s->pick_priv = NULL;
}

/* Room for the pool's state and for SAMP's per-map flags. */
static int reserve(struct nass_sched *ns, uint32_t pool, uint32_t n_maps)
{
	if (pool >= ns->n_pools) {
		uint32_t n = ns->n_pools ? ns->n_pools : 8;
		struct nass_pool *v;

		while (n <= pool)
			n *= 2;
		v = realloc(ns->pools, n * sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (uint32_t i = ns->n_pools; i < n; i++)
			v[i] = (struct nass_pool){{NAN, NAN}};
		ns->pools = v;
		ns->n_pools = n;
	}
	if (n_maps > ns->covered_cap) {
		uint8_t *c = realloc(ns->covered, n_maps);

		if (!c)
			return -ENOMEM;
		ns->covered = c;
		ns->covered_cap = n_maps;
	}
	return 0;
}

/* Maps with no replica in the chosen racks: SAMP accepted that they read remotely. */
static uint32_t count_planned(const struct sw_sched *s, const struct sched_job *j,
                              const uint8_t *map_rack, uint32_t *out)
{
	uint32_t n = 0;

	for (uint32_t m = 0; m < j->n_tasks[SW_MAP]; m++) {
		const struct sched_map *map = &j->maps[m];
		bool in = false;

		for (int r = 0; r < map->n_replicas; r++)
			in |= map_rack[s->nodes[map->replicas[r]].rack] != 0;
		if (!in && out)
			out[n] = m;
		n += !in;
	}
	return n;
}

static struct nass_job *job_block(const struct sw_sched *s, uint32_t n_planned)
{
	size_t nr = s->n_racks;
	size_t size = sizeof(struct nass_job) + nr * (sizeof(uint64_t) + 3 * sizeof(uint32_t)) +
	              n_planned * sizeof(uint32_t) + nr;
	struct nass_job *nj = calloc(1, size);
	char *p = (char *)(nj + 1);

	if (!nj)
		return NULL;
	nj->rack_out = (uint64_t *)p;
	nj->preferred = (uint32_t *)(nj->rack_out + nr);
	nj->tentative = nj->preferred + nr;
	nj->reduces_on = nj->tentative + nr;
	nj->planned = nj->reduces_on + nr;
	nj->map_rack = (uint8_t *)(nj->planned + n_planned);
	return nj;
}

static int nass_job_added(struct sw_sched *s, struct sched_job *j, double now)
{
	struct nass_sched *ns = s->pick_priv;
	double ratio = j->has_profile && j->profile.shuffle_input_ratio > 0
	                       ? j->profile.shuffle_input_ratio
	                       : 1.0; /* the paper's initial ShuffleInputRatio */
	uint32_t n_racks = 0, n_planned = 0;
	struct nass_job *nj;

	(void)now;
	if (reserve(ns, j->pool, j->n_tasks[SW_MAP]) < 0)
		return -ENOMEM;
	if (ns->mech & SW_MECH_SAMP) {
		n_racks = sw_sched_samp_choose(s, j, ratio);
		n_planned = count_planned(s, j, ns->map_rack, NULL);
	} else {
		/* Without SAMP, maps follow their data: the tentative split follows the input. */
		sw_sched_samp_input_per_rack(s, j);
		memset(ns->map_rack, 0, s->n_racks);
		memcpy(ns->weight, ns->rack_in, s->n_racks * sizeof(*ns->weight));
	}
	nj = job_block(s, n_planned);
	if (!nj)
		return -ENOMEM;
	nj->ratio = ratio;
	nj->ratio_known = j->has_profile && j->profile.shuffle_input_ratio > 0;
	nj->window =
	        s->cfg.starvation_window > 0 ? floor(j->arrival / s->cfg.starvation_window) : 0;
	nj->n_map_racks = n_racks;
	nj->n_planned = n_planned;
	if (n_planned)
		count_planned(s, j, ns->map_rack, nj->planned);
	memcpy(nj->map_rack, ns->map_rack, s->n_racks);
	sw_sched_sarp_split(ns, j->n_tasks[SW_REDUCE], ns->weight, s->n_racks, nj->tentative);
	memcpy(nj->preferred, nj->tentative, s->n_racks * sizeof(*nj->preferred));
	for (uint32_t r = 0; r < s->n_racks; r++)
		ns->rack_jobs[r] += nj->map_rack[r];
	j->nass = nj;
	return 0;
}

static void nass_job_removed(struct sw_sched *s, struct sched_job *j)
{
	struct nass_sched *ns = s->pick_priv;

	for (uint32_t r = 0; r < s->n_racks; r++)
		ns->rack_jobs[r] -= j->nass->map_rack[r];
}

static void enable(struct sw_sched *s, struct sched_job *j)
{
	struct nass_sched *ns = s->pick_priv;

	if (j->nass->enabled)
		return;
	j->nass->enabled = true;
	if (ns->mech & SW_MECH_SARP)
		sw_sched_sarp_run(s, j);
}

/* An early SARP used SAMP's estimate: redo it, once, when the outputs are telling. */
static void sarp_refresh(struct sw_sched *s, struct sched_job *j)
{
	struct nass_sched *ns = s->pick_priv;

	if (j->nass->enabled && !j->nass->sarp_outputs && (ns->mech & SW_MECH_SARP) &&
	    sw_sched_sarp_outputs_ready(s, j))
		sw_sched_sarp_run(s, j);
}

static void nass_task_finished(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                               uint32_t task, double now)
{
	(void)task;
	(void)now;
	if (kind != SW_MAP)
		return;
	sarp_refresh(s, j);
	if (j->done[SW_MAP] == j->n_tasks[SW_MAP])
		enable(s, j);
}

/* The ratio from the outputs registered, as far as they tell. */
static void ratio_update(struct sched_job *j)
{
	struct nass_job *nj = j->nass;

	if (!nj->ratio_known && nj->out_input > 0)
		nj->ratio = (double)j->output_bytes / (double)nj->out_input;
}

/* Outputs may be registered after their map finished: they count for SARP as they come. */
static void nass_map_output(struct sw_sched *s, struct sched_job *j, uint32_t map, double now)
{
	struct nass_job *nj = j->nass;
	const struct sched_map *m = &j->maps[map];

	(void)now;
	nj->rack_out[s->nodes[m->output_node].rack] += m->output_bytes;
	nj->out_input += m->input_bytes;
	ratio_update(j);
	sarp_refresh(s, j);
}

/* A lost output no longer counts for SARP; reduces placed already stay where they run. */
static void nass_map_output_dropped(struct sw_sched *s, struct sched_job *j, uint32_t map)
{
	struct nass_job *nj = j->nass;
	const struct sched_map *m = &j->maps[map];

	nj->rack_out[s->nodes[m->output_node].rack] -= m->output_bytes;
	nj->out_input -= m->input_bytes;
	ratio_update(j);
}

/* A reduce no longer runs on its rack (SARP's count); a planned remote map is pending again. */
static void nass_task_requeued(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                               uint32_t task)
{
	struct nass_job *nj = j->nass;
	uint32_t pos;

	if (kind == SW_REDUCE) {
		nj->reduces_on[s->nodes[j->tasks[SW_REDUCE][task].node].rack]--;
		return;
	}
	/* planned[] is in map order: its cursor goes back to the map if it passed it. */
	pos = sw_sched_loc_lower_bound(nj->planned, 0, nj->planned_cur, task);
	if (pos < nj->planned_cur && nj->planned[pos] == task)
		nj->planned_cur = pos;
}

/* SAMP weighs racks by the map slots they have up. */
static void nass_node_changed(struct sw_sched *s, uint32_t node)
{
	struct nass_sched *ns = s->pick_priv;
	const struct sched_node *n = &s->nodes[node];

	if (n->down)
		ns->map_slots[n->rack] -= n->slots[SW_MAP];
	else
		ns->map_slots[n->rack] += n->slots[SW_MAP];
}

static bool heavy(const struct nass_job *nj)
{
	return nj->ratio > NASS_HEAVY_RATIO;
}

/* Line 4: a map of a job that prefers this rack: local first, then one SAMP planned remote. */
static bool preferred_map(struct nass_ctx *x, struct sched_job *j)
{
	struct nass_job *nj = j->nass;
	uint32_t m;

	if (!nj->map_rack[x->rack])
		return false;
	if (sw_sched_job_map_at(x->s, j, x->node, SW_LOCALITY_RACK, x->c))
		return true;
	while (nj->planned_cur < nj->n_planned &&
	       j->tasks[SW_MAP][nj->planned[nj->planned_cur]].state != TASK_PENDING)
		nj->planned_cur++;
	if (nj->planned_cur == nj->n_planned)
		return false;
	m = nj->planned[nj->planned_cur];
	*x->c = (struct sched_choice){j, m, SW_LOCALITY_REMOTE, j->maps[m].replicas[0]};
	return true;
}

static bool reduce_matches(struct nass_ctx *x, struct sched_job *j, enum nass_line line)
{
	struct nass_job *nj = j->nass;

	switch (line) {
	case LIGHT_REDUCE:
		return !heavy(nj);
	case HEAVY_REDUCE:
		return heavy(nj);
	case SARP_REDUCE:
		if (!heavy(nj) || !(x->ns->mech & SW_MECH_SARP))
			return false;
		enable(x->s, j);
		return nj->reduces_on[x->rack] < nj->preferred[x->rack];
	default:
		return true;
	}
}

static bool job_at_line(struct nass_ctx *x, struct sched_job *j, enum nass_line line)
{
	switch (line) {
	case PREF_MAP:
		return preferred_map(x, j);
	case LOCAL_MAP:
		return sw_sched_job_map_at(x->s, j, x->node, SW_LOCALITY_RACK, x->c);
	case ANY_MAP:
		return sw_sched_job_map_at(x->s, j, x->node, SW_LOCALITY_REMOTE, x->c);
	default:
		return reduce_matches(x, j, line) && sw_sched_job_reduce_next(j, x->c);
	}
}

/*
 * On a saturated rack, would the user run a map before a reduce of starvation window @p w?
 * Yes while it has a pending map of that window or an earlier one: the map list is in
 * arrival order, so its head tells. Fits do not enter (a map too big for this node still
 * keeps the user's shuffle waiting, as Figure 3's order does).
 */
static bool maps_first(const struct sched_pool *p, double w)
{
	const struct sched_job *m = p->runnable[SW_MAP].head;

	return m && m->nass->window <= w;
}

static bool costly(const struct nass_ctx *x, enum nass_line line)
{
	return line == ANY_MAP || (line == ANY_REDUCE && x->saturated);
}

/* sw-relaxed: has the pool been passed over long enough to take a costly task? */
static bool waited_enough(const struct sw_sched *s, double *since, double now)
{
	if (isnan(*since))
		*since = now;
	return now - *since >= s->cfg.relaxed_wait;
}

static bool nass_pick(struct sw_sched *s, struct sched_pool *pool, uint32_t node,
                      enum sw_task_kind kind, double now, struct sched_choice *c)
{
	struct nass_ctx x = {s, s->pick_priv, &s->nodes[node], node, s->nodes[node].rack, false, c};
	const enum nass_line *lines = map_lines;
	double *since = &x.ns->pools[pool->id].skip_since[kind];
	struct sched_job *g, *end;

	x.saturated = sw_sched_rack_saturated(s, x.rack);
	if (kind == SW_REDUCE)
		lines = x.saturated ? saturated_reduce_lines : reduce_lines;
	for (g = pool->runnable[kind].head; g; g = end) {
		if (kind == SW_REDUCE && x.saturated && maps_first(pool, g->nass->window))
			return false; /* lines 4-6 come first: the user runs a map, not a shuffle */
		for (end = g; end && end->nass->window == g->nass->window;
		     end = end->link[kind].next)
			;
		for (int l = 0; lines[l] != END_LINES; l++) {
			struct sched_job *j = g;

			while (j != end &&
			       !(sw_sched_job_fits(j, kind, x.n) && job_at_line(&x, j, lines[l])))
				j = j->link[kind].next;
			if (j == end)
				continue;
			if ((x.ns->mech & SW_MECH_RELAXED) && costly(&x, lines[l]) &&
			    !waited_enough(s, since, now))
				return false;
			*since = NAN;
			if (kind == SW_REDUCE) {
				enable(s, j);
				j->nass->reduces_on[x.rack]++;
			}
			x.ns->stats.launched[x.saturated][lines[l]]++;
			return true;
		}
	}
	return false;
}

const struct sched_pick_ops sw_sched_pick_nass = {
        .init = nass_init,
        .fini = nass_fini,
        .job_added = nass_job_added,
        .job_removed = nass_job_removed,
        .task_finished = nass_task_finished,
        .map_output = nass_map_output,
        .map_output_dropped = nass_map_output_dropped,
        .task_requeued = nass_task_requeued,
        .node_changed = nass_node_changed,
        .pick = nass_pick,
};

int sw_sched_nass_stats(const struct sw_sched *s, struct sw_nass_stats *st)
{
	if (!s || !st)
		return -EINVAL;
	if (s->policy->pick != &sw_sched_pick_nass)
		return -EOPNOTSUPP;
	*st = ((const struct nass_sched *)s->pick_priv)->stats;
	return 0;
}

int sw_sched_job_shuffle(const struct sw_sched *s, uint64_t job, struct sw_job_shuffle *st,
                         uint8_t *map_racks, uint32_t *reduces_per_rack, uint32_t n_racks)
{
	const struct sched_job *j;
	const struct nass_job *nj;

	if (!s || !st || ((map_racks || reduces_per_rack) && n_racks != s->n_racks))
		return -EINVAL;
	if (s->policy->pick != &sw_sched_pick_nass)
		return -EOPNOTSUPP;
	j = sw_sched_job_table_find(&s->jobs, job);
	if (!j)
		return -ENOENT;
	nj = j->nass;
	*st = (struct sw_job_shuffle){
	        .shuffle_input_ratio = nj->ratio,
	        .heavy = heavy(nj),
	        .reduces_enabled = nj->enabled,
	        .sarp_from_outputs = nj->sarp_outputs,
	        .n_map_racks = nj->n_map_racks,
	};
	if (map_racks)
		memcpy(map_racks, nj->map_rack, n_racks);
	if (reduces_per_rack)
		memcpy(reduces_per_rack, nj->preferred, n_racks * sizeof(*reduces_per_rack));
	return 0;
}
