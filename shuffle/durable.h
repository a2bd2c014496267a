/* SPDX-License-Identifier: MIT */
/* A durable store's files: one data file and one index per job (durable.c, README.md). */
#ifndef SW_SHUFFLE_DURABLE_H
#define SW_SHUFFLE_DURABLE_H

#include <stddef.h>
#include <stdint.h>

#include "shuffle_int.h"

struct sw_shuffle_durable_part {
	uint32_t map, part;
	uint64_t len, file_off;
	uint32_t nblocks;
	uint32_t *crcs; /* CRC32C of each 64 KiB block, nblocks of them */
};

struct sw_shuffle_durable_job {
	uint64_t id;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX];
	size_t secret_len;
	int data_fd, idx_fd;
	uint64_t data_len; /* where the last good record's data ends */
	struct sw_shuffle_durable_part *parts;
	size_t nparts;
};

/* Creates job-ID.data and job-ID.idx (mode 0600) in dir and writes the index header with the
 * job's secret. 0, or -errno (-EEXIST when the files are there already). */
int sw_shuffle_durable_create(const char *dir, uint64_t job, const uint8_t *secret,
                              size_t secret_len, int *data_fd, int *idx_fd);
/* Appends a partition's record to an index (one write; cut back on failure). 0 or -errno. */
int sw_shuffle_durable_record(int idx_fd, const struct sw_shuffle_durable_part *p);
/* Removes a job's files. */
void sw_shuffle_durable_unlink(const char *dir, uint64_t job);

/* Loads every job index in dir and hands each to fn, which takes what it keeps: fds set to
 * -1, crcs to NULL; the rest is freed after it. A damaged index or torn tail is logged, cut
 * off and left out. Returns 0, fn's first error, or -errno when dir cannot be read. */
typedef int (*sw_shuffle_durable_fn)(void *arg, struct sw_shuffle_durable_job *j);
int sw_shuffle_durable_scan(const char *dir, const struct sw_shuffle_log *log,
                            sw_shuffle_durable_fn fn, void *arg);
void sw_shuffle_durable_job_free(struct sw_shuffle_durable_job *j);

#endif
