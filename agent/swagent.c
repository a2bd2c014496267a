/* SPDX-License-Identifier: MIT */
/* swagent: the node daemon. Reads its config and the cluster key, starts the agent's core,
 * the controller link and /metrics, tells systemd it is ready, and runs the loop until
 * SIGTERM or SIGINT. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-daemon.h>

#include "agent_int.h"
#include "link.h"
#include "metrics.h"

static const char usage[] =
        "usage: swagent --config FILE\n"
        "       swagent --help\n"
        "\n"
        "The shufflewatch node agent: registers with the controller named in FILE, runs the\n"
        "tasks it assigns, serves their map output and reports back every heartbeat_ms.\n"
        "The config file (key = value) is described in agent/README.md. Logs go to stderr.\n"
        "Exit status: 0 after SIGTERM/SIGINT, 1 on a bad config, key file or listen address.\n";

static struct sw_agent_link *link_;

static void on_task_end(struct sw_agent *ag, const struct sw_agent_task_result *r, void *arg)
{
	(void)ag, (void)arg;
	if (link_)
		sw_agent_link_task_end(link_, r);
}

static void on_fetch_failed(struct sw_agent *ag, const struct sw_agent_fetch_failure *f, void *arg)
{
	(void)ag, (void)arg;
	if (link_)
		sw_agent_link_fetch_failed(link_, f);
}

/* sd_notify WATCHDOG=1 at half the unit's WatchdogSec, from the loop: a stuck loop stops it. */
static struct sw_agent *watchdog_ag;
static uint64_t watchdog_ms;
static void on_watchdog(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	sw_agent_timer_ack(w);
	sd_notify(0, "WATCHDOG=1");
	sw_agent_timer_start(watchdog_ag, w, watchdog_ms);
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage, stdout);
		return 0;
	}
	if (argc == 3 && (!strcmp(argv[1], "--config") || !strcmp(argv[1], "-c")))
		path = argv[2];
	if (!path) {
		fputs(usage, stderr);
		return 1;
	}
	char err[SW_WIRE_ERRLEN + PATH_MAX];
	struct sw_agent_conf conf;
	if (sw_agent_conf_load(path, &conf, err, sizeof(err))) {
		fprintf(stderr, "swagent: %s\n", err);
		return 1;
	}
	struct sw_wire_key key;
	if (sw_wire_key_load(conf.key_file, &key, err, sizeof(err))) {
		fprintf(stderr, "swagent: key_file: %s\n", err);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	sw_agent_block_signals();
	struct sw_agent *ag;
	struct sw_agent_hooks hooks = {.on_task_end = on_task_end,
	                               .on_fetch_failed = on_fetch_failed};
	int rc = sw_agent_create(&conf, key.bytes, sizeof(key.bytes), &hooks, &ag);
	if (rc) {
		fprintf(stderr, "swagent: cannot start: %s\n", strerror(-rc));
		return 1;
	}
	struct sw_agent_metrics *metrics = NULL;
	rc = sw_agent_link_create(ag, &key, &link_);
	if (!rc && conf.metrics_listen[0])
		rc = sw_agent_metrics_create(ag, link_, conf.metrics_listen, &metrics);
	if (rc) {
		fprintf(stderr, "swagent: cannot start: %s\n", strerror(-rc));
		sw_agent_link_destroy(link_);
		sw_agent_destroy(ag);
		return 1;
	}
	sw_agent_log(
	        ag, "rack %u, shuffle on %s (%s), replicas on %s, metrics on %s, controller %s",
	        conf.rack, sw_agent_shuffle_addr(ag), conf.transport, sw_agent_replica_addr(ag),
	        metrics ? sw_agent_metrics_addr(metrics) : "(off)", conf.controller);

	struct sw_agent_watch watchdog = {.fd = -1, .fn = on_watchdog};
	uint64_t usec;
	if (sd_watchdog_enabled(0, &usec) > 0) {
		watchdog_ag = ag;
		watchdog_ms = usec / 2000;
		sw_agent_timer_start(ag, &watchdog, watchdog_ms);
	}
	sd_notifyf(0, "READY=1\nSTATUS=node %s serving shuffle on %s", conf.node_id,
	           sw_agent_shuffle_addr(ag));
	rc = sw_agent_run(ag);
	sd_notify(0, "STOPPING=1");
	if (rc)
		sw_agent_log(ag, "event loop: %s", strerror(-rc));
	sw_agent_watch_close(ag, &watchdog);
	sw_agent_metrics_destroy(metrics);
	sw_agent_link_destroy(link_);
	link_ = NULL;
	sw_agent_destroy(ag);
	return rc ? 1 : 0;
}
