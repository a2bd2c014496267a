/* SPDX-License-Identifier: MIT */
/*
 * Agent connections: the handshake (Hello -> Challenge -> Auth -> Welcome or Refused), the
 * node registry, and lost nodes. A connection is hostile until its Auth verifies: before
 * that it may send exactly one Hello and one Auth, each at most SW_WIRE_MAX_MSG bytes (the
 * dataplane refuses larger frames unread), must finish within CTL_HANDSHAKE_S seconds, and
 * at most CTL_MAX_PENDING such connections exist at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

#define CTL_HANDSHAKE_S 10.0
#define CTL_MAX_PENDING 256

static const char *who(const struct ctl *c, const struct ctl_conn *conn)
{
	return conn->state == CONN_HELLO ? "?" : c->conf.nodes[conn->node].name;
}

void sw_ctl_agent_drop(struct ctl *c, struct ctl_conn *conn, const char *why)
{
	sw_ctl_log(c, "agent %s (%s): %s; connection closed", conn->peer, who(c, conn), why);
	if (conn->state == CONN_UP && c->nodes[conn->node].conn == conn)
		c->nodes[conn->node].conn = NULL;
	if (conn->state != CONN_UP)
		c->n_pending--;
	if (conn->prev)
		conn->prev->next = conn->next;
	else
		c->conns = conn->next;
	if (conn->next)
		conn->next->prev = conn->prev;
	sw_ctl_forget(c, conn);
	if (c->n_closed < sizeof(c->closed) / sizeof(c->closed[0]))
		c->closed[c->n_closed++] = conn->ep;
	sw_dp_ep_close(conn->ep);
	free(conn);
}

/* Sends a Refused with the reason; the connection closes once it is sent. */
static void send_refused(struct ctl *c, struct ctl_conn *conn, char *reason)
{
	SwWire__Refused r = SW_WIRE__REFUSED__INIT;
	r.reason = reason;
	sw_ctl_log(c, "agent %s refused: %s", conn->peer, reason);
	sw_ctl_send(c, conn, SW_WIRE_REFUSED, &r.base);
	conn->closing = true;
}

