/* SPDX-License-Identifier: MIT */
/* Map-output store: index, budget and watermarks, spilling, job removal, write errors. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pattern.h"
#include "proto.h"
#include "shuffle_int.h"

#define MiB (1u << 20)
#define KEY "key-of-16-bytes!" /* SW_SHUFFLE_SECRET_MIN long */

static char spill_dir[] = "/tmp/sw-store-test-XXXXXX";

static void counting_log(void *arg, const char *line)
{
	(void)line;
	++*(unsigned *)arg;
}

static struct sw_shuffle_store *new_store(size_t budget)
{
	struct sw_shuffle_store_conf conf = {
	        .mem_budget = budget, .spill_dir = spill_dir, .log = {quiet_log, NULL}};
	struct sw_shuffle_store *st;
	assert_int_equal(sw_shuffle_store_create(&conf, &st), 0);
	assert_int_equal(sw_shuffle_job_add(st, 1, KEY, 16), 0);
	return st;
}

static void put_pattern(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t part,
                        size_t len)
{
	uint8_t *b = malloc(len ? len : 1);
	pattern_fill(b, job, map, part, 0, len);
	assert_int_equal(sw_shuffle_put(st, job, map, part, b, len), 0);
	free(b);
}

static void check_pattern(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t part,
                          size_t len)
{
	uint64_t n;
	uint8_t *b = malloc(len ? len : 1);
	assert_int_equal(sw_shuffle_part_len(st, job, map, part, &n), 0);
	assert_int_equal(n, len);
	assert_int_equal(sw_shuffle_read(st, job, map, part, 0, b, len), 0);
	assert_int_equal(pattern_check(b, job, map, part, 0, len), -1);
	free(b);
}

static int open_fds(void)
{
	int n = 0;
	DIR *d = opendir("/proc/self/fd");
	while (readdir(d) != NULL)
		n++;
	closedir(d);
	return n;
}

static void partitions_read_back_by_job_map_and_partition(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(4 * MiB);
	assert_int_equal(sw_shuffle_job_add(st, 2, KEY, 16), 0);
	for (uint32_t m = 0; m < 3; m++)
		for (uint32_t p = 0; p < 5; p++) {
			put_pattern(st, 1, m, p, m * 1000 + p);
			put_pattern(st, 2, m, p, 77);
		}
	for (uint32_t m = 0; m < 3; m++)
		for (uint32_t p = 0; p < 5; p++) {
			check_pattern(st, 1, m, p, m * 1000 + p);
			check_pattern(st, 2, m, p, 77);
		}
	uint8_t b[8];
	uint64_t n;
	assert_int_equal(sw_shuffle_put(st, 1, 0, 0, b, 8), -EEXIST);
	assert_int_equal(sw_shuffle_put(st, 9, 0, 0, b, 8), -ESRCH);
	assert_int_equal(sw_shuffle_part_len(st, 9, 0, 0, &n), -ESRCH);
	assert_int_equal(sw_shuffle_part_len(st, 1, 0, 5, &n), -ENOENT);
	assert_int_equal(sw_shuffle_read(st, 1, 2, 1, 2000, b, 2), -ERANGE);
	assert_int_equal(sw_shuffle_read(st, 1, 2, 1, 1999, b, 2), 0);
	assert_int_equal(sw_shuffle_job_add(st, 2, KEY, 16), -EEXIST);
	sw_shuffle_store_destroy(st);
}

static void job_secrets_shorter_than_16_bytes_are_refused_and_new_ones_are_random(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(1 * MiB);
	uint8_t a[SW_SHUFFLE_SECRET_LEN], b[SW_SHUFFLE_SECRET_LEN];
	assert_int_equal(sw_shuffle_job_add(st, 3, "", 0), -EINVAL);
	assert_int_equal(sw_shuffle_job_add(st, 3, KEY, 15), -EINVAL);
	assert_int_equal(sw_shuffle_job_add(st, 3,
	                                    "0123456789abcdef0123456789abcdef0123456789abcdef"
	                                    "0123456789abcdefX",
	                                    65),
	                 -EINVAL);
	assert_int_equal(sw_shuffle_secret_new(a), 0);
	assert_int_equal(sw_shuffle_secret_new(b), 0);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_int_equal(sw_shuffle_job_add(st, 3, a, sizeof(a)), 0);
	sw_shuffle_store_destroy(st);
}

