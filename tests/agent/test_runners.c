/* SPDX-License-Identifier: MIT */
/*
 * swagent's task runners on real agents (store, shuffle server, replica listener on loopback)
 * without the controller: tasks are started through the agent's core and their ends collected
 * from its hook. Reduces fetch from other agents' shuffle servers and put their output on
 * other agents, over real sockets.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_int.h"

#define JOB    7
#define SECRET "secret-of-job-7-of-16+" /* at least SW_SHUFFLE_SECRET_MIN bytes */

static const uint8_t key[32] = "cluster-key-of-the-test-cluster";
static const uint8_t other_key[32] = "not-the-cluster-key-of-the-test";

struct ended {
	int n;
	struct sw_agent_task_result r;
	char reason[512];
	uint64_t part_bytes[8];
	uint32_t part_crc[8];
};

struct node {
	struct sw_agent *ag;
	char dir[64];
	struct ended end;
	int fetch_failed; /* reports through on_fetch_failed, the last one below */
	struct sw_agent_fetch_failure ff;
	char ff_server[SW_DP_ADDRSTRLEN];
};

static void on_fetch_failed(struct sw_agent *ag, const struct sw_agent_fetch_failure *f, void *arg)
{
	(void)ag;
	struct node *n = arg;
	n->fetch_failed++;
	n->ff = *f;
	snprintf(n->ff_server, sizeof(n->ff_server), "%s", f->server);
}

static void on_end(struct sw_agent *ag, const struct sw_agent_task_result *r, void *arg)
{
	(void)ag;
	struct ended *e = &((struct node *)arg)->end;
	e->n++;
	e->r = *r;
	snprintf(e->reason, sizeof(e->reason), "%s", r->reason);
	for (uint32_t i = 0; i < r->partitions && i < 8; i++) {
		e->part_bytes[i] = r->part_bytes[i];
		e->part_crc[i] = r->part_crc[i];
	}
}

static void node_create(struct node *n, const struct sw_agent_conf *c, const uint8_t *k)
{
	struct sw_agent_hooks h = {
	        .on_task_end = on_end, .arg = n, .on_fetch_failed = on_fetch_failed};
	assert_int_equal(sw_agent_create(c, k, 32, &h, &n->ag), 0);
}

static void node_start_on(struct node *n, const char *name, uint32_t rack, const uint8_t *k,
                          const char *transport)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->dir, sizeof(n->dir), "/tmp/sw-agent-test-XXXXXX");
	assert_non_null(mkdtemp(n->dir));
	struct sw_agent_conf c = {.rack = rack, .store_mem = 4u << 20, .heartbeat_ms = 3000};
	snprintf(c.node_id, sizeof(c.node_id), "%s", name);
	strcpy(c.shuffle_listen, "127.0.0.1:0");
	strcpy(c.replica_listen, "127.0.0.1:0");
	snprintf(c.transport, sizeof(c.transport), "%s", transport);
	snprintf(c.store_dir, sizeof(c.store_dir), "%s", n->dir);
	snprintf(c.data_dir, sizeof(c.data_dir), "%s/data", n->dir);
	node_create(n, &c, k);
}

/* The agent restarts on the same directories, as its process would after a crash. */
static void node_restart(struct node *n, const uint8_t *k)
{
	struct sw_agent_conf c = *sw_agent_conf(n->ag);
	sw_agent_destroy(n->ag);
	node_create(n, &c, k);
}

static void node_start(struct node *n, const char *name, uint32_t rack, const uint8_t *k)
{
	node_start_on(n, name, rack, k, "tcp");
}

static void node_stop(struct node *n)
{
	sw_agent_destroy(n->ag);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", n->dir);
	assert_int_equal(system(cmd), 0);
}

/* Runs the loops of nodes[0..cnt) until node `who` has seen `want` task ends. Each loop
 * waits at most 20 ms per turn, so one agent never starves the others; the test has no
 * deadline of its own (meson's timeout catches a hang). */
