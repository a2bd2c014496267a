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
// A decision's same_job counter is the share of decisions that launch the job the one
// before launched: near 1, the figure is that of one job hot in the cache.
// "plan/ras" times one RAS control cycle (sw_sched_plan: the placement of every job's slots
// on every node, and the re-ranking of every pool) on the same cluster; target 50 ms.
// "plan/reverse-adaptive" adds Algorithm 2's reverse fit over the 1,000 jobs' deadlines.
// Under the ShuffleWatcher (sw-*) policies every other rack is saturated, so decisions see
// both NASS orders. The last tenth of the nodes is the accelerated pool, which only
// adaptive-hw reads; a map lasts as long on either pool here, so its jobs calibrate regular.
//
// "job_add/<policy>" times sw_sched_job_add of one more 2,000-map job on the same cluster
// (SAMP runs inside it under sw-*; fair gives the cost without it); "samp/sw-fair" times
// SAMP's rack choice alone on the newest job (heavy, ratio 2). "sarp/sw-fair" times the
// finish of a job's last map, which enables its reduces and runs SARP over 250 racks. Target:
// under 1 ms per job for both. "decision/sw-fair-reduce-idle" and "-saturated" time reduce
// slots under NASS on an idle rack and on a saturated one where every user is held back.

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
// SAMP alone, timed below the public API: a job add also builds the locality indexes.
#include "nass.h"
}

namespace
{

constexpr uint32_t kRacks = 250, kPerRack = 40, kNodes = kRacks * kPerRack;
constexpr uint32_t kJobs = 1000, kUsers = 100, kQueues = 10, kMaps = 2000;
constexpr double kHeartbeat = 3.0; // seconds between two heartbeats of one node
const sw_job_profile kProfile = {10, 30, 60, 5, 10, 8, 15, 20, 40, 0, 128 << 20, 0.5};

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
			n.capacity = {8, 16, 0};
			n.nic_bps = 1e9;
			n.pool = i >= kNodes - kNodes / 10; // Polo's 10% accelerated (adaptive-hw)
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
		if (std::string(policy).rfind("sw-", 0) == 0)
			SaturateEveryOtherRack();
		// Fill every map slot; Delay needs simulated time to pass before it relaxes, and
		// adaptive-hw's jobs take no second map on a pool before their first there ends:
		// its maps end a round (3 s) after their launch, as long on both pools.
		bool calibrates = std::string(policy) == "adaptive-hw";
		for (int round = 0; round < 40 && launched_ < 2 * kNodes; round++) {
			for (uint32_t n = 0; n < kNodes; n++) {
				if (calibrates)
					FinishOldest(n);
				Offer(n, 2);
			}
		}
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
		if (running_[node].size() == 2)
			FinishOldest(node);
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
		for (int i = 0; i < n; i++) {
			running_[node].push_back({out[i].job, out[i].task});
			last_job_ = out[i].job;
		}
		launched_ += n > 0 ? n : 0;
		return n;
	}

	// HDFS placement: a random node, then two nodes of one other rack.
	sw_job_spec MakeJob(std::vector<sw_map_spec> &maps)
	{
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
		spec.map_demand = {1, 2, 0};
		spec.reduce_demand = {1, 2, 0};
		// For minedf and sw-minedf (the others ignore both): deadlines spread over a day,
		// so jobs sit in both EDF tiers; profile durations only (no shuffle ratio).
		spec.deadline = now_ + 3600 + static_cast<double>(spec.id % 1000) * 86.4;
		spec.profile = &kProfile;
		return spec;
	}

	// Timed: one job add on the busy cluster.
	double TimeJobAdd()
	{
		std::vector<sw_map_spec> maps(kMaps);
		sw_job_spec spec = MakeJob(maps);
		auto t0 = std::chrono::steady_clock::now();
		int rc = sw_sched_job_add(s_, &spec, now_);
		auto t1 = std::chrono::steady_clock::now();

		if (rc < 0)
			std::abort();
		return std::chrono::duration<double>(t1 - t0).count();
	}

	// The newest job, for timing SAMP on it.
	sched_job *NewestJob()
	{
		return sw_sched_job_table_find(&s_->jobs, next_id_ - 1);
	}

	sw_sched *Sched()
	{
		return s_;
	}

	// The job of the last task launched, 0 before any.
	uint64_t LastJob() const
	{
		return last_job_;
	}

      private:
	void FinishOldest(uint32_t node)
	{
		auto &q = running_[node];

		if (q.empty())
			return;
		Running r = q.front();
		q.pop_front();
		if (sw_sched_task_finished(s_, r.job, SW_MAP, r.task, now_) < 0)
			std::abort();
	}

	void AddJob()
	{
		std::vector<sw_map_spec> maps(kMaps);
		sw_job_spec spec = MakeJob(maps);

		if (sw_sched_job_add(s_, &spec, now_) < 0)
			std::abort();
	}

	// NetSat: a baseline, then one 3 s window at 100% on even racks and idle on odd ones.
	void SaturateEveryOtherRack()
	{
		for (uint32_t r = 0; r < kRacks; r++) {
			uint64_t bytes =
			        r % 2 ? 0 : static_cast<uint64_t>(racks_[r].uplink_bps * 3 / 8);

			if (sw_sched_net_sample(s_, r, 0, 0, now_) < 0 ||
			    sw_sched_net_sample(s_, r, bytes, 0, now_ + 3) < 0)
				std::abort();
		}
		now_ += 3;
	}

	std::vector<sw_rack_spec> racks_;
	std::vector<sw_node_spec> nodes_;
	std::vector<std::deque<Running>> running_;
	sw_sched *s_ = nullptr;
	std::mt19937_64 rng_{42};
	uint64_t next_id_ = 1, launched_ = 0, last_job_ = 0;
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
	int64_t launched = 0, same_job = 0;

	for (auto _ : state) {
		uint32_t node = c.FreeSlot();
		uint64_t before = c.LastJob();
		auto t0 = Clock::now();
		int n = c.Offer(node, 1);
		auto t1 = Clock::now();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
		launched += n;
		same_job += n > 0 && c.LastJob() == before;
	}
	state.counters["tasks_per_decision"] =
	        benchmark::Counter(static_cast<double>(launched) / state.iterations());
	state.counters["same_job"] =
	        benchmark::Counter(static_cast<double>(same_job) / state.iterations());
}

