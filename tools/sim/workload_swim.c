/* SPDX-License-Identifier: MIT */
/*
 * SWIM traces (Chen et al., the Facebook 2009 samples): one job per line, tab separated,
 * job id, submit time (s), gap to the previous job (s), map input, shuffle and reduce output
 * bytes. What a trace lacks (benchmark, users, reducers, placement) is synthesised; the rules
 * are in README.md, "Workloads".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "workload_priv.h"

enum { COL_ID, COL_SUBMIT, COL_GAP, COL_INPUT, COL_SHUFFLE, COL_OUTPUT, N_COLS };

static const char *const col_name[N_COLS] = {
        "job_id", "submit_time", "gap", "input_bytes", "shuffle_bytes", "output_bytes",
};

/* ShuffleInputRatio bounds of the classes: the paper's "above 1.0 is heavy" (terasort's 1.0
 * counts as heavy, as in Table 1), and 0.1 between the medium benchmarks (0.35 and more) and
 * the light ones (0.05 and less). */
#define HEAVY_RATIO  1.0
#define MEDIUM_RATIO 0.1

struct swim_line {
	const char *path;
	unsigned line;
	struct sw_input_error *err;
};

void sw_sim_swim_opts_default(struct sw_swim_opts *o)
{
	*o = (struct sw_swim_opts){
	        .time_scale = 1,
	        .size_scale = 1,
	        .n_users = 200,
	        .n_queues = 3,
	        .seed = 1,
	};
	sw_sim_topology_facebook(&o->topo);
}

static int parse_time(const struct swim_line *l, int col, const char *s, double scale, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !isfinite(v)) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[col], "not a number: '%s'", s);
		return -EINVAL;
	}
	if (v < 0) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[col], "negative time");
		return -EINVAL;
	}
	*out = v * scale;
	if (*out > SW_WORKLOAD_MAX_TIME) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[col],
		                "%s s x time scale %g is beyond the limit of 1e9 s", s, scale);
		return -EINVAL;
	}
	return 0;
}

static int parse_size(const struct swim_line *l, int col, const char *s, double scale,
                      uint64_t *out)
{
	char *end;
	unsigned long long v;
	double scaled;

	if (*s == '-') {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[col], "negative size");
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	/* strtoull skips blanks and takes a sign: a size is digits only. */
	if (*s < '0' || *s > '9' || *end) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[col], "not a number: '%s'", s);
		return -EINVAL;
	}
	scaled = (double)v * scale;
	if (errno == ERANGE || !(scaled <= SW_WORKLOAD_MAX_BYTES)) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[col],
		                "size out of range: '%s' x size scale %g is more than 2^50 bytes",
		                s, scale);
		return -EINVAL;
	}
	*out = (uint64_t)llround(scaled);
	return 0;
}

/* The benchmark whose shuffle ratio is closest (in log scale) within the ratio's class: it
 * lends the job its compute rates and demands. */
static uint16_t bench_for(uint64_t input, uint64_t shuffle)
{
	unsigned n;
	const struct sw_bench *b = sw_sim_bench_table(&n);
	double ratio = input ? (double)shuffle / input : shuffle ? HUGE_VAL : 0;
	enum sw_job_class cls = ratio >= HEAVY_RATIO    ? SW_CLASS_HEAVY
	                        : ratio >= MEDIUM_RATIO ? SW_CLASS_MEDIUM
	                                                : SW_CLASS_LIGHT;
	double lr = log(fmin(fmax(ratio, 1e-9), 1e9)), best = HUGE_VAL;
	uint16_t pick = 0;

	for (unsigned i = 0; i < n; i++) {
		double d = fabs(log(b[i].shuffle_ratio) - lr);

		if (b[i].cls == cls && b[i].mix_percent > 0 && d < best) {
			best = d;
			pick = (uint16_t)i;
		}
	}
	return pick;
}

/* Splits @p s at tabs in place; returns the number of columns (up to N_COLS + 1). */
static int split(char *s, char *col[N_COLS + 1])
{
	int n = 0;

	col[n++] = s;
	for (char *p = s; *p && n <= N_COLS; p++)
		if (*p == '\t') {
			*p = '\0';
			col[n++] = p + 1;
		}
	return n;
}

static int parse_line(const struct swim_line *l, char *s, const struct sw_swim_opts *o,
                      struct sw_job_desc *j)
{
	char *col[N_COLS + 1];
	int n = split(s, col), rc;
	double gap;

