/* SPDX-License-Identifier: MIT */
/**
 * @file
 * State of one sw_sim_run (private to tools/sim): the event queues and clock (sim.c) and the
 * task phases that move data over the network (task.c).
 */
#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_heap.h"
#include "sim_net.h"
#include "sw_sched_aria.h"
#include "sw_sim.h"

/** What a task is doing; a task's flows and compute event tell it apart by this. */
enum sim_phase {
	SIM_PENDING = 0, /* not launched */
	SIM_INPUT,       /* map: reading a remote input split */
	SIM_COMPUTE,     /* map or reduce: computing */
	SIM_SHUFFLE,     /* reduce: fetching map outputs */
	SIM_WRITE,       /* reduce, or map of a map-only job: writing its output's replicas */
	SIM_DONE,
};

struct sim_job;

/** A transfer a task waits for: the owner of one network flow. */
struct sim_xfer {
	struct sim_task *task;
	uint32_t src;  /* node the bytes come from */
	uint32_t dst;  /* node they go to */
	uint32_t flow; /* SIM_FLOW_NONE when idle */
};

/** Per source node, what a running reducer still has to fetch from it. */
struct sim_src {
	uint64_t pending; /* bytes of registered outputs not yet in a flow */
	uint32_t slot;    /* 1 + index of the xfer fetching from it, 0 when none */
	uint32_t queued;  /* in the reducer's queue of sources to fetch from */
};

/** A running reducer's shuffle: allocated at launch, freed when the reduce finishes. Its
 *  struct sim_src per node is in its job's fetch matrix. */
struct sim_shuffle {
	uint32_t *queue; /* ring of source nodes waiting for a free xfer */
	uint32_t q_head, q_len;
	uint32_t active; /* xfers with a flow */
	uint32_t n_xfers;
	struct sim_xfer xfers[]; /* parallel_copies */
};

/** A registered map output, with what a reducer launched later reads of it kept beside it: a
 *  late reducer walks every output so far, and reading the map's task and spec instead cost
 *  two cache misses per output (a million-map job's reducers walk up to a million each). */
struct sim_output {
	uint32_t map;   /* the map's index */
	uint32_t node;  /* where it ran: where its output is */
	uint64_t bytes; /* its output bytes */
};

/* The reduces copying on one node (contention.c): how many, and the memory they hold. */
struct sim_copying {
	double mem_gb;
	int32_t reduces;
};

struct sim_task {
	struct sim_job *job;
	uint32_t idx;
	uint8_t kind;      /* enum sw_task_kind */
	uint8_t phase;     /* enum sim_phase */
	uint8_t waits;     /* flows still to finish in SIM_WRITE */
	uint8_t failing;   /* this attempt fails at its compute event */
	uint16_t attempts; /* launches so far, to draw each attempt's failure apart */
	uint32_t ev;       /* its compute event, SIM_HEAP_NONE when none is queued */
	uint32_t node;
	uint32_t run_pos;  /* reduces: position in job->running */
	uint64_t shuffled; /* reduces: bytes taken from map outputs */
	/* The last attempt's launch, end of shuffle (reduces) and end: its ARIA task record. */
	double start, shuffle_end, end;
	/* Node contention (contention.c), while computing: seconds of compute left at full
	 * speed as of @since, and the share of full speed it has run at since then. */
	double work_left, since, speed;
	uint32_t cpos; /* position in its node's computing tasks */
	/* Maps: io[0] reads the remote input split. Then reduces, and maps of a map-only job,
	 * write their output through both: writer -> A, A -> B. */
	struct sim_xfer io[2];
	struct sim_shuffle *shf; /* reduces, while running */
};

/* A program's profile and the bytes its tasks handled, to scale it to another dataset. */
struct sim_profile {
	struct sw_job_profile p;
	double map_input, reduce_input; /* mean bytes per map, per reduce */
	int have;
};

