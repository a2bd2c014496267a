/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "peer.h"

static const char *swcontroller_path(void)
{
	const char *p = getenv("SWCONTROLLER");
	return p ? p : "controller/swcontroller";
}

void ctl_setup(struct ctlproc *p, unsigned heartbeat_ms, unsigned lost_after_ms, const char *extra)
{
	char err[SW_WIRE_ERRLEN];
	memset(p, 0, sizeof(*p));
	strcpy(p->dir, "/tmp/sw-ctl-test-XXXXXX");
	assert_non_null(mkdtemp(p->dir));
	snprintf(p->conf, sizeof(p->conf), "%s/controller.conf", p->dir);
	snprintf(p->log, sizeof(p->log), "%s/controller.log", p->dir);
	snprintf(p->trace, sizeof(p->trace), "%s/trace.jsonl", p->dir);
	snprintf(p->db, sizeof(p->db), "%s/state.db", p->dir);
	snprintf(p->key, sizeof(p->key), "%s/cluster.key", p->dir);
	assert_int_equal(sw_wire_key_generate(p->key, err, sizeof(err)), 0);
	assert_int_equal(sw_wire_key_load(p->key, &p->cluster_key, err, sizeof(err)), 0);
	FILE *f = fopen(p->conf, "w");
	assert_non_null(f);
	fprintf(f,
	        "listen = 127.0.0.1:0\nhttp_listen = 127.0.0.1:0\nkey_file = %s\n"
	        "state_db = %s\ntrace_file = %s\nheartbeat_ms = %u\nlost_after_ms = %u\n"
	        "node = r0n0 0\nnode = r0n1 0\nnode = r1n0 1\nnode = r1n1 1\n%s",
	        p->key, p->db, p->trace, heartbeat_ms, lost_after_ms, extra ? extra : "");
	fclose(f);
	ctl_start(p);
}

/* The addresses from the controller's "listening for agents on A, HTTP on H" line. */
static bool read_addresses(struct ctlproc *p)
{
	FILE *f = fopen(p->log, "r");
	char line[512];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line,
		               "swcontroller: listening for agents on %63[0-9.:], HTTP on "
		               "%63[0-9.:];",
		               p->agents, p->http) == 2;
	if (f)
		fclose(f);
	return found;
}

void ctl_start(struct ctlproc *p)
{
	p->agents[0] = p->http[0] = '\0';
	/* A new log, made before the child runs, so that no line of the last run is read. */
	int fd = open(p->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* A failed assertion skips the test's ctl_cleanup: the controller must not outlive
		 * the test program (session 28 found four left running). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(fd, 2);
		execl(swcontroller_path(), "swcontroller", "-c", p->conf, (char *)NULL);
		_exit(127);
	}
	close(fd);
	p->pid = pid;
	for (int i = 0; i < 20000 && !read_addresses(p); i++) {
		int st;
		if (waitpid(pid, &st, WNOHANG) == pid) {
			char cmd[256];
			snprintf(cmd, sizeof(cmd), "cat %s >&2", p->log);
			(void)system(cmd);
			fail_msg("swcontroller exited with status %d", st);
		}
		usleep(1000);
	}
	assert_true(p->http[0] != '\0');
}

int ctl_stop(struct ctlproc *p, int sig)
{
	int st = 0;
	if (p->pid <= 0)
		return -1;
	kill(p->pid, sig);
	waitpid(p->pid, &st, 0);
	p->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

void ctl_cleanup(struct ctlproc *p)
{
	char cmd[128];
	if (p->pid > 0)
		ctl_stop(p, SIGKILL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
	(void)system(cmd);
}

bool ctl_logged(const struct ctlproc *p, const char *text)
{
	FILE *f = fopen(p->log, "r");
	char line[1024];
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, text) != NULL;
	if (f)
		fclose(f);
	return found;
}

int ctl_http(const struct ctlproc *p, const char *method, const char *path, const char *body,
             char **answer)
{
	char ip[64];
	const char *colon = strrchr(p->http, ':');
	struct sockaddr_in sa = {.sin_family = AF_INET};
	snprintf(ip, sizeof(ip), "%.*s", (int)(colon - p->http), p->http);
	inet_pton(AF_INET, ip, &sa.sin_addr);
	sa.sin_port = htons((uint16_t)atoi(colon + 1));
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	char *req;
	size_t blen = body ? strlen(body) : 0;
	int n = asprintf(&req, "%s %s HTTP/1.0\r\nContent-Length: %zu\r\n\r\n%s", method, path,
	                 blen, body ? body : "");
	assert_true(n > 0);
	assert_int_equal(write(fd, req, (size_t)n), n);
	free(req);
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap);
	ssize_t r;
	while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)r;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = '\0';
	int status = 0;
	assert_int_equal(sscanf(buf, "HTTP/1.%*d %d", &status), 1);
	char *sep = strstr(buf, "\r\n\r\n");
	assert_non_null(sep);
	*answer = strdup(sep + 4);
	free(buf);
	return status;
}