/* Refuses the agent's registration. */
static void refuse(struct ctl *c, struct ctl_conn *conn, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static void refuse(struct ctl *c, struct ctl_conn *conn, const char *fmt, ...)
{
	char reason[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	c->refused++;
	send_refused(c, conn, reason);
}

static int node_by_name(const struct ctl *c, const char *name)
{
	for (uint32_t i = 0; i < c->conf.n_nodes; i++)
		if (!strcmp(c->conf.nodes[i].name, name))
			return (int)i;
	return -1;
}

static void hello(struct ctl *c, struct ctl_conn *conn, const SwWire__Hello *h)
{
	int node = node_by_name(c, h->node_id);
	if (node < 0) {
		refuse(c, conn, "unknown node id %s (not in the controller's config)", h->node_id);
		return;
	}
	if (h->rack != c->conf.nodes[node].rack) {
		refuse(c, conn, "node %s is in rack %u in the controller's config, not %u",
		       h->node_id, c->conf.nodes[node].rack, h->rack);
		return;
	}
	SwWire__Challenge ch = SW_WIRE__CHALLENGE__INIT;
	int rc = sw_wire_challenge_make(&conn->hs, &c->key, h, &ch);
	if (rc == -EPROTONOSUPPORT) {
		refuse(c, conn, "protocol version %u is not supported (this controller speaks %d)",
		       h->version, SW_WIRE_VERSION);
		return;
	}
	if (rc < 0) {
		refuse(c, conn, "no challenge could be made");
		return;
	}
	conn->node = (uint32_t)node;
	conn->boot_epoch = h->boot_epoch;
	snprintf(conn->shuffle_addr, sizeof(conn->shuffle_addr), "%s", h->shuffle_addr);
	snprintf(conn->replica_addr, sizeof(conn->replica_addr), "%s", h->replica_addr);
	conn->state = CONN_AUTH;
	sw_ctl_send(c, conn, SW_WIRE_CHALLENGE, &ch.base);
}

/* Map output of jobs that ended while the agent was away would stay on its disk for good. */
static void held_jobs_done(struct ctl *c, struct ctl_conn *conn, const SwWire__Auth *a)
{
	for (size_t i = 0; i < a->n_held; i++) {
		uint64_t id = a->held[i]->job;
		if (i > 0 && a->held[i - 1]->job == id)
			continue; /* one JobDone per job */
		const struct ctl_job *j = sw_ctl_job(c, id);
		if (j != NULL && j->state == JOB_RUNNING)
			continue;
		SwWire__JobDone done = SW_WIRE__JOB_DONE__INIT;
		done.job = id;
		sw_ctl_send(c, conn, SW_WIRE_JOB_DONE, &done.base);
	}
}

static void auth(struct ctl *c, struct ctl_conn *conn, const SwWire__Auth *a)
{
	if (sw_wire_auth_check(&conn->hs, &c->key, a) < 0) {
		refuse(c, conn, "wrong cluster key (node %s)", conn->hs.node_id);
		return;
	}
	struct ctl_node *n = &c->nodes[conn->node];
	if (n->conn != NULL) {
		/* The connected agent keeps its id until it closes or its node is declared lost. */
		refuse(c, conn, "node %s is connected already, from %s", conn->hs.node_id,
		       n->conn->peer);
		return;
	}
	if (n->state == NODE_UP && n->boot_epoch != conn->boot_epoch && n->boot_epoch != 0)
		sw_ctl_node_restarted(c, conn->node, a);
	if (n->state == NODE_LOST)
		sw_ctl_node_up(c, conn->node);
	n->state = NODE_UP;
	n->conn = conn;
	n->last_seen = c->now;
	n->boot_epoch = conn->boot_epoch;
	memcpy(n->shuffle_addr, conn->shuffle_addr, sizeof(n->shuffle_addr));
	memcpy(n->replica_addr, conn->replica_addr, sizeof(n->replica_addr));
	c->rack_gen[c->conf.nodes[conn->node].rack]++; /* its agents learn the new host */
	sw_ctl_store_node(c, conn->node);
	conn->state = CONN_UP;
	c->n_pending--;
	conn->fresh = true;
	SwWire__Welcome w = SW_WIRE__WELCOME__INIT;
	w.heartbeat_ms = c->conf.heartbeat_ms;
	w.lost_after_ms = c->conf.lost_after_ms;
	sw_ctl_send(c, conn, SW_WIRE_WELCOME, &w.base);
	held_jobs_done(c, conn, a);
	sw_ctl_log(c, "agent %s registered as %s (rack %u, shuffle %s)", conn->peer,
	           conn->hs.node_id, c->conf.nodes[conn->node].rack, n->shuffle_addr);
}

static void received(struct ctl *c, struct ctl_conn *conn, struct sw_dp_event *ev)
{
	struct sw_wire_msg m;
	char err[SW_WIRE_ERRLEN];
	int rc = sw_wire_decode(ev->tag, ev->data, ev->len, &m, err, sizeof(err));
	sw_dp_release(c->dp, ev);
	c->msgs_in++;
	if (conn->closing) {
		sw_wire_msg_free(&m);
		return;
	}
	if (rc < 0) {
		c->bad_msgs++;
		sw_ctl_agent_drop(c, conn, err);
		return;
	}
	static const enum sw_wire_type expected[] = {[CONN_HELLO] = SW_WIRE_HELLO,
	                                             [CONN_AUTH] = SW_WIRE_AUTH,
	                                             [CONN_UP] = SW_WIRE_HEARTBEAT};
	if (m.type != expected[conn->state]) {
		c->bad_msgs++;
		char why[96];
		snprintf(why, sizeof(why), "sent %s where %s was due", sw_wire_type_name(m.type),
		         sw_wire_type_name(expected[conn->state]));
		sw_wire_msg_free(&m);
		sw_ctl_agent_drop(c, conn, why);
		return;
	}
	if (m.type == SW_WIRE_HELLO)
		hello(c, conn, m.hello);
	else if (m.type == SW_WIRE_AUTH)
		auth(c, conn, m.auth);
	else
		sw_ctl_dispatch(c, conn, &m);
	sw_wire_msg_free(&m);
}

void sw_ctl_agent_event(struct ctl *c, struct sw_dp_event *ev)
{
	struct ctl_conn *conn = ev->ep ? sw_dp_ep_user(ev->ep) : NULL;
	switch (ev->type) {
	case SW_DP_EV_ACCEPT:
		if (c->n_pending >= CTL_MAX_PENDING || (conn = calloc(1, sizeof(*conn))) == NULL) {
			c->refused++;
			sw_dp_ep_close(ev->ep);
			return;
		}
		c->n_pending++;
		conn->ep = ev->ep;
		conn->since = c->now;
		sw_dp_ep_peer(ev->ep, conn->peer, sizeof(conn->peer));
		sw_dp_ep_set_user(ev->ep, conn);
		conn->next = c->conns;
		if (c->conns)
			c->conns->prev = conn;
		c->conns = conn;
		return;
	case SW_DP_EV_RECV:
		received(c, conn, ev);
		return;
	case SW_DP_EV_SEND:
		sw_wire_sent(ev);
		if (conn && conn->closing)
			sw_ctl_agent_drop(c, conn, "refused");
		return;
	case SW_DP_EV_CLOSED:
		sw_ctl_agent_drop(c, conn,
		                  ev->status ? sw_dp_strerror(ev->status)
		                             : "the agent closed the connection");
		return;
	default:
		return;
	}
}

void sw_ctl_node_lost(struct ctl *c, uint32_t node, const char *why)
{
	struct ctl_node *n = &c->nodes[node];
	int back = sw_ctl_rec_node_lost(&c->rec, node, c->now);
	n->state = NODE_LOST;
	c->lost_events++;
	sw_ctl_jobs_node_lost(c, node, NULL);
	sw_ctl_store_node(c, node);
	sw_ctl_log(c, "node %s lost: %s; %d tasks back to pending", c->conf.nodes[node].name, why,
	           back);
	if (n->conn) {
		/* An agent that merely stalled (stopped, swapping) learns why its tasks were
		 * killed when it reads again, and registers anew. */
		char reason[256];
		snprintf(reason, sizeof(reason), "node %s was declared lost: %s; register again",
		         c->conf.nodes[node].name, why);
		send_refused(c, n->conn, reason);
		n->conn = NULL;
	}
}

void sw_ctl_node_up(struct ctl *c, uint32_t node)
{
	sw_ctl_rec_node_up(&c->rec, node, c->now);
	c->nodes[node].state = NODE_UP;
	c->nodes[node].no_maps_until = 0; /* back empty: its old map output is gone anyway */
	sw_ctl_log(c, "node %s is back", c->conf.nodes[node].name);
}

void sw_ctl_node_restarted(struct ctl *c, uint32_t node, const SwWire__Auth *a)
{
	int back = sw_ctl_rec_node_restarted(&c->rec, node, c->now);
	struct ctl_outputs o = sw_ctl_jobs_node_lost(c, node, a);
	c->restarts++;
	c->outputs_kept += o.kept;
	sw_ctl_log(c,
	           "node %s restarted (new boot epoch): %d running tasks back to pending; map "
	           "outputs there: %u kept, %u to make again (its store lists %zu)",
	           c->conf.nodes[node].name, back, o.kept, o.lost, a->n_held);
}

void sw_ctl_agents_tick(struct ctl *c)
{
	double lost_after = c->conf.lost_after_ms / 1000.0;
	for (uint32_t i = 0; i < c->conf.n_nodes; i++) {
		struct ctl_node *n = &c->nodes[i];
		if (n->state == NODE_UP && c->now - n->last_seen > lost_after) {
			char why[96];
			snprintf(why, sizeof(why), "no heartbeat for %.1f s (lost_after_ms %u)",
			         c->now - n->last_seen, c->conf.lost_after_ms);
			sw_ctl_node_lost(c, i, why);
		}
	}
	for (struct ctl_conn *k = c->n_pending ? c->conns : NULL, *next; k; k = next) {
		next = k->next;
		if (k->state != CONN_UP && c->now - k->since > CTL_HANDSHAKE_S)
			sw_ctl_agent_drop(c, k, "no handshake within 10 s");
	}
}
