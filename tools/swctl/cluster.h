/* SPDX-License-Identifier: MIT */
/*
 * swctl cluster: racks emulated with network namespaces on this machine, running the live
 * service (one swagent per node namespace, swcontroller in the spine namespace).
 *
 * Every namespace is named after the cluster: NAME-spine, NAME-torR, NAME-rRnN. Everything
 * else lives in the cluster's directory, whose state file (cluster.state) is written before
 * anything is made, so `down` can undo a crashed `up`.
 */
#ifndef SWCTL_CLUSTER_H
#define SWCTL_CLUSTER_H

#include <limits.h>
#include <sys/types.h>

#define CLUSTER_NAME_MAX  16
#define CLUSTER_MAX_RACKS 32
#define CLUSTER_MAX_NODES 32 /* per rack */
#define CLUSTER_STATE     "cluster.state"
/* The controller's address, on the spine namespace's loopback device. */
#define CLUSTER_CTL_IP     "10.255.255.1"
#define CLUSTER_CTL_AGENTS CLUSTER_CTL_IP ":7000"
#define CLUSTER_CTL_HTTP   CLUSTER_CTL_IP ":7080"

struct cluster {
	char name[CLUSTER_NAME_MAX + 1];
	char dir[PATH_MAX];
	int racks, nodes;                       /* nodes per rack */
	unsigned long long nic_bps, uplink_bps; /* bit/s, each direction */
	char transport[8];
	char policy[32];
	unsigned lost_after_ms;      /* the controller's lost_after_ms (--lost-after) */
	double pace;                 /* the controller's pace_uplink (--pace), 0: off */
	double saturation_threshold; /* the controller's (--saturation-threshold) */
};

/* --saturation-threshold's default, the scheduler's own. */
#define CLUSTER_SATURATION_THRESHOLD 0.8

/* --lost-after's default, the live suites' (tests/live/live.sh): 10 heartbeats of 500 ms. */
#define CLUSTER_LOST_AFTER_MS 5000

/* ---- cluster_state.c: the state file ---- */

/* Makes the directory (its parent must exist, it must not) and writes the state file's
 * header. 0, or -1 after a message. */
int cluster_state_create(const struct cluster *c);
/* Appends one line "pid PID ROLE NAMESPACE". */
void cluster_state_add_pid(const struct cluster *c, pid_t pid, const char *role, const char *ns);
/* Appends c->policy's line (the last one counts). */
void cluster_state_set_policy(const struct cluster *c);
/* Appends the line "up": every agent registered. */
void cluster_state_mark_up(const struct cluster *c);
/* Reads the header of DIR's state file into *c (dir set to DIR's real path). 0, -ENOENT
 * when DIR has no state file, or -1 after a message (unreadable, malformed). */
int cluster_state_load(const char *dir, struct cluster *c);
/* Each "pid" line: fn(pid, role, namespace, arg). Returns whether the line "up" is there. */
int cluster_state_each_pid(const struct cluster *c,
                           void (*fn)(pid_t, const char *, const char *, void *), void *arg);

/* ---- cluster_net.c: namespaces, links, shaping (ip and tc as child processes) ---- */

/* The name of the spine's (rack -1), a ToR's (node -1) or a node's namespace. */
void cluster_ns_name(const struct cluster *c, int rack, int node, char *buf, size_t len);
/* Whether namespace @p ns is one cluster @p name makes. */
int cluster_ns_is_ours(const char *name, const char *ns);
/* Builds the topology; -1 after a message naming the command that failed. */
int cluster_net_up(const struct cluster *c);
/* Deletes every namespace of cluster @p name; returns how many there were. */
int cluster_net_down(const char *name);
/* How many namespaces of cluster @p name exist. */
int cluster_net_count(const char *name);
/* Moves this (single-threaded) process into namespace @p ns. 0, or -1 after a message. */
int cluster_enter(const char *ns);
/* A node's address: 10.(rack+1).0.(node+11). */
void cluster_node_ip(int rack, int node, char *buf, size_t len);
/* The fixed MAC of node @p node's eth0 in rack @p rack, or (node -1) of the rack's ToR bridge. */
void cluster_node_mac(int rack, int node, char *buf, size_t len);

/* ---- cluster_proc.c: config files, daemons, registration, clean-up of processes ---- */

/* Writes the key and configs, starts swcontroller and every swagent, and waits up to
 * @p timeout seconds until every agent has registered. 0, or -1 after a message. */
int cluster_start(const struct cluster *c, double timeout);
/* Restarts swcontroller with a fresh state under policy c->policy and @p users users (what ran
 * before is forgotten; the agents reconnect), records the policy in the state file, and waits
 * up to @p timeout seconds until every agent has registered again. 0, or -1 after a message. */
int cluster_restart_controller(const struct cluster *c, unsigned users, double timeout);
/* Kills node (rack, node)'s swagent with SIGKILL, as a crash would: 1, 0 if none ran, or -1
 * when it survived. */
int cluster_kill_agent(const struct cluster *c, int rack, int node);
/* Kills swcontroller with SIGKILL, as a crash would: 1, 0 if none ran, or -1 when it
 * survived. */
int cluster_kill_controller(const struct cluster *c);
/* Starts swcontroller again on its config and state (it recovers what it had committed) and
 * waits up to @p timeout seconds until it listens. 0, or -1 after a message. */
int cluster_start_controller(const struct cluster *c, double timeout);
/* Starts node (rack, node)'s swagent again (its config, store and data as they were). 0, or
 * -1 after a message. */
int cluster_start_agent(const struct cluster *c, int rack, int node);
/* Waits up to @p timeout seconds until every agent is registered. 0, or -1 after a message. */
int cluster_wait_registered(const struct cluster *c, double timeout);
/* Stops every process in the cluster's namespaces or running on a file in its directory
 * (SIGTERM, then SIGKILL after 5 s). Returns how many there were. */
int cluster_kill_all(const char *name, const char *dir);
/* Whether @p pid runs (not a zombie) with a file in @p dir on its command line. */
int cluster_pid_is_ours(pid_t pid, const char *dir);

#endif
