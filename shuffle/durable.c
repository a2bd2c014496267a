/* SPDX-License-Identifier: MIT */
/*
 * The on-disk index of a durable store (layout in README.md, "Durable stores"): per job a data
 * file job-ID.data and an index job-ID.idx of a header (the job's secret) and one record per
 * partition, each record closed by its own CRC32C, so that a store reopened after its process
 * died finds every partition put before, and a torn last record (the process killed mid-append)
 * is recognised and cut off rather than trusted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "durable.h"
#include "proto.h"

#define IDX_MAGIC  0x58495753u /* "SWIX" */
#define REC_MAGIC  0x52495753u /* "SWIR" */
#define IDX_VER    1
#define HDR_LEN    (4 + 4 + 8 + 4 + SW_SHUFFLE_SECRET_MAX + 4)
#define REC_FIXED  (4 + 4 + 4 + 8 + 8 + 4) /* magic, map, part, len, file_off, nblocks */
#define MAX_BLOCKS (1u << 26)              /* 4 TiB partitions in 64 KiB blocks */

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void path_of(char *buf, size_t n, const char *dir, uint64_t job, const char *ext)
{
	snprintf(buf, n, "%s/job-%" PRIu64 ".%s", dir, job, ext);
}

static int write_all(int fd, const void *p, size_t len)
{
	const uint8_t *b = p;
	while (len > 0) {
		ssize_t n = write(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

int sw_shuffle_durable_create(const char *dir, uint64_t job, const uint8_t *secret,
                              size_t secret_len, int *data_fd, int *idx_fd)
{
	char path[4096];
	uint8_t h[HDR_LEN] = {0};
	int err;
	path_of(path, sizeof(path), dir, job, "data");
	*data_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (*data_fd < 0)
		return -errno;
	path_of(path, sizeof(path), dir, job, "idx");
	*idx_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (*idx_fd < 0) {
		err = -errno;
		goto fail;
	}
	put32(h, IDX_MAGIC);
	put32(h + 4, IDX_VER);
	put64(h + 8, job);
	put32(h + 16, (uint32_t)secret_len);
	memcpy(h + 20, secret, secret_len);
	put32(h + HDR_LEN - 4, sw_shuffle_proto_crc32c(h, HDR_LEN - 4));
	if ((err = write_all(*idx_fd, h, sizeof(h))) == 0)
		return 0;
	close(*idx_fd);
fail:
	close(*data_fd);
	sw_shuffle_durable_unlink(dir, job);
	return err;
}

int sw_shuffle_durable_record(int idx_fd, const struct sw_shuffle_durable_part *p)
{
	size_t n = REC_FIXED + 4 * (size_t)p->nblocks + 4;
	uint8_t *r = malloc(n);
	if (r == NULL)
		return -ENOMEM;
	put32(r, REC_MAGIC);
	put32(r + 4, p->map);
	put32(r + 8, p->part);
	put64(r + 12, p->len);
	put64(r + 20, p->file_off);
	put32(r + 28, p->nblocks);
	for (uint32_t i = 0; i < p->nblocks; i++)
		put32(r + REC_FIXED + 4 * (size_t)i, p->crcs[i]);
	put32(r + n - 4, sw_shuffle_proto_crc32c(r, n - 4));
	/* O_APPEND: one write, so a record is whole or torn at the end, never interleaved */
	off_t before = lseek(idx_fd, 0, SEEK_END);
	int err = write_all(idx_fd, r, n);
	if (err < 0 && before >= 0 && ftruncate(idx_fd, before) < 0)
		err = -EIO;
	free(r);
	return err;
}

void sw_shuffle_durable_unlink(const char *dir, uint64_t job)
{
	char path[4096];
	path_of(path, sizeof(path), dir, job, "data");
	unlink(path);
	path_of(path, sizeof(path), dir, job, "idx");
	unlink(path);
}

/* Whole file into a buffer (*len bytes). */
static uint8_t *read_file(int fd, size_t *len)
{
	struct stat sb;
	if (fstat(fd, &sb) < 0)
		return NULL;
	uint8_t *buf = malloc((size_t)sb.st_size + 1);
	size_t n = 0;
	while (buf != NULL && n < (size_t)sb.st_size) {
		ssize_t r = pread(fd, buf + n, (size_t)sb.st_size - n, (off_t)n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return buf;
}

/* Decodes the records of an index from off on into j->parts; returns where the good ones end. */
static size_t parse_records(const uint8_t *buf, size_t len, size_t off, uint64_t data_len,
                            struct sw_shuffle_durable_job *j)
{
	while (off < len) {
		const uint8_t *r = buf + off;
		if (len - off < REC_FIXED || get32(r) != REC_MAGIC || get32(r + 28) > MAX_BLOCKS)
			break;
		uint32_t nb = get32(r + 28);
		size_t n = REC_FIXED + 4 * (size_t)nb + 4;
		struct sw_shuffle_durable_part p = {.map = get32(r + 4),
		                                    .part = get32(r + 8),
		                                    .len = get64(r + 12),
		                                    .file_off = get64(r + 20),
		                                    .nblocks = nb};
		if (len - off < n || get32(r + n - 4) != sw_shuffle_proto_crc32c(r, n - 4) ||
		    p.file_off + p.len < p.file_off || p.file_off + p.len > data_len)
			break;
		struct sw_shuffle_durable_part *parts =
		        realloc(j->parts, (j->nparts + 1) * sizeof(*parts));
		uint32_t *crcs = malloc(4 * (size_t)nb + 1);
		if (parts != NULL)
			j->parts = parts;
		if (parts == NULL || crcs == NULL) {
			free(crcs);
			break;
		}
		for (uint32_t i = 0; i < nb; i++)
			crcs[i] = get32(r + REC_FIXED + 4 * (size_t)i);
		p.crcs = crcs;
		j->parts[j->nparts++] = p;
		if (p.file_off + p.len > j->data_len)
			j->data_len = p.file_off + p.len;
		off += n;
	}
	return off;
}

/* Loads one job's files. 0, or an error (logged, naming the file); nothing is kept then. */
static int load_job(const char *dir, uint64_t job, const struct sw_shuffle_log *log,
                    struct sw_shuffle_durable_job *j)
{
	char path[4096];
	struct stat sb;
	size_t len = 0;
	uint8_t *buf = NULL;
	*j = (struct sw_shuffle_durable_job){.id = job, .data_fd = -1};
	path_of(path, sizeof(path), dir, job, "idx");
	if ((j->idx_fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC)) < 0 ||
	    (buf = read_file(j->idx_fd, &len)) == NULL)
		goto fail_errno;
	if (len < HDR_LEN || get32(buf) != IDX_MAGIC || get32(buf + 4) != IDX_VER ||
	    get64(buf + 8) != job || get32(buf + 16) < SW_SHUFFLE_SECRET_MIN ||
	    get32(buf + 16) > SW_SHUFFLE_SECRET_MAX ||
	    get32(buf + HDR_LEN - 4) != sw_shuffle_proto_crc32c(buf, HDR_LEN - 4)) {
		sw_shuffle_logf(log, "store: %s: not a job index (bad header); job left out", path);
		errno = EBADMSG;
		goto fail;
	}
	j->secret_len = get32(buf + 16);
	memcpy(j->secret, buf + 20, j->secret_len);
	path_of(path, sizeof(path), dir, job, "data");
	if ((j->data_fd = open(path, O_RDWR | O_CLOEXEC)) < 0 || fstat(j->data_fd, &sb) < 0)
		goto fail_errno;
	size_t good = parse_records(buf, len, HDR_LEN, (uint64_t)sb.st_size, j);
	if (good < len) {
		sw_shuffle_logf(log,
		                "store: index of job %" PRIu64
		                " torn or damaged at byte %zu of %zu "
		                "(or its data file is short): the rest is cut off",
		                job, good, len);
		if (ftruncate(j->idx_fd, (off_t)good) < 0)
			goto fail_errno;
	}
	/* data appended after the last good record (a put killed midway) is cut off too */
	if ((uint64_t)sb.st_size > j->data_len && ftruncate(j->data_fd, (off_t)j->data_len) < 0)
		goto fail_errno;
	free(buf);
	return 0;
fail_errno:
	sw_shuffle_logf(log, "store: %s: %s; job %" PRIu64 " left out", path, strerror(errno), job);
fail:;
	int err = -errno;
	free(buf);
	sw_shuffle_durable_job_free(j);
	return err;
}

void sw_shuffle_durable_job_free(struct sw_shuffle_durable_job *j)
{
	for (size_t i = 0; i < j->nparts; i++)
		free(j->parts[i].crcs);
	free(j->parts);
	if (j->idx_fd >= 0)
		close(j->idx_fd);
	if (j->data_fd >= 0)
		close(j->data_fd);
	j->parts = NULL;
	j->nparts = 0;
	j->idx_fd = j->data_fd = -1;
}

int sw_shuffle_durable_scan(const char *dir, const struct sw_shuffle_log *log,
                            sw_shuffle_durable_fn fn, void *arg)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int err = 0;
	if (d == NULL)
		return -errno;
	while (err == 0 && (e = readdir(d)) != NULL) {
		uint64_t job;
		char name[64];
		struct sw_shuffle_durable_job j;
		if (sscanf(e->d_name, "job-%" SCNu64 ".idx", &job) != 1)
			continue;
		snprintf(name, sizeof(name), "job-%" PRIu64 ".idx", job);
		if (strcmp(name, e->d_name) != 0 || load_job(dir, job, log, &j) < 0)
			continue;  /* not ours, or logged and left out */
		err = fn(arg, &j); /* takes what it keeps out of j */
		sw_shuffle_durable_job_free(&j);
	}
	closedir(d);
	return err;
}
