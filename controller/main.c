/* SPDX-License-Identifier: MIT */
/*
 * swcontroller: one thread, one epoll loop over the dataplane context (agents), a timerfd
 * (lost nodes, watchdog), a signalfd and libmicrohttpd's epoll fd. Each turn of the loop
 * reads the clock once (c->now), handles what is ready inside one SQLite transaction, commits
 * it, and only then sends the messages the turn produced: an agent never acts on a decision
 * a crash could make the controller forget.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <systemd/sd-daemon.h>

#include "ctl.h"

#define TICK_MS 250

struct ctl_out {
	struct ctl_conn *conn;
	enum sw_wire_type type;
	void *buf;
	size_t len;
};

void sw_ctl_log(struct ctl *c, const char *fmt, ...)
{
	va_list ap;
	(void)c;
	va_start(ap, fmt);
	fputs("swcontroller: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Closed after this turn's commit. */
static void broken(struct ctl *c, struct ctl_conn *conn)
{
	conn->broken = true;
	c->any_broken = true;
}

void sw_ctl_send(struct ctl *c, struct ctl_conn *conn, enum sw_wire_type type,
                 const ProtobufCMessage *msg)
{
	char err[SW_WIRE_ERRLEN];
	struct ctl_out o = {conn, type, NULL, 0};
	if (c->n_out == c->cap_out) {
		size_t cap = c->cap_out ? 2 * c->cap_out : 256;
		struct ctl_out *t = realloc(c->out, cap * sizeof(*t));
		if (t == NULL) {
			broken(c, conn);
			return;
		}
		c->out = t;
		c->cap_out = cap;
	}
	if (sw_wire_encode(type, msg, &o.buf, &o.len, err, sizeof(err)) < 0) {
		sw_ctl_log(c, "to %s: %s", conn->peer, err);
		broken(c, conn);
		return;
	}
	c->out[c->n_out++] = o;
}

void sw_ctl_forget(struct ctl *c, struct ctl_conn *conn)
{
	for (size_t i = 0; i < c->n_out; i++)
		if (c->out[i].conn == conn) {
			free(c->out[i].buf);
			c->out[i].conn = NULL;
		}
}

static void trace_off(struct ctl *c, const char *why)
{
	sw_ctl_log(c, "trace file %s: %s; trace turned off", c->conf.trace_file, why);
	close(c->trace_fd);
	c->trace_fd = -1;
	c->trace_len = 0;
}

/* Every recorded call goes to the database and, when configured, the JSONL trace file. The
 * file gets a turn's lines only once the turn is committed (trace_write): after a kill -9 it
 * holds the calls the database holds, no more, and replays like the restarted controller. */
static void sink(void *arg, const char *line, size_t len)
{
	struct ctl *c = arg;
	sw_ctl_store_call(c, line, len);
	if (c->trace_fd < 0)
		return;
	if (c->trace_len + len + 1 > c->trace_cap) {
		size_t cap = 2 * (c->trace_len + len + 1);
		char *t = realloc(c->trace_buf, cap);
		if (t == NULL) {
			trace_off(c, strerror(ENOMEM));
			return;
		}
		c->trace_buf = t;
		c->trace_cap = cap;
	}
	memcpy(c->trace_buf + c->trace_len, line, len);
	c->trace_buf[c->trace_len + len] = '\n';
	c->trace_len += len + 1;
}

static void trace_write(struct ctl *c)
{
	for (size_t done = 0; c->trace_fd >= 0 && done < c->trace_len;) {
		ssize_t n = write(c->trace_fd, c->trace_buf + done, c->trace_len - done);
		if (n < 0 && errno != EINTR)
			trace_off(c, strerror(errno));
		done += n > 0 ? (size_t)n : 0;
	}
	c->trace_len = 0;
}

