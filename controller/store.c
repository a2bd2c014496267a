/* SPDX-License-Identifier: MIT */
/*
 * The controller's state in SQLite (WAL mode, synchronous as state_sync says): every recorded
 * scheduler call (calls), jobs with their specs and shuffle secrets, each task's latest attempt,
 * finished maps' partition checksums, and what each node's agent registered with. A restart replays
 * the calls into a fresh scheduler (the replay checks every assignment against the record) and
 * reloads the rest. One transaction per turn of the event loop; see main.c for why messages wait
 * for it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ctl.h"

enum { ST_CALL, ST_JOB, ST_TASK, ST_PARTS, ST_NODE, ST_N };

static const char *const sql[ST_N] = {
        "INSERT INTO calls(line) VALUES (?)",
        "INSERT OR REPLACE INTO jobs(id, spec, secret, state, error, submitted, finished) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        "INSERT OR REPLACE INTO tasks(job, kind, task, attempt, node, state, failures) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        "INSERT OR REPLACE INTO parts(job, map, parts) VALUES (?, ?, ?)",
        "INSERT OR REPLACE INTO nodes(id, name, state, boot_epoch, shuffle_addr, replica_addr) "
        "VALUES (?, ?, ?, ?, ?, ?)",
};

static const char schema[] =
        "PRAGMA journal_mode=WAL;"
        "CREATE TABLE IF NOT EXISTS calls(seq INTEGER PRIMARY KEY, line TEXT NOT NULL);"
        "CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY, spec TEXT NOT NULL,"
        " secret BLOB NOT NULL, state INTEGER NOT NULL, error TEXT, submitted REAL,"
        " finished REAL);"
        "CREATE TABLE IF NOT EXISTS tasks(job INTEGER, kind INTEGER, task INTEGER,"
        " attempt INTEGER, node INTEGER, state INTEGER, failures INTEGER,"
        " PRIMARY KEY(job, kind, task));"
        "CREATE TABLE IF NOT EXISTS parts(job INTEGER, map INTEGER, parts BLOB,"
        " PRIMARY KEY(job, map));"
        "CREATE TABLE IF NOT EXISTS nodes(id INTEGER PRIMARY KEY, name TEXT, state INTEGER,"
        " boot_epoch INTEGER, shuffle_addr TEXT, replica_addr TEXT);";

static sqlite3_stmt *stmts[ST_N];

int sw_ctl_store_open(struct ctl *c, char *err, size_t errlen)
{
	char *msg = NULL;
	char sync[64];
	snprintf(sync, sizeof(sync), "PRAGMA synchronous=%s;", c->conf.state_sync);
	if (sqlite3_open(c->conf.state_db, &c->db) != SQLITE_OK ||
	    sqlite3_exec(c->db, schema, NULL, NULL, &msg) != SQLITE_OK ||
	    sqlite3_exec(c->db, sync, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "state database %s: %s", c->conf.state_db,
		         msg ? msg : sqlite3_errmsg(c->db));
		sqlite3_free(msg);
		return -EIO;
	}
	for (int i = 0; i < ST_N; i++)
		if (sqlite3_prepare_v2(c->db, sql[i], -1, &stmts[i], NULL) != SQLITE_OK) {
			snprintf(err, errlen, "state database %s: %s", c->conf.state_db,
			         sqlite3_errmsg(c->db));
			return -EIO;
		}
	return sw_ctl_checkpoint_start(c, err, errlen);
}

void sw_ctl_store_close(struct ctl *c)
{
	sw_ctl_checkpoint_stop();
	for (int i = 0; i < ST_N; i++) {
		sqlite3_finalize(stmts[i]);
		stmts[i] = NULL;
	}
	sqlite3_close(c->db);
	c->db = NULL;
}

/* Runs a bound statement; a failure is logged and fails the turn's commit. */
static void step(struct ctl *c, int which)
{
	if (sqlite3_step(stmts[which]) != SQLITE_DONE) {
		sw_ctl_log(c, "state database: %s", sqlite3_errmsg(c->db));
		c->store_failed = true;
	}
	sqlite3_reset(stmts[which]);
}

