/* SPDX-License-Identifier: MIT */
/*
 * HTTP inside the controller's loop: libmicrohttpd without threads of its own (MHD_USE_EPOLL),
 * its epoll fd watched by main.c, MHD_run called every turn. POST /jobs submits a job (JSON,
 * at most CTL_MAX_BODY bytes), GET /jobs, /status and /metrics report. A submission is
 * committed to the state database before its answer is sent.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <microhttpd.h>

#include "ctl.h"

#define CTL_MAX_BODY       (64 * 1024)
#define CTL_MAX_HTTP_CONNS 64

struct body {
	char *data;
	size_t len;
	bool too_big;
};

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, const char *type,
                              char *text)
{
	if (text == NULL) {
		status = MHD_HTTP_INTERNAL_SERVER_ERROR;
		text = strdup("{\"error\": \"out of memory\"}\n");
		if (text == NULL)
			return MHD_NO;
	}
	struct MHD_Response *r =
	        MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
	if (r == NULL) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	enum MHD_Result ok = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ok;
}

static enum MHD_Result error(struct MHD_Connection *conn, unsigned status, const char *msg)
{
	json_t *o = json_pack("{s:s}", "error", msg);
	char *text = o ? json_dumps(o, 0) : NULL;
	json_decref(o);
	return answer(conn, status, "application/json", text);
}

static enum MHD_Result submit(struct ctl *c, struct MHD_Connection *conn, struct body *b)
{
	char err[256], *text;
	uint64_t id;
	if (b->too_big)
		return error(conn, MHD_HTTP_CONTENT_TOO_LARGE, "job larger than 65536 bytes");
	int rc = sw_ctl_job_submit(c, b->data ? b->data : "", b->len, &id, err, sizeof(err));
	if (rc == -EBUSY)
		return error(conn, MHD_HTTP_SERVICE_UNAVAILABLE, err);
	if (rc == -ETIME) /* admission: the deadline is out of reach (a deadline policy) */
		return error(conn, MHD_HTTP_UNPROCESSABLE_CONTENT, err);
	if (rc < 0)
		return error(conn,
		             rc == -EINVAL ? MHD_HTTP_BAD_REQUEST : MHD_HTTP_INTERNAL_SERVER_ERROR,
		             err);
	sw_ctl_commit(c);
	if (c->stop)
		return error(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "state database failed");
	if (asprintf(&text, "{\"id\": %llu}\n", (unsigned long long)id) < 0)
		text = NULL;
	return answer(conn, MHD_HTTP_CREATED, "application/json", text);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_len, void **state)
{
	struct ctl *c = cls;
	(void)version;
	if (!strcmp(method, MHD_HTTP_METHOD_POST) && !strcmp(url, "/jobs")) {
		struct body *b = *state;
		if (b == NULL) {
			if ((b = calloc(1, sizeof(*b))) == NULL)
				return MHD_NO;
			*state = b;
			return MHD_YES;
		}
		if (*upload_len > 0) {
			if (!b->too_big && b->len + *upload_len <= CTL_MAX_BODY) {
				char *d = realloc(b->data, b->len + *upload_len + 1);
				if (d == NULL)
					return MHD_NO;
				memcpy(d + b->len, upload, *upload_len);
				b->data = d;
				b->len += *upload_len;
			} else {
				b->too_big = true;
			}
			*upload_len = 0;
			return MHD_YES;
		}
		return submit(c, conn, b);
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET))
		return error(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET, or POST /jobs");
	if (!strcmp(url, "/jobs"))
		return answer(conn, MHD_HTTP_OK, "application/json", sw_ctl_jobs_json(c));
	if (!strcmp(url, "/status"))
		return answer(conn, MHD_HTTP_OK, "application/json", sw_ctl_status_json(c));
	if (!strcmp(url, "/metrics")) {
		size_t len;
		return answer(conn, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
		              sw_ctl_metrics(c, &len));
	}
	return error(conn, MHD_HTTP_NOT_FOUND, "no such path: /jobs, /status or /metrics");
}

static void completed(void *cls, struct MHD_Connection *conn, void **state,
                      enum MHD_RequestTerminationCode why)
{
	(void)cls;
	(void)conn;
	(void)why;
	struct body *b = *state;
	if (b != NULL) {
		free(b->data);
		free(b);
		*state = NULL;
	}
}

int sw_ctl_http_start(struct ctl *c, char *err, size_t errlen)
{
	struct sockaddr_in sa = {.sin_family = AF_INET};
	char ip[SW_DP_ADDRSTRLEN];
	const char *colon = strrchr(c->conf.http_listen, ':');
	unsigned port = colon ? (unsigned)atoi(colon + 1) : 0;
	snprintf(ip, sizeof(ip), "%.*s", colon ? (int)(colon - c->conf.http_listen) : 0,
	         c->conf.http_listen);
	if (colon == NULL || inet_pton(AF_INET, ip, &sa.sin_addr) != 1 || port > 65535) {
		snprintf(err, errlen, "http_listen %s: expected IPv4:port", c->conf.http_listen);
		return -EINVAL;
	}
	sa.sin_port = htons((uint16_t)port);
	c->http =
	        MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG, (uint16_t)port, NULL, NULL,
	                         handle, c, MHD_OPTION_SOCK_ADDR, &sa, MHD_OPTION_CONNECTION_LIMIT,
	                         (unsigned)CTL_MAX_HTTP_CONNS, MHD_OPTION_CONNECTION_TIMEOUT, 10u,
	                         MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
	if (c->http == NULL) {
		snprintf(err, errlen, "http_listen %s: cannot listen (address in use?)",
		         c->conf.http_listen);
		return -EADDRINUSE;
	}
	return 0;
}

void sw_ctl_http_addr(struct ctl *c, char *buf, size_t len)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(c->http, MHD_DAEMON_INFO_BIND_PORT);
	const char *colon = strrchr(c->conf.http_listen, ':');
	snprintf(buf, len, "%.*s:%u", (int)(colon - c->conf.http_listen), c->conf.http_listen,
	         i ? (unsigned)i->port : 0u);
}

void sw_ctl_http_stop(struct ctl *c)
{
	if (c->http)
		MHD_stop_daemon(c->http);
	c->http = NULL;
}

int sw_ctl_http_fd(struct ctl *c)
{
	const union MHD_DaemonInfo *i = MHD_get_daemon_info(c->http, MHD_DAEMON_INFO_EPOLL_FD);
	return i ? i->epoll_fd : -1;
}

void sw_ctl_http_run(struct ctl *c)
{
	MHD_run(c->http);
}

int sw_ctl_http_timeout_ms(struct ctl *c)
{
	MHD_UNSIGNED_LONG_LONG ms;
	if (MHD_get_timeout(c->http, &ms) != MHD_YES)
		return -1;
	return ms > 60000 ? 60000 : (int)ms;
}
