/* SPDX-License-Identifier: MIT */
/* JSON Lines mixes: the format, its defaults, and an error naming line and field for each
 * bad input. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sw_workload.h"
#include "tmpfiles.h"

#define JOB(fields) "{\"job\": {" fields "}}\n"
#define GREP(id, arrival)                         \
	"\"id\": " #id ", \"arrival\": " #arrival \
	", \"user\": 0, \"bench\": \"grep\", \"input_bytes\": 1000"

static void example_mix_in_perf_loads(void **state)
{
	const char *path = getenv("SW_EXAMPLE_MIX");
	const struct sw_bench *b = sw_sim_bench_table(NULL);
	struct sw_workload w;
	struct sw_input_error err;

	(void)state;
	assert_non_null(path);
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.n_jobs, 6);
	assert_string_equal(w.name, "example.jsonl");
	assert_int_equal(w.topo.n_racks, 2);
	assert_int_equal(w.topo.nodes_per_rack, 4);
	assert_int_equal(w.n_users, 3);
	assert_int_equal(w.n_queues, 2);
	assert_int_equal(w.seed, 7);
	assert_int_equal(w.jobs[2].n_reduces, 4);
	assert_int_equal(w.jobs[2].queue, 0);
	assert_true(w.jobs[3].deadline == 200);
	assert_string_equal(b[w.jobs[5].bench].name, "histogram-movies");
	sw_sim_workload_free(&w);
}

static void omitted_fields_take_the_documented_defaults(void **state)
{
	const struct sw_bench *b = sw_sim_bench_table(NULL);
	struct sw_workload w;
	struct sw_input_error err;
	const char *path = tmp_write(
	        "defaults.jsonl",
	        "\n" JOB("\"id\": 7, \"arrival\": 3, \"user\": 4, \"bench\": \"selfjoin\", "
	                 "\"input_bytes\": 10000000000") JOB(GREP(2, 1.5)));

	(void)state;
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.n_jobs, 2);
	/* Sorted by arrival; the paper's topology; users from the largest user id. */
	assert_int_equal(w.jobs[0].id, 2);
	assert_int_equal(w.topo.n_racks * w.topo.nodes_per_rack, 100);
	assert_int_equal(w.n_users, 5);
	assert_int_equal(w.n_queues, 3);
	assert_int_equal(w.block_bytes, 64 << 20);
	assert_int_equal(w.jobs[1].queue, 4 % 3);
	assert_int_equal(w.jobs[1].shuffle_bytes, 16000000000ULL);
	assert_int_equal(w.jobs[1].output_bytes,
	                 llround(16000000000.0 * b[sw_sim_bench_find("selfjoin")].output_ratio));
	assert_int_equal(w.jobs[1].n_reduces, 15);
	assert_true(w.jobs[1].deadline == 0);
	sw_sim_workload_free(&w);
}

static void topology_may_come_from_a_sibling_file(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path;

	(void)state;
	tmp_write("topo.json",
	          "{\n  \"racks\": 3,\n  \"nodes_per_rack\": 5,\n  \"uplink_bps\": 1e9\n}\n");
	path = tmp_write("sibling.jsonl", "{\"topology\": \"topo.json\"}\n" JOB(GREP(1, 0)));
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.topo.n_racks, 3);
	assert_int_equal(w.topo.nodes_per_rack, 5);
	assert_true(w.topo.uplink_bps == 1e9);
	assert_int_equal(w.topo.map_slots, 2);
	sw_sim_workload_free(&w);
}

/* A one-job mix whose line 2 is @p bad; the message must start with "path:" @p msg. */
static void check_bad(const char *bad, int want_rc, const char *msg)
{
	char text[1024];
	struct sw_workload w;
	struct sw_input_error err;
	const char *path;

	snprintf(text, sizeof(text), "%s%s", JOB(GREP(1, 0)), bad);
	path = tmp_write("bad.jsonl", text);
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), want_rc, &w, &err, path, msg);
}

