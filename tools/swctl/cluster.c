/* SPDX-License-Identifier: MIT */
/* swctl cluster up | status | down: the emulated racks (cluster.h) from the command line. */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "cluster.h"
#include "commands.h"
#include "sw_netsat.h"
#include "sw_sched.h"

static const char cluster_usage[] =
        "usage: swctl cluster up [--racks R] [--nodes-per-rack N] [--nic RATE] [--uplink RATE]\n"
        "                        [--transport tcp|ucx|dpdk] [--policy P] [--name NAME] [--dir "
        "DIR]\n"
        "                        [--lost-after SECONDS] [--timeout SECONDS]\n"
        "                        [--pace FRACTION] [--saturation-threshold T]\n"
        "       swctl cluster status (--dir DIR | --name NAME)\n"
        "       swctl cluster down (--dir DIR | --name NAME)\n\n"
        "up builds racks of network namespaces on this machine: a namespace per node\n"
        "(NAME-rRnN), a ToR namespace per rack (NAME-torR) bridging its nodes, and a spine\n"
        "(NAME-spine) routing between racks. Node links are shaped at --nic and every ToR\n"
        "uplink at --uplink, both directions (tbf). It writes a new cluster key and configs,\n"
        "starts swcontroller (policy P) in the spine and one swagent per node, waits until\n"
        "every agent has registered, and prints where everything is. Everything it makes\n"
        "carries the cluster's name; its files, logs and the state file (cluster.state) are\n"
        "in DIR. If up fails or is interrupted it removes what it made.\n"
        "  --racks R            1..32, default 2\n"
        "  --nodes-per-rack N   1..32, default 2\n"
        "  --nic RATE           node links, default 1gbit (RATE: a number with kbit, mbit or\n"
        "                       gbit; 1mbit..100gbit)\n"
        "  --uplink RATE        each ToR uplink, each direction, default 200mbit\n"
        "  --transport T        the agents' shuffle transport, tcp (default), ucx or dpdk\n"
        "                       (dpdk: af_packet on each node's eth0, static neighbours)\n"
        "  --policy P           the controller's scheduler, default sw-fair\n"
        "  --name NAME          1..16 of [a-z0-9], starting with a letter; default swXXXXXX,\n"
        "                       new for every run\n"
        "  --dir DIR            must not exist (its parent must); default /tmp/swcluster-NAME\n"
        "  --lost-after SECONDS a node whose agent sent no heartbeat for this long is declared\n"
        "                       lost (its tasks and map output run elsewhere); heartbeats\n"
        "                       every 0.5 s; 1..3600, default 5\n"
        "  --timeout SECONDS    for every agent to register, default 60\n"
        "  --pace FRACTION      NetSat-driven pacing (the controller's pace_uplink): while a\n"
        "                       rack is saturated its agents send at most FRACTION of its\n"
        "                       uplink to other racks (dpdk only: its token buckets); above\n"
        "                       T, at most 1; default off\n"
        "  --saturation-threshold T  NetSat marks a rack saturated above T of its uplink\n"
        "                       (0.1..1, default 0.8)\n"
        "status prints the cluster's namespaces and daemons, the bytes each ToR uplink\n"
        "carried, and the controller's status. down stops every process in the cluster's\n"
        "namespaces or running on a file in DIR, deletes the namespaces and DIR; it works\n"
        "from the state file and from the namespaces' names, so also after up crashed. With\n"
        "--name alone, DIR is taken as /tmp/swcluster-NAME.\n"
        "Needs root (network namespaces, veth links and qdiscs). Exit status 1 when something\n"
        "fails (the message names it), 2 for bad options.\n";

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "swctl cluster: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n%s", cluster_usage);
	return 2;
}

/* "200mbit" and the like into bit/s; 0 when malformed or out of 1mbit..100gbit. */
static unsigned long long parse_rate(const char *s)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = {{"kbit", 1e3}, {"mbit", 1e6}, {"gbit", 1e9}};
	char *end;
	double v = strtod(s, &end);
	for (size_t i = 0; end != s && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].mult;
			return v >= 1e6 && v <= 1e11 ? (unsigned long long)v : 0;
		}
	return 0;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n < 1 || n > CLUSTER_NAME_MAX || s[0] < 'a' || s[0] > 'z')
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789") == n;
}

