/* SPDX-License-Identifier: MIT */
/*
 * A job's spec as POST /jobs takes it and the state database keeps it: JSON in, checked and
 * bounded field by field (an error names the field), and JSON out, which reads back to the same
 * job. The bytes come from the network: tests/controller/fuzz_job.c fuzzes this file alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctl.h"

void sw_ctl_job_free(struct ctl_job *j)
{
	if (j == NULL)
		return;
	for (int k = 0; k < SW_KINDS; k++) {
		for (char **a = j->argv[k]; a && *a; a++)
			free(*a);
		free(j->argv[k]);
		free(j->tasks[k]);
	}
	free(j->parts);
	free(j);
}

/* An exec command: an array of 1..CTL_MAX_ARGV strings. */
static int argv_from_json(json_t *a, char ***out, const char *what, char *err, size_t errlen)
{
	size_t n = json_array_size(a);
	if (!json_is_array(a) || n == 0 || n > CTL_MAX_ARGV)
		return sw_ctl_errf(err, errlen, -EINVAL, "exec.%s: not an array of 1..%d strings",
		                   what, CTL_MAX_ARGV);
	char **v = calloc(n + 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	*out = v;
	for (size_t i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(a, i));
		if (s == NULL)
			return sw_ctl_errf(err, errlen, -EINVAL, "exec.%s[%zu]: not a string", what,
			                   i);
		if ((v[i] = strdup(s)) == NULL)
			return -ENOMEM;
	}
	return 0;
}

