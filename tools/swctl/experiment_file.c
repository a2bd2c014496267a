/* SPDX-License-Identifier: MIT */
/*
 * Reading an experiment file: every key checked, and each run turned into the argument list
 * of the swctl replay or swctl sweep it stands for.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"

/* Options a run cannot set: swctl experiment decides them for all runs. */
static const char *const not_per_run[] = {"out", "jobs", "help", NULL};

int exp_fail(const struct experiment *e, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", e->file);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EINVAL;
}

/* A member an object may have; read_fields() sets *out to it, or NULL when absent. */
struct field {
	const char *key;
	json_type type; /* JSON_REAL stands for any number, JSON_TRUE for true or false */
	int required;
	json_t **out;
};

/* Reads @p obj's members as @p fields lists them; any other key is an error. */
static int read_fields(const struct experiment *e, json_t *obj, const char *where,
                       const struct field *fields)
{
	static const char *const names[] = {[JSON_OBJECT] = "an object",
	                                    [JSON_ARRAY] = "an array",
	                                    [JSON_STRING] = "a string",
	                                    [JSON_REAL] = "a number",
	                                    [JSON_TRUE] = "true or false"};
	const char *key, *dot = *where ? "." : "";
	json_t *v;

	if (!json_is_object(obj))
		return exp_fail(e, "%s: expected an object", *where ? where : "top level");
	json_object_foreach(obj, key, v)
	{
		const struct field *f = fields;

		while (f->key && strcmp(f->key, key))
			f++;
		if (!f->key)
			return exp_fail(e, "%s%s%s: unknown key", where, dot, key);
	}
	for (const struct field *f = fields; f->key; f++) {
		json_t *m = json_object_get(obj, f->key);

		*f->out = m;
		if (!m && f->required)
			return exp_fail(e, "%s%smissing \"%s\"", where, *where ? ": " : "", f->key);
		if (m && (f->type == JSON_REAL   ? !json_is_number(m)
		          : f->type == JSON_TRUE ? !json_is_boolean(m)
		                                 : json_typeof(m) != f->type))
			return exp_fail(e, "%s%s%s: expected %s", where, dot, f->key,
			                names[f->type]);
	}
	return 0;
}

int exp_scalar(json_t *v, char *buf, size_t len)
{
	int n;

	if (json_is_string(v))
		n = snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		n = snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		n = snprintf(buf, len, "%.15g", json_real_value(v));
	else
		return -EINVAL;
	return n >= 0 && (size_t)n < len ? 0 : -EINVAL;
}

/* Appends "--KEY=VALUE" (or "--KEY" for a true flag) to the run's arguments. */
static int add_option(const struct experiment *e, struct exp_run *r, const char *where,
                      const char *key, json_t *v)
{
	char val[512];
	int takes = options_lookup(key), n;

	for (const char *const *k = not_per_run; *k; k++)
		if (!strcmp(*k, key))
			return exp_fail(
			        e, "%s.%s: set by swctl experiment's command line, not per run",
			        where, key);
	if (takes < 0)
		return exp_fail(e, "%s.%s: not a replay option (swctl replay --help lists them)",
		                where, key);
	if (!takes) {
		if (!json_is_boolean(v))
			return exp_fail(e, "%s.%s: expected true or false", where, key);
		if (json_is_false(v))
			return 0;
		n = asprintf(&r->argv[r->argc], "--%s", key);
	} else {
		if (exp_scalar(v, val, sizeof(val)) < 0)
			return exp_fail(e, "%s.%s: expected a number or a string", where, key);
		n = asprintf(&r->argv[r->argc], "--%s=%s", key, val);
	}
	if (n < 0)
		return -ENOMEM;
	r->argc++;
	return 0;
}

static int add_arg(struct exp_run *r, const char *fmt, const char *arg)
{
	if (asprintf(&r->argv[r->argc], fmt, arg) < 0)
		return -ENOMEM;
	r->argc++;
	return 0;
}

/* Replay option @p name set to @p value for every run by swctl experiment's command line (none
 * when @p value is NULL): added after the file's options, so that it wins over them, and
 * refused where the run sweeps it. */
static int add_override(const struct experiment *e, struct exp_run *r, const char *where,
                        json_t *sweep, const char *name, const char *value)
{
	char arg[64];

	if (!value)
		return 0;
	if (json_object_get(sweep, name))
		return exp_fail(e, "%s.sweep.%s: swept, so --%s cannot set it", where, name, name);
	snprintf(arg, sizeof(arg), "--%s=%%s", name);
	return add_arg(r, arg, value);
}