static int valid_policy(const char *p)
{
	for (const char *const *n = sw_sched_policy_names(); *n; n++)
		if (!strcmp(*n, p))
			return 1;
	return 0;
}

static int need_root(const char *what)
{
	if (geteuid() == 0)
		return 0;
	fprintf(stderr,
	        "swctl cluster %s: needs root: it makes and removes network namespaces, veth links "
	        "and tc qdiscs (CAP_NET_ADMIN and CAP_SYS_ADMIN); run it as root or with sudo\n",
	        what);
	return 1;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	if (remove(path) != 0)
		fprintf(stderr, "swctl cluster down: %s: %s\n", path, strerror(errno));
	return 0;
}

/* Everything of cluster @p name: processes, namespaces, then @p dir ("" if none). */
static void teardown(const char *name, const char *dir)
{
	int procs = cluster_kill_all(name, dir[0] ? dir : NULL);
	int spaces = cluster_net_down(name);
	if (dir[0])
		nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	printf("cluster %s down: %d processes stopped, %d namespaces deleted%s%s\n", name, procs,
	       spaces, dir[0] ? ", removed " : "", dir);
}

static int up(int argc, char **argv)
{
	static const struct option opts[] = {{"racks", required_argument, NULL, 'r'},
	                                     {"nodes-per-rack", required_argument, NULL, 'n'},
	                                     {"nic", required_argument, NULL, 'N'},
	                                     {"uplink", required_argument, NULL, 'U'},
	                                     {"transport", required_argument, NULL, 't'},
	                                     {"policy", required_argument, NULL, 'p'},
	                                     {"name", required_argument, NULL, 'a'},
	                                     {"dir", required_argument, NULL, 'd'},
	                                     {"timeout", required_argument, NULL, 'T'},
	                                     {"lost-after", required_argument, NULL, 'L'},
	                                     {"pace", required_argument, NULL, 'P'},
	                                     {"saturation-threshold", required_argument, NULL, 'S'},
	                                     {NULL, 0, NULL, 0}};
	struct cluster c = {.racks = 2,
	                    .nodes = 2,
	                    .nic_bps = 1000000000ull,
	                    .uplink_bps = 200000000ull,
	                    .transport = "tcp",
	                    .policy = "sw-fair",
	                    .lost_after_ms = CLUSTER_LOST_AFTER_MS,
	                    .saturation_threshold = CLUSTER_SATURATION_THRESHOLD};
	const char *dir = NULL, *pace_arg = NULL;
	double timeout = 60;
	char *end;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'r':
		case 'n': {
			long v = strtol(optarg, &end, 10);
			if (*end || v < 1 || v > (o == 'r' ? CLUSTER_MAX_RACKS : CLUSTER_MAX_NODES))
				return usage_error("bad --racks or --nodes-per-rack: '%s'", optarg);
			*(o == 'r' ? &c.racks : &c.nodes) = (int)v;
			break;
		}
		case 'N':
		case 'U':
			if ((*(o == 'N' ? &c.nic_bps : &c.uplink_bps) = parse_rate(optarg)) == 0)
				return usage_error("bad rate '%s' (e.g. 1gbit, 200mbit)", optarg);
			break;
		case 't':
			if (strcmp(optarg, "tcp") && strcmp(optarg, "ucx") &&
			    strcmp(optarg, "dpdk"))
				return usage_error("--transport: tcp, ucx or dpdk, not '%s'",
				                   optarg);
			snprintf(c.transport, sizeof(c.transport), "%s", optarg);
			break;
		case 'p':
			if (!valid_policy(optarg) || strlen(optarg) >= sizeof(c.policy))
				return usage_error("--policy: no policy '%s' (swctl replay --help)",
				                   optarg);
			snprintf(c.policy, sizeof(c.policy), "%s", optarg);
			break;
		case 'a':
			if (!valid_name(optarg))
				return usage_error(
				        "--name: '%s' is not 1..16 of [a-z0-9] from a letter",
				        optarg);
			snprintf(c.name, sizeof(c.name), "%s", optarg);
			break;
		case 'd':
			dir = optarg;
			break;
		case 'T':
			timeout = strtod(optarg, &end);
			if (*end || !(timeout > 0))
				return usage_error("bad --timeout '%s'", optarg);
			break;
		case 'L': {
			double s = strtod(optarg, &end);
			if (*end || !(s >= 1 && s <= 3600))
				return usage_error("bad --lost-after '%s' (1..3600 seconds)",
				                   optarg);
			c.lost_after_ms = (unsigned)(s * 1000 + 0.5);
			break;
		}
		case 'P':
		case 'S': {
			double v = strtod(optarg, &end);
			if (*end || !(v >= (o == 'P' ? 0.01 : 0.1) && v <= 1))
				return usage_error(
				        o == 'P' ? "bad --pace '%s' (0.01..1)"
				                 : "bad --saturation-threshold '%s' (0.1..1)",
				        optarg);
			*(o == 'P' ? &c.pace : &c.saturation_threshold) = v;
			pace_arg = o == 'P' ? optarg : pace_arg;
			break;
		}
		default:
			return usage_error("%s", "bad option");
		}
	}
	if (optind != argc)
		return usage_error("unexpected '%s'", argv[optind]);
	if (c.pace > 0 && c.pace <= c.saturation_threshold)
		return usage_error(
		        "--pace %s is not above the saturation threshold: a rack paced at "
		        "full demand would stop being saturated, and be unpaced",
		        pace_arg);
	if (need_root("up"))
		return 1;
	if (c.name[0] == '\0') {
		unsigned char r[3] = {0};
		if (getrandom(r, sizeof(r), 0) != sizeof(r))
			perror("getrandom");
		snprintf(c.name, sizeof(c.name), "sw%02x%02x%02x", r[0], r[1], r[2]);
	}
	if (dir == NULL)
		snprintf(c.dir, sizeof(c.dir), "/tmp/swcluster-%s", c.name);
	else if (snprintf(c.dir, sizeof(c.dir), "%s", dir) >= (int)sizeof(c.dir) - 64)
		return usage_error("--dir too long: '%s'", dir);
	if (cluster_net_count(c.name) > 0) {
		fprintf(stderr,
		        "swctl cluster up: cluster %s exists already (namespace %s-spine or "
		        "another): swctl cluster down --name %s\n",
		        c.name, c.name, c.name);
		return 1;
	}
	if (cluster_state_create(&c))
		return 1;
	char real[PATH_MAX];
	if (realpath(c.dir, real) != NULL)
		memcpy(c.dir, real, sizeof(c.dir));
	if (cluster_net_up(&c) || cluster_start(&c, timeout)) {
		fprintf(stderr, "swctl cluster up: failed; removing what it made\n");
		teardown(c.name, c.dir);
		return 1;
	}
	printf("cluster %s up: %d racks x %d nodes, node links %.0f Mbit/s, uplinks %.0f Mbit/s "
	       "(%.1f:1), transport %s, policy %s\n",
	       c.name, c.racks, c.nodes, (double)c.nic_bps / 1e6, (double)c.uplink_bps / 1e6,
	       (double)c.nic_bps * c.nodes / (double)c.uplink_bps, c.transport, c.policy);
	printf("  namespaces  %s-spine, %s-tor0..%d (bridge br0, uplink to the spine), "
	       "%s-rRnN (eth0 10.R+1.0.N+11)\n",
	       c.name, c.name, c.racks - 1, c.name);
	printf("  controller  agents " CLUSTER_CTL_AGENTS ", HTTP " CLUSTER_CTL_HTTP
	       " in %s-spine; heartbeats every 0.5 s, a node lost after %g s\n",
	       c.name, c.lost_after_ms / 1000.0);
	printf("  files       %s (cluster.state, cluster.key, controller/, rRnN/: conf, log)\n",
	       c.dir);
	printf("  jobs        ip netns exec %s-spine swctl jobs --controller " CLUSTER_CTL_HTTP
	       "\n",
	       c.name);
	if (c.pace > 0)
		printf("  pacing      a rack saturated above %g of its uplink sends at most %g of "
		       "it "
		       "to other racks\n",
		       c.saturation_threshold, c.pace);
	printf("  status      swctl cluster status --dir %s\n", c.dir);
	printf("  remove      swctl cluster down --dir %s\n", c.dir);
	return 0;
}