static void run_until(struct node **nodes, int cnt, struct node *who, int want)
{
	while (who->end.n < want)
		for (int i = 0; i < cnt; i++)
			assert_int_equal(sw_agent_run_once(nodes[i]->ag, 20), 0);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return NULL;
	char *buf = malloc(1 << 22);
	*len = fread(buf, 1, 1 << 22, fp);
	fclose(fp);
	buf[*len] = 0;
	return buf;
}

static struct sw_agent_task_spec exec_spec(const char *const *argv, uint32_t argc)
{
	return (struct sw_agent_task_spec){.job = JOB,
	                                   .task = 1,
	                                   .kind = SW_AGENT_MAP,
	                                   .attempt = 2,
	                                   .runner = "exec",
	                                   .argv = argv,
	                                   .argc = argc};
}

/* ---------------------------------------------------------------------------------------- */
/* exec */

static void test_exec_writes_stdout_and_stderr_to_the_attempts_log_files(void **state)
{
	(void)state;
	struct node a, *all[] = {&a};
	node_start(&a, "r0n0", 0, key);
	const char *argv[] = {"sh", "-c",
	                      "echo $SW_JOB $SW_TASK $SW_KIND $SW_ATTEMPT $SW_NODE; echo oops >&2"};
	struct sw_agent_task_spec s = exec_spec(argv, 3);
	assert_int_equal(sw_agent_task_start(a.ag, &s), 0);
	assert_int_equal(sw_agent_running(a.ag, SW_AGENT_MAP), 1);
	run_until(all, 1, &a, 1);
	assert_int_equal(a.end.r.state, SW_AGENT_SUCCEEDED);
	assert_int_equal(sw_agent_running(a.ag, SW_AGENT_MAP), 0);

	char path[256];
	size_t len;
	snprintf(path, sizeof(path), "%s/data/logs/job-7.map-1.attempt-2.out", a.dir);
	char *out = slurp(path, &len);
	assert_non_null(out);
	assert_string_equal(out, "7 1 map 2 r0n0\n");
	free(out);
	snprintf(path, sizeof(path), "%s/data/logs/job-7.map-1.attempt-2.err", a.dir);
	out = slurp(path, &len);
	assert_non_null(out);
	assert_string_equal(out, "oops\n");
	free(out);
	node_stop(&a);
}

static void test_exec_reports_a_non_zero_exit_as_failure_naming_the_status(void **state)
{
	(void)state;
	struct node a, *all[] = {&a};
	node_start(&a, "r0n0", 0, key);
	const char *argv[] = {"sh", "-c", "exit 3"};
	struct sw_agent_task_spec s = exec_spec(argv, 3);
	assert_int_equal(sw_agent_task_start(a.ag, &s), 0);
	run_until(all, 1, &a, 1);
	assert_int_equal(a.end.r.state, SW_AGENT_FAILED);
	assert_non_null(strstr(a.end.reason, "exit status 3"));

	const char *missing[] = {"/nonexistent/program"};
	s = exec_spec(missing, 1);
	assert_int_equal(sw_agent_task_start(a.ag, &s), 0);
	run_until(all, 1, &a, 2);
	assert_int_equal(a.end.r.state, SW_AGENT_FAILED);
	assert_non_null(strstr(a.end.reason, "exit status 127"));
	assert_int_equal(sw_agent_counters(a.ag)->tasks_failed, 2);
	node_stop(&a);
}

static int process_alive(pid_t pid)
{
	char path[64], st = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *fp = fopen(path, "r");
	if (!fp)
		return 0;
	/* a zombie waiting for its parent to reap it is dead too */
	int n = fscanf(fp, "%*d %*s %c", &st);
	fclose(fp);
	return n == 1 && st != 'Z';
}

