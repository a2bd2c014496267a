/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for a job's spec as POST /jobs takes it (controller/job_spec.c): any bytes
 * are refused with a message or give a job, and a job's spec as the state database keeps it
 * reads back to the same job, field by field (what a restart restores is what was submitted).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same_argv(char **a, char **b)
{
	for (; a && b && *a && *b; a++, b++)
		if (strcmp(*a, *b) != 0)
			return false;
	return (a == NULL || *a == NULL) && (b == NULL || *b == NULL);
}

static bool same_job(const struct ctl_job *a, const struct ctl_job *b)
{
	return !strcmp(a->name, b->name) && a->user == b->user && a->n_maps == b->n_maps &&
	       a->n_reduces == b->n_reduces && a->input_bytes == b->input_bytes &&
	       a->map_output_bytes == b->map_output_bytes &&
	       a->reduce_output_bytes == b->reduce_output_bytes &&
	       a->compute_bps == b->compute_bps && a->reduce_compute_bps == b->reduce_compute_bps &&
	       a->output_replicas == b->output_replicas && a->deadline_s == b->deadline_s &&
	       same_argv(a->argv[SW_MAP], b->argv[SW_MAP]) &&
	       same_argv(a->argv[SW_REDUCE], b->argv[SW_REDUCE]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], *text = malloc(size + 1), *kept;
	struct ctl_job *j, *back;
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	int rc = sw_ctl_job_from_json(4, text, &j, err, sizeof(err));
	free(text);
	if (rc < 0) {
		if (err[0] == '\0')
			abort(); /* a refusal always says why */
		return 0;
	}
	if ((kept = sw_ctl_job_json(j)) == NULL)
		abort();
	if (sw_ctl_job_from_json(4, kept, &back, err, sizeof(err)) < 0 || !same_job(j, back))
		abort();
	free(kept);
	sw_ctl_job_free(back);
	sw_ctl_job_free(j);
	return 0;
}