/* "--param=KEY=V1,V2,..." for each swept option, in the file's order. */
static int add_sweep(const struct experiment *e, struct exp_run *r, const char *where,
                     json_t *sweep)
{
	char list[4096], val[512], w[128];
	const char *key;
	json_t *values, *v;
	size_t i;

	if (json_object_size(sweep) < 1 || json_object_size(sweep) > GRID_MAX_PARAMS)
		return exp_fail(e, "%s.sweep: expected one or two options", where);
	json_object_foreach(sweep, key, values)
	{
		size_t used = 0;

		snprintf(w, sizeof(w), "%s.sweep.%s", where, key);
		if (options_lookup(key) != 1)
			return exp_fail(e, "%s: not a replay option that takes a value", w);
		if (!json_is_array(values) || json_array_size(values) == 0)
			return exp_fail(e, "%s: expected a non-empty array of values", w);
		json_array_foreach(values, i, v)
		{
			if (exp_scalar(v, val, sizeof(val)) < 0 || strchr(val, ','))
				return exp_fail(
				        e, "%s[%zu]: expected a number or a string without ','", w,
				        i);
			used += snprintf(list + used, sizeof(list) - used, "%s%s", i ? "," : "",
			                 val);
			if (used >= sizeof(list))
				return exp_fail(e, "%s: too many values", w);
		}
		if (asprintf(&r->argv[r->argc], "--param=%s=%s", key, list) < 0)
			return -ENOMEM;
		r->argc++;
	}
	return 0;
}

static int build_argv(const struct experiment *e, struct exp_run *r, const char *where,
                      json_t *defaults, json_t *options, json_t *sweep)
{
	char dir[1024], jobs[32];
	const char *key;
	json_t *v;
	int rc = 0;

	/* the command, the network overrides, --out, --jobs, --quiet, --no-plot and the NULL */
	r->argv = calloc(json_object_size(defaults) + json_object_size(options) + GRID_MAX_PARAMS +
	                         EXP_NET_OPTS + 6,
	                 sizeof(char *));
	if (!r->argv)
		return -ENOMEM;
	rc = add_arg(r, "%s", r->is_sweep ? "sweep" : "replay");
	/* Defaults first, without what the run sets or sweeps itself. */
	json_object_foreach(defaults, key, v)
	{
		if (rc == 0 && !json_object_get(options, key) && !json_object_get(sweep, key))
			rc = add_option(e, r, "defaults", key, v);
	}
	json_object_foreach(options, key, v)
	{
		if (rc == 0 && json_object_get(sweep, key))
			rc = exp_fail(e, "%s.options.%s: also swept in %s.sweep", where, key,
			              where);
		if (rc == 0) {
			char w[128];

			snprintf(w, sizeof(w), "%s.options", where);
			rc = add_option(e, r, w, key, v);
		}
	}
	for (int i = 0; rc == 0 && i < EXP_NET_OPTS; i++)
		rc = add_override(e, r, where, sweep, exp_net_names[i], e->net[i]);
	if (rc == 0 && sweep)
		rc = add_sweep(e, r, where, sweep);
	snprintf(dir, sizeof(dir), "%s/%s", e->out, r->name);
	snprintf(jobs, sizeof(jobs), "%d", e->workers);
	if (rc == 0)
		rc = add_arg(r, "--out=%s", dir);
	if (rc == 0)
		rc = add_arg(r, "--jobs=%s", jobs);
	if (rc == 0 && !e->progress)
		rc = add_arg(r, "%s", "--quiet");
	if (rc == 0 && !e->plot)
		rc = add_arg(r, "%s", "--no-plot");
	return rc;
}

static int valid_name(const char *s)
{
	if (!*s || *s == '.')
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && !strchr("._-", *s))
			return 0;
	return 1;
}

