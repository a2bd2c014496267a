/* SPDX-License-Identifier: MIT */
/*
 * Polo's accelerated pools (ICPP'10, thesis 3.4.3; notes-polo-adaptive-ras.md 5), the PICK of
 * adaptive-hw. Nodes of hardware pool 0 are the regular pool, all others the accelerated one.
 *
 * - Calibration: until a job has a finished map on a pool it runs one map there at a time,
 *   the thesis's calibration task; once it has one on each pool it is accelerable when
 *   mu_reg / mu_acc exceeds cfg.accel_threshold, else regular. Without accelerated slots no
 *   job is classified, and adaptive-hw schedules as adaptive does.
 * - Keys (order_adaptive.c): an accelerable job's maps rank by s_req,acc (Eq. 2).
 * - Pools by deferral, as data affinity defers: an accelerable job is barred from the regular
 *   nodes' ready heap while its regular need s_req,extra (Eq. 3) is not positive, and a
 *   calibrating job from a pool's while its calibration map runs there (the core keeps a
 *   heap per class of node, so a node walks only jobs that may take its slot); on an
 *   accelerated node a regular job yields while an accelerable job with a positive need
 *   waits, unless its own goal is missed or its whole need exceeds the regular pool's map
 *   slots. The notes' exception also asks that it exceed the top accelerable need: a walk in
 *   key order reaches a regular job only after every accelerable job ranked above it, so the
 *   waiting ones all need less.
 * The map taken on the node is then data affinity's choice (pick_affinity.c).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "policy.h"

enum accel_class { ACCEL_UNKNOWN, ACCEL_REGULAR, ACCEL_ACCELERABLE };

/* A job's maps per pool; a finished map's length stays when its output is lost later: it
 * measured the pool all the same. */
struct accel_job {
	double sum[SCHED_HW_CLASSES];
	uint32_t done[SCHED_HW_CLASSES], running[SCHED_HW_CLASSES];
	enum accel_class cls;
	double need; /* what Adaptive ranked its maps on (sw_sched_accel_keyed) */
	bool needy;  /* counted in accel_state.needy */
};

struct accel_state {
	uint32_t slots[SCHED_HW_CLASSES]; /* map slots of the nodes up */
	uint32_t needy; /* accelerable jobs with maps pending and a positive need */
};

static double mean(const struct accel_job *a, int pool)
{
	return a->sum[pool] / a->done[pool];
}

double sw_sched_accel_extra(double speedup, double need, uint32_t r_acc, uint32_t r_reg,
                            double acc_slots)
{
	/* Eq. 3 reads s_req,acc as the job's whole accelerated need (the worked example: 15
	 * needed, 10 in the pool, 10 regular); Eq. 2's is what it needs beyond its running
	 * maps, so those are added back, and the regular maps it runs already are taken off. */
	return speedup * (need + r_acc - acc_slots) - r_reg;
}

bool sw_sched_accel_pool(const struct sched_job *j, double *mu, uint32_t *running)
{
	const struct accel_job *a = j->accel;

	if (a->cls != ACCEL_ACCELERABLE)
		return false;
	*mu = mean(a, SCHED_HW_ACCEL);
	*running = a->running[SCHED_HW_ACCEL];
	return true;
}

static void set_needy(struct accel_state *st, struct accel_job *a, bool needy)
{
	if (a->needy == needy)
		return;
	a->needy = needy;
	if (needy)
		st->needy++;
	else
		st->needy--;
}

void sw_sched_accel_keyed(const struct sw_sched *s, const struct sched_job *j, double need)
{
	j->accel->need = need;
	set_needy(s->pick_priv, j->accel,
	          j->accel->cls == ACCEL_ACCELERABLE && j->pending[SW_MAP] > 0 && need > 0);
}

/* Until it has a finished map on a pool, @p j runs one map at a time there. */
static bool calibrating_on(const struct sw_sched *s, const struct accel_job *a, int pool)
{
	const struct accel_state *st = s->pick_priv;

	return a->cls == ACCEL_UNKNOWN && st->slots[SCHED_HW_ACCEL] > 0 && a->done[pool] == 0 &&
	       a->running[pool] > 0;
}

bool sw_sched_accel_barred(const struct sw_sched *s, const struct sched_job *j, enum sched_hw hw)
{
	const struct accel_state *st = s->pick_priv;
	const struct accel_job *a = j->accel;

	switch (a->cls) {
	case ACCEL_UNKNOWN:
		return calibrating_on(s, a, hw);
	case ACCEL_ACCELERABLE:
		/* No finite need: a missed goal runs anywhere, a job without one never defers. */
		return hw == SCHED_HW_REGULAR && isfinite(a->need) &&
		       sw_sched_accel_extra(mean(a, SCHED_HW_REGULAR) / mean(a, SCHED_HW_ACCEL),
		                            a->need, a->running[SCHED_HW_ACCEL],
		                            a->running[SCHED_HW_REGULAR],
		                            st->slots[SCHED_HW_ACCEL]) <= 0;
	case ACCEL_REGULAR:
		return false; /* it yields to others' needs, which its key does not follow */
	}
	return false;
}

