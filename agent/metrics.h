/* SPDX-License-Identifier: MIT */
/* /metrics of swagent (metrics.c): Prometheus text over libmicrohttpd in the agent's loop. */
#ifndef SW_AGENT_METRICS_H
#define SW_AGENT_METRICS_H

#include <stddef.h>

struct sw_agent;
struct sw_agent_link;
struct sw_agent_metrics;

/* Serves GET /metrics on addr ("IPv4:port", port 0: any). link may be NULL (no controller
 * counters). 0, -EINVAL (bad address), -EADDRINUSE, -ENOMEM, -EIO. */
int sw_agent_metrics_create(struct sw_agent *ag, struct sw_agent_link *link, const char *addr,
                            struct sw_agent_metrics **out);
void sw_agent_metrics_destroy(struct sw_agent_metrics *m);
/* The bound address "IP:port". */
const char *sw_agent_metrics_addr(const struct sw_agent_metrics *m);
/* The page itself (malloc'd, *len bytes), or NULL when out of memory. */
char *sw_agent_metrics_text(struct sw_agent *ag, struct sw_agent_link *link, size_t *len);

#endif