static void test_kill_ends_the_task_and_everything_it_started(void **state)
{
	(void)state;
	struct node a;
	node_start(&a, "r0n0", 0, key);
	char pidfile[128];
	snprintf(pidfile, sizeof(pidfile), "%s/grandchild.pid", a.dir);
	char script[512];
	snprintf(script, sizeof(script), "sleep 1000 & echo $! > %s.tmp; mv %s.tmp %s; wait",
	         pidfile, pidfile, pidfile);
	const char *argv[] = {"sh", "-c", script};
	struct sw_agent_task_spec s = exec_spec(argv, 3);
	assert_int_equal(sw_agent_task_start(a.ag, &s), 0);
	assert_int_equal(sw_agent_task_start(a.ag, &s), -EEXIST);
	size_t len;
	char *pid;
	while (!(pid = slurp(pidfile, &len)))
		usleep(10000);
	pid_t gc = atoi(pid);
	free(pid);
	assert_true(process_alive(gc));
	assert_int_equal(sw_agent_task_kill(a.ag, JOB, 1, SW_AGENT_MAP, 2), 0);
	assert_int_equal(a.end.n, 1);
	assert_int_equal(a.end.r.state, SW_AGENT_KILLED);
	/* the grandchild got SIGKILL with its session; it is gone once init reaps it */
	while (process_alive(gc))
		usleep(10000);
	assert_int_equal(sw_agent_task_kill(a.ag, JOB, 1, SW_AGENT_MAP, 2), -ESRCH);
	node_stop(&a);
}

static void test_a_task_for_an_unknown_runner_or_without_a_program_is_refused(void **state)
{
	(void)state;
	struct node a;
	node_start(&a, "r0n0", 0, key);
	struct sw_agent_task_spec s = exec_spec(NULL, 0);
	assert_int_equal(sw_agent_task_start(a.ag, &s), -EINVAL);
	s.runner = "mapreduce-v1";
	assert_int_equal(sw_agent_task_start(a.ag, &s), -ENOENT);
	assert_int_equal(sw_agent_running(a.ag, SW_AGENT_MAP), 0);
	node_stop(&a);
}

/* ---------------------------------------------------------------------------------------- */
/* synthetic */

static struct sw_agent_task_spec map_spec(uint32_t map, uint32_t parts, uint64_t bytes)
{
	return (struct sw_agent_task_spec){.job = JOB,
	                                   .task = map,
	                                   .kind = SW_AGENT_MAP,
	                                   .runner = "synthetic",
	                                   .secret = (const uint8_t *)SECRET,
	                                   .secret_len = strlen(SECRET),
	                                   .input_bytes = bytes,
	                                   .rate = 1e9,
	                                   .partitions = parts,
	                                   .output_bytes = bytes};
}

static void run_map(struct node *n, uint32_t map, uint32_t parts, uint64_t bytes)
{
	struct node *all[] = {n};
	struct sw_agent_task_spec s = map_spec(map, parts, bytes);
	int before = n->end.n;
	assert_int_equal(sw_agent_task_start(n->ag, &s), 0);
	run_until(all, 1, n, before + 1);
	assert_int_equal(n->end.r.state, SW_AGENT_SUCCEEDED);
}

static void test_a_synthetic_map_stores_its_output_split_over_the_partitions(void **state)
{
	(void)state;
	struct node a;
	node_start(&a, "r0n0", 0, key);
	run_map(&a, 4, 3, 1000);
	assert_int_equal(a.end.r.partitions, 3);
	uint64_t want[3] = {334, 333, 333};
	for (uint32_t p = 0; p < 3; p++) {
		assert_int_equal(a.end.part_bytes[p], want[p]);
		uint8_t buf[334], gen[334];
		uint64_t len;
		assert_int_equal(sw_shuffle_part_len(a.ag->store, JOB, 4, p, &len), 0);
		assert_int_equal(len, want[p]);
		assert_int_equal(sw_shuffle_read(a.ag->store, JOB, 4, p, 0, buf, len), 0);
		sw_agent_synth_fill(gen, len, JOB, 4, p);
		assert_memory_equal(buf, gen, len);
		assert_int_equal(a.end.part_crc[p], sw_agent_crc32c(buf, len));
	}
	assert_int_equal(sw_agent_counters(a.ag)->map_output_bytes, 1000);
	/* a map of a map-only job (no reduces) computes and stores nothing */
	run_map(&a, 5, 0, 1000);
	assert_int_equal(a.end.r.partitions, 0);
	assert_int_equal(sw_agent_counters(a.ag)->map_output_bytes, 1000);
	/* the job ends: its output goes */
	assert_int_equal(sw_agent_job_done(a.ag, JOB), 0);
	uint64_t len;
	assert_int_equal(sw_shuffle_part_len(a.ag->store, JOB, 4, 0, &len), -ESRCH);
	node_stop(&a);
}