/* Whether regular job @p j leaves an accelerated map slot to the next job in Adaptive's
 * order: while an accelerable job with a positive need waits, unless its whole need (its
 * running maps and s_req more; NAN claims nothing) exceeds the whole regular pool: a busy
 * pool has no free slot, and any positive need would then count. */
static bool yields(const struct sw_sched *s, const struct sched_job *j)
{
	const struct accel_state *st = s->pick_priv;
	const struct accel_job *a = j->accel;
	double whole = a->need + a->running[SCHED_HW_REGULAR];

	return a->cls == ACCEL_REGULAR && st->needy > 0 && !(whole > st->slots[SCHED_HW_REGULAR]);
}

/* Adaptive gives each job a pool of its own: the pool's runnable map is its one job's. */
static bool accel_pick(struct sw_sched *s, struct sched_pool *pool, uint32_t node,
                       enum sw_task_kind kind, double now, struct sched_choice *c)
{
	struct accel_state *st = s->pick_priv;
	const struct sched_job *head = pool->runnable[SW_MAP].head;
	enum sched_hw hw = sw_sched_node_hw(s, node);
	struct accel_job *a;

	if (kind == SW_MAP && hw == SCHED_HW_ACCEL && head && yields(s, head))
		return false;
	if (!sw_sched_pick_affinity.pick(s, pool, node, kind, now, c))
		return false;
	if (kind == SW_REDUCE)
		return true;
	a = c->job->accel;
	a->running[hw]++;
	if (c->job->pending[SW_MAP] == 1) /* its last: Adaptive keys it no more as a map job */
		set_needy(st, a, false);
	return true;
}

/* Map @p task of @p j stopped running (finished, failed or lost with its node). */
static int map_stopped(const struct sw_sched *s, struct sched_job *j, uint32_t task)
{
	int hw = sw_sched_node_hw(s, j->tasks[SW_MAP][task].node);

	j->accel->running[hw]--;
	return hw;
}

static void accel_task_finished(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                                uint32_t task, double now)
{
	struct accel_job *a = j->accel;
	int hw;

	(void)now;
	if (kind == SW_REDUCE)
		return;
	hw = map_stopped(s, j, task);
	a->sum[hw] += j->tasks[SW_MAP][task].duration;
	a->done[hw]++;
	if (a->cls == ACCEL_UNKNOWN && a->done[SCHED_HW_REGULAR] > 0 && a->done[SCHED_HW_ACCEL] > 0)
		a->cls =
		        mean(a, SCHED_HW_REGULAR) > s->cfg.accel_threshold * mean(a, SCHED_HW_ACCEL)
		                ? ACCEL_ACCELERABLE
		                : ACCEL_REGULAR;
}

/* A map back to pending was running when the core, which released it first, counts fewer
 * running maps than we do; otherwise it was done and lost its output. */
static void accel_task_requeued(struct sw_sched *s, struct sched_job *j, enum sw_task_kind kind,
                                uint32_t task)
{
	const struct accel_job *a = j->accel;

	if (kind == SW_MAP &&
	    a->running[SCHED_HW_REGULAR] + a->running[SCHED_HW_ACCEL] > j->running[SW_MAP])
		map_stopped(s, j, task);
}

static int accel_job_added(struct sw_sched *s, struct sched_job *j, double now)
{
	(void)s;
	(void)now;
	j->accel = calloc(1, sizeof(*j->accel));
	if (!j->accel)
		return -ENOMEM;
	j->accel->need = NAN;
	return 0;
}

/* The core frees j->accel with the job. */
static void accel_job_removed(struct sw_sched *s, struct sched_job *j)
{
	set_needy(s->pick_priv, j->accel, false);
}

static void accel_node_changed(struct sw_sched *s, uint32_t node)
{
	struct accel_state *st = s->pick_priv;
	const struct sched_node *n = &s->nodes[node];

	if (n->down)
		st->slots[sw_sched_node_hw(s, node)] -= n->slots[SW_MAP];
	else
		st->slots[sw_sched_node_hw(s, node)] += n->slots[SW_MAP];
}

static int accel_init(struct sw_sched *s)
{
	struct accel_state *st = calloc(1, sizeof(*st));

	if (!st)
		return -ENOMEM;
	for (uint32_t n = 0; n < s->n_nodes; n++)
		if (!s->nodes[n].down)
			st->slots[sw_sched_node_hw(s, n)] += s->nodes[n].slots[SW_MAP];
	s->pick_priv = st;
	return 0;
}

static void accel_fini(struct sw_sched *s)
{
	free(s->pick_priv);
	s->pick_priv = NULL;
}

const struct sched_pick_ops sw_sched_pick_accel = {
        .init = accel_init,
        .fini = accel_fini,
        .job_added = accel_job_added,
        .job_removed = accel_job_removed,
        .task_finished = accel_task_finished,
        .task_requeued = accel_task_requeued,
        .node_changed = accel_node_changed,
        .pick = accel_pick,
        .hw_classes = true,
};
