/* SPDX-License-Identifier: MIT */
/* The dpdk backend's pollable set: dpdk_wake.h, dataplane/README.md "Waiting". */
#include <errno.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "dp_impl.h"
#include "dpdk_wake.h"

static int add(const struct dpdk_wake *w, int fd)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
	return epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) < 0 ? -errno : 0;
}

int sw_dp_dpdk_wake_open(struct dpdk_wake *w)
{
	int rc;

	w->sock = -1;
	w->timer_ns = 0;
	atomic_init(&w->kicked, false);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	w->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (w->epfd < 0 || w->evfd < 0 || w->tfd < 0)
		rc = -errno;
	else if ((rc = add(w, w->evfd)) == 0 && (rc = add(w, w->tfd)) == 0)
		return 0;
	sw_dp_dpdk_wake_close(w);
	return rc;
}

void sw_dp_dpdk_wake_close(struct dpdk_wake *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	if (w->evfd >= 0)
		close(w->evfd);
	if (w->tfd >= 0)
		close(w->tfd);
	w->epfd = w->evfd = w->tfd = w->sock = -1;
}

int sw_dp_dpdk_wake_sock(struct dpdk_wake *w, int fd)
{
	int zero = 0, one = 1, rc;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &zero, sizeof(zero)) < 0 ||
	    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one)) < 0)
		return -errno;
	if (w->sock >= 0) /* still open: its owner closes it after this */
		epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->sock, NULL);
	if ((rc = add(w, fd)) < 0)
		return rc;
	w->sock = fd;
	return 0;
}

int sw_dp_dpdk_wake_intr(const struct dpdk_wake *w, int fd)
{
	int rc = add(w, fd);
	return rc == -EEXIST ? 0 : rc;
}

void sw_dp_dpdk_wake_kick(struct dpdk_wake *w)
{
	uint64_t one = 1;
	if (write(w->evfd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		return; /* EAGAIN only at 2^64-2 kicks unread: readable already */
	/* After the write: a drain that takes the flag then finds the count (set before it,
	 * a drain could take the flag, read nothing yet, and leave the count unread). */
	atomic_store(&w->kicked, true);
}

void sw_dp_dpdk_wake_drain(struct dpdk_wake *w, bool all)
{
	uint64_t n;
	char b;
	struct iovec iov = {&b, 1};
	struct msghdr err = {.msg_iov = &iov, .msg_iovlen = 1};

	if (w->sock >= 0) {
		while (recv(w->sock, &b, 1, MSG_DONTWAIT | MSG_TRUNC) >= 0)
			;
		while (recvmsg(w->sock, &err, MSG_DONTWAIT | MSG_ERRQUEUE) >= 0)
			;
	}
	if ((atomic_exchange(&w->kicked, false) || all) && read(w->evfd, &n, sizeof(n)) < 0 &&
	    errno != EAGAIN)
		return;
}

void sw_dp_dpdk_wake_timer(struct dpdk_wake *w, uint64_t at_ns)
{
	struct itimerspec t = {{0, 0}, {0, 0}};

	if (w->timer_ns ? w->timer_ns <= at_ns && sw_dp_now_ns() < w->timer_ns
	                : at_ns == UINT64_MAX)
		return;
	if (at_ns != UINT64_MAX)
		t.it_value = (struct timespec){(time_t)(at_ns / 1000000000u),
		                               (long)(at_ns % 1000000000u)};
	timerfd_settime(w->tfd, TFD_TIMER_ABSTIME, &t, NULL);
	w->timer_ns = at_ns == UINT64_MAX ? 0 : at_ns;
}

int sw_dp_dpdk_wake_wait(struct dpdk_wake *w, int timeout_ms)
{
	struct epoll_event ev;
	int n = epoll_wait(w->epfd, &ev, 1, timeout_ms);

	if (n < 0)
		return errno == EINTR ? 1 : -errno;
	if (n > 0 && ev.data.fd == w->evfd) /* a kick seen before its flag: read it next drain */
		atomic_store(&w->kicked, true);
	return n;
}