/* The descriptor of the (unnamed) spill file: the one /proc/self/fd links into spill_dir. */
static int spill_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int fd = -1;
	while (fd < 0 && (e = readdir(d)) != NULL) {
		char link[300], target[256];
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		ssize_t n = readlink(link, target, sizeof(target) - 1);
		if (n > 0 && strncmp(target, spill_dir, strlen(spill_dir)) == 0)
			fd = atoi(e->d_name);
	}
	closedir(d);
	return fd;
}

static void a_spill_file_changed_on_disk_is_reported_never_served(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(1 * MiB);
	uint8_t b, buf[1000];
	put_pattern(st, 1, 0, 0, 2 * MiB); /* larger than the budget: straight to the file */
	put_pattern(st, 1, 0, 1, 2 * MiB);
	int fd = spill_fd();
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, 100000), 1); /* partition 0 is at the file's start */
	b ^= 1;
	assert_int_equal(pwrite(fd, &b, 1, 100000), 1);
	assert_int_equal(sw_shuffle_read(st, 1, 0, 0, 99990, buf, 20), -EIO);
	assert_int_equal(sw_shuffle_read(st, 1, 0, 0, 0, buf, sizeof(buf)), 0); /* other block */
	assert_int_equal(pattern_check(buf, 1, 0, 0, 0, sizeof(buf)), -1);
	check_pattern(st, 1, 0, 1, 2 * MiB); /* the other partition is intact */
	sw_shuffle_store_destroy(st);
}

/* What a server sends as a chunk's CRC: computed from the CRCs of put time, so a byte of an
 * in-memory partition changed after its put makes the reducer's check fail. */
static void chunk_crcs_come_from_put_time_for_ranges_of_whole_blocks(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(4 * MiB);
	const size_t len = 5 * 65536 + 1234; /* a partial last block */
	put_pattern(st, 1, 0, 0, len);
	put_pattern(st, 1, 0, 1, 0);
	struct sw_shuffle_view v, e;
	assert_int_equal(sw_shuffle_store_pin(st, 1, 0, 0, &v), 0);
	assert_non_null(v.addr);
	uint8_t *want = malloc(len);
	pattern_fill(want, 1, 0, 0, 0, len);
	const uint64_t ranges[][2] = {{0, len},
	                              {0, 65536},
	                              {65536, 3 * 65536},
	                              {4 * 65536, 65536},
	                              {5 * 65536, 1234},
	                              {2 * 65536, len - 2 * 65536},
	                              {len, 0}};
	uint32_t crc;
	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		assert_int_equal(sw_shuffle_store_view_crc(&v, ranges[i][0], ranges[i][1], &crc),
		                 0);
		assert_int_equal(crc, sw_shuffle_proto_crc32c(want + ranges[i][0], ranges[i][1]));
	}
	/* not on block boundaries: the caller reads the bytes */
	assert_int_equal(sw_shuffle_store_view_crc(&v, 1, 65536, &crc), -EINVAL);
	assert_int_equal(sw_shuffle_store_view_crc(&v, 0, 65535, &crc), -EINVAL);
	assert_int_equal(sw_shuffle_store_view_crc(&v, 65536, 1000, &crc), -EINVAL);
	/* a byte changed in memory after the put: the CRC still says what was put */
	((uint8_t *)v.addr)[70000] ^= 1;
	assert_int_equal(sw_shuffle_store_view_crc(&v, 65536, 65536, &crc), 0);
	assert_int_equal(crc, sw_shuffle_proto_crc32c(want + 65536, 65536));
	assert_int_not_equal(crc, sw_shuffle_proto_crc32c(v.addr + 65536, 65536));
	assert_int_equal(sw_shuffle_store_pin(st, 1, 0, 1, &e), 0);
	assert_int_equal(sw_shuffle_store_view_crc(&e, 0, 0, &crc), 0);
	assert_int_equal(crc, 0);
	sw_shuffle_store_unpin(st, &e);
	sw_shuffle_store_unpin(st, &v);
	free(want);
	sw_shuffle_store_destroy(st);
}

static void outputs_beyond_the_budget_spill_and_read_back_intact(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(1 * MiB);
	struct sw_shuffle_store_stats s;
	for (uint32_t p = 0; p < 40; p++)
		put_pattern(st, 1, 0, p, 100 * 1024 + p);
	put_pattern(st, 1, 1, 0, 3 * MiB); /* larger than the whole budget */
	sw_shuffle_store_stats(st, &s);
	assert_true(s.mem_peak <= (size_t)(0.85 * MiB));
	assert_true(s.parts_disk > 0 && s.parts_mem > 0);
	assert_int_equal(s.parts_disk + s.parts_mem, 41);
	assert_true(s.spilled_bytes >= 3 * MiB);
	for (uint32_t p = 0; p < 40; p++)
		check_pattern(st, 1, 0, p, 100 * 1024 + p);
	check_pattern(st, 1, 1, 0, 3 * MiB);
	sw_shuffle_store_destroy(st);
}