void agent_connect(struct agent *a, const struct ctlproc *p)
{
	struct sw_dp_config cfg;
	memset(a, 0, sizeof(*a));
	sw_wire_dp_config(&cfg);
	cfg.max_msg = 4u << 20; /* so that tests can send frames over the wire limit */
	assert_int_equal(sw_dp_open(&cfg, &a->dp), 0);
	assert_int_equal(sw_dp_connect(a->dp, p->agents, &a->ep), 0);
}

int agent_send(struct agent *a, enum sw_wire_type type, const ProtobufCMessage *msg)
{
	char err[SW_WIRE_ERRLEN];
	int rc = sw_wire_send(a->ep, type, msg, err, sizeof(err));
	a->sending += rc == 0;
	return rc;
}

int agent_send_raw(struct agent *a, uint64_t tag, const void *buf, size_t len)
{
	void *copy = malloc(len ? len : 1);
	memcpy(copy, buf, len);
	struct iovec iov = {copy, len};
	int rc = sw_dp_send(a->ep, tag, &iov, 1, copy);
	if (rc < 0)
		free(copy);
	a->sending += rc == 0;
	return rc;
}

/* Waits for a message through up to `rounds` idle waits of wait_ms. */
static int next(struct agent *a, struct sw_wire_msg *m, int rounds, int wait_ms)
{
	char err[SW_WIRE_ERRLEN];
	for (int idle = 0; idle < rounds;) {
		struct sw_dp_event ev;
		if (a->closed)
			return -ECONNRESET;
		int n = sw_dp_poll(a->dp, &ev, 1);
		if (n <= 0) {
			if (sw_dp_wait(a->dp, wait_ms) == -ETIMEDOUT)
				idle++;
			continue;
		}
		if (ev.type == SW_DP_EV_SEND) {
			free(ev.user);
			a->sending--;
		} else if (ev.type == SW_DP_EV_CLOSED) {
			a->closed = true;
			a->close_status = ev.status;
		} else if (ev.type == SW_DP_EV_RECV) {
			int rc = sw_wire_decode(ev.tag, ev.data, ev.len, m, err, sizeof(err));
			sw_dp_release(a->dp, &ev);
			if (rc < 0)
				fail_msg("controller sent a bad message: %s", err);
			return 0;
		}
	}
	return -ETIMEDOUT;
}

int agent_next(struct agent *a, struct sw_wire_msg *m)
{
	return next(a, m, 2000, 10);
}

int agent_poll(struct agent *a, struct sw_wire_msg *m)
{
	int rc = next(a, m, 1, 2);
	return rc == -ETIMEDOUT ? -EAGAIN : rc;
}

int agent_join(struct agent *a, const struct ctlproc *p, const char *node_id, uint32_t rack,
               const struct sw_wire_key *key, uint64_t boot_epoch)
{
	SwWire__Hello hello = SW_WIRE__HELLO__INIT;
	SwWire__Auth auth = SW_WIRE__AUTH__INIT;
	struct sw_wire_msg m;
	int rc;
	agent_connect(a, p);
	assert_int_equal(sw_wire_hello_init(&a->hs, node_id, &hello), 0);
	hello.rack = rack;
	hello.map_slots = 2;
	hello.reduce_slots = 2;
	hello.boot_epoch = boot_epoch;
	hello.shuffle_addr = "127.0.0.1:7070";
	hello.replica_addr = "127.0.0.1:7071";
	assert_int_equal(agent_send(a, SW_WIRE_HELLO, &hello.base), 0);
	while ((rc = agent_next(a, &m)) == 0) {
		if (m.type == SW_WIRE_REFUSED) {
			snprintf(a->refused, sizeof(a->refused), "%s", m.refused->reason);
			sw_wire_msg_free(&m);
			return -ECONNREFUSED;
		}
		if (m.type == SW_WIRE_WELCOME) {
			a->welcome = *m.welcome;
			sw_wire_msg_free(&m);
			return 0;
		}
		assert_int_equal(m.type, SW_WIRE_CHALLENGE);
		rc = sw_wire_challenge_answer(&a->hs, key, m.challenge, &auth);
		sw_wire_msg_free(&m);
		if (rc == -EACCES) {
			/* The controller's proof fails with this key. Answer anyway with a proof
			 * that cannot be right, to see what the controller says. */
			static uint8_t zeros[SW_WIRE_MAC_LEN];
			a->controller_unproven = true;
			auth.mac.data = zeros;
			auth.mac.len = sizeof(zeros);
		} else {
			assert_int_equal(rc, 0);
		}
		assert_int_equal(agent_send(a, SW_WIRE_AUTH, &auth.base), 0);
	}
	return rc;
}

void agent_close(struct agent *a)
{
	/* Closing the context drops completions not yet polled: take them first, so that every
	 * send's buffer is freed (a closed connection completes them with an error). */
	struct sw_dp_event ev;
	for (int i = 0; a->sending > 0 && i < 2000;) {
		if (sw_dp_poll(a->dp, &ev, 1) <= 0) {
			sw_dp_wait(a->dp, 10);
			i++;
		} else if (ev.type == SW_DP_EV_SEND) {
			free(ev.user);
			a->sending--;
		} else if (ev.type == SW_DP_EV_RECV) {
			sw_dp_release(a->dp, &ev);
		}
	}
	sw_dp_close(a->dp);
	memset(a, 0, sizeof(*a));
}