void sw_ctl_commit(struct ctl *c)
{
	if (sw_ctl_store_commit(c) < 0) {
		/* Without the state on disk nothing may be sent: stop; a restart recovers. */
		sw_ctl_log(c, "state database: commit failed; stopping");
		c->stop = true;
		c->exit_code = 1;
		for (size_t i = 0; i < c->n_out; i++)
			if (c->out[i].conn)
				free(c->out[i].buf);
		c->n_out = 0;
		c->trace_len = 0;
		return;
	}
	trace_write(c);
	for (size_t i = 0; i < c->n_out; i++) {
		struct ctl_out *o = &c->out[i];
		if (o->conn == NULL)
			continue;
		struct iovec iov = {o->buf, o->len};
		int rc = sw_dp_send(o->conn->ep, o->type, &iov, 1, o->buf);
		if (rc < 0) {
			free(o->buf);
			broken(c, o->conn);
		}
	}
	c->n_out = 0;
	for (struct ctl_conn *k = c->any_broken ? c->conns : NULL, *next; k; k = next) {
		next = k->next;
		if (k->broken)
			sw_ctl_agent_drop(c, k, "does not take its messages (no send credit left)");
	}
	c->any_broken = false;
	sw_ctl_store_begin(c);
}

static double monotonic(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int watch(int ep, int fd, uint64_t tag)
{
	struct epoll_event e = {.events = EPOLLIN, .data.u64 = tag};
	return epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
}

enum { W_DP, W_TIMER, W_SIGNAL, W_HTTP };

/* Events come in batches of 64 (one sw_dp_poll, one epoll_wait inside, per batch) until a
 * batch comes short: what was ready has been read, and the poll that would only say so is
 * left to after the commit, so that the credits these heartbeats returned go out in the same
 * writes as their Assigns (a poll sends the credits owed on its way in). Handling one event
 * may close an endpoint that a later event of the batch still names: those are only released
 * or freed. */
static void poll_agents(struct ctl *c)
{
	struct sw_dp_event ev[64];
	int n = 64;
	while (n == 64 && (n = sw_dp_poll(c->dp, ev, 64)) > 0) {
		c->n_closed = 0;
		for (int i = 0; i < n; i++) {
			bool gone = false;
			for (size_t k = 0; k < c->n_closed && ev[i].ep; k++)
				gone |= c->closed[k] == ev[i].ep;
			if (!gone)
				sw_ctl_agent_event(c, &ev[i]);
			else if (ev[i].type == SW_DP_EV_RECV)
				sw_dp_release(c->dp, &ev[i]);
			else if (ev[i].type == SW_DP_EV_SEND)
				sw_wire_sent(&ev[i]);
		}
		c->n_closed = 0;
	}
}

static int run(struct ctl *c)
{
	int ep = epoll_create1(EPOLL_CLOEXEC);
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	int sfd = signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK);
	struct itimerspec its = {{0, TICK_MS * 1000000L}, {0, TICK_MS * 1000000L}};
	uint64_t wd_usec = 0;
	int wd = sd_watchdog_enabled(0, &wd_usec) > 0;
	double last_wd = 0;
	if (ep < 0 || tfd < 0 || sfd < 0 || timerfd_settime(tfd, 0, &its, NULL) < 0 ||
	    watch(ep, sw_dp_fd(c->dp), W_DP) < 0 || watch(ep, tfd, W_TIMER) < 0 ||
	    watch(ep, sfd, W_SIGNAL) < 0 || watch(ep, sw_ctl_http_fd(c), W_HTTP) < 0) {
		sw_ctl_log(c, "event loop: %s", strerror(errno));
		return 1;
	}
	sd_notify(0, "READY=1\nSTATUS=accepting agents");
	sw_ctl_store_begin(c);
	while (!c->stop) {
		struct epoll_event e[8];
		int n = epoll_wait(ep, e, 8, sw_ctl_http_timeout_ms(c));
		if (n < 0 && errno != EINTR) {
			sw_ctl_log(c, "epoll_wait: %s", strerror(errno));
			break;
		}
		c->now = monotonic() + c->clock_offset;
		for (int i = 0; i < n; i++) {
			uint64_t x;
			struct signalfd_siginfo si;
			switch (e[i].data.u64) {
			case W_DP:
				poll_agents(c);
				break;
			case W_TIMER:
				if (read(tfd, &x, sizeof(x)) < 0 && errno != EAGAIN)
					sw_ctl_log(c, "timerfd: %s", strerror(errno));
				/* Heartbeats already here count before anyone is declared lost. */
				poll_agents(c);
				sw_ctl_agents_tick(c);
				sw_ctl_net_samples(c);
				sw_ctl_pace(c);
				if (wd && c->now - last_wd > wd_usec / 2e6) {
					sd_notify(0, "WATCHDOG=1");
					last_wd = c->now;
				}
				break;
			case W_SIGNAL:
				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					sw_ctl_log(c, "signal %u: stopping", si.ssi_signo);
					c->stop = true;
				}
				break;
			default:
				break;
			}
		}
		sw_ctl_http_run(c); /* also runs MHD's timeouts when nothing was ready */
		sw_ctl_commit(c);
		poll_agents(c); /* sends made now complete without waiting for the next wakeup */
	}
	sd_notify(0, "STOPPING=1");
	sw_ctl_commit(c);
	close(ep);
	close(tfd);
	close(sfd);
	return c->exit_code;
}

