/* SPDX-License-Identifier: MIT */
/**
 * @file
 * shufflewatch scheduler core: the one brain behind the simulator and the live controller.
 *
 * The library holds every scheduling policy. It performs no I/O, starts no threads, keeps no
 * global state and never reads a clock: every call that depends on time takes `now` (seconds,
 * monotonic, chosen by the caller). A driver (the simulator or the controller) tells it about
 * the cluster, job arrivals, task starts and finishes and map outputs, and asks it, one node
 * heartbeat at a time, which tasks to launch.
 *
 * Return codes: functions returning int give 0 (or a count) on success and a negative errno
 * value on failure: -EINVAL for a bad argument, -ENOMEM when allocation fails, -ENOENT for an
 * unknown job or task, -EEXIST for a duplicate job id, -EALREADY for an event that contradicts
 * the task's or the node's state (finishing a task that never started, for instance),
 * -EHOSTDOWN for a map output on a node that is down, -ETIME for a job whose deadline cannot
 * be met (minedf, sw-minedf). ARIA's profiles and formulas: sw_sched_aria.h.
 *
 * Failures (task_failed, node_lost, node_up, job_remove) move tasks back to pending; the
 * scheduler names a task by (job, kind, index), not by attempt, so a driver must drop the
 * late events of an attempt it has already reported over (a failed one, one on a lost node).
 */
#ifndef SW_SCHED_H
#define SW_SCHED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SW_MAX_REPLICAS 3
#define SW_NO_NODE      UINT32_MAX
/** Most users (and so pools) a scheduler takes: each user id up to the largest one seen has
 *  a slot in a table, so the bound keeps that table below ~50 MB. */
#define SW_SCHED_MAX_USERS (1U << 20)
/** Most Capacity queues: one guaranteed fraction and one pool each. */
#define SW_SCHED_MAX_QUEUES (1U << 16)
/** Failed attempts of one task after which a driver should fail the job (Hadoop 1's
 *  mapred.map.max.attempts and mapred.reduce.max.attempts): see sw_sched_task_failed. */
#define SW_SCHED_MAX_ATTEMPTS 4

/** The two Hadoop 1.x slot types. */
enum sw_task_kind {
	SW_MAP = 0,
	SW_REDUCE = 1,
	SW_KINDS = 2,
};

/** How close a map task runs to its input. Reduce tasks report SW_LOCALITY_NONE. */
enum sw_locality {
	SW_LOCALITY_NODE = 0,
	SW_LOCALITY_RACK = 1,
	SW_LOCALITY_REMOTE = 2,
	SW_LOCALITY_NONE = 3,
};

/** Job classes by shuffle volume relative to map input (ShuffleWatcher Table 1). */
enum sw_job_class {
	SW_CLASS_LIGHT = 0,
	SW_CLASS_MEDIUM = 1,
	SW_CLASS_HEAVY = 2,
	SW_CLASSES = 3,
};

/** A resource vector for DRF and for fitting tasks on nodes. */
struct sw_resources {
	double cpu;    /**< cores */
	double mem_gb; /**< GiB */
	double io;     /**< disk bandwidth in the operator's unit (RAS's I/O, 0: not modelled) */
};

/** One worker node (a TaskTracker). */
struct sw_node_spec {
	uint32_t rack;
	uint16_t map_slots;    /**< default 2 */
	uint16_t reduce_slots; /**< default 2 */
	struct sw_resources capacity;
	double nic_bps; /**< NIC capacity, each direction, bits per second */
	uint32_t pool;  /**< hardware pool (0 = regular); for heterogeneous placement */
};

/** One rack: its uplink to the spine, the cross-rack bottleneck. */
struct sw_rack_spec {
	double uplink_bps; /**< each direction, bits per second */
};

/** The cluster. Node ids are indexes into nodes[], rack ids into racks[]. */
struct sw_cluster_spec {
	uint32_t n_racks;
	uint32_t n_nodes;
	const struct sw_rack_spec *racks;
	const struct sw_node_spec *nodes;
};

