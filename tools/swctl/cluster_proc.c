/* SPDX-License-Identifier: MIT */
/*
 * The cluster's daemons: the key and config files, swcontroller in the spine namespace, one
 * swagent per node namespace, the wait for their registration, and stopping them all again.
 * Daemons are found beside swctl (an install) or in the build tree (build/agent/swagent).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cluster.h"
#include "live.h"
#include "runner.h"
#include "sw_wire.h"

#define MAX_PROCS 4096

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* @p name beside swctl, else at @p in_build relative to swctl's directory. */
static int find_bin(const char *name, const char *in_build, char *out, size_t len)
{
	char self[PATH_MAX - 64];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	snprintf(out, len, "%s/%s", self, name);
	if (access(out, X_OK) == 0)
		return 0;
	snprintf(out, len, "%s/%s", self, in_build);
	if (access(out, X_OK) == 0)
		return 0;
	fprintf(stderr, "swctl cluster up: no %s beside swctl nor at %s\n", name, out);
	return -1;
}

static FILE *create(const char *path)
{
	FILE *f = fopen(path, "we");
	if (f == NULL)
		fprintf(stderr, "swctl cluster up: %s: %s\n", path, strerror(errno));
	return f;
}

static int finish(FILE *f, const char *path)
{
	if (f == NULL || ferror(f) | fclose(f)) {
		fprintf(stderr, "swctl cluster up: %s: cannot write\n", path);
		return -1;
	}
	return 0;
}

static int make_dir(const char *path)
{
	if (mkdir(path, 0700) == 0)
		return 0;
	fprintf(stderr, "swctl cluster up: %s: %s\n", path, strerror(errno));
	return -1;
}

/* The controller's config: the cluster's nodes, policy c->policy, @p users users. */
static int write_ctl_conf(const struct cluster *c, unsigned users)
{
	char path[PATH_MAX + 64];
	snprintf(path, sizeof(path), "%s/controller/conf", c->dir);
	FILE *f = create(path);
	if (f) {
		fprintf(f,
		        "# written by swctl cluster\nlisten = " CLUSTER_CTL_AGENTS
		        "\nhttp_listen = " CLUSTER_CTL_HTTP "\nkey_file = %s/cluster.key\n"
		        "state_db = %s/controller/state.db\ntrace_file = "
		        "%s/controller/trace.jsonl\n"
		        "policy = %s\nusers = %u\nheartbeat_ms = 500\nlost_after_ms = %u\n"
		        "uplink_mbps = %llu\nnic_mbps = %llu\nsaturation_threshold = %g\n",
		        c->dir, c->dir, c->dir, c->policy, users, c->lost_after_ms,
		        c->uplink_bps / 1000000, c->nic_bps / 1000000, c->saturation_threshold);
		if (c->pace > 0)
			fprintf(f, "pace_uplink = %g\n", c->pace);
		for (int r = 0; r < c->racks; r++)
			for (int n = 0; n < c->nodes; n++)
				fprintf(f, "node = r%dn%d %d\n", r, n, r);
	}
	return finish(f, path);
}

static int write_configs(const struct cluster *c)
{
	char path[PATH_MAX + 64], ip[32];
	snprintf(path, sizeof(path), "%s/controller", c->dir);
	if (make_dir(path) || write_ctl_conf(c, 16))
		return -1;
	/* The same cluster for the simulator: swctl replay --topology DIR/topology.json. */
	snprintf(path, sizeof(path), "%s/topology.json", c->dir);
	FILE *f = create(path);
	if (f)
		fprintf(f,
		        "{\"racks\": %d, \"nodes_per_rack\": %d, \"map_slots\": 2, "
		        "\"reduce_slots\": 2, \"nic_bps\": %llu, \"uplink_bps\": %llu}\n",
		        c->racks, c->nodes, c->nic_bps, c->uplink_bps);
	if (finish(f, path))
		return -1;
	for (int r = 0; r < c->racks; r++)
		for (int n = 0; n < c->nodes; n++) {
			cluster_node_ip(r, n, ip, sizeof(ip));
			snprintf(path, sizeof(path), "%s/r%dn%d", c->dir, r, n);
			if (make_dir(path))
				return -1;
			strcat(path, "/conf");
			if ((f = create(path)))
				fprintf(f,
				        "# written by swctl cluster up\nnode_id = r%dn%d\nrack = "
				        "%d\n"
				        "controller = " CLUSTER_CTL_AGENTS
				        "\nshuffle_listen = %s:7001\n"
				        "replica_listen = %s:7002\nmetrics_listen = %s:7003\n"
				        "transport = %s\nkey_file = %s/cluster.key\n"
				        "store_dir = %s/r%dn%d\ndata_dir = %s/r%dn%d/data\n",
				        r, n, r, ip, ip, ip, c->transport, c->dir, c->dir, r, n,
				        c->dir, r, n);
			if (finish(f, path))
				return -1;
		}
	return 0;
}

