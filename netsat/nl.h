/* SPDX-License-Identifier: MIT */
/*
 * A rtnetlink socket opened in a given network namespace, for the link and qdisc sources
 * (private to netsat/). A netlink socket stays in the namespace it was created in, so the
 * namespace is entered only to open it; /sys would still show the caller's namespace.
 */
#ifndef NETSAT_NL_H
#define NETSAT_NL_H

#include <libmnl/libmnl.h>

#include "source.h"

struct netsat_nl {
	struct sw_netsat_source base;
	struct mnl_socket *sock;
	unsigned int portid, seq;
	int ifindex;
	char dev[32];
};

/* What a reply's callbacks fill. */
struct netsat_nl_reply {
	struct netsat_nl *nl;
	struct sw_netsat_counters *c;
	int found; /* the interface's stats were in the reply */
};

/* The reply callbacks of the link and qdisc sources (arg: a struct netsat_nl_reply), also
 * run by the fuzz target on arbitrary bytes. */
int sw_netsat_link_msg(const struct nlmsghdr *nlh, void *arg);
int sw_netsat_qdisc_msg(const struct nlmsghdr *nlh, void *arg);

/* The open op of the netlink sources (src is a struct netsat_nl): opens the socket in
 * spec->netns and finds spec->dev there. */
int sw_netsat_nl_open(struct sw_netsat_source *src, const struct sw_netsat_source_spec *spec);
/* mnl_cb_run() over @p buf, after checking every message's length lies within it
 * (errno EBADMSG and MNL_CB_ERROR when not). */
int sw_netsat_nl_run(const void *buf, size_t len, unsigned int seq, unsigned int portid,
                     mnl_cb_t cb, void *arg);
/* Sends @p req (its seq is set here) and runs @p cb on every message of the reply. */
int sw_netsat_nl_query(struct netsat_nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *arg);
void sw_netsat_nl_close(struct sw_netsat_source *src);

#endif /* NETSAT_NL_H */