/** One map task: its input split, where HDFS keeps the split, and the output it will write. */
struct sw_map_spec {
	uint64_t input_bytes;
	/** The driver's estimate; the real size comes with the map output event. */
	uint64_t output_bytes;
	uint8_t n_replicas;
	uint32_t replicas[SW_MAX_REPLICAS]; /**< node ids */
};

/**
 * A profile of earlier runs of the same job (ARIA's job profile, Polo's per-phase task times).
 * Durations in seconds; zero means unknown.
 */
struct sw_job_profile {
	double map_min, map_avg, map_max;
	/** First shuffle wave, not overlapped with maps. */
	double shuffle_first_avg, shuffle_first_max;
	/** Typical shuffle of later waves. */
	double shuffle_avg, shuffle_max;
	double reduce_avg, reduce_max;
	double shuffle_input_ratio; /**< shuffle bytes / map input bytes, 0 when unknown */
	double map_input_avg;       /**< input bytes per map (ARIA's AvgSize_M^input) */
	double reduce_selectivity;  /**< reduce output bytes / reduce input bytes */
};

/** A job as submitted. The scheduler copies what it needs: the arrays may be freed after add. */
struct sw_job_spec {
	uint64_t id;    /**< caller's id, unique among live jobs */
	uint32_t user;  /**< 0..n_users-1 of sw_sched_config */
	uint32_t queue; /**< 0..n_queues-1 of sw_sched_config (Capacity) */
	enum sw_job_class cls;
	double arrival; /**< seconds */
	uint32_t n_maps;
	const struct sw_map_spec *maps;
	uint32_t n_reduces;
	struct sw_resources map_demand;    /**< per task */
	struct sw_resources reduce_demand; /**< per task */
	/** per reduce task while the job has maps to finish (copying: RAS's shuffle profile);
	 *  all 0: reduce_demand throughout */
	struct sw_resources shuffle_demand;
	double deadline;                      /**< absolute completion-time goal, 0 for none */
	const struct sw_job_profile *profile; /**< NULL when none */
};

/**
 * Places map @p map's input split of job @p job as the live controller does (it has no HDFS)
 * and as the simulator's --map-input live copies: the first replica on node
 * (job * 7919 + map) % n_nodes, the second on the next node in node order that is on another
 * rack (the last one tried when every node shares one rack; none on a one-node cluster).
 * Fills m->n_replicas (1 or 2) and m->replicas; nothing else.
 * @return 0, -EINVAL (NULL, or a cluster without nodes).
 */
int sw_sched_place_input(const struct sw_cluster_spec *cluster, uint64_t job, uint32_t map,
                         struct sw_map_spec *m);

/** Which of ARIA's completion-time estimates (Eqs. 5-7; sw_sched_aria.h). */
enum sw_aria_bound {
	SW_ARIA_LOW = 0,
	SW_ARIA_AVG = 1, /**< the mean of the two */
	SW_ARIA_UP = 2,
};

/** What a planning policy (ras, sw-ras, reverse-adaptive) decided for one live job at one
 *  control cycle (sw_sched_config.on_plan). */
struct sw_plan_row {
	double now;
	uint64_t job;
	uint32_t s_pend; /**< maps not completed, running ones included */
	double s_req;    /**< map slots its goal needs at once (s_pend: no goal or mean) */
	uint32_t s_fit;  /**< reverse-adaptive: maps it must run this cycle; else 0 */
	uint32_t target[SW_KINDS];  /**< job slots the plan gave it, running tasks included */
	uint32_t running[SW_KINDS]; /**< its tasks running at the plan */
	double utility;             /**< u^M + u^R of the targets, at most 1; -1e9 - 1 at worst */
};

