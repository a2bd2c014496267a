/* SPDX-License-Identifier: MIT */
/* swagent's config file: a table of fields, one parser per value kind. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Parses an unsigned decimal with an optional K/M/G/T suffix (powers of 1024 when size). */
static const char *parse_uint(const char *v, bool size, uint64_t *out)
{
	if (!isdigit((unsigned char)v[0]))
		return "not a number";
	errno = 0;
	char *end;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno == ERANGE)
		return "number too large";
	unsigned shift = 0;
	if (size && *end) {
		const char *units = "KMGT";
		const char *u = strchr(units, toupper((unsigned char)*end));
		if (!u || end[1])
			return "unknown size suffix (use K, M, G or T)";
		shift = 10 * (unsigned)(u - units + 1);
		end++;
		if (n > (UINT64_MAX >> shift))
			return "number too large";
	}
	if (*end)
		return "trailing characters after the number";
	*out = (uint64_t)n << shift;
	return NULL;
}

/* "IPv4:port" with a port in 0..65535, as sw_dp_listen/connect take it. */
static const char *check_addr(const char *v)
{
	const char *colon = strrchr(v, ':');
	if (!colon || colon == v)
		return "expected IPv4:port";
	char ip[INET_ADDRSTRLEN];
	size_t iplen = (size_t)(colon - v);
	if (iplen >= sizeof(ip))
		return "bad IPv4 address";
	memcpy(ip, v, iplen);
	ip[iplen] = 0;
	struct in_addr a;
	if (inet_pton(AF_INET, ip, &a) != 1)
		return "bad IPv4 address";
	uint64_t port;
	if (parse_uint(colon + 1, false, &port) || port > 65535)
		return "bad port (0..65535)";
	return NULL;
}

/* Stores value v into field f of c; returns why it is bad (possibly written into tmp), or NULL. */
static const char *set_field(struct sw_agent_conf *c, const struct field *f, const char *v,
                             char *tmp, size_t tmplen)
{
	void *dst = (char *)c + f->off;
	uint64_t n;
	const char *why;
	switch (f->kind) {
	case K_U32:
	case K_SIZE:
		why = parse_uint(v, f->kind == K_SIZE, &n);
		if (why)
			return why;
		if (n < f->min || n > f->max) {
			snprintf(tmp, tmplen, "out of range (%" PRIu64 "..%" PRIu64 ")", f->min,
			         f->max);
			return tmp;
		}
		if (f->kind == K_U32)
			*(uint32_t *)dst = (uint32_t)n;
		else
			*(uint64_t *)dst = n;
		return NULL;
	case K_TRANSPORT:
		if (strcmp(v, "tcp") && strcmp(v, "ucx"))
			return "unknown transport (tcp or ucx)";
		break;
	case K_ADDR:
		why = check_addr(v);
		if (why)
			return why;
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

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int sw_agent_conf_load(const char *path, struct sw_agent_conf *c, char *err, size_t errlen)
{
	unsigned seen[NFIELDS] = {0}; /* line where each field was set */
	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < NFIELDS; i++)
		if (fields[i].dflt)
			set_field(c, &fields[i], fields[i].dflt, NULL, 0);

	FILE *fp = fopen(path, "r");
	if (!fp) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	char buf[PATH_MAX + 128];
	unsigned line = 0;
	int rc = 0;
	while (!rc && fgets(buf, sizeof(buf), fp)) {
		line++;
		if (!strchr(buf, '\n') && !feof(fp)) {
			rc = fail(err, errlen, "%s:%u: line too long (at most %zu bytes)", path,
			          line, sizeof(buf) - 2);
			break;
		}
		char *hash = strchr(buf, '#');
		if (hash)
			*hash = 0;
		char *s = trim(buf);
		if (!*s)
			continue;
		char *eq = strchr(s, '=');
		if (!eq) {
			rc = fail(err, errlen, "%s:%u: expected 'key = value'", path, line);
			break;
		}
		*eq = 0;
		char *key = trim(s), *val = trim(eq + 1);
		size_t i = 0;
		while (i < NFIELDS && strcmp(fields[i].name, key))
			i++;
		if (i == NFIELDS)
			rc = fail(err, errlen, "%s:%u: %s: unknown field", path, line, key);
		else if (seen[i])
			rc = fail(err, errlen, "%s:%u: %s: set twice (first on line %u)", path,
			          line, key, seen[i]);
		else {
			char tmp[96];
			const char *why = set_field(c, &fields[i], val, tmp, sizeof(tmp));
			if (why)
				rc = fail(err, errlen, "%s:%u: %s: %s: '%s'", path, line, key, why,
				          val);
			seen[i] = line;
		}
	}
	if (!rc && ferror(fp))
		rc = fail(err, errlen, "%s: read error", path);
	fclose(fp);
	for (size_t i = 0; !rc && i < NFIELDS; i++)
		if (fields[i].required && !seen[i])
			rc = fail(err, errlen, "%s: %s: missing (required)", path, fields[i].name);
	return rc;
}
