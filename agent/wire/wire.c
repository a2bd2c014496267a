/* SPDX-License-Identifier: MIT */
/*
 * Message types, encoding, and decoding with the checks that let consumers trust a decoded
 * message's shape (not its content: ids are checked against the controller's state there).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sw_wire.h"
#include "wire_int.h"

static const struct {
	const char *name;
	const ProtobufCMessageDescriptor *desc;
} types[SW_WIRE_TYPES] = {
        [SW_WIRE_HELLO] = {"Hello", &sw_wire__hello__descriptor},
        [SW_WIRE_CHALLENGE] = {"Challenge", &sw_wire__challenge__descriptor},
        [SW_WIRE_AUTH] = {"Auth", &sw_wire__auth__descriptor},
        [SW_WIRE_WELCOME] = {"Welcome", &sw_wire__welcome__descriptor},
        [SW_WIRE_REFUSED] = {"Refused", &sw_wire__refused__descriptor},
        [SW_WIRE_HEARTBEAT] = {"Heartbeat", &sw_wire__heartbeat__descriptor},
        [SW_WIRE_ASSIGN] = {"Assign", &sw_wire__assign__descriptor},
        [SW_WIRE_MAP_OUTPUTS] = {"MapOutputs", &sw_wire__map_outputs__descriptor},
        [SW_WIRE_KILL_TASK] = {"KillTask", &sw_wire__kill_task__descriptor},
        [SW_WIRE_JOB_DONE] = {"JobDone", &sw_wire__job_done__descriptor},
        [SW_WIRE_PACE] = {"Pace", &sw_wire__pace__descriptor},
};

static int known(uint64_t type)
{
	return type >= SW_WIRE_HELLO && type < SW_WIRE_TYPES;
}

const char *sw_wire_type_name(uint64_t type)
{
	return known(type) ? types[type].name : "unknown";
}

int sw_wire_errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	if (err != NULL && errlen > 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

int sw_wire_node_id_valid(const char *id)
{
	size_t n = strlen(id);
	if (n == 0 || n > SW_WIRE_NODE_ID_MAX)
		return 0;
	return strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") == n;
}

/* Nonces and MACs have fixed lengths. */
static int len_check(const char *msg, const char *field, const ProtobufCBinaryData *b, size_t want,
                     char *err, size_t errlen)
{
	if (b->len == want)
		return 0;
	return sw_wire_errf(err, errlen, -EPROTO, "invalid %s: %s is %zu bytes, not %zu", msg,
	                    field, b->len, want);
}

static int task_ref_valid(const SwWire__TaskRef *t)
{
	return t != NULL &&
	       (t->kind == SW_WIRE__TASK_KIND__MAP || t->kind == SW_WIRE__TASK_KIND__REDUCE);
}

/* Auth.held: bounded, and sorted by job then map without repeats (the controller bisects it). */
static int held_check(const SwWire__Auth *a, char *err, size_t errlen)
{
	if (a->n_held > SW_WIRE_MAX_HELD)
		return sw_wire_errf(err, errlen, -EPROTO,
		                    "invalid Auth: %zu held outputs, more than %u", a->n_held,
		                    SW_WIRE_MAX_HELD);
	for (size_t i = 1; i < a->n_held; i++) {
		const SwWire__HeldOutput *p = a->held[i - 1], *q = a->held[i];
		if (p->job > q->job || (p->job == q->job && p->map >= q->map))
			return sw_wire_errf(
			        err, errlen, -EPROTO,
			        "invalid Auth: held[%zu] is not after held[%zu] (sorted "
			        "by job, then map)",
			        i, i - 1);
	}
	return 0;
}