// One RAS control cycle: the PLAN that places every live job's slots on every node, then
// re-ranks the 1,000 pools by it. Target: under 50 ms.
void BM_Plan(benchmark::State &state, const char *policy)
{
	Steady &c = ClusterFor(policy);
	double now = 1e6;

	for (auto _ : state) {
		auto t0 = Clock::now();
		int rc = sw_sched_plan(c.Sched(), now);
		auto t1 = Clock::now();

		if (rc < 0)
			std::abort();
		now += 30;
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
	}
}

void BM_JobAdd(benchmark::State &state, const char *policy)
{
	Steady &c = ClusterFor(policy);

	for (auto _ : state)
		state.SetIterationTime(c.TimeJobAdd());
}

void BM_Samp(benchmark::State &state)
{
	Steady &c = ClusterFor("sw-fair");
	sched_job *j;
	uint32_t racks = 0;

	c.TimeJobAdd(); // a job whose maps have not started: SAMP's situation at submission
	j = c.NewestJob();
	for (auto _ : state) {
		auto t0 = Clock::now();
		racks = sw_sched_samp_choose(c.Sched(), j, 2.0);
		auto t1 = Clock::now();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
	}
	state.counters["map_racks"] = racks;
}

// SARP on an otherwise idle 10,000-node cluster: a job with one map per rack, each map's
// output on its rack; 249 maps finish untimed, the timed finish of the last one enables the
// reduces and runs SARP over the 250 racks.
void BM_Sarp(benchmark::State &state)
{
	std::vector<sw_rack_spec> racks(kRacks, sw_rack_spec{40e9});
	std::vector<sw_node_spec> nodes(kNodes);
	std::vector<sw_map_spec> maps(kRacks);
	sw_sched_config cfg;
	uint64_t id = 1;
	double now = 0;

	for (uint32_t i = 0; i < kNodes; i++)
		nodes[i] = sw_node_spec{i / kPerRack, 2, 2, {8, 16, 0}, 1e9, 0};
	for (uint32_t r = 0; r < kRacks; r++) {
		maps[r] = {};
		maps[r].input_bytes = 128u << 20;
		maps[r].n_replicas = 1;
		maps[r].replicas[0] = r * kPerRack;
	}
	sw_cluster_spec cluster = {kRacks, kNodes, racks.data(), nodes.data()};
	sw_sched_config_default(&cfg);
	cfg.policy = "sw-fair";
	sw_sched *s = sw_sched_create(&cluster, &cfg);
	if (!s)
		std::abort();
	for (auto _ : state) {
		sw_job_spec spec = {};
		sw_assignment a[2];
		std::vector<uint32_t> task(kRacks);

		spec.id = id++;
		spec.arrival = now;
		spec.n_maps = kRacks;
		spec.maps = maps.data();
		spec.n_reduces = 100;
		spec.map_demand = spec.reduce_demand = {1, 2, 0};
		if (sw_sched_job_add(s, &spec, now) < 0)
			std::abort();
		for (uint32_t r = 0; r < kRacks; r++) {
			sw_heartbeat hb = {};

			hb.node = r * kPerRack;
			hb.free_slots[SW_MAP] = 1;
			if (sw_sched_heartbeat(s, &hb, now, a, 1) != 1 ||
			    sw_sched_map_output(s, spec.id, a[0].task, hb.node, (r + 1) << 20,
			                        now) < 0)
				std::abort();
			task[r] = a[0].task;
		}
		for (uint32_t r = 0; r + 1 < kRacks; r++)
			if (sw_sched_task_finished(s, spec.id, SW_MAP, task[r], now) < 0)
				std::abort();
		auto t0 = Clock::now();
		int rc = sw_sched_task_finished(s, spec.id, SW_MAP, task[kRacks - 1], now);
		auto t1 = Clock::now();
		if (rc < 0)
			std::abort();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
		// Drain the reduces so that the job leaves and the next one starts alike.
		for (uint32_t k = 0; k < 100; k++) {
			sw_heartbeat hb = {};

			hb.node = k;
			hb.free_slots[SW_REDUCE] = 1;
			if (sw_sched_heartbeat(s, &hb, now, a, 1) != 1 ||
			    sw_sched_task_finished(s, spec.id, SW_REDUCE, a[0].task, now) < 0)
				std::abort();
		}
		now += 1;
	}
	sw_sched_destroy(s);
}