/* A dpdk agent's port and neighbours (SW_DP_DPDK_*, dataplane/README.md): af_packet on the
 * node's eth0 through its qdisc (the --nic shaping; qdisc_bypass would skip it), and every
 * other node's MAC, or its ToR's for nodes of other racks (there is no ARP). */
static int dpdk_env(const struct cluster *c, const char *ns)
{
	static char neigh[CLUSTER_MAX_RACKS * CLUSTER_MAX_NODES * 36];
	char ip[32], mac[32];
	int rack, node;
	size_t len = 0;
	if (sscanf(ns + strlen(c->name), "-r%dn%d", &rack, &node) != 2)
		return -1;
	for (int r = 0; r < c->racks; r++)
		for (int n = 0; n < c->nodes; n++) {
			cluster_node_ip(r, n, ip, sizeof(ip));
			cluster_node_mac(rack, r == rack ? n : -1, mac, sizeof(mac));
			len += (size_t)snprintf(neigh + len, sizeof(neigh) - len, "%s%s=%s",
			                        len ? "," : "", ip, mac);
		}
	cluster_node_ip(rack, node, ip, sizeof(ip));
	return setenv("SW_DP_DPDK_PORT", "net_af_packet0,iface=eth0,qdisc_bypass=0", 1) ||
	       setenv("SW_DP_DPDK_IP", ip, 1) || setenv("SW_DP_DPDK_NEIGH", neigh, 1);
}

/* Starts @p bin with config @p conf_opt @p conf in namespace @p ns, in a session of its own
 * with stdout and stderr to @p log; records it in the state file. */
static pid_t spawn(const struct cluster *c, const char *ns, const char *role, const char *bin,
                   const char *conf_opt, const char *conf, const char *log)
{
	pid_t pid = fork();
	if (pid == 0) {
		int out = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
		int in = open("/dev/null", O_RDONLY);
		if (out < 0 || in < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
			_exit(126);
		setsid();
		/* UCX between namespaces of one machine would take shared memory and bypass the
		 * emulated links: the agents' ucx runs over its tcp transport on the node's link */
		if (!strcmp(role, "swagent") &&
		    (setenv("UCX_TLS", "tcp", 1) || setenv("UCX_NET_DEVICES", "eth0", 1) ||
		     (!strcmp(c->transport, "dpdk") && dpdk_env(c, ns))))
			_exit(126);
		if (cluster_enter(ns) == 0) {
			close_range(3, ~0u, 0);
			execl(bin, bin, conf_opt, conf, (char *)NULL);
			fprintf(stderr, "swctl cluster: %s: %s\n", bin, strerror(errno));
		}
		_exit(127);
	}
	if (pid < 0)
		fprintf(stderr, "swctl cluster up: fork: %s\n", strerror(errno));
	else
		cluster_state_add_pid(c, pid, role, ns);
	return pid;
}

/* Whether our child @p pid has exited; says so, with the end of its log. */
static int died(pid_t pid, const char *what, const char *log)
{
	int st;
	if (waitpid(pid, &st, WNOHANG) != pid)
		return 0;
	fprintf(stderr, "swctl cluster up: %s exited (%s %d); the end of %s:\n", what,
	        WIFEXITED(st) ? "status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
	        log);
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "tail -n 5 '%s' >&2", log);
	if (system(cmd) != 0)
		fprintf(stderr, "  (unreadable)\n");
	return 1;
}

