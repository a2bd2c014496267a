/* SPDX-License-Identifier: MIT */
/**
 * @file
 * The simulated cluster: a deterministic discrete-event replay of a workload on a flow-level
 * network, driving the scheduler core only through its public API (sw_sched.h).
 *
 * Return codes: 0 on success, a negative errno value with @p err filled on failure.
 */
#ifndef SW_SIM_H
#define SW_SIM_H

#include <signal.h>
#include <stdint.h>

#include "sw_sched.h"
#include "sw_workload.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Cross-rack traffic sources, as ShuffleWatcher's NetSat counts them. */
enum sw_traffic {
	SW_TRAFFIC_SHUFFLE = 0,
	SW_TRAFFIC_MAP_INPUT = 1, /**< remote map input reads */
	SW_TRAFFIC_OUTPUT = 2,    /**< reduce output replica writes */
	SW_TRAFFICS = 3,
};

#define SW_SIM_MAX_FAULTS 64
/** Largest load threshold: twice the cluster, past which the gate never closes. */
#define SW_SIM_MAX_LOAD_THRESHOLD 2.0
/** Longest deferral of the network's component solves (sw_sim_config.net_quantum), seconds:
 *  beyond it flows left below their fair rate would distort whole task phases. */
#define SW_SIM_MAX_NET_QUANTUM 10.0
/** Largest sw_sim_config.rack_fetch_min, bytes (1 GiB): a larger one holds a reducer's
 *  fetches from each rack past any job's map phase. */
#define SW_SIM_MAX_RACK_FETCH_MIN (1ULL << 30)
/** Largest straggler_slowdown: a task 100 times slower than its peers is a failed node. */
#define SW_SIM_MAX_SLOWDOWN 100.0

/** A node failure to inject: node @p node (its index within rack @p rack) goes down at @p at
 *  seconds and, when @p down_for > 0, comes back empty @p down_for seconds later. */
struct sw_sim_fault {
	uint32_t rack, node;
	double at;
	double down_for; /**< 0: the node stays down */
};