void sw_ctl_store_begin(struct ctl *c)
{
	sqlite3_exec(c->db, "BEGIN", NULL, NULL, NULL);
}

int sw_ctl_store_commit(struct ctl *c)
{
	bool failed = c->store_failed;
	c->store_failed = false;
	if (sqlite3_get_autocommit(c->db))
		return failed ? -EIO : 0;
	if (failed || sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		sw_ctl_log(c, "state database: %s", sqlite3_errmsg(c->db));
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
		return -EIO;
	}
	return 0;
}

void sw_ctl_store_call(struct ctl *c, const char *line, size_t len)
{
	sqlite3_bind_text(stmts[ST_CALL], 1, line, (int)len, SQLITE_TRANSIENT);
	step(c, ST_CALL);
}

void sw_ctl_store_job(struct ctl *c, const struct ctl_job *j)
{
	char *spec = sw_ctl_job_json(j);
	sqlite3_stmt *s = stmts[ST_JOB];
	if (spec == NULL) {
		c->store_failed = true;
		return;
	}
	sqlite3_bind_int64(s, 1, (sqlite3_int64)j->id);
	sqlite3_bind_text(s, 2, spec, -1, free);
	sqlite3_bind_blob(s, 3, j->secret, sizeof(j->secret), SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 4, j->state);
	sqlite3_bind_text(s, 5, j->error, -1, SQLITE_TRANSIENT);
	sqlite3_bind_double(s, 6, j->submitted);
	sqlite3_bind_double(s, 7, j->finished);
	step(c, ST_JOB);
}

void sw_ctl_store_task(struct ctl *c, const struct ctl_job *j, enum sw_task_kind kind,
                       uint32_t task)
{
	const struct ctl_task *t = &j->tasks[kind][task];
	sqlite3_stmt *s = stmts[ST_TASK];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)j->id);
	sqlite3_bind_int(s, 2, kind);
	sqlite3_bind_int64(s, 3, task);
	sqlite3_bind_int64(s, 4, t->attempt);
	sqlite3_bind_int64(s, 5, t->node);
	sqlite3_bind_int(s, 6, t->state);
	sqlite3_bind_int(s, 7, t->failures);
	step(c, ST_TASK);
}

/* Partitions are stored as the array of struct ctl_part, in this machine's byte order. */
void sw_ctl_store_parts(struct ctl *c, const struct ctl_job *j, uint32_t map)
{
	sqlite3_stmt *s = stmts[ST_PARTS];
	sqlite3_bind_int64(s, 1, (sqlite3_int64)j->id);
	sqlite3_bind_int64(s, 2, map);
	sqlite3_bind_blob(s, 3, &j->parts[(size_t)map * j->n_reduces],
	                  (int)(j->n_reduces * sizeof(struct ctl_part)), SQLITE_STATIC);
	step(c, ST_PARTS);
}

void sw_ctl_store_node(struct ctl *c, uint32_t node)
{
	const struct ctl_node *n = &c->nodes[node];
	sqlite3_stmt *s = stmts[ST_NODE];
	sqlite3_bind_int64(s, 1, node);
	sqlite3_bind_text(s, 2, c->conf.nodes[node].name, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, n->state);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)n->boot_epoch);
	sqlite3_bind_text(s, 5, n->shuffle_addr, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 6, n->replica_addr, -1, SQLITE_STATIC);
	step(c, ST_NODE);
}

/* ---- loading ---- */

struct capture {
	char *line;
};

static void capture(void *arg, const char *line, size_t len)
{
	struct capture *cap = arg;
	cap->line = strndup(line, len);
}

