/* SPDX-License-Identifier: MIT */
/*
 * Disk writes off the loop. Under load one write() can wait seconds in the kernel's dirty-page
 * throttling, and an fsync longer: done in the loop, that stalled heartbeats past the
 * controller's lost_after_ms. So one writer thread runs the agent's disk operations (map
 * partitions into the store, which may spill; reduce outputs written and fsynced; replica
 * chunks written) in the order they were queued, and hands each result back to the loop
 * through an eventfd. One thread, not a pool: a replica's chunks are written in the order they
 * came (its last chunk checks that the file is whole), and the disk is one.
 *
 * The queue is bounded by what feeds it, not by a count: a task queues at most one operation
 * at a time, and a replica chunk holds its connection's credit until it is written, so at most
 * SW_AGENT_REPLICA_CONNS x SW_AGENT_CREDITS chunks wait.
 */
#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "agent_int.h"

static void *writer(void *arg)
{
	struct sw_agent_disk *d = arg;
	pthread_mutex_lock(&d->lock);
	for (;;) {
		while (!d->queued && !d->stop)
			pthread_cond_wait(&d->cond, &d->lock);
		if (d->stop)
			break; /* what is still queued is cancelled by sw_agent_disk_stop */
		struct sw_agent_disk_op *op = d->queued;
		d->queued = op->next;
		if (!d->queued)
			d->queued_tail = &d->queued;
		pthread_mutex_unlock(&d->lock);
		op->rc = op->run(op);
		pthread_mutex_lock(&d->lock);
		op->next = NULL;
		*d->done_tail = op;
		d->done_tail = &op->next;
		uint64_t one = 1;
		if (write(d->watch.fd, &one, sizeof(one)) < 0) {
			/* cannot happen below 2^64 - 1 unread wakeups */
		}
	}
	pthread_mutex_unlock(&d->lock);
	return NULL;
}

/* Hands every finished operation to its done(), in the loop. */
static void finish(struct sw_agent *ag, struct sw_agent_disk_op *op, int rc)
{
	while (op) {
		struct sw_agent_disk_op *next = op->next; /* done() may free op */
		op->done(ag, op, rc ? rc : op->rc);
		op = next;
	}
}

static struct sw_agent_disk_op *take_done(struct sw_agent_disk *d)
{
	pthread_mutex_lock(&d->lock);
	struct sw_agent_disk_op *op = d->done;
	d->done = NULL;
	d->done_tail = &d->done;
	pthread_mutex_unlock(&d->lock);
	return op;
}

static void on_done(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent *ag = container_of(w, struct sw_agent, disk.watch);
	uint64_t n;
	if (read(w->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	finish(ag, take_done(&ag->disk), 0);
}

int sw_agent_disk_start(struct sw_agent *ag)
{
	struct sw_agent_disk *d = &ag->disk;
	d->queued_tail = &d->queued;
	d->done_tail = &d->done;
	d->watch.fn = on_done;
	d->watch.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->watch.fd < 0)
		return -errno;
	int rc = sw_agent_watch_add(ag, &d->watch);
	if (rc)
		return rc;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	rc = -pthread_create(&d->thread, NULL, writer, d);
	if (rc) {
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
		return rc;
	}
	d->running = true;
	return 0;
}

void sw_agent_disk_queue(struct sw_agent *ag, struct sw_agent_disk_op *op)
{
	struct sw_agent_disk *d = &ag->disk;
	op->next = NULL;
	pthread_mutex_lock(&d->lock);
	*d->queued_tail = op;
	d->queued_tail = &op->next;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
}

void sw_agent_disk_stop(struct sw_agent *ag)
{
	struct sw_agent_disk *d = &ag->disk;
	if (d->running) {
		pthread_mutex_lock(&d->lock);
		d->stop = true;
		pthread_cond_signal(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL); /* after the operation it runs, if any */
		d->running = false;
		finish(ag, take_done(d), 0);
		finish(ag, d->queued, -ECANCELED);
		d->queued = NULL;
		pthread_cond_destroy(&d->cond);
		pthread_mutex_destroy(&d->lock);
	}
	sw_agent_watch_close(ag, &d->watch);
}
