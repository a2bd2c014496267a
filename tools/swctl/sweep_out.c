/* SPDX-License-Identifier: MIT */
/* swctl sweep's files: sweep.csv, the two plots and one replay directory per point. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot.h"
#include "output.h"
#include "sweep.h"

void sweep_point_dir(const struct sweep *s, const struct grid_point *p, char *buf, size_t len)
{
	size_t n = strlen(s->out) + 1;

	snprintf(buf, len, "%s/%s", s->out, p->label);
	for (char *c = buf + (n < len ? n : len - 1); *c; c++)
		if (*c == '/')
			*c = '_';
}

static int write_csv(struct outdir *od, const struct sweep *s)
{
	FILE *f = outdir_open(od, "sweep.csv");

	if (!f)
		return -errno;
	for (int k = 0; k < s->n_params; k++)
		fprintf(f, "%s,", s->param[k].name);
	output_csv_header(f);
	for (int i = 0; i < s->g.n_points; i++) {
		const struct grid_point *p = &s->g.points[i];

		for (int r = 0; r < p->rep.n; r++) {
			/* all jobs first, then heavy to light, as the replay table shows them */
			for (int g = SW_CLASSES; g >= 0; g--) {
				for (int k = 0; k < s->n_params; k++)
					fprintf(f, "%s,", p->value[k]);
				output_csv_row(f, &p->rep, r, g);
			}
		}
	}
	return fclose(f) == 0 ? 0 : -EIO;
}

static int is_number(const char *v)
{
	char *end;

	strtod(v, &end);
	return end != v && !*end;
}

/* Ratios of every point's runs to their baseline, all jobs, as sweep_write_plots takes them. */
static double *run_ratios(const struct sweep *s)
{
	int n_sched = s->g.points[0].opts.n_schedulers;
	double *ratio = calloc((size_t)s->g.n_points * n_sched * 2, sizeof(*ratio));

	for (int i = 0; ratio && i < s->g.n_points; i++) {
		const struct grid_point *p = &s->g.points[i];
		const struct metrics_group *b = &p->m[p->opts.baseline_index].group[SW_CLASSES];

		for (int k = 0; k < n_sched; k++) {
			const struct metrics_group *m = &p->m[k].group[SW_CLASSES];
			double *r = &ratio[((size_t)i * n_sched + k) * 2];

			r[0] = report_ratio(m->jobs_per_hour, b->jobs_per_hour);
			r[1] = report_ratio((double)m->xrack_total, (double)b->xrack_total);
		}
	}
	return ratio;
}

/*
 * One line per scheduler (per scheduler and second-parameter value), the first parameter on
 * x: its values when they are all numbers, else evenly spaced categories. The data sit in the
 * script as datablocks, so the .gp file renders on its own.
 */
static int write_plot(struct outdir *od, const struct sweep *s, const char *name, int xrack,
                      const double *ratio)
{
	const struct sweep_param *x = &s->param[0];
	int n2 = s->n_params > 1 ? s->param[1].n : 1, numeric = 1, lines = 0;
	const struct grid_point *p0 = &s->g.points[0];
	char file[64];
	FILE *f;

	snprintf(file, sizeof(file), "%s.gp", name);
	f = outdir_open(od, file);
	if (!f)
		return -errno;
	for (int v = 0; v < x->n; v++)
		numeric &= is_number(x->value[v]);
	for (int s2 = 0; s2 < p0->opts.n_schedulers; s2++) {
		for (int j = 0; j < n2; j++, lines++) {
			fprintf(f, "$line%d << EOD\n", lines);
			for (int v = 0; v < x->n; v++) {
				if (numeric)
					fprintf(f, "%s", x->value[v]);
				else
					fprintf(f, "%d", v);
				fprintf(f, " \"%s\" %.4f\n", x->value[v],
				        ratio[((size_t)(v * n2 + j) * p0->opts.n_schedulers + s2) *
				                      2 +
				              xrack]);
			}
			fprintf(f, "EOD\n");
		}
	}
	fprintf(f,
	        "# Renders %s.png: gnuplot %s.gp\n"
	        "set terminal pngcairo size 900,600 font ',10'\n"
	        "set output '%s.png'\n"
	        "set title '%s relative to %s at each point, all jobs'\n"
	        "set xlabel '%s'\nset ylabel 'ratio to %s'\n"
	        "set key outside right top\nset grid\nset yrange [0:*]\nset offsets graph 0.05, "
	        "graph 0.05, 0, 0\n",
	        name, name, name, xrack ? "Cross-rack bytes" : "Throughput", s->fixed.baseline,
	        x->name, s->fixed.baseline);
	fprintf(f, "plot ");
	lines = 0;
	for (int s2 = 0; s2 < p0->opts.n_schedulers; s2++) {
		for (int j = 0; j < n2; j++, lines++) {
			fprintf(f, "%s$line%d using %s with linespoints lw 1.5 title '%s",
			        lines ? ", \\\n     " : "", lines, numeric ? "1:3" : "1:3:xtic(2)",
			        p0->opts.names[s2]);
			if (s->n_params > 1)
				fprintf(f, " %s=%s", s->param[1].name, s->param[1].value[j]);
			fprintf(f, "'");
		}
	}
	fprintf(f, "\n");
	return fclose(f) == 0 ? 0 : -EIO;
}

int sweep_write_plots(struct outdir *od, const struct sweep *s, const double *ratio)
{
	int rc = write_plot(od, s, "sweep-throughput", 0, ratio);

	return rc ? rc : write_plot(od, s, "sweep-xrack", 1, ratio);
}

int sweep_write(const struct sweep *s)
{
	int n = s->g.n_points, rc;
	struct outdir *od = calloc(n + 1, sizeof(*od));
	char dir[1024];

	if (!od)
		return -ENOMEM;
	rc = outdir_init(&od[n], s->out);
	for (int i = 0; rc == 0 && i < n; i++) {
		sweep_point_dir(s, &s->g.points[i], dir, sizeof(dir));
		rc = outdir_init(&od[i], dir);
		if (rc == 0)
			rc = output_write(&od[i], &s->g.points[i].rep);
	}
	if (rc == 0)
		rc = write_csv(&od[n], s);
	if (rc == 0) {
		double *ratio = run_ratios(s);

		rc = ratio ? sweep_write_plots(&od[n], s, ratio) : -ENOMEM;
		free(ratio);
	}
	/* The points' directories first: sweep.csv appears last, once everything is there. */
	for (int i = 0; rc == 0 && i <= n; i++)
		rc = outdir_commit(&od[i]);
	if (rc < 0)
		for (int i = 0; i <= n; i++)
			outdir_abort(&od[i]);
	free(od);
	return rc;
}

int sweep_plot(const struct sweep *s)
{
	char dir[1024];
	int rc = gnuplot_render(s->prefix, s->out, "sweep-throughput");

	if (rc == 0)
		rc = gnuplot_render(s->prefix, s->out, "sweep-xrack");
	if (rc < 0)
		return rc;
	for (int i = 0; i < s->g.n_points; i++) {
		sweep_point_dir(s, &s->g.points[i], dir, sizeof(dir));
		rc = output_plot(dir, &s->g.points[i].rep, s->prefix);
		if (rc < 0)
			return rc;
	}
	return 0;
}
