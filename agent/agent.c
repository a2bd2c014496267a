/* SPDX-License-Identifier: MIT */
/* The agent's core: store, shuffle server, dp context, and the table of running tasks. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <isa-l/crc.h>

#include "agent_int.h"

void sw_agent_log(struct sw_agent *ag, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "swagent %s: %s\n", ag->conf.node_id, line);
}

static void shuffle_log(void *arg, const char *line)
{
	sw_agent_log(arg, "shuffle: %s", line);
}

uint32_t sw_agent_crc32c(const void *buf, size_t len)
{
	uint32_t crc = 0;
	const uint8_t *p = buf;
	while (len) { /* crc32_iscsi takes an int length */
		size_t n = len > (1u << 30) ? (1u << 30) : len;
		crc = crc32_iscsi((unsigned char *)p, (int)n, crc);
		p += n;
		len -= n;
	}
	return crc;
}

static uint64_t splitmix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

void sw_agent_synth_fill_at(uint8_t *buf, uint64_t off, size_t len, uint64_t job, uint32_t map,
                            uint32_t part)
{
	uint64_t seed = splitmix64(job ^ splitmix64(((uint64_t)map << 32) | part));
	for (size_t i = 0; i < len; i += 8) {
		uint64_t w = splitmix64(seed + (off + i) / 8);
		memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
	}
}

void sw_agent_synth_fill(uint8_t *buf, size_t len, uint64_t job, uint32_t map, uint32_t part)
{
	sw_agent_synth_fill_at(buf, 0, len, job, map, part);
}

void sw_agent_rx_add(struct sw_agent *ag, uint32_t rack, uint64_t bytes)
{
	if (rack >= ag->n_racks) {
		uint64_t *p = realloc(ag->rx_by_rack, ((size_t)rack + 1) * sizeof(*p));
		if (!p) {
			sw_agent_log(ag, "out of memory for rack %u's counter", rack);
			return;
		}
		memset(p + ag->n_racks, 0, ((size_t)rack + 1 - ag->n_racks) * sizeof(*p));
		ag->rx_by_rack = p;
		ag->n_racks = rack + 1;
	}
	ag->rx_by_rack[rack] += bytes;
}

int sw_agent_server_rack(struct sw_agent *ag, const char *addr, uint32_t rack)
{
	uint32_t i = 0;
	while (i < ag->n_server_racks && strcmp(ag->server_racks[i].addr, addr))
		i++;
	if (i == ag->cap_server_racks) {
		uint32_t cap = ag->cap_server_racks ? 2 * ag->cap_server_racks : 16;
		void *p = realloc(ag->server_racks, cap * sizeof(*ag->server_racks));
		if (!p)
			return -ENOMEM;
		ag->server_racks = p;
		ag->cap_server_racks = cap;
	}
	if (i == ag->n_server_racks)
		ag->n_server_racks++;
	snprintf(ag->server_racks[i].addr, sizeof(ag->server_racks[i].addr), "%s", addr);
	ag->server_racks[i].rack = rack;
	sw_agent_rx_add(ag, rack, 0); /* the rack gets its counter */
	return 0;
}

/* The rack of the shuffle server at addr: 0, or -ENOENT when no location named it. */
static int server_rack(const struct sw_agent *ag, const char *addr, uint32_t *rack)
{
	for (uint32_t i = 0; i < ag->n_server_racks; i++)
		if (!strcmp(ag->server_racks[i].addr, addr)) {
			*rack = ag->server_racks[i].rack;
			return 0;
		}
	return -ENOENT;
}

/* A fetch connection closed: what it carried moves into rx_by_rack. */
static void fetch_conn_closed(void *arg, const char *server, const struct sw_dp_counters *c)
{
	struct sw_agent *ag = arg;
	uint32_t rack;
	if (!server_rack(ag, server, &rack))
		sw_agent_rx_add(ag, rack, c->rx_bytes);
}

