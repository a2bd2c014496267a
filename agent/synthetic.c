/* SPDX-License-Identifier: MIT */
/*
 * Runner "synthetic": tasks that move real bytes but compute nothing useful.
 *  map:    waits input_bytes / rate (its compute), then writes output_bytes of synthetic data
 *          split over the job's partitions into the store, where the shuffle server serves it.
 *  reduce: fetches its partition of every map through the shuffle client as sources become
 *          known, checks every byte against the synthetic data (and the map's CRC32C when the
 *          source carries it), waits fetched / rate, writes output_bytes to data_dir/output
 *          and puts a copy on each replica agent; it succeeds when all copies are acknowledged.
 * The compute is a timer in the agent's loop, not a busy CPU: what is measured is the data path.
 * What goes to the disk (a map's partitions into the store, which may spill; a reduce's output)
 * is made and written on the agent's writer thread (disk.c), so the loop never waits for it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_int.h"

/* The map id under which a reduce's output is generated (no map has it). */
#define OUTPUT_MAP UINT32_MAX

enum phase { FETCH, COMPUTE, OUTPUT, WRITE };

/* Output bytes made and written at a time: each piece goes to writeback at once, and a
 * killed reduce stops its write after at most one more. */
#define OUTPUT_PIECE (4u << 20)

struct inflight {
	struct sw_shuffle_fetch_op *op;
	struct sw_agent_source src; /* where it fetches (or last failed) from */
	uint64_t retry_at;          /* ms: a failed src is tried again from then on */
};

struct synth {
	struct sw_agent_watch timer;
	struct sw_agent_task *t; /* NULL once released while the writer thread works for it */
	struct sw_agent *ag;
	struct sw_agent_task_spec spec; /* its scalars, for the writer thread (t may go) */
	enum phase phase;
	/* on the writer thread: op is queued or running; cancelled tells run() to stop */
	struct sw_agent_disk_op op;
	bool writing;
	atomic_bool cancelled;
	/* map */
	uint32_t next_part;    /* partitions below it are stored */
	uint64_t stored_bytes; /* by the last op, new in the store */
	uint64_t *part_bytes;
	uint32_t *part_crc;
	/* reduce */
	uint8_t *fetched;          /* per map: 1 once its partition was verified */
	struct inflight *inflight; /* per map: its fetch running, if any */
	uint32_t n_fetched;
	uint64_t fetched_bytes;
	uint8_t *out;
	struct sw_agent_put **puts;
	uint32_t puts_left;
};