#define WF(id, wf, user, after)                                                    \
	"\"id\": " #id ", \"arrival\": 0, \"user\": " #user ", \"workflow\": " #wf \
	", \"bench\": \"grep\", \"input_bytes\": 1000" after

/* Links name job ids in the file and come back as indexes of the sorted jobs; workflow
 * numbers become 1 + their rank. */
static void workflow_links_resolve_to_indexes_of_earlier_jobs(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path =
	        tmp_write("wf.jsonl",
	                  JOB(WF(30, 7, 1, "")) JOB(WF(10, 7, 1, "")) JOB(GREP(5, 0))
	                          JOB(WF(40, 7, 1, ", \"after\": [30, 10]")) JOB(WF(50, 2, 0, "")));

	(void)state;
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	/* sorted: 5, 10, 30, 40, 50 (all at 0) */
	assert_int_equal(w.n_workflows, 2);
	assert_int_equal(w.jobs[0].workflow, 0);
	assert_int_equal(w.jobs[1].workflow, 2);
	assert_int_equal(w.jobs[4].workflow, 1);
	assert_int_equal(w.jobs[3].n_after, 2);
	assert_int_equal(w.jobs[3].after[0], 2);
	assert_int_equal(w.jobs[3].after[1], 1);
	assert_int_equal(w.jobs[2].n_after, 0);
	sw_sim_workload_free(&w);
}

static void bad_workflow_links_are_rejected(void **state)
{
	(void)state;
	check_bad(JOB(GREP(2, 0) ", \"after\": [1]"), -EINVAL,
	          "2: field 'after': needs the job's \"workflow\"");
	check_bad(JOB(WF(2, 0, 0, ", \"after\": [9]")), -EINVAL,
	          "2: field 'after': job 9: must name a job of workflow 0 that arrives before it");
	/* job 1 is in no workflow */
	check_bad(JOB(WF(2, 0, 0, ", \"after\": [1]")), -EINVAL,
	          "2: field 'after': job 1: must name a job of workflow 0");
	check_bad(JOB(WF(2, 0, 0, ", \"after\": [2]")), -EINVAL,
	          "2: field 'after': job 2: must name a job of workflow 0");
	check_bad(JOB(WF(2, 0, 0, ", \"after\": [1, 1, 1, 1, 1, 1, 1, 1, 1]")), -EINVAL,
	          "2: field 'after': must be an array of at most 8 job ids");
	check_bad(JOB(WF(2, 0, 0, ", \"after\": [\"1\"]")), -EINVAL,
	          "2: field 'after': must hold job ids");
	check_bad(JOB(WF(2, 2000000, 0, "")), -EINVAL, "2: field 'workflow': must be at most");
}

static void a_workflow_has_one_user_and_one_deadline(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path = tmp_write("wf-users.jsonl", JOB(WF(1, 0, 0, "")) JOB(WF(2, 0, 1, "")));

	(void)state;
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 " field 'workflow': job 2: workflow 0 runs as one user with one deadline");
	path = tmp_write("wf-deadlines.jsonl", JOB(WF(1, 0, 0, ", \"deadline\": 50"))
	                                               JOB(WF(2, 0, 0, ", \"deadline\": 60")));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 " field 'workflow': job 2: workflow 0 runs as one user");
}

static void unknown_field_is_rejected(void **state)
{
	(void)state;
	check_bad(JOB(GREP(2, 0) ", \"colour\": 2"), -EINVAL, "2: field 'colour': unknown field");
	check_bad("{\"mix\": {\"nodes\": 3}}\n", -EINVAL, "2: field 'mix': must come once");
	check_bad("{\"jobs\": {}}\n", -EINVAL,
	          "2: field 'jobs': unknown record (expected topology, mix or job)");
}

