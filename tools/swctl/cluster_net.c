/* SPDX-License-Identifier: MIT */
/*
 * The emulated racks: iproute2's `ip` and `tc` run as child processes (no shell), one command
 * per step, so each failure names the exact command, and what is made is exactly what
 * platform.md and oversub-example.sh describe. Addresses live only inside the namespaces:
 *
 *   node rRnN: eth0 10.(R+1).0.(N+11)/24, MAC 02:53:57:RR:NN:01, default via its ToR; eth0
 *              and the ToR's port nN both shaped at --nic (tbf)
 *   ToR  torR: bridge br0 10.(R+1).0.1/24, MAC 02:53:57:RR:ff:01 (fixed MACs: a dpdk agent
 *              has no ARP and is given them), over ports n0..; uplink 10.0.R.1/30 to the spine,
 *              shaped at --uplink (tbf), default route via the spine
 *   spine:     rackR 10.0.R.2/30 (shaped at --uplink, the rack's downlink), a route to each
 *              rack, and the controller's address on lo
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster.h"

#define NETNS_DIR "/run/netns"

void cluster_ns_name(const struct cluster *c, int rack, int node, char *buf, size_t len)
{
	if (rack < 0)
		snprintf(buf, len, "%s-spine", c->name);
	else if (node < 0)
		snprintf(buf, len, "%s-tor%d", c->name, rack);
	else
		snprintf(buf, len, "%s-r%dn%d", c->name, rack, node);
}

void cluster_node_ip(int rack, int node, char *buf, size_t len)
{
	snprintf(buf, len, "10.%d.0.%d", rack + 1, node + 11);
}

void cluster_node_mac(int rack, int node, char *buf, size_t len)
{
	snprintf(buf, len, "02:53:57:%02x:%02x:01", rack, node < 0 ? 0xff : node);
}

int cluster_ns_is_ours(const char *name, const char *ns)
{
	size_t n = strlen(name);
	int rack, node, end = 0;
	if (strncmp(ns, name, n) != 0 || ns[n] != '-')
		return 0;
	ns += n + 1;
	if (!strcmp(ns, "spine"))
		return 1;
	if (sscanf(ns, "tor%d%n", &rack, &end) == 1 && ns[end] == '\0')
		return 1;
	return sscanf(ns, "r%dn%d%n", &rack, &node, &end) == 2 && ns[end] == '\0';
}

/* Runs argv and waits. 0 when it exited 0, else -1 after naming the command. */
static int run(const char *const *argv)
{
	pid_t pid = fork();
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		fprintf(stderr, "swctl cluster: %s: %s (iproute2 is needed)\n", argv[0],
		        strerror(errno));
		_exit(127);
	}
	int st = 0;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr, "swctl cluster: this command failed:");
		for (int i = 0; argv[i]; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, "\n");
		return -1;
	}
	return 0;
}
#define RUN(...) run((const char *const[]){__VA_ARGS__, NULL})

/* Shapes what @p dev in @p ns sends to @p bps. tbf's bucket holds 10 ms at the rate (at least
 * 32 kbit, platform.md's figure at 200 Mbit/s; 1 Mbit or more is needed at 1 Gbit/s). */
static int shape(const char *ns, const char *dev, unsigned long long bps)
{
	char rate[32], burst[32];
	snprintf(rate, sizeof(rate), "%llubit", bps);
	snprintf(burst, sizeof(burst), "%llu", bps / 800 > 4000 ? bps / 800 : 4000); /* bytes */
	return RUN("tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "tbf", "rate", rate, "burst",
	           burst, "latency", "50ms");
}

static int add_ns(const char *ns, int forward)
{
	if (RUN("ip", "netns", "add", ns) || RUN("ip", "-n", ns, "link", "set", "lo", "up"))
		return -1;
	return forward ? RUN("ip", "netns", "exec", ns, "sysctl", "-qw", "net.ipv4.ip_forward=1")
	               : 0;
}

