/* SPDX-License-Identifier: MIT */
#include "pattern.h"

static uint64_t seed(uint64_t job, uint32_t map, uint32_t part)
{
	uint64_t x = job * 0x9e3779b97f4a7c15ull ^ ((uint64_t)map << 32 | part);
	x = (x ^ (x >> 31)) * 0xbf58476d1ce4e5b9ull;
	return x ^ (x >> 29);
}

static uint8_t byte_at(uint64_t s, uint64_t off)
{
	return (uint8_t)((s >> ((off & 7) * 8)) + (off >> 3) * 0x9d);
}

void pattern_fill(uint8_t *buf, uint64_t job, uint32_t map, uint32_t part, uint64_t off, size_t len)
{
	uint64_t s = seed(job, map, part);
	for (size_t i = 0; i < len; i++)
		buf[i] = byte_at(s, off + i);
}

long pattern_check(const uint8_t *buf, uint64_t job, uint32_t map, uint32_t part, uint64_t off,
                   size_t len)
{
	uint64_t s = seed(job, map, part);
	for (size_t i = 0; i < len; i++)
		if (buf[i] != byte_at(s, off + i))
			return (long)i;
	return -1;
}

void quiet_log(void *arg, const char *line)
{
	(void)arg;
	(void)line;
}
