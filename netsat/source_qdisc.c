/* SPDX-License-Identifier: MIT */
/*
 * "qdisc": the root qdisc of an interface, RTM_GETQDISC's TCA_STATS2 (what `tc -s qdisc`
 * shows): bytes and packets it sent, drops, overlimits and the backlog queued now. With TCP
 * over a shaped link drops stay 0; overlimits and backlog are the saturation signals.
 */
#include <errno.h>
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <stddef.h>
#include <string.h>

#include "nl.h"

static int bad(struct netsat_nl_reply *r, const char *what, const struct nlattr *a, size_t want)
{
	sw_netsat_fail(&r->nl->base, -EBADMSG, "%s: root qdisc %s of %u bytes, want %zu",
	               r->nl->dev, what, mnl_attr_get_payload_len(a), want);
	return MNL_CB_ERROR;
}

static int stats_cb(const struct nlattr *a, void *arg)
{
	struct netsat_nl_reply *r = arg;
	struct gnet_stats_basic b = {0};
	struct gnet_stats_queue q;
	uint64_t pkt64;
	/* The kernel pads gnet_stats_basic; its last field ends before the padding. */
	const size_t basic_len = offsetof(struct gnet_stats_basic, packets) + sizeof(b.packets);

	switch (mnl_attr_get_type(a)) {
	case TCA_STATS_BASIC:
		if (mnl_attr_get_payload_len(a) < basic_len)
			return bad(r, "TCA_STATS_BASIC", a, basic_len);
		/* Attributes are 4-byte aligned, the u64s want 8: copy, do not cast. */
		memcpy(&b, mnl_attr_get_payload(a), basic_len);
		r->c->tx_bytes = b.bytes;
		if (!r->c->tx_packets) /* TCA_STATS_PKT64 may have come first */
			r->c->tx_packets = b.packets;
		break;
	case TCA_STATS_PKT64:
		if (mnl_attr_get_payload_len(a) < sizeof(pkt64))
			return bad(r, "TCA_STATS_PKT64", a, sizeof(pkt64));
		memcpy(&pkt64, mnl_attr_get_payload(a), sizeof(pkt64));
		r->c->tx_packets = pkt64;
		break;
	case TCA_STATS_QUEUE:
		if (mnl_attr_get_payload_len(a) < sizeof(q))
			return bad(r, "TCA_STATS_QUEUE", a, sizeof(q));
		memcpy(&q, mnl_attr_get_payload(a), sizeof(q));
		r->c->drops = q.drops;
		r->c->overlimits = q.overlimits;
		r->c->backlog_bytes = q.backlog;
		r->c->backlog_packets = q.qlen;
		break;
	}
	return MNL_CB_OK;
}

static int attr_cb(const struct nlattr *a, void *arg)
{
	struct netsat_nl_reply *r = arg;

	if (mnl_attr_get_type(a) != TCA_STATS2)
		return MNL_CB_OK;
	r->found = 1;
	return mnl_attr_parse_nested(a, stats_cb, r);
}

int sw_netsat_qdisc_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct netsat_nl_reply *r = arg;
	const struct tcmsg *tcm;

	if (nlh->nlmsg_type != RTM_NEWQDISC || mnl_nlmsg_get_payload_len(nlh) < sizeof(*tcm))
		return MNL_CB_OK;
	tcm = mnl_nlmsg_get_payload(nlh);
	/* A dump lists every qdisc of the namespace: keep the root one of our interface. */
	if (tcm->tcm_ifindex != r->nl->ifindex || tcm->tcm_parent != TC_H_ROOT || r->found)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(*tcm), attr_cb, r);
}

static int qdisc_read(struct sw_netsat_source *src, struct sw_netsat_counters *c)
{
	struct netsat_nl *nl = (struct netsat_nl *)src;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req = mnl_nlmsg_put_header(buf);
	struct netsat_nl_reply r = {.nl = nl, .c = c};
	struct tcmsg *tcm;
	int rc;

	req->nlmsg_type = RTM_GETQDISC;
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	tcm = mnl_nlmsg_put_extra_header(req, sizeof(*tcm));
	tcm->tcm_family = AF_UNSPEC;
	tcm->tcm_ifindex = nl->ifindex;
	rc = sw_netsat_nl_query(nl, req, sw_netsat_qdisc_msg, &r);
	if (rc)
		return rc;
	if (!r.found)
		return sw_netsat_fail(src, -ENOENT, "%s: no root qdisc with statistics", nl->dev);
	return 0;
}

const struct netsat_source_ops sw_netsat_source_qdisc = {
        .kind = "qdisc",
        .size = sizeof(struct netsat_nl),
        .open = sw_netsat_nl_open,
        .read = qdisc_read,
        .close = sw_netsat_nl_close,
};