struct rack_sum {
	struct sw_agent *ag;
	uint32_t rack;
	uint64_t bytes;
};

static int add_open_conn(struct sw_dp_ep *ep, const char *peer, const struct sw_dp_counters *c,
                         void *arg)
{
	(void)ep;
	struct rack_sum *s = arg;
	uint32_t rack;
	if (!server_rack(s->ag, peer, &rack) && rack == s->rack)
		s->bytes += c->rx_bytes;
	return 0;
}

uint64_t sw_agent_rx_bytes(struct sw_agent *ag, uint32_t rack)
{
	struct rack_sum s = {ag, rack, rack < ag->n_racks ? ag->rx_by_rack[rack] : 0};
	sw_dp_foreach_peer(ag->fetch_dp, add_open_conn, &s);
	return s.bytes;
}

int sw_agent_file_open(struct sw_agent *ag, const char *sub, const char *name,
                       struct sw_agent_file *f)
{
	snprintf(f->path, sizeof(f->path), "%s/%s/%s", ag->conf.data_dir, sub, name);
	snprintf(f->tmp, sizeof(f->tmp), "%s.tmp", f->path);
	f->off = 0;
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	return f->fd < 0 ? -errno : 0;
}

int sw_agent_file_append(struct sw_agent_file *f, const void *data, size_t len)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = write(f->fd, (const char *)data + done, len - done);
		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			done += (size_t)n;
	}
	/* start the writeback now, without waiting for it: the final fsync then finds the
	 * data on its way and the loop does not wait for all of it at once */
	sync_file_range(f->fd, (off_t)f->off, (off_t)len, SYNC_FILE_RANGE_WRITE);
	f->off += len;
	return 0;
}

int sw_agent_file_commit(struct sw_agent_file *f)
{
	int rc = fsync(f->fd) ? -errno : 0;
	if (close(f->fd) && !rc)
		rc = -errno;
	f->fd = -1;
	if (!rc && rename(f->tmp, f->path))
		rc = -errno;
	if (rc)
		unlink(f->tmp);
	return rc;
}

void sw_agent_file_abort(struct sw_agent_file *f)
{
	if (f->fd < 0)
		return;
	close(f->fd);
	f->fd = -1;
	unlink(f->tmp);
}

/* ---------------------------------------------------------------------------------------- */
/* The dp context: its fd in the loop, its events to the peers that own the endpoints. */

/* Polls the replica context, handing each event to the peer owning its endpoint: at most a
 * batch per turn of the loop, as the shuffle contexts. */
static void on_dp_fd(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent *ag = container_of(w, struct sw_agent, dp_watch);
	/* One event at a time: handling one may close endpoints that later ones would name. */
	struct sw_dp_event ev;
	int n = 0;
	for (int k = 0; k < SW_AGENT_DP_BATCH; k++) {
		sw_agent_puts_pump(ag);
		n = sw_dp_poll(ag->dp, &ev, 1);
		if (n <= 0)
			break;
		if (ev.type == SW_DP_EV_ACCEPT)
			sw_dp_ep_set_user(ev.ep, &sw_agent_replica_server);
		/* a send's owner is its user pointer (the endpoint may be gone by then) */
		struct sw_agent_peer *p = ev.type == SW_DP_EV_SEND ? ev.user
		                          : ev.ep                  ? sw_dp_ep_user(ev.ep)
		                                                   : NULL;
		if (p)
			p->on_event(ag, p, &ev);
		else if (ev.type == SW_DP_EV_RECV)
			sw_dp_release(ag->dp, &ev);
	}
	if (n < 0)
		sw_agent_log(ag, "dataplane: %s", sw_dp_strerror(n));
}

/* The shuffle server's context: every event is the server's. One batch per turn of the loop
 * (which comes back at once while the context has more), so that a busy stream cannot keep
 * the loop from its timers. */
