/* SPDX-License-Identifier: MIT */
/*
 * Internal to dataplane/: what lets a dpdk context sleep (sw_dp_fd, sw_dp_wait) instead of
 * polling its port. One epoll set per context holds three descriptors that each say "poll
 * now": what the port's frames make readable (on a kernel interface, the kernel UDP socket
 * that holds the context's port: the kernel sees every frame af_packet gives us, so a frame
 * for our port makes it readable, a port unreachable for one of ours puts an error on it; on
 * memif, the eventfd its peer writes after each burst, dpdk_memif.h), an eventfd that sibling
 * contexts of the process kick when they hand over a frame that never was on the wire, and a
 * timerfd set to the context's next deadline (retransmission, probe, pacing). Why this and not
 * spinning: dataplane/README.md, "Waiting".
 */
#ifndef SW_DP_DPDK_WAKE_H
#define SW_DP_DPDK_WAKE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* The set costs a few system calls per sleep; those it can tell are needless it leaves out
 * (dataplane/README.md, "Waiting"): the eventfd is read only once a kick or the set said it
 * may be readable, and the timer is set again only when the deadline asked for is earlier
 * than the one armed or that one has passed. */
struct dpdk_wake {
	int epfd, evfd, tfd; /* -1 when not open */
	int sock;            /* the held UDP socket in the set, -1 for none */
	atomic_bool kicked;  /* the eventfd may be readable: set after each kick's write */
	uint64_t timer_ns;   /* CLOCK_MONOTONIC time the timer is armed for, 0: disarmed */
};

/* Opens the set with the eventfd and the timerfd. 0 or a negative errno. */
int sw_dp_dpdk_wake_open(struct dpdk_wake *w);
/* Closes what is open (not the socket: its owner's). */
void sw_dp_dpdk_wake_close(struct dpdk_wake *w);
/* Puts the held socket @p fd in the set, in place of the previous one: small receive buffer
 * (a few frames' worth of memory, the rest dropped: one is enough to wake) and IP_RECVERR
 * (ICMP errors for an unconnected socket are queued only with it). 0 or a negative errno. */
int sw_dp_dpdk_wake_sock(struct dpdk_wake *w, int fd);
/* Puts memif's interrupt eventfd @p fd in the set (again: the driver makes a new one each
 * time the link comes up, maybe under the same number; one still in the set is left as it
 * is). 0 or a negative errno. */
int sw_dp_dpdk_wake_intr(const struct dpdk_wake *w, int fd);
/* Makes the set readable (another thread's call). */
void sw_dp_dpdk_wake_kick(struct dpdk_wake *w);
/* Empties what made the set readable: the socket's queue and error queue, and the eventfd
 * if a kick may have written it (always when @p all: a caller that sleeps on epfd in its own
 * epoll, where a kick could be seen before its flag). Not the timer's count: the next
 * sw_dp_dpdk_wake_timer clears it. Call before a last progress that precedes sleeping. */
void sw_dp_dpdk_wake_drain(struct dpdk_wake *w, bool all);
/* Makes the set readable at @p at_ns (sw_dp_now_ns's clock; UINT64_MAX: never) or before: an
 * armed timer that is still ahead and not later is left as it is (the set may then turn
 * readable early, once), one that passed is set again, which clears its count. */
void sw_dp_dpdk_wake_timer(struct dpdk_wake *w, uint64_t at_ns);
/* Sleeps until the set is readable or @p timeout_ms passes (-1: no limit). 1 readable, 0
 * timed out, or a negative errno. */
int sw_dp_dpdk_wake_wait(struct dpdk_wake *w, int timeout_ms);

#endif
