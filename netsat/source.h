/* SPDX-License-Identifier: MIT */
/*
 * Counter sources, private to netsat/: the ops table every source kind fills, and the base
 * that each kind's own struct begins with (the rdma-core provider pattern).
 */
#ifndef NETSAT_SOURCE_H
#define NETSAT_SOURCE_H

#include "sw_netsat.h"

struct netsat_source_ops {
	const char *kind;
	size_t size; /* of the kind's struct, which begins with struct sw_netsat_source */
	/* Returns 0 or a negative errno, with src->err set on failure. */
	int (*open)(struct sw_netsat_source *src, const struct sw_netsat_source_spec *spec);
	int (*read)(struct sw_netsat_source *src, struct sw_netsat_counters *c);
	void (*close)(struct sw_netsat_source *src);
};

struct sw_netsat_source {
	const struct netsat_source_ops *ops;
	char err[256];
};

/* Sets src->err and returns @p rc (a negative errno). */
int sw_netsat_fail(struct sw_netsat_source *src, int rc, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

extern const struct netsat_source_ops sw_netsat_source_link;
extern const struct netsat_source_ops sw_netsat_source_qdisc;
extern const struct netsat_source_ops sw_netsat_source_rdma;

#endif /* NETSAT_SOURCE_H */