static void
test_a_restarted_agent_keeps_its_map_output_but_not_an_earlier_jobs_of_the_same_id(void **state)
{
	(void)state;
	struct node a;
	uint8_t buf[334], gen[334];
	uint64_t len;
	node_start(&a, "r0n0", 0, key);
	run_map(&a, 4, 3, 1000);
	node_restart(&a, key);
	assert_int_equal(sw_shuffle_part_len(a.ag->store, JOB, 4, 0, &len), 0);
	assert_int_equal(len, 334);
	assert_int_equal(sw_shuffle_read(a.ag->store, JOB, 4, 0, 0, buf, len), 0);
	sw_agent_synth_fill(gen, len, JOB, 4, 0);
	assert_memory_equal(buf, gen, len);
	/* a controller started afresh hands out the id again, with its own secret */
	struct node *all[] = {&a};
	struct sw_agent_task_spec s = map_spec(5, 2, 100);
	s.secret = (const uint8_t *)"the-secret-of-another-job";
	s.secret_len = strlen((const char *)s.secret);
	assert_int_equal(sw_agent_task_start(a.ag, &s), 0);
	run_until(all, 1, &a, 2);
	assert_int_equal(a.end.r.state, SW_AGENT_SUCCEEDED);
	assert_int_equal(sw_shuffle_part_len(a.ag->store, JOB, 4, 0, &len), -ENOENT);
	assert_int_equal(sw_shuffle_part_len(a.ag->store, JOB, 5, 0, &len), 0);
	assert_int_equal(len, 50);
	node_stop(&a);
}

static struct sw_agent_task_spec reduce_spec(uint32_t reduce, uint32_t maps,
                                             const struct sw_agent_source *src, uint32_t n,
                                             const char *const *replicas, uint32_t nrep)
{
	return (struct sw_agent_task_spec){.job = JOB,
	                                   .task = reduce,
	                                   .kind = SW_AGENT_REDUCE,
	                                   .runner = "synthetic",
	                                   .secret = (const uint8_t *)SECRET,
	                                   .secret_len = strlen(SECRET),
	                                   .rate = 1e9,
	                                   .output_bytes = 3u << 20, /* three put chunks */
	                                   .maps = maps,
	                                   .sources = src,
	                                   .n_sources = n,
	                                   .replicas = replicas,
	                                   .n_replicas = nrep};
}

static struct sw_agent_source source(struct node *n, uint32_t map)
{
	struct sw_agent_source s = {.map = map, .rack = sw_agent_conf(n->ag)->rack};
	snprintf(s.addr, sizeof(s.addr), "%s", sw_agent_shuffle_addr(n->ag));
	s.has_sum = n->end.r.partitions > 0;
	s.bytes = n->end.part_bytes[1];
	s.crc = n->end.part_crc[1];
	return s;
}

