/* SPDX-License-Identifier: MIT */
/*
 * ARIA's completion-time prediction, checked against the simulated run (ARIA section 3.3:
 * a profile measured once predicts the job's later runs on other slot counts and datasets).
 * When a job ends, its task records give its ARIA profile (sw_sched_profile_build); the
 * first completed run of each program (benchmark) is kept as that program's profile, and
 * every later run is predicted from it: the low, average and up bounds of the job's own
 * task counts on the slots it was given, against its execution time (first launch to
 * finish). Choices: tools/sim/README.md, "ARIA's prediction".
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "sim_engine.h"
#include "sw_sched_aria.h"

struct edge {
	double t;
	int d; /* +1 a task starts, -1 one ends */
};

static int cmp_edge(const void *a, const void *b)
{
	const struct edge *x = a, *y = b;

	/* an end sorts before a start at the same instant: a slot handed straight on */
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return x->d - y->d;
}

/*
 * The slots a kind was given: the most of its @p n tasks running at once (ARIA's S_M or
 * S_R). Alone on an idle cluster that is min(tasks, slots); in a mix, the largest share its
 * scheduler gave it. 0 when out of memory (no prediction).
 */
static uint32_t slots_held(const struct sim_task *t, uint32_t n)
{
	struct edge *e = malloc(2 * (n ? n : 1) * sizeof(*e));
	int running = 0, most = 0;

	if (!e)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		e[2 * i] = (struct edge){t[i].start, 1};
		e[2 * i + 1] = (struct edge){t[i].end, -1};
	}
	qsort(e, 2 * (size_t)n, sizeof(*e), cmp_edge);
	for (uint32_t i = 0; i < 2 * n; i++) {
		running += e[i].d;
		most = running > most ? running : most;
	}
	free(e);
	return (uint32_t)most;
}

/* Mean bytes per map and per reduce of @p j: its dataset, against the profiled one's. */
static void task_bytes(const struct sim_job *j, double *map_input, double *reduce_input)
{
	*map_input = j->n_maps ? (double)j->desc->input_bytes / j->n_maps : 0;
	*reduce_input = j->n_reduces ? (double)j->desc->shuffle_bytes / j->n_reduces : 0;
}

static double ratio(double now, double then)
{
	return now > 0 && then > 0 ? now / then : 1;
}

/*
 * ARIA's footnote 6, which the paper omits: durations rescaled to the new dataset, maps by
 * their mean input, shuffles and reduces by their mean shuffled bytes.
 */
static struct sw_job_profile scaled(const struct sim_profile *pr, const struct sim_job *j)
{
	struct sw_job_profile p = pr->p;
	double mi, ri, fm, fr;

	task_bytes(j, &mi, &ri);
	fm = ratio(mi, pr->map_input);
	fr = ratio(ri, pr->reduce_input);
	p.map_min *= fm;
	p.map_avg *= fm;
	p.map_max *= fm;
	p.shuffle_first_avg *= fr;
	p.shuffle_first_max *= fr;
	p.shuffle_avg *= fr;
	p.shuffle_max *= fr;
	p.reduce_avg *= fr;
	p.reduce_max *= fr;
	return p;
}

static void predict(const struct sim_profile *pr, const struct sim_job *j,
                    struct sw_job_record *rec)
{
	struct sw_job_profile p = scaled(pr, j);
	struct sw_aria_model m;
	uint32_t held[SW_KINDS];

	held[SW_MAP] = slots_held(j->tasks, j->n_maps);
	held[SW_REDUCE] = slots_held(j->tasks + j->n_maps, j->n_reduces);
	if ((j->n_maps && !held[SW_MAP]) || (j->n_reduces && !held[SW_REDUCE]))
		return;
	rec->slots_held[SW_MAP] = held[SW_MAP];
	rec->slots_held[SW_REDUCE] = held[SW_REDUCE];
	for (int b = SW_ARIA_LOW; b <= SW_ARIA_UP; b++) {
		if (sw_sched_aria_model(&p, j->n_maps, j->n_reduces, b, &m) < 0)
			return;
		rec->predicted[b] = sw_sched_aria_time(&m, held[SW_MAP], held[SW_REDUCE]);
	}
}

/* The job's profile from its tasks' last attempts; -ENOMEM or -EINVAL (no map). */
static int measure(const struct sim_job *j, struct sw_job_profile *p)
{
	uint32_t n = j->n_maps + j->n_reduces;
	struct sw_task_record *recs = malloc((n ? n : 1) * sizeof(*recs));
	int rc;

	if (!recs)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		const struct sim_task *t = &j->tasks[i];

		recs[i] = (struct sw_task_record){
		        .kind = t->kind,
		        .start = t->start,
		        .end = t->end,
		        .shuffle_end = t->shuffle_end,
		        .bytes_in = t->kind == SW_MAP ? j->maps[i].input_bytes : t->shuffled,
		        .bytes_out = t->kind == SW_MAP ? j->maps[i].output_bytes : 0,
		};
	}
	rc = sw_sched_profile_build(recs, n, p);
	free(recs);
	return rc;
}

void sw_sim_predict_job_end(struct sim *s, const struct sim_job *j)
{
	struct sim_profile *pr = &s->profiles[j->desc->bench];

	if (j->rec->failed || j->rec->refused)
		return;
	j->rec->started = INFINITY;
	for (uint32_t i = 0; i < j->n_maps + j->n_reduces; i++)
		j->rec->started = fmin(j->rec->started, j->tasks[i].start);
	if (pr->have) {
		predict(pr, j, j->rec);
	} else if (measure(j, &pr->p) == 0) {
		task_bytes(j, &pr->map_input, &pr->reduce_input);
		pr->have = 1;
	}
}
