/* SPDX-License-Identifier: MIT */
/* swcontroller's config file: "key = value" lines (sw_kv reads them), one "node = NAME RACK
 * [MAPS REDUCES]" per node. Keys and defaults: controller/README.md. Errors name the file,
 * line and key. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sw_kv.h>

#include "ctl.h"

#define CTL_SLOTS_DEFAULT UINT16_MAX /* a node line without slots */

/* "NAME RACK [MAPS REDUCES]" */
static const char *node_line(struct ctl_conf *c, char *v, char *why)
{
	char *name = strtok(v, " \t"), *rack = strtok(NULL, " \t"), *ms = strtok(NULL, " \t"),
	     *rs = strtok(NULL, " \t");
	uint64_t r, m = CTL_SLOTS_DEFAULT, n = CTL_SLOTS_DEFAULT;
	if (name == NULL || rack == NULL || (ms != NULL) != (rs != NULL) || strtok(NULL, " \t"))
		return "expected NAME RACK [MAP_SLOTS REDUCE_SLOTS]";
	if (!sw_wire_node_id_valid(name))
		return "node name is not 1-63 characters of [A-Za-z0-9._-]";
	if (sw_kv_uint(rack, 0, CTL_MAX_RACKS - 1, false, &r, why) ||
	    (ms &&
	     (sw_kv_uint(ms, 0, 1024, false, &m, why) || sw_kv_uint(rs, 0, 1024, false, &n, why))))
		return "rack (0..1023) or slots (0..1024) are not numbers in range";
	for (uint32_t i = 0; i < c->n_nodes; i++)
		if (!strcmp(c->nodes[i].name, name))
			return "node named twice";
	struct ctl_conf_node *nodes = realloc(c->nodes, (c->n_nodes + 1) * sizeof(*nodes));
	if (nodes == NULL)
		return "out of memory";
	c->nodes = nodes;
	struct ctl_conf_node *nd = &nodes[c->n_nodes++];
	strcpy(nd->name, name);
	nd->rack = (uint32_t)r;
	nd->map_slots = (uint16_t)m;
	nd->reduce_slots = (uint16_t)n;
	if (nd->rack >= c->n_racks)
		c->n_racks = nd->rack + 1;
	return NULL;
}

/* A fraction of an uplink: saturation_threshold in [0.1, 1] (NetSat clears the flag 0.05
 * below it), pace_uplink in (0, 1] or "off" (0). */
static const char *fraction(const char *key, const char *v, double *out)
{
	bool pace = !strcmp(key, "pace_uplink");
	char *end;
	if (pace && !strcmp(v, "off")) {
		*out = 0;
		return NULL;
	}
	double d = strtod(v, &end);
	if (end == v || *end || !(pace ? d > 0 : d >= 0.1) || !(d <= 1))
		return pace ? "expected off or a number in (0, 1]"
		            : "expected a number in [0.1, 1]";
	*out = d;
	return NULL;
}