	if (n < N_COLS) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[n], "missing column (%d of %d)",
		                n, N_COLS);
		return -EINVAL;
	}
	if (n > N_COLS) {
		sw_sim_wl_error(l->err, l->path, l->line, NULL, "more than %d columns", N_COLS);
		return -EINVAL;
	}
	if (!*col[COL_ID]) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[COL_ID], "empty");
		return -EINVAL;
	}
	rc = parse_time(l, COL_SUBMIT, col[COL_SUBMIT], o->time_scale, &j->arrival);
	rc = rc ?: parse_time(l, COL_GAP, col[COL_GAP], o->time_scale, &gap);
	rc = rc ?: parse_size(l, COL_INPUT, col[COL_INPUT], o->size_scale, &j->input_bytes);
	rc = rc ?: parse_size(l, COL_SHUFFLE, col[COL_SHUFFLE], o->size_scale, &j->shuffle_bytes);
	rc = rc ?: parse_size(l, COL_OUTPUT, col[COL_OUTPUT], o->size_scale, &j->output_bytes);
	if (!rc && sw_sim_wl_n_maps(j, SW_BLOCK_BYTES_DEFAULT) > SW_WORKLOAD_MAX_MAPS) {
		sw_sim_wl_error(l->err, l->path, l->line, col_name[COL_INPUT],
		                "%llu maps of 64 MiB, more than %u (lower the size scale)",
		                (unsigned long long)sw_sim_wl_n_maps(j, SW_BLOCK_BYTES_DEFAULT),
		                SW_WORKLOAD_MAX_MAPS);
		rc = -EINVAL;
	}
	return rc;
}

static int opts_valid(const struct sw_swim_opts *o)
{
	return o->time_scale > 0 && isfinite(o->time_scale) && o->size_scale > 0 &&
	       isfinite(o->size_scale) && o->n_users && o->n_users <= SW_SCHED_MAX_USERS &&
	       o->n_queues && o->n_queues <= SW_SCHED_MAX_QUEUES && o->topo.n_racks &&
	       o->topo.nodes_per_rack;
}

static int read_jobs(FILE *f, const char *path, const struct sw_swim_opts *o, struct wl_jobs *jobs,
                     struct sw_input_error *err)
{
	struct swim_line l = {.path = path, .err = err};
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	struct rng r;
	int rc = 0;

	rng_init(&r, o->seed, WL_STREAM_DRAW);
	while (!rc && (len = getline(&buf, &cap, f)) > 0) {
		struct sw_job_desc *j;

		l.line++;
		rc = sw_sim_wl_line_complete(buf, (size_t)len, path, l.line, err);
		if (rc)
			break;
		buf[--len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[--len] = '\0';
		if (!len)
			continue;
		j = WL_PUSH(jobs);
		if (!j) {
			sw_sim_wl_error(err, path, l.line, NULL, "out of memory");
			rc = -ENOMEM;
			break;
		}
		rc = parse_line(&l, buf, o, j);
		j->id = jobs->n - 1;
		j->user = rng_below(&r, o->n_users);
		j->queue = j->user % o->n_queues;
		j->bench = bench_for(j->input_bytes, j->shuffle_bytes);
		j->n_reduces = sw_sim_wl_default_reduces(&o->topo, j->shuffle_bytes);
	}
	if (!rc && ferror(f)) {
		sw_sim_wl_error(err, path, 0, NULL, "read error: %s", strerror(errno));
		rc = -EIO;
	}
	if (!rc && !jobs->n) {
		sw_sim_wl_error(err, path, 0, NULL, "no jobs");
		rc = -EINVAL;
	}
	free(buf);
	return rc;
}

int sw_sim_workload_swim(struct sw_workload *w, const char *path, const struct sw_swim_opts *o,
                         struct sw_input_error *err)
{
	struct wl_jobs jobs = {0};
	FILE *f;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!opts_valid(o)) {
		sw_sim_wl_error(err, path, 0, NULL,
		                "time and size scales, users (at most %u), queues (at most %u) and "
		                "racks must be positive",
		                SW_SCHED_MAX_USERS, SW_SCHED_MAX_QUEUES);
		return -EINVAL;
	}
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		sw_sim_wl_error(err, path, 0, NULL, "%s", strerror(errno));
		return rc;
	}
	rc = read_jobs(f, path, o, &jobs, err);
	fclose(f);
	if (rc) {
		free(jobs.v);
		return rc;
	}
	snprintf(w->name, sizeof(w->name), "swim-%s", sw_sim_wl_basename(path));
	w->topo = o->topo;
	w->n_users = o->n_users;
	w->n_queues = o->n_queues;
	w->block_bytes = SW_BLOCK_BYTES_DEFAULT;
	w->seed = o->seed;
	sw_sim_wl_jobs_give(&jobs, w);
	sw_sim_wl_deadlines(w, WL_DEADLINE_LO, WL_DEADLINE_HI);
	return 0;
}