static void on_srv_fd(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent *ag = container_of(w, struct sw_agent, srv_watch);
	struct sw_dp_event ev[SW_AGENT_DP_BATCH];
	int n = sw_dp_poll(ag->srv_dp, ev, SW_AGENT_DP_BATCH);
	bool conns = false; /* came or went: cross-rack ones are marked paced and counted again */
	for (int i = 0; i < n; i++) {
		conns |= ev[i].type == SW_DP_EV_ACCEPT || ev[i].type == SW_DP_EV_CLOSED;
		sw_shuffle_server_event(ag->srv, &ev[i]);
	}
	if (n < 0)
		sw_agent_log(ag, "shuffle transport: %s", sw_dp_strerror(n));
	if (conns)
		sw_agent_pace_mark(ag);
	sw_shuffle_server_progress(ag->srv);
}

/* ---------------------------------------------------------------------------------------- */

/* The fetcher's context: every event is the fetcher's; its deadlines come back by a timer. */
static void on_fetch_fd(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct sw_agent *ag = container_of(w, struct sw_agent, fetch_watch);
	struct sw_dp_event ev[SW_AGENT_DP_BATCH];
	int n = sw_dp_poll(ag->fetch_dp, ev, SW_AGENT_DP_BATCH);
	for (int i = 0; i < n; i++)
		sw_shuffle_fetcher_event(ag->fetcher, &ev[i]);
	if (n < 0)
		sw_agent_log(ag, "fetch transport: %s", sw_dp_strerror(n));
	int ms = sw_shuffle_fetcher_progress(ag->fetcher);
	if (ms >= 0)
		sw_agent_timer_start(ag, &ag->fetch_timer, (uint64_t)ms);
}

static void on_fetch_timer(struct sw_agent_watch *w, uint32_t events)
{
	struct sw_agent *ag = container_of(w, struct sw_agent, fetch_timer);
	sw_agent_timer_ack(w);
	on_fetch_fd(&ag->fetch_watch, events);
}

static void fetch_log(void *arg, const char *line)
{
	sw_agent_log(arg, "shuffle fetch: %s", line);
}

static int mkdirs(struct sw_agent *ag, const char *base)
{
	const char *subs[] = {"", "/logs", "/output", "/replicas"};
	char path[PATH_MAX + 16];
	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", base, subs[i]);
		if (mkdir(path, 0700) && errno != EEXIST) {
			int e = errno;
			sw_agent_log(ag, "data_dir: cannot create %s: %s", path, strerror(e));
			return -e;
		}
	}
	return 0;
}

