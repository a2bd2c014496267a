/* SPDX-License-Identifier: MIT */
/*
 * RAS (ras, sw-ras): the utility of Eqs. 6-7 on the notes' Fig. 4.2 example, the placement
 * against exhaustive search on small clusters, reduces spread over nodes, and the policy
 * serving the placement at heartbeats (the PLAN step at a job add and at control instants);
 * Reverse-Adaptive's s_fit (Algorithm 2), its utility (Eq. 14) and the integral of f(t).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixture.h"
#include "ras.h"
#include "sw_sched_aria.h"

static void map_utility_follows_figure_4_2(void **state)
{
	(void)state;
	/* s_req 20, s_pend 35 (the notes' 3.4). */
	assert_float_equal(sw_sched_ras_utility_map(1, 20, 35), -1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(10, 20, 35), log(10) / log(20) - 1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(10, 20, 35), -0.2314, 1e-4);
	assert_float_equal(sw_sched_ras_utility_map(20, 20, 35), 0, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(27.5, 20, 35), 0.5, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(35, 20, 35), 1, 1e-12);
	/* Edges: no slot is the finite floor; a job ahead of its goal is on the line at once;
	 * s_req = s_pend has no line, only the cap. */
	assert_true(sw_sched_ras_utility_map(0, 20, 35) == RAS_UTIL_NONE);
	assert_true(sw_sched_ras_utility_map(0, 0.5, 35) == RAS_UTIL_NONE);
	assert_float_equal(sw_sched_ras_utility_map(0, -5, 35), 5.0 / 40, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(4, 5, 5), log(4) / log(5) - 1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(5, 5, 5), 1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_map(0, 0, 0), 1, 1e-12);
}

static void reduce_utility_is_minus_one_to_zero(void **state)
{
	(void)state;
	assert_float_equal(sw_sched_ras_utility_reduce(0, 10), -1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_reduce(1, 10), -1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_reduce(5, 10), log(5) / log(10) - 1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_reduce(10, 10), 0, 1e-12);
	/* One reducer (Combine, Select): placed or not. */
	assert_float_equal(sw_sched_ras_utility_reduce(0, 1), -1, 1e-12);
	assert_float_equal(sw_sched_ras_utility_reduce(1, 1), 0, 1e-12);
	assert_float_equal(sw_sched_ras_utility_reduce(0, 0), 0, 1e-12);
}

/* ---- Placement against exhaustive search --------------------------------------------- */

#define MAX_J 3
#define MAX_N 3

struct problem {
	struct ras_node_in nodes[MAX_N];
	struct ras_job_in jobs[MAX_J];
	uint32_t n_nodes, n_jobs;
};

static double lowest_utility(const struct problem *p, const uint32_t alloc[MAX_J])
{
	double low = 1;

	for (uint32_t j = 0; j < p->n_jobs; j++)
		low = fmin(low, sw_sched_ras_utility_map(alloc[j], p->jobs[j].need.s_req,
		                                         p->jobs[j].need.s_pend) +
		                        sw_sched_ras_utility_reduce(p->jobs[j].pinned[SW_REDUCE],
		                                                    p->jobs[j].need.r_pend));
	return low;
}

/* Every count of maps of every job on node @p n and after, within slots and capacity. */
static double best_from(const struct problem *p, uint32_t n, uint32_t j, uint32_t alloc[MAX_J],
                        struct sw_resources used, uint32_t tasks)
{
	const struct ras_node_in *node;
	uint32_t had;
	double best;

	if (n == p->n_nodes)
		return lowest_utility(p, alloc);
	if (j == p->n_jobs)
		return n + 1 == p->n_nodes ? best_from(p, n + 1, 0, alloc, used, 0)
		                           : best_from(p, n + 1, 0, alloc, p->nodes[n + 1].used, 0);
	node = &p->nodes[n];
	had = alloc[j];
	best = best_from(p, n, j + 1, alloc, used, tasks);
	for (uint32_t c = 1;; c++) {
		const struct sw_resources *d = &p->jobs[j].demand[SW_MAP];
		double u;

		used.cpu += d->cpu;
		used.mem_gb += d->mem_gb;
		used.io += d->io;
		if (tasks + c > node->slots[SW_MAP] || alloc[j] + 1 > p->jobs[j].need.s_pend ||
		    used.cpu > node->capacity.cpu + 1e-9 ||
		    used.mem_gb > node->capacity.mem_gb + 1e-9 ||
		    used.io > node->capacity.io + 1e-9)
			break;
		alloc[j]++;
		u = best_from(p, n, j + 1, alloc, used, tasks + c);
		best = fmax(best, u);
	}
	alloc[j] = had;
	return best;
}

/* The pinned reduces hold their room on their nodes (they take no map slot). */
static double exhaustive(const struct problem *p)
{
	uint32_t alloc[MAX_J] = {0};

	return best_from(p, 0, 0, alloc, p->nodes[0].used, 0);
}

static double uniform(double lo, double hi)
{
	return lo + (hi - lo) * rand() / (double)RAND_MAX;
}

static void random_problem(struct problem *p, uint32_t n_nodes, uint32_t n_jobs, bool same_demand)
{
	memset(p, 0, sizeof(*p));
	p->n_nodes = n_nodes;
	p->n_jobs = n_jobs;
	for (uint32_t n = 0; n < n_nodes; n++)
		p->nodes[n] = (struct ras_node_in){
		        .capacity = {uniform(1, 4), uniform(1, 4), uniform(1, 4)},
		        .slots = {(uint16_t)(1 + rand() % 4), 0},
		};
	for (uint32_t j = 0; j < n_jobs; j++) {
		struct ras_job_in *in = &p->jobs[j];

		in->need.s_pend = 1 + (uint32_t)(rand() % 5);
		in->need.s_req = uniform(-1, in->need.s_pend);
		in->demand[SW_MAP] = same_demand && j > 0 ? p->jobs[0].demand[SW_MAP]
		                                          : (struct sw_resources){uniform(0.2, 2),
		                                                                  uniform(0.2, 2),
		                                                                  uniform(0.2, 2)};
	}
}

