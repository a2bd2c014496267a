/* SPDX-License-Identifier: MIT */
/*
 * swctl sweep --list and --collect: a sweep whose points run elsewhere (GNU parallel over ssh,
 * a Slurm array), one `swctl replay` per point, and whose results come back into the same
 * sweep.csv and plots a local sweep writes. The points are the local sweep's (same parser,
 * same checks), so a listed point's replay writes the directory a local sweep would have.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "outdir.h"
#include "output.h"
#include "sweep.h"

/* One word for sh after @p sep: single quotes, a quote inside as '\''. */
static void put_word(FILE *f, const char *sep, const char *a)
{
	fputs(sep, f);
	fputc('\'', f);
	for (; *a; a++) {
		if (*a == '\'')
			fputs("'\\''", f);
		else
			fputc(*a, f);
	}
	fputc('\'', f);
}

/* Arguments of the sweep's own that a point's replay must not get: --param and --out with
 * their values. @return how many argv entries from @p i to leave out (0: keep it). */
static int sweep_only(int argc, char **argv, int i)
{
	static const char *const opts[] = {"--param", "--out"};

	for (size_t k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		size_t len = strlen(opts[k]);

		if (!strcmp(argv[i], opts[k]))
			return i + 1 < argc ? 2 : 1;
		if (!strncmp(argv[i], opts[k], len) && argv[i][len] == '=')
			return 1;
	}
	return 0;
}

int sweep_list(const struct sweep *s, int argc, char **argv)
{
	char exe[PATH_MAX], dir[1024];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct outdir od;
	FILE *f;
	int rc;

	if (n <= 0)
		n = snprintf(exe, sizeof(exe), "swctl");
	exe[n] = '\0';
	rc = outdir_init(&od, s->out);
	f = rc ? NULL : outdir_open(&od, "points.txt");
	if (!f) {
		rc = rc ? rc : -errno;
		fprintf(stderr, "%s: writing %s/points.txt: %s\n", s->prefix, s->out,
		        strerror(-rc));
		outdir_abort(&od);
		return rc;
	}
	for (int i = 0; i < s->g.n_points; i++) {
		const struct grid_point *p = &s->g.points[i];

		put_word(f, "", exe);
		fputs(" replay", f);
		for (int a = 1; a < argc; a++) {
			int skip = sweep_only(argc, argv, a);

			if (skip)
				a += skip - 1;
			else
				put_word(f, " ", argv[a]);
		}
		for (int k = 0; k < s->n_params; k++)
			put_word(f, " ", p->own[k]);
		sweep_point_dir(s, p, dir, sizeof(dir));
		fputs(" --out", f);
		put_word(f, " ", dir);
		fputs(" --no-plot --quiet\n", f);
	}
	rc = fclose(f) == 0 ? outdir_commit(&od) : -EIO;
	if (rc < 0) {
		fprintf(stderr, "%s: writing %s/points.txt: %s\n", s->prefix, s->out,
		        strerror(-rc));
		outdir_abort(&od);
		return rc;
	}
	printf("%d points in %s/points.txt, one swctl replay each: run them anywhere that sees "
	       "%s (e.g. parallel --sshlogin HOSTS < %s/points.txt), then swctl sweep --collect "
	       "with the same options\n",
	       s->g.n_points, s->out, s->out, s->out);
	return 0;
}

static int column(const char *header, const char *name)
{
	size_t len = strlen(name);
	int col = 0;

	for (const char *c = header; c; c = strchr(c, ','), c = c ? c + 1 : NULL, col++)
		if (!strncmp(c, name, len) && (c[len] == ',' || c[len] == '\n' || !c[len]))
			return col;
	return -1;
}

/* Field @p col of CSV line @p line (no quoting in results.csv), copied into @p buf. */
static const char *field(const char *line, int col, char *buf, size_t len)
{
	while (col-- > 0 && line)
		line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
	snprintf(buf, len, "%.*s", line ? (int)strcspn(line, ",\n") : 0, line ? line : "");
	return buf;
}

/* A point's results.csv, its rows each a line of @p rows (one scheduler after the other, each
 * light to heavy then all). @return the number of lines read, header included, or -errno. */
static int read_lines(FILE *f, char **rows, int max)
{
	size_t cap = 0;
	char *line = NULL;
	int n = 0;

	while (n < max && getline(&line, &cap, f) > 0) {
		rows[n++] = line;
		line = NULL;
		cap = 0;
	}
	free(line);
	return n;
}

