/* SPDX-License-Identifier: MIT */
/*
 * badpeer: a hostile peer for the live suite. It connects to one daemon port and misbehaves
 * in one way, on a plain socket (no dataplane library, so nothing fixes its frames):
 *
 *   badpeer IP:PORT garbage       bytes that are no dataplane frame header
 *   badpeer IP:PORT huge          a frame header announcing 2 GiB, then a little payload
 *   badpeer IP:PORT truncated     a frame header announcing 200 bytes, 20 of them, then close
 *   badpeer IP:PORT junk TAG      a well-formed frame with tag TAG whose payload is junk
 *   badpeer IP:PORT hello NODE    a real wire Hello for NODE, then close before Auth
 *
 * Frames are the tcp backend's: a 16-byte little-endian header {u32 len, u32 type (1: a
 * message), u64 tag} and the payload (dataplane/README.md). It prints its own address (what
 * the daemon's log line must name) on stdout. Each mode waits up to 2 s for the daemon to close
 * the connection and exits 0; a connection that cannot be made exits 1.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <sw_wire.h>

static int dial(const char *addr)
{
	char ip[64];
	const char *colon = strrchr(addr, ':');
	if (!colon || (size_t)(colon - addr) >= sizeof(ip))
		return -1;
	memcpy(ip, addr, (size_t)(colon - addr));
	ip[colon - addr] = 0;
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(atoi(colon + 1))};
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1 ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror(addr);
		return -1;
	}
	socklen_t len = sizeof(sa);
	char me[INET_ADDRSTRLEN];
	if (getsockname(fd, (struct sockaddr *)&sa, &len) == 0 &&
	    inet_ntop(AF_INET, &sa.sin_addr, me, sizeof(me)))
		printf("%s:%u\n", me, ntohs(sa.sin_port));
	fflush(stdout);
	return fd;
}

static void put_frame(int fd, uint32_t len, uint64_t tag, const void *data, size_t n)
{
	uint8_t h[16];
	uint32_t l = htole32(len), type = htole32(1);
	uint64_t t = htole64(tag);
	memcpy(h, &l, 4);
	memcpy(h + 4, &type, 4);
	memcpy(h + 8, &t, 8);
	if (write(fd, h, sizeof(h)) != sizeof(h) || (n && write(fd, data, n) != (ssize_t)n))
		perror("write");
}

/* Reads and drops what the daemon sends until it closes (or 2 s pass). */
static void drain(int fd)
{
	char buf[4096];
	struct pollfd p = {fd, POLLIN, 0};
	while (poll(&p, 1, 2000) > 0 && read(fd, buf, sizeof(buf)) > 0)
		;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr,
		        "usage: badpeer IP:PORT garbage|huge|truncated|junk TAG|hello NODE\n");
		return 2;
	}
	int fd = dial(argv[1]);
	if (fd < 0)
		return 1;
	const char *mode = argv[2];
	uint8_t junk[64];
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (uint8_t)(0xa5 ^ (i * 37));
	if (!strcmp(mode, "garbage")) {
		if (write(fd, junk, sizeof(junk)) != sizeof(junk))
			perror("write");
	} else if (!strcmp(mode, "huge")) {
		put_frame(fd, 0x80000000u, SW_WIRE_HELLO, junk, sizeof(junk));
	} else if (!strcmp(mode, "truncated")) {
		put_frame(fd, 200, SW_WIRE_HELLO, junk, 20);
		close(fd);
		return 0;
	} else if (!strcmp(mode, "junk") && argc == 4) {
		put_frame(fd, sizeof(junk), strtoull(argv[3], NULL, 0), junk, sizeof(junk));
	} else if (!strcmp(mode, "hello") && argc == 4) {
		struct sw_wire_handshake hs;
		SwWire__Hello h = SW_WIRE__HELLO__INIT;
		void *buf;
		size_t len;
		char err[SW_WIRE_ERRLEN];
		if (sw_wire_hello_init(&hs, argv[3], &h) ||
		    sw_wire_encode(SW_WIRE_HELLO, &h.base, &buf, &len, err, sizeof(err))) {
			fprintf(stderr, "badpeer: cannot make a Hello for %s\n", argv[3]);
			return 1;
		}
		put_frame(fd, (uint32_t)len, SW_WIRE_HELLO, buf, len);
		free(buf);
		/* the Challenge comes back; leave without answering it */
		char b[256];
		struct pollfd p = {fd, POLLIN, 0};
		if (poll(&p, 1, 2000) > 0 && read(fd, b, sizeof(b)) < 0)
			perror("read");
		close(fd);
		return 0;
	} else {
		fprintf(stderr, "badpeer: unknown mode %s\n", mode);
		return 2;
	}
	drain(fd);
	close(fd);
	return 0;
}
