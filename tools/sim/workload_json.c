/* SPDX-License-Identifier: MIT */
/*
 * JSON Lines job mixes: one JSON object per line, so that every error can name its line.
 * An optional first {"topology": ...}, an optional {"mix": ...} before the jobs, then one
 * {"job": ...} per line. The format, with an example: README.md, "Workloads".
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload_priv.h"

/* Where a value comes from, for error messages. */
struct where {
	const char *path;
	unsigned line; /* 0 for a whole file (a sibling topology file) */
	struct sw_input_error *err;
};

struct loader {
	struct where at;
	struct sw_workload *w;
	struct wl_jobs jobs;
	uint32_t *lines; /* line of each job, for duplicate-id errors */
	size_t lines_cap;
	struct wl_links links; /* workflow jobs' "after" lists, resolved once sorted */
	int have_mix, users_given;
	uint64_t max_user;
};

static int fail(const struct where *at, const char *field, const char *reason)
{
	sw_sim_wl_error(at->err, at->path, at->line, field, "%s", reason);
	return -EINVAL;
}

/* Every key of @p obj must be in the NULL-terminated @p known. */
static int check_fields(const struct where *at, json_t *obj, const char *const *known)
{
	const char *key;
	json_t *value;

	json_object_foreach(obj, key, value)
	{
		const char *const *k = known;

		while (*k && strcmp(*k, key))
			k++;
		if (!*k)
			return fail(at, key, "unknown field");
	}
	return 0;
}

/* An optional non-negative integer no larger than @p max: 1 if present, 0 if absent. */
static int get_uint(const struct where *at, json_t *obj, const char *name, uint64_t max,
                    const char *negative, uint64_t *out)
{
	json_t *v = json_object_get(obj, name);

	if (!v)
		return 0;
	if (!json_is_integer(v))
		return fail(at, name, "must be an integer");
	if (json_integer_value(v) < 0)
		return fail(at, name, negative);
	if ((uint64_t)json_integer_value(v) > max) {
		sw_sim_wl_error(at->err, at->path, at->line, name, "must be at most %llu",
		                (unsigned long long)max);
		return -EINVAL;
	}
	*out = (uint64_t)json_integer_value(v);
	return 1;
}

static int get_size(const struct where *at, json_t *obj, const char *name, uint64_t *out)
{
	return get_uint(at, obj, name, SW_WORKLOAD_MAX_BYTES, "negative size", out);
}

static int get_count(const struct where *at, json_t *obj, const char *name, uint64_t max,
                     uint64_t *out)
{
	int rc = get_uint(at, obj, name, max, "must be positive", out);

	return rc == 1 && !*out ? fail(at, name, "must be positive") : rc;
}

/* An optional number above @p min (or equal to it, unless @p strict): 1 if present, 0 if
 * absent. */
static int get_num(const struct where *at, json_t *obj, const char *name, double min, int strict,
                   const char *below, double *out)
{
	json_t *v = json_object_get(obj, name);

	if (!v)
		return 0;
	if (!json_is_number(v))
		return fail(at, name, "must be a number");
	if (json_number_value(v) < min || (strict && json_number_value(v) == min))
		return fail(at, name, below);
	*out = json_number_value(v);
	return 1;
}

static int need(const struct where *at, int got, const char *name)
{
	return got == 0 ? fail(at, name, "missing") : got;
}

static int check_topology(const struct where *at, const struct sw_topology *t)
{
	const char *field;
	char why[128];

	return sw_sim_topology_check(t, &field, why, sizeof(why)) < 0 ? fail(at, field, why) : 0;
}

