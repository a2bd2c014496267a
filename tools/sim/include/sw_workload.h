/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Job mixes for the simulated cluster: the ShuffleWatcher paper's synthetic mixes, the SWIM
 * Facebook traces, and the hand-written JSON mix format, all loaded into one compact form.
 *
 * A workload holds one small record per job (sizes, benchmark, user, arrival); the tasks of a
 * job are synthesised only when it arrives (sw_sim_workload_expand), so memory follows the jobs in
 * flight rather than the whole trace.
 *
 * Return codes: 0 on success; a negative errno value on failure with @p err filled:
 * -EINVAL malformed input, -ENOENT missing file, -ENOMEM, -EIO read error. On failure the
 * workload is left empty (nothing half-loaded). Every number chosen here and why:
 * tools/sim/README.md, section "Workloads".
 */
#ifndef SW_WORKLOAD_H
#define SW_WORKLOAD_H

#include <stdint.h>
#include <stdio.h>

#include "sw_sched.h"
#include "sw_sched_aria.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A message naming the file, line and field at fault, for the user. */
struct sw_input_error {
	char msg[512];
};

/** A benchmark: how much it shuffles and writes per input byte and how fast it computes. */
struct sw_bench {
	const char *name;
	enum sw_job_class cls;
	double shuffle_ratio; /**< map output (= shuffle) bytes per input byte */
	double output_ratio;  /**< reduce output bytes per shuffle byte */
	double map_rate;      /**< input bytes one map task processes per second */
	double reduce_rate;   /**< shuffled bytes one reduce task processes per second */
	double mix_percent;   /**< share of jobs in the paper's Table 1 */
	struct sw_resources map_demand, reduce_demand;
	struct sw_resources shuffle_demand; /**< a reduce's while it copies; all 0: reduce_demand */
};

/** Room for the built-in benchmark table (bench.c checks that it fits): the size of a
 *  workload's per-benchmark options. */
#define SW_SIM_MAX_BENCH 32

/** Largest coefficient of variation of a benchmark's task lengths (sw_workload.spread). */
#define SW_SIM_MAX_SPREAD 1.0

/** The built-in benchmark table; index = benchmark id. */
const struct sw_bench *sw_sim_bench_table(unsigned *count);
/** Benchmark id by name, or -1. */
int sw_sim_bench_find(const char *name);

/** A uniform rack topology; sw_sim_topology_build turns it into a scheduler cluster. */
struct sw_topology {
	uint32_t n_racks;
	uint32_t nodes_per_rack;
	double nic_bps;
	double oversub; /**< uplink = nodes_per_rack * nic_bps / oversub, unless uplink_bps set */
	double uplink_bps; /**< 0: derive from oversub */
	uint16_t map_slots, reduce_slots;
	struct sw_resources node_capacity;
	/** Nodes of the accelerated hardware pool (sw_node_spec.pool 1), the cluster's last ones:
	 *  a job's maps compute its speedup times faster there; 0 (default) none. */
	uint32_t accelerated;
};

/*
 * Bounds on values that parse but would make a replay unbounded in memory or time; every
 * loader refuses a value beyond them naming file, line and field (README.md, "Bounds").
 */
/** Seconds: the latest arrival or deadline, 31.7 years (a double still counts microseconds). */
#define SW_WORKLOAD_MAX_TIME 1e9
/** Bytes of a job's input, shuffle or output: 1 PiB (the FB-2009 day's largest shuffle is
 *  8.2 TiB). */
#define SW_WORKLOAD_MAX_BYTES (1ULL << 50)
/** Tasks of one job: maps (input / block_bytes) and reducers. A job's tasks live in memory
 *  while it runs (a few hundred bytes each); the FB-2009 day's largest job has 112,523 maps. */
#define SW_WORKLOAD_MAX_MAPS    (1U << 20)
#define SW_WORKLOAD_MAX_REDUCES (1U << 16)
/** A running reducer keeps fetch state for every node of the cluster: a job's reducers x
 *  nodes is at most 2^24 (256 MiB of state; the FB-2009 day's largest job has 1200 x 600). */