/* Gives each job of @p p a running reduce, pinned on a random node where it fits (its
 * reduce demand random too); every reduce of the job is then placed (r_pend 1). */
static void pin_random_reduces(struct problem *p)
{
	for (uint32_t j = 0; j < p->n_jobs; j++) {
		struct ras_job_in *in = &p->jobs[j];
		struct ras_node_in *node = &p->nodes[rand() % p->n_nodes];
		struct sw_resources d = {uniform(0, 1), uniform(0, 1), uniform(0, 1)};

		in->demand[SW_REDUCE] = d;
		in->need.r_pend = 1;
		if (node->used.cpu + d.cpu > node->capacity.cpu ||
		    node->used.mem_gb + d.mem_gb > node->capacity.mem_gb ||
		    node->used.io + d.io > node->capacity.io)
			continue; /* not running: the placement puts it first, where it fits */
		node->used.cpu += d.cpu;
		node->used.mem_gb += d.mem_gb;
		node->used.io += d.io;
		node->pinned[SW_REDUCE]++;
		node->slots[SW_REDUCE]++;
		in->pinned[SW_REDUCE] = 1;
	}
}

/* Runs the placement and checks it is feasible: no node over its slots or capacity, each
 * job's count the sum of its per-node counts. @return its lowest utility. */
static double placed(const struct problem *p)
{
	uint32_t alloc[MAX_J][SW_KINDS], place[MAX_J * MAX_N * SW_KINDS] = {0}, n_puts;
	struct ras_put puts[64];
	char scratch[4096];
	double low;

	assert_true(sw_sched_ras_place_scratch(p->n_jobs, p->n_nodes) <= sizeof(scratch));
	low = sw_sched_ras_place(p->nodes, p->n_nodes, p->jobs, p->n_jobs, alloc, puts, &n_puts,
	                         scratch);
	for (uint32_t i = 0; i < n_puts; i++) {
		assert_int_equal(puts[i].kind, SW_MAP); /* the pinned reduces are every reduce */
		place[(puts[i].job * p->n_nodes + puts[i].node) * SW_KINDS + SW_MAP]++;
	}
	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct sw_resources used = p->nodes[n].used;
		uint32_t tasks = 0;

		for (uint32_t j = 0; j < p->n_jobs; j++) {
			uint32_t c = place[(j * p->n_nodes + n) * SW_KINDS + SW_MAP];

			tasks += c;
			used.cpu += c * p->jobs[j].demand[SW_MAP].cpu;
			used.mem_gb += c * p->jobs[j].demand[SW_MAP].mem_gb;
			used.io += c * p->jobs[j].demand[SW_MAP].io;
		}
		assert_true(tasks <= p->nodes[n].slots[SW_MAP]);
		assert_true(used.cpu <= p->nodes[n].capacity.cpu + 1e-9);
		assert_true(used.mem_gb <= p->nodes[n].capacity.mem_gb + 1e-9);
		assert_true(used.io <= p->nodes[n].capacity.io + 1e-9);
	}
	for (uint32_t j = 0; j < p->n_jobs; j++) {
		uint32_t sum = 0;

		for (uint32_t n = 0; n < p->n_nodes; n++)
			sum += place[(j * p->n_nodes + n) * SW_KINDS + SW_MAP];
		assert_int_equal(alloc[j][SW_MAP], sum);
		assert_true(alloc[j][SW_MAP] <= p->jobs[j].need.s_pend);
	}
	assert_float_equal(low,
	                   lowest_utility(p, (uint32_t[MAX_J]){alloc[0][SW_MAP], alloc[1][SW_MAP],
	                                                       alloc[2][SW_MAP]}),
	                   1e-12);
	return low;
}

/* On one node, water-filling reaches the best lowest utility whatever the demands: every
 * slot went to a job while it was the lowest, so no slot can move without bringing a job
 * back to or below the final lowest. */
static void one_node_placement_is_optimal(void **state)
{
	(void)state;
	srand(12);
	for (int i = 0; i < 3000; i++) {
		struct problem p;

		random_problem(&p, 1, 1 + (uint32_t)(rand() % MAX_J), false);
		assert_float_equal(placed(&p), exhaustive(&p), 1e-9);
	}
}

/* On several nodes, when every job's map has the same demand, where a slot lands does not
 * matter: optimal too. */
static void equal_demands_on_several_nodes_are_optimal(void **state)
{
	(void)state;
	srand(13);
	for (int i = 0; i < 1000; i++) {
		struct problem p;

		random_problem(&p, 2 + (uint32_t)(rand() % (MAX_N - 1)),
		               1 + (uint32_t)(rand() % MAX_J), true);
		assert_float_equal(placed(&p), exhaustive(&p), 1e-9);
	}
}

/* Reduces already running stay where they are and hold their room: the maps placed beside
 * them still reach the best lowest utility on one node, and on several with equal demands. */