int sw_agent_create(const struct sw_agent_conf *conf, const uint8_t *key, size_t key_len,
                    const struct sw_agent_hooks *hooks, struct sw_agent **out)
{
	if (!conf || !key || !key_len || key_len > SW_AGENT_KEY_MAX || !out)
		return -EINVAL;
	struct sw_agent *ag = calloc(1, sizeof(*ag));
	if (!ag)
		return -ENOMEM;
	ag->conf = *conf;
	memcpy(ag->key, key, key_len);
	ag->key_len = key_len;
	if (hooks)
		ag->hooks = *hooks;
	ag->dp_watch.fd = -1;
	ag->srv_watch.fd = -1;
	ag->fetch_watch.fd = -1;
	ag->fetch_timer.fd = -1;
	ag->sig_watch.fd = -1;
	ag->disk.watch.fd = -1;
	ag->put_idle_ms = SW_AGENT_PUT_IDLE_MS;
	ag->epfd = epoll_create1(EPOLL_CLOEXEC);
	int rc = ag->epfd < 0 ? -errno : mkdirs(ag, conf->data_dir);
	if (!rc && (rc = sw_agent_disk_start(ag)))
		sw_agent_log(ag, "writer thread: %s", strerror(-rc));
	if (rc)
		goto fail;

	/* Durable: map output outlives the process (held.c tells the controller what survived). */
	struct sw_shuffle_store_conf sc = {.mem_budget = conf->store_mem,
	                                   .spill_dir = conf->store_dir,
	                                   .durable = true,
	                                   .log = {shuffle_log, ag}};
	rc = sw_shuffle_store_create(&sc, &ag->store);
	if (rc) {
		sw_agent_log(ag, "store in %s: %s", conf->store_dir, sw_shuffle_strerror(rc));
		goto fail;
	}
	struct sw_shuffle_server_conf vc = {.backend = conf->transport,
	                                    .listen_addr = conf->shuffle_listen,
	                                    .log = {shuffle_log, ag}};
	struct sw_dp_config sdc;
	sw_shuffle_server_dp_config(&vc, &sdc);
	rc = sw_dp_open(&sdc, &ag->srv_dp);
	if (!rc)
		rc = sw_shuffle_server_attach(ag->store, ag->srv_dp, &vc, &ag->srv);
	if (rc) {
		sw_agent_log(ag, "shuffle server on %s: %s", conf->shuffle_listen,
		             sw_shuffle_strerror(rc));
		goto fail;
	}
	sw_shuffle_server_addr(ag->srv, ag->shuffle_addr, sizeof(ag->shuffle_addr));
	ag->srv_watch.fn = on_srv_fd;
	rc = sw_agent_dp_watch(ag, &ag->srv_watch, ag->srv_dp);
	if (rc)
		goto fail;

	struct sw_shuffle_fetcher_conf fc = {.timeout_ms = SW_AGENT_FETCH_TIMEOUT_MS,
	                                     .log = {fetch_log, ag},
	                                     .conn_closed = fetch_conn_closed,
	                                     .arg = ag};
	struct sw_dp_config fdc;
	sw_dp_config_init(&fdc);
	fdc.backend = conf->transport;
	sw_shuffle_fetcher_dp_config(&fdc);
	rc = sw_dp_open(&fdc, &ag->fetch_dp);
	if (!rc)
		rc = sw_shuffle_fetcher_attach(ag->fetch_dp, &fc, &ag->fetcher);
	if (!rc) {
		ag->fetch_watch.fn = on_fetch_fd;
		ag->fetch_timer.fn = on_fetch_timer;
		rc = sw_agent_dp_watch(ag, &ag->fetch_watch, ag->fetch_dp);
	}
	if (rc) {
		sw_agent_log(ag, "shuffle fetcher (%s): %s", conf->transport, sw_dp_strerror(rc));
		goto fail;
	}

	struct sw_dp_config dc;
	sw_dp_config_init(&dc);
	dc.backend = "tcp";
	dc.max_msg = SW_AGENT_MAX_MSG;
	dc.credits = SW_AGENT_CREDITS;
	rc = sw_dp_open(&dc, &ag->dp);
	if (!rc)
		rc = sw_dp_listen(ag->dp, conf->replica_listen);
	if (rc) {
		sw_agent_log(ag, "replica listener on %s: %s", conf->replica_listen,
		             sw_dp_strerror(rc));
		goto fail;
	}
	sw_dp_listen_addr(ag->dp, ag->replica_addr, sizeof(ag->replica_addr));
	ag->dp_watch.fn = on_dp_fd;
	rc = sw_agent_dp_watch(ag, &ag->dp_watch, ag->dp);
	if (rc)
		goto fail;
	*out = ag;
	return 0;
fail:
	sw_agent_destroy(ag);
	return rc;
}