/** Settings shared by all policies; sw_sched_config_default() fills the documented defaults. */
struct sw_sched_config {
	const char *policy; /**< a name from sw_sched_policy_names() */
	uint32_t n_users;   /**< 1..SW_SCHED_MAX_USERS */
	uint32_t n_queues;  /**< 1..SW_SCHED_MAX_QUEUES */
	/** Capacity: n_queues guaranteed fractions summing to 1, NULL = equal shares. */
	const double *queue_capacity;
	/** Fraction of a job's maps finished before its reduces may run: 0.05. */
	double slowstart;
	/** Delay: seconds a job waits for a node-local slot: 5 (the relaxed-fairness interval). */
	double node_wait;
	/** Delay: further seconds it waits for a rack-local slot: 5. */
	double rack_wait;

	/* ShuffleWatcher (the sw-* policies; README "ShuffleWatcher" gives the reasons). */
	/** NetSat: a rack is saturated above this fraction of its uplink: 0.8 (the paper's). */
	double nw_saturation_threshold;
	/** NetSat: seconds of samples that make one rate: 3 (one heartbeat interval). */
	double netsat_window;
	/** NetSat: weight of the newest window in the smoothed utilisation, (0, 1]: 0.5. */
	double netsat_smoothing;
	/** NetSat: a saturated rack clears below threshold - hysteresis: 0.05. */
	double netsat_hysteresis;
	/** SARP: fraction of a job's maps done before real map outputs place reduces: 0.15. */
	double map_completion_threshold;
	/** Starvation window in seconds (0 = off): 600 (the paper's 10 minutes). */
	double starvation_window;
	/** sw-relaxed: seconds a user may be passed over rather than take a costly task: 5. */
	double relaxed_wait;
	/** SW_MECH_* bits the sw-* policies may use (a policy uses its own set AND these): all. */
	unsigned sw_mechanisms;
	/** Planning policies (ras, sw-ras): seconds between two placements, the control cycle: 30
	 *  (RAS's "tens of seconds"). A job add also asks for a placement at the next heartbeat. */
	double plan_period;
	/** adaptive: times in a row a job that has the slots its goal needs may leave a map slot
	 *  on a node holding none of its pending maps' input to the next job (Polo's data
	 *  affinity; 0 = his basic scheduler): 1. */
	uint32_t affinity_max_delays;
	/** adaptive-hw: the speedup mu_reg / mu_acc of a job's calibration maps above which it
	 *  is accelerable (Polo's threshold, value not given): 1.5, at least 1. */
	double accel_threshold;
	/** minedf, aria (and sw-minedf): the bound a job's Lagrange minimum pair is sized on:
	 *  SW_ARIA_AVG (ARIA does not say which it deploys; its authors recommend the average). */
	enum sw_aria_bound aria_bound;
	/** Planning policies: called with every live job's row after each placement, in the
	 *  order jobs were added, to trace the control cycles; NULL (default): not called. */
	void (*on_plan)(void *arg, const struct sw_plan_row *row);
	void *on_plan_arg;
};

/** ShuffleWatcher mechanisms beyond NASS, for ablations (sw_sched_config.sw_mechanisms). */
enum sw_mechanism {
	SW_MECH_SAMP = 1u << 0,    /**< shuffle-aware map placement */
	SW_MECH_SARP = 1u << 1,    /**< shuffle-aware reduce placement */
	SW_MECH_RELAXED = 1u << 2, /**< relaxed fairness (sw-relaxed) */
	SW_MECH_ALL = (1u << 3) - 1,
};

/** One task handed out by a heartbeat. */
struct sw_assignment {
	uint64_t job;
	enum sw_task_kind kind;
	uint32_t task; /**< map index or reduce index within the job */
	enum sw_locality locality;
	/** maps: the replica to read, SW_NO_NODE for reduces. Chosen by locality alone: it may
	 *  be a node that is down, and the driver then reads another replica of the split. */
	uint32_t src_node;
};

/** What a node reports on a heartbeat. */
struct sw_heartbeat {
	uint32_t node;
	uint16_t free_slots[SW_KINDS];
};

struct sw_sched;

