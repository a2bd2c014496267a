/* SPDX-License-Identifier: MIT */
/* swctl keygen: makes the cluster key that agents and the controller prove to each other. */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "sw_wire.h"

static void keygen_usage(FILE *f)
{
	fprintf(f,
	        "usage: swctl keygen FILE\n\n"
	        "Writes a new cluster key (%d random bytes from OpenSSL, as hex) to FILE, created\n"
	        "with mode 0600; an existing FILE is never overwritten. Copy it to every node\n"
	        "(readable only by the user that runs swagent or swcontroller there) and name it\n"
	        "in each daemon's config as key_file.\n",
	        SW_WIRE_KEY_LEN);
}

int cmd_keygen(int argc, char **argv)
{
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		keygen_usage(stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-') {
		keygen_usage(stderr);
		return 2;
	}
	char err[SW_WIRE_ERRLEN];
	if (sw_wire_key_generate(argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "swctl keygen: %s\n", err);
		return 1;
	}
	return 0;
}