static void spilling_starts_above_085_and_stops_below_070_of_the_budget(void **state)
{
	(void)state;
	size_t budget = 1000 * 64 * 16; /* 16 parts of 64000 B = 1.0 budget */
	struct sw_shuffle_store *st = new_store(budget);
	struct sw_shuffle_store_stats s;
	uint32_t p = 0;
	do {
		put_pattern(st, 1, 0, p++, 64000);
		sw_shuffle_store_stats(st, &s);
	} while (s.parts_disk == 0);
	/* the put that crossed 0.85 spilled the oldest down to at most 0.70 with it inside */
	assert_int_equal(p, 14); /* 13 x 64000 = 0.8125, a 14th would be 0.875 */
	assert_true(s.mem_used <= (size_t)(0.70 * (double)budget));
	assert_true(s.mem_used + 64000 > (size_t)(0.70 * (double)budget));
	for (uint32_t i = 0; i < p; i++)
		check_pattern(st, 1, 0, i, 64000);
	sw_shuffle_store_destroy(st);
}

static void writers_pause_above_095_while_fetches_pin_memory_and_resume_below_070(void **state)
{
	(void)state;
	size_t budget = 64 * 16 * 1000;
	struct sw_shuffle_store *st = new_store(budget);
	struct sw_shuffle_view v[16];
	struct sw_shuffle_store_stats s;
	uint8_t *b = calloc(1, 64000);
	uint32_t p;
	/* fetches pin everything that gets stored, so nothing can be spilled */
	for (p = 0; p < 16; p++) {
		int err = sw_shuffle_put(st, 1, 0, p, b, 64000);
		if (err == -EAGAIN)
			break;
		assert_int_equal(err, 0);
		assert_int_equal(sw_shuffle_store_pin(st, 1, 0, p, &v[p]), 0);
	}
	assert_int_equal(p, 15); /* 15 x 64000 = 0.9375 <= 0.95; a 16th would make 1.0 */
	sw_shuffle_store_stats(st, &s);
	assert_true(s.paused);
	assert_int_equal(s.pauses, 1);
	assert_true(s.mem_peak <= (size_t)(0.95 * (double)budget));
	assert_int_equal(sw_shuffle_store_wait_resume(st, 10), -ETIMEDOUT);
	assert_int_equal(sw_shuffle_put(st, 1, 0, 99, b, 10), -EAGAIN); /* even small ones */
	for (uint32_t i = 0; i < 3; i++) /* each unpinned one is spilled at once */
		sw_shuffle_store_unpin(st, &v[i]);
	sw_shuffle_store_stats(st, &s);
	assert_true(s.paused); /* 12 x 64000 = 0.75: not yet below 0.70 */
	sw_shuffle_store_unpin(st, &v[3]);
	assert_int_equal(sw_shuffle_store_wait_resume(st, 1000), 0);
	sw_shuffle_store_stats(st, &s);
	assert_false(s.paused);
	assert_true(s.mem_used < (size_t)(0.70 * (double)budget));
	assert_int_equal(sw_shuffle_put(st, 1, 0, 99, b, 10), 0);
	for (uint32_t i = 4; i < p; i++)
		sw_shuffle_store_unpin(st, &v[i]);
	free(b);
	sw_shuffle_store_destroy(st);
}

static void removing_a_job_frees_its_memory_and_spill_file(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(1 * MiB);
	struct sw_shuffle_store_stats s;
	int fds = open_fds();
	assert_int_equal(sw_shuffle_job_add(st, 2, KEY, 16), 0);
	for (uint32_t p = 0; p < 30; p++)
		put_pattern(st, 2, 0, p, 100000);
	put_pattern(st, 1, 0, 0, 1000);
	sw_shuffle_store_stats(st, &s);
	assert_true(s.parts_disk > 0);
	assert_int_equal(open_fds(), fds + 1); /* job 2's spill file */
	assert_int_equal(sw_shuffle_job_remove(st, 2), 0);
	sw_shuffle_store_stats(st, &s);
	assert_int_equal(s.mem_used, 1024); /* job 1's 1000 bytes, in 64-byte granules */
	assert_int_equal(s.parts_disk, 0);
	assert_int_equal(open_fds(), fds);
	uint64_t n;
	assert_int_equal(sw_shuffle_part_len(st, 2, 0, 0, &n), -ESRCH);
	assert_int_equal(sw_shuffle_job_remove(st, 2), -ESRCH);
	check_pattern(st, 1, 0, 0, 1000);
	sw_shuffle_store_destroy(st);
}