/** Fills @p cfg with the defaults named in struct sw_sched_config (policy "fair"). */
void sw_sched_config_default(struct sw_sched_config *cfg);

/** NULL-terminated list of the registered policy names. */
const char *const *sw_sched_policy_names(void);

/**
 * Creates a scheduler for @p cluster (copied) with settings @p cfg.
 * @return the scheduler, or NULL with errno set (EINVAL: unknown policy or inconsistent
 *         cluster; ENOMEM).
 */
struct sw_sched *sw_sched_create(const struct sw_cluster_spec *cluster,
                                 const struct sw_sched_config *cfg);

void sw_sched_destroy(struct sw_sched *s);

/** Name of the policy the scheduler runs. */
const char *sw_sched_policy(const struct sw_sched *s);

/**
 * A job arrives at @p now. Its tasks become schedulable at once (maps) or after slow-start
 * (reduces). Every map needs 1..SW_MAX_REPLICAS distinct replica nodes; at most
 * UINT32_MAX / SW_MAX_REPLICAS maps.
 * @return 0, -EINVAL (NULL or non-finite argument, no task at all, maps NULL, a replica count
 *         or node out of range or repeated, user or queue out of range, a negative demand or
 *         one larger than the largest node's cpu, memory or io; deadline policies (minedf,
 *         adaptive, ras and their sw- forms): a deadline of 1e12 s or more; minedf, sw-minedf: a
 *         negative or non-finite profile duration), -EEXIST (id is live), -ETIME (minedf,
 *         sw-minedf: the deadline is past, or the job's ARIA lower bound on every slot of the
 *         cluster ends after it; nothing is kept), -ENOMEM.
 */
int sw_sched_job_add(struct sw_sched *s, const struct sw_job_spec *job, double now);

/**
 * A node heartbeat: returns up to @p max tasks to launch on hb->node, at most as many of each
 * kind as it has free slots and as fit its free resources, maps first. Free slots are the
 * smaller of the report and the node's slots minus the tasks the scheduler has running there.
 * The scheduler counts them as running from now on.
 * @return the number of assignments written, or -EINVAL (NULL argument, unknown node,
 *         max < 0, non-finite time).
 */
int sw_sched_heartbeat(struct sw_sched *s, const struct sw_heartbeat *hb, double now,
                       struct sw_assignment *out, int max);

/**
 * The node has started a task it was assigned; records the start time for task statistics.
 * @return 0, -EINVAL (bad kind or time), -ENOENT (unknown job or task index), -EALREADY (the
 *         task is not running or its start was already reported).
 */
int sw_sched_task_started(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                          double now);

/**
 * A task finished, freeing its slot and resources. When the job's last task finishes the job
 * is removed and its id may be reused.
 * @return 0, -EINVAL (bad kind or time), -ENOENT (unknown job or task index), -EALREADY (the
 *         task is not running: never launched, or finished already).
 */
int sw_sched_task_finished(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                           double now);

/**
 * A map's output (@p bytes, on @p node) is registered and may be shuffled. Register it before
 * the job's last task finishes: the job is gone after that.
 * @return 0, -EINVAL (node out of range, bad time), -ENOENT (unknown job or map index),
 *         -EALREADY (the map is not running or done, or its output is registered already),
 *         -EHOSTDOWN (@p node is down).
 */
int sw_sched_map_output(struct sw_sched *s, uint64_t job, uint32_t map, uint32_t node,
                        uint64_t bytes, double now);

/**
 * A running task attempt failed on a node that is still up. Its slot and resources are freed,
 * a map output the attempt registered is dropped, and the task returns to pending, to be
 * handed out again (anywhere, the same node included). The scheduler counts the task's failed
 * attempts and returns the count; the driver gives up when it reaches its limit (Hadoop fails
 * the job at SW_SCHED_MAX_ATTEMPTS) by calling sw_sched_job_remove.
 * @return the task's failed attempts so far (>= 1), -EINVAL (bad kind or time), -ENOENT
 *         (unknown job or task index), -EALREADY (the task is not running).
 */
