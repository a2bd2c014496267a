/* SPDX-License-Identifier: MIT */
/* The rtnetlink socket of the link and qdisc sources, opened inside a network namespace. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nl.h"

/* Opens the socket and finds the interface, in whatever namespace the thread is in. */
static int open_here(struct netsat_nl *nl, const char *where)
{
	nl->sock = mnl_socket_open(NETLINK_ROUTE);
	if (!nl->sock)
		return sw_netsat_fail(&nl->base, -errno, "netlink socket in %s: %s", where,
		                      strerror(errno));
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		return sw_netsat_fail(&nl->base, -errno, "netlink bind in %s: %s", where,
		                      strerror(errno));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->ifindex = (int)if_nametoindex(nl->dev);
	if (!nl->ifindex)
		return sw_netsat_fail(&nl->base, -ENOENT, "no interface %s in %s", nl->dev, where);
	return 0;
}

int sw_netsat_nl_open(struct sw_netsat_source *src, const struct sw_netsat_source_spec *spec)
{
	struct netsat_nl *nl = (struct netsat_nl *)src;
	char path[4096];
	int self, target, rc;

	if (spec->sysfs_root)
		return sw_netsat_fail(src, -EINVAL, "%s source: takes no sysfs root", spec->kind);
	if (strlen(spec->dev) >= IFNAMSIZ)
		return sw_netsat_fail(&nl->base, -EINVAL, "interface name too long: %s", spec->dev);
	snprintf(nl->dev, sizeof(nl->dev), "%s", spec->dev);
	if (!spec->netns)
		return open_here(nl, "the caller's network namespace");
	if (spec->netns[0] == '/')
		snprintf(path, sizeof(path), "%s", spec->netns);
	else if (!spec->netns[0] || strchr(spec->netns, '/') || !strcmp(spec->netns, "..") ||
	         !strcmp(spec->netns, "."))
		return sw_netsat_fail(&nl->base, -EINVAL, "bad network namespace name '%s'",
		                      spec->netns);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", spec->netns);
	target = open(path, O_RDONLY | O_CLOEXEC);
	if (target < 0)
		return sw_netsat_fail(&nl->base, errno == ENOENT ? -ENOENT : -errno,
		                      "network namespace %s: %s", path, strerror(errno));
	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		rc = sw_netsat_fail(&nl->base, -errno, "/proc/self/ns/net: %s", strerror(errno));
		close(target);
		return rc;
	}
	if (setns(target, CLONE_NEWNET)) {
		rc = sw_netsat_fail(&nl->base, -errno, "entering network namespace %s: %s", path,
		                    strerror(errno));
	} else {
		rc = open_here(nl, path);
		/* Back home, or every later socket of the caller's thread lands in the wrong
		 * namespace: there is nothing sane to do but stop. */
		if (setns(self, CLONE_NEWNET)) {
			perror("netsat: cannot return to the caller's network namespace");
			abort();
		}
	}
	close(self);
	close(target);
	return rc;
}

int sw_netsat_nl_run(const void *buf, size_t len, unsigned int seq, unsigned int portid,
                     mnl_cb_t cb, void *arg)
{
	const char *p = buf;
	size_t left = len;

	/* libmnl reads nlmsg_len as an int: one above INT_MAX walks it off the buffer. */
	while (left >= sizeof(struct nlmsghdr)) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)p;
		size_t step = MNL_ALIGN(h->nlmsg_len);

		if (h->nlmsg_len < sizeof(*h) || h->nlmsg_len > left) {
			errno = EBADMSG;
			return MNL_CB_ERROR;
		}
		if (step >= left)
			break;
		p += step;
		left -= step;
	}
	return mnl_cb_run(buf, len, seq, portid, cb, arg);
}

int sw_netsat_nl_query(struct netsat_nl *nl, struct nlmsghdr *req, mnl_cb_t cb, void *arg)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	ssize_t len;
	int rc;

	req->nlmsg_seq = ++nl->seq;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		return sw_netsat_fail(&nl->base, -errno, "netlink request for %s: %s", nl->dev,
		                      strerror(errno));
	do {
		len = mnl_socket_recvfrom(nl->sock, buf, sizeof(buf));
		if (len < 0)
			return sw_netsat_fail(&nl->base, -errno, "netlink reply for %s: %s",
			                      nl->dev, strerror(errno));
		rc = sw_netsat_nl_run(buf, (size_t)len, nl->seq, nl->portid, cb, arg);
		/* Another sequence number: the rest of a reply an earlier read gave up on. */
		if (rc == MNL_CB_ERROR && errno == EPROTO && !nl->base.err[0])
			rc = MNL_CB_OK;
	} while (rc > MNL_CB_STOP);
	if (rc < 0 && !nl->base.err[0]) {
		int e = errno == ENODEV ? ENOENT : errno;

		return sw_netsat_fail(&nl->base, -e, "netlink reply for %s: %s", nl->dev,
		                      strerror(errno));
	}
	return rc < 0 ? -EBADMSG : 0;
}

void sw_netsat_nl_close(struct sw_netsat_source *src)
{
	struct netsat_nl *nl = (struct netsat_nl *)src;

	if (nl->sock)
		mnl_socket_close(nl->sock);
}
