/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "mix.h"

void make_mix(struct mix *m)
{
	unsigned n_bench, i;

	memset(m, 0, sizeof(*m));
	sw_sim_topology_default(&m->w.topo);
	m->w.topo.n_racks = 3;
	m->w.topo.nodes_per_rack = 4;
	m->w.topo.nic_bps = 1e9;
	m->w.topo.oversub = 4;
	strcpy(m->w.name, "test-mix");
	m->w.n_users = 4;
	m->w.n_queues = 2;
	m->w.block_bytes = 64 * MB;
	m->w.seed = 7;
	m->w.n_jobs = N_JOBS;
	m->w.jobs = m->jobs;
	/* Table 1's benchmarks: the table's first entries, those with a share of the mixes */
	n_bench = 0;
	while (sw_sim_bench_table(NULL)[n_bench].mix_percent > 0)
		n_bench++;
	for (i = 0; i < N_JOBS; i++) {
		struct sw_job_desc *j = &m->jobs[i];
		const struct sw_bench *b;

		j->id = 1000 + i;
		j->arrival = 7.5 * i;
		j->user = i % 4;
		j->queue = i % 2;
		j->bench = (uint16_t)(i % n_bench);
		b = &sw_sim_bench_table(NULL)[j->bench];
		j->input_bytes = (1 + (i * 7) % 12) * 50 * MB + i * 12345;
		j->shuffle_bytes = (uint64_t)(j->input_bytes * b->shuffle_ratio);
		j->output_bytes = (uint64_t)(j->shuffle_bytes * b->output_ratio) + i;
		j->n_reduces = 1 + i % 5;
	}
}

void make_mix_config(struct mix *m, struct sw_sim_config *c)
{
	make_mix(m);
	sw_sim_config_default(c);
}

void run_with(const struct mix *m, const struct sw_sim_config *c, const char *policy,
              struct sw_sim_result *r)
{
	struct sw_sim_config d;
	struct sw_input_error err;
	int rc;

	if (c)
		d = *c;
	else
		sw_sim_config_default(&d);
	d.sched.policy = policy;
	rc = sw_sim_run(&m->w, &d, r, &err);
	if (rc)
		fail_msg("policy %s: sw_sim_run: %d: %s", policy, rc, err.msg);
}

void run(const struct mix *m, const char *policy, struct sw_sim_result *r)
{
	run_with(m, NULL, policy, r);
}