static void placement_beside_pinned_reduces_is_optimal(void **state)
{
	(void)state;
	srand(15);
	for (int i = 0; i < 2000; i++) {
		struct problem p;

		if (i % 2)
			random_problem(&p, 1, 1 + (uint32_t)(rand() % MAX_J), false);
		else
			random_problem(&p, 2 + (uint32_t)(rand() % (MAX_N - 1)),
			               1 + (uint32_t)(rand() % MAX_J), true);
		pin_random_reduces(&p);
		for (uint32_t j = 0; j < p.n_jobs; j++)
			p.jobs[j].need.r_pend = p.jobs[j].pinned[SW_REDUCE];
		assert_float_equal(placed(&p), exhaustive(&p), 1e-9);
	}
}

/* Mixed demands on several nodes are bin packing (NP-hard, the thesis's class-constrained
 * multiple knapsack): first fit may strand room. The placement is always feasible and never
 * claims more than the optimum; how often it reaches it is printed (scheduler/README.md). */
static void mixed_demands_on_several_nodes_are_feasible_and_near_optimal(void **state)
{
	int equal = 0, n = 2000;
	double worst = 0;

	(void)state;
	srand(14);
	for (int i = 0; i < n; i++) {
		struct problem p;
		double got, best;

		random_problem(&p, 2 + (uint32_t)(rand() % (MAX_N - 1)), 2 + (uint32_t)(rand() % 2),
		               false);
		got = placed(&p);
		best = exhaustive(&p);
		assert_true(got <= best + 1e-9);
		if (got >= best - 1e-9)
			equal++;
		else if (best > RAS_UTIL_NONE / 2 && got > RAS_UTIL_NONE / 2)
			worst = fmax(worst, best - got);
	}
	print_message("mixed demands: optimal lowest utility in %d of %d problems; largest gap "
	              "%.3f where no job is left without a map slot\n",
	              equal, n, worst);
	assert_true(equal > 0);
}

static void reduces_are_spread_one_per_node_first(void **state)
{
	struct ras_node_in nodes[4];
	struct ras_job_in jobs[2] = {
	        {.need = {.r_pend = 3}, .demand = {{0}, {1, 1, 0}}},
	        {.need = {.r_pend = 3}, .demand = {{0}, {1, 1, 0}}},
	};
	uint32_t alloc[2][SW_KINDS], n_puts, place[2][4] = {{0}};
	struct ras_put puts[16];
	char scratch[1024];

	(void)state;
	for (int n = 0; n < 4; n++)
		nodes[n] = (struct ras_node_in){.capacity = {8, 16, 0}, .slots = {2, 2}};
	/* 6 reduces on 4 nodes: one each first, job 1's continuing where job 0's stopped,
	 * then a second on nodes 0 and 1. No maps left and every reduce placed: u = 1 + 0. */
	assert_float_equal(sw_sched_ras_place(nodes, 4, jobs, 2, alloc, puts, &n_puts, scratch), 1,
	                   1e-12);
	assert_int_equal(alloc[0][SW_REDUCE], 3);
	assert_int_equal(alloc[1][SW_REDUCE], 3);
	assert_int_equal(n_puts, 6);
	for (uint32_t i = 0; i < n_puts; i++)
		place[puts[i].job][puts[i].node]++;
	for (int n = 0; n < 4; n++)
		assert_int_equal(place[0][n] + place[1][n], n < 2 ? 2 : 1);
	assert_int_equal(place[1][3], 1);
	/* A reduce already running on node 2 counts: node 2 gets no second while another node
	 * has room for a first. */
	nodes[2].pinned[SW_REDUCE] = 1;
	nodes[2].used = jobs[0].demand[SW_REDUCE];
	jobs[0].pinned[SW_REDUCE] = 1;
	sw_sched_ras_place(nodes, 4, jobs, 2, alloc, puts, &n_puts, scratch);
	assert_int_equal(n_puts, 5);
	memset(place, 0, sizeof(place));
	for (uint32_t i = 0; i < n_puts; i++)
		place[puts[i].job][puts[i].node]++;
	assert_int_equal(place[0][0] + place[0][1] + place[0][3], 2);
	assert_int_equal(place[0][2] + place[1][2], 0);
	nodes[2] = nodes[0];
	jobs[0].pinned[SW_REDUCE] = 0;
	/* No room: memory for one reduce per node, 4 of the 6 placed, the older job's first. */
	for (int n = 0; n < 4; n++)
		nodes[n].capacity.mem_gb = 1.5;
	sw_sched_ras_place(nodes, 4, jobs, 2, alloc, puts, &n_puts, scratch);
	assert_int_equal(alloc[0][SW_REDUCE], 3);
	assert_int_equal(alloc[1][SW_REDUCE], 1);
}

/* ---- The policy ---------------------------------------------------------------------- */

/* One node of 4 map slots, resources for all of them. */
static struct sw_sched *one_node(struct fx_cluster *c, const char *policy)
{
	fx_cluster_init(c, 1, 1);
	c->nodes[0].map_slots = 4;
	c->nodes[0].capacity = (struct sw_resources){.cpu = 8, .mem_gb = 16, .io = 8};
	return fx_sched(c, policy, 1);
}

/* Counts, per job id 1 to 3, the tasks of one heartbeat offering @p free map slots. */
static void offer_maps(struct sw_sched *s, uint16_t free, double now, int got[4])
{
	struct sw_assignment out[8];
	int n = fx_offer(s, 0, SW_MAP, free, now, out);

	got[1] = got[2] = got[3] = 0;
	for (int i = 0; i < n; i++) {
		assert_true(out[i].job >= 1 && out[i].job <= 3);
		got[out[i].job]++;
	}
}