/* The cluster --dir or --name names: 0, or 2 for bad options, 1 for an unreadable state. */
static int locate(int argc, char **argv, struct cluster *c)
{
	static const struct option opts[] = {{"name", required_argument, NULL, 'a'},
	                                     {"dir", required_argument, NULL, 'd'},
	                                     {NULL, 0, NULL, 0}};
	const char *name = NULL, *dir = NULL;
	char def[PATH_MAX];
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'a' && valid_name(optarg))
			name = optarg;
		else if (o == 'd')
			dir = optarg;
		else
			return usage_error("%s", o == 'a' ? "bad --name" : "bad option");
	}
	if (optind != argc || (name == NULL && dir == NULL))
		return usage_error("%s", "which cluster? --dir DIR or --name NAME");
	if (dir == NULL)
		snprintf(def, sizeof(def), "/tmp/swcluster-%s", name);
	int rc = cluster_state_load(dir ? dir : def, c);
	if (rc == -1)
		return 1;
	if (rc == 0 && name && strcmp(name, c->name)) {
		fprintf(stderr, "swctl cluster: %s holds cluster %s, not %s\n", c->dir, c->name,
		        name);
		return 1;
	}
	if (rc == -ENOENT && name == NULL) {
		fprintf(stderr, "swctl cluster: %s: no " CLUSTER_STATE " (give --name NAME too)\n",
		        dir);
		return 1;
	}
	if (rc == -ENOENT) {
		memset(c, 0, sizeof(*c));
		snprintf(c->name, sizeof(c->name), "%s", name);
	}
	return 0;
}