static void test_a_synthetic_reduce_fetches_every_map_checks_it_and_puts_replicas(void **state)
{
	(void)state;
	struct node a, b, c, *all[] = {&a, &b, &c};
	node_start(&a, "r0n0", 0, key);
	node_start(&b, "r1n0", 1, key);
	node_start(&c, "r2n0", 2, key);
	struct sw_agent_source src[3];
	run_map(&a, 0, 2, 3u << 20);
	src[0] = source(&a, 0);
	run_map(&a, 1, 2, 1u << 20);
	src[1] = source(&a, 1);
	run_map(&b, 2, 2, 0); /* an empty map output is fetched and checked too */
	src[2] = source(&b, 2);

	const char *replicas[] = {sw_agent_replica_addr(a.ag), sw_agent_replica_addr(c.ag)};
	struct sw_agent_task_spec s = reduce_spec(1, 3, src, 3, replicas, 2);
	assert_int_equal(sw_agent_task_start(b.ag, &s), 0);
	run_until(all, 3, &b, 2);
	assert_int_equal(b.end.r.state, SW_AGENT_SUCCEEDED);
	uint64_t fetched = (3u << 19) + (1u << 19);
	assert_int_equal(b.end.r.fetched_bytes, fetched);
	assert_int_equal(sw_agent_counters(b.ag)->fetched_bytes, fetched);
	assert_int_equal(sw_agent_counters(b.ag)->replica_bytes_out, 2 * (3u << 20));
	/* NetSat's view, the fetch connections' transport bytes: from rack 0 the fetched bytes
	 * and their framing (three 64-byte chunk headers, a 24-byte hello), from rack 1 (b's own
	 * server) the empty partition's header and hello */
	assert_int_equal(sw_agent_rx_bytes(b.ag, 0), fetched + 3 * 64 + 24);
	assert_int_equal(sw_agent_rx_bytes(b.ag, 1), 64 + 24);

	/* the output and both replicas hold the same bytes */
	uint8_t *want = malloc(3u << 20);
	sw_agent_synth_fill(want, 3u << 20, JOB, UINT32_MAX, 1);
	struct {
		struct node *n;
		const char *sub;
	} files[] = {{&b, "output"}, {&a, "replicas"}, {&c, "replicas"}};
	for (int i = 0; i < 3; i++) {
		char path[256];
		size_t len;
		snprintf(path, sizeof(path), "%s/data/%s/job-7.reduce-1", files[i].n->dir,
		         files[i].sub);
		char *got = slurp(path, &len);
		assert_non_null(got);
		assert_int_equal(len, 3u << 20);
		assert_memory_equal(got, want, len);
		free(got);
	}
	free(want);
	assert_int_equal(sw_agent_counters(a.ag)->replica_bytes_in, 3u << 20);
	assert_int_equal(a.ag->rx_by_rack[1], 3u << 20);
	node_stop(&a);
	node_stop(&b);
	node_stop(&c);
}

static void test_a_reduce_waits_for_later_locations_and_reports_each_failed_fetch(void **state)
{
	(void)state;
	struct node a, b, *all[] = {&a, &b};
	node_start(&a, "r0n0", 0, key);
	node_start(&b, "r0n1", 0, key);
	struct sw_agent_task_spec s = reduce_spec(1, 2, NULL, 0, NULL, 0);
	s.output_bytes = 100;
	assert_int_equal(sw_agent_task_start(b.ag, &s), 0);
	for (int i = 0; i < 5; i++)
		sw_agent_run_once(b.ag, 10);
	assert_int_equal(b.end.n, 0);

	run_map(&a, 0, 2, 5000);
	struct sw_agent_source src = source(&a, 0);
	assert_int_equal(sw_agent_task_sources(b.ag, JOB, 1, 0, &src, 1), 0);
	for (int i = 0; i < 5; i++)
		sw_agent_run_once(b.ag, 10);
	assert_int_equal(b.end.n, 0); /* one of two */
	/* a location on a server that is gone: each failed fetch is reported, and the reduce
	 * tries it again (a second later) until a new location comes */
	src.map = 1;
	src.attempt = 3;
	snprintf(src.addr, sizeof(src.addr), "127.0.0.1:1");
	assert_int_equal(sw_agent_task_sources(b.ag, JOB, 1, 0, &src, 1), 0);
	while (b.fetch_failed < 2)
		sw_agent_run_once(b.ag, 10);
	assert_int_equal(sw_agent_counters(b.ag)->fetch_failures, 2);
	assert_true(b.ff.job == JOB && b.ff.reduce == 1 && b.ff.attempt == 0);
	assert_int_equal(b.ff.map, 1);
	assert_int_equal(b.ff.map_attempt, 3);
	assert_string_equal(b.ff_server, "127.0.0.1:1");
	assert_int_equal(b.end.n, 0);

	run_map(&a, 1, 2, 5000);
	src = source(&a, 1);
	assert_int_equal(sw_agent_task_sources(b.ag, JOB, 1, 0, &src, 1), 0);
	run_until(all, 2, &b, 1);
	assert_int_equal(b.end.r.state, SW_AGENT_SUCCEEDED);
	assert_int_equal(b.end.r.fetched_bytes, 5000);
	/* the reduce is over: later locations find no such reduce */
	assert_int_equal(sw_agent_task_sources(b.ag, JOB, 1, 0, &src, 1), -ESRCH);
	node_stop(&a);
	node_stop(&b);
}

