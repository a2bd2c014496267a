/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "shuffle_int.h"

void sw_logf(const struct sw_shuffle_log *log, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
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
	case -EEXIST:
		return "already exists";
	default:
		return strerror(err < 0 ? -err : err);
	}
}