static const char *set(void *arg, unsigned line, const char *key, char *v, char *why)
{
	struct ctl_conf *c = arg;
	(void)line;
	const char *bad;
	if (!strcmp(key, "listen"))
		return (bad = sw_kv_addr(v)) ? bad : sw_kv_copy(c->listen, sizeof(c->listen), v);
	if (!strcmp(key, "http_listen"))
		return (bad = sw_kv_addr(v))
		               ? bad
		               : sw_kv_copy(c->http_listen, sizeof(c->http_listen), v);
	if (!strcmp(key, "key_file"))
		return sw_kv_copy(c->key_file, sizeof(c->key_file), v);
	if (!strcmp(key, "state_db"))
		return sw_kv_copy(c->state_db, sizeof(c->state_db), v);
	if (!strcmp(key, "trace_file"))
		return sw_kv_copy(c->trace_file, sizeof(c->trace_file), v);
	if (!strcmp(key, "policy")) {
		for (const char *const *p = sw_sched_policy_names(); *p; p++)
			if (!strcmp(*p, v))
				return sw_kv_copy(c->policy, sizeof(c->policy), v);
		return "unknown policy (see swctl replay --help)";
	}
	if (!strcmp(key, "state_sync")) {
		if (strcmp(v, "normal") && strcmp(v, "off"))
			return "expected normal or off";
		return sw_kv_copy(c->state_sync, sizeof(c->state_sync), v);
	}
	if (!strcmp(key, "node"))
		return node_line(c, v, why);
	if (!strcmp(key, "saturation_threshold") || !strcmp(key, "pace_uplink"))
		return fraction(key, v, key[0] == 'p' ? &c->pace_uplink : &c->saturation_threshold);
	struct {
		const char *key;
		uint64_t min, max;
	} nums[] = {{"users", 1, 65536},
	            {"heartbeat_ms", 100, 600000},
	            {"lost_after_ms", 1000, 86400000},
	            {"uplink_mbps", 1, 100000000},
	            {"nic_mbps", 1, 100000000},
	            {"map_slots", 0, 1024},
	            {"reduce_slots", 0, 1024}};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		uint64_t n;
		if (strcmp(key, nums[i].key))
			continue;
		if ((bad = sw_kv_uint(v, nums[i].min, nums[i].max, false, &n, why)) != NULL)
			return bad;
		switch (i) {
		case 0:
			c->users = (uint32_t)n;
			break;
		case 1:
			c->heartbeat_ms = (uint32_t)n;
			break;
		case 2:
			c->lost_after_ms = (uint32_t)n;
			break;
		case 3:
			c->uplink_bps = (double)n * 1e6;
			break;
		case 4:
			c->nic_bps = (double)n * 1e6;
			break;
		case 5:
			c->map_slots = (uint16_t)n;
			break;
		default:
			c->reduce_slots = (uint16_t)n;
			break;
		}
		return NULL;
	}
	return "unknown key";
}

int sw_ctl_conf_load(const char *path, struct ctl_conf *c, char *err, size_t errlen)
{
	*c = (struct ctl_conf){.policy = "sw-fair",
	                       .state_sync = "normal",
	                       .users = 16,
	                       .heartbeat_ms = 3000,
	                       .lost_after_ms = 30000,
	                       .uplink_bps = 10e9,
	                       .nic_bps = 25e9,
	                       .map_slots = 2,
	                       .reduce_slots = 2,
	                       .saturation_threshold = 0.8};
	int rc = sw_kv_read(path, set, c, err, errlen);
	if (rc < 0) {
		sw_ctl_conf_free(c);
		return rc;
	}
	const char *missing = !*c->listen        ? "listen"
	                      : !*c->http_listen ? "http_listen"
	                      : !*c->key_file    ? "key_file"
	                      : !*c->state_db    ? "state_db"
	                      : c->n_nodes == 0  ? "node"
	                                         : NULL;
	if (missing)
		rc = sw_ctl_errf(err, errlen, -EINVAL, "%s: %s: missing (required)", path, missing);
	for (uint32_t i = 0; i < c->n_nodes; i++) {
		/* map_slots and reduce_slots apply wherever they stand in the file. */
		if (c->nodes[i].map_slots == CTL_SLOTS_DEFAULT)
			c->nodes[i].map_slots = c->map_slots;
		if (c->nodes[i].reduce_slots == CTL_SLOTS_DEFAULT)
			c->nodes[i].reduce_slots = c->reduce_slots;
	}
	if (rc == 0 && c->lost_after_ms < 2 * c->heartbeat_ms)
		rc = sw_ctl_errf(err, errlen, -EINVAL,
		                 "%s: lost_after_ms: less than two heartbeats (%u ms)", path,
		                 2 * c->heartbeat_ms);
	/* A rack paced at full demand must stay marked saturated, or it would be paced and
	 * unpaced in turns, one NetSat window each (controller/README.md, "Pacing"). */
	if (rc == 0 && c->pace_uplink > 0 && c->pace_uplink <= c->saturation_threshold)
		rc = sw_ctl_errf(err, errlen, -EINVAL,
		                 "%s: pace_uplink: %g is not above saturation_threshold (%g)", path,
		                 c->pace_uplink, c->saturation_threshold);
	if (rc < 0)
		sw_ctl_conf_free(c);
	return rc;
}

void sw_ctl_conf_free(struct ctl_conf *c)
{
	free(c->nodes);
	c->nodes = NULL;
	c->n_nodes = 0;
}
