/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "shuffle_int.h"

void sw_shuffle_logf(const struct sw_shuffle_log *log, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sw_shuffle_vlogf(log, fmt, ap);
	va_end(ap);
}

void sw_shuffle_vlogf(const struct sw_shuffle_log *log, const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (log != NULL && log->fn != NULL)
		log->fn(log->arg, line);
	else
		fprintf(stderr, "shuffle: %s\n", line);
}

const char *sw_shuffle_strerror(int err)
{
	switch (err) {
	case 0:
		return "success";
	case -ESRCH:
		return "unknown job";
	case -ENOENT:
		return "unknown partition";
	case -ERANGE:
		return "range past the end of the partition";
	case -EPROTONOSUPPORT:
		return "unsupported protocol version";
	case -EACCES:
		return "request refused: wrong job secret or unknown job";
	case -EBADMSG:
		return "corrupt or truncated frame";
	case -EILSEQ:
		return "chunk CRC mismatch after all retries";
	case -ECONNRESET:
		return "peer went away mid-transfer";
	case -EAGAIN:
		return "writers paused: memory above the pause watermark";
	case -ENOBUFS:
		return "buffer too small for the range";
	case -EFBIG:
		return "answer larger than the client's max_fetch";
	case -EEXIST:
		return "already exists";
	default:
		return strerror(err < 0 ? -err : err);
	}
}

uint64_t sw_shuffle_mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}