struct sw_sim_config {
	struct sw_sched_config sched;
	double heartbeat;         /**< seconds between a node's heartbeats: 3 */
	int oob_heartbeat;        /**< heartbeat at once when a task finishes: 1 */
	double sample_interval;   /**< seconds per uplink-utilisation sample: 10 */
	uint32_t parallel_copies; /**< concurrent fetches per reducer (Hadoop's 5) */
	/** Seconds between the cross-rack counters the simulator hands the scheduler's NetSat
	 *  (sw_sched_net_sample), as agents would report them: 3, one heartbeat. */
	double netsat_interval;
	/** Node failures (tools/sim/README.md "Failures"); a failure of a node already down is
	 *  ignored. */
	struct sw_sim_fault faults[SW_SIM_MAX_FAULTS];
	uint32_t n_faults;
	/** Probability that a task attempt fails, halfway through its compute, in [0, 1]: 0.
	 *  Drawn per (workload seed, job, task, attempt): the same run gives the same failures. */
	double task_failure_rate;
	/** Failed attempts of one task that fail its job: SW_SCHED_MAX_ATTEMPTS (Hadoop's 4). */
	uint32_t max_attempts;
	/** 1 (default): a job is submitted with the ShuffleInputRatio its program (benchmark)
	 *  measured at its last completed run in this replay, kept in the scheduler's profile
	 *  store (sw_sched_profile_db), as the paper allows ("tracked from previous runs of the
	 *  job"); the first run of a program starts at the paper's 1.0. 0: every job starts at
	 *  1.0 and the scheduler learns its ratio from its map outputs only. */
	int ratio_history;
	/** Map input as the live system has it: each split's replicas where swcontroller puts
	 *  them (controller/jobs.c, place_input: node (job id * 7919 + map) % nodes, job ids
	 *  from 1 in arrival order, and the next node on another rack), and no map-input flows
	 *  (the synthetic maps read nothing). 0: HDFS's placement and remote reads. */
	int map_input_live;
	/** Output replicas. 0: as HDFS places them (the writer's node, a node A of another rack,
	 *  a node B of A's rack, through a pipeline). 1 or 2: the writer's copy and one on each
	 *  of the next that many nodes up in node order, each sent by the writer (the live
	 *  controller's placement). 0. */
	uint32_t output_next;
	/** ARIA's load-threshold arrivals, a fraction of every slot of the cluster (ARIA runs
	 *  0.85-1.05): a job is submitted at its arrival or later, once the running tasks plus
	 *  its Lagrange minimum fit below it, in workload order (tools/sim/README.md, "Load
	 *  threshold"). 0 (default): at its arrival. */
	double load_threshold;
	/** What load_threshold weighs. SW_SIM_LOAD_SUM (default): ARIA's words, "the sum of the
	 *  percentage of running map and reduce tasks": each kind's share of its own slots,
	 *  summed (at most 2), below the threshold. SW_SIM_LOAD_KINDS: each kind of slot on its
	 *  own, the load of the kind plus the job's minimum of it below the threshold's share of
	 *  that kind's slots (tools/sim/README.md, "Load threshold", says why the sum is the
	 *  default). */
	enum sw_sim_load_measure {
		SW_SIM_LOAD_SUM = 0,
		SW_SIM_LOAD_KINDS = 1,
	} load_measure;
	/** Workflows (tools/sim/README.md, "Workflows"): a workflow whose jobs carry no deadline
	 *  gets this many times its time on the whole cluster (the refined model's TW_avg on every
	 *  slot) from its first submission: 2, the thesis' D = 2T. */
	double workflow_deadline;
	/** What a workflow's user is held to from its first submission to the end of its last
	 *  job (sw_sched_user_slots; not under fifo and capacity): SW_SIM_WF_FREE (default)
	 * nothing, the basic model's Lagrange pair, or Algorithm 2's. */
	enum sw_sim_wf_slots {
		SW_SIM_WF_FREE = 0,
		SW_SIM_WF_BASIC = 1,
		SW_SIM_WF_REFINED = 2,
	} workflow_slots;
	/** 0 (default): every network update is exact max-min. Q > 0, an opt-in approximation
	 *  for day-long traces: between multiples of Q seconds the flows that start, and those
	 *  of a changed link that carries few, share what the others leave (within capacity,
	 *  some flows below their fair rate), and the changed components are solved exactly at
	 *  the next multiple (tools/sim/README.md, "Network quantum"). At most
	 *  SW_SIM_MAX_NET_QUANTUM. */
	double net_quantum;
	/** SW_SIM_NET_FLOW (default): a reducer fetches from each source node in a flow of its
	 *  own, the exact per-flow model. SW_SIM_NET_RACK, an opt-in approximation for day-long
	 *  traces: a reducer fetches everything another rack holds for it in one flow from that
	 *  rack's uplink, and what registers there meanwhile in the next; same bytes on every
	 *  uplink and receiving NIC, no sender NIC (tools/sim/README.md, "Network model"). */
	enum sw_sim_net_model {
		SW_SIM_NET_FLOW = 0,
		SW_SIM_NET_RACK = 1,
	} net_model;
	/** Under SW_SIM_NET_RACK, the least a reducer fetches from another rack in one flow while
	 *  its job still has maps to finish, in bytes: 0 (default), whatever the rack holds; B > 0
	 *  (at most SW_SIM_MAX_RACK_FETCH_MIN), what registers there waits until it reaches B
	 *  or the maps are all done, so that a job whose outputs each hold a few kilobytes per
	 *  reducer does not open a flow per output and reducer (tools/sim/README.md, "Network
	 *  model"). Must be 0 under SW_SIM_NET_FLOW. */
	uint64_t rack_fetch_min;
	/** Probability that a task attempt straggles, in [0, 1]: 0. Drawn per (workload seed,
	 *  job, task, attempt) from a stream of its own; a straggler computes
	 *  straggler_slowdown times longer (its transfers are the network's). No speculative
	 *  execution (tools/sim/README.md, "Stragglers"). */
	double straggler_rate;
	/** How many times longer a straggler computes, in [1, SW_SIM_MAX_SLOWDOWN]: 3. */
	double straggler_slowdown;
	/** 0 (default): a task computes at its benchmark's rate whatever else runs on its node.
	 *  1: tasks computing on one node share its CPU, disk and memory (their benchmarks'
	 *  demands against the node's capacity; tools/sim/README.md, "Node contention"). */
	int contention;
	/** 0 (default): jobs reach the scheduler with their tasks' demands, and a task starts only
	 *  where its demand fits. 1: without them, so every policy places by slots alone, as
	 *  Hadoop 1's Fair and FIFO schedulers do (contention still slows what they overcommit). */
	int slots_only;
	/** What a reducer holds in memory while it copies, for a benchmark with a shuffle profile
	 *  (Polo's GridMix jobs; the others hold their reduce demand throughout), in the
	 *  scheduler's demands and the node's contention alike: SW_SIM_COPY_REDUCE (default) its
	 *  reduce memory, SW_SIM_COPY_NONE none, Polo's Table 4.2 "-" read as for its CPU
	 *  (tools/sim/README.md, "Benchmarks"). */
	enum sw_sim_copy_memory {
		SW_SIM_COPY_REDUCE = 0,
		SW_SIM_COPY_NONE = 1,
	} copy_memory;
	/** 0 (default): no per-task records. 1: sw_sim_result.tasks holds the last attempt of
	 *  every task of every completed job, and sw_sim_result.plans every control cycle of a
	 *  planning policy (tools/sim/README.md, "Task timeline"). */
	int timeline;
	/** Called now and then with simulated time and jobs finished; may be NULL. */
	void (*progress)(void *arg, double now, uint64_t jobs_done, uint64_t jobs_total);
	void *progress_arg;
	/** May be NULL; once *stop is non-zero (a signal handler sets it) the run ends with
	 *  -ECANCELED at its next event. */
	const volatile sig_atomic_t *stop;
};