int sw_sched_task_failed(struct sw_sched *s, uint64_t job, enum sw_task_kind kind, uint32_t task,
                         double now);

/**
 * Finished map @p map's output cannot be had although its node is up (reduces failed to fetch
 * it): the map returns to pending, to run again anywhere, as for a lost node (not a failed
 * attempt; counted in sw_job_status.lost_outputs).
 * @return 0, -EINVAL (NULL, bad time), -ENOENT (unknown job or map index), -EALREADY (the map
 *         is not done, or every reduce of its job is done: nobody needs the output).
 */
int sw_sched_map_output_lost(struct sw_sched *s, uint64_t job, uint32_t map, double now);

/**
 * Node @p node is down (its machine or agent vanished). Its running tasks return to pending
 * (not counted as failed attempts: the node failed, not the task, as Hadoop marks them
 * killed). Finished maps whose output is on the node (the registered output node, else the
 * node the map ran on) return to pending too while their job has a reduce not finished:
 * those reduces need the output again. A job without reduces keeps its finished maps (their
 * output is the job's output, written elsewhere). The node gets nothing at its heartbeats
 * until sw_sched_node_up, and its capacity leaves the cluster totals DRF ranks by.
 * @return the number of tasks returned to pending, -EINVAL (NULL, node out of range, bad
 *         time), -EALREADY (the node is down already).
 */
int sw_sched_node_lost(struct sw_sched *s, uint32_t node, double now);

/**
 * Node @p node stays up but its agent restarted: the tasks running there are gone and return
 * to pending, counted as lost like sw_sched_node_lost's, while finished maps keep their
 * outputs on it (its disk kept them). An output the restarted agent no longer has is the
 * driver's to report with sw_sched_map_output_lost.
 * @return the number of tasks returned to pending, -EINVAL (NULL, node out of range, bad
 *         time), -EHOSTDOWN (the node is down: it comes back with sw_sched_node_up).
 */
int sw_sched_node_restarted(struct sw_sched *s, uint32_t node, double now);

/**
 * Node @p node is back, empty (no task, no map output), and gets work at its heartbeats.
 * @return 0, -EINVAL (NULL, node out of range, bad time), -EALREADY (the node is not down).
 */
int sw_sched_node_up(struct sw_sched *s, uint32_t node, double now);

/**
 * Kills live job @p job: its running tasks give back their slots and resources, and the job,
 * its pending tasks and its map outputs are forgotten. Later events of its tasks get -ENOENT;
 * do not reuse its id while they may still come.
 * @return 0, -EINVAL (NULL or bad time), -ENOENT (unknown job).
 */
int sw_sched_job_remove(struct sw_sched *s, uint64_t job, double now);

/** Progress of one live job, for drivers, status displays and tests. */
struct sw_job_status {
	uint32_t pending[SW_KINDS]; /**< not yet handed out */
	uint32_t running[SW_KINDS]; /**< handed out, not finished */
	uint32_t done[SW_KINDS];
	/** Seconds summed over the done tasks, from start (launch if none was reported) to finish:
	 *  with done[] the running statistics ARIA and Polo need. */
	double duration_sum[SW_KINDS];
	int reduces_ready;         /**< slow-start reached: reduces may be handed out */
	uint32_t outputs;          /**< maps whose output is registered */
	uint64_t output_bytes;     /**< their total size */
	uint32_t failed[SW_KINDS]; /**< attempts reported by sw_sched_task_failed */
	uint32_t lost[SW_KINDS];   /**< running attempts lost with their node */
	uint32_t lost_outputs;     /**< finished maps sent back to run: node lost, output lost */
};

/** Fills @p st for live job @p job. @return 0, -EINVAL (NULL argument), -ENOENT. */
int sw_sched_job_status(const struct sw_sched *s, uint64_t job, struct sw_job_status *st);

