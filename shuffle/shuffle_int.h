/* SPDX-License-Identifier: MIT */
/* Internal interfaces shared by the files of shuffle/ (not installed, not for other modules). */
#ifndef SW_SHUFFLE_INT_H
#define SW_SHUFFLE_INT_H

#include <stdint.h>

#include "sw_shuffle.h"

#if defined(__GNUC__)
#define SW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SW_PRINTF(a, b)
#endif

#include <stdarg.h>

void sw_shuffle_logf(const struct sw_shuffle_log *log, const char *fmt, ...) SW_PRINTF(2, 3);
void sw_shuffle_vlogf(const struct sw_shuffle_log *log, const char *fmt, va_list ap);
/* CLOCK_MONOTONIC in milliseconds (deadlines and idle times). */
uint64_t sw_shuffle_mono_ms(void);

/* A pinned partition: it stays where it is (not spilled, not freed) until unpinned. */
struct sw_shuffle_view {
	struct part *p;
	uint64_t len;
	const uint8_t *addr; /* NULL when the partition lives in a spill file */
};

/* -ESRCH (job), -ENOENT (partition). */
int sw_shuffle_store_pin(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t part,
                         struct sw_shuffle_view *v);
/* Copies [off, off+len) of a pinned partition, which the caller has range-checked: 0 or -EIO. */
int sw_shuffle_store_view_read(struct sw_shuffle_store *st, const struct sw_shuffle_view *v,
                               uint64_t off, void *buf, size_t len);
/* The CRC32C of [off, off+len) of a pinned partition from the block CRCs taken at put time,
 * without reading its bytes: 0, or -EINVAL when the range does not start on a 64 KiB block
 * or ends inside one before the partition's end (the caller then computes it). Served so,
 * a chunk's CRC checks its bytes from put time to the reducer, not from the send on. */
int sw_shuffle_store_view_crc(const struct sw_shuffle_view *v, uint64_t off, uint64_t len,
                              uint32_t *crc);
/* The answer tag's digests of the 64 KiB pieces of [off, off+len) of a pinned partition, taken
 * at put time (*n of them, valid while it is pinned): 0, or -EINVAL when the range is not whole
 * blocks as for view_crc, or the partition has none (reopened from disk): the caller then takes
 * them from the bytes. */
int sw_shuffle_store_view_digests(const struct sw_shuffle_view *v, uint64_t off, uint64_t len,
                                  const uint8_t **digests, size_t *n);
void sw_shuffle_store_unpin(struct sw_shuffle_store *st, struct sw_shuffle_view *v);
/* The memory arena, for a server to register with its transport. */
void sw_shuffle_store_arena(struct sw_shuffle_store *st, void **addr, size_t *len);
/* Copies the job's secret: its length, or -ESRCH. */
int sw_shuffle_store_job_secret(struct sw_shuffle_store *st, uint64_t job,
                                uint8_t secret[SW_SHUFFLE_SECRET_MAX]);

#endif