static void negative_size_is_rejected(void **state)
{
	(void)state;
	check_bad(JOB("\"id\": 2, \"arrival\": 0, \"user\": 0, \"bench\": \"grep\", "
	              "\"input_bytes\": 5, \"shuffle_bytes\": -1"),
	          -EINVAL, "2: field 'shuffle_bytes': negative size");
	check_bad(JOB("\"id\": 2, \"arrival\": -1, \"user\": 0, \"bench\": \"grep\", "
	              "\"input_bytes\": 5"),
	          -EINVAL, "2: field 'arrival': must not be negative");
}

static void missing_required_field_is_rejected(void **state)
{
	(void)state;
	check_bad(JOB("\"id\": 2, \"arrival\": 0, \"user\": 0, \"input_bytes\": 5"), -EINVAL,
	          "2: field 'bench': missing");
	check_bad(JOB("\"id\": 2, \"arrival\": 0, \"user\": 0, \"bench\": \"grep\""), -EINVAL,
	          "2: field 'input_bytes': missing");
	check_bad(JOB("\"arrival\": 0, \"user\": 0, \"bench\": \"grep\", \"input_bytes\": 5"),
	          -EINVAL, "2: field 'id': missing");
}

static void unknown_benchmark_is_rejected(void **state)
{
	(void)state;
	check_bad(JOB("\"id\": 2, \"arrival\": 0, \"user\": 0, \"bench\": \"teragen\", "
	              "\"input_bytes\": 5"),
	          -EINVAL, "2: field 'bench': unknown benchmark 'teragen'");
}

static void wrong_type_is_rejected(void **state)
{
	(void)state;
	check_bad(JOB("\"id\": 2, \"arrival\": \"now\", \"user\": 0, \"bench\": \"grep\", "
	              "\"input_bytes\": 5"),
	          -EINVAL, "2: field 'arrival': must be a number");
	check_bad(JOB("\"id\": 2, \"arrival\": 0, \"user\": 0, \"bench\": \"grep\", "
	              "\"input_bytes\": 1.5"),
	          -EINVAL, "2: field 'input_bytes': must be an integer");
	check_bad(JOB("\"id\": 2, \"arrival\": 0, \"user\": 0, \"bench\": 3, \"input_bytes\": 1"),
	          -EINVAL, "2: field 'bench': must be a string");
	check_bad("{\"job\": [1]}\n", -EINVAL, "2: field 'job': must be an object");
}

static void malformed_json_is_rejected(void **state)
{
	(void)state;
	check_bad("{\"job\": {\"id\": 2,\n", -EINVAL, "2: malformed JSON: ");
	check_bad("[1, 2]\n", -EINVAL, "2: expected one object with one key");
}

static void inconsistent_records_are_rejected(void **state)
{
	(void)state;
	check_bad(JOB(GREP(1, 3)), -EINVAL, "2: field 'id': duplicate id 1");
	check_bad("{\"topology\": {\"racks\": 2}}\n", -EINVAL,
	          "2: field 'topology': must be the first record");
	check_bad(JOB(GREP(2, 5) ", \"deadline\": 5"), -EINVAL,
	          "2: field 'deadline': must be after the arrival");
	check_bad(JOB(GREP(2, 5) ", \"reduces\": 0"), -EINVAL,
	          "2: field 'reduces': must be positive");
}

static void user_and_queue_must_exist(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path =
	        tmp_write("users.jsonl", "{\"mix\": {\"users\": 2, \"queues\": 2}}\n" JOB(
	                                         "\"id\": 1, \"arrival\": 0, \"user\": 2, "
	                                         "\"bench\": \"grep\", \"input_bytes\": 1"));

	(void)state;
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "2: field 'user': must be at most 1");
	path = tmp_write("queues.jsonl",
	                 "{\"mix\": {\"queues\": 2}}\n" JOB(GREP(1, 0) ", \"queue\": 2"));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "2: field 'queue': must be at most 1");
}

