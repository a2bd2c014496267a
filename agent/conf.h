/* SPDX-License-Identifier: MIT */
/*
 * swagent's configuration file: one "key = value" per line, '#' starts a comment, blank lines
 * are ignored. The keys, their defaults and limits are in agent/README.md and in the table in
 * conf.c. Every error names the file, the line and the field.
 */
#ifndef SW_AGENT_CONF_H
#define SW_AGENT_CONF_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include <sw_dp.h>

struct sw_agent_conf {
	char node_id[64]; /* the node's name, e.g. "r0n1": [A-Za-z0-9._-], 1..63 characters */
	uint32_t rack;
	uint32_t map_slots;
	uint32_t reduce_slots;
	char controller[SW_DP_ADDRSTRLEN];     /* "IP:port" of swcontroller */
	char shuffle_listen[SW_DP_ADDRSTRLEN]; /* the shuffle server's address */
	char replica_listen[SW_DP_ADDRSTRLEN]; /* where other agents put output replicas */
	char metrics_listen[SW_DP_ADDRSTRLEN]; /* "IP:port" of /metrics; "" = off */
	char transport[8];                     /* shuffle transport: "tcp", "ucx" or "dpdk" */
	char key_file[PATH_MAX];               /* the cluster key (swctl keygen) */
	char store_dir[PATH_MAX];              /* spill files of the map-output store */
	uint64_t store_mem;                    /* bytes of the store's memory arena */
	char data_dir[PATH_MAX];               /* task logs, reduce outputs and replicas */
	uint32_t heartbeat_ms;                 /* heartbeat period */
};

/*
 * Reads path into *c (defaults first, then the file). Returns 0, or -EINVAL with a message
 * "FILE:LINE: FIELD: reason" (or "FILE: FIELD: missing" for a required key never set) in err,
 * or -errno when the file cannot be read (message in err too).
 */
int sw_agent_conf_load(const char *path, struct sw_agent_conf *c, char *err, size_t errlen);

#endif
