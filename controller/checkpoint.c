/* SPDX-License-Identifier: MIT */
/*
 * WAL checkpoints off the event loop. With SQLite's automatic checkpoints, every thousandth page
 * committed made one turn of the loop copy the WAL into the database and fsync it: with 10,000
 * agents heartbeating that put the heartbeat-to-assignment p99 at 18.8 ms against 1.9 ms without
 * those fsyncs (perf/bench-controller.sh, controller/README.md). So the loop's connection never
 * checkpoints, and this thread, on a connection of its own, runs a passive checkpoint once a
 * second: a passive checkpoint never takes the write lock, so the loop's commits go on meanwhile.
 * The only state the thread shares with the loop is the database file, which SQLite locks.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "ctl.h"

static struct {
	sqlite3 *db;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stop;
} ckpt = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static void *checkpoint_loop(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&ckpt.lock);
	while (!ckpt.stop) {
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		pthread_cond_timedwait(&ckpt.wake, &ckpt.lock, &until);
		pthread_mutex_unlock(&ckpt.lock);
		/* SQLITE_BUSY (another checkpoint) is harmless: the next second retries. */
		sqlite3_wal_checkpoint_v2(ckpt.db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		pthread_mutex_lock(&ckpt.lock);
	}
	pthread_mutex_unlock(&ckpt.lock);
	return NULL;
}

int sw_ctl_checkpoint_start(struct ctl *c, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(c->db, "PRAGMA wal_autocheckpoint=0;", NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_open(c->conf.state_db, &ckpt.db) != SQLITE_OK) {
		snprintf(err, errlen, "state database %s: checkpoints: %s", c->conf.state_db,
		         msg ? msg : sqlite3_errmsg(ckpt.db ? ckpt.db : c->db));
		sqlite3_free(msg);
		sqlite3_close(ckpt.db);
		ckpt.db = NULL;
		return -EIO;
	}
	ckpt.stop = false;
	/* The loop takes signals through a signalfd: the thread must never be the one they hit. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int rc = pthread_create(&ckpt.thread, NULL, checkpoint_loop, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		snprintf(err, errlen, "state database %s: checkpoint thread: %s", c->conf.state_db,
		         strerror(rc));
		sqlite3_close(ckpt.db);
		ckpt.db = NULL;
		return -rc;
	}
	return 0;
}

void sw_ctl_checkpoint_stop(void)
{
	if (ckpt.db == NULL) /* never started, or failed to */
		return;
	pthread_mutex_lock(&ckpt.lock);
	ckpt.stop = true;
	pthread_cond_signal(&ckpt.wake);
	pthread_mutex_unlock(&ckpt.lock);
	pthread_join(ckpt.thread, NULL);
	/* A clean stop leaves the WAL empty, so the next start has nothing to replay into the file.
	 */
	sqlite3_wal_checkpoint_v2(ckpt.db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_close(ckpt.db);
	ckpt.db = NULL;
}