#define SW_WORKLOAD_MAX_REDUCE_NODES (1U << 24)
/** The largest input of Table 2 (its last bucket's ceiling), before input_scale: 2 TB. */
#define SW_PAPER_MAX_INPUT 2e12
/** Jobs a paper mix may expect (duration / mean inter-arrival): a million. */
#define SW_PAPER_MAX_JOBS (1U << 20)
/** Link speeds in bit/s (NIC and rack uplink, after oversubscription): 1 Mbit/s to 1 Pbit/s. */
#define SW_TOPOLOGY_MIN_BPS 1e6
#define SW_TOPOLOGY_MAX_BPS 1e15
/** Nodes in all and task slots of each kind per node. */
#define SW_TOPOLOGY_MAX_NODES 100000
/** Nodes x racks: every node counts the bytes it received from each rack (twice: in the
 *  network and in the result), 8 bytes each. */
#define SW_TOPOLOGY_MAX_NODE_RACKS (1U << 22)
#define SW_TOPOLOGY_MAX_SLOTS      1024

/** HDFS block size of Hadoop 1.0 and of the paper: one map task per block. */
#define SW_BLOCK_BYTES_DEFAULT (64ULL << 20)

/** Breakpoints of a transactional load's f(t) (a year of minutes fits). */
#define SW_WORKLOAD_MAX_TX (1U << 20)

/** Largest speedup of a job's maps on an accelerated node (the thesis's Montecarlo: about 5). */
#define SW_WORKLOAD_MAX_SPEEDUP 100.0

/** Jobs a workflow job may read (its "after" list in a mix). */
#define SW_WORKLOAD_MAX_AFTER 8
/** Largest workflow number of a mix. */
#define SW_WORKLOAD_MAX_WORKFLOW (1U << 20)

/** One job before expansion. */
struct sw_job_desc {
	uint64_t id;
	double arrival;
	uint32_t user, queue;
	uint16_t bench; /**< index into sw_sim_bench_table() */
	uint64_t input_bytes, shuffle_bytes, output_bytes;
	uint32_t n_reduces; /**< 0: a map-only job, whose maps write the output */
	double deadline;    /**< absolute, 0 none */
	/** How many times faster its maps compute on an accelerated node (Polo's accelerable
	 *  jobs, seed 003), in [1, SW_WORKLOAD_MAX_SPEEDUP]; 0 or 1: the same everywhere. */
	double speedup;
	/** 0, or 1 + the index of its workflow (tools/sim/README.md, "Workflows"): a DAG of jobs
	 *  run as one user with one deadline; indexes follow the mix's workflow numbers. */
	uint32_t workflow;
	uint32_t n_after;
	/** Indexes into sw_workload.jobs of the jobs it reads, all before it and of its
	 *  workflow: it is submitted once they have ended. */
	uint32_t after[SW_WORKLOAD_MAX_AFTER];
};

/** Where a job's input blocks are (README.md, "Expansion"). */
enum sw_placement {
	/** HDFS, file written from outside the cluster: a random node, then two nodes of one
	 *  other random rack (the default). */
	SW_PLACEMENT_RANDOM,
	/** Loaded from inside one rack (per job, drawn at random): HDFS puts the first replica on
	 *  a node of that rack, the other two on two nodes of one other random rack. */
	SW_PLACEMENT_RACK,
};

struct sw_workload {
	char name[64];
	struct sw_topology topo;
	uint32_t n_users, n_queues;
	uint64_t block_bytes;        /**< HDFS block: one map per block, default 64 MiB */
	uint64_t seed;               /**< drives replica placement in sw_sim_workload_expand */
	enum sw_placement placement; /**< SW_PLACEMENT_RANDOM (0) unless set */
	/** Multiplies every task's compute time (divides the benchmark rates): the model's
	 *  compute/network balance. 0 (a zeroed workload) means 1. */
	double compute_scale;
	/** Per benchmark id, the spread of its tasks' lengths (README.md, "Task lengths"): each
	 *  map (reduce) computes its time times a draw of N(1, map_cv (reduce_cv)), drawn per
	 *  (seed, job id, task); 0 (a zeroed workload): every task of a job one length. At most
	 *  SW_SIM_MAX_SPREAD. */
	struct sw_task_spread {
		double map_cv, reduce_cv;
	} spread[SW_SIM_MAX_BENCH];
	size_t n_jobs;
	struct sw_job_desc *jobs; /**< sorted by arrival */
	uint32_t n_workflows;     /**< workflows of the jobs (sw_job_desc.workflow) */
	/** A transactional load sharing the nodes (README.md, "Transactional load"): the share
	 *  of every node's slots it holds, tx[i].share from tx[i].t on, none before tx[0].t;
	 *  tx_n 0: none. Owned (sw_sim_workload_transactional). */
	struct sw_sched_tx_point *tx;
	uint32_t tx_n;
};