/* A user id sizes the scheduler's pool table: ids beyond the bound are refused at load. */
static void users_and_queues_beyond_their_bounds_are_refused(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path =
	        tmp_write("bigid.jsonl", JOB("\"id\": 1, \"arrival\": 0, \"user\": 2147483648, "
	                                     "\"bench\": \"grep\", \"input_bytes\": 1"));

	(void)state;
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'user': must be at most 1048575");
	path = tmp_write("bigusers.jsonl", "{\"mix\": {\"users\": 3000000000}}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'users': must be at most 1048576");
	path = tmp_write("bigqueues.jsonl", "{\"mix\": {\"queues\": 65537}}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'queues': must be at most 65536");
	path = tmp_write("maxuser.jsonl", JOB("\"id\": 1, \"arrival\": 0, \"user\": 1048575, "
	                                      "\"bench\": \"grep\", \"input_bytes\": 1"));
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.n_users, SW_SCHED_MAX_USERS);
	sw_sim_workload_free(&w);
}

/* Times and link speeds bound how long a replay runs; node, task and byte counts its memory. */
static void times_speeds_sizes_and_task_counts_beyond_their_bounds_are_refused(void **state)
{
	static const struct {
		const char *text, *msg;
	} cases[] = {
	        {JOB(GREP(1, 1e300)), "1: field 'arrival': must be at most 1e9 seconds"},
	        {JOB(GREP(1, 5) ", \"deadline\": 2e9"),
	         "1: field 'deadline': must be at most 1e9 seconds"},
	        {"{\"topology\": {\"uplink_bps\": 1}}\n" JOB(GREP(1, 0)),
	         "1: field 'uplink_bps': the rack uplink must carry from 1e+06 to 1e+15 bit/s, not "
	         "1"},
	        {"{\"topology\": {\"oversub\": 1e300}}\n" JOB(GREP(1, 0)),
	         "1: field 'oversub': the rack uplink must carry from 1e+06"},
	        {"{\"topology\": {\"nic_bps\": 1e16}}\n" JOB(GREP(1, 0)),
	         "1: field 'nic_bps': must be from 1e+06 to 1e+15 bit/s"},
	        {"{\"topology\": {\"racks\": 1000, \"nodes_per_rack\": 1000}}\n" JOB(GREP(1, 0)),
	         "1: field 'nodes_per_rack': racks x nodes_per_rack must be from 1 to 100000 "
	         "nodes"},
	        {"{\"topology\": {\"map_slots\": 2000}}\n" JOB(GREP(1, 0)),
	         "1: field 'map_slots': must be at most 1024"},
	        /* 64 MiB in 1-byte blocks: 67 million map tasks */
	        {"{\"mix\": {\"block_bytes\": 1}}\n" JOB(
	                 "\"id\": 1, \"arrival\": 0, \"user\": 0, \"bench\": \"grep\", "
	                 "\"input_bytes\": 67108864"),
	         "2: field 'input_bytes': 67108864 maps of block_bytes 1, more than 1048576 (raise "
	         "block_bytes)"},
	        {JOB(GREP(1, 0) ", \"reduces\": 65537"),
	         "1: field 'reduces': must be at most 65536"},
	        {JOB(GREP(1, 0) ", \"shuffle_bytes\": 2251799813685248"),
	         "1: field 'shuffle_bytes': must be at most 1125899906842624"},
	};
	struct sw_workload w;
	struct sw_input_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = tmp_write("bounds.jsonl", cases[i].text);

		tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
		                 cases[i].msg);
	}
}

/* "spread" in the mix line: per benchmark, map and reduce coefficients of variation; an
 * omitted benchmark or kind keeps 0 (every task of a job one length). */
static void a_mix_may_spread_each_benchmark_s_task_lengths(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	int grep = sw_sim_bench_find("grep"), sort = sw_sim_bench_find("terasort");
	const char *path =
	        tmp_write("spread.jsonl",
	                  "{\"mix\": {\"spread\": {\"grep\": {\"map\": 0.2, \"reduce\": 0.1}, "
	                  "\"terasort\": {\"reduce\": 1}}}}\n" JOB(GREP(1, 0)));

	(void)state;
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	assert_true(w.spread[grep].map_cv == 0.2 && w.spread[grep].reduce_cv == 0.1);
	assert_true(w.spread[sort].map_cv == 0 && w.spread[sort].reduce_cv == 1);
	assert_true(w.spread[sw_sim_bench_find("wordcount")].map_cv == 0);
	sw_sim_workload_free(&w);
}