struct sw_job_record {
	uint64_t id;
	uint32_t user;
	enum sw_job_class cls;
	uint16_t bench;
	double arrival, finish;
	/** When it was submitted: its arrival, or later under a load threshold (its deadline
	 *  moves with it: the deadline is relative to the submission). */
	double submitted;
	/** Absolute, 0 for none. A job the scheduler refused (-ETIME: its deadline cannot be
	 *  met) is refused, never runs, and has finish = arrival. */
	double deadline;
	uint8_t refused;
	uint32_t n_maps, n_reduces;
	uint32_t maps_at[3];         /**< maps run node-local, rack-local, remote */
	uint64_t bytes[SW_TRAFFICS]; /**< all bytes moved for the job, by source */
	uint64_t xrack[SW_TRAFFICS]; /**< of those, bytes that crossed a rack uplink */
	uint64_t map_output_bytes;   /**< produced by its maps */
	/** sw-* policies with SAMP: racks in its PreferredMapRacks (0 otherwise), and how many
	 *  of its maps ran on a node of those racks. */
	uint32_t map_racks, maps_in_map_racks;
	uint32_t failed_attempts; /**< task attempts that failed (task_failure_rate) */
	uint32_t lost_attempts;   /**< running task attempts lost with their node */
	uint32_t maps_rerun;      /**< finished maps run again: their output's node was lost */
	/** A task failed max_attempts times: the job was killed at finish and did not complete. */
	int failed;
	/** ARIA's prediction (tools/sim/README.md, "ARIA's prediction"): the job's execution
	 *  time, its first task launch to its finish, predicted by the low, average and up
	 *  bounds (enum sw_aria_bound) from the profile of its program's first completed run in
	 *  this replay, on the slots of each kind it held on average; all 0 when none (the
	 *  program's first run, a refused or failed job). */
	double started;
	double predicted[3];
	double slots_held[SW_KINDS];
	/** 1 + its workflow's index (sw_job_desc.workflow), 0 for none; then its workflow's
	 *  basic pair and Algorithm 2's pair for the workflow's deadline (its deadline above),
	 *  computed at the workflow's first submission whatever workflow_slots holds it to. */
	uint32_t workflow;
	uint32_t wf_basic[SW_KINDS], wf_refined[SW_KINDS];
};

/** One task of a completed job as it ran (its last attempt), for the timeline. */
struct sw_task_run {
	uint64_t job;  /**< sw_job_record.id */
	uint32_t task; /**< its index among its job's tasks of its kind */
	uint32_t node; /**< where it ran, an index into the cluster's nodes */
	uint32_t pool; /**< its node's hardware pool (sw_node_spec.pool) */
	uint8_t kind;  /**< enum sw_task_kind */
	double start, end;
};

struct sw_sim_result {
	size_t n_jobs;
	struct sw_job_record *jobs; /**< in arrival order */
	/** sw_sim_config.timeline: the tasks of each completed job, by job in completion order,
	 *  maps then reduces; else NULL. */
	struct sw_task_run *tasks;
	size_t n_tasks;
	/** sw_sim_config.timeline under a planning policy (ras, sw-ras, reverse-adaptive): every
	 *  live job's row at every control cycle, in time order, its job the workload's id; else
	 *  NULL. */
	struct sw_plan_row *plans;
	size_t n_plans;
	double end;      /**< simulated time the last job finished */
	uint64_t events; /**< events processed */
	double sample_interval;
	uint32_t n_racks, n_samples;
	/** n_samples * n_racks fractions of uplink capacity used, outbound and inbound,
	 *  row-major by sample. */
	float *uplink_out, *uplink_in;
	/** Over the whole run, in whole bytes: what each node received, by the sender's rack
	 *  (n_nodes x n_racks, row-major by node: the per-node counters NetSat's agents
	 *  report), and what each rack uplink carried out and in (n_racks each). */
	uint32_t n_nodes;
	uint64_t *node_rx, *uplink_bytes_out, *uplink_bytes_in;
	/** sw-* policies: tasks NASS launched per Figure 3 line (has_nass set). */
	struct sw_nass_stats nass;
	int has_nass;
	/** Failures, summed over the jobs' records; nodes_lost counts the failures injected. */
	uint64_t failed_attempts, lost_attempts, maps_rerun;
	uint32_t jobs_failed, nodes_lost;
};

void sw_sim_config_default(struct sw_sim_config *c);

/** Replays @p w under @p c; fills @p r (free with sw_sim_result_free). */
int sw_sim_run(const struct sw_workload *w, const struct sw_sim_config *c, struct sw_sim_result *r,
               struct sw_input_error *err);

void sw_sim_result_free(struct sw_sim_result *r);

#ifdef __cplusplus
}
#endif

#endif /* SW_SIM_H */