static int read_entries(struct experiment *e, struct exp_run *r, const char *where, json_t *paper)
{
	size_t i;
	json_t *p;

	r->entries = calloc(json_array_size(paper) + 1, sizeof(*r->entries));
	if (!r->entries)
		return -ENOMEM;
	json_array_foreach(paper, i, p)
	{
		struct exp_entry *en = &r->entries[r->n_entries++];
		json_t *sched, *cls, *metric, *value, *base, *note;
		const struct field fields[] = {
		        {"scheduler", JSON_STRING, 1, &sched}, {"class", JSON_STRING, 0, &cls},
		        {"metric", JSON_STRING, 1, &metric},   {"value", JSON_REAL, 1, &value},
		        {"at", JSON_OBJECT, 0, &en->at},       {"baseline", JSON_STRING, 0, &base},
		        {"note", JSON_STRING, 0, &note},       {NULL, 0, 0, NULL},
		};
		const char *m;

		snprintf(en->where, sizeof(en->where), "%s.paper[%zu]", where, i);
		if (read_fields(e, p, en->where, fields) < 0)
			return -EINVAL;
		en->scheduler = json_string_value(sched);
		en->cls = cls ? json_string_value(cls) : "all";
		en->baseline = base ? json_string_value(base) : NULL;
		en->note = note ? json_string_value(note) : "";
		en->paper = json_number_value(value);
		m = json_string_value(metric);
		for (en->metric = 0; en->metric < EXP_METRICS; en->metric++)
			if (!strcmp(exp_metric_names[en->metric], m))
				break;
		if (en->metric == EXP_METRICS)
			return exp_fail(
			        e,
			        "%s.metric: unknown metric '%s' (known: throughput, turnaround, "
			        "xrack, xrack_shuffle, xrack_map_input, work_throughput, "
			        "xrack_paper)",
			        en->where, m);
	}
	return 0;
}

static int read_run(struct experiment *e, int i, json_t *run, json_t *defaults)
{
	struct exp_run *r = &e->runs[i];
	json_t *name, *desc, *options, *sweep, *paper, *calibrate;
	const struct field fields[] = {
	        {"name", JSON_STRING, 1, &name},
	        {"description", JSON_STRING, 0, &desc},
	        {"options", JSON_OBJECT, 0, &options},
	        {"sweep", JSON_OBJECT, 0, &sweep},
	        {"paper", JSON_ARRAY, 0, &paper},
	        {"calibrate", JSON_TRUE, 0, &calibrate},
	        {NULL, 0, 0, NULL},
	};
	char where[32];
	int rc;

	snprintf(where, sizeof(where), "runs[%d]", i);
	if (read_fields(e, run, where, fields) < 0)
		return -EINVAL;
	r->name = json_string_value(name);
	if (!valid_name(r->name))
		return exp_fail(e,
		                "%s.name: '%s' is not a directory name (letters, digits, '.', '_', "
		                "'-')",
		                where, r->name);
	for (int k = 0; k < i; k++)
		if (!strcmp(e->runs[k].name, r->name))
			return exp_fail(e, "%s.name: '%s' is also runs[%d]'s name", where, r->name,
			                k);
	snprintf(r->prefix, sizeof(r->prefix), "%s: %s (%s)", e->file, where, r->name);
	r->is_sweep = sweep != NULL;
	r->calibrate = json_is_true(calibrate);
	rc = build_argv(e, r, where, defaults, options, sweep);
	if (rc == 0 && paper)
		rc = read_entries(e, r, where, paper);
	return rc;
}

int exp_read_file(struct experiment *e)
{
	json_t *desc, *defaults, *runs, *run;
	const struct field fields[] = {
	        {"description", JSON_STRING, 0, &desc},
	        {"defaults", JSON_OBJECT, 0, &defaults},
	        {"runs", JSON_ARRAY, 1, &runs},
	        {NULL, 0, 0, NULL},
	};
	json_error_t err;
	size_t i;
	int rc;

	e->root = json_load_file(e->file, JSON_REJECT_DUPLICATES, &err);
	if (!e->root) {
		if (err.line > 0)
			fprintf(stderr, "%s:%d:%d: %s\n", e->file, err.line, err.column, err.text);
		else
			fprintf(stderr, "%s\n", err.text);
		return -EINVAL;
	}
	if (read_fields(e, e->root, "", fields) < 0)
		return -EINVAL;
	e->description = desc ? json_string_value(desc) : "";
	if (json_array_size(runs) == 0)
		return exp_fail(e, "runs: no runs");
	e->runs = calloc(json_array_size(runs), sizeof(*e->runs));
	if (!e->runs)
		return -ENOMEM;
	json_array_foreach(runs, i, run)
	{
		e->n_runs++;
		rc = read_run(e, (int)i, run, defaults);
		if (rc < 0)
			return rc;
	}
	return 0;
}