static void job_ahead_of_its_goal_gets_one_slot_and_needy_job_the_rest(void **state)
{
	static const char *const policies[] = {"ras", "sw-ras"};

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct fx_cluster c;
		struct fx_job ahead, needy;
		struct sw_sched *s = one_node(&c, policies[p]);
		struct sw_assignment a;
		int got[4];

		/* ahead: 11 maps of 10 s, goal 10,000 s: after its first map it needs
		 * 100 / 9,990 of a slot. needy: no deadline, so it needs all 10 of its maps. */
		fx_job_init(&ahead, 1, 0, 0, 11, 0, 1);
		ahead.spec.deadline = 10000;
		assert_int_equal(sw_sched_job_add(s, &ahead.spec, 0), 0);
		a = fx_one(s, 0, SW_MAP, 0);
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, a.task, 10), 0);
		fx_job_init(&needy, 2, 0, 10, 10, 0, 1);
		assert_int_equal(sw_sched_job_add(s, &needy.spec, 10), 0);
		/* Water-filling: both start at no slot (the older first), then ahead sits at
		 * u = (1 - 0.01) / (10 - 0.01) > 0 while needy stays below 0 until all 10. */
		offer_maps(s, 4, 10, got);
		assert_int_equal(got[1], 1);
		assert_int_equal(got[2], 3);
		sw_sched_destroy(s);
	}
}

static void slots_beyond_the_plan_go_to_the_lowest_utility(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b;
	struct sw_sched *s = one_node(&c, "ras");
	int got[4];

	(void)state;
	/* Both need all their maps: 2 + 2 on the 4 slots, whatever the arrival order. */
	fx_job_init(&a, 1, 0, 0, 6, 0, 1);
	fx_job_init(&b, 2, 0, 0, 6, 0, 1);
	assert_int_equal(sw_sched_job_add(s, &a.spec, 0), 0);
	assert_int_equal(sw_sched_job_add(s, &b.spec, 0), 0);
	offer_maps(s, 4, 0, got);
	assert_int_equal(got[1], 2);
	assert_int_equal(got[2], 2);
	sw_sched_destroy(s);
}

static void io_bound_and_cpu_bound_jobs_share_a_node(void **state)
{
	struct fx_cluster c;
	struct fx_job cpu, io;
	struct sw_sched *s = one_node(&c, "ras");
	int got[4];

	(void)state;
	/* Node: 8 cores, io 8, 4 slots. cpu: 3.5 cores per map; io: io 4 (and half a core)
	 * per map. Each fits twice; together they fill the 4 slots, which neither could alone. */
	fx_job_init(&cpu, 1, 0, 0, 6, 0, 1);
	cpu.spec.map_demand = (struct sw_resources){.cpu = 3.5, .mem_gb = 1};
	fx_job_init(&io, 2, 0, 0, 6, 0, 1);
	io.spec.map_demand = (struct sw_resources){.cpu = 0.5, .mem_gb = 1, .io = 4};
	assert_int_equal(sw_sched_job_add(s, &cpu.spec, 0), 0);
	assert_int_equal(sw_sched_job_add(s, &io.spec, 0), 0);
	offer_maps(s, 4, 0, got);
	assert_int_equal(got[1], 2);
	assert_int_equal(got[2], 2);
	/* A demand no node can hold is refused at add. */
	io.spec.id = 3;
	io.spec.map_demand.io = 9;
	assert_int_equal(sw_sched_job_add(s, &io.spec, 0), -EINVAL);
	sw_sched_destroy(s);
}

/*
 * One node of 8 cores: job a (id 1) runs its second map (4 cores) and its reduce, which holds
 * @p shuffle while it copies and 4 cores once a's maps are done; job b (id 2, 2 maps of 4
 * cores) arrives. @return b's maps the next heartbeat offering 2 slots starts; *r: a's reduce.
 */
static int maps_beside_a_copying_reduce(struct sw_sched *s, struct fx_job *a, struct fx_job *b,
                                        const struct sw_resources *shuffle, struct sw_assignment *r)
{
	int got[4];

	fx_job_init(a, 1, 0, 0, 2, 1, 1);
	a->spec.map_demand = (struct sw_resources){.cpu = 4, .mem_gb = 1};
	a->spec.reduce_demand = (struct sw_resources){.cpu = 4, .mem_gb = 2, .io = 4};
	a->spec.shuffle_demand = *shuffle;
	fx_job_init(b, 2, 0, 0, 2, 0, 1);
	b->spec.map_demand = (struct sw_resources){.cpu = 4, .mem_gb = 1};
	assert_int_equal(sw_sched_job_add(s, &a->spec, 0), 0);
	offer_maps(s, 1, 0, got);
	assert_int_equal(got[1], 1);
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, 0, 10), 0);
	offer_maps(s, 1, 10, got);
	assert_int_equal(got[1], 1);
	*r = fx_one(s, 0, SW_REDUCE, 10);
	assert_int_equal(r->job, 1);
	assert_int_equal(sw_sched_job_add(s, &b->spec, 10), 0);
	offer_maps(s, 2, 11, got);
	return got[2];
}

