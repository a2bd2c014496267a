/* SPDX-License-Identifier: MIT */
/* The "key = value" reader and the value checkers both daemons share. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_kv.h"

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int sw_kv_read(const char *path, sw_kv_set_fn set, void *arg, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	if (!fp) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return -e;
	}
	char buf[PATH_MAX + 128]; /* a key and a path fit */
	unsigned line = 0;
	int rc = 0;
	while (!rc && fgets(buf, sizeof(buf), fp)) {
		line++;
		/* a longer line is refused rather than read as two */
		if (!strchr(buf, '\n') && !feof(fp)) {
			snprintf(err, errlen, "%s:%u: line too long (at most %zu bytes)", path,
			         line, sizeof(buf) - 2);
			rc = -EINVAL;
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
			snprintf(err, errlen, "%s:%u: expected 'key = value'", path, line);
			rc = -EINVAL;
			break;
		}
		*eq = 0;
		char *key = trim(s), *val = trim(eq + 1), why[SW_KV_WHYLEN];
		const char *bad = set(arg, line, key, val, why);
		if (bad) {
			snprintf(err, errlen, "%s:%u: %s: %s", path, line, key, bad);
			rc = -EINVAL;
		}
	}
	if (!rc && ferror(fp)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -EIO;
	}
	fclose(fp);
	return rc;
}

const char *sw_kv_uint(const char *v, uint64_t min, uint64_t max, bool size, uint64_t *out,
                       char *why)
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
	n <<= shift;
	if (n < min || n > max) {
		snprintf(why, SW_KV_WHYLEN, "out of range (%" PRIu64 "..%" PRIu64 ")", min, max);
		return why;
	}
	*out = n;
	return NULL;
}

const char *sw_kv_addr(const char *v)
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
	char why[SW_KV_WHYLEN];
	if (sw_kv_uint(colon + 1, 0, 65535, false, &port, why))
		return "bad port (0..65535)";
	return NULL;
}

const char *sw_kv_copy(char *dst, size_t size, const char *v)
{
	if (!*v)
		return "empty";
	if (strlen(v) >= size)
		return "too long";
	strcpy(dst, v);
	return NULL;
}
