/* SPDX-License-Identifier: MIT */
#include "sw_fixture.h"

void swx_config(struct sw_sched_config *cfg, const char *policy, uint32_t n_users)
{
	sw_sched_config_default(cfg);
	cfg->policy = policy;
	cfg->n_users = n_users;
	cfg->n_queues = n_users;
	cfg->slowstart = 0;
	cfg->netsat_smoothing = 1;
}

struct sw_sched *swx_sched(const struct fx_cluster *c, const struct sw_sched_config *cfg)
{
	struct sw_sched *s = sw_sched_create(&c->spec, cfg);

	assert_non_null(s);
	return s;
}

int swx_util(struct sw_sched *s, const struct fx_cluster *c, struct swx_net *net, uint32_t rack,
             double u)
{
	double window = 3; /* the default netsat_window */
	int rc;

	if (!net->started[rack]) {
		assert_int_equal(sw_sched_net_sample(s, rack, 0, 0, 0), 0);
		net->started[rack] = true;
	}
	net->t[rack] += window;
	net->out[rack] += (uint64_t)(u * c->racks[rack].uplink_bps * window / 8);
	rc = sw_sched_net_sample(s, rack, net->out[rack], 0, net->t[rack]);
	assert_true(rc == 0 || rc == 1);
	return rc;
}

void swx_ratio(struct fx_job *j, struct sw_job_profile *p, double ratio)
{
	*p = (struct sw_job_profile){.shuffle_input_ratio = ratio};
	j->spec.profile = p;
}

struct sw_job_shuffle swx_view(struct sw_sched *s, uint64_t job, uint32_t n_racks,
                               uint8_t *map_racks, uint32_t *reduces)
{
	struct sw_job_shuffle st;

	assert_int_equal(sw_sched_job_shuffle(s, job, &st, map_racks, reduces, n_racks), 0);
	return st;
}

void swx_run_map(struct sw_sched *s, uint64_t job, uint32_t node, uint64_t bytes, double now)
{
	struct sw_assignment a = fx_one(s, node, SW_MAP, now);

	assert_int_equal(a.job, job);
	assert_int_equal(sw_sched_map_output(s, job, a.task, node, bytes, now), 0);
	assert_int_equal(sw_sched_task_finished(s, job, SW_MAP, a.task, now), 0);
}
