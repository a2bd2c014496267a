/* SPDX-License-Identifier: MIT */
/* The one way controller code fills an error message and returns its code. */
#include <stdarg.h>
#include <stdio.h>

#include "ctl.h"

int sw_ctl_errf(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}