/* The checks beyond protobuf's own. Returns 0 when m is usable, else -EPROTO saying why. */
static int check(const struct sw_wire_msg *m, char *err, size_t errlen)
{
	const char *name = types[m->type].name;
	switch (m->type) {
	case SW_WIRE_HELLO:
		if (!sw_wire_node_id_valid(m->hello->node_id))
			return sw_wire_errf(err, errlen, -EPROTO,
			                    "invalid Hello: node_id is not 1-%d characters of "
			                    "[A-Za-z0-9._-]",
			                    SW_WIRE_NODE_ID_MAX);
		return len_check(name, "agent_nonce", &m->hello->agent_nonce, SW_WIRE_NONCE_LEN,
		                 err, errlen);
	case SW_WIRE_CHALLENGE:
		return len_check(name, "controller_nonce", &m->challenge->controller_nonce,
		                 SW_WIRE_NONCE_LEN, err, errlen)
		               ?: len_check(name, "mac", &m->challenge->mac, SW_WIRE_MAC_LEN, err,
		                            errlen);
	case SW_WIRE_AUTH:
		return len_check(name, "mac", &m->auth->mac, SW_WIRE_MAC_LEN, err, errlen)
		               ?: held_check(m->auth, err, errlen);
	case SW_WIRE_HEARTBEAT:
		for (size_t i = 0; i < m->heartbeat->n_events; i++) {
			const SwWire__TaskEvent *e = m->heartbeat->events[i];
			if (!task_ref_valid(e->task) ||
			    (unsigned)e->type > SW_WIRE__TASK_EVENT__TYPE__FAILED)
				return sw_wire_errf(
				        err, errlen, -EPROTO,
				        "invalid Heartbeat: events[%zu] has no task, or an "
				        "unknown task kind or event type",
				        i);
		}
		for (size_t i = 0; i < m->heartbeat->n_running; i++)
			if (!task_ref_valid(m->heartbeat->running[i]))
				return sw_wire_errf(
				        err, errlen, -EPROTO,
				        "invalid Heartbeat: running[%zu] has an unknown kind", i);
		for (size_t i = 0; i < m->heartbeat->n_fetch_failures; i++) {
			const SwWire__TaskRef *r = m->heartbeat->fetch_failures[i]->reduce;
			if (!task_ref_valid(r) || r->kind != SW_WIRE__TASK_KIND__REDUCE)
				return sw_wire_errf(
				        err, errlen, -EPROTO,
				        "invalid Heartbeat: fetch_failures[%zu]: reduce is "
				        "missing or not a reduce",
				        i);
		}
		return 0;
	case SW_WIRE_ASSIGN:
		for (size_t i = 0; i < m->assign->n_tasks; i++) {
			const SwWire__Task *t = m->assign->tasks[i];
			if (!task_ref_valid(t->ref) ||
			    t->runner_case == SW_WIRE__TASK__RUNNER__NOT_SET ||
			    (t->runner_case == SW_WIRE__TASK__RUNNER_EXEC && t->exec->n_argv == 0))
				return sw_wire_errf(
				        err, errlen, -EPROTO,
				        "invalid Assign: tasks[%zu] has no ref, an unknown "
				        "kind, no runner or an empty exec argv",
				        i);
		}
		return 0;
	case SW_WIRE_MAP_OUTPUTS:
		if (!task_ref_valid(m->map_outputs->reduce) ||
		    m->map_outputs->reduce->kind != SW_WIRE__TASK_KIND__REDUCE)
			return sw_wire_errf(
			        err, errlen, -EPROTO,
			        "invalid MapOutputs: reduce is missing or not a reduce");
		return 0;
	case SW_WIRE_KILL_TASK:
		if (!task_ref_valid(m->kill_task->task))
			return sw_wire_errf(err, errlen, -EPROTO,
			                    "invalid KillTask: no task, or an unknown task kind");
		return 0;
	default:
		return 0;
	}
}

int sw_wire_decode(uint64_t tag, const void *buf, size_t len, struct sw_wire_msg *out, char *err,
                   size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (!known(tag))
		return sw_wire_errf(err, errlen, -EPROTO, "unknown message type %llu (%zu bytes)",
		                    (unsigned long long)tag, len);
	if (len > SW_WIRE_MAX_MSG)
		return sw_wire_errf(err, errlen, -EMSGSIZE,
		                    "%s of %zu bytes is over the limit of %u", types[tag].name, len,
		                    SW_WIRE_MAX_MSG);
	ProtobufCMessage *base = protobuf_c_message_unpack(types[tag].desc, NULL, len, buf);
	if (base == NULL)
		return sw_wire_errf(err, errlen, -EPROTO, "malformed %s (%zu bytes)",
		                    types[tag].name, len);
	struct sw_wire_msg m = {.type = (enum sw_wire_type)tag, .base = base};
	int rc = check(&m, err, errlen);
	if (rc < 0) {
		protobuf_c_message_free_unpacked(base, NULL);
		return rc;
	}
	*out = m;
	return 0;
}

void sw_wire_msg_free(struct sw_wire_msg *m)
{
	if (m == NULL || m->base == NULL)
		return;
	protobuf_c_message_free_unpacked(m->base, NULL);
	m->base = NULL;
}

int sw_wire_encode(enum sw_wire_type type, const ProtobufCMessage *msg, void **buf, size_t *len,
                   char *err, size_t errlen)
{
	if (msg == NULL || buf == NULL || len == NULL || !known(type) ||
	    msg->descriptor != types[type].desc)
		return sw_wire_errf(err, errlen, -EINVAL, "message is not a %s",
		                    sw_wire_type_name(type));
	size_t n = protobuf_c_message_get_packed_size(msg);
	if (n > SW_WIRE_MAX_MSG)
		return sw_wire_errf(err, errlen, -EMSGSIZE,
		                    "%s of %zu bytes is over the limit of %u", types[type].name, n,
		                    SW_WIRE_MAX_MSG);
	uint8_t *p = malloc(n ? n : 1);
	if (p == NULL)
		return sw_wire_errf(err, errlen, -ENOMEM, "no memory for a %s of %zu bytes",
		                    types[type].name, n);
	protobuf_c_message_pack(msg, p);
	*buf = p;
	*len = n;
	return 0;
}