// Reduce slots under ShuffleWatcher, on 10,000 nodes with 1,000 shuffle-heavy jobs (100 users)
// whose maps are all still pending and whose reduces are past slow-start. On a saturated rack
// every user's reduces are heavy ones gated by line 9 while it has maps, so
// the decision visits every job of every user and hands out nothing: NASS's worst case. On
// an unsaturated rack line 13 serves the first user. A reduce handed out finishes at once
// (untimed), so the cluster stays as it is.
void BM_ReduceDecision(benchmark::State &state, bool saturated)
{
	std::vector<sw_rack_spec> racks(kRacks, sw_rack_spec{40e9});
	std::vector<sw_node_spec> nodes(kNodes);
	std::vector<sw_map_spec> maps(20);
	sw_job_profile heavy = {};
	sw_sched_config cfg;
	int64_t launched = 0;
	double now = 3;

	heavy.shuffle_input_ratio = 2;
	for (uint32_t i = 0; i < kNodes; i++)
		nodes[i] = sw_node_spec{i / kPerRack, 2, 2, {8, 16, 0}, 1e9, 0};
	sw_cluster_spec cluster = {kRacks, kNodes, racks.data(), nodes.data()};
	sw_sched_config_default(&cfg);
	cfg.policy = "sw-fair";
	cfg.n_users = kUsers;
	cfg.slowstart = 0;
	sw_sched *s = sw_sched_create(&cluster, &cfg);
	if (!s)
		std::abort();
	for (uint32_t j = 0; j < kJobs; j++) {
		sw_job_spec spec = {};

		for (uint32_t m = 0; m < maps.size(); m++) {
			maps[m] = {};
			maps[m].input_bytes = 128u << 20;
			maps[m].n_replicas = 1;
			maps[m].replicas[0] = (j * 7919 + m * 104729) % kNodes;
		}
		spec.id = j + 1;
		spec.user = j % kUsers;
		spec.n_maps = static_cast<uint32_t>(maps.size());
		spec.maps = maps.data();
		spec.n_reduces = 1000000;
		spec.map_demand = spec.reduce_demand = {1, 2, 0};
		spec.profile = &heavy;
		if (sw_sched_job_add(s, &spec, 0) < 0)
			std::abort();
	}
	for (uint32_t r = 0; r < kRacks; r++)
		if (sw_sched_net_sample(s, r, 0, 0, 0) < 0 ||
		    sw_sched_net_sample(s, r, r % 2 ? 0 : static_cast<uint64_t>(40e9 * 3 / 8), 0,
		                        3) < 0)
			std::abort();
	uint32_t k = 0;
	for (auto _ : state) {
		// Even racks are saturated, odd ones idle.
		uint32_t node = ((2 * k + (saturated ? 0 : 1)) % kRacks) * kPerRack + k % kPerRack;
		sw_heartbeat hb = {};
		sw_assignment a;

		k++;
		hb.node = node;
		hb.free_slots[SW_REDUCE] = 1;
		auto t0 = Clock::now();
		int n = sw_sched_heartbeat(s, &hb, now, &a, 1);
		auto t1 = Clock::now();
		state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
		if (n < 0 ||
		    (n == 1 && sw_sched_task_finished(s, a.job, SW_REDUCE, a.task, now) < 0))
			std::abort();
		launched += n;
		now += kHeartbeat / kNodes;
	}
	state.counters["tasks_per_decision"] =
	        benchmark::Counter(static_cast<double>(launched) / state.iterations());
	sw_sched_destroy(s);
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
	for (const char *p :
	     {"fifo", "fair", "drf", "capacity", "delay", "sw-fair", "sw-drf", "sw-relaxed",
	      "sw-nass", "sw-nass-sarp", "minedf", "sw-minedf", "adaptive", "adaptive-hw",
	      "sw-adaptive", "ras", "sw-ras", "reverse-adaptive"})
		all.push_back(benchmark::RegisterBenchmark(("decision/" + std::string(p)).c_str(),
		                                           BM_Decision, p));
	for (auto *b : all)
		b->UseManualTime()->Iterations(100000)->Repetitions(5)->ReportAggregatesOnly(true);
	// About 300 kB per added job: 200 iterations per repetition stay well within memory.
	for (const char *p : {"fair", "sw-fair"})
		benchmark::RegisterBenchmark(("job_add/" + std::string(p)).c_str(), BM_JobAdd, p)
		        ->UseManualTime()
		        ->Iterations(200)
		        ->Repetitions(5)
		        ->ReportAggregatesOnly(true)
		        ->Unit(benchmark::kMicrosecond);
	// Named decision/* so that perf/bench-sched.sh holds them to the decision target.
	for (bool saturated : {false, true})
		benchmark::RegisterBenchmark(saturated ? "decision/sw-fair-reduce-saturated"
		                                       : "decision/sw-fair-reduce-idle",
		                             BM_ReduceDecision, saturated)
		        ->UseManualTime()
		        ->Iterations(20000)
		        ->Repetitions(5)
		        ->ReportAggregatesOnly(true);
	for (const char *p : {"ras", "reverse-adaptive"})
		benchmark::RegisterBenchmark(("plan/" + std::string(p)).c_str(), BM_Plan, p)
		        ->UseManualTime()
		        ->Iterations(20)
		        ->Repetitions(5)
		        ->ReportAggregatesOnly(true)
		        ->Unit(benchmark::kMillisecond);
	benchmark::RegisterBenchmark("samp/sw-fair", BM_Samp)
	        ->UseManualTime()
	        ->Iterations(1000)
	        ->Repetitions(5)
	        ->ReportAggregatesOnly(true)
	        ->Unit(benchmark::kMicrosecond);
	benchmark::RegisterBenchmark("sarp/sw-fair", BM_Sarp)
	        ->UseManualTime()
	        ->Iterations(200)
	        ->Repetitions(5)
	        ->ReportAggregatesOnly(true)
	        ->Unit(benchmark::kMicrosecond);
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