static int down(int argc, char **argv)
{
	struct cluster c;
	int rc = locate(argc, argv, &c);
	if (rc || need_root("down"))
		return rc ? rc : 1;
	teardown(c.name, c.dir);
	return 0;
}

static void print_pid(pid_t pid, const char *role, const char *ns, void *arg)
{
	const struct cluster *c = arg;
	printf("  %-13s %-20s pid %-8d %s\n", role, ns, (int)pid,
	       cluster_pid_is_ours(pid, c->dir) ? "running" : "gone");
}

static int status(int argc, char **argv)
{
	struct cluster c;
	int rc = locate(argc, argv, &c);
	if (rc || need_root("status"))
		return rc ? rc : 1;
	if (c.dir[0] == '\0') {
		fprintf(stderr,
		        "swctl cluster status: no state file for cluster %s (%d namespaces)\n",
		        c.name, cluster_net_count(c.name));
		return 1;
	}
	printf("cluster %s in %s: %d racks x %d nodes, node links %.0f Mbit/s, uplinks %.0f "
	       "Mbit/s, transport %s, policy %s\n",
	       c.name, c.dir, c.racks, c.nodes, (double)c.nic_bps / 1e6, (double)c.uplink_bps / 1e6,
	       c.transport, c.policy);
	int is_up = cluster_state_each_pid(&c, print_pid, &c);
	printf("%d of %d namespaces exist; up %s\n\n", cluster_net_count(c.name),
	       1 + c.racks * (c.nodes + 1), is_up ? "finished" : "did not finish");
	printf("%-5s %-20s %16s %16s\n", "rack", "uplink", "out of rack (B)", "into rack (B)");
	for (int r = 0; r < c.racks; r++) {
		char ns[64], err[256];
		struct sw_netsat_source *src;
		struct sw_netsat_counters n;
		cluster_ns_name(&c, r, -1, ns, sizeof(ns));
		struct sw_netsat_source_spec spec = {.kind = "link", .dev = "uplink", .netns = ns};
		if (sw_netsat_source_open(&spec, &src, err, sizeof(err)) ||
		    sw_netsat_source_read(src, &n)) {
			printf("%-5d %-20s %s\n", r, ns, src ? sw_netsat_source_error(src) : err);
		} else {
			printf("%-5d %-20s %16llu %16llu\n", r, ns, (unsigned long long)n.tx_bytes,
			       (unsigned long long)n.rx_bytes);
		}
		sw_netsat_source_close(src);
	}
	printf("\n");
	char spine[64], *args[] = {"status", "--controller", CLUSTER_CTL_HTTP, NULL};
	cluster_ns_name(&c, -1, -1, spine, sizeof(spine));
	return cluster_enter(spine) ? 1 : cmd_status(3, args);
}

int cmd_cluster(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "%s", cluster_usage);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		printf("%s", cluster_usage);
		return 0;
	}
	optind = 1;
	if (!strcmp(argv[1], "up"))
		return up(argc - 1, argv + 1);
	if (!strcmp(argv[1], "down"))
		return down(argc - 1, argv + 1);
	if (!strcmp(argv[1], "status"))
		return status(argc - 1, argv + 1);
	return usage_error("unknown subcommand '%s'", argv[1]);
}
