/* SPDX-License-Identifier: MIT */
/*
 * Does MSG_ZEROCOPY pay for the tcp backend? One process sends 4 GiB over loopback in
 * SIZE-byte send() calls, with or without MSG_ZEROCOPY, to a child that reads and drops
 * it; prints Gbit/s and how many zerocopy completions the kernel marked "copied".
 *   bench_dp_zerocopy SIZE 0|1
 * (Buffers are reused before their completion arrives: fine for timing, not for data.)
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads completions off the error queue; returns how many said the data was copied. */
static long drain(int fd, long *notes)
{
	char ctl[128];
	long copied = 0;

	for (;;) {
		struct msghdr m = {.msg_control = ctl, .msg_controllen = sizeof(ctl)};
		struct cmsghdr *cm;
		struct sock_extended_err *e;
		if (recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return copied;
		cm = CMSG_FIRSTHDR(&m);
		if (!cm)
			continue;
		e = (struct sock_extended_err *)CMSG_DATA(cm);
		(*notes)++;
		copied += (e->ee_code & SO_EE_CODE_ZEROCOPY_COPIED) != 0;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t alen = sizeof(a);
	size_t size, total = (size_t)4 << 30, sent = 0;
	long notes = 0, copied = 0;
	int lfd, fd, zc, one = 1;
	double t0, t;
	char *buf;

	if (argc != 3 || !(size = strtoull(argv[1], NULL, 0))) {
		fprintf(stderr, "usage: %s SIZE 0|1\n", argv[0]);
		return 2;
	}
	zc = atoi(argv[2]);
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
	    getsockname(lfd, (struct sockaddr *)&a, &alen)) {
		perror("bench_dp_zerocopy: listen");
		return 1;
	}
	if (fork() == 0) {
		int c = accept(lfd, NULL, NULL);
		char *sink = malloc(1 << 20);
		while (read(c, sink, 1 << 20) > 0)
			;
		_exit(0);
	}
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    (zc && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))) {
		perror("bench_dp_zerocopy: connect");
		return 1;
	}
	buf = malloc(size);
	memset(buf, 1, size);
	t0 = now_s();
	while (sent < total) {
		ssize_t n = send(fd, buf, size, zc ? MSG_ZEROCOPY : 0);
		if (n < 0 && errno != ENOBUFS) {
			perror("bench_dp_zerocopy: send");
			return 1;
		}
		if (n > 0)
			sent += n;
		if (zc)
			copied += drain(fd, &notes);
	}
	shutdown(fd, SHUT_WR);
	wait(NULL);
	t = now_s() - t0;
	printf("%.2f Gbit/s, %ld completions, %ld of them copied\n", total * 8 / t / 1e9, notes,
	       copied);
	free(buf);
	return 0;
}