static void a_copying_reduce_holds_its_shuffle_demand_until_the_maps_end(void **state)
{
	static const char *const policies[] = {"fifo", "ras"};
	/* Table 4.2's "-" CPU in the shuffle phase: memory and a little I/O only. */
	static const struct sw_resources copying = {.mem_gb = 2, .io = 0.1};

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct fx_cluster c;
		struct fx_job a, b, c3;
		struct sw_sched *s = one_node(&c, policies[p]);
		struct sw_assignment r;
		int got[4];

		/* a's map (4 cores) and its copying reduce (0): b's map fits beside them. */
		assert_int_equal(maps_beside_a_copying_reduce(s, &a, &b, &copying, &r), 1);
		/* a's last map ends: its reduce holds its 4 cores, b's map the other 4. */
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, 1, 20), 0);
		offer_maps(s, 2, 21, got);
		assert_int_equal(got[2], 0);
		/* b's map ends: room for its other one. */
		assert_int_equal(sw_sched_task_finished(s, 2, SW_MAP, 0, 30), 0);
		offer_maps(s, 2, 31, got);
		assert_int_equal(got[2], 1);
		/* a's map 0's output is lost: its reduce copies again and gives back its cores,
		 * so the map, run again, fits beside b's last. */
		assert_int_equal(sw_sched_map_output_lost(s, 1, 0, 40), 0);
		offer_maps(s, 2, 41, got);
		assert_int_equal(got[1], 1);
		/* It ends: the reduce holds its cores again, c's map waits for b's to end. */
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, 0, 50), 0);
		fx_job_init(&c3, 3, 0, 50, 2, 0, 1);
		c3.spec.map_demand = b.spec.map_demand;
		assert_int_equal(sw_sched_job_add(s, &c3.spec, 50), 0);
		offer_maps(s, 2, 51, got);
		assert_int_equal(got[3], 0);
		assert_int_equal(sw_sched_task_finished(s, 2, SW_MAP, 1, 60), 0);
		offer_maps(s, 2, 61, got);
		assert_int_equal(got[3], 1);
		sw_sched_destroy(s);
	}
}

static void a_reduce_without_a_shuffle_demand_holds_its_reduce_demand(void **state)
{
	static const struct sw_resources none = {0};
	struct fx_cluster c;
	struct fx_job a, b;
	struct sw_sched *s = one_node(&c, "fifo");
	struct sw_assignment r;

	(void)state;
	/* a's copying reduce holds its 4 cores: b's map waits. */
	assert_int_equal(maps_beside_a_copying_reduce(s, &a, &b, &none, &r), 0);
	/* A shuffle demand no node can hold is refused at add like the others. */
	b.spec.id = 3;
	b.spec.n_reduces = 1;
	b.spec.shuffle_demand = (struct sw_resources){.mem_gb = 17};
	assert_int_equal(sw_sched_job_add(s, &b.spec, 10), -EINVAL);
	sw_sched_destroy(s);
}

/*
 * Per-node targets: one node of 8 cores, 2 GB, 4 map slots and a reduce slot. a (one map, a
 * reduce of 1.2 GB) has finished its map, so its reduce may run; b (8 maps of 0.5 GB)
 * arrives. RAS's plan puts a's reduce on the node first and one of b's maps beside it, and
 * b's maps take no more than the plan left them, though the free slots would hold four: the
 * reduce, offered its slot after the maps', finds its room. FIFO, with no plan, fills the
 * memory with b's maps and the reduce waits.
 */
static void a_planned_reduce_keeps_its_room_on_its_node(void **state)
{
	static const char *const policies[] = {"fifo", "ras"};

	(void)state;
	for (int p = 0; p < 2; p++) {
		struct fx_cluster c;
		struct fx_job a, b;
		struct sw_sched *s;
		struct sw_assignment out[4];
		int got[4], ras = p == 1;

		fx_cluster_init(&c, 1, 1);
		c.nodes[0].map_slots = 4;
		c.nodes[0].reduce_slots = 1;
		c.nodes[0].capacity = (struct sw_resources){.cpu = 8, .mem_gb = 2, .io = 8};
		s = fx_sched(&c, policies[p], 1);
		fx_job_init(&a, 1, 0, 0, 1, 1, 1);
		a.spec.map_demand = (struct sw_resources){.cpu = 1, .mem_gb = 0.5};
		a.spec.reduce_demand = (struct sw_resources){.cpu = 1, .mem_gb = 1.2};
		assert_int_equal(sw_sched_job_add(s, &a.spec, 0), 0);
		offer_maps(s, 1, 0, got);
		assert_int_equal(got[1], 1);
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, 0, 10), 0);
		fx_job_init(&b, 2, 0, 10, 8, 0, 1);
		b.spec.map_demand = a.spec.map_demand;
		assert_int_equal(sw_sched_job_add(s, &b.spec, 10), 0);
		offer_maps(s, 4, 10, got);
		assert_int_equal(got[2], ras ? 1 : 4);
		assert_int_equal(fx_offer(s, 0, SW_REDUCE, 1, 10, out), ras);
		/* The room is kept only until its task starts: b's next map fits beside it. */
		assert_int_equal(sw_sched_task_finished(s, 2, SW_MAP, 0, 20), 0);
		offer_maps(s, 1, 20, got);
		assert_int_equal(got[2], 1);
		sw_sched_destroy(s);
	}
}

/* A node running more of a job's maps than the plan put there starts the plan's as they
 * end: a runs 4 maps alone, b arrives and the plan puts 2 + 2 on the node; each of a's maps
 * that ends frees a slot for b's targets, though b's other target there is not free yet. */
static void a_node_over_its_targets_starts_the_plans_tasks_as_others_end(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b;
	struct sw_sched *s = one_node(&c, "ras");
	int got[4];

	(void)state;
	fx_job_init(&a, 1, 0, 0, 8, 0, 1);
	fx_job_init(&b, 2, 0, 1, 8, 0, 1);
	assert_int_equal(sw_sched_job_add(s, &a.spec, 0), 0);
	offer_maps(s, 4, 0, got);
	assert_int_equal(got[1], 4);
	assert_int_equal(sw_sched_job_add(s, &b.spec, 1), 0);
	offer_maps(s, 0, 1, got); /* the heartbeat that plans again */
	for (uint32_t m = 0; m < 2; m++) {
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, m, 2 + m), 0);
		offer_maps(s, 1, 2 + m, got);
		assert_int_equal(got[2], 1);
	}
	sw_sched_destroy(s);
}