static int has_line(const char *path, const char *text)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	int found = 0;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

/* How many nodes the controller has up and connected; -1 if it does not answer. */
static int nodes_up(void)
{
	char *answer = NULL;
	if (live_http(CLUSTER_CTL_HTTP, "GET", "/status", NULL, &answer) != 200) {
		free(answer);
		return -1;
	}
	json_t *s = json_loads(answer, 0, NULL), *v;
	size_t i;
	int up = 0;
	json_array_foreach(json_object_get(s, "nodes"), i, v)
	{
		up += !strcmp(json_string_value(json_object_get(v, "state")) ?: "", "up") &&
		      json_is_true(json_object_get(v, "connected"));
	}
	json_decref(s);
	free(answer);
	return up;
}

/* The log of daemon @p i of @p c: node i, or the controller for i = racks x nodes. */
static void log_path(const struct cluster *c, int i, char *buf, size_t len)
{
	if (i < c->racks * c->nodes)
		snprintf(buf, len, "%s/r%dn%d/log", c->dir, i / c->nodes, i % c->nodes);
	else
		snprintf(buf, len, "%s/controller/log", c->dir);
}

static int late(const struct cluster *c, const char *what)
{
	fprintf(stderr, "swctl cluster: %s before %s (logs in %s)\n",
	        runner_interrupted ? "interrupted" : "timed out", what, c->dir);
	return -1;
}

/* Starts swcontroller in the spine (its last log kept as log.1) and waits until it listens;
 * its pid, or -1 after a message. */
static pid_t start_controller(const struct cluster *c, double deadline)
{
	char ctl[PATH_MAX], conf[PATH_MAX + 32], log[PATH_MAX + 32], old[PATH_MAX + 40], ns[64];
	if (find_bin("swcontroller", "../../controller/swcontroller", ctl, sizeof(ctl)))
		return -1;
	cluster_ns_name(c, -1, -1, ns, sizeof(ns));
	snprintf(conf, sizeof(conf), "%s/controller/conf", c->dir);
	log_path(c, c->racks * c->nodes, log, sizeof(log));
	snprintf(old, sizeof(old), "%s.1", log);
	rename(log, old);
	pid_t pid = spawn(c, ns, "swcontroller", ctl, "-c", conf, log);
	while (pid > 0 && !has_line(log, "listening for agents")) {
		if (died(pid, "swcontroller", log))
			return -1;
		if (runner_interrupted || now() > deadline)
			return late(c, "the controller listened");
		usleep(50000);
	}
	return pid;
}

/* Waits until every node is up and connected; fails when one of @p pids (our children, the
 * daemons of log_path's numbering, -1 for none) exits. Asks the controller from the spine. */
static int wait_registered(const struct cluster *c, const pid_t *pids, double deadline)
{
	char ns[64], log[PATH_MAX + 32];
	int total = c->racks * c->nodes;
	cluster_ns_name(c, -1, -1, ns, sizeof(ns));
	if (cluster_enter(ns))
		return -1;
	while (nodes_up() < total) {
		for (int i = 0; i <= total; i++) {
			log_path(c, i, log, sizeof(log));
			if (pids[i] > 0 &&
			    died(pids[i], i < total ? "a swagent" : "swcontroller", log))
				return -1;
		}
		if (runner_interrupted || now() > deadline)
			return late(c, "every agent registered");
		usleep(200000);
	}
	return 0;
}