static void a_job_removed_during_a_fetch_is_freed_when_the_fetch_ends(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(1 * MiB);
	struct sw_shuffle_view v;
	struct sw_shuffle_store_stats s;
	uint8_t b[100];
	put_pattern(st, 1, 0, 0, 100);
	assert_int_equal(sw_shuffle_store_pin(st, 1, 0, 0, &v), 0);
	assert_int_equal(sw_shuffle_job_remove(st, 1), 0);
	assert_int_equal(sw_shuffle_store_view_read(st, &v, 0, b, 100), 0); /* still readable */
	assert_int_equal(pattern_check(b, 1, 0, 0, 0, 100), -1);
	sw_shuffle_store_unpin(st, &v);
	sw_shuffle_store_stats(st, &s);
	assert_int_equal(s.mem_used, 0);
	sw_shuffle_store_destroy(st);
}

static void zero_byte_and_many_small_partitions_are_kept(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(4 * MiB);
	for (uint32_t p = 0; p < 5000; p++)
		put_pattern(st, 1, p % 7, p, p % 97);
	for (uint32_t p = 0; p < 5000; p++)
		check_pattern(st, 1, p % 7, p, p % 97);
	sw_shuffle_store_destroy(st);
}

static void partition_metadata_counts_against_the_budget(void **state)
{
	(void)state;
	size_t budget = 1 * MiB;
	struct sw_shuffle_store *st = new_store(budget);
	struct sw_shuffle_store_stats s;
	int err = 0;
	uint32_t p;
	/* empty partitions take no arena at all: only their index entries fill the budget */
	for (p = 0; p < 100000 && err == 0; p++)
		err = sw_shuffle_put(st, 1, 0, p, NULL, 0);
	assert_int_equal(err, -EAGAIN);
	sw_shuffle_store_stats(st, &s);
	assert_true(s.paused);
	assert_int_equal(s.mem_used, 0);
	assert_true(s.meta_used > (size_t)(0.85 * (double)budget));
	assert_true(s.mem_peak <= (size_t)(0.95 * (double)budget));
	assert_true(p > 5000); /* about 100 bytes each, not a page */
	/* nothing in memory to spill: a put of data waits too, until the job goes */
	assert_int_equal(sw_shuffle_put(st, 1, 1, 0, "x", 1), -EAGAIN);
	assert_int_equal(sw_shuffle_job_remove(st, 1), 0);
	sw_shuffle_store_stats(st, &s);
	assert_false(s.paused);
	assert_true(s.meta_used <= 128 * 1024); /* the hash table's buckets are left */
	assert_int_equal(sw_shuffle_job_add(st, 1, KEY, 16), 0);
	put_pattern(st, 1, 1, 0, 1000);
	check_pattern(st, 1, 1, 0, 1000);
	sw_shuffle_store_destroy(st);
}

/* A durable store in spill_dir/durable, 1 MiB of memory. */
static int durable_open(struct sw_shuffle_store **st, char *dir, size_t n, unsigned *lines)
{
	snprintf(dir, n, "%s/durable", spill_dir);
	mkdir(dir, 0700);
	struct sw_shuffle_store_conf conf = {.mem_budget = 1 * MiB,
	                                     .spill_dir = dir,
	                                     .durable = true,
	                                     .log = {counting_log, lines}};
	return sw_shuffle_store_create(&conf, st);
}

/* The serving process: stores a job's map output and is killed (no destroy, no exit). */
static void durable_child(int wr)
{
	struct sw_shuffle_store *st;
	char dir[256];
	unsigned lines = 0;
	static const size_t lens[4] = {1000, 0, 3 * MiB, 200 * 1000};
	uint8_t *b = malloc(3 * MiB);
	if (durable_open(&st, dir, sizeof(dir), &lines) < 0 ||
	    sw_shuffle_job_add(st, 1, KEY, 16) < 0)
		_exit(10);
	for (uint32_t p = 0; p < 4; p++) {
		pattern_fill(b, 1, p / 3, p, 0, lens[p]);
		if (sw_shuffle_put(st, 1, p / 3, p, b, lens[p]) < 0)
			_exit(11);
	}
	if (write(wr, "x", 1) != 1)
		_exit(12);
	raise(SIGKILL);
}

