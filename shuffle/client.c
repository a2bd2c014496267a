/* SPDX-License-Identifier: MIT */
/*
 * Blocking client: a fetcher (fetcher.c) on a context of its own, with one fetch at a time,
 * waited on. The connection to the server is the fetcher's, kept between fetches.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <sw_dp.h>

#include "shuffle_int.h"

struct sw_shuffle_client {
	struct sw_dp_ctx *ctx;
	struct sw_shuffle_fetcher *fc;
	char server[SW_DP_ADDRSTRLEN];
	bool broken;
};

struct result {
	bool done;
	int status;
	uint8_t *data;
	uint64_t len;
};

static void on_done(void *arg, struct sw_shuffle_fetch_op *op, int status, uint8_t *data,
                    uint64_t len)
{
	(void)op;
	struct result *r = arg;
	*r = (struct result){.done = true, .status = status, .data = data, .len = len};
}

/* Runs one fetch to its end. */
static int fetch(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f, void *buf,
                 size_t cap, struct result *r)
{
	if (cl->broken)
		return -ENOTCONN;
	*r = (struct result){0};
	int err = sw_shuffle_fetcher_add(cl->fc, cl->server, f, buf, cap, on_done, r, NULL);
	if (err < 0)
		return err;
	struct sw_dp_event ev[16];
	const int batch = (int)(sizeof(ev) / sizeof(ev[0]));
	while (!r->done) {
		int n = sw_dp_poll(cl->ctx, ev, batch);
		for (int i = 0; i < n; i++)
			sw_shuffle_fetcher_event(cl->fc, &ev[i]);
		int wait = sw_shuffle_fetcher_progress(cl->fc);
		/* a batch short of full took all there was: wait (at once if more came) rather
		 * than poll once more only to find nothing, a system call per fetch */
		if (n < batch && !r->done)
			sw_dp_wait(cl->ctx, wait);
	}
	if (r->status == -ECONNRESET || r->status == -ETIMEDOUT || r->status == -EBADMSG ||
	    r->status == -EPROTONOSUPPORT)
		cl->broken = true;
	return r->status;
}

int sw_shuffle_client_fetch(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                            uint8_t **data, uint64_t *len)
{
	struct result r;
	*data = NULL;
	*len = 0;
	int err = fetch(cl, f, NULL, 0, &r);
	if (err == 0) {
		*data = r.data;
		*len = r.len;
	}
	return err;
}

int sw_shuffle_client_fetch_into(struct sw_shuffle_client *cl, const struct sw_shuffle_fetch *f,
                                 void *buf, size_t cap, uint64_t *len)
{
	struct result r;
	*len = 0;
	if (buf == NULL)
		return -EINVAL;
	int err = fetch(cl, f, buf, cap, &r);
	if (err == 0)
		*len = r.len;
	return err;
}

void sw_shuffle_client_counters(struct sw_shuffle_client *cl, struct sw_shuffle_counters *out)
{
	sw_shuffle_fetcher_counters(cl->fc, out);
}

int sw_shuffle_client_create(const struct sw_shuffle_client_conf *conf,
                             struct sw_shuffle_client **out)
{
	if (conf == NULL || conf->server_addr == NULL)
		return -EINVAL;
	struct sw_shuffle_client *cl = calloc(1, sizeof(*cl));
	if (cl == NULL)
		return -ENOMEM;
	snprintf(cl->server, sizeof(cl->server), "%s", conf->server_addr);
	struct sw_dp_config dc;
	sw_dp_config_init(&dc);
	dc.backend = conf->backend;
	dc.ucx_tls = conf->ucx_tls;
	dc.one_sided = conf->one_sided;
	sw_shuffle_fetcher_dp_config(&dc);
	struct sw_shuffle_fetcher_conf fconf = {.parallel = 1,
	                                        .chunk = conf->chunk,
	                                        .codec = conf->codec,
	                                        .one_sided = conf->one_sided,
	                                        .retries = conf->retries,
	                                        .timeout_ms = conf->timeout_ms,
	                                        .deadline_ms = conf->deadline_ms,
	                                        .max_fetch = conf->max_fetch,
	                                        .log = conf->log};
	int err = sw_dp_open(&dc, &cl->ctx);
	if (err == 0)
		err = sw_shuffle_fetcher_attach(cl->ctx, &fconf, &cl->fc);
	if (err < 0) {
		sw_shuffle_logf(&conf->log, "client: cannot fetch from %s: %s", conf->server_addr,
		                sw_dp_strerror(err));
		sw_shuffle_client_destroy(cl);
		return err;
	}
	*out = cl;
	return 0;
}

void sw_shuffle_client_destroy(struct sw_shuffle_client *cl)
{
	if (cl == NULL)
		return;
	sw_shuffle_fetcher_destroy(cl->fc);
	sw_dp_close(cl->ctx);
	free(cl);
}
