/* SPDX-License-Identifier: MIT */
/*
 * What the controller tests run against it: the swcontroller process itself (started from
 * the build, its stderr in a log file), and agents made of the real wire protocol (sw_wire
 * over the dataplane's tcp backend) that run no tasks: the test decides what they report.
 */
#ifndef SW_TEST_PEER_H
#define SW_TEST_PEER_H

#include <stdbool.h>
#include <sys/types.h>

#include "sw_wire.h"

/* A controller process in its own temporary directory. */
struct ctlproc {
	pid_t pid;
	char dir[64];
	char conf[128], log[128], trace[128], db[128], key[128];
	char agents[SW_DP_ADDRSTRLEN]; /* where agents connect */
	char http[SW_DP_ADDRSTRLEN];
	struct sw_wire_key cluster_key;
};

/* Makes the directory, key and config (4 nodes r0n0 r0n1 r1n0 r1n1 in 2 racks, 2+2 slots,
 * heartbeat_ms and lost_after_ms as given, extra lines appended) and starts the controller. */
void ctl_setup(struct ctlproc *p, unsigned heartbeat_ms, unsigned lost_after_ms, const char *extra);
/* Starts (again) the controller of p's directory and waits for its listening line. */
void ctl_start(struct ctlproc *p);
/* Sends sig and waits for the process; returns its exit status (or 128 + signal). */
int ctl_stop(struct ctlproc *p, int sig);
/* Removes the directory. */
void ctl_cleanup(struct ctlproc *p);
/* 1 when the controller's log holds text. */
bool ctl_logged(const struct ctlproc *p, const char *text);

/* One HTTP request to the controller; returns the status, *body the answer (malloc'd). */
int ctl_http(const struct ctlproc *p, const char *method, const char *path, const char *body,
             char **answer);

/* An agent speaking the wire protocol. */
struct agent {
	struct sw_dp_ctx *dp;
	struct sw_dp_ep *ep;
	struct sw_wire_handshake hs;
	bool closed;
	int close_status;
	int sending;              /* sends not yet completed */
	char refused[256];        /* the Refused reason */
	bool controller_unproven; /* the controller's proof did not verify with our key */
	SwWire__Welcome welcome;
};

/*
 * Connects as node_id of rack, proves key, and waits for the outcome. Returns 0 (welcome),
 * -ECONNREFUSED (Refused: reason in a->refused), -ECONNRESET (closed without an answer).
 * When the controller's proof does not verify with key, a->controller_unproven is set and
 * the agent sends a proof that cannot verify either.
 */
int agent_join(struct agent *a, const struct ctlproc *p, const char *node_id, uint32_t rack,
               const struct sw_wire_key *key, uint64_t boot_epoch);
/* Connects without a handshake (for raw frames). */
void agent_connect(struct agent *a, const struct ctlproc *p);
int agent_send(struct agent *a, enum sw_wire_type type, const ProtobufCMessage *msg);
/* Sends raw bytes as one frame with the given tag. */
int agent_send_raw(struct agent *a, uint64_t tag, const void *buf, size_t len);
/* Waits for the next message (up to about 20 s); 0, or -ECONNRESET when the connection
 * closed (a->close_status says how), -ETIMEDOUT. */
int agent_next(struct agent *a, struct sw_wire_msg *m);
/* The next message if one comes within about 2 ms: 0, -EAGAIN (none), -ECONNRESET. */
int agent_poll(struct agent *a, struct sw_wire_msg *m);
void agent_close(struct agent *a);

#endif