static int build_cluster(struct ctl *c, struct sw_cluster_spec *cl)
{
	struct sw_rack_spec *racks = calloc(c->conf.n_racks, sizeof(*racks));
	struct sw_node_spec *nodes = calloc(c->conf.n_nodes, sizeof(*nodes));
	if (racks == NULL || nodes == NULL) {
		free(racks);
		free(nodes);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < c->conf.n_racks; i++)
		racks[i].uplink_bps = c->conf.uplink_bps;
	for (uint32_t i = 0; i < c->conf.n_nodes; i++) {
		const struct ctl_conf_node *n = &c->conf.nodes[i];
		nodes[i] =
		        (struct sw_node_spec){.rack = n->rack,
		                              .map_slots = n->map_slots,
		                              .reduce_slots = n->reduce_slots,
		                              .capacity = {n->map_slots + n->reduce_slots,
		                                           2.0 * (n->map_slots + n->reduce_slots)},
		                              .nic_bps = c->conf.nic_bps};
	}
	*cl = (struct sw_cluster_spec){c->conf.n_racks, c->conf.n_nodes, racks, nodes};
	return 0;
}

/* Opens the state database and either rebuilds the scheduler from it or creates a new one. */
static int open_state(struct ctl *c, char *err, size_t errlen)
{
	struct sw_cluster_spec cl;
	struct sw_sched_config cfg;
	int rc = sw_ctl_store_open(c, err, errlen);
	if (rc < 0)
		return rc;
	if ((rc = build_cluster(c, &cl)) < 0)
		return rc;
	sw_sched_config_default(&cfg);
	cfg.policy = c->conf.policy;
	cfg.n_users = c->conf.users;
	cfg.netsat_window = 2.0 * c->conf.heartbeat_ms / 1000;
	cfg.nw_saturation_threshold = c->conf.saturation_threshold;
	c->rec.sink = sink;
	c->rec.sink_arg = c;
	rc = sw_ctl_store_load(c, &cl, &cfg, err, errlen);
	c->cluster = cl; /* kept: jobs' input placement (jobs.c) */
	if (rc < 0)
		return rc;
	/* Time goes on from the last recorded call, even across a reboot of this machine. */
	double mono = monotonic();
	c->clock_offset = c->rec.last_now > mono ? c->rec.last_now - mono : 0;
	c->now = mono + c->clock_offset;
	for (uint32_t i = 0; i < c->conf.n_nodes; i++)
		c->nodes[i].last_seen = c->now;
	return 0;
}

