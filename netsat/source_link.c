/* SPDX-License-Identifier: MIT */
/* "link": an interface's counters, RTM_GETLINK's 64-bit stats (what `ip -s link` shows). */
#include <errno.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <string.h>

#include "nl.h"

static int attr_cb(const struct nlattr *a, void *arg)
{
	struct netsat_nl_reply *r = arg;
	struct rtnl_link_stats64 st;

	if (mnl_attr_get_type(a) != IFLA_STATS64)
		return MNL_CB_OK;
	if (mnl_attr_get_payload_len(a) < sizeof(st)) {
		sw_netsat_fail(&r->nl->base, -EBADMSG, "%s: IFLA_STATS64 of %u bytes, want %zu",
		               r->nl->dev, mnl_attr_get_payload_len(a), sizeof(st));
		return MNL_CB_ERROR;
	}
	/* Attributes are 4-byte aligned, the struct's u64s want 8: copy, do not cast. */
	memcpy(&st, mnl_attr_get_payload(a), sizeof(st));
	r->c->rx_bytes = st.rx_bytes;
	r->c->tx_bytes = st.tx_bytes;
	r->c->rx_packets = st.rx_packets;
	r->c->tx_packets = st.tx_packets;
	r->c->drops = st.rx_dropped + st.tx_dropped;
	r->found = 1;
	return MNL_CB_OK;
}

int sw_netsat_link_msg(const struct nlmsghdr *nlh, void *arg)
{
	struct netsat_nl_reply *r = arg;
	const struct ifinfomsg *ifi;

	if (nlh->nlmsg_type != RTM_NEWLINK || mnl_nlmsg_get_payload_len(nlh) < sizeof(*ifi))
		return MNL_CB_OK;
	ifi = mnl_nlmsg_get_payload(nlh);
	if (ifi->ifi_index != r->nl->ifindex)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, sizeof(*ifi), attr_cb, r);
}

static int link_read(struct sw_netsat_source *src, struct sw_netsat_counters *c)
{
	struct netsat_nl *nl = (struct netsat_nl *)src;
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *req = mnl_nlmsg_put_header(buf);
	struct ifinfomsg *ifi;
	struct netsat_nl_reply r = {.nl = nl, .c = c};
	int rc;

	req->nlmsg_type = RTM_GETLINK;
	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK; /* the ack ends the reply */
	ifi = mnl_nlmsg_put_extra_header(req, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = nl->ifindex;
	rc = sw_netsat_nl_query(nl, req, sw_netsat_link_msg, &r);
	if (rc)
		return rc;
	if (!r.found)
		return sw_netsat_fail(src, -EBADMSG, "%s: RTM_GETLINK reply without IFLA_STATS64",
		                      nl->dev);
	return 0;
}

const struct netsat_source_ops sw_netsat_source_link = {
        .kind = "link",
        .size = sizeof(struct netsat_nl),
        .open = sw_netsat_nl_open,
        .read = link_read,
        .close = sw_netsat_nl_close,
};
