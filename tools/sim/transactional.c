/* SPDX-License-Identifier: MIT */
/*
 * A transactional load sharing the simulated nodes (Polo's Reverse-Adaptive, thesis 5.3): the
 * share of every node's slots it holds over time, f(t), read from a file of "seconds,share"
 * lines, and the slots it leaves a node at a heartbeat. The scheduler gets the same f(t) as
 * its forecast: the thesis's load is known in advance.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_engine.h"
#include "sw_sched_aria.h"
#include "workload_priv.h"

struct tx_series {
	struct sw_sched_tx_point *v;
	size_t n, cap;
};

/* One "seconds,share" line after the previous breakpoint @p prev (-1 for the first). */
static int parse_line(const char *buf, double prev, const char *path, unsigned line,
                      struct sw_sched_tx_point *p, struct sw_input_error *err)
{
	char *end;

	p->t = strtod(buf, &end);
	if (end == buf || *end != ',') {
		sw_sim_wl_error(err, path, line, NULL, "expected 'seconds,share'");
		return -EINVAL;
	}
	buf = end + 1;
	p->share = strtod(buf, &end);
	if (end == buf || *end) {
		sw_sim_wl_error(err, path, line, NULL, "expected 'seconds,share'");
		return -EINVAL;
	}
	if (!(p->t >= 0 && p->t <= SW_WORKLOAD_MAX_TIME)) {
		sw_sim_wl_error(err, path, line, "seconds", "must be in [0, %g]",
		                SW_WORKLOAD_MAX_TIME);
		return -EINVAL;
	}
	if (!(p->t > prev)) {
		sw_sim_wl_error(err, path, line, "seconds", "must be after the previous line's %g",
		                prev);
		return -EINVAL;
	}
	if (!(p->share >= 0 && p->share <= 1)) {
		sw_sim_wl_error(err, path, line, "share", "must be in [0, 1]");
		return -EINVAL;
	}
	return 0;
}

static int read_series(FILE *f, const char *path, struct tx_series *a, struct sw_input_error *err)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned line = 0;
	int rc = 0;

	while (!rc && (len = getline(&buf, &cap, f)) > 0) {
		struct sw_sched_tx_point p;

		line++;
		rc = sw_sim_wl_line_complete(buf, (size_t)len, path, line, err);
		if (rc)
			break;
		buf[--len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[--len] = '\0';
		if (!len || buf[0] == '#')
			continue;
		if (a->n == SW_WORKLOAD_MAX_TX) {
			sw_sim_wl_error(err, path, line, NULL, "more than %u breakpoints",
			                SW_WORKLOAD_MAX_TX);
			rc = -EINVAL;
			break;
		}
		rc = parse_line(buf, a->n ? a->v[a->n - 1].t : -1, path, line, &p, err);
		if (!rc) {
			struct sw_sched_tx_point *to = WL_PUSH(a);

			if (to) {
				*to = p;
			} else {
				sw_sim_wl_error(err, path, line, NULL, "out of memory");
				rc = -ENOMEM;
			}
		}
	}
	if (!rc && ferror(f)) {
		sw_sim_wl_error(err, path, 0, NULL, "read error");
		rc = -EIO;
	}
	if (!rc && !a->n) {
		sw_sim_wl_error(err, path, 0, NULL, "no 'seconds,share' line");
		rc = -EINVAL;
	}
	free(buf);
	return rc;
}

int sw_sim_workload_transactional(struct sw_workload *w, const char *path,
                                  struct sw_input_error *err)
{
	struct tx_series a = {0};
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		rc = -errno;
		sw_sim_wl_error(err, path, 0, NULL, "%s", strerror(errno));
		return rc;
	}
	rc = read_series(f, path, &a, err);
	fclose(f);
	if (rc) {
		free(a.v);
		return rc;
	}
	free(w->tx);
	w->tx = a.v;
	w->tx_n = (uint32_t)a.n;
	return 0;
}

void sw_sim_tx_free_slots(const struct sim *s, uint32_t node, uint16_t free[SW_KINDS])
{
	const struct sw_node_spec *ns = &s->cluster.nodes[node];
	double share = sw_sched_transactional_share(s->sched, s->now);
	uint16_t slots[SW_KINDS] = {ns->map_slots, ns->reduce_slots};

	if (!(share > 0))
		return;
	for (int k = 0; k < SW_KINDS; k++) {
		uint32_t held =
		        sw_sched_transactional_held(share, node, s->cluster.n_nodes, slots[k]);
		/* The slots the load holds are taken first; running tasks keep theirs. */
		uint32_t busy = slots[k] - s->nodes[node].free[k];

		free[k] = busy + held >= slots[k] ? 0 : (uint16_t)(slots[k] - busy - held);
	}
}