static void test_a_reduce_fails_when_a_partition_does_not_match_the_maps_checksum(void **state)
{
	(void)state;
	struct node a, *all[] = {&a};
	node_start(&a, "r0n0", 0, key);
	run_map(&a, 0, 2, 4096);
	struct sw_agent_source src = source(&a, 0);
	src.crc ^= 1;
	struct sw_agent_task_spec s = reduce_spec(1, 1, &src, 1, NULL, 0);
	assert_int_equal(sw_agent_task_start(a.ag, &s), 0);
	run_until(all, 1, &a, 2);
	assert_int_equal(a.end.r.state, SW_AGENT_FAILED);
	assert_non_null(strstr(a.end.reason, "checksum mismatch"));
	assert_int_equal(sw_agent_counters(a.ag)->checksum_failures, 1);
	node_stop(&a);
}

static void test_a_replica_put_without_the_cluster_key_is_refused_and_nothing_written(void **state)
{
	(void)state;
	struct node a, b, *all[] = {&a, &b};
	node_start(&a, "r0n0", 0, key);
	node_start(&b, "r1n0", 1, other_key);
	const char *replicas[] = {sw_agent_replica_addr(a.ag)};
	struct sw_agent_task_spec s = reduce_spec(1, 0, NULL, 0, replicas, 1);
	assert_int_equal(sw_agent_task_start(b.ag, &s), 0);
	run_until(all, 2, &b, 1);
	assert_int_equal(b.end.r.state, SW_AGENT_FAILED);
	assert_non_null(strstr(b.end.reason, "output replica to"));
	assert_int_equal(sw_agent_counters(a.ag)->replica_refused, 1);
	assert_int_equal(sw_agent_counters(a.ag)->replica_bytes_in, 0);
	char path[256];
	struct stat st;
	snprintf(path, sizeof(path), "%s/data/replicas/job-7.reduce-1", a.dir);
	assert_int_equal(stat(path, &st), -1);
	snprintf(path, sizeof(path), "%s/data/replicas/job-7.reduce-1.attempt-0.part", a.dir);
	assert_int_equal(stat(path, &st), -1);
	node_stop(&a);
	node_stop(&b);
}

static void test_a_replica_put_to_a_silent_target_fails_instead_of_hanging(void **state)
{
	(void)state;
	struct node b, *all[] = {&b};
	node_start(&b, "r1n0", 1, key);
	/* a target that accepts connections (the kernel does) and never answers */
	struct sw_dp_ctx *silent;
	char addr[SW_DP_ADDRSTRLEN];
	struct sw_dp_config dc;
	sw_dp_config_init(&dc);
	dc.backend = "tcp";
	assert_int_equal(sw_dp_open(&dc, &silent), 0);
	assert_int_equal(sw_dp_listen(silent, "127.0.0.1:0"), 0);
	sw_dp_listen_addr(silent, addr, sizeof(addr));
	b.ag->put_idle_ms = 100;
	const char *replicas[] = {addr};
	struct sw_agent_task_spec s = reduce_spec(1, 0, NULL, 0, replicas, 1);
	assert_int_equal(sw_agent_task_start(b.ag, &s), 0);
	run_until(all, 1, &b, 1);
	assert_int_equal(b.end.r.state, SW_AGENT_FAILED);
	assert_non_null(strstr(b.end.reason, "output replica to"));
	assert_non_null(strstr(b.end.reason, sw_dp_strerror(-ETIMEDOUT)));
	sw_dp_close(silent);
	node_stop(&b);
}