/**
 * NetSat sample: cumulative cross-rack bytes that left (@p out_bytes) and entered
 * (@p in_bytes) rack @p rack through its uplink, as counted at @p now. The caller counts all
 * cross-rack traffic NetSat watches: shuffle fetches, remote map input reads and reduce
 * output writes. The scheduler turns the counters into rates over netsat_window seconds,
 * smooths them and sets the rack's NetworkSaturated flag, which the sw-* policies read on
 * every decision for a node of that rack. Accepted under every policy. The first sample of
 * a rack, and one whose counters went backwards (an agent restarted), only sets a baseline.
 * @return 1 if the rack is now saturated, 0 if not, -EINVAL (NULL, rack out of range,
 *         non-finite time or one before the rack's previous sample).
 */
int sw_sched_net_sample(struct sw_sched *s, uint32_t rack, uint64_t out_bytes, uint64_t in_bytes,
                        double now);

/** NetSat's view of one rack. */
struct sw_net_status {
	double utilisation; /**< smoothed larger of out and in rate over the uplink capacity */
	int saturated;      /**< NetworkSaturated */
};

/** Fills @p st for @p rack. @return 0, -EINVAL (NULL argument, rack out of range). */
int sw_sched_net_status(const struct sw_sched *s, uint32_t rack, struct sw_net_status *st);

/** ShuffleWatcher's view of one live job (sw-* policies). */
struct sw_job_shuffle {
	double shuffle_input_ratio; /**< the profile's, else outputs / their maps' input, 1.0 */
	int heavy;                  /**< shuffle-heavy: ratio > 1.0 */
	int reduces_enabled;        /**< NASS let its shuffle begin; SARP has run */
	int sarp_from_outputs;      /**< reduce counts from map outputs, not SAMP's estimate */
	uint32_t n_map_racks;       /**< racks in SAMP's PreferredMapRacks, 0 without SAMP */
};

/**
 * Fills @p st for live job @p job and, when not NULL, @p map_racks (1 for each rack in
 * PreferredMapRacks, else 0) and @p reduces_per_rack (SARP's PreferredReducesPerRack once
 * the reduces are enabled, SAMP's TentativeReducePerRack before), @p n_racks entries each.
 * @return 0, -EINVAL (NULL s or st, n_racks not the cluster's while an array is given),
 *         -ENOENT (unknown job), -EOPNOTSUPP (the policy is not a sw-* one).
 */
int sw_sched_job_shuffle(const struct sw_sched *s, uint64_t job, struct sw_job_shuffle *st,
                         uint8_t *map_racks, uint32_t *reduces_per_rack, uint32_t n_racks);

/** The preference lines of NASS (ShuffleWatcher Figure 3), by what they take. */
enum sw_nass_line {
	SW_LINE_PREFERRED_MAP = 0, /**< 4, 16: rack in the job's PreferredMapRacks */
	SW_LINE_LOCAL_MAP = 1,     /**< 5, 17: node- or rack-local map */
	SW_LINE_ANY_MAP = 2,       /**< 6, 18 */
	SW_LINE_LIGHT_REDUCE = 3,  /**< 7: shuffle-light job */
	SW_LINE_SARP_REDUCE = 4,   /**< 8, 13: heavy job, PreferredReducesPerRack unmet */
	SW_LINE_HEAVY_REDUCE = 5,  /**< 14 */
	SW_LINE_ANY_REDUCE = 6,    /**< 9, 15 */
	SW_NASS_LINES = 7,
};

/** Tasks NASS launched per line, on racks not saturated [0] and saturated [1]. */
struct sw_nass_stats {
	uint64_t launched[2][SW_NASS_LINES];
};

/** Fills @p st. @return 0, -EINVAL (NULL argument), -EOPNOTSUPP (not a sw-* policy). */
int sw_sched_nass_stats(const struct sw_sched *s, struct sw_nass_stats *st);

/** Number of live jobs (arrived, not yet finished). */
uint32_t sw_sched_jobs_live(const struct sw_sched *s);

#ifdef __cplusplus
}
#endif

#endif /* SW_SCHED_H */
