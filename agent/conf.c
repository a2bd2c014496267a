/* SPDX-License-Identifier: MIT */
/* swagent's config file: a table of fields, one checker per value kind (sw_kv reads the lines). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <sw_kv.h>

#include "conf.h"

enum kind { K_U32, K_SIZE, K_NAME, K_ADDR, K_PATH, K_TRANSPORT };

struct field {
	const char *name;
	enum kind kind;
	size_t off;  /* offset in struct sw_agent_conf */
	size_t size; /* of the member (strings) */
	uint64_t min, max;
	bool required;
	const char *dflt; /* parsed like a value from the file; NULL: none */
};

#define F(name, kind, min, max, req, dflt)                                             \
	{                                                                              \
#name, kind, offsetof(struct sw_agent_conf, name),                     \
		        sizeof(((struct sw_agent_conf *)0)->name), min, max, req, dflt \
	}

static const struct field fields[] = {
        F(node_id, K_NAME, 0, 0, true, NULL),
        F(rack, K_U32, 0, 65535, true, NULL),
        F(map_slots, K_U32, 0, 1024, false, "2"),
        F(reduce_slots, K_U32, 0, 1024, false, "2"),
        F(controller, K_ADDR, 0, 0, true, NULL),
        F(shuffle_listen, K_ADDR, 0, 0, true, NULL),
        F(replica_listen, K_ADDR, 0, 0, true, NULL),
        F(metrics_listen, K_ADDR, 0, 0, false, NULL),
        F(transport, K_TRANSPORT, 0, 0, false, "tcp"),
        F(key_file, K_PATH, 0, 0, true, NULL),
        F(store_dir, K_PATH, 0, 0, true, NULL),
        F(store_mem, K_SIZE, 1u << 20, 1ull << 40, false, "64M"),
        F(data_dir, K_PATH, 0, 0, true, NULL),
        F(heartbeat_ms, K_U32, 100, 600000, false, "3000"),
};
#define NFIELDS (sizeof(fields) / sizeof(fields[0]))

/* Stores value v into field f of c; returns why it is bad (possibly written into why), or NULL. */
static const char *set_field(struct sw_agent_conf *c, const struct field *f, const char *v,
                             char *why)
{
	void *dst = (char *)c + f->off;
	uint64_t n;
	const char *bad;
	switch (f->kind) {
	case K_U32:
	case K_SIZE:
		if ((bad = sw_kv_uint(v, f->min, f->max, f->kind == K_SIZE, &n, why)))
			return bad;
		if (f->kind == K_U32)
			*(uint32_t *)dst = (uint32_t)n;
		else
			*(uint64_t *)dst = n;
		return NULL;
	case K_TRANSPORT:
		if (strcmp(v, "tcp") && strcmp(v, "ucx") && strcmp(v, "dpdk"))
			return "unknown transport (tcp, ucx or dpdk)";
		break;
	case K_ADDR:
		if ((bad = sw_kv_addr(v)))
			return bad;
		break;
	case K_PATH:
		if (!*v)
			return "empty path";
		break;
	case K_NAME:
		if (!*v ||
		    strspn(v,
		           "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") !=
		            strlen(v))
			return "not a node name (letters, digits, '.', '_', '-')";
		break;
	}
	if (strlen(v) >= f->size)
		return "too long";
	strcpy(dst, v);
	return NULL;
}

struct load {
	struct sw_agent_conf *c;
	unsigned seen[NFIELDS]; /* line where each field was set */
};

static const char *set(void *arg, unsigned line, const char *key, char *val, char *why)
{
	struct load *ld = arg;
	size_t i = 0;
	while (i < NFIELDS && strcmp(fields[i].name, key))
		i++;
	if (i == NFIELDS)
		return "unknown field";
	if (ld->seen[i]) {
		snprintf(why, SW_KV_WHYLEN, "set twice (first on line %u)", ld->seen[i]);
		return why;
	}
	ld->seen[i] = line;
	const char *bad = set_field(ld->c, &fields[i], val, why);
	if (!bad)
		return NULL;
	char tmp[SW_KV_WHYLEN]; /* bad may be why itself */
	snprintf(tmp, sizeof(tmp), "%s", bad);
	snprintf(why, SW_KV_WHYLEN, "%.70s: '%.80s'", tmp, val); /* no more than fits */
	return why;
}

int sw_agent_conf_load(const char *path, struct sw_agent_conf *c, char *err, size_t errlen)
{
	struct load ld = {.c = c};
	char why[SW_KV_WHYLEN];
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NFIELDS; i++)
		if (fields[i].dflt)
			set_field(c, &fields[i], fields[i].dflt, why);
	int rc = sw_kv_read(path, set, &ld, err, errlen);
	for (size_t i = 0; !rc && i < NFIELDS; i++)
		if (fields[i].required && !ld.seen[i]) {
			snprintf(err, errlen, "%s: %s: missing (required)", path, fields[i].name);
			rc = -EINVAL;
		}
	return rc;
}