/*
 * A job slot stays its job's until the next plan (the thesis's Task Scheduler gives a freed
 * slot "a task of the appropriate type from the appropriate job"): on a node of 1 GB, b
 * (maps of 0.25 GB) runs 2 maps, a (0.5 GB) one, and the plan puts one map each of b, a and
 * c (0.25 GB) there. When a's map ends, its room is a's again: c's planned map and b's maps
 * over their target do not take the 0.5 GB that a's next map needs.
 */
static void a_job_slot_freed_by_its_job_stays_its_jobs(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b, d;
	struct sw_assignment out[4];
	struct sw_sched *s;
	int got[4], n;

	(void)state;
	fx_cluster_init(&c, 1, 1);
	c.nodes[0].map_slots = 4;
	c.nodes[0].capacity = (struct sw_resources){.cpu = 8, .mem_gb = 1, .io = 8};
	s = fx_sched(&c, "ras", 1);
	fx_job_init(&b, 2, 0, 0, 8, 0, 1);
	b.spec.map_demand = (struct sw_resources){.mem_gb = 0.25};
	assert_int_equal(sw_sched_job_add(s, &b.spec, 0), 0);
	offer_maps(s, 2, 0, got);
	assert_int_equal(got[2], 2);
	fx_job_init(&a, 1, 0, 1, 8, 0, 1);
	a.spec.map_demand = (struct sw_resources){.mem_gb = 0.5};
	assert_int_equal(sw_sched_job_add(s, &a.spec, 1), 0);
	n = fx_offer(s, 0, SW_MAP, 1, 1, out);
	assert_int_equal(n, 1);
	assert_int_equal(out[0].job, 1);
	fx_job_init(&d, 3, 0, 2, 8, 0, 1);
	d.spec.map_demand = b.spec.map_demand;
	assert_int_equal(sw_sched_job_add(s, &d.spec, 2), 0);
	offer_maps(s, 0, 2, got); /* the heartbeat that plans again: b, a, c one each */
	assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, out[0].task, 3), 0);
	offer_maps(s, 2, 3, got);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2] + got[3], 0);
	sw_sched_destroy(s);
}

static void the_plan_follows_the_control_cycle(void **state)
{
	struct fx_cluster c;
	struct fx_job a, b;
	struct sw_sched *s = one_node(&c, "ras");
	int got[4];

	(void)state;
	/* a (8 maps, no deadline) alone: the plan gives it all 4 slots; it takes 2 now. */
	fx_job_init(&a, 1, 0, 0, 8, 0, 1);
	assert_int_equal(sw_sched_job_add(s, &a.spec, 0), 0);
	offer_maps(s, 2, 0, got);
	assert_int_equal(got[1], 2);
	/* b arrives: the add makes the next heartbeat plan again, 2 + 2; a has its 2. */
	fx_job_init(&b, 2, 0, 1, 8, 0, 1);
	assert_int_equal(sw_sched_job_add(s, &b.spec, 1), 0);
	offer_maps(s, 2, 1, got);
	assert_int_equal(got[2], 2);
	/* a's two maps finish; until the next control instant (30 s) the plan holds, so a
	 * gets its 2 back and b, at its target, waits behind it. */
	for (uint32_t m = 0; m < 2; m++)
		assert_int_equal(sw_sched_task_finished(s, 1, SW_MAP, m, 5), 0);
	offer_maps(s, 1, 5, got);
	assert_int_equal(got[1], 1);
	/* Soft deadlines: only one beyond the keys is refused. */
	a.spec.id = 9;
	a.spec.deadline = 2e12;
	assert_int_equal(sw_sched_job_add(s, &a.spec, 6), -EINVAL);
	a.spec.deadline = 1;
	assert_int_equal(sw_sched_job_add(s, &a.spec, 6), 0);
	sw_sched_destroy(s);
}

/* Reverse-Adaptive's u^M (Eq. 14) on the notes' Fig. 5.17 example: s_fit 10, s_req 15,
 * s_pend 35. */
static void fit_utility_follows_figure_5_17(void **state)
{
	(void)state;
	assert_float_equal(sw_sched_ras_utility_fit(5, 10, 15, 35), -0.30, 0.005);
	assert_float_equal(sw_sched_ras_utility_fit(10, 10, 15, 35), 0, 1e-12);
	assert_float_equal(sw_sched_ras_utility_fit(12.5, 10, 15, 35), 0.25, 1e-12);
	assert_float_equal(sw_sched_ras_utility_fit(15, 10, 15, 35), 0.5, 1e-12);
	assert_float_equal(sw_sched_ras_utility_fit(25, 10, 15, 35), 0.75, 1e-12);
	assert_float_equal(sw_sched_ras_utility_fit(35, 10, 15, 35), 1, 1e-12);
	/* No slot is the floor; s_req at or below s_fit: one line from s_fit to s_pend; a job
	 * whose maps all fit later (s_fit 0) is on the line from its first slot. */
	assert_true(sw_sched_ras_utility_fit(0, 10, 15, 35) == RAS_UTIL_NONE);
	assert_float_equal(sw_sched_ras_utility_fit(20, 10, 8, 35), 10.0 / 25, 1e-12);
	assert_float_equal(sw_sched_ras_utility_fit(0, 0, 15, 35), 0, 1e-12);
	assert_float_equal(sw_sched_ras_utility_fit(3, 0, 6, 35), 0.25, 1e-12);
}