static uint64_t compute_ms(uint64_t bytes, double rate)
{
	return rate > 0 ? (uint64_t)((double)bytes / rate * 1000.0) : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* map */

static uint64_t part_len(const struct sw_agent_task_spec *s, uint32_t p)
{
	/* only called for p < partitions, so partitions > 0 here */
	return s->output_bytes / s->partitions + (p < s->output_bytes % s->partitions);
}

static void synth_free(struct synth *x);

/* Hands run() to the writer thread; done() follows in the loop. */
static void write_off_loop(struct synth *x, int (*run)(struct sw_agent_disk_op *),
                           void (*done)(struct sw_agent *, struct sw_agent_disk_op *, int))
{
	x->op.run = run;
	x->op.done = done;
	x->writing = true;
	sw_agent_disk_queue(x->ag, &x->op);
}

/* The writer thread finished for x: false when x's task is gone (x is freed then). */
static bool write_returned(struct synth *x)
{
	x->writing = false;
	if (x->t)
		return true;
	synth_free(x);
	return false;
}

/*
 * Opens the map's job in the store: it may be there already (an earlier map of the job ran
 * here). Output that an earlier job with the same id left under another secret (the store
 * reopened it after a restart, and the controller has started afresh since) is dropped.
 */
static int job_open(struct sw_agent *ag, const struct sw_agent_task_spec *s)
{
	int rc = sw_shuffle_job_add(ag->store, s->job, s->secret, s->secret_len);
	if (rc == -EKEYREJECTED) {
		sw_agent_log(ag,
		             "job %llu: the store held an earlier job's output under this id "
		             "(another secret); dropped",
		             (unsigned long long)s->job);
		sw_shuffle_job_remove(ag->store, s->job);
		rc = sw_shuffle_job_add(ag->store, s->job, s->secret, s->secret_len);
	}
	return rc == -EEXIST ? 0 : rc;
}

/* On the writer thread: makes, checksums and stores the map's partitions from next_part on.
 * 0, or -errno with next_part the partition that failed (-EAGAIN: the store's writers are
 * paused until fetches release memory). */
static int map_store(struct sw_agent_disk_op *op)
{
	struct synth *x = container_of(op, struct synth, op);
	const struct sw_agent_task_spec *s = &x->spec;
	for (; x->next_part < s->partitions; x->next_part++) {
		if (atomic_load(&x->cancelled))
			return -ECANCELED;
		uint32_t p = x->next_part;
		uint64_t len = part_len(s, p);
		uint8_t *buf = malloc(len ? len : 1);
		if (!buf)
			return -ENOMEM;
		sw_agent_synth_fill(buf, len, s->job, s->task, p);
		x->part_bytes[p] = len;
		x->part_crc[p] = sw_agent_crc32c(buf, len);
		int rc = sw_shuffle_put(x->ag->store, s->job, s->task, p, buf, len);
		free(buf);
		/* -EEXIST: an earlier attempt on this node stored the same bytes */
		if (rc && rc != -EEXIST)
			return rc;
		if (!rc)
			x->stored_bytes += len;
	}
	return 0;
}

static void map_stored(struct sw_agent *ag, struct sw_agent_disk_op *op, int rc)
{
	struct synth *x = container_of(op, struct synth, op);
	if (!write_returned(x))
		return;
	ag->cnt.map_output_bytes += x->stored_bytes;
	x->stored_bytes = 0;
	if (rc == -EAGAIN) { /* retry once fetches had time to release memory */
		sw_agent_timer_start(ag, &x->timer, 10);
		return;
	}
	if (rc) {
		sw_agent_task_end(x->t, SW_AGENT_FAILED, NULL, "storing partition %u: %s",
		                  x->next_part, sw_shuffle_strerror(rc));
		return;
	}
	struct sw_agent_task_result res = {.partitions = x->spec.partitions,
	                                   .part_bytes = x->part_bytes,
	                                   .part_crc = x->part_crc};
	sw_agent_task_end(x->t, SW_AGENT_SUCCEEDED, &res, NULL);
}

/* ---------------------------------------------------------------------------------------- */
/* reduce */

/* Checks a fetched partition of src->map: 0, or -EILSEQ when the data is wrong. */
static int check_one(struct synth *x, const struct sw_agent_source *src, const uint8_t *data,
                     uint64_t len)
{
	struct sw_agent_task *t = x->t;
	struct sw_agent *ag = t->ag;
	uint8_t *want = malloc(len ? len : 1);
	if (!want)
		return -ENOMEM;
	sw_agent_synth_fill(want, len, t->spec.job, src->map, t->spec.task);
	uint32_t crc = sw_agent_crc32c(data, len);
	bool ok = (!len || !memcmp(data, want, len)) && /* data is NULL when len is 0 */
	          (!src->has_sum || (src->bytes == len && src->crc == crc));
	free(want);
	if (!ok) {
		ag->cnt.checksum_failures++;
		sw_agent_log(ag,
		             "job %llu reduce %u: map %u from %s: %llu bytes, CRC32C %08x do not "
		             "match what the map wrote (%llu bytes, %08x)",
		             (unsigned long long)t->spec.job, t->spec.task, src->map, src->addr,
		             (unsigned long long)len, crc, (unsigned long long)src->bytes,
		             src->crc);
		return -EILSEQ;
	}
	ag->cnt.fetched_bytes += len;
	x->fetched_bytes += len;
	return 0;
}

static void reduce_fetch(struct synth *x);

/* A fetch ended (from the fetcher, inside the loop). */
static void fetch_done(void *arg, struct sw_shuffle_fetch_op *op, int status, uint8_t *data,
                       uint64_t len)
{
	struct synth *x = arg;
	struct sw_agent_task *t = x->t;
	struct sw_agent *ag = t->ag;
	uint32_t m = 0;
	while (x->inflight[m].op != op)
		m++;
	struct sw_agent_source src = x->inflight[m].src;
	x->inflight[m].op = NULL;
	int rc = status ? status : check_one(x, &src, data, len);
	free(data);
	if (rc == -EILSEQ && !status) {
		sw_agent_task_end(t, SW_AGENT_FAILED, NULL, "map %u from %s: checksum mismatch",
		                  src.map, src.addr);
		return;
	}
	if (rc) {
		/* the server or its data is gone, or it is not answering: the controller hears of
		 * it (and re-runs the map after enough reports); the source is tried again until a
		 * new location replaces it */
		ag->cnt.fetch_failures++;
		sw_agent_log(ag,
		             "job %llu reduce %u: fetch of map %u from %s: %s; reported, trying "
		             "again in %u ms or at a new location",
		             (unsigned long long)t->spec.job, t->spec.task, src.map, src.addr,
		             sw_shuffle_strerror(rc), SW_AGENT_FETCH_RETRY_MS);
		x->inflight[m].retry_at = sw_agent_now_ms() + SW_AGENT_FETCH_RETRY_MS;
		if (ag->hooks.on_fetch_failed) {
			struct sw_agent_fetch_failure f = {.job = t->spec.job,
			                                   .reduce = t->spec.task,
			                                   .attempt = t->spec.attempt,
			                                   .map = src.map,
			                                   .map_attempt = src.attempt,
			                                   .server = src.addr,
			                                   .error = sw_shuffle_strerror(rc)};
			ag->hooks.on_fetch_failed(ag, &f, ag->hooks.arg);
		}
	} else {
		x->fetched[src.map] = 1;
		x->n_fetched++;
	}
	reduce_fetch(x);
}

/* Starts a fetch for every known map neither fetched nor being fetched (the fetcher runs them
 * a few servers at a time, never blocking the loop); computes once all maps are in. */
static void reduce_fetch(struct synth *x)
{
	struct sw_agent_task *t = x->t;
	struct sw_agent *ag = t->ag;
	uint64_t now = sw_agent_now_ms(), wake = UINT64_MAX;
	for (uint32_t i = 0; i < t->n_sources; i++) {
		const struct sw_agent_source *src = &t->sources[i];
		struct inflight *in = &x->inflight[src->map];
		if (x->fetched[src->map] || in->op)
			continue;
		if (in->retry_at > now && src->attempt == in->src.attempt &&
		    !strcmp(src->addr, in->src.addr)) { /* failed there a moment ago */
			wake = in->retry_at < wake ? in->retry_at : wake;
			continue;
		}
		struct sw_shuffle_fetch f = {.job = t->spec.job,
		                             .secret = t->spec.secret,
		                             .secret_len = t->spec.secret_len,
		                             .map = src->map,
		                             .part = t->spec.task,
		                             .length = SW_SHUFFLE_TO_END};
		int rc = sw_agent_server_rack(ag, src->addr, src->rack);
		if (!rc)
			rc = sw_shuffle_fetcher_add(ag->fetcher, src->addr, &f, NULL, 0, fetch_done,
			                            x, &in->op);
		if (rc) {
			sw_agent_task_end(t, SW_AGENT_FAILED, NULL, "fetch of map %u from %s: %s",
			                  src->map, src->addr, sw_shuffle_strerror(rc));
			return;
		}
		in->src = *src;
	}
	if (x->n_fetched == t->spec.maps) {
		x->phase = COMPUTE;
		sw_agent_timer_start(ag, &x->timer, compute_ms(x->fetched_bytes, t->spec.rate));
	} else if (wake != UINT64_MAX) {
		sw_agent_timer_start(ag, &x->timer, wake - now);
	}
}

static void put_done(void *arg, struct sw_agent_put *put, int status)
{
	struct synth *x = arg;
	struct sw_agent_task *t = x->t;
	uint32_t i = 0;
	while (x->puts[i] != put)
		i++;
	x->puts[i] = NULL; /* the put frees itself after this call */
	if (status) {
		sw_agent_task_end(t, SW_AGENT_FAILED, NULL, "output replica to %s: %s",
		                  t->spec.replicas[i], sw_dp_strerror(status));
		return;
	}
	t->ag->cnt.replica_bytes_out += t->spec.output_bytes;
	if (--x->puts_left == 0) {
		struct sw_agent_task_result res = {.fetched_bytes = x->fetched_bytes,
		                                   .output_bytes = t->spec.output_bytes};
		sw_agent_task_end(t, SW_AGENT_SUCCEEDED, &res, NULL);
	}
}

static void output_name(const struct synth *x, char *name, size_t size)
{
	snprintf(name, size, "job-%llu.reduce-%u", (unsigned long long)x->spec.job, x->spec.task);
}

/* On the writer thread: makes the output and writes it to data_dir/output, a piece at a time
 * (each sent to writeback at once), whole or not at all. 0 or -errno. */
static int output_write(struct sw_agent_disk_op *op)
{
	struct synth *x = container_of(op, struct synth, op);
	const struct sw_agent_task_spec *s = &x->spec;
	char name[128];
	struct sw_agent_file f;
	output_name(x, name, sizeof(name));
	int rc = sw_agent_file_open(x->ag, "output", name, &f);
	for (uint64_t done = 0; !rc && done < s->output_bytes;) {
		size_t n = s->output_bytes - done < OUTPUT_PIECE ? s->output_bytes - done
		                                                 : OUTPUT_PIECE;
		if (atomic_load(&x->cancelled)) {
			sw_agent_file_abort(&f);
			return -ECANCELED;
		}
		sw_agent_synth_fill_at(x->out + done, done, n, s->job, OUTPUT_MAP, s->task);
		rc = sw_agent_file_append(&f, x->out + done, n);
		done += n;
	}
	if (rc) {
		sw_agent_file_abort(&f);
		return rc;
	}
	return sw_agent_file_commit(&f);
}

/* The output is on disk: a put to every replica agent. */
static void output_written(struct sw_agent *ag, struct sw_agent_disk_op *op, int rc)
{
	struct synth *x = container_of(op, struct synth, op);
	if (!write_returned(x))
		return;
	struct sw_agent_task *t = x->t;
	const struct sw_agent_task_spec *s = &t->spec;
	if (rc) {
		char name[128];
		output_name(x, name, sizeof(name));
		sw_agent_task_end(t, SW_AGENT_FAILED, NULL, "writing output/%s: %s", name,
		                  strerror(-rc));
		return;
	}
	x->phase = WRITE;
	x->puts_left = s->n_replicas;
	for (uint32_t i = 0; i < s->n_replicas; i++) {
		rc = sw_agent_put_start(ag, s->replicas[i], s->job, s->task, s->attempt, x->out,
		                        s->output_bytes, put_done, x, &x->puts[i]);
		if (rc) {
			sw_agent_task_end(t, SW_AGENT_FAILED, NULL, "output replica to %s: %s",
			                  s->replicas[i], sw_dp_strerror(rc));
			return;
		}
	}
	if (!s->n_replicas) {
		struct sw_agent_task_result res = {.fetched_bytes = x->fetched_bytes,
		                                   .output_bytes = s->output_bytes};
		sw_agent_task_end(t, SW_AGENT_SUCCEEDED, &res, NULL);
	}
}

/* Computed: the output goes to the writer thread. */
static void reduce_write(struct synth *x)
{
	const struct sw_agent_task_spec *s = &x->spec;
	x->out = malloc(s->output_bytes ? s->output_bytes : 1);
	if (!x->out) {
		sw_agent_task_end(x->t, SW_AGENT_FAILED, NULL,
		                  "out of memory for %llu output bytes",
		                  (unsigned long long)s->output_bytes);
		return;
	}
	x->phase = OUTPUT;
	write_off_loop(x, output_write, output_written);
}

/* ---------------------------------------------------------------------------------------- */

static void on_timer(struct sw_agent_watch *w, uint32_t events)
{
	(void)events;
	struct synth *x = container_of(w, struct synth, timer);
	sw_agent_timer_ack(w);
	if (x->spec.kind == SW_AGENT_MAP)
		write_off_loop(x, map_store, map_stored);
	else if (x->phase == FETCH)
		reduce_fetch(x);
	else if (x->phase == COMPUTE)
		reduce_write(x);
}

static int synth_start(struct sw_agent_task *t)
{
	struct sw_agent *ag = t->ag;
	const struct sw_agent_task_spec *s = &t->spec;
	if (!s->secret_len)
		return -EINVAL;
	struct synth *x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->t = t;
	x->ag = ag;
	x->spec = *s;
	x->timer.fd = -1;
	x->timer.fn = on_timer;
	t->priv = x;
	int rc;
	if (s->kind == SW_AGENT_MAP) {
		x->part_bytes = calloc(s->partitions + 1, sizeof(*x->part_bytes));
		x->part_crc = calloc(s->partitions + 1, sizeof(*x->part_crc));
		/* no partitions: a map-only job, whose map computes and writes nothing here */
		rc = !x->part_bytes || !x->part_crc ? -ENOMEM : 0;
		if (!rc)
			rc = job_open(ag, s);
		if (!rc)
			rc = sw_agent_timer_start(ag, &x->timer,
			                          compute_ms(s->input_bytes, s->rate));
	} else {
		x->fetched = calloc(s->maps + 1, 1);
		x->inflight = calloc(s->maps + 1, sizeof(*x->inflight));
		x->puts = calloc(s->n_replicas + 1, sizeof(*x->puts));
		rc = !x->fetched || !x->inflight || !x->puts
		             ? -ENOMEM
		             : sw_agent_timer_start(ag, &x->timer, 0);
	}
	if (rc) {
		t->runner->release(t);
		t->priv = NULL;
	}
	return rc;
}

static void synth_sources(struct sw_agent_task *t)
{
	struct synth *x = t->priv;
	if (x->phase == FETCH) /* fetch from the loop, not inside the caller's handler */
		sw_agent_timer_start(t->ag, &x->timer, 0);
}

static void synth_kill(struct sw_agent_task *t)
{
	(void)t; /* nothing runs outside the loop: release stops the timer and the puts */
}

static void synth_free(struct synth *x)
{
	free(x->part_bytes);
	free(x->part_crc);
	free(x->fetched);
	free(x->inflight);
	free(x->puts);
	free(x->out);
	free(x);
}

static void synth_release(struct sw_agent_task *t)
{
	struct synth *x = t->priv;
	if (!x)
		return;
	t->priv = NULL;
	sw_agent_watch_close(t->ag, &x->timer);
	for (uint32_t i = 0; x->puts && i < t->spec.n_replicas; i++)
		if (x->puts[i])
			sw_agent_put_cancel(x->puts[i]);
	for (uint32_t m = 0; x->inflight && m < t->spec.maps; m++)
		sw_shuffle_fetch_cancel(x->inflight[m].op);
	if (x->writing) { /* the writer thread still uses x: its done() frees it */
		atomic_store(&x->cancelled, true);
		x->t = NULL;
		return;
	}
	synth_free(x);
}

const struct sw_agent_runner sw_agent_runner_synthetic = {
        .name = "synthetic",
        .start = synth_start,
        .kill = synth_kill,
        .sources = synth_sources,
        .release = synth_release,
};
