/* SPDX-License-Identifier: MIT */
/* Private to the sw_wire library. */
#ifndef SW_WIRE_INT_H
#define SW_WIRE_INT_H

#include <stddef.h>

/* Writes a one-line description into err (when err is not NULL) and returns code. */
__attribute__((format(printf, 4, 5))) int sw_wire_errf(char *err, size_t errlen, int code,
                                                       const char *fmt, ...);

#endif