/* f(t): half the slots taken on [0, 100), a quarter from 100 on, nothing before 0. */
static const struct sw_sched_tx_point avail_f[] = {{0, 0.5}, {100, 0.25}};
static const struct ras_avail avail = {avail_f, 2};

static void available_slot_seconds_integrate_the_transactional_load(void **state)
{
	(void)state;
	assert_float_equal(sw_sched_ras_avail(&avail, 10, 50, 150), 10 * (50 * 0.5 + 50 * 0.75),
	                   1e-9);
	assert_float_equal(sw_sched_ras_avail(&avail, 10, -20, 10), 10 * (20 + 10 * 0.5), 1e-9);
	assert_float_equal(sw_sched_ras_avail(&avail, 10, 200, 300), 10 * 100 * 0.75, 1e-9);
	assert_float_equal(sw_sched_ras_avail(NULL, 10, 0, 30), 300, 1e-9);
	assert_float_equal(sw_sched_ras_avail(&avail, 10, 30, 30), 0, 1e-9);
	assert_float_equal(sw_sched_ras_avail(&avail, 10, 40, 30), 0, 1e-9);
}

/*
 * Two jobs of 10 s maps on 10 slots, at t = 0 with a 10 s cycle: A (deadline 100, 80 maps)
 * and B (deadline 50, 30 maps). Without a transactional load [50, 100] holds 50 of A's maps;
 * [10, 50] (400 slot-seconds) the other 30 of A's first, then 10 of B's: B must run 20 now.
 * With half the slots taken on [10, 50], A takes all 200 slot-seconds left there (20 maps):
 * A must run 10 now and B all 30. A job past its deadline must run everything now.
 */
static void reverse_fit_leaves_for_now_what_no_later_period_holds(void **state)
{
	struct ras_rfit_job jobs[3] = {{100, 10, 80}, {50, 10, 30}, {-5, 10, 7}};
	static const struct sw_sched_tx_point f[] = {{10, 0.5}, {50, 0}};
	struct ras_avail peak = {f, 2};
	struct ras_rfit_order order[3];
	uint32_t s_fit[3];

	(void)state;
	sw_sched_ras_reverse_fit(jobs, 2, NULL, 10, 0, 10, order, s_fit);
	assert_int_equal(s_fit[0], 0);
	assert_int_equal(s_fit[1], 20);
	sw_sched_ras_reverse_fit(jobs, 2, &peak, 10, 0, 10, order, s_fit);
	assert_int_equal(s_fit[0], 10);
	assert_int_equal(s_fit[1], 30);
	sw_sched_ras_reverse_fit(jobs, 3, NULL, 10, 0, 10, order, s_fit);
	assert_int_equal(s_fit[0], 0);
	assert_int_equal(s_fit[1], 20);
	assert_int_equal(s_fit[2], 7);
}

/*
 * The policy on one node of 4 map slots, 10 s maps known from the jobs' profiles, a 30 s
 * cycle: A (8 maps, deadline 1,000) and B (8 maps, deadline 50), both at 0. Without a
 * transactional load every map of both fits before its deadline (s_fit 0), and the slots go by
 * Eq. 14 from s_fit = 0: B (s_req 1.6) 3, A (s_req 0.08) 1. With the load holding half the
 * slots on [30, 50), [30, 50] holds only 4 of B's maps: B must run the other 4 now, and below
 * its s_fit its utility is under A's 0, so it gets all 4 slots.
 */
static void reverse_adaptive_gives_what_cannot_wait_to_the_job_that_needs_it(void **state)
{
	static const struct sw_job_profile ten_s = {.map_min = 10, .map_avg = 10, .map_max = 10};
	static const struct sw_sched_tx_point f[] = {{30, 0.5}, {50, 0}};

	(void)state;
	for (int peak = 0; peak < 2; peak++) {
		struct fx_cluster c;
		struct fx_job a, b;
		struct sw_sched *s = one_node(&c, "reverse-adaptive");
		int got[4];

		if (peak)
			assert_int_equal(sw_sched_transactional(s, f, 2), 0);
		fx_job_init(&a, 1, 0, 0, 8, 0, 1);
		a.spec.deadline = 1000;
		a.spec.profile = &ten_s;
		fx_job_init(&b, 2, 0, 0, 8, 0, 1);
		b.spec.deadline = 50;
		b.spec.profile = &ten_s;
		assert_int_equal(sw_sched_job_add(s, &a.spec, 0), 0);
		assert_int_equal(sw_sched_job_add(s, &b.spec, 0), 0);
		offer_maps(s, 4, 0, got);
		assert_int_equal(got[1], peak ? 0 : 1);
		assert_int_equal(got[2], peak ? 4 : 3);
		sw_sched_destroy(s);
	}
}

/* The plan places maps only on the slots the load leaves at its instant: at f = 0.5, 2 of
 * the node's 4; a job without a deadline then runs beyond its target only on slots the plan
 * did not foresee, after a job below its target. */
static void reverse_adaptive_plans_on_the_slots_the_load_leaves(void **state)
{
	static const struct sw_sched_tx_point f[] = {{0, 0.5}};
	struct fx_cluster c;
	struct fx_job a, b;
	struct sw_sched *s = one_node(&c, "reverse-adaptive");
	struct sw_job_status st;
	int got[4];

	(void)state;
	assert_int_equal(sw_sched_transactional(s, f, 1), 0);
	assert_float_equal(sw_sched_transactional_share(s, -1), 0, 0);
	assert_float_equal(sw_sched_transactional_share(s, 5), 0.5, 0);
	/* a and b need all 8 maps each (no deadline): the plan splits the 2 slots 1 + 1, and
	 * a driver that offers only those 2 gets one task of each. */
	fx_job_init(&a, 1, 0, 0, 8, 0, 1);
	fx_job_init(&b, 2, 0, 0, 8, 0, 1);
	assert_int_equal(sw_sched_job_add(s, &a.spec, 0), 0);
	assert_int_equal(sw_sched_job_add(s, &b.spec, 0), 0);
	offer_maps(s, 2, 0, got);
	assert_int_equal(got[1], 1);
	assert_int_equal(got[2], 1);
	assert_int_equal(sw_sched_job_status(s, 1, &st), 0);
	assert_int_equal(st.running[SW_MAP], 1);
	sw_sched_destroy(s);
}