static int held_part(void *arg, uint64_t job, uint32_t map, uint32_t part)
{
	uint32_t *bits = arg;
	if (job != 1 || map != part / 3)
		return -EINVAL;
	*bits |= 1u << part;
	return 0;
}

static void map_output_survives_a_restart_of_the_serving_process(void **state)
{
	(void)state;
	struct sw_shuffle_store *st;
	char dir[256], path[300];
	unsigned lines = 0;
	int fds[2], status;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX], c;
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		durable_child(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1); /* everything put */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	close(fds[0]);
	close(fds[1]);

	assert_int_equal(durable_open(&st, dir, sizeof(dir), &lines), 0);
	assert_int_equal(sw_shuffle_store_job_secret(st, 1, secret), 16);
	assert_memory_equal(secret, KEY, 16);
	uint32_t held = 0; /* the maps' partitions it reports, a bit each: 0-2 of map 0, 3 of 1 */
	assert_int_equal(sw_shuffle_store_each_part(st, held_part, &held), 0);
	assert_int_equal(held, 0xf);
	check_pattern(st, 1, 0, 0, 1000); /* was in memory too: the file has it */
	check_pattern(st, 1, 0, 1, 0);
	check_pattern(st, 1, 0, 2, 3 * MiB);
	check_pattern(st, 1, 1, 3, 200 * 1000);
	assert_int_equal(sw_shuffle_job_add(st, 1, KEY, 16), -EEXIST);
	assert_int_equal(sw_shuffle_job_add(st, 1, "another-key-of-16", 17), -EKEYREJECTED);
	uint8_t b[10] = {0};
	assert_int_equal(sw_shuffle_put(st, 1, 0, 0, b, 10), -EEXIST);
	put_pattern(st, 1, 2, 0, 5000); /* the job takes more output after the restart */
	sw_shuffle_store_destroy(st);

	/* a byte changed in the data file is reported, never served; the index's torn tail (a
	 * record cut short by the kill) is cut off, the records before it kept */
	snprintf(path, sizeof(path), "%s/job-1.data", dir);
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 500, SEEK_SET), 0);
	assert_int_equal(fputc('!', f), '!');
	fclose(f);
	snprintf(path, sizeof(path), "%s/job-1.idx", dir);
	f = fopen(path, "a");
	assert_non_null(f);
	assert_int_equal(fwrite("SWIR\1\0", 1, 6, f), 6);
	fclose(f);
	lines = 0;
	assert_int_equal(durable_open(&st, dir, sizeof(dir), &lines), 0);
	assert_int_equal(lines, 1); /* "index of job 1 torn or damaged ..." */
	assert_int_equal(sw_shuffle_read(st, 1, 0, 0, 0, b, 10), -EIO);
	check_pattern(st, 1, 0, 2, 3 * MiB);
	check_pattern(st, 1, 2, 0, 5000);
	assert_int_equal(sw_shuffle_job_remove(st, 1), 0);
	assert_int_equal(access(path, F_OK), -1); /* removing the job removes its files */
	sw_shuffle_store_destroy(st);
	assert_int_equal(rmdir(dir), 0);
}

/* In a child: the spill file may grow to 1 MiB only (RLIMIT_FSIZE makes writes fail EFBIG). */
static void full_disk_child(void)
{
	struct rlimit rl = {1 * MiB, 1 * MiB};
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) < 0)
		_exit(10);
	struct sw_shuffle_store_conf conf = {
	        .mem_budget = 1 * MiB, .spill_dir = spill_dir, .log = {quiet_log, NULL}};
	struct sw_shuffle_store *st;
	if (sw_shuffle_store_create(&conf, &st) < 0 || sw_shuffle_job_add(st, 1, KEY, 16) < 0)
		_exit(11);
	uint8_t *b = malloc(600000);
	int err = 0;
	uint32_t p;
	for (p = 0; p < 20 && err == 0; p++) {
		pattern_fill(b, 1, 0, p, 0, 300000);
		err = sw_shuffle_put(st, 1, 0, p, b, 300000);
	}
	if (err != -EFBIG)
		_exit(12);
	/* everything stored before the failure reads back; the failed one is absent */
	for (uint32_t i = 0; i + 1 < p; i++)
		if (sw_shuffle_read(st, 1, 0, i, 0, b, 300000) < 0 ||
		    pattern_check(b, 1, 0, i, 0, 300000) != -1)
			_exit(13);
	uint64_t n;
	if (sw_shuffle_part_len(st, 1, 0, p - 1, &n) != -ENOENT)
		_exit(14);
	struct sw_shuffle_store_stats s;
	sw_shuffle_store_stats(st, &s);
	if (s.spill_errors == 0)
		_exit(15);
	free(b);
	sw_shuffle_store_destroy(st);
	_exit(0);
}

