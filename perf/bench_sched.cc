// SPDX-License-Identifier: MIT
//
// One scheduling decision on a large, busy cluster: 10,000 nodes (250 racks x 40), 1,000
// live jobs of 2,000 maps each with 3 HDFS-placed replicas, spread over 100 users (10
// queues for Capacity). Every map slot is busy; each iteration finishes one map on the next
// node (not timed) and times the heartbeat that offers its one free map slot. Jobs that run
// out of maps are replaced, so the cluster stays in this steady state.
//
// Target: median below 5 us per decision for every policy. Run: build/perf/bench_sched
// "decision/clock-only" times two clock reads and nothing else: the floor of each figure.

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "sw_sched.h"
}

namespace
{

constexpr uint32_t kRacks = 250, kPerRack = 40, kNodes = kRacks * kPerRack;
constexpr uint32_t kJobs = 1000, kUsers = 100, kQueues = 10, kMaps = 2000;
constexpr double kHeartbeat = 3.0; // seconds between two heartbeats of one node

struct Running {
	uint64_t job;
	uint32_t task;
};

class Steady
{
      public:
	explicit Steady(const char *policy)
	{
		sw_rack_spec rack = {};
		rack.uplink_bps = 40e9;
		racks_.assign(kRacks, rack);
		for (uint32_t i = 0; i < kNodes; i++) {
			sw_node_spec n = {};
			n.rack = i / kPerRack;
			n.map_slots = 2;
			n.reduce_slots = 2;
			n.capacity = {8, 16};
			n.nic_bps = 1e9;
			nodes_.push_back(n);
		}
		sw_cluster_spec cluster = {kRacks, kNodes, racks_.data(), nodes_.data()};
		sw_sched_config cfg;
		sw_sched_config_default(&cfg);
		cfg.policy = policy;
		cfg.n_users = kUsers;
		cfg.n_queues = kQueues;
		s_ = sw_sched_create(&cluster, &cfg);
		if (!s_) {
			std::perror("sw_sched_create");
			std::abort();
		}
		running_.resize(kNodes);
		for (uint32_t j = 0; j < kJobs; j++)
			AddJob();
		// Fill every map slot; Delay needs simulated time to pass before it relaxes.
		for (int round = 0; round < 40 && launched_ < 2 * kNodes; round++)
			for (uint32_t n = 0; n < kNodes; n++)
				Offer(n, 2);
	}

	~Steady()
	{
		sw_sched_destroy(s_);
	}

	// Untimed half of an iteration: pick the next node and free one of its map slots.
	uint32_t FreeSlot()
	{
		uint32_t node = next_node_;

		next_node_ = (next_node_ + 7919) % kNodes; // a prime stride visits every rack
		auto &q = running_[node];
		if (q.size() == 2) {
			Running r = q.front();
			q.pop_front();
			if (sw_sched_task_finished(s_, r.job, SW_MAP, r.task, now_) < 0)
				std::abort();
		}
		while (sw_sched_jobs_live(s_) < kJobs)
			AddJob();
		return node;
	}

	// Timed half: the heartbeat offering that one free slot.
	int Offer(uint32_t node, uint16_t free)
	{
		sw_heartbeat hb = {};
		sw_assignment out[2];

		now_ += kHeartbeat / kNodes;
		hb.node = node;
		hb.free_slots[SW_MAP] = free;
		int n = sw_sched_heartbeat(s_, &hb, now_, out, free);
		for (int i = 0; i < n; i++)
			running_[node].push_back({out[i].job, out[i].task});
		launched_ += n > 0 ? n : 0;
		return n;
	}

      private:
	// HDFS placement: a random node, then two nodes of one other rack.
	void AddJob()
	{
		std::vector<sw_map_spec> maps(kMaps);
		std::uniform_int_distribution<uint32_t> node(0, kNodes - 1), rack(0, kRacks - 2),
		        slot(0, kPerRack - 1);

		for (auto &m : maps) {
			uint32_t first = node(rng_), r = rack(rng_);
			uint32_t other = (r >= first / kPerRack ? r + 1 : r) * kPerRack;
			uint32_t a = slot(rng_),
			         b = (a + 1 + slot(rng_) % (kPerRack - 1)) % kPerRack;

			m = {};
			m.input_bytes = 128u << 20;
			m.n_replicas = 3;
			m.replicas[0] = first;
			m.replicas[1] = other + a;
			m.replicas[2] = other + b;
		}
		sw_job_spec spec = {};
		spec.id = next_id_++;
		spec.user = static_cast<uint32_t>(spec.id % kUsers);
		spec.queue = spec.user % kQueues;
		spec.arrival = now_;
		spec.n_maps = kMaps;
		spec.maps = maps.data();
		spec.map_demand = {1, 2};
		spec.reduce_demand = {1, 2};
		if (sw_sched_job_add(s_, &spec, now_) < 0)
			std::abort();
	}

	std::vector<sw_rack_spec> racks_;
	std::vector<sw_node_spec> nodes_;
	std::vector<std::deque<Running>> running_;
	sw_sched *s_ = nullptr;
	std::mt19937_64 rng_{42};
	uint64_t next_id_ = 1, launched_ = 0;
	uint32_t next_node_ = 0;
	double now_ = 0;
};

// One cluster at a time (about 0.5 GB), kept across the repetitions of one policy.
Steady &ClusterFor(const std::string &policy)
{
	static std::unique_ptr<Steady> current;
	static std::string current_policy;

	if (!current || current_policy != policy) {
		current.reset();
		current = std::make_unique<Steady>(policy.c_str());
		current_policy = policy;
	}
	return *current;
}

// Each iteration times only the heartbeat, with the monotonic clock (vDSO, tens of ns):
// PauseTiming/ResumeTiming read the process CPU clock and leave about 0.5 us in the result.
using Clock = std::chrono::steady_clock;

void BM_Decision(benchmark::State &state, const char *policy)
{
	Steady &c = ClusterFor(policy);
	int64_t launched = 0;

	for (auto _ : state) {
		uint32_t node = c.FreeSlot();
		auto t0 = Clock::now();
		launched += c.Offer(node, 1);
		auto t1 = Clock::now();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
	}
	state.counters["tasks_per_decision"] =
	        benchmark::Counter(static_cast<double>(launched) / state.iterations());
}

// Reference: the two clock reads alone, to subtract from the figures above.
void BM_ClockOnly(benchmark::State &state)
{
	for (auto _ : state) {
		auto t0 = Clock::now();
		benchmark::ClobberMemory();
		auto t1 = Clock::now();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
	}
}

void Register()
{
	std::vector<benchmark::internal::Benchmark *> all;

	all.push_back(benchmark::RegisterBenchmark("decision/clock-only", BM_ClockOnly));
	for (const char *p : {"fifo", "fair", "drf", "capacity", "delay"})
		all.push_back(benchmark::RegisterBenchmark(("decision/" + std::string(p)).c_str(),
		                                           BM_Decision, p));
	for (auto *b : all)
		b->UseManualTime()->Iterations(100000)->Repetitions(5)->ReportAggregatesOnly(true);
}

} // namespace

int main(int argc, char **argv)
{
	Register();
	benchmark::Initialize(&argc, argv);
	if (benchmark::ReportUnrecognizedArguments(argc, argv))
		return 1;
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
