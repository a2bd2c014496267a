/* SPDX-License-Identifier: MIT */
/* The live controller's HTTP API, for swctl's commands that talk to it. */
#ifndef SWCTL_LIVE_H
#define SWCTL_LIVE_H

/*
 * One request to the controller at @p addr (IPv4:port), with @p body (JSON) or NULL. Returns
 * the HTTP status and the answer's body in *@p answer (malloc'd), or -1 after a message on
 * stderr (bad address, connection refused, no HTTP answer).
 */
int live_http(const char *addr, const char *method, const char *path, const char *body,
              char **answer);

#endif
