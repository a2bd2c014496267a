/* SPDX-License-Identifier: MIT */
/*
 * The cluster's state file, DIR/cluster.state: "key value" lines. The header (name, size,
 * rates) is written before anything is made and each daemon's line as it starts, by appending,
 * so a killed `up` leaves a file that `down` can still read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cluster.h"

static void state_path(const struct cluster *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s/" CLUSTER_STATE, c->dir);
}

static void append(const struct cluster *c, const char *fmt, ...)
{
	char path[PATH_MAX + 32];
	state_path(c, path, sizeof(path));
	FILE *f = fopen(path, "ae");
	if (f == NULL) {
		fprintf(stderr, "swctl cluster: %s: %s\n", path, strerror(errno));
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0)
		fprintf(stderr, "swctl cluster: %s: %s\n", path, strerror(errno));
	fclose(f);
}

int cluster_state_create(const struct cluster *c)
{
	if (mkdir(c->dir, 0700) != 0) {
		fprintf(stderr, "swctl cluster up: %s: %s%s\n", c->dir, strerror(errno),
		        errno == EEXIST ? " (choose another --dir, or swctl cluster down --dir it)"
		                        : "");
		return -1;
	}
	append(c,
	       "name %s\nracks %d\nnodes %d\nnic %llu\nuplink %llu\ntransport %s\npolicy %s\n"
	       "lost_after_ms %u\npace %g\nsaturation_threshold %g\ncontroller " CLUSTER_CTL_AGENTS
	       "\nhttp " CLUSTER_CTL_HTTP "\n",
	       c->name, c->racks, c->nodes, c->nic_bps, c->uplink_bps, c->transport, c->policy,
	       c->lost_after_ms, c->pace, c->saturation_threshold);
	return 0;
}

void cluster_state_add_pid(const struct cluster *c, pid_t pid, const char *role, const char *ns)
{
	append(c, "pid %d %s %s\n", (int)pid, role, ns);
}

void cluster_state_set_policy(const struct cluster *c)
{
	append(c, "policy %s\n", c->policy);
}

void cluster_state_mark_up(const struct cluster *c)
{
	append(c, "up\n");
}

static FILE *open_state(const struct cluster *c)
{
	char path[PATH_MAX + 32];
	state_path(c, path, sizeof(path));
	return fopen(path, "re");
}

int cluster_state_load(const char *dir, struct cluster *c)
{
	memset(c, 0, sizeof(*c));
	/* a state file from before the options */
	c->lost_after_ms = CLUSTER_LOST_AFTER_MS;
	c->saturation_threshold = CLUSTER_SATURATION_THRESHOLD;
	if (realpath(dir, c->dir) == NULL)
		return -ENOENT;
	FILE *f = open_state(c);
	if (f == NULL)
		return errno == ENOENT ? -ENOENT : (perror(c->dir), -1);
	char line[512], key[32], val[256];
	int lineno = 0, bad = 0;
	while (!bad && fgets(line, sizeof(line), f)) {
		lineno++;
		if (sscanf(line, "%31s %255s", key, val) < 1)
			continue;
		if (!strcmp(key, "name"))
			bad = snprintf(c->name, sizeof(c->name), "%s", val) >= (int)sizeof(c->name);
		else if (!strcmp(key, "racks"))
			c->racks = atoi(val);
		else if (!strcmp(key, "nodes"))
			c->nodes = atoi(val);
		else if (!strcmp(key, "nic"))
			c->nic_bps = strtoull(val, NULL, 10);
		else if (!strcmp(key, "uplink"))
			c->uplink_bps = strtoull(val, NULL, 10);
		else if (!strcmp(key, "lost_after_ms"))
			c->lost_after_ms = (unsigned)strtoul(val, NULL, 10);
		else if (!strcmp(key, "pace"))
			c->pace = strtod(val, NULL);
		else if (!strcmp(key, "saturation_threshold"))
			c->saturation_threshold = strtod(val, NULL);
		else if (!strcmp(key, "transport"))
			bad = snprintf(c->transport, sizeof(c->transport), "%s", val) >=
			      (int)sizeof(c->transport);
		else if (!strcmp(key, "policy"))
			bad = snprintf(c->policy, sizeof(c->policy), "%s", val) >=
			      (int)sizeof(c->policy);
	}
	fclose(f);
	if (bad || c->name[0] == '\0' || c->racks < 1 || c->racks > CLUSTER_MAX_RACKS ||
	    c->nodes < 1 || c->nodes > CLUSTER_MAX_NODES) {
		fprintf(stderr,
		        "swctl cluster: %s/" CLUSTER_STATE ":%d: not a cluster state file\n",
		        c->dir, lineno);
		return -1;
	}
	return 0;
}

int cluster_state_each_pid(const struct cluster *c,
                           void (*fn)(pid_t, const char *, const char *, void *), void *arg)
{
	FILE *f = open_state(c);
	char line[512], role[64], ns[64];
	int pid, up = 0;
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "pid %d %63s %63s", &pid, role, ns) == 3)
			fn((pid_t)pid, role, ns, arg);
		up |= !strcmp(line, "up\n");
	}
	if (f)
		fclose(f);
	return up;
}