static void a_failing_spill_write_returns_the_error_and_keeps_earlier_data(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		full_disk_child();
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

struct writer {
	struct sw_shuffle_store *st;
	uint32_t id;
};

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	uint8_t *b = malloc(200000);
	for (uint32_t p = 0; p < 50; p++) {
		size_t len = 1000 + (p * 7919u) % 200000;
		pattern_fill(b, 1, w->id, p, 0, len);
		int err;
		while ((err = sw_shuffle_put(w->st, 1, w->id, p, b, len)) == -EAGAIN)
			sw_shuffle_store_wait_resume(w->st, 100);
		if (err < 0)
			break;
		struct sw_shuffle_view v; /* a fetch of an earlier partition holds it a moment */
		if (p > 0 && sw_shuffle_store_pin(w->st, 1, w->id, p - 1, &v) == 0)
			sw_shuffle_store_unpin(w->st, &v);
	}
	free(b);
	return NULL;
}

static void concurrent_writers_never_exceed_the_pause_watermark(void **state)
{
	(void)state;
	struct sw_shuffle_store *st = new_store(2 * MiB);
	pthread_t t[4];
	struct writer w[4];
	for (uint32_t i = 0; i < 4; i++) {
		w[i] = (struct writer){st, i};
		pthread_create(&t[i], NULL, writer_main, &w[i]);
	}
	for (uint32_t i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	struct sw_shuffle_store_stats s;
	sw_shuffle_store_stats(st, &s);
	assert_true(s.mem_peak <= (size_t)(0.95 * 2 * MiB));
	assert_int_equal(s.parts_mem + s.parts_disk, 200);
	for (uint32_t i = 0; i < 4; i++)
		for (uint32_t p = 0; p < 50; p++)
			check_pattern(st, 1, i, p, 1000 + (p * 7919u) % 200000);
	sw_shuffle_store_destroy(st);
}

static void bad_watermarks_and_missing_spill_dir_are_refused(void **state)
{
	(void)state;
	struct sw_shuffle_store *st;
	struct sw_shuffle_store_conf c = {.spill_dir = spill_dir, .spill_at = 0.9, .pause_at = 0.8};
	assert_int_equal(sw_shuffle_store_create(&c, &st), -EINVAL);
	c = (struct sw_shuffle_store_conf){.spill_dir = spill_dir, .resume_below = 0.9};
	assert_int_equal(sw_shuffle_store_create(&c, &st), -EINVAL);
	c = (struct sw_shuffle_store_conf){.spill_dir = NULL};
	assert_int_equal(sw_shuffle_store_create(&c, &st), -EINVAL);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(spill_dir) == NULL ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(spill_dir); /* fails if any spill file was left behind */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(partitions_read_back_by_job_map_and_partition),
	        cmocka_unit_test(
	                job_secrets_shorter_than_16_bytes_are_refused_and_new_ones_are_random),
	        cmocka_unit_test(outputs_beyond_the_budget_spill_and_read_back_intact),
	        cmocka_unit_test(a_spill_file_changed_on_disk_is_reported_never_served),
	        cmocka_unit_test(chunk_crcs_come_from_put_time_for_ranges_of_whole_blocks),
	        cmocka_unit_test(spilling_starts_above_085_and_stops_below_070_of_the_budget),
	        cmocka_unit_test(
	                writers_pause_above_095_while_fetches_pin_memory_and_resume_below_070),
	        cmocka_unit_test(removing_a_job_frees_its_memory_and_spill_file),
	        cmocka_unit_test(a_job_removed_during_a_fetch_is_freed_when_the_fetch_ends),
	        cmocka_unit_test(zero_byte_and_many_small_partitions_are_kept),
	        cmocka_unit_test(partition_metadata_counts_against_the_budget),
	        cmocka_unit_test(map_output_survives_a_restart_of_the_serving_process),
	        cmocka_unit_test(a_failing_spill_write_returns_the_error_and_keeps_earlier_data),
	        cmocka_unit_test(concurrent_writers_never_exceed_the_pause_watermark),
	        cmocka_unit_test(bad_watermarks_and_missing_spill_dir_are_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
