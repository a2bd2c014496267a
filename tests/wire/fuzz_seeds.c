/* SPDX-License-Identifier: MIT */
/* Writes the sample of every wire message type as DIR/NAME/sample, seeds for fuzz.sh, and
 * prints "TYPE NAME" for each on stdout. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "samples.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	for (int t = SW_WIRE_HELLO; t < SW_WIRE_TYPES; t++) {
		char path[4096];
		void *buf;
		size_t len;
		if (sw_wire_encode(t, wire_sample(t), &buf, &len, NULL, 0) < 0)
			return 1;
		snprintf(path, sizeof(path), "%s/%s", argv[1], sw_wire_type_name(t));
		mkdir(path, 0755);
		snprintf(path, sizeof(path), "%s/%s/sample", argv[1], sw_wire_type_name(t));
		FILE *f = fopen(path, "wb");
		if (f == NULL || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
			perror(path);
			return 1;
		}
		free(buf);
		printf("%d %s\n", t, sw_wire_type_name(t));
	}
	return 0;
}