static struct sw_netsat *netsat_for(const struct ctl_conf *conf)
{
	uint32_t *rack_of = calloc(conf->n_nodes, sizeof(*rack_of));
	if (rack_of == NULL)
		return NULL;
	for (uint32_t i = 0; i < conf->n_nodes; i++)
		rack_of[i] = conf->nodes[i].rack;
	struct sw_netsat *ns = sw_netsat_create(conf->n_nodes, conf->n_racks, rack_of);
	free(rack_of);
	return ns;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: swcontroller -c CONFIG\n\n"
	           "The shufflewatch controller: agents connect to it over the wire protocol,\n"
	           "jobs are submitted over HTTP (swctl submit). CONFIG's keys are documented in\n"
	           "controller/README.md; the state survives restarts in its state_db.\n\n"
	           "  -c, --config FILE   the config file (required)\n"
	           "  -h, --help          this text\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {{"config", required_argument, NULL, 'c'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	const char *conf = NULL;
	int o;
	while ((o = getopt_long(argc, argv, "c:h", opts, NULL)) != -1) {
		if (o == 'c')
			conf = optarg;
		else if (o == 'h') {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}
	if (conf == NULL || optind != argc) {
		usage(stderr);
		return 2;
	}
	static struct ctl ctl = {.trace_fd = -1};
	struct ctl *c = &ctl;
	static char err[16384]; /* gcc bounds the messages by every path's size */
	struct sw_dp_config dcfg;
	sw_wire_dp_config(&dcfg);
	int rc = sw_ctl_conf_load(conf, &c->conf, err, sizeof(err));
	if (rc == 0)
		rc = sw_wire_key_load(c->conf.key_file, &c->key, err, sizeof(err));
	if (rc == 0 && (c->nodes = calloc(c->conf.n_nodes, sizeof(*c->nodes))) == NULL)
		rc = -ENOMEM;
	if (rc == 0 && (c->netsat = netsat_for(&c->conf)) == NULL)
		rc = -ENOMEM;
	if (rc == 0 && *c->conf.trace_file &&
	    (c->trace_fd =
	             open(c->conf.trace_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
		rc = -snprintf(err, sizeof(err), "trace file %s: %s", c->conf.trace_file,
		               strerror(errno));
	if (rc == 0)
		rc = open_state(c, err, sizeof(err));
	if (rc == 0 && (rc = sw_dp_open(&dcfg, &c->dp)) < 0)
		snprintf(err, sizeof(err), "dataplane: %s", sw_dp_strerror(rc));
	if (rc == 0 && (rc = sw_dp_listen(c->dp, c->conf.listen)) < 0)
		snprintf(err, sizeof(err), "listen %.*s: %s", (int)sizeof(c->conf.listen),
		         c->conf.listen, sw_dp_strerror(rc));
	if (rc == 0)
		rc = sw_ctl_http_start(c, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "swcontroller: %s\n", err);
		return 1;
	}
	char agents[SW_DP_ADDRSTRLEN], http[SW_DP_ADDRSTRLEN];
	sw_dp_listen_addr(c->dp, agents, sizeof(agents));
	sw_ctl_http_addr(c, http, sizeof(http));
	sw_ctl_log(c, "listening for agents on %s, HTTP on %s; %u nodes in %u racks, policy %s",
	           agents, http, c->conf.n_nodes, c->conf.n_racks, c->conf.policy);
	rc = run(c);
	sw_ctl_http_stop(c);
	while (c->conns)
		sw_ctl_agent_drop(c, c->conns, "controller stopping");
	sw_wire_dp_close(c->dp);
	sw_ctl_store_close(c);
	for (size_t i = 0; i < c->n_jobs; i++)
		sw_ctl_job_free(c->jobs[i]);
	free(c->jobs);
	free(c->out);
	free(c->trace_buf);
	free(c->nodes);
	free((void *)c->cluster.racks);
	free((void *)c->cluster.nodes);
	sw_ctl_rec_fini(&c->rec);
	sw_netsat_destroy(c->netsat);
	sw_ctl_conf_free(&c->conf);
	if (c->trace_fd >= 0)
		close(c->trace_fd);
	return rc;
}