int sw_ctl_job_from_json(uint32_t users, const char *spec, struct ctl_job **out, char *err,
                         size_t errlen)
{
	json_error_t je;
	json_t *root = json_loads(spec, JSON_REJECT_DUPLICATES, &je), *exec = NULL;
	if (root == NULL)
		return sw_ctl_errf(err, errlen, -EINVAL, "job is not JSON: %s (line %d, column %d)",
		                   je.text, je.line, je.column);
	struct ctl_job *j = calloc(1, sizeof(*j));
	if (j == NULL) {
		json_decref(root);
		return -ENOMEM;
	}
	const char *name = "";
	json_int_t user = 0, maps = 0, reduces = 0, replicas = 1;
	json_int_t in = 64 << 20, mout = -1, rout = -1;
	double rate = 100e6, rrate = -1, deadline = 0;
	json_t *deadline_v = NULL;
	int rc = 0;
	if (json_unpack_ex(root, &je, JSON_STRICT,
	                   "{s?s, s?I, s:I, s:I, s?I, s?I, s?I, s?F, s?F, s?I, s?o, s?o}", "name",
	                   &name, "user", &user, "maps", &maps, "reduces", &reduces, "input_bytes",
	                   &in, "map_output_bytes", &mout, "reduce_output_bytes", &rout,
	                   "compute_bytes_per_s", &rate, "reduce_compute_bytes_per_s", &rrate,
	                   "output_replicas", &replicas, "deadline_s", &deadline_v, "exec",
	                   &exec) < 0)
		rc = sw_ctl_errf(err, errlen, -EINVAL, "job: %s", je.text);
	else if (strlen(name) >= sizeof(j->name))
		rc = sw_ctl_errf(err, errlen, -EINVAL, "name: longer than %zu characters",
		                 sizeof(j->name) - 1);
	else if (user < 0 || user >= users)
		rc = sw_ctl_errf(err, errlen, -EINVAL, "user: %lld is not in 0..%u",
		                 (long long)user, users - 1);
	else if (maps < 1 || maps > CTL_MAX_MAPS)
		rc = sw_ctl_errf(err, errlen, -EINVAL, "maps: %lld is not in 1..%d",
		                 (long long)maps, CTL_MAX_MAPS);
	else if (reduces < 0 || reduces > CTL_MAX_REDUCES || maps * reduces > CTL_MAX_PARTS)
		rc = sw_ctl_errf(err, errlen, -EINVAL,
		                 "reduces: %lld is not in 0..%d, or maps x reduces > %d",
		                 (long long)reduces, CTL_MAX_REDUCES, CTL_MAX_PARTS);
	else if (in < 0 || mout < -1 || rout < -1 || !(rate > 0) || rate > 1e15 ||
	         (rrate != -1 && (!(rrate > 0) || rrate > 1e15)))
		rc = sw_ctl_errf(err, errlen, -EINVAL,
		                 "sizes must be >= 0 and compute rates > 0 (at most 1e15)");
	else if (replicas < 0 || replicas > 8)
		rc = sw_ctl_errf(err, errlen, -EINVAL, "output_replicas: %lld is not in 0..8",
		                 (long long)replicas);
	else if (deadline_v != NULL && !json_is_number(deadline_v))
		rc = sw_ctl_errf(err, errlen, -EINVAL, "deadline_s: not a number of seconds");
	else if ((deadline = json_number_value(deadline_v)) < 0 || deadline > CTL_MAX_DEADLINE)
		rc = sw_ctl_errf(err, errlen, -EINVAL,
		                 "deadline_s: %g is not in 0..%g (seconds after submission, 0 "
		                 "for none)",
		                 deadline, CTL_MAX_DEADLINE);
	else if (exec != NULL) {
		json_t *m = json_object_get(exec, "map"), *r = json_object_get(exec, "reduce");
		if (!json_is_object(exec) || !m || (reduces > 0) != (r != NULL) ||
		    json_object_size(exec) != 1u + (r != NULL))
			rc = sw_ctl_errf(err, errlen, -EINVAL,
			                 "exec: expected {\"map\": [...], \"reduce\": [...]} "
			                 "(\"reduce\" only with reduces)");
		else if ((rc = argv_from_json(m, &j->argv[SW_MAP], "map", err, errlen)) == 0 && r)
			rc = argv_from_json(r, &j->argv[SW_REDUCE], "reduce", err, errlen);
	}
	if (rc == 0) {
		strcpy(j->name, name);
		j->user = (uint32_t)user;
		j->n_maps = (uint32_t)maps;
		j->n_reduces = (uint32_t)reduces;
		j->input_bytes = (uint64_t)in;
		j->map_output_bytes = mout < 0 ? (uint64_t)in : (uint64_t)mout;
		j->reduce_output_bytes = rout >= 0 ? (uint64_t)rout
		                         : reduces ? j->map_output_bytes * j->n_maps / j->n_reduces
		                                   : 0;
		j->compute_bps = rate;
		j->reduce_compute_bps = rrate == -1 ? rate : rrate;
		j->output_replicas = (uint32_t)replicas;
		j->deadline_s = deadline;
		for (int k = 0; k < SW_KINDS; k++) {
			uint32_t n = k == SW_MAP ? j->n_maps : j->n_reduces;
			if ((j->tasks[k] = calloc(n ? n : 1, sizeof(struct ctl_task))) == NULL)
				rc = -ENOMEM;
		}
		j->parts = calloc((size_t)j->n_maps * j->n_reduces + 1, sizeof(*j->parts));
		if (j->parts == NULL)
			rc = -ENOMEM;
	}
	json_decref(root);
	if (rc == -ENOMEM)
		sw_ctl_errf(err, errlen, -EINVAL, "out of memory");
	if (rc < 0) {
		sw_ctl_job_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

char *sw_ctl_job_json(const struct ctl_job *j)
{
	json_t *o =
	        json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:I}", "name", j->name,
	                  "user", (json_int_t)j->user, "maps", (json_int_t)j->n_maps, "reduces",
	                  (json_int_t)j->n_reduces, "input_bytes", (json_int_t)j->input_bytes,
	                  "map_output_bytes", (json_int_t)j->map_output_bytes,
	                  "reduce_output_bytes", (json_int_t)j->reduce_output_bytes,
	                  "compute_bytes_per_s", j->compute_bps, "reduce_compute_bytes_per_s",
	                  j->reduce_compute_bps, "output_replicas", (json_int_t)j->output_replicas);
	if (o != NULL && j->deadline_s > 0)
		json_object_set_new(o, "deadline_s", json_real(j->deadline_s));
	if (o != NULL && j->argv[SW_MAP] != NULL) {
		json_t *e = json_object();
		for (int k = 0; k < SW_KINDS; k++) {
			json_t *a = json_array();
			for (char **p = j->argv[k]; p && *p; p++)
				json_array_append_new(a, json_string(*p));
			if (j->argv[k])
				json_object_set_new(e, k == SW_MAP ? "map" : "reduce", a);
			else
				json_decref(a);
		}
		json_object_set_new(o, "exec", e);
	}
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s;
}
