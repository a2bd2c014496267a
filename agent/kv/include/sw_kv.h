/* SPDX-License-Identifier: MIT */
/*
 * sw_kv: the "key = value" config files of swagent and swcontroller.
 *
 * One "key = value" per line; '#' starts a comment; blank lines are ignored; spaces around
 * keys and values are dropped. sw_kv_read() hands each line to the daemon's setter, which
 * knows the keys; the value checkers below are the kinds both daemons use. Every error names
 * where it is: "FILE:LINE: KEY: reason" (the reason is the setter's), "FILE:LINE: expected
 * 'key = value'", "FILE:LINE: line too long (at most N bytes)", "FILE: strerror".
 *
 * Return codes: 0, -EINVAL (a bad line), or the negative errno of a file that cannot be read.
 */
#ifndef SW_KV_H
#define SW_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SW_KV_WHYLEN 160 /* room for a setter's reason */

/* Takes one line's value (value may be modified). Returns NULL, or why the value is bad (a
 * constant string, or written into why, SW_KV_WHYLEN bytes). */
typedef const char *(*sw_kv_set_fn)(void *arg, unsigned line, const char *key, char *value,
                                    char *why);

/* Reads path and calls set for every key = value line, in order, until one is refused.
 * Returns 0, -EINVAL with "FILE:LINE: ..." in err, or -errno with "FILE: strerror". */
int sw_kv_read(const char *path, sw_kv_set_fn set, void *arg, char *err, size_t errlen);

/* An unsigned decimal in [min, max]; with size, an optional K, M, G or T suffix (powers of
 * 1024). Returns NULL, or why not ("not a number", "out of range (MIN..MAX)", ...). */
const char *sw_kv_uint(const char *v, uint64_t min, uint64_t max, bool size, uint64_t *out,
                       char *why);

/* "IPv4:port" with a port in 0..65535, as sw_dp_listen and sw_dp_connect take it. */
const char *sw_kv_addr(const char *v);

/* Copies a non-empty v that fits into dst (size bytes). */
const char *sw_kv_copy(char *dst, size_t size, const char *v);

#endif