static int parse_topology(const struct where *at, json_t *obj, struct sw_topology *t)
{
	static const char *const known[] = {
	        "racks",        "nodes_per_rack",
	        "nic_bps",      "oversub",
	        "uplink_bps",   "map_slots",
	        "reduce_slots", "cpu",
	        "mem_gb",       "io",
	        "accelerated",  NULL,
	};
	uint64_t racks = 0, per = 0, map_slots = 0, reduce_slots = 0, accelerated = 0;
	int rc;

	if (!json_is_object(obj))
		return fail(at, "topology", "must be an object or a file name");
	sw_sim_topology_default(t);
	rc = check_fields(at, obj, known);
	rc = rc < 0 ? rc : get_count(at, obj, "racks", UINT32_MAX, &racks);
	rc = rc < 0 ? rc : get_count(at, obj, "nodes_per_rack", UINT32_MAX, &per);
	rc = rc < 0 ? rc
	            : get_uint(at, obj, "map_slots", UINT16_MAX, "must not be negative",
	                       &map_slots);
	rc = rc < 0 ? rc
	            : get_uint(at, obj, "reduce_slots", UINT16_MAX, "must not be negative",
	                       &reduce_slots);
	rc = rc < 0 ? rc : get_num(at, obj, "nic_bps", 0, 1, "must be positive", &t->nic_bps);
	rc = rc < 0 ? rc : get_num(at, obj, "oversub", 0, 1, "must be positive", &t->oversub);
	rc = rc < 0 ? rc : get_num(at, obj, "uplink_bps", 0, 1, "must be positive", &t->uplink_bps);
	rc = rc < 0 ? rc : get_num(at, obj, "cpu", 0, 1, "must be positive", &t->node_capacity.cpu);
	rc = rc < 0 ? rc
	            : get_num(at, obj, "mem_gb", 0, 1, "must be positive",
	                      &t->node_capacity.mem_gb);
	rc = rc < 0 ? rc
	            : get_num(at, obj, "io", 0, 0, "must not be negative", &t->node_capacity.io);
	rc = rc < 0 ? rc
	            : get_uint(at, obj, "accelerated", UINT32_MAX, "must not be negative",
	                       &accelerated);
	if (rc < 0)
		return rc;
	if (racks)
		t->n_racks = (uint32_t)racks;
	if (per)
		t->nodes_per_rack = (uint32_t)per;
	if (json_object_get(obj, "map_slots"))
		t->map_slots = (uint16_t)map_slots;
	if (json_object_get(obj, "reduce_slots"))
		t->reduce_slots = (uint16_t)reduce_slots;
	t->accelerated = (uint32_t)accelerated;
	return check_topology(at, t);
}

int sw_sim_topology_json(const char *path, struct sw_topology *t, struct sw_input_error *err)
{
	struct where file = {.path = path, .err = err};
	json_error_t jerr;
	json_t *obj = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	int rc;

	if (!obj) {
		if (json_error_code(&jerr) == json_error_cannot_open_file) {
			sw_sim_wl_error(err, path, 0, NULL, "%s", jerr.text);
			return -ENOENT;
		}
		sw_sim_wl_error(err, path, (unsigned)jerr.line, NULL, "malformed JSON: %s",
		                jerr.text);
		return -EINVAL;
	}
	rc = parse_topology(&file, obj, t);
	json_decref(obj);
	return rc;
}

/* Whether @p path resolves (symbolic links too) to a file inside directory @p dir. */
static int inside(const char *dir, const char *path)
{
	char *rd = realpath(dir, NULL), *rp = realpath(path, NULL);
	size_t n = rd ? strlen(rd) : 0;
	int in = rd && rp && !strncmp(rd, rp, n) && (rp[n] == '/' || (n == 1 && rd[0] == '/'));

	free(rd);
	free(rp);
	return in;
}

/*
 * {"topology": "file.json"}: a file in the mix's directory (or below it) holding the
 * topology object. A mix may come from anyone: it may not make swctl read files elsewhere
 * (swctl's --topology, given by the user, may).
 */