/** The compute time factor of @p w: compute_scale, 1 when unset. */
double sw_sim_workload_compute_scale(const struct sw_workload *w);

/**
 * How many times its benchmark's time task @p idx of kind @p kind (SW_MAP, SW_REDUCE) of @p j
 * computes: a draw of N(1, cv) from @p w's spread for the benchmark, drawn again while not
 * positive, the same for every attempt and every policy; exactly 1 when the spread is 0.
 */
double sw_sim_task_factor(const struct sw_workload *w, const struct sw_job_desc *j, int kind,
                          uint32_t idx);

/**
 * The compute work of @p j in task-seconds: its input at its benchmark's map rate plus its
 * shuffle at the reduce rate, times the workload's compute scale: what its tasks compute
 * whatever the network and the placement (the scheduler-independent work a work-weighted
 * throughput counts).
 */
double sw_sim_job_work(const struct sw_workload *w, const struct sw_job_desc *j);

/**
 * Gives every job that shuffles @p n reducers (within the bounds: SW_WORKLOAD_MAX_REDUCES and
 * SW_WORKLOAD_MAX_REDUCE_NODES over the cluster's nodes); map-only jobs keep none.
 */
void sw_sim_workload_set_reduces(struct sw_workload *w, uint32_t n);

/**
 * Draws every job's deadline again by ARIA's rule (README.md, "Deadlines and profiles"),
 * after a change of reducers or compute scale: the loaders of paper mixes and SWIM traces
 * draw them once, from the workload as loaded.
 */
void sw_sim_workload_redraw_deadlines(struct sw_workload *w);

/**
 * Draws every job's deadline again: its arrival + U[@p lo, @p hi] x its ARIA average time on
 * every slot of the cluster (its time alone on the idle cluster: Polo's "isolation time"),
 * from a stream of its own. 0 < lo <= hi.
 */
void sw_sim_workload_draw_deadlines(struct sw_workload *w, double lo, double hi);

/**
 * Reads a transactional load's f(t) into @p w from @p path: one "seconds,share" line per
 * breakpoint, seconds ascending in [0, SW_WORKLOAD_MAX_TIME], share in [0, 1]; blank lines and
 * lines starting with '#' are skipped (README.md, "Transactional load").
 * @return 0, -ENOENT (no such file), -EINVAL (with @p err naming file, line and field),
 *         -ENOMEM, -EIO.
 */
int sw_sim_workload_transactional(struct sw_workload *w, const char *path,
                                  struct sw_input_error *err);

/** The paper's mixes: class shares of light/medium/heavy jobs. */
enum sw_paper_mix { SW_MIX1 = 1, SW_MIX2 = 2, SW_MIX3 = 3 };

struct sw_paper_opts {
	enum sw_paper_mix mix;    /**< default mix2 */
	uint32_t n_users;         /**< 30 */
	uint32_t n_queues;        /**< 3; user u is in queue u % n_queues */
	double mean_interarrival; /**< 40 s */
	double duration;          /**< arrivals span this many seconds: 14400 (the paper's 4 h) */
	double input_scale;       /**< multiplies Table 2's input sizes: 0.1 (see README) */
	uint64_t block_bytes;     /**< SW_BLOCK_BYTES_DEFAULT */
	uint64_t seed;            /**< 1 */
	struct sw_topology topo;  /**< sw_sim_topology_default */
};

struct sw_swim_opts {
	double time_scale;       /**< multiply submit times, 1 = as recorded */
	double size_scale;       /**< multiply byte counts, 1 = as recorded */
	uint32_t n_users;        /**< 200, Facebook's users on its 600 nodes */
	uint32_t n_queues;       /**< 3; user u is in queue u % n_queues */
	uint64_t seed;           /**< 1; drives user choice and replica placement */
	struct sw_topology topo; /**< sw_sim_topology_facebook */
};