/* Replays the recorded calls; the first must be the create line this config makes. */
static int load_calls(struct ctl *c, const char *want, char *err, size_t errlen)
{
	sqlite3_stmt *q;
	struct stat st;
	bool backfill = c->trace_fd >= 0 && fstat(c->trace_fd, &st) == 0 && st.st_size == 0;
	sw_ctl_sink_fn sink = c->rec.sink;
	int rc = 0;
	if (sqlite3_prepare_v2(c->db, "SELECT seq, line FROM calls ORDER BY seq", -1, &q, NULL) !=
	    SQLITE_OK)
		return -EIO;
	c->rec.sink = NULL;
	while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(q, 1);
		size_t len = (size_t)sqlite3_column_bytes(q, 1);
		char why[384];
		if (c->rec.calls == 0 && strcmp(line, want) != 0) {
			snprintf(err, errlen,
			         "state database %s was made for another cluster or scheduler "
			         "config "
			         "(nodes, racks, slots, policy, users or heartbeat_ms differ): "
			         "start "
			         "with the config it was made with, or with a new state_db",
			         c->conf.state_db);
			rc = -EINVAL;
		} else if ((rc = sw_ctl_rec_replay(&c->rec, line, len, why, sizeof(why))) < 0) {
			snprintf(err, errlen, "state database %s: call %lld: %s", c->conf.state_db,
			         (long long)sqlite3_column_int64(q, 0), why);
		} else if (backfill) {
			struct iovec iov[2] = {{(void *)line, len}, {"\n", 1}};
			if (writev(c->trace_fd, iov, 2) < 0)
				backfill = false;
		}
	}
	sqlite3_finalize(q);
	c->rec.sink = sink;
	return rc;
}