static int load_topology_file(const struct where *at, const char *name, struct sw_topology *t)
{
	const char *slash = strrchr(at->path, '/');
	int dir_len = slash ? (int)(slash - at->path + 1) : 0;
	char path[4096], dir[4096];
	int rc;

	snprintf(dir, sizeof(dir), "%.*s", dir_len ? dir_len : 1, dir_len ? at->path : ".");
	if (name[0] == '/' ||
	    snprintf(path, sizeof(path), "%.*s%s", dir_len, at->path, name) >= (int)sizeof(path))
		return fail(at, "topology", "must name a file in the mix file's directory");
	if (access(path, R_OK) < 0) {
		rc = -errno;
		sw_sim_wl_error(at->err, at->path, at->line, "topology", "%s: %s", name,
		                strerror(errno));
		return rc;
	}
	/* Checked before reading: nothing outside is opened. */
	if (!inside(dir, path))
		return fail(at, "topology",
		            "leaves the mix file's directory (give it with swctl's --topology)");
	return sw_sim_topology_json(path, t, at->err);
}

/* Coefficient of variation @p key of benchmark @p bench's "spread" entry @p cvs, if present:
 * a number in [0, SW_SIM_MAX_SPREAD]. Errors name the field "spread.BENCH.KEY". */
static int get_cv(const struct where *at, json_t *cvs, const char *bench, const char *key,
                  double *out)
{
	json_t *v = json_object_get(cvs, key);
	char field[96];

	if (!v)
		return 0;
	snprintf(field, sizeof(field), "spread.%s.%s", bench, key);
	if (!json_is_number(v))
		return fail(at, field, "must be a number");
	if (!(json_number_value(v) >= 0 && json_number_value(v) <= SW_SIM_MAX_SPREAD)) {
		sw_sim_wl_error(at->err, at->path, at->line, field, "must be in [0, %g]",
		                SW_SIM_MAX_SPREAD);
		return -EINVAL;
	}
	*out = json_number_value(v);
	return 1;
}

/* "spread": {"BENCH": {"map": CV, "reduce": CV}, ...}: how each benchmark's task lengths vary
 * (README.md, "Task lengths"). */