int cluster_start(const struct cluster *c, double timeout)
{
	char agent[PATH_MAX], path[PATH_MAX + 32], log[PATH_MAX + 32], ns[64];
	char err[SW_WIRE_ERRLEN];
	int total = c->racks * c->nodes;
	pid_t pids[CLUSTER_MAX_RACKS * CLUSTER_MAX_NODES + 1];
	double deadline = now() + timeout;
	if (find_bin("swagent", "../../agent/swagent", agent, sizeof(agent)))
		return -1;
	snprintf(path, sizeof(path), "%s/cluster.key", c->dir);
	if (sw_wire_key_generate(path, err, sizeof(err)) < 0) {
		fprintf(stderr, "swctl cluster up: %s\n", err);
		return -1;
	}
	if (write_configs(c) || (pids[total] = start_controller(c, deadline)) < 0)
		return -1;
	for (int i = 0; i < total; i++) {
		cluster_ns_name(c, i / c->nodes, i % c->nodes, ns, sizeof(ns));
		snprintf(path, sizeof(path), "%s/r%dn%d/conf", c->dir, i / c->nodes, i % c->nodes);
		log_path(c, i, log, sizeof(log));
		if ((pids[i] = spawn(c, ns, "swagent", agent, "--config", path, log)) < 0)
			return -1;
	}
	if (wait_registered(c, pids, deadline))
		return -1;
	cluster_state_mark_up(c);
	return 0;
}

/* ---- stopping ---- */

struct procs {
	pid_t pid[MAX_PROCS];
	int n;
};

/* Whether an argument of /proc/PID/cmdline names a file inside @p dir. */
static int runs_on_dir(pid_t pid, const char *dir)
{
	char path[64], buf[8192];
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	size_t dl = strlen(dir);
	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1) {
		buf[n] = '\0';
		if (!strncmp(buf + i, dir, dl) && buf[i + dl] == '/' && buf[i + dl + 1] != '\0')
			return 1;
	}
	return 0;
}

