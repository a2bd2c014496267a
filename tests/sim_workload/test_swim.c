/* SPDX-License-Identifier: MIT */
/* SWIM trace import: the shared Facebook trace, the synthesis rules and every bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sw_workload.h"
#include "tmpfiles.h"

static const char *trace_path(void)
{
	static char path[4096];
	const char *dir = getenv("SW_SWIM_DIR");

	if (!dir)
		fail_msg("SW_SWIM_DIR is not set: run through meson test");
	snprintf(path, sizeof(path), "%s/FB-2009_samples_24_times_1hr_0.tsv", dir);
	return path;
}

static int load(struct sw_workload *w, const char *path, struct sw_input_error *err)
{
	struct sw_swim_opts o;

	sw_sim_swim_opts_default(&o);
	return sw_sim_workload_swim(w, path, &o, err);
}

static void facebook_trace_loads_all_5894_jobs_in_arrival_order(void **state)
{
	struct sw_workload w;
	struct sw_input_error err = {0};
	uint64_t in = 0, shuffle = 0, out = 0;

	(void)state;
	if (load(&w, trace_path(), &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.n_jobs, 5894);
	for (size_t i = 0; i < w.n_jobs; i++) {
		const struct sw_job_desc *j = &w.jobs[i];

		assert_true(i == 0 || j->arrival >= w.jobs[i - 1].arrival);
		assert_true(j->user < 200);
		assert_int_equal(j->queue, j->user % 3);
		if (j->shuffle_bytes)
			assert_true(j->n_reduces >= 1 && j->n_reduces <= 1200);
		else
			assert_int_equal(j->n_reduces, 0); /* map-only */
		in += j->input_bytes;
		shuffle += j->shuffle_bytes;
		out += j->output_bytes;
	}
	/* Byte totals of the file, summed independently. */
	assert_int_equal(in, 26886497357605ULL);
	assert_int_equal(shuffle, 22216712306762ULL);
	assert_int_equal(out, 6852686303142ULL);
	assert_int_equal(w.topo.n_racks * w.topo.nodes_per_rack, 600);
	assert_int_equal(w.n_users, 200);
	sw_sim_workload_free(&w);
}

static void benchmark_follows_the_shuffle_input_ratio(void **state)
{
	const struct sw_bench *b = sw_sim_bench_table(NULL);
	struct sw_workload w;
	struct sw_input_error err;
	const char *path = tmp_write("ratios.tsv", "job0\t1\t1\t1000\t3000\t5\n"
	                                           "job1\t2\t1\t1000\t1000\t5\n"
	                                           "job2\t3\t1\t1000\t480\t5\n"
	                                           "job3\t4\t1\t1000\t50\t5\n"
	                                           "job4\t5\t1\t1000\t0\t5\n"
	                                           "job5\t6\t1\t0\t10\t5\n");

	(void)state;
	assert_int_equal(load(&w, path, &err), 0);
	assert_int_equal(w.n_jobs, 6);
	assert_string_equal(b[w.jobs[0].bench].name, "word-sequence-count");
	assert_string_equal(b[w.jobs[1].bench].name, "terasort");
	assert_string_equal(b[w.jobs[2].bench].name, "inverted-index");
	assert_string_equal(b[w.jobs[3].bench].name, "wordcount");
	assert_int_equal(b[w.jobs[4].bench].cls, SW_CLASS_LIGHT);
	assert_int_equal(b[w.jobs[5].bench].cls, SW_CLASS_HEAVY);
	assert_int_equal(w.jobs[4].n_reduces, 0); /* map-only: its maps write the output */
	/* No input: one map per 64 MiB of shuffle, not the whole shuffle on one node. */
	assert_int_equal(sw_sim_workload_n_maps(&w, &w.jobs[5]), 1);
	sw_sim_workload_free(&w);
}

static void time_and_size_scales_multiply_the_trace(void **state)
{
	struct sw_swim_opts o;
	struct sw_workload w;
	struct sw_input_error err;
	const char *path = tmp_write("scale.tsv", "job0\t49\t49\t740773\t2339561\t627471\n");

	(void)state;
	sw_sim_swim_opts_default(&o);
	o.time_scale = 0.5;
	o.size_scale = 2;
	assert_int_equal(sw_sim_workload_swim(&w, path, &o, &err), 0);
	assert_true(w.jobs[0].arrival == 24.5);
	assert_int_equal(w.jobs[0].input_bytes, 2 * 740773);
	assert_int_equal(w.jobs[0].shuffle_bytes, 2 * 2339561);
	assert_int_equal(w.jobs[0].output_bytes, 2 * 627471);
	sw_sim_workload_free(&w);
}