/* Point @p i's rows into sweep.csv (all jobs first, then heavy to light, as a local sweep
 * writes them) and its ratios to the baseline into @p ratio. */
static int collect_point(struct sweep *s, int i, FILE *out, const char *header, double *ratio)
{
	const struct grid_point *p = &s->g.points[i];
	int n_sched = p->opts.n_schedulers, want = 1 + n_sched * METRICS_GROUPS, n, rc = 0;
	char path[1100], dir[1024], buf[128], *rows[1 + OPTIONS_MAX_SCHEDULERS * METRICS_GROUPS];
	FILE *f;

	sweep_point_dir(s, p, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/results.csv", dir);
	f = fopen(path, "re");
	if (!f) {
		rc = -errno;
		fprintf(stderr, "%s: point %s: %s: %s (has it run?)\n", s->prefix, p->label, path,
		        strerror(errno));
		return rc;
	}
	n = read_lines(f, rows, want < (int)(sizeof(rows) / sizeof(rows[0])) ? want + 1 : want);
	fclose(f);
	if (n != want || strcmp(rows[0], header)) {
		fprintf(stderr,
		        "%s: point %s: %s: not the results of this sweep's schedulers (%d lines, "
		        "%d expected, or another header)\n",
		        s->prefix, p->label, path, n, want);
		rc = -EINVAL;
	}
	for (int k = 0; rc == 0 && k < n_sched; k++) {
		const char *sched = field(rows[1 + k * METRICS_GROUPS], column(header, "scheduler"),
		                          buf, sizeof(buf));

		if (strcmp(sched, p->opts.names[k])) {
			fprintf(stderr, "%s: point %s: %s: scheduler '%s' where '%s' was run\n",
			        s->prefix, p->label, path, sched, p->opts.names[k]);
			rc = -EINVAL;
			break;
		}
		for (int g = METRICS_GROUPS - 1; g >= 0; g--) {
			const char *row = rows[1 + k * METRICS_GROUPS + g];

			for (int v = 0; v < s->n_params; v++)
				fprintf(out, "%s,", p->value[v]);
			fputs(row, out);
		}
		/* the last row of a scheduler is all jobs, whose ratios the plots show */
		ratio[((size_t)i * n_sched + k) * 2] =
		        strtod(field(rows[k * METRICS_GROUPS + METRICS_GROUPS],
		                     column(header, "throughput_vs_baseline"), buf, sizeof(buf)),
		               NULL);
		ratio[((size_t)i * n_sched + k) * 2 + 1] =
		        strtod(field(rows[k * METRICS_GROUPS + METRICS_GROUPS],
		                     column(header, "xrack_vs_baseline"), buf, sizeof(buf)),
		               NULL);
	}
	for (int r = 0; r < n; r++)
		free(rows[r]);
	return rc;
}

int sweep_collect(struct sweep *s)
{
	int n_sched = s->g.points[0].opts.n_schedulers, rc;
	double *ratio = calloc((size_t)s->g.n_points * n_sched * 2, sizeof(*ratio));
	char header[4096];
	struct outdir od;
	FILE *out = NULL, *f;

	/* The header every point must have is the one this swctl writes. */
	f = fmemopen(header, sizeof(header), "w");
	if (!ratio || !f) {
		free(ratio);
		if (f)
			fclose(f);
		return -ENOMEM;
	}
	output_csv_header(f);
	fclose(f);
	rc = outdir_init(&od, s->out);
	if (rc == 0) {
		out = outdir_open(&od, "sweep.csv");
		rc = out ? 0 : -errno;
	}
	if (rc == 0) {
		for (int k = 0; k < s->n_params; k++)
			fprintf(out, "%s,", s->param[k].name);
		fputs(header, out);
	}
	for (int i = 0; rc == 0 && i < s->g.n_points; i++)
		rc = collect_point(s, i, out, header, ratio);
	if (out && fclose(out) && rc == 0)
		rc = -EIO;
	if (rc == 0)
		rc = sweep_write_plots(&od, s, ratio);
	if (rc == 0)
		rc = outdir_commit(&od);
	free(ratio);
	if (rc < 0) {
		outdir_abort(&od);
		return rc;
	}
	printf("collected %d points: results in %s/ (sweep.csv, sweep-*.gp", s->g.n_points, s->out);
	if (s->fixed.plot) {
		rc = sweep_plot(s);
		printf("%s", rc == 0 ? ", sweep-throughput.png, sweep-xrack.png" : "");
	}
	printf(")\n");
	return rc;
}