static void find_procs(const char *name, const char *dir, struct procs *p)
{
	struct stat ns_st[CLUSTER_MAX_RACKS * (CLUSTER_MAX_NODES + 1) + 1], st;
	int n_ns = 0;
	char path[PATH_MAX];
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	while (d && (e = readdir(d)) && n_ns < (int)(sizeof(ns_st) / sizeof(ns_st[0])))
		if (cluster_ns_is_ours(name, e->d_name)) {
			snprintf(path, sizeof(path), "/run/netns/%s", e->d_name);
			n_ns += stat(path, &ns_st[n_ns]) == 0;
		}
	if (d)
		closedir(d);
	p->n = 0;
	d = opendir("/proc");
	while (d && (e = readdir(d)) && p->n < MAX_PROCS) {
		pid_t pid = (pid_t)atoi(e->d_name);
		if (!isdigit((unsigned char)e->d_name[0]) || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
		int ours = dir && runs_on_dir(pid, dir);
		for (int i = 0; !ours && i < n_ns && stat(path, &st) == 0; i++)
			ours = st.st_dev == ns_st[i].st_dev && st.st_ino == ns_st[i].st_ino;
		if (ours)
			p->pid[p->n++] = pid;
	}
	if (d)
		closedir(d);
}

/* Whether @p pid still runs (a zombie does not; our own children are reaped). */
static int alive(pid_t pid)
{
	char path[64], buf[512];
	waitpid(pid, NULL, WNOHANG);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *s = strrchr(buf, ')');
	return s && s[1] == ' ' && s[2] != 'Z';
}

/* Signals every process of @p p, then waits up to @p seconds; how many still run. */
static int stop(struct procs *p, int sig, double seconds)
{
	int left = 0;
	for (int i = 0; i < p->n; i++)
		kill(p->pid[i], sig);
	for (double end = now() + seconds;; usleep(50000)) {
		left = 0;
		for (int i = 0; i < p->n; i++)
			left += alive(p->pid[i]);
		if (left == 0 || now() > end)
			return left;
	}
}

int cluster_pid_is_ours(pid_t pid, const char *dir)
{
	return alive(pid) && runs_on_dir(pid, dir);
}

int cluster_kill_all(const char *name, const char *dir)
{
	static struct procs p;
	find_procs(name, dir, &p);
	if (p.n > 0 && stop(&p, SIGTERM, 5) > 0 && stop(&p, SIGKILL, 2) > 0)
		fprintf(stderr, "swctl cluster down: some processes of %s survived SIGKILL\n",
		        name);
	return p.n;
}

struct find_daemon {
	const struct cluster *c;
	const char *role, *ns; /* ns NULL: any namespace */
	pid_t pid;
};

static void daemon_pid(pid_t pid, const char *role, const char *ns, void *arg)
{
	struct find_daemon *f = arg;
	if (!strcmp(role, f->role) && (f->ns == NULL || !strcmp(ns, f->ns)) &&
	    cluster_pid_is_ours(pid, f->c->dir))
		f->pid = pid;
}

/* The pid of the running daemon @p role (in namespace @p ns, if not NULL), or -1. */
static pid_t find_daemon(const struct cluster *c, const char *role, const char *ns)
{
	struct find_daemon f = {.c = c, .role = role, .ns = ns, .pid = -1};
	cluster_state_each_pid(c, daemon_pid, &f);
	return f.pid;
}

int cluster_restart_controller(const struct cluster *c, unsigned users, double timeout)
{
	static const char *const state[] = {"state.db", "state.db-wal", "state.db-shm",
	                                    "trace.jsonl"};
	char path[PATH_MAX + 32];
	pid_t old = find_daemon(c, "swcontroller", NULL);
	pid_t pids[CLUSTER_MAX_RACKS * CLUSTER_MAX_NODES + 1];
	if (old > 0) {
		struct procs p = {.pid = {old}, .n = 1};
		if (stop(&p, SIGTERM, 5) > 0 && stop(&p, SIGKILL, 2) > 0)
			return -1;
	}
	for (size_t i = 0; i < sizeof(state) / sizeof(state[0]); i++) {
		snprintf(path, sizeof(path), "%s/controller/%s", c->dir, state[i]);
		unlink(path);
	}
	for (int i = 0; i < c->racks * c->nodes; i++)
		pids[i] = -1;
	double deadline = now() + timeout;
	int total = c->racks * c->nodes;
	if (write_ctl_conf(c, users) || (pids[total] = start_controller(c, deadline)) < 0)
		return -1;
	cluster_state_set_policy(c);
	return wait_registered(c, pids, deadline);
}

/* SIGKILL to a daemon (@p ns NULL: any namespace): 1, 0 if none ran, or -1 when it survived. */
static int kill_daemon(const struct cluster *c, const char *role, const char *ns)
{
	pid_t pid = find_daemon(c, role, ns);
	if (pid < 0)
		return 0;
	struct procs p = {.pid = {pid}, .n = 1};
	return stop(&p, SIGKILL, 5) ? -1 : 1;
}

int cluster_kill_agent(const struct cluster *c, int rack, int node)
{
	char ns[64];
	cluster_ns_name(c, rack, node, ns, sizeof(ns));
	return kill_daemon(c, "swagent", ns);
}

int cluster_kill_controller(const struct cluster *c)
{
	return kill_daemon(c, "swcontroller", NULL);
}

int cluster_start_controller(const struct cluster *c, double timeout)
{
	return start_controller(c, now() + timeout) < 0 ? -1 : 0;
}

int cluster_start_agent(const struct cluster *c, int rack, int node)
{
	char agent[PATH_MAX], ns[64], conf[PATH_MAX + 32], log[PATH_MAX + 32];
	if (find_bin("swagent", "../../agent/swagent", agent, sizeof(agent)))
		return -1;
	cluster_ns_name(c, rack, node, ns, sizeof(ns));
	snprintf(conf, sizeof(conf), "%s/r%dn%d/conf", c->dir, rack, node);
	log_path(c, rack * c->nodes + node, log, sizeof(log));
	return spawn(c, ns, "swagent", agent, "--config", conf, log) < 0 ? -1 : 0;
}

int cluster_wait_registered(const struct cluster *c, double timeout)
{
	pid_t none[CLUSTER_MAX_RACKS * CLUSTER_MAX_NODES + 1];
	for (int i = 0; i <= c->racks * c->nodes; i++)
		none[i] = -1;
	return wait_registered(c, none, now() + timeout);
}
