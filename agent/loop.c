/* SPDX-License-Identifier: MIT */
/* The agent's one event loop: an epoll set of fds (the dataplane's, timerfds, pidfds, the
 * signalfd), each carrying its handler in epoll_event.data. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "agent_int.h"

int sw_agent_watch_add(struct sw_agent *ag, struct sw_agent_watch *w)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = w};
	return epoll_ctl(ag->epfd, EPOLL_CTL_ADD, w->fd, &ev) ? -errno : 0;
}

void sw_agent_watch_del(struct sw_agent *ag, struct sw_agent_watch *w)
{
	if (w->fd >= 0)
		epoll_ctl(ag->epfd, EPOLL_CTL_DEL, w->fd, NULL);
}

void sw_agent_watch_close(struct sw_agent *ag, struct sw_agent_watch *w)
{
	if (w->fd < 0)
		return;
	sw_agent_watch_del(ag, w);
	close(w->fd);
	w->fd = -1;
}

int sw_agent_dp_watch(struct sw_agent *ag, struct sw_agent_watch *w, struct sw_dp_ctx *dp)
{
	if (ag->n_dps == SW_AGENT_DP_MAX)
		return -ENOSPC;
	int sleep_ms;
	w->fd = sw_dp_fd(dp);
	if (w->fd == -ENOTSUP) {
		/* A poll-mode backend (dpdk on memif): no fd, progressed every round. */
		w->fd = -1;
		sleep_ms = SW_AGENT_POLL_MS;
	} else if (w->fd < 0) {
		return w->fd;
	} else {
		/* An fd that can miss work (ucx) bounds the sleep as sw_dp_wait does. */
		sleep_ms = sw_dp_fd_sleep_ms(dp);
		int rc = sw_agent_watch_add(ag, w);
		if (rc)
			return rc;
	}
	ag->dps[ag->n_dps].w = w;
	ag->dps[ag->n_dps].dp = dp;
	ag->dps[ag->n_dps].sleep_ms = sleep_ms;
	ag->n_dps++;
	return 0;
}

void sw_agent_dp_unwatch(struct sw_agent *ag, struct sw_agent_watch *w)
{
	for (int i = 0; i < ag->n_dps; i++)
		if (ag->dps[i].w == w) {
			sw_agent_watch_del(ag, w);
			ag->dps[i] = ag->dps[--ag->n_dps];
			w->fd = -1; /* the context closes its own fd */
			return;
		}
}

int sw_agent_timer_start(struct sw_agent *ag, struct sw_agent_watch *w, uint64_t ms)
{
	if (w->fd < 0) {
		w->fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (w->fd < 0)
			return -errno;
		int rc = sw_agent_watch_add(ag, w);
		if (rc) {
			close(w->fd);
			w->fd = -1;
			return rc;
		}
	}
	/* it_value 0 would disarm the timer: "at once" is 1 ns */
	struct itimerspec its = {
	        .it_value = {.tv_sec = (time_t)(ms / 1000),
	                     .tv_nsec = (long)(ms % 1000) * 1000000 + (ms ? 0 : 1)}};
	return timerfd_settime(w->fd, 0, &its, NULL) ? -errno : 0;
}

uint64_t sw_agent_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Reads a timerfd's expiry count so that it stops being readable. */
void sw_agent_timer_ack(struct sw_agent_watch *w)
{
	uint64_t n;
	if (read(w->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
}

int sw_agent_run_once(struct sw_agent *ag, int timeout_ms)
{
	struct epoll_event evs[32];
	for (int i = 0; i < ag->n_dps; i++) {
		int bound = sw_dp_wait(ag->dps[i].dp, 0) == 0 ? 0 : ag->dps[i].sleep_ms;
		if (bound >= 0 && (timeout_ms < 0 || timeout_ms > bound))
			timeout_ms = bound;
	}
	int n = epoll_wait(ag->epfd, evs, 32, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < n; i++) {
		struct sw_agent_watch *w = evs[i].data.ptr;
		w->fn(w, evs[i].events);
	}
	for (int i = 0; i < ag->n_dps; i++)
		ag->dps[i].w->fn(ag->dps[i].w, 0);
	return 0;
}

static void on_signal(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent *ag = container_of(w, struct sw_agent, sig_watch);
	struct signalfd_siginfo si;
	if (read(w->fd, &si, sizeof(si)) == sizeof(si))
		sw_agent_log(ag, "signal %u (%s): stopping", si.ssi_signo,
		             strsignal((int)si.ssi_signo));
	ag->stop = true;
}

static void stop_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
}

int sw_agent_block_signals(void)
{
	sigset_t set;
	stop_signals(&set);
	return sigprocmask(SIG_BLOCK, &set, NULL) ? -errno : 0;
}

int sw_agent_run(struct sw_agent *ag)
{
	sigset_t set;
	stop_signals(&set);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	ag->sig_watch.fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	ag->sig_watch.fn = on_signal;
	if (ag->sig_watch.fd < 0)
		return -errno;
	int rc = sw_agent_watch_add(ag, &ag->sig_watch);
	while (!rc && !ag->stop)
		rc = sw_agent_run_once(ag, -1);
	sw_agent_watch_close(ag, &ag->sig_watch);
	return rc;
}

void sw_agent_stop(struct sw_agent *ag)
{
	ag->stop = true;
}
