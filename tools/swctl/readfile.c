/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readfile.h"

char *read_text(const char *path, size_t cap, unsigned flags)
{
	FILE *f = (flags & READ_STDIN) && !strcmp(path, "-") ? stdin : fopen(path, "r");
	char *text = NULL, chunk[65536];
	size_t len = 0, got = 1, size = 0;
	FILE *m;

	if (!f)
		goto fail;
	m = open_memstream(&text, &size);
	while (m && got && (!cap || len < cap)) {
		size_t want = cap && cap - len < sizeof(chunk) ? cap - len : sizeof(chunk);

		got = fread(chunk, 1, want, f);
		len += fwrite(chunk, 1, got, m);
	}
	/* a short write or a read error leaves the text incomplete: it is not returned */
	if (!m || fclose(m) != 0 || ferror(f) || size != len) {
		free(text);
		text = NULL;
	}
	if (f != stdin)
		fclose(f);
	if (text)
		return text;
fail:
	if (!(flags & READ_QUIET))
		perror(path);
	return NULL;
}
