/* SPDX-License-Identifier: MIT */
/*
 * swctl submit, status, jobs: the live controller's HTTP API (controller/README.md), over a
 * plain HTTP/1.0 request per command (libmicrohttpd is a server only; no HTTP client library
 * is in the project's packages).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "commands.h"
#include "live.h"
#include "readfile.h"

#define MAX_ANSWER (16u << 20)
/* A job file is read up to this; the controller refuses a body over 64 KiB (controller/http.c). */
#define MAX_BODY (1u << 20)

int live_http(const char *addr, const char *method, const char *path, const char *body,
              char **answer)
{
	char ip[64];
	const char *colon = strrchr(addr, ':');
	struct sockaddr_in sa = {.sin_family = AF_INET};
	snprintf(ip, sizeof(ip), "%.*s", colon ? (int)(colon - addr) : 0, addr);
	if (colon == NULL || inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
		fprintf(stderr, "swctl: controller %s: expected IPv4:port\n", addr);
		return -1;
	}
	sa.sin_port = htons((uint16_t)atoi(colon + 1));
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "swctl: controller %s: %s\n", addr, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char *req = NULL;
	size_t blen = body ? strlen(body) : 0;
	int n = asprintf(&req,
	                 "%s %s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/json\r\n"
	                 "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
	                 method, path, addr, blen, body ? body : "");
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int status = -1;
	if (n > 0 && write(fd, req, (size_t)n) == n) {
		for (;;) {
			if (len + 65536 + 1 > cap) {
				char *t = cap + 65536 > MAX_ANSWER ? NULL
				                                   : realloc(buf, cap + 65536 + 1);
				if (t == NULL)
					break;
				buf = t;
				cap += 65536 + 1;
			}
			ssize_t r = read(fd, buf + len, cap - len - 1);
			if (r <= 0)
				break;
			len += (size_t)r;
		}
	}
	free(req);
	close(fd);
	char *sep = buf ? (buf[len] = '\0', strstr(buf, "\r\n\r\n")) : NULL;
	if (sep == NULL || sscanf(buf, "HTTP/%*d.%*d %d", &status) != 1) {
		fprintf(stderr, "swctl: controller %s: no HTTP answer\n", addr);
		free(buf);
		return -1;
	}
	memmove(buf, sep + 4, strlen(sep + 4) + 1);
	*answer = buf;
	return status;
}

static const char *controller_addr(const char *opt)
{
	const char *env = getenv("SWCTL_CONTROLLER");
	return opt ? opt : env ? env : "127.0.0.1:7080";
}

/* Prints the controller's error answer; returns 1. */
static int refused(const char *what, int status, const char *answer)
{
	json_t *o = json_loads(answer, 0, NULL);
	const char *e = json_string_value(json_object_get(o, "error"));
	fprintf(stderr, "swctl %s: controller answered %d: %s\n", what, status, e ? e : answer);
	json_decref(o);
	return 1;
}

static void submit_usage(FILE *f)
{
	fprintf(f,
	        "usage: swctl submit [--controller IP:PORT] [JOB.json | options]\n\n"
	        "Submits a job to the controller (POST /jobs) and prints its id. The job is\n"
	        "JOB.json (\"-\" for stdin), or made from the options:\n"
	        "  --name NAME                  label shown by swctl jobs\n"
	        "  --user N                     user (0..users-1 of the controller), default 0\n"
	        "  --maps N, --reduces N        tasks (required without JOB.json)\n"
	        "  --input-bytes B              per map, default 67108864\n"
	        "  --map-output-bytes B         per map, default the input\n"
	        "  --reduce-output-bytes B      per reduce, default map outputs / reduces\n"
	        "  --rate B                     compute bytes per second, default 1e8\n"
	        "  --replicas N                 remote copies of each reduce's output, default 1\n"
	        "  --deadline S                 end within S s of submission (deadline policies;\n"
	        "                               refused when even the whole cluster cannot)\n"
	        "--controller defaults to $SWCTL_CONTROLLER, else 127.0.0.1:7080. The JSON fields\n"
	        "(and \"exec\" for real commands) are in controller/README.md.\n");
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {{"controller", required_argument, NULL, 'c'},
	                                     {"name", required_argument, NULL, 'n'},
	                                     {"user", required_argument, NULL, 'u'},
	                                     {"maps", required_argument, NULL, 'm'},
	                                     {"reduces", required_argument, NULL, 'r'},
	                                     {"input-bytes", required_argument, NULL, 'i'},
	                                     {"map-output-bytes", required_argument, NULL, 'o'},
	                                     {"reduce-output-bytes", required_argument, NULL, 'O'},
	                                     {"rate", required_argument, NULL, 'R'},
	                                     {"replicas", required_argument, NULL, 'p'},
	                                     {"deadline", required_argument, NULL, 'd'},
	                                     {"help", no_argument, NULL, 'h'},
	                                     {NULL, 0, NULL, 0}};
	static const char *const keys[] = {
	        ['u'] = "user",
	        ['m'] = "maps",
	        ['r'] = "reduces",
	        ['i'] = "input_bytes",
	        ['o'] = "map_output_bytes",
	        ['O'] = "reduce_output_bytes",
	        ['p'] = "output_replicas",
	};
	const char *addr = NULL;
	json_t *job = json_object();
	int o;
	optind = 1;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		char *end;
		if (o == 'h') {
			submit_usage(stdout);
			json_decref(job);
			return 0;
		} else if (o == 'c') {
			addr = optarg;
		} else if (o == 'n') {
			json_object_set_new(job, "name", json_string(optarg));
		} else if (o == 'R' || o == 'd') {
			double v = strtod(optarg, &end);
			if (*end || end == optarg)
				goto bad;
			json_object_set_new(job, o == 'R' ? "compute_bytes_per_s" : "deadline_s",
			                    json_real(v));
		} else if (o != '?' && o < 'z' && keys[o]) {
			long long v = strtoll(optarg, &end, 10);
			if (*end || end == optarg)
				goto bad;
			json_object_set_new(job, keys[o], json_integer(v));
		} else {
			submit_usage(stderr);
			json_decref(job);
			return 2;
		}
	}
	char *body;
	if (optind == argc - 1 && json_object_size(job) == 0)
		body = read_text(argv[optind], MAX_BODY, READ_STDIN);
	else if (optind == argc)
		body = json_dumps(job, JSON_COMPACT);
	else
		goto bad;
	json_decref(job);
	if (body == NULL)
		return 1;
	char *answer;
	int status = live_http(controller_addr(addr), "POST", "/jobs", body, &answer);
	free(body);
	if (status < 0)
		return 1;
	int rc = status == 201 ? 0 : refused("submit", status, answer);
	if (rc == 0) {
		json_t *a = json_loads(answer, 0, NULL);
		printf("%lld\n", (long long)json_integer_value(json_object_get(a, "id")));
		json_decref(a);
	}
	free(answer);
	return rc;
