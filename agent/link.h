/* SPDX-License-Identifier: MIT */
/* The controller link (link.c): registration, heartbeats, the controller's messages. */
#ifndef SW_AGENT_LINK_H
#define SW_AGENT_LINK_H

#include <stdbool.h>

#include <sw_wire.h>

#include "agent.h"

struct sw_agent_link;

/* The map outputs of the agent's store as Auth.held lists them (held.c). */
struct sw_agent_held {
	SwWire__HeldOutput *outputs;
	SwWire__HeldOutput **ptrs;
	size_t n;
};
/* Points auth->held at the store's map outputs (sorted by job then map, at most
 * SW_WIRE_MAX_HELD: the rest are logged and left out). 0, or -ENOMEM with none listed.
 * h owns the storage: sw_agent_held_free once the Auth is sent. */
int sw_agent_held_list(struct sw_agent *ag, struct sw_agent_held *h, SwWire__Auth *auth);
void sw_agent_held_free(struct sw_agent_held *h);

/* Starts connecting to conf->controller; the loop does the rest. 0, -ENOMEM, sw_dp codes. */
int sw_agent_link_create(struct sw_agent *ag, const struct sw_wire_key *key,
                         struct sw_agent_link **out);
void sw_agent_link_destroy(struct sw_agent_link *l);
/* Queues the task's event for the controller and sends a heartbeat at once (the agent's
 * on_task_end hook). Killed tasks give no event: the controller asked for their end. */
void sw_agent_link_task_end(struct sw_agent_link *l, const struct sw_agent_task_result *r);
/* Queues a reduce's failed fetch for the next heartbeat (the agent's on_fetch_failed hook). */
void sw_agent_link_fetch_failed(struct sw_agent_link *l, const struct sw_agent_fetch_failure *f);
/* 1 once Welcome came on the current connection. */
bool sw_agent_link_up(const struct sw_agent_link *l);

struct sw_agent_link_counters {
	uint64_t heartbeats;    /* sent */
	uint64_t registrations; /* Welcomes received (1 + reconnections) */
	uint64_t events_queued; /* task events not sent yet */
};
void sw_agent_link_counters(const struct sw_agent_link *l, struct sw_agent_link_counters *out);

#endif