static void same_seed_gives_same_users(void **state)
{
	struct sw_workload a, b;
	struct sw_input_error err;

	(void)state;
	assert_int_equal(load(&a, trace_path(), &err), 0);
	assert_int_equal(load(&b, trace_path(), &err), 0);
	assert_memory_equal(a.jobs, b.jobs, a.n_jobs * sizeof(a.jobs[0]));
	sw_sim_workload_free(&a);
	sw_sim_workload_free(&b);
}

/* Each bad file is two lines, the second one wrong; the message names file, line and field. */
static void check_bad(const char *second_line, const char *msg)
{
	char text[256];
	struct sw_workload w;
	struct sw_input_error err;
	const char *path;

	snprintf(text, sizeof(text), "job0\t1\t1\t10\t10\t10\n%s", second_line);
	path = tmp_write("bad.tsv", text);
	tmp_assert_error(load(&w, path, &err), -EINVAL, &w, &err, path, msg);
}

static void negative_size_is_rejected_naming_line_and_field(void **state)
{
	(void)state;
	check_bad("job1\t2\t1\t10\t-5\t10\n", "2: field 'shuffle_bytes': negative size");
}

static void missing_column_is_rejected(void **state)
{
	(void)state;
	check_bad("job1\t2\t1\t10\t5\n", "2: field 'output_bytes': missing column (5 of 6)");
}

static void non_number_is_rejected(void **state)
{
	(void)state;
	check_bad("job1\t2\t1\t1e3\t5\t10\n", "2: field 'input_bytes': not a number: '1e3'");
	check_bad("job1\tsoon\t1\t10\t5\t10\n", "2: field 'submit_time': not a number: 'soon'");
	check_bad("job1\t2\t1\t\t5\t10\n", "2: field 'input_bytes': not a number: ''");
}

static void truncated_last_line_is_rejected(void **state)
{
	(void)state;
	check_bad("job1\t2\t1\t10\t5\t1", "2: truncated line (no newline at the end)");
}

static void extra_column_negative_time_and_empty_id_are_rejected(void **state)
{
	(void)state;
	check_bad("job1\t2\t1\t10\t5\t10\t7\n", "2: more than 6 columns");
	check_bad("job1\t2\t-1\t10\t5\t10\n", "2: field 'gap': negative time");
	check_bad("\t2\t1\t10\t5\t10\n", "2: field 'job_id': empty");
	check_bad("job1\t2e9\t1\t10\t5\t10\n",
	          "2: field 'submit_time': 2e9 s x time scale 1 is beyond the limit of 1e9 s");
	check_bad("job1\t2\t1\t99999999999999999999\t5\t10\n",
	          "2: field 'input_bytes': size out of range: '99999999999999999999'");
	check_bad("job1\t2\t1\t1125899906842624\t5\t10\n",
	          "2: field 'input_bytes': 16777216 maps of 64 MiB, more than 1048576");
}

static void missing_file_is_enoent_and_empty_file_has_no_jobs(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path = tmp_write("empty.tsv", "\n");

	(void)state;
	tmp_assert_error(load(&w, path, &err), -EINVAL, &w, &err, path, " no jobs");
	assert_int_equal(load(&w, "/nonexistent/trace.tsv", &err), -ENOENT);
	assert_string_equal(err.msg, "/nonexistent/trace.tsv: No such file or directory");
	assert_null(w.jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(facebook_trace_loads_all_5894_jobs_in_arrival_order),
	        cmocka_unit_test(benchmark_follows_the_shuffle_input_ratio),
	        cmocka_unit_test(time_and_size_scales_multiply_the_trace),
	        cmocka_unit_test(same_seed_gives_same_users),
	        cmocka_unit_test(negative_size_is_rejected_naming_line_and_field),
	        cmocka_unit_test(missing_column_is_rejected),
	        cmocka_unit_test(non_number_is_rejected),
	        cmocka_unit_test(truncated_last_line_is_rejected),
	        cmocka_unit_test(extra_column_negative_time_and_empty_id_are_rejected),
	        cmocka_unit_test(missing_file_is_enoent_and_empty_file_has_no_jobs),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