static void a_bad_spread_is_refused_naming_its_field(void **state)
{
	static const struct {
		const char *spread, *msg;
	} cases[] = {
	        {"[0.2]", "1: field 'spread': must be an object"},
	        {"{\"teragen\": {\"map\": 0.2}}", "1: field 'spread': unknown benchmark 'teragen'"},
	        {"{\"grep\": 0.2}", "1: field 'spread': each benchmark's entry must be an object"},
	        {"{\"grep\": {\"maps\": 0.2}}", "1: field 'maps': unknown field"},
	        {"{\"grep\": {\"map\": \"wide\"}}", "1: field 'spread.grep.map': must be a number"},
	        {"{\"grep\": {\"reduce\": -0.1}}",
	         "1: field 'spread.grep.reduce': must be in [0, 1]"},
	        {"{\"grep\": {\"map\": 1.5}}", "1: field 'spread.grep.map': must be in [0, 1]"},
	};
	struct sw_workload w;
	struct sw_input_error err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];
		const char *path;

		snprintf(text, sizeof(text), "{\"mix\": {\"spread\": %s}}\n" JOB(GREP(1, 0)),
		         cases[i].spread);
		path = tmp_write("spread.jsonl", text);
		tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
		                 cases[i].msg);
	}
}

/* An accelerated pool of the topology's last nodes, and a job's speedup on it. */
static void accelerated_nodes_and_a_job_s_speedup_load(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
	        {"{\"topology\": {\"racks\": 1, \"nodes_per_rack\": 4, \"accelerated\": 5}}\n" JOB(
	                 GREP(1, 0)),
	         "1: field 'accelerated': must be at most the 4 nodes"},
	        {JOB(GREP(1, 0) ", \"speedup\": 0.5"), "1: field 'speedup': must be at least 1"},
	        {JOB(GREP(1, 0) ", \"speedup\": 101"), "1: field 'speedup': must be at most 100"},
	};
	struct sw_workload w;
	struct sw_input_error err;
	const char *path =
	        tmp_write("accel.jsonl", "{\"topology\": {\"racks\": 1, \"nodes_per_rack\": 4, "
	                                 "\"accelerated\": 1}}\n" JOB(GREP(1, 0) ", \"speedup\": 5")
	                                         JOB(GREP(2, 1)));

	(void)state;
	if (sw_sim_workload_json(&w, path, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(w.topo.accelerated, 1);
	assert_true(w.jobs[0].speedup == 5 && w.jobs[1].speedup == 0);
	sw_sim_workload_free(&w);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		path = tmp_write("accel.jsonl", bad[i].text);
		tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
		                 bad[i].msg);
	}
}

static void bad_topology_is_rejected_in_line_or_in_its_file(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path;
	char topo[256];

	(void)state;
	path = tmp_write("topo0.jsonl", "{\"topology\": {\"racks\": 0}}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'racks': must be positive");
	path = tmp_write("topo1.jsonl", "{\"topology\": {\"nic_bps\": 0}}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'nic_bps': must be positive");
	snprintf(topo, sizeof(topo), "%s",
	         tmp_write("badtopo.json", "{\"racks\": 2, \"spine\": 1}"));
	path = tmp_write("topo2.jsonl", "{\"topology\": \"badtopo.json\"}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, topo,
	                 " field 'spine': unknown field");
	path = tmp_write("topo3.jsonl", "{\"topology\": \"none.json\"}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -ENOENT, &w, &err, path,
	                 "1: field 'topology': none.json: No such file or directory");
}