struct sim_job {
	uint32_t idx; /* index in the workload: the scheduler's job id and the record's slot */
	const struct sw_job_desc *desc;
	const struct sw_bench *bench;
	struct sw_job_record *rec;
	struct sw_map_spec *maps;
	struct sim_task *tasks; /* n_maps maps, then n_reduces reduces */
	uint32_t n_maps, n_reduces, maps_done, reduces_done;
	struct sim_output *outputs; /* in the order they registered */
	uint32_t n_outputs;
	uint32_t *running, n_running; /* reduces in SIM_SHUFFLE */
	/* Reducer r's struct sim_src for source row w at [w * n_reduces + r] (sim.fetch_rows
	 * rows; task.c's src_row), allocated at the first reduce launch: source-major, so the
	 * output a map registers on a node reaches every running reducer through one row, not
	 * through a cache miss in each reducer's own array (which was 89% of the time a map's
	 * output took to reach 5,600 reducers on 3,000 nodes). */
	struct sim_src *fetch;
	uint8_t *map_rack; /* SAMP's PreferredMapRacks, NULL without SAMP */
	/* of the slots of each kind the gate let it in with, those no launch has taken */
	uint64_t gate_owed[SW_KINDS];
};

struct sim_node {
	double hb_t;    /* next heartbeat, when in the heartbeat heap */
	double hb_base; /* heartbeats fall on hb_base + k * heartbeat */
	uint64_t hb_k;
	uint16_t free[SW_KINDS];
	uint32_t rack;
	uint8_t down; /* lost: no heartbeat, no task */
};

struct sim_event {
	double t;
	uint64_t seq;
	uint32_t type; /* enum in sim.c */
	uint32_t arg;
	struct sim_task *task;
};

struct sim {
	const struct sw_workload *w;
	const struct sw_sim_config *c;
	struct sw_cluster_spec cluster;
	struct sw_sched *sched;
	/* ShuffleInputRatio of each program's last completed run (ratio_history), else NULL */
	struct sw_sched_profile_db *history;
	/* ARIA's profile of each program's first completed run, by benchmark, measured from its
	 * tasks: what later runs are predicted from (predict.c) */
	struct sim_profile *profiles;
	/* Load-threshold arrivals (gate.c): every slot of the cluster; the next job waits for
	 * room, and the slots of each kind it needs; the live jobs' gate_owed summed. */
	uint64_t total_slots, gate_need[SW_KINDS], gate_owed[SW_KINDS];
	int gate_waiting;
	uint64_t map_slots; /* of total_slots */
	/* Workflows (workflow.c): per workflow, its jobs' indexes by workflow, each job's stage. */
	struct sim_workflow *workflows;
	uint32_t *wf_jobs, *wf_stage;
	uint8_t *wf_waiting; /* by job: arrived, not yet submitted (workflow.c) */
	/* Node contention (contention.c), NULL when off: node n's computing tasks at
	 * computing[n * stride ..], n_computing[n] of them, and its copying reduces. */
	struct sim_task **computing;
	uint32_t *n_computing, stride;
	struct sim_copying *copying;
	struct sim_net *net;
	struct sim_node *nodes;
	uint32_t *rack_nodes, *rack_first; /* nodes of rack r: rack_nodes[rack_first[r]..[r+1]) */
	uint32_t *rack_pos; /* node n is rack_nodes[rack_first[its rack] + rack_pos[n]] */
	/* Rows of a job's fetch matrix: a node's each under the flow model; under the rack model
	 * one per rack (a reducer's fetches from the other racks), then one per place in a rack
	 * (from its own rack's nodes), 170 rows instead of 3,000 on 150 racks of 20. */
	uint32_t fetch_rows;
	double now;
	struct sim_event *events;
	uint32_t n_events_cap, free_event;
	uint64_t seq;
	struct sim_heap ev_heap, hb_heap;
	struct sim_job **live; /* by workload index */
	struct sw_sim_result *r;
	size_t tasks_cap; /* r->tasks allocated (timeline.c) */
	size_t plans_cap; /* r->plans allocated (timeline.c) */
	bool plans_lost;  /* a plan row found no memory: the run fails */
	struct sw_input_error *err;
	size_t next_arrival, jobs_done;
	uint64_t running;                /* tasks launched and not finished */
	uint64_t running_kind[SW_KINDS]; /* of them, maps and reduces */
	double last_progress;
	uint32_t idle_parked; /* nodes parked because no job was live */
	struct sw_assignment *assign;
	int assign_max;
	double *prev_out, *prev_in, last_sample;
	uint32_t samples_cap; /* rows allocated */
	uint32_t samples_max; /* rows kept before pairs merge (even) */
	double last_netsat;   /* time of the last NetSat sample */
	int sample_parked;    /* the periodic events wait for an arrival: no job is live */
	int netsat_parked;
};