/* The cluster's share of slots is dealt over the nodes round after round, each holding floor
 * or ceil of its own share, and a node's hold only grows with the share. */
static void transactional_slots_are_dealt_over_the_nodes_and_nest(void **state)
{
	uint32_t sum = 0;

	(void)state;
	/* 0.3 of ten one-slot nodes: exactly 3 (0.3 x 10 is not rounded down to 2), 0-2. */
	for (uint32_t n = 0; n < 10; n++) {
		sum += sw_sched_transactional_held(0.3, n, 10, 1);
		assert_int_equal(sw_sched_transactional_held(0.3, n, 10, 1), n < 3);
	}
	assert_int_equal(sum, 3);
	/* 0.625 of four 2-slot nodes: 5 slots, every node's first, then node 0's second. */
	assert_int_equal(sw_sched_transactional_held(0.625, 0, 4, 2), 2);
	for (uint32_t n = 1; n < 4; n++)
		assert_int_equal(sw_sched_transactional_held(0.625, n, 4, 2), 1);
	assert_int_equal(sw_sched_transactional_held(0, 3, 4, 2), 0);
	assert_int_equal(sw_sched_transactional_held(1, 3, 4, 2), 2);
	assert_int_equal(sw_sched_transactional_held(0.5, 4, 4, 2), 0); /* no such node */
	/* Nested: raising the share never frees a slot of any node. */
	for (int a = 0; a <= 20; a++)
		for (uint32_t n = 0; n < 7; n++)
			assert_true(sw_sched_transactional_held(a / 20.0, n, 7, 3) <=
			            sw_sched_transactional_held((a + 1) / 20.0, n, 7, 3));
}

static void a_bad_forecast_is_refused_and_the_old_one_kept(void **state)
{
	static const struct sw_sched_tx_point f[] = {{0, 0.2}, {10, 0.4}},
	                                      back[] = {{10, 0.2}, {0, 0.4}},
	                                      over[] = {{0, 0.2}, {10, 1.5}},
	                                      inf[] = {{0, 0.2}, {INFINITY, 0.4}};
	struct fx_cluster c;
	struct sw_sched *s = one_node(&c, "reverse-adaptive");

	(void)state;
	assert_int_equal(sw_sched_transactional(s, f, 2), 0);
	assert_int_equal(sw_sched_transactional(s, back, 2), -EINVAL);
	assert_int_equal(sw_sched_transactional(s, over, 2), -EINVAL);
	assert_int_equal(sw_sched_transactional(s, inf, 2), -EINVAL);
	assert_int_equal(sw_sched_transactional(s, NULL, 2), -EINVAL);
	assert_int_equal(sw_sched_transactional(NULL, f, 2), -EINVAL);
	assert_float_equal(sw_sched_transactional_share(s, 20), 0.4, 0);
	assert_int_equal(sw_sched_transactional(s, NULL, 0), 0);
	assert_float_equal(sw_sched_transactional_share(s, 20), 0, 0);
	sw_sched_destroy(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(map_utility_follows_figure_4_2),
	        cmocka_unit_test(reduce_utility_is_minus_one_to_zero),
	        cmocka_unit_test(one_node_placement_is_optimal),
	        cmocka_unit_test(equal_demands_on_several_nodes_are_optimal),
	        cmocka_unit_test(placement_beside_pinned_reduces_is_optimal),
	        cmocka_unit_test(mixed_demands_on_several_nodes_are_feasible_and_near_optimal),
	        cmocka_unit_test(reduces_are_spread_one_per_node_first),
	        cmocka_unit_test(job_ahead_of_its_goal_gets_one_slot_and_needy_job_the_rest),
	        cmocka_unit_test(slots_beyond_the_plan_go_to_the_lowest_utility),
	        cmocka_unit_test(io_bound_and_cpu_bound_jobs_share_a_node),
	        cmocka_unit_test(a_copying_reduce_holds_its_shuffle_demand_until_the_maps_end),
	        cmocka_unit_test(a_reduce_without_a_shuffle_demand_holds_its_reduce_demand),
	        cmocka_unit_test(a_planned_reduce_keeps_its_room_on_its_node),
	        cmocka_unit_test(a_node_over_its_targets_starts_the_plans_tasks_as_others_end),
	        cmocka_unit_test(a_job_slot_freed_by_its_job_stays_its_jobs),
	        cmocka_unit_test(the_plan_follows_the_control_cycle),
	        cmocka_unit_test(fit_utility_follows_figure_5_17),
	        cmocka_unit_test(available_slot_seconds_integrate_the_transactional_load),
	        cmocka_unit_test(reverse_fit_leaves_for_now_what_no_later_period_holds),
	        cmocka_unit_test(reverse_adaptive_gives_what_cannot_wait_to_the_job_that_needs_it),
	        cmocka_unit_test(reverse_adaptive_plans_on_the_slots_the_load_leaves),
	        cmocka_unit_test(transactional_slots_are_dealt_over_the_nodes_and_nest),
	        cmocka_unit_test(a_bad_forecast_is_refused_and_the_old_one_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
