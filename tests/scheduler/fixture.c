/* SPDX-License-Identifier: MIT */
#include "fixture.h"

void fx_cluster_init(struct fx_cluster *c, uint32_t n_racks, uint32_t per_rack)
{
	assert_true(n_racks * per_rack <= FX_MAX_NODES);
	for (uint32_t r = 0; r < n_racks; r++)
		c->racks[r] = (struct sw_rack_spec){.uplink_bps = 10e9};
	for (uint32_t i = 0; i < n_racks * per_rack; i++)
		c->nodes[i] = (struct sw_node_spec){
		        .rack = i / per_rack,
		        .map_slots = 2,
		        .reduce_slots = 2,
		        .capacity = {.cpu = 8, .mem_gb = 16},
		        .nic_bps = 1e9,
		};
	c->spec = (struct sw_cluster_spec){n_racks, n_racks * per_rack, c->racks, c->nodes};
}

struct sw_sched *fx_sched(const struct fx_cluster *c, const char *policy, uint32_t n_users)
{
	struct sw_sched_config cfg;
	struct sw_sched *s;

	sw_sched_config_default(&cfg);
	cfg.policy = policy;
	cfg.n_users = n_users;
	cfg.n_queues = n_users;
	s = sw_sched_create(&c->spec, &cfg);
	assert_non_null(s);
	return s;
}

void fx_job_init(struct fx_job *j, uint64_t id, uint32_t user, double arrival, uint32_t n_maps,
                 uint32_t n_reduces, uint32_t n_nodes)
{
	assert_true(n_maps <= FX_MAX_MAPS);
	for (uint32_t m = 0; m < n_maps; m++)
		j->maps[m] = (struct sw_map_spec){
		        .input_bytes = 128 << 20,
		        .n_replicas = 1,
		        .replicas = {m % n_nodes},
		};
	j->spec = (struct sw_job_spec){
	        .id = id,
	        .user = user,
	        .queue = user,
	        .arrival = arrival,
	        .n_maps = n_maps,
	        .maps = j->maps,
	        .n_reduces = n_reduces,
	        .map_demand = {1, 1},
	        .reduce_demand = {1, 1},
	};
}

void fx_map_on(struct fx_job *j, uint32_t m, int n, ...)
{
	va_list ap;

	va_start(ap, n);
	j->maps[m].n_replicas = (uint8_t)n;
	for (int r = 0; r < n; r++)
		j->maps[m].replicas[r] = va_arg(ap, uint32_t);
	va_end(ap);
}

int fx_offer(struct sw_sched *s, uint32_t node, enum sw_task_kind kind, uint16_t free, double now,
             struct sw_assignment *out)
{
	struct sw_heartbeat hb = {.node = node};

	hb.free_slots[kind] = free;
	return sw_sched_heartbeat(s, &hb, now, out, free);
}

struct sw_assignment fx_one(struct sw_sched *s, uint32_t node, enum sw_task_kind kind, double now)
{
	struct sw_assignment a;

	assert_int_equal(fx_offer(s, node, kind, 1, now, &a), 1);
	assert_int_equal(a.kind, kind);
	return a;
}

void fx_world_init(struct fx_world *w, uint32_t n_racks, uint32_t per_rack, const char *policy,
                   uint32_t n_maps, uint32_t n_reduces)
{
	fx_cluster_init(&w->c, n_racks, per_rack);
	w->s = fx_sched(&w->c, policy, 2);
	fx_job_init(&w->j, 1, 0, 0, n_maps, n_reduces, w->c.spec.n_nodes);
	assert_int_equal(sw_sched_job_add(w->s, &w->j.spec, 0), 0);
}

uint64_t fx_next_map(struct sw_sched *s, uint32_t n_nodes, double now)
{
	for (uint32_t n = 0; n < n_nodes; n++) {
		struct sw_assignment a;

		if (fx_offer(s, n, SW_MAP, 1, now, &a) == 1)
			return a.job;
	}
	fail_msg("no free map slot");
	return 0;
}