/** Sets err->msg and returns @p rc (a negative errno). */
int sw_sim_fail(struct sim *s, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/** Queues a compute completion of @p task at @p t. */
int sw_sim_schedule_compute(struct sim *s, struct sim_task *task, double t);
/** Drops @p task's queued compute completion, if any. */
void sw_sim_cancel_compute(struct sim *s, struct sim_task *task);
/** A task on @p node finished at s->now: its slot is free; heartbeats follow. */
void sw_sim_slot_freed(struct sim *s, uint32_t node, enum sw_task_kind kind);
/** transactional.c: lowers a heartbeat's free slots of @p node to what the transactional load
 * (sw_workload.tx_*) leaves it now: its slots less those the load holds and the running tasks. */
void sw_sim_tx_free_slots(const struct sim *s, uint32_t node, uint16_t free[SW_KINDS]);

int sw_sim_job_arrive(struct sim *s, size_t idx);
int sw_sim_task_launch(struct sim *s, uint32_t node, const struct sw_assignment *a);
int sw_sim_task_compute_done(struct sim *s, struct sim_task *t);
int sw_sim_flow_done(struct sim *s, struct sim_xfer *x);
void sw_sim_job_free(struct sim_job *j);
/** The job is over at s->now (done, or failed): records its finish and frees it; a workflow's
 *  jobs waiting for it are submitted. @return 0 or -ENOMEM. */
int sw_sim_job_end(struct sim *s, struct sim_job *j);
/** Job @p j completed at s->now: its ARIA prediction into its record, and its profile kept
 *  when it is its program's first completed run (predict.c). */
void sw_sim_predict_job_end(struct sim *s, const struct sim_job *j);
/** Whether the next job of the workload may be submitted now (gate.c); always without a
 *  load threshold. */
bool sw_sim_gate_open(struct sim *s);
/** Job @p j was just let in by the gate: it owes the slots it needed until its launches take
 *  them (nothing without a load threshold). */
void sw_sim_gate_admitted(struct sim *s, struct sim_job *j);
/** Task @p t launched: it takes one of its job's owed slots of its kind. */
void sw_sim_gate_launched(struct sim *s, struct sim_task *t);
/** Job @p j ended: what it still owes is forgotten. */
void sw_sim_gate_ended(struct sim *s, struct sim_job *j);

/* timeline.c */
/** Completed job @p j's tasks into the result's timeline (sw_sim_config.timeline).
 *  @return 0 or -ENOMEM. */
int sw_sim_timeline_add(struct sim *s, const struct sim_job *j);
/** sw_sched_config.on_plan with the sim as @p arg: appends @p row to sw_sim_result.plans
 *  under the workload's job id; out of memory sets plans_lost. */
void sw_sim_timeline_plan(void *arg, const struct sw_plan_row *row);

/* workflow.c */
/** Checks the workload's workflow links and lays out each workflow's jobs and stages. */
int sw_sim_workflows_setup(struct sim *s);
void sw_sim_workflows_free(struct sim *s);
/** Job @p idx arrives: whether it waits for jobs it reads, to be submitted when they end. */
bool sw_sim_workflow_waits(struct sim *s, size_t idx);
/** Workflow job @p d is submitted now: its workflow starts with its first job (deadline,
 *  pairs, hold on its user); fills @p rec's workflow fields and deadline. */
int sw_sim_workflow_submit(struct sim *s, const struct sw_job_desc *d, struct sw_job_record *rec);
/** Workflow job @p d ended (no longer in s->live): the jobs waiting for it and for nothing
 *  else are submitted now (sw_sim_post_submit), the hold is lifted with its last job.
 *  @return 0 or -ENOMEM. */
int sw_sim_workflow_job_end(struct sim *s, const struct sw_job_desc *d);
/** Submits job @p idx at s->now, through an event (sim.c). @return 0 or -ENOMEM. */
int sw_sim_post_submit(struct sim *s, uint32_t idx);

/* task.c, for fault.c */
/** Ends running @p t's flows and compute, as if never launched; the caller frees its slot. */
void sw_sim_task_abort(struct sim *s, struct sim_task *t);
/** Running reducer @p t forgets what it takes from lost node @p src: the maps of its job's
 *  outputs list that are pending again, which will register anew when they re-run. */
int sw_sim_shuffle_forget(struct sim *s, struct sim_task *t, uint32_t src);
/** Map @p t was reading its split from a node now lost: it reads another replica (or fails). */
int sw_sim_map_source_lost(struct sim *s, struct sim_task *t);
/** Ends flow @p x of a reducer's output pipeline: its replica node was lost. */
int sw_sim_write_flow_lost(struct sim *s, struct sim_xfer *x);

/* contention.c */
/** Sets up node contention when the config asks for it. @return 0 or -ENOMEM. */
int sw_sim_contention_setup(struct sim *s);
void sw_sim_contention_free(struct sim *s);
/** Task @p t starts computing @p work seconds (at full speed) now: with contention its node's
 *  computing tasks share it from now on, else its compute ends at now + work.
 *  @return 0 or -ENOMEM. */
int sw_sim_compute_start(struct sim *s, struct sim_task *t, double work);
/** Task @p t stops computing now (its compute ended, or it was aborted): its queued end is
 *  dropped and, with contention, the other tasks of its node speed up. */
void sw_sim_compute_stop(struct sim *s, struct sim_task *t);
/** What a reduce of benchmark @p b holds while it copies: the benchmark's shuffle demand
 *  (without its memory under SW_SIM_COPY_NONE), or its reduce demand when it has none. */
struct sw_resources sw_sim_shuffle_demand(const struct sim *s, const struct sw_bench *b);
/** Reduce @p t starts or stops copying its input now: with contention its memory (its
 *  sw_sim_shuffle_demand's) counts in its node's load meanwhile. */
void sw_sim_copy_start(struct sim *s, const struct sim_task *t);
void sw_sim_copy_stop(struct sim *s, const struct sim_task *t);

/* fault.c */
/** Node @p node is lost at s->now (sim.c keeps its heartbeats and slots): the scheduler and
 *  the tasks hear of it. */
int sw_sim_node_lost(struct sim *s, uint32_t node);
/** Is this attempt of @p t, about to compute, one that fails? */
int sw_sim_attempt_fails(const struct sim *s, const struct sim_task *t);
/** How many times longer this attempt of @p t computes: straggler_slowdown for a straggler
 *  (drawn per attempt at straggler_rate), else 1. */
double sw_sim_attempt_slowdown(const struct sim *s, const struct sim_task *t);
/** Running @p t's attempt failed at s->now: the scheduler hears it; the job fails at
 *  max_attempts. */
int sw_sim_attempt_failed(struct sim *s, struct sim_task *t);

#endif /* SIM_ENGINE_H */
