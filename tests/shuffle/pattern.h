/* SPDX-License-Identifier: MIT */
/* Test data: byte (job, map, part, offset) is a fixed function of those four, so that any
 * process can check any byte it received without a copy of what was sent. */
#ifndef SW_TEST_PATTERN_H
#define SW_TEST_PATTERN_H

#include <stddef.h>
#include <stdint.h>

void pattern_fill(uint8_t *buf, uint64_t job, uint32_t map, uint32_t part, uint64_t off,
                  size_t len);
/* Index of the first wrong byte, or -1 when all len bytes are right. */
long pattern_check(const uint8_t *buf, uint64_t job, uint32_t map, uint32_t part, uint64_t off,
                   size_t len);
/* A log sink that drops lines (tests provoke errors on purpose). */
void quiet_log(void *arg, const char *line);

#endif