void sw_agent_destroy(struct sw_agent *ag)
{
	if (!ag)
		return;
	while (ag->tasks) {
		struct sw_agent_task *t = ag->tasks;
		t->runner->kill(t);
		sw_agent_task_end(t, SW_AGENT_KILLED, NULL, "agent stopping");
	}
	while (ag->puts)
		sw_agent_put_cancel(ag->puts);
	sw_agent_disk_stop(ag); /* releases the replica chunks it held before their context goes */
	sw_agent_replica_conns_close(ag);
	sw_agent_dp_unwatch(ag, &ag->dp_watch);
	sw_dp_close(ag->dp);
	sw_agent_dp_unwatch(ag, &ag->srv_watch);
	sw_shuffle_server_destroy(ag->srv);
	sw_dp_close(ag->srv_dp);
	sw_agent_dp_unwatch(ag, &ag->fetch_watch);
	sw_agent_watch_close(ag, &ag->fetch_timer);
	sw_shuffle_fetcher_destroy(ag->fetcher);
	sw_dp_close(ag->fetch_dp);
	sw_shuffle_store_destroy(ag->store);
	if (ag->epfd >= 0)
		close(ag->epfd);
	free(ag->rx_by_rack);
	free(ag->server_racks);
	free(ag->pace_hosts);
	free(ag);
}

/* ---------------------------------------------------------------------------------------- */
/* Tasks */

static struct sw_agent_task *task_find(struct sw_agent *ag, uint64_t job, uint32_t task,
                                       enum sw_agent_kind kind, uint32_t attempt)
{
	for (struct sw_agent_task *t = ag->tasks; t; t = t->next)
		if (t->spec.job == job && t->spec.task == task && t->spec.kind == kind &&
		    t->spec.attempt == attempt)
			return t;
	return NULL;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* A NULL-terminated copy of v[0..n). */
static char **strv_dup(const char *const *v, uint32_t n)
{
	char **c = calloc((size_t)n + 1, sizeof(char *));
	for (uint32_t i = 0; c && i < n; i++)
		if (!(c[i] = strdup(v[i]))) {
			strv_free(c);
			return NULL;
		}
	return c;
}

static void task_free(struct sw_agent_task *t)
{
	if (t->runner && t->runner->release)
		t->runner->release(t);
	strv_free(t->replicas);
	strv_free(t->argv);
	free(t->sources);
	free(t);
}

/* Appends n sources, a later one for the same map replacing an earlier one. */
static int task_add_sources(struct sw_agent_task *t, const struct sw_agent_source *src, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		if (src[i].map >= t->spec.maps)
			return -EINVAL;
		uint32_t j = 0;
		while (j < t->n_sources && t->sources[j].map != src[i].map)
			j++;
		if (j == t->cap_sources) {
			uint32_t cap = t->cap_sources ? 2 * t->cap_sources : 8;
			void *p = realloc(t->sources, cap * sizeof(*t->sources));
			if (!p)
				return -ENOMEM;
			t->sources = p;
			t->cap_sources = cap;
		}
		t->sources[j] = src[i];
		if (j == t->n_sources)
			t->n_sources++;
	}
	t->spec.sources = t->sources;
	t->spec.n_sources = t->n_sources;
	return 0;
}

static int task_copy_spec(struct sw_agent_task *t, const struct sw_agent_task_spec *s)
{
	t->spec = *s;
	if (s->secret_len)
		memcpy(t->secret, s->secret, s->secret_len);
	t->spec.secret = t->secret;
	t->spec.runner = t->runner->name;
	t->spec.sources = NULL;
	t->spec.n_sources = 0;
	t->replicas = strv_dup(s->replicas, s->n_replicas);
	t->argv = strv_dup(s->argv, s->argc);
	if (!t->replicas || !t->argv)
		return -ENOMEM;
	t->spec.replicas = (const char *const *)t->replicas;
	t->spec.argv = (const char *const *)t->argv;
	return task_add_sources(t, s->sources, s->n_sources);
}