/* ---------------------------------------------------------------------------------------- */
/* the writer thread */

/* A FIFO where reduce 1's output file goes: the writer thread's open() of it blocks until a
 * reader comes, as a write stuck in the kernel's dirty-page throttling would. */
static void block_output(struct node *n, char *path, size_t size)
{
	snprintf(path, size, "%s/data/output/job-7.reduce-1.tmp", n->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
}

/* Runs n's loop, emptying the FIFO at fd, until n has seen `want` task ends. */
static void run_draining(struct node *n, int fd, int want)
{
	static char sink[1 << 16];
	while (n->end.n < want) {
		while (read(fd, sink, sizeof(sink)) > 0)
			;
		assert_int_equal(sw_agent_run_once(n->ag, 20), 0);
	}
}

static void test_a_reduce_waiting_for_the_disk_leaves_the_loop_and_other_tasks_running(void **state)
{
	(void)state;
	struct node b, *all[] = {&b};
	node_start(&b, "r1n0", 1, key);
	char fifo[256];
	block_output(&b, fifo, sizeof(fifo));
	struct sw_agent_task_spec s = reduce_spec(1, 0, NULL, 0, NULL, 0);
	assert_int_equal(sw_agent_task_start(b.ag, &s), 0);
	/* the reduce's output write waits for a reader, forever: an exec task still runs and
	 * ends through the loop meanwhile */
	const char *argv[] = {"true"};
	struct sw_agent_task_spec e = exec_spec(argv, 1);
	assert_int_equal(sw_agent_task_start(b.ag, &e), 0);
	run_until(all, 1, &b, 1);
	assert_int_equal(b.end.r.kind, SW_AGENT_MAP);
	assert_int_equal(b.end.r.state, SW_AGENT_SUCCEEDED);
	assert_int_equal(sw_agent_running(b.ag, SW_AGENT_REDUCE), 1);
	/* the disk comes back: the write goes on, and fails at the fsync (a FIFO has none) */
	int fd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	run_draining(&b, fd, 2);
	close(fd);
	assert_int_equal(b.end.r.kind, SW_AGENT_REDUCE);
	assert_int_equal(b.end.r.state, SW_AGENT_FAILED);
	assert_non_null(strstr(b.end.reason, "writing output/job-7.reduce-1: "));
	node_stop(&b);
}

static void
test_a_reduce_killed_while_its_output_is_written_ends_at_once_and_leaves_no_file(void **state)
{
	(void)state;
	struct node b;
	node_start(&b, "r1n0", 1, key);
	char fifo[256];
	block_output(&b, fifo, sizeof(fifo));
	/* a reader from the start: the writer's open() returns, its first write() fills the pipe
	 * and waits there */
	int fd = open(fifo, O_RDONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	struct sw_agent_task_spec s = reduce_spec(1, 0, NULL, 0, NULL, 0);
	s.output_bytes = 12u << 20; /* three pieces of 4 MiB */
	assert_int_equal(sw_agent_task_start(b.ag, &s), 0);
	char c;
	while (read(fd, &c, 1) == 0) /* end of file while no writer has the FIFO open */
		assert_int_equal(sw_agent_run_once(b.ag, 20), 0);
	assert_int_equal(sw_agent_task_kill(b.ag, JOB, 1, SW_AGENT_REDUCE, 0), 0);
	assert_int_equal(b.end.n, 1);
	assert_int_equal(b.end.r.state, SW_AGENT_KILLED);
	/* the writer gets its disk back, sees the kill after that piece and removes the file */
	struct stat st;
	while (stat(fifo, &st) == 0) {
		char sink[1 << 16];
		while (read(fd, sink, sizeof(sink)) > 0)
			;
		assert_int_equal(sw_agent_run_once(b.ag, 20), 0);
	}
	close(fd);
	char path[256];
	snprintf(path, sizeof(path), "%s/data/output/job-7.reduce-1", b.dir);
	assert_int_equal(stat(path, &st), -1);
	node_stop(&b);
}

/* ---------------------------------------------------------------------------------------- */
/* the loop */

/* The loop sleeps on its contexts' fds, and UCX 1.13 over shared memory sometimes leaves a
 * worker's fd quiet though a message arrived (dataplane/README.md): an agent over ucx goes
 * round within the backend's bound (sw_dp_fd_sleep_ms) though no fd turns readable, so a
 * missed signal delays shuffle work by at most that much. The missed signal itself cannot be
 * made to happen on demand; an agent with nothing to do shows the bound: without it, each
 * round sleeps until an fd turns readable, here never (no controller, no timer), and the
 * alarm ends the test. */
static void test_an_idle_agent_over_ucx_goes_round_within_its_fds_sleep_bound(void **state)
{
	(void)state;
	struct sw_dp_config dc;
	sw_dp_config_init(&dc);
	dc.backend = "ucx";
	struct sw_dp_ctx *probe;
	if (sw_dp_open(&dc, &probe) == -ENOENT)
		skip(); /* built without UCX */
	assert_int_equal(sw_dp_fd_sleep_ms(probe), 100);
	sw_dp_close(probe);
	setenv("UCX_TLS", "sm,tcp", 1);
	setenv("UCX_NET_DEVICES", "lo", 1);
	struct node n;
	node_start_on(&n, "u0", 0, key, "ucx");
	alarm(30); /* 300 times the bound */
	for (int i = 0; i < 5; i++)
		assert_int_equal(sw_agent_run_once(n.ag, -1), 0);
	alarm(0);
	node_stop(&n);
	unsetenv("UCX_TLS");
	unsetenv("UCX_NET_DEVICES");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_exec_writes_stdout_and_stderr_to_the_attempts_log_files),
	        cmocka_unit_test(test_exec_reports_a_non_zero_exit_as_failure_naming_the_status),
	        cmocka_unit_test(test_kill_ends_the_task_and_everything_it_started),
	        cmocka_unit_test(test_a_task_for_an_unknown_runner_or_without_a_program_is_refused),
	        cmocka_unit_test(test_a_synthetic_map_stores_its_output_split_over_the_partitions),
	        cmocka_unit_test(
	                test_a_restarted_agent_keeps_its_map_output_but_not_an_earlier_jobs_of_the_same_id),
	        cmocka_unit_test(
	                test_a_synthetic_reduce_fetches_every_map_checks_it_and_puts_replicas),
	        cmocka_unit_test(
	                test_a_reduce_waits_for_later_locations_and_reports_each_failed_fetch),
	        cmocka_unit_test(
	                test_a_reduce_fails_when_a_partition_does_not_match_the_maps_checksum),
	        cmocka_unit_test(
	                test_a_replica_put_without_the_cluster_key_is_refused_and_nothing_written),
	        cmocka_unit_test(test_a_replica_put_to_a_silent_target_fails_instead_of_hanging),
	        cmocka_unit_test(
	                test_a_reduce_waiting_for_the_disk_leaves_the_loop_and_other_tasks_running),
	        cmocka_unit_test(
	                test_a_reduce_killed_while_its_output_is_written_ends_at_once_and_leaves_no_file),
	        cmocka_unit_test(test_an_idle_agent_over_ucx_goes_round_within_its_fds_sleep_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