bad:
	fprintf(stderr, "swctl submit: bad arguments (a number, or JOB.json without options)\n");
	submit_usage(stderr);
	json_decref(job);
	return 2;
}

/* GET path and parse the JSON answer; NULL after printing why. */
static json_t *get(const char *what, int argc, char **argv, const char *path)
{
	const char *addr = NULL;
	if (argc == 3 && !strcmp(argv[1], "--controller"))
		addr = argv[2];
	else if (argc != 1) {
		fprintf(stderr,
		        "usage: swctl %s [--controller IP:PORT]   (default $SWCTL_CONTROLLER, "
		        "else 127.0.0.1:7080)\n",
		        what);
		return NULL;
	}
	char *answer;
	int status = live_http(controller_addr(addr), "GET", path, NULL, &answer);
	if (status < 0)
		return NULL;
	json_t *o = status == 200 ? json_loads(answer, 0, NULL) : NULL;
	if (status != 200)
		refused(what, status, answer);
	else if (o == NULL)
		fprintf(stderr, "swctl %s: the controller's answer is not JSON\n", what);
	free(answer);
	return o;
}

int cmd_status(int argc, char **argv)
{
	json_t *s = get("status", argc, argv, "/status"), *v;
	size_t i;
	if (s == NULL)
		return 1;
	json_t *jobs = json_object_get(s, "jobs");
	printf("policy %s; jobs: %lld running, %lld done, %lld failed\n\n",
	       json_string_value(json_object_get(s, "policy")),
	       (long long)json_integer_value(json_object_get(jobs, "running")),
	       (long long)json_integer_value(json_object_get(jobs, "done")),
	       (long long)json_integer_value(json_object_get(jobs, "failed")));
	printf("%-16s %5s %-5s %-9s %12s  %s\n", "node", "rack", "state", "connected", "heartbeat",
	       "shuffle");
	json_array_foreach(json_object_get(s, "nodes"), i, v)
	{
		printf("%-16s %5lld %-5s %-9s %10.1f s  %s\n",
		       json_string_value(json_object_get(v, "name")),
		       (long long)json_integer_value(json_object_get(v, "rack")),
		       json_string_value(json_object_get(v, "state")),
		       json_is_true(json_object_get(v, "connected")) ? "yes" : "no",
		       json_number_value(json_object_get(v, "since_heartbeat_s")),
		       json_string_value(json_object_get(v, "shuffle_addr")));
	}
	printf("\n%-5s %12s %10s\n", "rack", "utilisation", "saturated");
	json_array_foreach(json_object_get(s, "racks"), i, v)
	{
		printf("%-5lld %12.3f %10s\n",
		       (long long)json_integer_value(json_object_get(v, "rack")),
		       json_number_value(json_object_get(v, "utilisation")),
		       json_is_true(json_object_get(v, "saturated")) ? "yes" : "no");
	}
	json_decref(s);
	return 0;
}

int cmd_jobs(int argc, char **argv)
{
	json_t *a = get("jobs", argc, argv, "/jobs"), *v;
	size_t i;
	if (a == NULL)
		return 1;
	printf("%6s %-20s %4s %-8s %13s %13s %9s  %s\n", "id", "name", "user", "state", "maps",
	       "reduces", "seconds", "error");
	json_array_foreach(a, i, v)
	{
		json_t *m = json_object_get(v, "maps"), *r = json_object_get(v, "reduces");
		printf("%6lld %-20s %4lld %-8s %6lld/%-6lld %6lld/%-6lld %9.1f  %s\n",
		       (long long)json_integer_value(json_object_get(v, "id")),
		       json_string_value(json_object_get(v, "name")),
		       (long long)json_integer_value(json_object_get(v, "user")),
		       json_string_value(json_object_get(v, "state")),
		       (long long)json_integer_value(json_object_get(m, "done")),
		       (long long)json_integer_value(json_object_get(m, "total")),
		       (long long)json_integer_value(json_object_get(r, "done")),
		       (long long)json_integer_value(json_object_get(r, "total")),
		       json_number_value(json_object_get(v, "seconds")),
		       json_string_value(json_object_get(v, "error")));
	}
	json_decref(a);
	return 0;
}