static int load_jobs(struct ctl *c, char *err, size_t errlen)
{
	sqlite3_stmt *q;
	int rc = 0;
	if (sqlite3_prepare_v2(c->db,
	                       "SELECT id, spec, secret, state, error, submitted, finished "
	                       "FROM jobs ORDER BY id",
	                       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	while (rc == 0 && sqlite3_step(q) == SQLITE_ROW) {
		struct ctl_job *j;
		uint64_t id = (uint64_t)sqlite3_column_int64(q, 0);
		if (id != c->n_jobs + 1 || sqlite3_column_bytes(q, 2) != CTL_SECRET_LEN) {
			snprintf(err, errlen,
			         "state database: job %llu is out of sequence or has no "
			         "secret",
			         (unsigned long long)id);
			rc = -EIO;
			break;
		}
		if ((rc = sw_ctl_job_from_json(c->conf.users,
		                               (const char *)sqlite3_column_text(q, 1), &j, err,
		                               errlen)) < 0)
			break;
		j->id = id;
		memcpy(j->secret, sqlite3_column_blob(q, 2), CTL_SECRET_LEN);
		j->state = (enum ctl_job_state)sqlite3_column_int(q, 3);
		snprintf(j->error, sizeof(j->error), "%s",
		         sqlite3_column_text(q, 4) ? (const char *)sqlite3_column_text(q, 4) : "");
		j->submitted = sqlite3_column_double(q, 5);
		j->finished = sqlite3_column_double(q, 6);
		if (c->n_jobs == c->cap_jobs) {
			size_t cap = c->cap_jobs ? 2 * c->cap_jobs : 64;
			struct ctl_job **t = realloc(c->jobs, cap * sizeof(*t));
			if (t == NULL) {
				sw_ctl_job_free(j);
				rc = -ENOMEM;
				break;
			}
			c->jobs = t;
			c->cap_jobs = cap;
		}
		c->jobs[c->n_jobs++] = j;
	}
	sqlite3_finalize(q);
	return rc;
}

static int load_tasks(struct ctl *c)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(c->db,
	                       "SELECT job, kind, task, attempt, node, state, failures FROM tasks",
	                       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct ctl_job *j = sw_ctl_job(c, (uint64_t)sqlite3_column_int64(q, 0));
		int kind = sqlite3_column_int(q, 1);
		uint32_t task = (uint32_t)sqlite3_column_int64(q, 2);
		if (j == NULL || kind < 0 || kind >= SW_KINDS ||
		    task >= (kind == SW_MAP ? j->n_maps : j->n_reduces))
			continue;
		struct ctl_task *t = &j->tasks[kind][task];
		t->attempt = (uint32_t)sqlite3_column_int64(q, 3);
		t->node = (uint32_t)sqlite3_column_int64(q, 4);
		t->failures = (uint8_t)sqlite3_column_int(q, 6);
		if (t->node >= c->conf.n_nodes)
			t->node = 0;
		sw_ctl_task_state(c, t, (enum ctl_task_state)sqlite3_column_int(q, 5));
		if (t->state == TASK_DONE)
			j->done[kind]++;
	}
	sqlite3_finalize(q);
	if (sqlite3_prepare_v2(c->db, "SELECT job, map, parts FROM parts", -1, &q, NULL) !=
	    SQLITE_OK)
		return -EIO;
	while (sqlite3_step(q) == SQLITE_ROW) {
		struct ctl_job *j = sw_ctl_job(c, (uint64_t)sqlite3_column_int64(q, 0));
		uint32_t map = (uint32_t)sqlite3_column_int64(q, 1);
		size_t len = (size_t)sqlite3_column_bytes(q, 2);
		if (j != NULL && map < j->n_maps && len == j->n_reduces * sizeof(struct ctl_part) &&
		    len > 0)
			memcpy(&j->parts[(size_t)map * j->n_reduces], sqlite3_column_blob(q, 2),
			       len);
	}
	sqlite3_finalize(q);
	return 0;
}

/* Nodes come back as they were registered (main.c gives up ones a full lost_after_ms to
 * reconnect). */
static int load_nodes(struct ctl *c)
{
	sqlite3_stmt *q;
	if (sqlite3_prepare_v2(c->db,
	                       "SELECT id, name, state, boot_epoch, shuffle_addr, replica_addr "
	                       "FROM nodes",
	                       -1, &q, NULL) != SQLITE_OK)
		return -EIO;
	while (sqlite3_step(q) == SQLITE_ROW) {
		uint32_t id = (uint32_t)sqlite3_column_int64(q, 0);
		const char *name = (const char *)sqlite3_column_text(q, 1);
		if (id >= c->conf.n_nodes || name == NULL || strcmp(name, c->conf.nodes[id].name))
			continue;
		struct ctl_node *n = &c->nodes[id];
		n->state = (enum ctl_node_state)sqlite3_column_int(q, 2);
		n->boot_epoch = (uint64_t)sqlite3_column_int64(q, 3);
		snprintf(n->shuffle_addr, sizeof(n->shuffle_addr), "%s",
		         (const char *)sqlite3_column_text(q, 4));
		snprintf(n->replica_addr, sizeof(n->replica_addr), "%s",
		         (const char *)sqlite3_column_text(q, 5));
	}
	sqlite3_finalize(q);
	return 0;
}

int sw_ctl_store_load(struct ctl *c, const struct sw_cluster_spec *cl,
                      const struct sw_sched_config *cfg, char *err, size_t errlen)
{
	struct capture cap = {NULL};
	struct sw_ctl_rec tmp = {.sink = capture, .sink_arg = &cap};
	sqlite3_stmt *q;
	bool fresh = true;
	if (sqlite3_prepare_v2(c->db, "SELECT 1 FROM calls LIMIT 1", -1, &q, NULL) == SQLITE_OK) {
		fresh = sqlite3_step(q) != SQLITE_ROW;
		sqlite3_finalize(q);
	}
	if (fresh) {
		int rc = sw_ctl_rec_create(&c->rec, cl, cfg);
		if (rc < 0)
			snprintf(err, errlen,
			         "the scheduler refused the cluster of the config (%s)",
			         strerror(-rc));
		return rc;
	}
	int rc = sw_ctl_rec_create(&tmp, cl, cfg);
	sw_ctl_rec_fini(&tmp);
	if (rc < 0 || cap.line == NULL) {
		free(cap.line);
		snprintf(err, errlen, "the scheduler refused the cluster of the config");
		return rc < 0 ? rc : -ENOMEM;
	}
	rc = load_calls(c, cap.line, err, errlen);
	free(cap.line);
	if (rc == 0)
		rc = load_jobs(c, err, errlen);
	if (rc == 0 && (load_tasks(c) < 0 || load_nodes(c) < 0)) {
		snprintf(err, errlen, "state database %s: %s", c->conf.state_db,
		         sqlite3_errmsg(c->db));
		rc = -EIO;
	}
	if (rc == 0)
		sw_ctl_log(c, "state restored from %s: %llu scheduler calls replayed, %zu jobs",
		           c->conf.state_db, (unsigned long long)c->rec.calls, c->n_jobs);
	return rc;
}
