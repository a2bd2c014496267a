/* SPDX-License-Identifier: MIT */
/* The counter sources: registered here, in one table, and nowhere else. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

static const struct netsat_source_ops *const sources[] = {
        &sw_netsat_source_link,
        &sw_netsat_source_qdisc,
        &sw_netsat_source_rdma,
};
#define N_SOURCES (sizeof(sources) / sizeof(sources[0]))

const char *const *sw_netsat_source_kinds(void)
{
	static const char *kinds[N_SOURCES + 1];

	for (size_t i = 0; i < N_SOURCES; i++)
		kinds[i] = sources[i]->kind;
	return kinds;
}

int sw_netsat_fail(struct sw_netsat_source *src, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(src->err, sizeof(src->err), fmt, ap);
	va_end(ap);
	return rc;
}

int sw_netsat_source_open(const struct sw_netsat_source_spec *spec, struct sw_netsat_source **src,
                          char *err, size_t err_len)
{
	const struct netsat_source_ops *ops = NULL;
	struct sw_netsat_source *s;
	int rc;

	if (err && err_len)
		err[0] = '\0';
	if (!src)
		return -EINVAL;
	*src = NULL;
	for (size_t i = 0; spec && spec->kind && i < N_SOURCES; i++) {
		if (!strcmp(spec->kind, sources[i]->kind))
			ops = sources[i];
	}
	if (!ops) {
		if (err && err_len)
			snprintf(err, err_len,
			         "unknown counter source kind '%s' (link, qdisc, rdma)",
			         spec && spec->kind ? spec->kind : "(none)");
		return -EINVAL;
	}
	s = calloc(1, ops->size);
	if (!s)
		return -ENOMEM;
	s->ops = ops;
	rc = spec->dev ? ops->open(s, spec)
	               : sw_netsat_fail(s, -EINVAL, "%s source: no device given", ops->kind);
	if (rc) {
		if (err && err_len)
			snprintf(err, err_len, "%s", s->err);
		ops->close(s);
		free(s);
		return rc;
	}
	*src = s;
	return 0;
}

int sw_netsat_source_read(struct sw_netsat_source *src, struct sw_netsat_counters *c)
{
	if (!src || !c)
		return -EINVAL;
	src->err[0] = '\0';
	memset(c, 0, sizeof(*c));
	return src->ops->read(src, c);
}

const char *sw_netsat_source_error(const struct sw_netsat_source *src)
{
	return src ? src->err : "no source";
}

void sw_netsat_source_close(struct sw_netsat_source *src)
{
	if (!src)
		return;
	src->ops->close(src);
	free(src);
}