int sw_agent_task_start(struct sw_agent *ag, const struct sw_agent_task_spec *s)
{
	if (!s || !s->runner || s->secret_len > SW_SHUFFLE_SECRET_MAX ||
	    (s->kind != SW_AGENT_MAP && s->kind != SW_AGENT_REDUCE) ||
	    (s->n_sources && !s->sources) || (s->n_replicas && !s->replicas) ||
	    (s->argc && !s->argv))
		return -EINVAL;
	const struct sw_agent_runner *r = sw_agent_runner_find(s->runner);
	if (!r)
		return -ENOENT;
	if (task_find(ag, s->job, s->task, s->kind, s->attempt))
		return -EEXIST;
	struct sw_agent_task *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ag = ag;
	t->runner = r;
	int rc = task_copy_spec(t, s);
	if (rc) {
		t->runner = NULL; /* nothing of the runner's to release */
		task_free(t);
		return rc;
	}
	t->next = ag->tasks;
	ag->tasks = t;
	rc = r->start(t);
	if (rc) {
		ag->tasks = t->next;
		t->runner = NULL; /* a failed start leaves nothing to release */
		task_free(t);
		return rc;
	}
	ag->cnt.tasks_started++;
	return 0;
}

int sw_agent_task_kill(struct sw_agent *ag, uint64_t job, uint32_t task, enum sw_agent_kind kind,
                       uint32_t attempt)
{
	struct sw_agent_task *t = task_find(ag, job, task, kind, attempt);
	if (!t)
		return -ESRCH;
	t->runner->kill(t);
	sw_agent_task_end(t, SW_AGENT_KILLED, NULL, "killed on request");
	return 0;
}

int sw_agent_task_sources(struct sw_agent *ag, uint64_t job, uint32_t task, uint32_t attempt,
                          const struct sw_agent_source *src, uint32_t n)
{
	struct sw_agent_task *t = task_find(ag, job, task, SW_AGENT_REDUCE, attempt);
	if (!t)
		return -ESRCH;
	int rc = task_add_sources(t, src, n);
	if (!rc && t->runner->sources)
		t->runner->sources(t);
	return rc;
}

void sw_agent_task_end(struct sw_agent_task *t, enum sw_agent_task_state state,
                       const struct sw_agent_task_result *res, const char *fmt, ...)
{
	struct sw_agent *ag = t->ag;
	struct sw_agent_task_result r = {0};
	if (res)
		r = *res;
	r.job = t->spec.job;
	r.task = t->spec.task;
	r.attempt = t->spec.attempt;
	r.kind = t->spec.kind;
	r.state = state;
	char reason[512] = "";
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(reason, sizeof(reason), fmt, ap);
		va_end(ap);
	}
	r.reason = reason;
	static const char *const names[] = {"running", "succeeded", "failed", "killed"};
	sw_agent_log(ag, "job %llu %s %u attempt %u %s%s%s", (unsigned long long)r.job,
	             r.kind == SW_AGENT_MAP ? "map" : "reduce", r.task, r.attempt, names[state],
	             *reason ? ": " : "", reason);
	ag->cnt.tasks_succeeded += state == SW_AGENT_SUCCEEDED;
	ag->cnt.tasks_failed += state == SW_AGENT_FAILED;
	ag->cnt.tasks_killed += state == SW_AGENT_KILLED;

	struct sw_agent_task **pp = &ag->tasks;
	while (*pp && *pp != t)
		pp = &(*pp)->next;
	if (*pp)
		*pp = t->next;
	if (ag->hooks.on_task_end)
		ag->hooks.on_task_end(ag, &r, ag->hooks.arg);
	task_free(t);
}

int sw_agent_job_done(struct sw_agent *ag, uint64_t job)
{
	return sw_shuffle_job_remove(ag->store, job);
}

uint32_t sw_agent_running(const struct sw_agent *ag, enum sw_agent_kind kind)
{
	uint32_t n = 0;
	for (const struct sw_agent_task *t = ag->tasks; t; t = t->next)
		n += t->spec.kind == kind;
	return n;
}

const struct sw_agent_conf *sw_agent_conf(const struct sw_agent *ag)
{
	return &ag->conf;
}

const struct sw_agent_counters *sw_agent_counters(const struct sw_agent *ag)
{
	return &ag->cnt;
}

const char *sw_agent_shuffle_addr(const struct sw_agent *ag)
{
	return ag->shuffle_addr;
}

const char *sw_agent_replica_addr(const struct sw_agent *ag)
{
	return ag->replica_addr;
}
