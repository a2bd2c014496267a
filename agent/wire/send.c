/* SPDX-License-Identifier: MIT */
/* Wire messages over the dataplane: one encoded message per sw_dp_send, the type as tag. */
#include <errno.h>
#include <stdlib.h>

#include "sw_wire.h"
#include "wire_int.h"

int sw_wire_send(struct sw_dp_ep *ep, enum sw_wire_type type, const ProtobufCMessage *msg,
                 char *err, size_t errlen)
{
	void *buf;
	size_t len;
	int rc = sw_wire_encode(type, msg, &buf, &len, err, errlen);
	if (rc < 0)
		return rc;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	rc = sw_dp_send(ep, type, &iov, 1, buf);
	if (rc < 0) {
		free(buf);
		return sw_wire_errf(err, errlen, rc, "sending %s: %s", sw_wire_type_name(type),
		                    sw_dp_strerror(rc));
	}
	return 0;
}

void sw_wire_sent(const struct sw_dp_event *ev)
{
	free(ev->user);
}

void sw_wire_dp_close(struct sw_dp_ctx *dp)
{
	struct sw_dp_event ev;
	while (dp && sw_dp_poll(dp, &ev, 1) == 1) {
		if (ev.type == SW_DP_EV_SEND)
			sw_wire_sent(&ev);
		else if (ev.type == SW_DP_EV_RECV)
			sw_dp_release(dp, &ev);
	}
	sw_dp_close(dp);
}

void sw_wire_dp_config(struct sw_dp_config *cfg)
{
	sw_dp_config_init(cfg);
	cfg->backend = "tcp";
	cfg->max_msg = SW_WIRE_MAX_MSG;
}