static int node_up(const struct cluster *c, int r, int n, const char *tor)
{
	char ns[64], port[16], ip[32], addr[40], gw[32], mac[32];
	cluster_ns_name(c, r, n, ns, sizeof(ns));
	cluster_node_mac(r, n, mac, sizeof(mac));
	snprintf(port, sizeof(port), "n%d", n);
	cluster_node_ip(r, n, ip, sizeof(ip));
	snprintf(addr, sizeof(addr), "%s/24", ip);
	snprintf(gw, sizeof(gw), "10.%d.0.1", r + 1);
	if (add_ns(ns, 0) ||
	    RUN("ip", "link", "add", "eth0", "netns", ns, "type", "veth", "peer", "name", port,
	        "netns", tor) ||
	    RUN("ip", "-n", ns, "link", "set", "eth0", "address", mac) ||
	    RUN("ip", "-n", ns, "addr", "add", addr, "dev", "eth0") ||
	    RUN("ip", "-n", ns, "link", "set", "eth0", "up") ||
	    RUN("ip", "-n", tor, "link", "set", port, "master", "br0", "up") ||
	    RUN("ip", "-n", ns, "route", "add", "default", "via", gw))
		return -1;
	return shape(ns, "eth0", c->nic_bps) || shape(tor, port, c->nic_bps);
}

static int rack_up(const struct cluster *c, int r, const char *spine)
{
	char tor[64], down[16], br[32], tor_ip[32], tor_net[40], sp_ip[32], sp_net[40], net[32];
	char mac[32];
	cluster_ns_name(c, r, -1, tor, sizeof(tor));
	cluster_node_mac(r, -1, mac, sizeof(mac));
	snprintf(down, sizeof(down), "rack%d", r);
	snprintf(br, sizeof(br), "10.%d.0.1/24", r + 1);
	snprintf(tor_ip, sizeof(tor_ip), "10.0.%d.1", r);
	snprintf(tor_net, sizeof(tor_net), "%s/30", tor_ip);
	snprintf(sp_ip, sizeof(sp_ip), "10.0.%d.2", r);
	snprintf(sp_net, sizeof(sp_net), "%s/30", sp_ip);
	snprintf(net, sizeof(net), "10.%d.0.0/24", r + 1);
	if (add_ns(tor, 1) || RUN("ip", "-n", tor, "link", "add", "br0", "type", "bridge") ||
	    RUN("ip", "-n", tor, "link", "set", "br0", "address", mac) ||
	    RUN("ip", "-n", tor, "addr", "add", br, "dev", "br0") ||
	    RUN("ip", "-n", tor, "link", "set", "br0", "up") ||
	    RUN("ip", "link", "add", "uplink", "netns", tor, "type", "veth", "peer", "name", down,
	        "netns", spine) ||
	    RUN("ip", "-n", tor, "addr", "add", tor_net, "dev", "uplink") ||
	    RUN("ip", "-n", tor, "link", "set", "uplink", "up") ||
	    RUN("ip", "-n", spine, "addr", "add", sp_net, "dev", down) ||
	    RUN("ip", "-n", spine, "link", "set", down, "up") ||
	    RUN("ip", "-n", tor, "route", "add", "default", "via", sp_ip) ||
	    RUN("ip", "-n", spine, "route", "add", net, "via", tor_ip) ||
	    shape(tor, "uplink", c->uplink_bps) || shape(spine, down, c->uplink_bps))
		return -1;
	for (int n = 0; n < c->nodes; n++)
		if (node_up(c, r, n, tor))
			return -1;
	return 0;
}

int cluster_net_up(const struct cluster *c)
{
	char spine[64];
	cluster_ns_name(c, -1, -1, spine, sizeof(spine));
	if (add_ns(spine, 1) ||
	    RUN("ip", "-n", spine, "addr", "add", CLUSTER_CTL_IP "/32", "dev", "lo"))
		return -1;
	for (int r = 0; r < c->racks; r++)
		if (rack_up(c, r, spine))
			return -1;
	return 0;
}

/* Calls fn(namespace) for every namespace of cluster @p name; returns how many. */
static int each_ns(const char *name, void (*fn)(const char *))
{
	DIR *d = opendir(NETNS_DIR);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		if (cluster_ns_is_ours(name, e->d_name)) {
			n++;
			if (fn)
				fn(e->d_name);
		}
	if (d)
		closedir(d);
	return n;
}

static void del_ns(const char *ns)
{
	RUN("ip", "netns", "del", ns);
}

int cluster_net_down(const char *name)
{
	return each_ns(name, del_ns);
}

int cluster_net_count(const char *name)
{
	return each_ns(name, NULL);
}

int cluster_enter(const char *ns)
{
	char path[PATH_MAX];
	snprintf(path, sizeof(path), NETNS_DIR "/%s", ns);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET) != 0) {
		fprintf(stderr, "swctl cluster: network namespace %s: %s\n", ns, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}