static int parse_spread(const struct where *at, json_t *obj, struct sw_workload *w)
{
	static const char *const known[] = {"map", "reduce", NULL};
	const char *name;
	json_t *cvs;

	if (!json_is_object(obj))
		return fail(at, "spread", "must be an object");
	json_object_foreach(obj, name, cvs)
	{
		int bench = sw_sim_bench_find(name);
		int rc;

		if (bench < 0) {
			sw_sim_wl_error(at->err, at->path, at->line, "spread",
			                "unknown benchmark '%s'", name);
			return -EINVAL;
		}
		if (!json_is_object(cvs))
			return fail(at, "spread", "each benchmark's entry must be an object");
		rc = check_fields(at, cvs, known);
		rc = rc < 0 ? rc : get_cv(at, cvs, name, "map", &w->spread[bench].map_cv);
		rc = rc < 0 ? rc : get_cv(at, cvs, name, "reduce", &w->spread[bench].reduce_cv);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int parse_mix(struct loader *ld, json_t *obj)
{
	static const char *const known[] = {"users", "queues", "block_bytes",
	                                    "seed",  "spread", NULL};
	const struct where *at = &ld->at;
	struct sw_workload *w = ld->w;
	uint64_t users = 0, queues = 0, block = 0, seed = 0;
	int rc;

	if (!json_is_object(obj))
		return fail(at, "mix", "must be an object");
	if (ld->have_mix || ld->jobs.n)
		return fail(at, "mix", "must come once, before the jobs");
	ld->have_mix = 1;
	rc = check_fields(at, obj, known);
	rc = rc < 0 ? rc : get_count(at, obj, "users", SW_SCHED_MAX_USERS, &users);
	ld->users_given = rc == 1;
	rc = rc < 0 ? rc : get_count(at, obj, "queues", SW_SCHED_MAX_QUEUES, &queues);
	rc = rc < 0 ? rc : get_count(at, obj, "block_bytes", INT64_MAX, &block);
	rc = rc < 0 ? rc : get_uint(at, obj, "seed", INT64_MAX, "must not be negative", &seed);
	if (rc >= 0 && json_object_get(obj, "spread"))
		rc = parse_spread(at, json_object_get(obj, "spread"), w);
	if (rc < 0)
		return rc;
	w->n_users = ld->users_given ? (uint32_t)users : 0;
	w->n_queues = queues ? (uint32_t)queues : w->n_queues;
	w->block_bytes = block ? block : w->block_bytes;
	w->seed = json_object_get(obj, "seed") ? seed : w->seed;
	return 0;
}

static int parse_job_sizes(const struct loader *ld, json_t *obj, const struct sw_bench *b,
                           struct sw_job_desc *j)
{
	const struct where *at = &ld->at;
	uint64_t reduces = 0;
	int rc;

	rc = need(at, get_size(at, obj, "input_bytes", &j->input_bytes), "input_bytes");
	if (rc < 0)
		return rc;
	rc = get_size(at, obj, "shuffle_bytes", &j->shuffle_bytes);
	if (rc == 0)
		j->shuffle_bytes = llround(j->input_bytes * b->shuffle_ratio);
	rc = rc < 0 ? rc : get_size(at, obj, "output_bytes", &j->output_bytes);
	if (rc == 0)
		j->output_bytes = llround(j->shuffle_bytes * b->output_ratio);
	rc = rc < 0 ? rc : get_count(at, obj, "reduces", SW_WORKLOAD_MAX_REDUCES, &reduces);
	if (rc < 0)
		return rc;
	if (sw_sim_wl_n_maps(j, ld->w->block_bytes) > SW_WORKLOAD_MAX_MAPS) {
		sw_sim_wl_error(at->err, at->path, at->line, "input_bytes",
		                "%llu maps of block_bytes %llu, more than %u (raise block_bytes)",
		                (unsigned long long)sw_sim_wl_n_maps(j, ld->w->block_bytes),
		                (unsigned long long)ld->w->block_bytes, SW_WORKLOAD_MAX_MAPS);
		return -EINVAL;
	}
	j->n_reduces = reduces ? (uint32_t)reduces
	                       : sw_sim_wl_default_reduces(&ld->w->topo, j->shuffle_bytes);
	if (reduces * ld->w->topo.n_racks * ld->w->topo.nodes_per_rack >
	    SW_WORKLOAD_MAX_REDUCE_NODES) {
		sw_sim_wl_error(
		        at->err, at->path, at->line, "reduces",
		        "%llu reducers x %u nodes is more than 2^24 (each keeps state per node)",
		        (unsigned long long)reduces,
		        ld->w->topo.n_racks * ld->w->topo.nodes_per_rack);
		return -EINVAL;
	}
	return 0;
}

/* "workflow": N and "after": [ids of earlier jobs of workflow N], resolved once sorted. */
static int parse_job_links(struct loader *ld, json_t *obj, struct sw_job_desc *j)
{
	const struct where *at = &ld->at;
	json_t *after = json_object_get(obj, "after"), *v;
	uint64_t wf = 0;
	struct wl_link *k;
	size_t i;
	int rc;

	rc = get_uint(at, obj, "workflow", SW_WORKLOAD_MAX_WORKFLOW, "must not be negative", &wf);
	if (rc < 0)
		return rc;
	j->workflow = rc == 1 ? (uint32_t)wf + 1 : 0;
	if (!after)
		return 0;
	if (!j->workflow)
		return fail(at, "after", "needs the job's \"workflow\"");
	if (!json_is_array(after) || json_array_size(after) > SW_WORKLOAD_MAX_AFTER)
		return fail(at, "after", "must be an array of at most 8 job ids");
	k = WL_PUSH(&ld->links);
	if (!k)
		return -ENOMEM;
	*k = (struct wl_link){.job = j->id, .line = at->line};
	json_array_foreach(after, i, v)
	{
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(at, "after", "must hold job ids (integers, not negative)");
		k->after[k->n++] = (uint64_t)json_integer_value(v);
	}
	return 0;
}

static int parse_job(struct loader *ld, json_t *obj)
{
	static const char *const known[] = {
	        "id",          "arrival",       "user",         "queue",   "bench",
	        "input_bytes", "shuffle_bytes", "output_bytes", "reduces", "deadline",
	        "workflow",    "after",         "speedup",      NULL,
	};
	const struct where *at = &ld->at;
	struct sw_workload *w = ld->w;
	uint64_t user_max = (ld->users_given ? w->n_users : SW_SCHED_MAX_USERS) - 1;
	uint64_t id = 0, user = 0, queue = 0;
	struct sw_job_desc *j;
	json_t *bench;
	int rc, b;

	if (!json_is_object(obj))
		return fail(at, "job", "must be an object");
	rc = check_fields(at, obj, known);
	rc = rc < 0 ? rc
	            : need(at, get_uint(at, obj, "id", INT64_MAX, "must not be negative", &id),
	                   "id");
	rc = rc < 0 ? rc
	            : need(at, get_uint(at, obj, "user", user_max, "must not be negative", &user),
	                   "user");
	rc = rc < 0 ? rc
	            : get_uint(at, obj, "queue", w->n_queues - 1, "must not be negative", &queue);
	if (rc < 0)
		return rc;
	bench = json_object_get(obj, "bench");
	if (!bench)
		return fail(at, "bench", "missing");
	if (!json_is_string(bench))
		return fail(at, "bench", "must be a string");
	b = sw_sim_bench_find(json_string_value(bench));
	if (b < 0) {
		sw_sim_wl_error(at->err, at->path, at->line, "bench", "unknown benchmark '%s'",
		                json_string_value(bench));
		return -EINVAL;
	}
	if (ld->jobs.n == ld->lines_cap) {
		size_t cap = ld->lines_cap ? 2 * ld->lines_cap : 256;
		uint32_t *lines = realloc(ld->lines, cap * sizeof(*lines));

		if (!lines)
			return -ENOMEM;
		ld->lines = lines;
		ld->lines_cap = cap;
	}
	j = WL_PUSH(&ld->jobs);
	if (!j)
		return -ENOMEM;
	ld->lines[ld->jobs.n - 1] = at->line;
	j->id = id;
	j->user = (uint32_t)user;
	j->queue = json_object_get(obj, "queue") ? (uint32_t)queue : j->user % w->n_queues;
	j->bench = (uint16_t)b;
	ld->max_user = user > ld->max_user ? user : ld->max_user;
	rc = need(at, get_num(at, obj, "arrival", 0, 0, "must not be negative", &j->arrival),
	          "arrival");
	rc = rc < 0 ? rc
	            : get_num(at, obj, "deadline", j->arrival, 1, "must be after the arrival",
	                      &j->deadline);
	if (rc >= 0 && (j->arrival > SW_WORKLOAD_MAX_TIME || j->deadline > SW_WORKLOAD_MAX_TIME))
		return fail(at, j->arrival > SW_WORKLOAD_MAX_TIME ? "arrival" : "deadline",
		            "must be at most 1e9 seconds");
	rc = rc < 0 ? rc : get_num(at, obj, "speedup", 1, 0, "must be at least 1", &j->speedup);
	if (rc >= 0 && j->speedup > SW_WORKLOAD_MAX_SPEEDUP)
		return fail(at, "speedup", "must be at most 100");
	rc = rc < 0 ? rc : parse_job_links(ld, obj, j);
	return rc < 0 ? rc : parse_job_sizes(ld, obj, &sw_sim_bench_table(NULL)[b], j);
}

/* One line: exactly one of {"topology": ...}, {"mix": ...}, {"job": ...}. */
static int parse_record(struct loader *ld, const char *text, int first)
{
	const struct where *at = &ld->at;
	json_error_t jerr;
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	const char *key;
	json_t *value;
	int rc;

	if (!root) {
		sw_sim_wl_error(at->err, at->path, at->line, NULL, "malformed JSON: %s (column %d)",
		                jerr.text, jerr.column);
		return -EINVAL;
	}
	if (!json_is_object(root) || json_object_size(root) != 1) {
		json_decref(root);
		return fail(at, NULL, "expected one object with one key: topology, mix or job");
	}
	key = json_object_iter_key(json_object_iter(root));
	value = json_object_iter_value(json_object_iter(root));
	if (!strcmp(key, "job"))
		rc = parse_job(ld, value);
	else if (!strcmp(key, "mix"))
		rc = parse_mix(ld, value);
	else if (strcmp(key, "topology"))
		rc = fail(at, key, "unknown record (expected topology, mix or job)");
	else if (!first)
		rc = fail(at, key, "must be the first record");
	else if (json_is_string(value))
		rc = load_topology_file(at, json_string_value(value), &ld->w->topo);
	else
		rc = parse_topology(at, value, &ld->w->topo);
	json_decref(root);
	return rc;
}

static int by_id(const void *pa, const void *pb)
{
	const uint64_t *a = pa, *b = pb;

	return (a[0] > b[0]) - (a[0] < b[0]);
}

/* Job ids must be unique: the scheduler keys jobs by id. */
static int check_ids(struct loader *ld)
{
	size_t n = ld->jobs.n;
	uint64_t(*pairs)[2] = malloc(n * sizeof(*pairs));
	int rc = 0;

	if (!pairs)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pairs[i][0] = ld->jobs.v[i].id;
		pairs[i][1] = ld->lines[i];
	}
	/* qsort may order equal ids either way: report the later line of the two. */
	qsort(pairs, n, sizeof(*pairs), by_id);
	for (size_t i = 1; i < n && !rc; i++) {
		if (pairs[i][0] != pairs[i - 1][0])
			continue;
		ld->at.line =
		        (unsigned)(pairs[i][1] > pairs[i - 1][1] ? pairs[i][1] : pairs[i - 1][1]);
		sw_sim_wl_error(ld->at.err, ld->at.path, ld->at.line, "id", "duplicate id %llu",
		                (unsigned long long)pairs[i][0]);
		rc = -EINVAL;
	}
	free(pairs);
	return rc;
}

static int read_records(struct loader *ld, FILE *f)
{
	char *buf = NULL;
	size_t cap = 0;
	ssize_t len;
	int rc = 0, first = 1;

	while (!rc && (len = getline(&buf, &cap, f)) > 0) {
		ld->at.line++;
		rc = sw_sim_wl_line_complete(buf, (size_t)len, ld->at.path, ld->at.line,
		                             ld->at.err);
		if (rc || buf[strspn(buf, " \t\r\n")] == '\0')
			continue;
		rc = parse_record(ld, buf, first);
		first = 0;
	}
	if (!rc && ferror(f)) {
		sw_sim_wl_error(ld->at.err, ld->at.path, 0, NULL, "read error: %s",
		                strerror(errno));
		rc = -EIO;
	}
	free(buf);
	if (!rc && !ld->jobs.n)
		rc = fail(&(struct where){ld->at.path, 0, ld->at.err}, NULL, "no jobs");
	return rc ? rc : check_ids(ld);
}

int sw_sim_workload_json(struct sw_workload *w, const char *path, struct sw_input_error *err)
{
	struct loader ld = {.at = {.path = path, .err = err}, .w = w};
	FILE *f;
	int rc;

	memset(w, 0, sizeof(*w));
	sw_sim_topology_default(&w->topo);
	w->n_queues = 3;
	w->block_bytes = SW_BLOCK_BYTES_DEFAULT;
	w->seed = 1;
	f = fopen(path, "r");
	if (!f) {
		rc = -errno;
		sw_sim_wl_error(err, path, 0, NULL, "%s", strerror(errno));
		return rc;
	}
	rc = read_records(&ld, f);
	fclose(f);
	free(ld.lines);
	if (rc) {
		free(ld.links.v);
		free(ld.jobs.v);
		memset(w, 0, sizeof(*w));
		return rc;
	}
	snprintf(w->name, sizeof(w->name), "%s", sw_sim_wl_basename(path));
	if (!ld.users_given)
		w->n_users = (uint32_t)ld.max_user + 1;
	sw_sim_wl_jobs_give(&ld.jobs, w);
	rc = sw_sim_wl_workflows(w, &ld.links, path, err);
	free(ld.links.v);
	if (rc) {
		sw_sim_workload_free(w);
		memset(w, 0, sizeof(*w));
	}
	return rc;
}