void sw_sim_topology_default(struct sw_topology *t); /**< the paper's 100 nodes, 10 racks, 5:1 */
/** The 600-node Facebook cluster the SWIM FB-2009 traces come from: 30 racks of 20. */
void sw_sim_topology_facebook(struct sw_topology *t);
/**
 * Allocates the racks and nodes of @p out; free with sw_sim_topology_free. Node n is in rack
 * n / nodes_per_rack. @return 0, -EINVAL (sw_sim_topology_check fails), -ENOMEM.
 */
int sw_sim_topology_build(const struct sw_topology *t, struct sw_cluster_spec *out);
/**
 * Checks @p t against the bounds above. @return 0, or -EINVAL with @p field set to the
 * offending field's name and @p why to the reason ("must be at least 1000000 bit/s").
 */
int sw_sim_topology_check(const struct sw_topology *t, const char **field, char *why, size_t len);
/**
 * Reads a topology from the JSON file @p path: one object with the fields of a JSON mix's
 * topology line (README.md); omitted fields keep sw_sim_topology_default's values.
 * @return 0, -ENOENT (no such file), -EINVAL (with @p err naming file, line and field).
 */
int sw_sim_topology_json(const char *path, struct sw_topology *t, struct sw_input_error *err);
/** Bits per second one rack uplink carries each way: uplink_bps, else from oversub. */
double sw_sim_topology_uplink_bps(const struct sw_topology *t);
void sw_sim_topology_free(struct sw_cluster_spec *c);

void sw_sim_paper_opts_default(struct sw_paper_opts *o);
/**
 * Generates one of the paper's mixes: Poisson arrivals, benchmarks from Table 1 within the mix's
 * class shares, input sizes from Table 2. @return 0, -EINVAL (an option out of range, more
 * than SW_PAPER_MAX_JOBS expected, or SW_PAPER_MAX_INPUT x input_scale more than
 * SW_WORKLOAD_MAX_MAPS blocks), -ENOMEM.
 */
int sw_sim_workload_paper(struct sw_workload *w, const struct sw_paper_opts *o);

void sw_sim_swim_opts_default(struct sw_swim_opts *o);
/** Loads a SWIM trace (tab-separated: job id, submit s, gap s, input, shuffle, output bytes). */
int sw_sim_workload_swim(struct sw_workload *w, const char *path, const struct sw_swim_opts *o,
                         struct sw_input_error *err);

/** A JSON Lines mix: jobs and, optionally, the topology; format in tools/sim/README.md. */
int sw_sim_workload_json(struct sw_workload *w, const char *path, struct sw_input_error *err);

void sw_sim_workload_free(struct sw_workload *w);

/** Number of map tasks of @p j: one per block of input; without input, one per block of its
 *  shuffle (or output, if it shuffles nothing); at least one. */
uint32_t sw_sim_workload_n_maps(const struct sw_workload *w, const struct sw_job_desc *j);

/**
 * Synthesises the map tasks of @p j into @p maps (sw_sim_workload_n_maps entries) and fills
 * @p spec to submit it; deterministic in (w->seed, j->id). spec->maps points at @p maps.
 * Map outputs sum exactly to j->shuffle_bytes. Replicas follow HDFS: the first on a random
 * node, the other two on two distinct nodes of one other rack. spec->profile is NULL.
 */
void sw_sim_workload_expand(const struct sw_workload *w, const struct sw_job_desc *j,
                            struct sw_map_spec *maps, struct sw_job_spec *spec);

/**
 * The ARIA profile of @p j as it would run alone on the idle cluster, from its benchmark's
 * rates, its sizes and the NIC speed: what ARIA's profiler would record on an earlier run.
 * Durations only: shuffle_input_ratio is 0 (unknown), so ShuffleWatcher learns it online
 * as without a profile.
 */
void sw_sim_workload_profile(const struct sw_workload *w, const struct sw_job_desc *j,
                             struct sw_job_profile *p);

#ifdef __cplusplus
}
#endif

#endif /* SW_WORKLOAD_H */