/* A mix may come from anyone: its topology file may not lead swctl out of its directory, by
 * ".." or by a symbolic link (swctl's --topology, given by the user, may). */
static void a_topology_file_outside_the_mix_directory_is_refused(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	char link[256];
	const char *path;

	(void)state;
	path = tmp_write("up.jsonl", "{\"topology\": \"../etc.json\"}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -ENOENT, &w, &err, path,
	                 "1: field 'topology': ../etc.json: No such file or directory");
	path = tmp_write("passwd.jsonl", "{\"topology\": \"../../etc/passwd\"}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'topology': leaves the mix file's directory (give it with "
	                 "swctl's --topology)");
	snprintf(link, sizeof(link), "%s", tmp_write("link.jsonl", ""));
	strcpy(strrchr(link, '/') + 1, "outside.json");
	assert_int_equal(symlink("/etc/hostname", link), 0);
	path = tmp_write("viasymlink.jsonl", "{\"topology\": \"outside.json\"}\n" JOB(GREP(1, 0)));
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "1: field 'topology': leaves the mix file's directory");
	unlink(link);
}

/* Every line ends in a newline, as in SWIM traces: a last line without one is a file cut
 * short, refused rather than loaded as if whole. */
static void a_last_line_without_a_newline_is_refused(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path =
	        tmp_write("cut.jsonl", JOB(GREP(1, 0)) "{\"job\": {\"id\": 2, "
	                                               "\"arrival\": 1, \"user\": 0, \"bench\": "
	                                               "\"grep\", \"input_bytes\": 1000}}");

	(void)state;
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path,
	                 "2: truncated line (no newline at the end)");
}

static void mix_without_jobs_or_file_is_an_error(void **state)
{
	struct sw_workload w;
	struct sw_input_error err;
	const char *path = tmp_write("empty.jsonl", "{\"mix\": {\"users\": 2}}\n");

	(void)state;
	tmp_assert_error(sw_sim_workload_json(&w, path, &err), -EINVAL, &w, &err, path, " no jobs");
	assert_int_equal(sw_sim_workload_json(&w, "/nonexistent/mix.jsonl", &err), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(example_mix_in_perf_loads),
	        cmocka_unit_test(omitted_fields_take_the_documented_defaults),
	        cmocka_unit_test(topology_may_come_from_a_sibling_file),
	        cmocka_unit_test(workflow_links_resolve_to_indexes_of_earlier_jobs),
	        cmocka_unit_test(bad_workflow_links_are_rejected),
	        cmocka_unit_test(a_workflow_has_one_user_and_one_deadline),
	        cmocka_unit_test(unknown_field_is_rejected),
	        cmocka_unit_test(negative_size_is_rejected),
	        cmocka_unit_test(missing_required_field_is_rejected),
	        cmocka_unit_test(unknown_benchmark_is_rejected),
	        cmocka_unit_test(wrong_type_is_rejected),
	        cmocka_unit_test(malformed_json_is_rejected),
	        cmocka_unit_test(inconsistent_records_are_rejected),
	        cmocka_unit_test(user_and_queue_must_exist),
	        cmocka_unit_test(users_and_queues_beyond_their_bounds_are_refused),
	        cmocka_unit_test(
	                times_speeds_sizes_and_task_counts_beyond_their_bounds_are_refused),
	        cmocka_unit_test(a_mix_may_spread_each_benchmark_s_task_lengths),
	        cmocka_unit_test(a_bad_spread_is_refused_naming_its_field),
	        cmocka_unit_test(accelerated_nodes_and_a_job_s_speedup_load),
	        cmocka_unit_test(bad_topology_is_rejected_in_line_or_in_its_file),
	        cmocka_unit_test(a_topology_file_outside_the_mix_directory_is_refused),
	        cmocka_unit_test(a_last_line_without_a_newline_is_refused),
	        cmocka_unit_test(mix_without_jobs_or_file_is_an_error),
	};

	return cmocka_run_group_tests(tests, tmp_setup, tmp_teardown);
}
